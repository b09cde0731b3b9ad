"""Decision dice: 2d6 + stat + modifiers against a target number (RULES.md DD-1..DD-8, seed 003).

Public API:
- Advantage (DD-2): ``DiceMode`` (NORMAL 2d6, ADVANTAGE 3d6, DISADVANTAGE 1d6), ``dice_mode(advantage,
  disadvantage)``, ``decision_dice_count(advantage, disadvantage) -> int``.
- A roll (DD-1): ``roll(dice, stat, modifiers, target, *, advantage=False, disadvantage=False)
  -> DecisionRoll``; the number of dice must match the advantage state.
- Clamps (DD-3): ``bonus(value)``, ``penalty(value)``.
- Target numbers (DD-4): ``TARGET_NUMBERS`` (Simple 6, Challenging 12, Strenuous 18, "Impossible" 20),
  ``target_number(name_or_value) -> int``, ``target_name(value) -> str | None``; targets are 2..30
  (the seed's scale runs 2..22+; 30 is far beyond any roll of 3d6 with sane modifiers and stops typos).
- Contested (DD-5): ``ContestParty``, ``contested(parties, reroll=None) -> ContestResult``
  (``ContestRound`` per round), ``MAX_CONTEST_ROUNDS``.
- Rounding (DD-6): ``round_down_at_end(parts) -> RoundedTotal`` with exact ``Fraction`` arithmetic.
- Supply dice (DD-7): ``SupplyDie`` (D12 .. D4, EMPTY; ``step_down()``, ``parse(text)``),
  ``supply_roll(die, value) -> SupplyRoll``.
- Percentage (DD-8): ``percent(roll, chance) -> PercentRoll``.

Ranges the rules leave open, chosen here: a stat -20..20, a single modifier -50..50.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from math import floor

from bot.core.common import Verdict
from bot.core.dice import check_die
from bot.core.errors import RuleError, require_int, require_range

STAT_MIN, STAT_MAX = -20, 20
MODIFIER_MIN, MODIFIER_MAX = -50, 50
TARGET_MIN, TARGET_MAX = 2, 30
MAX_CONTEST_ROUNDS = 100
SUPPLY_STEP_AT = 3

# --------------------------------------------------------------------------------------------------
# DD-2: advantage and disadvantage


class DiceMode(Enum):
    """How many decision dice a roll uses (DD-2); the value is the number of d6."""

    NORMAL = 2
    ADVANTAGE = 3
    DISADVANTAGE = 1

    @property
    def count(self) -> int:
        """The number of d6 rolled."""
        return self.value

    @property
    def label(self) -> str:
        """A word for the mode: "advantage", "disadvantage" or "normal"."""
        return self.name.lower()


def _flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise RuleError(f"{name} must be True or False, not {value!r}.")
    return value


def dice_mode(advantage: bool, disadvantage: bool) -> DiceMode:
    """DD-2: advantage 3d6, disadvantage 1d6, both or neither 2d6 (they never stack)."""
    adv = _flag(advantage, "advantage")
    dis = _flag(disadvantage, "disadvantage")
    if adv and not dis:
        return DiceMode.ADVANTAGE
    if dis and not adv:
        return DiceMode.DISADVANTAGE
    return DiceMode.NORMAL


def decision_dice_count(advantage: bool, disadvantage: bool) -> int:
    """DD-2: how many decision dice to roll: 3, 1 or 2."""
    return dice_mode(advantage, disadvantage).count


def _decision_dice(dice: Sequence[int], mode: DiceMode, who: str = "This roll") -> tuple[int, ...]:
    if not isinstance(dice, tuple | list):
        raise RuleError(f"{who} needs its decision dice as a list, not {dice!r}.")
    if len(dice) != mode.count:
        raise RuleError(f"{who} rolls {mode.count}d6 ({mode.label}), but {len(dice)} dice were given.")
    return tuple(check_die(d, 6, "A decision die") for d in dice)


# --------------------------------------------------------------------------------------------------
# DD-3: bonus and penalty


def bonus(value: int) -> int:
    """DD-3: a bonus that comes out negative counts 0."""
    return max(0, require_int(value, "A bonus"))


def penalty(value: int) -> int:
    """DD-3: a penalty that comes out positive counts 0."""
    return min(0, require_int(value, "A penalty"))


def _modifiers(modifiers: int | Iterable[int]) -> tuple[int, ...]:
    items: Iterable[int] = (modifiers,) if isinstance(modifiers, int) else modifiers
    return tuple(require_range(m, MODIFIER_MIN, MODIFIER_MAX, "A decision-dice modifier") for m in items)


# --------------------------------------------------------------------------------------------------
# DD-4: target numbers

TARGET_NUMBERS: dict[str, int] = {
    "Simple": 6,
    "Challenging": 12,
    "Strenuous": 18,
    '"Impossible"': 20,
}


def target_number(choice: str | int) -> int:
    """DD-4: a target number from its name (any case, quotes optional) or a number 2..30."""
    if isinstance(choice, str):
        wanted = choice.strip().strip('"').casefold()
        for name, value in TARGET_NUMBERS.items():
            if name.strip('"').casefold() == wanted:
                return value
        raise RuleError(f"There is no target number named {choice!r}.")
    return require_range(choice, TARGET_MIN, TARGET_MAX, "A target number")


def target_name(value: int) -> str | None:
    """DD-4: the name of a target number on the seed's scale, or None between the names."""
    for name, number in TARGET_NUMBERS.items():
        if number == value:
            return name
    return None


