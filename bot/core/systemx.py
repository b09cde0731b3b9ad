"""System X: one d20 against a Skill Value on a roll chart (RULES.md SX-1..SX-12).

Public API
----------
Margins (the chart's outputs and every result derived from them):
    ``Margin(value, is_success, is_critical=False)``: frozen, totally ordered
    (CF < F5 < .. < F0 < S0 < .. < S5 < CS; results beyond the chart order by value, F0 < S0, and
    stay between the criticals: F11 < F10 < F5 and S5 < S10 < S12, CF below and CS above them all).
    Properties ``value`` (CS=+10, CF=-10, Sk=+k, Fk=-k),
    ``is_success``, ``is_failure``, ``is_critical``, ``is_zero``, ``on_chart``; ``letters()`` ("S3", "F0",
    "CS"), ``signed()`` ("+3", "-0", "CS"), ``format(style)``, ``str()`` = letters;
    ``Margin.parse(text)`` reads both forms; ``Margin.success(k)``, ``Margin.failure(k)``.
    ``MarginStyle`` (LETTERS, SIGNED). Constants ``CS, CF, S0..S5, F0..F5`` and ``CHART_MARGINS``
    (the 14 chart margins in order).
Chart (SX-5):
    ``RollChart`` (30 SV rows x 20 roll columns; ``cell(sv, roll)``, ``to_csv()``, ``RollChart.model()``),
    ``model_margin(sv, roll)`` (the formula), ``parse_chart(csv_text)`` (raises ``ChartError``),
    ``CHART_HEADER``.
Checks:
    ``skill_value(attribute, skill, *modifiers)`` (SX-1), ``gm_modifier(value)`` (SX-6),
    ``wound_cap(current, maximum)`` and ``apply_wounds(sv, wounds)`` (SX-2),
    ``check(chart, sv, natural_roll, *, roll_modifier=0, sv_modifier=0, wounds=None, required=S0)``
    -> ``CheckResult`` (SX-3, SX-4, SX-5, SX-7), ``DecidedBy``, ``succeeds(margin, required)``,
    ``required_margin(margin)``.
Several margins:
    ``opposed(actor, target)`` -> Margin (SX-8); ``combine_pair(a, b)`` and ``combined(margins)``
    -> ``CombinedResult`` (SX-9); ``SkillCheck`` and ``synergy(chart, steps, dice, *, required=S0)`` ->
    ``SynergyResult`` of ``SynergyLink`` (SX-10); ``flat(natural_roll, value)`` -> ``FlatResult`` (SX-11).
SX-12: every check consumes exactly one natural d20; there is deliberately no reroll function.

Input ranges (anything else raises ``RuleError``): attribute 1..20, skill 0..10, an SV given to a
check -60..60, each modifier -60..60 (GM-set ones -4..+4 via ``gm_modifier``), wounds 0..max with
max 1..100, natural roll 1..20, flat value 1..21.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cache, total_ordering

from bot.core.common import Verdict
from bot.core.dice import check_die
from bot.core.errors import RuleError, require_int, require_range

__all__ = [
    "CF",
    "CHART_HEADER",
    "CHART_MARGINS",
    "CS",
    "F0",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "GM_MODIFIER_LIMIT",
    "S0",
    "S1",
    "S2",
    "S3",
    "S4",
    "S5",
    "SV_INPUT_LIMIT",
    "ChartError",
    "CheckResult",
    "CombinedResult",
    "DecidedBy",
    "FlatResult",
    "Margin",
    "MarginStyle",
    "RollChart",
    "SkillCheck",
    "SynergyLink",
    "SynergyResult",
    "apply_wounds",
    "check",
    "combine_pair",
    "combined",
    "flat",
    "gm_modifier",
    "model_margin",
    "opposed",
    "parse_chart",
    "required_margin",
    "skill_value",
    "succeeds",
    "synergy",
    "wound_cap",
]

SV_MIN, SV_MAX = 1, 30  # the chart's rows (SX-3)
ROLL_MIN, ROLL_MAX = 1, 20  # the chart's columns (SX-4)
ATTRIBUTE_RANGE = (1, 20)  # SX-1
SKILL_RANGE = (0, 10)  # SX-1
GM_MODIFIER_LIMIT = 4  # SX-6
# Guards against typos, not rules: an SV or a modifier this far past the chart's ends cannot come
# from a sheet, and SX-3/SX-4 already decide anything beyond 30 or 20.
SV_INPUT_LIMIT = 60
MODIFIER_LIMIT = 60
MAX_WOUNDS = 100
CRITICAL_VALUE = 10  # seed 2.1: a critical counts +10 / -10
MAX_SYNERGY_STEPS = 20
MAX_CHART_TEXT = 16_000


class MarginStyle(Enum):
    """The two displays of a margin the seed allows (2.1)."""

    LETTERS = "letters"  # S3, F0, CS
    SIGNED = "signed"  # +3, -0, CS


_MARGIN_WORDS = re.compile(
    r"^(?:(?P<crit>C[SF])|(?P<letter>[SF])(?P<lnum>\d{1,3})|(?P<sign>[+\-−–])(?P<snum>\d{1,3}))$"
)


@total_ordering
@dataclass(frozen=True, repr=False)
class Margin:
    """A degree of success or failure; both zeros exist and criticals count as +10 / -10."""

    value: int
    is_success: bool
    is_critical: bool = False

    def __post_init__(self) -> None:
        require_int(self.value, "A margin's value")
        if not isinstance(self.is_success, bool) or not isinstance(self.is_critical, bool):
            raise RuleError("A margin's success and critical flags must be True or False.")
        if self.is_critical:
            expected = CRITICAL_VALUE if self.is_success else -CRITICAL_VALUE
            if self.value != expected:
                raise RuleError(
                    f"A critical {'success' if self.is_success else 'failure'} counts {expected:+d}."
                )
        elif self.value > 0 and not self.is_success:
            raise RuleError(f"A margin of {self.value:+d} is a success, not a failure.")
        elif self.value < 0 and self.is_success:
            raise RuleError(f"A margin of {self.value:+d} is a failure, not a success.")

    @classmethod
    def success(cls, k: int) -> Margin:
        """The non-critical success ``S<k>`` (k >= 0)."""
        require_int(k, "A success margin")
        if k < 0:
            raise RuleError(f"A success margin is S0 or more, not S{k}.")
        return cls(k, True)

    @classmethod
    def failure(cls, k: int) -> Margin:
        """The non-critical failure ``F<k>`` (k >= 0), whose value is ``-k``."""
        require_int(k, "A failure margin")
        if k < 0:
            raise RuleError(f"A failure margin is F0 or more, not F{k}.")
        return cls(-k, False)

    @classmethod
    def parse(cls, text: object) -> Margin:
        """Read ``CS``, ``CF``, ``S3``/``F0`` or ``+3``/``-0`` (either display; case and spaces ignored)."""
        if not isinstance(text, str):
            raise RuleError(f"A margin is written like S3, F0, +3, -0, CS or CF, not {text!r}.")
        found = _MARGIN_WORDS.match(text.strip().upper())
        if found is None:
            shown = text.strip()[:20]
            raise RuleError(f"'{shown}' is not a margin; write it like S3, F0, +3, -0, CS or CF.")
        if found["crit"] is not None:
            return CS if found["crit"] == "CS" else CF
        if found["letter"] is not None:
            number = int(found["lnum"])
            return cls.success(number) if found["letter"] == "S" else cls.failure(number)
        number = int(found["snum"])
        return cls.success(number) if found["sign"] == "+" else cls.failure(number)

    @property
    def is_failure(self) -> bool:
        """True for every failure, F0 and CF included."""
        return not self.is_success

    @property
    def is_zero(self) -> bool:
        """True for S0 and F0."""
        return self.value == 0

    @property
    def on_chart(self) -> bool:
        """True for the 14 margins a roll chart can hold (CF, F5..F0, S0..S5, CS)."""
        return self.is_critical or -5 <= self.value <= 5

    def _key(self) -> tuple[int, int, int]:
        # SX-7 as decided: a critical stands outside the numbered margins, CS above every success however
        # large (a combined S12) and CF below every failure; the numbered ones order by value, F0 < S0.
        tier = 0 if not self.is_critical else (1 if self.is_success else -1)
        return (tier, self.value, 1 if self.is_success else 0)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Margin):
            return NotImplemented
        return self._key() < other._key()

    def letters(self) -> str:
        """``S3``, ``F0``, ``CS``, ``CF`` (and ``S12`` beyond the chart)."""
        if self.is_critical:
            return "CS" if self.is_success else "CF"
        return f"S{self.value}" if self.is_success else f"F{-self.value}"

    def signed(self) -> str:
        """``+3``, ``-0``, ``CS``, ``CF`` (and ``+12`` beyond the chart)."""
        if self.is_critical:
            return "CS" if self.is_success else "CF"
        return f"+{self.value}" if self.is_success else f"-{-self.value}"

    def format(self, style: MarginStyle) -> str:
        """The margin in the given display style."""
        return self.signed() if style is MarginStyle.SIGNED else self.letters()

    def __str__(self) -> str:
        return self.letters()

    def __repr__(self) -> str:
        return f"Margin.parse({self.letters()!r})"


CS = Margin(CRITICAL_VALUE, True, True)
CF = Margin(-CRITICAL_VALUE, False, True)
S0, S1, S2, S3, S4, S5 = (Margin.success(k) for k in range(6))
F0, F1, F2, F3, F4, F5 = (Margin.failure(k) for k in range(6))
CHART_MARGINS: tuple[Margin, ...] = (CF, F5, F4, F3, F2, F1, F0, S0, S1, S2, S3, S4, S5, CS)


def _from_sum(value: int, zero_is_success: bool) -> Margin:
    """A non-critical margin from a computed value; the caller decides which zero."""
    if value == 0:
        return S0 if zero_is_success else F0
    return Margin(value, value > 0)


# ---------------------------------------------------------------------------------------------------
# The roll chart (SX-5)

CHART_HEADER: tuple[str, ...] = ("skill_value", *(f"roll_{r}" for r in range(ROLL_MIN, ROLL_MAX + 1)))


class ChartError(RuleError):
    """A custom roll chart that is not 30 SV rows of 20 margins."""


def model_margin(sv: int, roll: int) -> Margin:
    """The margin SX-5's logistic model gives for an SV in 1..30 and a modified roll in 1..20."""
    require_range(sv, SV_MIN, SV_MAX, "The chart's SV")
    require_range(roll, ROLL_MIN, ROLL_MAX, "The chart's roll")
    m = 4 * (sv - 15.5) / 14.5 + 1.25 * math.log((2 * roll - 1) / (41 - 2 * roll))
    k = math.floor(m)
    if k >= 6:
        return CS
    if k <= -7:
        return CF
    if k >= 0:
        return Margin.success(k)
    return Margin.failure(-k - 1)


