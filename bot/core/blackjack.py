"""Blackjack-style task resolution (RULES.md BJ-1..BJ-11) as a pure state machine over cards.

The rules never draw: every transition takes the card it consumes, so a caller holding a ``Shoe``
draws (and persists) one card at a time and feeds it in.

Public API
----------
Tables (data):
    SKILL_NAMES            skill level 0..10 -> name (Unskilled .. Divine); the level is its own base.
    DIFFICULTY_NAMES       task difficulty 0..7 -> name (Mindlessly Easy .. Absurdly Difficult).
    ADDER_SCHEMES          scheme name ("low", "high", "middle", "extremes") -> per skill 0..10 the
                           sorted tuple of values that skill may add (skill 0: empty).
    DEFAULT_ADDER_SCHEME   "low".
    CHARACTERISTIC_SUITS   characteristic name -> Suit (BJ-9), general names included.
    Characteristic         (name, bonus): one characteristic a task names and the character's bonus.
    RESULT_NAMES           TRL -2..8 -> name; ``result_name`` extends it both ways.
Functions on the tables:
    skill_name(level), difficulty_name(level), adder_values(skill, scheme="low"),
    format_adder_values(values), characteristic_suit(name), canonical_characteristic(name),
    task_characteristics(characteristic=None, characteristic_bonus=0, characteristics=()),
    suit_bonuses(characteristics).
Card totals and results:
    card_total(cards, extra=0)        BJ-2 soft total (ace 11 when that keeps the total <= 21), no wrap.
    is_fumble_chance(card, position)  BJ-11 for the card that is the ``position``-th in the hand (1-based).
    task_resolution_level(total, skill, difficulty, bonus=0)   BJ-8.
    result_name(trl), down(trl), up(trl), verdict_for(trl)      BJ-10.
    task_result(total, skill, difficulty, bonus=0) -> TaskResult
The hand:
    HandMode (VOLUNTARY / INVOLUNTARY), HandState (IN_PROGRESS / AWAITING_BONUS / ENDED),
    Ending (STOOD / WRAPPED / BLACKJACK_BONUS / SKILL_ADDED / DEALER_STOOD), HandOptions, Hand.
    start_voluntary(skill, difficulty, characteristic=None, characteristic_bonus=0, options=HandOptions(),
                    *, characteristics=())   one characteristic, or several as (name, bonus) pairs
    start_involuntary(same arguments)
    hit(hand, card), add_bonus(hand, card), deal(hand, card), stand(hand), add_skill(hand, value)
    feed(hand, source) / play_involuntary(source, skill, difficulty, ...)   source: iterable or callable.
    Hand properties: needs_card, pending_bonus, is_over, played, total, wrapped, fumble_flags,
    characteristics, counting_characteristics, characteristic_counts, counted_bonus;
    Hand.to_dict() / Hand.from_dict(d); resolve(hand) -> TaskResult;
    summarize(hand, reveal=False) -> HandSummary.
A caller holding a shoe: ``hand = start_voluntary(...)``; then ``while hand.needs_card: card, shoe =
shoe.draw(rng); hand = deal(hand, card)``; a Hit click is ``hit(hand, drawn)`` followed by the same loop (a
21 owes one or two bonus cards, ``pending_bonus``). ``hand.played`` are the cards in play
for ``Shoe.reshuffle``.
Verdicts (``verdict_for``): TRL <= -1 (the Fumble names) is a critical failure, 0 a failure, 1..7 a success,
8 (Superb) and above a critical success. Fumble-chance flags (BJ-11) are for the GM and do not change it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from enum import Enum
from types import MappingProxyType
from typing import Any, NamedTuple

from bot.core.cards import Card, Suit
from bot.core.common import Verdict
from bot.core.errors import IllegalMove, RuleError, require_int, require_range

# --------------------------------------------------------------------------------------------------------
# Tables (seed 004, as RULES.md reads it)

SKILL_NAMES: tuple[str, ...] = (
    "Unskilled",
    "Incompetent",
    "Novice",
    "Familiar",
    "Competent",
    "Proficient",
    "Expert",
    "Master",
    "Grand Master",
    "Heroic",
    "Divine",
)
MAX_SKILL = len(SKILL_NAMES) - 1

DIFFICULTY_NAMES: tuple[str, ...] = (
    "Mindlessly Easy",
    "Very Easy",
    "Easy",
    "Average",
    "Hard",
    "Very Hard",
    "Extremely Hard",
    "Absurdly Difficult",
)
MAX_DIFFICULTY = len(DIFFICULTY_NAMES) - 1

# The seed's adder columns for skills 1..10, written as RULES.md (BJ-7) prints them.
_ADDER_TEXT: Mapping[str, tuple[str, ...]] = {
    "low": tuple(f"1-{n}" if n > 1 else "1" for n in range(1, 11)),
    "high": tuple(f"{11 - n}-10" if n > 1 else "10" for n in range(1, 11)),
    "middle": ("6", "5-6", "5-7", "4-7", "4-8", "3-8", "3-9", "2-9", "2-10", "1-10"),
    "extremes": (
        "1",
        "1,10",
        "1-2,10",
        "1-2,9-10",
        "1-3,9-10",
        "1-3,8-10",
        "1-4,8-10",
        "1-4,7-10",
        "1-5,7-10",
        "1-10",
    ),
}


def _parse_values(text: str) -> tuple[int, ...]:
    values: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        values.update(range(int(low), int(high or low) + 1))
    return tuple(sorted(values))


ADDER_SCHEMES: Mapping[str, tuple[tuple[int, ...], ...]] = MappingProxyType(
    {name: ((), *(_parse_values(t) for t in texts)) for name, texts in _ADDER_TEXT.items()}
)
DEFAULT_ADDER_SCHEME = "low"

CHARACTERISTIC_SUITS: Mapping[str, Suit] = MappingProxyType(
    {
        "Strength": Suit.SPADES,
        "Intelligence": Suit.SPADES,
        "Charisma": Suit.SPADES,
        "Power": Suit.SPADES,
        "Constitution": Suit.CLUBS,
        "Will": Suit.CLUBS,
        "Toughness": Suit.CLUBS,
        "Dexterity": Suit.DIAMONDS,
        "Concentration": Suit.DIAMONDS,
        "Control": Suit.DIAMONDS,
        "Speed": Suit.HEARTS,
    }
)
_CHARACTERISTIC_BY_KEY = {name.casefold(): name for name in CHARACTERISTIC_SUITS}

RESULT_NAMES: Mapping[int, str] = MappingProxyType(
    {
        -2: "Fumble II",
        -1: "Fumble I",
        0: "Failure",
        1: "Minimal Success",
        2: "Very Poor",
        3: "Poor",
        4: "Average",
        5: "Good",
        6: "Very Good",
        7: "Excellent",
        8: "Superb",
    }
)

BLACKJACK = 21
DEALER_STANDS_ON = 17
MAX_CHARACTERISTIC_BONUS = 100


def skill_name(level: int) -> str:
    """The seed's name of skill level 0..10."""
    return SKILL_NAMES[require_range(level, 0, MAX_SKILL, "A skill level")]


