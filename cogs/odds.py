"""`/odds`: exact chances before a roll, one subcommand per system, as a table and a chart.

Options mirror the roll commands (sheet-aware: a skill from your active sheet, or raw numbers).
Decisions:
- Pending GM modifiers are not applied (nor revealed): /odds answers for the numbers given; the roll
  itself shows the chance it had with the GM's modifiers in its result.
- Answers are ephemeral unless ``public`` is set; a voluntary hand's odds (they depend on its face-down
  card) and a sustained pool's (for its owner or a GM) are always ephemeral.
- The slow exact odds run in the bot's worker processes (``bot.workers``, `bot.ui.workers`), charts in
  its chart worker (``bot.chart_workers``): they hold the GIL for tens of milliseconds; a process keeps
  the event loop free. The reply is
  deferred first, as the first chart of a fresh worker may take longer than Discord's 3 seconds.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.core import decision as dd
from bot.core import rps
from bot.core.blackjack import DIFFICULTY_NAMES, SKILL_NAMES, Hand, HandOptions
from bot.core.blackjack import start_involuntary as bj_start_involuntary
from bot.core.decision import DiceMode, SupplyDie
from bot.core.dn import non_skill_dn, skill_dn
from bot.core.errors import require_range
from bot.core.odds import percent
from bot.core.odds.format import is_estimate, move_chance
from bot.core.odds.rps import MAX_GOAL, check_count_distribution, sustained_odds
from bot.core.odds.systemx import combined_distribution, opposed_distribution
from bot.core.systemx import S0, parse_chart, required_margin, wound_cap
from bot.store import Store
from bot.ui import dn as dn_ui
from bot.ui import sysx as sx_ui
from bot.ui.cards import (
    CHARACTERISTICS_HELP,
    CHARACTERISTICS_MAX,
    NOBODY,
    characteristic_choices,
    shoe_as_seen,
)
from bot.ui.chart_worker import render_chart
from bot.ui.embeds import FIELD_VALUE_MAX, clip, shown_name
from bot.ui.hands import BLIND_ODDS
from bot.ui.odds import (
    Row,
    chart_file,
    contested_cached,
    core_pool,
    decision_cached,
    distribution_rows,
    dn_cached,
    hand_decision,
    hand_decision_line,
    involuntary_line,
    odds_embed,
    pool_fields,
    resisted_cached,
    rps_cached,
    step_chance,
    supply_cached,
    supply_rows,
    sysx_check,
    table,
    win_line,
)
from bot.ui.options import whole_number
from bot.ui.permissions import is_gm
from bot.ui.reply import UserError, defer, reply
from bot.ui.roll_inputs import (
    cards_task,
    decision_stat,
    dn_skill_use,
    rollable_supply,
    rps_fixed,
    rps_spec,
    supply_dice_of,
    supply_holder,
    sysx_check_inputs,
    sysx_entries,
    sysx_source,
)
from bot.ui.rolls import sheet_of
from bot.ui.rps import DIFFICULTY_CHOICES, ended_sentence, hidden_pool_checks, pool_insider

if TYPE_CHECKING:
    from bot.client import TabletopBot

log = logging.getLogger(__name__)

CHART_FILE = Path(__file__).resolve().parents[1] / "data" / "systemx_roll_chart.csv"
PUBLIC_HELP = "Show the answer to the channel (default: only you)."
SV = app_commands.Range[int, -60, 60]
RuleModifier = app_commands.Range[int, -10, 10]
NameText = app_commands.Range[str, 1, 64]
ListText = app_commands.Range[str, 1, 400]
BaseRange = app_commands.Range[int, rps.BASE_MIN, rps.BASE_MAX]
REQUIRED = [app_commands.Choice(name=m, value=m) for m in sx_ui.REQUIRED_CHOICES]
TARGETS = [
    app_commands.Choice(name=f"{name.strip(chr(34))} ({value})", value=value)
    for name, value in dd.TARGET_NUMBERS.items()
]
BJ_SKILLS = [app_commands.Choice(name=f"{i} {name}", value=i) for i, name in enumerate(SKILL_NAMES)]
BJ_DIFFICULTIES = [
    app_commands.Choice(name=f"{i} {name}", value=i) for i, name in enumerate(DIFFICULTY_NAMES)
]
COMPLEXITY = [app_commands.Choice(name=name, value=value) for name, value in dn_ui.COMPLEXITY_CHOICES]
POOL_CHECKS_AHEAD = 100


def _wounds_text(sv: int, wounds: tuple[int, int] | None) -> str:
    """``wounds 3/10, SV capped at 6``: what the check would say of the wounds (SX-2)."""
    if not wounds:
        return ""
    cap = wound_cap(*wounds)
    capped = f", SV capped at {cap}" if cap is not None and cap < sv else ""
    return f"wounds {wounds[0]}/{wounds[1]}{capped}"


@dataclass
class OddsAnswer:
    """What an /odds subcommand answers: the table embed and the chart to render for it."""

    embed: discord.Embed
    chart: str  # a function of bot.ui.charts
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


def _choices(pairs: list[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=name, value=value) for name, value in pairs]


def _matching(names: Sequence[str], current: str) -> list[app_commands.Choice[str]]:
    key = current.strip().casefold()
    found = sorted(
        (n for n in names if key in n.casefold()), key=lambda n: (not n.casefold().startswith(key), n)
    )
    return [app_commands.Choice(name=n[:100], value=n[:100]) for n in found[:25]]


def _numbers(text: str, what: str, *, low: int, high: int) -> list[int]:
    entries = sx_ui.split_list(text, low=low, high=high, what=what)
    values = [whole_number(e) for e in entries]
    if any(v is None for v in values):
        raise UserError(f"List {what} as whole numbers of up to 3 digits, separated by commas, like 12, 9.")
    return [v for v in values if v is not None]


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class Odds(
    commands.GroupCog, group_name="odds", group_description="Exact chances before you roll, with a chart."
):
    """`/odds sysx | dn | rps | decision | supply | cards | pool`."""

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot
        self.charts = sx_ui.ChartBook(parse_chart(CHART_FILE.read_text(encoding="utf-8")))

    @property
    def store(self) -> Store:
        store: Store = self.bot.store
        return store

    async def render(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
        """A chart's PNG from the bot's chart worker process, without blocking the event loop."""
        png: bytes = await self.bot.chart_workers.run(render_chart, name, args, kwargs)
        return png

    async def _answer(
        self, interaction: discord.Interaction[Any], answer: OddsAnswer, *, public: bool
    ) -> None:
        await defer(interaction, ephemeral=not public)
        png = await self.render(answer.chart, answer.args, answer.kwargs)
        await reply(interaction, embed=answer.embed, files=[chart_file(png)], ephemeral=not public)

    # -- /odds sysx --------------------------------------------------------------------------------
    @app_commands.command(name="sysx", description="System X: a check's margins; opposed or combined.")
    @app_commands.describe(
        skill="A skill from your active System X sheet.",
        sv="Or a raw Skill Value.",
        attribute="Or a raw attribute (1-20), with skill_rating.",
        skill_rating="Or a raw skill rating (0-10), with attribute.",
        roll_modifier="Roll modifier (-10..10).",
        sv_modifier="SV modifier (-10..10).",
        required="Required margin (default S0).",
        against="Opposed: the target member (their sheet skill in against_skill, or against_sv).",
        against_skill="Opposed: a skill from the target's sheet.",
        against_sv="Opposed: the target's raw Skill Value.",
        combined="Combined: the other actors' SVs (or skills of your sheet), separated by commas.",
        public=PUBLIC_HELP,
    )
    @app_commands.choices(required=REQUIRED)
    async def sysx(
        self,
        interaction: discord.Interaction[Any],
        skill: str | None = None,
        sv: SV | None = None,
        attribute: app_commands.Range[int, 1, 20] | None = None,
        skill_rating: app_commands.Range[int, 0, 10] | None = None,
        roll_modifier: RuleModifier = 0,
        sv_modifier: RuleModifier = 0,
        required: str | None = None,
        against: discord.Member | None = None,
        against_skill: str | None = None,
        against_sv: SV | None = None,
        combined: ListText | None = None,
        public: bool = False,
    ) -> None:
        sx_table, source = await sysx_check_inputs(
            self.store, interaction, self.charts, skill=skill, sv=sv, attribute=attribute, rating=skill_rating
        )
        chart, custom, style = sx_table.chart, sx_table.custom, sx_table.style
        need = required_margin(required) if required is not None else S0
        needs = f" (needs {need.format(style)})" if need != S0 else ""  # SX-7: judges a final margin too
        own = sysx_check(source.sv, roll_modifier, sv_modifier, source.wounds, need, chart)
        opposed = against is not None or against_sv is not None or against_skill is not None
        if opposed and combined:
            raise UserError("Ask for an opposed check or a combined one, not both.")
        mods = ", ".join(
            part
            for part in (
                f"roll {roll_modifier:+d}" if roll_modifier else "",
                f"SV {sv_modifier:+d}" if sv_modifier else "",
                _wounds_text(source.sv + sv_modifier, source.wounds),
            )
            if part
        )
        inputs = f"{source.breakdown}" + (f"; {mods}" if mods else "")
        footer = "" + ("the guild's own roll chart" if custom else "the bot's roll chart")
        if opposed:
            if against_skill is not None and against is None:
                raise UserError("against_skill needs the member in against.")
            target = await sysx_source(
                self.store, interaction, against or interaction.user, skill=against_skill, sv=against_sv
            )
            other = sysx_check(target.sv, 0, 0, target.wounds, S0, chart)
            final = opposed_distribution(own.distribution, other.distribution)
            embed = odds_embed(
                f"Odds: {shown_name(source.label)} opposed by {shown_name(target.label)}",
                headline=f"{percent(final.at_least(need))} for the actor to succeed{needs}",
                rows_text=table(distribution_rows(final, lambda m: m.format(style)), head="final margin"),
                fields=[("Actor", inputs), ("Target", target.breakdown)],
                footer=footer.replace("SX-7", "SX-8"),
            )
            await self._answer(
                interaction,
                OddsAnswer(
                    embed, "systemx_chart", (final,), {"style": style, "title": "Opposed: final margin"}
                ),
                public=public,
            )
            return
        if combined:
            entries = sx_ui.split_list(combined, low=1, high=5, what="other actors")
            sources = [source, *await sysx_entries(self.store, interaction, entries)]
            actors = [own] + [sysx_check(s.sv, 0, 0, s.wounds, S0, chart) for s in sources[1:]]
            final = combined_distribution([a.distribution for a in actors])
            embed = odds_embed(
                f"Odds: combined check of {len(actors)}",
                headline=f"{percent(final.at_least(need))} to succeed together{needs}",
                rows_text=table(distribution_rows(final, lambda m: m.format(style)), head="combined margin"),
                fields=[("Actors", clip("\n".join(s.breakdown for s in sources), FIELD_VALUE_MAX))],
                footer=footer.replace("SX-7", "SX-9"),
            )
            await self._answer(
                interaction,
                OddsAnswer(embed, "systemx_chart", (final,), {"style": style, "title": "Combined: margin"}),
                public=public,
            )
            return
        embed = odds_embed(
            f"Odds: {shown_name(source.label)}",
            headline=f"{percent(own.success)} to succeed{needs}",
            rows_text=table(distribution_rows(own.distribution, lambda m: m.format(style)), head="margin"),
            fields=[
                ("Inputs", inputs),
                (
                    "Criticals",
                    f"CS {percent(own.critical_success, 1)} · CF {percent(own.critical_failure, 1)}",
                ),
            ],
            footer=footer,
        )
        await self._answer(
            interaction,
            OddsAnswer(
                embed,
                "systemx_chart",
                (own.distribution,),
                {"required": need, "style": style, "title": f"System X: {source.label}"},
            ),
            public=public,
        )

    @sysx.autocomplete("skill")
    async def _sysx_skill(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await sheet_of(self.store, interaction, interaction.user.id, sx_ui.SYSTEM)
        return _choices(sx_ui.skill_choices(sheet, current))

    @sysx.autocomplete("against_skill")
    async def _sysx_against_skill(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        member_id = getattr(getattr(interaction.namespace, "against", None), "id", None)
        if not isinstance(member_id, int):
            return []
        sheet = await sheet_of(self.store, interaction, member_id, sx_ui.SYSTEM)
        return _choices(sx_ui.skill_choices(sheet, current))

    # -- /odds dn ----------------------------------------------------------------------------------
    @app_commands.command(name="dn", description="Difficulty Number: each success level's chance.")
    @app_commands.describe(
        skill="A skill from your active Difficulty Number sheet.",
        characteristics="Characteristics averaged for natural ability, by commas (default: the skill's own).",
        df="Difficulty Factor, -10 (hard) to +5 (easy).",
        dn="Or the Difficulty Number itself.",
        characteristic="Or a characteristic (1-30) for a use without a skill.",
        complexity="Complexity factor for the characteristic (default x1).",
        public=PUBLIC_HELP,
    )
    @app_commands.choices(complexity=COMPLEXITY)
    async def dn(
        self,
        interaction: discord.Interaction[Any],
        skill: str | None = None,
        characteristics: ListText | None = None,
        df: app_commands.Range[int, -10, 5] = 0,
        dn: app_commands.Range[int, -10, 65] | None = None,
        characteristic: app_commands.Range[int, 1, 30] | None = None,
        complexity: str = "1",
        public: bool = False,
    ) -> None:
        if sum(x is not None for x in (skill, dn, characteristic)) != 1:
            raise UserError("Give exactly one of skill, dn or characteristic.")
        if dn is not None and df:
            raise UserError("A DN given directly already includes its DF.")
        # as /dn refuses them: an option the answer would not use is never ignored in silence
        if skill is None and characteristics is not None:
            raise UserError("The characteristics are a skill's natural ability: give them with a skill.")
        if characteristic is None and complexity != "1":
            raise UserError("A complexity multiplies a characteristic: give it with one.")
        if skill is not None:
            use = await dn_skill_use(self.store, interaction, skill, characteristics)
            total = skill_dn(use.level, [v for _, v in use.characteristics], df)
            what = (
                f"skill {use.skill} {use.level} + natural ability {use.ability_text()} + DF {df:+d} = {total}"
            )
            title = use.skill
        elif characteristic is not None:
            factor = dn_ui.parse_complexity(complexity)
            total = non_skill_dn(characteristic, factor, df)
            what = f"characteristic {characteristic} {factor.label}, rounded down, + DF {df:+d} = {total}"
            title = "a characteristic"
        else:
            assert dn is not None
            total, what, title = dn, f"{dn} (given)", f"DN {dn}"
        odds = dn_cached(total)
        rows = [Row(level.value, p, odds.at_least(level)) for level, p in reversed(odds.levels)]
        embed = odds_embed(
            f"Odds: {shown_name(title)}",
            headline=f"{percent(odds.success)} to succeed at DN {total}",
            rows_text=table(rows, head="level"),
            fields=[("DN", what), ("Critical failure", percent(odds.critical_failure, 1))],
        )
        await self._answer(interaction, OddsAnswer(embed, "dn_chart", (odds,)), public=public)

    @dn.autocomplete("skill")
    async def _dn_skill(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await sheet_of(self.store, interaction, interaction.user.id, dn_ui.SYSTEM)
        return _choices(dn_ui.skill_choices(sheet, current))

    # -- /odds rps ---------------------------------------------------------------------------------
    @app_commands.command(name="rps", description="RPS: the Success Level's chances; resisted actions.")
    @app_commands.describe(
        skill="A skill from your active RPS sheet.",
        parent="The skill's parent attribute, or one of its alternates.",
        attribute="Or an attribute of your sheet (Base = 2 x attribute).",
        base="Or a raw Base.",
        difficulty="The task's difficulty.",
        modifier="Any other modifier to the Base.",
        resisted="Resisted: the other parties' Bases, separated by commas.",
        public=PUBLIC_HELP,
    )
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    async def rps_odds(
        self,
        interaction: discord.Interaction[Any],
        skill: NameText | None = None,
        parent: NameText | None = None,
        attribute: NameText | None = None,
        base: BaseRange | None = None,
        difficulty: app_commands.Choice[int] | None = None,
        modifier: app_commands.Range[int, rps.MODIFIER_MIN, rps.MODIFIER_MAX] = 0,
        resisted: ListText | None = None,
        public: bool = False,
    ) -> None:
        spec = await rps_spec(
            self.store, interaction, interaction.user.id, skill=skill, parent=parent, attribute=attribute,
            base=base,
        )  # fmt: skip
        build = spec.build(rps_fixed(difficulty.value if difficulty else None, modifier))
        what = shown_name(build.what) if base is None else f"Base {base}"
        total, inputs = build.base, build.text()
        if resisted:
            others = _numbers(resisted, "Bases of the other parties", low=1, high=5)
            for other in others:
                require_range(other, rps.BASE_MIN, rps.BASE_MAX, "An RPS Base")
            bases = (total, *others)
            odds = await self.bot.workers.run(resisted_cached, bases)
            names = ["you"] + [f"party {i} (Base {b})" for i, b in enumerate(others, start=2)]
            rows = [Row(name, p) for name, p in zip(names, odds.win, strict=True)]
            embed = odds_embed(
                f"Odds: resisted action, {len(bases)} parties",
                headline=f"{percent(odds.win[0])} for you to win (ties re-roll)",
                rows_text=table(rows, head="party", cumulative=""),
                fields=[("You", inputs), ("Summary", win_line(names, odds))],
            )
            title = {"title": "Resisted: who wins"}
            await self._answer(
                interaction, OddsAnswer(embed, "contest_chart", (odds, names), title), public=public
            )
            return
        check = rps_cached(total)
        embed = odds_embed(
            f"Odds: {what}",
            headline=f"{percent(check.success)} to succeed at Base {total}",
            rows_text=table(distribution_rows(check.distribution, lambda sl: f"SL {sl}"), head="SL"),
            fields=[
                ("Inputs", inputs),
                (
                    "Also",
                    f"near miss (SL 0) {percent(check.near_miss, 1)} · "
                    f"critical {percent(check.critical_success, 1)} · fumble {percent(check.fumble, 1)}",
                ),
            ],
        )
        await self._answer(interaction, OddsAnswer(embed, "rps_chart", (check,)), public=public)

    @rps_odds.autocomplete("skill")
    async def _rps_skill(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await sheet_of(self.store, interaction, interaction.user.id, "rps")
        return _matching(list(sheet.skills) if sheet else [], current)

    @rps_odds.autocomplete("attribute")
    async def _rps_attribute(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await sheet_of(self.store, interaction, interaction.user.id, "rps")
        return _matching(list(sheet.attributes) if sheet else [], current)

    # -- /odds decision ----------------------------------------------------------------------------
    @app_commands.command(name="decision", description="Decision dice: totals against a target; contests.")
    @app_commands.describe(
        stat_name="A stat from your active decision sheet.",
        stat="Or a raw stat (-20..20).",
        target="A named target number.",
        target_number="Or a raw target number 2..30.",
        modifier="Any other modifier (-50..50).",
        bonus="A bonus; negative counts 0.",
        penalty="A penalty; positive counts 0.",
        advantage="Roll 3d6.",
        disadvantage="Roll 1d6.",
        contested="Contested: the other parties' modifiers (2d6 each), separated by commas.",
        public=PUBLIC_HELP,
    )
    @app_commands.choices(target=TARGETS)
    async def decision_odds(
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
        contested: ListText | None = None,
        public: bool = False,
    ) -> None:
        _, source = await decision_stat(self.store, interaction, stat_name, stat)
        value = source.value
        label = f"stat {source.describe()}"
        modifiers = [modifier]
        if bonus is not None:
            modifiers.append(dd.bonus(bonus))
        if penalty is not None:
            modifiers.append(dd.penalty(penalty))
        mode = dd.dice_mode(advantage, disadvantage)
        inputs = f"{label}, modifiers {sum(modifiers):+d}, {mode.label}"
        if contested:
            if target is not None or target_number is not None:
                raise UserError("A contest has no target (the highest total wins): give one or the other.")
            others = _numbers(contested, "modifiers of the other parties", low=1, high=5)
            own_total = value + sum(modifiers)
            modes = (mode, *([DiceMode.NORMAL] * len(others)))
            odds = await self.bot.workers.run(contested_cached, (own_total, *others), modes)
            names = ["you"] + [f"party {i} ({m:+d})" for i, m in enumerate(others, start=2)]
            embed = odds_embed(
                f"Odds: contest of {len(names)}",
                headline=f"{percent(odds.win[0])} for you to win (ties re-roll)",
                rows_text=table(
                    [Row(n, p) for n, p in zip(names, odds.win, strict=True)], head="party", cumulative=""
                ),
                fields=[("You", inputs), ("Summary", win_line(names, odds))],
            )
            title = {"title": "Contest: who wins"}
            await self._answer(
                interaction, OddsAnswer(embed, "contest_chart", (odds, names), title), public=public
            )
            return
        if target is not None and target_number is not None and target != target_number:
            raise UserError("Give either a named target or a target_number, not two different targets.")
        goal = target if target is not None else target_number
        if goal is None:
            raise UserError("Choose a target: a named one or a target_number 2..30 (or contested).")
        odds_roll = decision_cached(value, tuple(modifiers), dd.target_number(goal), advantage, disadvantage)
        embed = odds_embed(
            f"Odds: decision roll vs {odds_roll.target}",
            headline=f"{percent(odds_roll.success)} to reach {odds_roll.target}",
            rows_text=table(distribution_rows(odds_roll.distribution), head="total", cumulative="or more"),
            fields=[("Inputs", inputs)],
        )
        await self._answer(interaction, OddsAnswer(embed, "decision_chart", (odds_roll,)), public=public)

    @decision_odds.autocomplete("stat_name")
    async def _decision_stat(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await sheet_of(self.store, interaction, interaction.user.id, "decision")
        names = [*sheet.attributes, *sheet.skills] if sheet else []
        return _matching(names, current)

    # -- /odds supply ------------------------------------------------------------------------------
    @app_commands.command(name="supply", description="Supply die: rolls left until the item is empty.")
    @app_commands.describe(item="One of your character's supplies.", public=PUBLIC_HELP)
    @app_commands.guild_only()
    async def supply(
        self, interaction: discord.Interaction[Any], item: NameText, public: bool = False
    ) -> None:
        assert interaction.guild is not None
        guild_id, owner_id = interaction.guild.id, interaction.user.id
        character = await supply_holder(self.store, guild_id, interaction.user, item)  # as /supply roll
        stored = await rollable_supply(self.store, guild_id, owner_id, character, item)
        die = SupplyDie(stored.die)
        odds = supply_cached(die)
        sizes = " · ".join(f"{d.label}: {float(e):.1f}" for d, e in odds.expected_by_die)
        embed = odds_embed(
            # the names as the supply keeps them (however the item was typed here), as /supply shows them
            f"Odds: {shown_name(stored.character)}'s {shown_name(stored.item)} ({die.label})",
            headline=f"about {float(odds.expected_uses):.1f} more rolls until empty",
            rows_text=table(supply_rows(odds), head="rolls", cumulative="lasts"),
            fields=[
                ("Next roll", f"{percent(step_chance(die))} to step down"),
                ("Expected rolls on each die", sizes),
            ],
            footer="'lasts' = P(the item lasts at least that many rolls)",
        )
        await self._answer(interaction, OddsAnswer(embed, "supply_chart", (odds,)), public=public)

    @supply.autocomplete("item")
    async def _supply_item(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild is None:
            return []
        supplies = await supply_dice_of(self.store, interaction.guild.id, interaction.user)
        return _matching([s.item for s in supplies], current)

    # -- /odds cards -------------------------------------------------------------------------------
    @app_commands.command(
        name="cards", description="Cards: a task from this channel's shoe, or your hand in play."
    )
    @app_commands.describe(
        difficulty="The task's difficulty, for an involuntary hand's odds.",
        level="Your skill level; or pick a skill from your sheet.",
        skill="A skill from your active cards sheet.",
        characteristics=CHARACTERISTICS_HELP,
        hand="Or a voluntary hand in play (its number): each move's chance (owner or GM; only you see it).",
        public=PUBLIC_HELP,
    )
    @app_commands.choices(difficulty=BJ_DIFFICULTIES, level=BJ_SKILLS)
    @app_commands.guild_only()
    async def cards(
        self,
        interaction: discord.Interaction[Any],
        difficulty: int | None = None,
        level: int | None = None,
        skill: NameText | None = None,
        characteristics: app_commands.Range[str, 1, CHARACTERISTICS_MAX] | None = None,
        hand: app_commands.Range[int, 1, 2**53 - 1] | None = None,
        public: bool = False,
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise app_commands.NoPrivateMessage()
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        settings = await self.store.settings.get(guild_id)
        if hand is not None:
            if (
                difficulty is not None
                or level is not None
                or skill is not None
                or characteristics is not None
            ):
                raise UserError("Give either a hand in play or a task (difficulty and skill), not both.")
            if public:
                raise UserError(
                    "A hand's odds depend on its face-down card, so only you see them: leave public off."
                )
            await self._hand_odds(interaction, hand, settings.decks_per_shoe)
            return
        if difficulty is None:
            raise UserError("Give the task's difficulty (or a hand in play).")
        task_inputs = await cards_task(
            self.store, interaction, level=level, skill=skill, characteristics=characteristics
        )
        level, named = task_inputs.level, task_inputs.characteristics
        options = HandOptions(
            adder_scheme=settings.adder_scheme,
            suit_bonus=settings.bj_suit_bonus,
            characteristic_rule=settings.bj_characteristic_bonus,
            fumble_flags=settings.bj_fumble_flags,
        )
        task = bj_start_involuntary(level, difficulty, options=options, characteristics=named)
        shoe, _ = await self.store.cards.get_shoe(guild_id, channel_id, settings.decks_per_shoe, self.bot.rng)
        # from the cards this player can know about: no face-down card or hidden hand shows through; a
        # public answer from what everyone at the table knows (nobody's face-down card, not even the asker's)
        gm = not public and await is_gm(interaction, self.store)
        viewer = NOBODY if public else interaction.user.id
        unseen, discards = await shoe_as_seen(self.store, shoe, guild_id, channel_id, viewer, gm=gm)
        await defer(interaction, ephemeral=not public)
        line, odds = await self.bot.workers.run(involuntary_line, unseen, task, None, discards)
        embed = odds_embed(
            f"Odds: involuntary hand, {SKILL_NAMES[level]} vs {DIFFICULTY_NAMES[difficulty]}",
            headline=f"{line} (this channel's shoe: {len(shoe.remaining)} cards left)",
            rows_text=table(distribution_rows(odds.trl, lambda t: f"TRL {t}"), head="TRL"),
            fields=[("Expected TRL", f"{float(odds.expected_trl):.2f}")],
            footer="drawn from the cards left in this channel's shoe",
        )
        await self._answer(interaction, OddsAnswer(embed, "trl_chart", (odds,)), public=public)

    async def _hand_odds(self, interaction: discord.Interaction[Any], hand_id: int, decks: int) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        record = await self.store.cards.hand_in(hand_id, interaction.guild_id, interaction.channel_id)
        gm = await is_gm(interaction, self.store)
        if record.owner_id != interaction.user.id and not gm:
            raise UserError(
                "Only the hand's player (or a GM) can see its odds: they depend on the face-down card."
            )
        if record.finished:
            raise UserError(f"Hand #{record.id} is over.")
        table_meta = record.data.get("table") if isinstance(record.data, dict) else None
        if isinstance(table_meta, dict) and table_meta.get("visibility") == "blind" and not gm:
            raise UserError(BLIND_ODDS)
        played = Hand.from_dict(record.data)
        shoe, _ = await self.store.cards.get_shoe(record.guild_id, record.channel_id, decks, self.bot.rng)
        unseen, discards = await shoe_as_seen(
            self.store, shoe, record.guild_id, record.channel_id, interaction.user.id, gm=gm
        )
        await defer(interaction, ephemeral=True)
        decision = await self.bot.workers.run(hand_decision, played, unseen, discards)
        rows = [
            Row(
                f"{o.action.label}{' (about)' if is_estimate(decision, o) else ''}"
                f"{' (best)' if o == decision.best else ''}",
                o.success,
            )
            for o in decision.options
        ]
        expected = " · ".join(
            f"{o.action.label} {'about ' if is_estimate(decision, o) else ''}{float(o.expected_trl):.2f}"
            for o in decision.options
        )
        fields = [("Expected TRL", expected), ("In one line", hand_decision_line(decision))]
        if not decision.exact:
            fields.append(
                (
                    "About Hit",
                    "An estimate: with several characteristics and the suit rule, the odds of a bonus card's "
                    "suit after a Hit are estimated from the shoe.",
                )
            )
        best = decision.best
        embed = odds_embed(
            f"Odds: {'your hand' if record.owner_id == interaction.user.id else 'hand'} #{record.id} "
            f"(total {decision.total})",
            headline=f"best: {best.action.label} ({move_chance(decision, best)} to succeed)",
            rows_text=table(rows, head="move", cumulative=""),
            fields=fields,
            footer="Hit assumes the best play afterwards · only you see this",
        )
        await self._answer(interaction, OddsAnswer(embed, "hand_decision_chart", (decision,)), public=False)

    @cards.autocomplete("characteristics")
    async def _cards_characteristics(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = None
        if interaction.guild_id is not None:
            sheet = await self.store.sheets.active(interaction.guild_id, interaction.user.id, "cards")
        return _choices(characteristic_choices(sheet, str(current)))

    @cards.autocomplete("skill")
    async def _cards_skill(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        sheet = await self.store.sheets.active(interaction.guild_id, interaction.user.id, "cards")
        return _matching(list(sheet.skills) if sheet else [], current)

    # -- /odds pool --------------------------------------------------------------------------------
    @app_commands.command(name="pool", description="A sustained action as it stands: checks and time left.")
    @app_commands.describe(name="The sustained action (owner or GM).", public=PUBLIC_HELP)
    @app_commands.guild_only()
    async def pool(self, interaction: discord.Interaction[Any], name: NameText, public: bool = False) -> None:
        if interaction.guild is None or interaction.channel_id is None:
            raise app_commands.NoPrivateMessage()
        stored = await self.store.pools.get(interaction.guild.id, interaction.channel_id, name)
        if stored.owner_id != interaction.user.id and not await is_gm(interaction, self.store):
            raise UserError("Only the action's owner or a GM can see its odds (they show the pool).")
        running = core_pool(stored)
        if running is None:
            raise UserError(f"{await ended_sentence(interaction, self.store, stored)}.")
        if not await pool_insider(interaction, self.store, stored):
            # the pool and its odds would tell the owner what a check they did not see did
            raise UserError(
                f"A check of {stored.name!r} you did not see is still hidden, so its odds would give it "
                "away; a GM can reveal it or see them."
            )
        if public and await hidden_pool_checks(self.store, stored):
            # the channel would learn what a hidden check did, even from a GM who may see it
            raise UserError(
                f"A check of {stored.name!r} is still hidden, so odds posted for everyone would give it "
                "away: reveal it first, or leave public off."
            )
        if running.goal > MAX_GOAL:
            raise UserError(f"Odds are computed for Goals up to {MAX_GOAL}, not {running.goal}.")
        await defer(interaction, ephemeral=not public)
        # tens of ms at Goal 50, seconds near Goal 1000: in the worker processes, both at once
        odds, counts = await asyncio.gather(
            self.bot.workers.run(sustained_odds, running),
            self.bot.workers.run(check_count_distribution, running, POOL_CHECKS_AHEAD),
        )
        rows = []
        for n in (1, 2, 3, 5, 10, 20, 50, POOL_CHECKS_AHEAD):
            rows.append(
                Row(
                    f"within {n}",
                    sum(counts.complete[:n], start=Fraction(0)),
                    sum(counts.fail[:n], start=Fraction(0)),
                )
            )
        embed = odds_embed(
            f"Odds: sustained action {stored.name}",
            headline=f"{percent(odds.complete)} to complete; about {float(odds.expected_checks):.1f} checks "
            f"({float(odds.expected_minutes):.0f} {stored.time_unit}) left",
            rows_text=table(rows, head="checks", cumulative="fail"),
            fields=[
                (
                    "Now",
                    f"pool {stored.pool} of Goal {stored.goal}, Base {stored.base}, "
                    f"{stored.checks_made} checks",
                ),
                *pool_fields(odds, stored.time_unit),
            ],
            footer="'chance' = completes within that many checks, 'fail' = fails within them",
        )
        await self._answer(interaction, OddsAnswer(embed, "check_count_chart", (counts,)), public=public)

    @pool.autocomplete("name")
    async def _pool_name(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild is None or interaction.channel_id is None:
            return []
        pools = await self.store.pools.list(interaction.guild.id, interaction.channel_id, running_only=True)
        return _matching([p.name for p in reversed(pools)], current)


async def setup(bot: TabletopBot) -> None:
    await bot.add_cog(Odds(bot))
