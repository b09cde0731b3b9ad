"""50 concurrent operations at one row, over one Store and over several Stores on the same file.

Every racing change must be atomic: a modifier use is taken exactly once (GM-3), a card is never drawn
twice from the same state nor lost (BJ-1), a supply die steps once per roll (DD-7), a pool takes one
check per count (RPS-8), a roll is revealed once.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from bot.core.cards import full_deck
from bot.store import Conflict, HandRecord, InvalidData, PoolCheck, RollRecord, Sheet, Store

T = TypeVar("T")
N = 50
STORES = 5
G, C = 1, 10


@pytest.fixture(params=["one_store", "many_stores"])
async def stores(
    request: pytest.FixtureRequest, store: Store, open_store: Callable[[], Awaitable[Store]]
) -> list[Store]:
    """The Store objects the 50 operations are spread over: the same one, or five separate connections."""
    if request.param == "one_store":
        return [store]
    return [store] + [await open_store() for _ in range(STORES - 1)]


async def _race(stores: list[Store], op: Callable[[Store, int], Awaitable[T]]) -> list[T | BaseException]:
    """Fire N operations at once, spread round-robin over ``stores``; return results or exceptions."""
    return await asyncio.gather(*(op(stores[i % len(stores)], i) for i in range(N)), return_exceptions=True)


def _winners(results: list[object]) -> list[object]:
    unexpected = [
        r for r in results if isinstance(r, BaseException) and not isinstance(r, Conflict | InvalidData)
    ]
    assert unexpected == []
    return [r for r in results if not isinstance(r, BaseException)]


# ------------------------------------------------------------------------------------------------- GM-3


async def test_gm3_fifty_consumes_of_a_one_use_modifier_exactly_one_gets_it(
    stores: list[Store],
) -> None:  # GM-3
    mod = await stores[0].modifiers.set(G, C, "sysx", 20, "sv", 3, 1, 7)
    results = _winners(await _race(stores, lambda s, _: s.modifiers.consume(G, C, "sysx", 20)))
    taken = [r for r in results if r]
    assert len(results) == N and len(taken) == 1
    assert [(a.modifier_id, a.value) for a in taken[0]] == [(mod.id, 3)]  # type: ignore[union-attr]
    assert await stores[0].modifiers.list(G, C) == []


async def test_gm3_fifty_consumes_of_a_three_use_modifier_exactly_three_get_it(
    stores: list[Store],
) -> None:  # GM-3
    await stores[0].modifiers.set(G, C, "dn", 20, "df", -2, 3, 7)
    results = _winners(await _race(stores, lambda s, _: s.modifiers.consume(G, C, "dn", 20)))
    assert sorted(r[0].uses_left for r in results if r) == [0, 1, 2]  # type: ignore[index]


async def test_gm3_everyone_modifier_gives_each_player_their_own_uses_under_races(
    stores: list[Store],
) -> None:
    mod = await stores[0].modifiers.set(G, C, "decision", None, "advantage", 1, 3, 7)
    players = [100 + i % 10 for i in range(N)]  # ten players, five rolls each, all at once
    results = _winners(await _race(stores, lambda s, i: s.modifiers.consume(G, C, "decision", players[i])))
    got = Counter(players[i] for i, r in enumerate(results) if r)
    assert got == dict.fromkeys(range(100, 110), 3)
    taken = [await stores[0].modifiers.uses_taken(mod.id, p) for p in range(100, 110)]  # type: ignore[arg-type]
    assert taken == [3] * 10
    assert [m.id for m in await stores[0].modifiers.list(G, C)] == [mod.id]  # it stands until cleared


async def test_gm3_fifty_rolls_reserving_through_several_processes_hold_each_use_once(
    stores: list[Store],
) -> None:  # GM-3
    # the cogs' path: reserve when the roll is computed, take with the log row; a roll shown with a
    # modifier must be the roll that takes its use, whichever process (Store) each roll went through
    mod = await stores[0].modifiers.set(G, C, "decision", 20, "modifier", 2, 3, 7)
    everyone = await stores[0].modifiers.set(G, C, "decision", None, "advantage", 1, 2, 7)
    held = await _race(stores, lambda s, i: s.modifiers.reserve(("roll", i), G, C, "decision", 20))
    holders = [i for i, applied in enumerate(held) if applied]
    assert sorted(len(held[i]) for i in holders) == [1, 2, 2]  # type: ignore[arg-type]
    shown = Counter(a.modifier_id for i in holders for a in held[i])  # type: ignore[union-attr]
    assert shown == {mod.id: 3, everyone.id: 2}
    record = RollRecord(guild_id=G, channel_id=C, user_id=20, system="decision", command="r", result="r")

    async def log(i: int) -> int:
        store = stores[i % len(stores)]
        ticket = store.modifiers.ticket(("roll", i))
        try:
            return await store.log.add(record, modifiers=ticket)
        finally:
            store.modifiers.release(ticket)

    await asyncio.gather(*(log(i) for i in holders))
    assert [m.id for m in await stores[0].modifiers.list(G, C)] == [everyone.id]
    assert await stores[0].modifiers.uses_taken(everyone.id, 20) == 2  # type: ignore[arg-type]
    assert await stores[0].db.all("SELECT * FROM modifier_holds") == []


# ------------------------------------------------------------------------------------------------- BJ-1


# a move that goes on with the record it was computed from is one statement (migration 0004's trigger);
# without it, a unit of work: both must hold under races
ONE_STATEMENT = pytest.mark.parametrize("with_base", [True, False], ids=["one_statement", "unit"])


@ONE_STATEMENT
async def test_bj1_a_double_click_fifty_times_draws_once(
    stores: list[Store], with_base: bool
) -> None:  # BJ-1
    rng = random.Random(1)
    shoe, version = await stores[0].cards.get_shoe(G, C, 1, rng)
    card, shoe = shoe.draw(rng)
    hand = await stores[0].cards.create_hand(
        G, C, 20, {}, state="playing", cards=[card], shoe=shoe, shoe_version=version
    )
    shoe, version = await stores[0].cards.get_shoe(G, C)

    # every click was computed from the same state: hand version 1, this shoe
    async def click(s: Store, i: int) -> object:
        drawn, new_shoe = shoe.draw(random.Random(i))
        return await s.cards.apply_logged(
            hand.id,
            hand.version,
            {"click": i},
            state="playing",
            cards=[card, drawn],
            shoe=new_shoe,
            shoe_version=version,
            base=hand if with_base else None,
        )

    results = _winners(await _race(stores, click))
    assert len(results) == 1
    final = await stores[0].cards.get_hand(hand.id)
    assert final.version == 2 and len(final.cards) == 2
    shoe_now, _ = await stores[0].cards.get_shoe(G, C)
    assert len(shoe_now.remaining) == 50 and shoe_now.is_conserved(final.card_objects)


@ONE_STATEMENT
async def test_bj1_fifty_hits_with_fresh_reads_never_duplicate_or_lose_a_card(
    stores: list[Store], with_base: bool
) -> None:  # BJ-1
    rng = random.Random(2)
    shoe, version = await stores[0].cards.get_shoe(G, C, 2, rng)
    first, shoe = shoe.draw(rng)
    hand = await stores[0].cards.create_hand(
        G, C, 20, {}, state="playing", cards=[first], shoe=shoe, shoe_version=version
    )

    async def hit(s: Store, i: int) -> object:
        return await _hit_from_fresh_reads(s, await s.cards.get_hand(hand.id), i, with_base)

    wins = len(_winners(await _race(stores, hit)))
    final = await stores[0].cards.get_hand(hand.id)
    shoe_now, _ = await stores[0].cards.get_shoe(G, C)
    assert wins >= 1 and final.version == 1 + wins and len(final.cards) == 1 + wins
    assert shoe_now.is_conserved(final.card_objects)


async def _hit_from_fresh_reads(s: Store, current: HandRecord, i: int, with_base: bool) -> object:
    """Hit ``current`` from the channel's shoe as read now (a move from the record, or not)."""
    shoe, version = await s.cards.get_shoe(G, C)
    drawn, new_shoe = shoe.draw(random.Random(i))
    return await s.cards.apply_logged(
        current.id, current.version, {"hit": i}, state="playing", cards=[*current.cards, drawn.code],
        shoe=new_shoe, shoe_version=version, base=current if with_base else None,
    )  # fmt: skip


