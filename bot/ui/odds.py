"""Odds on Discord: the "chance it had" line of every roll result, and the /odds answers.

Roll results: a system cog computes the line with the exact inputs its roll used (after GM modifiers,
wounds, the guild's chart) and adds it with `add_odds` to the result embed *before* `publish`, so the
line goes exactly where the result goes (a blind roller, a hidden roll's public notice get nothing).
Single-check odds are pure functions of small inputs and cached here (`functools.lru_cache`); the cards
odds depend on the shoe, the sustained pools' on a Markov chain, the contests' on many parties: they take
milliseconds to seconds, so cogs run them in the bot's worker processes (``bot.workers``,
`bot.ui.workers`), never on the event loop nor in a thread holding the GIL it needs. Those jobs live in
`bot.ui.odds_jobs` (light enough for a worker to import) and are re-exported here.

/odds: `odds_embed` builds the table; charts are rendered by `bot.ui.chart_worker.render_chart` in the
bot's chart worker process (matplotlib is never imported in the bot).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import discord

from bot.core import decision as dd_rules
from bot.core.decision import DiceMode, SupplyDie
from bot.core.dn import SuccessLevel
from bot.core.odds import (
    decision_summary,
    dn_summary,
    percent,
    rps_summary,
    supply_summary,
    systemx_summary,
)
from bot.core.odds.contest import ContestOdds
from bot.core.odds.decision import (
    DecisionOdds,
    SupplyOdds,
    percent_chance,
    roll_odds,
    supply_odds,
)
from bot.core.odds.distribution import Distribution
from bot.core.odds.dn import DnOdds, dn_odds
from bot.core.odds.rps import RpsCheckOdds, SustainedOdds, check_odds
from bot.core.odds.systemx import (
    CheckOdds,
    combined_distribution,
    flat_chance,
    opposed_distribution,
    synergy_distribution,
)
from bot.core.odds.systemx import check_odds as sx_check_odds
from bot.core.systemx import S0, Margin, MarginStyle, RollChart, SkillCheck
from bot.ui.embeds import DESCRIPTION_MAX, FIELD_VALUE_MAX, NEUTRAL, clip, fit, result_embed
from bot.ui.odds_jobs import CACHE_SIZE as CACHE_SIZE
from bot.ui.odds_jobs import LINE_MAX_GOAL as LINE_MAX_GOAL
from bot.ui.odds_jobs import card_codes as card_codes
from bot.ui.odds_jobs import contested_cached as contested_cached
from bot.ui.odds_jobs import core_pool as core_pool
from bot.ui.odds_jobs import hand_decision as hand_decision
from bot.ui.odds_jobs import hand_decision_line as hand_decision_line
from bot.ui.odds_jobs import hand_decision_text as hand_decision_text
from bot.ui.odds_jobs import involuntary_line as involuntary_line
from bot.ui.odds_jobs import resisted_cached as resisted_cached
from bot.ui.odds_jobs import sustained_line as sustained_line

ODDS_FIELD = "Odds"
CHART_FILENAME = "odds.png"


# ---------------------------------------------------------------------------------------------------
# The odds line of a roll result (shown in its Details, with the exact chance)


EXACT_DIGITS = 12  # a longer denominator is no help to a reader: the percentage is given finer instead


def exact_chance(probability: Fraction, what: str = "to succeed") -> str:
    """ "Exactly 9/20 (45.00%) to succeed": the odds as a fraction, for anyone recomputing them; beyond
    `EXACT_DIGITS` digits, "Exactly 45.0123% to succeed"."""
    p = Fraction(probability)
    if len(str(p.denominator)) > EXACT_DIGITS:
        return f"Exactly {percent(p, 4)} {what}"
    fraction = f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)
    return f"Exactly {fraction} ({percent(p, 2)}) {what}"


def add_odds(embed: discord.Embed, line: str | None) -> discord.Embed:
    """Add the "Odds" field (the chance the roll had) to a result embed; nothing when ``line`` is None."""
    if line:
        embed.add_field(name=ODDS_FIELD, value=clip(line, FIELD_VALUE_MAX), inline=False)
        fit(embed)
    return embed


@functools.lru_cache(maxsize=CACHE_SIZE)
def sysx_check(
    sv: int,
    roll_modifier: int,
    sv_modifier: int,
    wounds: tuple[int, int] | None,
    required: Margin,
    chart: RollChart | None,
) -> CheckOdds:
    """SX-2..SX-7: one check's odds (cached on its inputs)."""
    return sx_check_odds(
        sv,
        roll_modifier=roll_modifier,
        sv_modifier=sv_modifier,
        wounds=wounds,
        required=required,
        chart=chart,
    )


