"""`/sheet` end to end: create, show, list, use, edit, remove, delete, export -> import, refusals."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import FakeDiscord
from bot.local.fake.world import FakeMessage
from bot.store.models import MAX_ALTERNATES, MAX_ENTRIES, MAX_NAME, MAX_NOTES
from bot.ui.embeds import shown_name
from bot.ui.sheets import MAX_SHEET_FILE
from tests.e2e.compact import open_details


async def sheet(harness: Harness, world: World, user, sub: str, options: dict | None = None) -> Answer:
    return await harness.slash(world.guild, world.general, user, f"sheet {sub}", options or {})


async def test_create_show_list_and_use(harness: Harness, world: World) -> None:
    store = harness.bot.store
    made = await sheet(harness, world, world.alice, "create", {"name": "Aria", "system": "sysx"})
    assert made.ephemeral and "Created Aria" in made.content and "active" in made.content
    assert made.embed["title"] == "Aria"
    second = await sheet(harness, world, world.alice, "create", {"name": "Bram", "system": "sysx"})
    assert "/sheet use" in second.content
    listed = await sheet(harness, world, world.alice, "list")
    text = listed.original.text()
    assert "▶ **Aria** (System X, active)" in text and "• Bram (System X)\n" in text
    used = await sheet(harness, world, world.alice, "use", {"name": "bram"})  # names ignore case
    assert "Bram is now your active System X sheet" in used.content
    again = await sheet(harness, world, world.alice, "use", {"name": "Bram"})
    assert "Bram already is your active System X sheet" in again.content
    active = await store.sheets.active(world.guild.id, world.alice.id, "sysx")
    assert active is not None and active.name == "Bram"
    shown = await sheet(harness, world, world.alice, "show", {"name": "Aria"})
    assert shown.ephemeral and "not active" in shown.embed["description"]
    public = await sheet(
        harness, world, world.bob, "show", {"name": "Bram", "member": world.alice, "public": True}
    )
    assert not public.ephemeral and public.embed["title"] == "Bram"
    assert "sheet of Alice" in public.embed["description"]
    # show without a name: the only active sheet
    default = await sheet(harness, world, world.alice, "show")
    assert default.embed["title"] == "Bram"
    duplicate = await sheet(harness, world, world.alice, "create", {"name": "ARIA", "system": "dn"})
    assert duplicate.ephemeral and "already have a sheet named" in duplicate.content
    assert len(await store.sheets.list(world.guild.id, world.alice.id)) == 2


async def test_set_attribute_skill_bonus_wounds_notes_and_remove(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await sheet(harness, world, world.alice, "create", {"name": "Kell", "system": "rps"})
    for attribute, value in (("Strength", 12), ("Agility", 9), ("Dex", 8)):
        await sheet(
            harness,
            world,
            world.alice,
            "set-attribute",
            {"name": "Kell", "attribute": attribute, "value": value},
        )
    answer = await sheet(
        harness,
        world,
        world.alice,
        "set-skill",
        {"name": "Kell", "skill": "Sword", "rating": 7, "parent": "Strength", "alternates": "Agility, Dex"},
    )
    assert "Sword is now 7" in answer.content
    assert "Sword 7 (Strength; or Agility, Dex)" in answer.original.text()  # RPS-1 alternates
    await sheet(harness, world, world.alice, "set-bonus", {"name": "Kell", "bonus": "Hearts", "value": 2})
    wounds = await sheet(harness, world, world.alice, "wounds", {"name": "Kell", "current": 3, "maximum": 10})
    assert "Wounds are now 3 / 10" in wounds.content
    await sheet(harness, world, world.alice, "notes", {"name": "Kell", "notes": "Owes the guild 5 gold."})
    stored = await store.sheets.get(world.guild.id, world.alice.id, "Kell")
    assert stored.attributes == {"Strength": 12, "Agility": 9, "Dex": 8}
    assert stored.skills["Sword"].rating == 7 and stored.skills["Sword"].alternates == ["Agility", "Dex"]
    assert stored.bonuses == {"Hearts": 2} and stored.wounds is not None and stored.wounds.current == 3
    assert stored.notes == "Owes the guild 5 gold."
    removed = await sheet(
        harness, world, world.alice, "remove", {"name": "Kell", "section": "skill", "key": "sword"}
    )
    assert "Removed the skill sword" in removed.content
    assert (await store.sheets.get(world.guild.id, world.alice.id, "Kell")).skills == {}
    missing = await sheet(
        harness, world, world.alice, "remove", {"name": "Kell", "section": "skill", "key": "Axe"}
    )
    assert missing.ephemeral and missing.content == "The sheet 'Kell' has no skill named 'Axe'."


async def test_out_of_range_values_are_refused_with_the_store_sentence(
    harness: Harness, world: World
) -> None:
    store = harness.bot.store
    await sheet(harness, world, world.alice, "create", {"name": "Aria", "system": "sysx"})
    before = await store.sheets.get(world.guild.id, world.alice.id, "Aria")
    skill = await sheet(
        harness, world, world.alice, "set-skill", {"name": "Aria", "skill": "Sword", "rating": 11}
    )
    assert skill.ephemeral
    assert skill.content == "A System X skill runs from 0 to 10, so Sword cannot be 11."
    attribute = await sheet(
        harness, world, world.alice, "set-attribute", {"name": "Aria", "attribute": "Strength", "value": 25}
    )
    assert attribute.content == "A System X attribute runs from 1 to 20, so Strength cannot be 25."
    wounds = await sheet(harness, world, world.alice, "wounds", {"name": "Aria", "current": 9, "maximum": 5})
    assert wounds.ephemeral and "Current wounds run from 0 to the maximum 5, not 9." in wounds.content
    assert skill.public() == attribute.public() == wounds.public() == []
    assert await store.sheets.get(world.guild.id, world.alice.id, "Aria") == before


async def test_delete_needs_confirmation(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await sheet(harness, world, world.alice, "create", {"name": "Aria", "system": "dn"})
    refused = await sheet(harness, world, world.alice, "delete", {"name": "Aria"})
    assert refused.ephemeral and "confirm: True" in refused.content
    assert len(await store.sheets.list(world.guild.id, world.alice.id)) == 1
    deleted = await sheet(harness, world, world.alice, "delete", {"name": "aria", "confirm": True})
    assert deleted.content == "Deleted the sheet Aria."
    assert await store.sheets.list(world.guild.id, world.alice.id) == []
    again = await sheet(harness, world, world.alice, "delete", {"name": "Aria", "confirm": True})
    assert again.content == "You have no sheet named 'Aria'."


async def test_export_then_import_gives_an_equal_sheet(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    store = harness.bot.store
    await sheet(harness, world, world.alice, "create", {"name": "Aria Vell", "system": "cards"})
    await sheet(
        harness, world, world.alice, "set-attribute", {"name": "Aria Vell", "attribute": "Wits", "value": 14}
    )
    await sheet(
        harness, world, world.alice, "set-skill", {"name": "Aria Vell", "skill": "Lockpicking", "rating": 4}
    )
    await sheet(
        harness, world, world.alice, "set-bonus", {"name": "Aria Vell", "bonus": "Spades", "value": 1}
    )
    exported = await sheet(harness, world, world.alice, "export", {"name": "Aria Vell"})
    assert exported.ephemeral
    [file] = exported.original.attachments
    assert file.filename == "Aria_Vell.sheet.json"
    document = json.loads(file.data)
    assert document["name"] == "Aria Vell" and document["skills"]["Lockpicking"]["rating"] == 4
    assert "owner_id" not in document and "id" not in document
    upload = fake.attachment(file.filename, file.data)
    imported = await sheet(harness, world, world.bob, "import", {"file": upload})
    assert imported.ephemeral and "Imported Aria Vell (cards)" in imported.content
    original = await store.sheets.get(world.guild.id, world.alice.id, "Aria Vell")
    copy = await store.sheets.get(world.guild.id, world.bob.id, "Aria Vell")
    assert copy.document() == original.document()
    # importing over an existing sheet needs replace
    clash = await sheet(harness, world, world.alice, "import", {"file": upload})
    assert clash.ephemeral and "already have a sheet named" in clash.content
    replaced = await sheet(harness, world, world.alice, "import", {"file": upload, "replace": True})
    assert "Imported" in replaced.content


async def test_import_refuses_what_is_not_a_sheet_and_stores_nothing(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    store = harness.bot.store
    valid = json.dumps({"name": "Huge", "system": "dn", "notes": "x" * 10}).encode()
    cases = {
        "not JSON": fake.attachment("sheet.json", b"this is not json"),
        "a list": fake.attachment("sheet.json", b"[1, 2, 3]"),
        "another object": fake.attachment("sheet.json", b'{"hello": "world"}'),
        "bad range": fake.attachment(
            "sheet.json",
            json.dumps({"name": "X", "system": "sysx", "skills": {"Sword": {"rating": 99}}}).encode(),
        ),
        "binary": fake.attachment("sheet.png", b"\x89PNG\r\n\x1a\n\xff\xfe", "image/png"),
        "too big": fake.attachment("sheet.json", valid[:-1] + b" " * MAX_SHEET_FILE + b"}"),
    }
    sentences = {}
    for why, upload in cases.items():
        answer = await sheet(harness, world, world.bob, "import", {"file": upload})
        assert answer.ephemeral, why
        assert answer.public() == [], why
        assert answer.content.count(".") >= 1 and "\n" not in answer.content, why
        sentences[why] = answer.content
    assert "not valid JSON" in sentences["not JSON"]
    assert "not a character sheet" in sentences["a list"]
    assert "not a character sheet" in sentences["binary"]
    assert sentences["bad range"] == "A System X skill runs from 0 to 10, so Sword cannot be 99."
    assert "at most 300,000" in sentences["too big"]
    assert sentences["another object"] == "The file has no name; a sheet needs at least a name and a system."
    assert await store.sheets.list(world.guild.id, world.bob.id) == []
    assert harness.take_errors() == []


async def test_autocomplete_offers_names_and_entries(harness: Harness, world: World) -> None:
    for name in ("Aria", "Bram", "Carys"):
        await sheet(harness, world, world.alice, "create", {"name": name, "system": "rps"})
    await sheet(
        harness, world, world.alice, "set-attribute", {"name": "Aria", "attribute": "Strength", "value": 9}
    )
    for skill, rating in (("Swordplay", 5), ("Stealth", 3)):
        await sheet(
            harness,
            world,
            world.alice,
            "set-skill",
            {"name": "Aria", "skill": skill, "rating": rating, "parent": "Strength"},
        )
    names = await harness.autocomplete(
        world.guild, world.general, world.alice, "sheet use", {"name": "ar"}, "name"
    )
    assert [c["value"] for c in names.choices] == ["Aria", "Carys"]  # prefix first, then contains
    nobody = await harness.autocomplete(
        world.guild, world.general, world.bob, "sheet use", {"name": ""}, "name"
    )
    assert nobody.choices == []  # bob sees none of alice's names
    skills = await harness.autocomplete(
        world.guild, world.general, world.alice, "sheet set-skill", {"name": "Aria", "skill": "s"}, "skill"
    )
    assert [c["value"] for c in skills.choices] == ["Stealth", "Swordplay"]
    keys = await harness.autocomplete(
        world.guild,
        world.general,
        world.alice,
        "sheet remove",
        {"name": "Aria", "section": "attribute", "key": ""},
        "key",
    )
    assert [c["value"] for c in keys.choices] == ["Strength"]
    theirs = await harness.autocomplete(
        world.guild, world.general, world.bob, "sheet show", {"member": world.alice, "name": "b"}, "name"
    )
    assert [c["value"] for c in theirs.choices] == ["Bram"]


async def test_sheets_in_dms_are_the_players_own_and_apart_from_the_guilds(
    harness: Harness, world: World
) -> None:
    store = harness.bot.store
    await sheet(harness, world, world.alice, "create", {"name": "Aria", "system": "sysx"})
    made = await harness.slash(
        None, None, world.alice, "sheet create", {"name": "Solo", "system": "decision"}
    )
    assert "Created Solo" in made.content
    listed = await harness.slash(None, None, world.alice, "sheet list")
    assert "Solo" in listed.original.text() and "Aria" not in listed.original.text()
    assert [s.name for s in await store.sheets.list(0, world.alice.id)] == ["Solo"]  # guild key 0


async def test_nobody_reads_another_players_dm_sheets(harness: Harness, world: World) -> None:
    # Every DM's sheets share guild key 0: from her own DM, Alice must not reach Bob's (by a member option)
    await harness.slash(None, None, world.bob, "sheet create", {"name": "Secret", "system": "rps"})
    await harness.slash(
        None, None, world.bob, "sheet set-attribute", {"name": "Secret", "attribute": "Wits", "value": 9}
    )
    await harness.slash(
        None,
        None,
        world.bob,
        "sheet set-skill",
        {"name": "Secret", "skill": "Lockpicking", "rating": 9, "parent": "Wits"},
    )
    for sub in ("show", "list"):
        refused = await harness.slash(None, None, world.alice, f"sheet {sub}", {"member": world.bob})
        assert refused.ephemeral and refused.content.startswith("In DMs you can see only your own sheets")
        assert "Secret" not in refused.original.text() and "Lockpicking" not in refused.original.text()
    names = await harness.autocomplete(
        None, None, world.alice, "sheet show", {"member": world.bob, "name": ""}, "name"
    )
    assert names.choices == []
    resisted = await harness.slash(
        None,
        None,
        world.alice,
        "rps resisted",
        {"party1": "Door", "base1": 10, "member2": world.bob, "party2": "Lockpicking"},
    )
    assert resisted.ephemeral and "has no active RPS sheet" in resisted.content
    assert "Lockpicking 9" not in resisted.original.text()
    skills = await harness.autocomplete(
        None, None, world.alice, "rps resisted", {"member2": world.bob, "party2": ""}, "party2"
    )
    assert skills.choices == []
    # Bob himself still sees his own
    own = await harness.slash(None, None, world.bob, "sheet show", {"name": "Secret"})
    assert "Lockpicking" in own.original.text()


# Python's and pydantic's words a player must never see in a refusal
PYTHON_WORDS = (
    "Error", "dict", "Input should", "pydantic", "Traceback", "int_", "str", "None", "[key]", "validation",
    "items", ".0",
)  # fmt: skip


async def test_blank_names_are_refused_in_plain_words(harness: Harness, world: World) -> None:
    store = harness.bot.store
    blank = await sheet(harness, world, world.alice, "create", {"name": "   ", "system": "cards"})
    assert blank.ephemeral and blank.content == "A sheet's name is empty."
    await sheet(harness, world, world.alice, "create", {"name": "Ayla", "system": "cards"})
    before = await store.sheets.get(world.guild.id, world.alice.id, "Ayla")
    skill = await sheet(
        harness, world, world.alice, "set-skill", {"name": "Ayla", "skill": "  ", "rating": 7}
    )
    assert skill.ephemeral and skill.content == "A skill name is empty."
    for answer in (blank, skill):
        assert not any(word in answer.content for word in PYTHON_WORDS), answer.content
    assert await store.sheets.get(world.guild.id, world.alice.id, "Ayla") == before


async def test_too_many_or_too_long_entries_are_refused_in_plain_words(
    harness: Harness, world: World
) -> None:
    # pydantic's own words ("list should have at most 10 items after validation") reached players
    store = harness.bot.store
    attributes = {f"Attribute {i}": 5 for i in range(11)}
    skills = {f"Skill {i}": {"rating": 1, "attribute": "Attribute 0"} for i in range(MAX_ENTRIES)}
    await store.sheets.create(
        {"guild_id": world.guild.id, "owner_id": world.alice.id, "name": "Full", "system": "sysx"}
        | {"attributes": attributes, "skills": skills}
    )
    before = await store.sheets.get(world.guild.id, world.alice.id, "Full")
    cases = {
        "A skill has at most 10 alternates; you gave 11.": {
            "skill": "Skill 1", "alternates": ", ".join(list(attributes)[:11]),
        },
        "An alternate's name can be at most 64 characters long, not 100.": {
            "skill": "Skill 1", "alternates": "x" * 100,
        },
        "A sheet holds at most 50 skills.": {"skill": "One more", "parent": "Attribute 0"},
    }  # fmt: skip
    for sentence, options in cases.items():
        answer = await sheet(
            harness, world, world.alice, "set-skill", {"name": "Full", "rating": 3} | options
        )
        assert answer.ephemeral and answer.public() == []
        assert answer.content == sentence
        assert not any(word in answer.content for word in PYTHON_WORDS), answer.content
    assert await store.sheets.get(world.guild.id, world.alice.id, "Full") == before


async def test_a_name_s_markdown_is_shown_as_typed(harness: Harness, world: World) -> None:
    made = await sheet(harness, world, world.alice, "create", {"name": "**Bold**", "system": "cards"})
    assert made.content.startswith("Created \\*\\*Bold\\*\\*.")  # Discord shows **Bold**, not Bold
    skill = await sheet(
        harness, world, world.alice, "set-skill", {"name": "**Bold**", "skill": "_x_", "rating": 3}
    )
    assert skill.content == "\\_x\\_ is now 3."


async def test_item11_set_skill_refuses_a_parent_the_sheet_lacks(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await sheet(harness, world, world.alice, "create", {"name": "Aria", "system": "sysx"})
    await sheet(
        harness, world, world.alice, "set-attribute", {"name": "Aria", "attribute": "Agility", "value": 12}
    )
    before = await store.sheets.get(world.guild.id, world.alice.id, "Aria")
    typo = await sheet(
        harness,
        world,
        world.alice,
        "set-skill",
        {"name": "Aria", "skill": "Climb", "rating": 5, "parent": "Agilty"},
    )
    assert typo.ephemeral and typo.public() == []
    assert typo.content == "The sheet Aria has no attribute named 'Agilty'; it has Agility."
    alternate = await sheet(
        harness,
        world,
        world.alice,
        "set-skill",
        {"name": "Aria", "skill": "Climb", "rating": 5, "parent": "agility", "alternates": "Strength"},
    )
    assert alternate.content == "The sheet Aria has no attribute named 'Strength'; it has Agility."
    assert await store.sheets.get(world.guild.id, world.alice.id, "Aria") == before  # nothing stored
    saved = await sheet(
        harness,
        world,
        world.alice,
        "set-skill",
        {"name": "Aria", "skill": "Climb", "rating": 5, "parent": "agility"},
    )
    assert saved.content == "Climb is now 5."
    stored = await store.sheets.get(world.guild.id, world.alice.id, "Aria")
    assert stored.skills["Climb"].attribute == "Agility"  # as the sheet spells it


async def test_item11_a_system_x_skill_without_a_parent_is_refused_when_saved(
    harness: Harness, world: World
) -> None:
    store = harness.bot.store
    await sheet(harness, world, world.alice, "create", {"name": "Aria", "system": "sysx"})
    bare = await sheet(
        harness, world, world.alice, "set-skill", {"name": "Aria", "skill": "Climb", "rating": 5}
    )
    assert bare.ephemeral and bare.public() == []
    assert bare.content == (
        "System X skills are rolled with the attribute they add, so Climb needs a parent; "
        "add an attribute with /sheet set-attribute first."
    )
    await sheet(
        harness, world, world.alice, "set-attribute", {"name": "Aria", "attribute": "Agility", "value": 12}
    )
    named = await sheet(
        harness, world, world.alice, "set-skill", {"name": "Aria", "skill": "Climb", "rating": 5}
    )
    assert named.content.endswith("so Climb needs a parent; it has Agility.")
    assert (await store.sheets.get(world.guild.id, world.alice.id, "Aria")).skills == {}
    # RPS adds a parent too (RPS-1); a Difficulty Number skill may name its characteristics per roll (DN-1)
    await sheet(harness, world, world.alice, "create", {"name": "Kell", "system": "rps"})
    rps = await sheet(
        harness, world, world.alice, "set-skill", {"name": "Kell", "skill": "Sword", "rating": 5}
    )
    assert rps.content.startswith("RPS skills are rolled with the attribute they add, so Sword needs")
    await sheet(harness, world, world.alice, "create", {"name": "Dana", "system": "dn"})
    dn = await sheet(harness, world, world.alice, "set-skill", {"name": "Dana", "skill": "Swim", "rating": 5})
    assert dn.content == "Swim is now 5."
    # once it has a parent, a new rating keeps it; a dash clears the alternates
    await sheet(
        harness, world, world.alice, "set-attribute", {"name": "Aria", "attribute": "Wits", "value": 9}
    )
    await sheet(
        harness,
        world,
        world.alice,
        "set-skill",
        {"name": "Aria", "skill": "Climb", "rating": 5, "parent": "Agility", "alternates": "Wits"},
    )
    again = await sheet(
        harness, world, world.alice, "set-skill", {"name": "Aria", "skill": "climb", "rating": 7}
    )
    assert again.content == "climb is now 7."
    climb = (await store.sheets.get(world.guild.id, world.alice.id, "Aria")).skills["climb"]
    assert (climb.rating, climb.attribute, climb.alternates) == (7, "Agility", ["Wits"])
    await sheet(
        harness,
        world,
        world.alice,
        "set-skill",
        {"name": "Aria", "skill": "Climb", "rating": 7, "alternates": "-"},
    )
    climb = (await store.sheets.get(world.guild.id, world.alice.id, "Aria")).skills["Climb"]
    assert (climb.attribute, climb.alternates) == ("Agility", [])


async def test_item11_sheet_list_marks_the_one_active_sheet(harness: Harness, world: World) -> None:
    for name in ("Aria", "Bram", "Cass"):
        await sheet(harness, world, world.alice, "create", {"name": name, "system": "sysx"})
    await sheet(harness, world, world.alice, "use", {"name": "Bram"})
    listed = await sheet(harness, world, world.alice, "list")
    lines = listed.embed["description"].splitlines()
    assert lines == ["• Aria (System X)", "▶ **Bram** (System X, active)", "• Cass (System X)"]
    assert listed.embed["description"].count("active") == 1
    assert "active" in listed.embed["footer"]["text"]


async def test_item11_bad_imports_say_what_is_wrong_in_plain_words(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    store = harness.bot.store

    def upload(document: object) -> object:
        return fake.attachment("sheet.json", json.dumps(document).encode())

    cases = {
        "Line 4 of the file is not valid JSON at column 3: a comma is missing before it.": fake.attachment(
            "sheet.json", b'{\n  "name": "Aria",\n  "system": "sysx"\n  "notes": ""\n}'
        ),
        "The file is not a character sheet: it holds a list, not one object in { }.": upload([1, 2]),
        "skills.Climb.rating must be a whole number from 0 to 10.": upload(
            {"name": "Aria", "system": "sysx", "skills": {"Climb": {"rating": "3"}}}
        ),
        "attributes.Strength must be a whole number from 1 to 30.": upload(
            {"name": "Aria", "system": "dn", "attributes": {"Strength": True}}
        ),
        'skills must be an object of skills, like {"Climb": {"rating": 3, "attribute": "Agility"}}.': upload(
            {"name": "Aria", "system": "sysx", "skills": ["Climb"]}
        ),
        "system must be one of sysx, dn, rps, decision, cards.": upload({"name": "Aria", "system": "chess"}),
        "hp is not part of a character sheet; remove it from the file.": upload(
            {"name": "Aria", "system": "sysx", "hp": 3}
        ),
        "That file is 300,001 bytes; a sheet file is at most 300,000.": fake.attachment(
            "sheet.json", b" " * 300_001
        ),
    }
    for sentence, file in cases.items():
        answer = await sheet(harness, world, world.bob, "import", {"file": file})
        assert answer.ephemeral and answer.public() == []
        assert answer.content == sentence
        assert not any(word in answer.content for word in PYTHON_WORDS), answer.content
    assert await store.sheets.list(world.guild.id, world.bob.id) == []


async def test_item11_an_imported_skill_without_its_parent_is_named_at_once(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    document = {
        "name": "Aria",
        "system": "sysx",
        "attributes": {"Agility": 12},
        "skills": {"Climb": {"rating": 4}},
    }
    file = fake.attachment("sheet.json", json.dumps(document).encode())
    answer = await sheet(harness, world, world.bob, "import", {"file": file})
    assert answer.content == (
        "Imported Aria (System X). Before rolling with it: System X skills are rolled with the attribute "
        "they add, so Climb needs a parent; it has Agility."
    )


async def test_names_read_as_typed_and_never_backwards(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    # a right-to-left override in a name would show the table a result written backwards: it is dropped from
    # options and stored names; markdown in a sheet's name is shown as typed in results and their Details
    store = harness.bot.store
    rlo = "\u202e"
    made = await sheet(
        harness, world, world.alice, "create", {"name": f"**Grim**{rlo}", "system": "decision"}
    )
    assert made.ephemeral and rlo not in made.content
    grim = await store.sheets.get(world.guild.id, world.alice.id, "**Grim**")
    assert grim.name == "**Grim**"
    await sheet(
        harness,
        world,
        world.alice,
        "set-attribute",
        {"name": "**Grim**", "attribute": f"Wits{rlo}", "value": 2},
    )
    assert list((await store.sheets.get(world.guild.id, world.alice.id, "**Grim**")).attributes) == ["Wits"]
    rolled = await harness.slash(
        world.guild, world.general, world.alice, "decision roll", {"stat_name": "Wits", "target": 6}
    )
    assert rolled.embed["title"].startswith("\\*\\*Grim\\*\\* - Wits: ")
    details = await open_details(harness, rolled.original, world.alice)
    assert "**Grim**'s" not in str(details) and rlo not in str(details)
    assert "Grim" in json.dumps(details)  # named, escaped
    contest = await harness.slash(
        world.guild, world.general, world.alice, "decision contested", {"npc1": f"Orc{rlo}", "npc2": "Elf"}
    )
    assert rlo not in contest.text() and "Orc" in contest.text()
    # a sheet file carries its names past the options: the store drops the control there
    file = fake.attachment("nox.json", json.dumps({"name": f"Nox{rlo}", "system": "decision"}).encode())
    imported = await sheet(harness, world, world.alice, "import", {"file": file})
    assert imported.ephemeral and rlo not in imported.content
    assert (await store.sheets.get(world.guild.id, world.alice.id, "Nox")).name == "Nox"


async def test_control_and_invisible_characters_leave_names_and_notes(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    # a tab or a line break in a name would split a one-line result, a bell or a zero-width space hides a
    # difference between two names: a name is one line without them, typed or imported; notes keep lines
    store = harness.bot.store
    made = await sheet(
        harness, world, world.alice, "create", {"name": "Aria\tVell\x07\u200b", "system": "decision"}
    )
    assert made.ephemeral and "Created Aria Vell" in made.content
    assert (await store.sheets.get(world.guild.id, world.alice.id, "aria vell")).name == "Aria Vell"
    await sheet(
        harness,
        world,
        world.alice,
        "set-attribute",
        {"name": "Aria Vell", "attribute": "Wits\x1b", "value": 2},
    )
    await sheet(harness, world, world.alice, "notes", {"name": "Aria Vell\u00ad", "notes": "Owes\x00 Bram"})
    kept = await store.sheets.get(world.guild.id, world.alice.id, "Aria Vell")
    assert list(kept.attributes) == ["Wits"] and kept.notes == "Owes Bram"
    rolled = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "decision contested",
        {"npc1": "Orc\n\x85chief", "npc2": "Elf"},
    )
    assert "Orc chief" in rolled.text() and "\x85" not in rolled.text()
    # a sheet file: the same cleaning for every name in it; its notes keep their lines, in any line ending
    document = {
        "name": "Nox\r\nUmbra\ufeff",
        "system": "dn",
        "attributes": {"Str\u2060ength": 12},
        "skills": {"Climb\x7f": {"rating": 3, "attribute": "strength\x9b"}},
        "notes": "Line one\r\nLine\x00 two\u2028Line\tthree",
    }
    file = fake.attachment("nox.json", json.dumps(document).encode())
    imported = await sheet(harness, world, world.alice, "import", {"file": file})
    assert imported.ephemeral and "Imported Nox Umbra (Difficulty Number)" in imported.content
    nox = await store.sheets.get(world.guild.id, world.alice.id, "Nox Umbra")
    assert nox.name == "Nox Umbra" and list(nox.attributes) == ["Strength"]
    assert list(nox.skills) == ["Climb"] and nox.skills["Climb"].attribute == "strength"
    assert nox.notes == "Line one\nLine two\nLine\tthree"
    # two names that differ only by an invisible character are two names alike: refused, not merged
    twins = {"name": "Twins", "system": "dn", "attributes": {"Wits": 1, "Wi\u200bts": 2}}
    file = fake.attachment("twins.json", json.dumps(twins).encode())
    refused = await sheet(harness, world, world.alice, "import", {"file": file})
    assert refused.ephemeral and "two characteristics named 'Wits'" in refused.content
    assert [s.name for s in await store.sheets.list(world.guild.id, world.alice.id)] == [
        "Aria Vell",
        "Nox Umbra",
    ]


async def test_notes_show_as_typed_line_by_line_and_ping_no_one(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    # notes are the player's own text: markdown shows as typed (no heading, quote, list or masked link), each
    # line on its own line, and a mention in them shows as one but pings no one
    notes = (
        "**Owes** Bram _5 gold_\n# Not a heading\n> not a quote\n[map](https://example.com)\n"
        "- not a list\n1. nor this\n\n@everyone <@42>"
    )
    document = {"name": "Quill", "system": "dn", "notes": notes}
    file = fake.attachment("quill.json", json.dumps(document).encode())
    await sheet(harness, world, world.alice, "import", {"file": file})
    shown = await sheet(harness, world, world.alice, "show", {"name": "Quill", "public": True})
    [message] = shown.public()
    [field] = [f for f in message.embeds[0]["fields"] if f["name"] == "Notes"]
    assert field["value"].splitlines() == [
        "\\*\\*Owes\\*\\* Bram \\_5 gold\\_",
        "\\# Not a heading",
        "\\> not a quote",
        "\\[map](https://example.com)",
        "\\- not a list",
        "1\\. nor this",
        "",
        "@everyone <@42>",
    ]
    assert message.allowed_mentions == {"parse": []}
    # the same from the /sheet notes option, which is one line
    await sheet(
        harness, world, world.alice, "notes", {"name": "Quill", "notes": "||spoiler|| `code` ~~gone~~"}
    )
    again = await sheet(harness, world, world.alice, "show", {"name": "Quill"})
    [field] = [f for f in again.embed["fields"] if f["name"] == "Notes"]
    assert field["value"] == "\\|\\|spoiler\\|\\| \\`code\\` \\~\\~gone\\~\\~"
    assert again.original.allowed_mentions == {"parse": []}


async def test_export_of_one_of_several_sheets_asks_which_to_export(harness: Harness, world: World) -> None:
    for name, system in (("Ayla", "cards"), ("_Bo_", "dn")):  # each the active sheet of its system
        await sheet(harness, world, world.alice, "create", {"name": name, "system": system})
    answer = await sheet(harness, world, world.alice, "export")
    assert answer.ephemeral
    assert answer.content == "Name the sheet to export; there are several: \\_Bo\\_, Ayla."


def within_discord_limits(message: FakeMessage) -> None:
    """Every limit Discord sets on a message's embeds: past any of them it answers 400 (or cuts text)."""
    assert 1 <= len(message.embeds) <= 10
    total = 0
    for embed in message.embeds:
        fields = embed.get("fields", [])
        texts = [
            embed.get("title", ""),
            embed.get("description", ""),
            embed.get("footer", {}).get("text", ""),
        ]
        assert len(texts[0]) <= 256 and len(texts[1]) <= 4096 and len(texts[2]) <= 2048
        assert len(fields) <= 25
        for fld in fields:
            assert fld["name"].strip() and len(fld["name"]) <= 256, fld
            assert fld["value"].strip() and len(fld["value"]) <= 1024, fld
            assert not fld["value"].endswith("…"), "nothing is clipped"
        total += sum(map(len, texts)) + sum(len(f["name"]) + len(f["value"]) for f in fields)
    assert total <= 6000