def difficulty_name(level: int) -> str:
    """The seed's name of task difficulty 0..7."""
    return DIFFICULTY_NAMES[require_range(level, 0, MAX_DIFFICULTY, "A task difficulty")]


def check_adder_scheme(scheme: object) -> str:
    """Return ``scheme`` if it names one of the four adder schemes, else raise RuleError."""
    if not isinstance(scheme, str) or scheme not in ADDER_SCHEMES:
        names = ", ".join(ADDER_SCHEMES)
        raise RuleError(f"{scheme!r} is not an adder scheme; choose one of {names}.")
    return scheme


def adder_values(skill: int, scheme: str = DEFAULT_ADDER_SCHEME) -> tuple[int, ...]:
    """The values skill level ``skill`` may add under ``scheme`` (BJ-7); empty for Unskilled."""
    return ADDER_SCHEMES[check_adder_scheme(scheme)][require_range(skill, 0, MAX_SKILL, "A skill level")]


def format_adder_values(values: Iterable[int]) -> str:
    """Show an adder set the way the seed prints it, such as ``1-2,9-10``; ``-`` when empty."""
    ordered = sorted(set(values))
    runs: list[str] = []
    for _, group in itertools.groupby(enumerate(ordered), key=lambda pair: pair[1] - pair[0]):
        run = [value for _, value in group]
        runs.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(runs) or "-"


def canonical_characteristic(name: object) -> str:
    """The table's spelling of a characteristic name (case-insensitive), else raise RuleError."""
    key = name.strip().casefold() if isinstance(name, str) else ""
    if key not in _CHARACTERISTIC_BY_KEY:
        names = ", ".join(CHARACTERISTIC_SUITS)
        raise RuleError(f"{name!r} is not a characteristic; choose one of {names}.")
    return _CHARACTERISTIC_BY_KEY[key]


def characteristic_suit(name: str) -> Suit:
    """The suit that lets a characteristic's bonus count (BJ-9)."""
    return CHARACTERISTIC_SUITS[canonical_characteristic(name)]


