"""/sysx end to end: each subcommand against the fake Discord with the seeded dice (DICE_SEED 1234).

Expected results are computed with the core from the same seeded d20 sequence the bot uses
(``Dice(random.Random(1234)).d20()`` per die, in the order the command rolls them).
"""

from __future__ import annotations

import random
from typing import Any

from bot.core import systemx as sx
from bot.core.dice import Dice
from bot.core.odds import percent
from bot.core.odds.systemx import check_odds, combined_distribution, opposed_distribution
from bot.local.fake.harness import Answer, Harness, World
from bot.ui.embeds import VERDICT_COLOURS
from bot.ui.sysx import outcome_words
from tests.e2e.compact import assert_compact, open_details

CHART = sx.RollChart.model()  # the frozen data file equals the model (tests/test_systemx.py proves it)
SEED = 1234


def seeded(count: int, skip: int = 0) -> list[int]:
    """The bot's next ``count`` d20s after ``skip`` earlier ones."""
    dice = Dice(random.Random(SEED))
    rolls = [dice.d20() for _ in range(skip + count)]
    return rolls[skip:]


def field(embed: dict[str, Any], name: str) -> str:
    """The value of the first field whose name starts with ``name``."""
    for item in embed.get("fields", []):
        if item["name"].startswith(name):
            return str(item["value"])
    raise AssertionError(f"no field {name!r} in {[f['name'] for f in embed.get('fields', [])]}")


def colour(verdict: Any) -> int:
    return VERDICT_COLOURS[verdict].value


async def sheet(
    harness: Harness,
    world: World,
    user: Any,
    name: str,
    attributes: dict[str, int],
    skills: dict[str, tuple[str, int]],
    wounds: dict[str, int] | None = None,
) -> None:
    await harness.bot.store.sheets.create(
        {
            "guild_id": world.guild.id,
            "owner_id": user.id,
            "name": name,
            "system": "sysx",
            "attributes": attributes,
            "skills": {k: {"rating": r, "attribute": a} for k, (a, r) in skills.items()},
            "wounds": wounds,
        }
    )


async def alice_sheet(harness: Harness, world: World, **extra: Any) -> None:
    await sheet(
        harness,
        world,
        world.alice,
        "Ayla",
        {"Agility": 12, "Wits": 9},
        {"Climb": ("Agility", 4), "Stealth": ("Agility", 2), "Swim": ("Wits", 3)},
        **extra,
    )


async def logged(harness: Harness, world: World) -> int:
    return len(await harness.bot.store.log.last(world.guild.id, world.general.id, 50))


async def sysx(
    harness: Harness, world: World, path: str, options: dict[str, Any], user: Any = None
) -> Answer:
    return await harness.slash(world.guild, world.general, user or world.alice, f"sysx {path}", options)


async def details(harness: Harness, answer: Answer, user: Any) -> dict[str, Any]:
    """The roll's full breakdown, through its Details button, as ``user`` sees it."""
    return await open_details(harness, answer.original, user)


# -- check -------------------------------------------------------------------------------------------


async def test_check_from_the_active_sheet(harness: Harness, world: World) -> None:  # SX-1, SX-5, SX-7
    await alice_sheet(harness, world)
    answer = await sysx(harness, world, "check", {"skill": "climb"})
    [natural] = seeded(1)
    expected = sx.check(CHART, 16, natural)
    word = "success" if expected.succeeded else "failure"
    assert not answer.ephemeral
    lines = assert_compact(answer.original)
    assert answer.embed["title"] == f"Ayla - Climb: {expected.margin.signed()}, {word}"
    assert answer.embed["color"] == colour(expected.verdict)
    assert lines[0] == f"d20 **{natural}** against SV 16" and lines[1] == "Needed +0 or better"
    embed = await details(harness, answer, world.alice)
    assert embed["title"] == f"Climb: {expected.margin.signed()}, {word}"
    assert field(embed, "Skill Value") == "Agility 12 + Climb 4 = 16"
    assert field(embed, "Roll") == f"d20: **{natural}**"
    assert field(embed, "Margin") == f"**{expected.margin.signed()}**"
    assert field(embed, "Required").startswith("+0 (default)")
    assert "sheet Ayla" in embed["description"] and world.alice.mention in embed["description"]
    assert "SX-5" in embed["footer"]["text"] and "the bot's roll chart" in embed["footer"]["text"]
    [record] = await harness.bot.store.log.last(world.guild.id, world.general.id)
    assert record.dice == [natural] and record.command == "sysx check"


async def test_check_with_raw_numbers_and_rule_modifiers(
    harness: Harness, world: World
) -> None:  # SX-1, SX-4
    options = {"attribute": 10, "skill_rating": 5, "roll_modifier": 2, "sv_modifier": -3, "required": "S2"}
    answer = await sysx(harness, world, "check", options)
    [natural] = seeded(1)
    expected = sx.check(CHART, 15, natural, roll_modifier=2, sv_modifier=-3, required=sx.S2)
    assert assert_compact(answer.original)[:2] == [
        f"d20 **{natural}** +2 = {natural + 2} against SV 15 -3 = 12",
        "Needed +2 or better",
    ]
    embed = await details(harness, answer, world.bob)  # anyone at the table may open a public roll's details
    assert field(embed, "Skill Value") == "attribute 10 + skill 5 = 15; modifier -3 (rule -3) → 12"
    assert field(embed, "Roll") == f"d20: **{natural}**, modifier +2 (rule +2) → {natural + 2}"
    assert field(embed, "Margin") == f"**{expected.margin.signed()}**"
    assert field(embed, "Required").startswith("+2 (chosen)")
    assert embed["color"] == colour(expected.verdict)
    assert expected.decided_by.value in field(embed, "Decided by")


