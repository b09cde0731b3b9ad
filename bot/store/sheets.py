"""Character sheets: several per player per guild, one active per system; JSON import and export."""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from bot.store._util import dumps, loads_limited, now_text, validated
from bot.store.db import Database, Row, Tx
from bot.store.errors import Conflict, InvalidData, NotFound
from bot.store.models import (
    SHEET_RANGES,
    SYSTEMS,
    Sheet,
    SheetDocument,
    Skill,
    Wounds,
    name_key,
)

MAX_IMPORT_CHARS = 64_000
_COLUMNS = "id, guild_id, owner_id, name, system, active, data, version"
_DATA_FIELDS = ("attributes", "skills", "bonuses", "wounds", "notes")
Section = Literal["attribute", "skill", "bonus"]
_SECTIONS: dict[str, str] = {"attribute": "attributes", "skill": "skills", "bonus": "bonuses"}


def _sheet(row: Row) -> Sheet:
    data = json.loads(row["data"])
    return Sheet.model_validate(
        {
            **data,
            "id": row["id"],
            "guild_id": row["guild_id"],
            "owner_id": row["owner_id"],
            "name": row["name"],
            "system": row["system"],
            "active": bool(row["active"]),
            "version": row["version"],
        }
    )


def _data(sheet: SheetDocument) -> str:
    return dumps(sheet.model_dump(mode="json", include=set(_DATA_FIELDS)))


def export_json(sheet: SheetDocument) -> str:
    """The sheet as JSON text (the document only: no ids), valid against data/sheet.schema.json."""
    document = sheet.document() if isinstance(sheet, Sheet) else sheet
    return json.dumps(document.model_dump(mode="json"), indent=2, ensure_ascii=False)


def parse_sheet_json(text: str) -> SheetDocument:
    """Read a sheet document from JSON text, refusing anything else with one sentence."""
    value = loads_limited(text, "sheet file", MAX_IMPORT_CHARS)
    if not isinstance(value, dict):
        raise InvalidData("The file is not a character sheet: it should be one JSON object.")
    return validated(lambda: SheetDocument.model_validate(value), "Sheet")


