"""The fake Discord itself: as strict as Discord where the bot could get it wrong.

These tests talk to the fake over HTTP and its gateway like a bot would, without the bot: a late
callback, an expired token, a rate limit or a slow route, a hidden command, shards.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest

from bot.client import point_at
from bot.local.fake.harness import World, standard_world
from bot.local.fake.schema import validator
from bot.local.fake.server import (
    API,
    CHANNEL_POST_ROUTE,
    DM_POST_ROUTE,
    CommandUnavailable,
    FakeDiscord,
    InteractionRecord,
    posts_to,
)
from bot.local.fake.world import ADMINISTRATOR, MANAGE_GUILD, USE_APPLICATION_COMMANDS, FakeMessage
from tests.e2e.conftest import fake, world

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


# -- rate limits, server errors, slow routes ---------------------------------------------------------------
async def post_message(
    session: aiohttp.ClientSession, fake: FakeDiscord, channel_id: int, content: str = "x"
) -> tuple[int, Any, dict[str, str]]:
    url = f"{fake.api_base}{API}/channels/{channel_id}/messages"
    async with session.post(url, json={"content": content}) as response:
        return response.status, await response.json(content_type=None), dict(response.headers)


async def upload(
    session: aiohttp.ClientSession, fake: FakeDiscord, channel_id: int
) -> tuple[int, Any, dict[str, str]]:
    form = aiohttp.FormData(quote_fields=False)
    payload = {"content": "file", "attachments": [{"id": 0, "filename": "log.csv"}]}
    form.add_field("payload_json", json.dumps(payload), content_type="application/json")
    form.add_field("files[0]", b"a,b\n1,2\n", filename="log.csv", content_type="text/csv")
    url = f"{fake.api_base}{API}/channels/{channel_id}/messages"
    async with session.post(url, data=form) as response:
        return response.status, await response.json(content_type=None), dict(response.headers)


async def test_a_429_carries_retry_after_and_the_rate_limit_headers_discord_sends(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    fault = fake.fail(posts_to(world.gm_screen), status=429, retry_after=4, times=1, bucket="abc123")
    status, body, headers = await post_message(session, fake, world.gm_screen.id)
    assert status == 429
    assert body == {"message": "You are being rate limited.", "retry_after": 4, "global": False}
    assert headers["Retry-After"] == "4" and headers["Via"].startswith("1.1")
    assert headers["X-RateLimit-Limit"] == "5" and headers["X-RateLimit-Remaining"] == "0"
    assert headers["X-RateLimit-Reset-After"] == "4.000" and headers["X-RateLimit-Bucket"] == "abc123"
    assert headers["X-RateLimit-Scope"] == "user"
    assert abs(float(headers["X-RateLimit-Reset"]) - (time.time() + 4)) < 2
    assert headers["Content-Type"] == "application/json"
    assert fake.message_log == []  # refused, not carried out
    status, _, _ = await post_message(session, fake, world.gm_screen.id)  # times=1: the next one passes
    assert status == 200 and fault.hits == 1 and len(fake.message_log) == 1
    status, _, _ = await post_message(session, fake, world.general.id)  # another channel: never affected
    assert status == 200


async def test_a_global_429_says_so_in_its_body_and_headers(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    fake.fail("*", r"^/channels/", status=429, retry_after=0.5, is_global=True)
    status, body, headers = await post_message(session, fake, world.general.id)
    assert status == 429 and body["global"] is True and body["retry_after"] == 0.5
    assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"
    assert headers["Retry-After"] == "1"
    assert "X-RateLimit-Bucket" not in headers


@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_a_server_error_n_times_then_normal_service(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession, status: int
) -> None:
    fault = fake.fail(CHANNEL_POST_ROUTE, status=status, times=2)
    answers = [(await post_message(session, fake, world.general.id))[:2] for _ in range(3)]
    assert [a[0] for a in answers] == [status, status, 200]
    assert answers[0][1]["message"].startswith(str(status)) and fault.hits == 2
    assert len(fake.message_log) == 1


async def test_a_fault_for_ever_and_the_old_two_argument_form(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    fake.fail("POST", r"^/channels/\d+/messages$", status=503, times=None)
    assert {(await post_message(session, fake, world.general.id))[0] for _ in range(6)} == {503}
    fake.faults.clear()
    assert (await post_message(session, fake, world.general.id))[0] == 200


async def test_after_carries_the_request_out_and_then_answers_the_error(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    fake.fail(CHANNEL_POST_ROUTE, status=500, after=True)
    assert (await post_message(session, fake, world.general.id))[0] == 500
    assert len(fake.message_log) == 1  # Discord posted it; the answer was lost


async def test_dm_routes_match_only_dm_channels_even_ones_opened_later(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    fault = fake.fail(DM_POST_ROUTE, status=429, retry_after=1, times=None)
    assert (await post_message(session, fake, world.general.id))[0] == 200
    status, dm = await call(session, fake, "POST", "/users/@me/channels", {"recipient_id": str(world.gm.id)})
    assert status == 200
    assert (await post_message(session, fake, int(dm["id"])))[0] == 429
    assert fault.hits == 1


async def test_a_delay_makes_one_route_slow_and_leaves_the_others_fast(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    slow = fake.delay(DM_POST_ROUTE, seconds=0.6)
    dm = fake.dm_channel(world.gm)
    started = time.monotonic()
    fast, slowed = await asyncio.gather(
        post_message(session, fake, world.general.id, "fast"), post_message(session, fake, dm.id, "slow")
    )
    assert fast[0] == slowed[0] == 200
    assert time.monotonic() - started >= 0.6 and slow.hits == 1
    assert [m.content for m in fake.message_log] == ["fast", "slow"]  # carried out after the wait


async def test_a_delay_for_some_times_by_method_and_path(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    fake.delay("POST", rf"^/channels/{world.general.id}/messages$", seconds=0.4, times=1)
    durations = []
    for _ in range(2):
        started = time.monotonic()
        await post_message(session, fake, world.general.id)
        durations.append(time.monotonic() - started)
    assert durations[0] >= 0.4 > durations[1]


async def test_uploads_can_be_made_slow_or_failing_apart_from_plain_posts(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    fake.delay(CHANNEL_POST_ROUTE, seconds=0.4, uploads=True)
    fault = fake.fail(CHANNEL_POST_ROUTE, status=429, retry_after=0.1, uploads=True)
    started = time.monotonic()
    assert (await post_message(session, fake, world.general.id))[0] == 200
    assert time.monotonic() - started < 0.4
    started = time.monotonic()
    assert (await upload(session, fake, world.general.id))[0] == 429
    assert (await upload(session, fake, world.general.id))[0] == 200
    assert time.monotonic() - started >= 0.8 and fault.hits == 1
    assert fake.message_log[-1].attachments[0].data == b"a,b\n1,2\n"
    assert fake.violations == []


async def test_discord_py_waits_out_a_429_and_retries(fake: FakeDiscord, world: World) -> None:
    fake.fail(posts_to(world.general), status=429, retry_after=0.3, times=1)
    point_at(fake.api_base)  # the e2e fixture `fake` puts discord.py back afterwards
    client = discord.Client(intents=discord.Intents.none())
    try:
        await client.login("fake-token")
        started = time.monotonic()
        await client.get_partial_messageable(world.general.id).send("x")
        assert time.monotonic() - started >= 0.3
    finally:
        await client.close()
    assert [m.content for m in fake.message_log] == ["x"]


# -- who may invoke a command ------------------------------------------------------------------------------
COMMANDS = [
    {"name": "roll", "description": "Anyone.", "options": [{"name": "n", "description": "n", "type": 4}]},
    {"name": "gm", "description": "Manage Server.", "default_member_permissions": str(MANAGE_GUILD)},
    {"name": "lockdown", "description": "Admins only.", "default_member_permissions": "0"},
    {"name": "dmonly", "description": "DMs only.", "contexts": [1, 2]},
    {"name": "old-guildonly", "description": "No DMs.", "dm_permission": False},
]


def invoke(fake: FakeDiscord, world: World, user: Any, name: str, channel: Any = None) -> InteractionRecord:
    where = channel or world.general
    data = fake.build_command_data(fake.guilds.get(where.guild_id or 0), name, {})
    return fake.interaction_payload(2, data, user=user, channel=where, check_permissions=True)


async def test_default_member_permissions_decide_who_can_invoke(fake: FakeDiscord, world: World) -> None:
    sync_commands(fake, COMMANDS)
    admin = fake.add_user("admin")
    fake.add_member(world.guild, admin, [fake.add_role(world.guild, "Admins", permissions=ADMINISTRATOR)])
    allowed = {
        "roll": {"owner", "manager", "gamemaster", "alice", "admin"},
        "gm": {"owner", "manager", "admin"},
        "lockdown": {"owner", "admin"},
    }
    for name, users in allowed.items():
        for user in (world.owner, world.manager, world.gm, world.alice, admin):
            if user.username in users:
                assert invoke(fake, world, user, name).payload["data"]["name"] == name
            else:
                before = len(fake.interactions)
                with pytest.raises(CommandUnavailable, match=rf"/{name}.*{user.username} lacks"):
                    invoke(fake, world, user, name)
                assert len(fake.interactions) == before  # nothing was made, nothing can be sent


async def test_the_reason_names_the_missing_permission(fake: FakeDiscord, world: World) -> None:
    sync_commands(fake, COMMANDS)
    with pytest.raises(CommandUnavailable, match=r"alice lacks manage_guild \(default_member_permissions"):
        invoke(fake, world, world.alice, "gm")


async def test_autocomplete_of_a_hidden_command_is_refused_too(fake: FakeDiscord, world: World) -> None:
    sync_commands(fake, [{**COMMANDS[0], "default_member_permissions": str(MANAGE_GUILD)}])
    data = fake.build_command_data(world.guild, "roll", {"n": 1}, focused="n")
    with pytest.raises(CommandUnavailable):
        fake.interaction_payload(4, data, user=world.alice, channel=world.general, check_permissions=True)
    manager = fake.interaction_payload(
        4, data, user=world.manager, channel=world.general, check_permissions=True
    )
    assert manager.type == 4


async def test_contexts_and_dm_permission_decide_where(fake: FakeDiscord, world: World) -> None:
    sync_commands(fake, COMMANDS)
    with pytest.raises(CommandUnavailable, match="not available in servers"):
        invoke(fake, world, world.alice, "dmonly")
    dm = fake.dm_channel(world.alice)
    assert invoke(fake, world, world.alice, "dmonly", dm).payload["context"] == 1
    assert invoke(fake, world, world.alice, "gm", dm).payload["context"] == 1  # no member permissions in DMs
    with pytest.raises(CommandUnavailable, match="not available in DMs"):
        invoke(fake, world, world.alice, "old-guildonly", dm)
    assert invoke(fake, world, world.alice, "old-guildonly").type == 2


async def test_an_admin_can_grant_or_deny_a_command_per_role_member_and_channel(
    fake: FakeDiscord, world: World
) -> None:
    sync_commands(fake, COMMANDS)
    fake.set_command_permissions(world.guild, "gm", allow=[world.gm_role])
    assert invoke(fake, world, world.gm, "gm").type == 2  # the GM role may, though it lacks Manage Server
    fake.set_command_permissions(world.guild, "gm", deny=[world.gm])
    with pytest.raises(CommandUnavailable, match="turned /gm off for gamemaster"):
        invoke(fake, world, world.gm, "gm")  # a member's own override wins over their role's
    fake.set_command_permissions(world.guild, "roll", deny=[world.gm_screen])
    with pytest.raises(CommandUnavailable, match="off in #gm-screen"):
        invoke(fake, world, world.alice, "roll", world.gm_screen)
    assert invoke(fake, world, world.owner, "roll", world.gm_screen).type == 2  # the owner sees everything
    fake.set_command_permissions(world.guild, "roll", deny=[world.guild])
    with pytest.raises(CommandUnavailable):
        invoke(fake, world, world.alice, "roll")


async def test_a_member_without_use_application_commands_sees_none(fake: FakeDiscord, world: World) -> None:
    sync_commands(fake, COMMANDS)
    world.guild.everyone.permissions &= ~USE_APPLICATION_COMMANDS
    with pytest.raises(CommandUnavailable, match="Use Application Commands"):
        invoke(fake, world, world.alice, "roll")


async def test_visible_commands_is_what_typing_a_slash_lists(fake: FakeDiscord, world: World) -> None:
    sync_commands(fake, COMMANDS)
    names = {c["name"] for c in fake.visible_commands(world.alice, world.general)}
    assert names == {"roll", "old-guildonly"}
    names = {c["name"] for c in fake.visible_commands(world.owner, world.general)}
    assert names == {"roll", "gm", "lockdown", "old-guildonly"}
    names = {c["name"] for c in fake.visible_commands(world.alice, fake.dm_channel(world.alice))}
    assert names == {"roll", "gm", "lockdown", "dmonly"}


async def test_clicks_are_not_checked_against_command_permissions(fake: FakeDiscord, world: World) -> None:
    sync_commands(fake, COMMANDS)
    message = FakeMessage(1, world.general.id, world.guild.id, fake.bot_user)
    data = {"custom_id": "x", "component_type": 2}
    assert (
        fake.interaction_payload(3, data, user=world.alice, channel=world.general, message=message).type == 3
    )


async def test_a_raw_payload_can_skip_the_check(fake: FakeDiscord, world: World) -> None:
    sync_commands(fake, COMMANDS)
    data = fake.build_command_data(world.guild, "gm", {})
    record = fake.interaction_payload(2, data, user=world.alice, channel=world.general)  # a forged call
    assert record.payload["member"]["permissions"] == str(world.guild.members[world.alice.id].permissions)


# -- the gateway and its shards ----------------------------------------------------------------------------
async def guilds_on_both_shards(fake: FakeDiscord) -> dict[int, list[int]]:
    """Enough guilds that each of two shards holds some (a guild's shard follows its id's timestamp)."""
    while len({(g >> 22) % 2 for g in fake.guilds}) < 2:
        fake.add_guild(f"Guild {len(fake.guilds)}")
        await asyncio.sleep(0.002)
    by_shard: dict[int, list[int]] = {0: [], 1: []}
    for guild_id in fake.guilds:
        by_shard[(guild_id >> 22) % 2].append(guild_id)
    return by_shard


async def test_get_gateway_bot_gives_the_url_with_its_slash_shards_and_session_limits(
    fake: FakeDiscord, session: aiohttp.ClientSession
) -> None:
    status, bot_gateway = await call(session, fake, "GET", "/gateway/bot")
    assert status == 200 and bot_gateway["url"] == fake.gateway_url and fake.gateway_url.endswith("/gateway/")
    assert bot_gateway["shards"] == 1
    limit = bot_gateway["session_start_limit"]
    assert set(limit) == {"total", "remaining", "reset_after", "max_concurrency"}
    fake.shards = 3
    assert (await call(session, fake, "GET", "/gateway/bot"))[1]["shards"] == 3
    assert (await call(session, fake, "GET", "/gateway"))[1] == {"url": fake.gateway_url}
    await Gateway.connect(session, fake)
    remaining = (await call(session, fake, "GET", "/gateway/bot"))[1]["session_start_limit"]["remaining"]
    assert remaining == limit["remaining"] - 1  # an IDENTIFY starts a session


async def test_the_recommended_shard_count_follows_the_guilds(fake: FakeDiscord) -> None:
    fake.guilds_per_shard = 2
    for n in range(5):
        fake.add_guild(f"Guild {n}")
    assert fake.required_shards == fake.recommended_shards == 3


async def test_the_gateway_lives_at_the_path_with_the_trailing_slash(
    fake: FakeDiscord, session: aiohttp.ClientSession
) -> None:
    with pytest.raises(aiohttp.WSServerHandshakeError):
        await session.ws_connect(fake.gateway_url.rstrip("/") + "?v=10&encoding=json")
    assert (await Gateway.connect(session, fake)).ready["v"] == 10


async def test_each_guilds_events_go_to_its_shard_and_dms_to_shard_0(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    by_shard = await guilds_on_both_shards(fake)
    shard0 = await Gateway.connect(session, fake, shard=[0, 2])
    shard1 = await Gateway.connect(session, fake, shard=[1, 2])
    await fake.wait_for_shards(2)
    assert fake.ready_shards == [(0, 2), (1, 2)]
    assert shard0.ready["shard"] == [0, 2] and shard1.ready["shard"] == [1, 2]
    assert sorted(shard0.guild_ids) == sorted(by_shard[0]) and sorted(shard1.guild_ids) == sorted(by_shard[1])
    assert {int(g["id"]) for g in shard0.ready["guilds"]} == set(by_shard[0])
    sync_commands(fake, [HELLO])
    for guild_id in (by_shard[0][0], by_shard[1][0]):
        guild = fake.guilds[guild_id]
        player = fake.add_user(f"player-{guild_id}")
        fake.add_member(guild, player)
        data = fake.build_command_data(guild, "hello", {})
        record = fake.interaction_payload(2, data, user=player, channel=guild.channel("general"))
        await fake.dispatch("INTERACTION_CREATE", record.payload)
        mine, other = (shard0, shard1) if (guild_id >> 22) % 2 == 0 else (shard1, shard0)
        assert (await mine.next("INTERACTION_CREATE"))["guild_id"] == str(guild_id)
        assert await other.nothing_within(0.1)
    dm = fake.interaction_payload(
        2, fake.build_command_data(None, "hello", {}), user=world.alice, channel=fake.dm_channel(world.alice)
    )
    await fake.dispatch("INTERACTION_CREATE", dm.payload)
    assert (await shard0.next("INTERACTION_CREATE"))["id"] == str(dm.id)
    assert await shard1.nothing_within(0.1)
    role = await fake.create_role(fake.guilds[by_shard[1][0]], "GM")
    assert (await shard1.next("GUILD_ROLE_CREATE"))["role"]["id"] == str(role.id)
    assert await shard0.nothing_within(0.1)


async def test_a_guild_joined_later_arrives_on_its_shard(
    fake: FakeDiscord, session: aiohttp.ClientSession
) -> None:
    shards = [await Gateway.connect(session, fake, shard=[n, 2]) for n in range(2)]
    joined = await fake.create_guild("New table")
    created = await shards[(joined.id >> 22) % 2].next("GUILD_CREATE")
    assert created["id"] == str(joined.id) and created["channels"][0]["name"] == "general"


async def test_a_dispatch_waits_for_the_shard_that_owns_the_guild(
    fake: FakeDiscord, session: aiohttp.ClientSession
) -> None:
    by_shard = await guilds_on_both_shards(fake)
    await Gateway.connect(session, fake, shard=[0, 2])
    guild_id = by_shard[1][0]
    pending = asyncio.create_task(fake.dispatch("GUILD_UPDATE", {"id": str(guild_id), "name": "x"}))
    await asyncio.sleep(0.1)
    assert not pending.done()  # shard 1 is not connected yet: its guild's events wait for it
    shard1 = await Gateway.connect(session, fake, shard=[1, 2])
    await pending
    assert (await shard1.next("GUILD_UPDATE"))["id"] == str(guild_id)


async def test_the_newest_connection_of_a_shard_gets_its_events(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    old, new = await Gateway.connect(session, fake), await Gateway.connect(session, fake)
    await fake.dispatch("GUILD_UPDATE", {"id": str(world.guild.id), "name": "x"})
    assert (await new.next("GUILD_UPDATE"))["name"] == "x"
    assert await old.nothing_within(0.1)


async def close_code(ws: aiohttp.ClientWebSocketResponse) -> int | None:
    while (await ws.receive(timeout=5)).type not in (
        aiohttp.WSMsgType.CLOSE,
        aiohttp.WSMsgType.CLOSED,
        aiohttp.WSMsgType.CLOSING,
    ):
        pass
    return ws.close_code


async def identify_and_close(
    session: aiohttp.ClientSession, fake: FakeDiscord, identify: Any, query: str = "?v=10&encoding=json"
) -> int | None:
    ws = await session.ws_connect(fake.gateway_url + query)
    if (await ws.receive()).type == aiohttp.WSMsgType.TEXT:  # HELLO
        frames = identify if isinstance(identify, list) else [identify]
        for frame in frames:
            await (ws.send_str(frame) if isinstance(frame, str) else ws.send_json(frame))
    return await close_code(ws)


def identify(**extra: Any) -> dict[str, Any]:
    return {"op": 2, "d": {"token": "t", "intents": 1, "properties": {}, **extra}}


async def test_the_gateway_refuses_what_discord_refuses(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    assert await identify_and_close(session, fake, identify(shard=[2, 2])) == 4010
    assert await identify_and_close(session, fake, identify(shard=[0])) == 4010
    fake.add_guild("Second")
    fake.guilds_per_shard = 1
    assert await identify_and_close(session, fake, identify()) == 4011  # two guilds need two shards
    fake.guilds_per_shard = 2500
    assert await identify_and_close(session, fake, identify(intents=1 | 1 << 1)) == 4014  # members
    assert await identify_and_close(session, fake, identify(intents=1 | 1 << 15)) == 4014  # content
    assert await identify_and_close(session, fake, identify(), "?v=9&encoding=json") == 4012
    assert await identify_and_close(session, fake, identify(), "?v=10&encoding=etf") == 4002
    assert await identify_and_close(session, fake, "{not json") == 4002
    assert await identify_and_close(session, fake, {"op": 2, "d": {"token": "t"}}) == 4002
    assert await identify_and_close(session, fake, {"op": 99, "d": None}) == 4001
    assert await identify_and_close(session, fake, {"op": 8, "d": {}}) == 4003  # before IDENTIFY
    assert await identify_and_close(session, fake, [identify(), identify()]) == 4005
    fake.privileged_intents = 1 << 1  # switched on in the Developer Portal
    gateway = await Gateway.connect(session, fake, intents=1 | 1 << 1)
    assert gateway.guild_ids


async def test_discord_py_runs_two_shards_against_the_fake(fake: FakeDiscord, world: World) -> None:
    by_shard = await guilds_on_both_shards(fake)
    fake.shards = 2
    point_at(fake.api_base)
    seen: list[tuple[int, int | None]] = []

    class Client(discord.AutoShardedClient):
        async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
            return None  # Discord's 5 s between IDENTIFYs is not what this test is about

        async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
            seen.append(
                (interaction.guild_id or 0, interaction.guild.shard_id if interaction.guild else None)
            )

    client = Client(intents=discord.Intents(guilds=True))
    task = asyncio.create_task(client.start("fake-token"))
    try:
        await asyncio.wait_for(client.wait_until_ready(), 30)
        assert client.shard_count == 2 and sorted(client.shards) == [0, 1]
        assert {g.id: g.shard_id for g in client.guilds} == {
            guild_id: shard for shard, ids in by_shard.items() for guild_id in ids
        }
        sync_commands(fake, [HELLO])
        for ids in by_shard.values():
            guild = fake.guilds[ids[0]]
            data = fake.build_command_data(guild, "hello", {})
            owner = fake.users[guild.owner_id]
            record = fake.interaction_payload(2, data, user=owner, channel=guild.channel("general"))
            await fake.dispatch("INTERACTION_CREATE", record.payload)
        async with asyncio.timeout(10):
            while len(seen) < 2:
                await asyncio.sleep(0.01)
        assert sorted(seen) == sorted((ids[0], shard) for shard, ids in by_shard.items())
    finally:
        await client.close()
        await asyncio.wait_for(task, 10)


# -- every request checked against Discord's OpenAPI description -----------------------------------------
TOO_LONG = "x" * 4001  # content is at most 2,000 characters (4,000 for channel messages, says the spec)


async def answered_interaction(fake: FakeDiscord, world: World, session: aiohttp.ClientSession) -> Any:
    await Gateway.connect(session, fake)
    record = await dispatch_hello(fake, world)
    status, _ = await call(
        session, fake, "POST", callback_path(record), {"type": 4, "data": {"content": "a"}}
    )
    assert status == 204
    status, followup = await call(
        session, fake, "POST", webhook_path(fake, record, "?wait=1"), {"content": "b"}
    )
    assert status == 200
    return record, followup


def refused(fake: FakeDiscord, status: int, body: Any, what: str) -> None:
    assert status == 400 and body["code"] == 50035, (status, body)
    assert len(fake.violations) == 1 and what in str(fake.violations[0]), fake.violations
    fake.violations.clear()


async def test_every_route_the_bot_uses_checks_its_json_body(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    record, followup = await answered_interaction(fake, world, session)
    app, token = fake.app_id, record.token
    message = fake.message_log[0]
    bad_command = [{"name": "Bad Name", "description": "x"}]
    cases = [
        ("POST", f"/interactions/{record.id}/{token}/callback", {"type": 4, "data": {"content": TOO_LONG}}),
        ("POST", f"/webhooks/{app}/{token}", {"content": TOO_LONG}),
        ("PATCH", f"/webhooks/{app}/{token}/messages/@original", {"content": TOO_LONG}),
        ("PATCH", f"/webhooks/{app}/{token}/messages/{followup['id']}", {"embeds": [{"title": "t" * 257}]}),
        ("POST", f"/channels/{world.general.id}/messages", {"content": TOO_LONG}),
        ("PATCH", f"/channels/{world.general.id}/messages/{message.id}", {"content": TOO_LONG}),
        ("POST", "/users/@me/channels", {"recipient_id": "not a snowflake"}),
        ("PUT", f"/applications/{app}/commands", bad_command),
        ("PUT", f"/applications/{app}/guilds/{world.guild.id}/commands", bad_command),
        ("POST", f"/channels/{world.general.id}/messages", {"components": [{"type": 99}]}),
    ]
    for method, path, body in cases:
        status, answer = await call(session, fake, method, path, body)
        refused(fake, status, answer, path.split("/")[1])
    assert [m.content for m in fake.message_log] == ["a", "b"]  # nothing refused was carried out


async def test_what_discord_refuses_beyond_its_schema_is_refused(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:  # the schema allows these; real Discord does not (a bot's content, 6,000 across embeds, ...)
    record, followup = await answered_interaction(fake, world, session)
    app, token = fake.app_id, record.token
    channel = f"/channels/{world.general.id}/messages"
    button = {"type": 2, "style": 1, "custom_id": "a", "label": "A"}
    field = {"name": "n", "value": "v" * 1000}
    cases = [
        (channel, {"content": "x" * 2001}, "2000"),
        (f"/webhooks/{app}/{token}", {"embeds": [{"fields": [field] * 7}]}, "6000"),
        (channel, {"embeds": [{"fields": [field] * 4}, {"fields": [field] * 3}]}, "6000"),
        (channel, {"embeds": [{"fields": [{"name": " ", "value": "v"}]}]}, "empty name or value"),
        (
            channel,
            {"components": [{"type": 1, "components": [{**button, "custom_id": str(n)}]} for n in range(6)]},
            "6 action rows",
        ),
        (channel, {"components": [{"type": 1, "components": [button, button]}]}, "custom_id twice"),
        (channel, {"components": [{"type": 1, "components": [{**button, "label": None}]}]}, "neither label"),
        (
            channel,
            {
                "components": [
                    {
                        "type": 1,
                        "components": [
                            {
                                "type": 3,
                                "custom_id": "s",
                                "options": [{"label": "a", "value": "1"}, {"label": "b", "value": "1"}],
                            }
                        ],
                    }
                ]
            },
            "one value twice",
        ),
        (channel, {"content": ""}, "empty message"),
    ]
    for path, body, problem in cases:
        status, answer = await call(session, fake, "POST", path, body)
        assert status == 400 and answer["code"] == 50035, (problem, status, answer)
        assert len(fake.violations) == 1 and problem in str(fake.violations[0]), (problem, fake.violations)
        fake.violations.clear()
    # an autocomplete choice's value is at most 100 characters (the schema says 6,000)
    data = fake.build_command_data(world.guild, "hello", {})
    hello = fake.interaction_payload(4, data, user=world.alice, channel=world.general)  # an autocomplete
    long_value = {"type": 8, "data": {"choices": [{"name": "n", "value": "v" * 101}]}}
    status, answer = await call(session, fake, "POST", callback_path(hello), long_value)
    assert status == 400 and "autocomplete value of 101 characters" in str(fake.violations)
    fake.violations.clear()
    # an edit may leave a message without content (it keeps its embeds); Discord allows that
    status, _ = await call(
        session, fake, "PATCH", f"/webhooks/{app}/{token}/messages/{followup['id']}", {"content": ""}
    )
    assert status == 200 and fake.violations == []


async def test_a_callback_is_checked_against_the_schema_of_its_type(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    await Gateway.connect(session, fake)
    record = await dispatch_hello(fake, world)
    # a modal (type 9) needs custom_id, title and components; a message (type 4) would need none
    status, body = await call(
        session, fake, "POST", callback_path(record), {"type": 9, "data": {"title": "Sheet"}}
    )
    refused(fake, status, body, "callback")


async def test_a_multipart_bodys_payload_json_is_checked(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    url = f"{fake.api_base}{API}/channels/{world.general.id}/messages"
    for content, ok in ((TOO_LONG, False), ("fine", True)):
        form = aiohttp.FormData(quote_fields=False)
        payload = {"content": content, "attachments": [{"id": 0, "filename": "a.txt"}]}
        form.add_field("payload_json", json.dumps(payload), content_type="application/json")
        form.add_field("files[0]", b"data", filename="a.txt", content_type="text/plain")
        async with session.post(url, data=form) as response:
            if ok:
                assert response.status == 200 and fake.violations == []
            else:
                refused(fake, response.status, await response.json(), "content")


async def test_a_route_that_needs_a_body_gets_one_unless_it_uploads_files(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    url = f"{fake.api_base}{API}/channels/{world.general.id}/messages"
    async with session.post(url) as response:
        refused(fake, response.status, await response.json(), "needs a JSON body")
    form = aiohttp.FormData(quote_fields=False)
    form.add_field("files[0]", b"data", filename="a.txt", content_type="text/plain")
    async with session.post(url, data=form) as response:
        assert not any("needs a JSON body" in v.problem for v in fake.violations)
    fake.violations.clear()  # (the file has no attachments entry: another rule, tested elsewhere)


async def test_documented_query_parameters_must_parse_as_their_type(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    await Gateway.connect(session, fake)
    record = await dispatch_hello(fake, world)
    status, body = await call(
        session, fake, "POST", callback_path(record) + "?with_response=maybe", {"type": 5}
    )
    refused(fake, status, body, "query with_response='maybe' is not a valid boolean")
    status, _ = await call(session, fake, "POST", callback_path(record) + "?with_response=1&x=y", {"type": 5})
    assert status == 200 and fake.violations == []  # 0/1 are booleans; unknown parameters are ignored
    status, body = await call(session, fake, "GET", f"/channels/{world.general.id}/messages?limit=101")
    assert any("query limit='101'" in v.problem for v in fake.violations)
    fake.violations.clear()


async def test_a_body_where_none_belongs_an_undocumented_route_and_a_form_are_refused(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    status, body = await call(session, fake, "GET", f"/channels/{world.general.id}", {"x": 1})
    refused(fake, status, body, "takes no body")
    status, body = await call(session, fake, "POST", f"/channels/{world.general.id}/nonsense", {})
    refused(fake, status, body, "no such route")
    url = f"{fake.api_base}{API}/channels/{world.general.id}/messages"
    async with session.post(url, data={"content": "hi"}) as response:  # form-urlencoded
        assert response.status == 400
    assert any("unreadable body" in v.problem for v in fake.violations)
    fake.violations.clear()


async def test_stopping_cuts_a_request_still_open_after_a_moment(session: aiohttp.ClientSession) -> None:
    # a stand-in stops within seconds of its open requests (aiohttp would wait a minute for them)
    fake = FakeDiscord()
    await fake.start()
    fake.delay("GET", r"/gateway/bot$", seconds=60)
    pending = asyncio.ensure_future(call(session, fake, "GET", "/gateway/bot"))
    await asyncio.sleep(0.2)  # the request is in, waiting on its delay
    started = time.monotonic()
    await fake.stop()
    assert time.monotonic() - started < 10
    with pytest.raises(aiohttp.ClientError):
        await pending


def test_the_schema_check_remembers_only_bodies_it_found_valid() -> None:
    checker = validator()
    path = "/channels/1/messages"
    fine = {"content": "fine", "embeds": [{"title": "t", "fields": [{"name": "n", "value": "v"}]}]}
    assert checker.check("POST", path, fine) == []
    assert checker.check("POST", path, json.loads(json.dumps(fine))) == []  # a copy: remembered
    # the same fields in another order are the same body; an invalid one is refused every time
    assert checker.check("POST", path, dict(reversed(list(fine.items())))) == []
    too_long = {**fine, "content": TOO_LONG}
    for _ in range(2):
        [refusal] = checker.check("POST", path, too_long)
        assert "content" in refusal.problem
    # a body is judged by its own content: a valid one changed in place is checked again
    fine["content"] = TOO_LONG
    assert checker.check("POST", path, fine) != []
    # on another route the same body meets another schema
    assert checker.check("PATCH", "/channels/1/messages/2", {"content": "fine", "flags": "x"}) != []


async def test_only_the_bots_own_messages_can_be_edited_through_their_channel(
    fake: FakeDiscord, world: World, session: aiohttp.ClientSession
) -> None:
    said = FakeMessage(2, world.general.id, world.guild.id, world.alice, content="mine")
    fake.messages[said.id] = said
    path = f"/channels/{world.general.id}/messages/{said.id}"
    status, answer = await call(session, fake, "PATCH", path, {"content": "the bot's now"})
    assert (status, answer["code"]) == (403, 50005) and said.content == "mine" and said.edits == 0
    status, posted = await call(
        session, fake, "POST", f"/channels/{world.general.id}/messages", {"content": "a"}
    )
    status, _ = await call(
        session, fake, "PATCH", f"/channels/{world.general.id}/messages/{posted['id']}", {"content": "b"}
    )
    assert status == 200 and fake.messages[int(posted["id"])].content == "b"