async def test_sv_above_30_is_a_critical_success_without_the_chart(harness: Harness, world: World) -> None:
    answer = await sysx(harness, world, "check", {"sv": 35})  # SX-3
    assert answer.embed["title"] == "Alice - SV 35: CS, critical success"
    needed = assert_compact(answer.original)[1]
    assert needed == "Needed +0 or better; an SV above 30 always succeeds critically"
    embed = await details(harness, answer, world.alice)
    assert field(embed, "Decided by") == "SV above 30 (SX-3)"
    assert field(embed, "Margin") == "**CS**"
    assert embed["color"] == colour(sx.Verdict.CRITICAL_SUCCESS)
    assert "SX-3" in embed["footer"]["text"]


async def test_letters_display_follows_the_guild_setting(harness: Harness, world: World) -> None:
    await harness.bot.store.settings.update(world.guild.id, margin_display="letters")
    answer = await sysx(harness, world, "check", {"sv": 16})
    [natural] = seeded(1)
    expected = sx.check(CHART, 16, natural)
    assert f": {expected.margin.letters()}, " in answer.embed["title"]
    assert assert_compact(answer.original)[1] == "Needed S0 or better"
    embed = await details(harness, answer, world.alice)
    assert field(embed, "Margin") == f"**{expected.margin.letters()}**"
    assert field(embed, "Required").startswith("S0 (default)")


async def test_a_guilds_own_chart_is_used(harness: Harness, world: World) -> None:  # SX-5
    own = sx.RollChart(tuple(tuple(sx.S5 for _ in range(20)) for _ in range(30)))
    store = harness.bot.store
    await store.settings.update(world.guild.id, systemx_chart=own.to_csv())
    for _ in range(2):  # the second roll reuses the parsed chart
        seen: list[str] = []
        await store.db.trace(seen.append)
        try:
            answer = await sysx(harness, world, "check", {"sv": 10, "visibility": "public"})
        finally:
            await store.db.trace(None)
        # the settings come with the GM's state before the roll, in its one read
        assert [s for s in seen if not s.startswith("INSERT INTO rolls")] == [seen[0]]
        assert "FROM guild_settings" in seen[0] and "FROM pending_modifiers" in seen[0]
        assert answer.embed["title"].endswith(": +5, success")
        embed = await details(harness, answer, world.alice)
        assert field(embed, "Margin") == "**+5**"
        assert "the guild's own roll chart" in embed["footer"]["text"]


async def test_check_in_a_dm_with_raw_numbers(harness: Harness, world: World) -> None:
    answer = await harness.slash(None, None, world.stranger, "sysx check", {"sv": 12})
    [natural] = seeded(1)
    expected = sx.check(CHART, 12, natural)
    assert not answer.ephemeral
    assert answer.embed["title"].startswith(f"Stranger - SV 12: {expected.margin.signed()}")
    assert (await details(harness, answer, world.stranger))["title"].startswith("SV 12")
    flat = await harness.slash(None, None, world.stranger, "sysx flat", {"value": 11})
    assert flat.embed["title"].startswith("Stranger - flat chance under 11")


async def test_private_check_shows_the_result_only_to_the_roller(harness: Harness, world: World) -> None:
    answer = await sysx(harness, world, "check", {"sv": 14, "visibility": "private"})
    [natural] = seeded(1)
    assert answer.ephemeral and assert_compact(answer.original)[0] == f"d20 **{natural}** against SV 14"
    assert field(await details(harness, answer, world.alice), "Roll") == f"d20: **{natural}**"
    [notice] = answer.public()
    assert notice.embeds == [] and "private roll" in notice.content and "System X check" in notice.content
    text = notice.text()
    for secret in ("d20", "Margin", str(natural), "+", "success", "failure"):
        assert secret not in text.replace(world.alice.mention, ""), secret


# -- bad input -----------------------------------------------------------------------------------------


async def test_bad_input_is_one_sentence_and_changes_nothing(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "sysx", world.alice.id, "sv", 2, 1, world.gm.id
    )
    no_sheet = await sysx(harness, world, "check", {"skill": "Climb"})
    assert no_sheet.ephemeral and no_sheet.content.startswith("You have no active System X sheet")
    await alice_sheet(harness, world)
    cases = [
        ({"skill": "Juggling"}, "The sheet 'Ayla' has no skill named 'Juggling'."),
        ({}, "Name a skill from your System X sheet, or give an SV (or an attribute and a skill rating)."),
        ({"attribute": 10}, "Give both an attribute and a skill rating, or neither."),
        ({"skill": "Climb", "sv": 12}, "Give either a skill from the sheet or raw numbers, not both."),
    ]
    for options, sentence in cases:
        answer = await sysx(harness, world, "check", options)
        assert answer.ephemeral and answer.content == sentence
        assert answer.public() == [] and [m for m in answer.messages if not m.deleted] == [answer.original]
    synergy = await sysx(harness, world, "synergy", {"skills": "Climb"})
    assert synergy.ephemeral and "List 2 to 10" in synergy.content
    decimal = await sysx(harness, world, "synergy", {"skills": "12.5, 1e3"})
    assert decimal.ephemeral and decimal.content == "A Skill Value is a whole number, not '12.5'."
    assert await logged(harness, world) == 0
    # the GM's modifier is still pending: refusals consume nothing (GM-3)
    assert (
        len(await store.modifiers.pending_for(world.guild.id, world.general.id, "sysx", world.alice.id)) == 1
    )


