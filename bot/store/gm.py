"""Channel GMs (GM-1): members made GM of one channel."""

from __future__ import annotations

from bot.store._util import now_text
from bot.store.db import Database


class ChannelGMRepository:
    """Who was made GM of which channel."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def add_channel_gm(self, guild_id: int, channel_id: int, user_id: int) -> bool:
        """Make ``user_id`` a GM of the channel (GM-1); False if they already were."""
        outcome = await self._db.execute(
            "INSERT INTO channel_gms (guild_id, channel_id, user_id, added_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT DO NOTHING",
            (guild_id, channel_id, user_id, now_text()),
        )
        return outcome.rowcount > 0

    async def remove_channel_gm(self, guild_id: int, channel_id: int, user_id: int) -> bool:
        """Take the channel's GM role from ``user_id``; False if they were not one."""
        outcome = await self._db.execute(
            "DELETE FROM channel_gms WHERE guild_id = ? AND channel_id = ? AND user_id = ?",
            (guild_id, channel_id, user_id),
        )
        return outcome.rowcount > 0

    async def list_channel_gms(self, guild_id: int, channel_id: int) -> list[int]:
        """The channel's GMs, in the order they were made GM."""
        rows = await self._db.all(
            "SELECT user_id FROM channel_gms WHERE guild_id = ? AND channel_id = ? "
            "ORDER BY added_at, user_id",
            (guild_id, channel_id),
        )
        return [int(row["user_id"]) for row in rows]

    async def is_channel_gm(self, guild_id: int, channel_id: int, user_id: int) -> bool:
        """True when ``user_id`` was made GM of this channel (GM-1's third way)."""
        row = await self._db.one(
            "SELECT 1 FROM channel_gms WHERE guild_id = ? AND channel_id = ? AND user_id = ?",
            (guild_id, channel_id, user_id),
        )
        return row is not None
