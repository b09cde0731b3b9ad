"""The local table: the real bot, unchanged, against a Discord stand-in on 127.0.0.1, played from a page.

`python -m bot --local` (and `./scripts/bot` without a token) runs it. The bot's data is its own SQLite
file (``data/local.db``), the table's guild, people and messages are in ``data/local-table/``; both are
kept between runs, and ``--fresh`` starts over.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr

from bot.diagnostics import tasks_on_sigusr1
from bot.local.play import PlayError, Table
from bot.local.stand_in import FakeDiscord
from bot.local.web import TablePage, listen
from bot.local.world import TableWorld, forget
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.client import TabletopBot

log = logging.getLogger(__name__)

DEFAULT_PORT = 8765
DATA = Path("data")
DATABASE = "local.db"
WORLD = "local-table"
# the stand-in takes any token; the user's real one must never reach it
TOKEN = "bG9jYWwtdGFibGU.stand-in.not-a-discord-token"
ADDRESS = "Local table at {url} - set DISCORD_TOKEN in .env to run on Discord"
OWN_DATABASE = "The local table keeps its data in {database}; DATABASE_URL is used by the bot on Discord."
SAVE_EVERY = 2.0  # seconds between two writes of the world while messages change
READY_WAIT = 60.0
TOKEN_LIFETIME = 15 * 60.0  # Discord: an interaction's token works for 15 minutes


def run_local(settings: Settings, *, fresh: bool = False, port: int = DEFAULT_PORT, data: Path = DATA) -> int:
    """Run the local table until Ctrl+C or SIGTERM; the exit status says why it stopped."""
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)-8s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if settings.log_level != "DEBUG":  # discord.py's connection chatter says nothing to someone playing
        logging.getLogger("discord").setLevel(logging.WARNING)
        logging.getLogger("discord.client").setLevel(logging.ERROR)  # "voice will NOT be supported"
    logging.getLogger("bot.client").addFilter(NoInviteLink())
    try:
        asyncio.run(serve(settings, fresh=fresh, port=port, data=data))
    except KeyboardInterrupt:
        return 0
    except (LocalTableError, OSError) as err:
        print(f"The local table stopped: {err}", file=sys.stderr)
        return 1
    return 0


class NoInviteLink(logging.Filter):
    """The bot logs a link to invite it to a server; here it would name the stand-in's made-up application."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Invite link")


class LocalTableError(Exception):
    """The bot could not start or stopped on its own."""


async def serve(
    settings: Settings,
    *,
    fresh: bool,
    port: int,
    data: Path,
) -> None:
    """Start the stand-in, the page and the bot; stop them all on Ctrl+C or SIGTERM."""
    from bot.client import TabletopBot  # imported late, like `python -m bot` does

    database, folder = data / DATABASE, data / WORLD
    try:
        listener = listen(port)
    except OSError as err:
        raise LocalTableError(f"port {port} is taken ({err.strerror}); choose another with --port") from None
    if fresh:
        for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
            path.unlink(missing_ok=True)
        forget(folder)
    data.mkdir(parents=True, exist_ok=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on every platform or thread
            loop.add_signal_handler(sig, stop.set)
    with contextlib.suppress(NotImplementedError, RuntimeError):
        tasks_on_sigusr1(loop)

    fake = FakeDiscord(validate=False)
    await fake.start()
    world, new = TableWorld.open(fake, folder)
    saver = Saver(world, fake)
    page = TablePage(fake, world, on_change=saver.soon)
    bot: TabletopBot | None = None
    try:
        url = await page.start(listener)
        local = settings.model_copy(
            update={
                "discord_token": SecretStr(TOKEN),
                "database_path": database,
                "database_url": None,  # the local table keeps its own SQLite file, whatever the bot uses
                "discord_api_base": fake.api_base,
                "dev_guild_id": None,
            }
        )
        bot = TabletopBot(local, guild_ready_timeout=0.2)
        running = asyncio.create_task(bot.start(TOKEN), name="local-table-bot")
        await _ready(bot, running)
        if new:
            await _set_up(Table(fake, world), world)
        saver.soon()
        print(ADDRESS.format(url=url), flush=True)
        if settings.database_url is not None:  # or a GM would believe the table tried their PostgreSQL
            print(OWN_DATABASE.format(database=database), flush=True)
        stopped = asyncio.create_task(stop.wait())
        await asyncio.wait({stopped, running}, return_when=asyncio.FIRST_COMPLETED)
        stopped.cancel()
        if running.done() and not stop.is_set():
            failure = None if running.cancelled() else running.exception()
            raise LocalTableError(f"the bot stopped: {failure!r}" if failure else "the bot stopped")
    finally:
        saver.cancel()
        world.save()
        if bot is not None:
            await bot.close()
        await page.stop()
        await fake.stop()


async def _ready(bot: TabletopBot, running: asyncio.Task[None]) -> None:
    waiter = asyncio.ensure_future(bot.wait_until_ready())
    done, _ = await asyncio.wait({waiter, running}, timeout=READY_WAIT, return_when=asyncio.FIRST_COMPLETED)
    if waiter not in done:
        waiter.cancel()
        if running.done() and running.exception() is not None:
            raise LocalTableError(f"the bot could not start: {running.exception()}")
        raise LocalTableError("the bot did not connect to the stand-in")


async def _set_up(table: Table, world: TableWorld) -> None:
    """What a server owner does first on a new server: name the GM channel, so GM and blind rolls reach
    the GM. Done as the owner, through the bot's own command."""
    try:
        await table.command(world.owner, world.table.id, "setup gm-channel", {"channel": world.gm_screen.id})
    except PlayError as err:  # the table still works; GM copies then go by DM
        log.warning("Could not set the GM channel: %s", err)


class Saver:
    """Writes the world a moment after it changed, at most every `SAVE_EVERY` seconds, and drops what the
    stand-in remembers for tests (every request, every interaction) so a long session does not grow."""

    def __init__(self, world: TableWorld, fake: FakeDiscord) -> None:
        self.world = world
        self.fake = fake
        self._pending: asyncio.TimerHandle | None = None

    def soon(self) -> None:
        if self._pending is None:
            self._pending = asyncio.get_running_loop().call_later(SAVE_EVERY, self._save)

    def _save(self) -> None:
        self._pending = None
        self.fake.requests.clear()
        expired = time.monotonic() - TOKEN_LIFETIME
        for token, record in list(self.fake.interactions.items()):
            if record.dispatched_at is not None and record.dispatched_at < expired:
                del self.fake.interactions[token]
        try:
            self.world.save()
        except OSError as err:
            log.warning("Could not save the table: %s", err)

    def cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
