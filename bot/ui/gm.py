"""GM tools rendered: pending modifiers, guild settings, and the read before a roll.

A GM's accepted request for a blind roll (`bot.ui.requests`) waits in the player's queue at
``blind_request:<guild>:<channel>:<player>:<system>``, which `take_blind_request` takes from once when
the player's next roll in that system resolves its visibility.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.blackjack import difficulty_name
from bot.core.systemx import Margin, MarginStyle
from bot.store import MODIFIER_KINDS, SYSTEMS, GuildSettings, PendingModifier, Store
from bot.store.models import SYSTEM_NAMES, VALUELESS_KINDS
from bot.store.modifiers import BeforeRoll
from bot.ui.embeds import NO_MENTIONS, info_embed
from bot.ui.reply import (
    GIVE_BACK_ON_ERROR,
)

BLIND_PREFIX = "blind_request:"
ROLL_READ = "tabletop_roll_read"  # on an interaction's extras: its `RollRead`
KIND_WORDS: dict[str, str] = {
    "sv": "Skill Value modifier",
    "roll": "roll modifier",
    "required_margin": "required margin",
    "df": "Difficulty Factor",
    "difficulty": "difficulty",
    "modifier": "modifier",
    "advantage": "advantage",
    "disadvantage": "disadvantage",
    "assumed_success": "assumed success",
}


def system_label(system: str) -> str:
    """``System X`` for ``sysx``."""
    return SYSTEM_NAMES.get(system, system)


def kind_allows(system: str, kind: str) -> str:
    """What values a modifier kind takes, in words (``-4 to 4``; ``CF, F5, ..``)."""
    allowed = MODIFIER_KINDS[system][kind]
    if isinstance(allowed[0], str):
        return ", ".join(map(str, allowed))
    low, high = allowed
    return "no value" if low == high else f"{low} to {high}"


def value_text(system: str, kind: str, value: int | str, style: MarginStyle | None = None) -> str:
    """`` +2``, `` S1``, nothing for a kind without a value (advantage), and a cards task's difficulty by name
    (`` Easy (2)``): that modifier replaces the difficulty asked for, it adds nothing. A margin is shown
    in the guild's ``style`` when given."""
    if kind in VALUELESS_KINDS:
        return ""
    if system == "cards" and kind == "difficulty" and isinstance(value, int):
        return f" {difficulty_name(value)} ({value})"
    if isinstance(value, int):
        return f" {value:+d}"
    return f" {margin_text(value, style)}"


def margin_text(value: str, style: MarginStyle | None) -> str:
    """A stored margin (``S2``) in the display ``style`` (``+2``); as stored without one."""
    return value if style is None else Margin.parse(value).format(style)


def modifier_value_text(modifier: PendingModifier, style: MarginStyle | None = None) -> str:
    """`value_text` of a pending modifier."""
    return value_text(modifier.system, modifier.kind, modifier.value, style)


def modifier_line(modifier: PendingModifier, style: MarginStyle | None = None) -> str:
    """One pending modifier: system, kind, value, for whom, uses, who set it."""
    who = "everyone" if modifier.target_user_id is None else f"<@{modifier.target_user_id}>"
    uses = (
        f"{modifier.uses} use{'s' if modifier.uses != 1 else ''} each"
        if modifier.target_user_id is None
        else f"{modifier.uses_left} of {modifier.uses} use{'s' if modifier.uses != 1 else ''} left"
    )
    return (
        f"`#{modifier.id}` {system_label(modifier.system)}: {KIND_WORDS.get(modifier.kind, modifier.kind)}"
        f"{modifier_value_text(modifier, style)} for {who}, {uses}, set by <@{modifier.set_by}>"
    )


def modifiers_embed(modifiers: Sequence[PendingModifier], style: MarginStyle | None = None) -> discord.Embed:
    """The modifiers pending in a channel (GM-3), System X margins in the guild's ``style``."""
    if not modifiers:
        return info_embed("Pending GM modifiers", "None in this channel.")
    lines = [modifier_line(m, style) for m in modifiers]
    shown: list[str] = []
    for index, line in enumerate(lines):  # whole lines, and how many did not fit
        rest = len(lines) - index
        more = f"… and {rest} more; /gm clear removes them by system or player."
        room = 4000 - sum(len(x) + 1 for x in shown) - len(line)
        if room < (0 if rest == 1 else len(more) + 1):
            shown.append(more)
            break
        shown.append(line)
    return info_embed(f"Pending GM modifiers: {len(lines)}", "\n".join(shown))


def cleared_sentence(count: int, system: str | None, member: str | None) -> str:
    """``Cleared 1 pending RPS modifier for Alice.``: what `/gm clear` removed, in plain English."""
    what = " ".join(w for w in ("pending", system_label(system) if system else "", "modifier") if w)
    whose = f" for {member}" if member else ""
    if count == 0:
        return f"There were no {what}s{whose} to clear in this channel."
    return f"Cleared {count} {what}{'' if count == 1 else 's'}{whose}."


