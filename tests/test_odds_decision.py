"""Exact decision-dice odds (issue 5): totals, contests with re-rolled ties, supply dice."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from bot.core import decision
from bot.core.decision import DiceMode, SupplyDie
from bot.core.errors import RuleError
from bot.core.odds import decision as odds


def within_sigmas(p: Fraction, hits: int, n: int, sigmas: float = 5.0) -> bool:
    """True when ``hits`` of ``n`` is within ``sigmas`` binomial standard deviations of p (plus 1/n slack)."""
    sd = math.sqrt(float(p) * (1 - float(p)) / n)
    return abs(hits / n - float(p)) <= sigmas * sd + 1 / n


FLAGS = {
    DiceMode.DISADVANTAGE: (False, True),
    DiceMode.NORMAL: (False, False),
    DiceMode.ADVANTAGE: (True, False),
}


@pytest.mark.parametrize("mode", list(DiceMode))
@pytest.mark.parametrize(("stat", "modifiers", "target"), [(0, 0, 7), (2, [1, -3], 12), (-3, 5, "Strenuous")])
def test_totals_match_every_roll(mode: DiceMode, stat: int, modifiers: object, target: object) -> None:
    # DD-1, DD-2: 1d6 / 2d6 / 3d6 plus stat and modifiers; DD-4 names; a tie succeeds.
    adv, dis = FLAGS[mode]
    rolls = [
        decision.roll(dice, stat, modifiers, target, advantage=adv, disadvantage=dis)  # type: ignore[arg-type]
        for dice in itertools.product(range(1, 7), repeat=mode.count)
    ]
    exact = odds.roll_odds(stat, modifiers, target, advantage=adv, disadvantage=dis)  # type: ignore[arg-type]
    n = 6**mode.count
    assert dict(exact.distribution.outcomes) == {
        t: Fraction(c, n) for t, c in Counter(r.total for r in rolls).items()
    }
    assert exact.success == Fraction(sum(r.success for r in rolls), n)
    assert sum(p for _, p in exact.distribution) == 1


def test_advantage_and_disadvantage_cancel() -> None:
    # DD-2: both together roll 2d6.
    assert odds.total_distribution(3, advantage=True, disadvantage=True) == odds.total_distribution(3)


def _bounded_contest(modifiers: list[int], modes: list[DiceMode], depth: int):
    """Enumerate contests with decision.contested, up to ``depth`` rounds; also the unresolved mass."""
    # One representative roll per dice total, weighted by how many rolls give it.
    faces: dict[DiceMode, list[tuple[tuple[int, ...], int]]] = {}
    for m in set(modes):
        by_total: dict[int, tuple[tuple[int, ...], int]] = {}
        for dice in itertools.product(range(1, 7), repeat=m.count):
            first, count = by_total.get(sum(dice), (dice, 0))
            by_total[sum(dice)] = (first, count + 1)
        faces[m] = list(by_total.values())
    memo: dict = {}

    def walk(active: tuple[int, ...], rounds_left: int):
        if (active, rounds_left) in memo:
            return memo[(active, rounds_left)]
        out: dict[tuple[int, int], Fraction] = {}
        unresolved = Fraction(0)
        scale = math.prod(6 ** modes[i].count for i in active)
        for weighted in itertools.product(*(faces[modes[i]] for i in active)):
            combo = [d for d, _ in weighted]
            weight = Fraction(math.prod(c for _, c in weighted), scale)
            totals = [sum(d) + modifiers[i] for i, d in zip(active, combo, strict=True)]
            tied = tuple(i for i, t in zip(active, totals, strict=True) if t == max(totals))
            if len(tied) == 1:
                parties = [
                    decision.ContestParty(f"p{i}", d, modifiers[i], *FLAGS[modes[i]])
                    for i, d in zip(active, combo, strict=True)
                ]
                result = decision.contested(parties)
                key = (int(result.winner[1:]), result.margin)
                out[key] = out.get(key, Fraction(0)) + weight
            elif rounds_left <= 1:
                unresolved += weight
            else:
                sub, sub_unresolved = walk(tied, rounds_left - 1)
                for key, p in sub.items():
                    out[key] = out.get(key, Fraction(0)) + weight * p
                unresolved += weight * sub_unresolved
        memo[(active, rounds_left)] = (out, unresolved)
        return out, unresolved

    return walk(tuple(range(len(modifiers))), depth)


@pytest.mark.parametrize(
    ("modifiers", "modes"),
    [
        ([0, 0], [DiceMode.NORMAL, DiceMode.NORMAL]),
        ([2, 0, 1], [DiceMode.NORMAL, DiceMode.ADVANTAGE, DiceMode.DISADVANTAGE]),
    ],
)
def test_contested_against_bounded_enumeration(modifiers: list[int], modes: list[DiceMode]) -> None:
    # DD-5: the highest total wins; parties tied for the highest re-roll until one wins.
    exact = odds.contested_odds(modifiers, modes)
    enumerated, unresolved = _bounded_contest(modifiers, modes, depth=8)
    assert unresolved < Fraction(1, 10**6)
    assert sum(exact.win) == 1
    for key, p in exact.outcomes:
        found = enumerated.get(key, Fraction(0))
        assert found <= p <= found + unresolved
    if modifiers == [0, 0]:
        assert exact.win == (Fraction(1, 2), Fraction(1, 2))


def test_percent_chance() -> None:
    # DD-8: success when the d100 is at most the chance.
    assert odds.percent_chance(0) == 0
    assert odds.percent_chance(35) == Fraction(35, 100)


def test_supply_expected_uses() -> None:
    # DD-7: each size lasts a geometric number of rolls with P(step) = 3/sides.
    assert odds.supply_odds(SupplyDie.D4).expected_uses == Fraction(4, 3)
    assert odds.supply_odds(SupplyDie.D12).expected_uses == Fraction(4) + Fraction(10, 3) + Fraction(
        8, 3
    ) + 2 + Fraction(4, 3)
    empty = odds.supply_odds(SupplyDie.EMPTY)
    assert empty.expected_uses == 0 and empty.beyond_cap == 0
    d6 = odds.supply_odds(SupplyDie.D6, cap=200)
    assert sum(d6.uses) + d6.beyond_cap == 1
    assert d6.uses[0] == 0  # a d6 cannot empty in one roll: it steps to d4 first
    assert d6.uses[1] == Fraction(1, 2) * Fraction(3, 4)


def test_supply_against_monte_carlo() -> None:
    # DD-7 with seeded runs of decision.supply_roll.
    exact = odds.supply_odds(SupplyDie.D10, cap=120)
    rng = random.Random(12)
    n = 20_000
    lengths: Counter[int] = Counter()
    for _ in range(n):
        die, rolls = SupplyDie.D10, 0
        while die is not SupplyDie.EMPTY:
            die = decision.supply_roll(die, rng.randint(1, die.sides)).new_die
            rolls += 1
        lengths[rolls] += 1
    for k in (3, 6, 10, 15):
        assert within_sigmas(sum(exact.uses[:k]), sum(c for r, c in lengths.items() if r <= k), n)
    mean = sum(r * c for r, c in lengths.items()) / n
    assert abs(mean - float(exact.expected_uses)) < 5 * 6 / math.sqrt(n)
    assert exact.at_least(1) == 1


def test_bad_inputs() -> None:
    with pytest.raises(RuleError):
        odds.contested_odds([1], None)
    with pytest.raises(RuleError):
        odds.roll_odds(0, 0, 1)
