"""Pending GM modifiers (GM-3): set for one player or everyone, consumed exactly once per use."""

from __future__ import annotations

import asyncio
import json
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from bot.store._util import dumps, parse_time, validated
from bot.store.db import Database, Row, Tx
from bot.store.errors import InvalidData, NotFound
from bot.store.models import SYSTEMS, AppliedModifier, PendingModifier

_COLUMNS = (
    "id, guild_id, channel_id, system, target_user_id, kind, value, uses, uses_left, set_by, created_at"
)
# a roll's candidate modifiers, with this player's uses of the everyone-modifiers among them
_PENDING_FOR_ROLL = (
    "SELECT m.id, m.guild_id, m.channel_id, m.system, m.target_user_id, m.kind, m.value, m.uses, "
    "m.uses_left, m.set_by, m.created_at, COALESCE(u.used, 0) AS used FROM pending_modifiers m "
    "LEFT JOIN modifier_uses u ON u.modifier_id = m.id AND u.user_id = ? "
    "WHERE m.channel_id = ? AND m.guild_id IS ? AND m.system = ? ORDER BY m.id"
)


# A reservation whose roll never reached its log write (the command failed in between) stops holding
# its uses after this many seconds; the uses were never taken from the database.
TICKET_TTL_S = 60.0
Scope = tuple[int | None, int, str]  # guild, channel, system


@dataclass
class ModifierTicket:
    """Uses of pending modifiers reserved for one interaction's roll(s); taken when its log row is written."""

    key: object
    uses: list[tuple[Row, int]] = field(default_factory=list)  # (modifier row, roller id)
    scopes: set[Scope] = field(default_factory=set)
    created: float = field(default_factory=time.monotonic)

    def __bool__(self) -> bool:
        return bool(self.uses)


