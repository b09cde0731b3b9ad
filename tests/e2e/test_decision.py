"""`/decision roll | contested | percent` end to end (RULES.md DD-1..DD-5, DD-8, GM-3).

Dice come from the bot's seeded rng (the expected faces are read from a copy of its state before the roll)
or, where a test needs chosen faces, from `Scripted`: a `random.Random` whose randint hands out given faces.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot.core import decision
from bot.core.dice import Dice
from bot.local.fake.harness import Answer, Harness, World
from bot.store.errors import InvalidData
from tests.e2e.compact import assert_compact, open_details, shown

GREEN, RED = 0x57F287, 0xED4245


class Scripted(random.Random):
    """A dice source that rolls the given faces, in order (a test double for the bot's rng)."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b, f"scripted face {face} is not on a d{b}"
        return face


def upcoming(harness: Harness, count: int, sides: int = 6) -> tuple[int, ...]:
    """The next ``count`` faces the bot's seeded rng will roll, without consuming them."""
    copy = random.Random()
    copy.setstate(harness.bot.rng.getstate())
    return Dice(copy).roll_many(count, sides)


async def field(harness: Harness, answer_or_embed: Answer | dict[str, Any], name: str) -> str:
    """A field of a roll's details (opened by its roller), or of an embed."""
    if isinstance(answer_or_embed, Answer):
        embed = await shown(harness, answer_or_embed)
    else:
        embed = answer_or_embed
    values = [f["value"] for f in embed.get("fields", []) if f["name"] == name]
    assert values, f"no field {name!r} in {embed}"
    return values[0]


async def faces(harness: Harness, answer: Answer) -> list[int]:
    """The decision dice shown in the Dice field of the details ("3d6: 6 + 5 + 1 = 12")."""
    text = await field(harness, answer, "Dice")
    dice = text.split("\n")[0].split(": ", 1)[1].split(" = ")[0]
    return [int(x) for x in dice.split(" + ")]


async def make_sheet(harness: Harness, world: World, user: Any, name: str, **stats: int) -> None:
    await harness.bot.store.sheets.create(
        {
            "guild_id": world.guild.id,
            "owner_id": user.id,
            "name": name,
            "system": "decision",
            "attributes": stats,
        }
    )


async def roll(harness: Harness, world: World, user: Any = None, **options: Any) -> Answer:
    return await harness.slash(world.guild, world.general, user or world.alice, "decision roll", options)


# --------------------------------------------------------------------------------------------------------
# /decision roll


async def test_roll_with_a_sheet_stat_against_a_named_target(harness: Harness, world: World) -> None:
    # DD-1, DD-4
    await make_sheet(harness, world, world.alice, "Mira", Wits=3, Brawn=-1)
    typed = await harness.autocomplete(
        world.guild, world.general, world.alice, "decision roll", {"stat_name": "wi"}, "stat_name"
    )
    assert typed.choices == [{"name": "Wits (+3)", "value": "Wits"}]
    dice = upcoming(harness, 2)
    answer = await roll(harness, world, stat_name="wits", target=12)
    expected = decision.roll(dice, 3, [0], 12)
    assert not answer.ephemeral
    assert answer.embed["title"] == f"Mira - Wits: {expected.total} vs 12, {expected.name}"
    assert assert_compact(answer.original)[:2] == [
        f"2d6 **{dice[0]} + {dice[1]}**: {sum(dice)} + stat +3 = **{expected.total}**",
        f"Needed 12 (Challenging) or more; margin {expected.margin:+d}",
    ]
    assert answer.embed["color"] == (GREEN if expected.success else RED)
    assert await faces(harness, answer) == list(dice)
    assert await field(harness, answer, "Stat") == "+3 (Wits, Mira's sheet)"
    total = await field(harness, answer, "Total")
    assert total == f"{sum(dice)} + 3 + 0 = **{expected.total}** vs 12 (Challenging)"
    assert await field(harness, answer, "Margin") == f"{expected.total - 12:+d}"
    full = await shown(harness, answer, world.bob)
    assert "Mira" in full["description"] and "DD-1" in full["footer"]["text"]


async def test_roll_with_a_raw_stat_and_target_number(harness: Harness, world: World) -> None:
    # DD-1: total = dice + stat + modifiers; the raw target 2..30 has no name between the named ones
    dice = upcoming(harness, 2)
    answer = await roll(harness, world, stat=2, target_number=9, modifier=-1)
    total = sum(dice) + 2 - 1
    assert await field(harness, answer, "Stat") == "+2"
    assert await field(harness, answer, "Total") == f"{sum(dice)} + 2 + -1 = **{total}** vs 9"
    word = "success" if total >= 9 else "failure"
    assert answer.embed["title"] == f"Alice - decision roll: {total} vs 9, {word}"
    [record] = await harness.bot.store.log.last(world.guild.id, world.general.id, 1)
    assert record.command == "decision roll" and record.dice == list(dice)


async def test_a_tie_with_the_target_succeeds(harness: Harness, world: World) -> None:
    # DD-1: total >= target succeeds
    harness.bot.rng = Scripted([3, 4])
    answer = await roll(harness, world, stat=1, target_number=8)
    assert answer.embed["title"] == "Alice - decision roll: 8 vs 8, success"
    assert await field(harness, answer, "Margin") == "+0"


async def test_advantage_rolls_three_dice_disadvantage_one_both_cancel(
    harness: Harness, world: World
) -> None:
    # DD-2
    harness.bot.rng = Scripted([6, 5, 1, 4, 2, 3])
    advantage = await roll(harness, world, stat=0, target=6, advantage=True)
    assert await faces(harness, advantage) == [6, 5, 1]
    assert (await field(harness, advantage, "Dice")).startswith("3d6: 6 + 5 + 1 = 12")
    assert "**12**" in await field(harness, advantage, "Total")
    disadvantage = await roll(harness, world, stat=0, target=6, disadvantage=True)
    assert await faces(harness, disadvantage) == [4]
    assert disadvantage.embed["title"] == "Alice - decision roll: 4 vs 6, failure"
    assert assert_compact(disadvantage.original)[0] == "1d6 (disadvantage) **4**: 4 + stat +0 = **4**"
    both = await roll(harness, world, stat=0, target=6, advantage=True, disadvantage=True)
    assert await faces(harness, both) == [2, 3]
    assert "cancel: 2d6" in await field(harness, both, "Dice")
    assert assert_compact(both.original)[0].startswith("2d6 (advantage and disadvantage cancel) **2 + 3**")


async def test_bonus_and_penalty_are_clamped_and_the_clamp_is_shown(harness: Harness, world: World) -> None:
    # DD-3: a negative bonus counts 0, a positive penalty counts 0
    harness.bot.rng = Scripted([2, 2, 2, 2])
    clamped = await roll(harness, world, stat=1, target=6, bonus=-3, penalty=2)
    mods = await field(harness, clamped, "Modifiers")
    assert "bonus -3 counts +0 (DD-3: a negative bonus counts 0)" in mods
    assert "penalty +2 counts +0 (DD-3: a positive penalty counts 0)" in mods
    assert (await field(harness, clamped, "Total")).startswith("4 + 1 + 0 = **5**")
    assert "DD-3" in (await shown(harness, clamped))["footer"]["text"]
    counted = await roll(harness, world, stat=1, target=6, bonus=3, penalty=-2)
    modifiers = await field(harness, counted, "Modifiers")
    assert "bonus +3" in modifiers and "penalty -2" in modifiers
    assert (await field(harness, counted, "Total")).startswith("4 + 1 + 1 = **6**")
    assert counted.embed["title"] == "Alice - decision roll: 6 vs 6, success"


async def test_a_gm_advantage_is_used_by_exactly_one_roll_and_shown(harness: Harness, world: World) -> None:
    # GM-3, DD-2
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "decision", world.alice.id, "advantage", 1, 1, world.gm.id
    )
    refused = await roll(harness, world, stat=1, stat_name="x", target=6)  # a refusal takes nothing
    assert refused.ephemeral and "not both" in refused.content
    first = await roll(harness, world, stat=1, target=12)
    assert len(await faces(harness, first)) == 3
    assert f"advantage (GM {world.gm.mention})" in await field(harness, first, "Dice")
    assert world.gm.mention in await field(harness, first, "GM modifier")
    assert "GM-3" in (await shown(harness, first))["footer"]["text"]
    assert assert_compact(first.original)[-1] == f"GM modifier: advantage (set by {world.gm.mention})"
    second = await roll(harness, world, stat=1, target=12)
    assert len(await faces(harness, second)) == 2
    assert "GM modifier" not in [f["name"] for f in (await shown(harness, second))["fields"]]
    assert await store.modifiers.list(world.guild.id, world.general.id) == []


