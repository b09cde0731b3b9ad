"""Key-value facts about the bot itself (the hash of the last synced command tree, pending GM requests,
the queue of a player's accepted blind requests)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from bot.store.db import Database, Tx
from bot.store.errors import InvalidData

MAX_KEY = 200
MAX_VALUE = 100_000
_UPSERT = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
# a queue of words under one key (`push`, `take_first`): a new item goes at the end
_PUSH = (
    "INSERT INTO meta (key, value) VALUES (?, ?) "
    "ON CONFLICT (key) DO UPDATE SET value = meta.value || ' ' || excluded.value RETURNING value"
)
TAKE_TRIES = 5
T = TypeVar("T")


def _check(key: str, value: str) -> None:
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY:
        raise InvalidData(f"A meta key is text of 1 to {MAX_KEY} characters.")
    if not isinstance(value, str) or len(value) > MAX_VALUE:
        raise InvalidData(f"A meta value is text of at most {MAX_VALUE} characters.")


def _check_item(key: str, item: str) -> None:
    _check(key, item)
    if not item or len(item.split()) != 1 or item != item.strip():
        raise InvalidData("A queue's item is one word.")


class MetaRepository:
    """A small key-value table."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, key: str) -> str | None:
        """The value stored under ``key``, or None."""
        row = await self._db.one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row["value"])

    async def set(self, key: str, value: str) -> None:
        """Store ``value`` under ``key``, replacing what was there."""
        _check(key, value)
        await self._db.execute(_UPSERT, (key, value))

    async def delete(self, key: str) -> bool:
        """Forget ``key``; True if it was there (exactly one of concurrent deletes gets True)."""
        outcome = await self._db.execute("DELETE FROM meta WHERE key = ?", (key,))
        return outcome.rowcount > 0

    async def move(self, old_key: str, new_key: str, item: str) -> int | None:
        """Delete ``old_key`` and add ``item`` to the end of the queue at ``new_key`` (`push`), in one
        transaction: the queue's length after it, or None (and nothing written) when ``old_key`` was already
        gone: exactly one of concurrent moves of a key succeeds."""
        _check_item(new_key, item)

        async def work(tx: Tx) -> int | None:
            if (await tx.execute("DELETE FROM meta WHERE key = ?", (old_key,))).rowcount == 0:
                return None
            return await self._push(tx, new_key, item)

        return await self._db.run(work)

    async def push(self, key: str, item: str) -> int:
        """Add ``item`` (a word) to the end of the queue stored at ``key``; the queue's length after it."""
        _check_item(key, item)

        async def work(tx: Tx) -> int:
            return await self._push(tx, key, item)

        return await self._db.run(work)

    @staticmethod
    async def _push(tx: Tx, key: str, item: str) -> int:
        row = await tx.one(_PUSH, (key, item))
        assert row is not None  # an upsert's RETURNING always has its row
        return len(str(row["value"]).split())

    async def take_first(self, key: str) -> str | None:
        """Remove the first item of the queue at ``key`` and return it (None: no queue there). Concurrent
        takers each get a different item, or None once the queue is empty."""
        return await self._rewrite(key, lambda items: (items[0], items[1:]))

    async def remove(self, key: str, item: str) -> bool:
        """Remove ``item`` from the queue at ``key``; False when it is not there (exactly one of concurrent
        removers, or of a remover and a taker, gets it)."""
        return bool(
            await self._rewrite(
                key, lambda items: (True, [i for i in items if i != item]) if item in items else None
            )
        )

    async def _rewrite(self, key: str, edit: Callable[[list[str]], tuple[T, list[str]] | None]) -> T | None:
        """Apply ``edit`` to the queue at ``key``: given its items, it returns a value and the items to keep
        (none: the key goes), or None to leave the queue as it is. The value, or None when there was no
        queue or ``edit`` left it alone. A write between the read and the edit makes it read again."""

        async def work(tx: Tx) -> tuple[T | None, bool]:
            row = await tx.one("SELECT value FROM meta WHERE key = ?", (key,))
            if row is None:
                return None, True
            value = str(row["value"])
            edited = edit(value.split())
            if edited is None:
                return None, True
            result, kept = edited
            if kept:
                outcome = await tx.execute(
                    "UPDATE meta SET value = ? WHERE key = ? AND value = ?", (" ".join(kept), key, value)
                )
            else:
                outcome = await tx.execute("DELETE FROM meta WHERE key = ? AND value = ?", (key, value))
            # another writer changed the queue since the read (a take or a push): read it again
            return (result, True) if outcome.rowcount else (None, False)

        for _ in range(TAKE_TRIES):
            done, settled = await self._db.run(work)
            if settled:
                return done
        return None
