"""Issue 5 in the bot: /odds answers (table + PNG chart), the odds line of roll results, the cards Odds
button, and odds that follow the result (a blind roller never sees them).

Expected numbers come from the odds engine (bot.core.odds) with the same inputs the bot used.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.core import rps as rps_rules
from bot.core import systemx as sx
from bot.core.blackjack import Hand, HandOptions
from bot.core.cards import Card, Shoe, full_deck
from bot.core.decision import DiceMode, SupplyDie
from bot.core.dice import Dice
from bot.core.odds import percent, rps_summary, systemx_summary
from bot.core.odds.cards import involuntary_odds, voluntary_decision
from bot.core.odds.decision import contested_odds, roll_odds, supply_odds
from bot.core.odds.dn import dn_odds
from bot.core.odds.rps import check_odds as rps_check_odds
from bot.core.odds.rps import resisted_odds, sustained_odds
from bot.core.odds.systemx import check_odds, combined_distribution, opposed_distribution
from bot.local.fake.harness import Answer, Harness, SubprocessBot, World
from bot.local.fake.server import FakeDiscord
from bot.local.fake.world import FakeMessage
from bot.ui.embeds import shown_name
from bot.ui.odds import hand_decision_line
from tests.e2e.compact import RULE_ID, compact_lines, open_details, shown
from tests.e2e.test_cards import hand_id_of, shoe_of, stack_shoe

SEED = 1234
PNG = b"\x89PNG\r\n\x1a\n"
CHART = sx.RollChart.model()  # equals the frozen data file (tests/test_systemx.py)


def field(embed: dict[str, Any], name: str) -> str:
    for item in embed.get("fields", []):
        if item["name"] == name:
            return str(item["value"])
    raise AssertionError(f"no field {name!r} in {[f['name'] for f in embed.get('fields', [])]}")


def has_field(embed: dict[str, Any], name: str) -> bool:
    return any(item["name"] == name for item in embed.get("fields", []))


def chart_of(message: FakeMessage) -> bytes:
    """The one PNG attached to an /odds answer, referenced by its embed's image."""
    [attachment] = message.attachments
    assert attachment.filename == "odds.png"
    assert message.embeds[0]["image"]["url"] == "attachment://odds.png"
    assert attachment.data.startswith(PNG) and len(attachment.data) > 2000
    return attachment.data


async def odds(
    harness: Harness, world: World, path: str, options: dict[str, Any], user: Any = None
) -> Answer:
    return await harness.slash(world.guild, world.general, user or world.alice, f"odds {path}", options)


def answered(answer: Answer, *, ephemeral: bool = True) -> dict[str, Any]:
    """The /odds answer's embed, after checking it is one message with a chart, ephemeral by default."""
    assert answer.ephemeral is ephemeral
    chart_of(answer.original)
    embed = answer.original.embeds[0]
    assert "```" in embed["description"]  # the table
    return embed


# --------------------------------------------------------------------------------------------------
# /odds per system


async def test_odds_sysx_check_opposed_and_combined(
    harness: Harness, world: World
) -> None:  # SX-7, SX-8, SX-9
    embed = answered(await odds(harness, world, "sysx", {"sv": 12, "roll_modifier": 2, "required": "S2"}))
    expected = check_odds(12, roll_modifier=2, required="S2", chart=CHART)
    assert embed["description"].startswith(f"**{percent(expected.success)} to succeed")
    for margin, p in expected.distribution:
        assert f"{percent(p, 1)}" in embed["description"], margin

    embed = answered(await odds(harness, world, "sysx", {"sv": 14, "against_sv": 10}))
    final = opposed_distribution(
        check_odds(14, chart=CHART).distribution, check_odds(10, chart=CHART).distribution
    )
    assert embed["description"].startswith(f"**{percent(final.at_least(sx.S0))} for the actor to succeed**")
    # SX-7: a required margin judges the final margin
    needs = answered(await odds(harness, world, "sysx", {"sv": 14, "against_sv": 10, "required": "S5"}))
    assert needs["description"].startswith(
        f"**{percent(final.at_least(sx.S5))} for the actor to succeed (needs +5)**"
    )

    embed = answered(await odds(harness, world, "sysx", {"sv": 14, "combined": "10, 8"}))
    together = combined_distribution([check_odds(sv, chart=CHART).distribution for sv in (14, 10, 8)])
    assert embed["description"].startswith(f"**{percent(together.at_least(sx.S0))} to succeed together**")


async def test_odds_sysx_reads_the_sheet_with_its_wounds(
    harness: Harness, world: World
) -> None:  # SX-1, SX-2
    await harness.bot.store.sheets.create(
        {
            "guild_id": world.guild.id,
            "owner_id": world.alice.id,
            "name": "Ayla",
            "system": "sysx",
            "attributes": {"Agility": 12},
            "skills": {"Climb": {"rating": 4, "attribute": "Agility"}},
            "wounds": {"current": 2, "maximum": 10},
        }
    )
    embed = answered(await odds(harness, world, "sysx", {"skill": "Climb"}))
    expected = check_odds(16, wounds=(2, 10), chart=CHART)
    assert embed["description"].startswith(f"**{percent(expected.success)} to succeed")
    assert "wounds 2/10, SV capped at 4" in field(embed, "Inputs")  # as the check says it (SX-2)


