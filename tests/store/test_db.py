"""The database layer: every statement on aiosqlite's threads, units atomic and one at a time, reads that
only see committed data, and nothing kept in memory that another process's write could make stale."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.store import PoolCheck, RollRecord, Sheet, Store, StoreError
from bot.store.db import STUCK_AFTER, Tx

G, C, P = 1, 10, 20

# the SQLite layer itself (aiosqlite's threads, the write queue, WAL); test_postgres.py has PostgreSQL's
pytestmark = pytest.mark.sqlite_only


def _put(key: str, value: str = "v") -> Callable[[Tx], Awaitable[int]]:
    async def work(tx: Tx) -> int:
        outcome = await tx.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))
        assert outcome.lastrowid is not None
        return outcome.lastrowid

    return work


async def _keys(store: Store) -> set[str]:
    return {row["key"] for row in await store.db.all("SELECT key FROM meta")}


async def _every_kind_of_work(store: Store) -> None:
    """A little of everything the cogs do, through the repositories."""
    rng = random.Random(5)
    await store.meta.set("tree", "abc")
    assert await store.meta.get("tree") == "abc"
    await store.meta.move("tree", "tree2", "def")
    await store.settings.update(G, decks_per_shoe=2)
    await store.settings.get(G)
    await store.settings.set_channel_visibility(G, C, "gm")
    await store.settings.channel_visibility(G, C)
    await store.gm.add_channel_gm(G, C, 7)
    await store.gm.is_channel_gm(G, C, 7)
    await store.sheets.create(Sheet(guild_id=G, owner_id=P, name="Ann", system="sysx"))
    await store.sheets.set_attribute(G, P, "Ann", "Strength", 10)
    await store.sheets.active(G, P, "sysx")
    await store.modifiers.set(G, C, "cards", P, "difficulty", 1, 2, 7)
    await store.modifiers.reserve("deal", G, C, "cards", P)
    shoe, version = await store.cards.get_shoe(G, C, 1, rng)
    card, shoe = shoe.draw(rng)
    record = RollRecord(guild_id=G, channel_id=C, user_id=P, system="cards", command="t", result="r")
    hand = await store.cards.create_hand(
        G, C, P, {"n": 1}, state="open", cards=[card], shoe=shoe, shoe_version=version,
        modifiers=store.modifiers.ticket("deal"),
    )  # fmt: skip
    await store.cards.set_message_id(hand.id, 99)
    read_hand, read_shoe = await store.cards.hand_with_shoe(hand.id, G, C)
    assert read_shoe is not None
    second, rest = read_shoe.shoe.draw(rng)
    await store.cards.apply_logged(
        hand.id, hand.version, {"n": 2}, state="done", cards=[card, second], finished=True,
        shoe=rest, shoe_version=read_shoe.version, log=lambda _: record, base=read_hand,
    )  # fmt: skip
    await store.cards.reshuffle(G, C, rng)
    pool = await store.pools.start(G, C, P, "Climb", goal=10, base=12, time_per_check=10)
    await store.pools.add_check_logged(pool.id, 0, PoolCheck(sl=1, delta=1), "running", record)
    await store.supply.set(G, P, "Ann", "Torch", 8)
    await store.supply.apply_roll_logged(G, P, "Ann", "Torch", 8, 2, record)
    roll = await store.log.add(record)
    await store.log.mark_revealed(roll, 7)
    await store.log.export(G, C, "csv")
    await store.modifiers.pending_for(G, C, "cards", P)


async def test_every_statement_runs_on_aiosqlite_s_threads_not_the_loop_s(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop_thread = threading.get_ident()
    connects: list[int] = []
    real_connect = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        connects.append(threading.get_ident())
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect)
    store = await Store.open(db_path)
    seen: list[tuple[int, str]] = []
    await store.db.trace(lambda statement: seen.append((threading.get_ident(), statement)))
    try:
        await _every_kind_of_work(store)
        await store.db.trace(None)
    finally:
        await store.close()
    assert len(connects) == 2 and loop_thread not in connects, "each connection opened on its own thread"
    threads = {thread for thread, _ in seen}
    assert loop_thread not in threads
    assert len(threads) == 2, "the writing connection's thread and the reading one's"
    statements = [statement for _, statement in seen]
    assert len(statements) > 60
    kinds = (
        "BEGIN IMMEDIATE", "COMMIT", "UPDATE hands", "INSERT INTO hand_endings", "INSERT INTO rolls",
        "SELECT value FROM meta",
    )  # fmt: skip
    for expected in kinds:
        assert any(s.startswith(expected) for s in statements), expected


async def test_the_sqlite3_connections_refuse_the_event_loop_s_thread(store: Store) -> None:
    # aiosqlite opens each sqlite3 connection on its own thread, and sqlite3 refuses any other thread:
    # a statement sent from the loop past aiosqlite would fail at once, not run unnoticed
    raw = [c._conn for c in (store.db._writer, store.db._reader) if c is not None]
    assert len(raw) == 2
    for conn in raw:
        with pytest.raises(sqlite3.ProgrammingError, match="thread"):
            conn.execute("SELECT 1")


async def test_a_unit_that_raises_is_rolled_back_whole(store: Store) -> None:
    async def half_then_fail(tx: Tx) -> None:
        await tx.execute("INSERT INTO meta (key, value) VALUES ('half', 'v')")
        raise LookupError("the unit changed its mind")

    async def twice(tx: Tx) -> None:
        await _put("dup")(tx)
        await _put("dup")(tx)

    with pytest.raises(LookupError):
        await store.db.run(half_then_fail)
    with pytest.raises(sqlite3.IntegrityError):
        await store.db.run(twice)
    assert await _keys(store) == set()
    assert isinstance(await store.db.run(_put("after")), int), "the connection is usable after a rollback"


async def test_concurrent_units_run_one_at_a_time(store: Store) -> None:
    # read, then write what was read plus one, across awaits: units that interleaved would lose counts
    await store.meta.set("n", "0")

    async def increment(tx: Tx) -> None:
        row = await tx.one("SELECT value FROM meta WHERE key = 'n'")
        assert row is not None
        await asyncio.sleep(0)
        await tx.execute("UPDATE meta SET value = ? WHERE key = 'n'", (str(int(row["value"]) + 1),))

    results = await asyncio.gather(
        *(store.db.run(increment) for _ in range(40)), store.db.run(_put("x")), store.db.run(_put("x")),
        return_exceptions=True,
    )  # fmt: skip
    assert [type(r) for r in results[-2:]] == [int, sqlite3.IntegrityError], "a failing unit fails alone"
    assert await store.meta.get("n") == "40"


async def test_a_unit_that_loses_its_transaction_is_not_reported_as_kept(store: Store) -> None:
    # SQLite may abandon a transaction (disk full, I/O error); a unit issuing ROLLBACK plays that part here
    async def lose_everything(tx: Tx) -> None:
        await tx.execute("INSERT INTO meta (key, value) VALUES ('lost', 'v')")
        await tx.execute("ROLLBACK")

    with pytest.raises(sqlite3.OperationalError):
        await store.db.run(lose_everything)
    assert await _keys(store) == set()
    assert isinstance(await store.db.run(_put("after")), int)


async def test_a_lone_write_statement_that_fails_changes_nothing(store: Store) -> None:
    await store.db.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
    with pytest.raises(sqlite3.IntegrityError):
        await store.db.execute("INSERT INTO meta (key, value) VALUES ('k', 'again')")
    assert await store.meta.get("k") == "v"


async def test_a_lone_statement_never_joins_an_open_unit_and_keeps_its_place_in_line(store: Store) -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    async def open_then_fail(tx: Tx) -> None:
        await _put("undone")(tx)
        started.set()
        await release.wait()  # its transaction is open while the lone statement is sent
        raise LookupError("the unit changed its mind")

    unit = asyncio.ensure_future(store.db.run(open_then_fail))
    await started.wait()
    lone = asyncio.ensure_future(store.db.execute("INSERT INTO meta (key, value) VALUES ('lone', 'v')"))
    await asyncio.sleep(0.05)
    assert not lone.done(), "a lone statement waits for the open unit"
    release.set()
    with pytest.raises(LookupError):
        await unit
    await lone
    assert await _keys(store) == {"lone"}, "the unit's rollback did not take the lone statement with it"
    # with nothing open, a lone statement goes straight to the connection: a unit sent after it still
    # begins after it, and reads what it wrote
    first = asyncio.ensure_future(store.db.execute("INSERT INTO meta (key, value) VALUES ('first', 'v')"))
    await asyncio.sleep(0)  # sent

    async def read_first(tx: Tx) -> bool:
        return await tx.one("SELECT 1 FROM meta WHERE key = 'first'") is not None

    assert await store.db.run(read_first)
    await first


async def test_a_caller_cancelled_before_its_unit_began_takes_it_out_of_the_queue(store: Store) -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    async def slow(tx: Tx) -> None:
        started.set()
        await release.wait()  # holds the writing connection (a test only: units await nothing but tx)
        await _put("slow")(tx)

    first = asyncio.ensure_future(store.db.run(slow))
    await started.wait()
    queued = asyncio.ensure_future(store.db.run(_put("cancelled")))
    kept = asyncio.ensure_future(store.db.run(_put("kept")))
    await asyncio.sleep(0)
    queued.cancel()
    first.cancel()  # already running: it runs to its end regardless
    release.set()
    assert isinstance(await kept, int)
    for cancelled in (queued, first):
        with pytest.raises(asyncio.CancelledError):
            await cancelled
    assert await _keys(store) == {"slow", "kept"}


async def test_close_runs_what_is_queued_then_refuses(db_path: Path) -> None:
    store = await Store.open(db_path)
    pending = [asyncio.ensure_future(store.db.run(_put(f"q{n}"))) for n in range(5)]
    await asyncio.sleep(0)
    await store.close()
    assert all(isinstance(done, int) for done in await asyncio.gather(*pending))
    with pytest.raises(StoreError):
        await store.db.run(_put("too late"))
    with pytest.raises(StoreError):
        await store.meta.get("q1")
    async with await Store.open(db_path) as again:
        assert await _keys(again) == {f"q{n}" for n in range(5)}


@contextlib.contextmanager
def _write_lock_held_elsewhere(db_path: Path) -> Iterator[sqlite3.Connection]:
    """Another process's connection to the file, holding SQLite's write lock until it commits or closes."""
    other = sqlite3.connect(db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield other
    finally:
        other.close()


async def test_a_locked_database_is_waited_for_off_the_loop_and_reads_carry_on(
    store: Store, db_path: Path
) -> None:
    await store.meta.set("seen", "v")
    with _write_lock_held_elsewhere(db_path) as other:
        other.execute("INSERT INTO meta (key, value) VALUES ('uncommitted', 'v')")
        first = asyncio.ensure_future(store.db.run(_put("first")))
        second = asyncio.ensure_future(store.meta.set("second", "v"))
        ticks = 0
        for _ in range(10):  # the loop keeps running while both wait for the lock
            await asyncio.sleep(0.01)
            ticks += 1
        assert ticks == 10 and not first.done() and not second.done()
        assert await asyncio.wait_for(store.meta.get("seen"), 5) == "v", "a read does not wait for a writer"
        assert await store.meta.get("uncommitted") is None, "nor sees what is not committed"
        other.execute("COMMIT")
        assert isinstance(await asyncio.wait_for(first, 5), int)
        await asyncio.wait_for(second, 5)
    assert await _keys(store) == {"seen", "uncommitted", "first", "second"}


async def test_a_short_read_runs_on_the_writing_connection_only_while_it_is_free(store: Store) -> None:
    seen: list[tuple[int, str]] = []
    started, release = asyncio.Event(), asyncio.Event()

    async def open_unit(tx: Tx) -> None:
        await tx.execute("INSERT INTO meta (key, value) VALUES ('u', 'uncommitted')")
        started.set()
        await release.wait()

    await store.db.trace(lambda statement: seen.append((threading.get_ident(), statement)))
    try:
        await store.meta.set("w", "1")  # a lone write, on the writing connection
        assert await store.db.one("SELECT value AS a FROM meta WHERE key = 'w'", short=True) is not None
        assert await store.db.one("SELECT value AS b FROM meta WHERE key = 'w'") is not None
        unit = asyncio.ensure_future(store.db.run(open_unit))
        await started.wait()
        # a unit is open on the writing connection: the short read goes to the reading one, and sees only
        # what is committed
        assert await store.db.one("SELECT value AS c FROM meta WHERE key = 'u'", short=True) is None
        release.set()
        await unit
    finally:
        await store.db.trace(None)

    def thread(prefix: str) -> int:
        return next(t for t, statement in seen if statement.startswith(prefix))

    writer = thread("INSERT INTO meta")
    assert thread("SELECT value AS a") == writer
    assert thread("SELECT value AS b") != writer and thread("SELECT value AS c") != writer
    assert await store.meta.get("u") == "uncommitted"


async def test_a_short_read_carries_on_past_a_lone_write_waiting_for_a_lock(
    store: Store, db_path: Path
) -> None:
    await store.meta.set("seen", "v")
    with _write_lock_held_elsewhere(db_path) as other:
        blocked = asyncio.ensure_future(store.meta.set("blocked", "v"))  # a lone write, waiting for it
        await asyncio.sleep(STUCK_AFTER * 2)
        assert not blocked.done()
        read = store.db.one("SELECT value FROM meta WHERE key = 'seen'", short=True)
        row = await asyncio.wait_for(read, 2)  # not behind the write on its connection's thread
        assert row is not None and row["value"] == "v"
        other.execute("COMMIT")
        await asyncio.wait_for(blocked, 5)
    assert await store.meta.get("blocked") == "v"


async def test_a_read_after_an_acknowledged_write_sees_it(store: Store) -> None:
    async def write_then_read(n: int) -> bool:
        await store.meta.set(f"r{n}", str(n))
        return await store.meta.get(f"r{n}") == str(n)

    assert await asyncio.gather(*(write_then_read(n) for n in range(50))) == [True] * 50


async def test_a_read_only_unit_reads_one_snapshot(store: Store, db_path: Path) -> None:
    await store.meta.set("a", "1")
    other = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)

    async def two_reads(tx: Tx) -> tuple[Any, Any]:
        before = await tx.one("SELECT value FROM meta WHERE key = 'a'")
        await asyncio.to_thread(other.execute, "UPDATE meta SET value = '2' WHERE key = 'a'")
        after = await tx.one("SELECT value FROM meta WHERE key = 'a'")
        return before["value"], after["value"]  # type: ignore[index]

    try:
        assert await store.db.run(two_reads, write=False) == ("1", "1")
    finally:
        other.close()
    assert await store.meta.get("a") == "2"


async def test_a_write_with_returning_is_not_sent_to_the_read_only_connection(store: Store) -> None:
    row = await store.db.one("INSERT INTO meta (key, value) VALUES ('r', 'v') RETURNING key")
    assert row is not None and row["key"] == "r"
    assert await store.meta.get("r") == "v"


async def test_an_in_memory_database_uses_one_connection() -> None:
    async with await Store.open(":memory:") as store:
        await store.db.run(_put("m"))
        assert await store.meta.get("m") == "v"
        await store.sheets.create(Sheet(guild_id=G, owner_id=P, name="Ann", system="dn"))
        assert (await store.sheets.active(G, P, "dn")) is not None


@pytest.mark.parametrize("turns", [1, 2, 3, 5, 8])
async def test_a_close_cancelled_part_way_still_ends_the_connections_threads(
    db_path: Path, turns: int
) -> None:
    # aiosqlite's threads are not daemons: one left running keeps the process alive after asyncio.run()
    # has cancelled a shutdown that was still closing the store
    before = set(threading.enumerate())
    store = await Store.open(db_path)
    closing = asyncio.ensure_future(store.close())
    for _ in range(turns):
        await asyncio.sleep(0)
    closing.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await closing
    for _ in range(200):
        left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not left:
            break
        await asyncio.sleep(0.01)
    assert left == []
