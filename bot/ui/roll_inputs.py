"""One way to read a roll's options: a sheet's skill, attribute or stat, or raw numbers, into what a rule
takes (an SV, a Base, a DN, a stat, a skill level), with the breakdown the result shows.

The roll commands and `/odds` call the same functions, so the odds a player asks for are always for the
numbers the roll would use, and both refuse the same input with the same sentence. Each store read is a
round trip to the database's thread: a roll's independent reads (its sheets, the guild's settings) are
made at once with ``asyncio.gather``, and a sheet is read once however many of its entries are named.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

import discord

from bot.core import rps
from bot.core.common import one_line
from bot.core.systemx import MarginStyle, RollChart
from bot.store import GuildSettings, Holder, NotFound, Sheet, Store, SupplyDie
from bot.store.models import name_key
from bot.ui.cards import read_characteristics
from bot.ui.decision import StatSource, supply_empty_sentence
from bot.ui.dn import NO_SHEET_HINT as DN_NO_SHEET_HINT
from bot.ui.dn import SkillUse, skill_use
from bot.ui.embeds import shown_name
from bot.ui.gm import settings_read
from bot.ui.options import whole_number
from bot.ui.reply import UserError
from bot.ui.rolls import sheet_of
from bot.ui.rps import BasePart, BaseSpec, difficulty_part, raw_spec
from bot.ui.sysx import NO_SHEET_HINT as SX_NO_SHEET_HINT
from bot.ui.sysx import (
    ChartBook,
    SkillSource,
    from_numbers,
    from_sheet,
    margin_style,
    split_list,
    who_rolled,
)

PARENT_SUFFIX = re.compile(r"^(?P<skill>.+?)\s*\((?P<parent>[^()]+)\)\s*$")  # "Stealth (Perception)"
A = TypeVar("A")
B = TypeVar("B")
C = TypeVar("C")


@overload
async def at_once(a: Awaitable[A], b: Awaitable[B], /) -> tuple[A, B]: ...
@overload
async def at_once(a: Awaitable[A], b: Awaitable[B], c: Awaitable[C], /) -> tuple[A, B, C]: ...
async def at_once(*reads: Awaitable[Any]) -> tuple[Any, ...]:
    """Independent reads made at once; each one finishes, then the first failure (in order) is raised,
    so a refusal is always the first one the options would meet."""
    return tuple(await all_at_once(reads))


async def all_at_once(reads: Iterable[Awaitable[A]]) -> list[A]:
    """`at_once` for any number of reads of one kind."""
    results = await asyncio.gather(*reads, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return list(results)  # type: ignore[arg-type]  # no exceptions left


def _whose(interaction: discord.Interaction[Any], who: discord.abc.User) -> tuple[str, str]:
    """("You have", "your") for the user themself, else ("<@id> has", "<@id>'s")."""
    if who.id == interaction.user.id:
        return "You have", "your"
    return f"{who.mention} has", f"{who.mention}'s"


async def guild_settings(store: Store, interaction: discord.Interaction[Any]) -> GuildSettings | None:
    """The guild's settings (None in DMs), as the read before the roll found them when there was one."""
    if interaction.guild is None:
        return None
    return await settings_read(store, interaction, interaction.guild.id)


# ---------------------------------------------------------------------------------------------------
# System X (SX-1, SX-2)


@dataclass(frozen=True)
class SxTable:
    """The roll chart a guild uses (SX-5), whether it is the guild's own, and how margins are shown."""

    chart: RollChart
    custom: bool
    style: MarginStyle


async def sysx_table(store: Store, interaction: discord.Interaction[Any], charts: ChartBook) -> SxTable:
    """The guild's chart and margin display."""
    settings = await guild_settings(store, interaction)
    chart, custom = charts.chart(settings)
    return SxTable(chart, custom, margin_style(settings))


