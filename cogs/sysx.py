"""`/sysx`: System X checks (check, opposed, combined, synergy, flat) and the GM's `/sysx wounds`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.dice import Dice
from bot.core.systemx import (
    S0,
    Margin,
    RollChart,
    SkillCheck,
    check,
    combined,
    flat,
    judged,
    opposed,
    parse_chart,
    required_margin,
    synergy,
    wound_cap,
)
from bot.store import AppliedModifier, Sheet, Store
from bot.ui.embeds import shown_name
from bot.ui.odds import (
    add_odds,
    flat_line,
    sysx_check,
    sysx_check_line,
    sysx_combined_line,
    sysx_opposed_line,
    sysx_synergy_line,
)
from bot.ui.permissions import gm_only
from bot.ui.reply import UserError, reply
from bot.ui.roll_inputs import (
    SxParty,
    all_at_once,
    at_once,
    distinct_parties,
    sysx_check_inputs,
    sysx_entries,
    sysx_party,
    sysx_table,
    unnamed_party,
)
from bot.ui.rolls import publish, refuse_dodged_modifiers, sheet_of, take_modifiers
from bot.ui.sysx import (
    REQUIRED_CHOICES,
    SYSTEM,
    ChartBook,
    GmModifiers,
    SkillSource,
    check_compact,
    check_details,
    combined_compact,
    combined_details,
    flat_compact,
    flat_details,
    gm_modifiers,
    list_choices,
    opposed_compact,
    opposed_details,
    outcome_words,
    skill_choices,
    split_list,
    synergy_compact,
    synergy_details,
    who_rolled,
)
from bot.ui.visibility import choose_visibility, reach_gms, resolve_mode

if TYPE_CHECKING:
    from bot.client import TabletopBot

CHART_FILE = Path(__file__).resolve().parents[1] / "data" / "systemx_roll_chart.csv"
KIND = "System X check"
MAX_SYNERGY = 10

Visibility = Literal["public", "private", "gm", "blind"]
NpcName = app_commands.Range[str, 1, 64]
REQUIRED = [app_commands.Choice(name=m, value=m) for m in REQUIRED_CHOICES]
SV = app_commands.Range[int, -60, 60]
Attribute = app_commands.Range[int, 1, 20]
Rating = app_commands.Range[int, 0, 10]
RuleModifier = app_commands.Range[int, -10, 10]
VISIBILITY_HELP = "Who sees the result (default: this channel's default)."
#: GM-3: an opposed check's target only defends, so a required margin left for them waits for their own
#: action (the actor's judges the final margin, SX-7)
TARGET_WAITS = frozenset({"required_margin"})


def _need_guild(interaction: discord.Interaction[Any]) -> discord.Guild:
    if interaction.guild is None:
        raise app_commands.NoPrivateMessage()
    return interaction.guild


def _choices(pairs: list[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=name, value=value) for name, value in pairs]


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class SystemX(
    commands.GroupCog, group_name="sysx", group_description="System X: a d20 against a Skill Value."
):
    """System X on Discord; rules in bot.core.systemx, rendering in bot.ui.sysx."""

    def __init__(self, bot: TabletopBot, charts: ChartBook) -> None:
        self.bot = bot
        self.charts = charts

    @property
    def store(self) -> Store:
        store: Store = self.bot.store
        return store

    # -- shared steps --------------------------------------------------------------------------------
    async def _sheet(self, interaction: discord.Interaction[Any], user_id: int) -> Sheet | None:
        return await sheet_of(self.store, interaction, user_id, SYSTEM)

    def _roll(self) -> int:
        return Dice(self.bot.rng).d20()

    @staticmethod
    def _required(chosen: str | None, gm: GmModifiers) -> tuple[Margin, str]:
        if gm.required is not None:
            return gm.required, "set by the GM"
        if chosen is not None:
            return required_margin(chosen), "chosen"
        return S0, "default"

    # -- /sysx check ---------------------------------------------------------------------------------
    @app_commands.command(name="check", description="One skill check: d20 against your Skill Value.")
    @app_commands.describe(
        skill="A skill from your active System X sheet (its attribute + rating make the SV).",
        sv="Or a raw Skill Value.",
        attribute="Or a raw attribute (1-20), with skill_rating.",
        skill_rating="Or a raw skill rating (0-10), with attribute.",
        roll_modifier="Rule-made roll modifier, e.g. from the table (-10..10).",
        sv_modifier="Rule-made SV modifier, e.g. from the table (-10..10).",
        required="Required margin (default S0).",
        visibility=VISIBILITY_HELP,
    )
    @app_commands.choices(required=REQUIRED)
    async def check_command(
        self,
        interaction: discord.Interaction[Any],
        skill: str | None = None,
        sv: SV | None = None,
        attribute: Attribute | None = None,
        skill_rating: Rating | None = None,
        roll_modifier: RuleModifier = 0,
        sv_modifier: RuleModifier = 0,
        required: str | None = None,
        visibility: Visibility | None = None,
    ) -> None:
        mode = await choose_visibility(interaction, self.store, visibility)
        table, source = await sysx_check_inputs(
            self.store, interaction, self.charts, skill=skill, sv=sv, attribute=attribute, rating=skill_rating
        )
        chart, custom, style = table.chart, table.custom, table.style
        if required is not None:
            required_margin(required)
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, self.store, mode)
        applied = await take_modifiers(interaction, self.store, SYSTEM)
        gm = gm_modifiers(applied)
        need, required_by = self._required(required, gm)
        natural = self._roll()
        result = check(
            chart,
            source.sv,
            natural,
            roll_modifier=roll_modifier + gm.roll,
            sv_modifier=sv_modifier + gm.sv,
            wounds=source.wounds,
            required=need,
        )
        details = check_details(
            result,
            source,
            style,
            roller=interaction.user.mention,
            sv_parts=[("rule", sv_modifier), (gm.label("sv"), gm.sv)],
            roll_parts=[("rule", roll_modifier), (gm.label("roll"), gm.roll)],
            required_by=required_by,
            applied=applied,
            custom_chart=custom,
        )
        add_odds(
            details,
            sysx_check_line(
                source.sv,
                roll_modifier=result.roll_modifier,
                sv_modifier=result.sv_modifier,
                wounds=source.wounds,
                required=result.required,
                chart=chart,
                style=style,
                actual=result.margin,
            ),
        )
        verdict = "success" if result.succeeded else "failure"
        compact = check_compact(
            result, source, style, who=who_rolled(interaction.user.display_name, source), applied=applied
        )
        await publish(
            interaction,
            self.store,
            compact,
            details=details,
            mode=mode,
            system=SYSTEM,
            command="sysx check",
            inputs={
                "skill": source.label,
                "sv": source.sv,
                "sv_modifier": result.sv_modifier,
                "roll_modifier": result.roll_modifier,
                "wounds": list(source.wounds) if source.wounds else None,
                "required": result.required.letters(),
            },
            dice=[natural],
            result=f"{result.margin.letters()} {verdict}",
            summary=f"{source.label}: {result.margin.format(style)}, {verdict}",
            kind=KIND,
        )

    @check_command.autocomplete("skill")
    async def _check_skill(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return _choices(skill_choices(await self._sheet(interaction, interaction.user.id), current))

    # -- /sysx opposed -------------------------------------------------------------------------------
    @app_commands.command(name="opposed", description="Actor against target, one d20 each.")
    @app_commands.describe(
        actor="Who acts, a member (their active System X sheet gives the SV).",
        target="Who opposes, a member (their active System X sheet gives the SV).",
        actor_skill="A skill from the actor's sheet (no actor given: from yours).",
        target_skill="A skill from the target's sheet.",
        actor_sv="Or the actor's raw Skill Value (an NPC actor's SV; alone, an NPC called The actor).",
        target_sv="Or the target's raw Skill Value (an NPC target's SV; alone, an NPC called The target).",
        actor_npc="Or an NPC acting: its name (with actor_sv).",
        target_npc="Or an NPC opposing: its name (with target_sv).",
        visibility=VISIBILITY_HELP,
    )
    async def opposed_command(
        self,
        interaction: discord.Interaction[Any],
        actor: discord.Member | None = None,
        target: discord.Member | None = None,
        actor_skill: str | None = None,
        target_skill: str | None = None,
        actor_sv: SV | None = None,
        target_sv: SV | None = None,
        actor_npc: NpcName | None = None,
        target_npc: NpcName | None = None,
        visibility: Visibility | None = None,
    ) -> None:
        you = interaction.user
        acts, actor_npc = unnamed_party("the actor", actor, actor_npc, actor_skill, actor_sv, you)
        opposes, target_npc = unnamed_party("the target", target, target_npc, target_skill, target_sv, you)
        distinct_parties([(acts, actor_npc), (opposes, target_npc)])
        mode = await choose_visibility(interaction, self.store, visibility)
        table, acting, opposing = await at_once(
            sysx_table(self.store, interaction, self.charts),
            sysx_party(
                self.store, interaction, slot="the actor", member=acts, npc=actor_npc, skill=actor_skill,
                sv=actor_sv, npc_option="actor_npc", sv_option="actor_sv",
            ),
            sysx_party(
                self.store, interaction, slot="the target", member=opposes, npc=target_npc,
                skill=target_skill, sv=target_sv, npc_option="target_npc", sv_option="target_sv",
            ),
        )  # fmt: skip
        chart, custom, style = table.chart, table.custom, table.style
        actor_source, target_source = acting.source, opposing.source
        # GM-3: each member's pending modifiers apply to their own check (an NPC has none); a required
        # margin judges the action, so only the actor's applies and the target's waits
        await refuse_dodged_modifiers(interaction, self.store, SYSTEM, [acting.member_id])
        await refuse_dodged_modifiers(
            interaction, self.store, SYSTEM, [opposing.member_id], unused=TARGET_WAITS
        )
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, self.store, mode)
        applied = await self._take(interaction, acting)
        target_applied = await self._take(interaction, opposing, waiting=TARGET_WAITS)
        gm, target_gm = gm_modifiers(applied), gm_modifiers(target_applied)
        dice = [self._roll(), self._roll()]
        actor_result = check(
            chart,
            actor_source.sv,
            dice[0],
            roll_modifier=gm.roll,
            sv_modifier=gm.sv,
            wounds=actor_source.wounds,
            required=gm.required or S0,
        )
        target_result = check(
            chart,
            target_source.sv,
            dice[1],
            roll_modifier=target_gm.roll,
            sv_modifier=target_gm.sv,
            wounds=target_source.wounds,
        )
        final = opposed(actor_result.margin, target_result.margin)
        need = gm.required or S0  # SX-7: a GM's required margin for the actor judges the final margin
        details = opposed_details(
            (acting.name, actor_source, actor_result),
            (opposing.name, target_source, target_result),
            final,
            style,
            applied=applied,
            target_applied=target_applied,
            custom_chart=custom,
            required=need,
        )
        compact = opposed_compact(
            (acting.shown, actor_source, actor_result),
            (opposing.shown, target_source, target_result),
            final,
            style,
            applied=applied,
            target_applied=target_applied,
            required=need,
        )
        actor_odds = sysx_check(
            actor_source.sv, gm.roll, gm.sv, actor_source.wounds, actor_result.required, chart
        )
        target_odds = sysx_check(
            target_source.sv, target_gm.roll, target_gm.sv, target_source.wounds, S0, chart
        )
        add_odds(details, sysx_opposed_line(actor_odds, target_odds, final, style, need))
        await publish(
            interaction,
            self.store,
            compact,
            details=details,
            mode=mode,
            system=SYSTEM,
            command="sysx opposed",
            inputs={
                "actor": acting.member_id,
                "actor_name": acting.name,
                "actor_sv": actor_source.sv,
                "target": opposing.member_id,
                "target_name": opposing.name,
                "target_sv": target_source.sv,
            },
            dice=dice,
            result=final.letters(),
            summary=(
                f"Opposed: {acting.name} ({actor_source.label}) vs {opposing.name} ({target_source.label}): "
                f"{outcome_words(final, style, judged(final, need)[0])}"
            ),
            kind="System X opposed check",
        )

    async def _take(
        self, interaction: discord.Interaction[Any], party: SxParty, waiting: frozenset[str] = frozenset()
    ) -> list[AppliedModifier]:
        """GM-3: a member's pending System X modifiers; an NPC has none."""
        if party.member_id is None:
            return []
        return await take_modifiers(interaction, self.store, SYSTEM, party.member_id, waiting=waiting)

    async def _member_skills(
        self, interaction: discord.Interaction[Any], option: str, current: str
    ) -> list[app_commands.Choice[str]]:
        member = getattr(interaction.namespace, option, None)
        member_id = getattr(member, "id", None)
        if not isinstance(member_id, int):
            return []
        return _choices(skill_choices(await self._sheet(interaction, member_id), current))

    @opposed_command.autocomplete("actor_skill")
    async def _actor_skill(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._member_skills(interaction, "actor", current)

    @opposed_command.autocomplete("target_skill")
    async def _target_skill(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._member_skills(interaction, "target", current)

    # -- /sysx combined ------------------------------------------------------------------------------
    @app_commands.command(name="combined", description="Up to 6 actors on one task, folded in pairs.")
    @app_commands.describe(
        member1="First actor, a member (give skill1 from their sheet, or sv1).",
        member2="Second actor.",
        member3="Third actor.",
        member4="Fourth actor.",
        member5="Fifth actor.",
        member6="Sixth actor.",
        skill1="A skill from member1's sheet (no member1 given: from yours).",
        skill2="A skill from member2's sheet.",
        skill3="A skill from member3's sheet.",
        skill4="A skill from member4's sheet.",
        skill5="A skill from member5's sheet.",
        skill6="A skill from member6's sheet.",
        sv1="Or actor 1's raw Skill Value (an NPC's SV; alone, an NPC called Actor 1).",
        sv2="Or actor 2's raw Skill Value.",
        sv3="Or actor 3's raw Skill Value.",
        sv4="Or actor 4's raw Skill Value.",
        sv5="Or actor 5's raw Skill Value.",
        sv6="Or actor 6's raw Skill Value.",
        npc1="Or an NPC as actor 1: its name (with sv1).",
        npc2="Or an NPC as actor 2 (with sv2).",
        npc3="Or an NPC as actor 3 (with sv3).",
        npc4="Or an NPC as actor 4 (with sv4).",
        npc5="Or an NPC as actor 5 (with sv5).",
        npc6="Or an NPC as actor 6 (with sv6).",
        visibility=VISIBILITY_HELP,
    )
    async def combined_command(
        self,
        interaction: discord.Interaction[Any],
        member1: discord.Member | None = None,
        member2: discord.Member | None = None,
        member3: discord.Member | None = None,
        member4: discord.Member | None = None,
        member5: discord.Member | None = None,
        member6: discord.Member | None = None,
        skill1: str | None = None,
        skill2: str | None = None,
        skill3: str | None = None,
        skill4: str | None = None,
        skill5: str | None = None,
        skill6: str | None = None,
        sv1: SV | None = None,
        sv2: SV | None = None,
        sv3: SV | None = None,
        sv4: SV | None = None,
        sv5: SV | None = None,
        sv6: SV | None = None,
        npc1: NpcName | None = None,
        npc2: NpcName | None = None,
        npc3: NpcName | None = None,
        npc4: NpcName | None = None,
        npc5: NpcName | None = None,
        npc6: NpcName | None = None,
        visibility: Visibility | None = None,
    ) -> None:
        slots = [
            (member1, npc1, skill1, sv1),
            (member2, npc2, skill2, sv2),
            (member3, npc3, skill3, sv3),
            (member4, npc4, skill4, sv4),
            (member5, npc5, skill5, sv5),
            (member6, npc6, skill6, sv6),
        ]
        given = [
            (index, (*unnamed_party(f"actor {index}", member, npc, skill, sv, interaction.user), skill, sv))
            for index, (member, npc, skill, sv) in enumerate(slots, start=1)
            if any(value is not None for value in (member, npc, skill, sv))
        ]
        if len(given) < 2:
            raise UserError("A combined check needs at least two actors: members (member1, ...) or NPCs.")
        distinct_parties([(member, npc) for _, (member, npc, _, _) in given])
        mode = await choose_visibility(interaction, self.store, visibility)
        table, parties = await at_once(
            sysx_table(self.store, interaction, self.charts),
            all_at_once(
                sysx_party(
                    self.store, interaction, slot=f"actor {index}", member=member, npc=npc, skill=skill,
                    sv=sv, npc_option=f"npc{index}", sv_option=f"sv{index}",
                )
                for index, (member, npc, skill, sv) in given
            ),
        )  # fmt: skip
        await refuse_dodged_modifiers(interaction, self.store, SYSTEM, [p.member_id for p in parties])
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, self.store, mode)
        chart, custom, style = table.chart, table.custom, table.style
        rows: list[tuple[str, SkillSource, Any, list[AppliedModifier]]] = []
        names: list[str] = []
        dice: list[int] = []
        for party in parties:
            # GM-3: each member's own pending modifiers apply to their own check
            applied = await self._take(interaction, party)
            gm = gm_modifiers(applied)
            natural = self._roll()
            dice.append(natural)
            source = party.source
            result = check(
                chart, source.sv, natural, roll_modifier=gm.roll, sv_modifier=gm.sv, wounds=source.wounds
            )
            rows.append((party.name, source, result, applied))
            names.append(party.shown)
        outcome = combined([row[2].margin for row in rows])
        # SX-7: a GM's required margin for any actor judges the team's final margin (the strictest, when
        # the GM set several)
        need = max((r for *_, applied in rows if (r := gm_modifiers(applied).required)), default=S0)
        details = combined_details(rows, outcome, style, custom_chart=custom, required=need)
        compact = combined_compact(
            [(name, *row[1:]) for name, row in zip(names, rows, strict=True)], outcome, style, required=need
        )
        actor_odds = [
            sysx_check(r.sv, r.roll_modifier, r.sv_modifier, r.wounds, S0, chart) for _, _, r, _ in rows
        ]
        add_odds(details, sysx_combined_line(actor_odds, outcome.margin, style, need))
        await publish(
            interaction,
            self.store,
            compact,
            details=details,
            mode=mode,
            system=SYSTEM,
            command="sysx combined",
            inputs={"actors": [{"member": p.member_id, "name": p.name, "sv": p.source.sv} for p in parties]},
            dice=dice,
            result=outcome.margin.letters(),
            summary=(
                f"Combined: {', '.join(party.name for party in parties)}: "
                f"{outcome_words(outcome.margin, style, judged(outcome.margin, need)[0])}"
            ),
            kind="System X combined check",
        )

    @combined_command.autocomplete("skill1")
    @combined_command.autocomplete("skill2")
    @combined_command.autocomplete("skill3")
    @combined_command.autocomplete("skill4")
    @combined_command.autocomplete("skill5")
    @combined_command.autocomplete("skill6")
    async def _slot_skills(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        focused = next((o.get("name") for o in _flat_options(interaction) if o.get("focused")), "skill1")
        return await self._member_skills(interaction, "member" + str(focused)[-1], current)

    # -- /sysx synergy -------------------------------------------------------------------------------
    @app_commands.command(name="synergy", description="Checks in order, each adding the previous margin.")
    @app_commands.describe(
        skills="2 to 10 skills from your sheet in order, separated by commas (a number is a raw SV).",
        required="Required margin for the last check (default S0).",
        visibility=VISIBILITY_HELP,
    )
    @app_commands.choices(required=REQUIRED)
    async def synergy_command(
        self,
        interaction: discord.Interaction[Any],
        skills: app_commands.Range[str, 1, 400],
        required: str | None = None,
        visibility: Visibility | None = None,
    ) -> None:
        entries = split_list(skills, low=2, high=MAX_SYNERGY, what="skills or SVs")
        mode = await choose_visibility(interaction, self.store, visibility)
        table, sources = await at_once(
            sysx_table(self.store, interaction, self.charts), sysx_entries(self.store, interaction, entries)
        )
        chart, custom, style = table.chart, table.custom, table.style
        if required is not None:
            required_margin(required)
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, self.store, mode)
        applied = await take_modifiers(interaction, self.store, SYSTEM)
        gm = gm_modifiers(applied)
        need, required_by = self._required(required, gm)
        dice = [self._roll() for _ in sources]
        # GM-3: a use is one roll, so the GM's SV and roll modifiers apply to the chain's first check (the
        # seed: "for one use of the core resolution mechanic"); a required margin judges the chain's result
        steps = [
            SkillCheck(
                sv=s.sv,
                sv_modifier=gm.sv if index == 0 else 0,
                roll_modifier=gm.roll if index == 0 else 0,
                wounds=s.wounds,
                label=s.label,
            )
            for index, s in enumerate(sources)
        ]
        outcome = synergy(chart, steps, dice, required=need)
        details = synergy_details(
            outcome,
            sources,
            style,
            roller=interaction.user.mention,
            required_by=required_by,
            applied=applied,
            custom_chart=custom,
        )
        add_odds(
            details,
            sysx_synergy_line(steps, required=need, chart=chart, style=style, actual=outcome.margin),
        )
        verdict = "success" if outcome.succeeded else "failure"
        # named after the sheet's character when a skill of the chain came from the sheet
        from_sheet = next((s for s in sources if s.sheet_name), sources[0])
        who = who_rolled(interaction.user.display_name, from_sheet)
        compact = synergy_compact(outcome, sources, style, who=who, applied=applied)
        await publish(
            interaction,
            self.store,
            compact,
            details=details,
            mode=mode,
            system=SYSTEM,
            command="sysx synergy",
            inputs={"skills": [s.label for s in sources], "svs": [s.sv for s in sources]},
            dice=dice,
            result=f"{outcome.margin.letters()} {verdict}",
            summary=f"Synergy of {len(sources)}: {outcome.margin.format(style)}, {verdict}",
            kind="System X synergistic check",
        )

    @synergy_command.autocomplete("skills")
    async def _synergy_skills(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await self._sheet(interaction, interaction.user.id)
        return _choices(list_choices(list(sheet.skills) if sheet else [], current))

    # -- /sysx flat ----------------------------------------------------------------------------------
    @app_commands.command(name="flat", description="A flat chance: the event happens when d20 < value.")
    @app_commands.describe(
        value="The event happens when the d20 is strictly under this (1-21).", visibility=VISIBILITY_HELP
    )
    async def flat_command(
        self,
        interaction: discord.Interaction[Any],
        value: app_commands.Range[int, 1, 21],
        visibility: Visibility | None = None,
    ) -> None:
        mode = await resolve_mode(interaction, self.store, visibility)
        natural = self._roll()
        result = flat(natural, value)
        details = add_odds(flat_details(result, roller=interaction.user.mention), flat_line(value))
        compact = flat_compact(result, who=shown_name(interaction.user.display_name))
        happened = "happens" if result.happened else "does not happen"
        await publish(
            interaction,
            self.store,
            compact,
            details=details,
            mode=mode,
            system=SYSTEM,
            command="sysx flat",
            inputs={"value": value},
            dice=[natural],
            result=happened,
            summary=f"Flat under {value}: {happened}",
            kind="System X flat chance",
        )

    # -- /sysx wounds (GM) ---------------------------------------------------------------------------
    @app_commands.command(name="wounds", description="GM: set a member's current (and maximum) wounds.")
    @app_commands.describe(
        member="Whose active System X sheet.",
        current="Current wounds (0 up to the maximum).",
        maximum="Maximum wounds (1-60); needed the first time.",
    )
    @gm_only()
    async def wounds_command(
        self,
        interaction: discord.Interaction[Any],
        member: discord.Member,
        current: app_commands.Range[int, 0, 60],
        maximum: app_commands.Range[int, 1, 60] | None = None,
    ) -> None:
        guild = _need_guild(interaction)
        sheet = await self.store.sheets.active(guild.id, member.id, SYSTEM)
        if sheet is None:
            raise UserError(f"{member.mention} has no active System X sheet in this server.")
        top = maximum if maximum is not None else (sheet.wounds.maximum if sheet.wounds else None)
        if top is None:
            raise UserError(f"{sheet.name!r} has no maximum wounds yet; give maximum too.")
        if current > top:
            raise UserError(f"Current wounds run from 0 to the maximum {top}, not {current}.")
        updated = await self.store.sheets.set_wounds(guild.id, member.id, sheet.name, current, maximum)
        assert updated.wounds is not None
        cap = wound_cap(updated.wounds.current, updated.wounds.maximum)
        effect = "no cap (full wounds)" if cap is None else f"SV capped at {cap} by wounds"
        await reply(
            interaction,
            f"{member.mention}'s {updated.name!r}: wounds {updated.wounds.current}/{updated.wounds.maximum}, "
            f"{effect}.",
            ephemeral=True,
        )


def _flat_options(interaction: discord.Interaction[Any]) -> list[dict[str, Any]]:
    """Every option of the interaction, subcommands unwrapped (to find the focused one)."""
    found: list[dict[str, Any]] = []
    data: dict[str, Any] = dict(interaction.data or {})
    stack: list[Any] = list(data.get("options", []))
    while stack:
        option = stack.pop()
        if isinstance(option, dict):
            found.append(option)
            stack.extend(option.get("options", []))
    return found


def load_chart(path: Path = CHART_FILE) -> RollChart:
    """The frozen roll chart, read once when the cog loads."""
    return parse_chart(path.read_text(encoding="utf-8"))


async def setup(bot: TabletopBot) -> None:
    await bot.add_cog(SystemX(bot, ChartBook(load_chart())))
