"""bot.store.cache: a click reads back the hand and shoe the click before it wrote without SQL, and a row
another connection changed is never read from the cache (PRAGMA data_version)."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

import pytest

from bot.core.cards import Shoe
from bot.store import Conflict, HandRecord, NotFound, Store
from bot.store.cache import RowCache

G, C, P = 1, 10, 20


@contextmanager
def statements(store: Store) -> Iterator[list[str]]:
    """The statements SQLite runs on the store's inline connection meanwhile (data_version checks apart)."""
    raw = store.db._inline
    assert raw is not None
    seen: list[str] = []
    raw.set_trace_callback(lambda sql: None if sql == "PRAGMA data_version" else seen.append(sql))
    try:
        yield seen
    finally:
        raw.set_trace_callback(None)


async def _deal(store: Store, rng: random.Random, channel: int = C) -> HandRecord:
    shoe, version = await store.cards.get_shoe(G, channel, 1, rng)
    card, shoe = shoe.draw(rng)
    return await store.cards.create_hand(
        G, channel, P, {"cards": [card.code]}, state="playing", cards=[card], shoe=shoe,
        shoe_version=version,
    )  # fmt: skip


async def _hit(store: Store, record: HandRecord, rng: random.Random) -> HandRecord:
    shoe, version = await store.cards.get_shoe(G, record.channel_id)
    card, shoe = shoe.draw(rng)
    cards = [*record.card_objects, card]
    return await store.cards.apply(
        record.id, record.version, {"cards": [c.code for c in cards]}, state="playing", cards=cards,
        shoe=shoe, shoe_version=version,
    )  # fmt: skip


async def test_a_click_reads_back_what_the_click_before_it_wrote_without_sql(store: Store) -> None:
    rng = random.Random(1)
    dealt = await _deal(store, rng)
    with statements(store) as seen:
        record = await store.cards.hand_in(dealt.id, G, C)
        shoe, version = await store.cards.get_shoe(G, C)
    assert seen == [] and record is dealt and (version, len(shoe.remaining)) == (2, 51)
    moved = await _hit(store, record, rng)
    with statements(store) as seen:
        assert await store.cards.hand_in(moved.id, G, C) is moved
        assert await store.cards.get_hand(moved.id) is moved
        again, version = await store.cards.get_shoe(G, C)
    assert seen == [] and version == 3 and len(again.remaining) == 50
    # and the cache holds what the database holds
    row = await store.db.one("SELECT version, cards FROM hands WHERE id = ?", (moved.id,))
    assert row is not None and (row["version"], tuple(json.loads(row["cards"]))) == (
        moved.version,
        moved.cards,
    )


async def test_a_cached_hand_is_still_only_found_in_its_own_channel(store: Store) -> None:
    dealt = await _deal(store, random.Random(2))
    assert await store.cards.hand_in(dealt.id, G, C) is dealt  # cached
    for guild, channel in ((G, C + 1), (G + 1, C), (None, C)):
        with pytest.raises(NotFound, match=f"There is no hand {dealt.id} in this channel"):
            await store.cards.hand_in(dealt.id, guild, channel)


