"""The fake Discord itself: as strict as Discord where the bot could get it wrong.

These tests talk to the fake over HTTP and its gateway like a bot would, without the bot: a late
callback, an expired token, a rate limit or a slow route, a hidden command, shards.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.e2e.conftest import fake, world
from tests.fake_discord.harness import World, standard_world
from tests.fake_discord.server import API, FakeDiscord, InteractionRecord

__all__ = ["fake", "world"]  # fixtures shared with the e2e suite

EPHEMERAL = 1 << 6


class Gateway:
    """A minimal gateway client: connects, identifies, and reads dispatches."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.ready: dict[str, Any] = {}
        self.guild_ids: list[int] = []

    @classmethod
    async def connect(
        cls,
        session: aiohttp.ClientSession,
        fake: FakeDiscord,
        *,
        shard: list[int] | None = None,
        intents: int = 1,
        query: str = "?v=10&encoding=json",
    ) -> Gateway:
        gateway = cls(await session.ws_connect(fake.gateway_url + query))
        hello = await gateway.ws.receive_json(timeout=5)
        assert hello["op"] == 10
        identify: dict[str, Any] = {
            "token": "test-token",
            "intents": intents,
            "properties": {"os": "linux", "browser": "test", "device": "test"},
        }
        if shard is not None:
            identify["shard"] = shard
        await gateway.ws.send_json({"op": 2, "d": identify})
        gateway.ready = await gateway.next("READY")
        gateway.guild_ids = [int((await gateway.next("GUILD_CREATE"))["id"]) for _ in gateway.ready["guilds"]]
        return gateway

    async def next(self, event: str, timeout: float = 5.0) -> dict[str, Any]:
        """The data of the next dispatch of ``event`` (others are skipped)."""
        while True:
            frame = await self.ws.receive_json(timeout=timeout)
            if frame.get("op") == 0 and frame["t"] == event:
                return frame["d"]  # type: ignore[no-any-return]

    async def nothing_within(self, seconds: float) -> bool:
        """True when no dispatch arrives within ``seconds``."""
        try:
            frame = await self.ws.receive_json(timeout=seconds)
        except TimeoutError:
            return True
        raise AssertionError(f"unexpected frame {frame}")


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as client:
        yield client


async def call(
    session: aiohttp.ClientSession,
    fake: FakeDiscord,
    method: str,
    path: str,
    body: Any = None,
) -> tuple[int, Any]:
    """One REST request; the status and the JSON answer (None when there is none)."""
    async with session.request(method, fake.api_base + API + path, json=body) as response:
        text = await response.text()
        return response.status, (None if not text else await response.json())


def sync_commands(fake: FakeDiscord, commands: list[dict[str, Any]]) -> None:
    """Commands as if the bot had synced them globally."""
    fake.global_commands = fake._commands_out(commands, None)


HELLO = {"name": "hello", "description": "Says hello."}


async def dispatch_hello(fake: FakeDiscord, world: World) -> InteractionRecord:
    sync_commands(fake, [HELLO])
    data = fake.build_command_data(world.guild, "hello", {})
    record = fake.interaction_payload(2, data, user=world.alice, channel=world.general)
    await fake.dispatch("INTERACTION_CREATE", record.payload)
    return record


def callback_path(record: InteractionRecord) -> str:
    return f"/interactions/{record.id}/{record.token}/callback"


def webhook_path(fake: FakeDiscord, record: InteractionRecord, tail: str = "") -> str:
    return f"/webhooks/{fake.app_id}/{record.token}{tail}"


# -- deadlines ---------------------------------------------------------------------------------------------
async def test_a_callback_within_three_seconds_is_taken(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    gateway = await Gateway.connect(session, fake)
    record = await dispatch_hello(fake, world)
    assert (await gateway.next("INTERACTION_CREATE"))["id"] == str(record.id)
    fake.advance_clock(2.9)
    answer = {"type": 4, "data": {"content": "hi"}}
    status, _ = await call(session, fake, "POST", callback_path(record), answer)
    assert status == 204
    assert record.original is not None and record.original.content == "hi"
    assert fake.violations == []


async def test_a_callback_later_than_three_seconds_is_an_unknown_interaction(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    await Gateway.connect(session, fake)
    record = await dispatch_hello(fake, world)
    fake.advance_clock(3.05)
    status, body = await call(
        session, fake, "POST", callback_path(record), {"type": 4, "data": {"content": "hi"}}
    )
    assert (status, body) == (404, {"message": "Unknown interaction", "code": 10062})
    assert record.callback is None and record.original is None  # nothing shown to anyone
    assert record.late_callback is not None and 3.0 < record.late_callback < 4.0
    [violation] = fake.violations
    assert "after INTERACTION_CREATE" in violation.problem and record.token not in violation.path
    fake.violations.clear()


async def test_the_callback_deadline_runs_on_the_real_clock_and_is_a_parameter(
    world: World, session: aiohttp.ClientSession
) -> None:
    strict = FakeDiscord(callback_deadline=0.2)
    await strict.start()
    try:
        strict_world = standard_world(strict)
        await Gateway.connect(session, strict)
        record = await dispatch_hello(strict, strict_world)
        await asyncio.sleep(0.3)
        status, body = await call(session, strict, "POST", callback_path(record), {"type": 5})
        assert (status, body["code"]) == (404, 10062)
    finally:
        await strict.stop()


async def test_an_injected_clock_times_the_deadlines(world: World, session: aiohttp.ClientSession) -> None:
    now = [1000.0]
    ticking = FakeDiscord(clock=lambda: now[0])
    await ticking.start()
    try:
        table = standard_world(ticking)
        await Gateway.connect(session, ticking)
        record = await dispatch_hello(ticking, table)
        assert record.dispatched_clock == 1000.0
        now[0] += 3.5
        status, _ = await call(session, ticking, "POST", callback_path(record), {"type": 5})
        assert status == 404
    finally:
        await ticking.stop()


async def test_follow_ups_and_edits_work_for_fifteen_minutes_then_are_refused(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    await Gateway.connect(session, fake)
    record = await dispatch_hello(fake, world)
    assert (await call(session, fake, "POST", callback_path(record), {"type": 5}))[0] == 204
    fake.advance_clock(14 * 60)
    original = webhook_path(fake, record, "/messages/@original")
    status, _ = await call(session, fake, "PATCH", original, {"content": "a"})
    assert status == 200
    followup = webhook_path(fake, record, "?wait=true")
    status, sent = await call(session, fake, "POST", followup, {"content": "b"})
    assert status == 200
    fake.advance_clock(61 + 1)
    refused = {"message": "Unknown interaction", "code": 10062}
    for method, tail, body in [
        ("PATCH", "/messages/@original", {"content": "late"}),
        ("POST", "", {"content": "late"}),
        ("GET", "/messages/@original", None),
        ("PATCH", f"/messages/{sent['id']}", {"content": "late"}),
        ("DELETE", f"/messages/{sent['id']}", None),
    ]:
        assert await call(session, fake, method, webhook_path(fake, record, tail), body) == (404, refused)
    assert record.original is not None and record.original.content == "a"
    assert [m.content for m in record.followups] == ["b"]
    assert len(fake.violations) == 5
    assert all(record.token not in v.path for v in fake.violations)
    fake.violations.clear()