async def test_odds_dn(harness: Harness, world: World) -> None:  # DN-4, DN-5
    embed = answered(await odds(harness, world, "dn", {"dn": 12}))
    expected = dn_odds(12)
    assert embed["description"].startswith(f"**{percent(expected.success)} to succeed at DN 12")
    assert field(embed, "Critical failure") == percent(expected.critical_failure, 1)


async def test_odds_rps_check_and_resisted(harness: Harness, world: World) -> None:  # RPS-2..RPS-7
    embed = answered(await odds(harness, world, "rps", {"base": 14, "modifier": -2}))
    expected = rps_check_odds(12)
    assert embed["description"].startswith(f"**{percent(expected.success)} to succeed at Base 12")
    assert f"fumble {percent(expected.fumble, 1)}" in field(embed, "Also")

    embed = answered(await odds(harness, world, "rps", {"base": 14, "resisted": "12, 10"}))
    contest = resisted_odds([14, 12, 10])
    assert embed["description"].startswith(f"**{percent(contest.win[0])} for you to win (ties re-roll)**")
    assert f"party 3 (Base 10) {percent(contest.win[2])}" in field(embed, "Summary")


@pytest.mark.parametrize(
    ("path", "options", "sentence"),
    [
        ("dn", {"dn": 10, "complexity": "2"}, "A complexity multiplies a characteristic: give it with one."),
        (
            "dn",
            {"dn": 10, "characteristics": "STR"},
            "The characteristics are a skill's natural ability: give them with a skill.",
        ),
        (
            "decision",
            {"stat": 2, "contested": "1, 2", "target_number": 12},
            "A contest has no target (the highest total wins): give one or the other.",
        ),
        (
            "decision",
            {"stat": 2, "contested": "9999"},
            "List modifiers of the other parties as whole numbers of up to 3 digits, separated by commas, "
            "like 12, 9.",
        ),
    ],
)
async def test_odds_refuse_an_option_they_would_ignore(  # DN-4, DD-5
    harness: Harness, world: World, path: str, options: dict[str, Any], sentence: str
) -> None:
    refused = await odds(harness, world, path, options)
    assert refused.ephemeral and refused.content == sentence and refused.public() == []


async def test_odds_decision_roll_and_contested(harness: Harness, world: World) -> None:  # DD-1, DD-2, DD-5
    embed = answered(
        await odds(
            harness, world, "decision", {"stat": 2, "target_number": 9, "modifier": 1, "advantage": True}
        )
    )
    expected = roll_odds(2, [1], 9, advantage=True)
    assert embed["description"].startswith(f"**{percent(expected.success)} to reach 9")

    embed = answered(await odds(harness, world, "decision", {"stat": 1, "contested": "0, 2"}))
    contest = contested_odds([1, 0, 2], [DiceMode.NORMAL] * 3)
    assert embed["description"].startswith(f"**{percent(contest.win[0])} for you to win (ties re-roll)**")


async def test_odds_supply_item(harness: Harness, world: World) -> None:  # DD-7
    await harness.slash(
        world.guild,
        world.general,
        world.gm,
        "supply set",
        {"member": world.alice, "item": "Torches", "die": 8},
    )
    embed = answered(await odds(harness, world, "supply", {"item": "Torches"}))
    expected = supply_odds(SupplyDie.D8)
    assert embed["description"].startswith(
        f"**about {float(expected.expected_uses):.1f} more rolls until empty"
    )


async def test_odds_supply_names_the_item_as_supply_shows_it(harness: Harness, world: World) -> None:
    # the item as the GM named it, however the player types it, and read as written (markdown escaped), as
    # /supply show and /supply roll name it
    item = "*Salt_Pork* Rations"
    await harness.slash(
        world.guild, world.general, world.gm, "supply set", {"member": world.alice, "item": item, "die": 10}
    )
    listed = await harness.slash(world.guild, world.general, world.alice, "supply show", {})
    assert f"{shown_name(item)}: **d10**" in listed.text()
    embed = answered(await odds(harness, world, "supply", {"item": "*salt_pork* RATIONS"}))
    assert embed["title"] == f"Odds: Alice's {shown_name(item)} (d10)"
    rolled = await harness.slash(world.guild, world.general, world.alice, "supply roll", {"item": item})
    assert rolled.embed["title"].startswith(f"Alice - {shown_name(item)}: d10 ")

    await harness.slash(
        world.guild, world.general, world.gm, "supply set", {"member": world.alice, "item": item, "die": 0}
    )
    empty = await odds(harness, world, "supply", {"item": "*salt_pork* rations"})
    assert empty.ephemeral and empty.content.startswith(f"Alice's {shown_name(item)} is empty")
    assert not RULE_ID.search(empty.content)
    # an item Alice has none of: the sentence /supply roll gives, word for word
    unknown = await odds(harness, world, "supply", {"item": "Rope"})
    rolled = await harness.slash(world.guild, world.general, world.alice, "supply roll", {"item": "Rope"})
    assert unknown.ephemeral and unknown.content == rolled.content == (
        "Alice has no supply of Rope yet: ask a GM to set it with /supply set."
    )


