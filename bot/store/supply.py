"""Supply dice (DD-7): one die per character and item, d12 -> d10 -> d8 -> d6 -> d4 -> empty.

A supply is a character's (a name, keyed as names are) or the member's own (`Holder.own`, for a member
with no decision sheet): an own supply's key is '', which no name keys to, so it follows the member's id
whatever their display name (migration 0007)."""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from bot.store._util import now_text, parse_time
from bot.store.db import Database, Outcome, Row, Tx
from bot.store.errors import Conflict, InvalidData, NotFound
from bot.store.models import (
    MAX_NAME,
    SUPPLY_DICE,
    Holder,
    RollRecord,
    SupplyDie,
    name_key,
    next_supply_die,
)

if TYPE_CHECKING:
    from bot.store.log import RollLogRepository

_COLUMNS = "guild_id, owner_id, character, character_key, item, die, updated_at"
OWN_KEY = ""  # the member's own supplies: no name keys to ''
Character = str | Holder  # a plain name is a character's
_WHERE = "guild_id = ? AND owner_id = ? AND character_key = ? AND item_key = ?"


def _supply(row: Row, holder: Holder | None = None) -> SupplyDie:
    own = row["character_key"] == OWN_KEY
    return SupplyDie(
        guild_id=row["guild_id"],
        owner_id=row["owner_id"],
        character=holder.name.strip() if own and holder is not None else row["character"],
        item=row["item"],
        die=row["die"],
        updated_at=parse_time(row["updated_at"]),
        own=own,
    )


def _holder(character: Character) -> Holder:
    return character if isinstance(character, Holder) else Holder(character)


def _character_key(character: Character) -> str:
    holder = _holder(character)
    named = name_key(_name(holder.name, "character"))  # an own supply's name is checked all the same
    return OWN_KEY if holder.own else named


def _none_of(character: Character, item: str) -> NotFound:
    return NotFound(f"{_holder(character).name.strip()} has no supply of {item.strip()}; a GM can set one.")


def _label(die: int) -> str:
    return "empty" if die == 0 else f"d{die}"


