"""Exact RPS odds (issue 5): one check, resisted actions and sustained pools."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from bot.core import rps
from bot.core.errors import RuleError
from bot.core.odds import rps as odds


def within_sigmas(p: Fraction, hits: int, n: int, sigmas: float = 5.0) -> bool:
    """True when ``hits`` of ``n`` is within ``sigmas`` binomial standard deviations of p (plus 1/n slack)."""
    sd = math.sqrt(float(p) * (1 - float(p)) / n)
    return abs(hits / n - float(p)) <= sigmas * sd + 1 / n


PAIRS = [(a, b) for a in range(1, 11) for b in range(1, 11)]


@pytest.mark.parametrize("base", [-30, -1, 0, 1, 2, 3, 7, 12, 15, 20, 21, 22, 35])
def test_sl_distribution_matches_the_100_pairs(base: int) -> None:
    # RPS-2..RPS-5: every ordered pair of d10s, doubles included.
    checks = [rps.check(base, a, b) for a, b in PAIRS]
    result = odds.check_odds(base)
    assert dict(result.distribution.outcomes) == {
        sl: Fraction(c, 100) for sl, c in Counter(c.sl for c in checks).items()
    }
    assert sum(p for _, p in result.distribution) == 1
    assert result.success == Fraction(sum(c.sl >= 1 for c in checks), 100)
    assert result.near_miss == Fraction(sum(c.sl == 0 for c in checks), 100)
    assert result.fumble == Fraction(sum(c.fumble for c in checks), 100)
    assert result.success + result.near_miss + result.failure == 1


def test_doubles_at_the_edges() -> None:
    # RPS-4: double 1s at Base 2 are an automatic success (SL 1); RPS-5: double 10s at Base 21 SL 0.
    assert odds.check_odds(2).critical_success == 0
    assert odds.check_odds(3).critical_success == Fraction(1, 100)
    assert odds.check_odds(21).fumble == 0
    assert odds.check_odds(20).fumble == Fraction(1, 100)


def _bounded_resisted(bases: list[int], depth: int) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
    """Enumerate resisted actions with the real rule, up to ``depth`` rounds; also the unresolved mass.

    Each party's pairs of d10s are grouped by the SL they give (one representative pair per SL, weighted
    by its count). A round that ends is handed to ``rps.resisted`` with the parties of that round (the
    subtraction uses the final round, so earlier rounds only decide who is still in); a tie recurses on
    the tied parties, memoised by who is in and how many rounds are left.
    """
    reps = []
    for base in bases:
        by_sl: dict[int, tuple[tuple[int, int], int]] = {}
        for pair in PAIRS:
            sl = rps.check(base, *pair).sl
            first, count = by_sl.get(sl, (pair, 0))
            by_sl[sl] = (first, count + 1)
        reps.append(list(by_sl.values()))
    memo: dict[tuple[tuple[int, ...], int], tuple[dict[tuple[int, int], Fraction], Fraction]] = {}

    def walk(active: tuple[int, ...], rounds_left: int) -> tuple[dict[tuple[int, int], Fraction], Fraction]:
        if (active, rounds_left) in memo:
            return memo[(active, rounds_left)]
        out: dict[tuple[int, int], Fraction] = {}
        unresolved = Fraction(0)
        for combo in itertools.product(*(reps[i] for i in active)):
            w = Fraction(1)
            for _, count in combo:
                w *= Fraction(count, 100)
            sls = [rps.check(bases[i], *pair).sl for i, (pair, _) in zip(active, combo, strict=True)]
            top = max(sls)
            tied = tuple(i for i, sl in zip(active, sls, strict=True) if sl == top)
            if len(tied) == 1:
                parties = [
                    rps.ResistedParty(f"p{i}", bases[i], pair)
                    for i, (pair, _) in zip(active, combo, strict=True)
                ]
                result = rps.resisted(parties)
                key = (int(result.winner[1:]), result.sl)
                out[key] = out.get(key, Fraction(0)) + w
            elif rounds_left <= 1:
                unresolved += w
            else:
                sub, sub_unresolved = walk(tied, rounds_left - 1)
                for key, p in sub.items():
                    out[key] = out.get(key, Fraction(0)) + w * p
                unresolved += w * sub_unresolved
        memo[(active, rounds_left)] = (out, unresolved)
        return out, unresolved

    return walk(tuple(range(len(bases))), depth)


@pytest.mark.parametrize("bases", [[12, 10, 10], [15, 15, 15]])
def test_resisted_three_parties_against_bounded_enumeration(bases: list[int]) -> None:
    # RPS-7: ties re-roll among the tied only; the subtraction uses the final round.
    exact = odds.resisted_odds(bases)
    enumerated, unresolved = _bounded_resisted(bases, depth=6)
    assert sum(p for _, p in exact.outcomes) == 1
    assert sum(exact.win) == 1
    assert unresolved < Fraction(1, 1000)
    for key, p in exact.outcomes:
        found = enumerated.get(key, Fraction(0))
        assert found <= p <= found + unresolved
    assert set(enumerated) <= set(exact.outcomes.support)


def test_resisted_two_equal_parties_are_even() -> None:
    # RPS-7: symmetric parties win equally often.
    exact = odds.resisted_odds([12, 12])
    assert exact.win == (Fraction(1, 2), Fraction(1, 2))
    assert exact.margin_if_wins(0).lowest >= 1


def test_resisted_against_monte_carlo() -> None:
    # RPS-7 with the real rule and random re-rolls.
    bases = [14, 11, 9, 16]
    exact = odds.resisted_odds(bases)
    rng = random.Random(4)
    n = 20_000
    wins: Counter[str] = Counter()
    sls: Counter[int] = Counter()
    for _ in range(n):
        parties = [
            rps.ResistedParty(f"p{i}", b, (rng.randint(1, 10), rng.randint(1, 10)))
            for i, b in enumerate(bases)
        ]
        result = rps.resisted(parties, lambda _p: (rng.randint(1, 10), rng.randint(1, 10)))
        wins[result.winner] += 1
        sls[result.sl] += 1
    for i in range(len(bases)):
        assert within_sigmas(exact.win[i], wins[f"p{i}"], n)
    margin = exact.margin()
    for sl in (1, 3, 6, 10):
        assert within_sigmas(margin.at_least(sl), sum(c for s, c in sls.items() if s >= sl), n)


# --------------------------------------------------------------------------------------------------
# RPS-8: sustained pools


def _step_from(pool: rps.SustainedPool) -> Counter[tuple[rps.PoolState, int]]:
    """One check from this pool over the 100 pairs, through rps.advance."""
    out: Counter[tuple[rps.PoolState, int]] = Counter()
    for pair in PAIRS:
        after = rps.advance(pool, rps.check(pool.base, *pair))
        out[(after.state, after.pool)] += 1
    return out


@pytest.mark.parametrize(
    ("goal", "base", "no_loss"), [(3, 12, False), (4, 8, True), (5, 20, False), (2, 25, False)]
)
def test_sustained_solves_the_chain_built_from_advance(goal: int, base: int, no_loss: bool) -> None:
    # RPS-8: the odds satisfy one step of the chain built state by state with rps.advance.
    start = rps.start_pool(goal, base, 5, no_loss)
    states = range(-goal, goal)
    complete = {}
    checks = {}
    for p in states:
        result = odds.sustained_odds(rps.SustainedPool(goal, base, 5, no_loss, pool=p))
        complete[p] = result.complete
        checks[p] = result.expected_checks
        assert result.complete + result.fail == 1
        assert result.expected_minutes == 5 * result.expected_checks
    for p in states:
        step = _step_from(rps.SustainedPool(goal, base, 5, no_loss, pool=p))
        h = Fraction(0)
        e = Fraction(1)
        for (state, q), count in step.items():
            w = Fraction(count, 100)
            if state is rps.PoolState.COMPLETED:
                h += w
            elif state is rps.PoolState.RUNNING:
                h += w * complete[q]
                e += w * checks[q]
        assert h == complete[p]
        assert e == checks[p]
    assert odds.sustained_odds(start).complete == complete[0]


def test_sustained_against_monte_carlo_goal_50() -> None:
    # RPS-8 with Goal 50 from a pool part-way, against seeded runs of rps.advance.
    pool = rps.SustainedPool(50, 12, 10, pool=7, checks=3)
    exact = odds.sustained_odds(pool)
    rng = random.Random(8)
    n = 4_000
    completed = 0
    total_checks = 0
    for _ in range(n):
        state = pool
        while not state.finished:
            state = rps.advance(state, rps.check(state.base, rng.randint(1, 10), rng.randint(1, 10)))
        completed += state.state is rps.PoolState.COMPLETED
        total_checks += state.checks - pool.checks
    assert within_sigmas(exact.complete, completed, n)
    mean = total_checks / n
    # The number of checks has a standard deviation well under 3 x its mean here; 5 sigma of the mean.
    assert abs(mean - float(exact.expected_checks)) <= 5 * 3 * float(exact.expected_checks) / math.sqrt(n)
    assert exact.expected_total_checks == exact.expected_checks + 3


def test_check_count_distribution_agrees_with_the_solution() -> None:
    # RPS-8: the checks-to-finish distribution adds up to P(complete) and the expected checks.
    pool = rps.SustainedPool(6, 14, 10, pool=-2)
    counts = odds.check_count_distribution(pool, cap=400)
    solved = odds.sustained_odds(pool)
    assert sum(counts.complete) + sum(counts.fail) + counts.beyond_cap == 1
    assert abs(float(sum(counts.complete)) - float(solved.complete)) < 1e-12
    mean = sum((n + 1) * (c + f) for n, (c, f) in enumerate(zip(counts.complete, counts.fail, strict=True)))
    assert abs(float(mean) - float(solved.expected_checks)) < 1e-9
    assert sum(p for _, p in counts.ends()) == 1


def test_finished_pools_and_bad_states() -> None:
    # RPS-8: a completed action has nothing left to do.
    done = rps.SustainedPool(5, 12, 10, pool=6, checks=2, state=rps.PoolState.COMPLETED)
    result = odds.sustained_odds(done)
    assert (result.complete, result.expected_checks) == (1, 0)
    with pytest.raises(RuleError):
        odds.sustained_odds(rps.SustainedPool(5, 12, 10, pool=9))
