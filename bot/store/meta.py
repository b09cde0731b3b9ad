"""Key-value facts about the bot itself (e.g. the hash of the last synced command tree)."""

from __future__ import annotations

from bot.store.db import Database
from bot.store.errors import InvalidData

MAX_KEY = 200
MAX_VALUE = 100_000


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
        if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY:
            raise InvalidData(f"A meta key is text of 1 to {MAX_KEY} characters.")
        if not isinstance(value, str) or len(value) > MAX_VALUE:
            raise InvalidData(f"A meta value is text of at most {MAX_VALUE} characters.")
        await self._db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    async def delete(self, key: str) -> bool:
        """Forget ``key``; True if it was there."""
        outcome = await self._db.execute("DELETE FROM meta WHERE key = ?", (key,))
        return outcome.rowcount > 0
