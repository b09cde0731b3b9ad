"""Pending GM modifiers (GM-3): set for one player or everyone, consumed exactly once per use."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from bot.store._util import dumps, parse_time, validated
from bot.store.db import Database, Row, Tx
from bot.store.errors import InvalidData, NotFound
from bot.store.models import (
    REPLACING_KINDS,
    SYSTEMS,
    AppliedModifier,
    GuildSettings,
    PendingModifier,
    Sheet,
    Visibility,
)
from bot.store.settings import settings_from
from bot.store.sheets import SHEET_COLUMNS, sheet_from_row

log = logging.getLogger(__name__)

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

# what a roll needs of the GMs' state before it is rolled, in one read (`ModifierRepository.before_roll`)
_BEFORE_ROLL = (
    "SELECT (SELECT value FROM meta WHERE key = ?) AS kept, EXISTS (SELECT 1 FROM pending_modifiers "
    "WHERE channel_id = ? AND guild_id IS ? AND system = ?) AS pending, "
    "(SELECT data FROM guild_settings WHERE guild_id = ?) AS settings, "
    "(SELECT visibility FROM channel_settings WHERE channel_id = ? AND guild_id = ?) AS channel_visibility"
)
# the same, with the roller's active sheet of the system (its columns NULL when there is none)
_BEFORE_ROLL_WITH_SHEET = (
    f"{_BEFORE_ROLL}, {', '.join(f's.{column}' for column in SHEET_COLUMNS)} FROM (SELECT 1 AS one) AS r "
    "LEFT JOIN sheets AS s ON s.guild_id = ? AND s.owner_id = ? AND s.system = ? AND s.active = 1"
)

# A hold whose roll never reached its log write (the command failed in between, or its process died)
# stops counting after this many seconds; the uses were never taken from the database.
TICKET_TTL_S = 60.0
_HELD = "SELECT ticket, count(*) AS n FROM modifier_holds WHERE modifier_id = ? AND expires_at > ?"
_HELD_BY = _HELD + " AND user_id = ?"
_DROP_HOLDS = "DELETE FROM modifier_holds WHERE ticket = ?"


def _check_system(system: str) -> None:
    if system not in SYSTEMS:
        raise InvalidData(f"{system!r} is not one of the systems {', '.join(SYSTEMS)}.")


@dataclass(frozen=True)
class BeforeRoll:
    """What `ModifierRepository.before_roll` found."""

    kept: str | None  # the meta value at the key asked for
    modifiers_pending: bool  # a modifier is left for rolls of the system in the channel (anyone's)
    settings: GuildSettings | None  # the guild's settings (None in a DM: no guild)
    channel_visibility: Visibility = "public"  # the channel's default for rolls (public unless a GM set one)
    sheet_owner: int | None = None  # whose active sheet was read with it (None: no sheet was asked for)
    sheet_row: Row | None = field(default=None, repr=False)  # that sheet's row, None when there is none

    def active_sheet(self) -> Sheet | None:
        """The roller's active sheet of the system as read (parsed here: many rolls never look at it)."""
        return None if self.sheet_row is None else sheet_from_row(self.sheet_row)


@dataclass
class ModifierTicket:
    """Uses of pending modifiers reserved for one interaction's roll(s); taken when its log row is written.

    Each use is held by a row of ``modifier_holds`` under the ticket's ``token``, so rolls in other
    processes sharing the database see it too.
    """

    key: object
    uses: list[tuple[Row, int]] = field(default_factory=list)  # (modifier row, roller id)
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    created: float = field(default_factory=time.monotonic)
    settled: bool = False  # its holds are gone: taken with the log row, or given back

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


def applying(system: str, rows: list[tuple[Row, int]]) -> list[tuple[Row, int]]:
    """The modifiers that apply to one roll, of those it may use (each with its uses left): every one of an
    adding kind, one of each replacing kind (`REPLACING_KINDS`: the player's own, else everyone's, the
    latest set first). A replaced one keeps its use for a later roll."""
    replacing = REPLACING_KINDS.get(system, frozenset())
    best: dict[str, Row] = {}
    for row, _ in rows:
        kind = row["kind"]
        if kind in replacing:
            rank = (row["target_user_id"] is not None, row["id"])
            held = best.get(kind)
            if held is None or rank > (held["target_user_id"] is not None, held["id"]):
                best[kind] = row
    return [(row, left) for row, left in rows if row["kind"] not in replacing or best[row["kind"]] is row]


