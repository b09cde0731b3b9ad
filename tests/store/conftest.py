"""Fixtures: one Store contract, two backends. Every test that takes ``store``, ``open_store`` or
``database`` runs twice: on a temporary SQLite file and on a throw-away schema of a PostgreSQL database.

PostgreSQL is `tests.postgres`'s server; when it cannot be reached, the PostgreSQL runs are skipped with
one line saying how to run them, unless ``REQUIRE_POSTGRES=1`` (CI), which makes them fail. A test about
SQLite itself (its file, WAL, backups, aiosqlite's threads) is marked ``@pytest.mark.sqlite_only``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot.store import Store
from tests.postgres import new_schema, require_postgres

BACKENDS = ("sqlite", "postgres")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        only = metafunc.definition.get_closest_marker("sqlite_only") is not None
        metafunc.parametrize("backend", ["sqlite"] if only else list(BACKENDS))


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The server's address; skips (or fails, under REQUIRE_POSTGRES=1) when it cannot be reached."""
    return require_postgres()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh database file path (not created yet)."""
    return tmp_path / "store.sqlite3"


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