# -- GM modifiers (GM-3, SX-6) ---------------------------------------------------------------------------


async def test_a_gm_modifier_is_consumed_by_exactly_one_roll(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "sysx", world.alice.id, "sv", -2, 1, world.gm.id
    )
    await store.modifiers.set(
        world.guild.id, world.general.id, "sysx", world.alice.id, "roll", 3, 1, world.gm.id
    )
    first = await sysx(harness, world, "check", {"sv": 16, "sv_modifier": 1})
    second = await sysx(harness, world, "check", {"sv": 16, "sv_modifier": 1})
    one, two = seeded(2)
    expected = sx.check(CHART, 16, one, sv_modifier=-1, roll_modifier=3)  # GM-3, SX-6
    lines = assert_compact(first.original)
    assert lines[2] == (
        f"GM modifiers: Skill Value -2 (set by {world.gm.mention}); roll +3 (set by {world.gm.mention})"
    )
    assert len(assert_compact(second.original)) == 2  # no GM line: the modifier was used up
    embed = await details(harness, first, world.alice)
    assert field(embed, "Skill Value") == "16 (given); modifier -1 (rule +1, GM -2) → 15"
    assert field(embed, "Roll") == f"d20: **{one}**, modifier +3 (GM +3) → {one + 3}"
    assert field(embed, "Margin") == f"**{expected.margin.signed()}**"
    gm_field = field(embed, "GM modifiers")
    assert "Skill Value -2" in gm_field and "roll +3" in gm_field and world.gm.mention in gm_field
    assert "SX-6" in embed["footer"]["text"]
    again = await details(harness, second, world.alice)
    assert "GM modifier" not in [f["name"][:11] for f in again["fields"]]
    assert field(again, "Skill Value") == "16 (given); modifier +1 (rule +1) → 17"
    assert field(again, "Margin") == f"**{sx.check(CHART, 16, two, sv_modifier=1).margin.signed()}**"


async def test_gm_modifiers_of_one_kind_are_held_within_four(harness: Harness, world: World) -> None:
    # SX-6, GM-3: three GM roll modifiers of +4 (Alice's twice, everyone's once) add +4, not +12
    store = harness.bot.store
    for member in (world.alice.id, None, world.alice.id):
        await store.modifiers.set(world.guild.id, world.general.id, "sysx", member, "roll", 4, 1, world.gm.id)
    answer = await sysx(harness, world, "check", {"sv": 12, "roll_modifier": 1})
    [one] = seeded(1)
    expected = sx.check(CHART, 12, one, roll_modifier=5)
    embed = await details(harness, answer, world.alice)
    assert (
        field(embed, "Roll")
        == f"d20: **{one}**, modifier +5 (rule +1, GM +12 held by SX-6 at +4) → {one + 5}"
    )
    assert field(embed, "Margin") == f"**{expected.margin.signed()}**"


async def test_stored_sheet_bonuses_add_to_the_skill_value(
    harness: Harness, world: World
) -> None:  # SX-1, SX-6
    # a bonus named like the skill or its parent attribute is a rule-made SV modifier (past a GM's -4..+4)
    await alice_sheet(harness, world)
    for name, value in (("Climb", 2), ("agility", 5), ("Wits", -3)):
        done = await harness.slash(
            world.guild, world.general, world.alice, "sheet set-bonus",
            {"name": "Ayla", "bonus": name, "value": value},
        )  # fmt: skip
        assert done.ephemeral and f"is now {value:+d}: it adds to the Skill Value of checks" in done.text()
    answer = await sysx(harness, world, "check", {"skill": "Climb"})
    [natural] = seeded(1)
    expected = sx.check(CHART, 23, natural)
    assert assert_compact(answer.original)[0] == f"d20 **{natural}** against SV 23"
    embed = await details(harness, answer, world.alice)
    assert field(embed, "Skill Value") == "Agility 12 + Climb 4 + Climb bonus +2 + agility bonus +5 = 23"
    assert field(embed, "Margin") == f"**{expected.margin.signed()}**"
    # the same SV in the odds, and a bonus of another attribute's skill stays out
    odds = await harness.slash(world.guild, world.general, world.alice, "odds sysx", {"skill": "Swim"})
    assert "Wits 9 + Swim 3 + Wits bonus -3 = 9" in odds.original.text()


