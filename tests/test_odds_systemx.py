"""Exact System X odds (issue 5) against brute force over every d20 and seeded Monte-Carlo runs."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core import systemx
from bot.core.errors import RuleError
from bot.core.odds import systemx as odds
from bot.core.systemx import CF, CS, F0, S0, S2, SkillCheck

CHART = systemx.RollChart.model()


def within_sigmas(p: Fraction, hits: int, n: int, sigmas: float = 5.0) -> bool:
    """True when ``hits`` of ``n`` is within ``sigmas`` binomial standard deviations of p (plus 1/n slack)."""
    sd = math.sqrt(float(p) * (1 - float(p)) / n)
    return abs(hits / n - float(p)) <= sigmas * sd + 1 / n


def brute_check(sv: int, **kwargs: object) -> dict[systemx.Margin, Fraction]:
    counts = Counter(systemx.check(CHART, sv, face, **kwargs).margin for face in range(1, 21))  # type: ignore[arg-type]
    return {m: Fraction(c, 20) for m, c in counts.items()}


@pytest.mark.parametrize("sv", range(-2, 34))
@pytest.mark.parametrize("roll_modifier", [-6, -2, 0, 3, 8])
def test_single_check_matches_every_face_and_sums_to_one(sv: int, roll_modifier: int) -> None:
    # SX-3, SX-4, SX-5: the distribution is the 20 faces through the rule.
    dist = odds.check_distribution(sv, roll_modifier=roll_modifier)
    assert dict(dist.outcomes) == brute_check(sv, roll_modifier=roll_modifier)
    assert sum(p for _, p in dist) == 1
    assert list(dist.support) == sorted(dist.support)


def test_wounds_and_sv_modifier_cap_the_sv() -> None:
    # SX-2: 3 of 5 wounds caps the SV at 6, whatever the sheet says.
    capped = odds.check_distribution(25, sv_modifier=2, wounds=(3, 5))
    assert dict(capped.outcomes) == dict(odds.check_distribution(6).outcomes)
    assert dict(odds.check_distribution(25, wounds=(5, 5)).outcomes) == brute_check(25)


@settings(max_examples=60, deadline=None)
@given(
    sv=st.integers(-5, 35),
    roll=st.integers(-8, 8),
    svm=st.integers(-4, 4),
    wounds=st.one_of(st.none(), st.tuples(st.integers(0, 10), st.just(10))),
    required=st.sampled_from(systemx.CHART_MARGINS),
)
def test_check_odds_success_is_the_sum_at_or_above_required(sv, roll, svm, wounds, required) -> None:
    # SX-7: success means margin >= required.
    result = odds.check_odds(sv, roll_modifier=roll, sv_modifier=svm, wounds=wounds, required=required)
    faces = [
        systemx.check(CHART, sv, f, roll_modifier=roll, sv_modifier=svm, wounds=wounds, required=required)
        for f in range(1, 21)
    ]
    assert result.success == Fraction(sum(r.succeeded for r in faces), 20)
    assert result.critical_success == Fraction(sum(r.margin == CS for r in faces), 20)
    assert result.critical_failure == Fraction(sum(r.margin == CF for r in faces), 20)
    assert odds.success_chance(result.distribution, required) == result.success


def test_this_margin_or_better() -> None:
    # SX-7: "this S2 or better" is P(margin >= S2); S0 or better excludes F0.
    dist = odds.check_distribution(15)
    assert odds.success_chance(dist, "S2") == dist.where(lambda m: m >= S2)
    assert odds.success_chance(dist, S0) == dist.where(lambda m: m.is_success)
    assert odds.success_chance(dist, F0) == dist.probability(F0) + odds.success_chance(dist, S0)


@pytest.mark.parametrize(("actor_sv", "target_sv"), [(15, 15), (5, 25), (28, 3), (0, 31), (12, 18)])
def test_opposed_matches_all_400_pairs(actor_sv: int, target_sv: int) -> None:
    # SX-8 over every pair of natural d20s.
    counts = Counter(
        systemx.opposed(systemx.check(CHART, actor_sv, a).margin, systemx.check(CHART, target_sv, t).margin)
        for a in range(1, 21)
        for t in range(1, 21)
    )
    exact = odds.opposed_distribution(odds.check_distribution(actor_sv), odds.check_distribution(target_sv))
    assert dict(exact.outcomes) == {m: Fraction(c, 400) for m, c in counts.items()}


@pytest.mark.parametrize("svs", [(10, 15, 20), (3, 28, 15), (30, 1, 1)])
def test_combined_three_actors_matches_all_8000_rolls(svs: tuple[int, int, int]) -> None:
    # SX-9: fold left, pair by pair, over every triple of d20s.
    faces = [[systemx.check(CHART, sv, f).margin for f in range(1, 21)] for sv in svs]
    counts = Counter(systemx.combined(list(trio)).margin for trio in itertools.product(*faces))
    exact = odds.combined_distribution([odds.check_distribution(sv) for sv in svs])
    assert dict(exact.outcomes) == {m: Fraction(c, 8000) for m, c in counts.items()}
    assert sum(p for _, p in exact) == 1


def test_combined_six_actors_against_monte_carlo() -> None:
    # SX-9 with six actors (20^6 rolls, never enumerated): seeded runs of the real rules, 5 sigma.
    svs = (8, 12, 15, 18, 22, 26)
    exact = odds.combined_distribution([odds.check_distribution(sv) for sv in svs])
    rng = random.Random(1905)
    n = 20_000
    results = Counter(
        systemx.combined([systemx.check(CHART, sv, rng.randint(1, 20)).margin for sv in svs]).margin
        for _ in range(n)
    )
    for threshold in (S0, systemx.Margin.success(8), systemx.Margin.success(15), CS):
        hits = sum(c for m, c in results.items() if m >= threshold)
        assert within_sigmas(exact.at_least(threshold), hits, n)
    for margin in (CS, CF, S0):
        assert within_sigmas(exact.probability(margin), results[margin], n)


def test_combined_needs_two_to_six_actors() -> None:
    one = odds.check_distribution(10)
    with pytest.raises(RuleError):
        odds.combined_distribution([one])
    with pytest.raises(RuleError):
        odds.combined_distribution([one] * 7)


@pytest.mark.parametrize(
    "steps",
    [
        [SkillCheck(12), SkillCheck(14, sv_modifier=1, roll_modifier=-1), SkillCheck(20, wounds=(7, 9))],
        # Past the chart's ends (SX-3, SX-4): SVs above 30 or below 1, modified rolls beyond 1..20.
        [SkillCheck(29, roll_modifier=6), SkillCheck(1, sv_modifier=-3), SkillCheck(31, roll_modifier=-9)],
    ],
)
def test_synergy_three_steps_matches_all_8000_rolls(steps: list[SkillCheck]) -> None:
    # SX-10: each step's SV gains the previous margin (CS +10, CF -10), wounds cap after it.
    counts = Counter(
        systemx.synergy(CHART, steps, list(dice)).margin for dice in itertools.product(range(1, 21), repeat=3)
    )
    exact = odds.synergy_distribution(steps)
    assert dict(exact.outcomes) == {m: Fraction(c, 8000) for m, c in counts.items()}


def test_synergy_ten_steps_against_monte_carlo() -> None:
    # SX-10 over a 10-step chain (20^10 rolls): seeded runs of systemx.synergy, 5 sigma.
    steps = [SkillCheck(8 + 2 * i, roll_modifier=(i % 3) - 1) for i in range(10)]
    exact = odds.synergy_distribution(steps)
    assert sum(p for _, p in exact) == 1
    rng = random.Random(77)
    n = 10_000
    results = Counter(
        systemx.synergy(CHART, steps, [rng.randint(1, 20) for _ in steps]).margin for _ in range(n)
    )
    for threshold in (S0, S2, CS):
        hits = sum(c for m, c in results.items() if m >= threshold)
        assert within_sigmas(exact.at_least(threshold), hits, n)


def test_flat_chance() -> None:
    # SX-11: strictly under the value on a d20.
    assert odds.flat_chance(1) == 0
    assert odds.flat_chance(11) == Fraction(1, 2)
    assert odds.flat_chance(21) == 1


def test_custom_chart_is_used() -> None:
    # SX-5: a guild's own chart gives its own odds.
    rows = tuple(tuple(S2 for _ in range(20)) for _ in range(30))
    chart = systemx.RollChart(rows)
    assert odds.check_distribution(15, chart=chart).outcomes == ((S2, Fraction(1)),)
    assert odds.check_distribution(15).outcomes != ((S2, Fraction(1)),)


def test_odds_keep_cs_above_large_sums_and_cf_below() -> None:
    # SX-7 as decided: a combined distribution (sums up to S15) lists CS last and CF first, and the chance
    # to meet a required CS is the chance of CS alone; a required CF is always met.
    strong = [odds.check_distribution(sv) for sv in (28, 29, 30, 4)]
    dist = odds.combined_distribution(strong)
    support = dist.support
    assert support[-1] == CS and support[0] == CF
    assert any(m.value > 10 and not m.is_critical for m in support)  # S11 and more occur
    assert all(support[i] < support[i + 1] for i in range(len(support) - 1))
    assert odds.success_chance(dist, CS) == dist.probability(CS)
    assert odds.success_chance(dist, CF) == 1
    numbered = [m for m in support if not m.is_critical]
    assert dist.highest == CS and max(numbered) < CS


def test_odds_required_cs_on_one_check_is_the_chance_of_cs() -> None:
    # SX-7: for every SV, P(meets CS) = P(CS) and P(meets CF) = 1; the odds and the rule agree face by face.
    for sv in range(-1, 33):
        result = odds.check_odds(sv, roll_modifier=2, required=CS)
        assert result.success == result.critical_success
        faces = [systemx.check(CHART, sv, f, roll_modifier=2, required=CS).succeeded for f in range(1, 21)]
        assert result.success == Fraction(sum(faces), 20)
        assert odds.check_odds(sv, required=CF).success == 1
