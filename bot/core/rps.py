"""RPS: Base minus 2d10 gives a Success Level (RULES.md RPS-1..RPS-10, seed 002).

Public API:
- Bases (RPS-1): ``attribute_base(attribute, modifiers=0)``, ``skill_base(skill, parent_attribute,
  modifiers=0)``, ``Skill`` (name, rating, primary parent, alternate parents; ``Skill.parent(choice)``,
  ``Skill.base(attributes, choice=None, modifiers=0)``), ``Difficulty`` and ``DIFFICULTIES`` (the seed's
  18 named modifiers, +20 "No way to fail" .. -20 "Beyond impossible"), ``difficulty(name_or_modifier)``,
  ``total_modifiers(modifiers)``. A ``Modifiers`` argument is an int, a ``Difficulty`` or an iterable of
  both; they add up.
- One check (RPS-2..RPS-5): ``check(base, d1, d2) -> RpsCheck`` with ``Doubles``, ``Outcome``,
  ``success_word(sl)``.
- Forgoing the roll (RPS-6): ``forgo(base, granted_by_gm=False) -> RpsCheck`` (``assumed`` is True).
- Resisted actions (RPS-7): ``ResistedParty``, ``resisted(parties, reroll=None) -> ResistedResult``
  (``ResistedRound`` per round), ``MAX_RESISTED_ROUNDS``.
- Sustained actions (RPS-8): ``SustainedPool``, ``PoolState``, ``start_pool(...)``,
  ``advance(pool, check) -> SustainedPool``.
- Second tries (RPS-9): ``second_try_modifier(previous_check, modifier) -> int``.

Ranges the rules leave open, chosen here: attributes and skill ratings 0..99, a single modifier
-99..99, a Base -200..200 (enough for any sane sheet and modifiers, refusing typos like 5000).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum

from bot.core.common import Verdict
from bot.core.dice import check_die
from bot.core.errors import IllegalMove, RuleError, require_int, require_range

RATING_MIN, RATING_MAX = 0, 99
MODIFIER_MIN, MODIFIER_MAX = -99, 99
BASE_MIN, BASE_MAX = -200, 200
FORGO_ABOVE = 15
SECOND_TRY_MIN, SECOND_TRY_MAX = -5, 5
MAX_RESISTED_ROUNDS = 100


# --------------------------------------------------------------------------------------------------
# RPS-1: bases, skills, difficulty modifiers


@dataclass(frozen=True)
class Difficulty:
    """One row of the seed's difficulty table: a modifier and its name."""

    modifier: int
    name: str

    def __str__(self) -> str:
        return f"{self.modifier:+d} {self.name}"


DIFFICULTIES: tuple[Difficulty, ...] = (
    Difficulty(20, "No way to fail"),
    Difficulty(18, "Nearly impossible to screw up"),
    Difficulty(15, "Only an idiot has the slightest possibility of blowing it"),
    Difficulty(12, "Very simple"),
    Difficulty(10, "Simple"),
    Difficulty(8, "Fairly easy"),
    Difficulty(6, "Moderately easy"),
    Difficulty(4, "Somewhat difficult"),
    Difficulty(2, "Moderately hard"),
    Difficulty(0, "Difficult"),
    Difficulty(-2, "Tricky"),
    Difficulty(-4, "Rather tricky"),
    Difficulty(-6, "Very difficult"),
    Difficulty(-8, "Exceedingly hard or complex"),
    Difficulty(-10, "Frighteningly difficult"),
    Difficulty(-15, "Nearly impossible"),
    Difficulty(-18, "Impossible"),
    Difficulty(-20, "Beyond impossible"),
)

Modifiers = int | Difficulty | Iterable[int | Difficulty]


def difficulty(choice: str | int) -> Difficulty:
    """Look up a row of the difficulty table by its name (any case) or its modifier."""
    if isinstance(choice, str):
        wanted = choice.strip().casefold()
        for row in DIFFICULTIES:
            if row.name.casefold() == wanted:
                return row
        raise RuleError(f"There is no RPS difficulty named {choice!r}.")
    number = require_int(choice, "A difficulty modifier")
    for row in DIFFICULTIES:
        if row.modifier == number:
            return row
    raise RuleError(f"The RPS difficulty table has no row for {number:+d}.")