async def test_odds_cards_involuntary_from_this_channels_shoe(harness: Harness, world: World) -> None:  # BJ-3
    store = harness.bot.store
    await stack_shoe(store, world.general, ["KS", "6H", "9D", "2C"])
    shoe = await shoe_of(store, world.general)
    answer = await odds(harness, world, "cards", {"difficulty": 3, "level": 5, "public": True})
    embed = answered(answer, ephemeral=False)
    settings = await store.settings.get(world.guild.id)
    options = HandOptions(
        adder_scheme=settings.adder_scheme,
        suit_bonus=settings.bj_suit_bonus,
        characteristic_rule=settings.bj_characteristic_bonus,
        fumble_flags=settings.bj_fumble_flags,
    )
    expected = involuntary_odds(shoe.remaining, 5, 3, options=options, discards=shoe.discards)
    assert embed["description"].startswith(f"**{percent(expected.success)} to succeed")
    assert field(embed, "Expected TRL") == f"{float(expected.expected_trl):.2f}"
    assert await shoe_of(store, world.general) == shoe  # asking draws nothing


async def test_odds_cards_with_several_characteristics(harness: Harness, world: World) -> None:  # BJ-9
    store = harness.bot.store
    await stack_shoe(store, world.general, ["KS", "6H", "9D", "2C"])
    shoe = await shoe_of(store, world.general)
    values = {"difficulty": 4, "level": 2, "characteristics": "Strength +3, Speed -2", "public": True}
    embed = answered(await odds(harness, world, "cards", values), ephemeral=False)
    options = await guild_options(harness, world)
    named = [("Strength", 3), ("Speed", -2)]
    expected = involuntary_odds(
        shoe.remaining, 2, 4, options=options, discards=shoe.discards, characteristics=named
    )
    assert expected.expected_trl != involuntary_odds(shoe.remaining, 2, 4, options=options).expected_trl
    assert field(embed, "Expected TRL") == f"{float(expected.expected_trl):.2f}"
    refused = await odds(harness, world, "cards", {"difficulty": 4, "level": 2, "characteristics": "Luck"})
    assert refused.ephemeral and refused.content.startswith("'Luck' is not a characteristic")


async def test_odds_cards_do_not_see_another_players_face_down_card(harness: Harness, world: World) -> None:
    # BJ-4, issue 7: odds from the shoe's true remaining cards told Bob Alice's face-down card; from the
    # cards Bob can know about, that card may as well be in the shoe
    store = harness.bot.store
    await stack_shoe(store, world.general, ["5C"])
    await harness.slash(world.guild, world.general, world.alice, "cards task", {"difficulty": 3, "level": 5})
    shoe = await shoe_of(store, world.general)
    options = await guild_options(harness, world)
    as_bob_sees = involuntary_odds((*shoe.remaining, Card.parse("5C")), 5, 3, options=options)
    true_shoe = involuntary_odds(shoe.remaining, 5, 3, options=options)
    assert as_bob_sees.expected_trl != true_shoe.expected_trl  # the test can tell the two apart
    bob = answered(await odds(harness, world, "cards", {"difficulty": 3, "level": 5}, user=world.bob))
    assert field(bob, "Expected TRL") == f"{float(as_bob_sees.expected_trl):.2f}"
    gm = answered(await odds(harness, world, "cards", {"difficulty": 3, "level": 5}, user=world.gm))
    assert field(gm, "Expected TRL") == f"{float(true_shoe.expected_trl):.2f}"  # GMs see every card
    alice = answered(await odds(harness, world, "cards", {"difficulty": 3, "level": 5}))
    assert field(alice, "Expected TRL") == f"{float(true_shoe.expected_trl):.2f}"  # she peeked hers