def _name(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidData(f"Give the {what} a name (1 to {MAX_NAME} characters).")
    if len(value.strip()) > MAX_NAME:
        raise InvalidData(f"The {what} name is {len(value.strip())} characters long; at most {MAX_NAME}.")
    return value.strip()


def _die(die: int) -> int:
    if isinstance(die, bool) or die not in SUPPLY_DICE:
        raise InvalidData(f"A supply die is d12, d10, d8, d6, d4 or 0 (empty), not {die!r}.")
    return die


class SupplyRepository:
    """Characters' supply dice."""

    def __init__(self, db: Database, log: RollLogRepository | None = None) -> None:
        self._db = db
        self._log = log

    def _key(
        self, guild_id: int, owner_id: int, character: Character, item: str
    ) -> tuple[int, int, str, str]:
        return guild_id, owner_id, _character_key(character), name_key(_name(item, "item"))

    async def get(self, guild_id: int, owner_id: int, character: Character, item: str) -> SupplyDie:
        """The character's supply die for ``item`` (any case)."""
        row = await self._db.one(
            f"SELECT {_COLUMNS} FROM supply_dice WHERE {_WHERE}",
            self._key(guild_id, owner_id, character, item),
        )
        if row is None:
            raise _none_of(character, item)
        return _supply(row, _holder(character))

    async def list(
        self, guild_id: int, owner_id: int, character: Character | None = None
    ) -> builtins.list[SupplyDie]:
        """The owner's supplies (optionally one character's), by character then item."""
        sql = f"SELECT {_COLUMNS} FROM supply_dice WHERE guild_id = ? AND owner_id = ?"
        params: builtins.list[object] = [guild_id, owner_id]
        if character is not None:
            sql += " AND character_key = ?"
            params.append(_character_key(character))
        rows = await self._db.all(sql + " ORDER BY character_key, item_key", params)
        holder = None if character is None else _holder(character)
        return [_supply(row, holder) for row in rows]

    async def set(
        self,
        guild_id: int,
        owner_id: int,
        character: Character,
        item: str,
        die: int,
        *,
        replaces: Character | None = None,
    ) -> SupplyDie:
        """Set or restore the supply die (the GM's call, DD-7): 12, 10, 8, 6, 4 or 0 for empty.
        ``replaces``: another supply of the item the owner could roll instead (their own, once they have a
        sheet), forgotten in the same transaction, so the GM's die is the only one left to roll."""
        key = self._key(guild_id, owner_id, character, item)
        other = self._key(guild_id, owner_id, replaces, item) if replaces is not None else None

        async def work(tx: Tx) -> Row | None:
            await tx.execute(
                "INSERT INTO supply_dice (guild_id, owner_id, character, character_key, item, item_key, die, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, owner_id, character_key, "
                "item_key) DO UPDATE SET character = excluded.character, item = excluded.item, "
                "die = excluded.die, updated_at = excluded.updated_at",
                (
                    guild_id,
                    owner_id,
                    _holder(character).name.strip(),
                    key[2],
                    item.strip(),
                    key[3],
                    _die(die),
                    now_text(),
                ),
            )
            if other is not None and other != key:
                await tx.execute(f"DELETE FROM supply_dice WHERE {_WHERE}", other)
            return await tx.one(f"SELECT {_COLUMNS} FROM supply_dice WHERE {_WHERE}", key)

        row = await self._db.run(work)
        assert row is not None
        return _supply(row, _holder(character))

    async def step(
        self, guild_id: int, owner_id: int, character: Character, item: str, expected_die: int
    ) -> SupplyDie:
        """Step the die down one size if it is still ``expected_die`` (one statement); Conflict otherwise."""
        if _die(expected_die) == 0:
            raise InvalidData(f"{item.strip()} is empty and cannot be rolled; a GM can restore it.")
        key = self._key(guild_id, owner_id, character, item)

        async def work(tx: Tx) -> tuple[Outcome, Row | None]:
            outcome = await tx.execute(
                f"UPDATE supply_dice SET die = ?, updated_at = ? WHERE {_WHERE} AND die = ?",
                (next_supply_die(expected_die), now_text(), *key, expected_die),
            )
            return outcome, await tx.one(f"SELECT {_COLUMNS} FROM supply_dice WHERE {_WHERE}", key)

        outcome, row = await self._db.run(work)
        if row is None:
            raise _none_of(character, item)
        if outcome.rowcount != 1:
            raise Conflict(
                f"{item.strip()} is now a {_label(row['die'])}, not a {_label(expected_die)}: "
                "someone rolled it first; roll again."
            )
        return _supply(row, _holder(character))

    async def apply_roll(
        self, guild_id: int, owner_id: int, character: Character, item: str, expected_die: int, result: int
    ) -> SupplyDie:
        """Record a supply roll of the ``expected_die``: 3 or lower steps it down (DD-7), atomically."""
        if _die(expected_die) == 0:
            raise InvalidData(f"{item.strip()} is empty and cannot be rolled; a GM can restore it.")
        if isinstance(result, bool) or not isinstance(result, int) or not 1 <= result <= max(1, expected_die):
            raise InvalidData(
                f"A roll of a {_label(expected_die)} shows 1 to {expected_die}, not {result!r}."
            )
        if result <= 3:
            return await self.step(guild_id, owner_id, character, item, expected_die)
        current = await self.get(guild_id, owner_id, character, item)
        if current.die != expected_die:
            raise Conflict(
                f"{item.strip()} is now a {current.label}, not a {_label(expected_die)}: "
                "someone rolled it first; roll again."
            )
        return current

    async def apply_roll_logged(
        self,
        guild_id: int,
        owner_id: int,
        character: Character,
        item: str,
        expected_die: int,
        result: int,
        log: RollRecord,
    ) -> tuple[SupplyDie, int]:
        """``apply_roll`` and its log row in one transaction (DD-7): both or neither; returns the log id."""
        if self._log is None:
            raise InvalidData("This supply repository was opened without a roll log.")
        if _die(expected_die) == 0:
            raise InvalidData(f"{item.strip()} is empty and cannot be rolled; a GM can restore it.")
        if isinstance(result, bool) or not isinstance(result, int) or not 1 <= result <= max(1, expected_die):
            raise InvalidData(
                f"A roll of a {_label(expected_die)} shows 1 to {expected_die}, not {result!r}."
            )
        key = self._key(guild_id, owner_id, character, item)
        insert = self._log.inserter(log)

        async def work(tx: Tx) -> tuple[Row, int]:
            changed = 0
            if result <= 3:
                outcome = await tx.execute(
                    f"UPDATE supply_dice SET die = ?, updated_at = ? WHERE {_WHERE} AND die = ?",
                    (next_supply_die(expected_die), now_text(), *key, expected_die),
                )
                changed = outcome.rowcount
            row = await tx.one(f"SELECT {_COLUMNS} FROM supply_dice WHERE {_WHERE}", key)
            if row is None:
                raise _none_of(character, item)
            expected_now = next_supply_die(expected_die) if result <= 3 else expected_die
            if (result <= 3 and changed != 1) or row["die"] != expected_now:
                raise Conflict(
                    f"{item.strip()} is now a {_label(row['die'])}, not a {_label(expected_die)}: "
                    "someone rolled it first; roll again."
                )
            return row, await insert(tx)

        row, log_id = await self._db.run(work)
        return _supply(row, _holder(character)), log_id

    async def delete(self, guild_id: int, owner_id: int, character: Character, item: str) -> bool:
        """Forget the supply; False if there was none."""
        outcome = await self._db.execute(
            f"DELETE FROM supply_dice WHERE {_WHERE}", self._key(guild_id, owner_id, character, item)
        )
        return outcome.rowcount > 0
