"""The `/rps` buttons: a sustained action's "Roll next check", and a failed check's second try
(RPS-9): the GM's "Grant a second try" with its modifier select, and the player's "Try again".

A custom_id carries ids only (``rpspool:7:roll``, ``rps:grant:12``); a click finds its pool or check in
the store again, so the buttons work after a restart. Only a pool's owner or a GM rolls its checks (GM-4);
only a GM of the check's channel grants a second try (GM-1, checked when clicked), and only the player who
failed takes it. Anyone else is told so in one ephemeral sentence and nothing happens.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.core import rps
from bot.store import NotFound, Pool, RollRecord, SecondTry, Store
from bot.ui.embeds import NO_MENTIONS
from bot.ui.permissions import gm_of_roll, owner_or_gm
from bot.ui.pools import roll_pool_check
from bot.ui.reply import (
    ID_PATTERN,
    ErrorReportingItem,
    TableView,
    UserError,
    refuse,
    reply,
    update_message,
)
from bot.ui.rps import ended_sentence, pool_embed
from bot.ui.second_tries import (
    ALREADY_GRANTED,
    ALREADY_TAKEN,
    grant_second_try,
    grant_text,
    take_second_try,
    tried_at,
)
from bot.ui.visibility import resolve_mode

log = logging.getLogger(__name__)
NOT_GRANTER = "Only a GM of this check's channel can grant a second try."
MODIFIER_VALUE = re.compile(r"[+-]?[0-5]")


def pool_view(pool: Pool) -> discord.ui.View | None:
    """The pool message's button while the action runs; None (no buttons) once it ended."""
    if not pool.running:
        return None
    view = TableView(timeout=None)
    view.add_item(PoolRollButton(pool.id))
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


# --------------------------------------------------------------------------------------------------
# RPS-9: a GM grants a second try on a failed check; the player who failed takes it, once


def grant_items(log_id: int) -> list[discord.ui.Item[Any]]:
    """The GM's Grant button for the failed check ``log_id`` (`bot.ui.second_tries.publish_check`)."""
    return [GrantButton(log_id)]


def try_view(log_id: int) -> discord.ui.View:
    """The Try again button of a second try granted on the failed check ``log_id``."""
    view = TableView(timeout=None)
    view.add_item(TryAgainButton(log_id))
    return view


async def granting_gm(interaction: discord.Interaction[Any], log_id: int) -> RollRecord | None:
    """The failed check ``log_id`` when the clicker is a GM of its channel (GM-1, checked now); anyone
    else is answered with one sentence (the same when there is no such check, so ids cannot be probed)."""
    store: Store = interaction.client.store
    try:
        record = await store.log.get(log_id)
    except NotFound:
        record = None
    if record is None or not await gm_of_roll(interaction, store, record):
        await refuse(interaction, NOT_GRANTER)
        return None
    return record


class GrantButton(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"rps:grant:(?P<log_id>{ID_PATTERN})",
):
    """On a failed check (its public message, or the GM's copy): a GM picks the second try's modifier."""

    def __init__(self, log_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Grant a second try",
                style=discord.ButtonStyle.secondary,
                custom_id=f"rps:grant:{log_id}",
            )
        )
        self.log_id = log_id
        self.record: RollRecord | None = None

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GrantButton:
        return cls(int(match["log_id"]))

    async def allowed(self, interaction: discord.Interaction[Any]) -> bool:
        self.record = await granting_gm(interaction, self.log_id)
        return self.record is not None

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        assert self.record is not None  # `allowed` found it
        store: Store = interaction.client.store
        if await store.second_tries.get(self.log_id) is not None:
            raise UserError(ALREADY_GRANTED)
        view = TableView(timeout=None)
        view.add_item(GrantModifierSelect(self.log_id))
        inputs = self.record.inputs
        await reply(
            interaction,
            f"A second try for <@{inputs['roller_id']}> at {tried_at(inputs)}"
            + (f", Base {inputs['task_base']}" if inputs["what"] != "Base" else "")
            + ": pick its extra modifier.",
            view=view,
            ephemeral=True,
        )


