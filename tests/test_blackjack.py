"""Blackjack-style task resolution (RULES.md BJ-2..BJ-11): tables, totals, the hand state machine, results."""

import itertools
import json
import math
import re

import pytest

from bot.core import blackjack as bj
from bot.core.blackjack import Ending, HandOptions, HandState
from bot.core.cards import Card, Suit, full_deck
from bot.core.common import Verdict
from bot.core.errors import IllegalMove, RuleError
from tests.paths import SHARED


def cards(*codes):
    return [Card.parse(code) for code in codes]


def voluntary(*codes, skill=3, difficulty=2, **kwargs):
    hand = bj.start_voluntary(skill, difficulty, **kwargs)
    for card in cards(*codes):
        hand = bj.hit(hand, card)
    return hand


# ---------------------------------------------------------------------------------------------------------
# Tables


def test_bj_8_skill_and_difficulty_names_are_the_seeds():
    assert bj.SKILL_NAMES[0] == "Unskilled"
    assert bj.SKILL_NAMES[8] == "Grand Master"
    assert bj.SKILL_NAMES[10] == "Divine"
    assert len(bj.SKILL_NAMES) == 11
    assert bj.DIFFICULTY_NAMES == (
        "Mindlessly Easy",
        "Very Easy",
        "Easy",
        "Average",
        "Hard",
        "Very Hard",
        "Extremely Hard",
        "Absurdly Difficult",
    )
    assert bj.skill_name(5) == "Proficient"
    assert bj.difficulty_name(7) == "Absurdly Difficult"


@pytest.mark.parametrize("bad", [-1, 11, True, "3", 2.0])
def test_bj_8_bad_skill_levels_raise_rule_error(bad):
    with pytest.raises(RuleError):
        bj.skill_name(bad)
    with pytest.raises(RuleError):
        bj.adder_values(bad)
    with pytest.raises(RuleError):
        bj.start_voluntary(bad, 2)


@pytest.mark.parametrize("bad", [-1, 8, None])
def test_bj_8_bad_difficulties_raise_rule_error(bad):
    with pytest.raises(RuleError):
        bj.difficulty_name(bad)
    with pytest.raises(RuleError):
        bj.start_involuntary(3, bad)


def _rules_adder_columns():
    text = (SHARED / "RULES.md").read_text()
    section = text[text.index("**BJ-7**") : text.index("**BJ-8**")]
    columns = {}
    for name in ("extremes", "middle"):
        match = re.search(name + r" `([^`]*)`", section)
        columns[name] = [cell.strip() for cell in match.group(1).split("|")]
    return columns


def _expand(cell):
    values = set()
    for part in cell.split(","):
        low, _, high = part.partition("-")
        values.update(range(int(low), int(high or low) + 1))
    return tuple(sorted(values))


def test_bj_7_adder_schemes_equal_rules_md():
    columns = _rules_adder_columns()
    for name, cells in columns.items():
        assert len(cells) == 10
        for skill, cell in enumerate(cells, start=1):
            assert bj.adder_values(skill, name) == _expand(cell), (name, skill)
    for skill in range(1, 11):
        assert bj.adder_values(skill) == tuple(range(1, skill + 1))  # "low" is the default
        assert bj.adder_values(skill, "low") == tuple(range(1, skill + 1))
        assert bj.adder_values(skill, "high") == tuple(range(11 - skill, 11))


def test_bj_7_spot_checks_of_the_seed_columns():
    assert bj.adder_values(2, "extremes") == (1, 10)
    assert bj.adder_values(4, "extremes") == (1, 2, 9, 10)
    assert bj.adder_values(1, "middle") == (6,)
    assert bj.adder_values(9, "middle") == tuple(range(2, 11))
    assert bj.adder_values(1, "high") == (10,)
    for scheme in bj.ADDER_SCHEMES:
        assert bj.adder_values(10, scheme) == tuple(range(1, 11))


def test_bj_7_unskilled_has_no_adder_in_any_scheme():
    for scheme in bj.ADDER_SCHEMES:
        assert bj.adder_values(0, scheme) == ()
    assert set(bj.ADDER_SCHEMES) == {"low", "high", "middle", "extremes"}
    assert bj.DEFAULT_ADDER_SCHEME == "low"


