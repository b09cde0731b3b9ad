"""/rps end to end against the fake Discord: checks, resisted actions, second tries, sustained pools.

Dice come from ``harness.bot.rng``; a test either mirrors a seeded ``random.Random`` or sets the bot's
rng to `ScriptedDice` (a ``random.Random`` whose d10s are chosen by the test: a test double for the dice
source only), and the expected numbers are worked out here from the rules.
"""

from __future__ import annotations

import asyncio
import copy
import random
from collections.abc import Iterable
from typing import Any

from bot.core import rps
from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import FakeDiscord
from bot.local.fake.world import FakeMessage
from bot.store import Sheet
from bot.ui.embeds import VERDICT_COLOURS, WARNING
from bot.ui.rps import GRANT_TAKEN
from tests.e2e.compact import assert_compact, open_details
from tests.e2e.compact import shown as details_of


class ScriptedDice(random.Random):
    """A dice source that hands out the d10s a test chose, in order, and fails when it runs dry."""

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)
        self.used = 0

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 10), f"RPS rolls d10s, not randint({a}, {b})"
        assert self.faces, "the test gave the bot no more dice"
        self.used += 1
        return self.faces.pop(0)


def dice(harness: Harness, *faces: int) -> ScriptedDice:
    scripted = ScriptedDice(faces)
    harness.bot.rng = scripted
    return scripted


def fields(embed: dict[str, Any]) -> dict[str, str]:
    return {f["name"]: f["value"] for f in embed.get("fields", [])}


async def alice_sheet(harness: Harness, world: World, owner=None) -> Sheet:
    user = owner or world.alice
    return await harness.bot.store.sheets.create(
        {
            "guild_id": world.guild.id,
            "owner_id": user.id,
            "name": f"{user.username}'s thief",
            "system": "rps",
            "attributes": {"Agility": 7, "Perception": 5, "Strength": 6},
            "skills": {
                "Stealth": {"rating": 8, "attribute": "Agility", "alternates": ["Perception"]},
                "Lockpicking": {"rating": 6, "attribute": "Agility"},
            },
        }
    )


async def check(harness: Harness, world: World, user=None, **options: Any) -> Answer:
    return await harness.slash(world.guild, world.general, user or world.alice, "rps check", options)


# --------------------------------------------------------------------------------------------------
# /rps check


async def test_skill_check_from_the_sheet_with_a_named_difficulty(harness: Harness, world: World) -> None:
    # RPS-1: Base = skill + parent + difficulty; RPS-2: SL = Base - 2d10; RPS-3: 10 is impressive
    await alice_sheet(harness, world)
    dice(harness, 3, 4)
    answer = await check(harness, world, skill="Stealth", difficulty=2)
    assert not answer.ephemeral
    embed = await details_of(harness, answer)
    shown = fields(embed)
    assert shown["Base"] == "17 = Stealth 8 + Agility 7 + Moderately hard (+2)"
    assert shown["Dice (2d10)"] == "3 + 4 = 7"
    assert shown["Success Level"] == "17 - 7 = 10"
    assert embed["title"] == "RPS Stealth (Agility): success, impressive"
    assert answer.embed["title"] == "Alice - Stealth (Agility): SL 10, impressive success"
    assert assert_compact(answer.original) == ["2d10 **3 + 4** = 7; Base 17 - 7 = SL 10"]
    assert answer.embed["color"] == VERDICT_COLOURS[rps.Verdict.SUCCESS].value
    assert "RPS-1" in embed["footer"]["text"] and "RPS-3" in embed["footer"]["text"]


async def test_skill_check_with_an_alternate_parent(harness: Harness, world: World) -> None:  # RPS-1
    await alice_sheet(harness, world)
    dice(harness, 6, 6)
    answer = await check(harness, world, skill="stealth", parent="perception", modifier=-1)
    shown = fields(await details_of(harness, answer))
    assert shown["Base"] == "12 = Stealth 8 + Perception 5 + modifier (-1)"
    assert shown["Success Level"] == "12 - 12 = 0"
    assert "near miss" in shown["Result"]  # RPS-3: SL 0 is a near miss
    assert answer.embed["color"] == WARNING.value
    assert answer.embed["title"] == "Alice - Stealth (Perception): SL 0, near miss"
    assert assert_compact(answer.original)[1] == "SL 0: just short; the GM may grant a second try"
    refused = await check(harness, world, skill="Stealth", parent="Strength")
    assert refused.ephemeral and "cannot use 'Strength'" in refused.content and refused.public() == []


async def test_attribute_check_is_twice_the_attribute(harness: Harness, world: World) -> None:  # RPS-1
    await alice_sheet(harness, world)
    harness.bot.rng = random.Random(99)
    mirror = random.Random(99)
    d1, d2 = mirror.randint(1, 10), mirror.randint(1, 10)
    expected = rps.check(12, d1, d2)
    answer = await check(harness, world, attribute="Strength")
    shown = fields(await details_of(harness, answer))
    assert shown["Base"] == "12 (2 x Strength 6)"
    assert shown["Dice (2d10)"] == f"{d1} + {d2} = {d1 + d2}"
    assert f"SL {expected.sl}" in shown["Result"]
    assert answer.embed["title"].startswith(f"Alice - Strength x 2: SL {expected.sl}, ")


async def test_raw_base_works_in_dms_and_the_seed_example_holds(harness: Harness, world: World) -> None:
    # RPS-10: Base 12 with (1, 7) -> SL 4 success; (4, 9) -> SL -1 failure
    dice(harness, 1, 7, 4, 9)
    first = await harness.slash(None, None, world.stranger, "rps check", {"base": 12})
    assert fields(await details_of(harness, first))["Success Level"] == "12 - 8 = 4"
    assert first.embed["title"] == "Stranger - Base 12: SL 4, acceptable success"
    second = await harness.slash(None, None, world.stranger, "rps check", {"base": 12})
    assert fields(await details_of(harness, second))["Success Level"] == "12 - 13 = -1"
    assert second.embed["title"] == "Stranger - Base 12: SL -1, failure"
    assert second.embed["color"] == VERDICT_COLOURS[rps.Verdict.FAILURE].value
    # a DM has no GM: a failed check there offers no second try, and its near miss does not promise one
    assert [c for c in second.original.custom_ids() if "grant" in c] == []
    dice(harness, 6, 6)
    near = await harness.slash(None, None, world.stranger, "rps check", {"base": 12})
    assert assert_compact(near.original)[1] == "SL 0: just short"


