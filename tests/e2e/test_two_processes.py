"""Several `python -m bot` processes on one PostgreSQL database, against the fake Discord.

(a) two shards (SHARD_COUNT=2, SHARD_IDS=0 and 1), each process answering its own guild, as the fake
routes a guild's events to its shard; (b) a rolling restart: a hand dealt through one process, that
process SIGKILLed, the hand played to its end through the next one; (c) 50 clicks on one hand and 50 rolls
against one GM modifier arriving through both processes at once (two processes of the same shard, as
during a rolling restart's overlap: each interaction is sent down a chosen process's connection): no move
lost or doubled, each modifier use taken once.

Nothing in a process's memory decides these: the store keeps no read cache, moves are version-checked,
and a roll's hold on a modifier use is a row (see bot/store/README.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.local.fake.harness import WAIT, Answer, SubprocessBot, World, answer_message, edited_in_place
from bot.local.fake.server import FakeDiscord, GatewaySession, InteractionRecord
from bot.local.fake.world import FakeChannel, FakeGuild, FakeUser
from bot.store import Store
from tests.e2e.test_cards import conserved, hand_id_of, stack_shoe
from tests.postgres import new_schema, require_postgres

pytestmark = pytest.mark.slow
CLICKS = ROLLS = 50
ROUNDS = 5  # the clicks come in rounds of ten identical ones, each round at once
USES = 5
QUIET = 0.5


@pytest.fixture
async def database_url() -> AsyncIterator[str]:
    """A throw-away schema on the test PostgreSQL server (skipped without one, failed under CI)."""
    url, drop = await new_schema(require_postgres())
    try:
        yield url
    finally:
        await drop()


class Shard(SubprocessBot):
    """`python -m bot` on the shared database; `send` puts an interaction on its own gateway connection
    (`slash` and `click` go where the fake routes the guild: the newest connection of its shard)."""

    connection: GatewaySession

    @classmethod
    async def start(cls, fake: FakeDiscord, folder: Path, url: str, name: str, **env: str) -> Shard:
        before = list(fake.sessions)
        shard = await cls.launch(fake, folder / f"{name}.unused.db", log_path=folder / f"{name}.log",
                                 DATABASE_URL=url, **env)  # fmt: skip
        assert isinstance(shard, Shard)
        [shard.connection] = [s for s in fake.sessions if s not in before]
        return shard

    async def send(self, record: InteractionRecord) -> None:
        """Send one interaction down this process's connection (without waiting for the answer)."""
        await self.fake._dispatch_on(self.connection, "INTERACTION_CREATE", record.payload, record)


async def settle(fake: FakeDiscord, records: list[InteractionRecord]) -> None:
    """Wait until every record is answered and the processes have been quiet for a moment."""
    try:
        await asyncio.wait_for(asyncio.gather(*(r.answered.wait() for r in records)), WAIT)
    except TimeoutError:
        left = [r.payload["data"] for r in records if not r.answered.is_set()]
        raise AssertionError(f"{len(left)} interactions left unanswered: {left[:3]}") from None
    while True:
        seen = len(fake.requests)
        await asyncio.sleep(QUIET)
        if len(fake.requests) == seen:
            return


async def stop_all(fake: FakeDiscord, *shards: Shard) -> None:
    for shard in shards:
        await shard.stop()
    for shard in shards:
        assert shard.error_lines() == [], "\n".join(shard.error_lines())
    assert fake.violations == []


def roll(fake: FakeDiscord, guild: FakeGuild, channel: FakeChannel, user: FakeUser) -> InteractionRecord:
    data = fake.build_command_data(guild, "decision roll", {"stat": 1, "target": 6})
    return fake.interaction_payload(2, data, user=user, channel=channel)


def click(fake: FakeDiscord, answer: Answer, label: str, user: FakeUser) -> InteractionRecord:
    message = answer.original
    data = {"custom_id": message.component(label)["custom_id"], "component_type": 2}
    return fake.interaction_payload(3, data, user=user, channel=fake.channels[message.channel_id],
                                    message=message)  # fmt: skip


async def test_two_shards_each_answer_their_own_guild(
    fake: FakeDiscord, world: World, tmp_path: Path, database_url: str
) -> None:
    mine = (world.guild.id >> 22) % 2
    other = fake.add_guild("Other table", world.owner)
    while (other.id >> 22) % 2 == mine:  # a guild of the other shard (ids are snowflakes: time-based)
        await asyncio.sleep(0.005)
        other = fake.add_guild("Other table", world.owner)
    fake.add_member(other, world.bob)
    shards = {
        n: await Shard.start(fake, tmp_path, database_url, f"shard{n}", SHARD_COUNT="2", SHARD_IDS=str(n))
        for n in (0, 1)
    }
    assert sorted(fake.ready_shards) == [(0, 2), (1, 2)]  # one connection each, as Discord routes
    try:
        here = await shards[mine].slash(world.guild, world.general, world.alice, "decision roll",
                                        {"stat": 1, "target": 6})  # fmt: skip
        there = await shards[1 - mine].slash(other, other.channel("general"), world.bob, "decision roll",
                                             {"stat": 2, "target": 6})  # fmt: skip
        assert not here.ephemeral and not there.ephemeral
        async with await Store.open(database_url) as store:
            [a] = await store.log.last(world.guild.id, world.general.id)
            [b] = await store.log.last(other.id, other.channel("general").id)
        assert (a.user_id, b.user_id) == (world.alice.id, world.bob.id)
    finally:
        await stop_all(fake, *shards.values())


