"""Fixtures: one Store contract, two backends. Every test that takes ``store``, ``open_store`` or
``database`` runs twice: on a temporary SQLite file and on a throw-away schema of a PostgreSQL database.

PostgreSQL is `TEST_DATABASE_URL` (default: the development server at 127.0.0.1:5432, database ``test``).
When it cannot be reached, the PostgreSQL runs are skipped with one line saying how to run them, unless
``REQUIRE_POSTGRES=1`` (CI), which makes them fail. A test about SQLite itself (its file, WAL, backups,
aiosqlite's threads) is marked ``@pytest.mark.sqlite_only``.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bot.store import Store

BACKENDS = ("sqlite", "postgres")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: a test of SQLite itself; not run on PostgreSQL")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        only = metafunc.definition.get_closest_marker("sqlite_only") is not None
        metafunc.parametrize("backend", ["sqlite"] if only else list(BACKENDS))


def postgres_url() -> str:
    """The PostgreSQL server the tests use (each test in a schema of its own)."""
    return os.environ.get("TEST_DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/test"


def _reachable(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 5432), timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The server's address; skips (or fails, under REQUIRE_POSTGRES=1) when it cannot be reached."""
    url = postgres_url()
    if not _reachable(url):
        how = (
            f"PostgreSQL is not reachable at {urlsplit(url).netloc}: start it (pg_ctlcluster 15 main start) "
            "or point TEST_DATABASE_URL at one to run the PostgreSQL half of the store tests"
        )
        if os.environ.get("REQUIRE_POSTGRES") == "1":
            pytest.fail(how + " (REQUIRE_POSTGRES=1)")
        pytest.skip(how)
    return url


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh database file path (not created yet)."""
    return tmp_path / "store.sqlite3"


async def new_schema(server: str) -> tuple[str, Callable[[], Awaitable[None]]]:
    """A fresh empty schema on ``server``: the address that works in it, and a function that drops it."""
    import asyncpg

    name = f"t_{uuid.uuid4().hex[:16]}"
    conn = await asyncpg.connect(server)
    try:
        await conn.execute(f"CREATE SCHEMA {name}")
    finally:
        await conn.close()

    async def drop() -> None:
        conn = await asyncpg.connect(server)
        try:
            await conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        finally:
            await conn.close()

    joiner = "&" if "?" in server else "?"
    return f"{server}{joiner}search_path={name}", drop


@pytest.fixture
async def database(backend: str, db_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[str | Path]:
    """Where this run's Store lives: the SQLite file, or the address of a throw-away PostgreSQL schema."""
    if backend == "sqlite":
        yield db_path
        return
    server: str = request.getfixturevalue("postgres_server")
    url, drop = await new_schema(server)
    try:
        yield url
    finally:
        await drop()


@pytest.fixture
async def store(database: str | Path) -> AsyncIterator[Store]:
    """A Store on a fresh database of this run's backend, closed after the test."""
    opened = await Store.open(database)
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def open_store(database: str | Path) -> AsyncIterator[Callable[[], Awaitable[Store]]]:
    """Open more Store objects (separate connections) on the test's database; all are closed after it."""
    opened: list[Store] = []

    async def factory() -> Store:
        new = await Store.open(database)
        opened.append(new)
        return new

    try:
        yield factory
    finally:
        for item in opened:
            await item.close()


@pytest.fixture
def sqlite_file(db_path: Path) -> Iterator[Path]:
    """The SQLite file of a ``sqlite_only`` test."""
    yield db_path