@dataclass(frozen=True)
class RollChart:
    """Rows are SV 1..30, columns modified roll 1..20; every cell one of ``CHART_MARGINS``."""

    rows: tuple[tuple[Margin, ...], ...]

    def __post_init__(self) -> None:
        if not isinstance(self.rows, tuple) or len(self.rows) != SV_MAX:
            raise ChartError(f"A roll chart needs {SV_MAX} rows (SV 1 to {SV_MAX}).")
        for sv, row in enumerate(self.rows, start=SV_MIN):
            if not isinstance(row, tuple) or len(row) != ROLL_MAX:
                raise ChartError(f"The chart's row for SV {sv} needs {ROLL_MAX} margins (rolls 1 to 20).")
            for roll, cell in enumerate(row, start=ROLL_MIN):
                if not isinstance(cell, Margin) or not cell.on_chart:
                    raise ChartError(
                        f"The chart's cell for SV {sv}, roll {roll} must be CF, F5..F0, S0..S5 or CS, "
                        f"not {cell!s}."
                    )

    def __hash__(self) -> int:
        # a chart is part of the odds caches' key on every check: its 600 cells are hashed once, not on
        # each lookup; kept out of a pickle (`__getstate__`), so each process hashes for itself
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(self.rows)
            object.__setattr__(self, "_hash", cached)
        return cached

    def __getstate__(self) -> dict[str, object]:
        return {"rows": self.rows}

    @classmethod
    def model(cls) -> RollChart:
        """The bot's chart, built from SX-5's formula (equals data/systemx_roll_chart.csv)."""
        return _model_chart()

    def cell(self, sv: int, roll: int) -> Margin:
        """The margin at SV 1..30 and modified roll 1..20."""
        require_range(sv, SV_MIN, SV_MAX, "The chart's SV")
        require_range(roll, ROLL_MIN, ROLL_MAX, "The chart's roll")
        return self.rows[sv - SV_MIN][roll - ROLL_MIN]

    def to_csv(self) -> str:
        """The chart as CSV (the vector file's header, letters, CRLF line ends)."""
        lines = [",".join(CHART_HEADER)]
        for sv, row in enumerate(self.rows, start=SV_MIN):
            lines.append(",".join([str(sv), *(cell.letters() for cell in row)]))
        return "".join(line + "\r\n" for line in lines)