async def _deal_one_card_each(store: Store, players: int, rng: random.Random) -> list[HandRecord]:
    """One hand for each of ``players`` in the channel, each dealt one card from its shoe."""
    hands = []
    for owner in range(players):
        shoe, version = await store.cards.get_shoe(G, C, 1, rng)
        card, shoe = shoe.draw(rng)
        hands.append(
            await store.cards.create_hand(
                G, C, owner, {}, state="playing", cards=[card], shoe=shoe, shoe_version=version
            )
        )
    return hands


@ONE_STATEMENT
async def test_bj1_hands_of_one_channel_hitting_at_once_draw_one_card_from_a_shoe_state(
    stores: list[Store], with_base: bool
) -> None:  # BJ-1
    # every hand's Hit was computed from the same shoe: one draws, and the others change nothing at all
    hands = await _deal_one_card_each(stores[0], 10, random.Random(3))
    shoe, version = await stores[0].cards.get_shoe(G, C)

    async def hit(s: Store, i: int) -> object:
        hand = hands[i % len(hands)]
        drawn, new_shoe = shoe.draw(random.Random(i))
        return await s.cards.apply_logged(
            hand.id, hand.version, {"hit": i}, state="playing", cards=[*hand.cards, drawn.code],
            shoe=new_shoe, shoe_version=version, base=hand if with_base else None,
        )  # fmt: skip

    results = _winners(await _race(stores, hit))
    assert len(results) == 1
    finals = [await stores[0].cards.get_hand(hand.id) for hand in hands]
    assert sorted(final.version for final in finals) == [1] * (len(hands) - 1) + [2]
    shoe_now, version_now = await stores[0].cards.get_shoe(G, C)
    assert version_now == version + 1 and len(shoe_now.remaining) == len(shoe.remaining) - 1
    assert shoe_now.is_conserved([card for final in finals for card in final.card_objects])