async def test_another_connections_commit_is_seen_at_once(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:
    """Another process moves the hand and the shoe: the next read here is theirs, not the cached one."""
    rng = random.Random(3)
    dealt = await _deal(store, rng)
    assert await store.cards.hand_in(dealt.id, G, C) is dealt
    other = await open_store()
    theirs = await _hit(other, await other.cards.hand_in(dealt.id, G, C), rng)
    assert theirs.version == 2
    with statements(store) as seen:
        record = await store.cards.hand_in(dealt.id, G, C)
        shoe, version = await store.cards.get_shoe(G, C)
    assert len(seen) == 2, "both read from the database"
    assert record.version == 2 and record.cards == theirs.cards
    assert version == 3 and len(shoe.remaining) == 50
    # a move computed here from the cached version before theirs is refused, as without the cache
    with pytest.raises(Conflict):
        await store.cards.apply(dealt.id, 1, dealt.data, state="playing", cards=dealt.cards)


async def test_a_row_another_connection_changed_while_it_was_being_read_is_not_kept(
    store: Store, db_path: object
) -> None:
    """The token is taken before the read: a commit in between makes the put a no-op, even when a lookup
    saw that commit (and emptied the cache) before the put."""
    cache = RowCache(store.db, 8)
    token = cache.token()
    assert token is not None
    other = sqlite3.connect(str(db_path), isolation_level=None)
    try:
        other.execute("INSERT INTO meta (key, value) VALUES ('x', 'y')")
    finally:
        other.close()
    assert cache.token() != token  # another coroutine's lookup sees the commit first
    cache.put(token, (("row", 1), "read before that commit"))
    assert cache.get(("row", 1))[1] is None
    fresh = cache.token()
    cache.put(fresh, (("row", 1), "read after it"))
    assert cache.get(("row", 1))[1] == "read after it"


async def test_a_write_on_the_sqlite_thread_drops_every_kept_row(store: Store) -> None:
    """The Store's own aiosqlite thread is another connection: its commits empty the cache too."""
    dealt = await _deal(store, random.Random(4))
    assert len(store.cards.cache) == 2  # the hand and the shoe
    await store.db.run(
        lambda tx: tx.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')"), background=True
    )
    assert store.db.trips >= 1
    with statements(store) as seen:
        assert (await store.cards.hand_in(dealt.id, G, C)).version == dealt.version
    assert len(seen) == 1


async def test_a_refused_move_forgets_the_rows_it_was_computed_from(store: Store) -> None:
    rng = random.Random(5)
    dealt = await _deal(store, rng)
    shoe, version = await store.cards.get_shoe(G, C)
    card, after = shoe.draw(rng)
    with pytest.raises(Conflict):  # the shoe's version is stale: nothing is written
        await store.cards.apply(
            dealt.id, dealt.version, dealt.data, state="playing", cards=[*dealt.card_objects, card],
            shoe=after, shoe_version=version - 1,
        )  # fmt: skip
    assert store.cards.cache.peek(("hand", dealt.id)) is None
    assert store.cards.cache.peek(("shoe", C)) is None
    assert (await store.cards.get_shoe(G, C)) == (shoe, version)


async def test_a_slow_read_never_puts_an_older_version_over_a_newer_one(store: Store) -> None:
    rng = random.Random(6)
    dealt = await _deal(store, rng)
    moved = await _hit(store, dealt, rng)
    store.cards._keep_hand(store.cards.cache.token(), dealt)  # a read of version 1 finishing late
    assert await store.cards.hand_in(dealt.id, G, C) is moved
    shoe, version = await store.cards.get_shoe(G, C)
    store.cards._keep_shoe(store.cards.cache.token(), C, Shoe.fresh(rng), version - 1)
    assert await store.cards.get_shoe(G, C) == (shoe, version)


async def test_message_id_reshuffle_and_put_shoe_are_seen_through_the_cache(store: Store) -> None:
    rng = random.Random(7)
    dealt = await _deal(store, rng)
    await store.cards.set_message_id(dealt.id, 4242)
    assert (await store.cards.hand_in(dealt.id, G, C)).message_id == 4242
    shoe, version = await store.cards.reshuffle(G, C, rng)
    assert await store.cards.get_shoe(G, C) == (shoe, version)
    stacked = Shoe.fresh(random.Random(8))
    version = await store.cards.put_shoe(C, stacked, version)
    with statements(store) as seen:
        assert await store.cards.get_shoe(G, C) == (stacked, version)
    assert seen == []


async def test_the_cache_keeps_at_most_its_size_oldest_first(store: Store) -> None:
    cache = RowCache(store.db, 3)
    token = cache.token()
    for key in range(5):
        cache.put(token, (key, str(key)))
    assert len(cache) == 3 and [cache.peek(k) for k in range(5)] == [None, None, "2", "3", "4"]
    cache.put(token, (2, "again"))  # put again: now the newest
    cache.put(token, (5, "5"))
    assert [cache.peek(k) for k in (2, 3, 4, 5)] == ["again", None, "4", "5"]


async def test_nothing_is_kept_without_the_inline_connection(db_path: object) -> None:
    async with await Store.open(str(db_path), inline=False) as store:
        dealt = await _deal(store, random.Random(9))
        assert len(store.cards.cache) == 0 and store.db.data_version() is None
        assert (await store.cards.hand_in(dealt.id, G, C)).id == dealt.id
        assert len(store.cards.cache) == 0