async def test_doubles_make_criticals_and_fumbles(harness: Harness, world: World) -> None:  # RPS-4, RPS-5
    dice(harness, 1, 1, 10, 10, 10, 10)
    crit = await check(harness, world, base=10)
    assert fields(await details_of(harness, crit))["Doubles"] == "critical success"
    assert "critical success makes it **13**" in fields(await details_of(harness, crit))["Success Level"]
    assert crit.embed["color"] == VERDICT_COLOURS[rps.Verdict.CRITICAL_SUCCESS].value
    assert crit.embed["title"] == "Alice - Base 10: SL 13, critical success, impressive"
    assert assert_compact(crit.original) == ["2d10 **1 + 1** = 2; Base 10 - 2 = 8; double 1s make it SL 13"]
    fumble = await check(harness, world, base=10)
    assert fields(await details_of(harness, fumble))["Doubles"] == "critical failure (fumble)"
    assert "SL -10" in fields(await details_of(harness, fumble))["Result"]
    assert assert_compact(fumble.original) == [
        "2d10 **10 + 10** = 20; Base 10 - 20 = SL -10: double 10s, a fumble"
    ]
    automatic = await check(harness, world, base=25)
    assert fields(await details_of(harness, automatic))["Doubles"] == "automatic failure"
    assert "SL 0" in fields(await details_of(harness, automatic))["Result"]


async def test_difficulties_are_the_seeds_named_choices(
    harness: Harness, fake: FakeDiscord, world: World
) -> None:
    # RPS-1: the seed's 18 named rows, "+2 Moderately hard"
    command = fake.find_command(world.guild, "rps")
    sub = next(o for o in command["options"] if o["name"] == "check")
    choices = next(o for o in sub["options"] if o["name"] == "difficulty")["choices"]
    assert len(choices) == 18
    assert {"name": "+2 Moderately hard", "value": 2} in choices
    assert {"name": "-20 Beyond impossible", "value": -20} in choices
    dice(harness, 2, 2)
    answer = await check(harness, world, base=10, difficulty=-15)
    assert fields(await details_of(harness, answer))["Base"] == "-5 = given Base 10 + Nearly impossible (-15)"


async def test_forgo_above_15_and_refused_at_15(harness: Harness, world: World) -> None:  # RPS-6
    scripted = dice(harness)  # no dice at all: a forgone roll must not roll
    allowed = await check(harness, world, base=16, forgo=True)
    assert allowed.embed["title"] == "Alice - Base 16: SL 1, assumed success"
    assert assert_compact(allowed.original) == ["No roll: the success is assumed (Base 16 is above 15)"]
    assert "no roll" in fields(await details_of(harness, allowed))["Dice (2d10)"]
    assert "RPS-6" in (await details_of(harness, allowed))["footer"]["text"]
    # the player's own Base of 15 or below: one sentence, nothing used up
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "rps", world.alice.id, "difficulty", -3, 1, world.gm.id
    )
    refused = await check(harness, world, base=15, forgo=True)
    assert (
        refused.ephemeral
        and refused.content.startswith("A Base of 15 is not above 15")
        and refused.public() == []
    )
    pending = await store.modifiers.pending_for(world.guild.id, world.general.id, "rps", world.alice.id)
    assert [m.value for m in pending] == [-3]  # the refusal used nothing up
    assert scripted.used == 0


async def test_a_gm_difficulty_that_brings_the_base_to_15_rolls_the_dice(
    harness: Harness, world: World
) -> None:  # RPS-6, GM-3: refusing the forgo would tell the player the GM's pending difficulty
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "rps", world.alice.id, "difficulty", -3, 1, world.gm.id
    )
    dice(harness, 2, 3)
    rolled = await check(harness, world, base=18, forgo=True)  # 18 - 3 = 15 is not above 15
    assert not rolled.ephemeral and rolled.embed["title"] == "Alice - Base 15: SL 10, impressive success"
    assert assert_compact(rolled.original)[-1] == (
        f"GM modifier: difficulty -3 (set by {world.gm.mention}); "
        "no forgo at Base 15, so the dice were rolled"
    )
    assert fields(await details_of(harness, rolled))["Forgo (RPS-6)"] == (
        "Asked, but the GM's difficulty brought the Base to 15, not above 15: the dice were rolled."
    )
    assert await store.modifiers.pending_for(world.guild.id, world.general.id, "rps", world.alice.id) == []


async def test_a_gm_may_forgo_at_any_base(harness: Harness, world: World) -> None:  # RPS-6
    dice(harness)
    answer = await check(harness, world, user=world.gm, base=5, forgo=True)
    assert answer.embed["title"] == "Gamemaster - Base 5: SL 1, assumed success"
    assert "granted by the GM" in fields(await details_of(harness, answer))["Dice (2d10)"]


async def test_gm_difficulty_modifier_is_used_by_exactly_one_roll(harness: Harness, world: World) -> None:
    # GM-3: a pending difficulty modifier adds to the Base of the next check only, and says who set it
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "rps", world.alice.id, "difficulty", 3, 1, world.gm.id
    )
    dice(harness, 2, 3, 2, 3)
    bob = await check(harness, world, user=world.bob, base=10)
    assert fields(await details_of(harness, bob))[
        "Base"
    ] == "10 (given Base)" and "GM modifier" not in fields(await details_of(harness, bob))
    first = await check(harness, world, base=10)
    shown = fields(await details_of(harness, first))
    assert shown["Base"] == "13 = given Base 10 + GM difficulty (+3)"
    assert shown["Success Level"] == "13 - 5 = 8"
    assert (
        world.gm.mention in shown["GM modifier"]
        and "GM-3" in (await details_of(harness, first))["footer"]["text"]
    )
    assert assert_compact(first.original)[-1] == f"GM modifier: difficulty +3 (set by {world.gm.mention})"
    dice(harness, 2, 3)
    second = await check(harness, world, base=10)
    assert fields(await details_of(harness, second))[
        "Base"
    ] == "10 (given Base)" and "GM modifier" not in fields(await details_of(harness, second))


async def test_check_needs_exactly_one_source_and_a_sheet(harness: Harness, world: World) -> None:
    none = await check(harness, world)
    assert none.ephemeral and "exactly one of skill, attribute or base" in none.content
    no_sheet = await check(harness, world, skill="Stealth")
    assert no_sheet.ephemeral and "no active RPS sheet" in no_sheet.content
    assert no_sheet.public() == []


async def test_skill_parent_and_attribute_autocomplete_from_the_active_sheet(
    harness: Harness, world: World
) -> None:
    await alice_sheet(harness, world)
    skills = await harness.autocomplete(
        world.guild, world.general, world.alice, "rps check", {"skill": "st"}, "skill"
    )
    assert [c["value"] for c in skills.choices] == ["Stealth"]
    parents = await harness.autocomplete(
        world.guild, world.general, world.alice, "rps check", {"skill": "Stealth", "parent": ""}, "parent"
    )
    assert [c["value"] for c in parents.choices] == ["Agility", "Perception"]
    attributes = await harness.autocomplete(
        world.guild, world.general, world.alice, "rps check", {"attribute": ""}, "attribute"
    )
    assert [c["value"] for c in attributes.choices] == ["Agility", "Perception", "Strength"]
    nothing = await harness.autocomplete(
        world.guild, world.general, world.bob, "rps check", {"skill": ""}, "skill"
    )
    assert nothing.choices == []