@pytest.mark.parametrize("scheme", ["lowest", "", "LOW", None, 3])
def test_bj_7_unknown_adder_scheme_raises_rule_error(scheme):
    with pytest.raises(RuleError, match="adder scheme"):
        bj.adder_values(3, scheme)
    with pytest.raises(RuleError):
        HandOptions(adder_scheme=scheme)


def test_bj_7_adder_sets_are_shown_like_the_seed():
    assert bj.format_adder_values(bj.adder_values(4, "extremes")) == "1-2,9-10"
    assert bj.format_adder_values(bj.adder_values(2, "extremes")) == "1,10"
    assert bj.format_adder_values(bj.adder_values(5, "middle")) == "4-8"
    assert bj.format_adder_values(()) == "-"


def test_bj_9_characteristic_suits():
    spade = ["Strength", "Intelligence", "Charisma", "Power"]
    club = ["Constitution", "Will", "Toughness"]
    diamond = ["Dexterity", "Concentration", "Control"]
    expected = {**dict.fromkeys(spade, Suit.SPADES), **dict.fromkeys(club, Suit.CLUBS)}
    expected |= {**dict.fromkeys(diamond, Suit.DIAMONDS), "Speed": Suit.HEARTS}
    assert dict(bj.CHARACTERISTIC_SUITS) == expected
    assert bj.characteristic_suit("strength") == Suit.SPADES
    assert bj.characteristic_suit(" WILL ") == Suit.CLUBS
    assert bj.canonical_characteristic("dexterity") == "Dexterity"


@pytest.mark.parametrize("bad", ["Luck", "", None, 5])
def test_bj_9_unknown_characteristic_raises_rule_error(bad):
    with pytest.raises(RuleError):
        bj.canonical_characteristic(bad)


# ---------------------------------------------------------------------------------------------------------
# BJ-2 totals


def _best_total(ranks):
    """Every way to count the aces as 1 or 11: the best total at or under 21, else the smallest."""
    base = [min(rank, 10) for rank in ranks if rank != 1]
    aces = sum(1 for rank in ranks if rank == 1)
    options = {sum(base) + sum(choice) for choice in itertools.product((1, 11), repeat=aces)}
    under = [total for total in options if total <= 21]
    return max(under) if under else min(options)


@pytest.mark.parametrize("length", [1, 2, 3])
def test_bj_2_card_total_exhaustive_for_short_hands(length):
    for ranks in itertools.product(range(1, 14), repeat=length):
        hand = [Card(rank, Suit.HEARTS) for rank in ranks]
        assert bj.card_total(hand) == _best_total(ranks), ranks


def test_bj_2_examples():
    assert bj.card_total(cards("AS", "KH")) == 21
    assert bj.card_total(cards("AS", "AH")) == 12
    assert bj.card_total(cards("AS", "5H", "KD")) == 16
    assert bj.card_total(cards("JS", "QH")) == 20
    assert bj.card_total(cards("AS", "5H"), extra=8) == 14  # an adder pushes the ace down to 1
    assert bj.card_total(cards("AS", "5H"), extra=5) == 21


def test_bj_2_ace_is_eleven_when_it_keeps_the_hand_at_21_or_less():
    hand = voluntary("AS", "4H")
    assert hand.total == 15
    hand = bj.hit(hand, Card.parse("7C"))  # soft 15 + 7: the ace drops to 1 instead of wrapping
    assert hand.total == 12
    assert not hand.wrapped
    assert hand.state is HandState.IN_PROGRESS


def test_bj_2_a_bonus_ace_counts_one():
    hand = voluntary("KS", "AH")  # 21
    hand = bj.add_bonus(hand, Card.parse("AC"))
    assert hand.total == 22
    assert hand.ending is Ending.BLACKJACK_BONUS


# ---------------------------------------------------------------------------------------------------------
# BJ-3 involuntary hands


def test_bj_3_dealer_draws_to_17_and_stands():
    hand = bj.play_involuntary(iter(cards("6S", "5H", "4D", "2C", "9S")), 3, 2)
    assert [c.code for c in hand.cards] == ["6S", "5H", "4D", "2C"]
    assert hand.total == 17
    assert hand.ending is Ending.DEALER_STOOD
    assert hand.is_over and not hand.needs_card