async def sysx_source(
    store: Store,
    interaction: discord.Interaction[Any],
    who: discord.abc.User,
    *,
    skill: str | None,
    sv: int | None,
    attribute: int | None = None,
    rating: int | None = None,
) -> SkillSource:
    """``who``'s SV from a skill of their active System X sheet, or from raw numbers (exactly one)."""
    raw = from_numbers(sv, attribute, rating)
    has, whose = _whose(interaction, who)
    if skill is not None and skill.strip():
        if raw is not None:
            raise UserError("Give either a skill from the sheet or raw numbers, not both.")
        sheet = await sheet_of(store, interaction, who.id, "sysx")
        if sheet is None:
            raise UserError(f"{has} no active System X sheet here; {SX_NO_SHEET_HINT}.")
        return from_sheet(sheet, skill)
    if raw is None:
        raise UserError(
            f"Name a skill from {whose} System X sheet, or give an SV (or an attribute and a skill rating)."
        )
    return raw


async def sysx_check_inputs(
    store: Store,
    interaction: discord.Interaction[Any],
    charts: ChartBook,
    *,
    skill: str | None,
    sv: int | None,
    attribute: int | None,
    rating: int | None,
) -> tuple[SxTable, SkillSource]:
    """A System X check's chart and the user's own SV (`/sysx check` and `/odds sysx`), read at once."""
    return await at_once(
        sysx_table(store, interaction, charts),
        sysx_source(
            store, interaction, interaction.user, skill=skill, sv=sv, attribute=attribute, rating=rating
        ),
    )


async def sysx_entries(
    store: Store, interaction: discord.Interaction[Any], entries: Sequence[str]
) -> list[SkillSource]:
    """A list of SVs and skills of the user's own sheet, in order (a synergy chain, the other actors of
    a combined check's odds); the sheet is read once, and only when a skill is named."""
    named = [entry for entry in entries if whole_number(entry) is None]
    for entry in named:  # "12.5", "1e3": meant as a Skill Value, which is a whole number
        if re.fullmatch(r"[+\-−]?[0-9.][0-9.,eE+\-]*", entry.strip()):
            raise UserError(f"A Skill Value is a whole number, not {entry.strip()[:20]!r}.")
    sheet = await sheet_of(store, interaction, interaction.user.id, "sysx") if named else None
    if named and sheet is None:
        raise UserError(f"You have no active System X sheet here for {named[0][:64]!r}; {SX_NO_SHEET_HINT}.")
    sources: list[SkillSource] = []
    for entry in entries:
        number = whole_number(entry)
        if number is None:
            assert sheet is not None
            sources.append(from_sheet(sheet, entry))
        else:
            found = from_numbers(number, None, None)
            assert found is not None
            sources.append(found)
    return sources


@dataclass(frozen=True)
class SxParty:
    """One side of an opposed or combined check: a member (with their sheet or a raw SV) or a named NPC."""

    name: str  # in the details: a mention, or the NPC's name as results show it
    shown: str  # in the compact result: the member's character (else their name), or the NPC's name
    source: SkillSource
    member_id: int | None  # None for an NPC: no sheet, no GM modifiers


async def sysx_party(
    store: Store,
    interaction: discord.Interaction[Any],
    *,
    slot: str,
    member: discord.abc.User | None,
    npc: str | None,
    skill: str | None,
    sv: int | None,
    npc_option: str,
    sv_option: str,
) -> SxParty:
    """A member (their active sheet's skill, or a raw SV) or a named NPC with a raw SV; ``slot`` names the
    side in refusals ("the actor", "actor 3"), the options say where the NPC's name and SV go."""
    if member is not None and npc is not None:
        raise UserError(f"Give {slot} as a member or as an NPC's name ({npc_option}), not both.")
    if member is not None:
        source = await sysx_source(store, interaction, member, skill=skill, sv=sv)
        return SxParty(member.mention, who_rolled(member.display_name, source), source, member.id)
    if npc is None or not npc.strip():
        raise UserError(f"Give {slot}: a member, or an NPC's name in {npc_option} with its SV.")
    if skill is not None and skill.strip():
        raise UserError(f"An NPC has no sheet: give {npc.strip()[:64]}'s SV in {sv_option}, not a skill.")
    if sv is None:
        raise UserError(f"Give the NPC {npc.strip()[:64]}'s Skill Value in {sv_option}.")
    given = from_numbers(sv, None, None)
    assert given is not None
    name = shown_name(npc.strip())
    return SxParty(name, name, given, None)


