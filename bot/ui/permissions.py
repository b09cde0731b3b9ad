"""Who is a GM (GM-1), GM-only commands (GM-2) and owner-or-GM buttons (GM-4).

Mark a GM-only slash command with `@gm_only()` (under `@app_commands.command`/`@group.command`, or above
it); `gm_only_commands(tree)` lists every marked command so a test can refuse a stranger on each.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.store import GuildSettings, RollRecord, Store
from bot.ui.gm import settings_read
from bot.ui.reply import refuse

T = TypeVar("T")

GM_ROLE_NAMES = frozenset({"gm", "game master"})  # GM-1 default when a guild names no GM roles
GM_ONLY = "gm_only"  # key in Command.extras (and attribute on the callback) marking GM-only commands
MANAGE_GUILD_ONLY = "manage_guild_only"
SERVER_GM_ONLY = "server_gm_only"
NOT_GM = "Only a GM of this channel can do that (Manage Server, a GM role, or made GM of the channel)."
NOT_MANAGER = "Only someone with the Manage Server permission can do that."
NOT_OWNER = "Only the player who started this (or a GM) can use it."
NOT_SERVER_GM = (
    "Only a GM of the whole server (Manage Server or a GM role) can do that: it reaches past this channel, "
    "and a GM of one channel is GM there only."
)


class NotGM(app_commands.CheckFailure):
    """A non-GM tried a GM-only command (GM-2); the message is the sentence they see."""


def is_gm_role(role: discord.Role, settings: GuildSettings) -> bool:
    """GM-1: one of the guild's GM roles, or, when it names none, a role called GM or Game Master."""
    if settings.gm_role_ids:
        return role.id in {int(r) for r in settings.gm_role_ids}
    return role.name.strip().casefold() in GM_ROLE_NAMES


def player_readers(channel: discord.TextChannel, settings: GuildSettings) -> list[discord.Role]:
    """The roles that let players view ``channel`` (as the bot's cache has its overwrites), @everyone first:
    every role but the GM roles, roles with Manage Server or Administrator, and bots' own roles. A GM
    channel one of them reads would show its members every hidden roll."""
    cached = channel.guild.get_channel(channel.id)
    seen = cached if isinstance(cached, discord.TextChannel) else channel
    return [
        role
        for role in seen.guild.roles  # lowest first: @everyone
        if not (role.managed or is_gm_role(role, settings))
        and not (role.permissions.manage_guild or role.permissions.administrator)
        and seen.permissions_for(role).view_channel
    ]


async def still_gm(client: discord.Client, guild_id: int, user_id: int, settings: GuildSettings) -> bool:
    """GM-1 by Manage Server or a GM role, for a member who is not the one interacting, read from Discord:
    without the members intent no role change reaches the bot's cache. False once they left the server."""
    guild = client.get_guild(guild_id)
    if guild is None:
        return False
    try:
        member = await guild.fetch_member(user_id)
    except discord.HTTPException:  # not a member any more (or Discord refused): not a GM here
        return False
    return member.guild_permissions.manage_guild or any(is_gm_role(role, settings) for role in member.roles)


async def gms_of_channel(
    client: discord.Client, store: Store, guild_id: int, channel_id: int, settings: GuildSettings
) -> tuple[list[int], list[int]]:
    """Who gets a channel's hidden rolls by DM: the members an admin made its GMs, and the GMs who claimed
    it while they still are GMs (a claim gives no rights of its own); then the claimers who no longer are."""
    rows = await store.gm.channel_gms(guild_id, channel_id)
    claims = [user_id for user_id, claimed in rows if claimed]
    still = await asyncio.gather(*(still_gm(client, guild_id, user_id, settings) for user_id in claims))
    lapsed = [user_id for user_id, ok in zip(claims, still, strict=True) if not ok]
    return [user_id for user_id, _ in rows if user_id not in lapsed], lapsed


async def is_gm(
    interaction: discord.Interaction[Any],
    store: Store,
    *,
    channel_id: int | None = None,
) -> bool:
    """GM-1: Manage Server, or a guild GM role, or GM of the channel (``channel_id``, default: this one)."""
    if await is_server_gm(interaction, store):
        return True
    guild, member = interaction.guild, interaction.user
    channel = channel_id if channel_id is not None else interaction.channel_id
    if guild is None or not isinstance(member, discord.Member) or channel is None:
        return False  # in DMs nobody is a GM: GM tools act on a guild's channels
    return await store.gm.is_channel_gm(guild.id, channel, member.id)


async def is_server_gm(interaction: discord.Interaction[Any], store: Store) -> bool:
    """GM-1 in every channel at once: Manage Server or a guild GM role (not GM of one channel), for what
    is the server's, not a channel's (a character's supply dice)."""
    guild, member = interaction.guild, interaction.user
    if guild is None or not isinstance(member, discord.Member):
        return False  # in DMs nobody is a GM: GM tools act on a guild's channels
    if member.guild_permissions.manage_guild or interaction.permissions.manage_guild:
        return True
    settings = await settings_read(store, interaction, guild.id)
    return any(is_gm_role(role, settings) for role in member.roles)