async def test_a_gm_advantage_waits_while_the_player_rolls_with_advantage_anyway(
    harness: Harness, world: World
) -> None:  # DD-2: advantage never stacks, so a GM's changes nothing on such a roll and keeps its use
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "decision", world.alice.id, "advantage", 1, 1, world.gm.id
    )
    own = await roll(harness, world, stat=0, target_number=6, advantage=True)
    assert len(await faces(harness, own)) == 3
    assert "GM modifier" not in [f["name"] for f in (await shown(harness, own))["fields"]]
    [waiting] = await store.modifiers.list(world.guild.id, world.general.id)
    assert waiting.uses_left == 1
    # in a contest too: the GM's waits for a roll it changes
    contest = await harness.slash(
        world.guild, world.general, world.alice, "decision contested",
        {"party1": world.alice, "npc2": "Orc", "advantage": "1"},
    )  # fmt: skip
    assert not contest.ephemeral
    assert [m.uses_left for m in await store.modifiers.list(world.guild.id, world.general.id)] == [1]
    used = await roll(harness, world, stat=0, target_number=6)
    assert len(await faces(harness, used)) == 3
    assert await store.modifiers.list(world.guild.id, world.general.id) == []


async def test_a_refused_hidden_roll_bothers_no_gm(harness: Harness, world: World) -> None:
    # the options are read before the GMs' copies are opened: no GM is notified of a roll never made
    await harness.slash(world.guild, world.general, world.gm, "gm claim", {})
    for path, options in (
        ("decision roll", {"stat": 1}),  # no target
        ("decision contested", {"party1": world.alice}),  # one party
        ("decision contested", {"npc1": "Orc", "npc2": "Elf", "advantage": "7"}),  # no slot 7
    ):
        answer = await harness.slash(
            world.guild, world.general, world.alice, path, options | {"visibility": "gm"}
        )
        assert answer.ephemeral and answer.messages == [answer.original], (path, answer.content)


