"""Percentages and one-line summaries of odds, for result messages and the /odds command."""

from __future__ import annotations

from fractions import Fraction

from bot.core.dn import SuccessLevel
from bot.core.errors import RuleError
from bot.core.odds.cards import ActionOdds, HandDecision, InvoluntaryOdds
from bot.core.odds.decision import DecisionOdds, SupplyOdds
from bot.core.odds.dn import DnOdds
from bot.core.odds.rps import RpsCheckOdds, SustainedOdds
from bot.core.odds.systemx import CheckOdds
from bot.core.systemx import Margin, MarginStyle

__all__ = [
    "cards_summary",
    "decision_summary",
    "dn_summary",
    "hand_decision_summary",
    "is_estimate",
    "move_chance",
    "percent",
    "rps_summary",
    "supply_summary",
    "sustained_summary",
    "systemx_summary",
]


def percent(probability: Fraction | int, digits: int = 0) -> str:
    """``45%``: rounded half up; ``<1%`` / ``>99%`` when rounding would claim an impossible 0% or 100%."""
    p = probability if type(probability) is Fraction else Fraction(probability)
    n, d = p.numerator, p.denominator  # d > 0
    if not 0 <= n <= d:
        raise RuleError(f"A probability lies between 0 and 1, not {p}.")
    if not 0 <= digits <= 4:
        raise RuleError("A percentage shows 0 to 4 decimals.")
    # in whole steps of 10**-digits percent, in integers: a roll's odds line asks for three of these, and
    # Fraction sums are slow (bench/README.md, "A Hit in two statements")
    steps = 100 * 10**digits
    rounded = (2 * n * steps + d) // (2 * d)  # half up
    if n > 0 and rounded == 0:
        return f"<{_number(1, digits)}%"
    if n < d and rounded == steps:
        return f">{_number(steps - 1, digits)}%"
    return f"{_number(rounded, digits)}%"


def _number(steps: int, digits: int) -> str:
    """``steps`` of 10**-digits, written with ``digits`` decimals."""
    if not digits:
        return str(steps)
    whole, part = divmod(steps, 10**digits)
    return f"{whole}.{part:0{digits}d}"


def systemx_summary(
    odds: CheckOdds, actual: Margin | None = None, style: MarginStyle = MarginStyle.LETTERS
) -> str:
    """ "45% to succeed; this S2 or better: 20%" (the second part when the rolled margin is given)."""
    head = f"{percent(odds.success)} to succeed"
    if odds.required != odds.required.success(0):
        head += f" (needs {odds.required.format(style)})"
    if actual is None:
        return head
    return f"{head}; this {actual.format(style)} or better: {percent(odds.distribution.at_least(actual))}"


def dn_summary(odds: DnOdds, actual: SuccessLevel | None = None) -> str:
    """ "60% to succeed; this Special or better: 15%"."""
    head = f"{percent(odds.success)} to succeed"
    if actual is None:
        return head
    if actual is SuccessLevel.CRITICAL_FAILURE:
        return f"{head}; a critical failure: {percent(odds.critical_failure)}"
    if actual is SuccessLevel.FAILURE:
        return f"{head}; a failure or worse: {percent(1 - odds.success)}"
    return f"{head}; this {actual.value} or better: {percent(odds.at_least(actual))}"


def rps_summary(odds: RpsCheckOdds, actual_sl: int | None = None) -> str:
    """ "45% to succeed; SL 4 or better: 20%"."""
    head = f"{percent(odds.success)} to succeed"
    if actual_sl is None:
        return head
    return f"{head}; SL {actual_sl} or better: {percent(odds.at_least(actual_sl))}"


def decision_summary(odds: DecisionOdds, actual_total: int | None = None) -> str:
    """ "58% to succeed; a total of 14 or more: 28%"."""
    head = f"{percent(odds.success)} to succeed"
    if actual_total is None:
        return head
    return f"{head}; a total of {actual_total} or more: {percent(odds.at_least(actual_total))}"


def cards_summary(odds: InvoluntaryOdds, actual_trl: int | None = None) -> str:
    """ "45% to succeed; TRL 3 or better: 20%" for an involuntary hand from this shoe."""
    head = f"{percent(odds.success)} to succeed"
    if actual_trl is None:
        return head
    return f"{head}; TRL {actual_trl} or better: {percent(odds.at_least(actual_trl))}"


def is_estimate(decision: HandDecision, option: ActionOdds) -> bool:
    """True when ``option``'s figures are an estimate, not exact optimal play (Hit, when the decision is
    not exact)."""
    return not decision.exact and option.action.kind == "hit"


def move_chance(decision: HandDecision, option: ActionOdds, digits: int = 0) -> str:
    """ "62%", or "about 62%" where the figure is an estimate."""
    text = percent(option.success, digits)
    return f"about {text}" if is_estimate(decision, option) else text


def hand_decision_summary(decision: HandDecision) -> str:
    """ "Hit 62% (expected TRL 2.4) · Stand 0% (expected TRL -1.0) · ... · best: Add 3"; an estimated Hit
    reads "Hit about 62% (expected TRL about 2.4)"."""
    parts = []
    for option in decision.options:
        about = "about " if is_estimate(decision, option) else ""
        parts.append(
            f"{option.action.label} {move_chance(decision, option)} "
            f"(expected TRL {about}{float(option.expected_trl):.1f})"
        )
    return " · ".join(parts) + f" · best: {decision.best.action.label}"


def sustained_summary(odds: SustainedOdds) -> str:
    """ "78% to complete; about 12.3 checks (123 min) left"."""
    return (
        f"{percent(odds.complete)} to complete; about {float(odds.expected_checks):.1f} checks "
        f"({float(odds.expected_minutes):.0f} min) left"
    )


def supply_summary(odds: SupplyOdds) -> str:
    """ "d8: about 10.7 more rolls until empty"."""
    return f"{odds.die.label}: about {float(odds.expected_uses):.1f} more rolls until empty"