def largest_sheet(name: str, fill: str, system: str = "sysx") -> dict[str, Any]:
    """The largest sheet the store accepts: every section full of names of the longest length (``fill``
    after a numbered prefix), each skill with a parent and the most alternates, the longest notes."""

    def names(kind: str) -> list[str]:
        return [f"{kind}{i:02d}" + fill * (MAX_NAME - 3) for i in range(MAX_ENTRIES)]

    attributes = names("A")
    skills = {
        skill: {
            "rating": i % 11,
            "attribute": attributes[i],
            "alternates": [attributes[(i + k) % MAX_ENTRIES] for k in range(1, MAX_ALTERNATES + 1)],
        }
        for i, skill in enumerate(names("S"))
    }
    notes = " ".join(f"n{i:03d}" for i in range(400))
    assert len(notes) <= MAX_NOTES and len(notes) > MAX_NOTES - 5
    return {
        "name": name,
        "system": system,
        "attributes": {a: 1 + i % 20 for i, a in enumerate(attributes)},
        "skills": skills,
        "bonuses": {b: i % 21 - 10 for i, b in enumerate(names("B"))},
        "wounds": {"current": 3, "maximum": 60},
        "notes": notes,
    }


def shows_every_entry(messages: list[FakeMessage], document: dict[str, Any]) -> None:
    """Each attribute, skill (with its parent and alternates), bonus and word of the notes is shown."""
    # the fields in the order they are read: a long line goes on in the next field, maybe the next message
    lines = "\n".join(
        f["value"] for m in messages for e in m.embeds for f in e.get("fields", [])
    ).splitlines()
    for section, sign in (("attributes", ""), ("bonuses", "+")):
        for entry, value in document.get(section, {}).items():
            assert f"{shown_name(entry)} {value:{sign}d}" in lines, (entry, value)
    for skill, entry in document["skills"].items():
        head = f"{shown_name(skill)} {entry['rating']} ("
        start = next(i for i, line in enumerate(lines) if line.startswith(head))
        # cut only between two names: the first pieces of the line end with a comma
        end = next(i for i in range(start, len(lines)) if not lines[i].endswith(","))
        shown = " ".join(lines[start : end + 1])
        parents = [shown_name(entry["attribute"]), *map(shown_name, entry["alternates"])]
        assert shown == f"{head}{parents[0]}; or {', '.join(parents[1:])})", skill
    for word in document.get("notes", "").split():
        assert any(word in line.split() for line in lines), word
    if document.get("wounds"):
        assert f"{document['wounds']['current']} / {document['wounds']['maximum']}" in lines