async def test_a_gm_required_margin_overrides_the_players(harness: Harness, world: World) -> None:  # SX-7
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "sysx", None, "required_margin", "S3", 1, world.gm.id
    )
    answer = await sysx(harness, world, "check", {"sv": 20, "required": "F2"})
    [natural] = seeded(1)
    expected = sx.check(CHART, 20, natural, required=sx.S3)
    lines = assert_compact(answer.original)
    assert lines[1].startswith("Needed +3 or better")
    # in the guild's display (signed by default), as the line above says it
    assert lines[2] == f"GM modifier: required margin +3 (set by {world.gm.mention})"
    assert answer.embed["color"] == colour(expected.verdict)
    embed = await details(harness, answer, world.alice)
    assert field(embed, "Required").startswith("+3 (set by the GM)")
    assert field(embed, "GM modifier").startswith("required margin +3 (for everyone")
    # the GM's own views say it the same way; in letters once the guild shows letters
    listed = await harness.slash(world.guild, world.general, world.gm, "gm modifiers", {})
    assert "System X: required margin +3 for everyone" in listed.embed["description"]
    set_ = await harness.slash(
        world.guild,
        world.general,
        world.gm,
        "gm modifier",
        {"system": "sysx", "kind": "required_margin", "value": "S2", "member": world.alice},
    )
    assert set_.content.startswith("Set `#") and "required margin +2 on" in set_.content
    await store.settings.update(world.guild.id, margin_display="letters")
    listed = await harness.slash(world.guild, world.general, world.gm, "gm modifiers", {})
    assert f"System X: required margin S2 for {world.alice.mention}" in listed.embed["description"]


async def test_a_gm_required_margin_judges_an_opposed_and_a_combined_result(  # SX-7, SX-8, SX-9, GM-3
    harness: Harness, world: World
) -> None:
    # set for Alice's next roll, it decides whether the roll's final margin succeeds, not the actor's check
    store = harness.bot.store
    # the dice give the opposed roll +5 and the combined one -7: a CS fails the first, a CF passes the second
    needs = {"opposed": (sx.CS, "needed CS", False), "combined": (sx.CF, "needed CF or better", True)}
    for kind, (margin, needed, passes) in needs.items():
        await store.modifiers.set(
            world.guild.id, world.general.id, "sysx", world.alice.id, "required_margin", margin.letters(), 1,
            world.gm.id,
        )  # fmt: skip
        if kind == "opposed":
            options: dict[str, Any] = {
                "actor": world.alice,
                "actor_sv": 18,
                "target_npc": "Guard",
                "target_sv": 5,
            }
            answer = await sysx(harness, world, kind, options)
            first, second = seeded(2, skip=0)
            final = sx.opposed(sx.check(CHART, 18, first).margin, sx.check(CHART, 5, second).margin)
        else:
            options = {"member1": world.alice, "sv1": 14, "npc2": "Bo", "sv2": 12}
            answer = await sysx(harness, world, kind, options)
            first, second = seeded(2, skip=2)
            final = sx.combined(
                [sx.check(CHART, 14, first).margin, sx.check(CHART, 12, second).margin]
            ).margin
        succeeded, verdict = sx.judged(final, margin)
        assert succeeded is passes and final.is_success is not passes  # S0 would have judged it otherwise
        assert answer.embed["title"].endswith(": " + outcome_words(final, sx.MarginStyle.SIGNED, succeeded))
        assert answer.embed["color"] == colour(verdict)
        assert needed in " ".join(assert_compact(answer.original))
        embed = await details(harness, answer, world.alice)
        assert needed in embed["description"]
        assert await store.modifiers.list(world.guild.id, world.general.id) == []  # used once, and used
        # the chance beside the verdict is the chance of meeting that margin, not S0
        checks = [
            check_odds(sv, chart=CHART).distribution for sv in ((18, 5) if kind == "opposed" else (14, 12))
        ]
        dist = opposed_distribution(*checks) if kind == "opposed" else combined_distribution(checks)
        what = "for the actor to succeed" if kind == "opposed" else "to succeed together"
        assert field(embed, "Odds").startswith(
            f"{percent(dist.at_least(margin))} {what} (needs {margin.signed()})"
        )
        assert percent(dist.at_least(margin)) != percent(dist.at_least(sx.S0))  # the test tells them apart


# -- wounds (SX-2, GM-2) ---------------------------------------------------------------------------------


async def test_wounds_are_gm_only_and_cap_the_next_check(harness: Harness, world: World) -> None:
    await alice_sheet(harness, world)
    store = harness.bot.store
    refused = await sysx(harness, world, "wounds", {"member": world.alice, "current": 3, "maximum": 10})
    assert refused.ephemeral and "Only a GM" in refused.content and refused.public() == []  # GM-2
    assert (await store.sheets.active(world.guild.id, world.alice.id, "sysx")).wounds is None
    done = await sysx(
        harness, world, "wounds", {"member": world.alice, "current": 3, "maximum": 10}, user=world.gm
    )
    assert done.ephemeral and "wounds 3/10, SV capped at 6" in done.content
    wounds = (await store.sheets.active(world.guild.id, world.alice.id, "sysx")).wounds
    assert wounds is not None and (wounds.current, wounds.maximum) == (3, 10)
    answer = await sysx(harness, world, "check", {"skill": "Climb"})
    [natural] = seeded(1)
    expected = sx.check(CHART, 16, natural, wounds=(3, 10))  # SX-2
    assert assert_compact(answer.original)[0] == f"d20 **{natural}** against SV 16, capped at 6 by wounds"
    embed = await details(harness, answer, world.alice)
    assert field(embed, "Skill Value") == "Agility 12 + Climb 4 = 16; wounds 3/10 cap SV at 6 → 6"
    assert field(embed, "Margin") == f"**{expected.margin.signed()}**"
    assert "SX-2" in embed["footer"]["text"]
    healed = await sysx(harness, world, "wounds", {"member": world.alice, "current": 10}, user=world.gm)
    assert "no cap" in healed.content
    too_many = await sysx(harness, world, "wounds", {"member": world.alice, "current": 11}, user=world.gm)
    assert too_many.ephemeral and too_many.content == "Current wounds run from 0 to the maximum 10, not 11."