class ModifierRepository:
    """Modifiers a GM left pending in a channel, per system."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # this process's interactions' tickets, by interaction: what `publish` hands to the log write
        self._tickets: dict[object, ModifierTicket] = {}
        self._giving_back: dict[asyncio.Task[Any], str] = {}  # deletes of released holds, with their token

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
        """Take one use of every modifier matching this player's roll, atomically and exactly once (GM-3);
        a use another roll holds is not taken."""
        params = self._roll_params(guild_id, channel_id, system, user_id)
        if not await self._db.all(_PENDING_FOR_ROLL, params):
            return []

        async def work(tx: Tx) -> list[AppliedModifier]:
            taken: list[AppliedModifier] = []
            for row, _ in await self._free(tx, params, user_id):
                use = await self._take(tx, row, user_id)
                if use is not None:
                    taken.append(use)
            return taken

        return await self._db.run(work)

    async def before_roll(
        self,
        guild_id: int | None,
        channel_id: int,
        system: str,
        *,
        kept_key: str,
        sheet_owner: int | None = None,
    ) -> BeforeRoll:
        """What a roll needs of the GMs' state before it is rolled, in one read: the meta value at
        ``kept_key`` (where the UI keeps a player's accepted blind-roll request), whether any modifier
        is pending for ``system`` in the channel (a roll that found none has nothing to `reserve`), the
        guild's settings and the channel's default visibility; with ``sheet_owner``, that player's active
        sheet of ``system`` in the guild too (the roll's usual next read)."""
        _check_system(system)
        params = (kept_key, channel_id, guild_id, system, guild_id, channel_id, guild_id)
        if sheet_owner is None:
            row = await self._db.one(_BEFORE_ROLL, params, short=True)
        else:  # sheets are keyed by guild 0 in DMs
            row = await self._db.one(
                _BEFORE_ROLL_WITH_SHEET, (*params, guild_id or 0, sheet_owner, system), short=True
            )
        assert row is not None  # one row: a SELECT without FROM, or a LEFT JOIN to a one-row table
        kept = row["kept"]
        settings = None if guild_id is None else settings_from(guild_id, row["settings"])
        sheet_row = row if sheet_owner is not None and row["id"] is not None else None
        visibility: Visibility = row["channel_visibility"] or "public"
        return BeforeRoll(
            None if kept is None else str(kept),
            bool(row["pending"]),
            settings,
            visibility,
            sheet_owner,
            sheet_row,
        )

    async def reserve(
        self,
        key: object,
        guild_id: int | None,
        channel_id: int,
        system: str,
        user_id: int,
        *,
        waiting: frozenset[str] = frozenset(),
        everyone_only: bool = False,
    ) -> list[AppliedModifier]:
        """Hold one use of every modifier matching this roll under ``key`` (GM-3), in the database; those of
        a kind in ``waiting`` (one that would change nothing: an advantage the player already has) wait,
        and with ``everyone_only`` (a member's roll in a contest another player runs) so do their own.

        The uses are taken by the `taker` step inside the unit of work that logs the roll
        (``RollLogRepository.add(record, modifiers=ticket)``), so a roll is never half-applied. Until then
        no other roll, in this process or another on the same database, can hold the same use; ``release``
        gives them back (and a hold left by a process that died expires after `TICKET_TTL_S`).
        """
        params = self._roll_params(guild_id, channel_id, system, user_id)
        # Most rolls find none: nothing to hold, so nothing to write.
        if not await self._db.all(_PENDING_FOR_ROLL, params):
            return []
        self._prune()
        ticket = self._tickets.get(key) or ModifierTicket(key)
        token = ticket.token

        async def hold(tx: Tx) -> list[tuple[Row, int]]:
            free = [
                (row, left)
                for row, left in await self._free(tx, params, user_id)
                if row["kind"] not in waiting and not (everyone_only and row["target_user_id"] is not None)
            ]
            expires = time.time() + TICKET_TTL_S
            if free:
                await tx.executemany(
                    "INSERT INTO modifier_holds (modifier_id, user_id, ticket, expires_at) "
                    "VALUES (?, ?, ?, ?)",
                    [(row["id"], user_id, token, expires) for row, _ in free],
                )
            return free

        held = await self._db.run(hold)
        if not held:
            return []
        ticket.uses.extend((row, user_id) for row, _ in held)
        self._tickets[key] = ticket
        return [
            self._applied(row, for_everyone=row["target_user_id"] is None, uses_left=left - 1)
            for row, left in held
        ]

    @staticmethod
    def _roll_params(
        guild_id: int | None, channel_id: int, system: str, user_id: int
    ) -> tuple[int, int, int | None, str]:
        _check_system(system)
        return (user_id, channel_id, guild_id, system)

    async def _free(
        self, tx: Tx, params: tuple[int, int, int | None, str], user_id: int
    ) -> list[tuple[Row, int]]:
        """The modifiers this roll can use, each with its uses left once the other rolls' holds are counted
        (one player's: the uses left; everyone's: this player's uses left)."""
        now, given_back = time.time(), set(self._giving_back.values())
        free: list[tuple[Row, int]] = []
        for row in await tx.all(_PENDING_FOR_ROLL, params):
            everyone = row["target_user_id"] is None
            if not everyone and row["target_user_id"] != user_id:
                continue
            stored_left = int(row["uses"]) - int(row["used"]) if everyone else int(row["uses_left"])
            if stored_left <= 0:
                continue
            held = await (
                tx.all(_HELD_BY + " GROUP BY ticket", (row["id"], now, user_id))
                if everyone
                else tx.all(_HELD + " GROUP BY ticket", (row["id"], now))
            )
            # holds this process has given back but not yet deleted count for nothing
            left = stored_left - sum(int(h["n"]) for h in held if h["ticket"] not in given_back)
            if left > 0:
                free.append((row, left))
        return applying(params[3], free)

    def ticket(self, key: object) -> ModifierTicket | None:
        """The uses reserved under ``key`` (handed to the log write that takes them), or None."""
        return self._tickets.get(key)

    def release(self, ticket: ModifierTicket | None) -> None:
        """Give reserved uses back without taking them (the roll was not logged); nothing once they were
        taken. The holds are deleted in the background (a synchronous call: the error paths use it)."""
        if ticket is None:
            return
        if self._tickets.get(ticket.key) is ticket:
            del self._tickets[ticket.key]
        if ticket.settled or not ticket.uses:
            return
        ticket.settled = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: the holds expire on their own
            return
        task = loop.create_task(self._db.execute(_DROP_HOLDS, (ticket.token,)))
        self._giving_back[task] = ticket.token
        task.add_done_callback(self._given_back)

    def _given_back(self, task: asyncio.Task[Any]) -> None:
        self._giving_back.pop(task, None)
        if not task.cancelled() and task.exception() is not None:
            log.warning("Could not give back a roll's modifier holds (they expire): %s", task.exception())

    async def given_back(self) -> None:
        """Wait until every hold `release` is giving back in the background is deleted (or failed)."""
        while self._giving_back:
            await asyncio.gather(*list(self._giving_back), return_exceptions=True)

    async def close(self) -> None:
        """Wait for the holds being given back (before the database closes)."""
        await self.given_back()

    @asynccontextmanager
    async def settling(self, ticket: ModifierTicket | None) -> AsyncIterator[None]:
        """Around the transaction that takes the ticket's uses: once it has committed, the ticket is done.

        On failure it stays for a retry (a sustained check that lost a race), its holds still in place;
        the caller releases it when it gives up.
        """
        if not ticket:
            self.release(ticket)
            yield
            return
        yield
        ticket.settled = True
        self._tickets.pop(ticket.key, None)

    def taker(self, ticket: ModifierTicket | None) -> Callable[[Tx], Awaitable[list[AppliedModifier]]]:
        """A step for the unit of work that logs the roll: it takes the ticket's reserved uses and ends its
        holds. Each use is taken exactly once, guarded in SQL; the step returns the uses it took."""
        uses = list(ticket.uses) if ticket else []
        token = ticket.token if ticket else ""

        async def take(tx: Tx) -> list[AppliedModifier]:
            taken: list[AppliedModifier] = []
            for row, user_id in uses:
                use = await self._take(tx, row, user_id)
                if use is not None:
                    taken.append(use)
            if uses:
                await tx.execute(_DROP_HOLDS, (token,))
            return taken

        return take

    @classmethod
    async def _take(cls, tx: Tx, row: Row, user_id: int) -> AppliedModifier | None:
        if row["target_user_id"] is None:
            return await cls._take_everyone_use(tx, row, user_id)
        return await cls._take_player_use(tx, row)

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
            found: list[tuple[Row, int]] = []
            for row in await self._matching(tx, guild_id, channel_id, system, user_id):
                if row["target_user_id"] is not None:
                    found.append((row, int(row["uses_left"])))
                    continue
                used = await tx.one(
                    "SELECT used FROM modifier_uses WHERE modifier_id = ? AND user_id = ?",
                    (row["id"], user_id),
                )
                left = int(row["uses"]) - (int(used["used"]) if used else 0)
                if left > 0:
                    found.append((row, left))
            return [
                self._applied(row, for_everyone=row["target_user_id"] is None, uses_left=left)
                for row, left in applying(system, found)
            ]

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