async def test_gm_advantage_and_player_disadvantage_cancel_and_gm_numbers_add(
    harness: Harness, world: World
) -> None:
    # GM-3, DD-2: a GM's advantage combines with the player's disadvantage: 2d6
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "decision", world.alice.id, "advantage", 1, 1, world.gm.id
    )
    await store.modifiers.set(
        world.guild.id, world.general.id, "decision", None, "modifier", 2, 1, world.gm.id
    )
    harness.bot.rng = Scripted([3, 3])
    answer = await roll(harness, world, stat=0, target_number=8, disadvantage=True)
    assert await faces(harness, answer) == [3, 3]
    dice_text = await field(harness, answer, "Dice")
    assert "disadvantage (you)" in dice_text and "cancel: 2d6" in dice_text
    assert f"GM modifier +2 (<@{world.gm.id}>)" in await field(harness, answer, "Modifiers")
    assert (await field(harness, answer, "Total")).startswith("6 + 0 + 2 = **8**")
    assert "for everyone" in await field(harness, answer, "GM modifiers")


async def test_roll_needs_a_target_and_a_sheet_for_a_sheet_stat(harness: Harness, world: World) -> None:
    no_target = await roll(harness, world, stat=1)
    assert no_target.ephemeral and "Choose a target" in no_target.content
    no_sheet = await roll(harness, world, stat_name="Wits", target=6)
    assert no_sheet.ephemeral and "no active decision-dice sheet" in no_sheet.content
    await make_sheet(harness, world, world.alice, "Mira", Wits=3)
    unknown = await roll(harness, world, stat_name="Luck", target=6)
    assert unknown.ephemeral and "no stat named 'Luck'" in unknown.content
    assert await harness.bot.store.log.last(world.guild.id, world.general.id, 10) == []