async def test_a_finished_hands_odds_do_not_see_another_players_face_down_card(
    harness: Harness, world: World
) -> None:
    # BJ-4, GM-4: the odds a finished hand's last move had, from the shoe kept with that move, count Bob's
    # face-down card (out of that shoe) as one Alice may draw: she was never shown it. A GM sees the shoe.
    store = harness.bot.store
    await nearly_empty_shoe(harness, world, ["2C", "9D", "KC"])
    await harness.slash(world.guild, world.general, world.bob, "cards task", {"difficulty": 4, "level": 2})
    dealt = await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 4, "level": 2}
    )
    message = dealt.original
    hand = Hand.from_dict((await store.cards.get_hand(hand_id_of(message))).data)
    shoe = await shoe_of(store, world.general)
    assert shoe.remaining == (Card.parse("KC"),)  # Bob holds 2C face down, Alice 9D
    seen = (*shoe.remaining, Card.parse("2C"))
    as_alice_sees = hand_decision_line(voluntary_decision(hand, seen, shoe.discards))
    true_shoe = hand_decision_line(voluntary_decision(hand, shoe.remaining, shoe.discards))
    assert as_alice_sees != true_shoe  # the test can tell the two apart
    await harness.click(message, "Stand", world.alice)
    alice = await harness.click(message, "Odds", world.alice)
    assert alice.ephemeral and alice.content.endswith(f"before your last move (Stand): {as_alice_sees}")
    gm = await harness.click(message, "Odds", world.gm)
    assert gm.ephemeral and gm.content.endswith(f": {true_shoe}")
    # reshuffled since, with Bob's hand still out of the shoe: the same odds for each
    await harness.slash(world.guild, world.general, world.gm, "cards shuffle")
    assert (await harness.click(message, "Odds", world.alice)).content.endswith(f": {as_alice_sees}")
    assert (await harness.click(message, "Odds", world.gm)).content.endswith(f": {true_shoe}")


async def test_a_finished_hands_odds_do_not_see_a_hidden_hand_that_ended_since(
    harness: Harness, world: World
) -> None:
    # BJ-4: Bob's private hand was in play when Alice stood, and ended after: its cards stay unseen to her
    store = harness.bot.store
    await nearly_empty_shoe(harness, world, ["2C", "9D", "KC", "5S"])
    bob = await harness.slash(
        world.guild,
        world.general,
        world.bob,
        "cards task",
        {"difficulty": 4, "level": 2, "visibility": "private"},
    )
    dealt = await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 4, "level": 2}
    )
    hand = Hand.from_dict((await store.cards.get_hand(hand_id_of(dealt.original))).data)
    shoe = await shoe_of(store, world.general)
    assert shoe.remaining == (Card.parse("KC"), Card.parse("5S"))
    seen = (*shoe.remaining, Card.parse("2C"))
    as_alice_sees = hand_decision_line(voluntary_decision(hand, seen, shoe.discards))
    assert as_alice_sees != hand_decision_line(voluntary_decision(hand, shoe.remaining, shoe.discards))
    await harness.click(dealt.original, "Stand", world.alice)  # draws KC
    await harness.click(bob.original, "Stand", world.bob)  # draws 5S: Bob's hand is over, never shown her
    alice = await harness.click(dealt.original, "Odds", world.alice)
    assert alice.content.endswith(f"before your last move (Stand): {as_alice_sees}")


async def test_an_involuntary_hands_chance_does_not_see_another_players_face_down_card(
    harness: Harness, world: World
) -> None:
    # BJ-3, BJ-4: the chance an involuntary hand had, in its Details, is from the shoe it was dealt from as
    # the clicker could know it: Bob's face-down card counts as one the hand might have drawn.
    store = harness.bot.store
    await nearly_empty_shoe(harness, world, ["AC", "9D", "KS", "QH", "3D"])
    await harness.slash(world.guild, world.general, world.bob, "cards task", {"difficulty": 4, "level": 2})
    before = await shoe_of(store, world.general)
    task = {"difficulty": 4, "level": 1, "mode": "involuntary"}
    dealt = await harness.slash(world.guild, world.general, world.alice, "cards task", task)
    options = await guild_options(harness, world)
    seen = (*before.remaining, Card.parse("AC"))
    as_seen = percent(involuntary_odds(seen, 1, 4, options=options, discards=before.discards).success)
    true = percent(
        involuntary_odds(before.remaining, 1, 4, options=options, discards=before.discards).success
    )
    assert as_seen != true  # the test can tell the two apart
    for reshuffled in (False, True):  # reshuffled since: the same, Bob's hand still out of the shoe
        if reshuffled:
            await harness.slash(world.guild, world.general, world.gm, "cards shuffle")
        for viewer, chance in ((world.alice, as_seen), (world.gm, true)):
            details = await harness.click(dealt.original, "Details", viewer)
            assert field(details.embed, "Chance it had").startswith(f"{chance} to succeed")


async def nearly_empty_shoe(harness: Harness, world: World, top: list[str]) -> Shoe:
    """The channel's one-deck shoe holds only ``top``; every other card is in its discard pile."""
    store = harness.bot.store
    assert world.general.guild_id is not None
    _, version = await store.cards.get_shoe(world.guild.id, world.general.id, 1)
    chosen = [Card.parse(code) for code in top]
    rest = Counter(full_deck())
    rest.subtract(chosen)
    shoe = Shoe(decks=1, remaining=tuple(chosen), discards=tuple(sorted(rest.elements())))
    await store.cards.put_shoe(world.general.id, shoe, version)
    return await shoe_of(store, world.general)