async def test_resisted_party_choices_fit_the_option(harness: Harness, world: World) -> None:
    # a skill with a long name and an alternate parent makes a choice past party1's 64 characters, which
    # Discord would refuse when picked: it is not offered (the skill alone still is)
    long_name = "Knowledge of the Ancient History of the Northern Kingdoms"
    await harness.bot.store.sheets.create(
        {
            "guild_id": world.guild.id, "owner_id": world.alice.id, "name": "Sage", "system": "rps",
            "attributes": {"Intelligence": 7, "Perception": 5},
            "skills": {long_name: {"rating": 4, "attribute": "Intelligence", "alternates": ["Perception"]}},
        }
    )  # fmt: skip
    offered = await harness.autocomplete(
        world.guild,
        world.general,
        world.alice,
        "rps resisted",
        {"member1": world.alice, "party1": ""},
        "party1",
    )
    values = [c["value"] for c in offered.choices]
    assert values == [long_name, "Intelligence", "Perception"] and all(len(v) <= 64 for v in values)


# --------------------------------------------------------------------------------------------------
# /rps resisted


async def test_franky_richard_johnny_from_the_seed(harness: Harness, world: World) -> None:
    # RPS-7 seed example: Franky 1, Richard -2, Johnny -3 -> Franky wins, SL 3
    dice(harness, 4, 5, 6, 6, 6, 7)
    answer = await harness.slash(
        world.guild,
        world.general,
        world.gm,
        "rps resisted",
        {"party1": "Franky", "base1": 10, "party2": "Richard", "base2": 10, "party3": "Johnny", "base3": 10},
    )
    assert answer.embed["title"] == "Resisted: Franky wins, SL 3"
    assert assert_compact(answer.original) == [
        "Franky 4 + 5 → SL 1 · Richard 6 + 6 → SL -2 · Johnny 6 + 7 → SL -3",
        "Franky SL 1 - Richard SL -2 = SL 3",
    ]
    embed = await details_of(harness, answer, world.bob)
    assert embed["title"] == "RPS resisted action: Franky wins (SL 3)"
    shown = fields(embed)
    assert "**Franky**: 4 + 5 = 9 → SL 1" in shown["The checks"]
    assert "**Johnny**: 6 + 7 = 13 → SL -3" in shown["The checks"]
    assert shown["New SL"] == "Franky SL 1 - Richard SL -2 = **3**"
    assert "RPS-7" in embed["footer"]["text"]


async def test_resisted_tie_rerolls_only_the_tied_with_a_member_party(harness: Harness, world: World) -> None:
    # RPS-7: Franky and Richard tie at SL 5; only they roll again; the subtraction uses the final round
    await alice_sheet(harness, world)
    dice(harness, 2, 3, 1, 4, 6, 6, 4, 4, 3, 3)
    answer = await harness.slash(
        world.guild,
        world.general,
        world.gm,
        "rps resisted",
        {
            "party1": "Franky",
            "base1": 10,
            "party2": "Richard",
            "base2": 10,
            "member3": world.alice,
            "party3": "Stealth",
        },
    )
    shown = fields(await details_of(harness, answer))
    alice = world.alice.payload()["global_name"]  # parties are named by display name
    assert f"**{alice}**: Base 15 = Stealth 8 + Agility 7" in shown["Parties"]
    assert "Tied for highest: Franky, Richard" in shown["Round 1"]
    assert f"**{alice}**: 6 + 6 = 12 → SL 3" in shown["Round 1"]
    assert alice not in shown["Round 2"]
    assert (
        "**Franky**: 4 + 4 = 8 → SL 2" in shown["Round 2"]
        and "**Richard**: 3 + 3 = 6 → SL 4" in shown["Round 2"]
    )
    assert shown["New SL"] == "Richard SL 4 - Franky SL 2 = **2**"
    assert answer.embed["title"] == "Resisted: Richard wins, SL 2"
    assert assert_compact(answer.original) == [
        "Franky 4 + 4 → SL 2 · Richard 3 + 3 → SL 4",  # the round that decided it
        "Richard SL 4 - Franky SL 2 = SL 2 (after 2 rounds: ties rolled again)",
    ]


async def test_resisted_with_a_seeded_tie(harness: Harness, world: World) -> None:
    """The bot's own seeded rng breaks ties too: find a seed whose first round ties and mirror it."""
    seed = next(s for s in range(10_000) if _first_round_ties(random.Random(s), 10, 10, 10))
    harness.bot.rng = random.Random(seed)
    mirror = random.Random(seed)
    parties = [rps.ResistedParty(n, 10, (mirror.randint(1, 10), mirror.randint(1, 10))) for n in "ABC"]
    expected = rps.resisted(parties, reroll=lambda p: (mirror.randint(1, 10), mirror.randint(1, 10)))
    answer = await harness.slash(
        world.guild,
        world.general,
        world.gm,
        "rps resisted",
        {"party1": "A", "base1": 10, "party2": "B", "base2": 10, "party3": "C", "base3": 10},
    )
    assert len(expected.rounds) >= 2 and "Round 2" in fields(await details_of(harness, answer))  # RPS-7
    assert answer.embed["title"] == f"Resisted: {expected.winner} wins, SL {expected.sl}"


def _first_round_ties(rng: random.Random, *bases: int) -> bool:
    sls = [b - rng.randint(1, 10) - rng.randint(1, 10) for b in bases]
    return sls.count(max(sls)) > 1


async def test_resisted_refuses_one_party_and_nameless_npcs(harness: Harness, world: World) -> None:
    one = await harness.slash(
        world.guild, world.general, world.gm, "rps resisted", {"party1": "Franky", "base1": 3}
    )
    assert one.ephemeral and "at least two parties" in one.content
    nameless = await harness.slash(
        world.guild, world.general, world.gm, "rps resisted", {"party1": "Franky", "base1": 3, "base2": 4}
    )
    assert nameless.ephemeral and "Party 2 needs a name" in nameless.content
    # RPS-7: nor a name that is blank once trimmed (ideographic spaces), refused before a GM hears of it
    await harness.slash(world.guild, world.general, world.gm, "gm claim", {})
    blank = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "rps resisted",
        {"party1": "\u3000", "base1": 3, "party2": "Orc", "base2": 4, "visibility": "gm"},
    )
    assert blank.ephemeral and "Party 1 needs a name" in blank.content
    assert blank.messages == [blank.original]  # no GM copy, not even one deleted again


async def test_resisted_party_autocomplete_offers_the_members_skills(harness: Harness, world: World) -> None:
    await alice_sheet(harness, world)
    answer = await harness.autocomplete(
        world.guild,
        world.general,
        world.gm,
        "rps resisted",
        {"member2": world.alice, "party2": "st"},
        "party2",
    )
    assert [c["value"] for c in answer.choices] == ["Stealth", "Stealth (Perception)", "Strength"]


# --------------------------------------------------------------------------------------------------
# Second tries: a GM grants them (RPS-9)


def grant_id(message: FakeMessage) -> str:
    [custom_id] = [c for c in message.custom_ids() if c.startswith("rps:grant:")]
    return custom_id


async def grant(harness: Harness, message: FakeMessage, modifier: int, gm: Any) -> Answer:
    """The GM clicks Grant on ``message`` and picks ``modifier``; the answer to the pick."""
    asked = await harness.click(message, grant_id(message), gm)
    assert asked.ephemeral and asked.public() == []
    [select] = [c for c in asked.original.custom_ids() if c.startswith("rps:grantmod:")]
    return await harness.click(asked.original, select, gm, values=[str(modifier)])


