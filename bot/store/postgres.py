"""PostgreSQL through asyncpg: the same units of work as on SQLite, for bots whose shards run in several
processes on one database.

The repositories' SQL is written once, in SQLite's words; `to_postgres` rewrites what PostgreSQL spells
otherwise (``?`` placeholders become ``$1``..., ``IS ?`` becomes ``IS NOT DISTINCT FROM $n``); the schema
(migrations/postgres) supplies the rest. A unit of work runs SERIALIZABLE on a pooled connection: where
SQLite relied on its single writer, PostgreSQL refuses a unit that a concurrent one would make
unserializable, and the unit is run again from the start on what is then committed. A lone statement runs
on its own (READ COMMITTED): the store's lone writes are single guarded statements (``WHERE version = ?``,
``uses_left > 0``), which PostgreSQL re-checks on the row's newest version.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

import asyncpg

from bot.store.db import Migration, Outcome, Params, Row, Work, read_migrations, safe_url, split_statements
from bot.store.errors import Conflict, DatabaseTooNew, InvalidData, MigrationFailed, StoreError, moved_on

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    # a pooled connection (what the store uses) or one opened by itself
    Connection = asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]

log = logging.getLogger(__name__)

_T = TypeVar("_T")
POOL_SIZE = 10
# a unit refused this many times in a row (a storm of writes at one row) gives up with a Conflict
MAX_ATTEMPTS = 40
_RETRY = (asyncpg.exceptions.SerializationError, asyncpg.exceptions.DeadlockDetectedError)
# one lock per schema: processes starting at once on an empty database migrate it one after the other
_MIGRATION_LOCK = 0x7AB1E7
_IS_PARAM = re.compile(r"\bIS\s+(NOT\s+)?(\$\d+)", re.IGNORECASE)
_NUL = "The text contains a NUL character (\\0), which the database cannot store; remove it."


def unreadable_url(url: str) -> str:
    """The sentence for an address asyncpg cannot parse; never the parser's words, which may quote the
    password (an unencoded ``#`` or ``/`` in it ends the address early)."""
    return (
        f"DATABASE_URL {safe_url(url)} is not a readable PostgreSQL address "
        "(postgresql://user:password@host:5432/name): check the port, and write @ : / # ? in the password "
        "as %40 %3A %2F %23 %3F."
    )


async def reach(url: str, timeout: float = 10.0) -> tuple[str | None, int]:
    """Whether the bot could use the PostgreSQL database at ``url``: one sentence saying why not (or None)
    and its schema version. Connects once and reads, changing nothing (`python -m bot check`)."""
    try:
        conn = await asyncpg.connect(url, timeout=timeout)
    except ValueError:
        return unreadable_url(url), 0
    except TimeoutError:
        return f"Could not connect to the database {safe_url(url)}: no answer in {timeout:g} s.", 0
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as err:
        return f"Could not connect to the database {safe_url(url)}: {err}.", 0
    try:
        current = await PgDatabase.schema_version(conn)
    finally:
        await conn.close()
    newest = migrations()[-1].version
    if current > newest:
        return (
            f"The database {safe_url(url)} has schema version {current}, newer than this bot's {newest}: "
            "upgrade the bot or restore a backup.",
            current,
        )
    return None, current


def migrations() -> list[Migration]:
    """Every PostgreSQL migration shipped with the code, in order (numbered as the SQLite ones)."""
    return read_migrations("migrations/postgres")


@lru_cache(maxsize=2048)
def to_postgres(sql: str) -> str:
    """A statement in the repositories' SQLite dialect, as PostgreSQL reads it.

    ``?`` outside quotes becomes ``$1``, ``$2``... in order; ``IS ?`` / ``IS NOT ?`` (NULL-safe equality)
    becomes ``IS [NOT] DISTINCT FROM``. Everything else is the same in both.
    """
    out: list[str] = []
    number = 0
    quote: str | None = None
    for char in sql:
        if quote is not None:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "?":
            number += 1
            out.append(f"${number}")
            continue
        out.append(char)
    return _IS_PARAM.sub(
        lambda m: f"IS {'NOT ' if not m.group(1) else ''}DISTINCT FROM {m.group(2)}", "".join(out)
    )


def _args(params: Params) -> Sequence[Any]:
    """The parameters as asyncpg takes them; a NUL in text (PostgreSQL text cannot hold one) is refused."""
    for value in params:
        if type(value) is str and "\x00" in value:
            raise InvalidData(_NUL)
    return params


def _count(status: str) -> int:
    """The rows a statement changed, from its command tag ("UPDATE 3", "INSERT 0 1")."""
    last = status.rpartition(" ")[2]
    return int(last) if last.isdigit() else 0


@contextlib.contextmanager
def _trigger_conflicts() -> Iterator[None]:
    """A trigger's RAISE EXCEPTION 'conflict:...' as `MovedOn`."""
    try:
        yield
    except asyncpg.exceptions.RaiseError as err:
        conflict = moved_on(str(err))
        if conflict is None:
            raise
        raise conflict from None


class PgTx:
    """The statements of one unit of work on its pooled connection, inside its transaction."""

    __slots__ = ("_conn",)

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Params = ()) -> Outcome:
        """Run one statement; how many rows it changed."""
        with _trigger_conflicts():
            status = await self._conn.execute(to_postgres(sql), *_args(params))
        return Outcome(rowcount=_count(status), lastrowid=None)

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement for each parameter row."""
        await self._conn.executemany(to_postgres(sql), [_args(row) for row in rows])

    async def one(self, sql: str, params: Params = ()) -> Row | None:
        """The first row of a query (or of a write's RETURNING), or None."""
        with _trigger_conflicts():
            return await self._conn.fetchrow(to_postgres(sql), *_args(params))

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row of a query (or of a write's RETURNING)."""
        with _trigger_conflicts():
            return list(await self._conn.fetch(to_postgres(sql), *_args(params)))


async def _keep_session(conn: Connection) -> None:
    """Give a connection back to the pool without the default reset query (a round trip on every release).

    The store changes no session state (no SET, LISTEN, cursors or session-level advisory locks: the
    migration's lock is its transaction's), so there is nothing to reset; the pool still rolls back a
    transaction left open before it calls this.
    """


def _reads_only(sql: str) -> bool:
    return sql.lstrip()[:6].upper() == "SELECT" and "RETURNING" not in sql.upper()


class PgDatabase:
    """A Store's PostgreSQL database: a pool of connections, units of work SERIALIZABLE and retried.

    A write that has begun runs to its end whatever happens to its caller (as on SQLite): it runs in a task
    of its own, so a cancelled caller never leaves a transaction half-sent on a pooled connection.
    """

    dialect = "postgres"

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        self._pool = pool
        self._url = url
        self.target = safe_url(url)
        self._writes: set[asyncio.Task[Any]] = set()
        self._closed = False
        # write units committed, and attempts PostgreSQL refused and that ran again (logged at close:
        # how often units collide is what a pool size or a backoff is judged by)
        self.units = 0
        self.retries = 0

    @classmethod
    async def open(cls, url: str, *, pool_size: int = POOL_SIZE) -> PgDatabase:
        """Connect (a pool of up to ``pool_size`` connections) and apply pending migrations."""
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=pool_size, statement_cache_size=1024, reset=_keep_session
            )
        except ValueError as err:  # before the other kinds: asyncpg's configuration errors are ValueErrors
            raise StoreError(unreadable_url(url)) from err
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as err:
            raise StoreError(f"Could not connect to the database {safe_url(url)}: {err}") from err
        db = cls(pool, url)
        try:
            await db._migrate()
        except BaseException:
            await pool.close()
            raise
        return db

    async def close(self) -> None:
        """Let the writes in flight finish, then close the pool; later calls are refused."""
        self._closed = True
        try:
            while self._writes:
                await asyncio.gather(*list(self._writes), return_exceptions=True)
            await self._pool.close()
            if self.units:
                log.info(
                    "Closed %s: %d units of work committed, %d attempts run again after a conflict.",
                    self.target,
                    self.units,
                    self.retries,
                )
        except BaseException:
            self._pool.terminate()
            raise

    async def user_version(self) -> int:
        """The schema version recorded in the database (0: none yet)."""
        async with self._pool.acquire() as conn:
            return await self.schema_version(conn)

    @staticmethod
    async def schema_version(conn: Connection) -> int:
        # a query of the catalog (not to_regclass, whose cache may predate the advisory lock's wait)
        exists = await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables "
            "WHERE schemaname = current_schema() AND tablename = 'schema_version')"
        )
        if not exists:
            return 0
        return int(await conn.fetchval("SELECT coalesce(max(version), 0) FROM schema_version"))

    async def _migrate(self) -> int:
        """Apply every migration newer than the database's version in one transaction, under an advisory
        lock, so processes starting together migrate once; a failure rolls everything back."""
        shipped = migrations()
        newest = shipped[-1].version if shipped else 0
        async with self._pool.acquire() as conn:
            current = await self.schema_version(conn)
            self._refuse_newer(current, newest)
            if current == newest:
                return newest
            async with conn.transaction():
                await conn.execute(
                    "SELECT pg_advisory_xact_lock($1, hashtext(coalesce(current_schema(), '')))",
                    _MIGRATION_LOCK,
                )
                current = await self.schema_version(conn)  # another process may have migrated meanwhile
                self._refuse_newer(current, newest)
                for migration in shipped:
                    if migration.version <= current:
                        continue
                    try:
                        async with conn.transaction():  # a savepoint: the error names the migration
                            for statement in split_statements(migration.sql):
                                await conn.execute(statement)
                    except asyncpg.PostgresError as err:
                        raise MigrationFailed(
                            f"Upgrading the database {self.target} failed at {migration.name} ({err}); "
                            "it was left as it was."
                        ) from err
                await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                await conn.execute("DELETE FROM schema_version")
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", newest)
        if current:
            log.info("Upgraded the schema of %s from version %d to %d.", self.target, current, newest)
        return newest

    def _refuse_newer(self, current: int, newest: int) -> None:
        if current > newest:
            raise DatabaseTooNew(
                f"The database {self.target} has schema version {current}, newer than this bot's "
                f"{newest}; upgrade the bot or restore a backup, it will not be used as it is."
            )

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("The database is closed.")

    async def _to_the_end(self, write: Awaitable[_T]) -> _T:
        """Run a write in a task of its own, which a cancelled caller does not stop."""
        if self._closed:
            write.close()  # type: ignore[attr-defined]  # a coroutine never awaited
            raise StoreError("The database is closed.")
        task: asyncio.Task[_T] = asyncio.ensure_future(write)
        self._writes.add(task)
        task.add_done_callback(self._settled)
        return await asyncio.shield(task)

    def _settled(self, task: asyncio.Task[Any]) -> None:
        self._writes.discard(task)
        if not task.cancelled():
            task.exception()  # its caller may be gone: the error was theirs, not an unheard one

    async def run(self, work: Work[_T], *, write: bool = True) -> _T:
        """Run ``await work(tx)`` as one atomic unit; its value once committed.

        Write units run SERIALIZABLE and are run again (up to `MAX_ATTEMPTS` times) when PostgreSQL
        refuses them for a concurrent change; read-only units (``write=False``) read one snapshot.
        """
        if not write:
            self._check_open()
            async with (
                self._pool.acquire() as conn,
                conn.transaction(isolation="repeatable_read", readonly=True),
            ):
                return await work(PgTx(conn))
        return await self._to_the_end(self._serializable(work))

    async def _serializable(self, work: Work[_T]) -> _T:
        attempt = 0
        while True:
            try:
                async with self._pool.acquire() as conn, conn.transaction(isolation="serializable"):
                    done = await work(PgTx(conn))
                self.units += 1
                return done
            except _RETRY:
                attempt += 1
                self.retries += 1
                if attempt >= MAX_ATTEMPTS:
                    raise Conflict(
                        "Too many changes arrived at once at the same thing; nothing was written, try again."
                    ) from None
            # jittered backoff: the units that collided do not collide again in step
            await asyncio.sleep(random.uniform(0, min(0.001 * 2**attempt, 0.05)))

    async def execute(self, sql: str, params: Params = ()) -> Outcome:
        """Run one write statement on its own (atomic by itself)."""

        return await self._to_the_end(self._statement(PgTx.execute, sql, params))

    async def one(self, sql: str, params: Params = (), *, short: bool = False) -> Row | None:
        """The first row of a query, or None (``short`` is SQLite's: every read here takes a pooled
        connection)."""
        rows = await self.all(sql, params)
        return rows[0] if rows else None

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        """Every row of a query; a write with RETURNING runs to its end like `execute`."""
        if _reads_only(sql):
            self._check_open()
            async with self._pool.acquire() as conn:
                return await PgTx(conn).all(sql, params)

        return await self._to_the_end(self._statement(PgTx.all, sql, params))

    async def _statement(
        self, method: Callable[[PgTx, str, Params], Awaitable[_T]], sql: str, params: Params
    ) -> _T:
        async with self._pool.acquire() as conn:
            return await method(PgTx(conn), sql, params)
