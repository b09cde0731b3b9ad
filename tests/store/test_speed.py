"""GM modifier uses reserved then taken with the log row, reads that see every write, the shoe lock."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.core.cards import Card
from bot.store import Conflict, InvalidData, PoolCheck, RollRecord, Store

G, C = 1, 10


def _record(command: str = "decision roll") -> RollRecord:
    return RollRecord(
        guild_id=G, channel_id=C, user_id=20, system="decision", command=command, visibility="public",
        inputs={}, dice=[1], result="r",
    )  # fmt: skip


async def test_gm3_reserved_uses_are_taken_with_the_log_row_once(store: Store) -> None:  # GM-3
    await store.modifiers.set(G, C, "decision", 20, "modifier", 2, 1, 7)
    rolls = await asyncio.gather(*(store.modifiers.reserve(i, G, C, "decision", 20) for i in range(50)))
    winners = [i for i, applied in enumerate(rolls) if applied]
    assert len(winners) == 1  # a one-use modifier is reserved by exactly one of 50 rolls
    await store.log.add(_record(), modifiers=store.modifiers.ticket(winners[0]))
    assert await store.modifiers.list(G, C) == []
    assert len(await store.log.last(G, C)) == 1


async def test_gm3_a_failed_log_write_leaves_the_modifier_pending(store: Store) -> None:  # GM-3
    await store.modifiers.set(G, C, "decision", 20, "modifier", 2, 1, 7)
    assert await store.modifiers.reserve("roll", G, C, "decision", 20)
    bad = _record().model_copy(update={"dice": {"x" * 10: "y" * 70_000}})  # too big for the log
    with pytest.raises(InvalidData):
        await store.log.add(bad, modifiers=store.modifiers.ticket("roll"))
    store.modifiers.release(store.modifiers.ticket("roll"))
    [pending] = await store.modifiers.list(G, C)
    assert pending.uses_left == 1
    assert await store.modifiers.consume(G, C, "decision", 20)


async def test_gm3_a_channel_read_as_empty_still_sees_a_modifier_set_later(store: Store) -> None:  # GM-3
    assert await store.modifiers.consume(G, C, "rps", 20) == []  # remembered as empty
    await store.modifiers.set(G, C, "rps", None, "difficulty", 1, 1, 7)
    assert [m.kind for m in await store.modifiers.consume(G, C, "rps", 20)] == ["difficulty"]


async def test_dd7_supply_step_and_its_log_row_are_one_transaction(store: Store) -> None:  # DD-7
    await store.supply.set(G, 20, "Ann", "Rations", 12)
    die, log_id = await store.supply.apply_roll_logged(G, 20, "Ann", "Rations", 12, 2, _record("supply roll"))
    assert die.die == 10 and (await store.log.get(log_id)).command == "supply roll"
    with pytest.raises(Conflict):  # computed from the d12 that is gone: neither step nor log row
        await store.supply.apply_roll_logged(G, 20, "Ann", "Rations", 12, 1, _record("supply roll"))
    assert (await store.supply.get(G, 20, "Ann", "Rations")).die == 10
    assert len(await store.log.last(G, C)) == 1


async def test_rps8_pool_check_and_its_log_row_are_one_transaction(store: Store) -> None:  # RPS-8
    pool = await store.pools.start(G, C, 20, "Siege", 40, 10, 12)
    check = PoolCheck(sl=2, delta=2, dice=[3, 4])
    updated, log_id = await store.pools.add_check_logged(pool.id, 0, check, "running", _record("rps"))
    assert updated.pool == 2 and (await store.log.get(log_id)).command == "rps"
    with pytest.raises(Conflict):
        await store.pools.add_check_logged(pool.id, 0, check, "running", _record("rps"))
    assert len(await store.log.last(G, C)) == 1


async def test_gm3_a_dealt_hand_takes_its_reserved_modifier_uses_with_the_deal(store: Store) -> None:  # GM-3
    await store.modifiers.set(G, C, "cards", 20, "difficulty", 4, 1, 7)
    assert await store.modifiers.reserve("deal", G, C, "cards", 20)
    ticket = store.modifiers.ticket("deal")
    shoe, version = await store.cards.get_shoe(G, C)
    first, rest = shoe.draw(random.Random(3))
    with pytest.raises(Conflict):  # computed from a shoe that moved on: no hand, and the use is kept
        await store.cards.create_hand(
            G, C, 20, {}, state="open", cards=[first], shoe=rest, shoe_version=version - 1, modifiers=ticket
        )
    [pending] = await store.modifiers.list(G, C)
    assert pending.uses_left == 1 and store.modifiers.ticket("deal") is ticket  # still reserved to retry
    hand = await store.cards.create_hand(
        G, C, 20, {}, state="open", cards=[first], shoe=rest, shoe_version=version, modifiers=ticket
    )
    assert hand.cards == (first.code,)
    assert await store.modifiers.list(G, C) == [] and store.modifiers.ticket("deal") is None


async def test_settings_reads_see_every_change(store: Store) -> None:
    assert (await store.settings.get(G)).gm_role_ids == []
    await store.settings.update(G, gm_role_ids=[5])
    assert (await store.settings.get(G)).gm_role_ids == [5]
    await store.settings.reset(G)
    assert (await store.settings.get(G)).gm_role_ids == []
    assert await store.settings.channel_visibility(G, C) == "public"
    await store.settings.set_channel_visibility(G, C, "gm")
    assert await store.settings.channel_visibility(G, C) == "gm"
    assert not await store.gm.is_channel_gm(G, C, 9)
    await store.gm.add_channel_gm(G, C, 9)
    assert await store.gm.is_channel_gm(G, C, 9)


async def test_bj1_one_lock_per_channel_shoe(store: Store) -> None:  # BJ-1
    assert store.cards.shoe_lock(C) is store.cards.shoe_lock(C)
    assert store.cards.shoe_lock(C) is not store.cards.shoe_lock(C + 1)


def test_card_parse_is_cached_and_still_validates() -> None:
    assert Card.parse("10H") is Card.parse("10H")
    with pytest.raises(Exception, match="card code"):
        Card.parse("1X")