@ONE_STATEMENT
async def test_bj1_reshuffles_racing_hits_never_duplicate_or_lose_a_card(
    stores: list[Store], with_base: bool
) -> None:  # BJ-1
    # a reshuffle puts back every card not held by an open hand: one that read the hands before a Hit
    # drew must be refused (the shoe's version), or the drawn card would be in the shoe and the hand at once
    hands = [hand.id for hand in await _deal_one_card_each(stores[0], 5, random.Random(4))]

    async def hit_or_reshuffle(s: Store, i: int) -> object:
        if i % 5 == 0:
            return await s.cards.reshuffle(G, C, random.Random(i))
        current = await s.cards.hand_in(hands[i % len(hands)], G, C)
        return await _hit_from_fresh_reads(s, current, i, with_base)

    assert _winners(await _race(stores, hit_or_reshuffle))
    held = [card for hand_id in hands for card in (await stores[0].cards.get_hand(hand_id)).card_objects]
    shoe_now, _ = await stores[0].cards.get_shoe(G, C)
    assert shoe_now.is_conserved(held)


async def test_bj1_fifty_players_dealing_at_once_each_get_a_distinct_card(
    stores: list[Store],
) -> None:  # BJ-1
    await stores[0].cards.get_shoe(G, C, 1, random.Random(3))

    async def deal(s: Store, i: int) -> object:
        while True:  # a Conflict means someone drew first: read again and retry, as a cog would
            shoe, version = await s.cards.get_shoe(G, C)
            card, new_shoe = shoe.draw(random.Random(i))
            try:
                return await s.cards.create_hand(
                    G, C, 1000 + i, {}, state="playing", cards=[card], shoe=new_shoe, shoe_version=version
                )
            except Conflict:
                await asyncio.sleep(0)

    results = _winners(await _race(stores, deal))
    assert len(results) == N
    held = [c for hand in await stores[0].cards.open_hands(G, C) for c in hand.card_objects]
    assert len(held) == N and len(set(held)) == N and set(held) <= set(full_deck())
    shoe, version = await stores[0].cards.get_shoe(G, C)
    assert len(shoe.remaining) == 2 and version == 1 + N and shoe.is_conserved(held)


