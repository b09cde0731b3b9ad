"""Embeds for decision dice (/decision) and supply dice (/supply): every input, die and total shown.

Renders results of `bot.core.decision`; the cogs build the inputs (``StatSource``, ``Clamp``, party
labels) and pass the GM modifiers that applied so each embed says who set them (GM-3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.core.common import Verdict
from bot.core.decision import ContestResult, DecisionRoll, PercentRoll, SupplyRoll
from bot.store import AppliedModifier, SupplyDie
from bot.ui.embeds import (
    compact_embed,
    field_chunks,
    info_embed,
    result_embed,
    rule_footer,
    shown_name,
    spread,
)
from bot.ui.rolls import gm_line, modifier_field

MAX_ROUND_LINES = 40  # a tie streak longer than this is summarised (the embed has a size limit)


@dataclass(frozen=True)
class StatSource:
    """Where the stat came from: a sheet entry (character and stat name) or a raw number."""

    value: int
    stat_name: str | None = None
    character: str | None = None

    def describe(self) -> str:
        """``+3 (Wits, Mira's sheet)`` or ``+3`` for a raw stat."""
        if self.stat_name is None:
            return f"{self.value:+d}"
        owner = f", {self.character}'s sheet" if self.character else ""
        return f"{self.value:+d} ({self.stat_name}{owner})"


@dataclass(frozen=True)
class Clamp:
    """A bonus or penalty as entered and as it counts (DD-3)."""

    kind: str  # "bonus" or "penalty"
    entered: int
    counts: int

    def describe(self) -> str:
        """``bonus +2`` or ``bonus -3 counts 0 (DD-3: a negative bonus counts 0)``."""
        if self.entered == self.counts:
            return f"{self.kind} {self.counts:+d}"
        why = "a negative bonus counts 0" if self.kind == "bonus" else "a positive penalty counts 0"
        return f"{self.kind} {self.entered:+d} counts {self.counts:+d} (DD-3: {why})"


def dice_text(dice: Sequence[int]) -> str:
    """``4 + 2 + 6 = 12`` (every die shown)."""
    faces = " + ".join(str(d) for d in dice)
    return f"{faces} = {sum(dice)}" if len(dice) > 1 else faces


def target_text(target: int, name: str | None) -> str:
    """``12 (Challenging)`` or ``14``."""
    return f"{target} ({name})" if name else str(target)


def _edge_text(
    player_advantage: bool, player_disadvantage: bool, applied: Sequence[AppliedModifier]
) -> str | None:
    """Which advantage/disadvantage sources applied (player, GM) and how they combined (DD-2)."""
    sources: list[str] = []
    if player_advantage:
        sources.append("advantage (you)")
    if player_disadvantage:
        sources.append("disadvantage (you)")
    for mod in applied:
        if mod.kind in ("advantage", "disadvantage"):
            sources.append(f"{mod.kind} (GM <@{mod.set_by}>)")
    if not sources:
        return None
    return ", ".join(sources)


# -- compact results: who rolled what and the outcome, then at most three short lines ---------------------


def _dice_label(result: DecisionRoll, edge: str | None) -> str:
    """``2d6``, ``3d6 (advantage)``, ``2d6 (advantage and disadvantage cancel)``."""
    label = f"{result.mode.count}d6"
    if result.mode.label != "normal":
        return f"{label} ({result.mode.label})"
    return f"{label} (advantage and disadvantage cancel)" if edge is not None else label


def decision_roll_compact(
    result: DecisionRoll,
    *,
    who: str,
    stat: StatSource,
    applied: Sequence[AppliedModifier],
    player_advantage: bool,
    player_disadvantage: bool,
) -> discord.Embed:
    """``Mira - Wits: 14 vs 12, success``; the dice, stat and modifiers summed, what was needed."""
    what = shown_name(stat.stat_name) if stat.stat_name else "decision roll"
    edge = _edge_text(player_advantage, player_disadvantage, applied)
    faces = " + ".join(str(d) for d in result.dice)
    sums = f"{result.dice_total} + stat {result.stat:+d}"
    if result.modifier_total:
        sums += f" + modifiers {result.modifier_total:+d}"
    return compact_embed(
        f"{who} - {what}: {result.total} vs {result.target}, {result.name}",
        [
            f"{_dice_label(result, edge)} **{faces}**: {sums} = **{result.total}**",
            f"Needed {target_text(result.target, result.target_name)} or more; margin {result.margin:+d}",
            gm_line(applied),
        ],
        verdict=result.verdict,
    )


def contest_compact(
    result: ContestResult, labels: Sequence[PartyLabel], *, note: str | None = None
) -> discord.Embed:
    """``Contest: Mira wins, 15 vs 12``; the deciding round's totals and how many rounds it took, then the
    GM modifiers and ``note`` (who rolled without the stat)."""
    final = result.rounds[-1]
    modes = {party.name: party.mode.label for party in result.parties}
    edge = {name: f" ({label})" if label != "normal" else "" for name, label in modes.items()}
    totals = " · ".join(
        # the dice in brackets, so a third die (advantage) never reads as the stat that follows
        f"{e.name}{edge.get(e.name, '')} ({' + '.join(map(str, e.dice))}) {e.modifier:+d} = **{e.total}**"
        for e in final.entries
    )
    rounds = len(result.rounds)
    again = f" after {rounds} rounds (ties rolled again)" if rounds > 1 else ""
    modifiers = [gm_line(label.applied, label.name) for label in labels if label.applied]
    return compact_embed(
        f"Contest: {result.winner} wins, {result.winner_total} vs {result.runner_up_total}",
        [
            totals,
            f"{result.winner} wins by {result.margin} over {result.runner_up}{again}",
            "; ".join(m for m in [*modifiers, note] if m) or None,
        ],
        verdict=Verdict.SUCCESS,
    )


def percent_compact(result: PercentRoll, *, who: str) -> discord.Embed:
    """``Mira - d100 against 40%: success``."""
    return compact_embed(
        f"{who} - d100 against {result.chance}%: {result.name}",
        [f"d100 **{result.roll}**, needed {result.chance} or less"],
        verdict=result.verdict,
    )


def supply_compact(result: SupplyRoll, *, character: str, item: str) -> discord.Embed:
    """``Mira - rations: d8 steps down to d6``; the face, and when the item ran out."""
    if not result.stepped_down:
        outcome = f"{result.die.label} holds"
        why = f"{result.die.label} **{result.value}**: above 3, the die stays"
    elif result.new_die.label == "empty":
        outcome = f"{result.die.label} runs out"
        why = f"{result.die.label} **{result.value}**: 3 or lower, and it was the last size"
    else:
        outcome = f"{result.die.label} steps down to {result.new_die.label}"
        why = f"{result.die.label} **{result.value}**: 3 or lower steps the die down"
    who, what = shown_name(character), shown_name(item)
    empty = f"{who} has run out of {what}." if result.new_die.label == "empty" else None
    return compact_embed(
        f"{who} - {what}: {outcome}",
        [why, empty],
        verdict=Verdict.FAILURE if result.stepped_down else Verdict.SUCCESS,
    )


# -- details: every input, die and modifier, the rules and the odds -------------------------------------


def decision_roll_details(
    result: DecisionRoll,
    *,
    roller: str,
    stat: StatSource,
    modifier: int,
    clamps: Sequence[Clamp],
    applied: Sequence[AppliedModifier],
    player_advantage: bool,
    player_disadvantage: bool,
) -> discord.Embed:
    """DD-1..DD-4: dice, stat, every modifier, total against target, verdict and margin."""
    dice_label = f"{result.mode.count}d6"
    edge = _edge_text(player_advantage, player_disadvantage, applied)
    mode_line = {
        "advantage": "advantage: 3d6",
        "disadvantage": "disadvantage: 1d6",
        "normal": "2d6",
    }[result.mode.label]
    if edge is not None and result.mode.label == "normal":
        mode_line = "advantage and disadvantage cancel: 2d6"
    dice_value = f"{dice_label}: {dice_text(result.dice)}"
    if edge is not None:
        dice_value += f"\n{edge} → {mode_line}"
    modifier_lines = [f"modifier {modifier:+d}"] if modifier else []
    modifier_lines += [c.describe() for c in clamps]
    gm_numbers = [m for m in applied if m.kind == "modifier" and isinstance(m.value, int)]
    modifier_lines += [f"GM modifier {m.value:+d} (<@{m.set_by}>)" for m in gm_numbers]
    modifier_value = "\n".join(modifier_lines) if modifier_lines else "none"
    modifier_value += f"\ntotal {result.modifier_total:+d}"
    total_value = (
        f"{result.dice_total} + {result.stat} + {result.modifier_total} = **{result.total}** "
        f"vs {target_text(result.target, result.target_name)}"
    )
    fields = [
        ("Dice", dice_value),
        ("Stat", stat.describe()),
        ("Modifiers", modifier_value),
        ("Total", total_value),
        ("Margin", f"{result.margin:+d}"),
        ("Decided by", "a total at or above the target succeeds, a tie too (DD-1)"),
    ]
    gm = modifier_field(applied)
    if gm is not None:
        fields.append(gm)
    goal = target_text(result.target, result.target_name)
    rules = ["DD-1", "DD-2", "DD-4"]
    if clamps:
        rules.insert(2, "DD-3")
    if applied:
        rules.append("GM-3")
    return result_embed(
        f"Decision roll: {result.name}",
        verdict=result.verdict,
        description=f"{roller} rolls {dice_label} + stat against {goal}.",
        fields=fields,
        footer=rule_footer(*rules),
    )


@dataclass(frozen=True)
class PartyLabel:
    """How a contested party is shown: its name, where its modifier came from, any GM modifiers."""

    name: str
    breakdown: str  # e.g. "Wits +2, modifier +1"
    applied: tuple[AppliedModifier, ...] = ()


def contest_details(result: ContestResult, labels: Sequence[PartyLabel]) -> discord.Embed:
    """DD-5: every round (each party's dice and total), the winner and the margin."""
    by_name = {label.name: label for label in labels}
    lines: list[str] = []
    for party in result.parties:
        label = by_name.get(party.name)
        detail = label.breakdown if label else f"{party.modifier:+d}"
        lines.append(f"**{party.name}**: {party.mode.count}d6 ({party.mode.label}), {detail}")
    rounds: list[str] = []
    for number, contest_round in enumerate(result.rounds, start=1):
        entries = ", ".join(
            f"{e.name} ({' + '.join(map(str, e.dice))}) {e.modifier:+d} = **{e.total}**"
            for e in contest_round.entries
        )
        tail = (
            "" if len(contest_round.highest) == 1 else f" → tie ({', '.join(contest_round.highest)}): re-roll"
        )
        rounds.append(f"Round {number}: {entries}{tail}")
    if len(rounds) > MAX_ROUND_LINES:
        hidden = len(rounds) - MAX_ROUND_LINES
        half = MAX_ROUND_LINES // 2
        rounds = [*rounds[:half], f"... {hidden} more rounds ...", *rounds[-half:]]
    fields = [
        ("Parties", "\n".join(lines)),
        (
            "Winner",
            f"**{result.winner}** with {result.winner_total} against {result.runner_up}'s "
            f"{result.runner_up_total} (margin {result.margin:+d})",
        ),
        ("Decided by", "the highest total wins; parties tied for it roll again (DD-5)"),
    ]
    applied = [m for label in labels for m in label.applied]
    for label in labels:
        gm = modifier_field(label.applied)
        if gm is not None:
            fields.append((f"{gm[0]} ({label.name})", gm[1]))
    rules = ["DD-2", "DD-5"] + (["GM-3"] if applied else [])
    embed = result_embed(
        f"Contest: {result.winner} wins",
        verdict=Verdict.SUCCESS,
        description="\n".join(rounds),
        fields=fields,
        inline=False,
        footer=rule_footer(*rules),
    )
    return embed


def percent_details(result: PercentRoll, *, roller: str) -> discord.Embed:
    """DD-8: d100 against the chance."""
    relation = "<=" if result.success else ">"
    return result_embed(
        f"Percentage roll: {result.name}",
        verdict=result.verdict,
        description=f"{roller} rolls d100 against {result.chance}%.",
        fields=[
            ("d100", str(result.roll)),
            ("Chance", f"{result.chance}%"),
            ("Result", f"{result.roll} {relation} {result.chance}: {result.name}"),
            ("Decided by", "a d100 at or under the chance succeeds (DD-8)"),
        ],
        footer=rule_footer("DD-8"),
    )


def supply_empty_sentence(character: str, item: str) -> str:
    """An empty item cannot be rolled (DD-7), said clearly: the refusal of /supply roll and /odds supply."""
    return (
        f"{shown_name(character)}'s {shown_name(item)} is empty: it cannot be rolled until a GM restores it "
        "with /supply set."
    )


def supply_roll_details(result: SupplyRoll, *, character: str, item: str) -> discord.Embed:
    """DD-7: the die rolled, its face, and the die the item has now."""
    character, item = shown_name(character), shown_name(item)
    if result.stepped_down:
        outcome = f"{result.value} is 3 or lower: {result.die.label} → **{result.new_die.label}**"
        if result.new_die.label == "empty":
            outcome += f"\n{character} has run out of {item}."
    else:
        outcome = f"{result.value} is above 3: stays **{result.die.label}**"
    return result_embed(
        f"Supply: {item} {result.name}",
        verdict=Verdict.FAILURE if result.stepped_down else Verdict.SUCCESS,
        description=f"{character} rolls the supply die of {item}.",
        fields=[
            (result.die.label, str(result.value)),
            ("Supply", outcome),
            ("Decided by", "a roll of 3 or lower steps the die down one size (DD-7)"),
        ],
        footer=rule_footer("DD-7"),
    )


def supply_list_embeds(who: str, supplies: Sequence[SupplyDie]) -> list[discord.Embed]:
    """A member's supply dice by character, then item: a long list goes on in "(continued)" fields, cut
    between items, and past one message's 6,000 characters in more embeds, one message each."""
    if not supplies:
        return [info_embed(f"Supplies of {who}", "No supply dice yet; a GM sets them with /supply set.")]
    by_character: dict[str, list[str]] = {}
    for supply in supplies:
        line = f"{shown_name(supply.item)}: **{supply.label}**"
        by_character.setdefault(shown_name(supply.character), []).append(line)
    first = info_embed(
        f"Supplies of {who}", "d12 → d10 → d8 → d6 → d4 → empty: a roll of 3 or lower steps the die down."
    )
    fields = [chunk for character, items in by_character.items() for chunk in field_chunks(character, items)]
    return spread(first, fields, inline=False)


def supply_set_embed(
    supply: SupplyDie, previous: str | None, set_by: str, *, public: bool = False
) -> discord.Embed:
    """The GM's change to a supply die (DD-7); ``public``: the table's notice, without the size before (a
    hidden supply roll's result would show in it)."""
    if public:
        change = f"**{supply.label}**"
    else:
        change = f"{previous} → **{supply.label}**" if previous else f"new: **{supply.label}**"
    item = shown_name(supply.item)
    return info_embed(
        f"Supply set: {item}", f"{shown_name(supply.character)}'s {item}: {change} (set by {set_by})."
    )