async def test_a_realistic_system_x_sheet_shows_every_skill_in_one_message(
    harness: Harness, world: World
) -> None:
    # 12 attributes and 30 skills, each with a parent and an alternate, are more than one field holds
    attributes = [f"Attribute number {i}" for i in range(12)]
    document = {
        "name": "Aria",
        "system": "sysx",
        "attributes": {a: 10 for a in attributes},
        "skills": {
            f"Skill of some length {i}": {
                "rating": 5, "attribute": attributes[i % 12], "alternates": [attributes[(i + 1) % 12]]
            }
            for i in range(30)
        },
    }  # fmt: skip
    await harness.bot.store.sheets.create(
        {**document, "guild_id": world.guild.id, "owner_id": world.alice.id}
    )
    shown = await sheet(harness, world, world.alice, "show", {"name": "Aria"})
    assert shown.messages == [shown.original]
    within_discord_limits(shown.original)
    names = [f["name"] for f in shown.embed["fields"]]
    assert names[:3] == ["Attributes", "Skills", "Skills (continued)"]
    shows_every_entry([shown.original], document)


async def test_the_largest_sheet_shows_every_entry_within_discord_s_limits(
    harness: Harness, world: World
) -> None:
    # markdown characters are escaped when shown, so names of underscores are the longest to show
    document = largest_sheet("Max", "_")
    await harness.bot.store.sheets.create(
        {**document, "guild_id": world.guild.id, "owner_id": world.alice.id}
    )
    shown = await sheet(harness, world, world.alice, "show", {"name": "Max"})
    messages = [m for m in shown.messages if not m.deleted]
    assert len(messages) > 1 and all(m.ephemeral for m in messages)
    for message in messages:
        within_discord_limits(message)
    shows_every_entry(messages, document)
    # the answers of the edits show the whole sheet too; shown to the channel, every part is public
    first = next(iter(document["attributes"]))
    edited = await sheet(
        harness, world, world.alice, "set-attribute", {"name": "Max", "attribute": first, "value": 9}
    )
    assert edited.content == f"{shown_name(first)} is now 9."
    for message in edited.messages:
        within_discord_limits(message)
    document["attributes"][first] = 9
    shows_every_entry(edited.messages, document)
    public = await sheet(
        harness, world, world.bob, "show", {"name": "Max", "member": world.alice, "public": True}
    )
    assert len(public.public()) == len(messages) and public.ephemeral_messages() == []
    shows_every_entry(public.messages, document)