# ------------------------------------------------------------------------------------------------- DD-7


async def test_dd7_fifty_rolls_of_the_same_d12_step_it_once(stores: list[Store]) -> None:  # DD-7
    await stores[0].supply.set(G, 20, "Ann", "Torches", 12)
    results = _winners(await _race(stores, lambda s, _: s.supply.apply_roll(G, 20, "Ann", "Torches", 12, 2)))
    assert len(results) == 1
    assert (await stores[0].supply.get(G, 20, "Ann", "Torches")).die == 10


async def test_dd7_fifty_rollers_retrying_step_exactly_down_to_empty(stores: list[Store]) -> None:  # DD-7
    await stores[0].supply.set(G, 20, "Ann", "Torches", 12)

    async def roll(s: Store, _: int) -> object:
        while True:  # a Conflict means another roll came first: read again, as a cog would
            current = await s.supply.get(G, 20, "Ann", "Torches")
            if current.empty:
                return None
            try:
                return await s.supply.step(G, 20, "Ann", "Torches", current.die)
            except Conflict:
                await asyncio.sleep(0)

    results = _winners(await _race(stores, roll))
    assert sorted(r.die for r in results if r is not None) == [0, 4, 6, 8, 10]  # type: ignore[attr-defined]
    assert (await stores[0].supply.get(G, 20, "Ann", "Torches")).empty


# ------------------------------------------------------------------------------------------------- RPS-8


async def test_rps8_fifty_checks_on_the_same_count_add_once(stores: list[Store]) -> None:  # RPS-8
    pool = await stores[0].pools.start(G, C, 7, "Climb", goal=100, base=12, time_per_check=10)
    results = _winners(
        await _race(stores, lambda s, i: s.pools.add_check(pool.id, 0, PoolCheck(sl=i, delta=i)))
    )
    assert len(results) == 1
    final = await stores[0].pools.get_by_id(pool.id)
    assert final.checks_made == 1 and final.pool == sum(c.delta for c in final.checks)


async def test_rps8_fifty_checks_with_retries_all_land_and_the_pool_is_their_sum(stores: list[Store]) -> None:
    pool = await stores[0].pools.start(G, C, 7, "Climb", goal=10_000, base=12, time_per_check=10)

    async def check(s: Store, i: int) -> object:
        while True:
            current = await s.pools.get_by_id(pool.id)
            try:
                return await s.pools.add_check(
                    pool.id, current.checks_made, PoolCheck(sl=i - 20, delta=i - 20)
                )
            except Conflict:
                await asyncio.sleep(0)

    assert len(_winners(await _race(stores, check))) == N
    final = await stores[0].pools.get_by_id(pool.id)
    assert final.checks_made == N and len(final.checks) == N
    assert final.pool == sum(c.delta for c in final.checks) == sum(i - 20 for i in range(N))


# --------------------------------------------------------------------------------------------- log, sheets


async def test_fifty_reveals_of_one_roll_exactly_one_true(stores: list[Store]) -> None:
    rid = await stores[0].log.add(
        RollRecord(
            guild_id=G, channel_id=C, user_id=20, system="dn", command="roll", visibility="blind", result="x"
        )
    )
    results = _winners(await _race(stores, lambda s, i: s.log.mark_revealed(rid, i)))
    assert results.count(True) == 1 and results.count(False) == N - 1


async def test_fifty_log_writes_all_land(stores: list[Store]) -> None:
    record = RollRecord(guild_id=G, channel_id=C, user_id=20, system="dn", command="roll", result="ok")
    ids = _winners(await _race(stores, lambda s, _: s.log.add(record)))
    assert len(set(ids)) == N
    assert len(await stores[0].log.last(G, C, N)) == N


async def test_fifty_uses_leave_exactly_one_active_sheet(stores: list[Store]) -> None:
    for n in range(5):
        await stores[0].sheets.create(Sheet(guild_id=G, owner_id=20, name=f"S{n}", system="dn"))
    _winners(await _race(stores, lambda s, i: s.sheets.use(G, 20, f"S{i % 5}")))
    actives = [s for s in await stores[0].sheets.list(G, 20) if s.active]
    assert len(actives) == 1