async def guild_options(harness: Harness, world: World) -> HandOptions:
    settings = await harness.bot.store.settings.get(world.guild.id)
    return HandOptions(
        adder_scheme=settings.adder_scheme,
        suit_bonus=settings.bj_suit_bonus,
        characteristic_rule=settings.bj_characteristic_bonus,
        fumble_flags=settings.bj_fumble_flags,
    )


async def test_public_card_odds_show_nobody_s_face_down_card(harness: Harness, world: World) -> None:
    # BJ-4: a face-down card is its player's (and a GM's on request) until the hand ends: odds posted for
    # the channel count it as unseen, whoever asks, a GM or the hand's own player
    await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {"difficulty": 3, "level": 4, "mode": "voluntary"},
    )
    task = {"difficulty": 3, "level": 4}
    alice = answered(await odds(harness, world, "cards", task))
    bob = answered(await odds(harness, world, "cards", task, user=world.bob))
    gm = answered(await odds(harness, world, "cards", task, user=world.gm))
    assert alice["description"] != bob["description"]  # Alice knows her face-down card, Bob does not
    assert gm["description"] == alice["description"]  # and a GM sees every card
    for asker in (world.gm, world.alice, world.bob):
        posted = await odds(harness, world, "cards", {**task, "public": True}, user=asker)
        assert answered(posted, ephemeral=False)["description"] == bob["description"]


async def test_odds_cards_involuntary_deals_on_from_the_discards(harness: Harness, world: World) -> None:
    # BJ-1, BJ-3: a 2-card shoe cannot finish a hand; the bot reshuffles the discards and deals on, and
    # so do its odds (without the discards a hand would stop at 5, TRL -2).
    shoe = await nearly_empty_shoe(harness, world, ["2C", "3D"])
    answer = await odds(harness, world, "cards", {"difficulty": 4, "level": 1, "public": True})
    embed = answered(answer, ephemeral=False)
    options = await guild_options(harness, world)
    expected = involuntary_odds(shoe.remaining, 1, 4, options=options, discards=shoe.discards)
    assert involuntary_odds(shoe.remaining, 1, 4, options=options).success == 0 < expected.success
    assert embed["description"].startswith(f"**{percent(expected.success)} to succeed")
    assert field(embed, "Expected TRL") == f"{float(expected.expected_trl):.2f}"


async def test_cards_task_odds_line_counts_the_reshuffle(harness: Harness, world: World) -> None:
    # BJ-1, BJ-3: the chance an involuntary /cards task that emptied the shoe mid-hand had, in its Details
    before = await nearly_empty_shoe(harness, world, ["2C", "3D"])
    answer = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {"difficulty": 4, "level": 1, "mode": "involuntary"},
    )
    options = await guild_options(harness, world)
    expected = involuntary_odds(before.remaining, 1, 4, options=options, discards=before.discards)
    assert "%" not in answer.original.text()  # the chance it had is behind Details
    details = await harness.click(answer.original, "Details", world.bob)
    assert field(details.embed, "Chance it had").startswith(f"{percent(expected.success)} to succeed")
    after = await shoe_of(harness.bot.store, world.general)
    assert len(after.remaining) < len(before.discards)  # the discards were reshuffled into the shoe


async def test_odds_cards_hand_hits_on_from_the_discards(harness: Harness, world: World) -> None:
    # BJ-1, BJ-4: a hand dealt from a 2-card shoe: Hit draws its last card and goes on from the discards.
    await nearly_empty_shoe(harness, world, ["7S", "5H"])
    dealt = await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 4, "level": 2}
    )
    hand_id = hand_id_of(dealt.original)
    hand = Hand.from_dict((await harness.bot.store.cards.get_hand(hand_id)).data)
    shoe = await shoe_of(harness.bot.store, world.general)
    assert shoe.remaining == (Card.parse("5H"),)
    expected = voluntary_decision(hand, shoe.remaining, shoe.discards)
    alone = voluntary_decision(hand, shoe.remaining)
    assert expected.hit is not None and alone.hit is not None and expected.hit != alone.hit
    embed = answered(await odds(harness, world, "cards", {"hand": hand_id}), ephemeral=True)
    assert field(embed, "In one line") == hand_decision_line(expected) != hand_decision_line(alone)


async def test_cards_odds_button_hits_on_from_the_discards(harness: Harness, world: World) -> None:
    # BJ-1, BJ-4: the hand's Odds button, from a 2-card shoe, counts the discards too.
    await nearly_empty_shoe(harness, world, ["7S", "5H"])
    dealt = await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 4, "level": 2}
    )
    hand = Hand.from_dict((await harness.bot.store.cards.get_hand(hand_id_of(dealt.original))).data)
    shoe = await shoe_of(harness.bot.store, world.general)
    expected = hand_decision_line(voluntary_decision(hand, shoe.remaining, shoe.discards))
    alone = hand_decision_line(voluntary_decision(hand, shoe.remaining))
    own = await harness.click(dealt.original, "Odds", world.alice)
    assert own.ephemeral and expected in own.content and alone not in own.content