def try_message(answer: Answer, channel: Any) -> FakeMessage:
    [message] = [m for m in answer.in_channel(channel) if "Try again" in m.text()]
    return message


async def test_a_gm_grants_a_second_try_at_the_failed_checks_base(harness: Harness, world: World) -> None:
    # RPS-9: only a GM grants; the try is at the failed check's Base as built from the sheet, plus the
    # GM's modifier; only the player who failed rolls it, once
    await alice_sheet(harness, world)
    dice(harness, 9, 8, 3, 4)
    failed = await check(harness, world, skill="Stealth", difficulty=2)  # 17 - 17 = 0, a near miss
    assert "near miss" in fields(await details_of(harness, failed))["Result"]
    message = failed.original
    assert grant_id(message) in message.custom_ids()
    assert message.custom_ids() == [f"details:{grant_id(message).split(':')[-1]}", grant_id(message)]
    player = await harness.click(message, grant_id(message), world.alice)
    assert player.ephemeral and player.content == "Only a GM of this check's channel can grant a second try."
    assert player.original.custom_ids() == [] and player.public() == []
    granted = await grant(harness, message, 2, world.gm)
    assert granted.original.content.startswith("Granted ") and granted.original.custom_ids() == []
    offered = try_message(granted, world.general)
    assert "second try at Stealth (Agility), with +2" in offered.content
    stranger = await harness.click(offered, "Try again", world.bob)
    assert stranger.ephemeral and "can take this second try" in stranger.content and stranger.public() == []
    again = await harness.click(offered, "Try again", world.alice)
    shown = fields(await details_of(harness, again))
    assert not again.ephemeral
    assert again.embed["title"].startswith("Alice - Stealth (Agility), second try: SL 12")
    assert shown["Base"] == "19 = Stealth 8 + Agility 7 + Moderately hard (+2) + second try (+2)"
    assert shown["Success Level"] == "19 - 7 = 12"
    assert "granted by" in shown["Second try"] and "(SL 0)" in shown["Second try"]
    assert not [c for c in again.original.custom_ids() if c.startswith("rps:grant:")]  # it succeeded
    assert offered.custom_ids() == []  # taken: the button is gone
    assert assert_compact(again.original)  # a title and at most three lines, and Details
    logged = await harness.bot.store.log.last(world.guild.id, world.general.id, 5)
    assert [r.command for r in logged] == ["rps second try", "rps check"]
    assert logged[0].inputs["retry_of"] == logged[1].id and logged[0].user_id == world.alice.id


async def test_a_failed_second_try_can_be_granted_again(harness: Harness, world: World) -> None:
    # RPS-9: each grant is one attempt at the same Base as the failed check; a failed try may be granted
    # again, and a grant is made once per check
    scripted = dice(harness, 9, 9, 9, 8, 2, 3)
    failed = await check(harness, world, base=10)  # SL -8
    asked = await harness.click(failed.original, grant_id(failed.original), world.gm)
    assert asked.content == f"A second try for {world.alice.mention} at Base 10: pick its extra modifier."
    first = await grant(harness, failed.original, 3, world.gm)
    assert (
        f"a second try at Base 10, with +3: only {world.alice.mention}"
        in try_message(first, world.general).text()
    )
    try1 = await harness.click(try_message(first, world.general), "Try again", world.alice)
    shown1 = fields(await details_of(harness, try1))
    assert shown1["Base"] == "13 = given Base 10 + second try (+3)"
    assert shown1["Success Level"] == "13 - 17 = -4"
    twice = await harness.click(failed.original, grant_id(failed.original), world.gm)
    assert twice.ephemeral and twice.content == "A second try was already granted for that check."
    second = await grant(harness, try1.original, -1, world.gm)
    try2 = await harness.click(try_message(second, world.general), "Try again", world.alice)
    shown2 = fields(await details_of(harness, try2))
    assert shown2["Base"] == "9 = given Base 10 + second try (-1)"  # the task's Base, not 13
    assert shown2["Success Level"] == "9 - 5 = 4"
    assert scripted.used == 6


async def test_a_second_try_keeps_the_gm_difficulty_of_the_failed_check(  # RPS-9, GM-3
    harness: Harness, world: World
) -> None:
    # RPS-9: the same Base as the failed check, the GM's difficulty that made it hard included; a modifier
    # the GM set since is for the player's next check, not for the try (GM-3: used by one roll)
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "rps", world.alice.id, "difficulty", -10, 1, world.gm.id
    )
    scripted = dice(harness, 5, 5, 6, 6, 1, 1)
    failed = await check(harness, world, base=12)
    assert fields(await details_of(harness, failed))["Base"] == "2 = given Base 12 + GM difficulty (-10)"
    await store.modifiers.set(
        world.guild.id, world.general.id, "rps", world.alice.id, "difficulty", 4, 1, world.gm.id
    )
    granted = await grant(harness, failed.original, 2, world.gm)
    tried = await harness.click(try_message(granted, world.general), "Try again", world.alice)
    shown = fields(await details_of(harness, tried))
    assert shown["Base"] == "4 = given Base 12 + GM difficulty (-10) + second try (+2)"
    assert shown["Success Level"] == "4 - 12 = -8"
    [left] = await store.modifiers.list(world.guild.id, world.general.id)
    assert (left.value, left.uses_left) == (4, 1)  # still pending: the next check takes it
    after = await check(harness, world, base=12)
    assert fields(await details_of(harness, after))["Base"] == "16 = given Base 12 + GM difficulty (+4)"
    assert scripted.used == 6


async def test_a_double_click_grants_once_and_rolls_once(harness: Harness, world: World) -> None:  # RPS-9
    scripted = dice(harness, 9, 9, 5, 5, 4, 4)
    failed = await check(harness, world, base=10)
    asked = await asyncio.gather(
        *(harness.click(failed.original, grant_id(failed.original), gm) for gm in (world.gm, world.owner))
    )
    picks = await asyncio.gather(
        *(
            harness.click(a.original, a.original.custom_ids()[0], gm, values=[value])
            for a, gm, value in zip(asked, (world.gm, world.owner), ("1", "-2"), strict=True)
        )
    )
    offers = list(
        {m.id: m for p in picks for m in p.in_channel(world.general) if "Try again" in m.text()}.values()
    )
    refused = [p for p in picks if p.original.content == "A second try was already granted for that check."]
    assert len(offers) == 1 and len(refused) == 1
    clicks = await asyncio.gather(*(harness.click(offers[0], "Try again", world.alice) for _ in range(2)))
    rolled = [c for c in clicks if not c.ephemeral]
    assert len(rolled) == 1 and ", second try: " in rolled[0].original.embeds[0]["title"]
    [late] = [c for c in clicks if c.ephemeral]
    assert late.content == "This second try was already taken."
    assert len({m.id for c in clicks for m in c.public() if m.embeds}) == 1
    # the click that lost may have rolled too: its dice are never shown nor logged
    assert scripted.used in (4, 6)
    logged = await harness.bot.store.log.last(world.guild.id, world.general.id, 5)
    assert [r.command for r in logged] == ["rps second try", "rps check"]
    shown = fields(await open_details(harness, rolled[0].original, world.alice))
    assert logged[0].dice == [int(d) for d in shown["Dice (2d10)"].split(" = ")[0].split(" + ")]


