"""Difficulty Number: roll a d20 at or under the DN (RULES.md DN-1..DN-5).

Public API
----------
``natural_ability(characteristics)`` -> int: one characteristic, or the average of several rounded down.
``skill_dn(skill_level, ability, df=0)`` -> int (DN-1, DN-3); ``ability`` is one characteristic or a
    list of characteristics.
``Complexity`` (HALF, SINGLE, ONE_AND_HALF, DOUBLE; ``.factor`` a Fraction; ``Complexity.parse``) and
    ``non_skill_dn(characteristic, complexity, df=0)`` -> int (DN-2, DN-3).
``check(dn, natural_roll)`` -> ``DnCheck`` (DN-4, DN-5): level, margin ``DN - roll``, succeeded, verdict.
``SuccessLevel`` (CRITICAL, SPECIAL, HIGH, MEDIUM, AVERAGE, FAILURE, CRITICAL_FAILURE).
``thresholds(dn)`` -> ``Thresholds`` (DN-5's cut-offs), ``level_ranges(dn)`` -> the d20 faces of each
    level in order, ``describe_levels(dn)`` -> e.g. "1 Critical, 2-3 Special, ..., 20 critical failure".
``round_half_up(fraction)`` -> int (DN-5's ``rnd``).

Input ranges (anything else raises ``RuleError``): characteristic 1..30, skill level 0..30, 1..10
characteristics for an average, DF -10..+5, complexity one of 0.5, 1, 1.5, 2, and a DN for a check
-10..65 (exactly what DN-1..DN-3 can produce from those inputs), natural roll 1..20.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from bot.core.common import Verdict
from bot.core.dice import check_die
from bot.core.errors import RuleError, require_range

__all__ = [
    "CHARACTERISTIC_RANGE",
    "DF_RANGE",
    "DN_RANGE",
    "SKILL_LEVEL_RANGE",
    "Complexity",
    "DnCheck",
    "SuccessLevel",
    "Thresholds",
    "check",
    "describe_levels",
    "level_ranges",
    "natural_ability",
    "non_skill_dn",
    "round_half_up",
    "skill_dn",
    "thresholds",
]

CHARACTERISTIC_RANGE = (1, 30)
SKILL_LEVEL_RANGE = (0, 30)
DF_RANGE = (-10, 5)  # DN-3
MAX_CHARACTERISTICS = 10
# The lowest DN is 1 x 0.5 floored (0) - 10; the highest 30 + 30 + 5 or 30 x 2 + 5.
DN_RANGE = (-10, 65)
CRITICAL_FAILURE_MAX_DN = 20  # DN-4: a natural 20 is a critical failure only up to this DN


class SuccessLevel(Enum):
    """The outcome of a DN check, best first; the value is the table's word."""

    CRITICAL = "Critical"
    SPECIAL = "Special"
    HIGH = "High"
    MEDIUM = "Medium"
    AVERAGE = "Average"
    FAILURE = "failure"
    CRITICAL_FAILURE = "critical failure"

    @property
    def succeeded(self) -> bool:
        """True for the five success levels."""
        return self not in (SuccessLevel.FAILURE, SuccessLevel.CRITICAL_FAILURE)

    @property
    def verdict(self) -> Verdict:
        """Critical is a critical success, a natural-20 fumble a critical failure."""
        if self is SuccessLevel.CRITICAL:
            return Verdict.CRITICAL_SUCCESS
        if self is SuccessLevel.CRITICAL_FAILURE:
            return Verdict.CRITICAL_FAILURE
        return Verdict.SUCCESS if self.succeeded else Verdict.FAILURE


class Complexity(Enum):
    """DN-2's complexity factor."""

    HALF = Fraction(1, 2)
    SINGLE = Fraction(1)
    ONE_AND_HALF = Fraction(3, 2)
    DOUBLE = Fraction(2)

    @property
    def factor(self) -> Fraction:
        """The multiplier as an exact fraction."""
        value: Fraction = self.value
        return value

    @property
    def label(self) -> str:
        """``x0.5``, ``x1``, ``x1.5`` or ``x2``."""
        return "x" + (str(int(self.factor)) if self.factor.denominator == 1 else str(float(self.factor)))

    @classmethod
    def parse(cls, value: object) -> Complexity:
        """A Complexity from itself, a number (0.5, 1, 1.5, 2) or text ("1.5", "x1.5", "1/2")."""
        if isinstance(value, Complexity):
            return value
        try:
            if isinstance(value, bool):
                raise TypeError
            if isinstance(value, str):
                number = Fraction(value.strip().lower().removeprefix("x").strip())
            elif isinstance(value, int | float | Fraction):
                number = Fraction(value)
            else:
                raise TypeError
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            number = None
        for member in cls:
            if member.factor == number:
                return member
        raise RuleError(f"The complexity factor is x0.5, x1, x1.5 or x2, not {value!r}.")


