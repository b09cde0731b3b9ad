"""Exact odds of blackjack task resolution (BJ-2..BJ-10) drawn from the channel's actual shoe.

The shoe is a multiset of remaining cards (not a fresh deck). What a hand's future depends on is the
remaining count of each card value (1..10) and, for the optional suit rules, a little about suits:

* BJ-9 (characteristic bonus): whether a card of the characteristic's suit has been played. A task may
  name several characteristics; the *tracked suits* are those whose characteristics' bonuses add up to
  something other than 0, and "which of them have shown" is a mask (``_Solver``).
* BJ-6 (a second bonus card when the bonus card's suit matches the card that made 21).

An involuntary hand (BJ-3) makes no choices, so it needs no suit state at all: one forward pass over
counts by value carries, besides each path's chance, per set of tracked suits its chance with no card of
those suits played (inclusion and exclusion then give each set of suits seen), and the suit-match chances
follow from the shoe's make-up by value (``_involuntary_numerators``).

For a voluntary hand with the characteristic bonus in play, the state is the remaining count of each
value and the remaining count of each value *in the characteristic's suit* (what the player sees: every
card, and which of them were of that suit). Given that, the cards of the other suits are a uniformly
random part of the shoe's other-suit cards of each value, with nothing known about which, so the chance
that two of them share a suit comes from the shoe's make-up by value; a card of the characteristic's
suit matches exactly the others of its suit. Every chance is exact, with both suit rules on too (the
tests enumerate every order of small shoes). With the suit rule off the characteristic's suit only
matters until it first shows, so the state shrinks to (counts by value, seen); with the characteristic
rule inactive the suits of a 21-card and its bonus card match with the shoe's chance by value (exact by
symmetry). With several tracked suits the state is (counts by value, mask seen): the masked mode
(``VoluntaryPlan._hit_masked``), exact with the suit rule off. With the suit rule on too, a match after a
tracked suit has shown is estimated from the shoe's make-up (the state does not say which cards of that
suit are gone), and the decision says it is an estimate (``HandDecision.exact``).

Memoisation is on those counts, never on card order. Probabilities are exact integers over a common
denominator (the falling factorial of the shoe's size times one constant for the suit-match chances),
turned into Fractions only for the results.

When no card is left to draw, the real bot reshuffles the discards (BJ-1, ``Shoe.draw``: the discard
pile only, not the cards of hands in play). The odds model that when they are given the discards (or a
``Shoe``, which brings them): the hand deals on from a uniformly shuffled discard pile. An involuntary
hand's forward pass goes on over the second pile (``_Piles``). A voluntary plan's state with every card
of the shoe drawn is a single one, so Hit from there is a plan of its own on the discards, and a 21 on
the shoe's last card or its second-to-last takes its bonus cards from them (``_refill_setup``).
Without discards, and when those run out too (the real bot then refuses to draw), a hand that would
need a card is counted as ending where it stands, and Hit is not offered. With a shoe of a dozen cards
or more an involuntary hand can never run out.

A voluntary hand's player knows the face-down card, so Stand and each skill adder have a certain
result; Hit is valued with optimal play afterwards: maximise P(success), then expected TRL. The search
decides on the total, the values of the cards gone and which of them were of the characteristic's suit
(only whether that suit has shown, when the suit rule is off).

The player also sees the other suits, and with the suit rule they can turn a later move: a 21-card's
bonus card matches with a chance that depends on which suits the cards drawn before it had. The search
averages over those suits, so where the best move depends on them its Hit figure would fall short of
optimal play. Without a tracked suit (``VoluntaryPlan._hit_plain``), each state's search also bounds how
far those suits can move its Hit (the match counts at the 21s below, per suit, lie within bounds of the
cards drawn since the root); where Stand or an adder is further from Hit's average than that, the move is
the same for every suit and the average is exact. Elsewhere the state is tainted, and Hit's figure at the
root is settled exactly from fresh plans of the cards actually left after each card that leads there
(``_refine_hit``), within a work budget; past it, or where no such bound is kept (a tracked suit with the
suit rule), the decision says its Hit figure is an estimate (``HandDecision.exact``).

With both suit rules, once the characteristic's suit has shown its bonus is settled, and the suits matter
only through BJ-6's match chance at a 21, which is linear in the counts of that suit left (per value). So
where the move from a state on is provably the same for every suit state (Stand or an adder beats Hit's
upper bound; or only Hit can still succeed), the state's value is a quadratic polynomial in those counts
with coefficients that depend on the counts by value alone: memoised once per counts by value
(``VoluntaryPlan._form``) and evaluated per suit state, exactly. Elsewhere the search goes on by suit state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import chain, repeat
from math import lcm
from operator import add, mul

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
BLACKJACK = rules.BLACKJACK

Counts = tuple[int, ...]
Runs = list[tuple[int, int, int, int]]  # (success 0/1, TRL, lowest value, highest value)
_Steps = tuple[list[tuple[int, int, bool, int]], list[int], list[int], list[int], list[int]]
# VoluntaryPlan._form: the coefficients of 1, c_1..c_10 and c_x c_w (x <= w, in _PAIRS' order), packed; or
# only the first, for a constant. A form may stop early: the coefficients past its end are 0.
_Form = list[int]
_PAIRS = [(x, w) for x in range(1, 11) for w in range(x, 11)]
_PAIR = [[0] * 11 for _ in range(11)]  # _PAIR[x][w]: the index of c_x c_w in a form (either order)
for _i, (_x, _w) in enumerate(_PAIRS, start=11):
    _PAIR[_x][_w] = _PAIR[_w][_x] = _i
_FORM_SIZE = 11 + len(_PAIRS)
# _ROW_END[x]: the length of a form whose c_x' c_w terms all have min(x', w) <= x (rows by the smaller value)
_ROW_END = [11 + sum(11 - r for r in range(1, x + 1)) for x in range(11)]
_ZEROS = repeat(0)  # pads the shorter of two forms being added (``VoluntaryPlan._hit_form``)


def _factors(v: int, n: int) -> list[int]:
    """What each coefficient of a child's form counts for in its parent's (``VoluntaryPlan._hit_form``),
    the child one card of value v down, with n such cards: n F(c) - c_v (F(c) - F(c - e_v)) takes b_v
    once less, S_vw (w != v) once less and S_vv twice less; b_v's gain of S_vv is added apart."""
    factors = [n] * _FORM_SIZE
    factors[v] = n - 1
    for w in VALUES:
        factors[_PAIR[v][w]] = n - 1
    factors[_PAIR[v][v]] = n - 2
    return factors


_FACTORS: dict[tuple[int, int], list[int]] = {}  # (v, n) -> _factors(v, n)
_NO_SPREAD = (0.0, 0.0)
# The work one decision may spend on fresh plans that settle the states whose move depends on suits the
# averaged search does not know (``VoluntaryPlan._refine_hit``), in states searched: this many times the
# plan's own, and at least the floor, a fresh plan's set-up counting as SETUP_COST states; past it the
# odds are marked an estimate.
REFINE_FACTOR = 3
REFINE_FLOOR = 3000
SETUP_COST = 50
# Float slack of the spread bound: its sums carry relative rounding far below this.
_SLACK = 1e-9
_MARGIN = 1 + _SLACK
_NOT_YET = (-1, -1)  # a memo lookup's default (a stored None means "not decided by Stand or an adder")


def _cards(shoe: Shoe | Iterable[Card]) -> tuple[Card, ...]:
    cards = tuple(shoe.remaining) if isinstance(shoe, Shoe) else tuple(shoe)
    if not all(isinstance(c, Card) for c in cards):
        raise RuleError("Card odds take the shoe's remaining cards.")
    return cards


def _soft(hard: int, ace: bool) -> int:
    """BJ-2 (as ``blackjack.card_total``): one ace counts 11 when that keeps the total at 21 or less."""
    return hard + 10 if ace and hard + 10 <= BLACKJACK else hard


class _Solver:
    """The shared machinery of one question: a shoe, a task, the rules in force, and the memos."""

    def __init__(
        self,
        remaining: tuple[Card, ...],
        skill: int,
        difficulty: int,
        characteristics: tuple[rules.Characteristic, ...],
        options: rules.HandOptions,
        start_hard: int = 0,
        seen: frozenset[Suit] = frozenset(),
        plan: bool = True,
        extra_scale: int = 1,
    ) -> None:
        """``plan``: build the shoe's tables for a voluntary plan (an involuntary hand needs only the
        task's: options, suits, TRL tables; ``_Piles`` has its shoe tables). ``seen``: the suits of the
        cards the hand has played (their characteristics' bonuses count already, BJ-9)."""
        # Validate the task as a hand would, and take the TRL table from the rule function (BJ-8).
        probe = rules.start_involuntary(skill, difficulty, options=options, characteristics=characteristics)
        self.options = probe.options
        # The tracked suits: a card of one changes the TRL (BJ-9), the net bonus of that suit's
        # characteristics once it shows. A mask has bit i set once a card of tracked[i] has been played.
        # A suit the hand has shown already is not tracked: its bonus counts whatever comes (``shown``).
        bonuses = rules.suit_bonuses(probe.characteristics) if probe.options.characteristic_rule else {}
        shown = sum(bonus for suit, bonus in bonuses.items() if suit in seen)
        self.tracked: tuple[Suit, ...] = tuple(s for s in Suit if s in bonuses and s not in seen)
        self.bit_of = {suit: 1 << i for i, suit in enumerate(self.tracked)}
        self.masks = 1 << len(self.tracked)
        self.suit: Suit | None = self.tracked[0] if len(self.tracked) == 1 else None
        self.track = bool(self.tracked)
        self.suit_rule = probe.options.suit_bonus
        # one tracked suit and the suit rule: keep counting that suit after it shows (BJ-6), exactly
        self.exact = len(self.tracked) == 1 and self.suit_rule
        # two or more tracked suits and the suit rule: the match chances are estimated (``VoluntaryPlan``)
        self.approx = len(self.tracked) > 1 and self.suit_rule
        self.root_mask = 0
        # (two rows at least: without a tracked suit, "seen" changes nothing, and helpers may ask it)
        self.trl = [
            _trl_row(
                probe.skill,
                probe.difficulty,
                shown + sum(bonuses[s] for s, b in self.bit_of.items() if mask & b),
            )
            for mask in range(max(self.masks, 2))
        ]
        if not plan:
            return
        self.counts0: Counts = _counts_by_value(remaining)
        self.size = len(remaining)
        by_suit = Counter((c.pip_value, c.suit) for c in remaining)
        # chars0[i]: the cards of tracked[i] left, by value; char0 the first's (the exact mode's suit)
        self.chars0: list[Counts] = [tuple(by_suit[(v, suit)] for v in VALUES) for suit in self.tracked]
        self.char0: Counts = self.chars0[0] if self.exact else (0,) * 10
        # Suit-match chances (BJ-6) of a 21-card of value x and a bonus card of value w: over all suits
        # (no characteristic in play), or over the other suits when both are known not to be of it. With
        # several tracked suits, per mask over the suits not still unseen (an estimate: ``approx``).
        suits = [s for s in Suit if s not in self.bit_of] if self.track else list(Suit)
        tables = [self._match_table(by_suit, suits)]
        if self.approx:
            tables = [
                self._match_table(by_suit, [s for s in Suit if s not in self.bit_of or mask & self.bit_of[s]])
                for mask in range(self.masks)
            ]
        denominators = [f.denominator for table in tables for row in table for f in row]
        self.scale = lcm(*denominators) * extra_scale  # extra: what a plan's discards need (VoluntaryPlan)
        self.match_masks = [_scaled(table, self.scale) for table in tables]
        self.match = self.match_masks[0]
        # depth_scale[k] = prod_{i=k}^{deepest-1} max(size - i, 1): the common denominator at depth k.
        deepest = self._deepest(start_hard)
        self.depth_scale = [1] * (deepest + 3)
        for k in range(deepest - 1, -1, -1):
            self.depth_scale[k] = self.depth_scale[k + 1] * max(self.size - k, 1)
        # char_prefixes[i][v]: the cards of tracked[i] left of values 1..v; char_prefix the exact mode's
        self.char_prefixes = [[0] * 11 for _ in self.tracked]
        for prefix, counts in zip(self.char_prefixes, self.chars0, strict=True):
            for v in VALUES:
                prefix[v] = prefix[v - 1] + counts[v - 1]
        self.char_prefix = self.char_prefixes[0] if self.exact else [0] * 11
        # runs[mask][w]: (success, TRL, lowest u, highest u) for a second bonus card u after a bonus card w.
        self.runs: list[list[Runs]] = [
            [self._runs(mask, w) if w else [] for w in range(11)] for mask in range(len(self.trl))
        ]
        self.single = [[self._pe(row[BLACKJACK + w]) for w in range(11)] for row in self.trl]

    @staticmethod
    def _pe(t: int) -> tuple[int, int]:
        return (1 if t >= 1 else 0), t

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

    def _runs(self, mask: int, w: int) -> Runs:
        runs: Runs = []
        for u in VALUES:
            t = self.trl[mask][BLACKJACK + w + u]  # bonus cards never wrap; an ace counts 1 (BJ-2)
            if runs and runs[-1][1] == t:
                runs[-1] = (runs[-1][0], t, runs[-1][2], u)
            else:
                runs.append((1 if t >= 1 else 0, t, u, u))
        return runs

    @staticmethod
    def _match_table(by_suit: Counter[tuple[int, Suit]], suits: list[Suit]) -> list[list[Fraction]]:
        """P(two distinct cards of values x and w share a suit), each uniform among the shoe's cards of
        its value in ``suits``."""
        rows, totals = _suit_rows(by_suit, suits)
        zero = Fraction(0)
        table = [[zero] * 11 for _ in range(11)]
        for x in VALUES:
            nx, row_x = totals[x], rows[x]
            if not nx:
                continue
            for w in VALUES:
                if x != w:
                    nw = totals[w]
                    if nw:
                        table[x][w] = Fraction(sum(map(mul, row_x, rows[w])), nx * nw)
                elif nx >= 2:
                    table[x][w] = Fraction(sum(n * (n - 1) for n in row_x), nx * (nx - 1))
        return table