async def test_no_retry_without_a_gm_and_no_grant_after_a_success(harness: Harness, world: World) -> None:
    # RPS-9: a player cannot retry on their own; only a failed check offers a grant
    assert "retry" not in {c.name for c in harness.bot.tree.get_command("rps").commands}
    dice(harness, 1, 2)
    success = await check(harness, world, base=10)
    assert not [c for c in success.original.custom_ids() if c.startswith("rps:grant:")]
    refused = await harness.slash(world.guild, world.general, world.gm, "rps grant", {"member": world.alice})
    assert refused.ephemeral and "The previous check succeeded (SL 7)" in refused.content
    assert refused.public() == []
    player = await harness.slash(
        world.guild, world.general, world.alice, "rps grant", {"member": world.alice}
    )
    assert player.ephemeral and "Only a GM" in player.content
    nothing = await harness.slash(world.guild, world.general, world.gm, "rps grant", {"member": world.bob})
    assert nothing.ephemeral and "no RPS check in this channel" in nothing.content


async def test_a_private_check_is_granted_by_command_and_tried_privately(
    harness: Harness, world: World
) -> None:  # RPS-9: the GM did not see the check; the try is as private as the check was
    dice(harness, 9, 9, 1, 2)
    failed = await check(harness, world, base=10, visibility="private")
    assert all(not c.startswith("rps:grant:") for m in failed.messages for c in m.custom_ids())
    granted = await harness.slash(
        world.guild, world.general, world.gm, "rps grant", {"member": world.alice, "modifier": -1}
    )
    offered = granted.original
    assert not granted.ephemeral and "their hidden check, with -1" in offered.content
    again = await harness.click(offered, "Try again", world.alice)
    [result] = [m for m in again.ephemeral_messages() if m.embeds]
    shown = fields(await open_details(harness, result, world.alice))
    assert shown["Success Level"] == "9 - 3 = 6"
    assert "(SL -8)" in shown["Second try"]  # the roller saw their own check
    assert all(not m.embeds for m in again.public())  # the table sees only that a roll was made


async def test_a_blind_check_is_granted_from_the_gm_copy(harness: Harness, world: World) -> None:
    # RPS-9, visibility: the Grant button is on the GM's copy; the try is blind too
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    dice(harness, 9, 9, 9, 9)
    failed = await check(harness, world, base=10, visibility="blind")
    [gm_copy] = failed.in_channel(world.gm_screen)
    assert any(c.startswith("reveal:") for c in gm_copy.custom_ids()) and grant_id(gm_copy)
    assert all(
        not c.startswith("rps:grant:") for m in failed.in_channel(world.general) for c in m.custom_ids()
    )
    granted = await grant(harness, gm_copy, 0, world.gm)
    offered = try_message(granted, world.general)
    assert "their hidden check:" in offered.content and "SL" not in offered.content
    again = await harness.click(offered, "Try again", world.alice)
    assert again.ephemeral and again.content == "Your roll went to the GM."
    [gm_try] = again.in_channel(world.gm_screen)
    assert fields(await open_details(harness, gm_try, world.gm))["Success Level"] == "10 - 18 = -8"
    assert grant_id(gm_try)


# --------------------------------------------------------------------------------------------------
# /rps sustained


async def start_pool(harness: Harness, world: World, **options: Any) -> Answer:
    values = {"name": "Pick the lock", "goal": 12, "minutes": 10, "member": world.alice, "base": 15} | options
    return await harness.slash(world.guild, world.general, world.gm, "rps sustained start", values)


async def test_sustained_pool_completed_by_button_clicks(harness: Harness, world: World) -> None:
    # RPS-8: SL adds to the pool; pool >= Goal completes; checks and time spent are reported
    started = await start_pool(harness, world)
    message = started.original
    assert not message.ephemeral and message.custom_ids() == [_pool_button(harness, message)]
    assert "0/12" in fields(message.embed)["Progress"]
    pool = await harness.bot.store.pools.get(world.guild.id, world.general.id, "Pick the lock")
    assert pool.message_id == message.id
    dice(harness, 3, 4, 4, 5)
    first = await harness.click(message, "Roll next check", world.alice)
    assert first.embed["title"] == "Alice - Pick the lock: SL 8, good success"
    assert assert_compact(first.public()[-1]) == ["2d10 **3 + 4** = 7; Base 15 - 7 = SL 8", "Pool +8 → 8/12"]
    assert fields(await details_of(harness, first))["Pool"].startswith("+8 → ")
    assert message.edits == 1 and "8/12" in fields(message.embed)["Progress"]
    assert fields(message.embed)["Time spent"].startswith("10 minutes")
    before_end = copy.deepcopy(message)
    second = await harness.click(message, "Roll next check", world.gm)  # GM-4: a GM may roll for the owner
    assert "14/12" in fields(await details_of(harness, second))["Pool"]
    assert assert_compact(second.public()[-1])[1] == "Pool +6 → 14/12: the action is completed"
    assert "completed" in message.embed["title"] and message.components == []  # the button is gone
    assert fields(message.embed)["Checks made"] == "2"
    assert fields(message.embed)["Time spent"].startswith("20 minutes")
    late = await harness.click(before_end, "Roll next check", world.alice)
    assert late.ephemeral and "already completed" in late.content and late.public() == []
    stored = await harness.bot.store.pools.get_by_id(pool.id)
    assert (stored.pool, stored.checks_made, stored.state) == (14, 2, "completed")


def _pool_button(harness: Harness, message: FakeMessage) -> str:
    custom_id = message.custom_ids()[0]
    assert custom_id.startswith("rpspool:") and custom_id.endswith(":roll")
    return custom_id


async def test_a_stranger_clicking_the_pool_button_changes_nothing(
    harness: Harness, world: World
) -> None:  # GM-4
    started = await start_pool(harness, world)
    message = started.original
    edits = message.edits
    scripted = dice(harness, 2, 2)
    refused = await harness.click(message, "Roll next check", world.bob)
    assert refused.ephemeral and "Only the player who started this" in refused.content
    assert refused.public() == [] and message.edits == edits and scripted.used == 0
    pool = await harness.bot.store.pools.get(world.guild.id, world.general.id, "Pick the lock")
    assert pool.checks_made == 0


async def test_a_forged_pool_button_in_another_channel_is_refused(harness: Harness, world: World) -> None:
    started = await start_pool(harness, world)
    forged = copy.deepcopy(started.original)
    forged.channel_id = world.gm_screen.id
    dice(harness)
    refused = await harness.click(forged, "Roll next check", world.gm)
    assert refused.ephemeral and "does not belong" in refused.content


