"""`python -m bot`: read the settings and run the bot; without a token (or with --local) run the local
table instead: the bot against a Discord stand-in, played in the browser."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys

from pydantic import ValidationError

from bot.settings import TOKEN_HELP, Settings, install_redaction


def main(argv: list[str] | None = None) -> int:
    """Run the bot until it is stopped; the exit status says why it stopped."""
    args = _arguments(argv)
    try:
        settings = Settings()
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        field = ".".join(str(p) for p in first["loc"]).upper()
        print(f"Bad setting {field}: {first['msg']}.", file=sys.stderr)
        return 2
    token = settings.token()
    if token is None or args.local or args.fresh:
        from bot.local.table import run_local

        if token is None and not args.local:
            print(TOKEN_HELP, file=sys.stderr)
        return run_local(settings, fresh=args.fresh, port=args.port)
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


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bot", description=__doc__)
    parser.add_argument(
        "--local", action="store_true", help="run the local table even when DISCORD_TOKEN is set"
    )
    parser.add_argument(
        "--fresh", action="store_true", help="start the local table over (its data in data/local.db too)"
    )
    parser.add_argument("--port", type=int, default=8765, help="the local table's port (default 8765)")
    return parser.parse_args(argv)


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