class GrantModifierSelect(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"rps:grantmod:(?P<log_id>{ID_PATTERN})",
):
    """The second try's modifier, -5..+5; choosing one grants the try and posts its button."""

    def __init__(self, log_id: int) -> None:
        low, high = rps.SECOND_TRY_MIN, rps.SECOND_TRY_MAX
        super().__init__(
            discord.ui.Select(
                custom_id=f"rps:grantmod:{log_id}",
                placeholder="Modifier for the second try",
                options=[
                    discord.SelectOption(label=f"{m:+d}" + (" (no modifier)" if m == 0 else ""), value=str(m))
                    for m in range(high, low - 1, -1)
                ],
                min_values=1,
                max_values=1,
            )
        )
        self.log_id = log_id
        self.record: RollRecord | None = None
        self.modifier = 0

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> GrantModifierSelect:
        return cls(int(match["log_id"]))

    async def allowed(self, interaction: discord.Interaction[Any]) -> bool:
        values = self.item.values
        if len(values) != 1 or MODIFIER_VALUE.fullmatch(values[0]) is None:
            raise UserError("Choose one of the modifiers in the list, -5 to +5.")
        self.modifier = int(values[0])
        self.record = await granting_gm(interaction, self.log_id)
        return self.record is not None

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        assert self.record is not None  # `allowed` found it
        store: Store = interaction.client.store
        grant = await grant_second_try(interaction, store, self.record, self.modifier)
        # answered first (Discord's 3 seconds), then the player's button goes to the check's channel
        await update_message(
            interaction,
            content=f"Granted <@{grant.roller_id}> a second try ({grant.modifier:+d}).",
            view=None,
        )
        channel = interaction.client.get_partial_messageable(grant.channel_id, guild_id=grant.guild_id)
        try:
            await channel.send(
                grant_text(self.record, grant), view=try_view(grant.log_id), allowed_mentions=NO_MENTIONS
            )
        except discord.HTTPException as error:
            # no button, no try: take the grant back so it can be made again
            await store.second_tries.withdraw(grant.log_id)
            log.warning("Could not post the second try of roll %s: %s", grant.log_id, error)
            await refuse(
                interaction,
                f"Could not post the second try in <#{grant.channel_id}> (Discord said: "
                f"{error.text or error.status}); nothing was granted, so try again.",
            )


class TryAgainButton(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"rps:try:(?P<log_id>{ID_PATTERN})",
):
    """The granted second try of the failed check ``log_id``: only the player who failed rolls it, once."""

    def __init__(self, log_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Try again", style=discord.ButtonStyle.primary, custom_id=f"rps:try:{log_id}"
            )
        )
        self.log_id = log_id
        self.found: tuple[RollRecord, SecondTry] | None = None

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> TryAgainButton:
        return cls(int(match["log_id"]))

    async def allowed(self, interaction: discord.Interaction[Any]) -> bool:
        store: Store = interaction.client.store
        grant = await store.second_tries.get(self.log_id)
        if grant is None or grant.channel_id != interaction.channel_id:
            await refuse(interaction, "That button belongs to no second try of this channel.")
            return False
        if grant.roller_id != interaction.user.id:
            await refuse(interaction, f"Only <@{grant.roller_id}> can take this second try.")
            return False
        if grant.taken:
            await refuse(interaction, ALREADY_TAKEN)
            return False
        self.found = await store.log.get(self.log_id), grant
        return True

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        assert self.found is not None  # `allowed` found it
        await take_second_try(interaction, interaction.client.store, *self.found, grant_items)
        if interaction.message is not None:
            try:  # taken: the button goes
                await interaction.message.edit(view=None, allowed_mentions=NO_MENTIONS)
            except discord.HTTPException as error:  # a later click is refused all the same
                log.warning("Could not remove the Try again button of roll %s: %s", self.log_id, error)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    PoolRollButton,
    GrantButton,
    GrantModifierSelect,
    TryAgainButton,
)