async def test_a_finished_hand_from_a_2_card_shoe_shows_its_last_moves_odds_with_the_discards(
    harness: Harness, world: World
) -> None:
    # BJ-1, BJ-4: the "before the last move" line of a hand whose shoe would have run out counts the
    # discards a Hit would have dealt on from.
    await nearly_empty_shoe(harness, world, ["7S", "5H"])
    dealt = await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 4, "level": 2}
    )
    message = dealt.original
    hand = Hand.from_dict((await harness.bot.store.cards.get_hand(hand_id_of(message))).data)
    shoe = await shoe_of(harness.bot.store, world.general)
    expected = hand_decision_line(voluntary_decision(hand, shoe.remaining, shoe.discards))
    alone = hand_decision_line(voluntary_decision(hand, shoe.remaining))
    await harness.click(message, "Stand", world.alice)
    asked = await harness.click(message, "Odds", world.alice)
    line = f"Hand #{hand_id_of(message)}, before your last move (Stand): {expected}"
    assert asked.ephemeral and asked.content == line and alone not in asked.content


async def voluntary_hand(harness: Harness, world: World, **options: Any) -> Answer:
    await stack_shoe(harness.bot.store, world.general, ["7S", "5H", "4D", "9C"])
    return await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 3, "level": 5, **options}
    )


async def test_odds_cards_hand_for_its_owner_only(harness: Harness, world: World) -> None:  # BJ-4, GM-4
    dealt = await voluntary_hand(harness, world)
    hand_id = hand_id_of(dealt.original)
    record = await harness.bot.store.cards.get_hand(hand_id)
    shoe = await shoe_of(harness.bot.store, world.general)
    expected = voluntary_decision(Hand.from_dict(record.data), shoe.remaining)
    public = await odds(harness, world, "cards", {"hand": hand_id, "public": True})
    assert public.ephemeral and public.content == (
        "A hand's odds depend on its face-down card, so only you see them: leave public off."
    )
    own = await odds(harness, world, "cards", {"hand": hand_id})
    embed = answered(own, ephemeral=True)  # the face-down card's odds are never public
    assert embed["title"].startswith(f"Odds: your hand #{hand_id} ")
    assert f"best: {expected.best.action.label} ({percent(expected.best.success)}" in embed["description"]
    assert own.public() == []
    stranger = await odds(harness, world, "cards", {"hand": hand_id}, user=world.bob)
    assert stranger.ephemeral and "Only the hand's player" in stranger.content
    assert stranger.original.attachments == []
    # another channel's hand and a hand that never existed get the same sentence: ids cannot be probed
    elsewhere = await harness.slash(
        world.guild, world.gm_screen, world.alice, "odds cards", {"hand": hand_id}
    )
    assert elsewhere.ephemeral and elsewhere.content == f"There is no hand {hand_id} in this channel."
    missing = await odds(harness, world, "cards", {"hand": 999999})
    assert missing.ephemeral and missing.content == "There is no hand 999999 in this channel."


async def test_odds_pool_on_a_running_pool(harness: Harness, world: World) -> None:  # RPS-8
    values = {"name": "Pick the lock", "goal": 12, "minutes": 10, "member": world.alice, "base": 15}
    started = await harness.slash(world.guild, world.general, world.gm, "rps sustained start", values)
    await harness.click(started.original, "Roll next check", world.alice)
    stored = await harness.bot.store.pools.get(world.guild.id, world.general.id, "Pick the lock")
    pool = rps_rules.SustainedPool(
        goal=12, base=15, minutes_per_check=10, pool=stored.pool, checks=stored.checks_made
    )
    expected = sustained_odds(pool)
    embed = answered(await odds(harness, world, "pool", {"name": "Pick the lock"}))
    assert embed["description"].startswith(
        f"**{percent(expected.complete)} to complete; about {float(expected.expected_checks):.1f} checks"
    )
    assert field(embed, "Fail") == percent(expected.fail, 1)
    assert field(embed, "Checks left (expected)") == f"{float(expected.expected_checks):.1f}"
    outsider = await odds(harness, world, "pool", {"name": "Pick the lock"}, user=world.bob)
    assert outsider.ephemeral and "owner or a GM" in outsider.content


# --------------------------------------------------------------------------------------------------
# The odds line of roll results


async def test_sysx_check_result_shows_the_chance_it_had(harness: Harness, world: World) -> None:  # SX-7
    answer = await harness.slash(
        world.guild, world.general, world.alice, "sysx check", {"sv": 12, "roll_modifier": 1}
    )
    natural = Dice(random.Random(SEED)).d20()
    result = sx.check(CHART, 12, natural, roll_modifier=1)
    expected = systemx_summary(
        check_odds(12, roll_modifier=1, chart=CHART), result.margin, sx.MarginStyle.SIGNED
    )
    # the chance it had is in the roll's Details (issue 31), with the exact fraction under it
    odds_text = field(await shown(harness, answer, world.bob), "Odds")
    assert odds_text.splitlines()[0] == expected and odds_text.splitlines()[1].startswith("Exactly ")
    assert "% to succeed; this " in expected
    assert "%" not in "".join(compact_lines(answer.embed))  # the compact result leaves the odds to Details


