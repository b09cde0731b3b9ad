"""Pydantic models the repositories take and return (cogs never see rows)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    StringConstraints,
    model_validator,
)

from bot.core.cards import Card
from bot.core.common import multi_line, one_line
from bot.core.systemx import CHART_MARGINS

System = Literal["sysx", "dn", "rps", "decision", "cards"]
SYSTEMS: tuple[System, ...] = ("sysx", "dn", "rps", "decision", "cards")
SYSTEM_NAMES: dict[str, str] = {
    "sysx": "System X",
    "dn": "Difficulty Number",
    "rps": "RPS",
    "decision": "decision dice",
    "cards": "cards",
}
Visibility = Literal["public", "private", "gm", "blind"]
VISIBILITIES: tuple[Visibility, ...] = ("public", "private", "gm", "blind")

MAX_NAME = 64
MAX_ENTRIES = 50
MAX_ALTERNATES = 10
MAX_NOTES = 2000


def _one_line(value: object) -> object:
    return one_line(value) if isinstance(value, str) else value


def _multi_line(value: object) -> object:
    return multi_line(value) if isinstance(value, str) else value


# a name is made one line, without invisible characters, before its length is checked (see INVISIBLES)
Name = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME),
    BeforeValidator(_one_line),  # last: it runs first, on the value as given
]
# free text keeps its line breaks (notes are read as lines), not its invisible characters
FreeText = Annotated[StrictStr, StringConstraints(max_length=MAX_NOTES), BeforeValidator(_multi_line)]
Snowflake = Annotated[int, Field(strict=True, ge=0, le=2**63 - 1)]


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


def name_key(name: str) -> str:
    """The case-insensitive key of a name (made one line as `Name` is, trimmed, casefolded): a name typed
    with an invisible character finds the one stored without it."""
    return one_line(name).strip().casefold()


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------------------------------------
# Sheets


@dataclass(frozen=True)
class SheetRanges:
    """What a system's sheet may hold, and what its numbers are called."""

    attribute_word: str
    attributes: tuple[int, int]
    skill_word: str
    skills: tuple[int, int]
    bonuses: tuple[int, int]
    wounds_max: tuple[int, int]


SHEET_RANGES: dict[str, SheetRanges] = {
    "sysx": SheetRanges("attribute", (1, 20), "skill", (0, 10), (-10, 10), (1, 60)),
    "dn": SheetRanges("characteristic", (1, 30), "skill level", (0, 30), (-10, 10), (1, 100)),
    "rps": SheetRanges("attribute", (0, 20), "skill", (0, 20), (-10, 10), (1, 100)),
    "decision": SheetRanges("stat", (-5, 10), "stat", (-5, 10), (-10, 10), (1, 100)),
    "cards": SheetRanges("characteristic", (1, 30), "skill level", (0, 10), (-10, 10), (1, 100)),
}


class Skill(_Frozen):
    """A skill's rating, its parent attribute and the alternates a check may use instead (RPS-1)."""

    rating: StrictInt
    attribute: Name | None = None
    alternates: list[Name] = Field(default_factory=list, max_length=MAX_ALTERNATES)


class Wounds(_Frozen):
    """Current and maximum wounds (SX-2)."""

    current: StrictInt
    maximum: StrictInt

    @model_validator(mode="after")
    def _current_within_maximum(self) -> Self:
        if not 0 <= self.current <= self.maximum:
            raise ValueError(f"Current wounds run from 0 to the maximum {self.maximum}, not {self.current}.")
        return self