@cache
def _model_chart() -> RollChart:
    return RollChart(
        tuple(
            tuple(model_margin(sv, roll) for roll in range(ROLL_MIN, ROLL_MAX + 1))
            for sv in range(SV_MIN, SV_MAX + 1)
        )
    )


def parse_chart(csv_text: object) -> RollChart:
    """Read and validate a chart in the vector file's CSV shape; ChartError names the bad row or cell."""
    if not isinstance(csv_text, str):
        raise ChartError("A roll chart must be CSV text.")
    if len(csv_text) > MAX_CHART_TEXT:
        raise ChartError(f"A roll chart is about 2,000 characters; this one has {len(csv_text)}.")
    text = csv_text.removeprefix("\ufeff")
    try:
        records = [
            [cell.strip() for cell in record]
            for record in csv.reader(text.splitlines())
            if any(cell.strip() for cell in record)
        ]
    except csv.Error as err:
        raise ChartError(f"The roll chart is not readable CSV ({err}).") from None
    if not records:
        raise ChartError("The roll chart is empty.")
    header = tuple(cell.lower() for cell in records[0])
    if header != CHART_HEADER:
        raise ChartError(
            "The roll chart's first line must be the header skill_value,roll_1,...,roll_20 "
            f"({len(CHART_HEADER)} columns)."
        )
    body = records[1:]
    if len(body) != SV_MAX:
        raise ChartError(
            f"The roll chart needs {SV_MAX} rows after the header (SV 1 to 30), not {len(body)}."
        )
    rows: list[tuple[Margin, ...]] = []
    for sv, record in enumerate(body, start=SV_MIN):
        line = sv + 1
        if len(record) != len(CHART_HEADER):
            raise ChartError(
                f"Line {line} of the roll chart (SV {sv}) has {len(record)} cells; "
                f"it needs {len(CHART_HEADER)} (the SV and 20 rolls)."
            )
        if record[0] != str(sv):
            raise ChartError(
                f"Line {line} of the roll chart must start with SV {sv}, not '{record[0][:20]}'."
            )
        cells: list[Margin] = []
        for roll, word in enumerate(record[1:], start=ROLL_MIN):
            try:
                margin = Margin.parse(word)
            except RuleError:
                margin = None
            if margin is None or not margin.on_chart:
                raise ChartError(
                    f"Line {line} of the roll chart (SV {sv}), column roll_{roll}: '{word[:20]}' is not a "
                    "chart margin; use CF, F5..F0, S0..S5 or CS."
                )
            cells.append(margin)
        rows.append(tuple(cells))
    return RollChart(tuple(rows))