def settings_embed(
    settings: GuildSettings, *, channel_id: int, channel_visibility: str, chart_note: str = ""
) -> discord.Embed:
    """The guild's settings and this channel's default visibility."""
    roles = (
        ", ".join(f"<@&{r}>" for r in settings.gm_role_ids) or 'default: roles named "GM" or "Game Master"'
    )
    on = {True: "on", False: "off"}
    fields = [
        ("GM roles", roles),
        ("Margins (System X)", "signed (+3)" if settings.margin_display == "signed" else "letters (S3)"),
        ("Skill adders (cards)", settings.adder_scheme),
        ("Suit bonus card (cards)", on[settings.bj_suit_bonus]),
        ("Characteristic bonus (cards)", on[settings.bj_characteristic_bonus]),
        ("Fumble flags (cards)", on[settings.bj_fumble_flags]),
        ("Decks per shoe (cards)", str(settings.decks_per_shoe)),
        ("Roll chart (System X)", "custom (uploaded)" if settings.systemx_chart else "default"),
        (
            "GM channel",
            f"<#{settings.gm_channel_id}>" if settings.gm_channel_id else "none (GM copies go by DM)",
        ),
        (
            "Blind rolls by players",
            "allowed" if settings.allow_blind else "not allowed (GMs may request one)",
        ),
        # a mention shows as the channel's name in a field's value, not in its name
        ("Default visibility here", f"{channel_visibility} in <#{channel_id}>"),
    ]
    embed = info_embed(
        "Server settings",
        chart_note or "Change any with /setup settings (the GM channel: /setup gm-channel).",
    )
    for name, value in fields:
        embed.add_field(name=name, value=value, inline=True)
    return embed


# -- blind-roll requests ----------------------------------------------------------------------------------
def blind_key(guild_id: int, channel_id: int, user_id: int, system: str) -> str:
    """Where an accepted request waits for the player's next roll of ``system`` in the channel."""
    return f"{BLIND_PREFIX}{guild_id}:{channel_id}:{user_id}:{system}"


async def take_blind_request(interaction: discord.Interaction[Any], store: Store) -> bool:
    """For `resolve_mode`: does this roll honour an accepted GM blind request? (consumes it once).

    The request taken is noted on the interaction, so that a roll refused afterwards (a typo in its
    options) gives it back (`report_error`): the player's next roll is still the blind one. The same read
    notes what the roll needs later: whether a modifier is pending (`take_modifiers`), the guild's
    settings (`settings_read`), the channel's default visibility and the roller's active sheet of the
    system (`sheet_of`).
    """
    command = interaction.command
    if interaction.guild is None or interaction.channel_id is None:
        return False
    if not isinstance(command, discord.app_commands.Command):
        return False
    root = command.root_parent.name if command.root_parent is not None else command.name
    if root not in SYSTEMS:
        return False
    guild_id, channel_id, user_id = interaction.guild.id, interaction.channel_id, interaction.user.id
    key = blind_key(guild_id, channel_id, user_id, root)
    # the pending modifiers are looked at in the same read: most rolls find neither
    state = await store.modifiers.before_roll(guild_id, channel_id, root, kept_key=key, sheet_owner=user_id)
    extras = getattr(interaction, "extras", None)
    if isinstance(extras, dict):
        extras[ROLL_READ] = RollRead(guild_id, channel_id, user_id, root, state)
    if state.kept is None:
        return False
    taken = await store.meta.take_first(key)  # one accepted request per roll: the GM may have asked twice
    if taken is None:
        return False
    if isinstance(extras, dict):
        extras.setdefault(GIVE_BACK_ON_ERROR, []).append((key, taken))
    return True


@dataclass
class RollRead:
    """What the read before a roll (`take_blind_request`) found, kept on the interaction for the rest of it:
    whose roll, where, of which system, and the `BeforeRoll` itself."""

    guild_id: int
    channel_id: int
    user_id: int
    system: str
    state: BeforeRoll
    sheet_taken: bool = False  # `sheet_of` uses the sheet once; a second look reads it again


def roll_read(interaction: discord.Interaction[Any]) -> RollRead | None:
    """This interaction's `RollRead`, if its roll made that read."""
    extras = getattr(interaction, "extras", None)
    read = extras.get(ROLL_READ) if isinstance(extras, dict) else None
    return read if isinstance(read, RollRead) else None


async def settings_read(store: Store, interaction: discord.Interaction[Any], guild_id: int) -> GuildSettings:
    """The guild's settings, as the read before this interaction's roll found them when it made one."""
    read = roll_read(interaction)
    if read is not None and read.guild_id == guild_id and read.state.settings is not None:
        return read.state.settings
    return await store.settings.get(guild_id)


def visibility_read(interaction: discord.Interaction[Any], channel_id: int) -> str | None:
    """The channel's default visibility as the read before this interaction's roll found it, or None."""
    read = roll_read(interaction)
    return read.state.channel_visibility if read is not None and read.channel_id == channel_id else None


__all__ = [
    "KIND_WORDS",
    "NO_MENTIONS",
    "ROLL_READ",
    "RollRead",
    "blind_key",
    "kind_allows",
    "modifier_line",
    "modifiers_embed",
    "roll_read",
    "settings_embed",
    "settings_read",
    "take_blind_request",
    "value_text",
    "visibility_read",
]
