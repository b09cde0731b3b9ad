"""Exact DN odds (issue 5) against every d20 face."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from bot.core import dn
from bot.core.dn import SuccessLevel
from bot.core.errors import RuleError
from bot.core.odds.dn import LEVELS_WORST_FIRST, dn_odds


@pytest.mark.parametrize("number", range(dn.DN_RANGE[0], dn.DN_RANGE[1] + 1))
def test_every_dn_matches_all_twenty_faces(number: int) -> None:
    # DN-4 and DN-5: the level of each face, exactly as the rule reads it.
    counts = Counter(dn.check(number, face).level for face in range(1, 21))
    odds = dn_odds(number)
    assert {lv: p for lv, p in odds.levels} == {lv: Fraction(counts[lv], 20) for lv in LEVELS_WORST_FIRST}
    assert sum(p for _, p in odds.levels) == 1
    assert odds.success == Fraction(sum(c for lv, c in counts.items() if lv.succeeded), 20)


def test_dn_15_example() -> None:
    # DN-5's example: 1 Critical, 2-3 Special, 4-5 High, 6-8 Medium, 9-15 Average, 16-19 failure, 20 cf.
    odds = dn_odds(15)
    assert odds.probability(SuccessLevel.CRITICAL) == Fraction(1, 20)
    assert odds.probability(SuccessLevel.SPECIAL) == Fraction(2, 20)
    assert odds.probability(SuccessLevel.AVERAGE) == Fraction(7, 20)
    assert odds.critical_failure == Fraction(1, 20)
    assert odds.at_least(SuccessLevel.SPECIAL) == Fraction(3, 20)
    assert odds.success == Fraction(15, 20)


def test_natural_20_is_ordinary_above_dn_20() -> None:
    # DN-4: DN >= 21 makes a natural 20 an ordinary (successful) roll.
    assert dn_odds(21).critical_failure == 0
    assert dn_odds(21).success == 1
    assert dn_odds(0).success == 0  # DN-4: a DN of 0 or less cannot succeed


def test_skill_and_non_skill_inputs_just_give_a_dn() -> None:
    # DN-1, DN-2: the odds take the DN those rules produce.
    assert dn_odds(dn.skill_dn(5, [12, 13], -2)) == dn_odds(15)
    assert dn_odds(dn.non_skill_dn(10, "1.5", 0)) == dn_odds(15)
    with pytest.raises(RuleError):
        dn_odds(99)
