"""Fixtures: a Store on a temporary SQLite file, and a way to open more Stores on the same file."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from bot.store import Store


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh database file path (not created yet)."""
    return tmp_path / "store.sqlite3"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[Store]:
    """A Store on a real temporary SQLite file, closed after the test."""
    opened = await Store.open(db_path)
    try:
        yield opened
    finally:
        await opened.close()


@pytest.fixture
async def open_store(db_path: Path) -> AsyncIterator[Callable[[], Awaitable[Store]]]:
    """Open more Store objects (separate connections) on the test's file; all are closed after the test."""
    opened: list[Store] = []

    async def factory() -> Store:
        new = await Store.open(db_path)
        opened.append(new)
        return new

    try:
        yield factory
    finally:
        for item in opened:
            await item.close()