class SheetRepository:
    """Players' character sheets."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, sheet: Sheet | Mapping[str, Any]) -> Sheet:
        """Store a new sheet (a Sheet, or a dict of its fields); the owner's first of a system becomes active.

        Pass a dict to have bad fields refused as InvalidData rather than pydantic's ValidationError.
        """
        fields = sheet.model_dump() if isinstance(sheet, Sheet) else dict(sheet)
        fields.pop("id", None)
        fields.pop("active", None)
        fields.pop("version", None)
        checked = validated(lambda: Sheet.model_validate(fields), "Sheet")
        return await self._db.run(lambda tx: self._insert(tx, checked))

    async def _insert(self, tx: Tx, sheet: Sheet) -> Sheet:
        if await self._row(tx, sheet.guild_id, sheet.owner_id, sheet.name) is not None:
            raise Conflict(f"You already have a sheet named {sheet.name!r}; pick another name.")
        has_active = await tx.one(
            "SELECT 1 FROM sheets WHERE guild_id = ? AND owner_id = ? AND system = ? AND active = 1",
            (sheet.guild_id, sheet.owner_id, sheet.system),
        )
        stamp = now_text()
        row = await tx.one(
            "INSERT INTO sheets (guild_id, owner_id, name, name_key, system, active, data, version, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING id",
            (
                sheet.guild_id,
                sheet.owner_id,
                sheet.name,
                name_key(sheet.name),
                sheet.system,
                0 if has_active else 1,
                _data(sheet),
                stamp,
                stamp,
            ),
        )
        assert row is not None
        return sheet.model_copy(update={"id": row["id"], "active": not has_active, "version": 1})

    @staticmethod
    async def _row(tx: Tx, guild_id: int, owner_id: int, name: str) -> Row | None:
        return await tx.one(
            f"SELECT {_COLUMNS} FROM sheets WHERE guild_id = ? AND owner_id = ? AND name_key = ?",
            (guild_id, owner_id, name_key(name)),
        )

    async def get(self, guild_id: int, owner_id: int, name: str) -> Sheet:
        """The owner's sheet called ``name`` (any case)."""
        row = await self._db.one(
            f"SELECT {_COLUMNS} FROM sheets WHERE guild_id = ? AND owner_id = ? AND name_key = ?",
            (guild_id, owner_id, name_key(name)),
        )
        if row is None:
            raise NotFound(f"You have no sheet named {name.strip()!r}.")
        return _sheet(row)

    async def get_by_id(self, sheet_id: int) -> Sheet:
        """A sheet by its id."""
        row = await self._db.one(f"SELECT {_COLUMNS} FROM sheets WHERE id = ?", (sheet_id,))
        if row is None:
            raise NotFound(f"There is no sheet {sheet_id}.")
        return _sheet(row)

    async def list(self, guild_id: int, owner_id: int, system: str | None = None) -> builtins.list[Sheet]:
        """The owner's sheets in this guild (optionally of one system), by name."""
        sql = f"SELECT {_COLUMNS} FROM sheets WHERE guild_id = ? AND owner_id = ?"
        params: builtins.list[object] = [guild_id, owner_id]
        if system is not None:
            sql += " AND system = ?"
            params.append(system)
        rows = await self._db.all(sql + " ORDER BY name_key", params)
        return [_sheet(row) for row in rows]

    async def active(self, guild_id: int, owner_id: int, system: str) -> Sheet | None:
        """The owner's active sheet for ``system``, or None."""
        row = await self._db.one(
            f"SELECT {_COLUMNS} FROM sheets "
            "WHERE guild_id = ? AND owner_id = ? AND system = ? AND active = 1",
            (guild_id, owner_id, system),
        )
        return None if row is None else _sheet(row)

    async def use(self, guild_id: int, owner_id: int, name: str) -> Sheet:
        """Make the sheet ``name`` its system's active sheet (the previous one stops being active)."""

        async def work(tx: Tx) -> Row | None:
            row = await self._row(tx, guild_id, owner_id, name)
            if row is None:
                raise NotFound(f"You have no sheet named {name.strip()!r}.")
            await tx.execute(
                "UPDATE sheets SET active = 0 "
                "WHERE guild_id = ? AND owner_id = ? AND system = ? AND active = 1",
                (guild_id, owner_id, row["system"]),
            )
            await tx.execute("UPDATE sheets SET active = 1 WHERE id = ?", (row["id"],))
            return await tx.one(f"SELECT {_COLUMNS} FROM sheets WHERE id = ?", (row["id"],))

        row = await self._db.run(work)
        assert row is not None
        return _sheet(row)

    async def _change(
        self, guild_id: int, owner_id: int, name: str, edit: Callable[[dict[str, Any]], None]
    ) -> Sheet:
        """Read, edit, validate and write one sheet inside one IMMEDIATE transaction."""

        async def work(tx: Tx) -> Sheet:
            row = await self._row(tx, guild_id, owner_id, name)
            if row is None:
                raise NotFound(f"You have no sheet named {name.strip()!r}.")
            current = _sheet(row)
            data = current.model_dump()
            edit(data)
            changed = validated(lambda: Sheet.model_validate(data), "Sheet")
            await tx.execute(
                "UPDATE sheets SET data = ?, version = version + 1, updated_at = ? WHERE id = ?",
                (_data(changed), now_text(), row["id"]),
            )
            return changed.model_copy(update={"version": current.version + 1})

        return await self._db.run(work)

    async def set_attribute(
        self, guild_id: int, owner_id: int, name: str, attribute: str, value: int
    ) -> Sheet:
        """Set (or add) one attribute / characteristic / stat, validated against the system's range."""

        def edit(data: dict[str, Any]) -> None:
            _put(data["attributes"], attribute, value)

        return await self._change(guild_id, owner_id, name, edit)

    async def set_skill(
        self,
        guild_id: int,
        owner_id: int,
        name: str,
        skill: str,
        rating: int,
        attribute: str | None = None,
        alternates: Iterable[str] = (),
    ) -> Sheet:
        """Set (or add) one skill with its parent attribute and alternates (RPS-1)."""
        entry = validated(
            lambda: Skill(rating=rating, attribute=attribute, alternates=builtins.list(alternates)), "Skill"
        )

        def edit(data: dict[str, Any]) -> None:
            _put(data["skills"], skill, entry.model_dump())

        return await self._change(guild_id, owner_id, name, edit)

    async def set_bonus(self, guild_id: int, owner_id: int, name: str, bonus: str, value: int) -> Sheet:
        """Set (or add) one characteristic bonus (BJ-9) or stored bonus."""

        def edit(data: dict[str, Any]) -> None:
            _put(data["bonuses"], bonus, value)

        return await self._change(guild_id, owner_id, name, edit)

    async def remove(self, guild_id: int, owner_id: int, name: str, section: Section, key: str) -> Sheet:
        """Remove one attribute, skill or bonus (``section``) from the sheet."""
        if section not in _SECTIONS:
            raise InvalidData(f"A sheet entry is an attribute, a skill or a bonus, not {section!r}.")

        def edit(data: dict[str, Any]) -> None:
            entries: dict[str, Any] = data[_SECTIONS[section]]
            found = next((k for k in entries if name_key(k) == name_key(key)), None)
            if found is None:
                raise NotFound(f"The sheet {name.strip()!r} has no {section} named {key.strip()!r}.")
            del entries[found]

        return await self._change(guild_id, owner_id, name, edit)

    async def set_wounds(
        self, guild_id: int, owner_id: int, name: str, current: int | None, maximum: int | None = None
    ) -> Sheet:
        """Set current wounds (and optionally the maximum); ``current=None`` and no maximum clears them."""

        def edit(data: dict[str, Any]) -> None:
            old = data.get("wounds")
            if current is None and maximum is None:
                data["wounds"] = None
                return
            top = maximum if maximum is not None else (old["maximum"] if old else None)
            if top is None:
                raise InvalidData("Set the maximum wounds first (the sheet has none yet).")
            data["wounds"] = {"current": top if current is None else current, "maximum": top}
            validated(lambda: Wounds.model_validate(data["wounds"]), "Wounds")

        return await self._change(guild_id, owner_id, name, edit)

    async def set_notes(self, guild_id: int, owner_id: int, name: str, notes: str) -> Sheet:
        """Replace the sheet's free notes (at most 2000 characters)."""

        def edit(data: dict[str, Any]) -> None:
            data["notes"] = notes

        return await self._change(guild_id, owner_id, name, edit)

    async def delete(self, guild_id: int, owner_id: int, name: str) -> None:
        """Delete the sheet; if it was active, no sheet of its system is active afterwards."""
        outcome = await self._db.execute(
            "DELETE FROM sheets WHERE guild_id = ? AND owner_id = ? AND name_key = ?",
            (guild_id, owner_id, name_key(name)),
        )
        if outcome.rowcount == 0:
            raise NotFound(f"You have no sheet named {name.strip()!r}.")

    async def import_json(self, guild_id: int, owner_id: int, text: str, replace: bool = False) -> Sheet:
        """Create a sheet from exported JSON; ``replace`` overwrites an existing sheet of that name."""
        document = parse_sheet_json(text)
        sheet = validated(
            lambda: Sheet.model_validate(
                {**document.model_dump(), "guild_id": guild_id, "owner_id": owner_id}
            ),
            "Sheet",
        )

        async def work(tx: Tx) -> Sheet:
            row = await self._row(tx, guild_id, owner_id, sheet.name)
            if row is None:
                return await self._insert(tx, sheet)
            if not replace:
                raise Conflict(
                    f"You already have a sheet named {sheet.name!r}; delete it or import with replace."
                )
            if row["system"] != sheet.system:
                await tx.execute("DELETE FROM sheets WHERE id = ?", (row["id"],))
                return await self._insert(tx, sheet)
            await tx.execute(
                "UPDATE sheets SET name = ?, data = ?, version = version + 1, updated_at = ? WHERE id = ?",
                (sheet.name, _data(sheet), now_text(), row["id"]),
            )
            return sheet.model_copy(
                update={"id": row["id"], "active": bool(row["active"]), "version": row["version"] + 1}
            )

        return await self._db.run(work)

    def export_json(self, sheet: SheetDocument) -> str:
        """The sheet as JSON text (no ids), valid against data/sheet.schema.json."""
        return export_json(sheet)

    async def autocomplete_names(
        self, guild_id: int, owner_id: int, prefix: str, system: str | None = None, limit: int = 25
    ) -> builtins.list[str]:
        """Up to ``limit`` of the owner's sheet names containing ``prefix`` (any case), prefixes first."""
        if system is not None and system not in SYSTEMS:
            return []
        key = name_key(prefix)
        sql = "SELECT name, name_key FROM sheets WHERE guild_id = ? AND owner_id = ?"
        params: builtins.list[object] = [guild_id, owner_id]
        if system is not None:
            sql += " AND system = ?"
            params.append(system)
        # instr() rather than LIKE: a prefix with % or _ must match literally.
        sql += " AND instr(name_key, ?) > 0 ORDER BY instr(name_key, ?) != 1, name_key LIMIT ?"
        params.extend([key, key, max(1, min(limit, 25))])
        rows = await self._db.all(sql, params)
        return [str(row["name"]) for row in rows]


def _put(entries: dict[str, Any], key: str, value: Any) -> None:
    """Set ``entries[key]``, replacing an entry whose name differs only in case."""
    if not isinstance(key, str):
        raise InvalidData("A name must be text.")
    for existing in builtins.list(entries):
        if name_key(existing) == name_key(key):
            del entries[existing]
    entries[key.strip()] = value


__all__ = ["SHEET_RANGES", "SheetRepository", "export_json", "parse_sheet_json"]
