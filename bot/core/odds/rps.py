"""Exact odds of RPS checks (RPS-2..RPS-8) from ``bot.core.rps``'s rule functions.

One check: ``rps.check`` over the 100 ordered pairs of d10s. Resisted actions: the highest SL wins and the
tied parties re-roll alone (``contest.highest_wins``). Sustained actions: an absorbing Markov chain on the
pool whose step is read from ``rps.advance``; solved exactly from any running state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from bot.core import rps as rules
from bot.core.common import Verdict
from bot.core.errors import RuleError, require_int
from bot.core.odds.contest import ContestOdds, highest_wins
from bot.core.odds.distribution import Distribution

__all__ = [
    "MAX_GOAL",
    "CheckCountOdds",
    "RpsCheckOdds",
    "SustainedOdds",
    "check_count_distribution",
    "check_odds",
    "resisted_odds",
    "sl_counts",
    "sustained_odds",
]

PAIRS = 100
MAX_GOAL = 1000  # a guard: the chain has 2 x Goal states
_PROBE_GOAL = 10**6  # a goal no single check can reach, to read one check's effect off rps.advance


def sl_counts(base: int) -> dict[int, int]:
    """How many of the 100 pairs of d10s give each SL at this Base (RPS-2, RPS-4, RPS-5)."""
    counts: dict[int, int] = {}
    for d1 in range(1, 11):
        for d2 in range(1, 11):
            sl = rules.check(base, d1, d2).sl
            counts[sl] = counts.get(sl, 0) + 1
    return counts


@dataclass(frozen=True)
class RpsCheckOdds:
    """One check's SL distribution and its headline chances (RPS-3..RPS-5)."""

    base: int
    distribution: Distribution[int]
    success: Fraction  # SL >= 1
    near_miss: Fraction  # SL 0
    failure: Fraction  # SL < 0
    critical_success: Fraction  # double 1s with Base > 2
    fumble: Fraction  # double 10s with Base - 20 < 1

    def at_least(self, sl: int) -> Fraction:
        """P(SL >= sl), e.g. "this SL 4 or better"."""
        return self.distribution.at_least(sl)


def check_odds(base: int) -> RpsCheckOdds:
    """RPS-2..RPS-5: the SL distribution for a Base, doubles included."""
    counts: dict[int, int] = {}
    critical = fumble = 0
    for d1 in range(1, 11):
        for d2 in range(1, 11):
            result = rules.check(base, d1, d2)
            counts[result.sl] = counts.get(result.sl, 0) + 1
            critical += result.verdict is Verdict.CRITICAL_SUCCESS
            fumble += result.fumble
    distribution = Distribution.from_counts(counts, PAIRS)
    return RpsCheckOdds(
        base=base,
        distribution=distribution,
        success=distribution.at_least(1),
        near_miss=distribution.probability(0),
        failure=distribution.below(0),
        critical_success=Fraction(critical, PAIRS),
        fumble=Fraction(fumble, PAIRS),
    )


def resisted_odds(bases: Sequence[int]) -> ContestOdds:
    """RPS-7: each party's chance to win (ties re-roll among the tied) and the new SL's distribution.

    ``win[i]`` is party i's chance; ``outcomes`` is over (winner's index, winner's SL - second-highest SL
    of the final round).
    """
    if isinstance(bases, str) or not isinstance(bases, Sequence):
        raise RuleError("A resisted action's odds take the parties' Bases as a list.")
    return highest_wins([(sl_counts(base), PAIRS) for base in bases])


# --------------------------------------------------------------------------------------------------
# RPS-8: sustained actions


@dataclass(frozen=True)
class _Step:
    """One check's effect on a running pool: (change, weight of 100) moves and the fumble weight."""

    moves: tuple[tuple[int, int], ...]
    fumble: int


def _step(base: int, no_loss: bool) -> _Step:
    probe = rules.start_pool(_PROBE_GOAL, base, 0, no_loss)
    moves: dict[int, int] = {}
    fumble = 0
    for d1 in range(1, 11):
        for d2 in range(1, 11):
            after = rules.advance(probe, rules.check(base, d1, d2))
            if after.state is rules.PoolState.FAILED:  # only a fumble fails this far from -Goal
                fumble += 1
            else:
                assert after.last_change is not None
                moves[after.last_change] = moves.get(after.last_change, 0) + 1
    return _Step(tuple(sorted(moves.items())), fumble)