async def test_a_raw_roll_works_in_dms(harness: Harness, world: World) -> None:
    dice = upcoming(harness, 2)
    answer = await harness.slash(None, None, world.stranger, "decision roll", {"stat": 4, "target": 18})
    assert not answer.ephemeral
    total = await field(harness, answer, "Total")
    assert total.startswith(f"{sum(dice)} + 4 + 0 = **{sum(dice) + 4}** vs 18 (Strenuous)")


# --------------------------------------------------------------------------------------------------------
# /decision contested


async def test_contested_ties_reroll_until_one_wins(harness: Harness, world: World) -> None:
    # DD-5: every party rolls; the tied highest re-roll; every round shown. DD-2 for the Guard's advantage.
    await make_sheet(harness, world, world.alice, "Mira", Wits=2)
    await make_sheet(harness, world, world.bob, "Rook", Wits=1)
    # round 1: Mira 3+4+2 = 9, Rook 4+3+1+1 = 9, Guard (advantage) 1+2+1+3 = 7
    # round 2: Mira 2+2+2 = 6, Rook 6+1+2 = 9
    harness.bot.rng = Scripted([3, 4, 4, 3, 1, 2, 1, 2, 2, 6, 1])
    answer = await harness.slash(
        world.guild,
        world.general,
        world.carol,
        "decision contested",
        {
            "party1": world.alice,
            "party2": world.bob,
            "mod2": 1,
            "npc3": "Guard",
            "mod3": 3,
            "stat": "wits",
            "advantage": "Guard",
        },
    )
    assert not answer.ephemeral
    assert answer.embed["title"] == "Contest: Rook wins, 9 vs 6"
    assert assert_compact(answer.original) == [
        "Mira (2 + 2) +2 = **6** · Rook (6 + 1) +2 = **9**",
        "Rook wins by 3 over Mira after 2 rounds (ties rolled again)",
    ]
    embed = await shown(harness, answer)
    assert embed["title"] == "Contest: Rook wins"
    rounds = embed["description"].split("\n")
    assert rounds == [
        "Round 1: Mira (3 + 4) +2 = **9**, Rook (4 + 3) +2 = **9**, Guard (1 + 2 + 1) +3 = **7** "
        "→ tie (Mira, Rook): re-roll",
        "Round 2: Mira (2 + 2) +2 = **6**, Rook (6 + 1) +2 = **9**",
    ]
    assert await field(harness, embed, "Winner") == "**Rook** with 9 against Mira's 6 (margin +3)"
    parties = await field(harness, embed, "Parties")
    assert "**Guard**: 3d6 (advantage), NPC, modifier +3" in parties
    assert "**Rook**: 2d6 (normal), Wits +1, modifier +1" in parties
    assert "DD-5" in embed["footer"]["text"]


