"""Character sheets: several per player per guild, one active per system; JSON import and export."""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from pydantic import ValidationError

from bot.store._util import dumps, loads_limited, now_text, validated
from bot.store.db import Database, Row, Tx
from bot.store.errors import Conflict, InvalidData, NotFound
from bot.store.models import (
    MAX_ALTERNATES,
    MAX_ENTRIES,
    MAX_NAME,
    MAX_NOTES,
    SHEET_RANGES,
    SYSTEM_NAMES,
    SYSTEMS,
    Sheet,
    SheetDocument,
    Skill,
    Wounds,
    name_key,
)

#: The most characters import reads: more than the export of the largest sheet the store holds (701 names of
#: 64 characters and 2,000 of notes, each a character outside the BMP, 4 bytes: about 193,000 bytes), with
#: room for a file that writes some of its characters as escapes ("\u0001": 6 characters).
MAX_IMPORT_CHARS = 300_000
SHEET_COLUMNS = ("id", "guild_id", "owner_id", "name", "system", "active", "data", "version")
_COLUMNS = ", ".join(SHEET_COLUMNS)
_DATA_FIELDS = ("attributes", "skills", "bonuses", "wounds", "notes")
Section = Literal["attribute", "skill", "bonus"]
_SECTIONS: dict[str, str] = {"attribute": "attributes", "skill": "skills", "bonus": "bonuses"}


def sheet_from_row(row: Row) -> Sheet:
    """A sheet from a row holding `SHEET_COLUMNS` by name (other columns beside them are ignored)."""
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
    value = loads_limited(text, "file", MAX_IMPORT_CHARS)
    if not isinstance(value, dict):
        raise InvalidData(
            f"The file is not a character sheet: it holds {_json_kind(value)}, not one object in {{ }}."
        )
    try:
        return SheetDocument.model_validate(value)
    except ValidationError as error:
        raise InvalidData(import_problem(error, value)) from None


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
        _stats_once(checked)
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
        return sheet_from_row(row)

    async def get_by_id(self, sheet_id: int) -> Sheet:
        """A sheet by its id."""
        row = await self._db.one(f"SELECT {_COLUMNS} FROM sheets WHERE id = ?", (sheet_id,))
        if row is None:
            raise NotFound(f"There is no sheet {sheet_id}.")
        return sheet_from_row(row)

    async def list(self, guild_id: int, owner_id: int, system: str | None = None) -> builtins.list[Sheet]:
        """The owner's sheets in this guild (optionally of one system), by name."""
        sql = f"SELECT {_COLUMNS} FROM sheets WHERE guild_id = ? AND owner_id = ?"
        params: builtins.list[object] = [guild_id, owner_id]
        if system is not None:
            sql += " AND system = ?"
            params.append(system)
        rows = await self._db.all(sql + " ORDER BY name_key", params)
        return [sheet_from_row(row) for row in rows]

    async def active(self, guild_id: int, owner_id: int, system: str) -> Sheet | None:
        """The owner's active sheet for ``system``, or None."""
        row = await self._db.one(
            f"SELECT {_COLUMNS} FROM sheets "
            "WHERE guild_id = ? AND owner_id = ? AND system = ? AND active = 1",
            (guild_id, owner_id, system),
        )
        return None if row is None else sheet_from_row(row)

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
        return sheet_from_row(row)

    async def _change(
        self, guild_id: int, owner_id: int, name: str, edit: Callable[[dict[str, Any]], None]
    ) -> Sheet:
        """Read, edit, validate and write one sheet inside one IMMEDIATE transaction."""

        async def work(tx: Tx) -> Sheet:
            row = await self._row(tx, guild_id, owner_id, name)
            if row is None:
                raise NotFound(f"You have no sheet named {name.strip()!r}.")
            current = sheet_from_row(row)
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
            _one_stat(data, "skills", attribute)
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
        alternates: Iterable[str] | None = None,
    ) -> Sheet:
        """Set (or add) one skill with its parent attribute and alternates (RPS-1).

        ``attribute`` None keeps the skill's parent, ``alternates`` None its alternates. The parent and the
        alternates must be attributes of the sheet, and a system whose skill checks add a parent
        (`NEEDS_PARENT`) refuses a skill without one: refused now, not at the next roll.
        """

        def edit(data: dict[str, Any]) -> None:
            _one_stat(data, "attributes", skill)
            old = next((v for k, v in data["skills"].items() if name_key(k) == name_key(skill)), None)
            entry = validated(
                lambda: Skill(
                    rating=rating,
                    attribute=attribute if attribute is not None else (old or {}).get("attribute"),
                    alternates=builtins.list(
                        alternates if alternates is not None else (old or {}).get("alternates", [])
                    ),
                ),
                "Skill",
            )
            _put(data["skills"], skill, entry.model_dump())
            validated(lambda: Sheet.model_validate(data), "Sheet")  # a bad rating is named first
            data["skills"][skill.strip()] = _with_parents(data, skill.strip(), entry).model_dump()

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
        return await self.import_document(guild_id, owner_id, parse_sheet_json(text), replace)

    async def import_document(
        self, guild_id: int, owner_id: int, document: SheetDocument, replace: bool = False
    ) -> Sheet:
        """`import_json` of a file already read with `parse_sheet_json` (the bot reads it in a worker
        process: a file of `MAX_IMPORT_CHARS` can take tens of milliseconds)."""
        sheet = validated(
            lambda: Sheet.model_validate(
                {**document.model_dump(), "guild_id": guild_id, "owner_id": owner_id}
            ),
            "Sheet",
        )
        _stats_once(sheet)

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


