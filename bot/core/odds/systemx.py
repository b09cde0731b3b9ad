"""Exact odds of System X checks (SX-2..SX-10), built only from ``bot.core.systemx``'s rule functions.

A single check's margin distribution runs ``systemx.check`` over the 20 faces of the d20, so the odds can
never disagree with the rules. Opposed checks pair two distributions through ``systemx.opposed``;
combined checks fold pairwise distributions with ``systemx.combine_pair`` (never the 20^n rolls);
synergistic chains carry the margin's distribution from step to step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from bot.core.errors import RuleError
from bot.core.odds.distribution import Distribution
from bot.core.systemx import (
    CF,
    CS,
    S0,
    SV_MAX,
    SV_MIN,
    Margin,
    RollChart,
    SkillCheck,
    apply_wounds,
    check,
    combine_pair,
    flat,
    opposed,
    required_margin,
)

__all__ = [
    "MAX_COMBINED_ACTORS",
    "CheckOdds",
    "check_distribution",
    "check_odds",
    "combined_distribution",
    "flat_chance",
    "opposed_distribution",
    "success_chance",
    "synergy_distribution",
]

MAX_COMBINED_ACTORS = 6
MAX_SYNERGY_STEPS = 20  # systemx.synergy's own limit
FACES = range(1, 21)

# Per chart: the margin of each (SV, modified roll) cell as ``check`` gives it, and the margin counts of
# (effective SV, roll modifier) over the 20 faces built from those cells. The chart is kept in the
# entry, so its id cannot be reused while the entry lives.
_Tables = tuple[RollChart, dict[tuple[int, int], Margin], dict[tuple[int, int], dict[Margin, int]]]
_FACE_TABLES: dict[int, _Tables] = {}
_MAX_CHARTS = 32
# SX-3 decides every SV below 1 or above 30 alike, and SX-4 every modified roll below 1 or above 20,
# so one cell just past each end stands for all of them.
_SV_CELLS = (SV_MIN - 1, SV_MAX + 1)
_ROLL_CELLS = (0, 21)


def _chart(chart: RollChart | None) -> RollChart:
    if chart is None:
        return RollChart.model()
    if not isinstance(chart, RollChart):
        raise RuleError("System X odds need a roll chart.")
    return chart


def _tables(chart: RollChart) -> _Tables:
    entry = _FACE_TABLES.get(id(chart))
    if entry is None or entry[0] is not chart:
        if len(_FACE_TABLES) >= _MAX_CHARTS:
            _FACE_TABLES.clear()
        entry = (chart, {}, {})
        _FACE_TABLES[id(chart)] = entry
    return entry


def _faces(chart: RollChart, effective_sv: int, roll_modifier: int) -> dict[Margin, int]:
    """Margin counts over the 20 faces for an SV already modified and capped (SX-3..SX-5)."""
    _, cells, faces = _tables(chart)
    key = (effective_sv, roll_modifier)
    counts = faces.get(key)
    if counts is None:
        sv = min(max(effective_sv, _SV_CELLS[0]), _SV_CELLS[1])
        counts = {}
        for face in FACES:
            modified = min(max(face + roll_modifier, _ROLL_CELLS[0]), _ROLL_CELLS[1])
            margin = cells.get((sv, modified))
            if margin is None:
                # The rule itself, at natural 1 with the modifier that gives this modified roll.
                margin = check(chart, sv, 1, roll_modifier=modified - 1).margin
                cells[(sv, modified)] = margin
            counts[margin] = counts.get(margin, 0) + 1
        faces[key] = counts
    return counts


def check_distribution(
    sv: int,
    *,
    roll_modifier: int = 0,
    sv_modifier: int = 0,
    wounds: tuple[int, int] | None = None,
    chart: RollChart | None = None,
) -> Distribution[Margin]:
    """The margin of one check over the 20 faces of the d20 (SX-2..SX-5), worst margin first."""
    chart = _chart(chart)
    counts: dict[Margin, int] = {}
    for face in FACES:
        margin = check(
            chart, sv, face, roll_modifier=roll_modifier, sv_modifier=sv_modifier, wounds=wounds
        ).margin
        counts[margin] = counts.get(margin, 0) + 1
    return Distribution.from_counts(counts, 20)


def success_chance(distribution: Distribution[Margin], required: Margin | str = S0) -> Fraction:
    """SX-7: P(margin >= required), e.g. P(success) at S0 or "this S2 or better" at S2."""
    return distribution.at_least(required_margin(required))


@dataclass(frozen=True)
class CheckOdds:
    """One check's odds: its margin distribution, the required margin and the headline chances."""

    distribution: Distribution[Margin]
    required: Margin
    success: Fraction  # P(margin >= required), SX-7
    critical_success: Fraction  # P(CS)
    critical_failure: Fraction  # P(CF)

    def at_least(self, margin: Margin | str) -> Fraction:
        """P(this margin or better)."""
        return self.distribution.at_least(required_margin(margin))