# --------------------------------------------------------------------------------------------------
# DD-1: a decision roll


@dataclass(frozen=True)
class DecisionRoll:
    """DD-1: dice, stat, modifiers, the total, the target and whether the total reached it."""

    mode: DiceMode
    dice: tuple[int, ...]
    dice_total: int
    stat: int
    modifiers: tuple[int, ...]
    modifier_total: int
    total: int
    target: int
    target_name: str | None
    success: bool
    margin: int
    verdict: Verdict

    @property
    def name(self) -> str:
        """The outcome as the rules name it: "success" or "failure"."""
        return self.verdict.value


def roll(
    dice: Sequence[int],
    stat: int,
    modifiers: int | Iterable[int],
    target: int | str,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
) -> DecisionRoll:
    """DD-1: total = dice + stat + modifiers; success when total >= target (a tie succeeds)."""
    mode = dice_mode(advantage, disadvantage)
    faces = _decision_dice(dice, mode)
    stat = require_range(stat, STAT_MIN, STAT_MAX, "A stat")
    mods = _modifiers(modifiers)
    target = target_number(target)
    dice_total = sum(faces)
    total = dice_total + stat + sum(mods)
    success = total >= target
    return DecisionRoll(
        mode=mode,
        dice=faces,
        dice_total=dice_total,
        stat=stat,
        modifiers=mods,
        modifier_total=sum(mods),
        total=total,
        target=target,
        target_name=target_name(target),
        success=success,
        margin=total - target,
        verdict=Verdict.SUCCESS if success else Verdict.FAILURE,
    )


# --------------------------------------------------------------------------------------------------
# DD-5: contested rolls


@dataclass(frozen=True)
class ContestParty:
    """One side of a contested roll: a name, its first decision dice, its stat plus modifiers and mode."""

    name: str
    dice: tuple[int, ...]
    modifier: int = 0
    advantage: bool = False
    disadvantage: bool = False

    @property
    def mode(self) -> DiceMode:
        """This party's number of decision dice (DD-2)."""
        return dice_mode(self.advantage, self.disadvantage)


@dataclass(frozen=True)
class ContestEntry:
    """One party's roll in one round of a contest."""

    name: str
    dice: tuple[int, ...]
    modifier: int
    total: int


