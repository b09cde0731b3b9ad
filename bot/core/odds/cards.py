"""Exact odds of blackjack task resolution (BJ-2..BJ-10) drawn from the channel's actual shoe.

The shoe is a multiset of remaining cards (not a fresh deck). What a hand's future depends on is the
remaining count of each card value (1..10) and, for the optional suit rules, a little about suits:

* BJ-9 (characteristic bonus): whether a card of the characteristic's suit has been played. Until one
  has, every card drawn was of another suit, so the remaining cards of that suit are still all there;
  the state is (remaining counts by value, seen-flag) and it is exact.
* BJ-6 (a second bonus card when the bonus card's suit matches the card that made 21): given the values
  drawn, the suits within each value are a uniformly random choice from the shoe's cards of that value,
  so the chance of a match depends only on the values of the 21-card and the bonus card and on the
  shoe's suit make-up. This is exact, except in one corner: with both optional rules on and the
  characteristic's suit already shown before the 21-card, the match chance is taken from the shoe's
  make-up by value without using which earlier cards were known not to be of that suit (the difference
  is a fraction of a percent; see the tests).

Memoisation is on (remaining counts by value, seen-flag), never on card order. Probabilities are exact
integers over a common denominator (the falling factorial of the shoe's size times one constant for the
suit-match chances), turned into Fractions only for the results.

When no card is left to draw, the real bot reshuffles the discards (BJ-1). The odds do not model that
(the discards are not an input): a hand that would need a card from an empty shoe is counted as ending
where it stands, and Hit is not offered when the shoe is empty. With a shoe of a dozen cards or more an
involuntary hand can never run out.

A voluntary hand's player knows the face-down card, so Stand and each skill adder have a certain
result; Hit is valued with optimal play afterwards: maximise P(success), then expected TRL. The policy
decides on the total, the values of the cards gone and whether the characteristic's suit has shown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from bot.core import blackjack as rules
from bot.core.cards import Card, Shoe, Suit
from bot.core.errors import IllegalMove, RuleError
from bot.core.odds.distribution import Distribution

__all__ = [
    "Action",
    "ActionOdds",
    "HandDecision",
    "InvoluntaryOdds",
    "VoluntaryPlan",
    "involuntary_odds",
    "plan_voluntary",
    "voluntary_decision",
]

VALUES = range(1, 11)
MAX_DEPTH = 26  # 21 aces would be the longest run of draws, plus two bonus cards and slack
BLACKJACK = rules.BLACKJACK

# Kinds of the card that made 21, for the suit-match chance of the bonus card (BJ-6).
_BY_VALUE = 0  # suits by value from the shoe (characteristic rule inactive, or its suit already shown)
_OTHER_SUIT = 1  # every card drawn so far, this one included, is not of the characteristic's suit
_FIRST_OF_SUIT = 2  # this card is the first of the characteristic's suit


def _cards(shoe: Shoe | Iterable[Card]) -> tuple[Card, ...]:
    cards = tuple(shoe.remaining) if isinstance(shoe, Shoe) else tuple(shoe)
    if not all(isinstance(c, Card) for c in cards):
        raise RuleError("Card odds take the shoe's remaining cards.")
    return cards


def _soft(hard: int, ace: bool) -> int:
    """BJ-2 (as ``blackjack.card_total``): one ace counts 11 when that keeps the total at 21 or less."""
    return hard + 10 if ace and hard + 10 <= BLACKJACK else hard


_PlanRow = tuple[int, int, int, int, int, int, int, bool, bool]


class _Solver:
    """The shared machinery of one question: a shoe, a task, the rules in force, and the memo."""

    def __init__(
        self,
        remaining: tuple[Card, ...],
        skill: int,
        difficulty: int,
        characteristic: str | None,
        characteristic_bonus: int,
        options: rules.HandOptions,
        start_hard: int = 0,
    ) -> None:
        # Validate the task as a hand would, and take the TRL table from the rule function (BJ-8).
        probe = rules.start_involuntary(skill, difficulty, characteristic, characteristic_bonus, options)
        self.options = probe.options
        self.suit: Suit | None = probe.characteristic_suit
        self.char_active = (
            probe.options.characteristic_rule and self.suit is not None and probe.characteristic_bonus != 0
        )
        self.suit_rule = probe.options.suit_bonus
        self.trl = {
            seen: [
                rules.task_resolution_level(
                    total, probe.skill, probe.difficulty, probe.characteristic_bonus if seen else 0
                )
                for total in range(0, 2 * BLACKJACK + 21)
            ]
            for seen in (False, True)
        }
        self.counts0 = tuple(sum(1 for c in remaining if c.pip_value == v) for v in VALUES)
        self.size = len(remaining)
        by_suit = Counter((c.pip_value, c.suit) for c in remaining)
        suit = self.suit
        self.char = tuple(by_suit[(v, suit)] if suit is not None and self.char_active else 0 for v in VALUES)
        # Suit-match chances (BJ-6): the 21-card of value x and the bonus card of value w share a suit.
        self.match_by_value = self._match_table(by_suit, list(Suit))
        other = [s for s in Suit if s is not self.suit]
        self.match_other = self._match_table(by_suit, other)
        denominators = [
            f.denominator for table in (self.match_by_value, self.match_other) for row in table for f in row
        ]
        self.scale = lcm(*denominators) if denominators else 1
        self.m_by_value = [[int(f * self.scale) for f in row] for row in self.match_by_value]
        self.m_other = [[int(f * self.scale) for f in row] for row in self.match_other]
        # depth_scale[k] = prod_{i=k}^{deepest-1} max(size - i, 1): the common denominator at depth k.
        deepest = self._deepest(start_hard)
        self.depth_scale = [1] * (deepest + 3)
        for k in range(deepest - 1, -1, -1):
            self.depth_scale[k] = self.depth_scale[k + 1] * max(self.size - k, 1)
        self.char_prefix = [0] * 11
        for v in VALUES:
            self.char_prefix[v] = self.char_prefix[v - 1] + self.char[v - 1]
        # runs[seen][w]: (TRL, lowest u, highest u) for the second bonus card u after a bonus card w.
        self.runs = {seen: [self._runs(seen, w) if w else [] for w in range(11)] for seen in (False, True)}
        self.pair_runs = {
            seen: [[(1 if t >= 1 else 0, t, lo, hi) for t, lo, hi in row] for row in self.runs[seen]]
            for seen in (False, True)
        }
        self.pair_memo: dict[tuple[tuple[int, ...], bool, int, int], tuple[int, int]] = {}
        self.sums_memo: dict[tuple[tuple[int, ...], bool, bool], list[tuple[int, int]]] = {}
        self.plans: dict[tuple[bool, int, int, bool], list[_PlanRow]] = {}
        self.bonus_memo: dict[tuple[tuple[int, ...], bool, int, int], dict[int, int]] = {}

    def _deepest(self, start_hard: int) -> int:
        """The most cards a hand can still draw: the smallest values until past 20, then two bonus cards."""
        hard, drawn = start_hard, 0
        for v in VALUES:
            for _ in range(self.counts0[v - 1]):
                if hard > BLACKJACK - 1:
                    return drawn + 3
                hard += v
                drawn += 1
        return drawn + 3

    def _runs(self, seen: bool, w: int) -> list[tuple[int, int, int]]:
        runs: list[tuple[int, int, int]] = []
        for u in VALUES:
            t = self.trl[seen][BLACKJACK + w + u]  # bonus cards never wrap; an ace counts 1 (BJ-2)
            if runs and runs[-1][0] == t:
                runs[-1] = (t, runs[-1][1], u)
            else:
                runs.append((t, u, u))
        return runs

    @staticmethod
    def _match_table(by_suit: Counter[tuple[int, Suit]], suits: list[Suit]) -> list[list[Fraction]]:
        table = [[Fraction(0)] * 11 for _ in range(11)]
        for x in VALUES:
            nx = sum(by_suit[(x, s)] for s in suits)
            for w in VALUES:
                nw = sum(by_suit[(w, s)] for s in suits)
                if x != w:
                    if nx and nw:
                        table[x][w] = Fraction(sum(by_suit[(x, s)] * by_suit[(w, s)] for s in suits), nx * nw)
                elif nx >= 2:
                    pairs = sum(by_suit[(x, s)] * (by_suit[(x, s)] - 1) for s in suits)
                    table[x][w] = Fraction(pairs, nx * (nx - 1))
        return table

    def depth(self, counts: tuple[int, ...]) -> int:
        return self.size - sum(counts)

    def terminal(self, total: int, seen: bool, depth: int) -> dict[int, int]:
        return {self.trl[seen][total]: self.depth_scale[depth] * self.scale}

    def branches(self, counts: tuple[int, ...], seen: bool) -> list[tuple[int, int, bool, int]]:
        """The next card: (value, integer weight over the cards left, seen after it, its kind)."""
        out = []
        for v in VALUES:
            n = counts[v - 1]
            if not n:
                continue
            if self.char_active and not seen:
                of_suit = self.char[v - 1]  # none of the characteristic's suit has gone yet
                if n - of_suit:
                    out.append((v, n - of_suit, False, _OTHER_SUIT))
                if of_suit:
                    out.append((v, of_suit, True, _FIRST_OF_SUIT))
            else:
                out.append((v, n, seen, _BY_VALUE))
        return out

    def bonus(self, counts: tuple[int, ...], seen: bool, made_by: int, kind: int) -> dict[int, int]:
        """BJ-6: the TRL numerators after a 21 made by a card of value ``made_by`` (counts exclude it)."""
        key = (counts, seen, made_by, kind)
        found = self.bonus_memo.get(key)
        if found is not None:
            return found
        depth = self.depth(counts)
        left = self.size - depth
        out: dict[int, int] = {}
        if left == 0:  # no bonus card can be drawn (see the module docstring)
            out = self.terminal(BLACKJACK, seen, depth)
            self.bonus_memo[key] = out
            return out
        scale = self.scale
        d1, d2 = self.depth_scale[depth + 1], self.depth_scale[depth + 2]
        trl = self.trl
        prefix = [0] * 11
        for v in VALUES:
            prefix[v] = prefix[v - 1] + counts[v - 1]
        char_prefix = self.char_prefix
        for w in VALUES:
            n = counts[w - 1]
            if not n:
                continue
            # (weight x scale, seen after the bonus card, suits matched)
            if kind == _BY_VALUE:
                m = self.m_by_value[made_by][w]
                parts = [(n * m, seen, True), (n * (scale - m), seen, False)]
            elif kind == _OTHER_SUIT:
                of_suit = self.char[w - 1]
                m = self.m_other[made_by][w]
                parts = [
                    (of_suit * scale, True, False),
                    ((n - of_suit) * m, False, True),
                    ((n - of_suit) * (scale - m), False, False),
                ]
            else:  # the 21-card was the first of the characteristic's suit: a match is that suit again
                of_suit = self.char[w - 1] - (1 if w == made_by else 0)
                parts = [(of_suit * scale, True, True), ((n - of_suit) * scale, True, False)]
            left2 = left - 1
            for weight, seen1, matched in parts:
                if not weight:
                    continue
                if matched and self.suit_rule and left2:
                    # The second bonus card: sum the cards left by runs of values that give one TRL.
                    if self.char_active and not seen1:
                        for t, lo, hi in self.runs[True][w]:
                            k = char_prefix[hi] - char_prefix[lo - 1]
                            if k:
                                out[t] = out.get(t, 0) + weight * k * d2
                        for t, lo, hi in self.runs[False][w]:
                            k = prefix[hi] - prefix[lo - 1] - (lo <= w <= hi)
                            k -= char_prefix[hi] - char_prefix[lo - 1]
                            if k:
                                out[t] = out.get(t, 0) + weight * k * d2
                    else:
                        for t, lo, hi in self.runs[seen1][w]:
                            k = prefix[hi] - prefix[lo - 1] - (lo <= w <= hi)
                            if k:
                                out[t] = out.get(t, 0) + weight * k * d2
                else:
                    t = trl[seen1][BLACKJACK + w]
                    out[t] = out.get(t, 0) + weight * d1
        self.bonus_memo[key] = out
        return out

    def _pair_plan(self, seen: bool, made_by: int, kind: int, second: bool) -> list[_PlanRow]:
        """Per bonus-card value w, ``bonus_pair``'s weights as linear functions of the count of w left.

        A row is (w, P and E coefficients of the bonus card alone: times n plus a constant, the matched
        weight (times n plus a constant) that earns the second bonus card, that card's seen-flag, and
        whether its own suit still matters for BJ-9).
        """
        key = (seen, made_by, kind, second)
        found = self.plans.get(key)
        if found is not None:
            return found
        scale = self.scale
        trl = self.trl
        rows: list[_PlanRow] = []
        for w in VALUES:

            def single(flag: bool, w: int = w) -> tuple[int, int]:
                t = trl[flag][BLACKJACK + w]
                return (1 if t >= 1 else 0), t

            # Each part: (weight per card of w left, constant weight, seen after the bonus card, matched).
            if kind == _BY_VALUE:
                m = self.m_by_value[made_by][w]
                parts = [(m, 0, seen, True), (scale - m, 0, seen, False)]
            elif kind == _OTHER_SUIT:
                of_suit = self.char[w - 1]
                m = self.m_other[made_by][w]
                parts = [
                    (0, of_suit * scale, True, False),
                    (m, -of_suit * m, False, True),
                    (scale - m, -of_suit * (scale - m), False, False),
                ]
            else:
                of_suit = self.char[w - 1] - (1 if w == made_by else 0)
                parts = [(0, of_suit * scale, True, True), (scale, -of_suit * scale, True, False)]
            a1p = a0p = a1e = a0e = m1 = m0 = 0
            matched_seen = seen
            for per_card, constant, seen1, matched in parts:
                if matched and second:
                    m1, m0, matched_seen = per_card, constant, seen1
                    continue
                pf, t = single(seen1)
                a1p += per_card * pf
                a0p += constant * pf
                a1e += per_card * t
                a0e += constant * t
            split = self.char_active and not matched_seen
            rows.append((w, a1p, a0p, a1e, a0e, m1, m0, matched_seen, split))
        self.plans[key] = rows
        return rows

    def _second_card_sums(self, counts: tuple[int, ...], seen1: bool, split: bool) -> list[tuple[int, int]]:
        """Per bonus card w: (cards left giving success, sum of their TRLs) for the second bonus card.

        Shared by every 21-card that leaves these counts, whatever its value; runs of values that give
        one TRL are summed with prefix sums.
        """
        key = (counts, seen1, split)
        found = self.sums_memo.get(key)
        if found is not None:
            return found
        runs = self.pair_runs
        char_prefix = self.char_prefix
        prefix = [0] * 11
        for v in VALUES:
            prefix[v] = prefix[v - 1] + counts[v - 1]
        found = [(0, 0)] * 11
        for w in VALUES:
            if not counts[w - 1]:
                continue
            sp = se = 0
            if split:
                for flag, t, lo, hi in runs[True][w]:
                    k = char_prefix[hi] - char_prefix[lo - 1]
                    sp += flag * k
                    se += t * k
                for flag, t, lo, hi in runs[False][w]:
                    k = prefix[hi] - prefix[lo - 1] - (lo <= w <= hi) - char_prefix[hi] + char_prefix[lo - 1]
                    sp += flag * k
                    se += t * k
            else:
                for flag, t, lo, hi in runs[seen1][w]:
                    k = prefix[hi] - prefix[lo - 1] - (lo <= w <= hi)
                    sp += flag * k
                    se += t * k
            found[w] = (sp, se)
        self.sums_memo[key] = found
        return found

    def bonus_pair(self, counts: tuple[int, ...], seen: bool, made_by: int, kind: int) -> tuple[int, int]:
        """``bonus`` reduced to (P(success), E[TRL]) numerators, computed without the distribution."""
        key = (counts, seen, made_by, kind)
        found = self.pair_memo.get(key)
        if found is not None:
            return found
        depth = self.size - sum(counts)
        left = self.size - depth
        if left == 0:
            t = self.trl[seen][BLACKJACK]
            unit = self.depth_scale[depth] * self.scale
            found = (unit if t >= 1 else 0, t * unit)
            self.pair_memo[key] = found
            return found
        d1, d2 = self.depth_scale[depth + 1], self.depth_scale[depth + 2]
        second = self.suit_rule and left > 1
        p1 = e1 = p2 = e2 = 0
        sums: list[tuple[int, int]] | None = None
        sums_key: tuple[bool, bool] | None = None
        for w, a1p, a0p, a1e, a0e, m1, m0, seen1, split in self._pair_plan(seen, made_by, kind, second):
            n = counts[w - 1]
            if not n:
                continue
            p1 += a1p * n + a0p
            e1 += a1e * n + a0e
            matched = m1 * n + m0
            if not matched:
                continue
            if sums_key != (seen1, split):
                sums, sums_key = self._second_card_sums(counts, seen1, split), (seen1, split)
            assert sums is not None
            sp, se = sums[w]
            p2 += matched * sp
            e2 += matched * se
        found = (p1 * d1 + p2 * d2, e1 * d1 + e2 * d2)
        self.pair_memo[key] = found
        return found

    def after_card(
        self, counts: tuple[int, ...], hard: int, ace: bool, value: int, seen: bool, kind: int
    ) -> tuple[tuple[int, ...], int, bool, int | None, dict[int, int] | None]:
        """Draw a card of ``value``: the new state, and its result when the hand ends on it."""
        after = list(counts)
        after[value - 1] -= 1
        new_counts = tuple(after)
        new_hard = hard + value
        new_ace = ace or value == 1
        total = _soft(new_hard, new_ace)
        if total > BLACKJACK:  # BJ-5: wraps and ends
            return (
                new_counts,
                new_hard,
                new_ace,
                total,
                self.terminal(new_hard - BLACKJACK, seen, self.depth(new_counts)),
            )
        if total == BLACKJACK:  # BJ-6
            return new_counts, new_hard, new_ace, total, self.bonus(new_counts, seen, value, kind)
        return new_counts, new_hard, new_ace, total, None


def _distribution(numerators: dict[int, int]) -> Distribution[int]:
    return Distribution.from_counts(numerators)


# --------------------------------------------------------------------------------------------------
# Involuntary hands (BJ-3)


@dataclass(frozen=True)
class InvoluntaryOdds:
    """The TRL distribution of an involuntary hand dealt from the given cards, and its headline chances."""

    trl: Distribution[int]
    success: Fraction  # TRL >= 1 (BJ-10)
    expected_trl: Fraction

    def at_least(self, trl: int) -> Fraction:
        """P(TRL >= trl)."""
        return self.trl.at_least(trl)


def involuntary_odds(
    shoe: Shoe | Iterable[Card],
    skill: int,
    difficulty: int,
    characteristic: str | None = None,
    characteristic_bonus: int = 0,
    options: rules.HandOptions | None = None,
) -> InvoluntaryOdds:
    """BJ-3: the TRL distribution of a whole involuntary hand drawn from the shoe's remaining cards."""
    solver = _Solver(
        _cards(shoe), skill, difficulty, characteristic, characteristic_bonus, options or rules.HandOptions()
    )
    memo: dict[tuple[tuple[int, ...], bool], dict[int, int]] = {}

    def value(counts: tuple[int, ...], hard: int, ace: bool, seen: bool) -> dict[int, int]:
        key = (counts, seen)
        found = memo.get(key)
        if found is not None:
            return found
        depth = solver.depth(counts)
        total = _soft(hard, ace)
        if total >= rules.DEALER_STANDS_ON or depth == solver.size:
            out = solver.terminal(total, seen, depth)
        else:
            out = {}
            for v, weight, seen1, kind in solver.branches(counts, seen):
                new_counts, new_hard, new_ace, _, ended = solver.after_card(counts, hard, ace, v, seen1, kind)
                child = ended if ended is not None else value(new_counts, new_hard, new_ace, seen1)
                for t, n in child.items():
                    out[t] = out.get(t, 0) + weight * n
        memo[key] = out
        return out

    numerators = value(solver.counts0, 0, False, False)
    trl = _distribution(numerators)
    return InvoluntaryOdds(trl=trl, success=trl.at_least(1), expected_trl=trl.expectation(lambda t: t))


