"""The PostgreSQL server the tests use, and throw-away schemas on it.

`TEST_DATABASE_URL` (default: the development server at 127.0.0.1:5432, database ``test``). When it cannot
be reached, tests that need it are skipped with one line saying how to run them, unless
``REQUIRE_POSTGRES=1`` (CI), which makes them fail.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

import pytest


def postgres_url() -> str:
    """The server's address (each test works in a schema of its own)."""
    return os.environ.get("TEST_DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/test"


def _reachable(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 5432), timeout=2):
            return True
    except OSError:
        return False


def require_postgres() -> str:
    """The server's address; skips the test (fails it under REQUIRE_POSTGRES=1) when it is unreachable."""
    url = postgres_url()
    if not _reachable(url):
        how = (
            f"PostgreSQL is not reachable at {urlsplit(url).netloc}: start it (pg_ctlcluster 15 main start) "
            "or point TEST_DATABASE_URL at one to run the PostgreSQL tests"
        )
        if os.environ.get("REQUIRE_POSTGRES") == "1":
            pytest.fail(how + " (REQUIRE_POSTGRES=1)")
        pytest.skip(how)
    return url


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
