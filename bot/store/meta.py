"""Key-value facts about the bot itself (the hash of the last synced command tree, pending GM requests)."""

from __future__ import annotations

from bot.store.db import Database, Tx
from bot.store.errors import InvalidData

MAX_KEY = 200
MAX_VALUE = 100_000
_UPSERT = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"


def _check(key: str, value: str) -> None:
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY:
        raise InvalidData(f"A meta key is text of 1 to {MAX_KEY} characters.")
    if not isinstance(value, str) or len(value) > MAX_VALUE:
        raise InvalidData(f"A meta value is text of at most {MAX_VALUE} characters.")


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

    async def move(self, old_key: str, new_key: str, value: str) -> bool:
        """Delete ``old_key`` and store ``value`` under ``new_key``, in one transaction; False (and nothing
        written) when ``old_key`` was already gone: exactly one of concurrent moves of a key succeeds."""
        _check(new_key, value)

        async def work(tx: Tx) -> bool:
            if (await tx.execute("DELETE FROM meta WHERE key = ?", (old_key,))).rowcount == 0:
                return False
            await tx.execute(_UPSERT, (new_key, value))
            return True

        return await self._db.run(work)
