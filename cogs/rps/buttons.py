"""The "Roll next check" button on a sustained action's message, and that message kept up to date (RPS-8).

The custom_id carries the pool's id only (``rpspool:7:roll``); a click finds the pool in the store again,
so the button works after a restart, and only the pool's owner or a GM gets past the check (GM-4): anyone
else is told so in one ephemeral sentence and no check is rolled.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.store import Pool, Store
from bot.ui.embeds import NO_MENTIONS
from bot.ui.permissions import owner_or_gm
from bot.ui.pools import roll_pool_check
from bot.ui.reply import ID_PATTERN, ErrorReportingItem, TableView, refuse, release_when_handled
from bot.ui.rps import ended_sentence, pool_embed
from bot.ui.visibility import resolve_mode

log = logging.getLogger(__name__)


def pool_view(pool: Pool) -> discord.ui.View | None:
    """The pool message's button while the action runs; None (no buttons) once it ended.

    Built to be sent by the handler running now, and emptied when it ends (`release_when_handled`).
    """
    if not pool.running:
        return None
    view = TableView(timeout=None)
    view.add_item(PoolRollButton(pool.id))
    release_when_handled(view)
    return view


async def refresh_pool_message(client: discord.Client, pool: Pool, *, hidden: bool = False) -> None:
    """Edit the pool's message: progress, state; the button goes once the action ended."""
    if pool.message_id is None:
        return
    channel = client.get_partial_messageable(pool.channel_id, guild_id=pool.guild_id)
    message = channel.get_partial_message(pool.message_id)
    try:
        await message.edit(
            embed=pool_embed(pool, hidden=hidden), view=pool_view(pool), allowed_mentions=NO_MENTIONS
        )
    except discord.HTTPException as err:  # deleted, or no access any more: the pool itself is safe
        log.warning("Could not update the message of sustained action %s: %s", pool.id, err)


class PoolRollButton(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"rpspool:(?P<pool_id>{ID_PATTERN}):roll",
):
    """Roll the sustained action's next check, as ``/rps sustained roll`` does."""

    def __init__(self, pool_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Roll next check",
                style=discord.ButtonStyle.primary,
                custom_id=f"rpspool:{pool_id}:roll",
            )
        )
        self.pool_id = pool_id
        self.pool: Pool | None = None

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PoolRollButton:
        return cls(int(match["pool_id"]))

    async def allowed(self, interaction: discord.Interaction[Any]) -> bool:
        store: Store = interaction.client.store
        pool = await store.pools.get_by_id(self.pool_id)
        guild_id = interaction.guild.id if interaction.guild is not None else None
        if pool.guild_id != guild_id or pool.channel_id != interaction.channel_id:
            await refuse(interaction, "That button does not belong to a sustained action of this channel.")
            return False
        if not pool.running:
            await refuse(interaction, f"{await ended_sentence(interaction, store, pool)}.")
            return False
        if not await owner_or_gm(interaction, store, pool.owner_id):
            return False
        self.pool = pool
        return True

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        assert self.pool is not None  # `allowed` found it
        store: Store = interaction.client.store
        mode = await resolve_mode(interaction, store, None)
        updated, hidden = await roll_pool_check(interaction, store, self.pool, mode)
        await refresh_pool_message(interaction.client, updated, hidden=hidden)