async def test_rps_check_result_shows_the_chance_it_had(harness: Harness, world: World) -> None:  # RPS-3
    answer = await harness.slash(world.guild, world.general, world.alice, "rps check", {"base": 13})
    dice = Dice(random.Random(SEED))
    result = rps_rules.check(13, dice.d10(), dice.d10())
    odds = rps_check_odds(13)
    assert field(await shown(harness, answer), "Odds") == (
        f"{rps_summary(odds, result.sl)}\nExactly {odds.success.numerator}/{odds.success.denominator} "
        f"({percent(odds.success, 2)}) to succeed"
    )


async def test_a_blind_roller_never_sees_the_odds(harness: Harness, world: World) -> None:  # issue 7
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    answer = await harness.slash(
        world.guild, world.general, world.alice, "sysx check", {"sv": 12, "visibility": "blind"}
    )
    assert answer.ephemeral and answer.content == "Your roll went to the GM."
    [gm_copy] = answer.in_channel(world.gm_screen)
    assert has_field(await open_details(harness, gm_copy, world.gm), "Odds")  # the GMs see its odds
    for message in answer.messages:
        if message.channel_id != world.gm_screen.id:
            assert "%" not in message.text() and "Odds" not in message.text()


async def test_a_private_rolls_notice_has_no_odds(harness: Harness, world: World) -> None:  # issue 7
    answer = await harness.slash(
        world.guild, world.general, world.alice, "rps check", {"base": 13, "visibility": "private"}
    )
    assert answer.ephemeral and has_field(await shown(harness, answer), "Odds")
    [notice] = answer.public()
    assert notice.embeds == [] and "%" not in notice.text()


# --------------------------------------------------------------------------------------------------
# The cards Odds button


async def test_cards_odds_button_for_the_owner_and_refused_for_a_stranger(
    harness: Harness, world: World
) -> None:  # BJ-4, GM-4
    dealt = await voluntary_hand(harness, world)
    message = dealt.original
    hand_id = hand_id_of(message)
    assert f"bj:{hand_id}:odds" in message.custom_ids()
    record = await harness.bot.store.cards.get_hand(hand_id)
    shoe = await shoe_of(harness.bot.store, world.general)
    expected = voluntary_decision(Hand.from_dict(record.data), shoe.remaining)
    edits = message.edits
    own = await harness.click(message, "Odds", world.alice)
    assert own.ephemeral and f"best: {expected.best.action.label}" in own.content
    assert f"Stand {percent(expected.stand.success)}" in own.content
    assert own.public() == [] and message.edits == edits
    stranger = await harness.click(message, "Odds", world.bob)
    assert stranger.ephemeral and "Only the player who started this" in stranger.content
    assert "best:" not in stranger.text()
    peek = await harness.click(message, "Peek", world.alice)  # the face-down card, not a second opinion
    assert peek.ephemeral and "best:" not in peek.content and "%" not in peek.content


async def test_a_blind_hand_has_no_odds_button(harness: Harness, world: World) -> None:  # issue 7
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    dealt = await voluntary_hand(harness, world, visibility="blind")
    message = dealt.original
    assert not any(c.endswith(":odds") for c in message.custom_ids())
    peek = await harness.click(message, "Peek", world.alice)
    assert peek.ephemeral and "best:" not in peek.content and "%" not in peek.content


async def test_a_finished_hands_odds_are_its_players_on_request(harness: Harness, world: World) -> None:
    # BJ-4: the chance each move had before the last one second-guesses the player: it is never edited
    # into the hand's message; its player (or a GM) asks for it with Odds, and only they see it.
    dealt = await voluntary_hand(harness, world)
    message = dealt.original
    hand_id = hand_id_of(message)
    record = await harness.bot.store.cards.get_hand(hand_id)
    shoe = await shoe_of(harness.bot.store, world.general)
    expected = hand_decision_line(voluntary_decision(Hand.from_dict(record.data), shoe.remaining))
    stood = await harness.click(message, "Stand", world.alice)
    assert "%" not in message.text() and "best:" not in message.text() and stood.public() == []
    assert message.custom_ids() == [f"bj:{hand_id}:details", f"bj:{hand_id}:odds"]
    own = await harness.click(message, "Odds", world.alice)
    assert own.ephemeral and own.content == f"Hand #{hand_id}, before your last move (Stand): {expected}"
    assert own.public() == []
    stranger = await harness.click(message, "Odds", world.bob)
    assert stranger.ephemeral and "Only the player who started this" in stranger.content
    gm = await harness.click(message, "Odds", world.gm)
    assert gm.ephemeral and expected in gm.content


