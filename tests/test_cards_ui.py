"""How a hand reads (bot.ui.cards): compact public lines, Details, and a task's characteristics as typed."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.core import blackjack as bj
from bot.core.cards import Card, parse_cards
from bot.core.errors import RuleError
from bot.store import Sheet
from bot.ui.cards import (
    Notes,
    adder_words,
    characteristic_choices,
    hand_details_embed,
    hand_embed,
    held_then,
    read_characteristics,
)
from bot.ui.reply import UserError

NOTES = Notes(hand_id=7, owner_id=1, owner_name="Bea", skill_label="Lockpicking")


def played(hand: bj.Hand, *codes: str) -> bj.Hand:
    for code in codes:
        card = Card.parse(code)
        hand = bj.deal(hand, card) if hand.needs_card else bj.hit(hand, card)
    return hand


def sheet(bonuses: dict[str, int]) -> Sheet:
    return Sheet.model_validate(
        {"id": 1, "guild_id": 1, "owner_id": 1, "name": "Rook", "system": "cards", "bonuses": bonuses}
    )


def test_a_result_is_a_title_and_at_most_three_lines_without_rules_or_fumbles() -> None:  # BJ-10, BJ-11
    hand = bj.stand(played(bj.start_voluntary(4, 3, characteristics=[("Strength", 2)]), "5S", "KH", "2D"))
    assert hand.fumble_flags  # 2♦ as the third card
    embed = hand_embed(hand, NOTES)
    result = bj.resolve(hand)
    assert (result.trl, result.down) == ((17 + 2) // 5 + 4 - 3, -5)
    assert embed.title == "Bea - Lockpicking: Average (TRL 4), success"
    assert embed.description is not None
    assert embed.description.split("\n") == [
        "5♠ K♥ 2♦: stood on 17",
        "Competent (4) vs Average (3) · Strength +2 counts (♠ played)",
    ]
    shown = f"{embed.title} {embed.description} {embed.footer.text}"
    assert "umble" not in shown and "BJ-" not in shown and "Down" not in shown
    details = {f.name: f.value for f in hand_details_embed(hand, NOTES, gm=True).fields}
    assert details["Down / Up (BJ-10)"].startswith("-5 / +5: ")
    assert details["For the GM (BJ-11)"].startswith("Fumble chance: 2♦ as card 3")
    assert "For the GM (BJ-11)" not in {f.name for f in hand_details_embed(hand, NOTES).fields}


def test_in_play_a_characteristic_counts_from_the_cards_shown_only() -> None:  # BJ-4, BJ-9
    hand = played(bj.start_voluntary(4, 3, characteristics=[("Strength", 2), ("Speed", 1)]), "5S", "KH")
    embed = hand_embed(hand, NOTES)
    assert embed.description is not None
    cards, task, moves = embed.description.split("\n")
    assert cards == "🂠 K♥: 10 showing + the face-down card" and "5♠" not in embed.description
    assert task == "Competent (4) vs Average (3) · Strength +2 if a ♠ is played · Speed +1 counts (♥ played)"
    assert moves.startswith("**Hit** draws a card · **Stand** keeps your total")
    revealed = hand_embed(hand, NOTES, reveal=True)  # a GM's /cards peek
    assert revealed.description is not None and revealed.description.startswith("5♠ K♥: total 15")


def test_characteristics_as_typed() -> None:  # BJ-9
    rook = sheet({"Strength": 2, "Dexterity": -1})
    assert read_characteristics("strength, Dexterity +3, speed", rook) == [
        ("Strength", 2),
        ("Dexterity", 3),
        ("Speed", 0),
    ]
    assert read_characteristics("Will -2, Power: 4, Control=1", None) == [
        ("Will", -2),
        ("Power", 4),
        ("Control", 1),
    ]
    assert read_characteristics(None, rook) == []
    with pytest.raises(UserError, match="Name the task's characteristics"):  # given, but only commas
        read_characteristics(" , ", rook)
    with pytest.raises(UserError, match="twice"):
        read_characteristics("Speed, speed +1", None)
    with pytest.raises(UserError, match="-10 to 10"):
        read_characteristics("Speed +11", None)
    with pytest.raises(RuleError, match="not a characteristic"):
        read_characteristics("Luck", None)


def test_characteristic_suggestions_complete_the_last_entry() -> None:
    rook = sheet({"Dexterity": 3})
    offered = characteristic_choices(rook, "Strength, d")
    assert offered[0] == ("Strength, Dexterity (♦, your bonus +3)", "Strength, Dexterity")
    assert all(value.startswith("Strength, ") and value != "Strength, Strength" for _, value in offered)
    assert ("Speed (♥)", "Speed") in characteristic_choices(None, "spe")


def test_an_adder_set_reads_in_words() -> None:  # BJ-7
    assert adder_words([1, 2, 3, 4, 5]) == "1-5"
    assert adder_words([1, 10]) == "1 or 10"
    assert adder_words([1, 2, 9, 10]) == "1-2 or 9-10"
    assert adder_words([1, 3, 5]) == "1, 3 or 5"


def test_held_then_keeps_the_cards_in_hands_that_were_out_of_the_kept_shoe() -> None:
    # BJ-4: a card in a hand now that the kept shoe or its discards held was drawn since
    remaining, discards = parse_cards(["5C", "7S", "5H"]), parse_cards(["KD"])
    now = parse_cards(["7S", "2C"])  # 7S drawn since; 2C was already in a hand
    assert held_then(now, remaining, discards) == Counter(parse_cards(["2C"]))
    # after a reshuffle the discards are drawn from too: KD is in a hand now, drawn since
    assert held_then(parse_cards(["KD", "2C"]), remaining, discards) == Counter(parse_cards(["2C"]))
    # two decks: a 5C in a hand now counts as the kept shoe's, drawn since: too few, never more
    assert held_then(parse_cards(["5C"]), remaining, discards) == Counter()
    assert held_then((), remaining, discards) == Counter()