class Characteristic(NamedTuple):
    """One characteristic a task names (its table spelling) and the character's bonus for it (BJ-9)."""

    name: str
    bonus: int

    @property
    def suit(self) -> Suit:
        """The suit whose card lets this bonus count."""
        return CHARACTERISTIC_SUITS[self.name]


def _characteristic(item: object) -> Characteristic:
    if isinstance(item, str) or not isinstance(item, tuple | list) or len(item) != 2:
        raise RuleError(f"A task's characteristic is a (name, bonus) pair, not {item!r}.")
    name, bonus = item
    limit = MAX_CHARACTERISTIC_BONUS
    return Characteristic(
        canonical_characteristic(name), require_range(bonus, -limit, limit, "A characteristic bonus")
    )


def _characteristics(items: object) -> tuple[Characteristic, ...]:
    """A task's characteristics, checked: each a known name with a bonus, none named twice (BJ-9)."""
    if isinstance(items, str) or not isinstance(items, Iterable):
        raise RuleError("A task's characteristics are a list of (name, bonus) pairs.")
    found = tuple(_characteristic(item) for item in items)
    names = [c.name for c in found]
    for name in names:
        if names.count(name) > 1:
            raise RuleError(f"The task names {name} twice; name each characteristic once.")
    return found


def task_characteristics(
    characteristic: str | None = None,
    characteristic_bonus: int = 0,
    characteristics: Iterable[tuple[str, int]] = (),
) -> tuple[Characteristic, ...]:
    """BJ-9: the characteristics a task names, from one (``characteristic`` and its bonus) or several
    (``characteristics``, (name, bonus) pairs), never both."""
    several = _characteristics(characteristics)
    if characteristic is None:
        if characteristic_bonus != 0:
            raise RuleError("A characteristic bonus needs the characteristic it belongs to.")
        return several
    if several:
        raise RuleError("Name one characteristic, or several as a list, not both.")
    return _characteristics([(characteristic, characteristic_bonus)])


def suit_bonuses(characteristics: Iterable[Characteristic]) -> dict[Suit, int]:
    """The bonus each suit brings when a played card has it (BJ-9): the sum over the characteristics of
    that suit (Strength and Intelligence are both spades); suits whose bonuses sum to 0 are left out."""
    out: dict[Suit, int] = {}
    for item in characteristics:
        out[item.suit] = out.get(item.suit, 0) + item.bonus
    return {suit: bonus for suit, bonus in out.items() if bonus}


# --------------------------------------------------------------------------------------------------------
# Totals and results


def card_total(cards: Iterable[Card], extra: int = 0) -> int:
    """BJ-2: pip values plus ``extra``, one ace counted 11 when that keeps the total at 21 or less."""
    hand = tuple(cards)
    total = sum(card.pip_value for card in hand) + extra
    if any(card.rank == 1 for card in hand) and total + 10 <= BLACKJACK:
        total += 10
    return total


def is_fumble_chance(card: Card, position: int) -> bool:
    """BJ-11: the card's value (ace 1) is at most its 1-based position in the hand."""
    return card.pip_value <= position


def task_resolution_level(total: int, skill: int, difficulty: int, bonus: int = 0) -> int:
    """BJ-8: floor((card total + counted bonus) / 5) + skill base - difficulty base."""
    require_int(total, "A card total")
    require_int(bonus, "A characteristic bonus")
    skill = require_range(skill, 0, MAX_SKILL, "A skill level")
    difficulty = require_range(difficulty, 0, MAX_DIFFICULTY, "A task difficulty")
    return (total + bonus) // 5 + skill - difficulty


