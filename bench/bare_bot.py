"""The floor of the stack: a bare discord.py bot whose slash command /ok replies "ok".

Same library, same intents (guilds only), same gateway and REST path as the real bot, and nothing else:
no store, no cogs, no error table. bench/latency.py and bench/memory.py run it as a subprocess next to
the real bot. For button clicks it has one more floor: /button posts "ok" with one DynamicItem button
(``ok:<n>``, like the hands' ``bj:<id>:hit``), and a click on it edits the message to "ok" (discord.py
rebuilds a dynamic item's view from the clicked message, so a click costs it more than a slash command).
It reads DISCORD_TOKEN and DISCORD_API_BASE from the environment:

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


class OkButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"ok:(?P<n>[0-9]{1,18})"):
    """A button whose click edits its message to "ok"."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label="ok", custom_id=f"ok:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> OkButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(content="ok")


class BareBot(commands.Bot):
    """A bot with one command (and one button command) and no state."""

    def __init__(self) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, help_command=None)

        @self.tree.command(name="ok", description="Reply ok.")
        async def ok(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("ok")

        @self.tree.command(name="button", description="Reply ok with a button.")
        async def button(interaction: discord.Interaction[Any]) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(OkButton(interaction.id % 10**18))
            await interaction.response.send_message("ok", view=view)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(OkButton)
        await self.tree.sync()


async def main() -> None:
    """Run until SIGTERM."""
    api_base = os.environ.get("DISCORD_API_BASE")
    if api_base:
        point_at(api_base)
    bot = BareBot()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(bot.close()))
    async with bot:
        await bot.start(os.environ["DISCORD_TOKEN"])


if __name__ == "__main__":
    asyncio.run(main())