def unnamed_party(
    slot: str,
    member: discord.abc.User | None,
    npc: str | None,
    skill: str | None,
    sv: int | None,
    user: discord.abc.User,
) -> tuple[discord.abc.User | None, str | None]:
    """A side given without a member or an NPC's name: by a skill alone, the user's own sheet (as
    ``/sysx check skill:``); by a Skill Value alone, an NPC named for its slot ("Actor 2", "The target").
    Anything else is left for `sysx_party` to take or refuse."""
    if member is not None or (npc is not None and npc.strip()):
        return member, npc
    has_skill = skill is not None and bool(skill.strip())
    if has_skill and sv is None:
        return user, npc
    if sv is not None and not has_skill:
        return None, slot[:1].upper() + slot[1:]
    if has_skill and sv is not None:  # as /sysx check says it: which one was meant is not ours to guess
        raise UserError(f"Give {slot} a skill or a Skill Value, not both.")
    return member, npc


def distinct_parties(sides: Sequence[tuple[discord.abc.User | None, str | None]]) -> None:
    """Refuse a member or an NPC named twice among (member, NPC name) sides: each takes part once.
    Checked before any sheet is read."""
    keys: list[str] = []
    for member, npc in sides:
        if member is not None:
            keys.append(f"member:{member.id}")
        elif npc is not None:
            keys.append(f"npc:{name_key(npc)}")
    if len(set(keys)) != len(keys):
        raise UserError("Each member or NPC takes part only once; give NPCs different names.")


# ---------------------------------------------------------------------------------------------------
# Difficulty Number (DN-1)


async def dn_skill_use(
    store: Store, interaction: discord.Interaction[Any], skill: str, characteristics: str | None
) -> SkillUse:
    """A skill of the user's active DN sheet with its natural ability (the characteristics named, by
    commas, or the skill's own)."""
    named = split_list(characteristics, low=1, high=10, what="characteristics") if characteristics else []
    sheet = await sheet_of(store, interaction, interaction.user.id, "dn")
    if sheet is None:
        raise UserError(f"You have no active Difficulty Number sheet here; {DN_NO_SHEET_HINT}.")
    return skill_use(sheet, skill, named)


# ---------------------------------------------------------------------------------------------------
# RPS (RPS-1)


async def rps_sheet(store: Store, interaction: discord.Interaction[Any], user_id: int) -> Sheet:
    """The RPS sheet ``user_id`` is using here, or a sentence saying there is none."""
    sheet = await sheet_of(store, interaction, user_id, "rps")
    if sheet is None:
        who = "You have" if user_id == interaction.user.id else f"<@{user_id}> has"
        raise UserError(
            f"{who} no active RPS sheet here; create one with /sheet create or pick one with /sheet use."
        )
    return sheet


def rps_sheet_spec(sheet: Sheet, skill: str | None, parent: str | None, attribute: str | None) -> BaseSpec:
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


async def rps_spec(
    store: Store,
    interaction: discord.Interaction[Any],
    user_id: int,
    *,
    skill: str | None,
    parent: str | None,
    attribute: str | None,
    base: int | None,
) -> BaseSpec:
    """Exactly one of a skill, an attribute (of ``user_id``'s active sheet) and a raw Base."""
    given = [value for value in (skill, attribute, base) if value is not None]
    if len(given) != 1:
        raise UserError("Give exactly one of skill, attribute or base.")
    if base is not None:
        if parent is not None:
            raise UserError("A parent attribute goes with a skill, not with a raw base.")
        return raw_spec(base)
    return rps_sheet_spec(await rps_sheet(store, interaction, user_id), skill, parent, attribute)


