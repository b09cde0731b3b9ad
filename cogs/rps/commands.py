"""The `/rps` commands: checks, resisted actions, second tries and sustained actions."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core import rps
from bot.core.dice import Dice
from bot.store import AppliedModifier, BaseTerm, Pool, RollRecord, Store
from bot.ui.embeds import clip, shown_name
from bot.ui.odds import add_odds, resisted_cached, win_line
from bot.ui.permissions import gm_only, is_gm, owner_or_gm
from bot.ui.pools import SYSTEM, roll_pool_check
from bot.ui.reply import UserError, reply
from bot.ui.roll_inputs import all_at_once, rps_fixed, rps_party, rps_spec
from bot.ui.rolls import (
    modifier_waiting,
    publish,
    refuse_dodged_modifiers,
    sheet_of,
    take_modifiers,
)
from bot.ui.rps import (
    ASSUMED_SUCCESS,
    DIFFICULTY_CHOICES,
    FORGONE_ONLY,
    GRANT_TAKEN,
    NOT_FORGONE,
    BaseBuild,
    ended_sentence,
    gm_parts,
    hidden_pool_checks,
    part_records,
    pool_embed,
    pool_insider,
    resisted_compact,
    resisted_details,
    resisted_summary,
    roll_check,
)
from bot.ui.second_tries import grant_second_try, grant_text, logged_check, publish_check
from bot.ui.visibility import choose_visibility, reach_gms, resolve_mode

from .buttons import grant_items, pool_view, refresh_pool_message, try_view

if TYPE_CHECKING:
    from bot.client import TabletopBot

log = logging.getLogger(__name__)

Visibility = Literal["public", "private", "gm", "blind"]
BaseRange = app_commands.Range[int, rps.BASE_MIN, rps.BASE_MAX]
ModifierRange = app_commands.Range[int, rps.MODIFIER_MIN, rps.MODIFIER_MAX]
NAME_MAX = 64
NameText = app_commands.Range[str, 1, NAME_MAX]
LOG_LOOKBACK = 200  # how far back /rps grant looks for the member's last check in the channel


def log_channel(interaction: discord.Interaction[Any]) -> int:
    """The channel a roll is logged under (the same one `publish` uses)."""
    return interaction.channel_id or interaction.user.id


async def guild_channel_check(interaction: discord.Interaction[Any]) -> bool:
    """Sustained actions live in a server channel (RPS-8 is per channel)."""
    if interaction.guild is None:
        raise app_commands.NoPrivateMessage()
    return True


# --------------------------------------------------------------------------------------------------
# Autocomplete helpers


def _user_id(value: Any) -> int | None:
    if value is None:
        return None
    if hasattr(value, "id"):
        return int(value.id)
    try:
        return int(str(value))
    except ValueError:
        return None


def _focused_name(interaction: discord.Interaction[Any]) -> str | None:
    data: dict[str, Any] = dict(interaction.data or {})
    stack: list[Any] = list(data.get("options") or [])
    while stack:
        option = stack.pop()
        if option.get("focused"):
            return str(option["name"])
        stack.extend(option.get("options") or [])
    return None


def _matching(names: Sequence[str], current: str) -> list[app_commands.Choice[str]]:
    wanted = current.strip().casefold()
    seen: set[str] = set()
    out: list[app_commands.Choice[str]] = []
    for name in names:
        key = name.casefold()
        if key in seen or wanted not in key:
            continue
        seen.add(key)
        out.append(app_commands.Choice(name=clip(name, 100), value=clip(name, 100)))
        if len(out) == 25:
            break
    return out


# --------------------------------------------------------------------------------------------------
# The cog


class Rps(
    commands.GroupCog, group_name="rps", group_description="RPS: Base minus 2d10 gives a Success Level."
):
    """RPS checks, resisted actions, second tries and sustained actions."""

    sustained = app_commands.Group(
        name="sustained", description="Sustained actions: a Success Pool per channel."
    )

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot

    @property
    def store(self) -> Store:
        return self.bot.store

    # -- /rps check -------------------------------------------------------------------------------------
    @app_commands.command(name="check", description="An RPS check: Success Level = Base - 2d10.")
    @app_commands.describe(
        skill="A skill from your active RPS sheet (Base = skill + parent attribute)",
        parent="One of the skill's alternate parent attributes (default: its own parent)",
        attribute="An attribute from your active RPS sheet (Base = 2 x attribute)",
        base="A raw Base instead of the sheet",
        difficulty="A named difficulty from the GM guide",
        modifier="Any other modifier to the Base",
        forgo="Take an assumed success, SL 1, without rolling (Base above 15, or granted by a GM)",
        visibility="Who sees the result (default: the channel's setting)",
    )
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    async def check(
        self,
        interaction: discord.Interaction[Any],
        skill: NameText | None = None,
        parent: NameText | None = None,
        attribute: NameText | None = None,
        base: BaseRange | None = None,
        difficulty: app_commands.Choice[int] | None = None,
        modifier: ModifierRange = 0,
        forgo: bool = False,
        visibility: Visibility | None = None,
    ) -> None:
        store = self.store
        mode = await choose_visibility(interaction, store, visibility)
        spec = await rps_spec(
            store,
            interaction,
            interaction.user.id,
            skill=skill,
            parent=parent,
            attribute=attribute,
            base=base,
        )
        fixed = rps_fixed(difficulty.value if difficulty else None, modifier)
        own = spec.build(fixed)  # validates ratings and range before any GM modifier is taken
        gm_user = forgo and await is_gm(interaction, store)  # only a forgone check asks (RPS-6)
        # judged on the player's own Base, before a GM modifier is used up: a refusal changes nothing, and
        # says nothing of a difficulty the GM has left pending
        if (
            forgo
            and not gm_user
            and own.base <= rps.FORGO_ABOVE
            and not await modifier_waiting(interaction, store, SYSTEM, ASSUMED_SUCCESS)
        ):
            rps.forgo(own.base)  # refused: no GM has granted an assumed success
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, store, mode)
        applied = await take_modifiers(interaction, store, SYSTEM, waiting=FORGONE_ONLY)
        build = spec.build(fixed + list(gm_parts(applied)))
        granted: list[AppliedModifier] = []
        if forgo and not gm_user and build.base <= rps.FORGO_ABOVE:
            # RPS-6: a GM's grant lets a player forgo at any Base; it is used only by a check that needs it
            granted = await take_modifiers(interaction, store, SYSTEM, waiting=NOT_FORGONE)
            if not granted and own.base <= rps.FORGO_ABOVE:
                raise UserError(GRANT_TAKEN)
            applied += granted
        # the GM's difficulty brought the Base to 15 or below and no grant waits: the dice are rolled
        forgo_refused = forgo and not gm_user and build.base <= rps.FORGO_ABOVE and not granted
        if forgo and not forgo_refused:
            result = rps.forgo(build.base, granted_by_gm=build.base <= rps.FORGO_ABOVE)
        else:
            result = roll_check(self.bot.rng, build.base)
        await publish_check(
            interaction,
            store,
            mode=mode,
            build=build,
            result=result,
            applied=applied,
            task=build,  # RPS-9: a second try is at this Base, the GM's difficulty included
            gm_items=grant_items,
            forgo_refused=forgo_refused,
        )

    @check.autocomplete("skill")
    async def _skill_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await sheet_of(self.store, interaction, interaction.user.id, SYSTEM)
        return _matching(list(sheet.skills) if sheet else [], current)

    @check.autocomplete("attribute")
    async def _attribute_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await sheet_of(self.store, interaction, interaction.user.id, SYSTEM)
        return _matching(list(sheet.attributes) if sheet else [], current)

    @check.autocomplete("parent")
    async def _parent_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._parents_of(interaction, interaction.user.id, current)

    async def _parents_of(
        self, interaction: discord.Interaction[Any], user_id: int, current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await sheet_of(self.store, interaction, user_id, SYSTEM)
        skill_name = getattr(interaction.namespace, "skill", None)
        found = sheet.skill(str(skill_name)) if sheet and skill_name else None
        if found is None:
            return []
        _, stored = found
        names = ([stored.attribute] if stored.attribute else []) + list(stored.alternates)
        return _matching(names, current)

    # -- /rps resisted ----------------------------------------------------------------------------------
    @app_commands.command(
        name="resisted", description="A resisted action of 2 to 6 parties: highest SL wins."
    )
    @app_commands.describe(
        party1='An NPC\'s name, or for member1 a skill ("Stealth", "Stealth (Perception)") or attribute',
        member1="A member: their active RPS sheet (with party1) or a raw base1",
        base1="The Base of party 1 (an NPC, or a member without a sheet)",
        party2="Party 2's NPC name, or member2's skill or attribute",
        member2="Party 2 as a member",
        base2="The Base of party 2",
        visibility="Who sees the result (default: the channel's setting)",
    )
    async def resisted(
        self,
        interaction: discord.Interaction[Any],
        party1: NameText | None = None,
        member1: discord.User | None = None,
        base1: BaseRange | None = None,
        party2: NameText | None = None,
        member2: discord.User | None = None,
        base2: BaseRange | None = None,
        party3: NameText | None = None,
        member3: discord.User | None = None,
        base3: BaseRange | None = None,
        party4: NameText | None = None,
        member4: discord.User | None = None,
        base4: BaseRange | None = None,
        party5: NameText | None = None,
        member5: discord.User | None = None,
        base5: BaseRange | None = None,
        party6: NameText | None = None,
        member6: discord.User | None = None,
        base6: BaseRange | None = None,
        visibility: Visibility | None = None,
    ) -> None:
        store = self.store
        mode = await choose_visibility(interaction, store, visibility)
        given = [
            (1, party1, member1, base1),
            (2, party2, member2, base2),
            (3, party3, member3, base3),
            (4, party4, member4, base4),
            (5, party5, member5, base5),
            (6, party6, member6, base6),
        ]
        sides = await all_at_once(
            rps_party(store, interaction, number, text, member, base)
            for number, text, member, base in given
            if text is not None or member is not None or base is not None
        )
        specs = [(side.name, side.spec, side.member_id) for side in sides]
        if len(specs) < 2:
            raise UserError(
                "A resisted action needs at least two parties: fill party1/member1/base1 and party2/..."
            )
        names = [name.casefold() for name, _, _ in specs]
        if len(set(names)) != len(names):
            raise UserError("Every party needs a different name.")
        for _, spec, _ in specs:
            spec.build()  # ranges checked before any GM modifier is used up
        await refuse_dodged_modifiers(
            interaction, store, SYSTEM, [member_id for _, _, member_id in specs], unused=FORGONE_ONLY
        )
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, store, mode)
        builds: dict[str, BaseBuild] = {}
        applied_all: list[AppliedModifier] = []
        applied_by: list[tuple[str, list[AppliedModifier]]] = []
        parties: list[rps.ResistedParty] = []
        dice = Dice(self.bot.rng)
        for name, spec, member_id in specs:
            applied = (
                await take_modifiers(interaction, store, SYSTEM, user_id=member_id, waiting=FORGONE_ONLY)
                if member_id
                else []
            )
            applied_all += applied
            applied_by.append((name, applied))
            builds[name] = spec.build(gm_parts(applied))
            parties.append(rps.ResistedParty(name, builds[name].base, (dice.d10(), dice.d10())))
        result = rps.resisted(parties, reroll=lambda party: (dice.d10(), dice.d10()))
        details = resisted_details(result, builds, applied_all)
        names = [name for name, _, _ in specs]
        # up to ~0.3 s for six parties: off the event loop
        odds = await self.bot.workers.run(resisted_cached, tuple(builds[name].base for name in names))
        add_odds(details, win_line(names, odds, result.winner))
        await publish(
            interaction,
            store,
            resisted_compact(result, applied_by),
            details=details,
            mode=mode,
            system=SYSTEM,
            command="rps resisted",
            inputs={
                "kind": "resisted",
                "parties": [
                    {"name": name, "base": builds[name].base, "member_id": member_id}
                    for name, _, member_id in specs
                ],
                "winner": result.winner,
                "sl": result.sl,
            },
            dice=[[[n, list(c.dice or ())] for n, c in rnd.checks] for rnd in result.rounds],
            result=f"{result.winner} wins, SL {result.sl}",
            summary=resisted_summary(result),
            kind="RPS resisted action",
        )

    @resisted.autocomplete("party1")
    @resisted.autocomplete("party2")
    @resisted.autocomplete("party3")
    @resisted.autocomplete("party4")
    @resisted.autocomplete("party5")
    @resisted.autocomplete("party6")
    async def _party_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        focused = _focused_name(interaction) or "party1"
        member_id = _user_id(getattr(interaction.namespace, "member" + focused.removeprefix("party"), None))
        if member_id is None:
            return []  # an NPC's name is free text
        sheet = await sheet_of(self.store, interaction, member_id, SYSTEM)
        if sheet is None:
            return []
        names: list[str] = []
        for name, skill in sheet.skills.items():
            names.append(name)
            names += [f"{name} ({alt})" for alt in skill.alternates]
        names += list(sheet.attributes)
        # a choice longer than the option takes would be refused by Discord when picked
        return _matching([n for n in names if len(n) <= NAME_MAX], current)

    # -- /rps grant -------------------------------------------------------------------------------------
    @app_commands.command(
        name="grant", description="GM: grant a player a second try of their last failed RPS check here."
    )
    @app_commands.describe(
        member="Whose last RPS check in this channel failed",
        modifier="An extra modifier for the second try, -5..+5 (default 0)",
    )
    @gm_only()
    async def grant(
        self,
        interaction: discord.Interaction[Any],
        member: discord.User,
        modifier: app_commands.Range[int, rps.SECOND_TRY_MIN, rps.SECOND_TRY_MAX] = 0,
    ) -> None:
        # the same grant as the button on a failed check, for a check the GM did not see (a private one)
        record = await self._last_check(interaction, member.id)
        if record is None:
            raise UserError(
                f"{shown_name(member.display_name)} has made no RPS check in this channel to try again."
            )
        grant = await grant_second_try(interaction, self.store, record, modifier)
        try:
            await reply(interaction, grant_text(record, grant), view=try_view(grant.log_id))
        except discord.HTTPException:
            await self.store.second_tries.withdraw(grant.log_id)  # no button: the grant can be made again
            raise

    async def _last_check(self, interaction: discord.Interaction[Any], user_id: int) -> RollRecord | None:
        guild_id = interaction.guild.id if interaction.guild is not None else None
        for record in await self.store.log.last(guild_id, log_channel(interaction), LOG_LOOKBACK):
            if logged_check(record) is not None and record.inputs.get("roller_id") == user_id:
                return record
        return None

    # -- /rps sustained ---------------------------------------------------------------------------------
    @sustained.command(
        name="start", description="GM: start a sustained action with a Goal and a Success Pool."
    )
    @app_commands.describe(
        name="What the action is called in this channel",
        goal="The Success Pool needed (at least 1)",
        minutes="Time each check takes, in minutes",
        member="Who makes the checks (default: you); their sheet gives skill/attribute",
        base="A raw Base instead of a sheet's skill or attribute",
        skill="A skill from the member's active RPS sheet",
        parent="One of the skill's alternate parent attributes",
        attribute="An attribute from the member's active RPS sheet (2 x attribute)",
        difficulty="A named difficulty",
        modifier="Any other modifier to the Base",
        no_loss="A failed check takes nothing from the pool (instead of 1)",
    )
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    @app_commands.check(guild_channel_check)
    @gm_only()
    async def sustained_start(
        self,
        interaction: discord.Interaction[Any],
        name: NameText,
        goal: app_commands.Range[int, 1, 10_000],
        minutes: app_commands.Range[int, 1, 1_000_000],
        member: discord.User | None = None,
        base: BaseRange | None = None,
        skill: NameText | None = None,
        parent: NameText | None = None,
        attribute: NameText | None = None,
        difficulty: app_commands.Choice[int] | None = None,
        modifier: ModifierRange = 0,
        no_loss: bool = False,
    ) -> None:
        store = self.store
        assert interaction.guild is not None and interaction.channel_id is not None
        owner = member or interaction.user
        spec = await rps_spec(
            store, interaction, owner.id, skill=skill, parent=parent, attribute=attribute, base=base
        )
        build = spec.build(rps_fixed(difficulty.value if difficulty else None, modifier))
        rps.start_pool(goal, build.base, minutes, no_loss)  # the core's checks first
        pool = await store.pools.start(
            interaction.guild.id,
            interaction.channel_id,
            owner.id,
            name,
            goal,
            build.base,
            minutes,
            "minutes",
            no_loss=no_loss,
            skill=clip(build.what, 64) if base is None else None,
            base_parts=[BaseTerm(**record) for record in part_records(build.parts)],
        )
        embed = pool_embed(pool)
        embed.add_field(name="Base built", value=clip(build.text(), 1024), inline=False)
        message = await reply(interaction, embed=embed, view=pool_view(pool))
        if message is not None:
            await store.pools.set_message_id(pool.id, message.id)

    @sustained.command(
        name="roll", description="Roll the next check of a sustained action (its owner or a GM)."
    )
    @app_commands.describe(
        name="The sustained action", visibility="Who sees the check (default: the channel's setting)"
    )
    @app_commands.check(guild_channel_check)
    async def sustained_roll(
        self, interaction: discord.Interaction[Any], name: NameText, visibility: Visibility | None = None
    ) -> None:
        store = self.store
        pool = await self._pool(interaction, name)
        if not pool.running:
            raise UserError(f"{await ended_sentence(interaction, store, pool)}.")
        if not await owner_or_gm(interaction, store, pool.owner_id):
            return
        mode = await resolve_mode(interaction, store, visibility)
        updated, hidden = await roll_pool_check(interaction, store, pool, mode)
        await refresh_pool_message(interaction.client, updated, hidden=hidden)

    @sustained.command(
        name="status", description="Where a sustained action stands: pool, checks, time spent."
    )
    @app_commands.describe(name="The sustained action")
    @app_commands.check(guild_channel_check)
    async def sustained_status(self, interaction: discord.Interaction[Any], name: NameText) -> None:
        pool = await self._pool(interaction, name)
        # what the pool's public message shows: all of it, unless a check of it is hidden and not revealed
        # yet (its result would show in the pool); GMs, and the owner unless it was a check they did not
        # see, see it whole all the same
        hidden = await hidden_pool_checks(self.store, pool)
        veiled = bool(hidden) and not await pool_insider(interaction, self.store, pool, hidden)
        await reply(interaction, embed=pool_embed(pool, hidden=veiled), ephemeral=True)

    @sustained.command(name="stop", description="GM: stop a running sustained action.")
    @app_commands.describe(name="The sustained action")
    @app_commands.check(guild_channel_check)
    @gm_only()
    async def sustained_stop(self, interaction: discord.Interaction[Any], name: NameText) -> None:
        pool = await self._pool(interaction, name)
        if not pool.running:
            raise UserError(f"The sustained action {pool.name!r} has already {pool.state}.")
        stopped = await self.store.pools.stop(pool.id)
        if stopped.state != "stopped":  # a check ended it after our read: its own message says how
            raise UserError(f"The sustained action {stopped.name!r} has already {stopped.state}.")
        # the public message keeps hiding what an unrevealed hidden check did to the pool
        hidden = bool(await hidden_pool_checks(self.store, stopped))
        await refresh_pool_message(interaction.client, stopped, hidden=hidden)
        await reply(
            interaction,
            f"Stopped the sustained action {stopped.name!r}.",
            embed=pool_embed(stopped),
            ephemeral=True,
        )

    async def _pool(self, interaction: discord.Interaction[Any], name: str) -> Pool:
        assert interaction.guild is not None and interaction.channel_id is not None
        return await self.store.pools.get(interaction.guild.id, interaction.channel_id, name)

    @sustained_roll.autocomplete("name")
    @sustained_stop.autocomplete("name")
    async def _running_pool_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._pool_choices(interaction, current, running_only=True)

    @sustained_status.autocomplete("name")
    async def _any_pool_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return await self._pool_choices(interaction, current, running_only=False)

    async def _pool_choices(
        self, interaction: discord.Interaction[Any], current: str, *, running_only: bool
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild is None or interaction.channel_id is None:
            return []
        pools = await self.store.pools.list(
            interaction.guild.id, interaction.channel_id, running_only=running_only
        )
        return _matching([p.name for p in reversed(pools)], current)

    @sustained_start.autocomplete("skill")
    async def _start_skill_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        owner = _user_id(getattr(interaction.namespace, "member", None)) or interaction.user.id
        sheet = await sheet_of(self.store, interaction, owner, SYSTEM)
        return _matching(list(sheet.skills) if sheet else [], current)

    @sustained_start.autocomplete("attribute")
    async def _start_attribute_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        owner = _user_id(getattr(interaction.namespace, "member", None)) or interaction.user.id
        sheet = await sheet_of(self.store, interaction, owner, SYSTEM)
        return _matching(list(sheet.attributes) if sheet else [], current)

    @sustained_start.autocomplete("parent")
    async def _start_parent_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        owner = _user_id(getattr(interaction.namespace, "member", None)) or interaction.user.id
        return await self._parents_of(interaction, owner, current)
