"""RPS embeds: how a Base was built, the dice, the Success Level, resisted rounds and sustained pools.

Everything a result shows lets the table recompute it: the Base's parts, both d10s, Base - roll, what
doubles did (RPS-4, RPS-5), and the success word (RPS-3).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import discord
from discord import app_commands

from bot.core import rps
from bot.core.common import Verdict
from bot.core.dice import Dice
from bot.core.errors import require_range
from bot.core.rps import DIFFICULTIES, Difficulty, Outcome, ResistedResult, RpsCheck
from bot.store import MODIFIER_KINDS, AppliedModifier, Pool, RollRecord, Store
from bot.ui.embeds import (
    NEUTRAL,
    VERDICT_COLOURS,
    WARNING,
    compact_embed,
    result_embed,
    rule_footer,
    shown_name,
)
from bot.ui.permissions import is_gm
from bot.ui.rolls import gm_line, modifier_field

#: RPS-1: the seed's 18 named difficulties as choices ("+2 Moderately hard"), valued by their modifier.
DIFFICULTY_CHOICES: list[app_commands.Choice[int]] = [
    app_commands.Choice(name=str(row), value=row.modifier) for row in DIFFICULTIES
]
BAR_CELLS = 10


@dataclass(frozen=True)
class BasePart:
    """One addend of a Base: a rating (``Agility 7``) or a modifier (``Moderately hard (+2)``)."""

    label: str
    value: int
    modifier: bool = False
    shown: str | None = None  # replaces the default text, e.g. "2 x Strength 7" for an attribute check

    def text(self) -> str:
        if self.shown is not None:
            return self.shown
        return f"{self.label} ({self.value:+d})" if self.modifier else f"{self.label} {self.value}"


@dataclass(frozen=True)
class BaseBuild:
    """A Base and how it was built, for the embed (the arithmetic itself is the core's)."""

    what: str
    base: int
    parts: tuple[BasePart, ...]

    def text(self) -> str:
        """``19 = Stealth 8 + Agility 7 + Moderately hard (+2)``."""
        if len(self.parts) == 1 and not self.parts[0].modifier and self.parts[0].value == self.base:
            return f"{self.base} ({self.parts[0].shown or self.parts[0].label})"
        return f"{self.base} = " + " + ".join(part.text() for part in self.parts)


@dataclass(frozen=True)
class BaseSpec:
    """What is checked, its rating parts, and the core's Base for a list of modifiers."""

    what: str
    parts: tuple[BasePart, ...]
    compute: Callable[[list[int]], int]

    def build(self, modifiers: Sequence[BasePart] = ()) -> BaseBuild:
        """The Base with ``modifiers`` added, as the core computes it (RPS-1)."""
        base = self.compute([m.value for m in modifiers])
        return BaseBuild(self.what, base, self.parts + tuple(modifiers))


def raw_spec(base: int, what: str = "Base") -> BaseSpec:
    """A Base given as a number (a GM's NPC, or a Base worked out at the table)."""

    def compute(mods: list[int]) -> int:
        return require_range(base + rps.total_modifiers(mods), rps.BASE_MIN, rps.BASE_MAX, "An RPS Base")

    return BaseSpec(what, (BasePart("given Base", base),), compute)


def stored_spec(base: int, what: str, parts: Iterable[Mapping[str, Any]]) -> BaseSpec:
    """A Base kept with the parts it was built from (a sustained action's, a failed check's), to add new
    modifiers to; parts that do not add up to it (kept by an older version) give way to the number."""
    try:
        terms = tuple(BasePart(**dict(part)) for part in parts)
    except TypeError:
        terms = ()
    if not terms or sum(term.value for term in terms) != base:
        return raw_spec(base, what)

    def compute(mods: list[int]) -> int:
        return require_range(base + rps.total_modifiers(mods), rps.BASE_MIN, rps.BASE_MAX, "An RPS Base")

    return BaseSpec(what, terms, compute)


_PART_FIELDS = tuple(f.name for f in fields(BasePart))


def part_records(parts: Iterable[BasePart]) -> list[dict[str, Any]]:
    """Base parts as plain data, to keep with a roll or a sustained action (`stored_spec` reads them).
    Field by field: `dataclasses.asdict` deep-copies every value, and every RPS roll runs this."""
    return [{f: getattr(part, f) for f in _PART_FIELDS} for part in parts]


def roll_check(rng: Any, base: int) -> rps.RpsCheck:
    """Roll 2d10 with the bot's dice and resolve the check (RPS-2..RPS-5)."""
    dice = Dice(rng)
    return rps.check(base, dice.d10(), dice.d10())


def difficulty_part(row: Difficulty) -> BasePart:
    """A named difficulty as a Base part."""
    return BasePart(row.name, row.modifier, modifier=True)


#: RPS-6: a GM's grant of an assumed success (`/gm modifier`). Only a check that forgoes the roll at a
#: Base of 15 or below takes it; every other RPS roll leaves it waiting (`take_modifiers(waiting=)`).
ASSUMED_SUCCESS = "assumed_success"
FORGONE_ONLY = frozenset({ASSUMED_SUCCESS})
NOT_FORGONE = frozenset(MODIFIER_KINDS["rps"]) - FORGONE_ONLY
GRANT_TAKEN = (
    "The GM's assumed success was just used by another of your checks: roll the dice, or ask for another."
)


def gm_parts(applied: Sequence[AppliedModifier]) -> tuple[BasePart, ...]:
    """GM-3: each pending difficulty modifier that applied, as a Base part."""
    return tuple(
        BasePart("GM difficulty", m.value, modifier=True)
        for m in applied
        if m.kind == "difficulty" and isinstance(m.value, int)
    )


def dice_text(check: RpsCheck) -> str:
    """``3 + 5 = 8``, or why there were no dice (RPS-6)."""
    if check.dice is None:
        by = "granted by the GM" if check.granted_by_gm else "Base above 15"
        return f"no roll: the roll was forgone ({by})"
    return f"{check.dice[0]} + {check.dice[1]} = {check.roll}"


def sl_text(check: RpsCheck) -> str:
    """``19 - 8 = 11``; with doubles, the raw SL and what the doubles made of it."""
    if check.dice is None:
        return "1 (assumed success)"
    raw = f"{check.base} - {check.roll} = {check.raw_sl}"
    if check.doubles is None:
        return raw
    return f"{raw}; {check.doubles.value} makes it **{check.sl}**"


def colour(check: RpsCheck) -> discord.Colour:
    """Colour by verdict; a near miss (SL 0) in the warning colour."""
    if check.outcome is Outcome.NEAR_MISS and check.verdict is Verdict.FAILURE:
        return WARNING
    return VERDICT_COLOURS[check.verdict]


# -- the compact result: who rolled what, the SL in the seed's words, at most three lines ------------------


def sl_words(check: RpsCheck) -> str:
    """``SL 4, acceptable success``, ``SL 0, near miss``, ``SL 15, critical success, impressive``."""
    if check.assumed:
        head = "assumed success"
    elif check.doubles is not None:
        head = check.doubles.value if check.doubles is not rps.Doubles.CRITICAL_SUCCESS else check.name
    elif check.word:
        head = f"{check.word} success"
    else:
        head = check.outcome.value
    return f"SL {check.sl}, {head}"


def roll_line(check: RpsCheck) -> str:
    """The dice and the Base they are taken from, and what doubles made of the SL."""
    if check.dice is None:
        why = "granted by the GM" if check.granted_by_gm else f"Base {check.base} is above 15"
        return f"No roll: the success is assumed ({why})"
    text = f"2d10 **{check.dice[0]} + {check.dice[1]}** = {check.roll}; Base {check.base} - {check.roll}"
    if check.doubles is None:
        return f"{text} = SL {check.sl}"
    if check.doubles is rps.Doubles.CRITICAL_FAILURE:
        return f"{text} = SL {check.sl}: double 10s, a fumble"
    pair = "double 1s" if check.dice == (1, 1) else "double 10s"
    return f"{text} = {check.raw_sl}; {pair} make it SL {check.sl}"


def _near_miss(check: RpsCheck, grantable: bool = True) -> str | None:
    if check.outcome is Outcome.NEAR_MISS and check.doubles is None:
        return "SL 0: just short; the GM may grant a second try" if grantable else "SL 0: just short"
    return None


def what_text(build: BaseBuild) -> str:
    """What was checked, named for a title: ``Stealth (Agility)``, or ``Base 12`` for a raw Base."""
    return shown_name(build.what) if build.what != "Base" else f"Base {build.base}"


def check_compact(
    build: BaseBuild,
    check: RpsCheck,
    applied: Sequence[AppliedModifier] = (),
    *,
    who: str,
    second_try: bool = False,
    grantable: bool = True,
    forgo_refused: bool = False,
) -> discord.Embed:
    """``Ayla - Stealth (Agility): SL 4, acceptable success``; the dice from the Base, a near miss glossed
    (``grantable``: with the GM's second try, which a DM, with no GM, has not); ``forgo_refused``: the GM's
    difficulty kept the roll the player asked to forgo, said with the GM modifier."""
    what = what_text(build) + (", second try" if second_try else "")
    modifiers = gm_line(applied)
    if forgo_refused and modifiers:
        modifiers += f"; no forgo at Base {build.base}, so the dice were rolled"
    embed = compact_embed(
        f"{who} - {what}: {sl_words(check)}",
        [roll_line(check), _near_miss(check, grantable), modifiers],
    )
    embed.colour = colour(check)
    return embed


def resisted_compact(
    result: ResistedResult, applied: Sequence[tuple[str, Sequence[AppliedModifier]]] = ()
) -> discord.Embed:
    """``Resisted: Franky wins, SL 3``; the deciding round's SLs and the subtraction."""
    final = " · ".join(
        f"{shown_name(name)} {chk.dice[0]} + {chk.dice[1]} → SL {chk.sl}"
        if chk.dice
        else f"{shown_name(name)} SL {chk.sl}"
        for name, chk in result.final_round.checks
    )
    rounds = len(result.rounds)
    again = f" (after {rounds} rounds: ties rolled again)" if rounds > 1 else ""
    modifiers = [gm_line(mods, shown_name(name)) for name, mods in applied if mods]
    return compact_embed(
        f"Resisted: {shown_name(result.winner)} wins, SL {result.sl}",
        [
            final,
            f"{shown_name(result.winner)} SL {result.winner_sl} - {shown_name(result.runner_up)} "
            f"SL {result.runner_up_sl} = SL {result.sl}{again}",
            "; ".join(m for m in modifiers if m) or None,
        ],
        verdict=Verdict.SUCCESS if result.sl >= 1 else Verdict.FAILURE,
    )


def pool_compact(
    pool: Pool,
    check: RpsCheck,
    change: int,
    applied: Sequence[AppliedModifier] = (),
    *,
    who: str,
    veiled: bool = False,
) -> discord.Embed:
    """``Ayla - Climb the cliff: SL 4, acceptable success``; the dice, then what the check did to the pool."""
    if veiled:
        progress = f"Pool {change:+d}; its total stays hidden while an earlier check is not revealed"
    elif pool.state == "completed":
        progress = f"Pool {change:+d} → {pool.pool}/{pool.goal}: the action is completed"
    elif pool.state == "failed":
        progress = f"Pool {change:+d} → {pool.pool}/{pool.goal}: the action failed"
    else:
        progress = f"Pool {change:+d} → {pool.pool}/{pool.goal}"
    embed = compact_embed(
        f"{who} - {shown_name(pool.name)}: {sl_words(check)}",
        [roll_line(check), progress, gm_line(applied)],
    )
    embed.colour = colour(check)
    return embed


# -- the details: every part of the Base, the dice, what doubles did and the rules -------------------------


def decided_text(check: RpsCheck) -> str:
    """The rule that gave the Success Level."""
    if check.dice is None:
        return "a forgone roll is an assumed success, SL 1 (RPS-6)"
    if check.doubles is rps.Doubles.AUTOMATIC_SUCCESS:
        return "double 1s at a Base of 2 or less are an automatic success, SL 1 (RPS-4)"
    if check.doubles is rps.Doubles.CRITICAL_SUCCESS:
        return "double 1s at a Base above 2 are a critical success: SL + 5 (RPS-4)"
    if check.doubles is rps.Doubles.AUTOMATIC_FAILURE:
        return "double 10s where Base - 20 is 1 or more are an automatic failure, SL 0 (RPS-5)"
    if check.doubles is rps.Doubles.CRITICAL_FAILURE:
        return "double 10s where Base - 20 is below 1 are a fumble, SL Base - 20 (RPS-5)"
    return "SL = Base - 2d10 (RPS-2); 1 or more succeeds, 0 is a near miss, below 0 fails (RPS-3)"


def check_fields(build: BaseBuild, check: RpsCheck) -> list[tuple[str, str]]:
    """Base, dice, SL, doubles, the deciding rule and result as embed fields."""
    fields = [("Base", build.text()), ("Dice (2d10)", dice_text(check)), ("Success Level", sl_text(check))]
    if check.doubles is not None:
        fields.append(("Doubles", check.doubles.value))
    fields.append(("Decided by", decided_text(check)))
    fields.append(("Result", _result_line(check)))
    return fields


def _result_line(check: RpsCheck) -> str:
    if check.outcome is Outcome.NEAR_MISS:
        return f"near miss (SL {check.sl}): the GM may grant a second try"
    return f"{check.name} (SL {check.sl})"


def _rules(check: RpsCheck, *extra: str) -> str:
    ids = ["RPS-1"]
    if check.dice is None:
        ids.append("RPS-6")
    else:
        ids += ["RPS-2", "RPS-3"]
        if check.dice == (1, 1):
            ids.append("RPS-4")
        if check.dice == (10, 10):
            ids.append("RPS-5")
    ids += [i for i in extra if i not in ids]
    return rule_footer(*ids)


def check_details(
    build: BaseBuild,
    check: RpsCheck,
    applied: Sequence[AppliedModifier] = (),
    *,
    title: str | None = None,
    extra_fields: Iterable[tuple[str, str]] = (),
    rules: Sequence[str] = (),
    author: str | None = None,
) -> discord.Embed:
    """The result of one RPS check (RPS-1..RPS-6), with any GM modifier that applied (GM-3)."""
    fields = check_fields(build, check) + list(extra_fields)
    gm = modifier_field(applied)
    if gm is not None:
        fields.append(gm)
    embed = result_embed(
        title or f"RPS {build.what}: {check.name}",
        verdict=check.verdict,
        fields=fields,
        footer=_rules(check, *rules, *(["GM-3"] if applied else [])),
        author=author,
    )
    embed.colour = colour(check)
    return embed


def check_summary(build: BaseBuild, check: RpsCheck) -> str:
    """One line for the roll log: what, Base, dice and SL."""
    dice = "forgone" if check.dice is None else f"{check.dice[0]}+{check.dice[1]}"
    return f"RPS {build.what}: Base {check.base}, dice {dice}, SL {check.sl} ({check.name})"


# --------------------------------------------------------------------------------------------------
# RPS-7: resisted actions


def resisted_details(
    result: ResistedResult,
    builds: dict[str, BaseBuild],
    applied: Sequence[AppliedModifier] = (),
) -> discord.Embed:
    """Every round of a resisted action, the winner, the runner-up and the new SL (RPS-7)."""
    fields: list[tuple[str, str]] = [
        ("Parties", "\n".join(f"**{name}**: Base {builds[name].text()}" for name in builds))
    ]
    for number, rnd in enumerate(result.rounds, start=1):
        lines = []
        for name, chk in rnd.checks:
            extra = f", {chk.doubles.value}" if chk.doubles is not None else ""
            lines.append(f"**{name}**: {dice_text(chk)} → SL {chk.sl}{extra}")
        if rnd.decided:
            lines.append(f"Highest: {rnd.highest[0]}")
        else:
            lines.append(f"Tied for highest: {', '.join(rnd.highest)}; they roll again")
        label = f"Round {number}" if len(result.rounds) > 1 else "The checks"
        fields.append((label, "\n".join(lines)))
    fields.append(
        (
            "New SL",
            f"{result.winner} SL {result.winner_sl} - {result.runner_up} SL {result.runner_up_sl} "
            f"= **{result.sl}**",
        )
    )
    gm = modifier_field(applied)
    if gm is not None:
        fields.append(gm)
    verdict = Verdict.SUCCESS if result.sl >= 1 else Verdict.FAILURE
    ids = ["RPS-1", "RPS-2", "RPS-7"] + (["GM-3"] if applied else [])
    return result_embed(
        f"RPS resisted action: {result.winner} wins (SL {result.sl})",
        verdict=verdict,
        fields=fields,
        inline=False,
        footer=rule_footer(*ids),
    )


def resisted_summary(result: ResistedResult) -> str:
    """One line for the roll log."""
    return (
        f"RPS resisted: {result.winner} wins over {result.runner_up}, new SL {result.sl} "
        f"after {len(result.rounds)} round(s)"
    )


# --------------------------------------------------------------------------------------------------
# RPS-8: sustained actions


def progress_bar(pool: int, goal: int, cells: int = BAR_CELLS) -> str:
    """``▰▰▰▱▱▱▱▱▱▱ 3/10``: the share of the Goal reached (a negative pool shows an empty bar)."""
    filled = max(0, min(cells, (max(pool, 0) * cells) // goal)) if goal > 0 else 0
    return "▰" * filled + "▱" * (cells - filled) + f" {pool}/{goal}"


STATE_WORDS = {
    "running": "in progress",
    "completed": "completed",
    "failed": "failed",
    "stopped": "stopped by the GM",
}


def time_text(amount: int, unit: str) -> str:
    """``90 minutes``; past two hours of minutes, with the hours or days it comes to."""
    text = f"{amount:,} {unit}"
    if unit.strip().casefold() == "minutes" and amount >= 120:
        hours = amount / 60
        text += f" (about {hours:,.0f} hours)" if hours < 48 else f" (about {hours / 24:,.0f} days)"
    return text


def pool_colour(pool: Pool) -> discord.Colour:
    """Neutral while running; success or critical failure colours when it ended."""
    if pool.state == "completed":
        return VERDICT_COLOURS[Verdict.SUCCESS]
    if pool.state == "failed":
        return VERDICT_COLOURS[Verdict.CRITICAL_FAILURE]
    return NEUTRAL


def pool_embed(pool: Pool, *, hidden: bool = False) -> discord.Embed:
    """The pool's message: progress bar, checks, time spent, last check, state (RPS-8).

    ``hidden`` leaves out the pool, the bar and the last check (a hidden-mode check was the last one, or
    the reader is not the owner or a GM); the state says only running or finished.
    """
    state = STATE_WORDS[pool.state]
    if hidden and pool.state in ("completed", "failed"):
        state = "finished"
    base = f"{pool.base}" + (f" ({pool.skill})" if pool.skill else "")
    fields: list[tuple[str, str]] = [("For", f"<@{pool.owner_id}>"), ("Base", base)]
    if hidden:  # the bar (which shows the Goal) is left out
        fields.append(("Goal", str(pool.goal)))
    else:
        fields.insert(0, ("Progress", progress_bar(pool.pool, pool.goal)))
    fields += [
        ("Checks made", str(pool.checks_made)),
        (
            "Time spent",
            f"{time_text(pool.time_spent, pool.time_unit)} ({pool.time_per_check:,} per check)",
        ),
        ("On a failed check", "no loss" if pool.no_loss else "the pool loses 1"),
    ]
    if pool.checks and not hidden:
        last = pool.checks[-1]
        dice = "+".join(map(str, last.dice)) if last.dice else "none"
        word = "fumble" if last.fumble else f"SL {last.sl}"
        fields.append(("Last check", f"dice {dice}, {word}, pool {last.delta:+d}"))
    ending = ""
    if pool.state == "failed" and not hidden:
        ending = f" The pool fell below -{pool.goal} or a check fumbled."
    elif pool.state == "completed" and not hidden:
        ending = f" The pool reached the Goal of {pool.goal}."
    embed = result_embed(
        f"Sustained action: {shown_name(pool.name)} ({state})",
        description=f"Pool {'hidden' if hidden else pool.pool} of Goal {pool.goal}.{ending}",
        fields=fields,
    )
    embed.colour = pool_colour(pool) if not hidden or pool.running else NEUTRAL
    return embed


def pool_progress_fields(pool: Pool, change: int, *, veiled: bool = False) -> list[tuple[str, str]]:
    """Fields a pool check adds to its check embed: what it did to the pool and where the pool stands.

    ``veiled``: an earlier check of the pool is hidden and unrevealed, so the pool's total (which would
    give that check's result away) is left out, and an ended pool is only "finished".
    """
    if veiled:
        state = "finished" if pool.state in ("completed", "failed") else STATE_WORDS[pool.state]
        return [
            ("Pool", f"{change:+d} (the total stays hidden while an earlier check is not revealed)"),
            ("Sustained action", f"{shown_name(pool.name)}: {state}, {pool.checks_made} checks, "
             f"{pool.time_spent} {pool.time_unit}"),
        ]  # fmt: skip
    return [
        ("Pool", f"{change:+d} → {progress_bar(pool.pool, pool.goal)}"),
        ("Sustained action", f"{shown_name(pool.name)}: {STATE_WORDS[pool.state]}, "
         f"{pool.checks_made} checks, "
         f"{pool.time_spent} {pool.time_unit}"),
    ]  # fmt: skip


# -- what a hidden check of a pool leaves visible ---------------------------------------------------------
MAX_POOL_LOOKBACK = 500  # the store's most: how far back a pool's hidden checks are looked for


async def hidden_pool_checks(store: Store, pool: Pool) -> list[RollRecord]:
    """The pool's checks in the log that are private, gm or blind and not revealed yet."""
    records = await store.log.hidden(
        pool.guild_id, pool.channel_id, command="rps sustained roll", lookback=MAX_POOL_LOOKBACK
    )
    return [r for r in records if isinstance(r.inputs, dict) and r.inputs.get("pool_id") == pool.id]


async def pool_insider(
    interaction: discord.Interaction[Any], store: Store, pool: Pool, hidden: list[RollRecord] | None = None
) -> bool:
    """GMs see a pool whole; its owner too, unless a check they did not see (blind, or hidden by another
    roller) is still unrevealed: the pool would tell them that check's result. ``hidden``: the pool's
    hidden checks when the caller has them already."""
    if await is_gm(interaction, store):
        return True
    if interaction.user.id != pool.owner_id:
        return False
    if hidden is None:
        hidden = await hidden_pool_checks(store, pool)
    return all(r.visibility != "blind" and r.user_id == pool.owner_id for r in hidden)


async def ended_sentence(interaction: discord.Interaction[Any], store: Store, pool: Pool) -> str:
    """The refusal for an ended pool: its state, or only "finished" while a hidden check may have ended it."""
    state: str = pool.state
    if state in ("completed", "failed"):
        hidden = await hidden_pool_checks(store, pool)
        if hidden and not await pool_insider(interaction, store, pool, hidden):
            state = "finished"
    return f"The sustained action {pool.name!r} has already {state}"
