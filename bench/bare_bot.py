"""The floor of the stack: a bare discord.py bot whose slash command /ok replies "ok".

Same library, same intents (guilds only), same gateway and REST path as the real bot, and nothing else:
no store, no cogs, no error table. bench/latency.py, bench/startup.py and bench/memory.py run it as a
subprocess next to the real bot (the floor that does the same work is bench/plain_bot.py). It reads
DISCORD_TOKEN and DISCORD_API_BASE from the environment:

    DISCORD_TOKEN=... DISCORD_API_BASE=http://127.0.0.1:PORT python bench/bare_bot.py
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import discord
import yarl
from discord.ext import commands


def point_at(api_base: str) -> None:
    """Send REST and the gateway to ``api_base`` (the fake Discord), like the real bot does."""
    base = api_base.rstrip("/")
    discord.http.Route.BASE = f"{base}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        "ws" + base.removeprefix("http") + "/gateway/"
    )


class BareBot(commands.Bot):
    """A bot with one command and no state."""

    def __init__(self) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, help_command=None)

        @self.tree.command(name="ok", description="Reply ok.")
        async def ok(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("ok")

    async def setup_hook(self) -> None:
        await self.tree.sync()


async def serve(bot: commands.Bot) -> None:
    """Connect ``bot`` with DISCORD_TOKEN (to DISCORD_API_BASE when set) and run it until SIGTERM."""
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(bot.close()))
    async with bot:
        await bot.start(os.environ["DISCORD_TOKEN"])


async def main() -> None:
    """Run until SIGTERM."""
    api_base = os.environ.get("DISCORD_API_BASE")
    if api_base:
        point_at(api_base)
    await serve(BareBot())


if __name__ == "__main__":
    asyncio.run(main())