# --------------------------------------------------------------------------------------------------
# Voluntary hands (BJ-4, BJ-7)


@dataclass(frozen=True, order=True)
class Action:
    """A move of a voluntary hand: ``stand``, ``add`` (with the adder's value) or ``hit``."""

    kind: str
    value: int | None = None

    @property
    def label(self) -> str:
        """ "Stand", "Add 3" or "Hit"."""
        if self.kind == "add":
            return f"Add {self.value}"
        return self.kind.capitalize()


STAND = Action("stand")
HIT = Action("hit")


@dataclass(frozen=True)
class ActionOdds:
    """One move's exact chance of success and expected TRL (Hit: with optimal play after it)."""

    action: Action
    success: Fraction
    expected_trl: Fraction


@dataclass(frozen=True)
class HandDecision:
    """The odds of every move a voluntary hand allows now, and the best one."""

    total: int
    stand: ActionOdds
    adders: tuple[ActionOdds, ...]
    hit: ActionOdds | None  # None when the shoe is empty
    best: ActionOdds  # max P(success), then max expected TRL; ties go to Stand, then adders, then Hit

    @property
    def options(self) -> tuple[ActionOdds, ...]:
        """Every move in the order Stand, adders (ascending), Hit."""
        return (self.stand, *self.adders, *((self.hit,) if self.hit is not None else ()))