# -- opposed, combined, synergy, flat ---------------------------------------------------------------------


async def test_opposed_uses_both_members_sheets(harness: Harness, world: World) -> None:  # SX-8
    await alice_sheet(harness, world)
    await sheet(harness, world, world.bob, "Brom", {"Senses": 11}, {"Notice": ("Senses", 5)})
    await harness.bot.store.modifiers.set(
        world.guild.id, world.general.id, "sysx", world.alice.id, "roll", 2, 1, world.gm.id
    )
    options = {"actor": world.alice, "target": world.bob, "actor_skill": "Stealth", "target_skill": "Notice"}
    answer = await sysx(harness, world, "opposed", options, user=world.alice)
    first, second = seeded(2)
    actor = sx.check(CHART, 14, first, roll_modifier=2)
    target = sx.check(CHART, 16, second)
    final = sx.opposed(actor.margin, target.margin)
    title = answer.embed["title"]
    assert title.startswith(f"Ayla (Stealth) vs Brom (Notice): {final.signed()}")
    lines = assert_compact(answer.original)
    assert lines[0] == (
        f"Ayla d20 **{first}** +2 = {first + 2} → {actor.margin.signed()} · "
        f"Brom d20 **{second}** → {target.margin.signed()}"
    )
    assert lines[2] == f"GM modifier for Ayla: roll +2 (set by {world.gm.mention})"
    embed = await details(harness, answer, world.bob)
    assert embed["title"].startswith(f"Opposed check: {final.signed()}")
    actor_text = field(embed, "Actor: Stealth")
    assert world.alice.mention in actor_text and "Agility 12 + Stealth 2 = 14" in actor_text
    assert f"d20: **{first}**, modifier +2 → {first + 2}" in actor_text
    target_text = field(embed, "Target: Notice")
    assert world.bob.mention in target_text and f"d20: **{second}**" in target_text
    assert field(embed, "Opposed (SX-8)") == (
        f"{actor.margin.signed()} against {target.margin.signed()} → **{final.signed()}**"
    )
    assert world.gm.mention in field(embed, "GM modifier (on the actor's check)")
    assert embed["color"] == colour(sx_verdict(final))


def sx_verdict(margin: sx.Margin) -> Any:
    return sx.judged(margin)[1]  # a final margin against the default required S0


async def test_opposed_with_raw_svs_and_a_member_without_a_sheet(harness: Harness, world: World) -> None:
    refused = await sysx(
        harness, world, "opposed", {"actor": world.alice, "target": world.bob, "actor_sv": 12}
    )
    assert refused.ephemeral and refused.content.startswith(f"Name a skill from {world.bob.mention}'s")
    answer = await sysx(
        harness, world, "opposed", {"actor": world.alice, "target": world.bob, "actor_sv": 12, "target_sv": 9}
    )
    first, second = seeded(2)
    final = sx.opposed(sx.check(CHART, 12, first).margin, sx.check(CHART, 9, second).margin)
    assert answer.embed["title"].startswith(f"Alice (SV 12) vs Bob (SV 9): {final.signed()}")
    embed = await details(harness, answer, world.alice)
    assert field(embed, "Opposed (SX-8)").endswith(f"**{final.signed()}**")


async def test_combined_with_three_members_shows_the_fold(harness: Harness, world: World) -> None:  # SX-9
    await alice_sheet(harness, world)
    await sheet(harness, world, world.bob, "Brom", {"Brawn": 14}, {"Lift": ("Brawn", 3)})
    options = {
        "member1": world.alice,
        "skill1": "Climb",
        "member2": world.bob,
        "skill2": "Lift",
        "member3": world.carol,
        "sv3": 8,
    }
    answer = await sysx(harness, world, "combined", options)
    dice = seeded(3)
    margins = [sx.check(CHART, sv, d).margin for sv, d in zip((16, 17, 8), dice, strict=True)]
    outcome = sx.combined(margins)
    assert answer.embed["title"].startswith(f"Combined: Ayla, Brom, Carol: {outcome.margin.signed()}")
    lines = assert_compact(answer.original)
    first, second = (partial.signed() for partial in outcome.partials)
    assert lines[1] == f"Margins added in turn: {first} then {second}"
    embed = await details(harness, answer, world.carol)
    assert embed["title"].startswith(f"Combined check: {outcome.margin.signed()}")
    assert world.carol.mention in field(embed, "3. SV 8") and f"d20: **{dice[2]}**" in field(embed, "3. SV 8")
    steps = field(embed, "Combined (SX-9)").splitlines()
    assert steps == [
        f"{margins[0].signed()} with {margins[1].signed()} → {outcome.partials[0].signed()}",
        f"{outcome.partials[0].signed()} with {margins[2].signed()} → {outcome.partials[1].signed()}",
    ]
    duplicate = await sysx(harness, world, "combined", {"member1": world.bob, "member2": world.bob, "sv1": 3})
    assert duplicate.ephemeral and "only once" in duplicate.content


