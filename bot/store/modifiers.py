"""Pending GM modifiers (GM-3): set for one player or everyone, consumed exactly once per use."""

from __future__ import annotations

import json
import sqlite3

from bot.store._util import dumps, parse_time, validated
from bot.store.db import Database, Tx
from bot.store.errors import InvalidData, NotFound
from bot.store.models import SYSTEMS, AppliedModifier, PendingModifier

_COLUMNS = (
    "id, guild_id, channel_id, system, target_user_id, kind, value, uses, uses_left, set_by, created_at"
)


def _modifier(row: sqlite3.Row) -> PendingModifier:
    return PendingModifier(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        system=row["system"],
        target_user_id=row["target_user_id"],
        kind=row["kind"],
        value=json.loads(row["value"]),
        uses=row["uses"],
        uses_left=row["uses_left"],
        set_by=row["set_by"],
        created_at=parse_time(row["created_at"]),
    )


class ModifierRepository:
    """Modifiers a GM left pending in a channel, per system."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def set(
        self,
        guild_id: int | None,
        channel_id: int,
        system: str,
        target_user_id: int | None,
        kind: str,
        value: int | str,
        uses: int,
        set_by: int,
    ) -> PendingModifier:
        """Leave a modifier for ``target_user_id`` (None: everyone) for the next ``uses`` matching rolls."""
        modifier = validated(
            lambda: PendingModifier(
                guild_id=guild_id,
                channel_id=channel_id,
                system=system,  # type: ignore[arg-type]
                target_user_id=target_user_id,
                kind=kind,
                value=value,
                uses=uses,
                uses_left=uses,
                set_by=set_by,
            ),
            "Modifier",
        )
        outcome = await self._db.execute(
            f"INSERT INTO pending_modifiers ({_COLUMNS}) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                modifier.guild_id,
                modifier.channel_id,
                modifier.system,
                modifier.target_user_id,
                modifier.kind,
                dumps(modifier.value),
                modifier.uses,
                modifier.uses,
                modifier.set_by,
                modifier.created_at.isoformat(),
            ),
        )
        return modifier.model_copy(update={"id": outcome.lastrowid})

    async def consume(
        self, guild_id: int | None, channel_id: int, system: str, user_id: int
    ) -> list[AppliedModifier]:
        """Take one use of every modifier matching this player's roll, atomically and exactly once (GM-3)."""
        if system not in SYSTEMS:
            raise InvalidData(f"{system!r} is not one of the systems {', '.join(SYSTEMS)}.")
        applied: list[AppliedModifier] = []
        async with self._db.transaction() as tx:
            rows = await self._matching(tx, guild_id, channel_id, system, user_id)
            for row in rows:
                if row["target_user_id"] is None:
                    taken = await self._take_everyone_use(tx, row, user_id)
                else:
                    taken = await self._take_player_use(tx, row)
                if taken is not None:
                    applied.append(taken)
        return applied

    async def _take_player_use(self, tx: Tx, row: sqlite3.Row) -> AppliedModifier | None:
        # The guard uses_left > 0 makes the decrement exactly-once even if a row was read stale.
        outcome = await tx.execute(
            "UPDATE pending_modifiers SET uses_left = uses_left - 1 WHERE id = ? AND uses_left > 0",
            (row["id"],),
        )
        if outcome.rowcount != 1:
            return None
        left = int(row["uses_left"]) - 1
        if left == 0:
            await tx.execute("DELETE FROM pending_modifiers WHERE id = ? AND uses_left = 0", (row["id"],))
        return self._applied(row, for_everyone=False, uses_left=left)

    async def _take_everyone_use(self, tx: Tx, row: sqlite3.Row, user_id: int) -> AppliedModifier | None:
        outcome = await tx.execute(
            "INSERT INTO modifier_uses (modifier_id, user_id, used) VALUES (?, ?, 1) "
            "ON CONFLICT (modifier_id, user_id) DO UPDATE SET used = used + 1 WHERE used < ?",
            (row["id"], user_id, row["uses"]),
        )
        if outcome.rowcount != 1:
            return None
        used = await tx.one(
            "SELECT used FROM modifier_uses WHERE modifier_id = ? AND user_id = ?", (row["id"], user_id)
        )
        left = int(row["uses"]) - (int(used["used"]) if used else 0)
        return self._applied(row, for_everyone=True, uses_left=left)

    @staticmethod
    def _applied(row: sqlite3.Row, *, for_everyone: bool, uses_left: int) -> AppliedModifier:
        return AppliedModifier(
            modifier_id=row["id"],
            kind=row["kind"],
            value=json.loads(row["value"]),
            set_by=row["set_by"],
            for_everyone=for_everyone,
            uses_left=uses_left,
        )

    @staticmethod
    async def _matching(
        tx: Tx, guild_id: int | None, channel_id: int, system: str, user_id: int
    ) -> list[sqlite3.Row]:
        return await tx.all(
            f"SELECT {_COLUMNS} FROM pending_modifiers "
            "WHERE channel_id = ? AND guild_id IS ? AND system = ? "
            "AND (target_user_id = ? OR target_user_id IS NULL) ORDER BY id",
            (channel_id, guild_id, system, user_id),
        )

    async def pending_for(
        self, guild_id: int | None, channel_id: int, system: str, user_id: int
    ) -> list[AppliedModifier]:
        """What ``consume`` would take for this player now, without taking it (for previews)."""
        found: list[AppliedModifier] = []
        async with self._db.transaction() as tx:
            for row in await self._matching(tx, guild_id, channel_id, system, user_id):
                if row["target_user_id"] is not None:
                    found.append(self._applied(row, for_everyone=False, uses_left=int(row["uses_left"])))
                    continue
                used = await tx.one(
                    "SELECT used FROM modifier_uses WHERE modifier_id = ? AND user_id = ?",
                    (row["id"], user_id),
                )
                left = int(row["uses"]) - (int(used["used"]) if used else 0)
                if left > 0:
                    found.append(self._applied(row, for_everyone=True, uses_left=left))
        return found

    async def list(self, guild_id: int | None, channel_id: int) -> list[PendingModifier]:
        """Every modifier pending in the channel, oldest first."""
        rows = await self._db.all(
            f"SELECT {_COLUMNS} FROM pending_modifiers WHERE channel_id = ? AND guild_id IS ? ORDER BY id",
            (channel_id, guild_id),
        )
        return [_modifier(row) for row in rows]

    async def get(self, modifier_id: int) -> PendingModifier:
        """One pending modifier by id."""
        row = await self._db.one(f"SELECT {_COLUMNS} FROM pending_modifiers WHERE id = ?", (modifier_id,))
        if row is None:
            raise NotFound(
                f"There is no pending modifier {modifier_id}; it may have been used up or cleared."
            )
        return _modifier(row)

    async def uses_taken(self, modifier_id: int, user_id: int) -> int:
        """How many uses of an everyone-modifier this player has taken."""
        row = await self._db.one(
            "SELECT used FROM modifier_uses WHERE modifier_id = ? AND user_id = ?", (modifier_id, user_id)
        )
        return int(row["used"]) if row else 0

    async def clear(
        self, guild_id: int | None, channel_id: int, system: str | None = None, user_id: int | None = None
    ) -> int:
        """Remove pending modifiers of the channel (optionally one system, optionally one player's); a count.

        ``user_id`` given removes only that player's own modifiers, not the everyone-modifiers.
        """
        sql = "DELETE FROM pending_modifiers WHERE channel_id = ? AND guild_id IS ?"
        params: list[object] = [channel_id, guild_id]
        if system is not None:
            sql += " AND system = ?"
            params.append(system)
        if user_id is not None:
            sql += " AND target_user_id = ?"
            params.append(user_id)
        outcome = await self._db.execute(sql, params)
        return outcome.rowcount

    async def remove(self, modifier_id: int) -> bool:
        """Remove one pending modifier by id; False if it was already gone."""
        outcome = await self._db.execute("DELETE FROM pending_modifiers WHERE id = ?", (modifier_id,))
        return outcome.rowcount > 0
