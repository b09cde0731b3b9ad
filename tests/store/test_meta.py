"""The meta table's queues (`push`, `move`, `take_first`, `remove`): a player's accepted blind requests."""

from __future__ import annotations

import asyncio

import pytest

from bot.store import InvalidData, Store


async def test_a_queue_gives_its_items_back_in_order_once_each(store: Store) -> None:
    assert await store.meta.take_first("q") is None
    assert await store.meta.push("q", "12") == 1
    assert await store.meta.move("request:13", "q", "13") is None  # no such request: nothing queued
    await store.meta.set("request:13", "{}")
    assert await store.meta.move("request:13", "q", "13") == 2
    assert await store.meta.get("request:13") is None
    assert await store.meta.move("request:13", "q", "13") is None  # a double click moves nothing
    assert [await store.meta.take_first("q") for _ in range(3)] == ["12", "13", None]
    assert await store.meta.get("q") is None


@pytest.mark.parametrize("item", ["", "a b", " a", "a\nb"])
async def test_a_queue_item_is_one_word(store: Store, item: str) -> None:
    with pytest.raises(InvalidData):
        await store.meta.push("q", item)
    assert await store.meta.get("q") is None


async def test_racing_takers_and_pushers_lose_and_double_nothing(store: Store) -> None:
    for i in range(10):
        await store.meta.push("q", str(i))
    pushes = [store.meta.push("q", str(i)) for i in range(10, 20)]
    takes = [store.meta.take_first("q") for _ in range(25)]
    results = await asyncio.gather(*pushes, *takes)
    taken = [item for item in results[10:] if item is not None]
    left = (await store.meta.get("q") or "").split()
    assert len(taken) == len(set(taken))  # no item taken twice
    assert sorted(taken + left, key=int) == [str(i) for i in range(20)]  # none lost


async def test_remove_takes_one_named_item_out_of_its_queue_keeping_the_others_in_order(store: Store) -> None:
    assert await store.meta.remove("q", "12") is False  # no queue
    for item in ("11", "12", "13"):
        await store.meta.push("q", item)
    assert await store.meta.remove("q", "12") is True  # a GM withdraws the second accepted request
    assert await store.meta.remove("q", "12") is False  # twice: nothing
    assert await store.meta.remove("q", "1") is False  # a word, not a prefix
    assert await store.meta.get("q") == "11 13"
    assert await store.meta.take_first("q") == "11"
    assert await store.meta.remove("q", "13") is True
    assert await store.meta.get("q") is None  # the last item's removal leaves no empty queue


async def test_a_removal_racing_a_take_of_the_same_item_gets_it_once(store: Store) -> None:
    for _ in range(20):  # a GM's Withdraw and the player's roll at the same moment
        await store.meta.push("q", "7")
        removed, taken = await asyncio.gather(store.meta.remove("q", "7"), store.meta.take_first("q"))
        assert (removed, taken) in ((True, None), (False, "7"))
        assert await store.meta.get("q") is None
