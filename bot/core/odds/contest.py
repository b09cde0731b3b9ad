"""Highest score wins, parties tied for the highest roll again (RPS-7, DD-5), solved exactly.

A round with parties S either has one highest party (the contest ends) or a tied set T: the parties of T
roll again alone. T = S repeats the same round, a geometric series whose sum is 1 / (1 - P(T = S)); a
smaller T is a new round with fewer parties. Sets only shrink, so processing them from largest to
smallest adds up every path exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from bot.core.errors import RuleError
from bot.core.odds.distribution import Distribution

__all__ = ["MAX_PARTIES", "ContestOdds", "highest_wins"]

MAX_PARTIES = 8


@dataclass(frozen=True)
class ContestOdds:
    """Who wins and by how much: ``outcomes`` is over (winner's index, winner - final round's runner-up)."""

    win: tuple[Fraction, ...]  # P(party i wins), in the parties' order
    outcomes: Distribution[tuple[int, int]]

    def margin(self) -> Distribution[int]:
        """The winning margin, whoever wins."""
        return self.outcomes.map(lambda o: o[1])

    def margin_if_wins(self, party: int) -> Distribution[int]:
        """The winning margin given that ``party`` wins (RuleError when it cannot win)."""
        chance = self.win[party]
        if chance == 0:
            raise RuleError("That party cannot win this contest.")
        return Distribution.from_probabilities({m: p / chance for (i, m), p in self.outcomes if i == party})


def _cdf_below(counts: Mapping[int, int], levels: Sequence[int]) -> dict[int, int]:
    """For each level, the count of scores strictly below it."""
    out: dict[int, int] = {}
    for level in levels:
        out[level] = sum(c for s, c in counts.items() if s < level)
    return out


def highest_wins(parties: Sequence[tuple[Mapping[int, int], int]]) -> ContestOdds:
    """Exact odds of a contest: each party is (score -> integer count, total count) for one round."""
    n = len(parties)
    if not 2 <= n <= MAX_PARTIES:
        raise RuleError(f"A contest's odds take 2 to {MAX_PARTIES} parties, not {n}.")
    counts = [dict(c) for c, _ in parties]
    totals = [t for _, t in parties]
    levels = sorted({s for c in counts for s in c})
    below = [_cdf_below(c, levels) for c in counts]
    at_most = [{lv: below[j][lv] + counts[j].get(lv, 0) for lv in levels} for j in range(n)]

    reach: dict[frozenset[int], Fraction] = {frozenset(range(n)): Fraction(1)}
    outcomes: dict[tuple[int, int], Fraction] = {}
    for size in range(n, 1, -1):
        for members in combinations(range(n), size):
            active = frozenset(members)
            mass = reach.get(active)
            if not mass:
                continue
            denominator = 1
            for j in members:
                denominator *= totals[j]
            direct: dict[tuple[int, int], int] = {}
            for i in members:
                others = [j for j in members if j != i]
                # P(max of the others == m) as integer counts: differences of the product of CDFs.
                previous = 0
                max_of_others: list[tuple[int, int]] = []
                for lv in levels:
                    product = 1
                    for j in others:
                        product *= at_most[j][lv]
                    if product != previous:
                        max_of_others.append((lv, product - previous))
                        previous = product
                for score, count in counts[i].items():
                    for runner_up, weight in max_of_others:
                        if runner_up >= score:
                            break
                        key = (i, score - runner_up)
                        direct[key] = direct.get(key, 0) + count * weight
            ties: dict[frozenset[int], int] = {}
            for lv in levels:
                at_level = [j for j in members if counts[j].get(lv, 0)]
                for k in range(2, len(at_level) + 1):
                    for tied in combinations(at_level, k):
                        weight = 1
                        for j in members:
                            weight *= counts[j][lv] if j in tied else below[j][lv]
                        if weight:
                            key_set = frozenset(tied)
                            ties[key_set] = ties.get(key_set, 0) + weight
            again = ties.pop(active, 0)
            if again == denominator:
                raise RuleError("These parties always tie; the contest could never end.")
            # The geometric series of repeated full ties: every round-path through S sums to this.
            scale = mass * Fraction(1, denominator - again)
            for key, weight in direct.items():
                outcomes[key] = outcomes.get(key, Fraction(0)) + scale * weight
            for tied_set, weight in ties.items():
                reach[tied_set] = reach.get(tied_set, Fraction(0)) + scale * weight
    win = tuple(sum((p for (i, _), p in outcomes.items() if i == party), Fraction(0)) for party in range(n))
    return ContestOdds(win=win, outcomes=Distribution.from_probabilities(outcomes))