async def test_contested_applies_each_members_gm_modifier_once(harness: Harness, world: World) -> None:
    # GM-3 in a contest: bob's pending disadvantage applies to bob's side only, and is used up; it is his
    # to use: a contest Alice runs is refused (Bob would dodge it), one the GM (or Bob) runs takes it
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "decision", world.bob.id, "disadvantage", 1, 1, world.gm.id
    )
    parties = {"party1": world.alice, "party2": world.bob}
    state = harness.bot.rng.getstate()
    alices = await harness.slash(world.guild, world.general, world.alice, "decision contested", parties)
    assert alices.ephemeral and alices.content == (
        f"<@{world.bob.id}> has a GM modifier waiting for their next decision dice roll here, which is "
        "theirs to take: they or a GM can run this contest."
    )
    assert harness.bot.rng.getstate() == state and alices.public() == []
    assert len(await store.modifiers.list(world.guild.id, world.general.id)) == 1
    harness.bot.rng = Scripted([6, 6, 2])
    answer = await harness.slash(world.guild, world.general, world.gm, "decision contested", parties)
    assert answer.embed["title"] == "Contest: Alice wins, 12 vs 2"
    line = f"GM modifier for Bob: disadvantage (set by {world.gm.mention})"
    assert assert_compact(answer.original)[-1] == line
    assert "Bob (2) +0 = **2**" in (await shown(harness, answer))["description"]
    assert world.gm.mention in await field(harness, answer, "GM modifier (Bob)")
    assert await store.modifiers.list(world.guild.id, world.general.id) == []


async def test_contested_a_stat_a_sheet_lacks_rolls_with_0_and_says_so(
    harness: Harness, world: World
) -> None:  # DD-1, DD-5: one missing stat does not call the contest off
    await make_sheet(harness, world, world.alice, "Mira", Wits=2)
    await make_sheet(harness, world, world.bob, "Rook", Brawn=3)  # no Wits; Carol has no sheet at all
    harness.bot.rng = Scripted([3, 4, 6, 6, 1, 1])
    answer = await harness.slash(
        world.guild,
        world.general,
        world.gm,
        "decision contested",
        {"party1": world.alice, "party2": world.bob, "party3": world.carol, "stat": "Wits"},
    )
    note = "Rook, Carol have no Wits on an active sheet, so they rolled with 0."
    assert not answer.ephemeral and answer.embed["title"] == "Contest: Rook wins, 12 vs 9"
    assert assert_compact(answer.original) == [
        "Mira (3 + 4) +2 = **9** · Rook (6 + 6) +0 = **12** · Carol (1 + 1) +0 = **2**",
        "Rook wins by 3 over Mira",
        note,  # the table reads it in the result itself
    ]
    embed = await shown(harness, answer)
    parties = await field(harness, embed, "Parties")
    assert "**Rook**: 2d6 (normal), no Wits: 0, modifier +0" in parties
    assert "**Mira**: 2d6 (normal), Wits +2, modifier +0" in parties
    assert await field(harness, embed, "Missing stat") == note
    [logged] = await harness.bot.store.log.last(world.guild.id, world.general.id, 1)
    assert [p["modifier"] for p in logged.inputs["parties"]] == [2, 0, 0]


async def test_contested_refuses_bad_parties(harness: Harness, world: World) -> None:
    one = await harness.slash(world.guild, world.general, world.alice, "decision contested", {"npc1": "Orc"})
    assert one.ephemeral and "at least two parties" in one.content
    twice = await harness.slash(
        world.guild, world.general, world.alice, "decision contested", {"npc1": "Orc", "npc2": "orc"}
    )
    assert twice.ephemeral and "same name" in twice.content
    both = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "decision contested",
        {"party1": world.bob, "npc1": "Orc", "npc2": "Elf"},
    )
    assert both.ephemeral and "both a member and an NPC" in both.content
    edge = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "decision contested",
        {"npc1": "Orc", "npc2": "Elf", "advantage": "7"},
    )
    assert edge.ephemeral and "not one of the parties" in edge.content
    # DD-5: a name Discord takes but that is blank once trimmed (ideographic spaces, a zero-width one)
    # is refused before a GM is told of the roll
    await harness.slash(world.guild, world.general, world.gm, "gm claim", {})
    for blank in ("\u3000", "\u3000\u200b\u3000"):
        nameless = await harness.slash(
            world.guild,
            world.general,
            world.alice,
            "decision contested",
            {"npc1": blank, "party2": world.bob, "visibility": "gm"},
        )
        assert nameless.ephemeral and nameless.content == "Every party of a contested roll needs a name."
        assert nameless.messages == [nameless.original]  # no GM copy, not even one deleted again
    # a member cannot be named in a DM; NPCs can (test_a_contest_of_npcs_works_in_a_dm)