def total_modifiers(modifiers: Modifiers) -> int:
    """Add up modifiers (ints and named difficulties); each must lie in -99..99."""
    items: Iterable[int | Difficulty]
    items = (modifiers,) if isinstance(modifiers, int | Difficulty) else modifiers
    total = 0
    for item in items:
        value = item.modifier if isinstance(item, Difficulty) else item
        total += require_range(value, MODIFIER_MIN, MODIFIER_MAX, "An RPS modifier")
    return total


def _checked_base(value: int) -> int:
    return require_range(value, BASE_MIN, BASE_MAX, "An RPS Base")


def attribute_base(attribute: int, modifiers: Modifiers = 0) -> int:
    """RPS-1: the Base of an attribute check, 2 x attribute + modifiers."""
    rating = require_range(attribute, RATING_MIN, RATING_MAX, "An RPS attribute")
    return _checked_base(2 * rating + total_modifiers(modifiers))


def skill_base(skill: int, parent_attribute: int, modifiers: Modifiers = 0) -> int:
    """RPS-1: the Base of a skill check, skill + parent attribute + modifiers."""
    rating = require_range(skill, RATING_MIN, RATING_MAX, "An RPS skill rating")
    parent = require_range(parent_attribute, RATING_MIN, RATING_MAX, "An RPS attribute")
    return _checked_base(rating + parent + total_modifiers(modifiers))


@dataclass(frozen=True)
class Skill:
    """A skill: its rating, its primary parent attribute and the alternates it allows (RPS-1)."""

    name: str
    rating: int
    primary: str
    alternates: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise RuleError("A skill needs a name.")
        require_range(self.rating, RATING_MIN, RATING_MAX, f"The rating of {self.name}")
        if not isinstance(self.primary, str) or not self.primary.strip():
            raise RuleError(f"{self.name} needs a primary parent attribute.")
        if not isinstance(self.alternates, tuple) or not all(
            isinstance(a, str) and a.strip() for a in self.alternates
        ):
            raise RuleError(f"The alternate parent attributes of {self.name} must be names.")

    def parent(self, choice: str | None = None) -> str:
        """The parent attribute for this check: the primary, or a listed alternate (any case)."""
        if choice is None:
            return self.primary
        wanted = choice.strip().casefold()
        for name in (self.primary, *self.alternates):
            if name.casefold() == wanted:
                return name
        allowed = ", ".join((self.primary, *self.alternates))
        raise RuleError(f"{self.name} cannot use {choice!r} as its parent attribute; it allows {allowed}.")

    def base(self, attributes: Mapping[str, int], choice: str | None = None, modifiers: Modifiers = 0) -> int:
        """RPS-1: the Base of a check of this skill with the chosen parent taken from ``attributes``."""
        parent = self.parent(choice)
        for name, value in attributes.items():
            if name.casefold() == parent.casefold():
                return skill_base(self.rating, value, modifiers)
        raise RuleError(f"The sheet has no attribute {parent!r} for {self.name}.")


# --------------------------------------------------------------------------------------------------
# RPS-2..RPS-5: one check


class Doubles(Enum):
    """What a pair of doubles made of a check (RPS-4, RPS-5)."""

    AUTOMATIC_SUCCESS = "automatic success"
    CRITICAL_SUCCESS = "critical success"
    AUTOMATIC_FAILURE = "automatic failure"
    CRITICAL_FAILURE = "critical failure (fumble)"


class Outcome(Enum):
    """RPS-3: SL >= 1 succeeds, SL 0 is a near miss, SL < 0 fails."""

    SUCCESS = "success"
    NEAR_MISS = "near miss"
    FAILURE = "failure"


def success_word(sl: int) -> str | None:
    """RPS-3: the word for a successful SL (acceptable .. miraculous); None for SL <= 0."""
    require_int(sl, "A Success Level")
    if sl < 1:
        return None
    if sl <= 4:
        return "acceptable"
    if sl <= 9:
        return "good"
    if sl <= 14:
        return "impressive"
    if sl == 15:
        return "spectacular"
    return "miraculous"


