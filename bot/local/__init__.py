"""The local table: the bot without Discord. A Discord stand-in on 127.0.0.1 runs the real bot, and a page
in the browser plays a small Discord guild against it (`python -m bot --local`)."""
