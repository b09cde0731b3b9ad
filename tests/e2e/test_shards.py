"""Shards: the bot runs every shard Discord asks for, or those SHARD_COUNT and SHARD_IDS give a process.

The fake routes each guild's events to the connection of shard ``(guild_id >> 22) % shard_count`` and
refuses a connection that would hold more than ``guilds_per_shard`` guilds (Discord's 4011).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.local.fake.harness import SubprocessBot, World
from bot.local.fake.server import FakeDiscord
from bot.local.fake.world import FakeGuild
from tests.e2e.conftest import running_bot


def shard_of(guild: FakeGuild, count: int) -> int:
    return (guild.id >> 22) % count


async def guild_on_shard(fake: FakeDiscord, world: World, shard: int, count: int) -> FakeGuild:
    """A new guild (Alice a member) whose events go to ``shard`` of ``count``: its id's time picks it."""
    while True:
        guild = fake.add_guild(f"Table on shard {shard}")
        fake.add_member(guild, world.alice)
        if shard_of(guild, count) == shard:
            return guild
        del fake.guilds[guild.id]  # (never seen by the bot: it is not connected yet)
        await asyncio.sleep(0.001)


async def test_two_shards_in_one_process_both_connect_and_answer(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    guilds = [await guild_on_shard(fake, world, shard, 2) for shard in (0, 1)]
    async with running_bot(fake, tmp_path, shard_count=2) as harness:
        assert sorted(fake.ready_shards) == [(0, 2), (1, 2)]
        assert sorted(harness.bot.shards) == [0, 1]
        for guild in guilds:
            answer = await harness.slash(guild, guild.channel("general"), world.alice, "help")
            assert answer.embed
            assert harness.bot.get_guild(guild.id).shard_id == shard_of(guild, 2)  # type: ignore[union-attr]


async def test_a_process_without_shard_0_does_not_sync_the_commands(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with running_bot(fake, tmp_path, shard_count=2, shard_ids=[1]) as harness:
        assert fake.ready_shards == [(1, 2)]
        assert harness.bot.synced == "synced by the process that runs shard 0"
    assert fake.command_syncs == []


async def test_two_processes_split_the_shards_and_one_syncs(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    guilds = [await guild_on_shard(fake, world, shard, 2) for shard in (0, 1)]
    database = tmp_path / "bot.db"
    first = await SubprocessBot.launch(fake, database, SHARD_COUNT="2", SHARD_IDS="0")
    second: SubprocessBot | None = None
    try:
        second = await SubprocessBot.launch(fake, database, SHARD_COUNT="2", SHARD_IDS="1")
        await fake.wait_for_shards(2)
        assert len(fake.command_syncs) == 1  # the process that runs shard 0
        for guild, bot in zip(guilds, (first, second), strict=True):
            answer = await bot.slash(guild, guild.channel("general"), world.alice, "help")
            assert answer.embed
    finally:
        for bot in (first, second):
            if bot is not None:
                await bot.stop()
    assert first.error_lines() == [] and second is not None and second.error_lines() == []
    assert "synced by the process that runs shard 0" in second.log
