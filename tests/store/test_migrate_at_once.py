"""Shards started together on one SQLite file (README: SHARD_COUNT with one file): when it needs a migration,
one process keeps the copy and migrates, the others wait for it and open the upgraded file; none fails."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.store import Store, latest_version
from bot.store import db as dbmod
from bot.store.db import migrations, split_statements
from tests.paths import ROOT

CHILDREN = 4
ROWS = 20_000  # about 4 MB: copying it takes long enough for the processes to overlap


def _older_with_data(path: Path, rows: int = ROWS) -> int:
    """A database as the previous release left it (WAL, as the bot sets it), with ``rows`` rows of meta."""
    old = latest_version() - 1
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    for migration in migrations()[:old]:
        for statement in split_statements(migration.sql):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {migration.version}")
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO meta (key, value) VALUES (?, ?)",
        ((f"k{i}", f"{i:06d}" + "x" * 200) for i in range(rows)),
    )
    conn.execute("COMMIT")
    conn.close()
    return old


def _start_at_once(path: Path) -> None:
    """Start CHILDREN processes that open the store on ``path`` at the same moment; all must succeed."""
    children = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.store._migrate_child", str(path), f"p{n}"],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(CHILDREN)
    ]
    try:
        for child in children:  # every one imported and waiting, then all let go together
            assert child.stdout is not None and child.stdout.readline() == "ready\n"
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        errors = [child.communicate(timeout=60)[1] for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
    assert [child.returncode for child in children] == [0] * CHILDREN, "\n".join(errors)


def _read(path: Path) -> tuple[int, dict[str, str]]:
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        return version, dict(conn.execute("SELECT key, value FROM meta").fetchall())
    finally:
        conn.close()


@pytest.mark.slow
def test_processes_started_at_once_on_an_older_database_migrate_it_once(db_path: Path) -> None:
    old = _older_with_data(db_path)
    _start_at_once(db_path)
    version, meta = _read(db_path)
    assert version == latest_version()
    assert len(meta) == ROWS + CHILDREN and meta["k12345"].startswith("012345x")
    assert [meta[f"p{n}"] for n in range(CHILDREN)] == ["up"] * CHILDREN
    # one copy, of the database as it was; nothing half-made left beside it
    copy = Path(f"{db_path}.before-v{latest_version()}")
    assert sorted(p.name for p in db_path.parent.glob("*.before-v*")) == [copy.name]
    copied_version, copied = _read(copy)
    assert copied_version == old and len(copied) == ROWS


@pytest.mark.slow
def test_processes_started_at_once_on_a_new_database_create_it_once(db_path: Path) -> None:
    _start_at_once(db_path)
    version, meta = _read(db_path)
    assert version == latest_version()
    assert meta == {f"p{n}": "up" for n in range(CHILDREN)}
    assert list(db_path.parent.glob("*.before-v*")) == []


async def test_an_upgrade_waits_past_the_busy_timeout_for_the_process_holding_the_lock(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # the copy is made under the write lock now, so a large file can keep the others waiting longer
    _older_with_data(db_path, rows=10)
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", 100)
    other = sqlite3.connect(db_path, isolation_level=None)  # another process, holding the write lock
    other.execute("BEGIN IMMEDIATE")
    asyncio.get_running_loop().call_later(0.5, other.execute, "COMMIT")
    try:
        with caplog.at_level(logging.INFO, logger="bot.store.db"):
            async with await Store.open(db_path) as store:
                assert await store.db.user_version() == latest_version()
    finally:
        other.close()
    assert f"Waiting for another process writing to {db_path} (upgrading it?)." in caplog.messages
