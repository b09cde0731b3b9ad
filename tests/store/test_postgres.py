"""The PostgreSQL layer: the SQL rewrite, units atomic and serializable under races across connections,
writes that outlive a cancelled caller, migrations (numbered like SQLite's, once under concurrent starts,
refusing a newer database, rolled back whole on failure), and the same schema as SQLite's."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from bot.check import read_settings
from bot.settings import Settings
from bot.store import DatabaseTooNew, InvalidData, RollRecord, Sheet, Store, StoreError, latest_version
from bot.store import postgres as pgmod
from bot.store.db import Migration, Tx, migrations, safe_url, split_statements
from bot.store.errors import MigrationFailed
from bot.store.postgres import to_postgres
from tests.paths import ROOT
from tests.postgres import new_schema

G, C, P = 1, 10, 20


@pytest.fixture
async def pg_url(postgres_server: str) -> AsyncIterator[str]:
    """The address of a fresh, empty schema (dropped after the test)."""
    url, drop = await new_schema(postgres_server)
    try:
        yield url
    finally:
        await drop()


async def _raw(url: str) -> asyncpg.Connection:
    return await asyncpg.connect(url)


# -- the SQL rewrite ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("sqlite", "postgres"),
    [
        ("SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = $1 AND c = $2"),
        ("SELECT a FROM t WHERE g IS ? AND h IS NOT ?", "SELECT a FROM t WHERE g IS NOT DISTINCT FROM $1 "
         "AND h IS DISTINCT FROM $2"),
        ("SELECT '?' , \"?\" FROM t WHERE x = ?", "SELECT '?' , \"?\" FROM t WHERE x = $1"),
        ("SELECT 'it''s ?' WHERE y IS NULL AND z = ?", "SELECT 'it''s ?' WHERE y IS NULL AND z = $1"),
    ],
)  # fmt: skip
def test_the_repositories_sql_is_rewritten_for_postgresql(sqlite: str, postgres: str) -> None:
    assert to_postgres(sqlite) == postgres


def test_an_address_is_shown_without_its_password() -> None:
    assert safe_url("postgresql://bot:s3cret@db:5432/bot") == "postgresql://bot:***@db:5432/bot"
    assert safe_url("postgresql://bot@db/bot?search_path=x") == "postgresql://bot@db/bot?search_path=x"
    # a password with an unencoded @ / # ? breaks the address, and is still hidden whole
    assert safe_url("postgresql://bot:p#ss/w@rd@db:5432/bot") == "postgresql://bot:***@db:5432/bot"
    assert safe_url("postgressql://bot:s3cret@db/bot") == "postgressql://bot:***@db/bot"  # any scheme


def test_database_url_selects_postgresql_and_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATABASE_URL", "DATABASE_PATH"):
        monkeypatch.delenv(name, raising=False)
    assert Settings(_env_file=None).database() == Path("data/bot.db")  # type: ignore[call-arg]
    url = "postgresql://bot:pw@127.0.0.1:5432/bot"
    assert Settings(_env_file=None, database_url=url).database() == url  # type: ignore[call-arg]
    settings, found = read_settings(_env_file=None, database_url="mysql://bot:pw@db/bot")
    assert settings is None and len(found) == 1
    assert "DATABASE_URL must be a PostgreSQL address" in found[0] and "pw" not in found[0]


# -- units of work -----------------------------------------------------------------------------------------
async def test_a_unit_that_raises_is_rolled_back_whole(pg_url: str) -> None:
    async with await Store.open(pg_url) as store:

        async def half_then_fail(tx: Tx) -> None:
            await tx.execute("INSERT INTO meta (key, value) VALUES (?, ?)", ("a", "1"))
            raise RuntimeError("stop")

        with pytest.raises(RuntimeError):
            await store.db.run(half_then_fail)
        assert await store.meta.get("a") is None
        await store.meta.set("a", "2")  # the pool's connection is usable after the rollback
        with pytest.raises(asyncpg.UniqueViolationError):
            await store.db.execute("INSERT INTO meta (key, value) VALUES ('a', 'again')")
        assert await store.meta.get("a") == "2"


async def test_read_modify_write_units_on_many_connections_lose_nothing(pg_url: str) -> None:
    # no guard in the SQL at all: only SERIALIZABLE (and running a refused unit again) keeps every increment
    stores = [await Store.open(pg_url) for _ in range(4)]
    try:
        await stores[0].meta.set("n", "0")

        async def increment(tx: Tx) -> None:
            row = await tx.one("SELECT value FROM meta WHERE key = ?", ("n",))
            await tx.execute("UPDATE meta SET value = ? WHERE key = ?", (str(int(row["value"]) + 1), "n"))

        await asyncio.gather(*(stores[i % 4].db.run(increment) for i in range(60)))
        assert await stores[0].meta.get("n") == "60"
    finally:
        for store in stores:
            await store.close()


async def test_a_refused_unit_runs_again_and_is_counted(pg_url: str) -> None:
    db = await pgmod.PgDatabase.open(pg_url)
    try:
        calls = 0

        async def refused_once(tx: Tx) -> None:
            nonlocal calls
            calls += 1
            await tx.execute("INSERT INTO meta (key, value) VALUES (?, ?)", ("k", str(calls)))
            if calls == 1:
                raise asyncpg.exceptions.SerializationError("could not serialize access")

        await db.run(refused_once)
        assert (calls, db.units, db.retries) == (2, 1, 1)
        assert (await db.one("SELECT value FROM meta WHERE key = ?", ("k",)))["value"] == "2"
    finally:
        await db.close()


async def test_a_connection_goes_back_to_the_pool_outside_any_transaction(pg_url: str) -> None:
    # the pool skips asyncpg's reset query: a unit cancelled mid-transaction must still be rolled back
    db = await pgmod.PgDatabase.open(pg_url, pool_size=1)
    try:
        started = asyncio.Event()

        async def slow_read(tx: Tx) -> None:
            await tx.one("SELECT 1")
            started.set()
            await tx.one("SELECT pg_sleep(5)")

        reader = asyncio.ensure_future(db.run(slow_read, write=False))
        await started.wait()
        reader.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reader
        await db.execute("INSERT INTO meta (key, value) VALUES ('after', '1')")  # the one connection
        other = await _raw(pg_url)
        try:  # committed, so another connection sees it (a write inside a leftover read-only one fails)
            assert await other.fetchval("SELECT value FROM meta WHERE key = 'after'") == "1"
        finally:
            await other.close()
    finally:
        await db.close()


async def test_a_write_whose_caller_is_cancelled_still_commits_whole(pg_url: str) -> None:
    async with await Store.open(pg_url) as store:
        started = asyncio.Event()

        async def slow(tx: Tx) -> None:
            await tx.execute("INSERT INTO meta (key, value) VALUES ('first', '1')")
            started.set()
            await tx.execute("SELECT pg_sleep(0.2)")
            await tx.execute("INSERT INTO meta (key, value) VALUES ('second', '2')")

        caller = asyncio.ensure_future(store.db.run(slow))
        await started.wait()
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        await store.close()  # waits for the write in flight
        with pytest.raises(StoreError, match="closed"):
            await store.meta.set("late", "x")
    async with await Store.open(pg_url) as again:
        assert (await again.meta.get("first"), await again.meta.get("second")) == ("1", "2")


async def test_text_with_a_nul_is_refused_with_a_sentence_and_nothing_is_written(pg_url: str) -> None:
    async with await Store.open(pg_url) as store:
        with pytest.raises(InvalidData, match="NUL"):
            await store.log.add(
                RollRecord(guild_id=G, channel_id=C, user_id=P, system="dn", command="r", result="a\x00")
            )
        assert await store.log.last(G, C) == []
        # a sheet's names and notes never hold one: the model drops it (bot.core.common.INVISIBLES)
        sheet = await store.sheets.create(
            Sheet(guild_id=G, owner_id=P, name="A\x00nn", system="dn", notes="a\x00b")
        )
        assert (await store.sheets.get_by_id(sheet.id)).notes == "ab" and sheet.name == "Ann"


# -- migrations --------------------------------------------------------------------------------------------
def test_both_backends_ship_the_same_numbered_migrations() -> None:
    sqlite_names = [m.name for m in migrations()]
    assert [m.name for m in pgmod.migrations()] == sqlite_names
    for migration in pgmod.migrations():
        assert split_statements(migration.sql), migration.name


async def _pg_schema(url: str) -> dict[str, list[str]]:
    conn = await _raw(url)
    try:
        rows = await conn.fetch(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name != 'schema_version' "
            "ORDER BY table_name, ordinal_position"
        )
        indexes = await conn.fetch("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()")
    finally:
        await conn.close()
    tables: dict[str, list[str]] = {}
    for row in rows:
        tables.setdefault(row["table_name"], []).append(row["column_name"])
    tables["<indexes>"] = sorted(r["indexname"] for r in indexes if not r["indexname"].endswith("_pkey"))
    return tables


def _sqlite_schema(path: Path) -> dict[str, list[str]]:
    conn = sqlite3.connect(path)
    try:
        # views too: information_schema.columns lists a view's columns beside the tables'
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
        tables = {
            name: [r[1] for r in conn.execute(f"PRAGMA table_info({name})")]
            for name in names
            if not name.startswith("sqlite_")
        }
        indexes = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'"
        ).fetchall()
    finally:
        conn.close()
    tables["<indexes>"] = sorted(r[0] for r in indexes)
    return tables


async def test_the_two_schemas_have_the_same_tables_columns_and_indexes(pg_url: str, tmp_path: Path) -> None:
    async with await Store.open(pg_url), await Store.open(tmp_path / "s.db"):
        pass
    pg = await _pg_schema(pg_url)
    lite = _sqlite_schema(tmp_path / "s.db")
    # PostgreSQL names a UNIQUE constraint's index itself; SQLite's is an autoindex
    pg["<indexes>"] = [name for name in pg["<indexes>"] if not name.endswith("_key")]
    assert pg == lite


async def test_an_empty_database_migrates_to_latest_once(pg_url: str) -> None:
    for _ in range(3):
        async with await Store.open(pg_url) as store:
            assert await store.db.user_version() == latest_version()
    conn = await _raw(pg_url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM schema_version") == 1
    finally:
        await conn.close()


async def _apply_first(url: str, version: int) -> None:
    """Build a database as an older bot would have left it: migrations 1..version only."""
    conn = await _raw(url)
    try:
        for migration in pgmod.migrations()[:version]:
            for statement in split_statements(migration.sql):
                await conn.execute(statement)
        await conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        await conn.execute("INSERT INTO schema_version VALUES ($1)", version)
    finally:
        await conn.close()


@pytest.mark.parametrize("start", range(1, latest_version()))
async def test_upgrade_from_every_earlier_version_keeps_its_data(pg_url: str, start: int) -> None:
    await _apply_first(pg_url, start)
    conn = await _raw(pg_url)
    try:  # rows as the older release wrote them
        await conn.execute("INSERT INTO meta (key, value) VALUES ('campaign', 'kept')")
        await conn.execute(
            "INSERT INTO sheets (guild_id, owner_id, name, name_key, system, active, data, version, "
            "created_at, updated_at) VALUES (1, 5, 'Ann', 'ann', 'dn', 1, '{\"attributes\": {}, "
            '"skills": {}, "bonuses": {}, "wounds": null, "notes": ""}\', 1, \'2026-01-01T00:00:00+00:00\', '
            "'2026-01-01T00:00:00+00:00')"
        )
        await conn.execute(
            "INSERT INTO pending_modifiers (guild_id, channel_id, system, target_user_id, kind, value, uses, "
            "uses_left, set_by, created_at) VALUES (1, 10, 'dn', 5, 'df', '-2', 2, 2, 7, "
            "'2026-01-01T00:00:00+00:00')"
        )
    finally:
        await conn.close()
    async with await Store.open(pg_url) as store:
        assert await store.db.user_version() == latest_version()
        assert await store.meta.get("campaign") == "kept"
        assert (await store.sheets.get(1, 5, "ann")).name == "Ann"
        assert [a.value for a in await store.modifiers.consume(1, 10, "dn", 5)] == [-2]
        await store.sheets.create(Sheet(guild_id=1, owner_id=5, name="Bob", system="dn"))  # ids go on


async def test_a_newer_database_is_refused_and_left_unchanged(pg_url: str) -> None:
    async with await Store.open(pg_url) as store:
        await store.meta.set("k", "v")
    conn = await _raw(pg_url)
    try:
        await conn.execute("UPDATE schema_version SET version = $1", latest_version() + 1)
    finally:
        await conn.close()
    with pytest.raises(DatabaseTooNew, match=r"newer than this bot's"):
        await Store.open(pg_url)
    conn = await _raw(pg_url)
    try:
        assert await conn.fetchval("SELECT version FROM schema_version") == latest_version() + 1
        assert await conn.fetchval("SELECT value FROM meta WHERE key = 'k'") == "v"
    finally:
        await conn.close()


async def test_a_failing_migration_leaves_the_database_as_it_was(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with await Store.open(pg_url) as store:
        await store.meta.set("campaign", "kept")
    before = await _pg_schema(pg_url)
    shipped = pgmod.migrations()
    broken = Migration(
        len(shipped) + 1,
        f"{len(shipped) + 1:04d}_test.sql",
        "CREATE TABLE notes (body TEXT);\nALTER TABLE sheets ADD COLUMN extra TEXT;\n"
        "INSERT INTO nowhere VALUES (1);",
    )
    monkeypatch.setattr(pgmod, "migrations", lambda: [*shipped, broken])
    with pytest.raises(MigrationFailed, match=r"failed at \d{4}_test.sql .*nowhere.*left as it was"):
        await Store.open(pg_url)
    assert await _pg_schema(pg_url) == before
    monkeypatch.undo()
    async with await Store.open(pg_url) as store:
        assert await store.db.user_version() == latest_version()
        assert await store.meta.get("campaign") == "kept"


async def test_stores_opened_at_once_on_an_empty_database_migrate_it_once(pg_url: str) -> None:
    stores = await asyncio.gather(*(Store.open(pg_url) for _ in range(6)))
    try:
        assert {await s.db.user_version() for s in stores} == {latest_version()}
    finally:
        for store in stores:
            await store.close()


@pytest.mark.slow
async def test_processes_started_at_once_on_an_empty_database_migrate_it_once(pg_url: str) -> None:
    # separate processes, as two shards of a bot started together: the advisory lock makes one wait
    code = (
        "import asyncio, sys\nfrom bot.store import Store\n"
        "async def main():\n    store = await Store.open(sys.argv[1])\n"
        "    await store.meta.set(sys.argv[2], 'up')\n    await store.close()\n"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    children = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, pg_url, f"p{n}", env=env, stderr=asyncio.subprocess.PIPE
        )
        for n in range(4)
    ]
    errors = [(await child.communicate())[1].decode() for child in children]
    assert [child.returncode for child in children] == [0] * 4, errors
    async with await Store.open(pg_url) as store:
        assert [await store.meta.get(f"p{n}") for n in range(4)] == ["up"] * 4


async def test_an_unreachable_server_is_one_sentence_without_the_password() -> None:
    with pytest.raises(
        StoreError, match=r"Could not connect to the database postgresql://bot:\*\*\*@"
    ) as err:
        await Store.open("postgresql://bot:hunter2@127.0.0.1:9/bot")
    assert "hunter2" not in str(err.value)
