"""Exact odds of a Difficulty Number check (DN-4, DN-5), from ``bot.core.dn.check`` over the 20 faces."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bot.core import dn as rules
from bot.core.dn import SuccessLevel

__all__ = ["LEVELS_WORST_FIRST", "DnOdds", "dn_odds"]

# The order a chart and "this level or better" read in: critical failure first, Critical last.
LEVELS_WORST_FIRST: tuple[SuccessLevel, ...] = tuple(reversed(SuccessLevel))


@dataclass(frozen=True)
class DnOdds:
    """P(each success level) for one DN, worst first (zeros kept), and the headline chances."""

    dn: int
    levels: tuple[tuple[SuccessLevel, Fraction], ...]  # all seven levels, critical failure first
    success: Fraction
    critical_failure: Fraction

    def probability(self, level: SuccessLevel) -> Fraction:
        """P(exactly this level)."""
        return dict(self.levels)[level]

    def at_least(self, level: SuccessLevel) -> Fraction:
        """P(this level or better), e.g. "Special or better"."""
        rank = LEVELS_WORST_FIRST.index(level)
        return sum((p for lv, p in self.levels[rank:]), Fraction(0))

    def expected_margin(self) -> Fraction:
        """E[DN - roll] (DN-5's margin), over the 20 faces."""
        return Fraction(sum(self.dn - face for face in range(1, 21)), 20)


def dn_odds(dn: int) -> DnOdds:
    """DN-4/DN-5: the chance of every success level for a DN (skill or non-skill: just the DN)."""
    counts = dict.fromkeys(LEVELS_WORST_FIRST, 0)
    for face in range(1, 21):
        counts[rules.check(dn, face).level] += 1
    levels = tuple((level, Fraction(counts[level], 20)) for level in LEVELS_WORST_FIRST)
    return DnOdds(
        dn=dn,
        levels=levels,
        success=Fraction(sum(c for lv, c in counts.items() if lv.succeeded), 20),
        critical_failure=Fraction(counts[SuccessLevel.CRITICAL_FAILURE], 20),
    )
