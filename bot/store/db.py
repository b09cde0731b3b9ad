"""One SQLite connection (aiosqlite): migrations, pragmas, and serialised atomic transactions."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.store.errors import DatabaseTooNew, StoreError

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


class Tx:
    """The statements of one open transaction; only valid inside ``Database.transaction()``.

    Each statement is one trip to aiosqlite's thread (execute, fetch and close run there together), and
    ``BEGIN IMMEDIATE`` rides along with the first statement, so a body that runs nothing costs nothing.
    """

    def __init__(self, conn: aiosqlite.Connection, *, begin: bool = False) -> None:
        self._conn = conn
        self._needs_begin = begin
        self.begun = False

    async def _run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        raw = self._conn._conn  # the sqlite3 connection; only touched inside aiosqlite's thread below

        def call() -> _T:
            if self._needs_begin and not self.begun:
                raw.execute("BEGIN IMMEDIATE")
                self.begun = True
            return work(raw)

        # aiosqlite's own queue: runs ``call`` in the connection's thread, one trip instead of three.
        result: _T = await self._conn._execute(call)  # type: ignore[no-untyped-call]
        return result

    async def execute(self, sql: str, params: Params = ()) -> Outcome:
        """Run one statement; returns how many rows it changed and the last inserted id."""

        def work(raw: sqlite3.Connection) -> Outcome:
            cursor = raw.execute(sql, params)
            try:
                return Outcome(rowcount=cursor.rowcount, lastrowid=cursor.lastrowid)
            finally:
                cursor.close()

        return await self._run(work)

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement for each parameter row."""
        batch = list(rows)

        def work(raw: sqlite3.Connection) -> None:
            raw.executemany(sql, batch).close()

        await self._run(work)

    async def one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""

        def work(raw: sqlite3.Connection) -> sqlite3.Row | None:
            cursor = raw.execute(sql, params)
            try:
                row: sqlite3.Row | None = cursor.fetchone()
                return row
            finally:
                cursor.close()

        return await self._run(work)

    async def all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Every row of a query."""

        def work(raw: sqlite3.Connection) -> list[sqlite3.Row]:
            cursor = raw.execute(sql, params)
            try:
                return list(cursor.fetchall())
            finally:
                cursor.close()

        return await self._run(work)


class Database:
    """One aiosqlite connection shared by a Store's repositories.

    The connection runs in autocommit mode; every change goes through ``transaction()`` (BEGIN IMMEDIATE,
    so the write lock is taken before anything is read) or is one single statement. An asyncio lock keeps
    coroutines sharing this connection from interleaving statements inside each other's transactions;
    other connections (other processes, other Store objects) wait on SQLite's lock via busy_timeout.
    """

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()
        self.path = path

    @classmethod
    async def open(cls, path: str | Path) -> Database:
        """Open (creating if needed) the file, set the pragmas and apply pending migrations."""
        text = str(path)
        if text != ":memory:" and not text.startswith("file:"):
            Path(text).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(text, isolation_level=None)
        conn.row_factory = sqlite3.Row
        db = cls(conn, text)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await conn.execute("PRAGMA foreign_keys = ON")
            async with conn.execute("PRAGMA journal_mode = WAL") as cursor:
                await cursor.fetchone()
            await conn.execute("PRAGMA synchronous = NORMAL")
            await db.migrate()
        except BaseException:
            await conn.close()
            raise
        return db

    async def close(self) -> None:
        """Close the connection (waits for a running transaction to finish)."""
        async with self._lock:
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

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Tx]:
        """BEGIN IMMEDIATE ... COMMIT; any exception rolls everything back and propagates."""
        async with self._lock:
            # BEGIN IMMEDIATE is sent with the body's first statement (see Tx); a body that ran no
            # statement opened no transaction and has nothing to commit or roll back.
            tx = Tx(self._conn, begin=True)
            try:
                yield tx
            except BaseException:
                if tx.begun:
                    await Tx(self._conn).execute("ROLLBACK")
                raise
            if tx.begun:
                await Tx(self._conn).execute("COMMIT")

    async def execute(self, sql: str, params: Params = ()) -> Outcome:
        """Run one statement on its own (atomic by itself)."""
        async with self._lock:
            return await Tx(self._conn).execute(sql, params)

    async def one(self, sql: str, params: Params = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""
        async with self._lock:
            return await Tx(self._conn).one(sql, params)

    async def all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """Every row of a query."""
        async with self._lock:
            return await Tx(self._conn).all(sql, params)


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
