"""The `/rps` commands: checks, resisted actions, second tries and sustained actions (RPS-1..RPS-10)."""

from __future__ import annotations

import asyncio
import logging
import re
import weakref
from collections.abc import Sequence
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core import rps
from bot.core.dice import Dice
from bot.store import AppliedModifier, Pool, RollRecord, Sheet, Store
from bot.ui.embeds import clip, shown_name
from bot.ui.odds import add_odds, resisted_cached, rps_line, win_line
from bot.ui.permissions import gm_only, is_gm, owner_or_gm
from bot.ui.pools import SYSTEM, roll_pool_check
from bot.ui.reply import UserError, reply
from bot.ui.rolls import publish, sheet_of, take_modifiers
from bot.ui.rps import (
    DIFFICULTY_CHOICES,
    BaseBuild,
    BasePart,
    BaseSpec,
    check_embed,
    check_summary,
    difficulty_part,
    ended_sentence,
    gm_parts,
    hidden_pool_checks,
    pool_embed,
    pool_insider,
    raw_spec,
    resisted_embed,
    resisted_summary,
    roll_check,
)
from bot.ui.visibility import Mode, resolve_mode

from .buttons import pool_view, refresh_pool_message

log = logging.getLogger(__name__)

Visibility = Literal["public", "private", "gm", "blind"]
BaseRange = app_commands.Range[int, rps.BASE_MIN, rps.BASE_MAX]
ModifierRange = app_commands.Range[int, rps.MODIFIER_MIN, rps.MODIFIER_MAX]
NameText = app_commands.Range[str, 1, 64]
MAX_PARTIES = 6
LOG_LOOKBACK = 200  # how far back /rps retry looks for the roller's last check in the channel
CHECK_KIND = "check"  # inputs["kind"] of a logged /rps check or retry (what /rps retry may retry)
PARENT_SUFFIX = re.compile(r"^(?P<skill>.+?)\s*\((?P<parent>[^()]+)\)\s*$")


# --------------------------------------------------------------------------------------------------
# Where a Base comes from


def sheet_spec(sheet: Sheet, skill: str | None, parent: str | None, attribute: str | None) -> BaseSpec:
    """A skill (with its parent or a chosen alternate) or an attribute (x 2) of ``sheet`` (RPS-1)."""
    if skill is not None:
        found = sheet.skill(skill)
        if found is None:
            raise UserError(f"Your sheet {sheet.name} has no skill named {skill.strip()!r}.")
        name, stored = found
        if stored.attribute is None:
            raise UserError(f"{name} on {sheet.name} has no parent attribute; set one with /sheet set-skill.")
        core_skill = rps.Skill(name, stored.rating, stored.attribute, tuple(stored.alternates))
        parent_name = core_skill.parent(parent)
        attr = sheet.attribute(parent_name)
        if attr is None:
            raise UserError(f"Your sheet {sheet.name} has no attribute {parent_name!r} for {name}.")
        attr_name, value = attr
        rating = stored.rating
        return BaseSpec(
            f"{name} ({attr_name})",
            (BasePart(name, rating), BasePart(attr_name, value)),
            lambda mods: rps.skill_base(rating, value, mods),
        )
    if parent is not None:
        raise UserError("A parent attribute goes with a skill; pick the skill too.")
    assert attribute is not None
    attr = sheet.attribute(attribute)
    if attr is None:
        raise UserError(f"Your sheet {sheet.name} has no attribute named {attribute.strip()!r}.")
    attr_name, value = attr
    return BaseSpec(
        f"{attr_name} x 2",
        (BasePart(attr_name, 2 * value, shown=f"2 x {attr_name} {value}"),),
        lambda mods: rps.attribute_base(value, mods),
    )


async def active_sheet(store: Store, interaction: discord.Interaction[Any], user_id: int) -> Sheet:
    """The RPS sheet ``user_id`` is using here (guild key 0 in DMs), or a sentence saying there is none."""
    sheet = await sheet_of(store, interaction, user_id, SYSTEM)
    if sheet is None:
        who = "You have" if user_id == interaction.user.id else f"<@{user_id}> has"
        raise UserError(
            f"{who} no active RPS sheet here; create one with /sheet create or pick one with /sheet use."
        )
    return sheet


