"""Key-value facts about the bot itself (the hash of the last synced command tree, pending GM requests)."""

from __future__ import annotations

import asyncio

from bot.store.db import Database, Tx
from bot.store.errors import InvalidData

MAX_KEY = 200
MAX_VALUE = 100_000


class MetaRepository:
    """A small key-value table.

    The set of keys present is kept in memory (loaded on first use; one bot process owns the file), so
    asking for a key that is not there costs no trip to the database: every roll asks whether a GM's blind
    request waits for it, and nearly always none does.
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        self._keys: set[str] | None = None
        self._loading = asyncio.Lock()

    async def _present(self) -> set[str]:
        if self._keys is None:
            async with self._loading:
                if self._keys is None:
                    rows = await self._db.all("SELECT key FROM meta")
                    self._keys = {str(row["key"]) for row in rows}
        return self._keys

    async def get(self, key: str) -> str | None:
        """The value stored under ``key``, or None."""
        if key not in await self._present():
            return None
        row = await self._db.one("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row["value"])

    async def set(self, key: str, value: str) -> None:
        """Store ``value`` under ``key``, replacing what was there."""
        if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY:
            raise InvalidData(f"A meta key is text of 1 to {MAX_KEY} characters.")
        if not isinstance(value, str) or len(value) > MAX_VALUE:
            raise InvalidData(f"A meta value is text of at most {MAX_VALUE} characters.")
        keys = await self._present()
        keys.add(key)  # before the write: a concurrent get must not miss a key being written
        await self._db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    async def delete(self, key: str) -> bool:
        """Forget ``key``; True if it was there (exactly one of concurrent deletes gets True)."""
        keys = await self._present()
        if key not in keys:
            return False
        keys.discard(key)  # before the write, in queue order with any set() of the same key
        try:
            outcome = await self._db.execute("DELETE FROM meta WHERE key = ?", (key,))
        except BaseException:
            keys.add(key)  # not deleted: the row is still there
            raise
        return outcome.rowcount > 0

    async def move(self, old_key: str, new_key: str, value: str) -> bool:
        """Delete ``old_key`` and store ``value`` under ``new_key``, in one transaction; False (and nothing
        written) when ``old_key`` was already gone: exactly one of concurrent moves of a key succeeds."""
        if not isinstance(new_key, str) or not 1 <= len(new_key) <= MAX_KEY:
            raise InvalidData(f"A meta key is text of 1 to {MAX_KEY} characters.")
        if not isinstance(value, str) or len(value) > MAX_VALUE:
            raise InvalidData(f"A meta value is text of at most {MAX_VALUE} characters.")
        keys = await self._present()
        if old_key not in keys:
            return False
        had_new = new_key in keys
        keys.discard(old_key)
        keys.add(new_key)

        def work(tx: Tx) -> bool:
            if tx.execute("DELETE FROM meta WHERE key = ?", (old_key,)).rowcount == 0:
                return False
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (new_key, value),
            )
            return True

        try:
            moved = await self._db.run(work)
        except BaseException:
            keys.add(old_key)  # rolled back: both keys as they were
            if not had_new:
                keys.discard(new_key)
            raise
        if not moved and not had_new:
            keys.discard(new_key)  # another move took it first; it set its own new key, if any, itself
        return moved