async def test_a_hands_last_move_is_never_held_up_by_odds(harness: Harness, world: World) -> None:
    # BJ-4: the last move's result goes out without any odds worked out for it (they are asked for later).
    dealt = await voluntary_hand(harness, world)
    message = dealt.original

    class Broken:
        async def run(self, function: Any, *args: Any) -> Any:
            raise RuntimeError("worker gone")

    real = harness.bot.workers
    harness.bot.workers = Broken()
    try:
        stand = await harness.click(message, "Stand", world.alice)
    finally:
        harness.bot.workers = real
    assert stand.record.callback is not None and not [m for m in stand.messages if m.ephemeral]
    assert harness.take_errors() == []
    record = await harness.bot.store.cards.get_hand(hand_id_of(message))
    assert record.finished
    [logged] = await harness.bot.store.log.last(world.guild.id, world.general.id, 1)
    assert logged.inputs["hand_id"] == record.id


async def test_a_failed_odds_worker_leaves_the_gm_copy_standing(harness: Harness, world: World) -> None:
    # BJ-4: the worker failing is not the player's problem: a gm hand ends, is logged, and its result goes
    # to the GMs without the odds line; the failure is logged for the host.
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    dealt = await voluntary_hand(harness, world, visibility="gm")
    message = dealt.original
    real = harness.bot.workers

    class Broken:
        async def run(self, function: Any, *args: Any) -> Any:
            raise RuntimeError("worker gone")

    harness.bot.workers = Broken()
    try:
        stand = await harness.click(message, "Stand", world.alice)
    finally:
        harness.bot.workers = real
    assert not [m for m in stand.messages if m.ephemeral and m.id != message.id]
    [gm_copy] = stand.in_channel(world.gm_screen)
    assert "Odds" not in gm_copy.text()
    assert [r.getMessage() for r in harness.take_errors()] == [
        "Working out the odds of a hand's last move failed"
    ]


async def test_an_estimated_hit_says_about(harness: Harness, world: World) -> None:
    # BJ-9: with two characteristics of different suits and the suit rule on, the Hit look-ahead is an
    # estimate (HandDecision.exact False), and the figure shown says so.
    await stack_shoe(harness.bot.store, world.general, ["7H", "5H", "4D", "9C"])
    dealt = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {"difficulty": 3, "level": 2, "characteristics": "Strength +2, Dexterity +3"},
    )
    hand_id = hand_id_of(dealt.original)
    record = await harness.bot.store.cards.get_hand(hand_id)
    shoe = await shoe_of(harness.bot.store, world.general)
    decision = voluntary_decision(Hand.from_dict(record.data), shoe.remaining)
    assert not decision.exact and decision.hit is not None
    own = await harness.click(dealt.original, "Odds", world.alice)
    assert f"Hit about {percent(decision.hit.success)} (expected TRL about " in own.content
    assert f"Stand {percent(decision.stand.success)} (expected TRL " in own.content
    embed = answered(await odds(harness, world, "cards", {"hand": hand_id}))
    assert "Hit (about)" in embed["description"] and has_field(embed, "About Hit")


async def test_a_killed_bot_leaves_no_chart_worker_behind(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """The chart workers (and their fork server) exit with the bot, even when it is killed outright."""
    bot = await SubprocessBot.launch(fake, tmp_path / "bot.db")
    try:
        answer = await bot.slash(world.guild, world.general, world.alice, "odds rps", {"base": 12})
        for _ in range(300):  # the deferred reply is filled once the first worker has drawn the chart
            if answer.original.attachments:
                break
            await asyncio.sleep(0.1)
        chart_of(answer.original)
    finally:
        await bot.kill()  # reads the bot's stderr to its end: a worker still holding it would hang here
    assert bot.error_lines() == []


async def test_a_pool_check_shows_the_pool_odds_and_never_fails_on_a_huge_goal(
    harness: Harness, world: World
) -> None:  # RPS-8
    values = {"name": "Build the wall", "goal": 5000, "minutes": 60, "member": world.alice, "base": 15}
    started = await harness.slash(world.guild, world.general, world.gm, "rps sustained start", values)
    rolled = await harness.click(started.original, "Roll next check", world.alice)
    assert "ask /odds pool" in field(await shown(harness, rolled), "Odds")
    small = {"name": "Pick the lock", "goal": 12, "minutes": 10, "member": world.alice, "base": 15}
    started = await harness.slash(world.guild, world.general, world.gm, "rps sustained start", small)
    rolled = await harness.click(started.original, "Roll next check", world.alice)
    stored = await harness.bot.store.pools.get(world.guild.id, world.general.id, "Pick the lock")
    if stored.running:
        pool = rps_rules.SustainedPool(
            goal=12, base=15, minutes_per_check=10, pool=stored.pool, checks=stored.checks_made
        )
        assert f"{percent(sustained_odds(pool).complete)} to complete" in field(
            await shown(harness, rolled), "Odds"
        )
    else:
        assert f"the action has {stored.state}" in field(await shown(harness, rolled), "Odds")