def rps_fixed(difficulty: int | None, modifier: int) -> list[BasePart]:
    """The named difficulty (RPS-1) and the extra modifier, as Base parts."""
    parts: list[BasePart] = []
    if difficulty is not None:
        parts.append(difficulty_part(rps.difficulty(difficulty)))
    if modifier:
        parts.append(BasePart("modifier", modifier, modifier=True))
    return parts


@dataclass(frozen=True)
class RpsParty:
    """One party of a resisted action: its name, how its Base is built, and the member (None: an NPC)."""

    name: str
    spec: BaseSpec
    member_id: int | None


async def rps_party(
    store: Store,
    interaction: discord.Interaction[Any],
    number: int,
    text: str | None,
    member: discord.abc.User | None,
    base: int | None,
) -> RpsParty:
    """Party ``number`` of a resisted action: a named NPC with a Base, or a member with a skill or
    attribute of their sheet (``party`` text, "Skill (Parent)" for an alternate) or a raw Base."""
    if member is None:
        # a name blank once trimmed is refused here, before any GM is told of the roll (RPS-7)
        if text is None or not text.strip() or base is None:
            raise UserError(
                f"Party {number} needs a name (party{number}) and a Base (base{number}), or a member."
            )
        return RpsParty(text.strip(), raw_spec(base), None)
    name = shown_name(member.display_name)
    if base is not None:
        return RpsParty(name, raw_spec(base, text.strip() if text else "Base"), member.id)
    if text is None:
        raise UserError(f"Give member{number}'s skill or attribute in party{number}, or a raw base{number}.")
    sheet = await rps_sheet(store, interaction, member.id)
    skill, parent = text.strip(), None
    matched = PARENT_SUFFIX.match(skill)
    if sheet.skill(skill) is None and matched is not None:
        skill, parent = matched["skill"], matched["parent"]
    if sheet.skill(skill) is not None:
        return RpsParty(name, rps_sheet_spec(sheet, skill, parent, None), member.id)
    if sheet.attribute(skill) is not None:
        return RpsParty(name, rps_sheet_spec(sheet, None, None, skill), member.id)
    raise UserError(f"{sheet.name} has no skill or attribute named {text.strip()!r}.")


# ---------------------------------------------------------------------------------------------------
# Decision dice (DD-1, DD-5) and supply dice (DD-7)


async def supply_character(store: Store, guild_id: int, member: discord.abc.User) -> Holder:
    """Whose supplies a GM sets for the member: their active decision sheet's character, else the member
    themself (an own supply, kept by their id whatever their display name)."""
    sheet = await store.sheets.active(guild_id, member.id, "decision")
    return Holder(sheet.name) if sheet is not None else Holder(member.display_name, own=True)


async def supply_holder(store: Store, guild_id: int, member: discord.abc.User, item: str) -> Holder:
    """Whose ``item`` the member rolls: their active sheet's character's. A supply a GM set before the
    member had a decision sheet is their own: it stays theirs to roll until the sheet's character has
    one of that item."""
    holder = await supply_character(store, guild_id, member)
    if holder.own:
        return holder
    for candidate in (holder, Holder(member.display_name, own=True)):
        try:
            await store.supply.get(guild_id, member.id, candidate, item)
        except NotFound:
            continue
        return candidate
    return holder


async def supply_dice_of(store: Store, guild_id: int, member: discord.abc.User) -> list[SupplyDie]:
    """The supply dice the member rolls (`supply_holder`): their character's, then their own of items
    the character has none of."""
    holder = await supply_character(store, guild_id, member)
    supplies = await store.supply.list(guild_id, member.id, holder)
    if not holder.own:
        held = {name_key(s.item) for s in supplies}
        own = await store.supply.list(guild_id, member.id, Holder(member.display_name, own=True))
        supplies += [s for s in own if name_key(s.item) not in held]
    return supplies