async def test_opposed_against_an_npc_and_an_npc_acting(harness: Harness, world: World) -> None:
    # SX-8 with a named non-member party: an NPC has an SV, no sheet and no GM modifiers (GM-3)
    await alice_sheet(harness, world)
    await harness.bot.store.modifiers.set(
        world.guild.id, world.general.id, "sysx", world.alice.id, "roll", 2, 1, world.gm.id
    )
    options = {"actor": world.alice, "actor_skill": "Stealth", "target_npc": "Gate *guard*", "target_sv": 13}
    answer = await sysx(harness, world, "opposed", options, user=world.gm)
    first, second = seeded(2)
    actor = sx.check(CHART, 14, first, roll_modifier=2)
    final = sx.opposed(actor.margin, sx.check(CHART, 13, second).margin)
    assert answer.embed["title"].startswith(f"Ayla (Stealth) vs Gate \\*guard\\* (SV 13): {final.signed()}")
    assert_compact(answer.original)
    embed = await details(harness, answer, world.bob)
    assert field(embed, "Opposed (SX-8)").endswith(f"**{final.signed()}**")
    assert "Gate \\*guard\\*" in field(embed, "Target: SV 13")  # the NPC's name, markdown escaped
    [logged_roll] = await harness.bot.store.log.last(world.guild.id, world.general.id, 1)
    assert logged_roll.inputs["target"] is None and logged_roll.inputs["target_name"] == "Gate \\*guard\\*"
    # an NPC acting takes no GM modifier; Alice defending takes her roll modifier on her own check (GM-3),
    # while a required margin left for her waits: it judges an action of hers, not the Ogre's
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "sysx", world.alice.id, "roll", 1, 1, world.gm.id
    )
    await store.modifiers.set(
        world.guild.id, world.general.id, "sysx", world.alice.id, "required_margin", "S2", 1, world.gm.id
    )
    options = {"actor_npc": "Ogre", "actor_sv": 15, "target": world.alice, "target_skill": "Climb"}
    again = await sysx(harness, world, "opposed", options, user=world.gm)
    third, fourth = seeded(2, skip=2)
    defended = sx.check(CHART, 16, fourth, roll_modifier=1)
    final = sx.opposed(sx.check(CHART, 15, third).margin, defended.margin)
    assert again.embed["title"].startswith(f"Ogre (SV 15) vs Ayla (Climb): {final.signed()}")
    shown = await details(harness, again, world.alice)
    assert field(shown, "Opposed (SX-8)").endswith(f"**{final.signed()}**")
    assert world.gm.mention in field(shown, "GM modifier (on the target's check)")
    assert assert_compact(again.original)[-1] == f"GM modifier for Ayla: roll +1 (set by {world.gm.mention})"
    [waiting] = await store.modifiers.list(world.guild.id, world.general.id)
    assert (waiting.kind, waiting.uses_left) == ("required_margin", 1)


async def test_a_side_given_by_a_skill_alone_is_yours_and_by_an_sv_alone_an_unnamed_npc(
    harness: Harness, world: World
) -> None:  # SX-8, SX-9: the options' help says so
    await alice_sheet(harness, world)
    mine = await sysx(harness, world, "opposed", {"actor_skill": "Climb", "target_sv": 10})
    assert not mine.ephemeral and mine.embed["title"].startswith("Ayla (Climb) vs The target (SV 10): ")
    bare = await sysx(harness, world, "combined", {"sv1": 12, "sv2": 14, "skill3": "Climb"})
    assert not bare.ephemeral
    assert bare.embed["title"].startswith("Combined: Actor 1, Actor 2, Ayla: ")
    assert await logged(harness, world) == 2


async def test_six_long_names_keep_the_combined_outcome_in_the_title(
    harness: Harness, world: World
) -> None:  # SX-9
    options = {}
    for n in range(1, 7):
        options[f"npc{n}"] = f"{'Ｚ' * 60}{n}"
        options[f"sv{n}"] = 10 + n
    answer = await sysx(harness, world, "combined", options)
    title = answer.embed["title"]
    assert len(title) <= 120 and title.endswith(("success", "failure")), title


async def test_npc_parties_are_refused_without_an_sv_or_with_a_skill(harness: Harness, world: World) -> None:
    cases = [
        ({"actor": world.alice, "actor_npc": "Ogre", "actor_sv": 9, "target_sv": 9, "target_npc": "Elf"},
         "Give the actor as a member or as an NPC's name (actor_npc), not both."),
        ({"actor_npc": "Ogre", "target_npc": "Elf", "target_sv": 9},
         "Give the NPC Ogre's Skill Value in actor_sv."),
        ({"actor_npc": "Ogre", "actor_sv": 9, "actor_skill": "Climb", "target_npc": "Elf", "target_sv": 9},
         "An NPC has no sheet: give Ogre's SV in actor_sv, not a skill."),
        ({"actor_npc": "Ogre", "actor_sv": 9, "target_npc": "ogre", "target_sv": 9},
         "Each member or NPC takes part only once; give NPCs different names."),
        ({"target_npc": "Elf", "target_sv": 9},
         "Give the actor: a member, or an NPC's name in actor_npc with its SV."),
        ({"actor_skill": "Climb", "target_skill": "Climb"},  # both default to the user: once only
         "Each member or NPC takes part only once; give NPCs different names."),
        ({"actor_npc": "Ogre", "actor_sv": 3, "target_sv": 4, "target_skill": "Climb"},
         "Give the target a skill or a Skill Value, not both."),
    ]  # fmt: skip
    for options, sentence in cases:
        refused = await sysx(harness, world, "opposed", options, user=world.gm)
        assert refused.ephemeral and refused.content == sentence and refused.public() == []
    one = await sysx(harness, world, "combined", {"npc1": "Ogre", "sv1": 12}, user=world.gm)
    assert one.ephemeral and one.content.startswith("A combined check needs at least two actors")
    assert await logged(harness, world) == 0