def round_half_up(value: Fraction) -> int:
    """DN-5's ``rnd``: the nearest whole number, halves rounded up."""
    return math.floor(value + Fraction(1, 2))


def _df(df: object) -> int:
    return require_range(df, *DF_RANGE, "The Difficulty Factor (DF)")


def natural_ability(characteristics: int | Sequence[int]) -> int:
    """DN-1: one characteristic, or the average of several rounded down."""
    if isinstance(characteristics, Sequence) and not isinstance(characteristics, str):
        values = list(characteristics)
        if not 1 <= len(values) <= MAX_CHARACTERISTICS:
            raise RuleError(
                f"Natural ability averages 1 to {MAX_CHARACTERISTICS} characteristics, not {len(values)}."
            )
        checked = [require_range(v, *CHARACTERISTIC_RANGE, "A characteristic") for v in values]
        return sum(checked) // len(checked)
    return require_range(characteristics, *CHARACTERISTIC_RANGE, "A characteristic")


def skill_dn(skill_level: int, ability: int | Sequence[int], df: int = 0) -> int:
    """DN-1: skill level + natural ability + DF."""
    level = require_range(skill_level, *SKILL_LEVEL_RANGE, "A skill level")
    return level + natural_ability(ability) + _df(df)


def non_skill_dn(characteristic: int, complexity: Complexity | Fraction | float | str, df: int = 0) -> int:
    """DN-2: floor(characteristic x complexity factor) + DF."""
    value = require_range(characteristic, *CHARACTERISTIC_RANGE, "A characteristic")
    factor = Complexity.parse(complexity).factor
    return math.floor(value * factor) + _df(df)


@dataclass(frozen=True)
class Thresholds:
    """DN-5's cut-offs: a roll at or under each is at least that level (before DN-4's natural 20)."""

    dn: int
    critical: int  # max(1, rnd(DN/20))
    special: int  # rnd(DN/5)
    high: int  # rnd(DN/3)
    medium: int  # rnd(DN/2)
    average: int  # DN itself


def _dn(dn: object) -> int:
    return require_range(dn, *DN_RANGE, "A Difficulty Number")


def thresholds(dn: int) -> Thresholds:
    """DN-5's cut-offs for a DN (round half up)."""
    dn = _dn(dn)
    return Thresholds(
        dn=dn,
        critical=max(1, round_half_up(Fraction(dn, 20))),
        special=round_half_up(Fraction(dn, 5)),
        high=round_half_up(Fraction(dn, 3)),
        medium=round_half_up(Fraction(dn, 2)),
        average=dn,
    )


def _level(limits: Thresholds, roll: int) -> SuccessLevel:
    dn = limits.dn
    if roll == 20 and dn <= CRITICAL_FAILURE_MAX_DN:
        return SuccessLevel.CRITICAL_FAILURE
    if dn <= 0 or roll > dn:
        return SuccessLevel.FAILURE
    if roll <= limits.critical:
        return SuccessLevel.CRITICAL
    if roll <= limits.special:
        return SuccessLevel.SPECIAL
    if roll <= limits.high:
        return SuccessLevel.HIGH
    if roll <= limits.medium:
        return SuccessLevel.MEDIUM
    return SuccessLevel.AVERAGE


@dataclass(frozen=True)
class DnCheck:
    """A DN check: the DN, the d20, the level, the margin DN - roll, and the verdict."""

    dn: int
    natural_roll: int
    level: SuccessLevel
    margin: int
    succeeded: bool
    verdict: Verdict
    thresholds: Thresholds


def check(dn: int, natural_roll: int) -> DnCheck:
    """DN-4 and DN-5: one d20 against a DN."""
    limits = thresholds(dn)
    roll = check_die(natural_roll, 20, "The d20")
    level = _level(limits, roll)
    return DnCheck(
        dn=limits.dn,
        natural_roll=roll,
        level=level,
        margin=limits.dn - roll,
        succeeded=level.succeeded,
        verdict=level.verdict,
        thresholds=limits,
    )


def level_ranges(dn: int) -> tuple[tuple[SuccessLevel, int, int], ...]:
    """Each level a d20 can give at this DN with its faces ``(level, lowest, highest)``, roll 1 first."""
    limits = thresholds(dn)
    ranges: list[tuple[SuccessLevel, int, int]] = []
    for roll in range(1, 21):
        level = _level(limits, roll)
        if ranges and ranges[-1][0] is level:
            ranges[-1] = (level, ranges[-1][1], roll)
        else:
            ranges.append((level, roll, roll))
    return tuple(ranges)


def describe_levels(dn: int) -> str:
    """The d20 faces of each level in words, e.g. ``1 Critical, 2-3 Special, ..., 20 critical failure``."""
    return ", ".join(
        f"{low} {level.value}" if low == high else f"{low}-{high} {level.value}"
        for level, low, high in level_ranges(dn)
    )
