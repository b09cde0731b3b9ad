"""The database a Store writes to: what every backend offers (`Database`, `Tx`), and SQLite through aiosqlite.

A unit of work is ``async def work(tx)``: its statements run in one transaction, and its caller hears back
once it has committed. The repositories write their SQL once, in SQLite's words with ``?`` placeholders;
`bot.store.postgres` runs the same units on PostgreSQL (`open_database` picks the backend from the target).

On SQLite the units run one after another on the writing connection. A lone read goes to a second,
read-only connection, which in WAL mode reads while a unit writes and only ever sees committed data. Every
statement runs on an aiosqlite connection's own thread, never on the event loop's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import sqlite3
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, TypeVar

import aiosqlite

from bot.store.errors import DatabaseTooNew, MigrationFailed, StoreError, moved_on
from bot.store.lockfile import DatabaseLock

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 10_000
# how long a process opening the file waits for another one's upgrade (its copy and migrations), seconds
MIGRATION_WAIT = 600.0
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")

Params = Sequence[Any]
Row = Any  # sqlite3.Row or asyncpg.Record: both read a column by name (row["id"]) or position (row[0])
_T = TypeVar("_T")
# a lone statement on the writing connection still unanswered after this long is waiting for a lock
STUCK_AFTER = 0.05
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


@dataclass(frozen=True)
class Migration:
    """One numbered migration file."""

    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    """Every SQLite migration shipped with the code, in order; numbering must run 1, 2, 3 ... without gaps."""
    return read_migrations("migrations")


def read_migrations(folder_name: str) -> list[Migration]:
    """The numbered migrations in ``bot/store/<folder_name>``, in order, checked to have no gaps."""
    found: list[Migration] = []
    folder = resources.files("bot.store").joinpath(*folder_name.split("/"))
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


def split_statements(script: str) -> list[str]:
    """A migration's statements: each ends with ``;`` at the end of a line; lines starting ``--`` are
    comments. (Running the file as a script would COMMIT behind the migration's transaction.)

    Two bodies hold statements of their own and are kept whole: a SQLite ``CREATE TRIGGER``'s, from its
    line ``BEGIN`` to its line ``END;``, and a PostgreSQL function's between ``$$`` and ``$$``."""
    statements: list[str] = []
    buffer: list[str] = []
    in_trigger = in_dollars = False
    for line in script.splitlines():
        word = line.strip().upper()
        if word.startswith("--"):
            continue
        buffer.append(line)
        if line.count("$$") % 2:
            in_dollars = not in_dollars
        if word == "BEGIN" and "\n".join(buffer).lstrip().upper().startswith("CREATE TRIGGER"):
            in_trigger = True
        elif in_trigger and word == "END;":
            in_trigger = False
        if line.rstrip().endswith(";") and not (in_trigger or in_dollars):
            statements.append("\n".join(buffer).strip())
            buffer = []
    if "\n".join(buffer).strip():
        statements.append("\n".join(buffer).strip())
    return statements


@dataclass(frozen=True)
class Outcome:
    """What a write statement did."""

    rowcount: int
    lastrowid: int | None


def is_postgres_url(target: object) -> bool:
    """True when ``target`` names a PostgreSQL database (``postgresql://...``) rather than an SQLite file."""
    return isinstance(target, str) and target.startswith(POSTGRES_SCHEMES)


def safe_url(url: str) -> str:
    """A database address without its password, for sentences and logs: everything between the user's
    ``:`` and the last ``@`` is hidden, so a password holding an unencoded ``@ / # ?`` (which breaks the
    address) is hidden whole too."""
    scheme, slashes, rest = url.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if not slashes or not at or ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.partition(':')[0]}:***@{host}"