# A re-roll source: a callable given the party that re-rolls, or an iterator of dice taken in party order.
ContestReroll = Callable[[ContestParty], Sequence[int]] | Iterable[Sequence[int]]


@dataclass(frozen=True)
class ContestRound:
    """One round of a contest: every party's total and who tied for the highest."""

    entries: tuple[ContestEntry, ...]
    highest: tuple[str, ...]


@dataclass(frozen=True)
class ContestResult:
    """DD-5: every round, the winner and the margin over the final round's runner-up."""

    parties: tuple[ContestParty, ...]
    rounds: tuple[ContestRound, ...]
    winner: str
    winner_total: int
    runner_up: str
    runner_up_total: int
    margin: int


def _next_dice(
    reroll: ContestReroll | None, iterator: Iterator[Sequence[int]] | None, party: ContestParty
) -> tuple[int, ...]:
    if iterator is not None:
        try:
            return _decision_dice(next(iterator), party.mode, party.name)
        except StopIteration:
            raise RuleError(f"{party.name} must roll again to break the tie, but no dice are left.") from None
    if reroll is None:
        raise RuleError("The highest totals tied; the tied parties must roll again.")
    assert callable(reroll)
    return _decision_dice(reroll(party), party.mode, party.name)


def contested(parties: Iterable[ContestParty], reroll: ContestReroll | None = None) -> ContestResult:
    """DD-5: the highest total wins; parties tied for the highest re-roll their dice until one wins.

    ``reroll`` gives tied parties new decision dice: a callable given the party, or an iterable of dice
    taken in the parties' original order. Stops with a RuleError after ``MAX_CONTEST_ROUNDS`` rounds.
    The margin is the winner's total minus the best other total of the final round.
    """
    sides = tuple(parties)
    if len(sides) < 2:
        raise RuleError("A contested roll needs at least two parties.")
    for party in sides:
        if not isinstance(party, ContestParty):
            raise RuleError(f"{party!r} is not a party of a contested roll.")
        if not isinstance(party.name, str) or not party.name.strip():
            raise RuleError("Every party of a contested roll needs a name.")
        # a whole number, as a plain roll's total: its parts are held where they come from (the stat by
        # STAT_MIN..STAT_MAX, the player's and each GM's modifier by MODIFIER_MIN..MODIFIER_MAX)
        require_int(party.modifier, f"The modifier of {party.name}")
    names = [p.name for p in sides]
    if len(set(names)) != len(names):
        raise RuleError("Every party of a contested roll needs a different name.")
    iterator = None if reroll is None or callable(reroll) else iter(reroll)

    rounds: list[ContestRound] = []
    active = sides
    dice = {p.name: _decision_dice(p.dice, p.mode, p.name) for p in sides}
    while True:
        entries = tuple(
            ContestEntry(p.name, dice[p.name], p.modifier, sum(dice[p.name]) + p.modifier) for p in active
        )
        top = max(e.total for e in entries)
        highest = tuple(e.name for e in entries if e.total == top)
        rounds.append(ContestRound(entries=entries, highest=highest))
        if len(highest) == 1:
            break
        if len(rounds) >= MAX_CONTEST_ROUNDS:
            raise RuleError(f"The contest was still tied after {MAX_CONTEST_ROUNDS} rounds.")
        active = tuple(p for p in active if p.name in highest)
        dice = {p.name: _next_dice(reroll, iterator, p) for p in active}

    final = rounds[-1].entries
    winner = next(e for e in final if e.name == rounds[-1].highest[0])
    runner = max((e for e in final if e.name != winner.name), key=lambda e: e.total)
    return ContestResult(
        parties=sides,
        rounds=tuple(rounds),
        winner=winner.name,
        winner_total=winner.total,
        runner_up=runner.name,
        runner_up_total=runner.total,
        margin=winner.total - runner.total,
    )


# --------------------------------------------------------------------------------------------------
# DD-6: round down once, at the end