def test_bj_3_dealer_stands_on_soft_17():
    hand = bj.play_involuntary(cards("AS", "6H", "9D"), 3, 2)
    assert hand.total == 17
    assert len(hand.cards) == 2
    assert hand.ending is Ending.DEALER_STOOD


def test_bj_3_dealer_draws_on_16_and_can_wrap():
    hand = bj.play_involuntary(cards("10S", "6H", "8D"), 3, 2)
    assert hand.ending is Ending.WRAPPED
    assert hand.total == 3


def test_bj_3_dealer_gets_the_blackjack_bonus():
    hand = bj.play_involuntary(cards("10S", "6H", "5D", "3H", "9C"), 3, 2)
    assert hand.ending is Ending.BLACKJACK_BONUS
    assert [c.code for c in hand.bonus_cards] == ["3H"]
    assert hand.total == 24


def test_bj_3_draws_from_a_callable():
    deck = iter(cards("2S", "3S", "4S", "5S", "6S", "7S"))
    hand = bj.play_involuntary(lambda: next(deck), 0, 0)
    assert hand.total == 20
    assert len(hand.cards) == 5


def test_bj_3_player_cannot_steer_an_involuntary_hand():
    hand = bj.deal(bj.start_involuntary(5, 2), Card.parse("5S"))
    assert hand.needs_card
    with pytest.raises(IllegalMove, match="dealer"):
        bj.stand(hand)
    with pytest.raises(IllegalMove, match="voluntary"):
        bj.add_skill(hand, 1)


def test_bj_3_running_out_of_cards_is_a_rule_error():
    with pytest.raises(RuleError, match="ran out"):
        bj.play_involuntary(cards("2S", "3S"), 3, 2)


# ---------------------------------------------------------------------------------------------------------
# BJ-4 voluntary hands


def test_bj_4_voluntary_hand_deals_its_first_card_face_down():
    hand = bj.start_voluntary(4, 3)
    assert hand.needs_card and not hand.cards and hand.face_down is None
    with pytest.raises(IllegalMove, match="At least one card"):
        bj.stand(hand)
    with pytest.raises(IllegalMove, match="At least one card"):
        bj.add_skill(hand, 1)
    hand = bj.deal(hand, Card.parse("9S"))
    assert hand.face_down == 0
    assert not hand.needs_card  # now the player chooses
    with pytest.raises(IllegalMove, match="player"):
        bj.deal(hand, Card.parse("2S"))
    summary = bj.summarize(hand)
    assert summary.cards == (None,)
    assert summary.labels == (bj.HIDDEN_CARD_LABEL,)
    assert summary.total is None and summary.result is None
    revealed = bj.summarize(hand, reveal=True)
    assert revealed.cards == (Card.parse("9S"),)
    assert revealed.total == 9


def test_bj_4_hit_then_stand_ends_and_reveals():
    hand = voluntary("9S", "4H")
    assert bj.summarize(hand).labels == (bj.HIDDEN_CARD_LABEL, "4♥")
    hand = bj.stand(hand)
    assert hand.ending is Ending.STOOD
    summary = bj.summarize(hand)
    assert summary.labels == ("9♠", "4♥")
    assert summary.total == 13
    assert summary.result == bj.resolve(hand)


def test_bj_4_hidden_card_does_not_leak_through_its_fumble_flag():
    hand = voluntary("AS", "9H")  # the ace is flagged (BJ-11) but is face down
    assert hand.fumble_flags == (0,)
    assert bj.summarize(hand).fumble_flags == ()
    assert bj.summarize(hand, reveal=True).fumble_flags == (0,)


# ---------------------------------------------------------------------------------------------------------
# BJ-5 wrap


def test_bj_5_seed_example_15_plus_7_wraps_to_1():
    hand = voluntary("10S", "5H")
    assert hand.total == 15
    hand = bj.hit(hand, Card.parse("7D"))
    assert hand.total == 1
    assert hand.wrapped
    assert hand.state is HandState.ENDED and hand.ending is Ending.WRAPPED