def _outcome(sl: int) -> Outcome:
    if sl >= 1:
        return Outcome.SUCCESS
    return Outcome.NEAR_MISS if sl == 0 else Outcome.FAILURE


@dataclass(frozen=True)
class RpsCheck:
    """One RPS check: inputs, dice, the Success Level and how it reads.

    ``dice`` and ``roll`` are None for an assumed success (RPS-6, ``assumed`` True). ``raw_sl`` is
    Base - roll before doubles changed it (1 for an assumed success). ``word`` is RPS-3's success
    word, None unless SL >= 1.
    """

    base: int
    dice: tuple[int, int] | None
    roll: int | None
    raw_sl: int
    sl: int
    doubles: Doubles | None
    outcome: Outcome
    word: str | None
    verdict: Verdict
    assumed: bool = False
    granted_by_gm: bool = False

    @property
    def succeeded(self) -> bool:
        """True when the check succeeded (SL >= 1)."""
        return self.outcome is Outcome.SUCCESS

    @property
    def fumble(self) -> bool:
        """True for an RPS-5 critical failure."""
        return self.doubles is Doubles.CRITICAL_FAILURE

    @property
    def name(self) -> str:
        """The outcome as the rules name it, e.g. "critical success, impressive" or "near miss"."""
        if self.assumed:
            head = "assumed success"
        elif self.doubles is not None:
            head = self.doubles.value
        else:
            head = self.outcome.value
        return f"{head}, {self.word}" if self.word else head


def check(base: int, d1: int, d2: int) -> RpsCheck:
    """RPS-2..RPS-5: SL = Base - (d1 + d2), with double 1s and double 10s applied."""
    base = _checked_base(base)
    d1 = check_die(d1, 10, "An RPS d10")
    d2 = check_die(d2, 10, "An RPS d10")
    roll = d1 + d2
    raw_sl = base - roll
    sl = raw_sl
    doubles: Doubles | None = None
    verdict = Verdict.SUCCESS if raw_sl >= 1 else Verdict.FAILURE
    if d1 == d2 == 1:
        if base <= 2:
            doubles, sl, verdict = Doubles.AUTOMATIC_SUCCESS, 1, Verdict.SUCCESS
        else:
            doubles, sl, verdict = Doubles.CRITICAL_SUCCESS, base - 2 + 5, Verdict.CRITICAL_SUCCESS
    elif d1 == d2 == 10:
        if base - 20 >= 1:
            doubles, sl, verdict = Doubles.AUTOMATIC_FAILURE, 0, Verdict.FAILURE
        else:
            doubles, sl, verdict = Doubles.CRITICAL_FAILURE, base - 20, Verdict.CRITICAL_FAILURE
    return RpsCheck(
        base=base,
        dice=(d1, d2),
        roll=roll,
        raw_sl=raw_sl,
        sl=sl,
        doubles=doubles,
        outcome=_outcome(sl),
        word=success_word(sl),
        verdict=verdict,
    )


# --------------------------------------------------------------------------------------------------
# RPS-6: forgoing the roll


def forgo(base: int, granted_by_gm: bool = False) -> RpsCheck:
    """RPS-6: an assumed success, SL 1, no dice; allowed when Base > 15 or a GM grants it."""
    base = _checked_base(base)
    if not isinstance(granted_by_gm, bool):
        raise RuleError("granted_by_gm must be True or False.")
    if base <= FORGO_ABOVE and not granted_by_gm:
        raise RuleError(
            f"A Base of {base} is not above {FORGO_ABOVE}: roll the dice, or ask a GM to grant you an "
            "assumed success."
        )
    return RpsCheck(
        base=base,
        dice=None,
        roll=None,
        raw_sl=1,
        sl=1,
        doubles=None,
        outcome=Outcome.SUCCESS,
        word=success_word(1),
        verdict=Verdict.SUCCESS,
        assumed=True,
        granted_by_gm=granted_by_gm,
    )


# --------------------------------------------------------------------------------------------------
# RPS-7: resisted actions