async def test_sustained_pool_fails_on_a_fumble(harness: Harness, world: World) -> None:
    # RPS-8: a critical failure (RPS-5 fumble) ends the action as failed
    started = await start_pool(harness, world, base=12)
    dice(harness, 10, 10)
    answer = await harness.slash(
        world.guild, world.general, world.alice, "rps sustained roll", {"name": "pick the LOCK"}
    )
    assert answer.embed["title"] == "Alice - Pick the lock: SL -8, critical failure (fumble)"
    assert assert_compact(answer.original)[1] == "Pool -1 → -1/12: the action failed"
    assert "failed" in started.original.embed["title"] and started.original.components == []
    again = await harness.slash(
        world.guild, world.general, world.alice, "rps sustained roll", {"name": "Pick the lock"}
    )
    assert again.ephemeral and "already failed" in again.content


async def test_sustained_pool_fails_below_minus_goal_and_no_loss_keeps_it(
    harness: Harness, world: World
) -> None:
    # RPS-8: a failed check takes 1; the action fails when the pool falls below -Goal; "no loss" takes 0
    started = await start_pool(harness, world, name="Climb", goal=1, base=2)
    safe = await start_pool(harness, world, name="Search", goal=1, base=2, no_loss=True)
    dice(harness, 5, 6, 5, 6, 5, 6)
    await harness.slash(world.guild, world.general, world.alice, "rps sustained roll", {"name": "Climb"})
    assert (
        "running" not in started.original.embed["title"] and "in progress" in started.original.embed["title"]
    )
    assert "-1/1" in fields(started.original.embed)["Progress"]
    await harness.slash(world.guild, world.general, world.alice, "rps sustained roll", {"name": "Climb"})
    assert "failed" in started.original.embed["title"] and started.original.components == []
    await harness.slash(world.guild, world.general, world.alice, "rps sustained roll", {"name": "Search"})
    assert "0/1" in fields(safe.original.embed)["Progress"] and safe.original.components


async def test_a_sustained_status_shows_players_what_the_pool_message_shows(
    harness: Harness, world: World
) -> None:  # RPS-8, with hidden checks kept hidden until revealed
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    started = await start_pool(harness, world, goal=12)

    async def status(user: Any) -> dict[str, Any]:
        answer = await harness.slash(
            world.guild, world.general, user, "rps sustained status", {"name": "Pick the lock"}
        )
        assert answer.ephemeral
        return answer.embed

    dice(harness, 9, 9)  # SL -3: the pool loses 1
    await harness.click(started.original, "Roll next check", world.alice)
    assert "-1/12" in fields(started.original.embed)["Progress"]
    for user in (world.bob, world.carol, world.alice, world.gm):
        seen = await status(user)
        assert fields(seen)["Progress"] == fields(started.original.embed)["Progress"], user.username
        assert "SL -3" in fields(seen)["Last check"] and "Pool -1 of Goal 12" in seen["description"]
    dice(harness, 1, 2)  # SL 12, made hidden by the GM: only the GM learns the pool
    hidden = await harness.slash(
        world.guild, world.general, world.gm, "rps sustained roll",
        {"name": "Pick the lock", "visibility": "gm"},
    )  # fmt: skip
    for user in (world.bob, world.alice):
        seen = await status(user)
        assert "Progress" not in fields(seen) and "11" not in seen["description"], user.username
    assert "11/12" in fields(await status(world.gm))["Progress"]
    [gm_copy] = hidden.in_channel(world.gm_screen)
    await harness.click(gm_copy, "Reveal", world.gm)
    assert "11/12" in fields(await status(world.bob))["Progress"]  # revealed: the table knows it


async def test_each_sustained_check_shows_how_its_base_was_built(harness: Harness, world: World) -> None:
    # RPS-1, RPS-8: the Base the GM started the action with, part by part, plus a GM modifier (GM-3)
    await alice_sheet(harness, world)
    started = await harness.slash(
        world.guild, world.general, world.gm, "rps sustained start",
        {"name": "Sneak in", "goal": 20, "minutes": 5, "member": world.alice, "skill": "Stealth",
         "difficulty": 2},
    )  # fmt: skip
    assert fields(started.embed)["Base built"] == "17 = Stealth 8 + Agility 7 + Moderately hard (+2)"
    await harness.bot.store.modifiers.set(
        world.guild.id, world.general.id, "rps", world.alice.id, "difficulty", -3, 1, world.gm.id
    )
    dice(harness, 2, 3, 2, 3)
    first = await harness.click(started.original, "Roll next check", world.alice)
    assert fields(await details_of(harness, first))["Base"] == (
        "14 = Stealth 8 + Agility 7 + Moderately hard (+2) + GM difficulty (-3)"
    )
    second = await harness.slash(
        world.guild, world.general, world.alice, "rps sustained roll", {"name": "Sneak in"}
    )
    shown = fields(await details_of(harness, second))
    assert shown["Base"] == "17 = Stealth 8 + Agility 7 + Moderately hard (+2)"
    assert shown["Success Level"] == "17 - 5 = 12"


async def test_sustained_status_stop_and_names(harness: Harness, world: World) -> None:
    started = await start_pool(harness, world)
    names = await harness.autocomplete(
        world.guild, world.general, world.alice, "rps sustained roll", {"name": "pi"}, "name"
    )
    assert [c["value"] for c in names.choices] == ["Pick the lock"]
    dice(harness, 2, 2)
    await harness.slash(
        world.guild, world.general, world.alice, "rps sustained roll", {"name": "Pick the lock"}
    )
    status = await harness.slash(
        world.guild, world.general, world.alice, "rps sustained status", {"name": "Pick the lock"}
    )
    shown = fields(status.embed)
    assert status.ephemeral and "11/12" in shown["Progress"] and shown["Checks made"] == "1"
    assert "SL 11" in shown["Last check"]
    outsider = await harness.slash(
        world.guild, world.general, world.bob, "rps sustained status", {"name": "Pick the lock"}
    )  # what the pool's public message shows, to anyone
    assert fields(outsider.embed)["Progress"] == fields(started.original.embed)["Progress"]
    assert "Pool 11 of Goal 12" in outsider.embed["description"]
    player = await harness.slash(
        world.guild, world.general, world.alice, "rps sustained stop", {"name": "Pick the lock"}
    )
    assert player.ephemeral and "Only a GM" in player.content
    stopped = await harness.slash(
        world.guild, world.general, world.gm, "rps sustained stop", {"name": "Pick the lock"}
    )
    assert stopped.ephemeral and "Stopped" in stopped.content
    assert "stopped by the GM" in started.original.embed["title"] and started.original.components == []


async def test_sustained_start_refused_for_a_player(harness: Harness, world: World) -> None:  # GM-2
    refused = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "rps sustained start",
        {"name": "Mine", "goal": 3, "minutes": 5, "base": 12},
    )
    assert refused.ephemeral and "Only a GM" in refused.content and refused.public() == []
    assert await harness.bot.store.pools.list(world.guild.id, world.general.id, running_only=False) == []


