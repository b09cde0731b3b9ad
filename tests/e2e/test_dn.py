"""/dn end to end against the fake Discord with the seeded dice (DICE_SEED 1234).

Expected results come from the core with the same seeded d20 the bot rolls.
"""

from __future__ import annotations

import random
from typing import Any

from bot.core import dn
from bot.core.dice import Dice
from bot.local.fake.harness import Answer, Harness, World
from bot.ui.dn import LEVEL_GLOSS
from bot.ui.embeds import VERDICT_COLOURS
from tests.e2e.compact import assert_compact, open_details

SEED = 1234


def seeded(count: int) -> list[int]:
    dice = Dice(random.Random(SEED))
    return [dice.d20() for _ in range(count)]


def field(embed: dict[str, Any], name: str) -> str:
    for item in embed.get("fields", []):
        if item["name"].startswith(name):
            return str(item["value"])
    raise AssertionError(f"no field {name!r} in {[f['name'] for f in embed.get('fields', [])]}")


async def dn_sheet(harness: Harness, world: World, user: Any = None) -> None:
    await harness.bot.store.sheets.create(
        {
            "guild_id": world.guild.id,
            "owner_id": (user or world.alice).id,
            "name": "Dara",
            "system": "dn",
            "attributes": {"DEX": 13, "STR": 11, "INT": 8},
            "skills": {
                "Climb": {"rating": 6, "attribute": "DEX"},
                "Cipher": {"rating": 4, "attribute": "INT"},
                "Lore": {"rating": 5},
            },
        }
    )


async def slash(
    harness: Harness, world: World, path: str, options: dict[str, Any], user: Any = None
) -> Answer:
    return await harness.slash(world.guild, world.general, user or world.alice, f"dn {path}", options)


async def assert_check(
    harness: Harness, answer: Answer, value: int, natural: int, user: Any
) -> tuple[dn.DnCheck, dict[str, Any]]:
    """The compact result shows the d20 against the DN and the level; its details (opened by ``user``)
    show DN, roll, level, margin and DN-5's levels for this DN. Returns the check and the details."""
    expected = dn.check(value, natural)
    lines = assert_compact(answer.original)
    needed = "no roll can succeed at a DN of 0 or less" if value <= 0 else f"needed {value} or less"
    assert lines[0] == f"d20 **{natural}**, {needed} (margin {expected.margin:+d})"
    gloss = LEVEL_GLOSS.get(expected.level)
    assert (
        (lines[1] == f"{expected.level.value.capitalize()}: {gloss}")
        if gloss
        else len(lines) < 2 or "GM" in lines[1]
    )
    assert answer.embed["color"] == VERDICT_COLOURS[expected.verdict].value
    embed = await open_details(harness, answer.original, user)
    assert field(embed, "DN").endswith(f"= **{value}**")
    assert field(embed, "Roll") == f"d20: **{natural}**"
    assert field(embed, "Level").startswith(f"**{expected.level.value}**")
    assert field(embed, "Margin") == f"DN - roll = {value} - {natural} = **{expected.margin:+d}**"
    assert field(embed, f"Levels at DN {value}") == dn.describe_levels(value)  # DN-5
    assert "DN-4" in field(embed, "Decided by")
    assert embed["color"] == VERDICT_COLOURS[expected.verdict].value
    return expected, embed


async def test_check_with_the_skills_parent_characteristic(harness: Harness, world: World) -> None:  # DN-1
    await dn_sheet(harness, world)
    answer = await slash(harness, world, "check", {"skill": "climb"})
    [natural] = seeded(1)
    expected, full = await assert_check(harness, answer, 19, natural, world.bob)
    assert field(full, "DN") == "skill Climb 6 + natural ability DEX 13 + DF +0 = **19**"
    assert answer.embed["title"].startswith(f"Dara - Climb: {expected.level.value}")
    assert full["title"].startswith(f"Climb: {expected.level.value}")
    assert "DN-1" in full["footer"]["text"] and "DN-5" in full["footer"]["text"]
    [record] = await harness.bot.store.log.last(world.guild.id, world.general.id)
    assert record.dice == [natural] and record.inputs["dn"] == 19


