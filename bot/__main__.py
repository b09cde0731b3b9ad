"""`python -m bot`: read the settings, refuse clearly without a token, run the bot.

`python -m bot backup [PATH]` and `python -m bot restore PATH` copy the database out and back in
(`bot.store.backup`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

from pydantic import ValidationError

from bot.settings import TOKEN_HELP, Settings, install_redaction


def main() -> int:
    """Run the bot until it is stopped; the exit status says why it stopped."""
    try:
        settings = Settings()
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        field = ".".join(str(p) for p in first["loc"]).upper()
        print(f"Bad setting {field}: {first['msg']}.", file=sys.stderr)
        return 2
    if sys.argv[1:2] in (["backup"], ["restore"]):
        from bot.store.backup import main as store_command

        return store_command(sys.argv[1:], settings.database_path)
    token = settings.token()
    if token is None:
        print(TOKEN_HELP, file=sys.stderr)
        return 2
    install_redaction(token)
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    settings.database_path.parent.mkdir(parents=True, exist_ok=True)

    try:
        asyncio.run(_run(settings, token))
    except KeyboardInterrupt:
        return 0
    except Exception as err:  # a refused token or a lost connection: one line, no traceback
        logging.getLogger("bot").error("The bot stopped: %s", err)
        return 1
    return 0


async def _run(settings: Settings, token: str) -> None:
    from bot.client import TabletopBot  # imported late: a missing token must not need discord at all

    bot = TabletopBot(settings, freeze_gc=True)
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError):  # no signal handlers on some platforms
        loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(bot.close()))
    async with bot:
        await bot.start(token)


if __name__ == "__main__":
    sys.exit(main())