async def test_contested_advantage_autocomplete_lists_the_parties(harness: Harness, world: World) -> None:
    answer = await harness.autocomplete(
        world.guild,
        world.general,
        world.alice,
        "decision contested",
        {"npc1": "Orc", "party2": world.bob, "advantage": "1,"},
        "advantage",
    )
    assert answer.choices == [
        {"name": "1,1: Orc", "value": "1,1"},
        {"name": "1,2: Bob", "value": "1,2"},
    ]
    # a typed list so long that a completion would pass Discord's 100 characters: none is offered
    typed = ",".join(["Orc"] * 25) + ","  # 100 characters
    long = await harness.autocomplete(
        world.guild, world.general, world.alice, "decision contested",
        {"npc1": "Orc", "party2": world.bob, "advantage": typed + "1"}, "advantage",
    )  # fmt: skip
    assert long.choices == []
    fits = await harness.autocomplete(
        world.guild, world.general, world.alice, "decision contested",
        {"npc1": "Orc", "party2": world.bob, "advantage": typed[4:]}, "advantage",
    )  # fmt: skip
    assert [c["value"] for c in fits.choices] == [typed[4:] + "1", typed[4:] + "2"]


# --------------------------------------------------------------------------------------------------------
# /decision percent


async def test_percent_rolls_d100_against_the_chance(harness: Harness, world: World) -> None:
    # DD-8: success when roll <= chance
    [face] = upcoming(harness, 1, 100)
    answer = await harness.slash(world.guild, world.general, world.alice, "decision percent", {"chance": 45})
    assert await field(harness, answer, "d100") == str(face)
    assert answer.embed["title"] == f"Alice - d100 against 45%: {'success' if face <= 45 else 'failure'}"
    assert assert_compact(answer.original) == [f"d100 **{face}**, needed 45 or less"]
    harness.bot.rng = Scripted([45, 46])
    edge = await harness.slash(world.guild, world.general, world.alice, "decision percent", {"chance": 45})
    assert edge.embed["title"] == "Alice - d100 against 45%: success"
    over = await harness.slash(world.guild, world.general, world.alice, "decision percent", {"chance": 45})
    assert over.embed["title"] == "Alice - d100 against 45%: failure"
    assert await field(harness, over, "Result") == "46 > 45: failure"


async def test_a_private_decision_roll_shows_only_a_notice_in_public(harness: Harness, world: World) -> None:
    harness.bot.rng = Scripted([5, 5])
    answer = await roll(harness, world, stat=2, target=12, visibility="private")
    assert answer.ephemeral and answer.embed["title"] == "Alice - decision roll: 12 vs 12, success"
    [notice] = answer.public()
    assert "private roll" in notice.content and notice.embeds == []
    assert "success" not in notice.text() and "Dice" not in notice.text()


# --------------------------------------------------------------------------------------------------------
# issue 31, item 1: compact by default


async def test_item1_every_decision_roll_is_a_title_and_at_most_three_lines(
    harness: Harness, world: World
) -> None:
    await make_sheet(harness, world, world.alice, "Mira", Wits=3)
    await make_sheet(harness, world, world.bob, "Rook", Wits=1)
    await harness.bot.store.modifiers.set(
        world.guild.id, world.general.id, "decision", None, "modifier", 1, 5, world.gm.id
    )
    rolls = [
        ("decision roll", {"stat_name": "Wits", "target": 12, "advantage": True, "bonus": 2}),
        ("decision contested", {"party1": world.alice, "party2": world.bob, "npc3": "Guard", "stat": "Wits"}),
        ("decision percent", {"chance": 40}),
    ]
    for path, options in rolls:
        answer = await harness.slash(world.guild, world.general, world.alice, path, options)
        lines = assert_compact(answer.original)
        if path != "decision percent":  # GM-3: the decision modifier is a 2d6 modifier only
            assert world.gm.mention in lines[-1] and "modifier +1" in lines[-1], lines
        assert (await open_details(harness, answer.original, world.carol))["fields"]


