"""End-to-end fixtures: a fake Discord, the usual table, and the real bot connected to it.

Every test fails when the bot logged an ERROR (tree.on_error, a view's on_error, a dynamic item, an
unexpected-error code) or sent Discord a request real Discord would refuse (schema violations), unless the
test took them with ``harness.take_errors()`` / ``fake.violations.clear()``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import discord
import pytest

from tests.e2e.memory_store import install_if_missing

STAND_IN_STORE = install_if_missing()

from tests.fake_discord.harness import Harness, World, standard_world, start_bot  # noqa: E402
from tests.fake_discord.server import FakeDiscord  # noqa: E402

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


@pytest.fixture
def world(fake: FakeDiscord) -> World:
    return standard_world(fake)


@pytest.fixture
async def harness(fake: FakeDiscord, world: World, tmp_path) -> AsyncIterator[Harness]:
    running = await start_bot(fake, tmp_path)
    try:
        yield running
    finally:
        await running.stop()
        import logging

        logging.getLogger().removeHandler(running.errors)
    errors = running.take_errors()
    assert not errors, "the bot logged errors:\n" + "\n".join(
        f"{r.name}: {r.getMessage()}\n{r.exc_text or ''}" for r in errors
    )
    assert not fake.violations, "requests real Discord would refuse:\n" + "\n".join(map(str, fake.violations))
