"""System X on Discord: where a check's numbers come from (a sheet or raw numbers) and its embeds.

The rules live in `bot.core.systemx`; this module only reads sheets into Skill Values, sums the GM's
pending modifiers (GM-3, bounded by SX-6), picks the guild's chart and margin display, and renders results
so anyone at the table can recompute them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.core.systemx import (
    CF,
    CS,
    S0,
    CheckResult,
    CombinedResult,
    DecidedBy,
    FlatResult,
    Margin,
    MarginStyle,
    RollChart,
    SynergyResult,
    gm_modifier,
    gm_total,
    judged,
    parse_chart,
    required_margin,
    skill_value,
)
from bot.store import MARGINS, AppliedModifier, GuildSettings, Sheet
from bot.store.models import name_key
from bot.ui.embeds import compact_embed, result_embed, rule_footer, shown_name
from bot.ui.reply import UserError
from bot.ui.rolls import gm_line, modifier_field

SYSTEM = "sysx"
REQUIRED_CHOICES: tuple[str, ...] = MARGINS
CHART_CACHE_SIZE = 32
NO_SHEET_HINT = "make one with /sheet create (system System X) or give raw numbers"


# ---------------------------------------------------------------------------------------------------
# Where the Skill Value comes from (SX-1, SX-2)


@dataclass(frozen=True)
class SkillSource:
    """One actor's Skill Value before modifiers: its label, SV, how it was made, and the sheet's wounds."""

    label: str  # "Climb" or "SV 14"
    sv: int
    breakdown: str  # "Agility 12 + Climb 4 = 16"
    wounds: tuple[int, int] | None = None
    sheet_name: str | None = None


def from_sheet(sheet: Sheet, skill_name: str) -> SkillSource:
    """SX-1 from a sheet: the skill's parent attribute + its rating, + the sheet's stored bonuses named
    like the skill or that attribute (SX-6: rule-made, so past a GM's -4..+4); SX-2 wounds from the
    sheet."""
    found = sheet.skill(skill_name)
    if found is None:
        raise UserError(f"The sheet {sheet.name!r} has no skill named {skill_name.strip()[:64]!r}.")
    name, skill = found
    if skill.attribute is None:
        raise UserError(
            f"The skill {name!r} on {sheet.name!r} has no parent attribute; set one with /sheet set-skill."
        )
    parent = sheet.attribute(skill.attribute)
    if parent is None:
        raise UserError(
            f"The sheet {sheet.name!r} has no attribute {skill.attribute!r} (the parent of {name})."
        )
    attribute_name, attribute = parent
    named = {name_key(name), name_key(attribute_name)}
    bonuses = [(n, v) for n, v in sheet.bonuses.items() if v and name_key(n) in named]
    sv = skill_value(attribute, skill.rating, *(v for _, v in bonuses))
    wounds = None if sheet.wounds is None else (sheet.wounds.current, sheet.wounds.maximum)
    extra = "".join(f" + {n} bonus {v:+d}" for n, v in bonuses)
    return SkillSource(
        label=name,
        sv=sv,
        breakdown=f"{attribute_name} {attribute} + {name} {skill.rating}{extra} = {sv}",
        wounds=wounds,
        sheet_name=sheet.name,
    )


def from_numbers(sv: int | None, attribute: int | None, rating: int | None) -> SkillSource | None:
    """A raw Skill Value, or SX-1 from raw attribute and skill numbers; None when none were given."""
    if (attribute is None) != (rating is None):
        raise UserError("Give both an attribute and a skill rating, or neither.")
    if sv is not None and attribute is not None:
        raise UserError("Give either an SV or an attribute and a skill rating, not both.")
    if sv is not None:
        return SkillSource(label=f"SV {sv}", sv=sv, breakdown=f"{sv} (given)")
    if attribute is not None and rating is not None:
        total = skill_value(attribute, rating)
        return SkillSource(
            label=f"SV {total}", sv=total, breakdown=f"attribute {attribute} + skill {rating} = {total}"
        )
    return None


def skill_choices(sheet: Sheet | None, current: str, limit: int = 25) -> list[tuple[str, str]]:
    """Autocomplete: (label, value) for the sheet's skills containing ``current``, prefixes first."""
    if sheet is None:
        return []
    key = current.strip().casefold()
    found: list[tuple[int, str, str]] = []
    for name, skill in sheet.skills.items():
        position = name.casefold().find(key)
        if position < 0:
            continue
        parent = sheet.attribute(skill.attribute) if skill.attribute else None
        label = f"{name} ({parent[0]} {parent[1]} + {skill.rating})" if parent else name
        found.append((0 if position == 0 else 1, label[:100], name[:100]))
    found.sort(key=lambda item: (item[0], item[2].casefold()))
    return [(label, value) for _, label, value in found[:limit]]


def list_choices(entries: Sequence[str], current: str, limit: int = 25) -> list[tuple[str, str]]:
    """Autocomplete for a comma-separated list: complete its last entry from ``entries``."""
    done, _, last = current.rpartition(",")
    head = [part.strip() for part in done.split(",") if part.strip()] if done else []
    key = last.strip().casefold()
    ranked = sorted(
        (e for e in entries if key in e.casefold()),
        key=lambda e: (not e.casefold().startswith(key), e.casefold()),
    )
    out: list[tuple[str, str]] = []
    for entry in ranked:
        text = ", ".join([*head, entry])
        if len(text) <= 100:
            out.append((text, text))
        if len(out) == limit:
            break
    return out


def split_list(text: str, *, low: int, high: int, what: str) -> list[str]:
    """A comma-separated option as its entries, refusing fewer than ``low`` or more than ``high``."""
    entries = [part.strip() for part in text.split(",") if part.strip()]
    if not low <= len(entries) <= high:
        raise UserError(f"List {low} to {high} {what}, separated by commas (you gave {len(entries)}).")
    return entries


# ---------------------------------------------------------------------------------------------------
# GM modifiers (GM-3, SX-6), the chart (SX-5) and the margin display


@dataclass(frozen=True)
class GmModifiers:
    """What the GM's pending System X modifiers add to one check (``sv_set``, ``roll_set``: their sums
    before SX-6 held them to -4..+4)."""

    sv: int = 0
    roll: int = 0
    required: Margin | None = None
    sv_set: int = 0
    roll_set: int = 0

    def label(self, kind: str) -> str:
        """How Details name the GM's part of a modifier: ``GM``, or ``GM +12 held by SX-6 at`` (+4)."""
        asked, held = (self.sv_set, self.sv) if kind == "sv" else (self.roll_set, self.roll)
        return "GM" if asked == held else f"GM {asked:+d} held by SX-6 at"


def gm_modifiers(applied: Sequence[AppliedModifier]) -> GmModifiers:
    """Sum SV and roll modifiers, each kind within SX-6's -4..+4 (`gm_total`); a required margin replaces
    the roll's own (the store holds one at most for a roll: `REPLACING_KINDS`)."""
    svs = [gm_modifier(m.value, "A GM-set SV modifier") for m in applied if m.kind == "sv"]
    rolls = [gm_modifier(m.value, "A GM-set roll modifier") for m in applied if m.kind == "roll"]
    required: Margin | None = None
    for mod in applied:
        if mod.kind == "required_margin":
            required = required_margin(str(mod.value))
    return GmModifiers(gm_total(svs), gm_total(rolls), required, sum(svs), sum(rolls))


class ChartBook:
    """The frozen chart read at start, plus guilds' custom charts parsed once per distinct text."""

    def __init__(self, default: RollChart) -> None:
        self.default = default
        self._parsed: OrderedDict[str, RollChart] = OrderedDict()

    def chart(self, settings: GuildSettings | None) -> tuple[RollChart, bool]:
        """The chart for a guild and whether it is the guild's own (a bad custom chart raises ChartError)."""
        text = settings.systemx_chart if settings is not None else None
        if not text:
            return self.default, False
        chart = self._parsed.get(text)
        if chart is None:
            chart = parse_chart(text)
            self._parsed[text] = chart
            while len(self._parsed) > CHART_CACHE_SIZE:
                self._parsed.popitem(last=False)
        else:
            self._parsed.move_to_end(text)
        return chart, True


def margin_style(settings: GuildSettings | None) -> MarginStyle:
    """The guild's margin display ("signed" +3/-0 by default, or "letters" S3/F0)."""
    if settings is not None and settings.margin_display == "letters":
        return MarginStyle.LETTERS
    return MarginStyle.SIGNED


# ---------------------------------------------------------------------------------------------------
# The compact result: who rolled what, the margin in the seed's words, at most three lines


def who_rolled(display_name: str, source: SkillSource) -> str:
    """Who rolled, as a result's title names them: the sheet's character, else the member's name."""
    return shown_name(source.sheet_name or display_name)


def outcome_words(margin: Margin, style: MarginStyle, succeeded: bool) -> str:
    """``S2, success``; the zeros and criticals glossed for a newcomer (``F0, just short``)."""
    shown = margin.format(style)
    if margin == CS and succeeded:
        return f"{shown}, critical success"
    if margin == CF and not succeeded:
        return f"{shown}, critical failure"
    if margin.is_zero and succeeded == margin.is_success:
        return f"{shown}, {'just made it' if succeeded else 'just short'}"
    return f"{shown}, {'success' if succeeded else 'failure'}"


def _die_text(result: CheckResult) -> str:
    """``d20 **14** +2 = 16``: the natural roll and, when modified, the roll used."""
    text = f"d20 **{result.natural_roll}**"
    if result.roll_modifier:
        text += f" {result.roll_modifier:+d} = {result.modified_roll}"
    return text


def _sv_short(result: CheckResult) -> str:
    """``SV 16``, or how modifiers and wounds changed it (``SV 16 -2 = 14, wounds cap 12``)."""
    text = f"SV {result.sv}"
    if result.sv_modifier:
        text += f" {result.sv_modifier:+d} = {result.modified_sv}"
    if result.capped:
        text += f", capped at {result.effective_sv} by wounds"
    return text


def _shortcut(result: CheckResult) -> str | None:
    """Why the chart was not read, in plain words (SV or roll off its edges), or None."""
    if result.decided_by is DecidedBy.CHART:
        return None
    plain = {
        DecidedBy.SV_ABOVE_30: "an SV above 30 always succeeds critically",
        DecidedBy.SV_BELOW_1: "an SV below 1 always fails critically",
        DecidedBy.ROLL_ABOVE_20: "a roll above 20 is a critical success",
        DecidedBy.ROLL_BELOW_1: "a roll below 1 is a critical failure",
    }
    return plain[result.decided_by]


def _needed(required: Margin, style: MarginStyle) -> str:
    return "needed CS" if required == CS else f"needed {required.format(style)} or better"


def check_compact(
    result: CheckResult,
    source: SkillSource,
    style: MarginStyle,
    *,
    who: str,
    applied: Sequence[AppliedModifier],
) -> discord.Embed:
    """One check at a glance: ``Ayla - Climb: S2, success``, the die against the SV, what was needed."""
    shortcut = _shortcut(result)
    needed = "N" + _needed(result.required, style)[1:]
    return compact_embed(
        f"{who} - {shown_name(source.label)}: {outcome_words(result.margin, style, result.succeeded)}",
        [
            f"{_die_text(result)} against {_sv_short(result)}",
            f"{needed}" + (f"; {shortcut}" if shortcut else ""),
            gm_line(applied, style=style),
        ],
        verdict=result.verdict,
    )


def opposed_how(
    actor_name: str, target_name: str, actor: Margin, target: Margin, final: Margin, style: MarginStyle
) -> str:
    """How SX-8 gave the final margin, in words: the difference, or which critical decided it."""
    shown = final.format(style)
    if actor.is_critical and target == actor:
        return f"Both {actor.format(style)}: {shown}"
    if actor.is_critical:
        return f"{actor_name}'s {actor.format(style)} stands"
    if target == CS:
        return f"{target_name}'s CS: {shown}"
    if target == CF:
        return f"{target_name}'s CF: {actor_name}'s own margin, {shown}"
    return f"{actor_name}'s margin less {target_name}'s: {shown}"


def opposed_compact(
    actor: tuple[str, SkillSource, CheckResult],
    target: tuple[str, SkillSource, CheckResult],
    final: Margin,
    style: MarginStyle,
    *,
    applied: Sequence[AppliedModifier],
    target_applied: Sequence[AppliedModifier] = (),
    required: Margin = S0,
) -> discord.Embed:
    """``Ayla (Climb) vs Bo (Wits): S1, success``; both dice and margins, and the final margin, judged
    against the actor's required margin (SX-7, a GM's; S0 by default); each party's GM modifiers."""
    (actor_name, actor_source, actor_result), (target_name, target_source, target_result) = actor, target
    succeeded, verdict = judged(final, required)
    how = opposed_how(actor_name, target_name, actor_result.margin, target_result.margin, final, style)
    return compact_embed(
        f"{actor_name} ({shown_name(actor_source.label)}) vs {target_name} "
        f"({shown_name(target_source.label)}): {outcome_words(final, style, succeeded)}",
        [
            f"{actor_name} {_die_text(actor_result)} → {actor_result.margin.format(style)} · "
            f"{target_name} {_die_text(target_result)} → {target_result.margin.format(style)}",
            how + (f"; {_needed(required, style)}" if required != S0 else ""),
            "; ".join(
                line
                for line in (gm_line(applied, actor_name, style), gm_line(target_applied, target_name, style))
                if line
            )
            or None,
        ],
        verdict=verdict,
    )


def combined_compact(
    actors: Sequence[tuple[str, SkillSource, CheckResult, Sequence[AppliedModifier]]],
    outcome: CombinedResult,
    style: MarginStyle,
    *,
    required: Margin = S0,
) -> discord.Embed:
    """``Combined: Ayla, Bo: S3, success``; each actor's die and margin, and the margins added in turn,
    judged against the required margin (SX-7: the strictest a GM set for an actor; S0 by default)."""
    names = ", ".join(name for name, *_ in actors)
    running = " then ".join(partial.format(style) for partial in outcome.partials)
    modifiers = [gm_line(applied, name, style) for name, _, _, applied in actors if applied]
    succeeded, verdict = judged(outcome.margin, required)
    return compact_embed(
        f"Combined: {names}: {outcome_words(outcome.margin, style, succeeded)}",
        [
            " · ".join(
                f"{name} {_die_text(result)} → {result.margin.format(style)}" for name, _, result, _ in actors
            ),
            f"Margins added in turn: {running}" + (f"; {_needed(required, style)}" if required != S0 else ""),
            "; ".join(m for m in modifiers if m) or None,
        ],
        verdict=verdict,
    )


def synergy_compact(
    outcome: SynergyResult,
    sources: Sequence[SkillSource],
    style: MarginStyle,
    *,
    who: str,
    applied: Sequence[AppliedModifier],
) -> discord.Embed:
    """``Ayla - Climb, Swim: S2, success``; the dice and each margin, carried on to the next check."""
    skills = ", ".join(shown_name(source.label) for source in sources)
    dice = ", ".join(f"**{link.result.natural_roll}**" for link in outcome.links)
    margins = " → ".join(link.result.margin.format(style) for link in outcome.links)
    return compact_embed(
        f"{who} - {skills}: {outcome_words(outcome.margin, style, outcome.succeeded)}",
        [
            f"d20s {dice}: {margins}",
            f"Each margin adds to the next SV; {_needed(outcome.required, style)}",
            gm_line(applied, style=style),
        ],
        verdict=outcome.verdict,
    )


def flat_compact(result: FlatResult, *, who: str) -> discord.Embed:
    """``Ayla - flat chance under 12: happens``."""
    happened = "happens" if result.happened else "does not happen"
    return compact_embed(
        f"{who} - flat chance under {result.value}: {happened}",
        [f"d20 **{result.natural_roll}**, needed under {result.value}"],
        verdict=result.verdict,
    )


# ---------------------------------------------------------------------------------------------------
# Details: the full breakdown, the deciding rules and the odds


def _signed(value: int) -> str:
    return f"{value:+d}"


def _parts(parts: Sequence[tuple[str, int]]) -> str:
    shown = [f"{name} {_signed(value)}" for name, value in parts if value]
    return ", ".join(shown)


def decided_text(result: CheckResult) -> str:
    """How the margin was decided: the chart's cell, or SX-3 / SX-4."""
    if result.decided_by is DecidedBy.CHART:
        return f"the roll chart at SV {result.effective_sv}, roll {result.modified_roll} (SX-5)"
    rule = "SX-3" if result.decided_by in (DecidedBy.SV_ABOVE_30, DecidedBy.SV_BELOW_1) else "SX-4"
    return f"{result.decided_by.value} ({rule})"


def sv_text(source: SkillSource, result: CheckResult, sv_parts: Sequence[tuple[str, int]] = ()) -> str:
    """SX-1 and SX-2 in one line: the SV, its modifiers and the wound cap."""
    text = f"{source.breakdown}"
    if result.sv_modifier:
        detail = _parts(sv_parts)
        text += f"; modifier {_signed(result.sv_modifier)}{f' ({detail})' if detail else ''}"
        text += f" → {result.modified_sv}"
    if result.wounds is not None:
        current, maximum = result.wounds
        if result.wound_cap is None:
            text += f"; wounds {current}/{maximum}: no cap"
        else:
            text += f"; wounds {current}/{maximum} cap SV at {result.wound_cap}"
            text += f" → {result.effective_sv}" if result.capped else " (not reached)"
    return text


def roll_text(result: CheckResult, roll_parts: Sequence[tuple[str, int]] = ()) -> str:
    """SX-4: the natural d20 and the modified roll."""
    text = f"d20: **{result.natural_roll}**"
    if result.roll_modifier:
        detail = _parts(roll_parts)
        text += f", modifier {_signed(result.roll_modifier)}{f' ({detail})' if detail else ''}"
        text += f" → {result.modified_roll}"
    return text


def check_summary(result: CheckResult, source: SkillSource, style: MarginStyle) -> str:
    """A check in a few lines, for results that show several checks (opposed, combined, synergy)."""
    return (
        f"SV {sv_text(source, result)}\n{roll_text(result)}\n"
        f"By {decided_text(result)}: **{result.margin.format(style)}**"
    )


def _rules(*results: CheckResult) -> list[str]:
    rules = ["SX-1"]
    if any(r.wounds is not None for r in results):
        rules.append("SX-2")
    for decided, rule in (
        ((DecidedBy.SV_ABOVE_30, DecidedBy.SV_BELOW_1), "SX-3"),
        ((DecidedBy.ROLL_ABOVE_20, DecidedBy.ROLL_BELOW_1), "SX-4"),
        ((DecidedBy.CHART,), "SX-5"),
    ):
        if any(r.decided_by in decided for r in results):
            rules.append(rule)
    return rules


def _chart_note(custom: bool) -> str:
    return "the guild's own roll chart" if custom else "the bot's roll chart"


def _footer(rules: list[str], applied: Sequence[AppliedModifier], custom: bool) -> str:
    if applied and "SX-6" not in rules:
        rules = [*rules, "SX-6"]
    return f"{rule_footer(*rules, 'SX-12')} · {_chart_note(custom)}"


def check_details(
    result: CheckResult,
    source: SkillSource,
    style: MarginStyle,
    *,
    roller: str,
    sv_parts: Sequence[tuple[str, int]],
    roll_parts: Sequence[tuple[str, int]],
    required_by: str,
    applied: Sequence[AppliedModifier],
    custom_chart: bool,
) -> discord.Embed:
    """One System X check (SX-1..SX-7) with every input, the die and how the margin was decided."""
    outcome = "success" if result.succeeded else "failure"
    fields = [
        ("Skill Value", sv_text(source, result, sv_parts)),
        ("Roll", roll_text(result, roll_parts)),
        ("Decided by", decided_text(result)),
        ("Margin", f"**{result.margin.format(style)}**"),
        (
            "Required",
            f"{result.required.format(style)} ({required_by}): "
            f"{result.margin.format(style)} {'≥' if result.succeeded else '<'} "
            f"{result.required.format(style)} → {outcome} (SX-7)",
        ),
    ]
    mods = modifier_field(applied, style)
    if mods:
        fields.append(mods)
    sheet = f" · sheet {shown_name(source.sheet_name)}" if source.sheet_name else ""
    return result_embed(
        f"{shown_name(source.label)}: {result.margin.format(style)}, {outcome}",
        verdict=result.verdict,
        description=f"System X check by {roller}{sheet}",
        fields=fields,
        inline=False,
        footer=_footer([*_rules(result), "SX-7"], applied, custom_chart),
    )


def opposed_details(
    actor: tuple[str, SkillSource, CheckResult],
    target: tuple[str, SkillSource, CheckResult],
    final: Margin,
    style: MarginStyle,
    *,
    applied: Sequence[AppliedModifier],
    target_applied: Sequence[AppliedModifier] = (),
    custom_chart: bool,
    required: Margin = S0,
) -> discord.Embed:
    """SX-8: both checks and the actor's final margin, judged against ``required`` (SX-7)."""
    (actor_name, actor_source, actor_result), (target_name, target_source, target_result) = actor, target
    fields = [
        (
            f"Actor: {shown_name(actor_source.label)}",
            f"{actor_name}\n{check_summary(actor_result, actor_source, style)}",
        ),
        (
            f"Target: {shown_name(target_source.label)}",
            f"{target_name}\n{check_summary(target_result, target_source, style)}",
        ),
        (
            "Opposed (SX-8)",
            f"{actor_result.margin.format(style)} against {target_result.margin.format(style)}"
            f" → **{final.format(style)}**",
        ),
    ]
    for party, mine in (("actor", applied), ("target", target_applied)):
        mods = modifier_field(mine, style)
        if mods:
            fields.append((f"{mods[0]} (on the {party}'s check)", mods[1]))
    succeeded, verdict = judged(final, required)
    return result_embed(
        f"Opposed check: {outcome_words(final, style, succeeded)}",
        verdict=verdict,
        description=f"{actor_name} against {target_name}; {_needed(required, style)} (SX-7)",
        fields=fields,
        inline=False,
        footer=_footer(
            [*_rules(actor_result, target_result), "SX-8"], [*applied, *target_applied], custom_chart
        ),
    )


def combined_details(
    actors: Sequence[tuple[str, SkillSource, CheckResult, Sequence[AppliedModifier]]],
    outcome: CombinedResult,
    style: MarginStyle,
    *,
    custom_chart: bool,
    required: Margin = S0,
) -> discord.Embed:
    """SX-9: each actor's check, then the left fold one pair at a time, judged against ``required``."""
    fields: list[tuple[str, str]] = []
    for index, (name, source, result, applied) in enumerate(actors, start=1):
        text = f"{name}\n{check_summary(result, source, style)}"
        mods = modifier_field(applied, style)
        if mods:
            text += f"\n{mods[0]}: {mods[1]}"
        fields.append((f"{index}. {source.label}", text))
    steps = []
    running = outcome.margins[0]
    for margin, partial in zip(outcome.margins[1:], outcome.partials, strict=True):
        steps.append(f"{running.format(style)} with {margin.format(style)} → {partial.format(style)}")
        running = partial
    fields.append(("Combined (SX-9)", "\n".join(steps)))
    every_applied = [m for *_, applied in actors for m in applied]
    succeeded, verdict = judged(outcome.margin, required)
    return result_embed(
        f"Combined check: {outcome_words(outcome.margin, style, succeeded)}",
        verdict=verdict,
        description=f"{len(actors)} actors; {_needed(required, style)} (SX-7)",
        fields=fields,
        inline=False,
        footer=_footer([*_rules(*(a[2] for a in actors)), "SX-9"], every_applied, custom_chart),
    )


def synergy_details(
    outcome: SynergyResult,
    sources: Sequence[SkillSource],
    style: MarginStyle,
    *,
    roller: str,
    required_by: str,
    applied: Sequence[AppliedModifier],
    custom_chart: bool,
) -> discord.Embed:
    """SX-10: every link with the margin it carried, and the chain's result against the required margin."""
    fields: list[tuple[str, str]] = []
    for index, (link, source) in enumerate(zip(outcome.links, sources, strict=True), start=1):
        carried = (
            "first check: carries +0"
            if index == 1
            else f"carries {_signed(link.carried)} from check {index - 1}"
        )
        fields.append((f"{index}. {source.label} ({carried})", check_summary(link.result, source, style)))
    verdict_word = "success" if outcome.succeeded else "failure"
    fields.append(
        (
            "Result",
            f"Last margin **{outcome.margin.format(style)}** against required "
            f"{outcome.required.format(style)} ({required_by}) → {verdict_word} (SX-7)",
        )
    )
    mods = modifier_field(applied, style)
    if mods:
        fields.append((f"{mods[0]} (on the chain's first check)", mods[1]))
    results = [link.result for link in outcome.links]
    return result_embed(
        f"Synergistic check: {outcome.margin.format(style)}, {verdict_word}",
        verdict=outcome.verdict,
        description=f"{len(outcome.links)} checks in order, by {roller}",
        fields=fields,
        inline=False,
        footer=_footer([*_rules(*results), "SX-7", "SX-10"], applied, custom_chart),
    )


def flat_details(result: FlatResult, *, roller: str) -> discord.Embed:
    """SX-11: one d20 strictly under the value."""
    happened = "happens" if result.happened else "does not happen"
    return result_embed(
        f"Flat chance: the event {happened}",
        verdict=result.verdict,
        description=f"Flat roll by {roller}",
        fields=[
            ("Roll", f"d20: **{result.natural_roll}**"),
            (
                "Value",
                f"under {result.value}: "
                f"{result.natural_roll} {'<' if result.happened else '≥'} {result.value}",
            ),
        ],
        footer=rule_footer("SX-11", "SX-12"),
    )