@dataclass(frozen=True)
class ResistedParty:
    """One side of a resisted action: a name (or id), its Base and its first pair of d10s."""

    name: str
    base: int
    dice: tuple[int, int]


# A re-roll source: a callable given the party that re-rolls, or an iterator of pairs taken in party order.
RerollSource = Callable[[ResistedParty], tuple[int, int]] | Iterable[tuple[int, int]]


@dataclass(frozen=True)
class ResistedRound:
    """One round of a resisted action: every party's check, and who tied for the highest SL."""

    checks: tuple[tuple[str, RpsCheck], ...]
    highest: tuple[str, ...]

    @property
    def decided(self) -> bool:
        """True when one party alone had the highest SL."""
        return len(self.highest) == 1


@dataclass(frozen=True)
class ResistedResult:
    """RPS-7: every round, the winner, the runner-up of the final round and the new SL."""

    parties: tuple[ResistedParty, ...]
    rounds: tuple[ResistedRound, ...]
    winner: str
    winner_sl: int
    runner_up: str
    runner_up_sl: int
    sl: int

    @property
    def final_round(self) -> ResistedRound:
        """The round that decided the action (the subtraction uses it)."""
        return self.rounds[-1]


def _pair(value: object, who: str) -> tuple[int, int]:
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise RuleError(f"{who} needs two d10s, not {value!r}.")
    return (check_die(value[0], 10, "An RPS d10"), check_die(value[1], 10, "An RPS d10"))


def _next_pairs(
    reroll: RerollSource | None, iterator: Iterator[tuple[int, int]] | None, party: ResistedParty
) -> tuple[int, int]:
    if iterator is not None:
        try:
            return _pair(next(iterator), party.name)
        except StopIteration:
            raise RuleError(f"{party.name} must roll again to break the tie, but no dice are left.") from None
    if reroll is None:
        raise RuleError("The highest Success Levels tied; the tied parties must roll again.")
    assert callable(reroll)
    return _pair(reroll(party), party.name)


def resisted(parties: Iterable[ResistedParty], reroll: RerollSource | None = None) -> ResistedResult:
    """RPS-7: highest SL wins; ties re-roll alone; new SL = winner's SL - second-highest of the final round.

    ``reroll`` supplies further pairs of d10s for tied parties, either a callable given the party or an
    iterable of pairs taken in the parties' original order. The runner-up is the party with the highest
    SL among the final round's other parties: when only tied parties re-rolled, that is one of them, not a
    party that dropped out earlier. A source that keeps tying is stopped after ``MAX_RESISTED_ROUNDS``
    rounds with a RuleError (an endless source could otherwise loop forever).
    """
    sides = tuple(parties)
    if len(sides) < 2:
        raise RuleError("A resisted action needs at least two parties.")
    for party in sides:
        if not isinstance(party, ResistedParty):
            raise RuleError(f"{party!r} is not a party of a resisted action.")
        if not isinstance(party.name, str) or not party.name.strip():
            raise RuleError("Every party of a resisted action needs a name.")
    names = [p.name for p in sides]
    if len(set(names)) != len(names):
        raise RuleError("Every party of a resisted action needs a different name.")
    iterator = None if reroll is None or callable(reroll) else iter(reroll)

    rounds: list[ResistedRound] = []
    active = sides
    pairs = {p.name: _pair(p.dice, p.name) for p in sides}
    while True:
        checks = tuple((p.name, check(p.base, *pairs[p.name])) for p in active)
        top = max(c.sl for _, c in checks)
        highest = tuple(name for name, c in checks if c.sl == top)
        rounds.append(ResistedRound(checks=checks, highest=highest))
        if len(highest) == 1:
            break
        if len(rounds) >= MAX_RESISTED_ROUNDS:
            raise RuleError(f"The resisted action was still tied after {MAX_RESISTED_ROUNDS} rounds.")
        active = tuple(p for p in active if p.name in highest)
        pairs = {p.name: _next_pairs(reroll, iterator, p) for p in active}

    final = rounds[-1].checks
    winner, winner_check = next((n, c) for n, c in final if n == rounds[-1].highest[0])
    runner_up, runner_check = max(((n, c) for n, c in final if n != winner), key=lambda nc: nc[1].sl)
    return ResistedResult(
        parties=sides,
        rounds=tuple(rounds),
        winner=winner,
        winner_sl=winner_check.sl,
        runner_up=runner_up,
        runner_up_sl=runner_check.sl,
        sl=winner_check.sl - runner_check.sl,
    )


