"""Sheets: per-system ranges, names, one active per system, JSON import/export and the published schema."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.store import (
    SHEET_RANGES,
    Conflict,
    InvalidData,
    NotFound,
    Sheet,
    SheetDocument,
    Skill,
    Store,
    Wounds,
)
from bot.store.models import MAX_ALTERNATES, MAX_ENTRIES, MAX_NAME, MAX_NOTES, name_key
from bot.store.schema import SCHEMA_PATH, schema_text, sheet_schema
from bot.store.sheets import MAX_IMPORT_CHARS, export_json, parse_sheet_json
from tests.store._backends import rows

G, P = 100, 200


def _sheet(name: str = "Ann", system: str = "sysx", **fields: object) -> Sheet:
    return Sheet.model_validate({"guild_id": G, "owner_id": P, "name": name, "system": system, **fields})


async def test_create_get_list_and_name_rules(store: Store) -> None:
    created = await store.sheets.create(
        _sheet("  Ann  ", attributes={"Str": 12}, skills={"Sword": Skill(rating=4)})
    )
    assert created.name == "Ann" and created.id is not None and created.active
    assert await store.sheets.get(G, P, "ANN") == created
    assert await store.sheets.get_by_id(created.id) == created
    with pytest.raises(Conflict, match="already have a sheet named"):
        await store.sheets.create(_sheet("ann", system="dn"))
    with pytest.raises(NotFound, match="no sheet named 'Bob'"):
        await store.sheets.get(G, P, "Bob")
    # other owners and other guilds have their own names
    await store.sheets.create(_sheet("Ann").model_copy(update={"owner_id": P + 1}))
    await store.sheets.create(_sheet("Ann").model_copy(update={"guild_id": G + 1}))
    assert [s.name for s in await store.sheets.list(G, P)] == ["Ann"]


@pytest.mark.parametrize("bad", ["", "   ", "x" * 65])
async def test_sheet_names_are_1_to_64_characters(store: Store, bad: str) -> None:
    with pytest.raises(InvalidData, match="name"):
        await store.sheets.create({"guild_id": G, "owner_id": P, "name": bad, "system": "sysx"})
    assert await store.sheets.list(G, P) == []


@pytest.mark.parametrize(
    ("system", "field", "low", "high"),
    [
        (system, field, *bounds)
        for system, ranges in SHEET_RANGES.items()
        for field, bounds in (
            ("attributes", ranges.attributes),
            ("skills", ranges.skills),
            ("bonuses", ranges.bonuses),
        )
    ],
)
async def test_system_ranges_are_enforced_with_a_sentence(
    store: Store, system: str, field: str, low: int, high: int
) -> None:
    def entry(value: int) -> object:
        return {"rating": value} if field == "skills" else value

    ok = await store.sheets.create(
        _sheet("Edge", system=system, **{field: {"A": entry(low), "B": entry(high)}})
    )
    assert ok.id is not None
    before = await rows(store, "sheets")
    for value in (low - 1, high + 1):
        with pytest.raises(InvalidData, match=rf"runs from {low} to {high}, so .* cannot be {value}\."):
            await store.sheets.create(
                {**_sheet("Bad", system=system).model_dump(), field: {"A": entry(value)}}
            )
        with pytest.raises(InvalidData, match=rf"runs from {low} to {high}"):
            if field == "attributes":
                await store.sheets.set_attribute(G, P, "Edge", "A", value)
            elif field == "skills":
                await store.sheets.set_skill(G, P, "Edge", "A", value)
            else:
                await store.sheets.set_bonus(G, P, "Edge", "A", value)
    assert await rows(store, "sheets") == before  # refused before anything was written


async def test_a_skill_of_99_in_a_0_to_10_system_is_refused(store: Store) -> None:
    await store.sheets.create(_sheet("Ann"))
    with pytest.raises(InvalidData) as err:
        await store.sheets.set_skill(G, P, "Ann", "Sword", 99)
    assert str(err.value) == "A System X skill runs from 0 to 10, so Sword cannot be 99."
    assert (await store.sheets.get(G, P, "Ann")).skills == {}


async def test_sx2_wounds_max_1_to_60_and_current_within_max(store: Store) -> None:  # SX-2
    await store.sheets.create(_sheet("Ann"))
    sheet = await store.sheets.set_wounds(G, P, "Ann", None, 12)
    assert sheet.wounds == Wounds(current=12, maximum=12)
    sheet = await store.sheets.set_wounds(G, P, "Ann", 5)
    assert sheet.wounds == Wounds(current=5, maximum=12)
    with pytest.raises(InvalidData, match="0 to the maximum 12"):
        await store.sheets.set_wounds(G, P, "Ann", 13)
    with pytest.raises(InvalidData, match="runs from 1 to 60"):
        await store.sheets.set_wounds(G, P, "Ann", 1, 61)
    assert (await store.sheets.get(G, P, "Ann")).wounds == Wounds(current=5, maximum=12)
    assert (await store.sheets.set_wounds(G, P, "Ann", None)).wounds is None


async def test_edits_replace_names_case_insensitively_and_remove(store: Store) -> None:
    await store.sheets.create(_sheet("Ann", system="rps", attributes={"Str": 5, "Dex": 4}))
    sheet = await store.sheets.set_attribute(G, P, "ann", "STR", 9)
    assert sheet.attributes == {"Dex": 4, "STR": 9} and sheet.attribute("str") == ("STR", 9)
    sheet = await store.sheets.set_skill(
        G, P, "ann", "Climb", 6, attribute="Str", alternates=["dex"]
    )  # RPS-1; the parent and alternates are stored as the sheet spells them
    assert sheet.skill("climb") == ("Climb", Skill(rating=6, attribute="STR", alternates=["Dex"]))
    sheet = await store.sheets.remove(G, P, "ann", "attribute", "str")
    assert sheet.attributes == {"Dex": 4}
    with pytest.raises(NotFound, match="no skill named 'Jump'"):
        await store.sheets.remove(G, P, "ann", "skill", "Jump")
    assert (await store.sheets.set_notes(G, P, "ann", "scar")).notes == "scar"
    with pytest.raises(InvalidData, match="2000"):
        await store.sheets.set_notes(G, P, "ann", "x" * 2001)
    assert sheet.version < (await store.sheets.get(G, P, "ann")).version


async def test_duplicate_names_differing_in_case_are_refused(store: Store) -> None:
    with pytest.raises(InvalidData, match="two attributes named"):
        await store.sheets.create({**_sheet().model_dump(), "attributes": {"Str": 3, "str": 4}})


async def test_counts_are_limited(store: Store) -> None:
    many = {f"a{i}": 5 for i in range(51)}
    with pytest.raises(InvalidData, match="at most 50"):
        await store.sheets.create({**_sheet().model_dump(), "attributes": many})


@pytest.mark.parametrize(
    ("fields", "sentence"),
    [
        ({"skills": {f"s{i}": {"rating": 1} for i in range(51)}}, "A sheet holds at most 50 skills."),
        ({"bonuses": {f"b{i}": 1 for i in range(51)}}, "A sheet holds at most 50 bonuses."),
        ({"name": "x" * 65}, "A sheet's name can be at most 64 characters long, not 65."),
        ({"notes": "x" * 2001}, "A sheet's notes can be at most 2000 characters long, not 2001."),
        ({"attributes": {"x" * 70: 3}}, "An attribute name can be at most 64 characters long, not 70."),
        (
            {"skills": {"Sword": {"rating": 1, "alternates": ["x"] * 11}}},
            "A skill has at most 10 alternates; you gave 11.",
        ),
        (
            {"skills": {"Sword": {"rating": 1, "alternates": ["y" * 65]}}},
            "An alternate of the skill Sword can be at most 64 characters long, not 65.",
        ),
        ({"skills": {"Sword": {"rating": "3"}}}, "The rating of the skill Sword must be a whole number."),
        ({"skills": {"Sword": {}}}, "The rating of the skill Sword is missing."),
        ({"attributes": {"Str": 2.5}}, "The attribute Str must be a whole number."),
        ({"system": "chess"}, "A sheet's system must be one of sysx, dn, rps, decision or cards."),
        ({"system": None}, "A sheet's system must be one of sysx, dn, rps, decision or cards."),
        ({"owner_id": -1}, "A sheet's owner_id must be at least 0, not -1."),
        ({"wounds": 3}, "A sheet's wounds must be a group of named values."),
        ({"hp": 3}, "A sheet has nothing called 'hp'."),
    ],
)
async def test_what_the_models_refuse_is_said_in_plain_words(
    store: Store, fields: dict[str, object], sentence: str
) -> None:
    # pydantic's own messages ("Dictionary should have at most 50 items after validation") reached players
    with pytest.raises(InvalidData) as err:
        await store.sheets.create({**_sheet().model_dump(), **fields})
    assert str(err.value) == sentence
    assert await store.sheets.list(G, P) == []


async def test_edits_past_a_limit_are_refused_in_plain_words(store: Store) -> None:
    attributes = {f"A{i}": 5 for i in range(12)}
    await store.sheets.create(
        _sheet(attributes=attributes, skills={f"S{i}": Skill(rating=1, attribute="A0") for i in range(50)})
    )
    before = await store.sheets.get(G, P, "Ann")
    with pytest.raises(InvalidData, match=r"^A skill has at most 10 alternates; you gave 11\.$"):
        await store.sheets.set_skill(G, P, "Ann", "S1", 2, "A0", list(attributes)[:11])
    with pytest.raises(
        InvalidData, match=r"^An alternate's name can be at most 64 characters long, not 100\.$"
    ):
        await store.sheets.set_skill(G, P, "Ann", "S1", 2, "A0", ["x" * 100])
    with pytest.raises(InvalidData, match=r"^A sheet holds at most 50 skills\.$"):
        await store.sheets.set_skill(G, P, "Ann", "S50", 2, "A0")
    with pytest.raises(InvalidData, match=r"^The maximum of the wounds is missing\.$"):
        await store.sheets.create({**_sheet("Bea").model_dump(), "wounds": {"current": 1}})
    with pytest.raises(InvalidData, match=r"^A modifier's uses must be at most 100, not 101\.$"):
        await store.modifiers.set(G, 1, "dn", P, "df", 1, 101, 2)
    with pytest.raises(InvalidData, match=r"^The setting decks_per_shoe must be at most 8, not 9\.$"):
        await store.settings.update(G, decks_per_shoe=9)
    assert await store.sheets.get(G, P, "Ann") == before


async def test_one_active_sheet_per_system_and_use(store: Store) -> None:
    first = await store.sheets.create(_sheet("Ann"))
    second = await store.sheets.create(_sheet("Bob"))
    other = await store.sheets.create(_sheet("Cid", system="dn"))
    assert first.active and not second.active and other.active
    used = await store.sheets.use(G, P, "bob")
    assert used.active and used.name == "Bob"
    assert (await store.sheets.active(G, P, "sysx")) == used
    assert not (await store.sheets.get(G, P, "Ann")).active
    assert (await store.sheets.active(G, P, "dn")).name == "Cid"  # type: ignore[union-attr]
    await store.sheets.delete(G, P, "Bob")
    assert await store.sheets.active(G, P, "sysx") is None
    with pytest.raises(NotFound):
        await store.sheets.delete(G, P, "Bob")
    with pytest.raises(NotFound):
        await store.sheets.use(G, P, "Bob")


async def test_autocomplete_names(store: Store) -> None:
    for name in ("Anna", "Hannah", "Bob", "100%_sure"):
        await store.sheets.create(_sheet(name))
    assert await store.sheets.autocomplete_names(G, P, "an") == ["Anna", "Hannah"]
    assert await store.sheets.autocomplete_names(G, P, "") == ["100%_sure", "Anna", "Bob", "Hannah"]
    assert await store.sheets.autocomplete_names(G, P, "%_") == ["100%_sure"]
    assert await store.sheets.autocomplete_names(G, P, "an", system="dn") == []
    assert await store.sheets.autocomplete_names(G, P + 1, "") == []


# ----------------------------------------------------------------------------------------------------------
# Import / export


def _full_sheet() -> Sheet:
    return _sheet(
        "Ann",
        system="cards",
        attributes={"Strength": 14},
        skills={"Lockpicking": Skill(rating=3, attribute="Dexterity", alternates=["Intelligence"])},
        bonuses={"Strength": 2, "Speed": -1},
        wounds=Wounds(current=3, maximum=10),
        notes="Has a cat.",
    )


async def test_export_then_import_gives_an_equal_sheet(store: Store) -> None:
    original = await store.sheets.create(_full_sheet())
    text = store.sheets.export_json(original)
    assert "guild_id" not in text and '"id"' not in text
    imported = await store.sheets.import_json(G + 1, P + 1, text)
    assert imported.document() == original.document()
    assert await store.sheets.get(G + 1, P + 1, "Ann") == imported
    with pytest.raises(Conflict, match="already have a sheet named"):
        await store.sheets.import_json(G, P, text)
    changed = json.loads(text) | {"notes": "Lost the cat."}
    replaced = await store.sheets.import_json(G, P, json.dumps(changed), replace=True)
    assert replaced.notes == "Lost the cat." and replaced.id == original.id and replaced.active


def _largest(system: str, fill: str) -> SheetDocument:
    """The sheet of ``system`` whose export is the longest: every name and the notes as long as allowed,
    of ``fill``, each skill with a parent and the most alternates, every number as wide as its range."""
    ranges = SHEET_RANGES[system]

    def names(kind: str) -> list[str]:
        return [f"{kind}{i:02d}" + fill * (MAX_NAME - 3) for i in range(MAX_ENTRIES)]

    def widest(bounds: tuple[int, int]) -> int:
        return max(bounds, key=lambda n: len(str(n)))

    attributes = names("A")
    alternates = attributes[:MAX_ALTERNATES]
    return SheetDocument(
        name=fill * MAX_NAME,
        system=system,
        attributes={a: widest(ranges.attributes) for a in attributes},
        skills={
            s: Skill(rating=widest(ranges.skills), attribute=attributes[-1], alternates=alternates)
            for s in names("S")
        },
        bonuses={b: widest(ranges.bonuses) for b in names("B")},
        wounds=Wounds(current=ranges.wounds_max[1], maximum=ranges.wounds_max[1]),
        notes=fill * MAX_NOTES,
    )  # type: ignore[arg-type]


@pytest.mark.parametrize("system", sorted(SHEET_RANGES))
async def test_every_sheet_the_store_holds_exports_to_a_file_import_reads(store: Store, system: str) -> None:
    # names and notes hold no control character (6 characters in JSON, "\u0001"): the longest export in
    # bytes is of characters outside the BMP (4 bytes each); in characters, of quotes (2 each, \")
    sizes, chars = {}, {}
    for fill in ("x", "界", '"', "\U0001d54f"):
        document = _largest(system, fill)
        text = export_json(document)
        sizes[fill], chars[fill] = len(text.encode("utf-8")), len(text)
        assert sizes[fill] <= MAX_IMPORT_CHARS, fill  # the bot's upload cap, in bytes
        imported = await store.sheets.import_json(G, P, text, replace=True)
        assert imported.document() == document
    assert max(sizes, key=sizes.__getitem__) == "\U0001d54f" and max(chars, key=chars.__getitem__) == '"'


names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs")), min_size=1, max_size=64)


@st.composite
def documents(draw: st.DrawFn) -> SheetDocument:
    system = draw(st.sampled_from(sorted(SHEET_RANGES)))
    ranges = SHEET_RANGES[system]
    keys = st.lists(names, max_size=5, unique_by=name_key).filter(lambda xs: all(name_key(x) for x in xs))
    attributes = {k.strip(): draw(st.integers(*ranges.attributes)) for k in draw(keys)}
    # a decision-dice stat is an attribute or a skill, not both (`_stats_once`)
    taken = {name_key(k) for k in attributes} if system == "decision" else set()
    skills = {
        k.strip(): Skill(rating=draw(st.integers(*ranges.skills)), alternates=[a.strip() for a in draw(keys)])
        for k in draw(keys)
        if name_key(k) not in taken
    }
    bonuses = {k.strip(): draw(st.integers(*ranges.bonuses)) for k in draw(keys)}
    top = draw(st.integers(*ranges.wounds_max))
    wounds = draw(st.none() | st.builds(Wounds, current=st.integers(0, top), maximum=st.just(top)))
    name = draw(names.filter(name_key))
    notes = draw(st.text(max_size=200))
    return SheetDocument(
        name=name,
        system=system,
        attributes=attributes,
        skills=skills,
        bonuses=bonuses,
        wounds=wounds,
        notes=notes,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_export_parse_round_trip_and_schema_validity(document: SheetDocument) -> None:
    text = export_json(document)
    jsonschema.validate(json.loads(text), sheet_schema())
    assert parse_sheet_json(text) == document


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        ("not json at all", "is not valid JSON"),
        ("[1, 2, 3]", "is not a character sheet"),
        ('"a sheet"', "is not a character sheet"),
        ('{"name": "Ann"}', "system"),
        ('{"name": "Ann", "system": "sysx", "hp": 3}', "hp"),
        ('{"name": "Ann", "system": "chess"}', "system"),
        ('{"name": "Ann", "system": "sysx", "attributes": {"Str": "12"}}', "Str"),
        ('{"name": "Ann", "system": "sysx", "attributes": {"Str": true}}', "Str"),
        ('{"name": "Ann", "system": "sysx", "skills": {"Sword": {"rating": 99}}}', "runs from 0 to 10"),
        ("[" * MAX_IMPORT_CHARS + "]", "too big"),
        ("[" * 5_000 + "]" * 5_000, "nests deeper"),
        ('{"name": "Ann", "system": "sysx", "notes": ' + json.dumps("x" * MAX_IMPORT_CHARS) + "}", "too big"),
        ('{"name": "Ann", "system": "sysx", "skills": {"S": {"rating": 1, "alternates": '
         '[[[[[[[[[[[[[1]]]]]]]]]]]]]}}}', "nests deeper"),
        # valid UTF-8 and JSON, but more digits than Python reads (4,300)
        ('{"name": "Ann", "system": "dn", "attributes": {"Str": ' + "1" * 5_000 + "}}",
         "thousands of digits"),
        ('{"name": "Ann", "system": "decision", "attributes": {"Grit": 2}, '
         '"skills": {"grit": {"rating": 5}}}', "Grit is both an attribute and a skill"),
    ],
)  # fmt: skip
async def test_bad_imports_are_refused_with_one_sentence_and_change_nothing(
    store: Store, text: str, sentence: str
) -> None:
    await store.sheets.create(_sheet("Keep"))
    before = await rows(store, "sheets")
    with pytest.raises(InvalidData) as err:
        await store.sheets.import_json(G, P, text)
    message = str(err.value)
    assert sentence in message
    assert message.endswith(".") and "\n" not in message and len(message) < 300
    assert await rows(store, "sheets") == before


def test_schema_file_is_in_sync_with_the_models() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), "run: python -m bot.store.schema"
    jsonschema.Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


async def test_exported_sheets_validate_against_the_published_schema(store: Store) -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    sheet = await store.sheets.create(_full_sheet())
    jsonschema.validate(json.loads(store.sheets.export_json(sheet)), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"name": "Ann", "system": "sysx", "extra": 1}, schema)


async def test_the_active_sheet_read_sees_every_kind_of_write(store: Store) -> None:
    # each roll reads the roller's active sheet; every write must show at the next read
    assert await store.sheets.active(G, P, "sysx") is None
    await store.sheets.create(_sheet("Ann"))
    assert (await store.sheets.active(G, P, "sysx")).name == "Ann"
    await store.sheets.set_attribute(G, P, "Ann", "Strength", 14)
    assert (await store.sheets.active(G, P, "sysx")).attributes == {"Strength": 14}
    await store.sheets.create(_sheet("Bea"))
    await store.sheets.use(G, P, "Bea")
    assert (await store.sheets.active(G, P, "sysx")).name == "Bea"
    replacement = export_json(_sheet("Bea", skills={"Climb": Skill(rating=7)}))
    await store.sheets.import_json(G, P, replacement, replace=True)
    assert (await store.sheets.active(G, P, "sysx")).skills == {"Climb": Skill(rating=7)}
    await store.sheets.delete(G, P, "Bea")
    assert await store.sheets.active(G, P, "sysx") is None
    assert (await store.sheets.active(G + 1, P, "sysx")) is None, "another guild's entry is its own"


async def test_another_process_s_sheet_write_is_seen_at_the_next_read(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:
    # nothing read is kept in memory: a second process (here a second Store) writing the same file
    other = await open_store()
    await store.sheets.create(_sheet("Ann"))
    assert (await store.sheets.active(G, P, "sysx")).attributes == {}
    await other.sheets.set_attribute(G, P, "Ann", "Strength", 9)
    assert (await store.sheets.active(G, P, "sysx")).attributes == {"Strength": 9}
    await other.sheets.delete(G, P, "Ann")
    assert await store.sheets.active(G, P, "sysx") is None


async def test_reads_overlapping_writes_end_with_the_written_sheet(store: Store) -> None:
    await store.sheets.create(_sheet("Ann"))
    for value in range(5, 10):
        read, _ = await asyncio.gather(
            store.sheets.active(G, P, "sysx"), store.sheets.set_attribute(G, P, "Ann", "Strength", value)
        )
        assert read is not None
        assert (await store.sheets.active(G, P, "sysx")).attributes == {"Strength": value}