def check_odds(
    sv: int,
    *,
    roll_modifier: int = 0,
    sv_modifier: int = 0,
    wounds: tuple[int, int] | None = None,
    required: Margin | str = S0,
    chart: RollChart | None = None,
) -> CheckOdds:
    """One check's distribution and its chance to meet ``required`` (SX-2..SX-5, SX-7)."""
    distribution = check_distribution(
        sv, roll_modifier=roll_modifier, sv_modifier=sv_modifier, wounds=wounds, chart=chart
    )
    needed = required_margin(required)
    return CheckOdds(
        distribution=distribution,
        required=needed,
        success=distribution.at_least(needed),
        critical_success=distribution.probability(CS),
        critical_failure=distribution.probability(CF),
    )


def _margins(distribution: object, name: str) -> Distribution[Margin]:
    if not isinstance(distribution, Distribution) or not all(
        isinstance(o, Margin) for o in distribution.support
    ):
        raise RuleError(f"{name} must be a margin distribution (from check_distribution).")
    return distribution


def opposed_distribution(actor: Distribution[Margin], target: Distribution[Margin]) -> Distribution[Margin]:
    """SX-8: the actor's final margin when both sides roll their own d20."""
    actor = _margins(actor, "The actor's odds")
    target = _margins(target, "The target's odds")
    merged: dict[Margin, Fraction] = {}
    for a, pa in actor:
        for t, pt in target:
            margin = opposed(a, t)
            merged[margin] = merged.get(margin, Fraction(0)) + pa * pt
    return Distribution.from_probabilities(merged)


_pair = cache(combine_pair)


def combined_distribution(actors: Sequence[Distribution[Margin]]) -> Distribution[Margin]:
    """SX-9: fold ``combine_pair`` left over 2..6 actors' distributions, in the order given."""
    if isinstance(actors, str) or not isinstance(actors, Sequence):
        raise RuleError("A combined check's odds take the actors' distributions as a list.")
    if not 2 <= len(actors) <= MAX_COMBINED_ACTORS:
        raise RuleError(f"A combined check's odds take 2 to {MAX_COMBINED_ACTORS} actors, not {len(actors)}.")
    dists = [_margins(d, "Each actor's odds") for d in actors]
    # Exact integer weights over a common denominator keep each fold to integer products.
    first = dists[0]
    den0 = _common_denominator(first)
    running = {m: int(p * den0) for m, p in first}
    denominator = den0
    for dist in dists[1:]:
        den = _common_denominator(dist)
        weights = [(m, int(p * den)) for m, p in dist]
        folded: dict[Margin, int] = {}
        for a, wa in running.items():
            for b, wb in weights:
                margin = _pair(a, b)
                folded[margin] = folded.get(margin, 0) + wa * wb
        running = folded
        denominator *= den
    return Distribution.from_counts(running, denominator)


def _common_denominator(dist: Distribution[Margin]) -> int:
    lcm = 1
    for _, p in dist:
        d = p.denominator
        lcm = lcm * d // _gcd(lcm, d)
    return lcm


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def synergy_distribution(
    steps: Sequence[SkillCheck], *, chart: RollChart | None = None
) -> Distribution[Margin]:
    """SX-10: the chain's final margin; each step's SV gains the previous margin (CS +10, CF -10)."""
    chart = _chart(chart)
    if isinstance(steps, str) or not isinstance(steps, Sequence):
        raise RuleError("A synergistic check's odds take a list of skill checks.")
    if not 2 <= len(steps) <= MAX_SYNERGY_STEPS:
        raise RuleError(
            f"A synergistic check chains 2 to {MAX_SYNERGY_STEPS} skill checks, not {len(steps)}."
        )
    # The carried value (not the margin) is all a step passes on: S0 and F0 both carry +0.
    carried: dict[int, int] = {0: 1}
    last: dict[Margin, int] = {}
    denominator = 1
    for index, step in enumerate(steps):
        if not isinstance(step, SkillCheck):
            raise RuleError("Each step of a synergistic check must be a SkillCheck.")
        final = index == len(steps) - 1
        next_carried: dict[int, int] = {}
        last = {}
        for value, weight in carried.items():
            # The same SV the rule computes: sv + (sv_modifier + carried), then the wound cap (SX-2).
            effective = apply_wounds(step.sv + step.sv_modifier + value, step.wounds)
            for margin, count in _faces(chart, effective, step.roll_modifier).items():
                if final:
                    last[margin] = last.get(margin, 0) + weight * count
                else:
                    next_carried[margin.value] = next_carried.get(margin.value, 0) + weight * count
        carried = next_carried
        denominator *= 20
    return Distribution.from_counts(last, denominator)


def flat_chance(value: int) -> Fraction:
    """SX-11: P(a d20 rolls strictly under ``value``)."""
    return Fraction(sum(1 for face in FACES if flat(face, value).happened), 20)
