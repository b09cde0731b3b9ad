"""Reliability fixtures: the e2e fake Discord and table, raw interactions, database dumps, a bot in a thread.

`send_raw` sends an interaction built by hand (no checks of option types or ranges: the fake's
`build_command_data` refuses what Discord would refuse, hostile tests need exactly that) and returns
whatever the bot did, answered or not. `dump` reads every table of the bot's database through a separate
read-only connection. `BotThread` runs the fake and the in-process bot on an event loop in a thread, so
synchronous hypothesis tests can drive one bot across many examples.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import discord
import pytest

from bot.client import COGS
from bot.local.fake.harness import Answer, Harness, World, standard_world, start_bot
from bot.local.fake.server import FakeDiscord, InteractionRecord
from tests.e2e.conftest import check_clean, fake, harness, probe, running_bot, world

__all__ = [
    "BotThread",
    "check_clean",
    "dump",
    "fake",
    "harness",
    "probe",
    "rows",
    "running_bot",
    "send_raw",
    "world",
]

T = TypeVar("T")


def dump(database: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (the state a hostile input must not change)."""
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        tables = [
            row[0]
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                "ORDER BY name"
            )
        ]
        return {table: conn.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall() for table in tables}
    finally:
        conn.close()


def rows(database: Path, table: str) -> list[dict[str, Any]]:
    """The rows of one table as dicts, in rowid order."""
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in conn.execute(f'SELECT * FROM "{table}" ORDER BY rowid')]
    finally:
        conn.close()


async def send_raw(harness: Harness, record: InteractionRecord) -> Answer:
    """Dispatch ``record`` and wait until the bot finished handling it; it may have left it unanswered."""
    seen = harness._seen.setdefault(record.id, asyncio.Event())
    await harness.fake.dispatch("INTERACTION_CREATE", record.payload)
    await harness._settle(record, seen)
    return Answer(record, harness.fake.message_log[record.first_message_index :], harness.fake)


def only_ephemeral_or_nothing(answer: Answer) -> list[str]:
    """What is wrong when an answer shows anything to anyone but the user (an empty list when fine)."""
    problems = []
    for message in answer.messages:
        if not message.ephemeral and not message.deleted:
            problems.append(f"visible message: {message.text()[:300]!r}")
    return problems


async def _cancel_the_rest() -> None:
    """Cancel what the stopped bot left on its loop: discord.py gives a view sent on an ephemeral message a
    15-minute timeout task (its token's lifetime), and nothing stops it when the client closes."""
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


class BotThread:
    """The fake and the real bot (in-process) running on their own event loop in a thread."""

    def __init__(
        self,
        folder: Path,
        cogs: Sequence[str] = COGS,
        build_world: Callable[[FakeDiscord], World] = standard_world,
    ) -> None:
        self._build_world = build_world
        self._route = discord.http.Route.BASE
        self._gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        self.database = folder / "bot.db"
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="bot-thread", daemon=True)
        self.thread.start()
        self._folder, self._cogs = folder, cogs
        self.fake, self.world, self.harness = self.run(self._start(folder, cogs))

    async def _start(self, folder: Path, cogs: Sequence[str]) -> tuple[FakeDiscord, World, Harness]:
        server = FakeDiscord()
        await server.start()
        table = self._build_world(server)
        harness = await start_bot(server, folder, cogs=cogs, database=self.database)
        return server, table, harness

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 120) -> T:
        """Run ``coro`` on the bot's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def restart(self) -> None:
        """Stop the bot and start a new one on the same database, connected to the same fake: a restart."""
        logging.getLogger().removeHandler(self.harness.errors)
        self.run(self.harness.stop())
        self.harness = self.run(start_bot(self.fake, self._folder, cogs=self._cogs, database=self.database))

    def close(self) -> None:
        try:
            self.run(self.harness.stop())
            self.run(self.fake.stop())
            self.run(_cancel_the_rest())
        finally:
            logging.getLogger().removeHandler(self.harness.errors)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(30)
            self.loop.close()
            discord.http.Route.BASE = self._route
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = self._gateway


@pytest.fixture(scope="module")
def bot_thread(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotThread]:
    """One bot for a whole module of hypothesis tests."""
    running = BotThread(tmp_path_factory.mktemp("bot-thread"))
    try:
        yield running
    finally:
        running.close()


_ = (
    fake,
    world,
    harness,
    probe,
    running_bot,
    check_clean,
)  # fixtures and helpers re-exported for the tests here
