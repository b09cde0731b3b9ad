"""Percentages and one-line summaries for result messages (issue 5)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from bot.core import blackjack as bj
from bot.core import rps
from bot.core.cards import Card, full_deck
from bot.core.decision import SupplyDie
from bot.core.dn import SuccessLevel
from bot.core.errors import RuleError
from bot.core.odds import cards, decision, dn, format, systemx
from bot.core.odds import rps as rps_odds
from bot.core.odds.distribution import Distribution
from bot.core.systemx import S2, MarginStyle
from bot.ui.odds import exact_chance


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (Fraction(0), "0%"),
        (Fraction(1), "100%"),
        (Fraction(9, 20), "45%"),
        (Fraction(1, 200), "1%"),  # half up
        (Fraction(1, 1000), "<1%"),
        (Fraction(999, 1000), ">99%"),
        (Fraction(1, 3), "33%"),
    ],
)
def test_percent(p: Fraction, text: str) -> None:
    assert format.percent(p) == text


def test_percent_with_decimals_and_bad_input() -> None:
    assert format.percent(Fraction(1, 3), 1) == "33.3%"
    assert format.percent(Fraction(1, 100000), 1) == "<0.1%"
    with pytest.raises(RuleError):
        format.percent(Fraction(3, 2))


def _percent_in_fractions(p: Fraction, digits: int) -> str:
    """The rounding `percent` does in integers, written out in Fractions (its first version)."""
    step = Fraction(1, 10**digits)
    rounded = math.floor(p * 100 / step + Fraction(1, 2)) * step
    if p > 0 and rounded == 0:
        return f"<{float(step):.{digits}f}%"
    if p < 1 and rounded == 100:
        return f">{float(100 - step):.{digits}f}%"
    return f"{float(rounded):.{digits}f}%"


def test_percent_rounds_every_fraction_as_the_fraction_sums_do() -> None:
    cases = [Fraction(k, d) for d in range(1, 121) for k in range(d + 1)]
    rng = random.Random(5)
    cases += [Fraction(rng.randint(0, d), d) for d in (rng.randint(1, 10**30) for _ in range(3000))]
    for p in cases:
        for digits in range(5):
            assert format.percent(p, digits) == _percent_in_fractions(p, digits), (p, digits)
    assert format.percent(1) == "100%" and format.percent(0, 2) == "0.00%"


def test_summaries_read_as_the_issue_asks() -> None:
    # SX-7: "45% to succeed; this S2 or better: 20%".
    odds = systemx.check_odds(15)
    text = format.systemx_summary(odds, S2)
    expected = (
        f"{format.percent(odds.success)} to succeed; this S2 or better: {format.percent(odds.at_least(S2))}"
    )
    assert text == expected
    assert "+2 or better" in format.systemx_summary(odds, S2, MarginStyle.SIGNED)
    assert "needs S2" in format.systemx_summary(systemx.check_odds(15, required=S2))
    assert "Special or better" in format.dn_summary(dn.dn_odds(15), SuccessLevel.SPECIAL)
    assert "critical failure" in format.dn_summary(dn.dn_odds(15), SuccessLevel.CRITICAL_FAILURE)
    assert "SL 4 or better" in format.rps_summary(rps_odds.check_odds(12), 4)
    assert "a total of 9 or more" in format.decision_summary(decision.roll_odds(0, 0, 8), 9)
    hand = cards.involuntary_odds(full_deck(), 2, 3)
    assert "TRL 3 or better" in format.cards_summary(hand, 3)
    root = bj.hit(bj.start_voluntary(2, 3), Card.parse("9S"))
    line = format.hand_decision_summary(cards.voluntary_decision(root, full_deck()[1:]))
    assert line.startswith("Stand ") and "best:" in line and "about" not in line
    # BJ-6 with BJ-9: a characteristic's suit still to show, both suit rules on: Hit's odds are an estimate
    estimated = bj.hit(bj.start_voluntary(2, 3, "Speed", 2), Card.parse("9S"))
    shoe = [c for c in full_deck()[:30] if c != Card.parse("9S")]
    line = format.hand_decision_summary(cards.voluntary_decision(estimated, shoe))
    assert "Hit about " in line and "(expected TRL about " in line and "Stand about" not in line
    assert "to complete" in format.sustained_summary(rps_odds.sustained_odds(rps.start_pool(10, 12, 5)))
    assert format.supply_summary(decision.supply_odds(SupplyDie.D4)) == "d4: about 1.3 more rolls until empty"


def test_an_estimated_hit_reads_about() -> None:  # BJ-9: several tracked suits with the suit rule
    several = bj.deal(
        bj.start_voluntary(2, 3, characteristics=[("Strength", 2), ("Dexterity", 3)]), Card.parse("7H")
    )
    estimate = cards.voluntary_decision(several, full_deck()[:20])
    assert not estimate.exact and estimate.hit is not None
    line = format.hand_decision_summary(estimate)
    hit = (
        f"Hit about {format.percent(estimate.hit.success)} "
        f"(expected TRL about {float(estimate.hit.expected_trl):.1f})"
    )
    assert hit in line
    assert line.count("about") == 2  # Stand and the adders are certain
    assert format.move_chance(estimate, estimate.hit) == f"about {format.percent(estimate.hit.success)}"
    untracked = bj.deal(bj.start_voluntary(2, 3), Card.parse("7H"))
    exact = cards.voluntary_decision(untracked, full_deck()[:20])
    assert exact.exact and "about" not in format.hand_decision_summary(exact)


def test_distribution_helpers() -> None:
    d = Distribution.from_counts({3: 1, 1: 2, 2: 1})
    assert d.support == (1, 2, 3)
    assert d.at_least(2) == Fraction(1, 2) and d.below(2) == Fraction(1, 2)
    assert d.expectation(lambda x: x) == Fraction(7, 4)
    assert d.map(lambda x: x % 2).probability(1) == Fraction(3, 4)
    with pytest.raises(RuleError):
        Distribution(((1, Fraction(1, 2)),))


def test_an_exact_chance_gives_its_fraction_unless_too_long_to_read() -> None:
    assert exact_chance(Fraction(9, 20)) == "Exactly 9/20 (45.00%) to succeed"
    assert exact_chance(Fraction(1), "to happen") == "Exactly 1 (100.00%) to happen"
    # six parties' d20s, or a sustained pool's rounds: a fraction no table reads; the percentage is finer
    long = Fraction(4_115_226_337_449, 10**13)
    assert exact_chance(long) == "Exactly 41.1523% to succeed"
