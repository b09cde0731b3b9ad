"""Sustained-action pools (RPS-8): several per channel by name; each check is logged with its delta."""

from __future__ import annotations

import builtins
import functools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.store._util import dumps, now_text, parse_time, validated
from bot.store.db import Database, Row, Tx
from bot.store.errors import Conflict, InvalidData, NotFound
from bot.store.models import (
    MAX_BASE_PARTS,
    MAX_NAME,
    MAX_POOL_CHECKS,
    BaseTerm,
    Pool,
    PoolCheck,
    PoolState,
    RollRecord,
    name_key,
)

if TYPE_CHECKING:
    from bot.store.log import RollLogRepository
    from bot.store.modifiers import ModifierRepository, ModifierTicket

_COLUMNS = (
    "id, guild_id, channel_id, owner_id, name, skill, goal, base, time_per_check, time_unit, no_loss, pool, "
    "checks_made, checks, state, message_id, created_at, updated_at, base_parts"
)
_STATES: tuple[PoolState, ...] = ("running", "completed", "failed", "stopped")
MAX_GOAL = 10_000
MAX_BASE = 1_000
MAX_TIME = 1_000_000


def _pool(row: Row) -> Pool:
    return Pool(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        owner_id=row["owner_id"],
        name=row["name"],
        skill=row["skill"],
        goal=row["goal"],
        base=row["base"],
        time_per_check=row["time_per_check"],
        time_unit=row["time_unit"],
        no_loss=bool(row["no_loss"]),
        pool=row["pool"],
        checks_made=row["checks_made"],
        checks=tuple(PoolCheck.model_validate(c) for c in json.loads(row["checks"])),
        state=row["state"],
        message_id=row["message_id"],
        created_at=parse_time(row["created_at"]),
        updated_at=parse_time(row["updated_at"]),
        base_parts=tuple(BaseTerm.model_validate(p) for p in json.loads(row["base_parts"])),
    )


