"""`/log`: the channel's last rolls; a hidden roll's result only for GMs (issue 7), or a file of the log.

Always ephemeral, because what a reader may see depends on who they are: GMs see every roll; everyone
else sees a private, gm or blind roll nobody revealed only as "hidden roll" (except the roller of a
private or gm roll, who saw it when rolling). The export is the store's file; non-GMs get only the
public and revealed rolls.
"""

from __future__ import annotations

import io
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.store import RollRecord, Store
from bot.store.log import ExportFormat, export_text
from bot.ui.embeds import clip, info_embed
from bot.ui.permissions import is_gm
from bot.ui.reply import defer, reply
from bot.ui.sheets import system_label

LINE_MAX = 160
MAX_EXPORT_BYTES = 8 * 1024 * 1024  # under Discord's 10 MB upload limit for a bot
EXPORT_SLICE = 2_000  # rows per job of the worker building an export


def may_see(record: RollRecord, viewer_id: int, viewer_is_gm: bool) -> bool:
    """Issue 7: GMs see everything; others see public or revealed rolls, and their own private or gm rolls.

    (A gm roll's roller got the result ephemerally when rolling; a blind roll's roller never sees it.)
    """
    if viewer_is_gm or not record.hidden:
        return True
    return record.visibility in ("private", "gm") and record.user_id == viewer_id


def _dice_text(dice: Any) -> str:
    if isinstance(dice, list) and dice and all(isinstance(d, int) for d in dice):
        return " ".join(map(str, dice))
    return ""


def log_line(record: RollRecord, visible: bool) -> str:
    """One roll of the log as the viewer may see it."""
    when = f"<t:{int(record.created_at.timestamp())}:t>"
    head = f"`#{record.id}` {when} <@{record.user_id}>"
    if not visible:
        return f"{head}: hidden roll ({record.visibility}, {system_label(record.system)})"
    text = record.summary or record.result
    dice = _dice_text(record.dice)
    if dice:
        text += f" [dice {dice}]"
    if record.visibility != "public":
        text += f" ({record.visibility}{', revealed' if record.revealed_by else ''})"
    return clip(f"{head} /{record.command}: {text}", LINE_MAX)


class Log(commands.Cog):
    """The roll log of a channel."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @property
    def store(self) -> Store:
        store: Store = self.bot.store  # type: ignore[attr-defined]
        return store

    @app_commands.command(name="log", description="The last rolls in this channel (or the log as a file).")
    @app_commands.describe(
        count="How many rolls to show (1 to 25, default 10).",
        export="Instead, get the channel's whole log as a file in this format.",
    )
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def log(
        self,
        interaction: discord.Interaction[Any],
        count: app_commands.Range[int, 1, 25] = 10,
        export: Literal["jsonl", "csv"] | None = None,
    ) -> None:
        guild_id = interaction.guild.id if interaction.guild is not None else None
        channel_id = interaction.channel_id or interaction.user.id
        if export is not None:
            await self._export(interaction, guild_id, channel_id, export)
            return
        viewer_is_gm = await is_gm(interaction, self.store)
        records = await self.store.log.last(guild_id, channel_id, count)
        if not records:
            await reply(
                interaction, embed=info_embed("Roll log", "No rolls in this channel yet."), ephemeral=True
            )
            return
        lines = [log_line(r, may_see(r, interaction.user.id, viewer_is_gm)) for r in reversed(records)]
        title = f"Last {len(records)} roll{'s' if len(records) != 1 else ''} in this channel"
        await reply(interaction, embed=info_embed(title, clip("\n".join(lines), 4000)), ephemeral=True)

    async def _export(
        self,
        interaction: discord.Interaction[Any],
        guild_id: int | None,
        channel_id: int,
        fmt: ExportFormat,
    ) -> None:
        await defer(interaction, ephemeral=True)  # a long log takes a while to read, build and upload
        viewer_is_gm = await is_gm(interaction, self.store)
        rows = await self.store.log.export_rows(guild_id, channel_id, include_hidden=viewer_is_gm)
        # Built in the chart worker process (the one for bulky files), a slice at a time: a long log is
        # seconds of CPU, which a thread would take from the loop a GIL turn at a time, and odds or charts
        # asked meanwhile wait for one slice, not the whole file.
        parts = [
            await self.bot.chart_workers.run(export_text, rows[start : start + EXPORT_SLICE], fmt, start == 0)
            for start in range(0, max(len(rows), 1), EXPORT_SLICE)
        ]
        data = "".join(parts).encode("utf-8")
        if len(data) > MAX_EXPORT_BYTES:
            data = data[:MAX_EXPORT_BYTES]
            note = " It was cut at 8 MB: the oldest rolls are complete, the newest are missing."
        else:
            note = ""
        scope = "every roll" if viewer_is_gm else "the public and revealed rolls"
        await reply(
            interaction,
            f"The log of this channel: {scope}.{note}",
            files=[discord.File(io.BytesIO(data), filename=f"roll-log-{channel_id}.{fmt}")],
            ephemeral=True,
        )


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Log(bot))
