"""Channel GMs (GM-1): members made GM of one channel by an admin, and GMs who claimed one (/gm claim).

A claim gives no GM rights of its own: it routes the channel's hidden rolls to the GM by DM, while the
GM still is one by role or Manage Server (the UI checks that; the store only keeps how each row was made).
"""

from __future__ import annotations

from bot.store._util import now_text
from bot.store.db import Database


class ChannelGMRepository:
    """Who was made GM of which channel."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def add_channel_gm(
        self, guild_id: int, channel_id: int, user_id: int, *, claimed: bool = False
    ) -> bool:
        """Make ``user_id`` a GM of the channel (GM-1), or with ``claimed`` note their claim of it; False if
        they already were one (a claim never takes the place of an admin's row; an admin's replaces a
        claim)."""
        conflict = "DO NOTHING" if claimed else "DO UPDATE SET claimed = 0 WHERE channel_gms.claimed = 1"
        outcome = await self._db.execute(
            "INSERT INTO channel_gms (guild_id, channel_id, user_id, added_at, claimed) "
            f"VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, channel_id, user_id) {conflict}",
            (guild_id, channel_id, user_id, now_text(), int(claimed)),
        )
        return outcome.rowcount > 0

    async def remove_channel_gm(self, guild_id: int, channel_id: int, user_id: int) -> bool:
        """Take the channel's GM role (or claim) from ``user_id``; False if they had neither."""
        outcome = await self._db.execute(
            "DELETE FROM channel_gms WHERE guild_id = ? AND channel_id = ? AND user_id = ?",
            (guild_id, channel_id, user_id),
        )
        return outcome.rowcount > 0

    async def remove_claim(self, guild_id: int, channel_id: int, user_id: int) -> bool:
        """Take back ``user_id``'s claim of the channel (an admin's appointment stays); False if none."""
        outcome = await self._db.execute(
            "DELETE FROM channel_gms WHERE guild_id = ? AND channel_id = ? AND user_id = ? AND claimed = 1",
            (guild_id, channel_id, user_id),
        )
        return outcome.rowcount > 0

    async def list_channel_gms(self, guild_id: int, channel_id: int) -> list[int]:
        """The channel's GMs and claimers, in the order they were added (`channel_gms` says which claimed)."""
        return [user_id for user_id, _ in await self.channel_gms(guild_id, channel_id)]

    async def channel_gms(self, guild_id: int, channel_id: int) -> list[tuple[int, bool]]:
        """The channel's rows in the order they were added: (member, whether they claimed it)."""
        rows = await self._db.all(
            "SELECT user_id, claimed FROM channel_gms WHERE guild_id = ? AND channel_id = ? "
            "ORDER BY added_at, user_id",
            (guild_id, channel_id),
        )
        return [(int(row["user_id"]), bool(row["claimed"])) for row in rows]

    async def is_channel_gm(self, guild_id: int, channel_id: int, user_id: int) -> bool:
        """True when an admin made ``user_id`` GM of this channel (GM-1's third way; a claim is not)."""
        row = await self._db.one(
            "SELECT 1 FROM channel_gms WHERE guild_id = ? AND channel_id = ? AND user_id = ? AND claimed = 0",
            (guild_id, channel_id, user_id),
        )
        return row is not None