def test_bj_5_no_cards_and_no_adder_after_a_wrap():
    hand = voluntary("10S", "5H", "7D")
    with pytest.raises(IllegalMove, match="wrapped"):
        bj.hit(hand, Card.parse("2C"))
    with pytest.raises(IllegalMove, match="wrap"):
        bj.add_skill(hand, 1)
    with pytest.raises(IllegalMove):
        bj.stand(hand)


def test_bj_5_wraps_every_overflow():
    for first, second, third in itertools.product(range(2, 11), repeat=3):
        hand = voluntary(f"{first}S", f"{second}H")
        if hand.is_over:
            continue
        hand = bj.hit(hand, Card(third, Suit.CLUBS))
        raw = first + second + third
        if raw > 21:
            assert hand.total == raw - 21 and hand.ending is Ending.WRAPPED


# ---------------------------------------------------------------------------------------------------------
# BJ-6 blackjack bonus


def test_bj_6_exactly_21_is_owed_one_bonus_card_which_does_not_wrap():
    hand = voluntary("10S", "5H", "6D")
    assert hand.state is HandState.AWAITING_BONUS and hand.pending_bonus and hand.needs_card
    with pytest.raises(IllegalMove, match="bonus"):
        bj.hit(hand, Card.parse("2C"))
    with pytest.raises(IllegalMove, match="bonus"):
        bj.stand(hand)
    with pytest.raises(IllegalMove):
        bj.add_skill(hand, 1)
    hand = bj.deal(hand, Card.parse("KC"))
    assert hand.total == 31
    assert not hand.wrapped
    assert hand.ending is Ending.BLACKJACK_BONUS
    assert [c.code for c in hand.bonus_cards] == ["KC"]


def test_bj_6_soft_blackjack_keeps_its_21():
    hand = voluntary("AS", "KH")
    assert hand.pending_bonus
    hand = bj.add_bonus(hand, Card.parse("5C"))
    assert hand.total == 26


def test_bj_6_suit_match_earns_one_more_bonus_card_and_no_more():
    hand = voluntary("10S", "5H", "6D")
    hand = bj.add_bonus(hand, Card.parse("9D"))  # same suit as the 6D before it
    assert hand.pending_bonus
    hand = bj.add_bonus(hand, Card.parse("10D"))  # matches again: still no third bonus
    assert hand.is_over and hand.ending is Ending.BLACKJACK_BONUS
    assert hand.total == 40
    with pytest.raises(IllegalMove):
        bj.add_bonus(hand, Card.parse("2D"))


def test_bj_6_suit_rule_can_be_switched_off():
    options = HandOptions(suit_bonus=False)
    hand = voluntary("10S", "5H", "6D", options=options)
    hand = bj.add_bonus(hand, Card.parse("9D"))
    assert hand.is_over and hand.total == 30


def test_bj_6_bonus_needs_a_21():
    with pytest.raises(IllegalMove, match="21"):
        bj.add_bonus(voluntary("10S"), Card.parse("2C"))


# ---------------------------------------------------------------------------------------------------------
# BJ-7 skill adder


def test_bj_7_adder_ends_the_hand():
    hand = bj.add_skill(voluntary("10S", "4H", skill=5), 5)
    assert hand.total == 19
    assert hand.ending is Ending.SKILL_ADDED and hand.adder == 5
    with pytest.raises(IllegalMove, match="adder was used"):
        bj.hit(hand, Card.parse("2C"))
    with pytest.raises(IllegalMove):
        bj.add_skill(hand, 1)


def test_bj_7_adder_over_21_wraps_and_21_gets_no_bonus():
    hand = bj.add_skill(voluntary("10S", "8H", skill=6), 6)
    assert hand.total == 3 and hand.wrapped and hand.ending is Ending.SKILL_ADDED
    hand = bj.add_skill(voluntary("10S", "8H", skill=6), 3)
    assert hand.total == 21 and not hand.pending_bonus and hand.is_over


def test_bj_7_only_values_of_the_skills_set():
    hand = voluntary("10S", skill=4, options=HandOptions(adder_scheme="extremes"))
    assert hand.allowed_adders == (1, 2, 9, 10)
    with pytest.raises(IllegalMove, match=r"1-2,9-10"):
        bj.add_skill(hand, 5)
    assert bj.add_skill(hand, 9).total == 19
    with pytest.raises(IllegalMove, match="not 5"):
        bj.add_skill(voluntary("10S", skill=4), 5)
    with pytest.raises(RuleError):
        bj.add_skill(voluntary("10S", skill=4), "3")