# ---------------------------------------------------------------------------------------------------
# Skill Values, modifiers and wounds (SX-1, SX-2, SX-6)


def _modifier(value: object, name: str) -> int:
    return require_range(value, -MODIFIER_LIMIT, MODIFIER_LIMIT, name)


def skill_value(attribute: int, skill: int, *modifiers: int) -> int:
    """SX-1: attribute (1..20) + skill (0..10) + every SV modifier."""
    total = require_range(attribute, *ATTRIBUTE_RANGE, "An attribute") + require_range(
        skill, *SKILL_RANGE, "A skill"
    )
    for modifier in modifiers:
        total += _modifier(modifier, "An SV modifier")
    return require_range(total, -SV_INPUT_LIMIT, SV_INPUT_LIMIT, "A Skill Value")


def gm_modifier(value: object, name: str = "A GM-set modifier") -> int:
    """SX-6: a GM-set SV or roll modifier lies in -4..+4 (rule-made modifiers may go further)."""
    return require_range(value, -GM_MODIFIER_LIMIT, GM_MODIFIER_LIMIT, name)


def gm_total(values: Iterable[object], name: str = "A GM-set modifier") -> int:
    """SX-6: the GM-set modifiers of one kind on one check (each in -4..+4) add up to no more than -4..+4
    either: "rule-made modifiers may push the total past that", the GM's may not."""
    total = sum(gm_modifier(value, name) for value in values)
    return max(-GM_MODIFIER_LIMIT, min(GM_MODIFIER_LIMIT, total))