async def test_a_rolling_restart_picks_the_hand_up_where_the_killed_process_left_it(
    fake: FakeDiscord, world: World, tmp_path: Path, database_url: str
) -> None:  # BJ-1
    first = await Shard.start(fake, tmp_path, database_url, "old")
    async with await Store.open(database_url) as store:
        await stack_shoe(store, world.general, ["2S", "3H", "4C", "5D"])
    dealt = await first.slash(world.guild, world.general, world.alice, "cards task",
                              {"difficulty": 3, "level": 5})  # fmt: skip
    hand_id = hand_id_of(dealt.original)
    await first.kill()  # SIGKILL: no shutdown, as a crash or a deploy's hard stop
    second = await Shard.start(fake, tmp_path, database_url, "new")
    try:
        hit = await second.click(dealt.original, "Hit", world.alice)
        assert not hit.ephemeral, hit.content
        stood = await second.click(dealt.original, "Stand", world.alice)
        assert not stood.ephemeral, stood.content
        async with await Store.open(database_url) as store:
            hand = await store.cards.get_hand(hand_id)
            assert hand.finished and hand.cards == ("2S", "3H") and hand.version == 3  # dealt, hit, stood
            logged = [r for r in await store.log.last(world.guild.id, world.general.id, 50)
                      if r.command == "cards task"]  # fmt: skip
            assert len(logged) == 1  # the hand finished once
            assert await conserved(store, world.general)
        if any(cid.endswith(":stand") for cid in dealt.original.custom_ids()):  # a late click changes nothing
            assert (await second.click(dealt.original, "Stand", world.alice)).ephemeral
    finally:
        await stop_all(fake, second)


async def test_fifty_clicks_and_fifty_rolls_through_two_processes_lose_and_double_nothing(
    fake: FakeDiscord, world: World, tmp_path: Path, database_url: str
) -> None:  # BJ-1, GM-3
    shards = [
        await Shard.start(fake, tmp_path, database_url, "shard-a"),
        await Shard.start(fake, tmp_path, database_url, "shard-b"),
    ]
    try:
        low = ["AS", "2S", "AH", "2H", "AC", "2C", "AD", "2D", "3S", "3H", "3C", "3D", "4S", "4H"]
        async with await Store.open(database_url) as store:
            await stack_shoe(store, world.general, low)  # low cards first: a hand that takes many hits
            await store.modifiers.set(world.guild.id, world.general.id, "decision", world.alice.id,
                                      "modifier", 2, USES, world.gm.id)  # fmt: skip
        dealt = await shards[0].slash(world.guild, world.general, world.alice, "cards task",
                                      {"difficulty": 3, "level": 5})  # fmt: skip
        hand_id = hand_id_of(dealt.original)
        rolls = [roll(fake, world.guild, world.general, world.alice) for _ in range(ROLLS)]
        clicks: list[InteractionRecord] = []
        version = 1
        for turn in range(ROUNDS):
            if not any(cid.endswith(":hit") for cid in dealt.original.custom_ids()):  # the hand ended
                await asyncio.gather(
                    *(shards[i % 2].send(r) for i, r in enumerate(rolls[turn * (ROLLS // ROUNDS) :]))
                )
                await settle(fake, rolls)
                break
            # a round: the same click ten times (an impatient player) through both processes at once,
            # with the round's share of the rolls
            round_clicks = [click(fake, dealt, "Hit", world.alice) for _ in range(CLICKS // ROUNDS)]
            round_rolls = rolls[turn * (ROLLS // ROUNDS) : (turn + 1) * (ROLLS // ROUNDS)]
            batch = [x for pair in zip(round_clicks, round_rolls, strict=True) for x in pair]
            await asyncio.gather(*(shards[i % 2].send(r) for i, r in enumerate(batch)))
            await settle(fake, batch)
            clicks += round_clicks
            # each click made exactly one move (the hand's message updated) or was refused with a sentence
            moved = [r for r in round_clicks if edited_in_place(r)]
            refused = [r for r in round_clicks if (m := answer_message(r)) is not None and m.ephemeral]
            assert len(moved) + len(refused) == len(round_clicks)
            async with await Store.open(database_url) as store:
                now = (await store.cards.get_hand(hand_id)).version
            assert now - version == len(moved)  # no move lost, none doubled
            version = now
        assert version > ROUNDS // 2 and len(clicks) >= CLICKS // 2  # the clicks did play the hand

        async with await Store.open(database_url) as store:
            hand = await store.cards.get_hand(hand_id)
            assert hand.cards == tuple(low[: len(hand.cards)])  # each card drawn once, in the shoe's order
            assert await conserved(store, world.general)
            logged = await store.log.last(world.guild.id, world.general.id, 500)
            assert len([r for r in logged if r.command == "decision roll"]) == ROLLS  # no roll lost
            assert len([r for r in logged if r.command == "cards task"]) == int(hand.finished)
            assert await store.modifiers.list(world.guild.id, world.general.id) == []
            assert await store.db.all("SELECT * FROM modifier_holds") == []
        # a compact result names an applied modifier in its lines (the description)
        results = [answer_message(r) for r in rolls]
        shown = [m for m in results if m and "GM modifier" in (m.embeds[0].get("description") or "")]
        assert len(shown) == USES  # each use went to exactly one roll, whichever process it came through
    finally:
        await stop_all(fake, *shards)