def _check_keys(kind: str, names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        key = name_key(name)
        if key in seen:
            raise ValueError(
                f"The sheet has two {kind}s named {name!r}; names ignore case and invisible characters."
            )
        seen.add(key)


def _check_range(word: str, system: str, name: str, value: int, bounds: tuple[int, int]) -> None:
    low, high = bounds
    if not low <= value <= high:
        raise ValueError(
            f"A {SYSTEM_NAMES[system]} {word} runs from {low} to {high}, so {name} cannot be {value}."
        )


class SheetDocument(_Frozen):
    """The portable part of a character sheet: what export writes and import reads."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        title="Character sheet",
        json_schema_extra={"description": "A character sheet of the tabletop dice bot (import/export)."},
    )

    name: Name
    system: System
    attributes: dict[Name, StrictInt] = Field(default_factory=dict, max_length=MAX_ENTRIES)
    skills: dict[Name, Skill] = Field(default_factory=dict, max_length=MAX_ENTRIES)
    bonuses: dict[Name, StrictInt] = Field(
        default_factory=dict,
        max_length=MAX_ENTRIES,
        description="Characteristic bonuses (cards, BJ-9) or stored roll bonuses, by name.",
    )
    wounds: Wounds | None = None
    notes: FreeText = ""

    @model_validator(mode="before")
    @classmethod
    def _no_names_alike(cls, data: Any) -> Any:
        # before: two names that differ only by an invisible character would become one entry, the last
        # silently winning, once `Name` cleans them
        if isinstance(data, dict):
            system = data.get("system")
            ranges = SHEET_RANGES.get(system) if isinstance(system, str) else None
            words = (ranges.attribute_word, ranges.skill_word) if ranges else ("attribute", "skill")
            for kind, section in ((words[0], "attributes"), (words[1], "skills"), ("bonus", "bonuses")):
                entries = data.get(section)
                if isinstance(entries, dict) and all(isinstance(k, str) for k in entries):
                    _check_keys(kind, [one_line(k) for k in entries])
        return data

    @model_validator(mode="after")
    def _within_system_ranges(self) -> Self:
        ranges = SHEET_RANGES[self.system]
        _check_keys(ranges.attribute_word, list(self.attributes))
        _check_keys(ranges.skill_word, list(self.skills))
        _check_keys("bonus", list(self.bonuses))
        for name, value in self.attributes.items():
            _check_range(ranges.attribute_word, self.system, name, value, ranges.attributes)
        for name, skill in self.skills.items():
            _check_range(ranges.skill_word, self.system, name, skill.rating, ranges.skills)
        for name, value in self.bonuses.items():
            _check_range("bonus", self.system, name, value, ranges.bonuses)
        if self.wounds is not None:
            _check_range("maximum wounds", self.system, "the maximum", self.wounds.maximum, ranges.wounds_max)
        return self

    def attribute(self, name: str) -> tuple[str, int] | None:
        """The attribute called ``name`` (any case) as (stored name, value), or None."""
        key = name_key(name)
        return next(((n, v) for n, v in self.attributes.items() if name_key(n) == key), None)

    def skill(self, name: str) -> tuple[str, Skill] | None:
        """The skill called ``name`` (any case) as (stored name, skill), or None."""
        key = name_key(name)
        return next(((n, s) for n, s in self.skills.items() if name_key(n) == key), None)

    def bonus(self, name: str) -> int:
        """The bonus called ``name`` (any case), 0 when absent."""
        key = name_key(name)
        return next((v for n, v in self.bonuses.items() if name_key(n) == key), 0)

    def document(self) -> SheetDocument:
        """Only the portable fields (drops the ids of a stored sheet)."""
        return SheetDocument.model_validate(self.model_dump(include=set(SheetDocument.model_fields)))


class Sheet(SheetDocument):
    """A stored character sheet: the document plus who owns it, and whether it is the active one."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    guild_id: Snowflake
    owner_id: Snowflake
    id: int | None = None
    active: bool = False
    version: int = 0


# --------------------------------------------------------------------------------------------------------
# Guild settings


AdderScheme = Literal["low", "high", "middle", "extremes"]
MarginDisplay = Literal["signed", "letters"]
MAX_CHART_CHARS = 20_000


class GuildSettings(_Frozen):
    """A guild's choices; a guild with no row gets these defaults."""

    guild_id: Snowflake
    gm_role_ids: list[Snowflake] = Field(default_factory=list, max_length=25)
    margin_display: MarginDisplay = "signed"
    adder_scheme: AdderScheme = "low"
    bj_suit_bonus: StrictBool = True
    bj_characteristic_bonus: StrictBool = True
    bj_fumble_flags: StrictBool = True
    decks_per_shoe: Annotated[StrictInt, Field(ge=1, le=8)] = 1
    systemx_chart: (
        Annotated[StrictStr, StringConstraints(min_length=1, max_length=MAX_CHART_CHARS)] | None
    ) = None
    gm_channel_id: Snowflake | None = None
    allow_blind: StrictBool = True


# --------------------------------------------------------------------------------------------------------
# Pending GM modifiers (GM-3)

MARGINS: tuple[str, ...] = tuple(margin.letters() for margin in CHART_MARGINS)

#: The kinds a GM may leave pending per system (GM-3) and the values each accepts: an inclusive int range,
#: or a tuple of allowed words. SX-6 bounds System X's modifiers; DN-3 the DF; BJ-8 the task difficulty.
MODIFIER_KINDS: dict[str, dict[str, tuple[int, int] | tuple[str, ...]]] = {
    "sysx": {"sv": (-4, 4), "roll": (-4, 4), "required_margin": MARGINS},
    "dn": {"df": (-10, 5)},
    "rps": {"difficulty": (-20, 20), "assumed_success": (1, 1)},
    "decision": {"modifier": (-10, 10), "advantage": (1, 1), "disadvantage": (1, 1)},
    "cards": {"difficulty": (0, 7)},
}
MAX_MODIFIER_USES = 100
#: Kinds whose value replaces the roll's own instead of adding to it: when several are pending for a roll,
#: one applies and only it uses a use (GM-3): the player's own before everyone's, then the latest set.
REPLACING_KINDS: dict[str, frozenset[str]] = {
    "sysx": frozenset({"required_margin"}),
    "cards": frozenset({"difficulty"}),
    "decision": frozenset({"advantage", "disadvantage"}),  # DD-2: neither stacks
    "rps": frozenset({"assumed_success"}),  # RPS-6: one forgone check needs one grant
}
#: Kinds that are the modifier itself and take no value: advantage, disadvantage, and a GM's grant of an
#: assumed success (RPS-6), which only a check that forgoes the roll takes.
VALUELESS_KINDS = frozenset({"advantage", "disadvantage", "assumed_success"})


class PendingModifier(_Frozen):
    """A GM's modifier waiting for the next N matching rolls of one player, or of everyone (GM-3)."""

    id: int | None = None
    guild_id: Snowflake | None
    channel_id: Snowflake
    system: System
    target_user_id: Snowflake | None
    kind: StrictStr
    value: StrictInt | StrictStr
    uses: Annotated[StrictInt, Field(ge=1, le=MAX_MODIFIER_USES)] = 1
    uses_left: int | None = None
    set_by: Snowflake
    created_at: datetime = Field(default_factory=utcnow)

    @property
    def for_everyone(self) -> bool:
        """True when every player gets their own ``uses``."""
        return self.target_user_id is None

    @model_validator(mode="after")
    def _kind_and_value(self) -> Self:
        kinds = MODIFIER_KINDS[self.system]
        if self.kind not in kinds:
            raise ValueError(
                f"{SYSTEM_NAMES[self.system]} takes a pending modifier of kind {', '.join(kinds)}, "
                f"not {self.kind!r}."
            )
        allowed = kinds[self.kind]
        if isinstance(allowed[0], str):
            if self.value not in allowed:
                raise ValueError(f"A {self.kind} modifier is one of {', '.join(map(str, allowed))}.")
        else:
            low, high = allowed
            if not isinstance(self.value, int) or not low <= self.value <= high:
                article = "An" if self.kind[0] in "aeiou" else "A"
                raise ValueError(
                    f"{article} {self.kind} modifier runs from {low} to {high}, not {self.value!r}."
                )
        if self.uses_left is not None and not 0 <= self.uses_left <= self.uses:
            raise ValueError(f"A modifier has 0 to {self.uses} uses left, not {self.uses_left}.")
        return self


class AppliedModifier(_Frozen):
    """One use taken from a pending modifier by a roll, so its result can say so (GM-3)."""

    modifier_id: int
    kind: str
    value: int | str
    set_by: int
    for_everyone: bool
    uses_left: int


# --------------------------------------------------------------------------------------------------------
# Cards (BJ-1)

MAX_HAND_JSON = 64_000


class HandRecord(_Frozen):
    """A stored hand: the core's ``Hand.to_dict()`` plus the columns the store indexes."""

    id: int
    guild_id: int | None
    channel_id: int
    owner_id: int
    state: str
    finished: bool
    cards: tuple[str, ...]
    data: dict[str, Any]
    version: int
    message_id: int | None
    created_at: datetime
    updated_at: datetime

    @property
    def card_objects(self) -> tuple[Card, ...]:
        """The hand's cards (every card it holds, face-down ones included) as core Cards."""
        return tuple(Card.parse(code) for code in self.cards)


# --------------------------------------------------------------------------------------------------------
# Supply dice (DD-7)

SUPPLY_DICE: tuple[int, ...] = (12, 10, 8, 6, 4, 0)


@dataclass(frozen=True, slots=True)
class Holder:
    """Whose supply dice: a character by name, or (``own``) the member themself, for a member with no
    decision-dice sheet. An own supply is kept by the member's id, so a new nickname keeps it; ``name``
    is then their name of the moment, for the row and the messages."""

    name: str
    own: bool = False


class SupplyDie(_Frozen):
    """A character's supply of one item: its die, d12 down to d4, then 0 = empty (DD-7). ``own``: the
    member's own (see `Holder`); ``character`` is then the name they had when it was last read or set."""

    guild_id: int
    owner_id: int
    character: str
    item: str
    die: int
    updated_at: datetime
    own: bool = False

    @property
    def empty(self) -> bool:
        """True when the item cannot be rolled any more."""
        return self.die == 0

    @property
    def label(self) -> str:
        """``d8``, or ``empty``."""
        return "empty" if self.die == 0 else f"d{self.die}"


def next_supply_die(die: int) -> int:
    """The die one size smaller (d4 steps to empty)."""
    return SUPPLY_DICE[SUPPLY_DICE.index(die) + 1]


# --------------------------------------------------------------------------------------------------------
# Sustained pools (RPS-8)

PoolState = Literal["running", "completed", "failed", "stopped"]
MAX_POOL_CHECKS = 1000


class PoolCheck(_Frozen):
    """One logged check of a sustained action: its SL and what it did to the pool (RPS-8)."""

    sl: StrictInt
    delta: StrictInt
    fumble: StrictBool = False
    dice: list[StrictInt] = Field(default_factory=list, max_length=4)
    by_user_id: Snowflake | None = None
    at: datetime = Field(default_factory=utcnow)


MAX_BASE_PARTS = 20


class BaseTerm(_Frozen):
    """One addend of an RPS Base as the table saw it: a rating ("Agility 7") or a modifier."""

    label: Annotated[StrictStr, StringConstraints(min_length=1, max_length=100)]
    value: StrictInt
    modifier: StrictBool = False
    shown: Annotated[StrictStr, StringConstraints(max_length=200)] | None = None


class Pool(_Frozen):
    """A sustained action in a channel: the pool equals the sum of its logged checks' deltas (RPS-8)."""

    id: int
    guild_id: int | None
    channel_id: int
    owner_id: int
    name: str
    skill: str | None
    goal: int
    base: int
    time_per_check: int
    time_unit: str
    no_loss: bool
    pool: int
    checks_made: int
    checks: tuple[PoolCheck, ...]
    state: PoolState
    message_id: int | None
    created_at: datetime
    updated_at: datetime
    base_parts: tuple[BaseTerm, ...] = ()  # how the Base was built, when it was started

    @property
    def running(self) -> bool:
        """True while checks may still be added."""
        return self.state == "running"

    @property
    def time_spent(self) -> int:
        """Checks made times the time per check, in ``time_unit``."""
        return self.checks_made * self.time_per_check


# --------------------------------------------------------------------------------------------------------
# Roll log

MAX_LOG_JSON = 16_000


class RollRecord(_Frozen):
    """One roll in a channel's log: who, what, inputs, dice, result, when."""

    id: int | None = None
    guild_id: Snowflake | None
    channel_id: Snowflake
    user_id: Snowflake
    system: Annotated[StrictStr, StringConstraints(min_length=1, max_length=32)]
    command: Annotated[StrictStr, StringConstraints(min_length=1, max_length=100)]
    visibility: Visibility = "public"
    inputs: Any = Field(default_factory=dict)
    dice: Any = Field(default_factory=list)
    result: Annotated[StrictStr, StringConstraints(max_length=4000)]
    summary: Annotated[StrictStr, StringConstraints(max_length=400)] = ""
    created_at: datetime = Field(default_factory=utcnow)
    revealed_by: int | None = None
    revealed_at: datetime | None = None

    @property
    def hidden(self) -> bool:
        """True for a private, GM-only or blind roll nobody has revealed yet."""
        return self.visibility != "public" and self.revealed_by is None


# --------------------------------------------------------------------------------------------------------
# Second tries (RPS-9)

SECOND_TRY_MODIFIERS = (-5, 5)


class SecondTry(_Frozen):
    """A GM's grant of one more attempt at a failed RPS check (the log row ``log_id``), for its roller."""

    log_id: Snowflake
    guild_id: Snowflake | None
    channel_id: Snowflake
    roller_id: Snowflake
    modifier: Annotated[StrictInt, Field(ge=SECOND_TRY_MODIFIERS[0], le=SECOND_TRY_MODIFIERS[1])]
    granted_by: Snowflake
    granted_at: datetime = Field(default_factory=utcnow)
    used_log_id: int | None = None
    used_at: datetime | None = None

    @property
    def taken(self) -> bool:
        """True once the player rolled it."""
        return self.used_at is not None