def sysx_check_line(
    sv: int,
    *,
    roll_modifier: int,
    sv_modifier: int,
    wounds: tuple[int, int] | None,
    required: Margin,
    chart: RollChart | None,
    style: MarginStyle,
    actual: Margin | None,
) -> str:
    """ "45% to succeed; this S2 or better: 20%" for a System X check."""
    odds = sysx_check(sv, roll_modifier, sv_modifier, wounds, required, chart)
    return f"{systemx_summary(odds, actual, style)}\n{exact_chance(odds.success)}"


def _final_line(
    distribution: Distribution[Margin], actual: Margin, style: MarginStyle, what: str, required: Margin
) -> str:
    success = distribution.at_least(required)
    needs = f" (needs {required.format(style)})" if required != S0 else ""
    return (
        f"{percent(success)} {what}{needs}; this {actual.format(style)} or better: "
        f"{percent(distribution.at_least(actual))}\n{exact_chance(success, what)}"
    )


def sysx_opposed_line(
    actor: CheckOdds, target: CheckOdds, actual: Margin, style: MarginStyle, required: Margin = S0
) -> str:
    """SX-8: the actor's chance of a final margin meeting ``required`` (SX-7), and of this one or better."""
    final = opposed_distribution(actor.distribution, target.distribution)
    return _final_line(final, actual, style, "for the actor to succeed", required)


def sysx_combined_line(
    actors: Sequence[CheckOdds], actual: Margin, style: MarginStyle, required: Margin = S0
) -> str:
    """SX-9: the chance the combined margin meets ``required`` (SX-7), and of this one or better."""
    final = combined_distribution([a.distribution for a in actors])
    return _final_line(final, actual, style, "to succeed together", required)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _synergy(steps: tuple[SkillCheck, ...], chart: RollChart | None) -> Distribution[Margin]:
    return synergy_distribution(steps, chart=chart)


def sysx_synergy_line(
    steps: Sequence[SkillCheck],
    *,
    required: Margin,
    chart: RollChart | None,
    style: MarginStyle,
    actual: Margin,
) -> str:
    """SX-10: the chain's chance to reach the required margin, and of this final margin or better."""
    final = _synergy(tuple(steps), chart)
    head = f"{percent(final.at_least(required))} to succeed"
    if required != S0:
        head += f" (needs {required.format(style)})"
    return (
        f"{head}; this {actual.format(style)} or better: {percent(final.at_least(actual))}\n"
        f"{exact_chance(final.at_least(required))}"
    )


def flat_line(value: int) -> str:
    """SX-11: the chance the event happens."""
    return f"{percent(flat_chance(value))} to happen\n{exact_chance(flat_chance(value), 'to happen')}"


@functools.lru_cache(maxsize=CACHE_SIZE)
def dn_cached(dn: int) -> DnOdds:
    """DN-4/DN-5 odds for one DN (cached)."""
    return dn_odds(dn)


@functools.lru_cache(maxsize=CACHE_SIZE)  # the same few lines, roll after roll
def dn_line(dn: int, actual: SuccessLevel | None) -> str:
    """ "60% to succeed; this Special or better: 15%", and the exact chance."""
    odds = dn_cached(dn)
    return f"{dn_summary(odds, actual)}\n{exact_chance(odds.success)}"


@functools.lru_cache(maxsize=CACHE_SIZE)
def rps_cached(base: int) -> RpsCheckOdds:
    """RPS-2..RPS-5 odds for one Base (cached)."""
    return check_odds(base)


@functools.lru_cache(maxsize=CACHE_SIZE)  # the same few lines, roll after roll
def rps_line(base: int, actual_sl: int | None) -> str:
    """ "45% to succeed; SL 4 or better: 20%", and the exact chance."""
    odds = rps_cached(base)
    return f"{rps_summary(odds, actual_sl)}\n{exact_chance(odds.success)}"


def win_line(names: Sequence[str], odds: ContestOdds, winner: str | None = None) -> str:
    """ "Chance to win: Ann 62% · Bo 38%" (the winner's chance named when given)."""
    parts = " · ".join(f"{name} {percent(p)}" for name, p in zip(names, odds.win, strict=True))
    text = f"Chance to win: {parts}"
    if winner is not None and winner in names:
        chance = odds.win[list(names).index(winner)]
        text += f"; {winner} had {percent(chance)}\n{exact_chance(chance, f'for {winner} to win')}"
    return text


@functools.lru_cache(maxsize=CACHE_SIZE)
def decision_cached(
    stat: int, modifiers: tuple[int, ...], target: int, advantage: bool, disadvantage: bool
) -> DecisionOdds:
    """DD-1/DD-2 odds (cached)."""
    return roll_odds(stat, modifiers, target, advantage=advantage, disadvantage=disadvantage)


