"""Units of work run inline on the event loop's thread, and fall back to aiosqlite's thread when locked."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from bot.store import Store
from bot.store import db as dbmod
from bot.store.db import Statement, Tx


def _put(key: str, value: str = "v"):
    def work(tx: Tx) -> int:
        outcome = tx.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))
        assert outcome.lastrowid is not None
        return outcome.lastrowid

    return work


async def _keys(store: Store) -> set[str]:
    return {row["key"] for row in await store.db.all("SELECT key FROM meta")}


async def test_a_unit_runs_on_the_loops_thread_with_no_trip(store: Store) -> None:
    threads: list[int] = []

    def work(tx: Tx) -> int:
        threads.append(threading.get_ident())
        return _put("here")(tx)

    trips, inline = store.db.trips, store.db.inline_units
    await store.db.run(work)
    assert threads == [threading.get_ident()]
    assert store.db.trips == trips and store.db.inline_units == inline + 1
    assert "here" in await _keys(store)


async def test_an_inline_unit_that_raises_is_rolled_back_whole(store: Store) -> None:
    def half_then_fail(tx: Tx) -> None:
        tx.execute("INSERT INTO meta (key, value) VALUES ('half', 'v')")
        raise LookupError("the unit changed its mind")

    with pytest.raises(LookupError):
        await store.db.run(half_then_fail)
    with pytest.raises(sqlite3.IntegrityError):
        await store.db.run(lambda tx: (_put("dup")(tx), _put("dup")(tx)))
    assert await _keys(store) == set()
    assert isinstance(await store.db.run(_put("after")), int), "the connection is usable after a rollback"


async def test_a_lone_read_and_a_lone_write_run_no_statement_they_do_not_need(store: Store) -> None:
    """One SELECT is atomic by itself: no BEGIN and COMMIT around it. A write alone in its turn of the loop
    has no savepoint (there is nothing else to keep if it fails): BEGIN, its statements, COMMIT."""
    assert store.db._inline is not None
    ran: list[str] = []
    store.db._inline.set_trace_callback(ran.append)
    try:
        assert await store.db.one("SELECT value FROM meta WHERE key = ?", ("none",)) is None
        assert ran == ["SELECT value FROM meta WHERE key = 'none'"]
        ran.clear()
        await store.db.run(_put("alone"))
        assert ran == ["BEGIN IMMEDIATE", "INSERT INTO meta (key, value) VALUES ('alone', 'v')", "COMMIT"]
        ran.clear()
        await asyncio.gather(store.db.run(_put("one")), store.db.run(_put("two")))
        assert ran.count("SAVEPOINT unit") == 2 and ran.count("COMMIT") == 1  # together: one savepoint each
    finally:
        store.db._inline.set_trace_callback(None)
    assert await _keys(store) == {"alone", "one", "two"}


async def test_the_writes_of_one_turn_of_the_loop_commit_together(store: Store) -> None:
    commits, trips = store.db.inline_commits, store.db.trips
    ids = await asyncio.gather(*(store.db.run(_put(f"k{n}")) for n in range(10)))
    assert len(set(ids)) == 10
    assert store.db.inline_commits == commits + 1 and store.db.trips == trips
    assert await _keys(store) == {f"k{n}" for n in range(10)}
    await store.db.run(_put("alone"))
    assert store.db.inline_commits == commits + 2, "a write alone commits at the end of its own turn"


async def test_a_failing_write_in_a_group_is_rolled_back_alone(store: Store) -> None:
    def half_then_fail(tx: Tx) -> None:
        tx.execute("INSERT INTO meta (key, value) VALUES ('half', 'v')")
        raise LookupError("the unit changed its mind")

    first, failed, last = await asyncio.gather(
        store.db.run(_put("first")), store.db.run(half_then_fail), store.db.run(_put("last")),
        return_exceptions=True,
    )  # fmt: skip
    assert isinstance(first, int) and isinstance(last, int) and isinstance(failed, LookupError)
    assert await _keys(store) == {"first", "last"}


async def test_a_single_statement_unit_runs_without_a_savepoint_and_fails_alone(store: Store) -> None:
    assert store.db._inline is not None
    traced: list[str] = []
    store.db._inline.set_trace_callback(traced.append)
    try:
        put = "INSERT INTO meta (key, value) VALUES (?, ?)"
        first, dup, mixed, last = await asyncio.gather(
            store.db.run(Statement(put, ("one", "v"))),
            store.db.run(Statement(put, ("one", "again"))),  # the key is taken: refused by SQLite
            store.db.run(_put("mixed")),
            store.db.run(Statement(put, ("two", "v"))),
            return_exceptions=True,
        )
    finally:
        store.db._inline.set_trace_callback(None)
    assert isinstance(dup, sqlite3.IntegrityError)
    assert first.lastrowid and last.lastrowid and isinstance(mixed, int)
    assert await _keys(store) == {"one", "two", "mixed"}
    row = await store.db.one("SELECT value FROM meta WHERE key = 'one'")
    assert row is not None and row["value"] == "v", "the refused statement changed nothing"
    assert sum(s.startswith("SAVEPOINT") for s in traced) == 1, "only the function unit needs a savepoint"
    assert traced.count("COMMIT") == 1


async def test_a_read_after_a_write_sees_it(store: Store) -> None:
    async def write_then_read(key: str) -> bool:
        await store.db.run(_put(key))
        return key in await _keys(store)

    assert await asyncio.gather(*(write_then_read(f"r{n}") for n in range(5))) == [True] * 5


async def test_closing_commits_the_writes_queued_this_turn(db_path: Path) -> None:
    store = await Store.open(db_path)
    pending = asyncio.ensure_future(store.db.run(_put("queued")))
    await asyncio.sleep(0)  # the unit is queued for the end of this turn; close comes first
    await store.close()
    assert isinstance(await pending, int)
    reopened = await Store.open(db_path)
    try:
        assert await _keys(reopened) == {"queued"}
    finally:
        await reopened.close()


async def test_a_locked_database_is_waited_for_on_the_thread_not_on_the_loop(
    store: Store, db_path: Path
) -> None:
    other = sqlite3.connect(db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        trips = store.db.trips
        first = asyncio.ensure_future(store.db.run(_put("first")))
        await asyncio.sleep(0)
        second = asyncio.ensure_future(store.db.run(_put("second")))  # queues behind the first
        ticks = 0
        for _ in range(10):  # the loop keeps running while both units wait for the lock
            await asyncio.sleep(0.01)
            ticks += 1
        assert ticks == 10 and not first.done() and not second.done()
        other.execute("COMMIT")
        assert isinstance(await asyncio.wait_for(first, 5), int)
        assert isinstance(await asyncio.wait_for(second, 5), int)
        assert store.db.trips > trips
    finally:
        other.close()
    assert await _keys(store) == {"first", "second"}
    inline = store.db.inline_units
    await store.db.run(_put("third"))
    assert store.db.inline_units == inline + 1, "once the lock is free, units run inline again"


async def test_background_units_take_the_thread(store: Store) -> None:
    trips, inline = store.db.trips, store.db.inline_units
    rows = await store.db.all("SELECT key FROM meta", background=True)
    assert rows == [] and store.db.trips == trips + 1 and store.db.inline_units == inline


async def test_writes_keep_their_order_when_a_background_unit_starts_the_thread(store: Store) -> None:
    # the first write waits in this turn's group; the background unit starts the thread, and the writes
    # after it go there: the first must not be left behind them (a modifier set, then cleared, survived)
    def delete(tx: Tx) -> int:
        return tx.execute("DELETE FROM meta WHERE key = 'k'").rowcount

    done: list[str] = []

    async def unit(name: str, work, **kw) -> None:
        await store.db.run(work, **kw)
        done.append(name)

    await asyncio.gather(
        unit("insert", _put("k")),
        unit("read", lambda tx: tx.all("SELECT key FROM meta"), write=False, background=True),
        unit("delete", delete),
    )
    assert "k" not in await _keys(store)
    assert done == ["insert", "read", "delete"]


async def test_the_wal_is_checkpointed_on_the_thread(
    store: Store, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dbmod, "CHECKPOINT_EVERY", 20)
    size = db_path.stat().st_size
    for n in range(19):
        await store.db.run(_put(f"k{n}", "x" * 4000))
    assert store.db.checkpoints == 0
    assert db_path.stat().st_size == size, "inline writes never checkpoint on the loop"
    await store.db.run(_put("k19", "x" * 4000))
    for _ in range(100):
        if store.db.checkpoints:
            break
        await asyncio.sleep(0.01)
    assert store.db.checkpoints == 1
    assert db_path.stat().st_size >= size + 19 * 4000, "the checkpoint copied the WAL into the database"


async def test_a_write_on_the_thread_right_after_a_checkpoint_commits(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    # aiosqlite's thread keeps the last call's result until its next call has run: a checkpoint whose
    # row was never read stayed an unfinished statement, and the next unit's COMMIT on that thread
    # failed ("cannot commit transaction - SQL statements in progress")
    monkeypatch.setattr(dbmod, "CHECKPOINT_EVERY", 5)
    for round_ in range(3):
        for n in range(5):
            await store.db.run(_put(f"k{round_}.{n}", "x" * 4000))
        while store.db._checkpoint is not None:
            await store.db._checkpoint
        await store.db.run(_put(f"thread{round_}"), background=True)  # the next call on the thread
    assert store.db.checkpoints == 3
    assert {f"thread{n}" for n in range(3)} <= await _keys(store)


async def test_an_in_memory_database_takes_the_thread() -> None:
    store = await Store.open(":memory:")
    try:
        await store.db.run(_put("m"))
        assert store.db.inline_units == 0 and store.db.trips >= 1
        assert await _keys(store) == {"m"}
    finally:
        await store.close()