def _modifier(row: Row) -> PendingModifier:
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
        # Uses reserved by this process's rolls that are not logged yet: subtracted from what the database
        # shows, so two rolls here never both count on the last use. Taking a use is guarded in SQL too.
        self._tickets: dict[object, ModifierTicket] = {}
        self._locks: weakref.WeakValueDictionary[Scope, asyncio.Lock] = weakref.WeakValueDictionary()

    def _lock(self, scope: Scope) -> asyncio.Lock:
        lock = self._locks.get(scope)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[scope] = lock
        return lock

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
        row = await self._db.one(
            f"INSERT INTO pending_modifiers ({_COLUMNS.removeprefix('id, ')}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
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
        assert row is not None
        return modifier.model_copy(update={"id": row["id"]})

    async def consume(
        self, guild_id: int | None, channel_id: int, system: str, user_id: int
    ) -> list[AppliedModifier]:
        """Take one use of every modifier matching this player's roll, atomically and exactly once (GM-3)."""
        key = object()
        await self.reserve(key, guild_id, channel_id, system, user_id)
        ticket = self._tickets.get(key)
        if not ticket:
            return []
        # What the SQL guards grant, not what was reserved: another process may share the file in tests.
        take = self.taker(ticket)
        try:
            async with self.settling(ticket):
                return await self._db.run(take)
        finally:
            self.release(ticket)

    async def reserve(
        self, key: object, guild_id: int | None, channel_id: int, system: str, user_id: int
    ) -> list[AppliedModifier]:
        """Reserve one use of every modifier matching this roll under ``key``, without writing (GM-3).

        The uses are taken from the database by the `taker` step inside the unit of work that logs the
        roll (``RollLogRepository.add(record, modifiers=ticket)``), so a roll is never half-applied. Until
        then no other roll in this process can reserve the same use; ``release`` gives them back.
        """
        if system not in SYSTEMS:
            raise InvalidData(f"{system!r} is not one of the systems {', '.join(SYSTEMS)}.")
        scope: Scope = (guild_id, channel_id, system)
        params = (user_id, channel_id, guild_id, system)
        # Most rolls find none: nothing to reserve, so no need to wait for the scope's lock to know it.
        if not await self._db.all(_PENDING_FOR_ROLL, params):
            return []
        async with self._lock(scope):
            rows = await self._db.all(_PENDING_FOR_ROLL, params)
            if not rows:
                return []
            self._prune()
            ticket = self._tickets.get(key)
            applied: list[AppliedModifier] = []
            for row in rows:
                everyone = row["target_user_id"] is None
                if not everyone and row["target_user_id"] != user_id:
                    continue
                stored_left = int(row["uses"]) - int(row["used"]) if everyone else int(row["uses_left"])
                left = stored_left - self._reserved(row["id"], user_id if everyone else None)
                if left <= 0:
                    continue
                if ticket is None:
                    ticket = self._tickets[key] = ModifierTicket(key)
                ticket.uses.append((row, user_id))
                ticket.scopes.add(scope)
                applied.append(self._applied(row, for_everyone=everyone, uses_left=left - 1))
            return applied

    def ticket(self, key: object) -> ModifierTicket | None:
        """The uses reserved under ``key`` (handed to the log write that takes them), or None."""
        return self._tickets.get(key)

    def release(self, ticket: ModifierTicket | None) -> None:
        """Give reserved uses back without taking them (the roll was not logged)."""
        if ticket is not None and self._tickets.get(ticket.key) is ticket:
            del self._tickets[ticket.key]

    @asynccontextmanager
    async def settling(self, ticket: ModifierTicket | None) -> AsyncIterator[None]:
        """Hold the ticket's scopes while the transaction that takes its uses runs; drop the ticket if it did.

        Taking the uses and dropping the reservation happen under the same lock a reservation reads
        under, so no reservation ever sees a use both taken in the database and still reserved.
        """
        if not ticket:
            self.release(ticket)
            yield
            return
        locks = [self._lock(scope) for scope in sorted(ticket.scopes, key=repr)]
        for lock in locks:
            await lock.acquire()
        try:
            yield
            # taken: the reservation ends with the lock still held. On failure it stays for a retry
            # (a sustained check that lost a race); the caller releases it when it gives up.
            self._tickets.pop(ticket.key, None)
        finally:
            for lock in reversed(locks):
                lock.release()

    def taker(self, ticket: ModifierTicket | None) -> Callable[[Tx], Awaitable[list[AppliedModifier]]]:
        """A step for the unit of work that logs the roll: it takes the ticket's reserved uses.

        Each use is taken exactly once, guarded in SQL; the step returns the uses it took.
        """
        uses = list(ticket.uses) if ticket else []

        async def take(tx: Tx) -> list[AppliedModifier]:
            taken: list[AppliedModifier] = []
            for row, user_id in uses:
                if row["target_user_id"] is None:
                    use = await self._take_everyone_use(tx, row, user_id)
                else:
                    use = await self._take_player_use(tx, row)
                if use is not None:
                    taken.append(use)
            return taken

        return take

    def _reserved(self, modifier_id: int, user_id: int | None) -> int:
        return sum(
            1
            for ticket in self._tickets.values()
            for row, roller in ticket.uses
            if row["id"] == modifier_id and (user_id is None or roller == user_id)
        )

    def _prune(self) -> None:
        cutoff = time.monotonic() - TICKET_TTL_S
        for key in [k for k, t in self._tickets.items() if t.created < cutoff]:
            del self._tickets[key]

    @classmethod
    async def _take_player_use(cls, tx: Tx, row: Row) -> AppliedModifier | None:
        # The guard uses_left > 0 makes the decrement exactly-once even if a row was read stale;
        # RETURNING gives the true count left (the row may predate other uses taken meanwhile).
        after = await tx.one(
            "UPDATE pending_modifiers SET uses_left = uses_left - 1 WHERE id = ? AND uses_left > 0 "
            "RETURNING uses_left",
            (row["id"],),
        )
        if after is None:
            return None
        left = int(after["uses_left"])
        if left == 0:
            await tx.execute("DELETE FROM pending_modifiers WHERE id = ? AND uses_left = 0", (row["id"],))
        return cls._applied(row, for_everyone=False, uses_left=left)

    @classmethod
    async def _take_everyone_use(cls, tx: Tx, row: Row, user_id: int) -> AppliedModifier | None:
        # from the modifier's row, so a modifier the GM cleared after the roll reserved it is no longer
        # taken (the roll keeps it, as it was pending when the roll began) instead of failing its FOREIGN KEY
        outcome = await tx.execute(
            "INSERT INTO modifier_uses (modifier_id, user_id, used) "
            "SELECT id, CAST(? AS BIGINT), 1 FROM pending_modifiers WHERE id = ? "
            "ON CONFLICT (modifier_id, user_id) DO UPDATE SET used = modifier_uses.used + 1 "
            "WHERE modifier_uses.used < ?",
            (user_id, row["id"], row["uses"]),
        )
        if outcome.rowcount != 1:
            return None
        used = await tx.one(
            "SELECT used FROM modifier_uses WHERE modifier_id = ? AND user_id = ?", (row["id"], user_id)
        )
        left = int(row["uses"]) - (int(used["used"]) if used else 0)
        return cls._applied(row, for_everyone=True, uses_left=left)

    @staticmethod
    def _applied(row: Row, *, for_everyone: bool, uses_left: int) -> AppliedModifier:
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
    ) -> list[Row]:
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

        async def work(tx: Tx) -> list[AppliedModifier]:
            found: list[AppliedModifier] = []
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

        return await self._db.run(work, write=False)

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
