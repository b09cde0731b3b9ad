"""Exact odds of decision dice (DD-1, DD-2, DD-5, DD-7, DD-8) from ``bot.core.decision``'s rule functions."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from bot.core import decision as rules
from bot.core.decision import DiceMode, SupplyDie
from bot.core.errors import RuleError, require_int
from bot.core.odds.contest import ContestOdds, highest_wins
from bot.core.odds.distribution import Distribution

__all__ = [
    "DecisionOdds",
    "SupplyOdds",
    "contested_odds",
    "percent_chance",
    "roll_odds",
    "supply_odds",
    "total_distribution",
]

SUPPLY_LADDER: tuple[SupplyDie, ...] = tuple(d for d in SupplyDie if d is not SupplyDie.EMPTY)


@cache
def _dice_counts(mode: DiceMode) -> dict[int, int]:
    """Dice totals over every ordered roll of the mode's d6s, read off ``decision.roll`` (DD-1, DD-2)."""
    counts: dict[int, int] = {}
    flags = {
        DiceMode.NORMAL: (False, False),
        DiceMode.ADVANTAGE: (True, False),
        DiceMode.DISADVANTAGE: (False, True),
    }[mode]
    for dice in itertools.product(range(1, 7), repeat=mode.count):
        total = rules.roll(dice, 0, 0, rules.TARGET_MIN, advantage=flags[0], disadvantage=flags[1]).dice_total
        counts[total] = counts.get(total, 0) + 1
    return counts


def _mode(advantage: bool, disadvantage: bool) -> DiceMode:
    return rules.dice_mode(advantage, disadvantage)


def total_distribution(
    modifier: int = 0, *, advantage: bool = False, disadvantage: bool = False
) -> Distribution[int]:
    """DD-1/DD-2: the distribution of decision dice + ``modifier`` (stat plus modifiers)."""
    modifier = require_int(modifier, "A decision-dice modifier")
    mode = _mode(advantage, disadvantage)
    counts = _dice_counts(mode)
    return Distribution.from_counts({t + modifier: c for t, c in counts.items()}, 6**mode.count)


@dataclass(frozen=True)
class DecisionOdds:
    """A decision roll's totals, its target and P(total >= target) (DD-1: a tie succeeds)."""

    mode: DiceMode
    distribution: Distribution[int]
    target: int
    success: Fraction

    def at_least(self, total: int) -> Fraction:
        """P(a total of at least this)."""
        return self.distribution.at_least(total)


def roll_odds(
    stat: int,
    modifiers: int | Iterable[int],
    target: int | str,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
) -> DecisionOdds:
    """DD-1/DD-2/DD-4: the same inputs as ``decision.roll``; the chance the total reaches the target."""
    # Validate exactly as the rule does, with a legal roll of the right number of dice.
    mode = _mode(advantage, disadvantage)
    probe = rules.roll(
        (1,) * mode.count, stat, modifiers, target, advantage=advantage, disadvantage=disadvantage
    )
    offset = probe.stat + probe.modifier_total
    distribution = total_distribution(offset, advantage=advantage, disadvantage=disadvantage)
    return DecisionOdds(
        mode=mode,
        distribution=distribution,
        target=probe.target,
        success=distribution.at_least(probe.target),
    )


def contested_odds(modifiers: Sequence[int], modes: Sequence[DiceMode] | None = None) -> ContestOdds:
    """DD-5: each party's chance to win a contested roll (ties re-roll among the tied), and the margin.

    ``modifiers[i]`` is party i's stat plus modifiers; ``modes[i]`` its dice (default 2d6 each).
    ``outcomes`` is over (winner's index, winner's total - best other total of the final round).
    """
    if isinstance(modifiers, str) or not isinstance(modifiers, Sequence):
        raise RuleError("A contest's odds take each party's modifier as a list.")
    chosen = list(modes) if modes is not None else [DiceMode.NORMAL] * len(modifiers)
    if len(chosen) != len(modifiers):
        raise RuleError("A contest's odds need one dice mode per party.")
    parties = []
    for modifier, mode in zip(modifiers, chosen, strict=True):
        if not isinstance(mode, DiceMode):
            raise RuleError(f"{mode!r} is not a dice mode.")
        shift = require_int(modifier, "A contest modifier")
        parties.append(({t + shift: c for t, c in _dice_counts(mode).items()}, 6**mode.count))
    return highest_wins(parties)