def _suit_rows(by_suit: Counter[tuple[int, Suit]], suits: list[Suit]) -> tuple[list[list[int]], list[int]]:
    """Per value 0..10, the counts of ``by_suit`` in each of ``suits``, and their total: plain lists for the
    match tables, which looked a (value, Suit) key up 1,200 times a table (enum's ``__hash__`` runs in Python:
    a fifth of a last-move decision's set-up)."""
    rows = [[by_suit[(v, s)] for s in suits] for v in range(11)]
    return rows, [sum(row) for row in rows]


@lru_cache(maxsize=64)
def _most_gain(row: tuple[int, ...]) -> tuple[int, int]:
    """The most a second bonus card can move P(success) and the TRL after a 21 and a bonus card (BJ-6),
    over a TRL row's totals: the spread bound's (``VoluntaryPlan._hit_plain``)."""
    return (
        max(
            abs(int(row[BLACKJACK + w + u] >= 1) - int(row[BLACKJACK + w] >= 1))
            for w in VALUES
            for u in VALUES
        ),
        max(abs(row[BLACKJACK + w + u] - row[BLACKJACK + w]) for w in VALUES for u in VALUES),
    )


@lru_cache(maxsize=4096)
def _match_bounds(
    row_x: tuple[int, ...], row_w: tuple[int, ...], drawn_x: int, drawn_w: int
) -> tuple[int, int]:
    """Least and most of sum over suits s of c_xs c_ws (BJ-6: a 21-card of value x and a bonus card of
    value w of one suit), c = ``row`` less the cards drawn of each value, ``drawn_x`` and ``drawn_w`` of
    them, every split among the suits allowed; ``row_w`` empty: w = x, and the sum is of c_xs (c_xs - 1).

    With a = the cards drawn per suit, the sum is sum r_x r_w - sum a_w r_x - sum a_x r_w + sum a_x a_w:
    the two middle sums are least (most) with the cards drawn from the suits where the other value has
    fewest (most) cards, and the last lies within 0 .. min(drawn_x, drawn_w). For x = w, the sum of the
    squares is least with each card drawn from the largest pile left and most from the smallest.
    """
    if not row_w:
        largest, smallest = list(row_x), list(row_x)  # the piles left, drawn from the largest/smallest
        for _ in range(drawn_x):
            smallest[smallest.index(min(c for c in smallest if c))] -= 1
            largest[largest.index(max(largest))] -= 1
        left = sum(row_x) - drawn_x
        return sum(c * c for c in largest) - left, sum(c * c for c in smallest) - left

    def taken(drawn: int, caps: tuple[int, ...], weights: tuple[int, ...], high: bool) -> int:
        total = 0
        for weight, cap in sorted(zip(weights, caps, strict=True), reverse=high):
            take = min(cap, drawn)
            total += weight * take
            drawn -= take
        return total

    full = sum(a * b for a, b in zip(row_x, row_w, strict=True))
    least = full - taken(drawn_w, row_w, row_x, True) - taken(drawn_x, row_x, row_w, True)
    most = full - taken(drawn_w, row_w, row_x, False) - taken(drawn_x, row_x, row_w, False)
    return max(least, 0), most + min(drawn_x, drawn_w)


@lru_cache(maxsize=256)
def _square_widths(row: tuple[int, ...]) -> tuple[int, ...]:
    """Per number d of cards of one value drawn from piles of ``row`` (one per suit), how far apart the
    sum of the squares of the piles left can lie: most when each card comes from the smallest pile left,
    least when each comes from the largest (taking one from a pile of k lowers the sum by 2k - 1)."""
    most, least = list(row), list(row)
    widths = [0]
    for _ in range(sum(row)):
        most[most.index(min(c for c in most if c))] -= 1
        least[least.index(max(least))] -= 1
        widths.append(sum(c * c for c in most) - sum(c * c for c in least))
    return tuple(widths)


@lru_cache(maxsize=256)
def _trl_row(skill: int, difficulty: int, bonus: int) -> tuple[int, ...]:
    """BJ-8 from the rule function for every total a hand can reach, bonus cards included (a task's
    table, the same for every question about it: 126 calls of a set-up)."""
    return tuple(
        rules.task_resolution_level(total, skill, difficulty, bonus) for total in range(0, 2 * BLACKJACK + 21)
    )


def _counts_by_value(cards: Iterable[Card]) -> Counts:
    """How many of ``cards`` have each value 1..10 (an ace 1, a face card 10)."""
    counts = [0] * 11
    for card in cards:
        counts[card.pip_value] += 1
    return tuple(counts[1:])