def _json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's own words."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else "an object"


_SHAPES: dict[tuple[object, ...], str] = {
    ("attributes",): 'an object of names and numbers, like {"Strength": 12}',
    ("bonuses",): 'an object of names and numbers, like {"Spades": 1}',
    ("skills",): 'an object of skills, like {"Climb": {"rating": 3, "attribute": "Agility"}}',
    ("skills", "*"): 'an object like {"rating": 3, "attribute": "Agility", "alternates": ["Strength"]}',
    ("skills", "*", "attribute"): f"the name of an attribute (1 to {MAX_NAME} characters)",
    ("skills", "*", "alternates", "*"): f"the name of an attribute (1 to {MAX_NAME} characters)",
    ("skills", "*", "alternates"): 'a list of attribute names, like ["Strength", "Wits"]',
    ("wounds",): 'an object like {"current": 3, "maximum": 10}, or null',
    ("name",): f"text of 1 to {MAX_NAME} characters",
    ("notes",): f"text of at most {MAX_NOTES} characters",
    ("system",): f"one of {', '.join(SYSTEMS)}",
}


_NUMBERS = {
    ("attributes", "*"),
    ("bonuses", "*"),
    ("skills", "*", "rating"),
    ("wounds", "current"),
    ("wounds", "maximum"),
}


def _number_range(loc: tuple[object, ...], system: Any) -> str:
    """What a number at ``loc`` may be, with the system's range when the file names a known system."""
    ranges = SHEET_RANGES.get(system) if isinstance(system, str) else None
    bounds: tuple[int, int] | None = None
    if ranges is not None:
        by_place: dict[tuple[object, ...], tuple[int, int]] = {
            ("attributes", "*"): ranges.attributes,
            ("skills", "*", "rating"): ranges.skills,
            ("bonuses", "*"): ranges.bonuses,
            ("wounds", "maximum"): ranges.wounds_max,
        }
        bounds = by_place.get(loc)
    if loc == ("wounds", "current"):
        return "a whole number from 0 to the maximum"
    return f"a whole number from {bounds[0]} to {bounds[1]}" if bounds else "a whole number"


def import_problem(error: ValidationError, document: dict[str, Any]) -> str:
    """One plain sentence for the first thing wrong in an imported sheet (no pydantic or Python words)."""
    first = error.errors(include_url=False)[0]
    kind = str(first["type"])
    if kind == "value_error":  # our own validators already speak in sentences
        return str(first["msg"]).removeprefix("Value error, ")
    loc = [part if isinstance(part, int) else _printable(str(part)) for part in first["loc"]]
    if loc and loc[-1] == "[key]":
        return f"A name in {loc[0]} must be 1 to {MAX_NAME} characters long."
    path = "".join(
        f" item {part + 1}" if isinstance(part, int) else f"{'.' if i else ''}{part}"
        for i, part in enumerate(loc)
    )
    # where it is, with the entry's own name and list positions left out: skills.Climb -> skills.*
    shape = tuple(
        "*" if (i == 1 and loc[0] in ("attributes", "bonuses", "skills")) or isinstance(part, int) else part
        for i, part in enumerate(loc)
    )
    if kind == "missing":
        return (
            f"The file has no {path}; a sheet needs at least a name and a system."
            if len(loc) == 1
            else f"{path} is missing."
        )
    if kind == "extra_forbidden":
        return f"{path} is not part of a character sheet; remove it from the file."
    if kind == "too_long":
        many = f"{MAX_ENTRIES} {path}" if len(loc) == 1 else f"{MAX_ALTERNATES} alternates for a skill"
        return f"A sheet holds at most {many}."
    if shape in _NUMBERS or kind.startswith(("int_", "bool_", "float_")):
        return f"{path} must be {_number_range(shape, document.get('system'))}."
    return f"{path} must be {_SHAPES.get(shape, 'something else')}."