class Tx(Protocol):
    """The statements of one unit of work, on either backend. SQL is written with ``?`` placeholders."""

    async def execute(self, sql: str, params: Params = ()) -> Outcome:
        """Run one statement; how many rows it changed."""

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement for each parameter row."""

    async def one(self, sql: str, params: Params = ()) -> Row | None:
        """The first row of a query (or of a write's RETURNING), or None."""

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row of a query (or of a write's RETURNING)."""


Work = Callable[[Tx], Awaitable[_T]]


class Database(Protocol):
    """What the repositories use of a backend: units of work, lone statements, reads.

    A unit (``run``) is atomic and behaves as if the units ran one at a time, on every backend; it may be
    run more than once (PostgreSQL retries a unit a concurrent write refused), so it touches nothing but
    ``tx`` and its own arguments. A lone write statement (``execute``) is atomic by itself.
    """

    dialect: str  # "sqlite" or "postgres"
    target: str  # the file or the address (without its password), for sentences

    async def run(self, work: Work[_T], *, write: bool = True) -> _T: ...

    async def execute(self, sql: str, params: Params = ()) -> Outcome: ...

    async def one(self, sql: str, params: Params = (), *, short: bool = False) -> Row | None: ...

    async def all(self, sql: str, params: Params = ()) -> list[Row]: ...

    async def user_version(self) -> int: ...

    async def close(self) -> None: ...


async def open_database(target: str | Path) -> Database:
    """The database at ``target``: a ``postgresql://`` address, else an SQLite file (created if needed);
    pending migrations applied."""
    if is_postgres_url(target):
        from bot.store.postgres import PgDatabase  # asyncpg is only imported by bots that use it

        return await PgDatabase.open(str(target))
    return await SqliteDatabase.open(target)


@contextlib.contextmanager
def _trigger_conflicts() -> Iterator[None]:
    """A trigger's RAISE(ABORT, 'conflict:...'), which sqlite3 raises as an IntegrityError, as `MovedOn`."""
    try:
        yield
    except sqlite3.IntegrityError as err:
        conflict = moved_on(str(err))
        if conflict is None:
            raise
        raise conflict from None


class SqliteTx:
    """The statements of one unit of work, each sent to the connection's thread (see `SqliteDatabase.run`).

    Only valid while the unit runs. A unit touches nothing but ``tx`` and its own arguments, and never
    calls the `Database` itself: the connection is its alone until it returns.
    """

    __slots__ = ("_conn",)

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Params = ()) -> Outcome:
        """Run one statement; how many rows it changed and the last inserted id."""
        with _trigger_conflicts():
            cursor = await self._conn.execute(sql, params)
        return Outcome(rowcount=cursor.rowcount, lastrowid=cursor.lastrowid)

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement for each parameter row."""
        await self._conn.executemany(sql, list(rows))

    async def one(self, sql: str, params: Params = ()) -> Row | None:
        """The first row of a query (or of a write's RETURNING), or None."""
        rows = await self.all(sql, params)
        return rows[0] if rows else None

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row of a query (or of a write's RETURNING)."""
        with _trigger_conflicts():
            return list(await self._conn.execute_fetchall(sql, params))


@dataclass
class _Job:
    work: Callable[[Tx], Awaitable[Any]]
    begin: str | None  # None: a single statement, atomic by itself, runs without BEGIN and COMMIT
    future: asyncio.Future[Any]


def _reads_only(sql: str) -> bool:
    return sql.lstrip()[:6].upper() == "SELECT" and "RETURNING" not in sql.upper()


async def connect(path: str | Path, *, read_only: bool = False) -> aiosqlite.Connection:
    """An aiosqlite connection with the store's pragmas (WAL, foreign keys, busy_timeout).

    Autocommit (``isolation_level=None``): transactions are begun and committed explicitly. aiosqlite opens
    the sqlite3 connection on its own thread and sqlite3 refuses to be used from any other, so a statement
    sent from the event loop's thread could not run unnoticed.
    """
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await conn.execute("PRAGMA foreign_keys = ON")
        if read_only:
            await conn.execute("PRAGMA query_only = ON")
        else:
            await conn.execute_fetchall("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        await conn.close()
        raise
    return conn


def connect_read_only(path: Path) -> aiosqlite.Connection:
    """A connection that can only read the file at ``path`` and never creates or changes it (``async
    with connect_read_only(path) as conn``): for backup files, which may not be the bot's at all."""
    return aiosqlite.connect(f"file:{path}?mode=ro", uri=True)


def _on_disk(path: str) -> bool:
    return path != ":memory:" and not path.startswith("file:")


class SqliteDatabase:
    """A Store's SQLite file: a writing connection whose units run one at a time, and a reading one.

    Units run in the order they were sent. A caller cancelled before its unit began takes it out of the
    queue; once begun, a unit runs to its end whatever happens to its caller. SQLite's own automatic WAL
    checkpoints run on the writing connection's thread, after a COMMIT.
    """

    def __init__(
        self,
        writer: aiosqlite.Connection,
        path: str,
        *,
        reader: aiosqlite.Connection | None = None,
        lock: DatabaseLock | None = None,
    ) -> None:
        self.dialect = "sqlite"
        self.target = path
        self._writer = writer
        self._reader = reader  # None in memory: a second connection would see another database
        self._lock = lock
        self._queue: deque[_Job] = deque()
        self._draining: asyncio.Task[None] | None = None
        # lone statements sent straight to the writing connection and not yet answered: when each was sent
        self._lone: dict[object, float] = {}
        self._closed = False
        self.path = path

    @classmethod
    async def open(cls, path: str | Path) -> SqliteDatabase:
        """Open (creating if needed) the file, hold its lock file, apply pending migrations (keeping a copy
        of an existing database first), then open the reading connection."""
        text = str(path)
        on_disk = _on_disk(text)
        lock: DatabaseLock | None = None
        if on_disk:
            Path(text).parent.mkdir(parents=True, exist_ok=True)
            lock = DatabaseLock.shared(Path(text))
        writer: aiosqlite.Connection | None = None
        try:
            writer = await connect(text)
            db = cls(writer, text, lock=lock)
            await db._migrate(keep_copy=on_disk)
            if on_disk:
                db._reader = await connect(text, read_only=True)
        except BaseException:
            if writer is not None:
                await writer.close()
            if lock is not None:
                lock.release()
            raise
        return db

    async def close(self) -> None:
        """Close the connections once every queued unit has run; later units are refused."""
        self._closed = True
        open_ = [conn for conn in (self._reader, self._writer) if conn is not None]
        try:
            while self._draining is not None:
                await asyncio.shield(self._draining)
            while open_:
                await open_[0].close()
                open_.pop(0)
        finally:
            # cancelled part-way (the loop shutting down): a connection's thread left running would keep
            # the process from exiting, so each still gets told to close and stop
            for conn in open_:
                conn.stop()
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    async def trace(self, callback: Callable[[str], object] | None) -> None:
        """Call ``callback(statement)`` for every statement either connection runs, on that connection's
        thread (None: stop). For diagnostics and tests."""
        for conn in (self._writer, self._reader):
            if conn is not None:
                await conn.set_trace_callback(callback)  # type: ignore[arg-type]  # None stops it

    async def user_version(self) -> int:
        """The schema version recorded in the file."""
        row = await self.one("PRAGMA user_version")
        return int(row[0]) if row else 0

    async def _migrate(self, *, keep_copy: bool = False) -> int:
        """Apply every migration newer than the file's user_version, all in one transaction (at open, before
        any unit can use the writing connection).

        ``keep_copy``: an existing database (version 1 or later) is first copied next to itself as
        ``<name>.before-v<latest>``, under the write lock the migrations then run in. A migration that fails
        rolls everything back: `MigrationFailed`, and the file is as it was.
        """
        shipped = migrations()
        newest = shipped[-1].version if shipped else 0
        current = await self._version()
        if current == newest:
            return newest
        self._refuse_newer(current, newest)
        conn = self._writer
        # the write lock before the copy, and the version read again under it: processes starting at once
        # (shards on one file) wait here for the one upgrading, then find it done and neither copy nor migrate
        await self._begin_migration()
        copy: Path | None = None
        try:
            current = await self._version()
            self._refuse_newer(current, newest)
            if current < newest and keep_copy and current > 0:
                copy = await self._keep_copy(newest)
                log.info(
                    "Kept a copy of %s as %s before upgrading its schema from version %d to %d.",
                    self.path, copy, current, newest,
                )  # fmt: skip
            for migration in shipped:
                if migration.version <= current:
                    continue
                try:
                    for statement in split_statements(migration.sql):
                        await conn.execute(statement)
                    # PRAGMA takes no bound parameters; the version is an int from our own file name.
                    await conn.execute(f"PRAGMA user_version = {int(migration.version)}")
                except sqlite3.Error as err:
                    kept = f" (a copy is at {copy})" if copy is not None else ""
                    raise MigrationFailed(
                        f"Upgrading the database {self.path} failed at {migration.name} ({err}); it was "
                        f"left as it was{kept}."
                    ) from err
            await conn.execute("COMMIT")
        except BaseException:
            await self._rollback()
            raise
        return newest

    async def _begin_migration(self) -> None:
        """BEGIN IMMEDIATE on the writing connection, waiting past the busy timeout (up to MIGRATION_WAIT)
        while another process holds the write lock: it may be copying and upgrading a large file."""
        deadline = time.monotonic() + MIGRATION_WAIT
        told = False
        while True:
            try:
                await self._writer.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as err:
                if err.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                    raise
                if not told:
                    log.info("Waiting for another process writing to %s (upgrading it?).", self.path)
                    told = True

    async def _version(self) -> int:
        rows = await self._writer.execute_fetchall("PRAGMA user_version")
        return int(next(iter(rows))[0])

    def _refuse_newer(self, current: int, newest: int) -> None:
        if current > newest:
            raise DatabaseTooNew(
                f"The database {self.path} has schema version {current}, newer than this bot's "
                f"{newest}; upgrade the bot or restore a backup, it will not be used as it is."
            )

    async def _keep_copy(self, version: int) -> Path:
        """Copy the database (its WAL included) to ``<name>.before-v<version>``, replacing an older copy.

        Called with the write lock held on the writing connection, where VACUUM INTO cannot run (it refuses
        an open transaction): a second, read-only connection copies the last commit, which nobody can change
        until the lock is let go."""
        target = Path(f"{self.path}.before-v{version}")
        async with connect_read_only(Path(self.path)) as conn:
            await conn.execute_fetchall(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")  # read to its end
            await copy_database(conn, target, replace=True)
        return target

    async def run(self, work: Work[_T], *, write: bool = True) -> _T:
        """Run ``await work(tx)`` as one atomic unit in its own transaction; its value once committed.

        An exception it raises rolls back what it wrote and reaches the caller. ``write=False`` (a unit
        that only reads) takes no write lock; its reads are one consistent snapshot.
        """
        return await self._submit(work, "BEGIN IMMEDIATE" if write else "BEGIN")

    async def execute(self, sql: str, params: Params = ()) -> Outcome:
        """Run one write statement as a unit of its own (atomic by itself: no BEGIN or COMMIT needed)."""

        async def statement(tx: Tx) -> Outcome:
            return await tx.execute(sql, params)

        return await self._submit(statement, None)

    async def one(self, sql: str, params: Params = (), *, short: bool = False) -> Row | None:
        """The first row of a query, or None.

        ``short``: a read of a row or a few by key, which may run on the writing connection when no unit
        is queued or open there and nothing sent to it has waited long (`_writer_free`). Reads and writes
        then share one thread, which at load runs them back to back instead of waking two threads for each
        interaction; a long read stays on the reading connection, where it holds up no write.
        """
        if short and self._reader is not None and self._writer_free() and _reads_only(sql):
            rows = await self._submit(lambda tx: tx.all(sql, params), None)
        else:
            rows = await self.all(sql, params)
        return rows[0] if rows else None

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row of a query; a lone SELECT reads on the reading connection, anything else is a unit."""
        if self._closed:
            raise StoreError("The database is closed.")
        if self._reader is not None and _reads_only(sql):
            return list(await self._reader.execute_fetchall(sql, params))

        async def statement(tx: Tx) -> list[Row]:
            return await tx.all(sql, params)

        return await self._submit(statement, None)

    def _writer_free(self) -> bool:
        """No unit is queued or open on the writing connection, and no lone statement sent to it has been
        waiting for `STUCK_AFTER` (another process holding SQLite's write lock makes one wait, up to the
        busy timeout: reads then go to the reading connection and carry on)."""
        if self._draining is not None:
            return False
        oldest = next(iter(self._lone.values()), None)
        return oldest is None or time.monotonic() - oldest < STUCK_AFTER

    async def _submit(self, work: Work[_T], begin: str | None) -> _T:
        if self._closed:
            raise StoreError("The database is closed.")
        if begin is None and self._draining is None:
            # no unit is queued or open: a lone statement goes straight to the connection, whose thread runs
            # calls in the order they were sent (so a unit sent after it begins after it)
            token = object()
            self._lone[token] = time.monotonic()
            try:
                return await work(SqliteTx(self._writer))
            finally:
                del self._lone[token]
        loop = asyncio.get_running_loop()
        job = _Job(work, begin, loop.create_future())
        self._queue.append(job)
        if self._draining is None:
            self._draining = loop.create_task(self._drain())
        result: _T = await job.future
        return result

    async def _drain(self) -> None:
        """Run the queued units one by one on the writing connection until none is left."""
        job: _Job | None = None
        try:
            while self._queue:
                job = self._queue.popleft()
                if job.future.done():  # its caller was cancelled before it began
                    continue
                try:
                    value = await self._unit(job)
                except Exception as err:
                    if not job.future.done():
                        job.future.set_exception(err)
                else:
                    if not job.future.done():
                        job.future.set_result(value)
        finally:
            self._draining = None
            # only when this task itself was stopped (the loop is closing): nobody is left waiting
            for left in (job, *self._queue):
                if left is not None and not left.future.done():
                    left.future.set_exception(StoreError("The database stopped before this was written."))
            self._queue.clear()

    async def _unit(self, job: _Job) -> Any:
        tx = SqliteTx(self._writer)
        if job.begin is None:
            return await job.work(tx)
        await self._writer.execute(job.begin)
        try:
            value = await job.work(tx)
            await self._writer.execute("COMMIT")
        except BaseException:
            await self._rollback()
            raise
        return value

    async def _rollback(self) -> None:
        # SQLite may have rolled back already (a failed COMMIT, disk full): then there is nothing to undo
        with contextlib.suppress(sqlite3.OperationalError):
            await self._writer.execute("ROLLBACK")


async def copy_database(conn: aiosqlite.Connection, target: Path, *, replace: bool = False) -> None:
    """A consistent copy of ``conn``'s database at ``target`` (``VACUUM INTO``: one read transaction, so
    writers carry on meanwhile). Written beside the target first, so a copy is never left half-made.

    ``replace=False`` refuses a target that exists.
    """
    if target.exists() and not replace:
        raise StoreError(f"{target} already exists; choose another path.")
    target.parent.mkdir(parents=True, exist_ok=True)
    # a name of this copy's own: two copies to one target at once (a backup beside an upgrade, or two
    # processes) never write into or rename each other's file. Not mkstemp: VACUUM INTO sets the mode
    partial = target.with_name(f"{target.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
    try:
        await conn.execute("VACUUM INTO ?", (str(partial),))
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
