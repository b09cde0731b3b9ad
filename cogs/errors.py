"""One error table for all slash commands: user errors give one ephemeral sentence, others a logged code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.ui.reply import report_error

if TYPE_CHECKING:
    from bot.client import TabletopBot


class Errors(commands.Cog):
    """Installs `report_error` as the tree's error handler while loaded."""

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot
        self._previous = bot.tree.on_error

    async def cog_load(self) -> None:
        self.bot.tree.on_error = self.on_app_command_error  # type: ignore[method-assign]

    async def cog_unload(self) -> None:
        self.bot.tree.on_error = self._previous  # type: ignore[method-assign]

    async def on_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError, /
    ) -> None:
        await report_error(interaction, error)


async def setup(bot: TabletopBot) -> None:
    await bot.add_cog(Errors(bot))