def has_manage_guild(interaction: discord.Interaction[Any]) -> bool:
    """Manage Server in this guild (roles and settings need it, not just GM)."""
    member = interaction.user
    return isinstance(member, discord.Member) and (
        member.guild_permissions.manage_guild or interaction.permissions.manage_guild
    )


def _mark(func: T, key: str) -> T:
    unwrapped = getattr(func, "__discord_app_commands_unwrap__", func) or func
    if isinstance(unwrapped, app_commands.Command | app_commands.Group):
        unwrapped.extras[key] = True
    else:
        setattr(func, f"__tabletop_{key}__", True)
    return func


def gm_only() -> Callable[[T], T]:
    """GM-1/GM-2 for a slash command: a runtime check only.

    No ``default_permissions``: Discord would then hide the command from GMs by role or by channel, who
    have no Manage Server; the check is the gate.
    """

    async def predicate(interaction: discord.Interaction[Any]) -> bool:
        store: Store = interaction.client.store
        if interaction.guild is None:
            raise app_commands.NoPrivateMessage()
        if not await is_gm(interaction, store):
            raise NotGM(NOT_GM)
        return True

    check = app_commands.check(predicate)

    def decorator(func: T) -> T:
        return _mark(check(func), GM_ONLY)

    return decorator


def server_gm_only() -> Callable[[T], T]:
    """Like `gm_only`, but a GM of one channel does not count (`is_server_gm`)."""

    async def predicate(interaction: discord.Interaction[Any]) -> bool:
        if interaction.guild is None:
            raise app_commands.NoPrivateMessage()
        if not await is_server_gm(interaction, interaction.client.store):
            raise NotGM(NOT_SERVER_GM)
        return True

    check = app_commands.check(predicate)

    def decorator(func: T) -> T:
        return _mark(_mark(check(func), GM_ONLY), SERVER_GM_ONLY)

    return decorator


def manage_guild_only() -> Callable[[T], T]:
    """Like `gm_only`, but only Manage Server counts (server set-up), and Discord shows the command only to
    Manage Server by default (on a top-level command; a subcommand takes its group's)."""

    async def predicate(interaction: discord.Interaction[Any]) -> bool:
        if interaction.guild is None:
            raise app_commands.NoPrivateMessage()
        if not has_manage_guild(interaction):
            raise NotGM(NOT_MANAGER)
        return True

    check = app_commands.check(predicate)
    hint = app_commands.default_permissions(manage_guild=True)

    def decorator(func: T) -> T:
        return _mark(_mark(hint(check(func)), GM_ONLY), MANAGE_GUILD_ONLY)

    return decorator


def is_gm_only(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> bool:
    """True when the command (or a group it belongs to) is marked GM-only."""
    node: Any = command
    while node is not None:
        if node.extras.get(GM_ONLY) or getattr(
            getattr(node, "callback", None), f"__tabletop_{GM_ONLY}__", False
        ):
            return True
        node = node.parent
    return False


def gm_only_commands(tree: app_commands.CommandTree[Any]) -> Iterator[app_commands.Command[Any, ..., Any]]:
    """Every GM-only slash command (leaves, i.e. what a user runs) in the tree, global and all guilds."""
    seen: set[int] = set()
    for top in tree.walk_commands():
        if isinstance(top, app_commands.Command) and id(top) not in seen and is_gm_only(top):
            seen.add(id(top))
            yield top


async def owner_or_gm(
    interaction: discord.Interaction[Any],
    store: Store,
    owner_id: int,
    *,
    channel_id: int | None = None,
) -> bool:
    """GM-4: True for the owner or a GM; anyone else gets an ephemeral refusal first, then False."""
    if interaction.user.id == owner_id or await is_gm(interaction, store, channel_id=channel_id):
        return True
    await refuse(interaction, NOT_OWNER)
    return False


async def gm_of_roll(interaction: discord.Interaction[Any], store: Store, record: RollRecord) -> bool:
    """GM-1 for a logged roll's own channel: in its guild, a GM there; in a DM, a GM its copy was sent to.

    A hidden roll's DM copy goes to the roll channel's GMs, so a DM click counts only from one of them;
    nobody's rights in another guild count.
    """
    if record.guild_id is None:
        return False  # hidden rolls happen only in guilds
    if interaction.guild is not None:
        return interaction.guild.id == record.guild_id and await is_gm(
            interaction, store, channel_id=record.channel_id
        )
    settings = await store.settings.get(record.guild_id)
    reach, _ = await gms_of_channel(interaction.client, store, record.guild_id, record.channel_id, settings)
    return interaction.user.id in reach
