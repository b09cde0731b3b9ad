"""Copy a table's whole data from one database to another: ``python -m bot copy-data --from SRC --to DST``.

Either side is an SQLite file or a ``postgresql://`` address (SQLite to PostgreSQL when a bot moves to
several processes, and back). Both are opened as the bot opens them (migrated to this version's schema).
The source is read in one read-only transaction, a consistent snapshot even while a bot writes to it; the
target is written in one transaction, so a failed copy leaves it as it was. A target that already holds
data is refused unless ``force``, which replaces it. Ids are kept (buttons of old messages carry them) and
each id counter continues past the source's highest, so an id is never given out twice.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg

from bot.store.db import Database, Row, Tx, is_postgres_url, open_database, safe_url
from bot.store.errors import StoreError

# every table, parents before children (modifier_uses refers to pending_modifiers); modifier_holds are a
# running roll's reservations, which end with the process that made them: not copied
TABLES = (
    "meta", "guild_settings", "channel_settings", "channel_gms", "pending_modifiers", "modifier_uses",
    "sheets", "shoes", "hands", "supply_dice", "pools", "rolls", "second_tries",
)  # fmt: skip
NOT_COPIED = ("modifier_holds",)
# what names a row of each table (its primary key), for sentences about it
ROW_KEYS = {
    "meta": ("key",), "guild_settings": ("guild_id",), "channel_settings": ("channel_id",),
    "channel_gms": ("guild_id", "channel_id", "user_id"), "modifier_uses": ("modifier_id", "user_id"),
    "shoes": ("channel_id",), "supply_dice": ("guild_id", "owner_id", "character_key", "item_key"),
    "second_tries": ("log_id",),
}  # fmt: skip
WITH_IDS = ("pending_modifiers", "sheets", "hands", "pools", "rolls")  # ids the database gives out
NOUNS = {  # (one, several)
    "meta": ("bot fact", "bot facts"), "guild_settings": ("server's settings", "servers' settings"),
    "channel_settings": ("channel's settings", "channels' settings"),
    "channel_gms": ("channel GM", "channel GMs"), "pending_modifiers": ("GM modifier", "GM modifiers"),
    "modifier_uses": ("modifier use", "modifier uses"), "sheets": ("sheet", "sheets"),
    "shoes": ("shoe", "shoes"), "hands": ("hand", "hands"), "supply_dice": ("supply die", "supply dice"),
    "pools": ("pool", "pools"), "rolls": ("logged roll", "logged rolls"),
    "second_tries": ("second try", "second tries"),
}  # fmt: skip


@dataclass
class Snapshot:
    """Every row of every table, and each id counter's high-water mark, as read in one transaction."""

    columns: dict[str, list[str]]
    rows: dict[str, list[tuple[Any, ...]]]
    high_water: dict[str, int]

    def counts(self) -> dict[str, int]:
        return {table: len(self.rows[table]) for table in TABLES}

    def nul_cells(self) -> dict[tuple[str, str], list[str]]:
        """Where text holds a NUL character (an SQLite file can, PostgreSQL cannot): by (table, column),
        each row's key (``id 12``)."""
        found: dict[tuple[str, str], list[str]] = {}
        for table in TABLES:
            names = self.columns[table]
            keys = [names.index(key) for key in ROW_KEYS.get(table, ("id",))]
            for row in self.rows[table]:
                for name, value in zip(names, row, strict=True):
                    if isinstance(value, str) and "\x00" in value:
                        key = ", ".join(f"{names[i]} {row[i]!r}" for i in keys)
                        found.setdefault((table, name), []).append(key)
        return found


def describe(target: str | Path) -> str:
    """A database for sentences: the file, or the address without its password."""
    return safe_url(str(target)) if is_postgres_url(target) else str(target)


