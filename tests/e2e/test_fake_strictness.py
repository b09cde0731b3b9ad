"""The real bot against the strict fake: what Discord refuses, the fake refuses too, and says why.

The fake's own behaviour is tested without the bot in tests/test_fake_discord.py; these show it holds for
the bot's real requests (a late answer, a hidden command, a slow route, shards).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.local.fake.harness import Harness, World
from bot.local.fake.server import CommandUnavailable, FakeDiscord, posts_to
from tests.e2e.conftest import running_bot


async def test_an_answer_after_the_deadline_is_reported_as_dropped(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    fake.callback_deadline = 0.0  # every answer is late: the bot's is refused as Discord refuses it
    with pytest.raises(AssertionError, match=r"s after it was sent: Discord had dropped it"):
        await harness.slash(world.guild, world.general, world.alice, "help")
    assert {v.problem.split(" s after")[0].split()[0] for v in fake.violations} == {"callback"}
    fake.violations.clear()
    harness.take_errors()  # the bot may log the refused answer; it is the point here
    fake.callback_deadline = 3.0
    assert (await harness.slash(world.guild, world.general, world.alice, "help")).embed


async def test_a_command_hidden_by_its_default_permissions_cannot_be_invoked(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    restricted = [c for c in fake.global_commands if c.get("default_member_permissions") not in (None, "")]
    assert restricted, "the bot syncs no command that needs a permission (server set-up should)"
    command = restricted[0]
    before = (len(fake.interactions), len(fake.requests))
    with pytest.raises(CommandUnavailable, match=rf"/{command['name']}.*alice lacks"):
        await harness.slash(world.guild, world.general, world.alice, command["name"])
    assert (len(fake.interactions), len(fake.requests)) == before  # the bot never heard of it
    # the owner sees every command; whether the bot then wants options is the bot's business
    visible = {c["name"] for c in fake.visible_commands(world.owner, world.general)}
    assert command["name"] in visible


async def test_a_gm_roll_is_answered_within_3_s_while_the_gm_channel_is_slow(
    probe: Harness, world: World, fake: FakeDiscord
) -> None:
    await probe.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    slow = fake.delay(posts_to(world.gm_screen), seconds=4)
    started = time.monotonic()
    answer = await probe.slash(world.guild, world.general, world.alice, "probe roll", {"visibility": "gm"})
    assert answer.record.callback_at is not None and answer.record.dispatched_at is not None
    assert answer.record.callback_at - answer.record.dispatched_at < 3.0
    assert slow.hits == 1 and len(answer.in_channel(world.gm_screen)) == 1
    assert time.monotonic() - started >= 4  # the GM's copy did come, afterwards


async def test_the_bot_connects_every_shard_discord_requires(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    second = fake.add_guild("Second table")
    fake.add_member(second, world.alice)
    fake.guilds_per_shard = 1  # as an application in 2,500+ guilds: one shard is refused (4011)
    async with running_bot(fake, tmp_path) as harness:
        await fake.wait_for_shards(2, timeout=20)
        for guild in (world.guild, second):
            answer = await harness.slash(guild, guild.channel("general"), world.alice, "help")
            assert answer.embed
