"""The roll log per channel: who rolled what, with which inputs and dice, and the result."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal

from bot.store._util import dumps, json_column, now_text, parse_time, validated
from bot.store.db import Database, Params, Row, Tx
from bot.store.errors import InvalidData, NotFound
from bot.store.models import MAX_LOG_JSON, RollRecord
from bot.store.modifiers import ModifierRepository, ModifierTicket

_COLUMNS = (
    "id, guild_id, channel_id, user_id, system, command, visibility, inputs, dice, result, summary, "
    "created_at, revealed_by, revealed_at"
)
_INSERT = (
    f"INSERT INTO rolls ({_COLUMNS.removeprefix('id, ')}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "RETURNING id"
)
_NAMES = tuple(name.strip() for name in _COLUMNS.split(","))
MAX_LAST = 500
ExportFormat = Literal["jsonl", "csv"]
CSV_FIELDS = (
    "id", "guild_id", "channel_id", "user_id", "system", "command", "visibility", "inputs", "dice", "result",
    "summary", "created_at", "revealed_by", "revealed_at",
)  # fmt: skip


def _record(row: Row | Mapping[str, Any]) -> RollRecord:
    return RollRecord(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        user_id=row["user_id"],
        system=row["system"],
        command=row["command"],
        visibility=row["visibility"],
        inputs=json.loads(row["inputs"]),
        dice=json.loads(row["dice"]),
        result=row["result"],
        summary=row["summary"],
        created_at=parse_time(row["created_at"]),
        revealed_by=row["revealed_by"],
        revealed_at=parse_time(row["revealed_at"]) if row["revealed_at"] else None,
    )


def export_text(rows: Sequence[Sequence[Any]], fmt: ExportFormat, header: bool = True) -> str:
    """Logged rows, as `RollLogRepository.export_rows` reads them, as JSON lines (one object per roll) or
    CSV (with its header row when ``header``)."""
    return b"".join(export_pieces(rows, fmt, header)).decode("utf-8")


def export_pieces(rows: Sequence[Sequence[Any]], fmt: ExportFormat, header: bool = True) -> list[bytes]:
    """`export_text` as UTF-8, one piece per roll (the CSV header its own first piece), so a file cut to a
    size keeps whole rolls. Pure work that takes a while for a long log: the bot runs it in a worker
    process, a slice of the rows at a time."""
    if fmt not in ("jsonl", "csv"):
        raise InvalidData(f"The log exports as jsonl or csv, not {fmt!r}.")
    records = [_record(dict(zip(_NAMES, row, strict=True))).model_dump(mode="json") for row in rows]
    if fmt == "jsonl":
        return [(dumps(record) + "\n").encode("utf-8") for record in records]
    out = io.StringIO()
    # RFC 4180 line ends: a cell holding a lone CR is then quoted too (with LF alone it broke the row)
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\r\n")
    pieces: list[bytes] = []

    def take() -> None:
        pieces.append(out.getvalue().encode("utf-8"))
        out.seek(0)
        out.truncate()

    if header:
        writer.writeheader()
        take()
    for record in records:
        writer.writerow(
            {
                k: dumps(v) if isinstance(v, dict | list) else ("" if v is None else _inert(v))
                for k, v in record.items()
            }
        )
        take()
    return pieces


def _inert(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula (a player's skill named ``=HYPERLINK(..)`` in a
    summary) starts with a quote, as OWASP advises for CSV files; numbers stay numbers."""
    if isinstance(value, str) and value[:1] in _FORMULA_STARTS:
        return "'" + value
    return value


_FORMULA_STARTS = frozenset("=+-@\t\r")


def _log_id(row: Row | None) -> int:
    """The id of the row an INSERT into rolls made (its RETURNING row)."""
    assert row is not None
    return int(row["id"])