async def _high_water(tx: Tx, dialect: str) -> dict[str, int]:
    """The last id each table gave out (higher than its rows' when the newest rows were deleted)."""
    if dialect == "postgres":
        rows = await tx.all(
            "SELECT sequencename AS name, coalesce(last_value, 0) AS seq FROM pg_sequences "
            "WHERE schemaname = current_schema()"
        )
        by_sequence = {str(row["name"]): int(row["seq"]) for row in rows}
        return {table: by_sequence.get(f"{table}_id_seq", 0) for table in WITH_IDS}
    rows = await tx.all("SELECT name, seq FROM sqlite_sequence")
    found = {str(row["name"]): int(row["seq"]) for row in rows}
    return {table: found.get(table, 0) for table in WITH_IDS}


async def read_all(db: Database) -> Snapshot:
    """Every row of the database, in one read-only transaction."""

    async def read(tx: Tx) -> Snapshot:
        columns: dict[str, list[str]] = {}
        rows: dict[str, list[tuple[Any, ...]]] = {}
        for table in TABLES:
            found: list[Row] = await tx.all(f"SELECT * FROM {table}")
            columns[table] = await _columns(tx, db.dialect, table)
            rows[table] = [tuple(row[name] for name in columns[table]) for row in found]
        return Snapshot(columns, rows, await _high_water(tx, db.dialect))

    return await db.run(read, write=False)


async def _columns(tx: Tx, dialect: str, table: str) -> list[str]:
    if dialect == "postgres":
        rows = await tx.all(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = ? ORDER BY ordinal_position",
            (table,),
        )
        return [str(row["column_name"]) for row in rows]
    return [str(row["name"]) for row in await tx.all(f"PRAGMA table_info({table})")]


async def counts(db: Database) -> dict[str, int]:
    """How many rows each table holds."""

    async def count(tx: Tx) -> dict[str, int]:
        found = {}
        for table in TABLES:
            row = await tx.one(f"SELECT count(*) AS n FROM {table}")
            found[table] = int(row["n"]) if row else 0
        return found

    return await db.run(count, write=False)


async def write_all(db: Database, snapshot: Snapshot, *, replace: bool) -> None:
    """Write the snapshot into ``db`` in one transaction; ``replace`` empties its tables first."""

    async def write(tx: Tx) -> None:
        if replace:
            for table in reversed(TABLES):
                await tx.execute(f"DELETE FROM {table}")
            await tx.execute("DELETE FROM modifier_holds")
        for table in TABLES:
            names = snapshot.columns[table]
            if snapshot.rows[table]:
                marks = ", ".join("?" for _ in names)
                await tx.executemany(
                    f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})", snapshot.rows[table]
                )
        for table in WITH_IDS:
            await _continue_ids(tx, db.dialect, table, snapshot)

    await db.run(write)