@pytest.mark.parametrize("fill", ["界", "𝄞", '"'])
async def test_the_largest_sheet_exports_to_a_file_import_reads_back(
    harness: Harness, world: World, fake: FakeDiscord, fill: str
) -> None:
    # in the file a CJK character takes 3 bytes, one past the BMP 4, a quote 2 (\"; a name holds no
    # control character, 6): the export of such a sheet was refused by import, which read 65,536 bytes at most
    store = harness.bot.store
    document = largest_sheet(fill * MAX_NAME, fill) | {"notes": fill * MAX_NOTES}
    original = await store.sheets.create({**document, "guild_id": world.guild.id, "owner_id": world.alice.id})
    exported = await sheet(harness, world, world.alice, "export", {"name": original.name})
    [file] = exported.original.attachments
    size = len(file.data)
    assert 64 * 1024 < size <= MAX_SHEET_FILE, size
    upload = fake.attachment(file.filename, file.data)
    jobs = harness.bot.chart_workers.jobs
    imported = await sheet(harness, world, world.bob, "import", {"file": upload})
    assert imported.ephemeral and imported.content.startswith(f"Imported {shown_name(original.name)} (")
    assert harness.bot.chart_workers.jobs == jobs + 1  # read in a worker process, not on the event loop
    copy = await store.sheets.get(world.guild.id, world.bob.id, original.name)
    assert copy.document() == original.document()
    await store.sheets.set_notes(world.guild.id, world.alice.id, original.name, "changed")
    replaced = await sheet(harness, world, world.alice, "import", {"file": upload, "replace": True})
    assert replaced.content.startswith("Imported")
    again = await store.sheets.get(world.guild.id, world.alice.id, original.name)
    assert again.document() == original.document() and again.id == original.id