def _wounds(wounds: object) -> tuple[int, int] | None:
    if wounds is None:
        return None
    if not isinstance(wounds, tuple) or len(wounds) != 2:
        raise RuleError("Wounds are given as (current, maximum).")
    maximum = require_range(wounds[1], 1, MAX_WOUNDS, "Maximum wounds")
    current = require_range(wounds[0], 0, maximum, "Current wounds")
    return (current, maximum)


def wound_cap(current: int, maximum: int) -> int | None:
    """SX-2: the highest usable SV (2 x current wounds), or None at full wounds."""
    checked = _wounds((current, maximum))
    assert checked is not None
    return None if checked[0] == checked[1] else 2 * checked[0]


def apply_wounds(sv: int, wounds: tuple[int, int] | None) -> int:
    """SX-2: the SV after the wound cap (unchanged at full wounds or without wounds)."""
    require_int(sv, "A Skill Value")
    checked = _wounds(wounds)
    if checked is None:
        return sv
    cap = wound_cap(*checked)
    return sv if cap is None else min(sv, cap)


def required_margin(margin: object) -> Margin:
    """SX-7: a required margin is one of CF, F5..F0, S0..S5, CS (a Margin or its text)."""
    found = Margin.parse(margin) if isinstance(margin, str) else margin
    if not isinstance(found, Margin) or not found.on_chart:
        raise RuleError("A required margin is one of CF, F5..F0, S0..S5 or CS.")
    return found


def succeeds(margin: Margin, required: Margin = S0) -> bool:
    """SX-7: the check succeeds when its margin is at least the required margin (a required CS is met
    only by CS, since CS is above every numbered success)."""
    return margin >= required_margin(required)


def judged(margin: Margin, required: Margin = S0) -> tuple[bool, Verdict]:
    """SX-7 on a final margin (opposed, combined): whether it meets ``required``, and its verdict."""
    succeeded = succeeds(margin, required)
    return succeeded, _verdict(margin, succeeded)


def _verdict(margin: Margin, succeeded: bool) -> Verdict:
    # A CF that meets a required CF is a success by SX-7, so success is decided first.
    if succeeded:
        return Verdict.CRITICAL_SUCCESS if margin == CS else Verdict.SUCCESS
    return Verdict.CRITICAL_FAILURE if margin == CF else Verdict.FAILURE


# ---------------------------------------------------------------------------------------------------
# One check (SX-2..SX-5, SX-7, SX-12)


class DecidedBy(Enum):
    """Which rule gave the margin."""

    CHART = "the roll chart"  # SX-5
    SV_BELOW_1 = "SV below 1"  # SX-3
    SV_ABOVE_30 = "SV above 30"  # SX-3
    ROLL_ABOVE_20 = "roll above 20"  # SX-4
    ROLL_BELOW_1 = "roll below 1"  # SX-4