async def rollable_supply(store: Store, guild_id: int, owner_id: int, holder: Holder, item: str) -> SupplyDie:
    """The die ``holder`` rolls for ``item`` (`supply_holder`); one sentence when there is none, or it is
    empty (DD-7), the same for /supply roll and /odds supply."""
    try:
        supply = await store.supply.get(guild_id, owner_id, holder, item)
    except NotFound:
        raise UserError(
            f"{shown_name(holder.name)} has no supply of {shown_name(item.strip())} yet: "
            "ask a GM to set it with /supply set."
        ) from None
    if supply.empty:
        raise UserError(supply_empty_sentence(supply.character, supply.item))
    return supply


def shown_supplies(supplies: Sequence[SupplyDie], member: discord.abc.User) -> list[SupplyDie]:
    """All of a member's supplies, their own under the name they have now."""
    return [s.model_copy(update={"character": member.display_name}) if s.own else s for s in supplies]


def sheet_stat(sheet: Sheet, name: str) -> tuple[str, int] | None:
    """A decision-dice stat by name (any case): an attribute, else a skill's rating; None if it has none."""
    found = sheet.attribute(name)
    skill = sheet.skill(name)
    if found is not None and skill is not None:  # a sheet from before the store refused it, or imported
        raise UserError(
            f"{shown_name(sheet.name)} has both an attribute and a skill named {shown_name(found[0])}: "
            "remove one (/sheet remove) to roll it."
        )
    if found is not None:
        return found
    return (skill[0], skill[1].rating) if skill is not None else None


async def decision_stat(
    store: Store, interaction: discord.Interaction[Any], stat_name: str | None, stat: int | None
) -> tuple[str, StatSource]:
    """The roller's character (their active sheet's name, else their display name) and the stat: one of
    their sheet's (``stat_name``) or a raw one (0 when neither is given)."""
    if stat_name is not None and stat is not None:
        raise UserError("Give either a stat from your sheet (stat_name) or a raw stat, not both.")
    sheet = await sheet_of(store, interaction, interaction.user.id, "decision")
    character = shown_name(sheet.name) if sheet is not None else shown_name(interaction.user.display_name)
    if stat_name is None:
        return character, StatSource(stat if stat is not None else 0)
    if sheet is None:
        raise UserError(
            "You have no active decision-dice sheet: make one with /sheet create, or give a raw stat."
        )
    found = sheet_stat(sheet, stat_name)
    if found is None:
        raise UserError(f"{sheet.name}'s sheet has no stat named {stat_name.strip()!r}.")
    return character, StatSource(found[1], found[0], shown_name(sheet.name))


@dataclass(frozen=True)
class ContestSide:
    """One party of a contest before rolling: a member's character or an NPC, and what it adds."""

    name: str
    modifier: int
    stat: int
    stat_text: str  # "Wits +2", "no Wits: 0", "NPC" or ""
    member_id: int | None
    lacks_stat: bool = False  # a member whose sheet has no such stat: rolled with 0


