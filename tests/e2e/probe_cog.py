"""A test-only cog that exercises the foundation the way system cogs will: errors, GM checks, visibility.

Loaded by the e2e tests in addition to the product cogs (``start_bot(..., cogs=COGS + PROBE)``).
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.common import Verdict
from bot.core.errors import RuleError
from bot.store import RollRecord, Store
from bot.ui.embeds import result_embed
from bot.ui.permissions import gm_only, manage_guild_only, owner_or_gm
from bot.ui.reply import ErrorReportingItem, TableView, defer, reply
from bot.ui.visibility import deliver, resolve_mode

PROBE = ("tests.e2e.probe_cog",)


class BoomButton(
    ErrorReportingItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"probe:boom:(?P<n>\d+)"
):
    """A dynamic button whose handler fails unexpectedly."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label="Boom", custom_id=f"probe:boom:{n}"))

    @classmethod
    async def from_custom_id(cls, interaction: Any, item: Any, match: Any, /) -> BoomButton:
        return cls(int(match["n"]))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        raise ZeroDivisionError("a bug in a button")


class OwnedButton(
    ErrorReportingItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"probe:owned:(?P<owner>\d+)"
):
    """GM-4: only the owner or a GM may press it."""

    def __init__(self, owner: int) -> None:
        super().__init__(discord.ui.Button(label="Mine", custom_id=f"probe:owned:{owner}"))
        self.owner = owner

    @classmethod
    async def from_custom_id(cls, interaction: Any, item: Any, match: Any, /) -> OwnedButton:
        return cls(int(match["owner"]))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        store: Store = interaction.client.store  # type: ignore[attr-defined]
        if not await owner_or_gm(interaction, store, self.owner):
            return
        await reply(interaction, f"Pressed by {interaction.user.mention}.")


class Probe(commands.GroupCog, group_name="probe", group_description="Test probes for the bot foundation."):
    def __init__(self, bot: Any) -> None:
        self.bot = bot

    @app_commands.command(description="Fails with a bug.")
    async def boom(self, interaction: discord.Interaction[Any]) -> None:
        raise KeyError("a bug")

    @app_commands.command(description="Fails with a rule error.")
    async def rule(self, interaction: discord.Interaction[Any]) -> None:
        raise RuleError("Skill must be between 0 and 10, not 11.")

    @app_commands.command(description="Defers, then fails with a rule error.")
    async def slowrule(self, interaction: discord.Interaction[Any]) -> None:
        await defer(interaction)
        raise RuleError("That pool is already finished.")

    @app_commands.command(description="Defers then answers.")
    async def slow(self, interaction: discord.Interaction[Any], secret: bool = False) -> None:
        await defer(interaction, ephemeral=secret)
        await asyncio.sleep(0)
        await reply(interaction, "done slowly", ephemeral=secret)

    @app_commands.command(description="A GM-only command.")
    @gm_only()
    async def gmthing(self, interaction: discord.Interaction[Any]) -> None:
        await reply(interaction, "GM thing done.")

    @app_commands.command(description="A Manage Server command.")
    @manage_guild_only()
    async def managerthing(self, interaction: discord.Interaction[Any]) -> None:
        await reply(interaction, "Manager thing done.")

    @app_commands.command(description="Posts a button that fails.")
    async def buttons(self, interaction: discord.Interaction[Any]) -> None:
        view = TableView(timeout=None)
        view.add_item(BoomButton(1))
        view.add_item(OwnedButton(interaction.user.id))
        await reply(interaction, "Buttons:", view=view)

    @app_commands.command(description="Says @everyone.")
    async def ping(self, interaction: discord.Interaction[Any]) -> None:
        await reply(interaction, "@everyone look", embed=result_embed("@everyone", verdict=Verdict.SUCCESS))

    @app_commands.command(description="A roll delivered with a visibility mode.")
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def roll(
        self,
        interaction: discord.Interaction[Any],
        visibility: Literal["public", "private", "gm", "blind"] | None = None,
    ) -> None:
        store: Store = self.bot.store
        mode = await resolve_mode(interaction, store, visibility)
        embed = result_embed(
            "Probe check: success", verdict=Verdict.SUCCESS, fields=[("Dice", "d20: 17"), ("Margin", "S3")]
        )
        log_id = await store.log.add(
            RollRecord(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                user_id=interaction.user.id,
                system="probe",
                command="probe roll",
                visibility=mode,
                result="S3",
                summary="Probe check: success",
            )
        )
        await deliver(interaction, store, embed, mode=mode, log_id=log_id, kind="probe check")


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Probe(bot))
    bot.add_dynamic_items(BoomButton, OwnedButton)
