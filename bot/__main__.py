"""`python -m bot`: run the bot, or one of its housekeeping commands (`python -m bot --help` lists them).
Without a token (or with --local) it runs the local table: the bot against a Discord stand-in, played in
the browser.

Each command is a subparser whose ``run`` default takes the parsed arguments and returns the exit status;
a new one is added in `build_parser`. Settings problems end the process with their sentences, never a
traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys

from bot.check import read_settings, summary
from bot.diagnostics import stacks_on_sigusr1, tasks_on_sigusr1
from bot.settings import TOKEN_HELP, Settings, install_redaction

SYNC_HELP = (
    "send the slash commands to Discord at start even when the bot thinks they did not change "
    "(the same as FORCE_SYNC=1)"
)
BAD_SETTINGS = 2  # the exit status when the settings stop the bot (or `check` found a problem)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bot",
        description="The tabletop dice bot. Without a command, it runs the bot.",
    )
    parser.add_argument("--sync", action="store_true", help=SYNC_HELP)
    parser.add_argument(
        "--local", action="store_true", help="run the local table even when DISCORD_TOKEN is set"
    )
    parser.add_argument(
        "--fresh", action="store_true", help="start the local table over (its data in data/local.db too)"
    )
    parser.add_argument("--port", type=int, default=8765, help="the local table's port (default 8765)")
    parser.set_defaults(run=run_bot)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    run = commands.add_parser("run", help="run the bot (the same as no command)")
    # SUPPRESS: `python -m bot --sync run` keeps the --sync given before the command
    run.add_argument("--sync", action="store_true", default=argparse.SUPPRESS, help=SYNC_HELP)
    run.set_defaults(run=run_bot)

    check = commands.add_parser(
        "check", help="check the settings (.env and the environment) and say what is missing or wrong"
    )
    check.set_defaults(run=check_settings)

    docs = commands.add_parser(
        "docs", help="write docs/commands.md and the README's tables from the code (no token needed)"
    )
    docs.add_argument("--check", action="store_true", help="only say whether they are up to date")
    docs.set_defaults(run=write_docs)

    backup = commands.add_parser(
        "backup", help="write a consistent copy of the database, safe while the bot runs"
    )
    backup.add_argument("path", nargs="?", help="where to write it (default: data/backups/bot-<time>.db)")
    backup.set_defaults(run=store_command, command="backup")
    restore = commands.add_parser(
        "restore", help="put a backup back in place of the database (refused while the bot runs)"
    )
    restore.add_argument("path", help="the backup to restore")
    restore.set_defaults(run=store_command, command="restore")

    copy = commands.add_parser(
        "copy-data",
        help="copy every sheet, hand, pool, supply die, modifier, setting and the roll log from one database "
        "to another (an SQLite file or a postgresql:// address), such as when moving to PostgreSQL",
    )
    copy.add_argument("--from", dest="source", required=True, metavar="SOURCE", help="e.g. data/bot.db")
    copy.add_argument(
        "--to", dest="target", required=True, metavar="TARGET", help="e.g. postgresql://bot:pw@host/bot"
    )
    copy.add_argument(
        "--force", action="store_true", help="replace what the target holds (refused without it)"
    )
    copy.add_argument(
        "--drop-nul",
        action="store_true",
        help="leave out of the copy the NUL characters PostgreSQL cannot store (the source keeps them)",
    )
    copy.set_defaults(run=copy_data)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command given on the command line; the exit status says how it ended."""
    stacks_on_sigusr1()
    args = build_parser().parse_args(argv)
    status: int = args.run(args)
    return status


def check_settings(args: argparse.Namespace) -> int:
    """`python -m bot check`: every problem, one sentence a line; or one OK line."""
    settings, found = read_settings()
    if settings is not None and not found and settings.database_url is not None:
        # the address may be well formed and still unusable (a wrong password, a database not made)
        from bot.store.postgres import reach

        problem, _ = asyncio.run(reach(settings.database_url.get_secret_value()))
        found = [problem] if problem else []
    if settings is None or found:
        print("\n".join(found), file=sys.stderr)
        return BAD_SETTINGS
    print(summary(settings))
    return 0


def write_docs(args: argparse.Namespace) -> int:
    """`python -m bot docs [--check]`: the generated pages, rewritten (or only compared)."""
    from bot.docs import REGENERATE, write  # imported late: it loads every cog

    changed = write(check_only=args.check)
    names = ", ".join(str(path) for path in changed)
    if args.check and changed:
        print(f"Out of date: {names}; run {REGENERATE}.", file=sys.stderr)
        return 1
    print(f"Rewrote {names}." if changed else "The generated pages are up to date.")
    return 0


def store_command(args: argparse.Namespace) -> int:
    """`python -m bot backup [PATH]` and `python -m bot restore PATH` on the configured database."""
    from bot.store.backup import main as run_store_command

    settings, found = read_settings()  # only the database path is used: token problems do not matter
    if settings is None:
        print("\n".join(found), file=sys.stderr)
        return BAD_SETTINGS
    if settings.database_url is not None:  # the SQLite file at DATABASE_PATH is not the bot's database
        print(
            f"The bot keeps its data in PostgreSQL (DATABASE_URL), so {args.command} does not apply: use "
            "PostgreSQL's pg_dump and pg_restore (README, Moving to PostgreSQL).",
            file=sys.stderr,
        )
        return 1
    words = [args.command, *([args.path] if args.path else [])]
    return run_store_command(words, settings.database_path)


def copy_data(args: argparse.Namespace) -> int:
    """`python -m bot copy-data --from SOURCE --to TARGET [--force] [--drop-nul]` (no settings or token
    needed)."""
    from bot.store.copy import main as run_copy

    return run_copy(args.source, args.target, args.force, args.drop_nul)


def run_bot(args: argparse.Namespace) -> int:
    """Run the bot until it is stopped; the exit status says why it stopped."""
    settings, found = read_settings(**({"force_sync": True} if args.sync else {}))
    if settings is not None and (settings.token() is None or args.local or args.fresh):
        from bot.local.table import run_local  # the local table uses neither the token nor DATABASE_PATH

        if settings.token() is None and not args.local:
            print(TOKEN_HELP, file=sys.stderr)
        return run_local(settings, fresh=args.fresh, port=args.port)
    if settings is None or found:  # the same checks as `check`, and the same sentences
        print("\n".join(found), file=sys.stderr)
        return BAD_SETTINGS
    token = settings.token()
    assert token is not None  # read_settings reports a missing token
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

    bot = TabletopBot(settings, freeze_gc=True, warm_workers=True)
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError):  # no signal handlers on some platforms
        loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(bot.close()))
        tasks_on_sigusr1(loop)
    async with bot:
        await bot.start(token)
    await bot.close()  # a close SIGTERM started is finished before asyncio.run cancels what is left


if __name__ == "__main__":
    sys.exit(main())
