"""`/decision roll | contested | percent`: 2d6 decision dice (RULES.md DD-1..DD-5, DD-8).

- roll: a stat from the roller's active decision sheet (``stat_name``, autocompleted) or a raw ``stat``;
  a named ``target`` (DD-4 choices) or a raw ``target_number`` 2..30; ``modifier``; ``bonus`` and
  ``penalty`` clamped per DD-3; ``advantage``/``disadvantage`` (DD-2). The GM's pending decision modifiers
  (GM-3: modifier, advantage, disadvantage) are taken once and combine with the player's per DD-2.
- contested: up to six slots, each a member (their active sheet's ``stat``, if named) or a named NPC, with
  a per-slot modifier; ``advantage``/``disadvantage`` list slot numbers or names. Members' pending GM
  modifiers apply to their own side. Ties re-roll until one side wins (DD-5); every round is shown.
- percent: d100 against a chance 0..100 (DD-8); GM modifiers do not apply to it (they are 2d6 modifiers).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core import decision
from bot.core.dice import Dice
from bot.store import AppliedModifier, Sheet, Store
from bot.store.models import name_key
from bot.ui.decision import (
    Clamp,
    PartyLabel,
    contest_compact,
    contest_details,
    decision_roll_compact,
    decision_roll_details,
    percent_compact,
    percent_details,
)
from bot.ui.embeds import shown_name
from bot.ui.odds import add_odds, contested_cached, decision_line, percent_line, win_line
from bot.ui.reply import UserError
from bot.ui.roll_inputs import contest_sides, decision_stat, missing_stat_note
from bot.ui.rolls import (
    guild_key,
    has_modifier,
    modifier_total,
    publish,
    refuse_dodged_modifiers,
    take_modifiers,
)
from bot.ui.visibility import choose_visibility, reach_gms, resolve_mode

if TYPE_CHECKING:
    from bot.client import TabletopBot

SYSTEM = "decision"
Visibility = Literal["public", "private", "gm", "blind"]
TARGET_CHOICES = [
    app_commands.Choice(name=f"{name.strip(chr(34))} ({value})", value=value)
    for name, value in decision.TARGET_NUMBERS.items()
]
SLOTS = range(1, 7)


async def active_sheet(store: Store, guild_id: int, user_id: int) -> Sheet | None:
    """The member's active decision-dice sheet, or None."""
    return await store.sheets.active(guild_id, user_id, SYSTEM)


def stat_names(sheet: Sheet | None) -> list[tuple[str, int]]:
    """Every stat of a decision sheet (attributes, then skills) with its value."""
    if sheet is None:
        return []
    return [*sheet.attributes.items(), *((n, s.rating) for n, s in sheet.skills.items())]


def stat_choices(sheet: Sheet | None, current: str) -> list[app_commands.Choice[str]]:
    """Up to 25 stats of ``sheet`` containing ``current`` (any case), prefixes first."""
    key = name_key(current)
    matches = [(n, v) for n, v in stat_names(sheet) if key in name_key(n)]
    matches.sort(key=lambda nv: (not name_key(nv[0]).startswith(key), name_key(nv[0])))
    return [app_commands.Choice(name=f"{n} ({v:+d})"[:100], value=n[:100]) for n, v in matches[:25]]


def pick_target(target: int | None, target_number: int | None) -> int:
    """DD-4: the named target or the raw number (both must agree when both are given)."""
    if target is not None and target_number is not None and target != target_number:
        raise UserError("Give either a named target or a target_number, not two different targets.")
    chosen = target if target is not None else target_number
    if chosen is None:
        raise UserError("Choose a target: a named one (Simple 6 .. Impossible 20) or a target_number 2..30.")
    return decision.target_number(chosen)


def _edges(text: str | None, slots: dict[int, str], option: str) -> set[int]:
    """Slot numbers named in an advantage/disadvantage option: numbers or party names, comma separated."""
    if not text:
        return set()
    chosen: set[int] = set()
    by_name = {name_key(name): slot for slot, name in slots.items()}
    for token in (t.strip() for t in re.split(r"[,;]", text)):
        if not token:
            continue
        if token.isdecimal() and len(token) <= 3 and int(token) in slots:  # not isdigit: "²" is one
            chosen.add(int(token))
        elif name_key(token) in by_name:
            chosen.add(by_name[name_key(token)])
        else:
            raise UserError(
                f"{option} names {token!r}, which is not one of the parties (use 1..6 or a name)."
            )
    return chosen