def _solve(goal: int, step: _Step, per_check: int, at_goal: int) -> list[Fraction]:
    """x(p) for running pools p = -goal..goal-1, where x = per_check + E[x(next)], x = at_goal at >= Goal.

    A pool below -Goal and a fumble count 0. Every move is up by SL >= 1 or by the loss (-1, or 0 with
    "no loss"), so the system is solved without a general matrix: by back-substitution from the top when
    no move goes down, else by shooting one unknown (the pool just under the Goal) down to the bottom.
    Exact integers throughout; Fractions only at the end.
    """
    total = PAIRS
    up = [(c, w) for c, w in step.moves if c >= 1]
    down = sum(w for c, w in step.moves if c < 0)
    stay = sum(w for c, w in step.moves if c == 0)
    assert all(c in (-1, 0) for c, _ in step.moves if c < 1)
    size = 2 * goal
    index = {p: p + goal for p in range(-goal, goal)}  # pool -> list position
    if down == 0:
        # x(p) (total - stay) = total*per_check + sum w x(p+c); x(p) = X[p] / d^(goal - p).
        d = total - stay
        numerators = [0] * size
        for p in range(goal - 1, -goal - 1, -1):
            e = goal - p
            value = total * per_check * d ** (e - 1)
            for c, w in up:
                q = p + c
                if q >= goal:
                    value += w * at_goal * d ** (e - 1)
                else:
                    value += w * numerators[index[q]] * d ** (c - 1)
            numerators[index[p]] = value
        return [Fraction(numerators[index[p]], d ** (goal - p)) for p in range(-goal, goal)]
    # Shooting: x(p) = (A[p] + B[p] t) / D^(goal-1-p) with t = x(goal-1); the equation at p+1 gives
    # x(p) = (total x(p+1) - total*per_check - sum w x(p+1+c) - stay x(p+1)) / D.
    big_d = down
    a = [0] * (size + 1)  # position 0 is the pool -goal-1 (a failure), shifted by one
    b = [0] * (size + 1)

    def pos(p: int) -> int:
        return p + goal + 1

    a[pos(goal - 1)], b[pos(goal - 1)] = 0, 1
    for p in range(goal - 2, -goal - 2, -1):
        k_next = goal - 2 - p  # exponent of x(p+1)
        scale = big_d**k_next
        a_value = (total - stay) * a[pos(p + 1)] - total * per_check * scale
        b_value = (total - stay) * b[pos(p + 1)]
        for c, w in up:
            q = p + 1 + c
            if q >= goal:
                a_value -= w * at_goal * scale
            else:
                shift = big_d**c  # k_next - k_q = c
                a_value -= w * a[pos(q)] * shift
                b_value -= w * b[pos(q)] * shift
        a[pos(p)], b[pos(p)] = a_value, b_value
    a_bottom, b_bottom = a[0], b[0]  # x(-goal-1) must be 0
    if b_bottom == 0:
        raise RuleError("This sustained action's odds have no unique solution.")
    return [
        Fraction(a[pos(p)] * b_bottom - b[pos(p)] * a_bottom, b_bottom * big_d ** (goal - 1 - p))
        for p in range(-goal, goal)
    ]


_SOLVED: dict[tuple[int, int, bool], tuple[list[Fraction], list[Fraction]]] = {}
_MAX_SOLVED = 64


def _solved(goal: int, base: int, no_loss: bool) -> tuple[list[Fraction], list[Fraction]]:
    key = (goal, base, no_loss)
    found = _SOLVED.get(key)
    if found is None:
        step = _step(base, no_loss)
        found = (_solve(goal, step, 0, 1), _solve(goal, step, 1, 0))
        if len(_SOLVED) >= _MAX_SOLVED:
            _SOLVED.clear()
        _SOLVED[key] = found
    return found


