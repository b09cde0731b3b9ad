"""Supply dice (DD-7): d12 -> d10 -> d8 -> d6 -> d4 -> empty, set by the GM, stepped atomically."""

from __future__ import annotations

import pytest

from bot.store import Conflict, InvalidData, NotFound, Store

G, P = 1, 20


async def test_dd7_the_chain_steps_down_to_empty(store: Store) -> None:  # DD-7
    supply = await store.supply.set(G, P, "Ann", "Torches", 12)
    seen = [supply.label]
    while not supply.empty:
        supply = await store.supply.step(G, P, "ann", "TORCHES", supply.die)
        seen.append(supply.label)
    assert seen == ["d12", "d10", "d8", "d6", "d4", "empty"]
    with pytest.raises(InvalidData, match="empty and cannot be rolled"):
        await store.supply.apply_roll(G, P, "Ann", "Torches", 0, 1)


async def test_dd7_a_roll_of_3_or_lower_steps_down_others_keep(store: Store) -> None:  # DD-7
    await store.supply.set(G, P, "Ann", "Arrows", 8)
    assert (await store.supply.apply_roll(G, P, "Ann", "Arrows", 8, 4)).die == 8
    assert (await store.supply.apply_roll(G, P, "Ann", "Arrows", 8, 3)).die == 6
    assert (await store.supply.apply_roll(G, P, "Ann", "Arrows", 6, 1)).die == 4
    with pytest.raises(InvalidData, match="shows 1 to 4"):
        await store.supply.apply_roll(G, P, "Ann", "Arrows", 4, 5)
    with pytest.raises(Conflict, match="now a d4, not a d8"):
        await store.supply.apply_roll(G, P, "Ann", "Arrows", 8, 6)
    with pytest.raises(Conflict, match="someone rolled it first"):
        await store.supply.step(G, P, "Ann", "Arrows", 8)
    assert (await store.supply.get(G, P, "Ann", "Arrows")).die == 4


async def test_dd7_the_gm_can_set_or_restore_any_size(store: Store) -> None:  # DD-7
    await store.supply.set(G, P, "Ann", "Rations", 4)
    restored = await store.supply.set(G, P, "ann", "rations", 10)
    assert (restored.character, restored.item, restored.die) == ("ann", "rations", 10)
    assert [s.die for s in await store.supply.list(G, P)] == [10]
    for bad in (7, 20, -1, True):
        with pytest.raises(InvalidData, match="d12, d10, d8, d6, d4 or 0"):
            await store.supply.set(G, P, "Ann", "Rations", bad)
    assert (await store.supply.get(G, P, "Ann", "Rations")).die == 10


async def test_missing_supplies_and_delete(store: Store) -> None:
    with pytest.raises(NotFound, match="no supply of Oil"):
        await store.supply.get(G, P, "Ann", "Oil")
    with pytest.raises(NotFound):
        await store.supply.step(G, P, "Ann", "Oil", 8)
    await store.supply.set(G, P, "Ann", "Oil", 6)
    await store.supply.set(G, P, "Bob", "Oil", 6)
    assert [s.character for s in await store.supply.list(G, P, character="bob")] == ["Bob"]
    assert await store.supply.delete(G, P, "Ann", "Oil")
    assert not await store.supply.delete(G, P, "Ann", "Oil")
    with pytest.raises(InvalidData, match=r"^Give the item a name \(1 to 64 characters\)\.$"):
        await store.supply.set(G, P, "Ann", " ", 6)
    with pytest.raises(InvalidData, match=r"^The item name is 65 characters long; at most 64\.$"):
        await store.supply.set(G, P, "Ann", "x" * 65, 6)
