"""The one path every roll takes after the core has resolved it: GM modifiers, the log, delivery.

A system cog: parses options, ``mode = await resolve_mode(...)`` (refusals change nothing), takes its
pending GM modifiers with `take_modifiers` (GM-3: exactly one use per roll), rolls with ``bot.rng``,
calls the core, builds the compact result (`bot.ui.embeds.compact_embed`, with `gm_line` when a modifier
applied) and its details (the full breakdown, with `modifier_field`), then calls `publish`, which logs the
roll with its details and shows it, with a Details button, to whoever the mode allows.

`take_modifiers` only reserves the uses (under the interaction's id); `publish` takes them from the store
in the same transaction as the log row, so a failure before the log write leaves the modifiers pending.
A cog whose roll is logged by another interaction (a card hand finished by a later click) hands the
interaction's ticket (``store.modifiers.ticket(interaction.id)``) to the write that stores its game state
(``create_hand(modifiers=...)``), which takes them instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import discord

from bot.core.systemx import MarginStyle
from bot.store import AppliedModifier, RollRecord, Sheet, Store
from bot.store.models import VALUELESS_KINDS
from bot.ui.details import details_view, with_details
from bot.ui.gm import margin_text, roll_read, system_label
from bot.ui.permissions import is_gm
from bot.ui.reply import UserError
from bot.ui.visibility import Delivery, Mode, deliver

MODIFIER_NAMES = {
    "sv": "Skill Value",
    "roll": "roll",
    "required_margin": "required margin",
    "df": "Difficulty Factor",
    "difficulty": "difficulty",
    "modifier": "modifier",
    "advantage": "advantage",
    "disadvantage": "disadvantage",
    "assumed_success": "assumed success",
}


def guild_key(interaction: discord.Interaction[Any]) -> int:
    """The guild id sheets and supply dice are keyed by; 0 in DMs."""
    return interaction.guild.id if interaction.guild is not None else 0


def sheets_hidden(interaction: discord.Interaction[Any], owner_id: int) -> bool:
    """Whether ``owner_id``'s sheets are out of the user's sight here: at a server's table the players see
    each other's sheets, but in DMs (every DM's sheets share guild key 0) a player sees only their own."""
    return interaction.guild is None and owner_id != interaction.user.id


async def sheet_of(
    store: Store, interaction: discord.Interaction[Any], owner_id: int, system: str
) -> Sheet | None:
    """``owner_id``'s active sheet of ``system`` here, or None (none, or someone else's DM sheet).

    The roller's own sheet comes from the read before the roll (`take_blind_request`) when it has it;
    that note is used once, so a second look in the same interaction reads the sheet again.
    """
    if sheets_hidden(interaction, owner_id):
        return None
    guild_id = guild_key(interaction)
    read = roll_read(interaction)
    if (
        read is not None
        and (read.guild_id, read.user_id, read.system) == (guild_id, owner_id, system)
        and not read.sheet_taken
    ):
        read.sheet_taken = True
        return read.state.active_sheet()
    return await store.sheets.active(guild_id, owner_id, system)


async def take_modifiers(
    interaction: discord.Interaction[Any],
    store: Store,
    system: str,
    user_id: int | None = None,
    *,
    waiting: frozenset[str] = frozenset(),
) -> list[AppliedModifier]:
    """Reserve one use of every pending GM modifier for this roller in this channel (GM-3).

    The uses are taken when `publish` logs this interaction's roll (same transaction), or by the write
    given the interaction's ticket; an error before that gives them back (`report_error`).
    ``user_id``: another member, a party to a contest. Their own modifiers are theirs to use, so only
    their own contest or a GM's takes them (one a player runs was refused: `refuse_dodged_modifiers`);
    the table's, for everyone, apply to their roll in any contest, as to the roller's (GM-3).
    ``waiting``: kinds that would change nothing on this roll (an advantage it already has) keep their use.
    """
    if interaction.channel_id is None:
        return []
    everyone_only = (
        user_id is not None and user_id != interaction.user.id and not await is_gm(interaction, store)
    )
    if _none_pending(interaction, system):
        return []
    guild_id = interaction.guild.id if interaction.guild is not None else None
    who = user_id if user_id is not None else interaction.user.id
    return await store.modifiers.reserve(
        interaction.id,
        guild_id,
        interaction.channel_id,
        system,
        who,
        waiting=waiting,
        everyone_only=everyone_only,
    )


def _none_pending(interaction: discord.Interaction[Any], system: str) -> bool:
    """True when the read before the roll found no modifier for the system in this channel."""
    read = roll_read(interaction)
    return (
        read is not None
        and (read.system, read.channel_id) == (system, interaction.channel_id)
        and not read.state.modifiers_pending
    )


async def modifier_waiting(
    interaction: discord.Interaction[Any], store: Store, system: str, kind: str
) -> bool:
    """True when a GM modifier of ``kind`` waits for the roller's next roll here (taking nothing)."""
    if interaction.channel_id is None or _none_pending(interaction, system):
        return False
    guild_id = interaction.guild.id if interaction.guild is not None else None
    pending = await store.modifiers.pending_for(guild_id, interaction.channel_id, system, interaction.user.id)
    return any(m.kind == kind for m in pending)