def _printable(text: str) -> str:
    """A name from the file, safe in one line: control characters out, at most 40 characters."""
    clean = "".join(c if c.isprintable() else " " for c in text).strip()
    return clean if len(clean) <= 40 else clean[:39] + "…"


def parent_problems(sheet: SheetDocument) -> builtins.list[str]:
    """What `set_skill` would refuse in each of the sheet's skills (an imported file may hold them)."""
    data = sheet.model_dump()
    problems = []
    for name, skill in sheet.skills.items():
        try:
            _with_parents(data, name, skill)
        except InvalidData as problem:
            problems.append(str(problem))
    return problems


#: Systems whose skill checks add the skill's parent attribute: SX-1 (SV) and RPS-1 (Base).
NEEDS_PARENT = frozenset({"sysx", "rps"})


def _with_parents(data: dict[str, Any], skill: str, entry: Skill) -> Skill:
    """``entry`` with its parent and alternates spelt as the sheet's attributes, or InvalidData naming the
    one the sheet lacks, or saying that the system needs a parent."""
    system = data["system"]
    word = SHEET_RANGES[system].attribute_word
    attributes: dict[str, int] = data["attributes"]
    names = ([entry.attribute] if entry.attribute else []) + builtins.list(entry.alternates)
    stored = {name_key(n): n for n in attributes}
    have = (
        f"it has {', '.join(attributes)}" if attributes else f"add the {word} with /sheet set-attribute first"
    )
    for name in names:
        if name_key(name) not in stored:
            raise InvalidData(f"The sheet {data['name']} has no {word} named {name.strip()!r}; {have}.")
    if entry.attribute is None and system in NEEDS_PARENT:
        raise InvalidData(
            f"{SYSTEM_NAMES[system]} skills are rolled with the {word} they add, so {skill} needs a parent; "
            f"{have if attributes else f'add an {word} with /sheet set-attribute first'}."
        )
    return entry.model_copy(
        update={
            "attribute": stored[name_key(entry.attribute)] if entry.attribute else None,
            "alternates": [stored[name_key(n)] for n in entry.alternates],
        }
    )


def _one_stat(data: dict[str, Any], other: str, name: str) -> None:
    """A decision sheet's attributes and skills are all stats, read by name: a name in both would
    leave one of its values unreachable, so the second is refused."""
    if data.get("system") != "decision" or not isinstance(name, str):
        return
    if any(name_key(k) == name_key(name) for k in data.get(other) or {}):
        section = "a skill" if other == "skills" else "an attribute"
        raise InvalidData(
            f"{name.strip()} is already {section} of this sheet, and a decision-dice stat has one value: "
            "set it there, or remove it first."
        )


def _stats_once(sheet: Sheet) -> None:
    """`_one_stat` for a whole new sheet (created, or imported from a file): no decision-dice stat both an
    attribute and a skill."""
    if sheet.system != "decision":
        return
    skills = {name_key(k) for k in sheet.skills}
    both = [k.strip() for k in sheet.attributes if name_key(k) in skills]
    if both:
        raise InvalidData(
            f"{both[0]} is both an attribute and a skill, and a decision-dice stat has one value: keep one "
            "of them."
        )


def _put(entries: dict[str, Any], key: str, value: Any) -> None:
    """Set ``entries[key]``, replacing an entry whose name differs only in case."""
    if not isinstance(key, str):
        raise InvalidData("A name must be text.")
    for existing in builtins.list(entries):
        if name_key(existing) == name_key(key):
            del entries[existing]
    entries[key.strip()] = value


__all__ = [
    "NEEDS_PARENT",
    "SHEET_RANGES",
    "SheetRepository",
    "export_json",
    "import_problem",
    "parent_problems",
    "parse_sheet_json",
]