def percent_chance(chance: int) -> Fraction:
    """DD-8: P(d100 <= chance), read off ``decision.percent``."""
    return Fraction(sum(1 for face in range(1, 101) if rules.percent(face, chance).success), 100)


# --------------------------------------------------------------------------------------------------
# DD-7: supply dice


def _step_chance(die: SupplyDie) -> Fraction:
    """P(one roll of this die steps it down), read off ``decision.supply_roll``."""
    steps = sum(1 for face in range(1, die.sides + 1) if rules.supply_roll(die, face).stepped_down)
    return Fraction(steps, die.sides)


@dataclass(frozen=True)
class SupplyOdds:
    """A supply die's future: expected rolls until empty, and P(empty after exactly n rolls) for n <= cap."""

    die: SupplyDie
    expected_uses: Fraction  # rolls until empty, counting the roll that empties it
    uses: tuple[Fraction, ...]  # uses[n-1] = P(exactly n rolls empty it)
    beyond_cap: Fraction  # P(still not empty after ``cap`` rolls)
    expected_by_die: tuple[tuple[SupplyDie, Fraction], ...]  # expected rolls spent on each size, from here

    @property
    def cap(self) -> int:
        """How many rolls ahead ``uses`` goes."""
        return len(self.uses)

    def at_least(self, n: int) -> Fraction:
        """P(the item lasts at least n rolls), i.e. it is not empty after n - 1 rolls."""
        if n <= 1:
            return Fraction(1)
        if n - 1 > self.cap:
            raise RuleError(f"Supply odds go {self.cap} rolls ahead, not {n - 1}.")
        return 1 - sum(self.uses[: n - 1], Fraction(0))


def supply_odds(die: SupplyDie, cap: int = 60) -> SupplyOdds:
    """DD-7: rolls until the item is empty from this die: the expectation, and the distribution to ``cap``."""
    if not isinstance(die, SupplyDie):
        raise RuleError(f"{die!r} is not a supply die.")
    cap = require_int(cap, "The number of rolls ahead")
    if not 1 <= cap <= 1000:
        raise RuleError(f"Supply odds go 1 to 1000 rolls ahead, not {cap}.")
    ladder = [] if die is SupplyDie.EMPTY else list(SUPPLY_LADDER[SUPPLY_LADDER.index(die) :])
    # Each size is a geometric wait; the rolls until empty are their sum (convolution up to the cap).
    distribution = [Fraction(0)] * (cap + 1)  # distribution[n] = P(n rolls so far), n <= cap
    distribution[0] = Fraction(1)
    expected_by_die: list[tuple[SupplyDie, Fraction]] = []
    for size in ladder:
        p = _step_chance(size)
        expected_by_die.append((size, 1 / p))
        # nxt[m] = p * sum_{n<m} old[n] (1-p)^(m-1-n), accumulated in one pass.
        nxt = [Fraction(0)] * (cap + 1)
        waiting = Fraction(0)
        for m in range(1, cap + 1):
            waiting = waiting * (1 - p) + distribution[m - 1]
            nxt[m] = p * waiting
        distribution = nxt
    uses = tuple(distribution[1:]) if ladder else (Fraction(0),) * cap
    reached = sum(uses, Fraction(0)) if ladder else Fraction(0)
    return SupplyOdds(
        die=die,
        expected_uses=sum((e for _, e in expected_by_die), Fraction(0)),
        uses=uses,
        beyond_cap=1 - reached if ladder else Fraction(0),
        expected_by_die=tuple(expected_by_die),
    )
