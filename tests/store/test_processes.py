"""Several processes on one database (here: several Stores, each with its own connections): nothing read is
kept in memory, so what one writes the others see at their next read, and a stale read is caught by the
version check of the write that follows. On both backends."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

import pytest

from bot.core.cards import Shoe
from bot.store import Conflict, Store

G, C, P = 1, 10, 20


async def test_what_another_process_writes_is_seen_at_the_next_read(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:
    """Nothing read is kept in memory: each read below was once served from a cache in this process."""
    # read first, so a cache would have had something to keep
    assert (await store.settings.get(G)).gm_role_ids == []
    assert await store.settings.channel_visibility(G, C) == "public"
    assert not await store.gm.is_channel_gm(G, C, 9)
    assert await store.meta.get("k") is None
    assert await store.modifiers.reserve("before", G, C, "dn", P) == []
    other = await open_store()
    await other.settings.update(G, gm_role_ids=[5])
    await other.settings.set_channel_visibility(G, C, "blind")
    await other.gm.add_channel_gm(G, C, 9)
    await other.meta.set("k", "v")
    await other.modifiers.set(G, C, "dn", P, "df", -2, 1, 7)
    assert (await store.settings.get(G)).gm_role_ids == [5]
    assert await store.settings.channel_visibility(G, C) == "blind"
    assert await store.gm.is_channel_gm(G, C, 9) and await store.gm.list_channel_gms(G, C) == [9]
    assert await store.meta.get("k") == "v"
    assert [m.kind for m in await store.modifiers.reserve("after", G, C, "dn", P)] == ["df"]
    await other.meta.delete("k")
    await other.gm.remove_channel_gm(G, C, 9)
    await other.settings.reset(G)
    assert await store.meta.get("k") is None and not await store.gm.is_channel_gm(G, C, 9)
    assert (await store.settings.get(G)).gm_role_ids == []


async def test_a_shoe_read_beside_a_hand_is_caught_when_another_process_moved_it(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:  # BJ-1
    rng = random.Random(8)
    shoe, version = await store.cards.get_shoe(G, C, 1, rng)
    card, rest = shoe.draw(rng)
    hand = await store.cards.create_hand(
        G, C, P, {}, state="open", cards=[card], shoe=rest, shoe_version=version
    )
    _, read = await store.cards.hand_with_shoe(hand.id, G, C)
    assert read is not None
    other = await open_store()
    await other.cards.reshuffle(G, C, rng)  # another process moves the shoe on
    drawn, after = read.shoe.draw(rng)
    with pytest.raises(Conflict):  # the version check catches the stale shoe: nothing drawn twice
        await store.cards.apply(
            hand.id, hand.version, {}, state="open", cards=[card, drawn], shoe=after,
            shoe_version=read.version,
        )  # fmt: skip
    assert isinstance((await store.cards.get_shoe(G, C))[0], Shoe)