def test_bj_7_unskilled_has_no_adder():
    hand = voluntary("10S", skill=0)
    assert not hand.can_add_skill
    with pytest.raises(IllegalMove, match="no skill adder"):
        bj.add_skill(hand, 1)


def test_bj_7_adder_only_on_voluntary_hands():
    hand = bj.start_involuntary(10, 0)
    with pytest.raises(IllegalMove, match="voluntary"):
        bj.add_skill(bj.deal(hand, Card.parse("2S")), 1)


# ---------------------------------------------------------------------------------------------------------
# BJ-8 TRL


def test_bj_8_trl_formula_exhaustive():
    for total, skill, difficulty, bonus in itertools.product(range(1, 42), range(11), range(8), range(-6, 7)):
        expected = math.floor((total + bonus) / 5) + skill - difficulty
        assert bj.task_resolution_level(total, skill, difficulty, bonus) == expected


def test_bj_8_resolve_uses_the_hand():
    hand = bj.stand(voluntary("10S", "7H", skill=4, difficulty=3))
    result = bj.resolve(hand)
    assert result.trl == 17 // 5 + 4 - 3 == 4
    assert result.name == "Average"
    assert result.succeeded


def test_bj_8_no_result_before_the_end():
    with pytest.raises(IllegalMove, match="still in play"):
        bj.resolve(voluntary("10S"))


# ---------------------------------------------------------------------------------------------------------
# BJ-9 characteristic bonus


def test_bj_9_bonus_counts_when_a_card_has_the_characteristics_suit():
    hand = bj.stand(
        voluntary("10S", "4H", skill=2, difficulty=2, characteristic="Speed", characteristic_bonus=3)
    )
    assert hand.characteristic_counts
    assert bj.resolve(hand).trl == (14 + 3) // 5 == 3
    hand = bj.stand(
        voluntary("10S", "4C", skill=2, difficulty=2, characteristic="Speed", characteristic_bonus=3)
    )
    assert not hand.characteristic_counts
    assert bj.resolve(hand).trl == 2


def test_bj_9_face_down_and_bonus_cards_count_too():
    hand = voluntary("9D", "5S", characteristic="dexterity", characteristic_bonus=2)
    assert hand.characteristics == (bj.Characteristic("Dexterity", 2),) and hand.characteristic_counts
    hand = voluntary("10S", "5H", "6C", characteristic="Control", characteristic_bonus=2)
    assert not hand.characteristic_counts
    hand = bj.add_bonus(hand, Card.parse("4D"))
    assert hand.characteristic_counts and hand.is_over


def test_bj_9_rule_can_be_switched_off():
    options = HandOptions(characteristic_rule=False)
    hand = bj.stand(voluntary("10H", characteristic="Speed", characteristic_bonus=5, options=options))
    assert not hand.characteristic_counts and hand.counted_bonus == 0


# BJ-9: a task may name one or more characteristics; each one's bonus counts once when a played card
# has its suit.


def several(*codes, named=(("Strength", 3), ("Dexterity", 2), ("Speed", -1)), **kwargs):
    return voluntary(*codes, characteristics=named, **kwargs)


def test_bj_9_each_characteristic_counts_when_its_suit_is_played():
    # BJ-9: a spade counts Strength, a diamond Dexterity; Speed's heart was not played.
    hand = bj.stand(several("9S", "5D", skill=2, difficulty=2))
    strength, dexterity, _ = hand.characteristics
    assert hand.counting_characteristics == (strength, dexterity)
    assert hand.counted_bonus == 3 + 2 and hand.characteristic_counts
    assert bj.resolve(hand).trl == (14 + 5) // 5 + 2 - 2 == 3
    only_clubs = bj.stand(several("9C", "5C", skill=2, difficulty=2))
    assert only_clubs.counting_characteristics == () and only_clubs.counted_bonus == 0
    assert not only_clubs.characteristic_counts
    assert bj.resolve(only_clubs).trl == 14 // 5 == 2