def _whole(value: object, low: int, high: int, sentence: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidData(sentence)
    return value


class PoolRepository:
    """Sustained actions in progress and finished, per channel."""

    def __init__(
        self, db: Database, log: RollLogRepository | None = None, modifiers: ModifierRepository | None = None
    ) -> None:
        self._db = db
        self._log = log
        self._modifiers = modifiers

    async def start(
        self,
        guild_id: int | None,
        channel_id: int,
        owner_id: int,
        name: str,
        goal: int,
        base: int,
        time_per_check: int,
        time_unit: str = "minutes",
        no_loss: bool = False,
        skill: str | None = None,
        message_id: int | None = None,
        base_parts: Sequence[BaseTerm] = (),
    ) -> Pool:
        """Start a sustained action (RPS-8) at pool 0; its name is unique among the channel's running ones.

        ``base_parts``: how ``base`` was built (skill, attribute, modifiers), shown with each check.
        """
        if not isinstance(name, str) or not 1 <= len(name.strip()) <= MAX_NAME:
            raise InvalidData(f"A sustained action's name is 1 to {MAX_NAME} characters.")
        _whole(
            goal,
            1,
            MAX_GOAL,
            f"A sustained action's goal is a whole number from 1 to {MAX_GOAL}, not {goal!r}.",
        )
        _whole(base, -MAX_BASE, MAX_BASE, f"A base runs from -{MAX_BASE} to {MAX_BASE}, not {base!r}.")
        _whole(
            time_per_check,
            1,
            MAX_TIME,
            f"The time per check is a whole number from 1 to {MAX_TIME}, not {time_per_check!r}.",
        )
        if not isinstance(time_unit, str) or not 1 <= len(time_unit.strip()) <= 20:
            raise InvalidData("The time unit is a word of 1 to 20 characters, such as minutes.")
        if skill is not None and (not isinstance(skill, str) or not 1 <= len(skill.strip()) <= MAX_NAME):
            raise InvalidData(f"A skill name is 1 to {MAX_NAME} characters.")
        if not isinstance(no_loss, bool):
            raise InvalidData("No loss is yes or no.")
        if len(base_parts) > MAX_BASE_PARTS:
            raise InvalidData(f"A Base is built from at most {MAX_BASE_PARTS} parts.")
        parts = [validated(functools.partial(BaseTerm.model_validate, p), "Base part") for p in base_parts]
        parts_text = dumps([part.model_dump(mode="json") for part in parts])
        stamp = now_text()

        async def work(tx: Tx) -> Row | None:
            taken = await tx.one(
                "SELECT 1 FROM pools WHERE channel_id = ? AND name_key = ? AND state = 'running'",
                (channel_id, name_key(name)),
            )
            if taken:
                raise Conflict(
                    f"A sustained action named {name.strip()!r} is already running here; stop it first."
                )
            return await tx.one(
                "INSERT INTO pools (guild_id, channel_id, owner_id, name, name_key, skill, goal, base, "
                "time_per_check, time_unit, no_loss, pool, checks_made, checks, state, message_id, "
                "created_at, updated_at, base_parts) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, '[]', 'running', ?, ?, ?, ?) "
                f"RETURNING {_COLUMNS}",
                (
                    guild_id,
                    channel_id,
                    owner_id,
                    name.strip(),
                    name_key(name),
                    skill.strip() if skill else None,
                    goal,
                    base,
                    time_per_check,
                    time_unit.strip(),
                    int(no_loss),
                    message_id,
                    stamp,
                    stamp,
                    parts_text,
                ),
            )

        row = await self._db.run(work)
        assert row is not None
        return _pool(row)

    async def get(self, guild_id: int | None, channel_id: int, name: str) -> Pool:
        """The channel's running sustained action ``name`` (else the latest finished one of that name)."""
        row = await self._db.one(
            f"SELECT {_COLUMNS} FROM pools WHERE channel_id = ? AND guild_id IS ? AND name_key = ? "
            "ORDER BY state = 'running' DESC, id DESC LIMIT 1",
            (channel_id, guild_id, name_key(name)),
        )
        if row is None:
            raise NotFound(f"There is no sustained action named {name.strip()!r} in this channel.")
        return _pool(row)

    async def get_by_id(self, pool_id: int) -> Pool:
        """A sustained action by id."""
        row = await self._db.one(f"SELECT {_COLUMNS} FROM pools WHERE id = ?", (pool_id,))
        if row is None:
            raise NotFound(f"There is no sustained action {pool_id}.")
        return _pool(row)

    async def list(
        self, guild_id: int | None, channel_id: int, running_only: bool = True
    ) -> builtins.list[Pool]:
        """The channel's sustained actions (running ones only, unless asked), oldest first."""
        sql = f"SELECT {_COLUMNS} FROM pools WHERE channel_id = ? AND guild_id IS ?"
        if running_only:
            sql += " AND state = 'running'"
        rows = await self._db.all(sql + " ORDER BY id", (channel_id, guild_id))
        return [_pool(row) for row in rows]

    async def add_check(
        self, pool_id: int, expected_checks: int, check: PoolCheck, state: PoolState = "running"
    ) -> Pool:
        """Log one check and add its delta to the pool if no other check came first (Conflict otherwise).

        The core decides the check's delta and the action's new state (RPS-8); the store keeps
        pool == sum of logged deltas and checks_made == number of logged checks, in one transaction.
        """
        check = self._check(check, state)
        return await self._db.run(lambda tx: self._add_check(tx, pool_id, expected_checks, check, state))

    async def add_check_logged(
        self,
        pool_id: int,
        expected_checks: int,
        check: PoolCheck,
        state: PoolState,
        log: RollRecord,
        modifiers: ModifierTicket | None = None,
    ) -> tuple[Pool, int]:
        """``add_check``, its log row and the GM modifier uses it took, in one transaction; the log id."""
        if self._log is None or self._modifiers is None:
            raise InvalidData("This pool repository was opened without a roll log.")
        check = self._check(check, state)
        take, insert = self._modifiers.taker(modifiers), self._log.inserter(log)

        async def work(tx: Tx) -> tuple[Pool, int]:
            await take(tx)
            pool = await self._add_check(tx, pool_id, expected_checks, check, state)
            return pool, await insert(tx)

        try:
            async with self._modifiers.settling(modifiers):
                pool, log_id = await self._db.run(work)
        except Conflict:
            raise  # the caller may retry on the fresh pool with the same reserved uses (then releases them)
        except BaseException:
            self._modifiers.release(modifiers)
            raise
        return pool, log_id

    @staticmethod
    def _check(check: PoolCheck, state: str) -> PoolCheck:
        if not isinstance(check, PoolCheck):
            check = validated(lambda: PoolCheck.model_validate(check), "Check")
        if state not in _STATES:
            raise InvalidData(f"A sustained action's state is one of {', '.join(_STATES)}, not {state!r}.")
        return check

    @staticmethod
    async def _add_check(tx: Tx, pool_id: int, expected_checks: int, check: PoolCheck, state: str) -> Pool:
        row = await tx.one(f"SELECT {_COLUMNS} FROM pools WHERE id = ?", (pool_id,))
        if row is None:
            raise NotFound(f"There is no sustained action {pool_id}.")
        if row["state"] != "running":
            raise Conflict(f"The sustained action {row['name']!r} is {row['state']}; no more checks.")
        if row["checks_made"] != expected_checks:
            raise Conflict("Another check was made on this sustained action first; nothing was added.")
        if row["checks_made"] >= MAX_POOL_CHECKS:
            raise InvalidData(f"A sustained action takes at most {MAX_POOL_CHECKS} checks; stop this one.")
        logged = json.loads(row["checks"])
        logged.append(check.model_dump(mode="json"))
        outcome = await tx.execute(
            "UPDATE pools SET pool = pool + ?, checks_made = checks_made + 1, checks = ?, state = ?, "
            "updated_at = ? WHERE id = ? AND checks_made = ? AND state = 'running'",
            (check.delta, dumps(logged), state, now_text(), pool_id, expected_checks),
        )
        if outcome.rowcount != 1:
            raise Conflict("Another check was made on this sustained action first; nothing was added.")
        updated = await tx.one(f"SELECT {_COLUMNS} FROM pools WHERE id = ?", (pool_id,))
        assert updated is not None
        return _pool(updated)

    async def stop(self, pool_id: int) -> Pool:
        """Stop a running sustained action (the GM's call); a finished one is returned unchanged."""

        async def work(tx: Tx) -> Row | None:
            await tx.execute(
                "UPDATE pools SET state = 'stopped', updated_at = ? WHERE id = ? AND state = 'running'",
                (now_text(), pool_id),
            )
            return await tx.one(f"SELECT {_COLUMNS} FROM pools WHERE id = ?", (pool_id,))

        row = await self._db.run(work)
        if row is None:
            raise NotFound(f"There is no sustained action {pool_id}.")
        return _pool(row)

    async def set_message_id(self, pool_id: int, message_id: int) -> None:
        """Remember which message shows the pool."""
        outcome = await self._db.execute(
            "UPDATE pools SET message_id = ? WHERE id = ?", (message_id, pool_id)
        )
        if outcome.rowcount == 0:
            raise NotFound(f"There is no sustained action {pool_id}.")