async def choose_spec(
    store: Store,
    interaction: discord.Interaction[Any],
    user_id: int,
    skill: str | None,
    parent: str | None,
    attribute: str | None,
    base: int | None,
) -> BaseSpec:
    """Exactly one of skill, attribute and base, turned into a BaseSpec."""
    given = [
        name
        for name, value in (("skill", skill), ("attribute", attribute), ("base", base))
        if value is not None
    ]
    if len(given) != 1:
        raise UserError("Give exactly one of skill, attribute or base.")
    if base is not None:
        if parent is not None:
            raise UserError("A parent attribute goes with a skill, not with a raw base.")
        return raw_spec(base)
    return sheet_spec(await active_sheet(store, interaction, user_id), skill, parent, attribute)


def fixed_modifiers(difficulty: int | None, modifier: int) -> list[BasePart]:
    """The named difficulty (RPS-1) and the extra modifier, as Base parts."""
    parts: list[BasePart] = []
    if difficulty is not None:
        parts.append(difficulty_part(rps.difficulty(difficulty)))
    if modifier:
        parts.append(BasePart("modifier", modifier, modifier=True))
    return parts


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

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        # one second try at a time per roller and channel: two at once would both find the same failed
        # check last and both roll (RPS-9 grants one)
        self._retrying: weakref.WeakValueDictionary[tuple[int | None, int, int], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    @property
    def store(self) -> Store:
        return self.bot.store  # type: ignore[attr-defined,no-any-return]

    # -- /rps check -------------------------------------------------------------------------------------
    @app_commands.command(name="check", description="An RPS check: Success Level = Base - 2d10.")
    @app_commands.describe(
        skill="A skill from your active RPS sheet (Base = skill + parent attribute)",
        parent="One of the skill's alternate parent attributes (default: its own parent)",
        attribute="An attribute from your active RPS sheet (Base = 2 x attribute)",
        base="A raw Base instead of the sheet",
        difficulty="A named difficulty from the GM guide (RPS-1)",
        modifier="Any other modifier to the Base",
        forgo="Take an assumed success, SL 1, without rolling (Base above 15, or a GM) (RPS-6)",
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
        mode = await resolve_mode(interaction, store, visibility)
        spec = await choose_spec(store, interaction, interaction.user.id, skill, parent, attribute, base)
        fixed = fixed_modifiers(difficulty.value if difficulty else None, modifier)
        task = spec.build(fixed)  # validates ratings and range before any GM modifier is taken
        gm_user = forgo and await is_gm(interaction, store)  # only a forgone check asks (RPS-6)
        if forgo and interaction.channel_id is not None:
            # refuse a forgo that cannot stand before a GM modifier is used up: a refusal changes nothing
            preview = await store.modifiers.pending_for(
                interaction.guild.id if interaction.guild else None,
                interaction.channel_id,
                SYSTEM,
                interaction.user.id,
            )
            predicted = spec.build(fixed + list(gm_parts(preview)))
            rps.forgo(predicted.base, granted_by_gm=gm_user)
        applied = await take_modifiers(interaction, store, SYSTEM)
        build = spec.build(fixed + list(gm_parts(applied)))
        if forgo:
            result = rps.forgo(build.base, granted_by_gm=gm_user and build.base <= rps.FORGO_ABOVE)
        else:
            result = roll_check(self.bot.rng, build.base)  # type: ignore[attr-defined]
        await self._publish_check(interaction, mode, build, result, applied, task_base=task.base)

    async def _publish_check(
        self,
        interaction: discord.Interaction[Any],
        mode: Mode,
        build: BaseBuild,
        result: rps.RpsCheck,
        applied: Sequence[AppliedModifier],
        *,
        task_base: int,
        roller: discord.abc.User | None = None,
        retry_of: int | None = None,
        extra_fields: Sequence[tuple[str, str]] = (),
    ) -> None:
        who = roller or interaction.user
        title = f"RPS {'second try: ' if retry_of else ''}{build.what}: {result.name}"
        embed = check_embed(
            build,
            result,
            applied,
            title=title,
            extra_fields=extra_fields,
            rules=["RPS-9"] if retry_of else [],
            author=f"for {shown_name(who.display_name, markdown=False)}"
            if who.id != interaction.user.id
            else None,
        )
        if result.dice is not None:  # a forgone check (RPS-6) had no chance to take
            add_odds(embed, rps_line(build.base, result.sl))
        await publish(
            interaction,
            self.store,
            embed,
            mode=mode,
            system=SYSTEM,
            command="rps retry" if retry_of else "rps check",
            inputs={
                "kind": CHECK_KIND,
                "roller_id": who.id,
                "what": build.what,
                "base": build.base,
                "task_base": task_base,
                "parts": [part.text() for part in build.parts],
                "assumed": result.assumed,
                "granted_by_gm": result.granted_by_gm,
                "sl": result.sl,
                "retry_of": retry_of,
            },
            dice=list(result.dice) if result.dice else [],
            result=f"SL {result.sl}: {result.name}",
            summary=check_summary(build, result),
            kind="RPS check",
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
        name="resisted", description="A resisted action of 2 to 6 parties: highest SL wins (RPS-7)."
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
        mode = await resolve_mode(interaction, store, visibility)
        given = [
            (1, party1, member1, base1),
            (2, party2, member2, base2),
            (3, party3, member3, base3),
            (4, party4, member4, base4),
            (5, party5, member5, base5),
            (6, party6, member6, base6),
        ]
        specs: list[tuple[str, BaseSpec, int | None]] = []
        for number, text, member, base in given:
            if text is None and member is None and base is None:
                continue
            specs.append(await self._party_spec(interaction, number, text, member, base))
        if len(specs) < 2:
            raise UserError(
                "A resisted action needs at least two parties: fill party1/member1/base1 and party2/..."
            )
        names = [name.casefold() for name, _, _ in specs]
        if len(set(names)) != len(names):
            raise UserError("Every party needs a different name.")
        for _, spec, _ in specs:
            spec.build()  # ranges checked before any GM modifier is used up
        builds: dict[str, BaseBuild] = {}
        applied_all: list[AppliedModifier] = []
        parties: list[rps.ResistedParty] = []
        dice = Dice(self.bot.rng)  # type: ignore[attr-defined]
        for name, spec, member_id in specs:
            applied = await take_modifiers(interaction, store, SYSTEM, user_id=member_id) if member_id else []
            applied_all += applied
            builds[name] = spec.build(gm_parts(applied))
            parties.append(rps.ResistedParty(name, builds[name].base, (dice.d10(), dice.d10())))
        result = rps.resisted(parties, reroll=lambda party: (dice.d10(), dice.d10()))
        embed = resisted_embed(result, builds, applied_all)
        names = [name for name, _, _ in specs]
        # up to ~0.3 s for six parties: off the event loop
        odds = await self.bot.workers.run(resisted_cached, tuple(builds[name].base for name in names))
        add_odds(embed, win_line(names, odds, result.winner))
        await publish(
            interaction,
            store,
            embed,
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

    async def _party_spec(
        self,
        interaction: discord.Interaction[Any],
        number: int,
        text: str | None,
        member: discord.User | None,
        base: int | None,
    ) -> tuple[str, BaseSpec, int | None]:
        if member is None:
            if text is None or base is None:
                raise UserError(
                    f"Party {number} needs a name (party{number}) and a Base (base{number}), or a member."
                )
            return text.strip(), raw_spec(base), None
        name = shown_name(member.display_name)
        if base is not None:
            return name, raw_spec(base, text.strip() if text else "Base"), member.id
        if text is None:
            raise UserError(
                f"Give member{number}'s skill or attribute in party{number}, or a raw base{number}."
            )
        sheet = await active_sheet(self.store, interaction, member.id)
        skill, parent = text.strip(), None
        matched = PARENT_SUFFIX.match(skill)
        if sheet.skill(skill) is None and matched is not None:
            skill, parent = matched["skill"], matched["parent"]
        if sheet.skill(skill) is not None:
            return name, sheet_spec(sheet, skill, parent, None), member.id
        if sheet.attribute(skill) is not None:
            return name, sheet_spec(sheet, None, None, skill), member.id
        raise UserError(f"{sheet.name} has no skill or attribute named {text.strip()!r}.")

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
        return _matching(names, current)

    # -- /rps retry -------------------------------------------------------------------------------------
    @app_commands.command(
        name="retry", description="A second try of your last failed RPS check here (RPS-9)."
    )
    @app_commands.describe(
        modifier="The GM's extra modifier for the second try, -5..+5 (non-zero: GMs only)",
        member="GMs: make the second try for this member's last failed check",
        visibility="Who sees the result (default: the channel's setting)",
    )
    async def retry(
        self,
        interaction: discord.Interaction[Any],
        modifier: app_commands.Range[int, rps.SECOND_TRY_MIN, rps.SECOND_TRY_MAX] = 0,
        member: discord.User | None = None,
        visibility: Visibility | None = None,
    ) -> None:
        store = self.store
        mode = await resolve_mode(interaction, store, visibility)
        roller: discord.abc.User = member or interaction.user
        gm_user = await is_gm(interaction, store)
        if roller.id != interaction.user.id and not gm_user:
            raise UserError("Only a GM can make a second try for another player.")
        if modifier and not gm_user:
            raise UserError(
                "Only a GM can grant a second try an extra modifier (RPS-9); "
                "retry with modifier 0, or ask the GM."
            )
        key = (interaction.guild_id, log_channel(interaction), roller.id)
        lock = self._retrying.get(key)
        if lock is None:
            lock = self._retrying[key] = asyncio.Lock()
        async with lock:  # held until the second try is logged, so the next one finds it
            await self._retry(interaction, mode, roller, modifier, gm_user)

    async def _retry(
        self,
        interaction: discord.Interaction[Any],
        mode: Mode,
        roller: discord.abc.User,
        modifier: int,
        gm_user: bool,
    ) -> None:
        store = self.store
        record = await self._last_check(interaction, roller.id)
        if record is None:
            whose = (
                "You have" if roller.id == interaction.user.id else f"{shown_name(roller.display_name)} has"
            )
            raise UserError(f"{whose} made no RPS check in this channel to try again.")
        if record.visibility == "blind" and record.hidden and not gm_user:
            # either answer would tell a blind roller whether the check failed (issue 7: nothing leaks)
            raise UserError("Your last check was a blind roll: ask the GM for a second try.")
        if record.hidden and not gm_user and record.user_id != interaction.user.id:
            # a GM's hidden second try for this player: the answer would tell how it went
            raise UserError("Your last check was made hidden by a GM: ask the GM for a second try.")
        inputs = record.inputs
        previous = (
            rps.forgo(inputs["base"], granted_by_gm=True)
            if inputs.get("assumed")
            else rps.check(inputs["base"], *record.dice)
        )
        extra = rps.second_try_modifier(previous, modifier)  # refuses a check that succeeded (RPS-9)
        if inputs.get("retry_of") is not None and not gm_user:
            raise UserError("That check was already a second try; only a GM can grant another.")
        task_base = int(inputs["task_base"])
        spec = raw_spec(task_base, str(inputs.get("what") or "Base"))
        fixed = [BasePart("second try", extra, modifier=True)] if extra else []
        spec.build(fixed)
        applied = await take_modifiers(interaction, store, SYSTEM, user_id=roller.id)
        build = spec.build(fixed + list(gm_parts(applied)))
        result = roll_check(self.bot.rng, build.base)  # type: ignore[attr-defined]
        # an unrevealed hidden check's SL stays out of a public second try
        shown_sl = "" if record.hidden and mode == "public" else f" (SL {previous.sl})"
        note = (
            f"of the failed check #{record.id}{shown_sl}, Base {task_base} before GM modifiers; "
            f"extra modifier {extra:+d}"
        )
        await self._publish_check(
            interaction,
            mode,
            build,
            result,
            applied,
            task_base=task_base,
            roller=roller,
            retry_of=record.id,
            extra_fields=[("Second try", note)],
        )

    async def _last_check(self, interaction: discord.Interaction[Any], user_id: int) -> RollRecord | None:
        guild_id = interaction.guild.id if interaction.guild is not None else None
        for record in await self.store.log.last(guild_id, log_channel(interaction), LOG_LOOKBACK):
            inputs = record.inputs if isinstance(record.inputs, dict) else {}
            if (
                record.system == SYSTEM
                and inputs.get("kind") == CHECK_KIND
                and inputs.get("roller_id") == user_id
            ):
                return record
        return None

    # -- /rps sustained ---------------------------------------------------------------------------------
    @sustained.command(
        name="start", description="GM: start a sustained action with a Goal and a Success Pool (RPS-8)."
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
        difficulty="A named difficulty (RPS-1)",
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
        spec = await choose_spec(store, interaction, owner.id, skill, parent, attribute, base)
        build = spec.build(fixed_modifiers(difficulty.value if difficulty else None, modifier))
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
        # GMs (and the owner, unless a check they did not see is unrevealed) see everything; others what a
        # hidden check would leave on the pool's message
        insider = await pool_insider(interaction, self.store, pool)
        await reply(interaction, embed=pool_embed(pool, hidden=not insider), ephemeral=True)

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
        # the public message keeps hiding what an unrevealed hidden check did to the pool (issue 7)
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