def test_bj_9_each_bonus_counts_once_however_many_cards_match():
    # BJ-9: three spades count Strength once; a negative bonus counts like any other.
    hand = bj.stand(several("2S", "3S", "4S", "5H"))
    assert hand.counted_bonus == 3 - 1
    assert bj.resolve(hand).trl == (14 + 2) // 5 + 3 - 2


def test_bj_9_two_characteristics_of_one_suit_both_count():
    # BJ-9: Strength and Intelligence are both spades: one spade lets both bonuses count.
    hand = bj.stand(voluntary("9S", "5C", characteristics=[("Strength", 2), ("intelligence", 4)]))
    assert [c.name for c in hand.counting_characteristics] == ["Strength", "Intelligence"]
    assert hand.counted_bonus == 6
    assert bj.suit_bonuses(hand.characteristics) == {Suit.SPADES: 6}


def test_bj_9_bonus_cards_and_the_face_down_card_count_for_every_characteristic():
    # BJ-9 with BJ-6: the bonus cards are played cards too.
    hand = several("10C", "5C", "6C")  # 21: owed a bonus
    assert hand.counted_bonus == 0
    hand = bj.add_bonus(hand, Card.parse("4D"))  # a diamond: Dexterity counts
    assert hand.is_over and hand.counted_bonus == 2
    face_down = several("2H", "9C")
    assert face_down.counting_characteristics == (bj.Characteristic("Speed", -1),)


def test_bj_9_several_characteristics_with_the_rule_off_count_nothing():
    # BJ-9 is a guild option: off, no bonus counts whatever the suits.
    hand = bj.stand(several("9S", "5D", "2H", options=HandOptions(characteristic_rule=False)))
    assert hand.counting_characteristics == () and hand.counted_bonus == 0


def test_bj_9_several_characteristics_are_checked():
    # BJ-9: each characteristic once, each a known name with a bonus in range; one way of naming them.
    with pytest.raises(RuleError, match="twice"):
        bj.start_voluntary(3, 2, characteristics=[("Strength", 1), ("strength", 2)])
    with pytest.raises(RuleError, match="not both"):
        bj.start_voluntary(3, 2, "Speed", 1, characteristics=[("Strength", 1)])
    for bad in ([("Luck", 1)], [("Speed", 1000)], [("Speed",)], ["Speed"], "Speed", [("Speed", True)]):
        with pytest.raises(RuleError):
            bj.start_voluntary(3, 2, characteristics=bad)
    hand = bj.start_involuntary(3, 2, characteristics=[(" will ", -2), ("Concentration", 0)])
    assert hand.characteristics == (bj.Characteristic("Will", -2), bj.Characteristic("Concentration", 0))
    assert bj.suit_bonuses(hand.characteristics) == {Suit.CLUBS: -2}  # a 0 bonus changes nothing


def test_bj_9_several_characteristics_round_trip_and_old_records_still_read():
    # BJ-9: a stored hand keeps every characteristic; one stored before several were possible still reads.
    hand = bj.stand(several("9S", "5D"))
    assert bj.Hand.from_dict(json.loads(json.dumps(hand.to_dict()))) == hand
    old = {**voluntary("9D", "5S").to_dict(), "characteristic": "Dexterity", "characteristic_bonus": 2}
    del old["characteristics"]
    read = bj.Hand.from_dict(old)
    assert read.characteristics == (bj.Characteristic("Dexterity", 2),) and read.counted_bonus == 2
    with pytest.raises(RuleError):
        bj.Hand.from_dict({**hand.to_dict(), "characteristics": [["Strength", 1], ["Strength", 1]]})


def test_bj_9_summary_shows_which_characteristics_count_once_the_card_is_shown():
    # BJ-9 with BJ-4: while the face-down card is hidden, which bonuses count would give it away.
    hand = several("9S", "5D")
    hidden = bj.summarize(hand)
    assert hidden.characteristics == hand.characteristics
    assert hidden.counting is None and hidden.characteristic_counts is None
    shown = bj.summarize(bj.stand(hand))
    assert shown.counting == (True, True, False) and shown.characteristic_counts