async def test_characteristics_average_rounded_down_and_a_df(
    harness: Harness, world: World
) -> None:  # DN-1, DN-3
    await dn_sheet(harness, world)
    answer = await slash(
        harness, world, "check", {"skill": "Lore", "characteristics": "dex, str, int", "df": -2}
    )
    [natural] = seeded(1)
    _, full = await assert_check(harness, answer, 5 + 10 - 2, natural, world.alice)  # (13+11+8) // 3 = 10
    assert field(full, "DN") == (
        "skill Lore 5 + natural ability avg(DEX 13, STR 11, INT 8) rounded down = 10 + DF -2 = **13**"
    )


async def test_raw_dn_shows_the_rules_example_levels(harness: Harness, world: World) -> None:  # DN-5
    answer = await slash(harness, world, "raw", {"dn": 15})
    [natural] = seeded(1)
    _, full = await assert_check(harness, answer, 15, natural, world.alice)
    assert answer.embed["title"].startswith("Alice - DN 15: ")
    assert field(full, "Levels at DN 15") == (
        "1 Critical, 2-3 Special, 4-5 High, 6-8 Medium, 9-15 Average, 16-19 failure, 20 critical failure"
    )


async def test_raw_characteristic_with_complexity(harness: Harness, world: World) -> None:  # DN-2
    answer = await slash(harness, world, "raw", {"characteristic": 11, "complexity": "1.5", "df": -1})
    [natural] = seeded(1)
    _, full = await assert_check(harness, answer, 15, natural, world.alice)  # floor(11 x 1.5) - 1
    assert field(full, "DN") == "characteristic 11 x1.5, rounded down, + DF -1 = **15**"


async def test_raw_check_in_a_dm(harness: Harness, world: World) -> None:
    answer = await harness.slash(
        None, None, world.stranger, "dn raw", {"characteristic": 12, "complexity": "0.5"}
    )
    [natural] = seeded(1)
    assert not answer.ephemeral
    await assert_check(harness, answer, 6, natural, world.stranger)


async def test_gm_df_is_consumed_once_and_the_total_is_held_at_minus_10(
    harness: Harness, world: World
) -> None:
    store = harness.bot.store  # GM-3; DN-3: decided to hold the total DF at its limit
    await store.modifiers.set(
        world.guild.id, world.general.id, "dn", world.alice.id, "df", -4, 1, world.gm.id
    )
    await dn_sheet(harness, world)
    first = await slash(harness, world, "check", {"skill": "Climb", "df": -8})
    second = await slash(harness, world, "check", {"skill": "Climb", "df": -8})
    one, two = seeded(2)
    _, full = await assert_check(harness, first, 6 + 13 - 10, one, world.alice)
    assert field(full, "DN") == (
        "skill Climb 6 + natural ability DEX 13 + DF -10 (chosen -8, GM -4: -12 held at -10 by DN-3) = **9**"
    )
    gm = field(full, "GM modifier")
    assert "Difficulty Factor -4" in gm and world.gm.mention in gm
    # the compact line says the GM's -4 was held (here it moved the DF by only -2)
    line = f"GM modifier: Difficulty Factor -4 (set by {world.gm.mention}); the DF came to -12, held at -10"
    assert assert_compact(first.original)[-1] == line
    _, again = await assert_check(harness, second, 6 + 13 - 8, two, world.alice)
    assert "GM modifier" not in [f["name"] for f in again["fields"]]
    assert all("GM" not in line for line in assert_compact(second.original))


async def test_gm_df_adds_to_a_given_dn(harness: Harness, world: World) -> None:  # GM-3
    store = harness.bot.store
    await store.modifiers.set(world.guild.id, world.general.id, "dn", None, "df", 3, 1, world.gm.id)
    answer = await slash(harness, world, "raw", {"dn": 64})
    [natural] = seeded(1)
    _, full = await assert_check(harness, answer, 65, natural, world.alice)
    assert field(full, "DN") == "64 (given) + GM DF +3 (chosen +0, GM +3) = 67, held at 65 = **65**"