_NUMERALS: tuple[tuple[int, str], ...] = (
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


def _roman(number: int) -> str:
    out = []
    for value, letters in _NUMERALS:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def result_name(trl: int) -> str:
    """BJ-10: the name of a TRL; Fumble III, IV... below -2 and Superb+1, +2... above 8."""
    trl = require_int(trl, "A TRL")
    if trl in RESULT_NAMES:
        return RESULT_NAMES[trl]
    if trl < 0:
        return f"Fumble {_roman(-trl)}"
    return f"Superb+{trl - 8}"


def down(trl: int) -> int:
    """BJ-10: Down = 5 x (TRL - 5)."""
    return 5 * (require_int(trl, "A TRL") - 5)


def up(trl: int) -> int:
    """BJ-10: Up = -Down."""
    return -down(trl)


def verdict_for(trl: int) -> Verdict:
    """Fumbles (TRL <= -1) are critical failures, Superb and above (TRL >= 8) critical successes."""
    trl = require_int(trl, "A TRL")
    if trl <= -1:
        return Verdict.CRITICAL_FAILURE
    if trl == 0:
        return Verdict.FAILURE
    if trl < 8:
        return Verdict.SUCCESS
    return Verdict.CRITICAL_SUCCESS


@dataclass(frozen=True)
class TaskResult:
    """A resolved task: the inputs of BJ-8 and the BJ-10 reading of its TRL."""

    total: int
    bonus: int
    skill: int
    difficulty: int
    trl: int
    name: str
    succeeded: bool
    down: int
    up: int
    verdict: Verdict


def task_result(total: int, skill: int, difficulty: int, bonus: int = 0) -> TaskResult:
    """BJ-8 and BJ-10 for a card total, a skill, a difficulty and a bonus that counts."""
    trl = task_resolution_level(total, skill, difficulty, bonus)
    return TaskResult(
        total=total,
        bonus=bonus,
        skill=skill,
        difficulty=difficulty,
        trl=trl,
        name=result_name(trl),
        succeeded=trl >= 1,
        down=down(trl),
        up=up(trl),
        verdict=verdict_for(trl),
    )


# --------------------------------------------------------------------------------------------------------
# The hand


class HandMode(Enum):
    """Who decides the draws: the player (BJ-4) or the dealer's rule (BJ-3)."""

    VOLUNTARY = "voluntary"
    INVOLUNTARY = "involuntary"


class HandState(Enum):
    """Where a hand stands: open to moves, owed a bonus card (BJ-6), or over."""

    IN_PROGRESS = "in_progress"
    AWAITING_BONUS = "awaiting_bonus"
    ENDED = "ended"


class Ending(Enum):
    """How a hand ended."""

    STOOD = "stood"
    WRAPPED = "wrapped"
    BLACKJACK_BONUS = "blackjack_bonus"
    SKILL_ADDED = "skill_added"
    DEALER_STOOD = "dealer_stood"


@dataclass(frozen=True)
class HandOptions:
    """A guild's card settings: adder scheme (BJ-7) and the optional rules BJ-6, BJ-9 and BJ-11."""

    adder_scheme: str = DEFAULT_ADDER_SCHEME
    suit_bonus: bool = True
    characteristic_rule: bool = True
    fumble_flags: bool = True

    def __post_init__(self) -> None:
        check_adder_scheme(self.adder_scheme)
        for name in ("suit_bonus", "characteristic_rule", "fumble_flags"):
            if not isinstance(getattr(self, name), bool):
                raise RuleError(f"The card option {name} must be on or off, not {getattr(self, name)!r}.")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {
            "adder_scheme": self.adder_scheme,
            "suit_bonus": self.suit_bonus,
            "characteristic_rule": self.characteristic_rule,
            "fumble_flags": self.fumble_flags,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HandOptions:
        """The inverse of ``to_dict``; missing keys take the defaults."""
        if not isinstance(data, Mapping):
            raise RuleError("Stored card options must be a mapping.")
        known = {"adder_scheme", "suit_bonus", "characteristic_rule", "fumble_flags"}
        unknown = set(data) - known
        if unknown:
            raise RuleError(f"Stored card options hold unknown keys: {', '.join(sorted(map(str, unknown)))}.")
        return cls(**data)


@dataclass(frozen=True)
class Hand:
    """One task's cards. Build it with ``start_voluntary``/``start_involuntary`` and move it with transitions.

    ``cards`` are the regular cards in draw order (the first is face down in a voluntary hand);
    ``bonus_cards`` the BJ-6 bonus cards; ``adder`` the BJ-7 value added, if any.
    """

    mode: HandMode
    skill: int
    difficulty: int
    characteristics: tuple[Characteristic, ...] = ()
    options: HandOptions = field(default_factory=HandOptions)
    cards: tuple[Card, ...] = ()
    bonus_cards: tuple[Card, ...] = ()
    adder: int | None = None
    state: HandState = HandState.IN_PROGRESS
    ending: Ending | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.mode, HandMode):
            raise RuleError(f"{self.mode!r} is not a hand mode.")
        require_range(self.skill, 0, MAX_SKILL, "A skill level")
        require_range(self.difficulty, 0, MAX_DIFFICULTY, "A task difficulty")
        checked = _characteristics(self.characteristics)
        if checked != self.characteristics or type(self.characteristics) is not tuple:
            object.__setattr__(self, "characteristics", checked)
        if not isinstance(self.options, HandOptions):
            raise RuleError("A hand's options must be HandOptions.")
        if not all(isinstance(card, Card) for card in self.cards + self.bonus_cards):
            raise RuleError("A hand holds only cards.")
        if (self.state is HandState.ENDED) != (self.ending is not None):
            raise RuleError("A hand has an ending exactly when it has ended.")

    # -- what the caller needs to know ------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """True once the hand accepts no more moves."""
        return self.state is HandState.ENDED

    @property
    def pending_bonus(self) -> bool:
        """True when a BJ-6 bonus card is owed; feed it with ``deal`` or ``add_bonus``."""
        return self.state is HandState.AWAITING_BONUS

    @property
    def needs_card(self) -> bool:
        """True when the next step is a card from the shoe, not a player's choice; feed it with ``deal``."""
        if self.state is HandState.AWAITING_BONUS:
            return True
        if self.state is HandState.ENDED:
            return False
        # The face-down card is dealt before the player chooses (BJ-4); the dealer draws (BJ-3).
        return self.mode is HandMode.INVOLUNTARY or not self.cards

    @property
    def face_down(self) -> int | None:
        """Index of the face-down card in ``played`` (BJ-4), or None."""
        return 0 if self.mode is HandMode.VOLUNTARY and self.cards else None

    @property
    def played(self) -> tuple[Card, ...]:
        """Every card of the hand in draw order, bonus cards last; these are the cards in play."""
        return self.cards + self.bonus_cards

    @property
    def running_total(self) -> int:
        """BJ-2 total of the regular cards and the adder, before any wrap."""
        return card_total(self.cards, self.adder or 0)

    @property
    def wrapped(self) -> bool:
        """True when the hand went over 21 and wrapped (BJ-5)."""
        return self.running_total > BLACKJACK

    @property
    def total(self) -> int:
        """The card total: wrapped as BJ-5, plus bonus cards (which never wrap, BJ-6)."""
        base = self.running_total
        if base > BLACKJACK:
            base -= BLACKJACK
        # Bonus cards follow a 21, so an ace among them can only count 1 (BJ-2).
        return base + sum(card.pip_value for card in self.bonus_cards)

    @property
    def fumble_flags(self) -> tuple[int, ...]:
        """Indexes in ``played`` of the cards that flagged a fumble chance (BJ-11); empty when off."""
        if not self.options.fumble_flags:
            return ()
        return tuple(i for i, card in enumerate(self.played) if is_fumble_chance(card, i + 1))

    @property
    def counting_characteristics(self) -> tuple[Characteristic, ...]:
        """BJ-9: the task's characteristics whose bonus counts: the rule is on and a played card (the
        face-down and bonus cards included) has the characteristic's suit; each counts once."""
        if not self.options.characteristic_rule or not self.characteristics:
            return ()
        suits = {card.suit for card in self.played}
        return tuple(c for c in self.characteristics if c.suit in suits)

    @property
    def characteristic_counts(self) -> bool:
        """BJ-9: True when some characteristic's bonus counts."""
        return bool(self.counting_characteristics)

    @property
    def counted_bonus(self) -> int:
        """The characteristic bonuses that enter BJ-8: the sum of those that count (0 when none does)."""
        return sum(c.bonus for c in self.counting_characteristics)

    @property
    def allowed_adders(self) -> tuple[int, ...]:
        """The values this hand's skill may add under its scheme (BJ-7)."""
        return adder_values(self.skill, self.options.adder_scheme)

    @property
    def can_add_skill(self) -> bool:
        """True when ``add_skill`` would accept some value now."""
        return (
            self.mode is HandMode.VOLUNTARY
            and self.state is HandState.IN_PROGRESS
            and bool(self.cards)
            and bool(self.allowed_adders)
        )

    @property
    def can_stand(self) -> bool:
        """True when ``stand`` is legal now."""
        return self.mode is HandMode.VOLUNTARY and self.state is HandState.IN_PROGRESS and bool(self.cards)

    # -- serialization -----------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The hand as plain JSON types, cards as codes; ``Hand.from_dict`` reads it back."""
        return {
            "mode": self.mode.value,
            "skill": self.skill,
            "difficulty": self.difficulty,
            "characteristics": [[c.name, c.bonus] for c in self.characteristics],
            "options": self.options.to_dict(),
            "cards": [card.code for card in self.cards],
            "bonus_cards": [card.code for card in self.bonus_cards],
            "adder": self.adder,
            "state": self.state.value,
            "ending": None if self.ending is None else self.ending.value,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Hand:
        """Rebuild a hand by replaying its moves, so stored data that no legal play gives is refused."""
        if not isinstance(data, Mapping):
            raise RuleError("A stored hand must be a mapping.")
        try:
            mode = HandMode(data["mode"])
            state = HandState(data["state"])
            ending = None if data["ending"] is None else Ending(data["ending"])
            cards = [Card.parse(code) for code in data["cards"]]
            bonus_cards = [Card.parse(code) for code in data["bonus_cards"]]
            adder = data["adder"]
            if "characteristics" in data:
                named = _characteristics(data["characteristics"])
            else:  # stored before a task could name several characteristics
                named = task_characteristics(data["characteristic"], data["characteristic_bonus"])
            hand = _start(
                mode, data["skill"], data["difficulty"], named, HandOptions.from_dict(data["options"])
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RuleError(f"A stored hand is incomplete or malformed ({exc!r}).") from None
        try:
            for card in cards:
                hand = hit(hand, card)
            for card in bonus_cards:
                hand = add_bonus(hand, card)
            if adder is not None:
                hand = add_skill(hand, adder)
            if ending is Ending.STOOD:
                hand = stand(hand)
        except IllegalMove as exc:
            raise RuleError(f"A stored hand is not a legal play: {exc}") from None
        if hand.state is not state or hand.ending is not ending:
            raise RuleError("A stored hand's state does not follow from its cards.")
        return hand


_FIELD_NAMES = tuple(f.name for f in fields(Hand))


def _start(
    mode: HandMode,
    skill: int,
    difficulty: int,
    characteristics: tuple[Characteristic, ...],
    options: HandOptions,
) -> Hand:
    return Hand(
        mode=mode, skill=skill, difficulty=difficulty, characteristics=characteristics, options=options
    )


def start_voluntary(
    skill: int,
    difficulty: int,
    characteristic: str | None = None,
    characteristic_bonus: int = 0,
    options: HandOptions | None = None,
    *,
    characteristics: Iterable[tuple[str, int]] = (),
) -> Hand:
    """A new voluntary hand (BJ-4); it needs its face-down card dealt next (``needs_card``).

    The task's characteristics (BJ-9): one as ``characteristic`` and ``characteristic_bonus``, or several
    as ``characteristics``, (name, bonus) pairs.
    """
    named = task_characteristics(characteristic, characteristic_bonus, characteristics)
    return _start(HandMode.VOLUNTARY, skill, difficulty, named, options or HandOptions())


def start_involuntary(
    skill: int,
    difficulty: int,
    characteristic: str | None = None,
    characteristic_bonus: int = 0,
    options: HandOptions | None = None,
    *,
    characteristics: Iterable[tuple[str, int]] = (),
) -> Hand:
    """A new involuntary hand (BJ-3); it needs cards until the dealer's rule stands (characteristics
    as ``start_voluntary``)."""
    named = task_characteristics(characteristic, characteristic_bonus, characteristics)
    return _start(HandMode.INVOLUNTARY, skill, difficulty, named, options or HandOptions())


def _ended_message(hand: Hand) -> str:
    assert hand.ending is not None
    return {
        Ending.STOOD: "This hand has ended: the player stood.",
        Ending.WRAPPED: "This hand has ended: it went over 21 and wrapped.",
        Ending.BLACKJACK_BONUS: "This hand has ended with its blackjack bonus.",
        Ending.SKILL_ADDED: "This hand has ended: the skill adder was used.",
        Ending.DEALER_STOOD: "This hand has ended: the dealer's rule stood on 17 or more.",
    }[hand.ending]


_PLAY_FIELDS = frozenset({"cards", "bonus_cards", "adder", "state", "ending"})


def _evolve(hand: Hand, **play: Any) -> Hand:
    """``dataclasses.replace(hand, **play)`` for the transitions below, which change only how the hand has
    been played (``_PLAY_FIELDS``), each after checking its move.

    ``replace`` runs ``__init__`` and the whole of ``__post_init__`` again, re-checking the task (skill,
    difficulty, characteristic, options) that a transition never changes: most of a Hit click's replay of
    a stored hand (``Hand.from_dict``). The copy is made field by field (nothing a property may have kept
    on the instance comes along), and what a transition can break is still checked.
    """
    if not play.keys() <= _PLAY_FIELDS:
        raise TypeError(f"A transition changes only {sorted(_PLAY_FIELDS)}, not {sorted(play)}.")
    moved = object.__new__(type(hand))
    values = moved.__dict__  # a frozen dataclass: set through the instance's dict, as __init__ does
    kept = hand.__dict__
    for name in _FIELD_NAMES:
        values[name] = kept[name]
    values.update(play)
    if (moved.state is HandState.ENDED) != (moved.ending is not None):
        raise RuleError("A hand has an ending exactly when it has ended.")
    changed_cards = "cards" in play or "bonus_cards" in play
    if changed_cards and not all(isinstance(card, Card) for card in moved.cards + moved.bonus_cards):
        raise RuleError("A hand holds only cards.")
    return moved


def _after_regular_card(hand: Hand) -> Hand:
    total = hand.running_total
    if total > BLACKJACK:
        return _evolve(hand, state=HandState.ENDED, ending=Ending.WRAPPED)
    if total == BLACKJACK:
        return _evolve(hand, state=HandState.AWAITING_BONUS)
    if hand.mode is HandMode.INVOLUNTARY and total >= DEALER_STANDS_ON:
        return _evolve(hand, state=HandState.ENDED, ending=Ending.DEALER_STOOD)
    return hand


def hit(hand: Hand, card: Card) -> Hand:
    """Add a drawn card to a hand in progress (the first one of a voluntary hand is face down)."""
    if not isinstance(card, Card):
        raise RuleError(f"{card!r} is not a card.")
    if hand.state is HandState.ENDED:
        raise IllegalMove(f"No more cards: {_ended_message(hand)}")
    if hand.state is HandState.AWAITING_BONUS:
        raise IllegalMove("This hand made 21 and is owed its bonus card; deal that first.")
    return _after_regular_card(_evolve(hand, cards=(*hand.cards, card)))


def add_bonus(hand: Hand, card: Card) -> Hand:
    """BJ-6: add a bonus card; with the suit rule a match to the card before it earns one more."""
    if not isinstance(card, Card):
        raise RuleError(f"{card!r} is not a card.")
    if hand.state is not HandState.AWAITING_BONUS:
        raise IllegalMove("This hand is not owed a bonus card; a bonus follows only a total of exactly 21.")
    previous = hand.played[-1]
    bonus_cards = (*hand.bonus_cards, card)
    one_more = hand.options.suit_bonus and len(bonus_cards) == 1 and card.suit is previous.suit
    if one_more:
        return _evolve(hand, bonus_cards=bonus_cards)
    return _evolve(hand, bonus_cards=bonus_cards, state=HandState.ENDED, ending=Ending.BLACKJACK_BONUS)


def deal(hand: Hand, card: Card) -> Hand:
    """Feed the card a hand needs (``needs_card``): a bonus card, the dealer's draw or the face-down card."""
    if hand.state is HandState.AWAITING_BONUS:
        return add_bonus(hand, card)
    if hand.state is HandState.ENDED:
        raise IllegalMove(f"No more cards: {_ended_message(hand)}")
    if not hand.needs_card:
        raise IllegalMove("This hand waits for the player to hit, stand or add skill.")
    return hit(hand, card)


def stand(hand: Hand) -> Hand:
    """The player keeps the total and ends a voluntary hand (BJ-4)."""
    if hand.mode is HandMode.INVOLUNTARY:
        raise IllegalMove("An involuntary hand follows the dealer's rule; the player cannot stand.")
    if hand.state is HandState.ENDED:
        raise IllegalMove(f"Cannot stand: {_ended_message(hand)}")
    if hand.state is HandState.AWAITING_BONUS:
        raise IllegalMove("This hand made 21 and is owed its bonus card; deal that first.")
    if not hand.cards:
        raise IllegalMove("At least one card must be drawn before standing.")
    return _evolve(hand, state=HandState.ENDED, ending=Ending.STOOD)


def add_skill(hand: Hand, value: int) -> Hand:
    """BJ-7: add one value of the skill's adder set to a voluntary hand, which ends (wrapping over 21)."""
    value = require_int(value, "A skill adder")
    if hand.mode is HandMode.INVOLUNTARY:
        raise IllegalMove("Skill can be added only to a voluntary hand.")
    if hand.state is HandState.ENDED:
        if hand.ending is Ending.WRAPPED:
            raise IllegalMove("This hand went over 21 and wrapped; no skill can be added after a wrap.")
        raise IllegalMove(f"Cannot add skill: {_ended_message(hand)}")
    if hand.state is HandState.AWAITING_BONUS:
        raise IllegalMove("This hand made 21 and is owed its bonus card; no skill can be added.")
    if not hand.cards:
        raise IllegalMove("At least one card must be drawn before adding skill.")
    allowed = hand.allowed_adders
    if not allowed:
        raise IllegalMove(f"An {SKILL_NAMES[hand.skill]} (skill 0) character has no skill adder.")
    if value not in allowed:
        raise IllegalMove(
            f"A {SKILL_NAMES[hand.skill]} (skill {hand.skill}) may add {format_adder_values(allowed)} "
            f"under the {hand.options.adder_scheme!r} scheme, not {value}."
        )
    return _evolve(hand, adder=value, state=HandState.ENDED, ending=Ending.SKILL_ADDED)


CardSource = Iterable[Card] | Callable[[], Card]


def _cards_from(source: CardSource) -> Iterator[Card]:
    if callable(source):
        return iter(source, None)  # a draw callable never returns None, so this never stops by itself
    return iter(source)


def feed(hand: Hand, source: CardSource) -> Hand:
    """Deal cards from ``source`` (an iterable, or a callable that draws one) while the hand needs them."""
    cards = _cards_from(source)
    while hand.needs_card:
        card = next(cards, None)
        if card is None:
            raise RuleError("The cards ran out before the hand was complete.")
        hand = deal(hand, card)
    return hand


def play_involuntary(
    source: CardSource,
    skill: int,
    difficulty: int,
    characteristic: str | None = None,
    characteristic_bonus: int = 0,
    options: HandOptions | None = None,
    *,
    characteristics: Iterable[tuple[str, int]] = (),
) -> Hand:
    """BJ-3: play a whole involuntary hand with the dealer's rule, drawing from ``source``."""
    hand = start_involuntary(
        skill, difficulty, characteristic, characteristic_bonus, options, characteristics=characteristics
    )
    return feed(hand, source)


def resolve(hand: Hand) -> TaskResult:
    """BJ-8/BJ-10 result of an ended hand."""
    if not hand.is_over:
        raise IllegalMove("The hand is still in play; it has no result yet.")
    return task_result(hand.total, hand.skill, hand.difficulty, hand.counted_bonus)


# --------------------------------------------------------------------------------------------------------
# What the UI renders

HIDDEN_CARD_LABEL = "🂠"


class HandSummary(NamedTuple):
    """Everything a hand's message shows; the face-down card is None in ``cards`` unless revealed.

    A named tuple, not a frozen dataclass: one is built for every click's message, and a frozen
    dataclass sets its 19 fields one `object.__setattr__` at a time.
    """

    mode: HandMode
    state: HandState
    ending: Ending | None
    cards: tuple[Card | None, ...]
    labels: tuple[str, ...]
    bonus_count: int
    adder: int | None
    total: int | None
    wrapped: bool
    fumble_flags: tuple[int, ...]
    skill: int
    skill_name: str
    difficulty: int
    difficulty_name: str
    characteristics: tuple[Characteristic, ...]
    counting: tuple[bool, ...] | None  # per characteristic: its bonus counts (None while a card is hidden)
    allowed_adders: tuple[int, ...]
    result: TaskResult | None

    @property
    def verdict(self) -> Verdict | None:
        """The result's verdict, once the hand has ended."""
        return None if self.result is None else self.result.verdict

    @property
    def characteristic_counts(self) -> bool | None:
        """True when some characteristic's bonus counts (None while a card is hidden)."""
        return None if self.counting is None else any(self.counting)


def _counting(hand: Hand) -> tuple[bool, ...]:
    counting = hand.counting_characteristics
    return tuple(c in counting for c in hand.characteristics)


def summarize(hand: Hand, reveal: bool = False) -> HandSummary:
    """A view of the hand; while it is in play the face-down card (and all it gives away) is hidden."""
    over = hand.state is HandState.ENDED
    hidden = not over and not reveal and hand.face_down is not None
    played = hand.played
    shown: tuple[Card | None, ...] = played
    labels = tuple([card.label for card in played])
    flags = hand.fumble_flags
    if hidden:
        shown = (None, *played[1:])
        labels = (HIDDEN_CARD_LABEL, *labels[1:])
        flags = tuple([i for i in flags if i != 0])
    running = hand.running_total
    return HandSummary(
        mode=hand.mode,
        state=hand.state,
        ending=hand.ending,
        cards=shown,
        labels=labels,
        bonus_count=len(hand.bonus_cards),
        adder=hand.adder,
        total=None if hidden else hand.total,
        wrapped=running > BLACKJACK,  # Hand.wrapped, from the total already worked out
        fumble_flags=flags,
        skill=hand.skill,
        skill_name=SKILL_NAMES[hand.skill],
        difficulty=hand.difficulty,
        difficulty_name=DIFFICULTY_NAMES[hand.difficulty],
        characteristics=hand.characteristics,
        counting=None if hidden else _counting(hand),
        allowed_adders=hand.allowed_adders,
        result=resolve(hand) if over else None,
    )