def test_bj_9_a_bonus_needs_its_characteristic():
    with pytest.raises(RuleError, match="characteristic"):
        bj.start_voluntary(3, 2, characteristic_bonus=2)
    with pytest.raises(RuleError):
        bj.start_voluntary(3, 2, characteristic="Luck", characteristic_bonus=2)


# ---------------------------------------------------------------------------------------------------------
# BJ-10 results


def test_bj_10_names_and_down_up_match_the_seed_table():
    table = {
        -2: ("Fumble II", -35),
        -1: ("Fumble I", -30),
        0: ("Failure", -25),
        1: ("Minimal Success", -20),
        2: ("Very Poor", -15),
        3: ("Poor", -10),
        4: ("Average", -5),
        5: ("Good", 0),
        6: ("Very Good", 5),
        7: ("Excellent", 10),
        8: ("Superb", 15),
    }
    for trl, (name, down) in table.items():
        assert bj.result_name(trl) == name
        assert bj.down(trl) == down
        assert bj.up(trl) == -down


def test_bj_10_names_continue_beyond_the_table():
    assert bj.result_name(-3) == "Fumble III"
    assert bj.result_name(-4) == "Fumble IV"
    assert bj.result_name(-9) == "Fumble IX"
    assert bj.result_name(-14) == "Fumble XIV"
    assert bj.result_name(9) == "Superb+1"
    assert bj.result_name(12) == "Superb+4"
    assert bj.down(9) == 20 and bj.up(-3) == 40


def test_bj_10_success_and_verdicts():
    for trl in range(-10, 20):
        result = bj.task_result(trl * 5, 0, 0)
        assert result.trl == trl
        assert result.succeeded is (trl >= 1)
        assert result.verdict.succeeded is result.succeeded
        expected = (
            Verdict.CRITICAL_FAILURE
            if trl <= -1
            else Verdict.FAILURE
            if trl == 0
            else Verdict.SUCCESS
            if trl < 8
            else Verdict.CRITICAL_SUCCESS
        )
        assert result.verdict is expected


def test_bj_10_summary_carries_the_result():
    hand = bj.stand(voluntary("2S", "3H", skill=0, difficulty=7))
    summary = bj.summarize(hand)
    assert summary.result.trl == 1 + 0 - 7 == -6
    assert summary.result.name == "Fumble VI"
    assert summary.verdict is Verdict.CRITICAL_FAILURE
    assert summary.skill_name == "Unskilled" and summary.difficulty_name == "Absurdly Difficult"


# ---------------------------------------------------------------------------------------------------------
# BJ-11 fumble chance


def test_bj_11_seed_example_5_5_then_3_is_flagged():
    hand = voluntary("5S", "5H")
    assert hand.fumble_flags == ()
    hand = bj.hit(hand, Card.parse("3D"))
    assert hand.fumble_flags == (2,)
    assert hand.state is HandState.IN_PROGRESS  # drawing may go on
    hand = bj.hit(hand, Card.parse("4C"))
    assert hand.fumble_flags == (2, 3)
    assert bj.summarize(hand).fumble_flags == (2, 3)


def test_bj_11_aces_count_one_and_faces_ten():
    assert bj.is_fumble_chance(Card.parse("AS"), 1)
    assert not bj.is_fumble_chance(Card.parse("2S"), 1)
    assert bj.is_fumble_chance(Card.parse("2S"), 2)
    assert not bj.is_fumble_chance(Card.parse("KS"), 9)
    assert bj.is_fumble_chance(Card.parse("KS"), 10)


def test_bj_11_bonus_cards_are_drawn_cards_too():
    hand = voluntary("10S", "5H", "6D")
    hand = bj.add_bonus(hand, Card.parse("2C"))
    assert hand.fumble_flags == (3,)


def test_bj_11_flags_can_be_switched_off():
    hand = voluntary("5S", "5H", "3D", options=HandOptions(fumble_flags=False))
    assert hand.fumble_flags == ()


# ---------------------------------------------------------------------------------------------------------
# Serialization and bad input


