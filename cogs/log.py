"""`/log`: the channel's last rolls; a hidden roll's result only for GMs, or a file of the log.

Always ephemeral, because what a reader may see depends on who they are: GMs see every roll; everyone
else sees a private, gm or blind roll nobody revealed only as "hidden roll" (except the roller of a
private or gm roll, who saw it when rolling). The export is the store's file; non-GMs get only the
public and revealed rolls.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.store import RollRecord, Store
from bot.store.log import ExportFormat, export_pieces
from bot.ui import pages
from bot.ui.embeds import clip, info_embed, keep_outcome
from bot.ui.permissions import is_gm
from bot.ui.reply import defer, reply
from bot.ui.sheets import system_label

if TYPE_CHECKING:
    from bot.client import TabletopBot

MAX_PAGE = 25  # rolls a page at most
LINE_MAX = 155  # so a full page fits in an embed's 4,096 characters: 25 x 155 + 24 line breaks
MAX_EXPORT_BYTES = 8 * 1024 * 1024  # under Discord's 10 MB upload limit for a bot
EXPORT_SLICE = 2_000  # rows per job of the worker building an export


def may_see(record: RollRecord, viewer_id: int, viewer_is_gm: bool) -> bool:
    """GMs see everything; others see public or revealed rolls, and their own private or gm rolls.

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
    tag = ""
    if record.visibility != "public":
        tag = f" ({record.visibility}{', revealed' if record.revealed_by else ''})"
    start = f"{head} /{record.command}: "
    room = LINE_MAX - len(start) - len(tag)
    full = f"{text} [dice {dice}]" if dice else text
    # too long (long names, many parties): the dice go first, then who rolled what; the outcome and the
    # visibility stay
    body = full if len(full) <= room else keep_outcome(text, room)
    return clip(f"{start}{body}{tag}", LINE_MAX)


async def log_page(interaction: discord.Interaction[Any], args: tuple[int, ...], number: int) -> pages.Page:
    """Page ``number`` of the channel's log as the clicker may see it: ``count`` rolls a page, page 1 the
    newest, each page oldest first. Reloaded on every click, the viewer's GM rights with it."""
    store: Store = interaction.client.store
    count = min(max(args[0] if args else 10, 1), MAX_PAGE)
    guild_id = interaction.guild.id if interaction.guild is not None else None
    channel_id = interaction.channel_id or interaction.user.id
    total = await store.log.count(guild_id, channel_id)
    if total == 0:
        return pages.Page(info_embed("Roll log", "No rolls in this channel yet."), 1, 1)
    viewer_is_gm = await is_gm(interaction, store)
    last = pages.page_count(total, count)
    number = pages.clamp(number, last)
    records = await store.log.last(guild_id, channel_id, count, skip=(number - 1) * count)
    lines = [log_line(r, may_see(r, interaction.user.id, viewer_is_gm)) for r in reversed(records)]
    shown = len(records)
    title = (
        f"Last {shown} roll{'s' if shown != 1 else ''} in this channel"
        if last == 1
        else f"Rolls in this channel: {total}, the newest on page 1"
    )
    return pages.Page(info_embed(title, "\n".join(lines)), number, last)


class Log(commands.Cog):
    """The roll log of a channel."""

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot

    @property
    def store(self) -> Store:
        store: Store = self.bot.store
        return store

    @app_commands.command(name="log", description="The last rolls in this channel (or the log as a file).")
    @app_commands.describe(
        count="How many rolls a page shows (1 to 25, default 10); Previous and Next turn the pages.",
        export="Instead, get the channel's whole log as a file in this format.",
    )
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def log(
        self,
        interaction: discord.Interaction[Any],
        count: app_commands.Range[int, 1, MAX_PAGE] = 10,
        export: Literal["jsonl", "csv"] | None = None,
    ) -> None:
        if export is not None:
            guild_id = interaction.guild.id if interaction.guild is not None else None
            channel_id = interaction.channel_id or interaction.user.id
            await self._export(interaction, guild_id, channel_id, export)
            return
        embed, view = await pages.load(interaction, "log", (count,), 1, interaction.user.id)
        await reply(interaction, embed=embed, view=view, ephemeral=True)

    async def _export(
        self,
        interaction: discord.Interaction[Any],
        guild_id: int | None,
        channel_id: int,
        fmt: ExportFormat,
    ) -> None:
        await defer(interaction, ephemeral=True)  # a long log takes a while to read, build and upload
        viewer_is_gm = await is_gm(interaction, self.store)
        rows = await self.store.log.export_rows(
            guild_id, channel_id, include_hidden=viewer_is_gm, roller_id=interaction.user.id
        )
        # Built in the chart worker process (the one for bulky files), a slice at a time: a long log is
        # seconds of CPU, which a thread would take from the loop a GIL turn at a time, and odds or charts
        # asked meanwhile wait for one slice, not the whole file.
        kept: list[bytes] = []
        size, cut = 0, False
        for start in range(0, max(len(rows), 1), EXPORT_SLICE):
            pieces = await self.bot.chart_workers.run(
                export_pieces, rows[start : start + EXPORT_SLICE], fmt, start == 0
            )
            for piece in pieces:  # whole rolls only: a cut row (or character) would break the file
                if size + len(piece) > MAX_EXPORT_BYTES:
                    cut = True
                    break
                kept.append(piece)
                size += len(piece)
            if cut:
                break
        data = b"".join(kept)
        mb = MAX_EXPORT_BYTES / 1024 / 1024
        limit = f"{mb:g} MB" if mb >= 1 else f"{MAX_EXPORT_BYTES:,} bytes"
        note = f" It was cut at {limit}: the oldest rolls are all in it, the newest are not." if cut else ""
        scope = (
            "every roll"
            if viewer_is_gm
            else "the public and revealed rolls, and your own private and gm rolls"
        )
        await reply(
            interaction,
            f"The log of this channel: {scope}.{note}",
            files=[discord.File(io.BytesIO(data), filename=f"roll-log-{channel_id}.{fmt}")],
            ephemeral=True,
        )


async def setup(bot: TabletopBot) -> None:
    pages.register(bot, "log", log_page)
    await bot.add_cog(Log(bot))