async def test_combined_with_members_and_npcs(harness: Harness, world: World) -> None:  # SX-9, GM-3
    await alice_sheet(harness, world)
    await harness.bot.store.modifiers.set(
        world.guild.id, world.general.id, "sysx", world.alice.id, "sv", 3, 1, world.gm.id
    )
    options = {"member1": world.alice, "skill1": "Climb", "npc2": "Ogre", "sv2": 15, "npc4": "Elf", "sv4": 9}
    answer = await sysx(harness, world, "combined", options, user=world.gm)
    dice = seeded(3)
    margins = [
        sx.check(CHART, 16, dice[0], sv_modifier=3).margin,
        sx.check(CHART, 15, dice[1]).margin,
        sx.check(CHART, 9, dice[2]).margin,
    ]
    outcome = sx.combined(margins)
    assert answer.embed["title"].startswith(f"Combined: Ayla, Ogre, Elf: {outcome.margin.signed()}")
    assert_compact(answer.original)
    embed = await details(harness, answer, world.bob)
    assert "Ogre" in field(embed, "2. SV 15") and "Elf" in field(embed, "3. SV 9")
    [logged_roll] = await harness.bot.store.log.last(world.guild.id, world.general.id, 1)
    assert logged_roll.inputs["actors"] == [
        {"member": world.alice.id, "name": world.alice.mention, "sv": 16},
        {"member": None, "name": "Ogre", "sv": 15},
        {"member": None, "name": "Elf", "sv": 9},
    ]


async def test_a_gm_modifier_applies_to_the_chain_s_first_check_only(harness: Harness, world: World) -> None:
    # GM-3, SX-10: one use is one roll ("for one use of the core resolution mechanic"): the first check
    # takes the GM's SV and roll modifiers, the later checks only carry margins
    store = harness.bot.store
    for kind in ("sv", "roll"):
        await store.modifiers.set(
            world.guild.id, world.general.id, "sysx", world.alice.id, kind, 4, 1, world.gm.id
        )
    answer = await sysx(harness, world, "synergy", {"skills": "10, 10, 10"})
    dice = seeded(3)
    steps = [sx.SkillCheck(sv=10, sv_modifier=4, roll_modifier=4)] + [sx.SkillCheck(sv=10)] * 2
    outcome = sx.synergy(CHART, steps, dice)
    assert f": {outcome.margin.signed()}" in answer.embed["title"]
    embed = await details(harness, answer, world.alice)
    first, second, third = (embed["fields"][i]["value"] for i in range(3))
    assert (
        first.startswith("SV 10 (given); modifier +4 → 14\n") and f"d20: **{dice[0]}**, modifier +4" in first
    )
    for later, die, link in ((second, dice[1], outcome.links[1]), (third, dice[2], outcome.links[2])):
        # no roll modifier on the die; the SV moves only by the carried margin
        assert f"d20: **{die}**\n" in later
        assert later.startswith(
            f"SV 10 (given); modifier {link.carried:+d} → {10 + link.carried}\n"
            if link.carried
            else "SV 10 (given)\n"
        )
    assert field(embed, "GM modifiers (on the chain's first check)")
    assert await store.modifiers.list(world.guild.id, world.general.id) == []  # one use each, taken once


async def test_synergy_chain_carries_each_margin(harness: Harness, world: World) -> None:  # SX-10
    await alice_sheet(harness, world)
    answer = await sysx(harness, world, "synergy", {"skills": "Swim, Climb, 10", "required": "S1"})
    dice = seeded(3)
    steps = [sx.SkillCheck(sv=sv) for sv in (12, 16, 10)]
    outcome = sx.synergy(CHART, steps, dice, required=sx.S1)
    assert answer.embed["title"].startswith(f"Ayla - Swim, Climb, SV 10: {outcome.margin.signed()}")
    lines = assert_compact(answer.original)
    assert lines[0] == (
        f"d20s **{dice[0]}**, **{dice[1]}**, **{dice[2]}**: "
        + " → ".join(link.result.margin.signed() for link in outcome.links)
    )
    assert lines[1] == "Each margin adds to the next SV; needed +1 or better"
    embed = await details(harness, answer, world.alice)
    assert embed["title"].startswith(f"Synergistic check: {outcome.margin.signed()}")
    names = [f["name"] for f in embed["fields"]]
    assert names[0] == "1. Swim (first check: carries +0)"
    assert names[1] == f"2. Climb (carries {outcome.links[1].carried:+d} from check 1)"
    assert names[2] == f"3. SV 10 (carries {outcome.links[2].carried:+d} from check 2)"
    for index, link in enumerate(outcome.links):
        value = embed["fields"][index]["value"]
        assert f"d20: **{dice[index]}**" in value and f"**{link.result.margin.signed()}**" in value
        if link.carried:
            assert f"modifier {link.carried:+d}" in value
    assert field(embed, "Result").startswith(f"Last margin **{outcome.margin.signed()}** against required +1")
    assert embed["color"] == colour(outcome.verdict)
    unknown = await sysx(harness, world, "synergy", {"skills": "Swim, Fly"})
    assert unknown.ephemeral and unknown.content == "The sheet 'Ayla' has no skill named 'Fly'."