@dataclass(frozen=True)
class CheckResult:
    """Everything a System X check message shows: inputs, the die, the SV and roll used, the margin."""

    sv: int
    natural_roll: int
    roll_modifier: int
    sv_modifier: int
    wounds: tuple[int, int] | None
    required: Margin
    modified_sv: int  # sv + sv_modifier (SX-1)
    wound_cap: int | None  # SX-2; None when no cap applies
    effective_sv: int  # after the cap
    modified_roll: int  # SX-4
    margin: Margin
    decided_by: DecidedBy
    succeeded: bool  # SX-7
    verdict: Verdict

    @property
    def capped(self) -> bool:
        """True when wounds lowered the SV."""
        return self.effective_sv < self.modified_sv


def check(
    chart: RollChart,
    sv: int,
    natural_roll: int,
    *,
    roll_modifier: int = 0,
    sv_modifier: int = 0,
    wounds: tuple[int, int] | None = None,
    required: Margin = S0,
) -> CheckResult:
    """One skill check: one natural d20 (SX-12) against an SV, on ``chart`` (SX-1..SX-5, SX-7)."""
    if not isinstance(chart, RollChart):
        raise RuleError("A System X check needs a roll chart.")
    sv = require_range(sv, -SV_INPUT_LIMIT, SV_INPUT_LIMIT, "A Skill Value")
    natural_roll = check_die(natural_roll, 20, "The d20")
    roll_modifier = _modifier(roll_modifier, "A roll modifier")
    sv_modifier = _modifier(sv_modifier, "An SV modifier")
    checked_wounds = _wounds(wounds)
    required = required_margin(required)

    modified_sv = sv + sv_modifier
    cap = None if checked_wounds is None else wound_cap(*checked_wounds)
    effective_sv = modified_sv if cap is None else min(modified_sv, cap)
    modified_roll = natural_roll + roll_modifier
    # The rules are silent when both the SV and the roll are off the chart; SX-3 is applied first.
    if effective_sv < SV_MIN:
        margin, decided_by = CF, DecidedBy.SV_BELOW_1
    elif effective_sv > SV_MAX:
        margin, decided_by = CS, DecidedBy.SV_ABOVE_30
    elif modified_roll > ROLL_MAX:
        margin, decided_by = CS, DecidedBy.ROLL_ABOVE_20
    elif modified_roll < ROLL_MIN:
        margin, decided_by = CF, DecidedBy.ROLL_BELOW_1
    else:
        margin, decided_by = chart.cell(effective_sv, modified_roll), DecidedBy.CHART
    succeeded = margin >= required
    return CheckResult(
        sv=sv,
        natural_roll=natural_roll,
        roll_modifier=roll_modifier,
        sv_modifier=sv_modifier,
        wounds=checked_wounds,
        required=required,
        modified_sv=modified_sv,
        wound_cap=cap,
        effective_sv=effective_sv,
        modified_roll=modified_roll,
        margin=margin,
        decided_by=decided_by,
        succeeded=succeeded,
        verdict=_verdict(margin, succeeded),
    )


# ---------------------------------------------------------------------------------------------------
# Opposed and combined checks (SX-8, SX-9)


def _margin(value: object, name: str) -> Margin:
    if not isinstance(value, Margin):
        raise RuleError(f"{name} must be a margin such as S3 or CF, not {value!r}.")
    return value


def opposed(actor: Margin, target: Margin) -> Margin:
    """SX-8: the actor's final margin against a target's margin."""
    actor = _margin(actor, "The actor's margin")
    target = _margin(target, "The target's margin")
    if actor == CS and target == CS:
        return S0
    if actor == CF and target == CF:
        return F0
    if actor.is_critical:
        return actor
    if target == CS:
        return F0
    if target == CF:
        return actor
    return _from_sum(actor.value - target.value, actor.is_success)


def combine_pair(first: Margin, second: Margin) -> Margin:
    """SX-9 for two actors: CS with CF is S0, else any CS is CS, any CF is CF, else the sum."""
    first = _margin(first, "A combined margin")
    second = _margin(second, "A combined margin")
    pair = (first, second)
    if CS in pair and CF in pair:
        return S0
    if CS in pair:
        return CS
    if CF in pair:
        return CF
    return _from_sum(first.value + second.value, first.is_success or second.is_success)


