"""Difficulty Number (RULES.md DN-1..DN-5)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.core.common import Verdict
from bot.core.dn import (
    Complexity,
    SuccessLevel,
    check,
    describe_levels,
    level_ranges,
    natural_ability,
    non_skill_dn,
    round_half_up,
    skill_dn,
    thresholds,
)
from bot.core.errors import RuleError

# --------------------------------------------------------------------------------------- DN-1 .. DN-3


def test_skill_dn_is_level_plus_ability_plus_df() -> None:
    # DN-1
    assert skill_dn(5, 12) == 17
    assert skill_dn(5, 12, -3) == 14
    assert skill_dn(0, 1) == 1
    assert skill_dn(30, 30, 5) == 65


def test_natural_ability_averages_and_rounds_down() -> None:
    # DN-1: the average of several characteristics, rounded down
    assert natural_ability([11, 12, 14]) == 12  # 37 / 3 = 12.33
    assert natural_ability([11, 12]) == 11  # 11.5
    assert natural_ability((15,)) == 15
    assert natural_ability(9) == 9
    assert skill_dn(4, [11, 12, 14], 2) == 18


@pytest.mark.parametrize(
    ("level", "ability", "df"),
    [
        (-1, 10, 0),
        (31, 10, 0),
        (5, 0, 0),
        (5, 31, 0),
        (5, [], 0),
        (5, [10, 40], 0),
        (5, [10] * 11, 0),
        (5, "12", 0),
        ("5", 12, 0),
        (5.0, 12, 0),
        (5, 12, 9),
        (5, 12, -11),
        (5, 12, 1.5),
    ],
)
def test_skill_dn_refuses_bad_inputs(level: object, ability: object, df: object) -> None:
    # DN-1 and DN-3 (a DF of +9 is refused)
    with pytest.raises(RuleError):
        skill_dn(level, ability, df)  # type: ignore[arg-type]


def test_non_skill_dn_floors_the_product() -> None:
    # DN-2: floor(characteristic x CF) + DF
    assert non_skill_dn(13, Complexity.HALF) == 6
    assert non_skill_dn(13, Complexity.SINGLE) == 13
    assert non_skill_dn(13, Complexity.ONE_AND_HALF) == 19
    assert non_skill_dn(13, Complexity.DOUBLE, -4) == 22
    assert non_skill_dn(1, 0.5, -10) == -10
    assert non_skill_dn(30, 2, 5) == 65
    for characteristic, complexity in itertools.product(range(1, 31), Complexity):
        assert non_skill_dn(characteristic, complexity) == (characteristic * complexity.factor.numerator) // (
            complexity.factor.denominator
        )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (0.5, Complexity.HALF),
        ("1/2", Complexity.HALF),
        ("x0.5", Complexity.HALF),
        (1, Complexity.SINGLE),
        ("X1", Complexity.SINGLE),
        (Fraction(3, 2), Complexity.ONE_AND_HALF),
        (" 1.5 ", Complexity.ONE_AND_HALF),
        (2.0, Complexity.DOUBLE),
        (Complexity.DOUBLE, Complexity.DOUBLE),
    ],
)
def test_complexity_parse(text: object, expected: Complexity) -> None:
    # DN-2: CF in {0.5, 1, 1.5, 2}
    assert Complexity.parse(text) is expected


def test_complexity_labels() -> None:
    assert [c.label for c in Complexity] == ["x0.5", "x1", "x1.5", "x2"]


@pytest.mark.parametrize("bad", [0.75, 3, 0, "abc", "", True, None, float("nan"), float("inf"), "1/0", [1]])
def test_other_complexities_are_refused(bad: object) -> None:
    # DN-2
    with pytest.raises(RuleError):
        non_skill_dn(12, bad)  # type: ignore[arg-type]


def test_df_range() -> None:
    # DN-3: DF lies in -10..+5, default 0
    assert [skill_dn(5, 10, df) for df in (-10, 0, 5)] == [5, 15, 20]
    assert skill_dn(5, 10) == 15 and non_skill_dn(10, 1) == 10
    for bad in (-11, 6, 9):
        with pytest.raises(RuleError):
            skill_dn(5, 10, bad)
        with pytest.raises(RuleError):
            non_skill_dn(10, 1, bad)


# ------------------------------------------------------------------------------------------ DN-4, DN-5


def oracle_rnd(numerator: int, denominator: int) -> int:
    """Round half up of numerator/denominator with integers only."""
    return (2 * numerator + denominator) // (2 * denominator)


def oracle_level(dn: int, roll: int) -> str:
    """DN-4 and DN-5 restated independently of the module."""
    if roll == 20 and dn <= 20:
        return "critical failure"
    if dn <= 0 or roll > dn:
        return "failure"
    for name, limit in (
        ("Critical", max(1, oracle_rnd(dn, 20))),
        ("Special", oracle_rnd(dn, 5)),
        ("High", oracle_rnd(dn, 3)),
        ("Medium", oracle_rnd(dn, 2)),
    ):
        if roll <= limit:
            return name
    return "Average"


def test_every_dn_and_roll() -> None:
    # DN-4 and DN-5: every DN in -5..30 against every d20 face.
    for dn, roll in itertools.product(range(-5, 31), range(1, 21)):
        result = check(dn, roll)
        want = oracle_level(dn, roll)
        assert result.level.value == want, (dn, roll)
        assert result.margin == dn - roll
        assert (result.dn, result.natural_roll) == (dn, roll)
        assert result.succeeded == (want not in ("failure", "critical failure"))
        expected_verdict = {
            "Critical": Verdict.CRITICAL_SUCCESS,
            "critical failure": Verdict.CRITICAL_FAILURE,
            "failure": Verdict.FAILURE,
        }.get(want, Verdict.SUCCESS)
        assert result.verdict is expected_verdict


def test_dn_5_worked_example() -> None:
    # DN-5's worked example for DN 15.
    expected = (
        ["Critical"] + ["Special"] * 2 + ["High"] * 2 + ["Medium"] * 3 + ["Average"] * 7 + ["failure"] * 4
    ) + ["critical failure"]
    assert [check(15, roll).level.value for roll in range(1, 21)] == expected
    assert describe_levels(15) == (
        "1 Critical, 2-3 Special, 4-5 High, 6-8 Medium, 9-15 Average, 16-19 failure, 20 critical failure"
    )
    limits = thresholds(15)
    assert (limits.critical, limits.special, limits.high, limits.medium, limits.average) == (1, 3, 5, 8, 15)


def test_natural_twenty_is_a_critical_failure_only_up_to_dn_20() -> None:
    # DN-4
    assert check(20, 20).level is SuccessLevel.CRITICAL_FAILURE
    assert check(1, 20).level is SuccessLevel.CRITICAL_FAILURE
    assert check(-3, 20).level is SuccessLevel.CRITICAL_FAILURE
    twenty_one = check(21, 20)
    assert twenty_one.succeeded and twenty_one.level is SuccessLevel.AVERAGE and twenty_one.margin == 1
    assert check(40, 20).level is SuccessLevel.MEDIUM  # rnd(40/2) = 20


def test_dn_zero_or_less_never_succeeds() -> None:
    # DN-4
    for dn, roll in itertools.product(range(-10, 1), range(1, 21)):
        assert not check(dn, roll).succeeded


def test_round_half_up() -> None:
    # DN-5's rnd rounds halves up
    assert round_half_up(Fraction(5, 2)) == 3
    assert round_half_up(Fraction(15, 2)) == 8
    assert round_half_up(Fraction(3, 4)) == 1
    assert round_half_up(Fraction(1, 4)) == 0
    assert round_half_up(Fraction(7, 3)) == 2


def test_critical_is_at_least_one() -> None:
    # DN-5: Critical if roll <= max(1, rnd(DN/20)): a roll of 1 under any positive DN is Critical.
    for dn in range(1, 66):
        assert check(dn, 1).level is SuccessLevel.CRITICAL
    assert describe_levels(1) == "1 Critical, 2-19 failure, 20 critical failure"


def test_level_ranges_cover_the_d20() -> None:
    # DN-5: the printed table covers 1..20 once, in order, and agrees with check().
    for dn in range(-10, 66):
        ranges = level_ranges(dn)
        faces = [roll for _, low, high in ranges for roll in range(low, high + 1)]
        assert faces == list(range(1, 21))
        for level, low, high in ranges:
            assert all(check(dn, roll).level is level for roll in range(low, high + 1))
    assert describe_levels(0) == "1-19 failure, 20 critical failure"
    assert describe_levels(40) == "1-2 Critical, 3-8 Special, 9-13 High, 14-20 Medium"


@pytest.mark.parametrize(
    ("dn", "roll"), [(15, 21), (15, 0), (15, "3"), (15, 3.0), (66, 5), (-11, 5), ("15", 5)]
)
def test_check_refuses_bad_inputs(dn: object, roll: object) -> None:
    # DN-4: a d20 of 21 or a DN no rule can give is refused.
    with pytest.raises(RuleError):
        check(dn, roll)  # type: ignore[arg-type]


LEVEL_ORDER = [
    SuccessLevel.CRITICAL_FAILURE,
    SuccessLevel.FAILURE,
    SuccessLevel.AVERAGE,
    SuccessLevel.MEDIUM,
    SuccessLevel.HIGH,
    SuccessLevel.SPECIAL,
    SuccessLevel.CRITICAL,
]


@given(st.integers(-10, 64), st.integers(1, 19))
def test_lower_roll_or_higher_dn_is_never_worse(dn: int, roll: int) -> None:
    # DN-4/DN-5: below 20, a lower roll or a higher DN never gives a worse level.
    level = LEVEL_ORDER.index(check(dn, roll).level)
    if roll > 1:
        assert LEVEL_ORDER.index(check(dn, roll - 1).level) >= level
    assert LEVEL_ORDER.index(check(dn + 1, roll).level) >= level