async def test_flat_chance(harness: Harness, world: World) -> None:  # SX-11
    answer = await sysx(harness, world, "flat", {"value": 8})
    [natural] = seeded(1)
    result = sx.flat(natural, 8)
    happened = "happens" if result.happened else "does not happen"
    assert answer.embed["title"] == f"Alice - flat chance under 8: {happened}"
    assert assert_compact(answer.original) == [f"d20 **{natural}**, needed under 8"]
    assert answer.embed["color"] == colour(result.verdict)
    embed = await details(harness, answer, world.alice)
    assert embed["title"] == f"Flat chance: the event {happened}"
    assert field(embed, "Roll") == f"d20: **{natural}**"


# -- autocomplete ------------------------------------------------------------------------------------------


async def test_skills_autocomplete_from_the_right_sheet(harness: Harness, world: World) -> None:
    await alice_sheet(harness, world)
    await sheet(
        harness, world, world.bob, "Brom", {"Senses": 11}, {"Notice": ("Senses", 5), "Sneak": ("Senses", 1)}
    )
    mine = await harness.autocomplete(
        world.guild, world.general, world.alice, "sysx check", {"skill": "s"}, "skill"
    )
    assert [c["value"] for c in mine.choices] == ["Stealth", "Swim"]
    assert mine.choices[0]["name"] == "Stealth (Agility 12 + 2)"
    target = await harness.autocomplete(
        world.guild,
        world.general,
        world.alice,
        "sysx opposed",
        {"actor": world.alice, "target": world.bob, "target_skill": "n"},
        "target_skill",
    )
    assert [c["value"] for c in target.choices] == ["Notice", "Sneak"]
    actor = await harness.autocomplete(
        world.guild,
        world.general,
        world.alice,
        "sysx opposed",
        {"actor": world.alice, "target": world.bob, "actor_skill": ""},
        "actor_skill",
    )
    assert [c["value"] for c in actor.choices] == ["Climb", "Stealth", "Swim"]
    slot = await harness.autocomplete(
        world.guild,
        world.general,
        world.alice,
        "sysx combined",
        {"member1": world.alice, "member2": world.bob, "skill2": "no"},
        "skill2",
    )
    assert [c["value"] for c in slot.choices] == ["Notice"]
    chain = await harness.autocomplete(
        world.guild, world.general, world.alice, "sysx synergy", {"skills": "Climb, sw"}, "skills"
    )
    assert [c["value"] for c in chain.choices] == ["Climb, Swim"]
    nobody = await harness.autocomplete(
        world.guild, world.general, world.carol, "sysx check", {"skill": ""}, "skill"
    )
    assert nobody.choices == []


# -- issue 31, item 1: compact by default ------------------------------------------------------------------


async def test_item1_every_sysx_roll_is_a_title_and_at_most_three_lines(
    harness: Harness, world: World
) -> None:
    await alice_sheet(harness, world)
    await harness.bot.store.modifiers.set(
        world.guild.id, world.general.id, "sysx", None, "roll", 1, 5, world.gm.id
    )
    rolls = [
        ("check", {"skill": "Climb", "required": "S1"}),
        ("opposed", {"actor": world.alice, "target": world.bob, "actor_skill": "Climb", "target_sv": 12}),
        ("combined", {"member1": world.alice, "skill1": "Climb", "member2": world.bob, "sv2": 9}),
        ("synergy", {"skills": "Swim, Climb, Stealth"}),
        ("flat", {"value": 9}),
    ]
    for path, options in rolls:
        answer = await sysx(harness, world, path, options)
        lines = assert_compact(answer.original)  # title, at most three lines, no rule ids, a Details button
        assert len(answer.public()) == 1 and lines, path
        if path != "flat":
            assert world.gm.mention in lines[-1] and "roll +1" in lines[-1], (path, lines)
        assert (await details(harness, answer, world.bob))["fields"], path


async def test_opposed_and_combined_work_in_dms_with_npcs_and_the_user_s_own_sheet(
    harness: Harness, world: World
) -> None:  # SX-8, SX-9: as /rps resisted and /decision contested do
    opposed = await harness.slash(
        None, None, world.stranger, "sysx opposed", {"actor_npc": "Ogre", "actor_sv": 12, "target_sv": 9}
    )
    assert not opposed.ephemeral and opposed.embed["title"].startswith("Ogre (SV 12) vs The target (SV 9): ")
    combined = await harness.slash(None, None, world.stranger, "sysx combined", {"sv1": 12, "sv2": 14})
    assert not combined.ephemeral and combined.embed["title"].startswith("Combined: Actor 1, Actor 2: ")
