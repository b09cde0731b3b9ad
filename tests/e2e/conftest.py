"""End-to-end fixtures: a fake Discord, the usual table, and the real bot connected to it.

Every test fails when the bot logged an ERROR (tree.on_error, a view's on_error, a dynamic item, an
unexpected-error code) or sent Discord a request real Discord would refuse (schema violations), unless the
test took them with ``harness.take_errors()`` / ``fake.violations.clear()``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.client import COGS
from bot.local.fake.harness import Harness, World, standard_world, start_bot
from bot.local.fake.server import FakeDiscord
from tests.e2e.probe_cog import PROBE

pytestmark = pytest.mark.slow


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    route_base = discord.http.Route.BASE
    gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    server = FakeDiscord()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
        discord.http.Route.BASE = route_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway
    assert_no_violations(server)  # also for tests that run the bot as a subprocess


@pytest.fixture
def world(fake: FakeDiscord) -> World:
    return standard_world(fake)


@asynccontextmanager
async def running_bot(fake: FakeDiscord, tmp_path: Path, **options: Any) -> AsyncIterator[Harness]:
    """The bot, started against ``fake``; on exit it stops; the test fails on logged errors or violations."""
    running = await start_bot(fake, tmp_path, **options)
    try:
        yield running
    finally:
        await running.stop()
        logging.getLogger().removeHandler(running.errors)
    check_clean(running, fake)


def check_clean(running: Harness, fake: FakeDiscord) -> None:
    """Fail on any error the bot logged and any request real Discord would have refused."""
    errors = running.take_errors()
    assert not errors, "the bot logged errors:\n" + "\n".join(
        f"{r.name}: {r.getMessage()}\n{r.exc_text or ''}" for r in errors
    )
    assert_no_violations(fake)


def assert_no_violations(fake: FakeDiscord) -> None:
    """Fail on any request real Discord would have refused (a test that provoked one clears them)."""
    assert not fake.violations, "requests real Discord would refuse:\n" + "\n".join(map(str, fake.violations))


@pytest.fixture
async def harness(fake: FakeDiscord, world: World, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot with its product cogs."""
    async with running_bot(fake, tmp_path) as running:
        yield running


@pytest.fixture
async def probe(fake: FakeDiscord, world: World, tmp_path: Path) -> AsyncIterator[Harness]:
    """The bot with its product cogs plus the test-only probe cog (tests/e2e/probe_cog.py)."""
    async with running_bot(fake, tmp_path, cogs=(*COGS, *PROBE)) as running:
        yield running
