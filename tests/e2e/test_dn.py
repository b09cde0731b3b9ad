"""/dn end to end against the fake Discord with the seeded dice (DICE_SEED 1234).

Expected results come from the core with the same seeded d20 the bot rolls.
"""

from __future__ import annotations

import random
from typing import Any

from bot.core import dn
from bot.core.dice import Dice
from bot.ui.embeds import VERDICT_COLOURS
from tests.fake_discord.harness import Answer, Harness, World

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


def assert_check(embed: dict[str, Any], value: int, natural: int) -> dn.DnCheck:
    """The embed shows DN, roll, level, margin and DN-5's levels for this DN."""
    expected = dn.check(value, natural)
    assert field(embed, "DN").endswith(f"= **{value}**")
    assert field(embed, "Roll") == f"d20: **{natural}**"
    assert field(embed, "Level").startswith(f"**{expected.level.value}**")
    assert field(embed, "Margin") == f"DN - roll = {value} - {natural} = **{expected.margin:+d}**"
    assert field(embed, f"Levels at DN {value}") == dn.describe_levels(value)  # DN-5
    assert embed["color"] == VERDICT_COLOURS[expected.verdict].value
    return expected


async def test_check_with_the_skills_parent_characteristic(harness: Harness, world: World) -> None:  # DN-1
    await dn_sheet(harness, world)
    answer = await slash(harness, world, "check", {"skill": "climb"})
    [natural] = seeded(1)
    expected = assert_check(answer.embed, 19, natural)
    assert field(answer.embed, "DN") == "skill Climb 6 + natural ability DEX 13 + DF +0 = **19**"
    assert answer.embed["title"].startswith(f"Climb: {expected.level.value}")
    assert "DN-1" in answer.embed["footer"]["text"] and "DN-5" in answer.embed["footer"]["text"]
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
    assert_check(answer.embed, 5 + 10 - 2, natural)  # (13 + 11 + 8) // 3 = 10
    assert field(answer.embed, "DN") == (
        "skill Lore 5 + natural ability avg(DEX 13, STR 11, INT 8) rounded down = 10 + DF -2 = **13**"
    )


async def test_raw_dn_shows_the_rules_example_levels(harness: Harness, world: World) -> None:  # DN-5
    answer = await slash(harness, world, "raw", {"dn": 15})
    [natural] = seeded(1)
    assert_check(answer.embed, 15, natural)
    assert field(answer.embed, "Levels at DN 15") == (
        "1 Critical, 2-3 Special, 4-5 High, 6-8 Medium, 9-15 Average, 16-19 failure, 20 critical failure"
    )


async def test_raw_characteristic_with_complexity(harness: Harness, world: World) -> None:  # DN-2
    answer = await slash(harness, world, "raw", {"characteristic": 11, "complexity": "1.5", "df": -1})
    [natural] = seeded(1)
    assert_check(answer.embed, 15, natural)  # floor(11 x 1.5) - 1
    assert field(answer.embed, "DN") == "characteristic 11 x1.5, rounded down, + DF -1 = **15**"


async def test_raw_check_in_a_dm(harness: Harness, world: World) -> None:
    answer = await harness.slash(
        None, None, world.stranger, "dn raw", {"characteristic": 12, "complexity": "0.5"}
    )
    [natural] = seeded(1)
    assert not answer.ephemeral
    assert_check(answer.embed, 6, natural)


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
    assert_check(first.embed, 6 + 13 - 10, one)
    assert field(first.embed, "DN") == (
        "skill Climb 6 + natural ability DEX 13 + DF -10 (chosen -8, GM -4: -12 held at -10 by DN-3) = **9**"
    )
    gm = field(first.embed, "GM modifier")
    assert "Difficulty Factor -4" in gm and world.gm.mention in gm
    assert_check(second.embed, 6 + 13 - 8, two)
    assert "GM modifier" not in [f["name"] for f in second.embed["fields"]]


async def test_gm_df_adds_to_a_given_dn(harness: Harness, world: World) -> None:  # GM-3
    store = harness.bot.store
    await store.modifiers.set(world.guild.id, world.general.id, "dn", None, "df", 3, 1, world.gm.id)
    answer = await slash(harness, world, "raw", {"dn": 64})
    [natural] = seeded(1)
    assert_check(answer.embed, 65, natural)
    assert field(answer.embed, "DN") == "64 (given) + GM DF +3 (chosen +0, GM +3) = 67, held at 65 = **65**"


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
    ]
    for path, options, sentence in cases:
        answer = await slash(harness, world, path, options)
        assert answer.ephemeral and answer.content == sentence, answer.content
        assert answer.public() == []
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
    assert answer.ephemeral and field(answer.embed, "Roll") == f"d20: **{natural}**"
    [notice] = answer.public()
    assert notice.embeds == [] and "Difficulty Number check" in notice.content
    assert "d20" not in notice.text() and "Margin" not in notice.text()
