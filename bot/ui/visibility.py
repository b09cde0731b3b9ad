"""Who sees a roll (issue 7): public, private, gm and blind, delivered by one function every cog calls.

A cog rolls, logs the roll (``store.log.add``), builds the result embed, and calls `deliver`. Before rolling
it may call `resolve_mode` to turn the user's option (or the channel default) into a mode, refusing modes
that make no sense here (gm/blind in DMs, blind rolls a guild switched off).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import discord

from bot.store import NotFound, RollRecord, Store
from bot.ui.details import details_view, stored_details
from bot.ui.embeds import NO_MENTIONS
from bot.ui.gm import take_blind_request
from bot.ui.permissions import is_gm, is_gm_of
from bot.ui.reply import (
    ID_PATTERN,
    ErrorReportingItem,
    TableView,
    UserError,
    refuse,
    release_when_handled,
    reply,
)

log = logging.getLogger(__name__)

Mode = Literal["public", "private", "gm", "blind"]
MODES: tuple[Mode, ...] = ("public", "private", "gm", "blind")
MODE_LABELS: dict[Mode, str] = {
    "public": "Public: everyone sees it",
    "private": "Private: only you (the table sees that you rolled)",
    "gm": "GM: you and the GMs",
    "blind": "Blind: only the GMs",
}
BLIND_ROLLER_TEXT = "Your roll went to the GM."
CANNOT_DM = 50007
CANNOT_REVEAL = "Only a GM of the roll's channel can reveal it."


@dataclass
class Delivery:
    """What `deliver` did, for the cog (and tests) to inspect."""

    mode: Mode
    gm_channel_id: int | None = None
    dm_sent_to: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def reached_gm(self) -> bool:
        return self.gm_channel_id is not None or bool(self.dm_sent_to)


async def resolve_mode(
    interaction: discord.Interaction[Any],
    store: Store,
    requested: str | None,
) -> Mode:
    """The mode to use: the one asked for, else the channel's default; refuses one that cannot work here.

    A roll the player accepted a GM's blind request for (/gm request-roll) is blind, once.
    """
    if await take_blind_request(interaction, store):
        return "blind"
    if requested is None:
        if interaction.guild is None or interaction.channel_id is None:
            return "public"
        requested = await store.settings.channel_visibility(interaction.guild.id, interaction.channel_id)
    mode = next((m for m in MODES if m == requested), None)
    if mode is None:
        raise UserError(f"Visibility must be one of {', '.join(MODES)}, not {requested!r}.")
    if interaction.guild is None and mode in ("gm", "blind"):
        raise UserError("GM and blind rolls work only in a server channel; in DMs use public or private.")
    if mode == "blind" and interaction.guild is not None:
        settings = await store.settings.get(interaction.guild.id)
        if not settings.allow_blind and not await is_gm(interaction, store):
            raise UserError("Blind rolls are switched off in this server; ask a GM (they can request one).")
    return mode


def default_notice(interaction: discord.Interaction[Any], mode: Mode, kind: str | None) -> str:
    """The public one-liner for a hidden roll: the roller and the kind of check, nothing else."""
    what = f" ({kind})" if kind else ""
    words = {"private": "made a private roll", "gm": "made a roll for the GM", "blind": "made a blind roll"}
    return f"🎲 {interaction.user.mention} {words.get(mode, 'rolled')}{what}."


async def deliver(
    interaction: discord.Interaction[Any],
    store: Store,
    result_embed: discord.Embed,
    *,
    mode: Mode,
    notice_text: str | None = None,
    log_id: int | None = None,
    kind: str | None = None,
    view: discord.ui.View | None = None,
    gm_items: Sequence[discord.ui.Item[Any]] = (),
) -> Delivery:
    """Show ``result_embed`` to whoever ``mode`` allows (issue 7).

    ``gm_items`` (a GM's buttons, checked when clicked) go where a GM sees the result: on the public
    message, or next to Reveal on the GM's copy; never on a result only the roller sees.
    - public: the result in the channel (with ``view``).
    - private: the result ephemerally to the roller (with ``view``) and a public notice with no result.
    - gm: the result ephemerally to the roller, a GM copy (with a Reveal button for ``log_id``) to the
      guild's GM channel or by DM to each GM of the channel, and a public notice naming roller and kind.
    - blind: the roller only learns that the roll went to the GM; GM copies as for gm.
    ``notice_text`` replaces the default notice; ``kind`` names the check in it ("System X check").
    """
    if interaction.guild is None and mode in ("gm", "blind"):
        raise UserError("GM and blind rolls work only in a server channel; in DMs use public or private.")
    done = Delivery(mode)
    if mode == "public":
        await reply(interaction, embed=result_embed, view=with_items(view, gm_items))
        return done
    if mode == "private":
        await reply(interaction, embed=result_embed, view=view, ephemeral=True)
        if interaction.guild is not None:
            await reply(interaction, notice_text or default_notice(interaction, mode, kind))
        return done

    await _send_to_gms(interaction, store, result_embed, mode, log_id, done, gm_items)
    problems = " ".join(done.problems) or None
    if mode == "gm":
        await reply(interaction, problems, embed=result_embed, view=view, ephemeral=True)
        await reply(interaction, notice_text or default_notice(interaction, mode, kind))
    else:
        roller_text = BLIND_ROLLER_TEXT + (f"\n{problems}" if problems else "")
        await reply(interaction, roller_text, ephemeral=True)
    return done


async def _send_to_gms(
    interaction: discord.Interaction[Any],
    store: Store,
    result_embed: discord.Embed,
    mode: Mode,
    log_id: int | None,
    done: Delivery,
    gm_items: Sequence[discord.ui.Item[Any]] = (),
) -> None:
    assert interaction.guild is not None and interaction.channel_id is not None
    guild_id, channel_id = interaction.guild.id, interaction.channel_id
    header = (
        f"🔒 {'Blind' if mode == 'blind' else 'GM'} roll by {interaction.user.mention} in <#{channel_id}>."
    )
    gm_view = reveal_view(log_id, *gm_items) if log_id is not None else with_items(None, gm_items)
    settings = await store.settings.get(guild_id)
    if settings.gm_channel_id is not None:
        gm_channel = interaction.client.get_partial_messageable(settings.gm_channel_id, guild_id=guild_id)
        try:
            await gm_channel.send(header, embed=result_embed, allowed_mentions=NO_MENTIONS, **_view(gm_view))
            done.gm_channel_id = settings.gm_channel_id
            return
        except discord.HTTPException as err:
            log.warning("Could not post to the GM channel %s: %s", settings.gm_channel_id, err)
            done.problems.append("I could not post in the GM channel (check my permissions there).")
    gm_ids = [uid for uid in await store.gm.list_channel_gms(guild_id, channel_id)]
    if not gm_ids:
        done.problems.append(
            "No GM channel is set and this channel has no GMs to message: a GM can set one with /gm settings."
        )
        return
    for user_id in gm_ids:
        try:
            dm = await interaction.client.create_dm(discord.Object(id=user_id))
            await dm.send(header, embed=result_embed, allowed_mentions=NO_MENTIONS, **_view(gm_view))
            done.dm_sent_to.append(user_id)
        except discord.HTTPException as err:
            reason = (
                "they do not accept DMs from me"
                if getattr(err, "code", 0) == CANNOT_DM
                else "Discord refused"
            )
            done.problems.append(f"I could not DM <@{user_id}> ({reason}).")


async def may_reveal(interaction: discord.Interaction[Any], store: Store, record: RollRecord) -> bool:
    """GM-1 for the roll's own channel: in its guild, a GM there; in a DM, a GM its copy was sent to.

    A DM copy goes to the roll channel's GMs (`_send_to_gms`), so a DM click counts only from one of them;
    nobody's rights in another guild count.
    """
    return await is_gm_of(interaction, store, record.guild_id, record.channel_id)


def _view(view: discord.ui.View | None) -> dict[str, Any]:
    return {"view": view} if view is not None else {}


def with_items(view: discord.ui.View | None, items: Sequence[discord.ui.Item[Any]]) -> discord.ui.View | None:
    """``view`` with ``items`` added (a new view when there was none); ``view`` itself without items."""
    if not items:
        return view
    if view is None:
        view = TableView(timeout=None)
        release_when_handled(view)
    for item in items:
        view.add_item(item)
    return view


def reveal_view(log_id: int, *items: discord.ui.Item[Any]) -> discord.ui.View:
    """A view holding the Reveal button for the roll ``log_id`` (persistent: survives restarts), then
    ``items``.

    Built to be sent by the handler running now, and emptied when it ends (`release_when_handled`).
    """
    view = discord.ui.View(timeout=None)
    view.add_item(RevealButton(log_id))
    for item in items:
        view.add_item(item)
    release_when_handled(view)
    return view


class RevealButton(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"reveal:(?P<log_id>{ID_PATTERN})",
):
    """On a GM copy: post the full result publicly with "revealed by", once."""

    def __init__(self, log_id: int) -> None:
        super().__init__(
            discord.ui.Button(label="Reveal", style=discord.ButtonStyle.primary, custom_id=f"reveal:{log_id}")
        )
        self.log_id = log_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any] | None, match: Any, /
    ) -> RevealButton:
        return cls(int(match["log_id"]))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        store: Store = interaction.client.store
        try:
            record = await store.log.get(self.log_id)
        except NotFound:
            record = None
        if record is None or not await may_reveal(interaction, store, record):
            # one sentence for "no such roll" and "not yours", so ids cannot be probed
            await refuse(interaction, CANNOT_REVEAL)
            return
        # marked first, so two GMs clicking at once cannot both post it
        if not await store.log.mark_revealed(self.log_id, interaction.user.id):
            await refuse(interaction, "That roll was already revealed.")
            return
        source = interaction.message.embeds if interaction.message is not None else []
        embeds = [discord.Embed.from_dict(e.to_dict()) for e in source[:1]]
        channel = interaction.client.get_partial_messageable(record.channel_id, guild_id=record.guild_id)
        by = f"🔓 Revealed by {interaction.user.mention}: a {record.visibility} roll by <@{record.user_id}>."
        # revealed, the roll's details are everyone's: the post carries its Details button
        shown = {"view": details_view(self.log_id)} if stored_details(record) is not None else {}
        try:
            await channel.send(by, embeds=embeds, allowed_mentions=NO_MENTIONS, **shown)
        except discord.HTTPException as error:
            # not posted: the roll stays hidden (in /log too) and the Reveal button can be clicked again
            await store.log.unmark_revealed(self.log_id, interaction.user.id)
            log.warning("Could not post the reveal of roll %s: %s", self.log_id, error)
            await refuse(
                interaction,
                f"Could not post the roll in <#{record.channel_id}> (Discord said: "
                f"{error.text or error.status}); it stays hidden, so try Reveal again.",
            )
            return
        await refuse(interaction, f"Revealed in <#{record.channel_id}>.")