@dataclass(frozen=True)
class CombinedResult:
    """A combined check: the actors' margins, the running fold after each actor, and the final margin."""

    margins: tuple[Margin, ...]
    partials: tuple[Margin, ...]  # partials[i] folds margins[0..i+1]
    margin: Margin


def combined(margins: Sequence[Margin]) -> CombinedResult:
    """SX-9: fold ``combine_pair`` left over two or more actors' margins, in the order given."""
    if isinstance(margins, str) or not isinstance(margins, Sequence):
        raise RuleError("A combined check takes the actors' margins as a list.")
    actors = tuple(_margin(m, "A combined margin") for m in margins)
    if len(actors) < 2:
        raise RuleError("A combined check needs at least two actors.")
    partials: list[Margin] = []
    running = actors[0]
    for margin in actors[1:]:
        running = combine_pair(running, margin)
        partials.append(running)
    return CombinedResult(actors, tuple(partials), running)


# ---------------------------------------------------------------------------------------------------
# Synergistic chains (SX-10)


@dataclass(frozen=True)
class SkillCheck:
    """One step of a synergistic chain: its SV and its own modifiers, before the carried margin."""

    sv: int
    sv_modifier: int = 0
    roll_modifier: int = 0
    wounds: tuple[int, int] | None = None
    label: str = ""


@dataclass(frozen=True)
class SynergyLink:
    """One step done: the step, the margin carried into its SV (+0 for the first), and its check."""

    step: SkillCheck
    carried: int
    result: CheckResult


@dataclass(frozen=True)
class SynergyResult:
    """A synergistic chain: every link in order; the chain's margin is the last check's."""

    links: tuple[SynergyLink, ...]
    margin: Margin
    required: Margin
    succeeded: bool
    verdict: Verdict


def synergy(
    chart: RollChart, steps: Sequence[SkillCheck], dice: Sequence[int], *, required: Margin = S0
) -> SynergyResult:
    """SX-10: checks in order, each adding the previous margin (CS +10, CF -10) to its SV; one d20 each."""
    if isinstance(steps, str) or not isinstance(steps, Sequence) or not isinstance(dice, Sequence):
        raise RuleError("A synergistic check takes a list of skill checks and a list of d20s.")
    if not 2 <= len(steps) <= MAX_SYNERGY_STEPS:
        raise RuleError(
            f"A synergistic check chains 2 to {MAX_SYNERGY_STEPS} skill checks, not {len(steps)}."
        )
    if len(dice) != len(steps):
        raise RuleError(f"A synergistic check rolls one d20 per skill check: {len(steps)}, not {len(dice)}.")
    required = required_margin(required)
    links: list[SynergyLink] = []
    carried = 0  # SX-10: the first check's previous margin is +0
    for index, (step, die) in enumerate(zip(steps, dice, strict=True)):
        if not isinstance(step, SkillCheck):
            raise RuleError("Each step of a synergistic check must be a SkillCheck.")
        last = index == len(steps) - 1
        result = check(
            chart,
            step.sv,
            die,
            roll_modifier=step.roll_modifier,
            sv_modifier=_modifier(_modifier(step.sv_modifier, "An SV modifier") + carried, "An SV modifier"),
            wounds=step.wounds,
            required=required if last else S0,
        )
        links.append(SynergyLink(step, carried, result))
        carried = result.margin.value
    final = links[-1].result
    return SynergyResult(tuple(links), final.margin, required, final.succeeded, final.verdict)


# ---------------------------------------------------------------------------------------------------
# Flat probability (SX-11)


@dataclass(frozen=True)
class FlatResult:
    """A flat roll: the d20, the set value, and whether the event happened (roll strictly under it)."""

    natural_roll: int
    value: int
    happened: bool
    verdict: Verdict = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", Verdict.SUCCESS if self.happened else Verdict.FAILURE)


def flat(natural_roll: int, value: int) -> FlatResult:
    """SX-11: one d20; the event happens when the roll is strictly under ``value`` (1..21)."""
    natural_roll = check_die(natural_roll, 20, "The d20")
    value = require_range(value, 1, ROLL_MAX + 1, "A flat roll's value")
    return FlatResult(natural_roll, value, natural_roll < value)