@dataclass(frozen=True)
class RoundedTotal:
    """DD-6: the exact parts, their exact sum and the sum rounded down."""

    parts: tuple[Fraction, ...]
    exact: Fraction
    value: int


def round_down_at_end(parts: Iterable[int | Fraction]) -> RoundedTotal:
    """DD-6: add exact values (ints or Fractions, never floats) and floor only the end result."""
    exact_parts: list[Fraction] = []
    for part in parts:
        if isinstance(part, bool) or not isinstance(part, int | Fraction):
            raise RuleError(f"Only whole numbers and exact fractions can be added, not {part!r}.")
        exact_parts.append(Fraction(part))
    exact = sum(exact_parts, Fraction(0))
    return RoundedTotal(parts=tuple(exact_parts), exact=exact, value=floor(exact))


# --------------------------------------------------------------------------------------------------
# DD-7: supply dice


class SupplyDie(Enum):
    """DD-7: the supply ladder d12 -> d10 -> d8 -> d6 -> d4 -> empty; the value is the die's sides."""

    D12 = 12
    D10 = 10
    D8 = 8
    D6 = 6
    D4 = 4
    EMPTY = 0

    @property
    def sides(self) -> int:
        """Faces of the die (0 for empty)."""
        return self.value

    @property
    def label(self) -> str:
        """ "d12" .. "d4", or "empty"."""
        return "empty" if self is SupplyDie.EMPTY else f"d{self.value}"

    def step_down(self) -> SupplyDie:
        """The next smaller size; empty stays empty."""
        ladder = list(SupplyDie)
        return ladder[min(ladder.index(self) + 1, len(ladder) - 1)]

    @classmethod
    def parse(cls, text: str) -> SupplyDie:
        """A size from "d12", "D8", "12" or "empty" (for the GM setting or restoring it)."""
        wanted = str(text).strip().casefold()
        for die in cls:
            if wanted in (die.label, die.label.lstrip("d")):
                return die
        raise RuleError(f"{text!r} is not a supply die; use d12, d10, d8, d6, d4 or empty.")


@dataclass(frozen=True)
class SupplyRoll:
    """DD-7: the die rolled, its face, and the die the item has afterwards."""

    die: SupplyDie
    value: int
    stepped_down: bool
    new_die: SupplyDie

    @property
    def name(self) -> str:
        """What happened, e.g. "d8 → d6" or "d8 holds"."""
        if self.stepped_down:
            return f"{self.die.label} → {self.new_die.label}"
        return f"{self.die.label} holds"


def supply_roll(die: SupplyDie, value: int) -> SupplyRoll:
    """DD-7: a roll of the current supply die; 3 or lower steps it down one size."""
    if not isinstance(die, SupplyDie):
        raise RuleError(f"{die!r} is not a supply die.")
    if die is SupplyDie.EMPTY:
        raise RuleError("This item's supply die is empty; it cannot be rolled until it is restored.")
    face = check_die(value, die.sides, f"A supply {die.label}")
    stepped = face <= SUPPLY_STEP_AT
    return SupplyRoll(die=die, value=face, stepped_down=stepped, new_die=die.step_down() if stepped else die)


# --------------------------------------------------------------------------------------------------
# DD-8: percentage rolls


@dataclass(frozen=True)
class PercentRoll:
    """DD-8: a d100 against a chance; success when the roll is at most the chance."""

    roll: int
    chance: int
    success: bool
    verdict: Verdict

    @property
    def name(self) -> str:
        """ "success" or "failure"."""
        return self.verdict.value


def percent(roll: int, chance: int) -> PercentRoll:
    """DD-8: d100 ``roll`` (1..100) against ``chance`` (0..100); success when roll <= chance."""
    face = check_die(roll, 100, "A d100")
    odds = require_range(chance, 0, 100, "A percentage chance")
    success = face <= odds
    return PercentRoll(
        roll=face, chance=odds, success=success, verdict=Verdict.SUCCESS if success else Verdict.FAILURE
    )