async def contest_sides(
    store: Store,
    interaction: discord.Interaction[Any],
    slots: Mapping[int, tuple[discord.abc.User | None, str | None, int]],
    stat: str | None,
) -> dict[int, ContestSide]:
    """The contest's parties by slot, each a member (their active sheet's ``stat``) or a named NPC.

    A member whose sheet lacks the stat (or who has no sheet) rolls with 0, and their side says so: one
    missing stat does not call off the contest. Every member's sheet is read at once.
    """
    members: dict[int, discord.abc.User] = {}
    for slot, (member, npc, mod) in slots.items():
        if member is not None and npc is not None:
            raise UserError(f"Party {slot} is both a member and an NPC; give one of them.")
        if member is None and npc is None and mod:
            raise UserError(f"mod{slot} is set, but party {slot} has no member or NPC.")
        if member is not None:
            if member.id in {m.id for m in members.values()}:
                raise UserError(f"{shown_name(member.display_name)} is in the contest twice.")
            members[slot] = member
    sheets = await all_at_once(sheet_of(store, interaction, m.id, "decision") for m in members.values())
    sheet_by_slot = dict(zip(members, sheets, strict=True))
    sides: dict[int, ContestSide] = {}
    for slot, (member, npc, mod) in slots.items():
        if member is not None:
            sheet = sheet_by_slot[slot]
            name = shown_name(sheet.name) if sheet is not None else shown_name(member.display_name)
            value, text = 0, ""
            found = sheet_stat(sheet, stat) if sheet is not None and stat is not None else None
            if found is not None:
                text, value = f"{found[0]} {found[1]:+d}", found[1]
            elif stat is not None:
                text = f"no {stat.strip()[:64]}: 0"
            lacks = stat is not None and found is None
            sides[slot] = ContestSide(name, mod, value, text, member.id, lacks_stat=lacks)
        elif npc is not None:
            # DD-5: refused here, before any GM is told of the roll (the core would refuse it after)
            named = one_line(npc).strip()
            if not named:
                raise UserError("Every party of a contested roll needs a name.")
            sides[slot] = ContestSide(named, mod, 0, "NPC", None)
    if len(sides) < 2:
        raise UserError("A contest needs at least two parties (members or NPCs).")
    keys = [name_key(side.name) for side in sides.values()]
    if len(set(keys)) != len(keys):
        raise UserError("Two parties have the same name; give the NPCs different names.")
    return sides


def missing_stat_note(sides: dict[int, ContestSide], stat: str | None) -> str | None:
    """One sentence naming the members who rolled with 0 because their sheet lacks ``stat``."""
    missing = [side.name for side in sides.values() if side.lacks_stat]
    if not missing or stat is None:
        return None
    names = ", ".join(missing)  # as the result shows them
    verb = "has" if len(missing) == 1 else "have"
    # "an active sheet": a member with no sheet at all rolls with 0 too
    return f"{names} {verb} no {shown_name(stat.strip()[:64])} on an active sheet, so they rolled with 0."


# ---------------------------------------------------------------------------------------------------
# Cards (BJ-8, BJ-9)


@dataclass(frozen=True)
class CardsTask:
    """A task's skill level (and the sheet skill it came from) and the characteristics it names, each
    with its bonus (BJ-9)."""

    level: int
    skill_label: str | None
    characteristics: list[tuple[str, int]]


async def cards_task(
    store: Store,
    interaction: discord.Interaction[Any],
    *,
    level: int | None,
    skill: str | None,
    characteristics: str | None,
) -> CardsTask:
    """A skill level given or from the user's active cards sheet, and the characteristics named (``Strength,
    Dexterity +2``: a bonus as typed, else the same sheet's); the sheet is read once, and only when needed."""
    if level is not None and skill is not None:
        raise UserError("Give either a skill level or a skill from your sheet, not both.")
    if level is None and skill is None:
        raise UserError("Give a skill level, or a skill from your active cards sheet.")
    needs_sheet = skill is not None or bool(characteristics and characteristics.strip())
    sheet = await sheet_of(store, interaction, interaction.user.id, "cards") if needs_sheet else None
    label: str | None = None
    if skill is not None:
        if sheet is None:
            raise UserError("You have no active cards sheet; give a skill level instead (or /sheet use).")
        found = sheet.skill(skill)
        if found is None:
            raise UserError(f"Your sheet {sheet.name!r} has no skill {skill.strip()!r}.")
        label, level = found[0], found[1].rating
    assert level is not None
    return CardsTask(level, label, read_characteristics(characteristics, sheet))