async def test_sustained_start_from_the_members_sheet(harness: Harness, world: World) -> None:  # RPS-1, RPS-8
    await alice_sheet(harness, world)
    started = await harness.slash(
        world.guild,
        world.general,
        world.gm,
        "rps sustained start",
        {
            "name": "Sneak in",
            "goal": 20,
            "minutes": 5,
            "member": world.alice,
            "skill": "Stealth",
            "difficulty": -2,
        },
    )
    shown = fields(started.original.embed)
    assert shown["Base built"] == "13 = Stealth 8 + Agility 7 + Tricky (-2)"
    assert shown["Base"] == "13 (Stealth (Agility))" and world.alice.mention in shown["For"]


async def test_sustained_commands_are_guild_only(harness: Harness, world: World) -> None:
    answer = await harness.slash(None, None, world.stranger, "rps sustained status", {"name": "x"})
    assert answer.ephemeral and "only in a server channel" in answer.content


async def test_a_gm_modifier_applies_to_one_pool_check(harness: Harness, world: World) -> None:  # GM-3
    started = await start_pool(harness, world)
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "rps", world.alice.id, "difficulty", -4, 1, world.gm.id
    )
    dice(harness, 2, 3, 2, 3)
    first = await harness.click(started.original, "Roll next check", world.alice)
    assert fields(await details_of(harness, first))["Base"] == "11 = given Base 15 + GM difficulty (-4)"
    second = await harness.click(started.original, "Roll next check", world.alice)
    assert fields(await details_of(harness, second))["Base"] == "15 (given Base)"


async def test_a_racing_check_is_reapplied_to_the_fresh_pool_once(harness: Harness, world: World) -> None:
    """A Conflict from the store (another check landed first) re-reads the pool and adds this check once."""
    from bot.store import PoolCheck

    started = await start_pool(harness, world, goal=40)
    pools = harness.bot.store.pools
    original = pools.add_check_logged  # the cog writes the check together with its log row
    raced: list[int] = []

    async def racing_add_check(pool_id: int, expected: int, check: PoolCheck, *args: Any) -> Any:
        if not raced:  # another click's check lands between our read and our write
            raced.append(pool_id)
            await pools.add_check(pool_id, expected, PoolCheck(sl=3, delta=3, dice=[5, 7]))
        return await original(pool_id, expected, check, *args)

    pools.add_check_logged = racing_add_check  # type: ignore[method-assign]
    dice(harness, 2, 3)
    answer = await harness.click(started.original, "Roll next check", world.alice)
    assert (
        "13/40" in fields(await details_of(harness, answer))["Pool"]
    )  # 3 from the racing check + 10 from this one, once each
    pool = await pools.get_by_id(raced[0])
    assert (pool.pool, pool.checks_made) == (13, 2)


async def test_hidden_pool_checks_keep_the_pool_off_the_public_message(
    harness: Harness, world: World
) -> None:
    # issue 7: a blind check leaves no result on the public pool message nor in its owner's status; GMs see it
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    started = await start_pool(harness, world)
    dice(harness, 2, 3)
    answer = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "rps sustained roll",
        {"name": "Pick the lock", "visibility": "blind"},
    )
    assert answer.ephemeral and answer.content == "Your roll went to the GM."
    [gm_copy] = answer.in_channel(world.gm_screen)
    assert "10/12" in fields(await open_details(harness, gm_copy, world.gm))["Pool"]
    assert assert_compact(gm_copy)[1] == "Pool +10 → 10/12"
    refused = await harness.click(gm_copy, "Details", world.alice)  # a blind roll's roller learns nothing
    assert refused.ephemeral and "10/12" not in refused.original.text()
    public = started.original
    assert (
        public.edits == 1
        and "Progress" not in fields(public.embed)
        and "Last check" not in fields(public.embed)
    )
    assert "10" not in public.embed["description"] and fields(public.embed)["Checks made"] == "1"
    status = await harness.slash(
        world.guild, world.general, world.alice, "rps sustained status", {"name": "Pick the lock"}
    )
    assert "Progress" not in fields(status.embed)  # issue 7: the owner does not learn a blind result
    gm_status = await harness.slash(
        world.guild, world.general, world.gm, "rps sustained status", {"name": "Pick the lock"}
    )
    assert "10/12" in fields(gm_status.embed)["Progress"]
    # nor from the pool's odds, which start from the pool as it stands (RPS-8)
    for public in (False, True):
        odds = await harness.slash(
            world.guild, world.general, world.alice, "odds pool", {"name": "Pick the lock", "public": public}
        )
        assert odds.ephemeral and "still hidden" in odds.content and odds.public() == []
    gm_odds = await harness.slash(
        world.guild, world.general, world.gm, "odds pool", {"name": "Pick the lock"}
    )
    assert "pool 10 of Goal 12" in fields(gm_odds.embed)["Now"]
    # a GM sees them, but posting them for the whole channel would give the check away
    gm_public = await harness.slash(
        world.guild, world.general, world.gm, "odds pool", {"name": "Pick the lock", "public": True}
    )
    assert (
        gm_public.ephemeral
        and gm_public.public() == []
        and gm_public.content
        == (
            "A check of 'Pick the lock' is still hidden, so odds posted for everyone would give it away: "
            "reveal it first, or leave public off."
        )
    )
    # stopping the action does not put the hidden check's result on the public message either
    stopped = await harness.slash(
        world.guild, world.general, world.gm, "rps sustained stop", {"name": "Pick the lock"}
    )
    assert stopped.ephemeral and "Stopped" in stopped.content and "10/12" in fields(stopped.embed)["Progress"]
    public = started.original
    assert "stopped by the GM" in public.embed["title"] and public.components == []
    assert "Progress" not in fields(public.embed) and "Last check" not in fields(public.embed)
    assert "10" not in public.embed["description"]


async def test_a_private_check_tells_the_table_only_that_a_roll_was_made(
    harness: Harness, world: World
) -> None:
    dice(harness, 4, 4)
    answer = await check(harness, world, base=13, visibility="private")
    assert answer.ephemeral and fields(await details_of(harness, answer))["Success Level"] == "13 - 8 = 5"
    [notice] = answer.public()
    assert "private roll" in notice.content and notice.embeds == []
    for secret in ("13 - 8", "Success Level", "SL", "Base", "4 + 4"):
        assert secret not in notice.text()


async def test_a_check_after_an_unrevealed_hidden_one_keeps_the_pool_hidden(
    harness: Harness, world: World
) -> None:  # RPS-8, issue 7: the total after the next check would give the hidden one's SL away
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    started = await start_pool(harness, world, goal=40)
    dice(harness, 2, 3)  # SL 10: pool 10, blind
    blind = await harness.slash(
        world.guild, world.general, world.gm, "rps sustained roll",
        {"name": "Pick the lock", "visibility": "blind"},
    )  # fmt: skip
    [gm_copy] = blind.in_channel(world.gm_screen)
    dice(harness, 4, 6)  # SL 5: +5, public, by the owner
    public = await harness.click(started.original, "Roll next check", world.alice)
    shown = fields(await details_of(harness, public, world.bob))
    assert not public.ephemeral and shown["Pool"].startswith("+5 (the total stays hidden")
    assert assert_compact(public.original)[1].startswith("Pool +5; its total stays hidden")
    assert "15/40" not in public.original.text() and "Pool now" not in public.original.text()
    message = started.original
    assert "Progress" not in fields(message.embed) and "15/40" not in message.text()
    log = await harness.slash(world.guild, world.general, world.bob, "log", {})
    assert "15/40" not in log.original.text() and "10/40" not in log.original.text()
    # once the GM reveals it, the next check shows the pool again
    await harness.click(gm_copy, "Reveal", world.gm)
    dice(harness, 4, 6)
    after = await harness.click(started.original, "Roll next check", world.alice)
    assert "/40" in fields(await details_of(harness, after))["Pool"] and "Progress" in fields(
        started.original.embed
    )