def _scaled(table: list[list[Fraction]], scale: int) -> list[list[int]]:
    """``int(f * scale)`` of each chance, for a ``scale`` its denominators divide: without a Fraction
    multiplication each (121 of them a table)."""
    return [[f.numerator * (scale // f.denominator) for f in row] for row in table]


def _match_sums(
    counts: Sequence[int],
    row: Sequence[int],
    single: Sequence[tuple[int, int]],
    seconds: Sequence[tuple[int, int]],
    second: bool,
    scale: int,
) -> tuple[int, int, int, int]:
    """BJ-6 over bonus cards w (``counts[w]`` of each) that match the 21-card's suit with the chance
    ``row[w] / scale``: (P, E) of a single bonus card (``single``) and, ``second``, of a second one after a
    match (``seconds``: sums over the second cards), as ``VoluntaryPlan._bonus_pair`` adds them up."""
    p1 = e1 = p2 = e2 = 0
    for w in VALUES:
        n = counts[w]
        if not n:
            continue
        sp, se = single[w]
        if second:
            m = row[w]
            p1 += n * (scale - m) * sp
            e1 += n * (scale - m) * se
            sp, se = seconds[w]
            p2 += n * m * sp
            e2 += n * m * se
        else:
            p1 += n * scale * sp
            e1 += n * scale * se
    return p1, e1, p2, e2


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
    discards: Iterable[Card] | None = None,
    *,
    characteristics: Iterable[tuple[str, int]] = (),
) -> InvoluntaryOdds:
    """BJ-3: the TRL distribution of a whole involuntary hand drawn from the shoe's remaining cards.

    The task's characteristics (BJ-9) as ``blackjack.start_involuntary`` takes them: one as
    ``characteristic`` and its bonus, or several as ``characteristics`` ((name, bonus) pairs, or a hand's
    ``characteristics``).

    ``discards``: the shoe's discard pile, which an empty shoe reshuffles and deals on from (BJ-1, as
    ``Shoe.draw``); taken from ``shoe`` when that is a ``Shoe`` and ``discards`` is not given. Without
    discards, a hand that needs a card from an empty shoe ends where it stands (the module docstring).
    """
    if discards is None:
        discards = shoe.discards if isinstance(shoe, Shoe) else ()
    remaining = _cards(shoe)
    options = options or rules.HandOptions()
    named = rules.task_characteristics(characteristic, characteristic_bonus, characteristics)
    solver = _Solver(remaining, skill, difficulty, named, options, plan=False)
    piles = _Piles(solver, remaining, _cards(discards))
    trl = _distribution(_involuntary_numerators(solver, piles))
    return InvoluntaryOdds(trl=trl, success=trl.at_least(1), expected_trl=trl.expectation(lambda t: t))


class _Piles:
    """The cards an involuntary hand draws from, in order: the shoe's remaining cards, then (BJ-1) its
    discards, reshuffled when the shoe is empty. Pile 0 is the shoe, pile 1 the discards.

    ``left(i)``: the cards left in the pile the card at position i (0-based) comes from; ``depth_scale[k]``
    the product of ``left(i)`` over the positions from k on (a common denominator). Per set U of tracked
    suits (a mask, ``_involuntary_numerators``): ``outside[pile][U][v]``, the pile's cards of value v of
    a suit in U, and per pair of piles (21-card's, bonus card's) ``match[(a, b)][U]``, the suit-match
    chances by value over the suits not in U, as integers over ``scale``.
    """

    def __init__(self, solver: _Solver, remaining: tuple[Card, ...], discards: tuple[Card, ...]) -> None:
        self.sizes = (len(remaining), len(discards))
        self.total = len(remaining) + len(discards)
        by_suit = [Counter((c.pip_value, c.suit) for c in pile) for pile in (remaining, discards)]
        self.counts0: list[Counts] = [_counts_by_value(pile) for pile in (remaining, discards)]
        bit_of = solver.bit_of
        self.outside: list[list[Counts]] = [
            [
                tuple(sum(b[(v, suit)] for suit, bit in bit_of.items() if mask & bit) for v in VALUES)
                for mask in range(solver.masks)
            ]
            for b in by_suit
        ]
        fractions: dict[tuple[int, int], list[list[list[Fraction]]]] = {}
        # (21-card's pile, bonus card's pile) pairs that can occur
        pairs = [(0, 0), (0, 1), (1, 1)] if remaining and discards else [(1, 1)] if discards else [(0, 0)]
        for a, b in pairs:
            fractions[(a, b)] = [
                _pile_match_table(
                    by_suit[a], by_suit[b], [s for s in Suit if not mask & bit_of.get(s, 0)], a == b
                )
                for mask in range(solver.masks)
            ]
        denominators = [
            f.denominator for t in fractions.values() for table in t for row in table for f in row
        ]
        self.scale = scale = lcm(*denominators) if denominators else 1
        self.match = {k: [_scaled(table, scale) for table in t] for k, t in fractions.items()}
        # the most cards a hand can draw: the smallest values first (pile by pile) until past 20, + 2 bonus
        hard = drawn = 0
        for pile in (remaining, discards):
            for v in sorted(c.pip_value for c in pile):
                if hard > BLACKJACK - 1:
                    break
                hard += v
                drawn += 1
        deepest = drawn + 3
        self.depth_scale = [1] * (deepest + 3)
        for k in range(deepest - 1, -1, -1):
            self.depth_scale[k] = self.depth_scale[k + 1] * max(self.left(k), 1)

    def pile(self, position: int) -> int:
        return 0 if position < self.sizes[0] else 1

    def left(self, position: int) -> int:
        if position < self.sizes[0]:
            return self.sizes[0] - position
        return max(self.total - position, 0)


def _pile_match_table(
    a: Counter[tuple[int, Suit]], b: Counter[tuple[int, Suit]], suits: list[Suit], same: bool
) -> list[list[Fraction]]:
    """P(a card of value x from pile ``a`` and one of value w from pile ``b`` share a suit), each uniform
    among its pile's cards of its value in ``suits``; ``same``: one pile, two distinct cards."""
    if same:
        return _Solver._match_table(a, suits)
    (rows_a, totals_a), (rows_b, totals_b) = _suit_rows(a, suits), _suit_rows(b, suits)
    zero = Fraction(0)
    table = [[zero] * 11 for _ in range(11)]
    for x in VALUES:
        nx = totals_a[x]
        for w in VALUES:
            nw = totals_b[w]
            if nx and nw:
                table[x][w] = Fraction(sum(map(mul, rows_a[x], rows_b[w])), nx * nw)
    return table


def _involuntary_numerators(solver: _Solver, piles: _Piles) -> dict[int, int]:
    """TRL -> numerator over ``depth_scale[0] * scale``: one forward pass over counts by value.

    An involuntary hand makes no choices, so which values come decides every draw; suits only decide,
    at the end, which characteristics' bonuses count (BJ-9) and whether a bonus card matched (BJ-6).
    Given the values drawn, the cards of each value are a uniform sample of the pile's cards of that value,
    independent across values (and piles). So each path by value carries, per set U of tracked suits (a
    mask), the weight ``w[U]``: products of the cards left of each value drawn *not* of a suit in U, the
    chance of the path with no card of those suits (``w[0]`` is the path's chance). The chance that the
    suits seen are exactly S then follows by inclusion and exclusion over the U between the suits not in S
    and all of them. A bonus card matches the 21-card's suit with the piles' chance by value over the suits
    not in U on ``w[U]``, where both cards are known not to be of those suits. Every weight is a product
    of counts of the state, so states merge on counts by value (of the pile being drawn; the shoe is all
    drawn before the discards are).
    """
    masks = solver.masks
    scale = piles.scale
    ds = piles.depth_scale
    size = piles.total
    shoe_size = piles.sizes[0]
    two_bonus = solver.suit_rule
    top = 2 * BLACKJACK + 21
    # at[U][total]: final total -> numerator, paths with no card of a suit in U
    at = [[0] * top for _ in range(masks)]
    # level: counts of the pile drawn from -> [hard, ace, w[0], w[1], ...]; one level, one number of cards
    start = 0 if shoe_size else 1
    level: dict[Counts, list[int]] = {piles.counts0[start]: [0, 0, *([1] * masks)]}
    if not size:  # nothing to draw: the hand stands at 0 (see the module docstring)
        for row in at:
            row[0] = ds[0] * scale
        level = {}
    depth = 0
    subsets = range(masks)
    while level:
        if depth == shoe_size and depth:  # the shoe is empty: deal on from the reshuffled discards (BJ-1)
            (last,) = level.values()  # every card of the shoe drawn: one state
            level = {piles.counts0[1]: last}
        outside = piles.outside[piles.pile(depth)]
        out1 = outside[-1]  # (one tracked suit, the common case, takes a shorter way below)
        nxt: dict[Counts, list[int]] = {}
        made: dict[tuple[Counts, int], list[int]] = {}  # (counts, value of the 21-card) -> weights
        unit = ds[depth + 1] * scale
        for counts, state in level.items():
            hard, ace = state[0], state[1]
            for v in VALUES:
                n = counts[v - 1]
                if not n:
                    continue
                if masks <= 2:
                    weights = [state[2] * n] if masks == 1 else [state[2] * n, state[3] * (n - out1[v - 1])]
                else:
                    weights = [state[2 + u] * (n - outside[u][v - 1]) for u in subsets]
                new_hard = hard + v
                new_ace = ace or v == 1
                total = new_hard + 10 if new_ace and new_hard + 10 <= BLACKJACK else new_hard
                if total > BLACKJACK:  # BJ-5: wraps and ends
                    for u in subsets:
                        at[u][new_hard - BLACKJACK] += weights[u] * unit
                    continue
                child = (*counts[: v - 1], n - 1, *counts[v:])
                if total == BLACKJACK:  # BJ-6, below
                    key = (child, v)
                    found = made.get(key)
                    if found is None:
                        made[key] = weights
                    else:
                        for u in subsets:
                            found[u] += weights[u]
                elif total >= rules.DEALER_STANDS_ON or depth + 1 == size:  # BJ-3 (or no card left)
                    for u in subsets:
                        at[u][total] += weights[u] * unit
                else:
                    found = nxt.get(child)
                    if found is None:
                        nxt[child] = [new_hard, int(new_ace), *weights]
                    else:
                        for u in subsets:
                            found[2 + u] += weights[u]
        depth += 1
        if made:
            _bonus_forward(piles, made, depth, two_bonus, at)
        level = nxt
    return _by_suits_seen(solver, at)


def _by_suits_seen(solver: _Solver, at: list[list[int]]) -> dict[int, int]:
    """TRL -> numerator from ``at[U][total]`` (paths with no card of a suit in U): the paths whose tracked
    suits seen are exactly S are sum over U in S of (-1)^|U| at[U + the suits not in S][total], and
    their TRL counts the bonuses of S (BJ-9)."""
    masks = solver.masks
    full = masks - 1
    out: dict[int, int] = {}
    for seen in range(masks):
        row = solver.trl[seen]
        parts = [
            (u | (full & ~seen), -1 if bin(u).count("1") % 2 else 1) for u in range(masks) if u & ~seen == 0
        ]
        for total in range(len(at[0])):
            weight = sum(sign * at[u][total] for u, sign in parts)
            if weight:
                out[row[total]] = out.get(row[total], 0) + weight
    return out


def _bonus_forward(
    piles: _Piles, made: dict[tuple[Counts, int], list[int]], depth: int, two_bonus: bool, at: list[list[int]]
) -> None:
    """Add the bonus cards (BJ-6) after the 21s in ``made`` (``depth`` cards drawn, the 21-card last;
    the counts are of the 21-card's pile, after it)."""
    scale, ds = piles.scale, piles.depth_scale
    subsets = range(len(at))
    left = piles.total - depth
    if left == 0:  # no bonus card can be drawn (see the module docstring)
        unit = ds[depth] * scale
        for weights in made.values():
            for u in subsets:
                at[u][BLACKJACK] += weights[u] * unit
        return
    second = two_bonus and left > 1
    d1, d2 = ds[depth + 1], ds[depth + 2]
    # The piles of the 21-card, the bonus card and a second bonus card (the shoe may run out between).
    px, pw, pu = piles.pile(depth - 1), piles.pile(depth), piles.pile(depth + 1)
    out_w, out_u = piles.outside[pw], piles.outside[pu]
    match = piles.match[(px, pw)]
    # Per counts of the bonus card's pile, the weights of "a bonus card w that matched", over 21-cards.
    matched: dict[Counts, list[list[int]]] = {}
    for (counts, x), weights in made.items():
        if pw != px:  # the 21-card was the shoe's last card: the bonus card comes from the discards
            counts = piles.counts0[pw]
        found = None
        if second:
            found = matched.get(counts)
            if found is None:
                found = matched[counts] = [[0] * 11 for _ in subsets]
        for u in subsets:
            weight, outside, row = weights[u], out_w[u], at[u]
            if not weight:
                continue
            if found is None:  # no suit rule, or no card left for a second bonus card
                unit = weight * scale * d1
                for w in VALUES:
                    n = counts[w - 1] - outside[w - 1]  # the bonus card is not of a suit in U either
                    if n:
                        row[BLACKJACK + w] += n * unit
                continue
            row_match, row_found = match[u][x], found[u]
            for w in VALUES:
                n = counts[w - 1] - outside[w - 1]
                if n:
                    a = weight * n
                    m = row_match[w]
                    row[BLACKJACK + w] += a * (scale - m) * d1
                    row_found[w] += a * m
    for counts, per_subset in matched.items():
        # the second bonus card: from the cards left after w (counted below), or the discards
        pile = counts if pu == pw else piles.counts0[pu]
        for u in subsets:
            row, outside, row_at = per_subset[u], out_u[u], at[u]
            avail = [0, *(n - o for n, o in zip(pile, outside, strict=True))]
            for w in VALUES:
                a = row[w] * d2
                if not a:
                    continue
                if pu == pw:
                    avail[w] -= 1
                for v in VALUES:
                    if avail[v]:
                        row_at[BLACKJACK + w + v] += a * avail[v]
                if pu == pw:
                    avail[w] += 1


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
    # False when Hit's odds (and so ``best``) are an estimate, not exact optimal play by a player who sees
    # every card: the UI marks them (the module docstring says when)
    exact: bool = True

    @property
    def options(self) -> tuple[ActionOdds, ...]:
        """Every move in the order Stand, adders (ascending), Hit."""
        return (self.stand, *self.adders, *((self.hit,) if self.hit is not None else ()))


class VoluntaryPlan:
    """Optimal play of one voluntary hand from a given shoe; ``decide`` answers for any later state too.

    The search keeps the state's counts in two mutable lists (``cnt``: cards left by value, ``chr``: of
    those, cards of the characteristic's suit), changed before a recursive call and restored after it,
    and memoises on integer codes of them: ``ckey`` (counts by value, mixed radix) and ``skey`` (counts of
    the characteristic's suit by value, the same radices above ``ckey``'s). ``seen`` is a mask of the
    tracked suits (``_Solver.tracked``) a played card has shown. A state's memo key is ``ckey + skey`` with
    one tracked suit and both suit rules (the exact mode); ``ckey + seen * span`` otherwise (a tracked suit
    then matters only until it shows: the masked mode, ``_hit_masked``); ``ckey`` when suits cannot change
    the TRL.
    """

    def __init__(
        self, hand: rules.Hand, shoe: Shoe | Iterable[Card], discards: Iterable[Card] | None = None
    ) -> None:
        if not isinstance(hand, rules.Hand) or hand.mode is not rules.HandMode.VOLUNTARY:
            raise RuleError("A voluntary decision needs a voluntary hand.")
        if not hand.can_stand:
            raise IllegalMove(
                "This hand has no decision to make now (it needs a card, a bonus, or has ended)."
            )
        if discards is None:
            discards = shoe.discards if isinstance(shoe, Shoe) else ()
        self.root = hand
        self.exact_odds = True  # (``_setup`` clears it when the odds are an estimate)
        self._setup(
            hand,
            _cards(shoe),
            _cards(discards),
            sum(c.pip_value for c in hand.cards),
            any(c.rank == 1 for c in hand.cards),
            frozenset(c.suit for c in hand.played),
        )
        self.decision = self._decision(hand)

    @classmethod
    def _from_state(
        cls, task: rules.Hand, pile: tuple[Card, ...], hard: int, ace: bool, seen: frozenset[Suit]
    ) -> VoluntaryPlan:
        """A plan from a state, not a hand: the hand of ``task`` at (hard, ace, seen) with ``pile`` to draw
        from (the reshuffled discards, when the shoe ran out; no discards behind them)."""
        plan = cls.__new__(cls)
        plan.root = task
        plan.exact_odds = True
        plan._setup(task, pile, (), hard, ace, seen)
        return plan

    def _setup(
        self,
        task: rules.Hand,
        remaining: tuple[Card, ...],
        pile: tuple[Card, ...],
        hard: int,
        ace: bool,
        seen: frozenset[Suit],
    ) -> None:
        hand = task
        self.seen_suits = seen  # the suits the hand has shown (the fresh plans of ``_fresh_best`` too)
        self.remaining = remaining
        self.pile = pile
        self.root_hard, self.root_ace = hard, ace
        # BJ-1: when the shoe runs out mid-hand the bot deals on from its reshuffled discards. That can
        # matter only if the hand can draw all but one of the shoe's cards and still be in play.
        shoe_values = sorted(c.pip_value for c in remaining)
        self.refills = bool(pile) and hard + sum(shoe_values[:-1]) <= BLACKJACK
        self.refill_plan: VoluntaryPlan | None = None
        extra = 1
        if self.refills:
            extra = self._refill_setup(task, remaining, pile, hard, ace, seen)
        solver = self.solver = _Solver(
            remaining,
            hand.skill,
            hand.difficulty,
            hand.characteristics,
            hand.options,
            start_hard=hard,
            seen=seen,
            extra_scale=extra,
        )
        self.adders = hand.allowed_adders
        # Estimates: several tracked suits with the suit rule (the masked mode cannot follow a match after
        # a tracked suit shows), and one tracked suit with it (the exact mode follows that suit, but its
        # search averages over the other suits without the bounds ``_hit_plain`` keeps)
        if solver.approx or solver.exact:
            self.exact_odds = False
        self.exact = solver.exact  # both suit rules: the state holds the characteristic's suit by value
        self.track = solver.track
        self.masked = solver.track and not solver.exact  # the state holds the mask of suits seen
        self.masks = solver.masks
        # per mask, the tracked suits still unseen: (bit, cards of that suit by value 0..10) of each
        self.unseen_prefixes = [
            [
                (bit, prefix)
                for bit, prefix in zip(solver.bit_of.values(), solver.char_prefixes, strict=True)
                if not mask & bit
            ]
            for mask in range(solver.masks)
        ]
        self.unseen_tables: dict[int, list[tuple[int, list[tuple[int, int]], int, int]]] = {}
        self.unseen_suits = [
            [
                (bit, [0, *counts])
                for bit, counts in zip(solver.bit_of.values(), solver.chars0, strict=True)
                if not mask & bit
            ]
            for mask in range(solver.masks)
        ]
        self.cnt = [0, *solver.counts0]  # by value 1..10, changed and restored during the search
        self.chr = [0, *solver.char0]
        self.char0 = [0, *solver.char0]
        place = [0] * 11
        span = 1
        for v in VALUES:
            place[v] = span
            span *= solver.counts0[v - 1] + 1
        self.place = place
        self.span = span  # every ckey is below it
        self.suit_place = [p * span for p in place]
        self.ckey0 = sum(place[v] * self.cnt[v] for v in VALUES)
        self.skey0 = sum(self.suit_place[v] * self.chr[v] for v in VALUES) if self.exact else 0
        self.memo: dict[int, tuple[int, int]] = {}
        self.robust_memo: dict[int, tuple[int, int] | None] = {}
        self.bound_memo: dict[int, tuple[int, int, int, int]] = {}
        self.bonus_bound_memo: dict[int, tuple[int, int]] = {}
        self.pair_memo: dict[int, tuple[int, int]] = {}
        self.second_memo: dict[int, list[tuple[int, int]]] = {}
        self.form_memo: dict[int, _Form | None] = {}  # _form: seen states' values as polynomials in chr
        self.both_tables: dict[tuple[int, int], tuple[list[int], list[int], list[int], list[int], int]] = {}
        self.monomials: dict[int, list[int]] = {}  # skey -> _evaluate's monomials of that suit state
        self.hit_wins: set[int] = set()  # _robust keys where Hit can succeed and Stand and the adders not
        # (hard, ace, seen) -> the best of Stand and the adders (index, success 0/1, TRL), and the most
        # success and the most TRL any of them gives
        self.fixed_memo: dict[tuple[int, bool, int], tuple[int, int, int]] = {}
        self.fixed_max_memo: dict[tuple[int, bool, int], tuple[int, int]] = {}
        self.steps_memo: dict[tuple[int, bool, int], _Steps] = {}
        # sure[total]: a success whichever characteristics' bonuses count (BJ-8, BJ-9)
        self.sure = [all(row[t] >= 1 for row in solver.trl) for t in range(len(solver.trl[0]))]
        self.doomed = [all(row[t] < 1 for row in solver.trl) for t in range(len(solver.trl[0]))]
        # _bonus_pair's tables (the exact mode): a bonus card w of the characteristic's suit (never a match
        # for a 21-card of another suit), and per seen-flag and 21-card x one of another suit that did not
        # match x's
        scale = solver.scale
        single = solver.single
        self.suited_single = [(scale * p, scale * e) for p, e in single[-1]]
        self.no_match = {
            seen: [
                [((scale - row[w]) * p, (scale - row[w]) * e) for w, (p, e) in enumerate(single[seen])]
                for row in solver.match
            ]
            for seen in ((0, 1) if self.exact else ())
        }
        self.refill_hit: tuple[int, int] | None = None  # Hit's value once the shoe is empty (BJ-1)
        # With the suit rule and no tracked suit the search averages over which suits the drawn cards
        # had; ``certify`` bounds how far those suits can move each state's Hit (``_hit_plain``).
        self.certify = solver.suit_rule and not solver.track
        self.spread: dict[int, tuple[float, float]] = {}  # key -> bound on V's move over the suits
        self.tainted: set[int] = set()  # keys whose value leans on a move the suits may change
        self.last_spread: tuple[float, float, bool] = (0.0, 0.0, False)  # of the latest _hit_plain
        self.refill_spread: tuple[float, float, bool] = (0.0, 0.0, False)
        self.deviation_memo: dict[int, tuple[float, float]] = {}
        self.budget: list[int] = []  # shared with the fresh plans it builds (``_refine_hit``)
        # and their results, by the shoe's make-up (suits in any order: none is tracked) and the hand
        self.fresh: dict[tuple[object, ...], tuple[Fraction, Fraction]] = {}
        if self.certify:
            self._certify_setup(remaining)
        # _form packs a (P, E) pair of numerators as P << shift + E: |E| stays below half of 1 << shift
        most = max(abs(t) for row in solver.trl for t in row) + 1
        self.shift = (solver.depth_scale[0] * scale * most).bit_length() + 2
        self.mask = (1 << self.shift) - 1
        self.suited_packed = [(p << self.shift) + e for p, e in self.suited_single]
        self.no_match_packed = [[(p << self.shift) + e for p, e in row] for row in self.no_match.get(1, [])]

    # -- the discards (BJ-1) ----------------------------------------------------------------------------

    def _refill_setup(
        self,
        task: rules.Hand,
        remaining: tuple[Card, ...],
        pile: tuple[Card, ...],
        hard: int,
        ace: bool,
        seen: frozenset[Suit],
    ) -> int:
        """Prepare dealing on from the discards; return what the plan's common denominator must hold.

        With every card of the shoe drawn, the hand's state is one: (hard, ace, seen) of all of them. From
        there Hit plays on from the discards: a plan of its own (``refill_plan``). A 21 made by the shoe's
        last card or its second-to-last takes its bonus cards from the discards (``_refill_bonus``).
        """
        probe = _Solver(
            remaining, task.skill, task.difficulty, task.characteristics, task.options, seen=seen, plan=False
        )
        self.pile_counts = [0] * 11
        # per tracked suit, (its bit, the discards' cards of it by value)
        self.pile_chars = [(bit, [0] * 11) for bit in probe.bit_of.values()]
        for card in pile:
            self.pile_counts[card.pip_value] += 1
            bit = probe.bit_of.get(card.suit)
            if bit:
                self.pile_chars[bit.bit_length() - 1][1][card.pip_value] += 1
        # a 21-card from the shoe and a bonus card from the discards share a suit (over the other suits
        # when both are known not to be of a tracked suit)
        shoe_by_suit = Counter((c.pip_value, c.suit) for c in remaining)
        pile_by_suit = Counter((c.pip_value, c.suit) for c in pile)
        suits = [s for s in Suit if s not in probe.bit_of]
        self.cross = _pile_match_table(shoe_by_suit, pile_by_suit, suits, False)
        size = len(pile)
        extra = size * max(size - 1, 1) * lcm(*(f.denominator for row in self.cross for f in row))
        all_hard = hard + sum(c.pip_value for c in remaining)
        all_ace = ace or any(c.rank == 1 for c in remaining)
        all_seen = seen | {c.suit for c in remaining}
        self.switch = (all_hard, all_ace)  # the state with every card of the shoe drawn
        if _soft(all_hard, all_ace) < BLACKJACK:  # the hand can be in play with the shoe empty
            sub = self.refill_plan = VoluntaryPlan._from_state(task, pile, all_hard, all_ace, all_seen)
            extra = lcm(extra, sub.solver.depth_scale[0] * sub.solver.scale)
        return extra

    def _refill_hit_value(self) -> tuple[int, int]:
        """Hit's (P, E) numerators with the shoe empty (at depth ``size``): the discards' own plan."""
        if self.refill_hit is None:
            sub = self.refill_plan
            assert sub is not None
            hard, ace = self.switch
            p, e = sub._hit(sub.ckey0, sub.skey0, hard, ace, sub.solver.root_mask, sub.solver.size)
            self.refill_spread = sub.last_spread
            unit = sub.solver.depth_scale[0] * sub.solver.scale
            factor, rest = divmod(self.solver.depth_scale[self.solver.size] * self.solver.scale, unit)
            assert not rest
            self.refill_hit = (p * factor, e * factor)
        return self.refill_hit

    def _refill_bonus(
        self, made_by: int, made_by_bit: int, seen: int, left: int, last_bit: int
    ) -> tuple[Fraction, Fraction]:
        """BJ-6 with the discards: (P, E) after a 21 made by a card of value ``made_by`` with ``left`` (0
        or 1) cards in the shoe. With 0 the bonus cards come from the discards; with 1 the bonus card is
        the shoe's last (``cnt`` holds it) and a second from the discards. ``made_by_bit`` and
        ``last_bit``: the tracked suit (its bit) the 21-card and the shoe's last card are known to be of,
        0 when none (the exact mode, and a tracked suit's first card in the masked mode, tell them).
        """
        solver = self.solver
        trl, suit_rule = solver.trl, solver.suit_rule
        n_pile, c_piles = self.pile_counts, self.pile_chars
        size = len(self.pile)

        def classes(u: int, skip: int, skip_bit: int) -> list[tuple[int, int]]:
            """(count, bit) of the discards' cards of value u per tracked suit and the rest (bit 0), less
            the card ``skip`` already taken from them."""
            rest = n_pile[u] - (u == skip)
            out = []
            for bit, counts in c_piles:
                c = counts[u] - (u == skip and skip_bit == bit)
                out.append((c, bit))
                rest -= c
            out.append((rest, 0))
            return out

        def second(total: int, seen1: int, skip: int, skip_bit: int) -> tuple[Fraction, Fraction]:
            """A second bonus card from the discards (less the card ``skip`` already taken from them)."""
            p = e = 0
            for u in VALUES:
                for weight, bit in classes(u, skip, skip_bit):
                    if weight:
                        t = trl[seen1 | bit][total + u]
                        p += weight * (t >= 1)
                        e += weight * t
            count = size - (skip > 0)
            return Fraction(p, count), Fraction(e, count)

        def single(total: int, seen1: int) -> tuple[Fraction, Fraction]:
            t = trl[seen1][total]
            return Fraction(int(t >= 1)), Fraction(t)

        def match(bit: int, table: Fraction) -> Fraction:
            """The chance that the 21-card and a bonus card (of tracked suit ``bit``, or 0) share a suit."""
            if solver.track and (made_by_bit or bit):
                return Fraction(int(made_by_bit == bit))
            return table

        if left == 1:
            w = next(v for v in VALUES if self.cnt[v])
            row = solver.match_masks[seen if solver.approx else 0][made_by]
            chance = match(last_bit, Fraction(row[w], solver.scale))
            seen1 = seen | last_bit
            p0, e0 = single(BLACKJACK + w, seen1)
            if not suit_rule or not chance:
                return p0, e0
            p2, e2 = second(BLACKJACK + w, seen1, 0, 0)
            return p0 + chance * (p2 - p0), e0 + chance * (e2 - e0)
        p = e = Fraction(0)
        for w in VALUES:
            for weight, bit in classes(w, 0, 0):
                if not weight:
                    continue
                seen1 = seen | bit
                chance = match(bit, self.cross[made_by][w])
                p0, e0 = single(BLACKJACK + w, seen1)
                if suit_rule and chance and size > 1:
                    p2, e2 = second(BLACKJACK + w, seen1, w, bit)
                    p0, e0 = p0 + chance * (p2 - p0), e0 + chance * (e2 - e0)
                p += weight * p0
                e += weight * e0
        return p / size, e / size

    def _refill_bonus_numerators(
        self, made_by: int, made_by_bit: int, seen: int, left: int, last_bit: int
    ) -> tuple[int, int]:
        p, e = self._refill_bonus(made_by, made_by_bit, seen, left, last_bit)
        unit = self.solver.depth_scale[self.solver.size - left] * self.solver.scale
        p, e = p * unit, e * unit
        assert p.denominator == 1 and e.denominator == 1
        return p.numerator, e.numerator

    # -- the state of a hand --------------------------------------------------------------------------

    def _left_after(self, drawn: Sequence[Card]) -> tuple[list[int], list[int], int]:
        """(cards left by value, of them of the characteristic's suit (the exact mode), the mask of
        tracked suits seen) after ``drawn`` were drawn from this plan's cards."""
        solver = self.solver
        counts = [0, *solver.counts0]
        of_suit = [0, *solver.char0]
        seen = solver.root_mask
        bit_of = solver.bit_of
        for card in drawn:
            counts[card.pip_value] -= 1
            bit = bit_of.get(card.suit, 0)
            seen |= bit
            if bit and self.exact:
                of_suit[card.pip_value] -= 1
        if min(counts) < 0 or min(of_suit) < 0:
            raise RuleError("That hand drew cards this plan's shoe does not hold.")
        return counts, of_suit, seen

    def _enter(self, drawn: Sequence[Card]) -> tuple[int, int, int, int]:
        """Load a state into the search lists: (ckey, skey, seen, cards left)."""
        counts, of_suit, seen = self._left_after(drawn)
        self.cnt[:] = counts
        if self.exact:
            self.chr[:] = of_suit
        ckey = sum(self.place[v] * counts[v] for v in VALUES)
        skey = sum(self.suit_place[v] * of_suit[v] for v in VALUES) if self.exact else 0
        return ckey, skey, seen, sum(counts)

    def _key(self, ckey: int, skey: int, seen: int) -> int:
        if self.exact:
            return ckey + skey
        return ckey + self.span * seen

    # -- Stand and the adders -------------------------------------------------------------------------

    def _fixed(self, hard: int, ace: bool, extra: int, seen: int, depth: int) -> tuple[int, int]:
        """(P, E) numerators of ending now with ``extra`` added (0 = Stand), wrapping over 21 (BJ-5, BJ-7)."""
        total = _soft(hard + extra, ace)
        if total > BLACKJACK:
            total -= BLACKJACK
        t = self.solver.trl[seen][total]
        unit = self.solver.depth_scale[depth] * self.solver.scale
        return (unit if t >= 1 else 0, t * unit)

    def _fixed_options(self, hard: int, ace: bool, seen: int) -> list[tuple[int, int]]:
        options = []
        for extra in (0, *self.adders):
            total = _soft(hard + extra, ace)
            if total > BLACKJACK:  # BJ-7: an adder over 21 wraps as BJ-5
                total -= BLACKJACK
            t = self.solver.trl[seen][total]
            options.append((1 if t >= 1 else 0, t))
        return options

    def _best_fixed(self, hard: int, ace: bool, seen: int) -> tuple[int, int, int]:
        """The best of Stand and the adders as (index in the choices, success 0/1, TRL); no depth needed."""
        key = (hard, ace, seen)
        found = self.fixed_memo.get(key)
        if found is None:
            options = self._fixed_options(hard, ace, seen)
            index = self._best([(STAND, option) for option in options])
            found = self.fixed_memo[key] = (index, *options[index])
        return found

    def _fixed_max(self, hard: int, ace: bool, seen: int) -> tuple[int, int]:
        """The most success and, apart, the most TRL that Stand or an adder gives (for ``_bound``)."""
        key = (hard, ace, seen)
        found = self.fixed_max_memo.get(key)
        if found is None:
            options = self._fixed_options(hard, ace, seen)
            found = self.fixed_max_memo[key] = (max(p for p, _ in options), max(t for _, t in options))
        return found

    # -- the search -----------------------------------------------------------------------------------

    def _hit(self, ckey: int, skey: int, hard: int, ace: bool, seen: int, left: int) -> tuple[int, int]:
        """(P, E) numerators of Hit then optimal play, at the state's depth (``cnt``/``chr`` hold it).

        The memo lookups of the children are inlined (``_key``, ``_child``): this loop is the hot path.
        """
        if self.masked:
            return self._hit_masked(ckey, hard, ace, seen, left)
        if self.certify:
            return self._hit_plain(ckey, hard, ace, left)
        solver = self.solver
        unit = solver.depth_scale[solver.size - left + 1] * solver.scale
        cnt, chr_, place, suit_place = self.cnt, self.chr, self.place, self.suit_place
        memo, robust_memo, pair_memo = self.memo, self.robust_memo, self.pair_memo
        form_memo = self.form_memo
        exact = self.exact
        split = exact or (self.track and not seen)  # a card of the characteristic's suit is told apart
        # memo key = counts code + offset: the suit code (both rules) or the seen flag (only BJ-9)
        offset = skey if exact else (self.span if self.track and seen else 0)
        suited_offset = self.span if self.track and not exact else 0
        unseen = not seen
        robust: tuple[int, int] | None
        # The cards that wrap (BJ-5) end the hand: their part is a dot product with the counts.
        steps, wrap_p, wrap_e, suited_p, suited_e = self._steps(hard, ace, seen)
        p = sum(map(mul, cnt, wrap_p))
        e = sum(map(mul, cnt, wrap_e))
        if split and unseen:
            p += sum(map(mul, chr_, suited_p))
            e += sum(map(mul, chr_, suited_e))
        p *= unit
        e *= unit
        for v, new_hard, new_ace, total in steps:
            n = cnt[v]
            if not n:
                continue
            c = chr_[v] if split else 0
            o = n - c
            ck = ckey - place[v]
            cnt[v] = n - 1
            if total == BLACKJACK:  # BJ-6
                if exact and left > 2:  # both ways at once (each such 21 state has this one parent)
                    bp, be = self._bonus_both(ck, v, o, c, seen, left - 1)
                    p += bp
                    e += be
                    cnt[v] = n
                    continue
                if o:
                    found = pair_memo.get((ck + offset) * 176 + 16 * v)
                    if found is None:
                        found = self._bonus_pair(ck, skey, v, False, seen, left - 1)
                    p += o * found[0]
                    e += o * found[1]
                if c:
                    if exact:
                        sk = skey - suit_place[v]
                        chr_[v] = c - 1
                        found = pair_memo.get((ck + sk) * 176 + 16 * v + 1)
                    else:
                        sk = skey
                        found = pair_memo.get((ck + suited_offset) * 176 + 16 * v + 1)
                    if found is None:
                        found = self._bonus_pair(ck, sk, v, True, True, left - 1)
                    chr_[v] = c
                    p += c * found[0]
                    e += c * found[1]
                cnt[v] = n
                continue
            if o:
                robust = _NOT_YET
                if exact:
                    robust = robust_memo.get(2 * ck + unseen, _NOT_YET)
                    if robust is _NOT_YET:
                        robust = self._robust(ck, new_hard, new_ace, unseen, left - 1)
                if robust is None or robust is _NOT_YET:
                    robust = memo.get(ck + offset)
                    if robust is None:
                        robust = self._value(ck, skey, new_hard, new_ace, seen, left - 1)
                p += o * robust[0]
                e += o * robust[1]
            if c:
                robust = _NOT_YET
                if exact:
                    robust = robust_memo.get(2 * ck, _NOT_YET)
                    if robust is _NOT_YET:
                        robust = self._robust(ck, new_hard, new_ace, False, left - 1)
                if robust is None or robust is _NOT_YET:
                    if exact:
                        sk = skey - suit_place[v]
                        chr_[v] = c - 1
                        form = form_memo.get(ck)  # (its value is not memoised: few are asked twice)
                        robust = memo.get(ck + sk) if form is None else self._evaluate(form, sk)
                    else:
                        sk = skey
                        robust = memo.get(ck + suited_offset)
                    if robust is None:
                        robust = self._value(ck, sk, new_hard, new_ace, True, left - 1)
                    chr_[v] = c
                p += c * robust[0]
                e += c * robust[1]
            cnt[v] = n
        return p, e

    def _unseen_table(self, seen: int) -> list[tuple[int, list[tuple[int, int]], int, int]]:
        """The masked mode, per value w: the cards of w of the tracked suits still unseen (all theirs are
        still in the shoe, ``chars0``): how many, (count, mask after) per suit, and ``scale`` times the
        sums of the success and the TRL of a single bonus card among them (``_bonus_masked``)."""
        found = self.unseen_tables.get(seen)
        if found is None:
            single, scale = self.solver.single, self.solver.scale
            found = []
            for w in range(11):
                parts = [(counts[w], seen | bit) for bit, counts in self.unseen_suits[seen] if counts[w]]
                found.append(
                    (
                        sum(c for c, _ in parts),
                        parts,
                        scale * sum(c * single[mask][w][0] for c, mask in parts),
                        scale * sum(c * single[mask][w][1] for c, mask in parts),
                    )
                )
            self.unseen_tables[seen] = found
        return found

    def _certify_setup(self, remaining: tuple[Card, ...]) -> None:
        """Tables of the spread bound (``_hit_plain``, ``_deviation``): how far apart the suits' counts of
        each value lie, and the most a second bonus card can move P(success) and the TRL (BJ-6)."""
        by_suit = Counter((c.pip_value, c.suit) for c in remaining)
        rows = [tuple(by_suit[(v, suit)] for suit in Suit) for v in range(11)]
        self.suit_rows = rows
        self.p_bounds_memo: dict[int, tuple[float, float]] = {}
        self.suit_gap = [max(row) - min(row) for row in rows]
        # for ``_hit_plain``'s quick sum over w of ``_deviation``'s widths: gap_x + 1 and the other gaps
        self.gap1 = [g + 1 for g in self.suit_gap]
        self.gap2 = [sum(self.suit_gap) - g for g in self.suit_gap]
        self.counts_root = [0, *self.solver.counts0]
        self.gain_most = _most_gain(self.solver.trl[0])
        self.square_widths = [_square_widths(row) for row in rows]

    def _deviation(self, ck: int, x: int, after: int) -> tuple[float, float]:
        """A 21 made by a card of value x (``cnt`` holds the counts after it, ``after`` cards left): n_x
        times the most its bonus cards' (P, E) can move from the average over the suits (BJ-6).

        Over the suits s, the 21-card x and the bonus cards w that match it count sum_s c_xs c_ws =: M_xw,
        and each such card moves the result, with chance 1 / ``after``, by what a second bonus card adds
        on average to a single one (``_second_pair``); M_xw lies between the bounds ``_match_bounds``
        gives for the cards of each value drawn since the plan's root.
        """
        key = ck * 11 + x
        found = self.deviation_memo.get(key)
        if found is None:
            cnt, root, rows = self.cnt, self.counts_root, self.suit_rows
            seconds, single = self._second_pair(ck, 0), self.solver.single[0]
            d_x = root[x] - cnt[x] - 1
            dev_p = dev_e = 0.0
            for w in VALUES:
                if not cnt[w]:
                    continue
                least, most = _match_bounds(rows[x], rows[w] if w != x else (), d_x, root[w] - cnt[w])
                width = most - least
                if width:
                    (sum_p, sum_e), (one_p, one_e) = seconds[w], single[w]
                    dev_p += width * abs(sum_p - one_p * (after - 1))
                    dev_e += width * abs(sum_e - one_e * (after - 1))
            found = self.deviation_memo[key] = (dev_p / (after * (after - 1)), dev_e / (after * (after - 1)))
        return found

    def _p_bounds(self, ckey: int, hard: int, ace: bool, left: int) -> tuple[float, float]:
        """Bounds of Hit's P(success) then best play, whichever way the suits of the cards drawn since
        the root lie (``cnt`` holds the state's counts): BJ-6's match counts M_xw (``_deviation``) at
        their least and most (``_match_bounds``; a second bonus card never lowers P(success) here), and
        P(success) of each state the most of Stand's, the adders' and Hit's bound. For a state whose
        move P(success) decides."""
        found = self.p_bounds_memo.get(ckey)
        if found is not None:
            return found
        solver = self.solver
        cnt, place, root, rows = self.cnt, self.place, self.counts_root, self.suit_rows
        steps, wrap_p, _, _, _ = self._steps(hard, ace, 0)
        low = high = float(sum(map(mul, cnt, wrap_p)))
        for v, new_hard, new_ace, total in steps:
            n = cnt[v]
            if not n:
                continue
            ck = ckey - place[v]
            cnt[v] = n - 1
            if total != BLACKJACK:
                low_v = high_v = float(self._fixed_max(new_hard, new_ace, 0)[0])
                if left > 1:
                    low_h, high_h = self._p_bounds(ck, new_hard, new_ace, left - 1)
                    low_v, high_v = max(low_v, low_h), max(high_v, high_h)
                elif self.refill_plan is not None:  # Hit from the discards (BJ-1): not bounded here
                    high_v = 1.0
                low += n * low_v
                high += n * high_v
            elif left > 2 or not self.refills:  # BJ-6 from the shoe: single bonus cards, then matches
                after = left - 1
                single = solver.single[0]
                if not after:  # no bonus card: the hand stands at 21
                    low += n * single[0][0]
                    high += n * single[0][0]
                    cnt[v] = n
                    continue
                seconds = self._second_pair(ck, 0) if after > 1 else []
                base = fewest = most = 0.0
                for w in VALUES:
                    if not cnt[w]:
                        continue
                    base += n * cnt[w] * single[w][0]
                    gain = (seconds[w][0] - single[w][0] * (after - 1)) / (after - 1) if seconds else 0.0
                    if gain:
                        other = rows[w] if w != v else ()
                        pairs = _match_bounds(rows[v], other, root[v] - n, root[w] - cnt[w])
                        fewest += gain * pairs[0]
                        most += gain * pairs[1]
                low += (base + fewest) / after
                high += (base + most) / after
            else:  # the discards give the bonus cards: anything from failing to succeeding
                high += n
            cnt[v] = n
        found = self.p_bounds_memo[ckey] = (low / left, high / left)
        return found

    def _precise_spread(self, ckey: int, hard: int, ace: bool, left: int) -> tuple[float, float]:
        """``_hit_plain``'s spread with this state's own 21s bounded closely (``_deviation``), for a state
        whose quick bound left its move in doubt (``cnt`` holds the state's counts)."""
        cnt, place, spread = self.cnt, self.place, self.spread
        s_p = s_e = 0.0
        for v, _, _, total in self._steps(hard, ace, 0)[0]:
            n = cnt[v]
            if not n:
                continue
            ck = ckey - place[v]
            if total != BLACKJACK:
                move = spread[ck]
                s_p += n * move[0]
                s_e += n * move[1]
            elif left > 2:
                cnt[v] = n - 1
                dev = self._deviation(ck, v, left - 1)
                cnt[v] = n
                s_p += dev[0]
                s_e += dev[1]
            elif self.refills:
                s_p += n * self.gain_most[0]
                s_e += n * self.gain_most[1]
        return s_p / left, s_e / left

    def _hit_plain(self, ckey: int, hard: int, ace: bool, left: int) -> tuple[int, int]:
        """``_hit`` with the suit rule and no tracked suit: the same sums, and beside them in
        ``last_spread`` the bound on how far the suits of the cards drawn since the root can move them,
        and whether a child is tainted (``_settle``)."""
        solver = self.solver
        unit = solver.depth_scale[solver.size - left + 1] * solver.scale
        cnt, place, memo, pair_memo = self.cnt, self.place, self.memo, self.pair_memo
        spread, tainted = self.spread, self.tainted
        steps, wrap_p, wrap_e, _, _ = self._steps(hard, ace, 0)
        p = sum(map(mul, cnt, wrap_p)) * unit
        e = sum(map(mul, cnt, wrap_e)) * unit
        s_p = s_e = 0.0
        below = False
        drawn = solver.size - left
        gap1, gap2, root, square = self.gap1, self.gap2, self.counts_root, self.square_widths
        widths = 0  # of the 21s' M_xw (``_deviation``), bounded quickly; times the most gain, below
        for v, new_hard, new_ace, total in steps:
            n = cnt[v]
            if not n:
                continue
            ck = ckey - place[v]
            cnt[v] = n - 1
            if total == BLACKJACK:  # BJ-6
                found = pair_memo.get(ck * 176 + 16 * v)
                if found is None:
                    found = self._bonus_pair(ck, 0, v, 0, 0, left - 1)
                if left > 2:  # a second bonus card can follow: its chance leans on the suits
                    # (a quick bound of ``_deviation``'s; ``_settle`` asks it when this is not enough)
                    d_v = root[v] - n
                    widths += (drawn - d_v) * gap1[v] + d_v * gap2[v] + square[v][d_v]
                elif self.refills:  # from the discards: a match between 0 and 1
                    widths += n * max(left - 1, 1)
            else:
                found = memo.get(ck)
                if found is None:
                    found = self._value(ck, 0, new_hard, new_ace, 0, left - 1)
                move = spread[ck]
                if move is not _NO_SPREAD:
                    s_p += n * move[0]
                    s_e += n * move[1]
                if tainted and ck in tainted:
                    below = True
            p += n * found[0]
            e += n * found[1]
            cnt[v] = n
        if widths:
            most_p, most_e = self.gain_most
            s_p += widths * most_p / max(left - 1, 1)
            s_e += widths * most_e / max(left - 1, 1)
        self.last_spread = (s_p / left, s_e / left, below)
        return p, e

    def _hit_masked(self, ckey: int, hard: int, ace: bool, seen: int, left: int) -> tuple[int, int]:
        """``_hit`` in the masked mode: the state is (counts by value, mask of tracked suits seen); a card of
        a tracked suit still unseen adds its bit (BJ-9)."""
        solver = self.solver
        unit = solver.depth_scale[solver.size - left + 1] * solver.scale
        cnt, place, span, trl, memo = self.cnt, self.place, self.span, solver.trl, self.memo
        table = self._unseen_table(seen)
        p = e = 0
        for v in VALUES:
            n = cnt[v]
            if not n:
                continue
            new_hard, new_ace = hard + v, ace or v == 1
            total = _soft(new_hard, new_ace)
            unseen, parts, _, _ = table[v]
            if n > unseen:  # the cards of a suit seen already or not tracked: the mask stays
                parts = [*parts, (n - unseen, seen)]
            if total > BLACKJACK:  # BJ-5: wraps and ends
                for k, mask in parts:
                    t = trl[mask][new_hard - BLACKJACK]
                    p += k * unit * (t >= 1)
                    e += k * unit * t
                continue
            ck = ckey - place[v]
            cnt[v] = n - 1
            for k, mask in parts:
                if total == BLACKJACK:  # BJ-6: the 21-card's own suit is known when it shows a tracked one
                    found = self._bonus_pair(ck, 0, v, mask & ~seen, mask, left - 1)
                else:
                    found = memo.get(ck + mask * span) or self._value(
                        ck, 0, new_hard, new_ace, mask, left - 1
                    )
                p += k * found[0]
                e += k * found[1]
            cnt[v] = n
        return p, e

    def _steps(self, hard: int, ace: bool, seen: int) -> _Steps:
        """The next card from (hard, ace): (value, new hard, new ace, total) for each that does not wrap,
        and for those that wrap, per value, the success and the TRL of a card not of the characteristic's
        suit and what one of that suit adds to them (``seen`` is the state's: whether the bonus counts)."""
        key = (hard, ace, seen)
        found = self.steps_memo.get(key)
        if found is None:
            trl_now, trl_suited = self.solver.trl[seen], self.solver.trl[-1]  # (exact mode: trl[1])
            steps: list[tuple[int, int, bool, int]] = []
            wrap_p, wrap_e, suited_p, suited_e = [0] * 11, [0] * 11, [0] * 11, [0] * 11
            for v in VALUES:
                new_hard = hard + v
                new_ace = ace or v == 1
                total = new_hard + 10 if new_ace and new_hard + 10 <= BLACKJACK else new_hard
                if total <= BLACKJACK:
                    steps.append((v, new_hard, new_ace, total))
                    continue
                t, ts = trl_now[new_hard - BLACKJACK], trl_suited[new_hard - BLACKJACK]
                wrap_p[v], wrap_e[v] = int(t >= 1), t
                suited_p[v], suited_e[v] = int(ts >= 1) - int(t >= 1), ts - t
            found = self.steps_memo[key] = (steps, wrap_p, wrap_e, suited_p, suited_e)
        return found

    def _value(self, ckey: int, skey: int, hard: int, ace: bool, seen: int, left: int) -> tuple[int, int]:
        key = self._key(ckey, skey, seen)
        found = self.memo.get(key)
        if found is None and self.exact and seen:
            form = self._form(ckey, hard, ace, left)
            if form is not None:
                found = self.memo[key] = self._evaluate(form, skey)
        if found is None:
            solver = self.solver
            unit = solver.depth_scale[solver.size - left] * solver.scale
            _, success, trl = self._best_fixed(hard, ace, seen)
            found = (unit * success, unit * trl)
            hit = None
            if left:  # (with both suit rules, _hit has already asked _robust about this state)
                hit = self._hit(ckey, skey, hard, ace, seen, left)
                spread = self.last_spread
            elif self.refill_plan is not None:  # BJ-1: the shoe is empty, Hit deals from the discards
                hit = self._refill_hit_value()
                spread = self.refill_spread
            if self.certify:  # (``_settle``, its usual case inlined: this runs for every state)
                if hit is None:
                    self.spread[key] = _NO_SPREAD
                else:
                    s_p, s_e, below = spread
                    d_p = found[0] - hit[0]
                    if s_p:
                        sure = abs(d_p) > (s_p * _MARGIN + _SLACK) * unit
                    else:
                        sure = d_p != 0 or not s_e or abs(found[1] - hit[1]) > (s_e * _MARGIN + _SLACK) * unit
                    if not sure:
                        self._settle(key, found, hit, spread, unit, (ckey, hard, ace, left))
                    elif hit > found:
                        self.spread[key] = (s_p, s_e)
                        if below:
                            self.tainted.add(key)
                    else:
                        self.spread[key] = _NO_SPREAD
            if hit is not None and hit > found:  # strictly better: ties stay with Stand or the adder
                found = hit
            self.memo[key] = found
        return found

    @staticmethod
    def _sure(d_p: int, d_e: int, s_p: float, s_e: float, unit: int) -> bool:
        """True when a gap (d_p, d_e) between Stand (or an adder) and Hit's average outlasts a spread
        (s_p, s_e) of Hit: in P(success), or in expected TRL when the suits cannot move P(success)."""
        if s_p:
            return abs(d_p) > (s_p * _MARGIN + _SLACK) * unit
        return bool(d_p) or not s_e or abs(d_e) > (s_e * _MARGIN + _SLACK) * unit

    def _settle(
        self,
        key: int,
        fixed: tuple[int, int],
        hit: tuple[int, int],
        spread: tuple[float, float, bool],
        unit: int,
        state: tuple[int, int, bool, int],
    ) -> None:
        """Record how far the suits can move this state's value (``spread``) and whether it leans on a
        move they may change (``tainted``): a state whose best move the suits might turn, or one that
        hits into such a state (``_value`` does the usual case itself).

        ``spread`` bounds, for every way the suits of the cards drawn since the plan's root may lie, how
        far Hit then optimal play can be from the search's average (``_hit_plain``). If Stand or the
        best adder is further from that average than the bound, in P(success) or, when the suits cannot
        move P(success), in expected TRL, the move is the same whatever the suits and the average is
        exact; otherwise the state is tainted and a fresh plan of its actual cards settles it.
        """
        s_p, s_e, below = spread
        d_p, d_e = fixed[0] - hit[0], fixed[1] - hit[1]
        sure = False
        if state[3]:  # a closer look at this state's own 21s
            s_p, s_e = self._precise_spread(*state)
            sure = self._sure(d_p, d_e, s_p, s_e, unit)
            if not sure and d_p:  # P(success) decides: Hit's own bounds on it may settle the move
                low, high = self._p_bounds(*state)
                standing = fixed[0] / unit
                sure = low > standing + _SLACK if d_p < 0 else high < standing - _SLACK
        hits = hit > fixed
        self.spread[key] = (s_p, s_e) if hits or not sure else _NO_SPREAD
        if not sure or (hits and below):
            self.tainted.add(key)

    def _form(self, ckey: int, hard: int, ace: bool, left: int) -> _Form | None:
        """Both suit rules, the characteristic's suit seen: the state's value as a polynomial in the counts
        of that suit left (``chr``), when the play from here on does not depend on them; else None.

        Once the suit has shown, its bonus counts (BJ-9) and the suits matter only through BJ-6's match
        chance at a 21 (``_both_form``: (m - c_x)(Ao + c.Yo) + c_x (Ac + c.Yc), coefficients on counts by
        value). If at this state and at every state after it the move is the same for every suit state
        (Stand or an adder beats Hit's bound, ``_robust``; or Stand and the adders cannot succeed and Hit
        can, ``_can_succeed``, recorded in ``hit_wins``), the value is a quadratic polynomial
        ``a + sum_w b_w c_w + sum_{x <= w} S_xw c_x c_w`` in c = ``chr`` whose integer coefficients depend
        on the counts by value only: a child of value v not of the suit keeps c, one of it takes c - e_v,
        and with n cards of value v and c_v of the suit, (n - c_v) F(c) + c_v F(c - e_v) is again such a
        polynomial (``_factors``). So the memo is on counts by value (``cnt`` holds them), and
        ``_evaluate`` gives the exact value at one suit state. A form lists the coefficients of 1,
        c_1..c_10 and the c_x c_w in ``_PAIRS``' order, or only the first for a constant. A form stops
        after its last row that can be nonzero (the c_x c_w with x <= w, by x): a 21 made by a card of
        value x gives only terms c_x c_w, in rows at most x (``_both_form``), and ``_hit_form`` keeps every
        coefficient in its lane, so the rows past the highest 21-card value reachable are 0 and left out
        (``_ROW_END``; the shorter of two forms is padded with zeros when they are added). Each packs a
        (P, E) pair of numerators as ``P << shift + E``: every step is linear with integer factors, so
        the pair is recovered exactly at the end (|E| stays below half of ``1 << shift``). A polynomial
        need only be right at suit states that can occur (c_w <= the cards of value w left), so the
        coefficients of values with no card left may hold anything.
        """
        memo = self.form_memo
        if ckey in memo:
            return memo[ckey]
        robust = self.robust_memo.get(2 * ckey, _NOT_YET)
        if robust is _NOT_YET:
            robust = self._robust(ckey, hard, ace, False, left)
        form: _Form | None = None
        if robust is not None:
            form = [(robust[0] << self.shift) + robust[1]]
        elif left > 1 and 2 * ckey in self.hit_wins:  # Stand and the adders cannot succeed, Hit can
            form = self._hit_form(ckey, hard, ace, left)
        elif left > 1:  # Hit's value is one number and beats Stand and the adders: Hit, whatever the suits
            hit = self._hit_form(ckey, hard, ace, left)
            if hit is not None and len(hit) == 1:
                solver = self.solver
                unit = solver.depth_scale[solver.size - left] * solver.scale
                _, success, trl = self._best_fixed(hard, ace, True)
                mask = self.mask
                e = hit[0] & mask
                if e > mask >> 1:
                    e -= mask + 1
                if ((hit[0] - e) >> self.shift, e) > (unit * success, unit * trl):  # ties: Stand or adder
                    form = hit
        memo[ckey] = form
        return form

    def _hit_form(self, ckey: int, hard: int, ace: bool, left: int) -> _Form | None:
        """``_hit``'s value as a form (``_form``), or None when a later move depends on the suits."""
        solver = self.solver
        unit = solver.depth_scale[solver.size - left + 1] * solver.scale
        cnt, place = self.cnt, self.place
        form_memo = self.form_memo
        steps, wrap_p, wrap_e, _, _ = self._steps(hard, ace, True)
        constant = ((sum(map(mul, cnt, wrap_p)) << self.shift) + sum(map(mul, cnt, wrap_e))) * unit
        # the sum of the parts, lane by lane, taken in one pass at the end; the parts may differ in length
        # (``_ROW_END``): the shorter of two is padded with zeros, and the sum is as long as the longer
        terms: Iterator[int] | None = None
        size = 0  # the length of the sum so far
        diagonals = []
        for v, new_hard, new_ace, total in steps:
            n = cnt[v]
            if not n:
                continue
            ck = ckey - place[v]
            cnt[v] = n - 1
            if total == BLACKJACK:  # BJ-6
                if left <= 2:
                    cnt[v] = n
                    return None
                both = self._both_form(ck, v, n, left - 1)
                cnt[v] = n
                if terms is None:
                    terms, size = iter(both), len(both)
                elif len(both) > size:
                    terms, size = map(add, both, chain(terms, _ZEROS)), len(both)
                else:
                    terms = map(add, terms, chain(both, _ZEROS))
                continue
            child = form_memo.get(ck, _NOT_YET)
            if child is _NOT_YET:
                child = self._form(ck, new_hard, new_ace, left - 1)
            cnt[v] = n
            if child is None:
                return None
            if len(child) == 1:  # a constant: F(c) = F(c - e_v)
                constant += n * child[0]
                continue
            # n F(c) - c_v (F(c) - F(c - e_v)), where
            # F(c) - F(c - e_v) = b_v + sum_{w != v} S_vw c_w + S_vv (2 c_v - 1)
            factors = _FACTORS.get((v, n))
            if factors is None:
                factors = _FACTORS[(v, n)] = _factors(v, n)
            term = map(mul, child, factors)
            if terms is None:
                terms, size = term, len(child)
            elif len(child) > size:
                terms, size = map(add, term, chain(terms, _ZEROS)), len(child)
            else:
                terms = map(add, terms, chain(term, _ZEROS))
            diagonal = _PAIR[v][v]
            if diagonal < len(child):
                diagonals.append((v, child[diagonal]))
        if terms is None:
            return [constant]
        form = list(terms)
        form[0] += constant
        for v, diagonal in diagonals:
            form[v] += diagonal
        return form

    def _both_form(self, ckey: int, x: int, m: int, left: int) -> _Form:
        """What a 21 made by one of ``m`` cards of value ``x`` adds to a seen state's form (``_form``):
        ``_bonus_both`` as a polynomial in c = ``chr`` (counting the 21-card), packed as ``_form`` packs.

        With n = ``cnt[w]`` bonus cards of value w and cw of them of the suit: after a 21-card not of the
        suit, cw single bonus cards cannot match it and n - cw match it with the other suits' chance (then
        a second bonus card); after one of the suit, n - cw' cannot match and cw' do, where cw' is cw less
        the 21-card itself when w = x. Each part is linear in c: Ao + c.Yo after a 21-card not of the suit,
        Ac + c.Yc after one of it, so the 21 gives (m - c_x)(Ao + c.Yo) + c_x (Ac + c.Yc).
        """
        shift = self.shift
        cnt = self.cnt
        tables = self.both_tables.get((x, left))
        if tables is None:
            tables = self._both_tables(x, left)
        d1_no_match, d1_suited, d1_base, d2_match, sd2 = tables
        pairs = _PAIR[x]
        seconds = self._second_pair(ckey, True)
        ao = ac = 0
        form = [0] * _ROW_END[x]  # each c_x' c_w term below has x' = x or w = x: its row is at most x
        yc_x = 0
        for w in VALUES:
            n = cnt[w]
            if not n:
                continue
            tp, te = seconds[w]
            t = (tp << shift) + te
            mt = d2_match[w] * t
            ao += n * (d1_no_match[w] + mt)
            yo = d1_base[w] - mt
            yc = sd2 * t - d1_suited[w]  # seen: the second bonus card's chances are the suited ones
            if w == x:
                yc_x = yc
            ac += n * d1_suited[w]
            form[w] = m * yo
            form[pairs[w]] = yc - yo
        form[0] = m * ao
        form[x] += ac - yc_x - ao  # Ac counts the 21-card's own chance: c.Yc takes it once too many
        return form

    def _both_tables(self, x: int, left: int) -> tuple[list[int], list[int], list[int], list[int], int]:
        """``_both_form``'s factors that depend only on the 21-card's value and the depth."""
        solver = self.solver
        depth = solver.size - left
        d1, d2 = solver.depth_scale[depth + 1], solver.depth_scale[depth + 2]
        no_match = [d1 * q for q in self.no_match_packed[x]]
        suited = [d1 * q for q in self.suited_packed]
        base = [a - b for a, b in zip(suited, no_match, strict=True)]
        d2_match = [d2 * m for m in solver.match[x]]
        found = self.both_tables[(x, left)] = (no_match, suited, base, d2_match, solver.scale * d2)
        return found

    def _evaluate(self, form: _Form, skey: int) -> tuple[int, int]:
        """A form's (P, E) (``_form``) at the suit state in ``chr`` (``skey`` its code)."""
        if len(form) == 1:
            packed = form[0]
        else:
            monomials = self.monomials.get(skey)
            if monomials is None:  # few suit states: the states after the suit's first card share them
                chr_ = self.chr
                monomials = self.monomials[skey] = [1, *chr_[1:], *[chr_[x] * chr_[w] for x, w in _PAIRS]]
            packed = sum(map(mul, form, monomials))
        mask = self.mask
        e = packed & mask
        if e > mask >> 1:
            e -= mask + 1
        return (packed - e) >> self.shift, e

    def _robust(self, ckey: int, hard: int, ace: bool, unseen: int, left: int) -> tuple[int, int] | None:
        """(P, E) of the best of Stand and the adders when it beats Hit for every suit state, else None."""
        key = 2 * ckey + unseen
        if key in self.robust_memo:
            return self.robust_memo[key]
        solver = self.solver
        unit = solver.depth_scale[solver.size - left] * solver.scale
        _, success, trl = self._best_fixed(hard, ace, not unseen)
        fixed: tuple[int, int] | None = (unit * success, unit * trl)
        if left:
            if not success and self._can_succeed(hard, ace):
                fixed = None  # Hit has a chance of success and Stand or an adder none: no bound needed
                self.hit_wins.add(key)
            elif success and self._can_fail(hard, ace, unseen):
                pass  # Stand or an adder succeeds for sure and Hit can fail: no bound needed
            else:
                hit_p, hit_e, _, _ = self._bound(ckey, hard, ace, unseen, left)
                assert fixed is not None
                if not (fixed[0] > hit_p or (fixed[0] >= hit_p and fixed[1] >= hit_e)):
                    fixed = None
        elif self.refill_plan is not None:  # the shoe is empty: Hit's exact value from the discards
            hit_p, hit_e = self._refill_hit_value()
            assert fixed is not None
            if not (fixed[0] > hit_p or (fixed[0] >= hit_p and fixed[1] >= hit_e)):
                fixed = None
        self.robust_memo[key] = fixed
        return fixed

    def _can_succeed(self, hard: int, ace: bool) -> bool:
        """True when some run of Hits (``cnt`` holds the counts left) ends in a success whatever the
        suits: then Hit's chance of success is above 0, and with Stand and every adder at 0 Hit is strictly
        better, so no bound is needed. It draws the smallest values left until the total is a sure success
        (standing there, wrapping, or a 21, whose bonus cards only add), then tries a 21 whose bonus card
        makes the success (``_bonus_can_succeed``); a False means only "not found".
        """
        sure = self.sure
        cnt = self.cnt
        start_hard, start_ace = hard, ace
        for v in VALUES:
            for _ in range(cnt[v]):
                hard += v
                ace = ace or v == 1
                total = hard + 10 if ace and hard + 10 <= BLACKJACK else hard
                if total >= BLACKJACK:
                    if sure[hard - BLACKJACK] if total > BLACKJACK else sure[BLACKJACK]:
                        return True
                    return self._bonus_can_succeed(start_hard, start_ace)
                if sure[total]:
                    return True
        return self._bonus_can_succeed(start_hard, start_ace)

    def _can_fail(self, hard: int, ace: bool, unseen: int) -> bool:
        """True when Hit's chance of success is below 1 for every suit state with these counts (``cnt``):
        then a sure success by Stand or an adder is strictly better, and no bound is needed.

        It looks for a card v left (of the characteristic's suit or not, as the state allows: unseen, that
        suit's cards left are the shoe's) after which the best chance is below 1: a wrap (BJ-5) to a total
        that fails, or a total below 21 where Stand and the adders fail and a next card can wrap to a
        total that fails whatever the suits. A 21 is never taken (its bonus cards may succeed); a False
        means only "not found".
        """
        cnt, char0, trl, doomed = self.cnt, self.char0, self.solver.trl, self.doomed
        for v in range(10, 0, -1):
            n = cnt[v]
            if not n:
                continue
            new_hard = hard + v
            new_ace = ace or v == 1
            total = new_hard + 10 if new_ace and new_hard + 10 <= BLACKJACK else new_hard
            if total == BLACKJACK:
                continue
            flags = ((n > char0[v]) * [False] + (char0[v] > 0) * [True]) if unseen else [True]
            for seen in flags:
                if total > BLACKJACK:
                    if trl[seen][new_hard - BLACKJACK] < 1:
                        return True
                elif not self._best_fixed(new_hard, new_ace, seen)[1]:
                    for u in range(10, BLACKJACK - new_hard, -1):  # the cards that wrap from there
                        if cnt[u] - (u == v) > 0 and doomed[new_hard + u - BLACKJACK]:
                            return True
        return False

    def _bonus_can_succeed(self, hard: int, ace: bool) -> bool:
        """True when some run of Hits makes exactly 21 (BJ-6) with a card w still in the shoe whose bonus
        21 + w is a sure success (a second bonus card only adds): that order has a chance above 0.

        For such a w (one card of it set aside), the sums of the sub-multisets of the other cards left
        (bit sets, values 2..10, then with one ace or more) tell whether some set of them makes 21: the
        hard total 21, or 11 with an ace. In ascending order every earlier total is below 21 (no wrap),
        and the first 21 on the way leaves w in the shoe too.
        """
        sure, cnt = self.sure, self.cnt
        room = BLACKJACK - hard  # the sum the drawn cards may reach
        if room <= 0:
            return False
        mask = (1 << (room + 1)) - 1
        for w in range(10, 0, -1):
            if not cnt[w] or not sure[BLACKJACK + w]:
                continue
            # one card makes 21: the hard total 21 (an ace as 1), or 11 with an ace in the hand
            for need in (room, room - 10 if ace else 0):
                if 1 <= need <= 10 and cnt[need] - (need == w) > 0:
                    return True
            plain = 1  # bit s: some set of cards of values 2..10 sums to s
            for v in range(2, 11):
                for _ in range(min(cnt[v] - (v == w), room // v)):
                    plain = (plain | plain << v) & mask
            with_ace = 0  # the same, with one ace or more among them
            for k in range(1, min(cnt[1] - (w == 1), room) + 1):
                with_ace |= plain << k
            with_ace &= mask
            reach = plain | with_ace
            if reach >> room & 1:
                return True
            soft = room - 10  # hard 11 with an ace counts 21 (BJ-2)
            if soft >= 1 and ((reach if ace else with_ace) >> soft & 1):
                return True
        return False

    def _bound(self, ckey: int, hard: int, ace: bool, unseen: int, left: int) -> tuple[int, int, int, int]:
        """Upper bounds, over every suit state with these counts, of Hit's (P, E) numerators and of the
        state's value: the most P and the most E any play reaches if every bonus card matched (BJ-6).

        A matched bonus card adds a card and never lowers the TRL, so these bound the exact values; only
        the seen-flag (BJ-9) is kept, so the memo is on counts by value (``cnt`` holds them; ``chr`` may
        not: unseen, the characteristic's suit left is the shoe's).
        """
        key = 2 * ckey + unseen
        found = self.bound_memo.get(key)
        if found is not None:
            return found
        solver = self.solver
        depth = solver.size - left
        unit = solver.depth_scale[depth + 1] * solver.scale
        cnt, char0, place = self.cnt, self.char0, self.place
        bound_memo, bonus_memo = self.bound_memo, self.bonus_bound_memo
        steps, wrap_p, wrap_e, suited_p, suited_e = self._steps(hard, ace, not unseen)
        p = sum(map(mul, cnt, wrap_p))
        e = sum(map(mul, cnt, wrap_e))
        if unseen:
            p += sum(map(mul, char0, suited_p))
            e += sum(map(mul, char0, suited_e))
        p *= unit
        e *= unit
        for v, new_hard, new_ace, total in steps:
            n = cnt[v]
            if not n:
                continue
            c = char0[v] if unseen else 0
            o = n - c
            ck = ckey - place[v]
            cnt[v] = n - 1
            if total == BLACKJACK:
                if o:
                    pair = bonus_memo.get(2 * ck + unseen)
                    if pair is None:
                        pair = self._bonus_bound(ck, unseen, left - 1)
                    p += o * pair[0]
                    e += o * pair[1]
                if c:
                    pair = bonus_memo.get(2 * ck)
                    if pair is None:
                        pair = self._bonus_bound(ck, False, left - 1)
                    p += c * pair[0]
                    e += c * pair[1]
            else:
                if o:
                    child = bound_memo.get(2 * ck + unseen)
                    if child is None:
                        child = self._bound(ck, new_hard, new_ace, unseen, left - 1)
                    p += o * child[2]
                    e += o * child[3]
                if c:
                    child = bound_memo.get(2 * ck)
                    if child is None:
                        child = self._bound(ck, new_hard, new_ace, False, left - 1)
                    p += c * child[2]
                    e += c * child[3]
            cnt[v] = n
        unit = solver.depth_scale[depth] * solver.scale
        fp, fe = self._fixed_max(hard, ace, not unseen)
        fp, fe = fp * unit, fe * unit
        if not left and self.refill_plan is not None:  # the shoe is empty: Hit from the discards, exact
            p, e = self._refill_hit_value()
        found = (p, e, max(fp, p), max(fe, e)) if left or self.refill_plan is not None else (p, e, fp, fe)
        self.bound_memo[key] = found
        return found

    def _bonus_bound(self, ckey: int, unseen: int, left: int) -> tuple[int, int]:
        """``_bonus_pair`` with every bonus card matched (an upper bound for ``_bound``)."""
        key = 2 * ckey + unseen
        found = self.bonus_bound_memo.get(key)
        if found is not None:
            return found
        solver = self.solver
        depth = solver.size - left
        if self.refills and (left == 0 or (left == 1 and solver.suit_rule)):
            # the discards: the most of the exact values over every 21-card and suit
            options = [
                self._refill_bonus_numerators(x, suited, not unseen or suited, left, last)
                for x in VALUES
                for suited in (False, True)
                for last in (False, True)
            ]
            found = (max(p for p, _ in options), max(e for _, e in options))
            self.bonus_bound_memo[key] = found
            return found
        if left == 0:
            p, e = _Solver._pe(solver.trl[not unseen][BLACKJACK])
            unit = solver.depth_scale[depth] * solver.scale
            found = (p * unit, e * unit)
        else:
            scale = solver.scale
            second = left > 1
            d = solver.depth_scale[depth + 2] if second else solver.depth_scale[depth + 1]
            seconds_suited = self._second_pair(ckey, True) if second else solver.single[True]
            seconds_now = self._second_pair(ckey, not unseen) if second else solver.single[not unseen]
            cnt, char0 = self.cnt, self.char0
            p = e = 0
            for w in VALUES:
                n = cnt[w]
                if not n:
                    continue
                c = char0[w] if unseen else 0
                sp, se = seconds_suited[w]
                p += c * sp
                e += c * se
                sp, se = seconds_now[w]
                p += (n - c) * sp
                e += (n - c) * se
            found = (p * scale * d, e * scale * d)
        self.bonus_bound_memo[key] = found
        return found

    def _second_pair(self, ckey: int, seen1: int) -> list[tuple[int, int]]:
        """Per bonus card w (of ``cnt``): (cards giving success, sum of their TRLs) for a second bonus card.

        A tracked suit still unseen (its cards left are then the shoe's), a second card of that suit makes
        its characteristics' bonus count (BJ-9); the bonus card w is of another suit.
        """
        key = ckey * self.masks + seen1
        found = self.second_memo.get(key)
        if found is not None:
            return found
        solver = self.solver
        unseen = self.unseen_prefixes[seen1]
        cnt = self.cnt
        prefix = [0] * 11
        for v in VALUES:
            prefix[v] = prefix[v - 1] + cnt[v]
        rest = prefix[:]  # the cards of no unseen tracked suit, values 1..v
        for _, cp in unseen:
            for v in VALUES:
                rest[v] -= cp[v]
        found = [(0, 0)] * 11
        for w in VALUES:
            if not cnt[w]:
                continue
            sp = se = 0
            if unseen:
                for bit, cp in unseen:
                    for flag, t, lo, hi in solver.runs[seen1 | bit][w]:
                        k = cp[hi] - cp[lo - 1]
                        sp += flag * k
                        se += t * k
                for flag, t, lo, hi in solver.runs[seen1][w]:
                    k = rest[hi] - rest[lo - 1] - (lo <= w <= hi)
                    sp += flag * k
                    se += t * k
            else:
                for flag, t, lo, hi in solver.runs[seen1][w]:
                    k = prefix[hi] - prefix[lo - 1] - (lo <= w <= hi)
                    sp += flag * k
                    se += t * k
            found[w] = (sp, se)
        self.second_memo[key] = found
        return found

    def _bonus_both(self, ckey: int, x: int, o: int, c: int, seen: int, left: int) -> tuple[int, int]:
        """Both suit rules, 2 or more cards left: ``o`` times ``_bonus_pair`` of a 21 made by a card of value
        ``x`` not of the characteristic's suit plus ``c`` times one made by a card of that suit, in one
        pass over the bonus card's value w (``cnt`` excludes the 21-card, ``chr`` still counts it)."""
        solver = self.solver
        scale = solver.scale
        cnt, chr_ = self.cnt, self.chr
        suited = self.suited_single  # scale x (success, TRL) of a single bonus card, bonus counting
        no_match = self.no_match[seen][x]
        row = solver.match[x]
        seconds = self._second_pair(ckey, seen)
        seconds_suited = self._second_pair(ckey, True)
        p1 = e1 = p2 = e2 = q1 = f1 = q2 = f2 = 0
        for w in VALUES:
            n = cnt[w]
            if not n:
                continue
            cw = chr_[w]
            ow = n - cw
            sp, se = suited[w]
            if o:  # the 21-card is not of the suit: a bonus card of the suit cannot match it
                qp, qe = no_match[w]
                p1 += cw * sp + ow * qp
                e1 += cw * se + ow * qe
                m = row[w]
                if m:
                    tp, te = seconds[w]
                    p2 += ow * m * tp
                    e2 += ow * m * te
            if c:  # the 21-card is of the suit: a match is a bonus card of the suit (the 21-card gone)
                if w == x:
                    cw -= 1
                    ow += 1
                q1 += ow * sp
                f1 += ow * se
                tp, te = seconds_suited[w]
                q2 += cw * tp
                f2 += cw * te
        depth = solver.size - left
        d1, d2 = solver.depth_scale[depth + 1], solver.depth_scale[depth + 2]
        p = o * (p1 * d1 + p2 * d2) + c * (q1 * d1 + q2 * scale * d2)
        e = o * (e1 * d1 + e2 * d2) + c * (f1 * d1 + f2 * scale * d2)
        return p, e

    def _bonus_pair(
        self, ckey: int, skey: int, made_by: int, made_by_suit: int, seen: int, left: int
    ) -> tuple[int, int]:
        """BJ-6: (P, E) numerators after a 21 made by a card of value ``made_by`` (``cnt`` excludes it);
        ``made_by_suit``: the bit of the tracked suit the 21-card is known to be of, or 0.

        (With both suit rules and two or more cards left, ``_hit`` uses ``_bonus_both`` instead.)
        """
        key = (self._key(ckey, skey, seen) * 11 + made_by) * 16 + made_by_suit
        found = self.pair_memo.get(key)
        if found is not None:
            return found
        solver = self.solver
        depth = solver.size - left
        if left == 0 and self.refills:  # BJ-1: the bonus cards come from the reshuffled discards
            found = self.pair_memo[key] = self._refill_bonus_numerators(made_by, made_by_suit, seen, 0, False)
            return found
        if left == 0:  # no bonus card can be drawn (see the module docstring)
            p, e = _Solver._pe(solver.trl[seen][BLACKJACK])
            unit = solver.depth_scale[depth] * solver.scale
            found = self.pair_memo[key] = (p * unit, e * unit)
            return found
        if left == 1 and self.refills and solver.suit_rule:  # the shoe's last card, then the discards
            w = next(v for v in VALUES if self.cnt[v])
            if self.exact:
                last_bit = int(self.chr[w] == 1)
            else:  # a tracked suit still unseen has all its cards in the shoe: this last one, if any
                last_bit = next((bit for bit, counts in self.unseen_suits[seen] if counts[w]), 0)
            found = self._refill_bonus_numerators(made_by, made_by_suit, seen, 1, last_bit)
            self.pair_memo[key] = found
            return found
        second = solver.suit_rule and left > 1
        scale = solver.scale
        single = solver.single
        cnt = self.cnt
        row = solver.match[made_by]
        p1 = e1 = p2 = e2 = 0
        if not self.track:
            seconds = self._second_pair(ckey, 0) if second else []
            p1, e1, p2, e2 = _match_sums(cnt, row, single[0], seconds, second, scale)
        elif not self.exact:
            p1, e1, p2, e2 = self._bonus_masked(ckey, made_by, made_by_suit, seen, second)
        else:
            chr_ = self.chr
            seconds_now = self._second_pair(ckey, seen) if second else single[seen]
            seconds_suited = self._second_pair(ckey, 1) if second else single[1]
            single_now, single_suited = single[seen], single[1]
            for w in VALUES:
                n = cnt[w]
                if not n:
                    continue
                c = chr_[w]
                o = n - c
                if not solver.suit_rule:
                    sp, se = single_suited[w]
                    p1 += c * scale * sp
                    e1 += c * scale * se
                    sp, se = single_now[w]
                    p1 += o * scale * sp
                    e1 += o * scale * se
                elif made_by_suit:  # a match is a bonus card of the characteristic's suit again
                    sp, se = seconds_suited[w]
                    p2 += c * scale * sp
                    e2 += c * scale * se
                    sp, se = single_now[w]
                    p1 += o * scale * sp
                    e1 += o * scale * se
                else:  # a card of the suit cannot match; another matches with the other suits' chance
                    m = row[w]
                    sp, se = single_suited[w]
                    p1 += c * scale * sp
                    e1 += c * scale * se
                    sp, se = single_now[w]
                    p1 += o * (scale - m) * sp
                    e1 += o * (scale - m) * se
                    sp, se = seconds_now[w]
                    p2 += o * m * sp
                    e2 += o * m * se
        d1 = solver.depth_scale[depth + 1]
        d2 = solver.depth_scale[depth + 2] if second else d1
        found = (p1 * d1 + p2 * d2, e1 * d1 + e2 * d2)
        self.pair_memo[key] = found
        return found

    def _bonus_masked(
        self, ckey: int, made_by: int, made_bit: int, seen: int, second: bool
    ) -> tuple[int, int, int, int]:
        """``_bonus_pair``'s sums in the masked mode: (P, E) of a single bonus card, over ``depth + 1``, and
        of a second one, over ``depth + 2`` (``seen`` counts the 21-card's suit already).

        A bonus card of a tracked suit still unseen cannot match the 21-card (BJ-6) and makes its bonus
        count (BJ-9). When the 21-card showed tracked suit ``made_bit`` first, every other card of that
        suit is still in the shoe, so the matches are counted exactly; otherwise a match has the shoe's
        chance over the suits not still unseen (exact with one tracked suit and the suit rule off, where
        no match is asked; an estimate with several, ``_Solver.approx``).
        """
        solver = self.solver
        scale, single, cnt = solver.scale, solver.single, self.cnt
        seconds = self._second_pair(ckey, seen) if second else []
        single_now = single[seen]
        row = solver.match_masks[seen if solver.approx else 0][made_by]
        made = solver.chars0[made_bit.bit_length() - 1] if made_bit else ()
        table = self._unseen_table(seen)
        rest = [0] * 11  # the cards of a suit seen already or not tracked
        p0 = e0 = 0
        for w in VALUES:
            n = cnt[w]
            if n:
                unseen, _, up, ue = table[w]
                p0 += up
                e0 += ue
                rest[w] = n - unseen
        if not (made and second):
            p1, e1, p2, e2 = _match_sums(rest, row, single_now, seconds, second, scale)
            return p0 + p1, e0 + e1, p2, e2
        p1, e1, p2, e2 = p0, e0, 0, 0
        for w in VALUES:
            if rest[w]:
                matched = made[w - 1] - (w == made_by)
                sp, se = seconds[w]
                p2 += matched * scale * sp
                e2 += matched * scale * se
                sp, se = single_now[w]
                p1 += (rest[w] - matched) * scale * sp
                e1 += (rest[w] - matched) * scale * se
        return p1, e1, p2, e2

    # -- the answers ----------------------------------------------------------------------------------

    def _choices(self, hand: rules.Hand) -> list[tuple[Action, tuple[Fraction, Fraction]]]:
        plan, drawn = self._plan_of(hand)
        hard = sum(c.pip_value for c in hand.cards)
        ace = any(c.rank == 1 for c in hand.cards)
        return plan._choices_at(drawn, hard, ace)

    def _plan_of(self, hand: rules.Hand) -> tuple[VoluntaryPlan, tuple[Card, ...]]:
        """The plan whose shoe a later state of this hand draws from (this one, or the discards' when the
        shoe ran out, BJ-1) and the cards drawn from it."""
        if hand.cards[: len(self.root.cards)] != self.root.cards or hand.bonus_cards:
            raise RuleError("That hand did not grow from this plan's hand.")
        drawn = hand.cards[len(self.root.cards) :]
        if len(drawn) > self.solver.size:  # the shoe ran out and the hand went on from the discards
            if self.refill_plan is None or Counter(drawn[: self.solver.size]) != Counter(self.remaining):
                raise RuleError("That hand drew cards this plan's shoe does not hold.")
            return self.refill_plan, drawn[self.solver.size :]
        return self, drawn

    def _choices_at(
        self, drawn: Sequence[Card], hard: int, ace: bool
    ) -> list[tuple[Action, tuple[Fraction, Fraction]]]:
        """Every move's (P, E) at the state ``drawn`` after the root; Hit refined when the suits of the
        cards left could change a later move (``_refine_hit``)."""
        ckey, skey, seen, left = self._enter(drawn)
        depth = self.solver.size - left
        unit = self.solver.depth_scale[depth] * self.solver.scale
        options = [(STAND, self._fixed(hard, ace, 0, seen, depth))]
        options += [(Action("add", a), self._fixed(hard, ace, a, seen, depth)) for a in self.adders]
        below = False
        if left:
            options.append((HIT, self._hit(ckey, skey, hard, ace, seen, left)))
            below = self.certify and self.last_spread[2]
        elif self.refill_plan is not None:  # BJ-1: Hit deals from the reshuffled discards
            options.append((HIT, self._refill_hit_value()))
            below = self.certify and self.refill_spread[2]
        choices = [(action, (Fraction(p, unit), Fraction(e, unit))) for action, (p, e) in options]
        if below and not drawn:  # (at a later state, ``decide`` asks a fresh plan of the cards left)
            exact = self._refine_hit(drawn, ckey, skey, hard, ace, left, choices[-1][1])
            if exact is None:
                self.exact_odds = False
            else:
                choices[-1] = (HIT, exact)
        return choices

    def _refine_hit(
        self,
        drawn: Sequence[Card],
        ckey: int,
        skey: int,
        hard: int,
        ace: bool,
        left: int,
        hit: tuple[Fraction, Fraction],
    ) -> tuple[Fraction, Fraction] | None:
        """Hit's exact (P, E) at a state whose cards are known (``drawn`` after the root), when a child's
        value leans on a move the suits may change (``tainted``): that child's average is replaced by
        the average, over the suits of the card that made it, of a fresh plan of the actual cards left
        (which settles its own tainted states the same way). None when that takes more work than
        ``budget`` allows: the caller marks the odds an estimate.

        ``cnt`` holds the state's counts (``_enter``), which the fresh plans do not touch.
        """
        solver = self.solver
        if not self.budget:
            self.budget.append(max(REFINE_FLOOR, REFINE_FACTOR * len(self.memo)))
        if not left:  # the shoe is empty: Hit is the discards' plan's (BJ-1), which settles its own
            sub = self.refill_plan
            assert sub is not None
            sub.budget, sub.fresh = self.budget, self.fresh
            refilled = sub._choices_at((), hard, ace)[-1][1]
            return refilled if sub.exact_odds else None
        left_cards = Counter(self.remaining)
        left_cards.subtract(drawn)
        cards = sorted(left_cards.elements())
        unit = solver.depth_scale[solver.size - left + 1] * solver.scale
        tracked = solver.suit if self.exact else None
        p, e = hit
        for v in VALUES:
            n = self.cnt[v]
            ck = ckey - self.place[v]
            if not n or _soft(hard + v, ace or v == 1) >= BLACKJACK:
                continue
            # the children of value v: one class (every suit alike), or in the exact mode the cards of
            # the tracked suit apart (``chr``), each its own memo key
            classes = [(ck, [suit for suit in Suit if suit is not tracked])]
            if tracked is not None:
                classes[0] = (ck + skey, classes[0][1])
                classes.append((ck + skey - self.suit_place[v], [tracked]))
            for key, suits in classes:
                if key not in self.tainted:
                    continue
                average = self.memo[key]
                exact_p = exact_e = Fraction(0)
                count = 0
                for suit in suits:
                    card = next((c for c in cards if c.pip_value == v and c.suit is suit), None)
                    if card is None:
                        continue
                    k = sum(1 for c in cards if c.pip_value == v and c.suit is suit)
                    rest = list(cards)
                    rest.remove(card)
                    found = self._fresh_best(tuple(rest), hard + v, ace or v == 1, self.seen_suits | {suit})
                    if found is None:
                        return None
                    exact_p += k * found[0]
                    exact_e += k * found[1]
                    count += k
                p += (exact_p - count * Fraction(average[0], unit)) / left
                e += (exact_e - count * Fraction(average[1], unit)) / left
        return p, e

    def _fresh_best(
        self, cards: tuple[Card, ...], hard: int, ace: bool, seen: frozenset[Suit]
    ) -> tuple[Fraction, Fraction] | None:
        """The best (P, E) of the state (hard, ace, suits ``seen``) with exactly ``cards`` left in the shoe
        (and this plan's discards behind them), from a plan of its own sharing this plan's budget; None
        when the budget ran out. Results are shared by the shoe's make-up, the suits whose order cannot
        matter (no bonus of theirs is still to count) in any order."""
        options = self.root.options
        bonuses = rules.suit_bonuses(self.root.characteristics) if options.characteristic_rule else {}
        # a suit's row: its cards left by value, then in the discards (which the order of suits must keep)
        by_suit = Counter((card.suit, card.pip_value) for card in cards)
        in_pile = Counter((card.suit, card.pip_value) for card in self.pile)
        rows = {
            suit: tuple(by_suit[(suit, v)] for v in VALUES) + tuple(in_pile[(suit, v)] for v in VALUES)
            for suit in Suit
        }
        fixed = tuple((suit, rows[suit]) for suit in Suit if suit in bonuses and suit not in seen)
        free = sorted(rows[suit] for suit in Suit if suit not in bonuses or suit in seen)
        key = (hard, ace, fixed, *free)
        found = self.fresh.get(key)
        if found is not None:
            return found
        if self.budget[0] <= 0:
            return None
        plan = VoluntaryPlan.__new__(VoluntaryPlan)
        plan.root = self.root
        plan.exact_odds = True
        plan._setup(self.root, cards, self.pile, hard, ace, seen)
        plan.budget, plan.fresh = self.budget, self.fresh
        choices = plan._choices_at((), hard, ace)
        self.budget[0] -= len(plan.memo) + SETUP_COST
        if not plan.exact_odds:
            return None
        found = self.fresh[key] = choices[self._best(choices)][1]
        return found

    @staticmethod
    def _best(
        choices: Sequence[tuple[Action, tuple[Fraction, Fraction]]]
        | Sequence[tuple[Action, tuple[int, int]]],
    ) -> int:
        best = 0
        for i, (_, pe) in enumerate(choices):
            if pe > choices[best][1]:  # lexicographic: P(success) first, then expected TRL
                best = i
        return best

    def _decision(self, hand: rules.Hand) -> HandDecision:
        choices = self._choices(hand)
        best = self._best(choices)
        odds = [ActionOdds(action, p, e) for action, (p, e) in choices]
        hit = odds[-1] if odds[-1].action == HIT else None
        adders = tuple(o for o in odds if o.action.kind == "add")
        return HandDecision(
            total=hand.total, stand=odds[0], adders=adders, hit=hit, best=odds[best], exact=self.exact_odds
        )

    def decide(self, hand: rules.Hand) -> Action:
        """The optimal move for a later state of this hand (same shoe, more cards drawn).

        Where the suits of the cards drawn since the root could turn that move (a tainted state), a fresh
        plan of the cards actually left decides it.
        """
        if not hand.can_stand:
            raise IllegalMove("This hand has no decision to make now.")
        choices = self._choices(hand)
        plan, drawn = self._plan_of(hand)
        ckey, skey, seen, _ = plan._enter(drawn)
        if plan.certify and drawn and plan._key(ckey, skey, seen) in plan.tainted:
            left = Counter(plan.remaining)
            left.subtract(drawn)
            return VoluntaryPlan(hand, sorted(left.elements()), plan.pile).decision.best.action
        return choices[self._best(choices)][0]


def plan_voluntary(
    hand: rules.Hand, shoe: Shoe | Iterable[Card], discards: Iterable[Card] | None = None
) -> VoluntaryPlan:
    """Solve a voluntary hand in progress against the shoe's remaining cards (the player sees every card).

    ``discards``: the shoe's discard pile, dealt on from when the shoe runs out (BJ-1); taken from
    ``shoe`` when that is a ``Shoe`` and ``discards`` is not given.
    """
    return VoluntaryPlan(hand, shoe, discards)


def voluntary_decision(
    hand: rules.Hand, shoe: Shoe | Iterable[Card], discards: Iterable[Card] | None = None
) -> HandDecision:
    """BJ-4/BJ-7: exact P(success) and expected TRL of Stand, each adder, and Hit-then-optimal; the best."""
    return VoluntaryPlan(hand, shoe, discards).decision