async def refuse_dodged_modifiers(
    interaction: discord.Interaction[Any],
    store: Store,
    system: str,
    member_ids: Sequence[int | None],
    *,
    unused: frozenset[str] = frozenset(),
) -> None:
    """GM-3: a contest run by a player takes no other member's pending modifiers (`take_modifiers`), so
    naming a member the GM left one for would let them dodge a penalty (or a rival waste their bonus):
    refused, before any GM is sent a copy, until that member or a GM runs it. (Modifiers for everyone are
    the table's, and wait for that member's own roll; kinds in ``unused`` this contest never takes.)"""
    others = {m for m in member_ids if m is not None and m != interaction.user.id}
    if not others or interaction.channel_id is None or await is_gm(interaction, store):
        return
    guild_id = interaction.guild.id if interaction.guild is not None else None
    for member_id in sorted(others):
        pending = await store.modifiers.pending_for(guild_id, interaction.channel_id, system, member_id)
        if any(not m.for_everyone and m.kind not in unused for m in pending):
            raise UserError(
                f"<@{member_id}> has a GM modifier waiting for their next {system_label(system)} roll here, "
                "which is theirs to take: they or a GM can run this contest."
            )


def modifier_total(applied: Sequence[AppliedModifier], kind: str) -> int:
    """The sum of the numeric modifiers of one kind that applied."""
    return sum(m.value for m in applied if m.kind == kind and isinstance(m.value, int))


def has_modifier(applied: Sequence[AppliedModifier], kind: str) -> bool:
    """True when a modifier of ``kind`` applied (advantage, disadvantage, required margin)."""
    return any(m.kind == kind for m in applied)


def modifier_what(mod: AppliedModifier, style: MarginStyle | None = None) -> str:
    """What a GM modifier does: ``roll +1``, ``advantage``, ``required margin S2`` (``+2`` in the guild's
    signed ``style`` of System X margins, as the rest of the result shows them)."""
    name = MODIFIER_NAMES.get(mod.kind, mod.kind)
    if mod.kind in VALUELESS_KINDS:
        return name
    if isinstance(mod.value, int):
        return f"{name} {mod.value:+d}"
    return f"{name} {margin_text(mod.value, style)}"


def describe_modifier(mod: AppliedModifier, style: MarginStyle | None = None) -> str:
    """One line: what the GM set, by whom, and what is left (shown on the result)."""
    scope = "everyone" if mod.for_everyone else "this player"
    left = f", {mod.uses_left} use{'s' if mod.uses_left != 1 else ''} left" if mod.uses_left else ""
    return f"{modifier_what(mod, style)} (for {scope}, set by <@{mod.set_by}>{left})"