class RollLogRepository:
    """Every roll, per channel, queryable for the last N and exportable."""

    def __init__(self, db: Database, modifiers: ModifierRepository | None = None) -> None:
        self._db = db
        self._modifiers = modifiers if modifiers is not None else ModifierRepository(db)

    async def add(self, record: RollRecord, *, modifiers: ModifierTicket | None = None) -> int:
        """Append a roll to its channel's log; returns its id.

        ``modifiers``: GM modifier uses reserved for this roll, taken in the same unit of work as the log
        row (GM-3), so a failure leaves both untouched.
        """
        if not modifiers:
            self._modifiers.release(modifiers)
            return _log_id(await self._db.one(_INSERT, self.row_params(record)))
        insert = self.inserter(record)
        take = self._modifiers.taker(modifiers)

        async def work(tx: Tx) -> int:
            await take(tx)
            return await insert(tx)

        async with self._modifiers.settling(modifiers):
            return await self._db.run(work)

    @classmethod
    def inserter(cls, record: RollRecord) -> Callable[[Tx], Awaitable[int]]:
        """Validate ``record`` now; the returned function writes it inside a unit of work (its log id)."""
        params = cls.row_params(record)

        async def insert(tx: Tx) -> int:
            return _log_id(await tx.one(_INSERT, params))

        return insert

    @staticmethod
    def row_params(record: RollRecord) -> Params:
        """Validate ``record`` now; the parameters of its row's INSERT, in the order of the rolls table's
        columns (as `CardRepository`'s one-statement hand ending takes them too)."""
        # again, from its field values as they are: model_copy(update=...) skips validation
        record = validated(lambda: RollRecord.model_validate(record.__dict__), "Roll")
        inputs = json_column(record.inputs, "roll's inputs", MAX_LOG_JSON)
        dice = json_column(record.dice, "roll's dice", MAX_LOG_JSON)
        return (
            record.guild_id,
            record.channel_id,
            record.user_id,
            record.system,
            record.command,
            record.visibility,
            inputs,
            dice,
            record.result,
            record.summary,
            record.created_at.isoformat(),
            record.revealed_by,
            record.revealed_at.isoformat() if record.revealed_at else None,
        )

    async def get(self, record_id: int) -> RollRecord:
        """One logged roll by id."""
        row = await self._db.one(f"SELECT {_COLUMNS} FROM rolls WHERE id = ?", (record_id,))
        if row is None:
            raise NotFound(f"There is no logged roll {record_id}.")
        return _record(row)

    async def last(
        self,
        guild_id: int | None,
        channel_id: int,
        n: int = 10,
        include_hidden: bool = True,
        *,
        skip: int = 0,
    ) -> list[RollRecord]:
        """The channel's last ``n`` rolls, newest first, after the newest ``skip`` (a page further back);
        ``include_hidden=False`` skips unrevealed ones."""
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_LAST:
            raise InvalidData(f"Ask for 1 to {MAX_LAST} rolls, not {n!r}.")
        if isinstance(skip, bool) or not isinstance(skip, int) or skip < 0:
            raise InvalidData(f"Skip 0 or more rolls, not {skip!r}.")
        sql = f"SELECT {_COLUMNS} FROM rolls WHERE channel_id = ? AND guild_id IS ?"
        if not include_hidden:
            sql += " AND (visibility = 'public' OR revealed_by IS NOT NULL)"
        rows = await self._db.all(sql + " ORDER BY id DESC LIMIT ? OFFSET ?", (channel_id, guild_id, n, skip))
        return [_record(row) for row in rows]

    async def count(self, guild_id: int | None, channel_id: int) -> int:
        """How many rolls the channel's log holds."""
        row = await self._db.one(
            "SELECT COUNT(*) AS n FROM rolls WHERE channel_id = ? AND guild_id IS ?", (channel_id, guild_id)
        )
        return int(row["n"]) if row is not None else 0

    async def hidden(
        self, guild_id: int | None, channel_id: int, *, command: str, lookback: int
    ) -> list[RollRecord]:
        """The unrevealed private, gm and blind rolls of ``command`` among the channel's last ``lookback``
        rolls, newest first (filtered in SQL: usually none, and nothing else is read back)."""
        if isinstance(lookback, bool) or not isinstance(lookback, int) or not 1 <= lookback <= MAX_LAST:
            raise InvalidData(f"Look back over 1 to {MAX_LAST} rolls, not {lookback!r}.")
        rows = await self._db.all(
            f"SELECT {_COLUMNS} FROM rolls WHERE id IN (SELECT id FROM rolls WHERE channel_id = ? AND "
            "guild_id IS ? ORDER BY id DESC LIMIT ?) AND command = ? AND visibility != 'public' "
            "AND revealed_by IS NULL ORDER BY id DESC",
            (channel_id, guild_id, lookback, command),
        )
        return [_record(row) for row in rows]

    async def export_rows(
        self,
        guild_id: int | None,
        channel_id: int,
        include_hidden: bool = True,
        *,
        roller_id: int | None = None,
    ) -> list[tuple[Any, ...]]:
        """The channel's whole log, oldest first, as plain rows for `export_text` (they pickle).

        ``include_hidden=False`` skips unrevealed rolls, except ``roller_id``'s own private and gm rolls
        (they saw those results when they rolled; a blind roll's roller never does)."""
        sql = f"SELECT {_COLUMNS} FROM rolls WHERE channel_id = ? AND guild_id IS ?"
        params: list[Any] = [channel_id, guild_id]
        if not include_hidden:
            sql += (
                " AND (visibility = 'public' OR revealed_by IS NOT NULL"
                " OR (visibility IN ('private', 'gm') AND user_id = ?))"
            )
            params.append(roller_id)
        rows = await self._db.all(sql + " ORDER BY id", params)
        return [tuple(row) for row in rows]

    async def export(
        self,
        guild_id: int | None,
        channel_id: int,
        fmt: ExportFormat = "jsonl",
        include_hidden: bool = True,
        *,
        roller_id: int | None = None,
    ) -> str:
        """The channel's whole log, oldest first, as JSON lines (one object per roll) or CSV with a header
        (``include_hidden``, ``roller_id``: as `export_rows`)."""
        if fmt not in ("jsonl", "csv"):
            raise InvalidData(f"The log exports as jsonl or csv, not {fmt!r}.")
        rows = await self.export_rows(guild_id, channel_id, include_hidden, roller_id=roller_id)
        return await asyncio.to_thread(export_text, rows, fmt)  # (the bot builds it in a worker process)

    async def mark_revealed(self, record_id: int, by_user_id: int) -> bool:
        """Reveal a hidden roll, once: True for the reveal that did it, False if it was already revealed."""
        outcome = await self._db.execute(
            "UPDATE rolls SET revealed_by = ?, revealed_at = ? WHERE id = ? AND revealed_by IS NULL",
            (by_user_id, now_text(), record_id),
        )
        if outcome.rowcount == 1:
            return True
        await self.get(record_id)  # NotFound when there is no such roll
        return False

    async def unmark_revealed(self, record_id: int, by_user_id: int) -> None:
        """Hide a roll again after ``mark_revealed`` by this user, when its public post could not be made."""
        await self._db.execute(
            "UPDATE rolls SET revealed_by = NULL, revealed_at = NULL WHERE id = ? AND revealed_by = ?",
            (record_id, by_user_id),
        )