def _sample_hands():
    options = HandOptions(
        adder_scheme="middle", suit_bonus=False, characteristic_rule=False, fumble_flags=False
    )
    return [
        bj.start_voluntary(3, 2),
        voluntary("9S"),
        bj.stand(voluntary("9S", "2H")),
        voluntary("10S", "5H", "7D"),
        voluntary("10S", "5H", "6D"),
        bj.add_bonus(voluntary("10S", "5H", "6D"), Card.parse("3D")),
        bj.add_bonus(bj.add_bonus(voluntary("10S", "5H", "6D"), Card.parse("3D")), Card.parse("AD")),
        bj.add_skill(voluntary("10S", "4H", skill=7, characteristic="Will", characteristic_bonus=-2), 7),
        voluntary("2S", "2H", "AC", skill=10, difficulty=7, options=options),
        bj.start_involuntary(1, 0),
        bj.play_involuntary(cards("6S", "5H", "4D", "2C"), 2, 5, "Strength", 4),
        voluntary("9D", "5S", characteristics=[("Dexterity", 2), ("Speed", -1), ("Will", 3)]),
    ]


@pytest.mark.parametrize("hand", _sample_hands())
def test_to_dict_round_trips_through_json(hand):
    data = json.loads(json.dumps(hand.to_dict()))
    assert data == hand.to_dict()
    assert bj.Hand.from_dict(data) == hand


def test_to_dict_uses_card_codes():
    data = voluntary("10S", "AH").to_dict()
    assert data["cards"] == ["10S", "AH"]
    assert data["state"] == "awaiting_bonus" and data["ending"] is None
    assert data["options"] == {
        "adder_scheme": "low",
        "suit_bonus": True,
        "characteristic_rule": True,
        "fumble_flags": True,
    }


@pytest.mark.parametrize(
    "change",
    [
        {"state": "ended", "ending": "stood", "cards": []},  # stood with no card
        {"cards": ["10S", "5H", "7D", "2C"], "state": "ended", "ending": "wrapped"},  # card after a wrap
        {"state": "ended", "ending": "dealer_stood"},  # the state does not follow from the cards
        {"cards": ["ZZ"]},
        {"mode": "sideways"},
        {"options": {"adder_scheme": "low", "surprise": True}},
        {"adder": 9},  # not in a Familiar's low set
        {"skill": 12},
        {"bonus_cards": ["2C"]},
    ],
)
def test_from_dict_refuses_what_no_legal_play_gives(change):
    data = {**voluntary("10S", "5H").to_dict(), **change}
    with pytest.raises(RuleError):
        bj.Hand.from_dict(data)


def test_from_dict_refuses_missing_keys_and_non_mappings():
    data = voluntary("10S").to_dict()
    del data["cards"]
    with pytest.raises(RuleError):
        bj.Hand.from_dict(data)
    with pytest.raises(RuleError):
        bj.Hand.from_dict(["10S"])


def test_hand_rejects_bad_parts():
    with pytest.raises(RuleError):
        bj.start_voluntary(3, 2, options="low")
    with pytest.raises(RuleError):
        HandOptions(suit_bonus="yes")
    with pytest.raises(RuleError):
        bj.hit(bj.start_voluntary(3, 2), "AS")
    with pytest.raises(RuleError):
        bj.start_voluntary(3, 2, characteristic="Speed", characteristic_bonus=1000)


def test_hit_after_each_kind_of_end_names_the_end():
    ends = {
        Ending.STOOD: bj.stand(voluntary("9S")),
        Ending.WRAPPED: voluntary("10S", "5H", "7D"),
        Ending.BLACKJACK_BONUS: bj.add_bonus(voluntary("AS", "KH"), Card.parse("2C")),
        Ending.SKILL_ADDED: bj.add_skill(voluntary("9S"), 1),
        Ending.DEALER_STOOD: bj.play_involuntary(cards("10S", "8H"), 3, 2),
    }
    for ending, hand in ends.items():
        assert hand.ending is ending
        with pytest.raises(IllegalMove, match="ended"):
            bj.hit(hand, Card.parse("2C"))
        with pytest.raises(IllegalMove, match="ended"):
            bj.deal(hand, Card.parse("2C"))


def test_every_card_code_fits_a_hand():
    hand = bj.start_voluntary(3, 2)
    for card in full_deck():
        assert bj.Hand.from_dict(bj.deal(hand, card).to_dict()).cards == (card,)