def gm_line(
    applied: Sequence[AppliedModifier], whose: str = "", style: MarginStyle | None = None
) -> str | None:
    """A compact result's line for the GM modifiers that applied and who set them; None when none did.

    ``whose``: the roller the modifiers belong to, when the result shows several.
    """
    if not applied:
        return None
    head = "GM modifier" if len(applied) == 1 else "GM modifiers"
    if whose:
        head += f" for {whose}"
    return f"{head}: " + "; ".join(f"{modifier_what(m, style)} (set by <@{m.set_by}>)" for m in applied)


def modifier_field(
    applied: Sequence[AppliedModifier], style: MarginStyle | None = None
) -> tuple[str, str] | None:
    """An embed field listing the GM modifiers that applied, or None when none did."""
    if not applied:
        return None
    title = "GM modifier" if len(applied) == 1 else "GM modifiers"
    return (title, "\n".join(describe_modifier(m, style) for m in applied))


def roll_record(
    interaction: discord.Interaction[Any],
    *,
    mode: Mode,
    system: str,
    command: str,
    inputs: dict[str, Any],
    dice: Any,
    result: str,
    summary: str = "",
    details: discord.Embed | None = None,
) -> RollRecord:
    """The log entry of a roll made by this interaction, with its ``details`` (the Details button's)."""
    return RollRecord(
        guild_id=interaction.guild.id if interaction.guild is not None else None,
        channel_id=interaction.channel_id or interaction.user.id,
        user_id=interaction.user.id,
        system=system,
        command=command,
        visibility=mode,
        inputs=with_details(inputs, details),
        dice=dice,
        result=result[:4000],
        summary=summary[:400],
    )


async def publish(
    interaction: discord.Interaction[Any],
    store: Store,
    embed: discord.Embed,
    *,
    mode: Mode,
    system: str,
    command: str,
    inputs: dict[str, Any],
    dice: Any,
    result: str,
    summary: str = "",
    kind: str | None = None,
    view: discord.ui.View | None = None,
    log_id: int | None = None,
    gm_items: Callable[[int], Sequence[discord.ui.Item[Any]]] | None = None,
    details: discord.Embed | None = None,
    gm_embeds: Sequence[discord.Embed] = (),
    logged_details: bool = False,
) -> tuple[int, Delivery]:
    """Log the roll (with its visibility and the GM modifier uses it reserved) and deliver its embed.

    ``details``: the full breakdown, stored with the log row and shown by a Details button under the
    result (and under the GMs' copy of a hidden roll). ``log_id``: the roll was already logged together
    with its game write (supply, sustained pool), its details given to `roll_record` then.
    ``gm_items``: a GM's buttons for the logged roll, given its log id (`deliver` says where they go).
    ``gm_embeds``: what the GM copies of a hidden roll show besides the result (`deliver`).
    ``logged_details``: the row ``log_id`` holds its details (a hidden hand's): the GM copies get a Details
    button, and ``view`` keeps its own.
    Returns the log id and the delivery.
    """
    if log_id is None:
        record = roll_record(
            interaction,
            mode=mode,
            system=system,
            command=command,
            inputs=inputs,
            dice=dice,
            result=result,
            summary=summary,
            details=details,
        )
        ticket = store.modifiers.ticket(interaction.id)
        try:
            log_id = await store.log.add(record, modifiers=ticket)
        finally:
            store.modifiers.release(ticket)  # taken with the log row, or given back when it failed
    if details is not None:
        view = details_view(log_id, view)
    delivery = await deliver(
        interaction,
        store,
        embed,
        mode=mode,
        log_id=log_id,
        kind=kind,
        view=view,
        gm_items=gm_items(log_id) if gm_items is not None else (),
        details=details is not None or logged_details,
        gm_embeds=gm_embeds,
    )
    return log_id, delivery