def _edges_held(advantage: bool, disadvantage: bool) -> frozenset[str]:
    """The GM modifier kinds a roll already has by its own options: another of them would change nothing,
    so it keeps its use for a later roll (DD-2: neither stacks)."""
    return frozenset(k for k, held in (("advantage", advantage), ("disadvantage", disadvantage)) if held)


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class Decision(commands.GroupCog, group_name="decision", group_description="2d6 decision dice."):
    """Decision dice: rolls, contests and percentage rolls."""

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot

    @property
    def store(self) -> Store:
        store: Store = self.bot.store
        return store

    def dice(self) -> Dice:
        # read bot.rng on every roll: tests (and demos) may swap the dice source
        return Dice(self.bot.rng)

    async def character(self, guild_id: int, member: discord.abc.User) -> tuple[str, Sheet | None]:
        """The member's character: the active decision sheet's name, else their display name."""
        sheet = await active_sheet(self.store, guild_id, member.id)
        return (shown_name(sheet.name) if sheet is not None else shown_name(member.display_name)), sheet

    # ------------------------------------------------------------------------------------------------
    @app_commands.command(name="roll", description="Roll 2d6 + stat + modifiers against a target.")
    @app_commands.describe(
        stat_name="A stat from your active decision sheet",
        stat="A raw stat instead of a sheet stat (-20..20)",
        target="A named target number",
        target_number="A raw target number 2..30 instead of a named one",
        modifier="Any other modifier (-50..50)",
        bonus="A bonus; if it comes out negative it counts 0",
        penalty="A penalty (negative); if it comes out positive it counts 0",
        advantage="Roll 3d6",
        disadvantage="Roll 1d6; with advantage they cancel to 2d6",
        visibility="Who sees the result (default: the channel's default)",
    )
    @app_commands.choices(target=TARGET_CHOICES)
    async def roll(
        self,
        interaction: discord.Interaction[Any],
        stat_name: str | None = None,
        stat: app_commands.Range[int, -20, 20] | None = None,
        target: int | None = None,
        target_number: app_commands.Range[int, 2, 30] | None = None,
        modifier: app_commands.Range[int, -50, 50] = 0,
        bonus: app_commands.Range[int, -50, 50] | None = None,
        penalty: app_commands.Range[int, -50, 50] | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        visibility: Visibility | None = None,
    ) -> None:
        mode = await choose_visibility(interaction, self.store, visibility)
        goal = pick_target(target, target_number)
        character, source = await decision_stat(self.store, interaction, stat_name, stat)
        clamps: list[Clamp] = []
        if bonus is not None:
            clamps.append(Clamp("bonus", bonus, decision.bonus(bonus)))
        if penalty is not None:
            clamps.append(Clamp("penalty", penalty, decision.penalty(penalty)))
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, self.store, mode)
        # a GM's advantage on a roll the player already makes with advantage changes nothing: it waits (DD-2)
        applied = await take_modifiers(
            interaction, self.store, SYSTEM, waiting=_edges_held(advantage, disadvantage)
        )
        with_advantage = advantage or has_modifier(applied, "advantage")
        with_disadvantage = disadvantage or has_modifier(applied, "disadvantage")
        count = decision.decision_dice_count(with_advantage, with_disadvantage)
        dice = self.dice().roll_many(count, 6)
        gm_numbers = [m.value for m in applied if m.kind == "modifier" and isinstance(m.value, int)]
        modifiers = [modifier, *(c.counts for c in clamps), *gm_numbers]
        result = decision.roll(
            dice,
            source.value,
            modifiers,
            goal,
            advantage=with_advantage,
            disadvantage=with_disadvantage,
        )
        compact = decision_roll_compact(
            result,
            who=character,
            stat=source,
            applied=applied,
            player_advantage=advantage,
            player_disadvantage=disadvantage,
        )
        details = decision_roll_details(
            result,
            roller=character,
            stat=source,
            modifier=modifier,
            clamps=clamps,
            applied=applied,
            player_advantage=advantage,
            player_disadvantage=disadvantage,
        )
        add_odds(
            details,
            decision_line(
                result.stat,
                result.modifiers,
                result.target,
                advantage=with_advantage,
                disadvantage=with_disadvantage,
                actual_total=result.total,
            ),
        )
        await publish(
            interaction,
            self.store,
            compact,
            details=details,
            mode=mode,
            system=SYSTEM,
            command="decision roll",
            inputs={
                "character": character,
                "stat": source.value,
                "stat_name": source.stat_name,
                "target": goal,
                "modifiers": list(result.modifiers),
                "advantage": with_advantage,
                "disadvantage": with_disadvantage,
                "gm_modifiers": [m.model_dump() for m in applied],
            },
            dice=list(result.dice),
            result=f"{result.name}, {result.total} vs {result.target}, margin {result.margin:+d}",
            summary=f"{character}: decision roll {result.total} vs {result.target}: {result.name}",
            kind="decision roll",
        )

    @roll.autocomplete("stat_name")
    async def roll_stat_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await active_sheet(self.store, guild_key(interaction), interaction.user.id)
        return stat_choices(sheet, current)

    # ------------------------------------------------------------------------------------------------
    @app_commands.command(name="contested", description="2 to 6 parties roll; the highest total wins.")
    @app_commands.describe(
        stat="The stat every member party uses from their active decision sheet (none: stat 0)",
        advantage="Parties rolling 3d6: slot numbers or names, comma separated (e.g. 1,3)",
        disadvantage="Parties rolling 1d6: slot numbers or names, comma separated",
        visibility="Who sees the result (default: the channel's default)",
        **{f"party{i}": f"Party {i}: a member" for i in SLOTS},
        **{f"npc{i}": f"Party {i}: an NPC's name (instead of a member)" for i in SLOTS},
        **{f"mod{i}": f"Party {i}: modifier (-50..50)" for i in SLOTS},
    )
    async def contested(
        self,
        interaction: discord.Interaction[Any],
        party1: discord.Member | None = None,
        npc1: app_commands.Range[str, 1, 64] | None = None,
        mod1: app_commands.Range[int, -50, 50] = 0,
        party2: discord.Member | None = None,
        npc2: app_commands.Range[str, 1, 64] | None = None,
        mod2: app_commands.Range[int, -50, 50] = 0,
        party3: discord.Member | None = None,
        npc3: app_commands.Range[str, 1, 64] | None = None,
        mod3: app_commands.Range[int, -50, 50] = 0,
        party4: discord.Member | None = None,
        npc4: app_commands.Range[str, 1, 64] | None = None,
        mod4: app_commands.Range[int, -50, 50] = 0,
        party5: discord.Member | None = None,
        npc5: app_commands.Range[str, 1, 64] | None = None,
        mod5: app_commands.Range[int, -50, 50] = 0,
        party6: discord.Member | None = None,
        npc6: app_commands.Range[str, 1, 64] | None = None,
        mod6: app_commands.Range[int, -50, 50] = 0,
        stat: str | None = None,
        advantage: str | None = None,
        disadvantage: str | None = None,
        visibility: Visibility | None = None,
    ) -> None:
        mode = await choose_visibility(interaction, self.store, visibility)
        raw = {
            1: (party1, npc1, mod1),
            2: (party2, npc2, mod2),
            3: (party3, npc3, mod3),
            4: (party4, npc4, mod4),
            5: (party5, npc5, mod5),
            6: (party6, npc6, mod6),
        }
        sides = await contest_sides(self.store, interaction, raw, stat)
        names = {slot: side.name for slot, side in sides.items()}
        with_advantage = _edges(advantage, names, "advantage")
        with_disadvantage = _edges(disadvantage, names, "disadvantage")
        await refuse_dodged_modifiers(interaction, self.store, SYSTEM, [s.member_id for s in sides.values()])
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, self.store, mode)

        parties: list[decision.ContestParty] = []
        labels: list[PartyLabel] = []
        dice = self.dice()
        for slot, side in sides.items():
            applied: list[AppliedModifier] = []
            if side.member_id is not None:
                held = _edges_held(slot in with_advantage, slot in with_disadvantage)
                applied = await take_modifiers(
                    interaction, self.store, SYSTEM, user_id=side.member_id, waiting=held
                )
            adv = slot in with_advantage or has_modifier(applied, "advantage")
            dis = slot in with_disadvantage or has_modifier(applied, "disadvantage")
            gm = modifier_total(applied, "modifier")
            first = dice.roll_many(decision.decision_dice_count(adv, dis), 6)
            parties.append(
                decision.ContestParty(
                    side.name, first, side.stat + side.modifier + gm, advantage=adv, disadvantage=dis
                )
            )
            parts = [side.stat_text, f"modifier {side.modifier:+d}"]
            if gm:
                parts.append(f"GM modifier {gm:+d}")
            labels.append(PartyLabel(side.name, ", ".join(p for p in parts if p), tuple(applied)))

        def reroll(party: decision.ContestParty) -> tuple[int, ...]:
            return dice.roll_many(party.mode.count, 6)

        result = decision.contested(parties, reroll)
        details = contest_details(result, labels)
        note = missing_stat_note(sides, stat)  # they rolled all the same, with 0 for the stat
        if note is not None:
            details.add_field(name="Missing stat", value=note, inline=False)
        # up to ~0.2 s for six parties: in the worker processes
        odds = await self.bot.workers.run(
            contested_cached, tuple(p.modifier for p in parties), tuple(p.mode for p in parties)
        )
        add_odds(details, win_line([p.name for p in parties], odds, result.winner))
        await publish(
            interaction,
            self.store,
            contest_compact(result, labels, note=note),
            details=details,
            mode=mode,
            system=SYSTEM,
            command="decision contested",
            inputs={
                "parties": [
                    {"name": p.name, "modifier": p.modifier, "dice": p.mode.count} for p in result.parties
                ],
                "stat": stat,
            },
            dice=[[list(e.dice) for e in r.entries] for r in result.rounds],
            result=f"{result.winner} wins by {result.margin}",
            summary=f"Contest: {result.winner} wins ({result.winner_total} vs {result.runner_up_total})",
            kind="contested decision roll",
        )

    @contested.autocomplete("stat")
    async def contested_stat_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await active_sheet(self.store, guild_key(interaction), interaction.user.id)
        return stat_choices(sheet, current)

    @contested.autocomplete("advantage")
    @contested.autocomplete("disadvantage")
    async def contested_edge_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        namespace = interaction.namespace
        prefix, _, last = current.rpartition(",")
        lead = f"{prefix}," if prefix else ""
        choices: list[app_commands.Choice[str]] = []
        for slot in SLOTS:
            member = getattr(namespace, f"party{slot}", None)
            npc = getattr(namespace, f"npc{slot}", None)
            label = getattr(member, "display_name", None) or npc
            if not label:
                continue
            if last.strip() and last.strip() != str(slot) and name_key(last) not in name_key(str(label)):
                continue
            value = f"{lead}{slot}"
            if len(value) > 100:  # Discord refuses the whole answer for one longer value
                break
            choices.append(app_commands.Choice(name=f"{lead}{slot}: {label}"[:100], value=value))
        return choices[:25]

    # ------------------------------------------------------------------------------------------------
    @app_commands.command(name="percent", description="Roll d100 against a chance in percent.")
    @app_commands.describe(
        chance="The chance of success in percent (0..100)",
        visibility="Who sees the result (default: the channel's default)",
    )
    async def percent(
        self,
        interaction: discord.Interaction[Any],
        chance: app_commands.Range[int, 0, 100],
        visibility: Visibility | None = None,
    ) -> None:
        mode = await resolve_mode(interaction, self.store, visibility)
        character, _ = await self.character(guild_key(interaction), interaction.user)
        result = decision.percent(self.dice().d100(), chance)
        await publish(
            interaction,
            self.store,
            percent_compact(result, who=character),
            details=add_odds(percent_details(result, roller=character), percent_line(chance)),
            mode=mode,
            system=SYSTEM,
            command="decision percent",
            inputs={"chance": chance},
            dice=[result.roll],
            result=f"{result.name}, {result.roll} vs {result.chance}%",
            summary=f"{character}: d100 {result.roll} vs {result.chance}%: {result.name}",
            kind="percentage roll",
        )


async def setup(bot: TabletopBot) -> None:
    await bot.add_cog(Decision(bot))
