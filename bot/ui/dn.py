"""Difficulty Number on Discord: a DN from a sheet or raw numbers, the DF with the GM's share, the embed.

The rules live in `bot.core.dn`; this module reads a sheet's skill level and characteristics, adds the
GM's pending DF (GM-3) to the player's DF within DN-3's limits, and renders a check with its thresholds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.core.dn import (
    DF_RANGE,
    DN_RANGE,
    Complexity,
    DnCheck,
    SuccessLevel,
    describe_levels,
    natural_ability,
)
from bot.store import AppliedModifier, Sheet
from bot.ui.embeds import compact_embed, result_embed, rule_footer, shown_name
from bot.ui.reply import UserError
from bot.ui.rolls import gm_line, modifier_field, modifier_total

SYSTEM = "dn"
MAX_CHARACTERISTICS = 10
NO_SHEET_HINT = "make one with /sheet create (system Difficulty Number), or use /dn raw"
COMPLEXITY_CHOICES: tuple[tuple[str, str], ...] = (
    ("x0.5 (complex)", "0.5"),
    ("x1", "1"),
    ("x1.5", "1.5"),
    ("x2 (simple)", "2"),
)


@dataclass(frozen=True)
class SkillUse:
    """DN-1's inputs from a sheet: the skill, its level and the characteristics of natural ability."""

    skill: str
    level: int
    characteristics: tuple[tuple[str, int], ...]
    sheet_name: str

    @property
    def ability(self) -> int:
        """Natural ability: one characteristic, or the average of several rounded down (DN-1)."""
        return natural_ability([value for _, value in self.characteristics])

    def ability_text(self) -> str:
        """``DEX 13`` or ``avg(DEX 13, STR 11) rounded down = 12``."""
        named = ", ".join(f"{name} {value}" for name, value in self.characteristics)
        if len(self.characteristics) == 1:
            return named
        return f"avg({named}) rounded down = {self.ability}"


def skill_use(sheet: Sheet, skill_name: str, characteristics: Sequence[str] = ()) -> SkillUse:
    """The skill's level and its characteristics: the ones named, else the skill's parent (DN-1)."""
    found = sheet.skill(skill_name)
    if found is None:
        raise UserError(f"The sheet {sheet.name!r} has no skill named {skill_name.strip()[:64]!r}.")
    name, skill = found
    wanted = list(characteristics)
    if not wanted:
        if skill.attribute is None:
            raise UserError(
                f"The skill {name!r} has no parent characteristic; name one in the characteristics option."
            )
        wanted = [skill.attribute]
    if len(wanted) > MAX_CHARACTERISTICS:
        raise UserError(f"Natural ability averages at most {MAX_CHARACTERISTICS} characteristics.")
    values: list[tuple[str, int]] = []
    for word in wanted:
        attribute = sheet.attribute(word)
        if attribute is None:
            raise UserError(f"The sheet {sheet.name!r} has no characteristic named {word.strip()[:64]!r}.")
        if any(name == attribute[0] for name, _ in values):  # it would count twice in the average (DN-1)
            raise UserError(f"{attribute[0]} is named twice; name each characteristic once.")
        values.append(attribute)
    return SkillUse(name, skill.rating, tuple(values), sheet.name)


def skill_choices(sheet: Sheet | None, current: str, limit: int = 25) -> list[tuple[str, str]]:
    """Autocomplete: (label, value) of the sheet's skills containing ``current``, prefixes first."""
    if sheet is None:
        return []
    key = current.strip().casefold()
    ranked = sorted(
        ((n, s) for n, s in sheet.skills.items() if key in n.casefold()),
        key=lambda item: (not item[0].casefold().startswith(key), item[0].casefold()),
    )
    out = []
    for name, skill in ranked[:limit]:
        parent = f", {skill.attribute}" if skill.attribute else ""
        out.append((f"{name} (level {skill.rating}{parent})"[:100], name[:100]))
    return out


@dataclass(frozen=True)
class DifficultyFactor:
    """DN-3's DF: the player's, the GM's, and the total used (limited to -10..+5)."""

    chosen: int
    gm: int
    total: int

    @property
    def limited(self) -> bool:
        """True when the sum left -10..+5 and was held at the limit."""
        return self.total != self.chosen + self.gm

    def text(self) -> str:
        """``DF -2`` or ``DF -2 (chosen -1, GM -1)`` or ``... limited to -10 (DN-3)``."""
        text = f"DF {self.total:+d}"
        if self.gm:
            text += f" (chosen {self.chosen:+d}, GM {self.gm:+d}"
            text += f": {self.chosen + self.gm:+d} held at {self.total:+d} by DN-3)" if self.limited else ")"
        return text