async def test_bad_input_is_one_sentence_and_logs_nothing(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await store.modifiers.set(world.guild.id, world.general.id, "dn", world.alice.id, "df", 1, 1, world.gm.id)
    no_sheet = await slash(harness, world, "check", {"skill": "Climb"})
    assert no_sheet.ephemeral and no_sheet.content.startswith("You have no active Difficulty Number sheet")
    await dn_sheet(harness, world)
    cases = [
        ("check", {"skill": "Fly"}, "The sheet 'Dara' has no skill named 'Fly'."),
        (
            "check",
            {"skill": "Lore"},
            "The skill 'Lore' has no parent characteristic; name one in the characteristics option.",
        ),
        (
            "check",
            {"skill": "Climb", "characteristics": "DEX, LUCK"},
            "The sheet 'Dara' has no characteristic named 'LUCK'.",
        ),
        (  # DN-1: an average of several characteristics; one named twice would weigh double
            "check",
            {"skill": "Climb", "characteristics": "DEX, dex"},
            "DEX is named twice; name each characteristic once.",
        ),
        ("raw", {}, "Give either a DN or a characteristic (with a complexity), not both or neither."),
        (
            "raw",
            {"dn": 12, "characteristic": 10},
            "Give either a DN or a characteristic (with a complexity), not both or neither.",
        ),
        (
            "raw",
            {"dn": 12, "df": -2},
            "A DN given directly already includes its DF; give a characteristic to add a DF.",
        ),
        (
            "raw",
            {"dn": 10, "complexity": "2"},
            "A complexity multiplies a characteristic; a DN given directly takes none.",
        ),
    ]
    await harness.slash(world.guild, world.general, world.gm, "gm claim", {})
    for path, options, sentence in cases:
        for visibility in (None, "gm"):  # a hidden check refused opens no GM copy: no GM is notified
            asked = options | ({"visibility": visibility} if visibility else {})
            answer = await slash(harness, world, path, asked)
            assert answer.ephemeral and answer.content == sentence, answer.content
            assert answer.public() == [] and answer.messages == [answer.original], (path, asked)
    assert await store.log.last(world.guild.id, world.general.id) == []
    assert len(await store.modifiers.pending_for(world.guild.id, world.general.id, "dn", world.alice.id)) == 1


async def test_autocomplete_skills_and_characteristics(harness: Harness, world: World) -> None:
    await dn_sheet(harness, world)
    skills = await harness.autocomplete(
        world.guild, world.general, world.alice, "dn check", {"skill": "c"}, "skill"
    )
    assert [c["value"] for c in skills.choices] == ["Cipher", "Climb"]
    assert skills.choices[1]["name"] == "Climb (level 6, DEX)"
    chars = await harness.autocomplete(
        world.guild,
        world.general,
        world.alice,
        "dn check",
        {"skill": "Climb", "characteristics": "DEX, s"},
        "characteristics",
    )
    assert [c["value"] for c in chars.choices] == ["DEX, STR"]


async def test_private_dn_check_leaks_nothing_publicly(harness: Harness, world: World) -> None:
    answer = await slash(harness, world, "raw", {"dn": 12, "visibility": "private"})
    [natural] = seeded(1)
    assert answer.ephemeral and assert_compact(answer.original)[0].startswith(f"d20 **{natural}**")
    assert field(await open_details(harness, answer.original, world.alice), "Roll") == f"d20: **{natural}**"
    [notice] = answer.public()
    assert notice.embeds == [] and "Difficulty Number check" in notice.content
    assert "d20" not in notice.text() and "Margin" not in notice.text()


# -- issue 31, item 1: compact by default ------------------------------------------------------------------


async def test_item1_a_dn_roll_is_a_title_and_at_most_three_lines(harness: Harness, world: World) -> None:
    await dn_sheet(harness, world)
    await harness.bot.store.modifiers.set(
        world.guild.id, world.general.id, "dn", None, "df", -1, 3, world.gm.id
    )
    for path, options in (("check", {"skill": "Climb"}), ("raw", {"dn": 14}), ("raw", {"dn": 0})):
        answer = await slash(harness, world, path, options)
        lines = assert_compact(answer.original)
        assert lines[-1] == f"GM modifier: Difficulty Factor -1 (set by {world.gm.mention})"
        assert answer.embed["title"].split(" - ")[0] in ("Dara", "Alice")
        assert (await open_details(harness, answer.original, world.carol))["fields"]
