"""What the store tests do the same on both backends but must say in each one's SQL."""

from __future__ import annotations

import sqlite3

from bot.store import Store

_PG_REFUSE = (
    "CREATE OR REPLACE FUNCTION refuse_for_test() RETURNS trigger LANGUAGE plpgsql AS "
    "$$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$"
)


async def refuse(store: Store, name: str, event: str, table: str, when: str | None = None) -> type[Exception]:
    """Make the database itself refuse ``event`` (INSERT, UPDATE, DELETE) on ``table`` (when ``when``, an
    expression over NEW / OLD, holds): a real failure inside a write. The error type the driver raises."""
    if store.db.dialect == "sqlite":
        condition = f" WHEN {when}" if when else ""
        await store.db.execute(
            f"CREATE TRIGGER {name} BEFORE {event} ON {table}{condition} "
            "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
        )
        return sqlite3.IntegrityError
    import asyncpg

    await store.db.execute(_PG_REFUSE)
    condition = f" WHEN ({when})" if when else ""
    await store.db.execute(
        f"CREATE TRIGGER {name} BEFORE {event} ON {table} FOR EACH ROW{condition} "
        "EXECUTE FUNCTION refuse_for_test()"
    )
    return asyncpg.exceptions.RaiseError


async def rows(store: Store, table: str) -> list[tuple[object, ...]]:
    """Every row of ``table`` by id, as tuples (to compare before and after a refused write)."""
    return [tuple(row) for row in await store.db.all(f"SELECT * FROM {table} ORDER BY id")]