def difficulty_factor(chosen: int, applied: Sequence[AppliedModifier]) -> DifficultyFactor:
    """The player's DF plus every GM DF that applied, held within DN-3's -10..+5 (decided: clamp)."""
    gm = modifier_total(applied, "df")
    low, high = DF_RANGE
    return DifficultyFactor(chosen, gm, max(low, min(high, chosen + gm)))


def limit_dn(value: int) -> int:
    """A given DN plus a GM's DF, held within the DN range a check accepts (-10..65)."""
    low, high = DN_RANGE
    return max(low, min(high, value))


#: What each level means, in the seed's own words (its five success levels and the natural 20).
LEVEL_GLOSS: dict[SuccessLevel, str] = {
    SuccessLevel.CRITICAL: "you succeed in the best possible way",
    SuccessLevel.SPECIAL: "you succeed in a better way than you hoped",
    SuccessLevel.HIGH: "you succeed perfectly",
    SuccessLevel.MEDIUM: "you succeed quite well",
    SuccessLevel.AVERAGE: "you barely succeed",
    SuccessLevel.CRITICAL_FAILURE: "a natural 20 fails in a drastic and troublesome way",
}


def level_words(level: SuccessLevel) -> str:
    """``High success``, ``failure``, ``critical failure``."""
    return level.value if not level.succeeded else f"{level.value} success"


def dn_compact(
    result: DnCheck,
    *,
    who: str,
    what: str,
    applied: Sequence[AppliedModifier],
    factor: DifficultyFactor | None = None,
) -> discord.Embed:
    """``Ayla - Stealth: High success``; the d20 against the DN with the margin, what the level means, and
    the GM's modifier, with the DF it came to when DN-3's range held it (the GM's +5 may then do nothing)."""
    gm = gm_line(applied)
    if gm and factor is not None and factor.gm and factor.limited:
        gm += f"; the DF came to {factor.chosen + factor.gm:+d}, held at {factor.total:+d}"
    needed = "no roll can succeed at a DN of 0 or less" if result.dn <= 0 else f"needed {result.dn} or less"
    gloss = LEVEL_GLOSS.get(result.level)
    return compact_embed(
        f"{who} - {shown_name(what)}: {level_words(result.level)}",
        [
            f"d20 **{result.natural_roll}**, {needed} (margin {result.margin:+d})",
            f"{result.level.value.capitalize()}: {gloss}" if gloss else None,
            gm,
        ],
        verdict=result.verdict,
    )


def decided_text(result: DnCheck) -> str:
    """The rule that decided the check, for its details."""
    if result.level is SuccessLevel.CRITICAL_FAILURE:
        return f"a natural 20 at DN {result.dn} (20 or less) is a critical failure (DN-4)"
    if result.level is SuccessLevel.FAILURE:
        if result.dn <= 0:
            return f"a DN of {result.dn} cannot succeed (DN-4)"
        return f"{result.natural_roll} is over DN {result.dn} (DN-4)"
    return (
        f"{result.natural_roll} ≤ DN {result.dn} succeeds (DN-4); its level from the fractions of DN (DN-5)"
    )


def dn_details(
    result: DnCheck,
    *,
    title: str,
    roller: str,
    dn_text: str,
    rules: Sequence[str],
    applied: Sequence[AppliedModifier],
    sheet_name: str | None = None,
) -> discord.Embed:
    """A DN check: how the DN was made, the d20, the level, the margin and the level table for the DN."""
    level = result.level.value
    outcome = "success" if result.succeeded else "failure"
    limits = result.thresholds
    fields = [
        ("DN", dn_text),
        ("Roll", f"d20: **{result.natural_roll}**"),
        ("Decided by", decided_text(result)),
        ("Level", f"**{level}**" + ("" if level.endswith("failure") else " success")),
        ("Margin", f"DN - roll = {result.dn} - {result.natural_roll} = **{result.margin:+d}**"),
        (f"Levels at DN {result.dn} (DN-5)", describe_levels(result.dn)),
        (
            "Thresholds",
            f"Critical ≤ {limits.critical}, Special ≤ {limits.special}, High ≤ {limits.high}, "
            f"Medium ≤ {limits.medium}, Average ≤ {limits.average}",
        ),
    ]
    mods = modifier_field(applied)
    if mods:
        fields.append(mods)
    sheet = f" · sheet {shown_name(sheet_name)}" if sheet_name else ""
    return result_embed(
        f"{shown_name(title)}: {level}" + ("" if level.endswith("failure") else f" {outcome}"),
        verdict=result.verdict,
        description=f"Difficulty Number check by {roller}{sheet}",
        fields=fields,
        inline=False,
        footer=rule_footer(*rules, "DN-3", "DN-4", "DN-5"),
    )


def parse_complexity(value: str) -> Complexity:
    """A complexity choice's value as DN-2's factor."""
    return Complexity.parse(value)