# --------------------------------------------------------------------------------------------------
# RPS-8: sustained actions


class PoolState(Enum):
    """Where a sustained action stands."""

    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


@dataclass(frozen=True)
class SustainedPool:
    """RPS-8: a sustained action's Success Pool; ``advance`` gives the next state.

    ``last_change`` and ``last_check`` describe the check that produced this state (None before any).
    """

    goal: int
    base: int
    minutes_per_check: int
    no_loss: bool = False
    pool: int = 0
    checks: int = 0
    state: PoolState = PoolState.RUNNING
    last_change: int | None = None
    last_check: RpsCheck | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        goal = require_int(self.goal, "A sustained action's Goal")
        if goal < 1:
            raise RuleError(f"A sustained action's Goal must be at least 1, not {goal}.")
        _checked_base(self.base)
        minutes = require_int(self.minutes_per_check, "The time per check")
        if minutes < 0:
            raise RuleError(f"The time per check cannot be negative ({minutes}).")
        if not isinstance(self.no_loss, bool):
            raise RuleError("no_loss must be True or False.")
        require_int(self.pool, "A Success Pool")
        if require_int(self.checks, "The number of checks made") < 0:
            raise RuleError("The number of checks made cannot be negative.")
        if not isinstance(self.state, PoolState):
            raise RuleError(f"{self.state!r} is not a state of a sustained action.")

    @property
    def minutes_spent(self) -> int:
        """Time spent so far: checks made x time per check."""
        return self.checks * self.minutes_per_check

    @property
    def finished(self) -> bool:
        """True once the action completed or failed."""
        return self.state is not PoolState.RUNNING


def start_pool(goal: int, base: int, minutes_per_check: int, no_loss: bool = False) -> SustainedPool:
    """RPS-8: a new sustained action with an empty pool."""
    return SustainedPool(goal=goal, base=base, minutes_per_check=minutes_per_check, no_loss=no_loss)


def advance(pool: SustainedPool, rps_check: RpsCheck) -> SustainedPool:
    """RPS-8: add one check to a running pool; a fumble or a pool below -Goal fails, >= Goal completes.

    The check's own Base is used as made (the GM may have changed modifiers for it).
    """
    if not isinstance(pool, SustainedPool) or not isinstance(rps_check, RpsCheck):
        raise RuleError("advance takes a sustained pool and an RPS check.")
    if pool.finished:
        raise IllegalMove(f"This sustained action has already {pool.state.value}; it takes no more checks.")
    loss = 0 if pool.no_loss else -1
    change = rps_check.sl if rps_check.sl >= 1 else loss
    total = pool.pool + change
    if rps_check.fumble or total < -pool.goal:
        state = PoolState.FAILED
    elif total >= pool.goal:
        state = PoolState.COMPLETED
    else:
        state = PoolState.RUNNING
    return SustainedPool(
        goal=pool.goal,
        base=pool.base,
        minutes_per_check=pool.minutes_per_check,
        no_loss=pool.no_loss,
        pool=total,
        checks=pool.checks + 1,
        state=state,
        last_change=change,
        last_check=rps_check,
    )


# --------------------------------------------------------------------------------------------------
# RPS-9: second tries


def second_try_modifier(previous_check: RpsCheck, modifier: int) -> int:
    """RPS-9: the GM's extra modifier (-5..+5) for another attempt after a failed check (SL <= 0)."""
    if not isinstance(previous_check, RpsCheck):
        raise RuleError("A second try needs the previous RPS check.")
    if previous_check.sl >= 1:
        raise RuleError(f"The previous check succeeded (SL {previous_check.sl}); there is nothing to retry.")
    return require_range(modifier, SECOND_TRY_MIN, SECOND_TRY_MAX, "A second-try modifier")
