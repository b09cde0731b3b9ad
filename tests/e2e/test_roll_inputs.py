"""One way to read a roll's options (bot.ui.roll_inputs): for every system, `/odds` and the roll it mirrors
resolve the same sheet, skill and raw values to the same numbers, and refuse the same bad input with the
same sentence.

The roll's numbers are read from its log row (what it rolled against), the odds' from its answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from discord import app_commands

from bot.core.blackjack import CHARACTERISTIC_SUITS, DIFFICULTY_NAMES, SKILL_NAMES
from bot.local.fake.harness import Answer, Harness, World
from bot.store import RollRecord
from bot.ui.cards import CHARACTERISTICS_MAX


def field(embed: dict[str, Any], name: str) -> str:
    return next(f["value"] for f in embed.get("fields", []) if f["name"] == name)


async def sheet(harness: Harness, world: World, system: str, **document: Any) -> None:
    base = {"guild_id": world.guild.id, "owner_id": world.alice.id, "name": "Mira", "system": system}
    await harness.bot.store.sheets.create(base | document)


async def slash(harness: Harness, world: World, path: str, **options: Any) -> Answer:
    return await harness.slash(world.guild, world.general, world.alice, path, options)


async def last_roll(harness: Harness, world: World) -> RollRecord:
    [record] = await harness.bot.store.log.last(world.guild.id, world.general.id, 1)
    return record


async def test_sysx_odds_and_check_read_the_same_sv(harness: Harness, world: World) -> None:  # SX-1, SX-2
    climb = {"Climb": {"rating": 4, "attribute": "Agility"}}
    wounds = {"current": 7, "maximum": 10}
    await sheet(harness, world, "sysx", attributes={"Agility": 12}, skills=climb, wounds=wounds)
    odds = await slash(harness, world, "odds sysx", skill="climb")
    await slash(harness, world, "sysx check", skill="climb")
    rolled = await last_roll(harness, world)
    assert field(odds.embed, "Inputs") == "Agility 12 + Climb 4 = 16; wounds 7/10, SV capped at 14"  # SX-2
    assert rolled.inputs["sv"] == 16 and rolled.inputs["wounds"] == [7, 10]
    assert rolled.inputs["skill"] == "Climb" and odds.embed["title"] == "Odds: Climb"


async def test_dn_odds_and_check_read_the_same_dn(harness: Harness, world: World) -> None:  # DN-1
    climb = {"Climb": {"rating": 6, "attribute": "DEX"}}
    await sheet(harness, world, "dn", attributes={"DEX": 13, "STR": 10}, skills=climb)
    odds = await slash(harness, world, "odds dn", skill="Climb", characteristics="DEX, STR", df=-2)
    await slash(harness, world, "dn check", skill="Climb", characteristics="DEX, STR", df=-2)
    rolled = await last_roll(harness, world)
    dn = 6 + (13 + 10) // 2 - 2
    assert field(odds.embed, "DN").endswith(f"= {dn}") and "avg(DEX 13, STR 10)" in field(odds.embed, "DN")
    assert rolled.inputs["dn"] == dn and rolled.inputs["characteristics"] == {"DEX": 13, "STR": 10}


async def test_rps_odds_and_check_build_the_same_base(harness: Harness, world: World) -> None:  # RPS-1
    await sheet(
        harness, world, "rps", attributes={"Agility": 7, "Perception": 5},
        skills={"Stealth": {"rating": 8, "attribute": "Agility", "alternates": ["Perception"]}},
    )  # fmt: skip
    options = {"skill": "Stealth", "parent": "Perception", "difficulty": 2, "modifier": -1}
    odds = await slash(harness, world, "odds rps", **options)
    check = await slash(harness, world, "rps check", **options)
    rolled = await last_roll(harness, world)
    built = "14 = Stealth 8 + Perception 5 + Moderately hard (+2) + modifier (-1)"
    details = await harness.click(check.original, "Details", world.alice)
    assert field(odds.embed, "Inputs") == built == field(details.original.embeds[0], "Base")
    assert rolled.inputs["base"] == 14 and odds.embed["title"] == f"Odds: {rolled.inputs['what']}"


async def test_decision_odds_and_roll_read_the_same_stat(harness: Harness, world: World) -> None:  # DD-1
    await sheet(harness, world, "decision", attributes={"Wits": 2}, skills={"Sneak": {"rating": 3}})
    for stat_name, value in (("wits", 2), ("SNEAK", 3)):
        odds = await slash(harness, world, "odds decision", stat_name=stat_name, target=12)
        await slash(harness, world, "decision roll", stat_name=stat_name, target=12)
        rolled = await last_roll(harness, world)
        name = rolled.inputs["stat_name"]
        assert rolled.inputs["stat"] == value and name.casefold() == stat_name.casefold()
        assert field(odds.embed, "Inputs").startswith(f"stat {value:+d} ({name}, Mira's sheet)")


async def test_cards_odds_and_task_read_the_same_level_and_bonus(harness: Harness, world: World) -> None:
    # BJ-8, BJ-9: the skill level and the characteristics' bonuses from the same sheet, or as typed
    await sheet(harness, world, "cards", skills={"Lockpicking": {"rating": 6}}, bonuses={"Dexterity": 3})
    options = {"difficulty": 2, "skill": "Lockpicking", "characteristics": "Dexterity, Strength +1"}
    odds = await slash(harness, world, "odds cards", **options)
    await slash(harness, world, "cards task", mode="involuntary", **options)
    [hand] = await harness.bot.store.cards.open_hands(world.guild.id, world.general.id) or [None]
    rolled = await last_roll(harness, world)
    assert odds.embed["title"] == f"Odds: involuntary hand, {SKILL_NAMES[6]} vs {DIFFICULTY_NAMES[2]}"
    assert hand is None  # an involuntary hand is over as dealt
    assert rolled.inputs["skill"] == 6
    assert rolled.inputs["characteristics"] == [["Dexterity", 3], ["Strength", 1]]


LONGEST = ", ".join(f"{name}: -10" for name in CHARACTERISTIC_SUITS)  # every one, a two-digit bonus


def test_cards_odds_and_task_declare_the_same_characteristics_option(harness: Harness) -> None:  # BJ-9
    declared = []
    for group, sub in (("cards", "task"), ("odds", "cards")):
        command = harness.bot.tree.get_command(group)
        assert isinstance(command, app_commands.Group)
        leaf = command.get_command(sub)
        assert isinstance(leaf, app_commands.Command)
        option = leaf.get_parameter("characteristics")
        assert option is not None
        declared.append((option.min_value, option.max_value, option.description))
    assert declared[0] == declared[1] and declared[0][:2] == (1, CHARACTERISTICS_MAX)
    assert len(LONGEST) <= CHARACTERISTICS_MAX  # the longest list anyone writes fits


@pytest.mark.parametrize(
    ("typed", "refused"),
    [
        (LONGEST, None),
        ("Speed +10, Will -10", None),
        ("Speed +11", "A characteristic bonus is a whole number from -10 to 10."),
        ("Will −11", "A characteristic bonus is a whole number from -10 to 10."),
        (LONGEST.replace(", ", " ,  ").ljust(CHARACTERISTICS_MAX), None),  # Discord refuses one more
    ],
)
async def test_cards_odds_and_task_take_the_same_characteristics(
    harness: Harness, world: World, typed: str, refused: str | None
) -> None:  # BJ-9: a bonus within the sheet's range, a list as long as the option allows, in both
    options = {"difficulty": 2, "level": 3, "characteristics": typed}
    odds = await slash(harness, world, "odds cards", **options)
    task = await slash(harness, world, "cards task", mode="involuntary", **options)
    if refused is None:
        assert odds.embed["title"].startswith("Odds: involuntary hand") and len(task.public()) == 1
        rolled = await last_roll(harness, world)
        assert len(rolled.inputs["characteristics"]) == typed.count(",") + 1
    else:
        assert odds.ephemeral and task.ephemeral and task.public() == [] and odds.original.embeds == []
        assert odds.content == task.content and refused in odds.content, (odds.content, task.content)


@pytest.mark.parametrize(
    ("system", "odds", "roll", "options"),
    [
        ("sysx", "odds sysx", "sysx check", {"skill": "Swim"}),
        ("dn", "odds dn", "dn check", {"skill": "Swim"}),
        ("rps", "odds rps", "rps check", {"skill": "Swim"}),
        ("rps", "odds rps", "rps check", {"attribute": "Luck"}),
        ("decision", "odds decision", "decision roll", {"stat_name": "Luck", "target": 12}),
        ("cards", "odds cards", "cards task", {"difficulty": 2, "skill": "Swim"}),
    ],
)
async def test_odds_and_roll_refuse_the_same_input_alike(
    harness: Harness, world: World, system: str, odds: str, roll: str, options: dict[str, Any]
) -> None:
    for number in (1, 2):  # without a sheet, then with one that lacks the skill or stat
        asked = await slash(harness, world, odds, **options)
        rolled = await slash(harness, world, roll, **options)
        assert asked.ephemeral and rolled.ephemeral and asked.public() == rolled.public() == []
        assert asked.content == rolled.content, (number, asked.content, rolled.content)
        if number == 1:
            await sheet(harness, world, system, attributes={}, skills={})
    assert await harness.bot.store.log.last(world.guild.id, world.general.id, 5) == []
