"""SQLite for the bot: units of work run inline on the event loop, or through aiosqlite's thread in groups."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.store.errors import DatabaseTooNew, StoreError

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 10_000
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")

Params = Sequence[Any] | dict[str, Any]
_T = TypeVar("_T")


@dataclass(frozen=True)
class Migration:
    """One numbered migration file."""

    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """Every migration shipped with the code, in order; numbering must run 1, 2, 3 ... without gaps."""
    found: list[Migration] = []
    folder = resources.files("bot.store") / "migrations"
    for entry in folder.iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort(key=lambda m: m.version)
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise StoreError(
                f"Migration {migration.name} is out of sequence; expected number {expected:04d}."
            )
    return found


def latest_version() -> int:
    """The schema version this code writes (the number of the last migration)."""
    found = migrations()
    return found[-1].version if found else 0


@dataclass(frozen=True)
class Outcome:
    """What a write statement did."""

    rowcount: int
    lastrowid: int | None


@dataclass(frozen=True, slots=True)
class Statement:
    """A unit of work that is a single statement (an INSERT of a log row, say); call it with a `Tx`.

    SQLite undoes a statement that fails, so a group commit runs this unit without the savepoint the
    others need (`_run_batch`): about a third of a small insert's cost. Inside a larger unit it is just
    that statement.
    """

    sql: str
    params: Params = ()

    def __call__(self, tx: Tx) -> Outcome:
        return tx.execute(self.sql, self.params)


class Tx:
    """The statements of one unit of work, run on the connection's own thread (see `Database.run`).

    Synchronous on purpose: a unit is a plain function ``work(tx)`` that the store hands to
    `Database.run`, which runs it whole on the SQLite thread, atomically, in one trip from the event loop.
    Only valid while that function runs.
    """

    __slots__ = ("_raw",)

    def __init__(self, raw: sqlite3.Connection) -> None:
        self._raw = raw

    def execute(self, sql: str, params: Params = ()) -> Outcome:
        """Run one statement; returns how many rows it changed and the last inserted id."""
        cursor = self._raw.execute(sql, params)
        try:
            return Outcome(rowcount=cursor.rowcount, lastrowid=cursor.lastrowid)
        finally:
            cursor.close()

    def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement for each parameter row."""
        self._raw.executemany(sql, list(rows)).close()

    def one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""
        cursor = self._raw.execute(sql, params)
        try:
            row: sqlite3.Row | None = cursor.fetchone()
            return row
        finally:
            cursor.close()

    def all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Every row of a query."""
        cursor = self._raw.execute(sql, params)
        try:
            return list(cursor.fetchall())
        finally:
            cursor.close()


@dataclass
class _Job:
    work: Callable[[Tx], Any]
    write: bool
    future: asyncio.Future[Any]


MAX_BATCH = 256  # units per trip: bounds how long one trip keeps the others waiting


def _run_batch(
    raw: sqlite3.Connection, jobs: Sequence[_Job], *, inline: bool = False
) -> list[tuple[bool, Any]]:
    """Every job in one transaction, each in its own savepoint (group commit); a job alone in its batch
    needs none (`_run_single`).

    On the SQLite thread, or ``inline`` on the event loop's connection (which never waits: `_Busy` if
    another connection holds the write lock at BEGIN).

    A job that raises is rolled back to its savepoint alone; the others commit together. If SQLite
    abandons the whole transaction (disk full, I/O error) or the COMMIT fails, every job that had
    succeeded in it fails with that error, so no caller is ever told a lost write was kept.
    """
    results: list[tuple[bool, Any]] = [(False, None)] * len(jobs)
    begin = "BEGIN IMMEDIATE" if any(job.write for job in jobs) else "BEGIN"
    try:
        raw.execute(begin)
    except sqlite3.Error as err:
        if inline and isinstance(err, sqlite3.OperationalError) and _is_busy(err):
            raise _Busy from err  # nothing has run: the caller sends the batch to the thread instead
        return [(False, err)] * len(jobs)
    kept: list[int] = []
    tx = Tx(raw)
    if len(jobs) == 1 and type(jobs[0].work) is not Statement:
        return [_run_single(raw, tx, jobs[0])]
    for index, job in enumerate(jobs):
        alone = type(job.work) is Statement  # atomic by itself: no savepoint
        if not alone:
            try:
                raw.execute("SAVEPOINT unit")
            except sqlite3.Error as err:
                results[index] = (False, err)
                continue
        try:
            value = job.work(tx)
        except Exception as err:
            results[index] = (False, err)
            if raw.in_transaction:
                if not alone:
                    raw.execute("ROLLBACK TO unit")
                    raw.execute("RELEASE unit")
            else:  # SQLite rolled everything back: the units kept so far are lost with it
                for lost in kept:
                    results[lost] = (False, err)
                kept.clear()
                raw.execute(begin)
            continue
        if not alone:
            raw.execute("RELEASE unit")
        results[index] = (True, value)
        kept.append(index)
    try:
        raw.execute("COMMIT")
    except sqlite3.Error as err:
        if raw.in_transaction:
            raw.execute("ROLLBACK")
        for lost in kept:
            results[lost] = (False, err)
    return results


def _run_single(raw: sqlite3.Connection, tx: Tx, job: _Job) -> tuple[bool, Any]:
    """A batch of one unit, in the transaction `_run_batch` began: no savepoint, as nothing else would be
    rolled back with it (two statements of a small write's five)."""
    try:
        value = job.work(tx)
    except Exception as err:
        if raw.in_transaction:
            raw.execute("ROLLBACK")
        return (False, err)
    try:
        raw.execute("COMMIT")
    except sqlite3.Error as err:
        if raw.in_transaction:
            raw.execute("ROLLBACK")
        return (False, err)
    return (True, value)


def _read_inline(raw: sqlite3.Connection, work: Callable[[Tx], _T]) -> _T:
    """On the event loop's thread: a reading ``work`` in a transaction of its own (writes go in groups,
    `Database._commit_batch`). `_Busy` if SQLite could not start it; nothing was written either way.

    The inline connection has no busy timeout, so it never waits: a "database is locked" rolls the unit
    back first, and the caller runs it again on the thread.
    """
    try:
        raw.execute("BEGIN")
    except sqlite3.OperationalError as err:
        raise _Busy from err
    try:
        value = work(Tx(raw))
        raw.execute("COMMIT")
    except BaseException as err:
        if raw.in_transaction:
            raw.execute("ROLLBACK")
        if isinstance(err, sqlite3.OperationalError) and _is_busy(err):
            raise _Busy from err
        raise
    return value


def _settle(jobs: Sequence[_Job], results: Sequence[tuple[bool, Any]]) -> None:
    """Tell each job's caller how its unit went."""
    for job, (ok, value) in zip(jobs, results, strict=True):
        if job.future.done():  # its caller was cancelled; the unit ran regardless
            continue
        if ok:
            job.future.set_result(value)
        else:
            job.future.set_exception(value)


class _Busy(Exception):
    """Another connection holds the lock the inline unit needed; nothing was written."""


def _is_busy(err: sqlite3.OperationalError) -> bool:
    code = getattr(err, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in str(err)


CHECKPOINT_EVERY = 500  # inline write units between two WAL checkpoints (run on aiosqlite's thread)


class Database:
    """A Store's SQLite: units of work run inline on the event loop, with aiosqlite's thread behind them.

    Every read and write is a *unit of work*: a synchronous function ``work(tx)`` given to `run`, atomic
    alone (an exception rolls back what it wrote). A unit is short (a few indexed statements), and in WAL
    mode with ``synchronous=NORMAL`` a commit is a write to the WAL file without fsync: tens of
    microseconds, less than a hop to another thread costs. So by default a unit runs on the event loop's
    thread, on a connection of its own that never waits for a lock: a read at once; a write at the end of
    the loop's current turn, together with every other write queued in that turn, each in its own
    savepoint and all under one COMMIT (the commit is most of a small write's cost).

    aiosqlite's connection is the slow path: migrations, units marked ``background=True`` (large reads
    such as a whole channel's log), WAL checkpoints, and any unit the inline connection could not start
    because another connection held the lock. There units queue up; whenever the thread is free,
    everything queued goes over in one trip and runs in one transaction, each unit in its own savepoint,
    followed by one COMMIT (group commit), and those units wait on SQLite's lock via busy_timeout,
    off the loop. Each caller hears back only once its unit has committed.
    """

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn = conn
        self._inline: sqlite3.Connection | None = None  # set by `open` once the migrations have run
        self._lock = asyncio.Lock()  # aiosqlite's connection: one trip (or migration, or close) at a time
        self._queue: list[_Job] = []
        self._batch: list[_Job] = []  # inline writes waiting for the end of this turn of the loop
        self._flusher: asyncio.Task[None] | None = None
        self._checkpoint: asyncio.Task[None] | None = None
        self._writes_since_checkpoint = 0
        self._closed = False
        self.path = path
        self.trips = 0  # trips to the SQLite thread so far (benchmarks and tests read it)
        self.inline_units = 0  # units run on the event loop's thread so far
        self.inline_commits = 0  # transactions those units wrote in (one per turn of the loop at most)
        self.checkpoints = 0  # WAL checkpoints run on the thread so far

    @classmethod
    async def open(cls, path: str | Path, *, inline: bool = True) -> Database:
        """Open (creating if needed) the file, set the pragmas and apply pending migrations.

        ``inline=False`` sends every unit through aiosqlite's thread (tests of that path use it); an
        in-memory database always does, as a second connection would not see it.
        """
        text = str(path)
        on_disk = text != ":memory:" and not text.startswith("file:")
        if on_disk:
            Path(text).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(text, isolation_level=None)
        conn.row_factory = sqlite3.Row
        raw: sqlite3.Connection | None = None
        try:
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await conn.execute("PRAGMA foreign_keys = ON")
            async with conn.execute("PRAGMA journal_mode = WAL") as cursor:
                await cursor.fetchone()
            await conn.execute("PRAGMA synchronous = NORMAL")
            db = cls(conn, text)
            await db.migrate()
            if inline and on_disk:
                raw = sqlite3.connect(text, isolation_level=None)
                raw.row_factory = sqlite3.Row
                raw.execute("PRAGMA busy_timeout = 0")  # never wait on the event loop
                raw.execute("PRAGMA foreign_keys = ON")
                raw.execute("PRAGMA synchronous = NORMAL")
                raw.execute("PRAGMA wal_autocheckpoint = 0")  # checkpoints run on the thread instead
                db._inline = raw
        except BaseException:
            if raw is not None:
                raw.close()
            await conn.close()
            raise
        return db

    async def close(self) -> None:
        """Close the connections once every queued unit has run; later units are refused."""
        self._closed = True
        self._commit_batch()  # writes queued this turn are not lost to the close
        while self._flusher is not None or self._checkpoint is not None:
            await asyncio.shield(self._flusher or self._checkpoint)  # type: ignore[arg-type]
        async with self._lock:
            if self._inline is not None:
                self._inline.close()
                self._inline = None
            await self._conn.close()

    async def user_version(self) -> int:
        """The schema version recorded in the file."""
        row = await self.one("PRAGMA user_version")
        return int(row[0]) if row else 0

    async def migrate(self) -> int:
        """Apply every migration newer than the file's user_version, each in its own transaction."""
        shipped = migrations()
        newest = shipped[-1].version if shipped else 0
        async with self._lock:
            # IMMEDIATE: two processes starting at once must not both apply the same migration.
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                async with self._conn.execute("PRAGMA user_version") as cursor:
                    row = await cursor.fetchone()
                current = int(row[0]) if row else 0
                if current > newest:
                    raise DatabaseTooNew(
                        f"The database {self.path} has schema version {current}, newer than this bot's "
                        f"{newest}; upgrade the bot or restore a backup, it will not be used as it is."
                    )
                for migration in shipped:
                    if migration.version <= current:
                        continue
                    for statement in _split_statements(migration.sql):
                        await self._conn.execute(statement)
                    # PRAGMA takes no bound parameters; the version is an int from our own file name.
                    await self._conn.execute(f"PRAGMA user_version = {int(migration.version)}")
                await self._conn.execute("COMMIT")
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
        return newest

    async def run(self, work: Callable[[Tx], _T], *, write: bool = True, background: bool = False) -> _T:
        """Run ``work(tx)`` as one atomic unit; its value once it has committed.

        ``work`` must be synchronous and touch nothing but ``tx`` and its own arguments: it may run on
        another thread, and may be run a second time there if the inline connection found the database
        locked (its first run then rolled back). An exception it raises rolls back what it wrote and
        propagates to the caller. ``write=False`` (a unit that only reads) takes no write lock.
        ``background=True``: a unit that may take a while (a large read) runs off the event loop.
        """
        if self._closed:
            raise StoreError("The database is closed.")
        loop = asyncio.get_running_loop()
        if self._inline is not None and not background and self._flusher is None:
            if write:
                # the writes of this turn of the loop commit together, at its end (`_commit_batch`)
                job = _Job(work, write, loop.create_future())
                self._batch.append(job)
                if len(self._batch) == 1:
                    loop.call_soon(self._commit_batch)
                written: _T = await job.future
                return written
            try:
                value = _read_inline(self._inline, work)
            except _Busy:
                pass  # SQLite could not run it here (locked): wait for it on the thread, not here
            else:
                self.inline_units += 1
                return value
        job = _Job(work, write, loop.create_future())
        if self._batch:
            # writes issued earlier in this turn of the loop run first: the thread takes units in order
            self._queue.extend(self._batch)
            self._batch = []
        self._queue.append(job)
        if self._flusher is None:
            self._flusher = loop.create_task(self._flush())
        result: _T = await job.future
        return result

    def _commit_batch(self) -> None:
        """Run the write units queued during this turn of the loop inline, in one transaction.

        Each unit has its own savepoint (one that raises is rolled back alone) and one COMMIT covers
        them all: with 16 interactions in flight a roll took about 15% less CPU (bench/ab.py); a write
        alone pays ~15 µs for the wait. Callers hear back only after the COMMIT. If another connection
        holds the write lock, the whole batch goes to the thread, as a single unit would.
        """
        jobs, self._batch = self._batch, []
        if not jobs:
            return
        if self._inline is not None and self._flusher is None:
            try:
                results = _run_batch(self._inline, jobs, inline=True)
            except _Busy:
                pass
            else:
                self.inline_units += len(jobs)
                self.inline_commits += 1
                _settle(jobs, results)
                for _ in jobs:
                    self._wrote()
                return
        self._queue.extend(jobs)
        if self._flusher is None:
            self._flusher = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        """Send queued units to the SQLite thread, one batch per trip, until none are left."""
        try:
            while self._queue:
                async with self._lock:
                    jobs, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
                    raw = self._conn._conn  # the sqlite3 connection; used only inside its own thread
                    self.trips += 1
                    try:
                        # aiosqlite's own queue: one trip for the whole batch
                        results = await self._conn._execute(_run_batch, raw, jobs)  # type: ignore[no-untyped-call]
                    except Exception as err:  # the connection itself failed (closed under us)
                        results = [(False, err)] * len(jobs)
                _settle(jobs, results)
        finally:
            self._flusher = None

    def _wrote(self) -> None:
        """Count an inline write; every `CHECKPOINT_EVERY`, checkpoint the WAL on the thread."""
        self._writes_since_checkpoint += 1
        if self._writes_since_checkpoint >= CHECKPOINT_EVERY and self._checkpoint is None:
            self._writes_since_checkpoint = 0
            self._checkpoint = asyncio.get_running_loop().create_task(self._run_checkpoint())

    async def _run_checkpoint(self) -> None:
        """PASSIVE: copy what it can of the WAL into the database without waiting for anyone."""
        try:
            async with self._lock:
                async with self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)") as cursor:
                    await cursor.fetchall()
                self.checkpoints += 1
        except Exception:  # a checkpoint is housekeeping; the next one will try again
            log.warning("WAL checkpoint failed", exc_info=True)
        finally:
            self._checkpoint = None

    async def execute(self, sql: str, params: Params = ()) -> Outcome:
        """Run one statement as a unit of its own."""
        return await self.run(lambda tx: tx.execute(sql, params))

    async def one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""
        reads_only = _reads_only(sql)
        if reads_only and self._inline is not None and self._flusher is None and not self._closed:
            # one SELECT is atomic by itself: no BEGIN and COMMIT around it (two statements of three)
            try:
                row = Tx(self._inline).one(sql, params)
            except sqlite3.OperationalError as err:
                if not _is_busy(err):
                    raise
            else:
                self.inline_units += 1
                return row
            # locked (a WAL recovery, say): wait for it on the thread, as any unit would
        return await self.run(lambda tx: tx.one(sql, params), write=not reads_only)

    async def all(self, sql: str, params: Params = (), *, background: bool = False) -> list[sqlite3.Row]:
        """Every row of a query (``background=True`` for one that may return many rows)."""
        return await self.run(
            lambda tx: tx.all(sql, params), write=not _reads_only(sql), background=background
        )


@functools.lru_cache(maxsize=512)
def _reads_only(sql: str) -> bool:
    return sql.lstrip()[:6].upper() == "SELECT" and "RETURNING" not in sql.upper()


def _split_statements(script: str) -> list[str]:
    """Split a migration into statements (executescript would COMMIT behind our back)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