def decision_line(
    stat: int,
    modifiers: Sequence[int],
    target: int,
    *,
    advantage: bool,
    disadvantage: bool,
    actual_total: int | None,
) -> str:
    """ "58% to succeed; a total of 14 or more: 28%"."""
    return _decision_line(stat, tuple(modifiers), target, advantage, disadvantage, actual_total)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _decision_line(
    stat: int,
    modifiers: tuple[int, ...],
    target: int,
    advantage: bool,
    disadvantage: bool,
    actual_total: int | None,
) -> str:
    odds = decision_cached(stat, modifiers, target, advantage, disadvantage)
    return f"{decision_summary(odds, actual_total)}\n{exact_chance(odds.success)}"


def percent_line(chance: int) -> str:
    """DD-8: the chance of the d100 roll."""
    odds = percent_chance(chance)
    return f"{percent(odds)} to succeed\n{exact_chance(odds)}"


def step_chance(die: SupplyDie) -> Fraction:
    """DD-7: P(one roll of this die steps it down), read off the rule."""
    if die is SupplyDie.EMPTY:
        return Fraction(0)
    return Fraction(
        sum(dd_rules.supply_roll(die, f).stepped_down for f in range(1, die.sides + 1)), die.sides
    )


@functools.lru_cache(maxsize=16)
def supply_cached(die: SupplyDie) -> SupplyOdds:
    """DD-7 odds from a die (cached)."""
    return supply_odds(die)


def supply_line(rolled: SupplyDie, now: SupplyDie) -> str:
    """This roll's chance to step down, and the rolls the item has left from its new die."""
    head = f"{percent(step_chance(rolled))} to step down on this roll"
    exact = exact_chance(step_chance(rolled), "to step down")
    if now is SupplyDie.EMPTY:
        return f"{head}; the item is empty now\n{exact}"
    return f"{head}; {supply_summary(supply_cached(now))}\n{exact}"


# ---------------------------------------------------------------------------------------------------
# /odds tables


@dataclass(frozen=True)
class Row:
    """One line of an odds table: a label, P(exactly), P(this or better)."""

    label: str
    probability: Fraction
    at_least: Fraction | None = None


def table(rows: Sequence[Row], *, head: str, cumulative: str = "or better") -> str:
    """A monospace table (a code block) within an embed description's limit."""
    width = max([len(head), *(len(r.label) for r in rows)])
    lines = [f"{head:<{width}}  {'chance':>7}  {cumulative:>9}"]
    for row in rows:
        better = percent(row.at_least, 1) if row.at_least is not None else ""
        lines.append(f"{row.label:<{width}}  {percent(row.probability, 1):>7}  {better:>9}")
    text = "\n".join(lines)
    while len(text) + 8 > DESCRIPTION_MAX - 200 and len(lines) > 2:
        lines.pop(len(lines) // 2)
        text = "\n".join(lines)
    return f"```\n{text}\n```"


def distribution_rows(distribution: Distribution[Any], label: Any = str) -> list[Row]:
    """Rows of a distribution, best first, with P(this or better) summed in one pass."""
    rows, better = [], Fraction(0)
    for outcome, p in reversed(distribution.outcomes):
        better += p
        rows.append(Row(label(outcome), p, better))
    return rows


def odds_embed(
    title: str,
    *,
    headline: str,
    rows_text: str = "",
    fields: Sequence[tuple[str, str]] = (),
    footer: str = "",
    chart: bool = True,
) -> discord.Embed:
    """The /odds answer: the headline, the table, extra fields; the chart shown as the embed's image."""
    description = f"**{headline}**"
    if rows_text:
        description += f"\n{rows_text}"
    embed = result_embed(
        title, description=clip(description, DESCRIPTION_MAX), fields=fields, inline=False, footer=footer
    )
    embed.colour = NEUTRAL
    if chart:
        embed.set_image(url=f"attachment://{CHART_FILENAME}")
    return embed


def chart_file(png: bytes) -> discord.File:
    """The chart as an upload named like the embed's image."""
    import io

    return discord.File(io.BytesIO(png), filename=CHART_FILENAME)


def supply_rows(odds: SupplyOdds, limit: int = 20) -> list[Row]:
    """P(the item runs out on exactly the n-th roll from now) and P(it lasts at least n rolls)."""
    shown = min(limit, odds.cap)
    return [Row(str(n), odds.uses[n - 1], odds.at_least(n)) for n in range(1, shown + 1)]


def pool_fields(odds: SustainedOdds, unit: str) -> list[tuple[str, str]]:
    """Expected checks and time left, P(complete) and P(fail) of a pool as it stands."""
    return [
        ("Complete", percent(odds.complete, 1)),
        ("Fail", percent(odds.fail, 1)),
        ("Checks left (expected)", f"{float(odds.expected_checks):.1f}"),
        ("Time left (expected)", f"{float(odds.expected_minutes):.0f} {unit}"),
        ("Checks in all (expected)", f"{float(odds.expected_total_checks):.1f}"),
    ]


def mode_of(advantage: bool, disadvantage: bool) -> DiceMode:
    """The dice a roll uses (DD-2)."""
    return dd_rules.dice_mode(advantage, disadvantage)
