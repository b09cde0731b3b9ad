"""Second tries a GM granted after a failed RPS check (RPS-9): granted once per check, taken once.

A grant is keyed by the failed check's log row, so two GMs (or a double click) granting the same check
make one grant. Taking it is one transaction with the try's own log row and the GM modifier uses it took:
of two clicks at once, one rolls and the other is refused (`Conflict`) with nothing written.
"""

from __future__ import annotations

import sqlite3

from bot.store._util import now_text, parse_time, validated
from bot.store.db import Database, Tx
from bot.store.errors import Conflict, NotFound
from bot.store.log import RollLogRepository
from bot.store.models import RollRecord, SecondTry
from bot.store.modifiers import ModifierRepository, ModifierTicket

_COLUMNS = "log_id, guild_id, channel_id, roller_id, modifier, granted_by, granted_at, used_log_id, used_at"


def _second_try(row: sqlite3.Row) -> SecondTry:
    return SecondTry(
        log_id=row["log_id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        roller_id=row["roller_id"],
        modifier=row["modifier"],
        granted_by=row["granted_by"],
        granted_at=parse_time(row["granted_at"]),
        used_log_id=row["used_log_id"],
        used_at=parse_time(row["used_at"]) if row["used_at"] else None,
    )


class SecondTryRepository:
    """Grants of second tries, by the log id of the failed check they retry."""

    def __init__(self, db: Database, log: RollLogRepository, modifiers: ModifierRepository) -> None:
        self._db = db
        self._log = log
        self._modifiers = modifiers

    async def grant(self, grant: SecondTry) -> bool:
        """Store ``grant``; False (and nothing written) when that check already has one."""
        grant = validated(lambda: SecondTry.model_validate(grant.__dict__), "Second try")
        outcome = await self._db.execute(
            f"INSERT INTO second_tries ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL) "
            "ON CONFLICT (log_id) DO NOTHING",
            (
                grant.log_id,
                grant.guild_id,
                grant.channel_id,
                grant.roller_id,
                grant.modifier,
                grant.granted_by,
                grant.granted_at.isoformat(),
            ),
        )
        return outcome.rowcount == 1

    async def get(self, log_id: int) -> SecondTry | None:
        """The grant on the failed check ``log_id``, or None."""
        row = await self._db.one(f"SELECT {_COLUMNS} FROM second_tries WHERE log_id = ?", (log_id,))
        return None if row is None else _second_try(row)

    async def withdraw(self, log_id: int) -> bool:
        """Take back a grant nobody has taken (its message could not be posted); True if it was there."""
        outcome = await self._db.execute(
            "DELETE FROM second_tries WHERE log_id = ? AND used_at IS NULL", (log_id,)
        )
        return outcome.rowcount == 1

    async def take_logged(
        self, log_id: int, roller_id: int, record: RollRecord, modifiers: ModifierTicket | None = None
    ) -> int:
        """Mark the grant taken, with the try's log row and the GM modifier uses it took, in one
        transaction; the try's log id. `Conflict` (nothing written) when it was taken already, `NotFound`
        when there is no such grant for ``roller_id``."""
        insert, take = self._log.inserter(record), self._modifiers.taker(modifiers)

        async def work(tx: Tx) -> int:
            claimed = await tx.execute(
                "UPDATE second_tries SET used_at = ? WHERE log_id = ? AND roller_id = ? AND used_at IS NULL",
                (now_text(), log_id, roller_id),
            )
            if claimed.rowcount != 1:
                if await tx.one("SELECT 1 FROM second_tries WHERE log_id = ? AND roller_id = ?",
                                (log_id, roller_id)) is None:  # fmt: skip
                    raise NotFound("There is no second try granted for that check.")
                raise Conflict("That second try was already taken.")
            await take(tx)
            used = await insert(tx)
            await tx.execute("UPDATE second_tries SET used_log_id = ? WHERE log_id = ?", (used, log_id))
            return used

        try:
            async with self._modifiers.settling(modifiers):
                return await self._db.run(work)
        except BaseException:
            self._modifiers.release(modifiers)
            raise