@dataclass(frozen=True)
class SustainedOdds:
    """A sustained action's future from its current state (RPS-8); checks and minutes still to come."""

    goal: int
    base: int
    pool: int
    checks_made: int
    complete: Fraction
    fail: Fraction
    expected_checks: Fraction  # checks still to make, until it completes or fails
    expected_minutes: Fraction  # expected_checks x minutes per check

    @property
    def expected_total_checks(self) -> Fraction:
        """Checks made so far plus the expected checks still to come."""
        return self.checks_made + self.expected_checks


def _running(pool: rules.SustainedPool) -> rules.SustainedPool:
    if not isinstance(pool, rules.SustainedPool):
        raise RuleError("Sustained odds take a sustained pool.")
    if pool.goal > MAX_GOAL:
        raise RuleError(f"Sustained odds are computed for Goals up to {MAX_GOAL}, not {pool.goal}.")
    if not pool.finished and not -pool.goal <= pool.pool < pool.goal:
        raise RuleError(f"A running pool lies between -{pool.goal} and {pool.goal - 1}, not {pool.pool}.")
    return pool


def sustained_odds(pool: rules.SustainedPool) -> SustainedOdds:
    """RPS-8 from the pool as it stands: P(complete), P(fail), expected checks and minutes still to come."""
    pool = _running(pool)
    if pool.finished:
        done = Fraction(1 if pool.state is rules.PoolState.COMPLETED else 0)
        return SustainedOdds(
            pool.goal, pool.base, pool.pool, pool.checks, done, 1 - done, Fraction(0), Fraction(0)
        )
    complete, checks = _solved(pool.goal, pool.base, pool.no_loss)
    at = pool.pool + pool.goal
    return SustainedOdds(
        goal=pool.goal,
        base=pool.base,
        pool=pool.pool,
        checks_made=pool.checks,
        complete=complete[at],
        fail=1 - complete[at],
        expected_checks=checks[at],
        expected_minutes=checks[at] * pool.minutes_per_check,
    )


@dataclass(frozen=True)
class CheckCountOdds:
    """P(the action ends on exactly the n-th check from now) for n = 1..cap, split by how it ends."""

    complete: tuple[Fraction, ...]  # complete[n-1]: completes on check n
    fail: tuple[Fraction, ...]  # fail[n-1]: fails on check n
    beyond_cap: Fraction  # still running after ``cap`` checks

    @property
    def cap(self) -> int:
        """How many checks ahead the distribution goes."""
        return len(self.complete)

    def ends(self) -> Distribution[int]:
        """Checks until the action ends, either way; the mass beyond the cap sits at cap + 1."""
        probabilities = {n + 1: c + f for n, (c, f) in enumerate(zip(self.complete, self.fail, strict=True))}
        probabilities[self.cap + 1] = self.beyond_cap
        return Distribution.from_probabilities(probabilities)


def check_count_distribution(pool: rules.SustainedPool, cap: int = 100) -> CheckCountOdds:
    """RPS-8: the distribution of the number of checks until the action ends, up to ``cap`` checks ahead."""
    pool = _running(pool)
    cap = require_int(cap, "The number of checks ahead")
    if not 1 <= cap <= 1000:
        raise RuleError(f"Check counts are computed 1 to 1000 checks ahead, not {cap}.")
    if pool.finished:
        zeros = (Fraction(0),) * cap
        return CheckCountOdds(zeros, zeros, Fraction(0))
    goal = pool.goal
    step = _step(pool.base, pool.no_loss)
    vector = [0] * (2 * goal)
    vector[pool.pool + goal] = 1
    completes: list[Fraction] = []
    fails: list[Fraction] = []
    denominator = 1
    for _ in range(cap):
        denominator *= PAIRS
        nxt = [0] * (2 * goal)
        done = failed = 0
        for at, mass in enumerate(vector):
            if not mass:
                continue
            failed += mass * step.fumble
            p = at - goal
            for change, weight in step.moves:
                q = p + change
                if q >= goal:
                    done += mass * weight
                elif q < -goal:
                    failed += mass * weight
                else:
                    nxt[q + goal] += mass * weight
        vector = nxt
        completes.append(Fraction(done, denominator))
        fails.append(Fraction(failed, denominator))
    return CheckCountOdds(tuple(completes), tuple(fails), Fraction(sum(vector), denominator))
