"""Units of work on aiosqlite's thread: concurrent units share one trip and one COMMIT, each atomic alone.

The thread is the path a unit takes when the inline connection finds the database locked, and the path
of ``background`` units; these tests open the Store with ``inline=False`` to send everything there.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.store import Store
from bot.store.db import Tx
from bot.store.errors import StoreError


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[Store]:
    """A Store whose every unit takes the thread (group commit)."""
    opened = await Store.open(db_path, inline=False)
    try:
        yield opened
    finally:
        await opened.close()


async def _keys(store: Store) -> set[str]:
    return {row["key"] for row in await store.db.all("SELECT key FROM meta")}


def _put(key: str):
    def work(tx: Tx) -> int:
        outcome = tx.execute("INSERT INTO meta (key, value) VALUES (?, 'v')", (key,))
        assert outcome.lastrowid is not None
        return outcome.lastrowid

    return work


async def test_concurrent_units_share_trips_and_all_commit(store: Store) -> None:
    before = store.db.trips
    await asyncio.gather(*(store.db.run(_put(f"k{n}")) for n in range(50)))
    trips = store.db.trips - before
    assert trips < 10, f"50 concurrent units took {trips} trips to the SQLite thread"
    assert await _keys(store) == {f"k{n}" for n in range(50)}


async def test_a_unit_that_raises_is_rolled_back_alone(store: Store) -> None:
    def half_then_fail(tx: Tx) -> None:
        tx.execute("INSERT INTO meta (key, value) VALUES ('half', 'v')")
        raise LookupError("the unit changed its mind")

    results = await asyncio.gather(
        store.db.run(_put("a")),
        store.db.run(half_then_fail),
        store.db.run(_put("a")),  # a UNIQUE violation: this one fails alone too
        store.db.run(_put("c")),
        return_exceptions=True,
    )
    assert isinstance(results[0], int) and isinstance(results[3], int)
    assert isinstance(results[1], LookupError)
    assert isinstance(results[2], sqlite3.IntegrityError)
    assert await _keys(store) == {"a", "c"}


async def test_a_unit_that_loses_the_whole_transaction_fails_every_unit_it_took_with_it(store: Store) -> None:
    # SQLite may abandon a transaction (disk full, I/O error); a unit issuing ROLLBACK plays that part here.
    def lose_everything(tx: Tx) -> None:
        tx.execute("ROLLBACK")
        raise OSError("disk full")

    results = await asyncio.gather(
        store.db.run(_put("before")),
        store.db.run(lose_everything),
        store.db.run(_put("after")),
        return_exceptions=True,
    )
    assert isinstance(results[0], OSError), "a write lost with the transaction must not be reported as kept"
    assert isinstance(results[1], OSError)
    assert isinstance(results[2], int)
    assert await _keys(store) == {"after"}


async def test_reads_do_not_wait_for_another_connections_write_lock(store: Store, db_path: Path) -> None:
    await store.db.run(_put("seen"))
    other = sqlite3.connect(db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        other.execute("INSERT INTO meta (key, value) VALUES ('uncommitted', 'v')")
        row = await asyncio.wait_for(store.db.one("SELECT value FROM meta WHERE key = 'seen'"), 5)
        assert row is not None and row["value"] == "v"
        assert await store.db.one("SELECT 1 FROM meta WHERE key = 'uncommitted'") is None
        other.execute("ROLLBACK")
    finally:
        other.close()


async def test_a_cancelled_caller_does_not_break_the_queue(store: Store) -> None:
    first = asyncio.ensure_future(store.db.run(_put("cancelled")))
    second = asyncio.ensure_future(store.db.run(_put("kept")))
    await asyncio.sleep(0)
    first.cancel()
    assert isinstance(await second, int)
    with pytest.raises(asyncio.CancelledError):
        await first
    # the cancelled unit ran regardless (it was already queued): the same as a statement sent just before
    assert "kept" in await _keys(store)
    assert isinstance(await store.db.run(_put("later")), int)


async def test_close_runs_what_is_queued_then_refuses(db_path: Path) -> None:
    store = await Store.open(db_path, inline=False)
    pending = [asyncio.ensure_future(store.db.run(_put(f"q{n}"))) for n in range(5)]
    await asyncio.sleep(0)
    await store.close()
    assert all(isinstance(done, int) for done in await asyncio.gather(*pending))
    with pytest.raises(StoreError):
        await store.db.run(_put("too late"))
    again = await Store.open(db_path)
    try:
        assert await _keys(again) == {f"q{n}" for n in range(5)}
    finally:
        await again.close()


async def test_meta_key_cache_sees_interleaved_set_and_delete(store: Store) -> None:
    # delete before set, both queued at once: the key stays (set came last) and get() must say so
    await store.meta.set("k", "1")
    await asyncio.gather(store.meta.delete("k"), store.meta.set("k", "2"))
    assert await store.meta.get("k") == "2"
    # set then delete: gone, and exactly one of two concurrent deletes reports it
    await store.meta.set("j", "1")
    assert sorted(await asyncio.gather(store.meta.delete("j"), store.meta.delete("j"))) == [False, True]
    assert await store.meta.get("j") is None