class VoluntaryPlan:
    """Optimal play of one voluntary hand from a given shoe; ``decide`` answers for any later state too."""

    def __init__(self, hand: rules.Hand, shoe: Shoe | Iterable[Card]) -> None:
        if not isinstance(hand, rules.Hand) or hand.mode is not rules.HandMode.VOLUNTARY:
            raise RuleError("A voluntary decision needs a voluntary hand.")
        if not hand.can_stand:
            raise IllegalMove(
                "This hand has no decision to make now (it needs a card, a bonus, or has ended)."
            )
        self.root = hand
        self.solver = _Solver(
            _cards(shoe),
            hand.skill,
            hand.difficulty,
            hand.characteristic,
            hand.characteristic_bonus,
            hand.options,
            start_hard=sum(c.pip_value for c in hand.cards),
        )
        self.adders = hand.allowed_adders
        self.memo: dict[tuple[tuple[int, ...], bool], tuple[int, int, int]] = {}
        self.fixed_memo: dict[tuple[int, bool, bool], tuple[int, int, int]] = {}
        self.decision = self._decision(hand)

    def _seen(self, hand: rules.Hand) -> bool:
        return self.solver.char_active and hand.characteristic_counts

    def _state(self, hand: rules.Hand) -> tuple[tuple[int, ...], int, bool, bool]:
        drawn = hand.cards[len(self.root.cards) :]
        if hand.cards[: len(self.root.cards)] != self.root.cards or hand.bonus_cards:
            raise RuleError("That hand did not grow from this plan's hand.")
        counts = list(self.solver.counts0)
        for card in drawn:
            counts[card.pip_value - 1] -= 1
        if min(counts) < 0:
            raise RuleError("That hand drew cards this plan's shoe does not hold.")
        hard = sum(c.pip_value for c in hand.cards)
        ace = any(c.rank == 1 for c in hand.cards)
        return tuple(counts), hard, ace, self._seen(hand)

    def _fixed(self, hard: int, ace: bool, extra: int, seen: bool, depth: int) -> tuple[int, int]:
        """(P, E) numerators of ending now with ``extra`` added (0 = Stand), wrapping over 21 (BJ-5, BJ-7)."""
        total = _soft(hard + extra, ace)
        if total > BLACKJACK:
            total -= BLACKJACK
        t = self.solver.trl[seen][total]
        unit = self.solver.depth_scale[depth] * self.solver.scale
        return (unit if t >= 1 else 0, t * unit)

    def _hit(self, counts: tuple[int, ...], hard: int, ace: bool, seen: bool) -> tuple[int, int]:
        solver = self.solver
        trl = solver.trl
        depth = solver.size - sum(counts)
        unit = solver.depth_scale[depth + 1] * solver.scale
        p = e = 0
        for v, weight, seen1, kind in solver.branches(counts, seen):
            new_hard = hard + v
            new_ace = ace or v == 1
            total = new_hard + 10 if new_ace and new_hard + 10 <= BLACKJACK else new_hard
            if total > BLACKJACK:  # BJ-5: wraps and ends
                t = trl[seen1][new_hard - BLACKJACK]
                if t >= 1:
                    p += weight * unit
                e += weight * t * unit
                continue
            after = (*counts[: v - 1], counts[v - 1] - 1, *counts[v:])
            if total == BLACKJACK:  # BJ-6
                cp, ce = solver.bonus_pair(after, seen1, v, kind)
            else:
                cp, ce, _ = self._value(after, new_hard, new_ace, seen1)
            p += weight * cp
            e += weight * ce
        return p, e

    def _choices(
        self, counts: tuple[int, ...], hard: int, ace: bool, seen: bool
    ) -> list[tuple[Action, tuple[int, int]]]:
        depth = self.solver.depth(counts)
        choices = [(STAND, self._fixed(hard, ace, 0, seen, depth))]
        choices += [(Action("add", a), self._fixed(hard, ace, a, seen, depth)) for a in self.adders]
        if depth < self.solver.size:
            choices.append((HIT, self._hit(counts, hard, ace, seen)))
        return choices

    @staticmethod
    def _best(choices: list[tuple[Action, tuple[int, int]]]) -> int:
        best = 0
        for i, (_, pe) in enumerate(choices):
            if pe > choices[best][1]:  # lexicographic: P(success) first, then expected TRL
                best = i
        return best

    def _value(self, counts: tuple[int, ...], hard: int, ace: bool, seen: bool) -> tuple[int, int, int]:
        key = (counts, seen)
        found = self.memo.get(key)
        if found is None:
            depth = self.solver.size - sum(counts)
            unit = self.solver.depth_scale[depth] * self.solver.scale
            index, success, trl = self._best_fixed(hard, ace, seen)
            found = (unit * success, unit * trl, index)
            if depth < self.solver.size:
                hit = self._hit(counts, hard, ace, seen)
                if hit > found[:2]:  # strictly better: ties stay with Stand or the adder (as _best)
                    found = (*hit, len(self.adders) + 1)
            self.memo[key] = found
        return found

    def _best_fixed(self, hard: int, ace: bool, seen: bool) -> tuple[int, int, int]:
        """The best of Stand and the adders as (index in the choices, success 0/1, TRL); no depth needed."""
        key = (hard, ace, seen)
        found = self.fixed_memo.get(key)
        if found is None:
            options = []
            for extra in (0, *self.adders):
                total = _soft(hard + extra, ace)
                if total > BLACKJACK:  # BJ-7: an adder over 21 wraps as BJ-5
                    total -= BLACKJACK
                t = self.solver.trl[seen][total]
                options.append((1 if t >= 1 else 0, t))
            index = self._best([(STAND, option) for option in options])
            found = (index, *options[index])
            self.fixed_memo[key] = found
        return found

    def _decision(self, hand: rules.Hand) -> HandDecision:
        counts, hard, ace, seen = self._state(hand)
        choices = self._choices(counts, hard, ace, seen)
        best = self._best(choices)
        self.memo[(counts, seen)] = (*choices[best][1], best)
        unit = self.solver.depth_scale[self.solver.depth(counts)] * self.solver.scale
        odds = [ActionOdds(action, Fraction(p, unit), Fraction(e, unit)) for action, (p, e) in choices]
        hit = odds[-1] if odds[-1].action == HIT else None
        adders = tuple(o for o in odds if o.action.kind == "add")
        return HandDecision(total=hand.total, stand=odds[0], adders=adders, hit=hit, best=odds[best])

    def decide(self, hand: rules.Hand) -> Action:
        """The optimal move for a later state of this hand (same shoe, more cards drawn)."""
        if not hand.can_stand:
            raise IllegalMove("This hand has no decision to make now.")
        counts, hard, ace, seen = self._state(hand)
        choices = self._choices(counts, hard, ace, seen)
        return choices[self._best(choices)][0]


def plan_voluntary(hand: rules.Hand, shoe: Shoe | Iterable[Card]) -> VoluntaryPlan:
    """Solve a voluntary hand in progress against the shoe's remaining cards (the player sees every card)."""
    return VoluntaryPlan(hand, shoe)


def voluntary_decision(hand: rules.Hand, shoe: Shoe | Iterable[Card]) -> HandDecision:
    """BJ-4/BJ-7: exact P(success) and expected TRL of Stand, each adder, and Hit-then-optimal; the best."""
    return VoluntaryPlan(hand, shoe).decision
