"""`/roll`: free dice in standard notation for everything the systems do not cover (damage, tables, a d6).

The expression is read and checked before anything else, so a bad one is refused without a trace; the
roll is logged and shown through the same path as every system's roll (`publish`), in any of the four
visibility modes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.store import Store
from bot.ui.freeroll import (
    KIND,
    MAX_LENGTH,
    free_roll_embed,
    free_roll_summary,
    read_dice,
    roll_dice,
)
from bot.ui.rolls import publish
from bot.ui.visibility import Mode, resolve_mode

if TYPE_CHECKING:
    from bot.client import TabletopBot

SYSTEM = "dice"  # the log's name for free rolls, beside the five systems
LABEL_MAX = 100


class Roll(commands.Cog):
    """One command: roll an expression and show it."""

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot

    @property
    def store(self) -> Store:
        store: Store = self.bot.store
        return store

    @app_commands.command(name="roll", description="Roll dice: 2d6+3, 4d6kh3 (keep highest 3), d100, 1d20+5.")
    @app_commands.describe(
        expression="Dice notation, e.g. 2d6+3, 4d6kh3, 2d20kl1, (1d8+2)*2, 8d6e6 (exploding sixes).",
        label="What the roll is for, shown in its title (e.g. Damage).",
        visibility="Who sees the result (default: this channel's default).",
    )
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def roll(
        self,
        interaction: discord.Interaction[Any],
        expression: app_commands.Range[str, 1, MAX_LENGTH],
        label: app_commands.Range[str, 1, LABEL_MAX] | None = None,
        visibility: Mode | None = None,
    ) -> None:
        dice = read_dice(expression)
        mode = await resolve_mode(interaction, self.store, visibility)
        rolled = roll_dice(dice, self.bot.rng)
        embed = free_roll_embed(interaction.user.display_name, rolled, label)
        await publish(
            interaction,
            self.store,
            embed,
            mode=mode,
            system=SYSTEM,
            command="roll",
            inputs={"expression": rolled.expression, "label": label},
            dice=rolled.faces,
            result=rolled.breakdown,
            summary=free_roll_summary(rolled, label),
            kind=KIND,
        )


async def setup(bot: TabletopBot) -> None:
    await bot.add_cog(Roll(bot))