# --------------------------------------------------------------------------------------------------
# RPS-6: a GM grants a player an assumed success at any Base


async def grant_assumed(harness: Harness, world: World, **options: Any) -> Answer:
    values = {"system": "rps", "kind": "assumed_success", "member": world.alice} | options
    given = {name: value for name, value in values.items() if value is not None}
    return await harness.slash(world.guild, world.general, world.gm, "gm modifier", given)


async def pending_kinds(harness: Harness, world: World, user=None) -> list[tuple[str, int]]:
    store = harness.bot.store
    pending = await store.modifiers.pending_for(
        world.guild.id, world.general.id, "rps", (user or world.alice).id
    )
    return [(m.kind, m.uses_left) for m in pending]


async def test_a_gm_grant_lets_a_player_forgo_at_any_base(harness: Harness, world: World) -> None:  # RPS-6
    set_ = await grant_assumed(harness, world)
    assert set_.ephemeral and "may forgo the roll at any Base" in set_.content
    assert "/rps check forgo:True" in set_.content
    listed = await harness.slash(world.guild, world.general, world.gm, "gm modifiers", {})
    assert f"RPS: assumed success for {world.alice.mention}, 1 of 1 use left" in listed.embed["description"]
    scripted = dice(harness, 4, 4)
    # a check that rolls leaves the grant waiting: the player chooses when to take it
    rolled = await check(harness, world, base=9)
    assert rolled.embed["title"] == "Alice - Base 9: SL 1, acceptable success"
    assert await pending_kinds(harness, world) == [("assumed_success", 1)]
    taken = await check(harness, world, base=9, forgo=True)
    assert not taken.ephemeral and taken.embed["title"] == "Alice - Base 9: SL 1, assumed success"
    assert assert_compact(taken.original) == [
        "No roll: the success is assumed (granted by the GM)",
        f"GM modifier: assumed success (set by {world.gm.mention})",
    ]
    assert scripted.used == 2  # the forgone check rolled nothing
    assert await pending_kinds(harness, world) == []
    # used once: the next forgo at 15 or below is refused, and changes nothing
    again = await check(harness, world, base=9, forgo=True)
    assert again.ephemeral and again.content == (
        "A Base of 9 is not above 15: roll the dice, or ask a GM to grant you an assumed success."
    )
    assert again.public() == []


async def test_a_grant_is_kept_by_a_check_that_does_not_need_it(harness: Harness, world: World) -> None:
    # RPS-6: a Base above 15 forgoes on its own; the GM's grant stays for a harder check
    await grant_assumed(harness, world)
    dice(harness)
    high = await check(harness, world, base=18, forgo=True)
    assert assert_compact(high.original) == ["No roll: the success is assumed (Base 18 is above 15)"]
    assert await pending_kinds(harness, world) == [("assumed_success", 1)]


async def test_a_grant_covers_a_gm_difficulty_that_brings_the_base_down(
    harness: Harness, world: World
) -> None:  # RPS-6, GM-3: the difficulty applies and is shown; the grant keeps the forgo
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "rps", world.alice.id, "difficulty", -5, 1, world.gm.id
    )
    await grant_assumed(harness, world)
    dice(harness)
    answer = await check(harness, world, base=18, forgo=True)
    assert answer.embed["title"] == "Alice - Base 13: SL 1, assumed success"
    assert assert_compact(answer.original)[-1] == (
        f"GM modifiers: difficulty -5 (set by {world.gm.mention}); "
        f"assumed success (set by {world.gm.mention})"
    )
    assert await pending_kinds(harness, world) == []


async def test_other_rps_rolls_leave_the_grant_waiting(harness: Harness, world: World) -> None:
    # RPS-6: a resisted action and a sustained action's check never forgo, so they take no grant; nor does
    # a grant refuse a contest another player runs (GM-3 refuses only modifiers the contest would take)
    await grant_assumed(harness, world)
    dice(harness, 2, 3, 6, 6)
    resisted = await harness.slash(
        world.guild,
        world.general,
        world.bob,
        "rps resisted",
        {"member1": world.alice, "base1": 12, "party2": "Guard", "base2": 10},
    )
    assert not resisted.ephemeral and resisted.embed["title"].startswith("Resisted: Alice wins")
    started = await start_pool(harness, world)
    dice(harness, 3, 4)
    pooled = await harness.click(started.original, "Roll next check", world.alice)
    assert pooled.embed["title"] == "Alice - Pick the lock: SL 8, good success"
    assert await pending_kinds(harness, world) == [("assumed_success", 1)]


async def test_a_grant_for_everyone_gives_each_player_one(harness: Harness, world: World) -> None:
    # RPS-6, GM-3: a grant for everyone lets each player forgo once
    await grant_assumed(harness, world, member=None)
    dice(harness)
    for user in (world.alice, world.bob):
        answer = await check(harness, world, user=user, base=5, forgo=True)
        assert answer.embed["title"].endswith("Base 5: SL 1, assumed success"), answer.content
    refused = await check(harness, world, user=world.bob, base=5, forgo=True)
    assert refused.ephemeral and refused.content.startswith("A Base of 5 is not above 15")


async def test_an_assumed_success_takes_no_value(harness: Harness, world: World) -> None:  # GM-2
    refused = await grant_assumed(harness, world, value="2")
    assert refused.ephemeral and refused.content == (
        "An assumed success modifier takes no value; leave value empty."
    )
    assert await pending_kinds(harness, world) == []


async def test_two_forgone_checks_at_once_take_one_grant(harness: Harness, world: World) -> None:
    # RPS-6, GM-3: each use is taken once; the second check is refused with one sentence
    await grant_assumed(harness, world)
    dice(harness)
    first, second = await asyncio.gather(
        check(harness, world, base=7, forgo=True), check(harness, world, base=7, forgo=True)
    )
    taken = [a for a in (first, second) if not a.ephemeral]
    refused = [a for a in (first, second) if a.ephemeral]
    assert len(taken) == 1 and taken[0].embed["title"] == "Alice - Base 7: SL 1, assumed success"
    # (answers sent at once share their message windows: what is public is counted in the channel)
    assert len(refused) == 1 and refused[0].content in (
        GRANT_TAKEN,
        "A Base of 7 is not above 15: roll the dice, or ask a GM to grant you an assumed success.",
    )
    results = [
        m
        for m in harness.fake.messages.values()
        if m.channel_id == world.general.id and not m.ephemeral and not m.deleted and m.embeds
    ]
    assert len(results) == 1
    assert await pending_kinds(harness, world) == []