async def _continue_ids(tx: Tx, dialect: str, table: str, snapshot: Snapshot) -> None:
    """Make the target's id counter for ``table`` continue past every id the source gave out."""
    index = snapshot.columns[table].index("id")
    last = max([snapshot.high_water.get(table, 0), *(row[index] for row in snapshot.rows[table])])
    if dialect == "postgres":
        if last > 0:  # setval's smallest value is 1: an empty table keeps its fresh sequence
            await tx.one("SELECT setval(pg_get_serial_sequence(?, 'id'), CAST(? AS BIGINT))", (table, last))
        return
    await tx.execute("DELETE FROM sqlite_sequence WHERE name = ?", (table,))
    if last > 0:
        await tx.execute("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (table, last))


def _said(found: dict[str, int]) -> str:
    held = [f"{n:,} {NOUNS[table][n != 1]}" for table, n in found.items() if n]
    return ", ".join(held) if held else "nothing"


@dataclass
class Copied:
    """How many rows of each table were copied, and what was changed on the way (a sentence, or "")."""

    counts: dict[str, int]
    changed: str = ""


async def copy_data(
    source: str | Path, target: str | Path, *, force: bool = False, drop_nul: bool = False
) -> Copied:
    """Copy every row from ``source`` to ``target``.

    StoreError (one sentence, nothing written) when the target holds data and ``force`` is not given,
    when source and target are the same database, or when text holds a NUL character PostgreSQL cannot
    store and ``drop_nul`` is not given.
    """
    if str(source) == str(target) or (
        not is_postgres_url(source)
        and not is_postgres_url(target)
        and Path(target).exists()
        and Path(source).exists()
        and Path(source).samefile(Path(target))
    ):
        raise StoreError("The source and the target are the same database; nothing was copied.")
    if not is_postgres_url(source) and not Path(source).is_file():
        raise StoreError(f"There is no database at {source} to copy from; nothing was copied.")
    from_db = await open_database(source)
    try:
        to_db = await open_database(target)
        try:
            held = await counts(to_db)
            if any(held.values()) and not force:
                raise StoreError(
                    f"The target {describe(target)} already holds data ({_said(held)}); copy into an empty "
                    "database, or pass --force to replace what it holds. Nothing was copied."
                )
            snapshot = await read_all(from_db)
            dropped = _without_nul(snapshot, source, drop_nul) if to_db.dialect == "postgres" else ""
            try:
                await write_all(to_db, snapshot, replace=force)
            except asyncpg.exceptions.UniqueViolationError as err:
                if not dropped:  # rows unique in the source are unique in the copy: a bug, not the data
                    raise
                key = (err.detail or "").removeprefix("Key ").removesuffix(" already exists.")
                raise StoreError(
                    f"Without their NUL characters two rows of {err.table_name} would be the same ({key}); "
                    "nothing was copied. Rename one of them in the source, then copy again."
                ) from None
        finally:
            await to_db.close()
    finally:
        await from_db.close()
    return Copied(snapshot.counts(), dropped)


def _places(found: dict[tuple[str, str], list[str]]) -> str:
    return "; ".join(
        f"{table}.{column} ({', '.join(rows[:3])}{f' and {len(rows) - 3} more' if len(rows) > 3 else ''})"
        for (table, column), rows in found.items()
    )


def _without_nul(snapshot: Snapshot, source: str | Path, drop: bool) -> str:
    """Text with a NUL character, which PostgreSQL cannot store, refused before anything is written (where
    it is, and how to go on); with ``drop``, the copy's NULs removed instead (the source is left as it is),
    and where they were."""
    found = snapshot.nul_cells()
    if not found:
        return ""
    if not drop:
        raise StoreError(
            f"Text in {describe(source)} holds a NUL character (\\0), which PostgreSQL cannot store, in "
            f"{_places(found)}; nothing was copied. Add --drop-nul to copy it without them (the source keeps "
            "them)."
        )
    for table in {table for table, _ in found}:
        snapshot.rows[table] = [
            tuple(v.replace("\x00", "") if isinstance(v, str) else v for v in row)
            for row in snapshot.rows[table]
        ]
    return f"Dropped the NUL characters PostgreSQL cannot store from {_places(found)}."


USAGE = "python -m bot copy-data --from SOURCE --to TARGET [--force] [--drop-nul]"


def main(source: str, target: str, force: bool, drop_nul: bool = False) -> int:
    """The command: one line saying what was copied, or one sentence saying why not (exit status 1)."""
    try:
        copied = asyncio.run(copy_data(_target(source), _target(target), force=force, drop_nul=drop_nul))
    except StoreError as err:
        print(err, file=sys.stderr)
        return 1
    print(f"Copied {_said(copied.counts)} from {describe(source.strip())} to {describe(target.strip())}.")
    if copied.changed:
        print(copied.changed)
    return 0


def _target(text: str) -> str | Path:
    """A PostgreSQL address, or an SQLite file's path; any other address (a mistyped scheme, which would
    otherwise become a file named after it, password and all) is refused."""
    text = text.strip()
    if is_postgres_url(text):
        return text
    if "://" in text:
        raise StoreError(
            f"{safe_url(text)} is neither a PostgreSQL address (postgresql://user:password@host:5432/name) "
            "nor an SQLite file; nothing was copied."
        )
    return Path(text)


__all__: Sequence[str] = ("Copied", "copy_data", "main", "read_all", "write_all")