async def test_a_contest_of_npcs_works_in_a_dm(harness: Harness, world: World) -> None:  # DD-5
    answer = await harness.slash(
        None, None, world.stranger, "decision contested", {"npc1": "Guard", "npc2": "Thief", "mod2": 1}
    )
    assert not answer.ephemeral and answer.embed["title"].startswith("Contest: ")
    assert "Guard" in answer.original.text() and "Thief" in answer.original.text()


async def test_a_stat_name_is_an_attribute_or_a_skill_never_both(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a decision sheet's attributes and skills are all stats, read by name: each name has one value
    store = harness.bot.store
    make = {"name": "Mira", "system": "decision"}
    await harness.slash(world.guild, world.general, world.alice, "sheet create", make)
    await harness.slash(
        world.guild, world.general, world.alice, "sheet set-attribute",
        {"name": "Mira", "attribute": "Stealth", "value": -2},
    )  # fmt: skip
    before = await store.sheets.get(world.guild.id, world.alice.id, "Mira")
    twice = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "sheet set-skill",
        {"name": "Mira", "skill": "stealth", "rating": 6},
    )
    assert twice.ephemeral and twice.content == (
        "stealth is already an attribute of this sheet, and a decision-dice stat has one value: "
        "set it there, or remove it first."
    )
    assert await store.sheets.get(world.guild.id, world.alice.id, "Mira") == before
    # nor is a file with both imported
    data = before.model_dump(include={"name", "system", "attributes"}) | {"name": "Nox"}
    data["skills"] = {"Stealth": {"rating": 6}}
    with pytest.raises(InvalidData, match=r"^Stealth is both an attribute and a skill, and a decision-dice"):
        await store.sheets.import_json(world.guild.id, world.alice.id, json.dumps(data))
    # and a sheet an earlier version imported with both is not rolled with one of them picked silently
    monkeypatch.setattr("bot.store.sheets._stats_once", lambda sheet: None)
    await store.sheets.import_json(world.guild.id, world.alice.id, json.dumps(data))
    await harness.slash(world.guild, world.general, world.alice, "sheet use", {"name": "Nox"})
    state = harness.bot.rng.getstate()
    refused = await roll(harness, world, stat_name="Stealth", target=6)
    assert refused.ephemeral and refused.content == (
        "Nox has both an attribute and a skill named Stealth: remove one (/sheet remove) to roll it."
    )
    assert harness.bot.rng.getstate() == state


async def test_a_contest_takes_what_a_plain_roll_takes(harness: Harness, world: World) -> None:
    # a party's modifier and GM modifiers add up past 100 (here 110), as a plain roll's do
    store = harness.bot.store
    for _ in range(6):  # +10 is a GM modifier's most
        await store.modifiers.set(
            world.guild.id, world.general.id, "decision", world.alice.id, "modifier", 10, 1, world.gm.id
        )
    contest = await harness.slash(
        world.guild, world.general, world.gm, "decision contested",
        {"party1": world.alice, "mod1": 50, "npc2": "Orc"},
    )  # fmt: skip
    assert not contest.ephemeral and contest.embed["title"].startswith("Contest: Alice wins")


async def test_decision_dice_are_offered_in_dms_as_the_other_rule_systems(
    harness: Harness, world: World
) -> None:  # DD-1 in a DM with the bot: a raw stat needs no server
    synced = {c["name"]: c for c in harness.fake.global_commands}
    assert (
        synced["decision"]["contexts"] == synced["dn"]["contexts"] == synced["sysx"]["contexts"] == [0, 1, 2]
    )
    answer = await harness.slash(None, None, world.alice, "decision roll", {"stat": 2, "target_number": 8})
    assert not answer.ephemeral and answer.embed["title"].startswith("Alice")
