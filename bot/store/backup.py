"""Backups and restores of the database: ``python -m bot backup [PATH]``, ``python -m bot restore PATH``.

A backup is SQLite's ``VACUUM INTO`` through aiosqlite: one read transaction, so it is consistent while the
bot keeps writing, and holds every write committed before it began. A restore refuses while anything holds
the database's lock file (the running bot, a backup: see `bot.store.lockfile`), checks the file first (an
SQLite database of this bot, not newer than the code, undamaged), and keeps the database it replaces.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.store.db import connect, connect_read_only, copy_database, latest_version
from bot.store.errors import StoreError
from bot.store.lockfile import DatabaseLock

# tables every version of the schema has: a file without them is not this bot's database
BOT_TABLES = frozenset({"meta", "guild_settings", "sheets", "shoes", "hands", "rolls"})
USAGE = "Usage: python -m bot backup [PATH] | python -m bot restore PATH"


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


def default_backup_path(database: Path) -> Path:
    """``backups/<name>-<UTC time>.db`` beside the database (``data/backups/bot-20261127T101500Z.db``)."""
    return database.parent / "backups" / f"{database.stem}-{_stamp()}.db"


async def backup(database: Path, target: Path | None = None) -> Path:
    """Write a consistent copy of ``database`` to ``target`` (never over an existing file); where it went."""
    if not database.is_file():
        raise StoreError(f"There is no database at {database} to back up.")
    target = target if target is not None else default_backup_path(database)
    lock = DatabaseLock.shared(database)  # a restore cannot swap the file while it is being read
    try:
        conn = await connect(database)
        try:
            await copy_database(conn, target)
        finally:
            await conn.close()
    finally:
        lock.release()
    return target


async def schema_version_of(path: Path) -> int:
    """The schema version of a backup file, once it is known to be this bot's database, whole, and not
    newer than this code; StoreError with one sentence otherwise. Reads the file without changing it."""
    if not path.is_file():
        raise StoreError(f"There is no file at {path}; nothing was restored.")
    not_ours = f"{path} is not a database of this bot"
    try:
        async with connect_read_only(path) as conn:
            tables = {row[0] for row in await conn.execute_fetchall("SELECT name FROM sqlite_master")}
            version = int(next(iter(await conn.execute_fetchall("PRAGMA user_version")))[0])
            if not tables >= BOT_TABLES or version < 1:
                raise StoreError(f"{not_ours} (it lacks the bot's tables); nothing was restored.")
            newest = latest_version()
            if version > newest:
                raise StoreError(
                    f"{path} has schema version {version}, newer than this bot's {newest}; upgrade the bot "
                    "before restoring it. Nothing was restored."
                )
            check = [row[0] for row in await conn.execute_fetchall("PRAGMA integrity_check")]
            if check != ["ok"]:
                raise StoreError(
                    f"{path} is damaged (SQLite's integrity check failed); nothing was restored."
                )
    except sqlite3.DatabaseError as err:
        raise StoreError(f"{not_ours} ({err}); nothing was restored.") from None
    return version


@dataclass(frozen=True)
class Restored:
    """What a restore did."""

    version: int  # the restored file's schema version
    kept: Path | None  # where the database it replaced now is (None: there was none)


async def restore(database: Path, source: Path) -> Restored:
    """Replace ``database`` with the backup ``source``, keeping the replaced database as
    ``<name>.replaced-<UTC time>``; refuses (StoreError, nothing changed) while the bot is running."""
    if database.exists() and source.exists() and os.path.samefile(database, source):
        raise StoreError(f"{source} is the database itself; nothing was restored.")
    lock = DatabaseLock.exclusive(database)
    if lock is None:
        raise StoreError(
            f"The bot (or a backup) is using {database}; stop the bot first. Nothing was restored."
        )
    staged = database.with_name(database.name + ".restoring")
    try:
        version = await schema_version_of(source)
        async with connect_read_only(source) as conn:
            await copy_database(conn, staged, replace=True)  # a clean standalone file beside the database
        kept: Path | None = None
        if database.exists():
            kept = database.with_name(f"{database.name}.replaced-{_stamp()}")
            await _fold_wal(database)
            os.replace(database, kept)
            _move_sidecars(database, kept)
        os.replace(staged, database)
    finally:
        staged.unlink(missing_ok=True)
        lock.release()
    return Restored(version, kept)


async def _fold_wal(database: Path) -> None:
    """Copy what the database's WAL holds (a bot killed mid-write leaves one) into the file itself, so the
    file alone is the whole database; a damaged file is kept with its WAL as it is."""
    with contextlib.suppress(sqlite3.DatabaseError):
        conn = await connect(database)
        try:
            await conn.execute_fetchall("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            await conn.close()


def _move_sidecars(database: Path, kept: Path) -> None:
    # a WAL or shared-memory file left beside the new database would be read as part of it
    for suffix in ("-wal", "-shm"):
        side = Path(f"{database}{suffix}")
        if side.exists():
            if suffix == "-wal" and side.stat().st_size > 0:
                os.replace(side, Path(f"{kept}{suffix}"))
            else:
                side.unlink()


def main(args: list[str], database: Path) -> int:
    """``backup [PATH]`` or ``restore PATH`` on ``database``: one line saying what was done, or one
    sentence saying why not (exit status 1; 2 for a malformed command)."""
    command, rest = args[0], args[1:]
    if (command == "backup" and len(rest) > 1) or (command == "restore" and len(rest) != 1):
        print(USAGE, file=sys.stderr)
        return 2
    try:
        if command == "backup":
            written = asyncio.run(backup(database, Path(rest[0]) if rest else None))
            print(f"Backed up {database} to {written}.")
            return 0
        restored = asyncio.run(restore(database, Path(rest[0])))
    except StoreError as err:
        print(err, file=sys.stderr)
        return 1
    line = f"Restored {database} from {rest[0]} (schema version {restored.version})"
    if restored.kept is not None:
        line += f"; the database it replaced is kept as {restored.kept}"
    if restored.version < latest_version():
        line += f"; the bot upgrades it to version {latest_version()} when it starts"
    print(line + ".")
    return 0
