"""Who sees a roll: public, private, gm and blind, delivered by one function every cog calls.

A cog calls `resolve_mode` before it rolls, then rolls, logs the roll (``store.log.add``), builds the
result embed, and calls `deliver`. For a gm or blind roll in a server, `resolve_mode` first makes sure a
GM will get it: it acknowledges the interaction (the GMs' copies may be slow to post) and posts each copy's
header to the GM channel, or by DM to the GMs of the channel; when none got through, the roll is refused
before any die is rolled. `deliver` then fills those copies with the result, and only then tells the
roller, so the roller never learns a result that no GM has.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import discord

from bot.store import GuildSettings, NotFound, RollRecord, Store
from bot.ui.details import details_view, stored_details
from bot.ui.embeds import NO_MENTIONS, shown_name
from bot.ui.gm import settings_read, take_blind_request, visibility_read
from bot.ui.permissions import gm_of_roll, gms_of_channel, is_gm, player_readers
from bot.ui.reply import (
    AFTER_ERROR,
    ANSWER_PUBLIC,
    ID_PATTERN,
    ErrorReportingItem,
    TableView,
    UserError,
    defer,
    refuse,
    reply,
)
from bot.ui.requests import mark_rolled, requests_used

log = logging.getLogger(__name__)

Mode = Literal["public", "private", "gm", "blind"]
MODES: tuple[Mode, ...] = ("public", "private", "gm", "blind")
MODE_LABELS: dict[Mode, str] = {
    "public": "Public: everyone sees it",
    "private": "Private: you, and the GMs in the log (the table sees that you rolled)",
    "gm": "GM: you and the GMs",
    "blind": "Blind: only the GMs",
}
BLIND_ROLLER_TEXT = "Your roll went to the GM."
CANNOT_DM = 50007
CANNOT_REVEAL = "Only a GM of the roll's channel can reveal it."
HOW_TO_REACH_A_GM = (
    "someone with Manage Server can set a GM channel with /setup gm-channel, or a GM can claim this channel "
    "with /gm claim"
)
NO_GM_HERE = f"No GM can see a hidden roll here yet: {HOW_TO_REACH_A_GM}."
NOT_DELIVERED = "I could not give your roll to the GM, but it is in the roll log: a GM can see it with /log."
GM_COPIES = "tabletop_gm_copies"  # interaction.extras key: the copies `resolve_mode` opened for `deliver`


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


@dataclass
class GMCopies:
    """The GMs' copies of one hidden roll: the messages posted (GM channel or DMs) and what went wrong.

    ``reasons`` are short clauses for a refusal; ``problems`` whole sentences for a roller whose roll did
    reach a GM (a GM who does not accept DMs).
    """

    header: str
    messages: list[discord.Message] = field(default_factory=list)
    gm_channel_id: int | None = None
    dm_sent_to: list[int] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def record(self, done: Delivery) -> None:
        done.gm_channel_id, done.dm_sent_to = self.gm_channel_id, list(self.dm_sent_to)
        done.problems.extend(self.problems)

    async def fill(self, embeds: Sequence[discord.Embed], view: discord.ui.View | None) -> bool:
        """Put the result (and the GM's notes after it) on every copy, with ``view``; True when at least
        one copy shows it."""
        results = await asyncio.gather(
            *(
                message.edit(content=self.header, embeds=list(embeds), **_view(view))
                for message in self.messages
            ),
            return_exceptions=True,
        )
        filled = 0
        for message, result in zip(self.messages, results, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, discord.HTTPException):
                    raise result
                log.warning("Could not put a hidden roll on its GM copy %s: %s", message.id, result)
            else:
                filled += 1
        return filled > 0

    async def note(self, text: str) -> None:
        """Add ``text`` to every copy's header (a hand whose result comes later)."""
        for message in self.messages:
            try:
                await message.edit(content=f"{self.header} {text}")
            except discord.HTTPException as err:
                log.warning("Could not update the GM copy %s: %s", message.id, err)

    async def withdraw(self) -> None:
        """Delete every copy: the roll they announced was refused after all (a bad option)."""
        for message in self.messages:
            try:
                await message.delete()
            except discord.HTTPException as err:
                log.warning("Could not delete the GM copy %s of a refused roll: %s", message.id, err)
        self.messages.clear()


def gm_header(kind: str, mode: Mode, roller_id: int, channel_id: int) -> str:
    """ "🔒 Blind roll by @alice in #general." (``kind``: roll, hand)."""
    return f"🔒 {'Blind' if mode == 'blind' else 'GM'} {kind} by <@{roller_id}> in <#{channel_id}>."


def gm_channel_readers(client: discord.Client, settings: GuildSettings) -> list[discord.Role]:
    """The players' roles that read the GM channel now (`player_readers`), as the bot's cache has it (kept
    current by Discord's channel and role updates): a GM channel made public since /setup gm-channel
    would show its readers every hidden roll. Empty when there is none, or it is not in the cache."""
    channel = client.get_channel(settings.gm_channel_id) if settings.gm_channel_id is not None else None
    return player_readers(channel, settings) if isinstance(channel, discord.TextChannel) else []


def role_names(roles: Sequence[discord.Role]) -> str:
    """``@everyone, @Member``: roles named as Discord shows them, without pinging anyone."""
    return ", ".join("@everyone" if role.is_default() else f"@{shown_name(role.name)}" for role in roles)


async def post_gm_copies(
    client: discord.Client,
    store: Store,
    *,
    guild_id: int,
    channel_id: int,
    header: str,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
) -> GMCopies:
    """Post ``header`` (and ``embeds``, ``view``) to the guild's GM channel, or, when there is none or the
    bot cannot post there, by DM to each GM of the channel (made so, or who claimed it), at once."""
    copies = GMCopies(header)
    content: dict[str, Any] = {"allowed_mentions": NO_MENTIONS, **_view(view)}
    if embeds:
        content["embeds"] = list(embeds)
    settings = await store.settings.get(guild_id)
    readers = gm_channel_readers(client, settings)
    if settings.gm_channel_id is not None and readers:
        names = role_names(readers)
        log.warning(
            "The GM channel %s is open to players (%s): not posted there", settings.gm_channel_id, names
        )
        copies.reasons.append(f"the GM channel <#{settings.gm_channel_id}> is now open to {names}")
        copies.problems.append(
            f"The GM channel <#{settings.gm_channel_id}> is now open to {names}, so I did not post there: "
            "an admin can hide it from them again, or choose another with /setup gm-channel."
        )
    elif settings.gm_channel_id is not None:
        gm_channel = client.get_partial_messageable(settings.gm_channel_id, guild_id=guild_id)
        try:
            copies.messages.append(await gm_channel.send(header, **content))
            copies.gm_channel_id = settings.gm_channel_id
            return copies
        except discord.HTTPException as err:
            log.warning("Could not post to the GM channel %s: %s", settings.gm_channel_id, err)
            copies.reasons.append(f"I cannot post in the GM channel <#{settings.gm_channel_id}>")
            copies.problems.append("I could not post in the GM channel (check my permissions there).")
    gm_ids, lapsed = await gms_of_channel(client, store, guild_id, channel_id, settings)
    copies.reasons += [f"<@{user_id}> claimed this channel but is no longer a GM" for user_id in lapsed]

    async def send_dm(user_id: int) -> discord.Message:
        dm = await client.create_dm(discord.Object(id=user_id))
        return await dm.send(header, **content)

    sent = await asyncio.gather(*(send_dm(uid) for uid in gm_ids), return_exceptions=True)
    for user_id, result in zip(gm_ids, sent, strict=True):
        if isinstance(result, discord.Message):
            copies.messages.append(result)
            copies.dm_sent_to.append(user_id)
        elif isinstance(result, discord.HTTPException):
            closed = getattr(result, "code", 0) == CANNOT_DM
            copies.reasons.append(
                f"<@{user_id}> does not accept DMs from me"
                if closed
                else f"Discord refused my DM to <@{user_id}>"
            )
            reason = "they do not accept DMs from me" if closed else "Discord refused"
            copies.problems.append(f"I could not DM <@{user_id}> ({reason}).")
        else:
            raise result
    if settings.gm_channel_id is not None and not gm_ids:
        copies.reasons.append("no GM has claimed this channel")
    return copies


async def choose_mode(
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
        requested = visibility_read(interaction, interaction.channel_id)
        if requested is None:
            requested = await store.settings.channel_visibility(interaction.guild.id, interaction.channel_id)
    mode = next((m for m in MODES if m == requested), None)
    if mode is None:
        raise UserError(f"Visibility must be one of {', '.join(MODES)}, not {requested!r}.")
    if interaction.guild is None and mode in ("gm", "blind"):
        raise UserError("GM and blind rolls work only in a server channel; in DMs use public or private.")
    if mode == "blind" and interaction.guild is not None:
        settings = await settings_read(store, interaction, interaction.guild.id)
        if not settings.allow_blind and not await is_gm(interaction, store):
            raise UserError("Blind rolls are switched off in this server; ask a GM (they can request one).")
    return mode


async def resolve_mode(
    interaction: discord.Interaction[Any],
    store: Store,
    requested: str | None,
    *,
    blind_refusal: str | None = None,
    kind: str = "roll",
) -> Mode:
    """`choose_visibility`, then `reach_gms`: for a command with no options to check in between."""
    mode = await choose_visibility(interaction, store, requested, blind_refusal=blind_refusal)
    await reach_gms(interaction, store, mode, kind)
    return mode


async def choose_visibility(
    interaction: discord.Interaction[Any],
    store: Store,
    requested: str | None,
    *,
    blind_refusal: str | None = None,
) -> Mode:
    """`choose_mode`: a roll's one read of the GMs' state (with the roller's sheet, for the options that
    follow), first. ``blind_refusal``: the sentence refusing a blind roll of a command that never is blind
    (before any GM is bothered). The GMs' copies wait for `reach_gms`, once the options are read."""
    mode = await choose_mode(interaction, store, requested)
    if mode == "blind" and blind_refusal is not None:
        raise UserError(blind_refusal)
    if mode == "public":  # a late acknowledgement may show the channel "thinking" (`guard_deadline`)
        interaction.extras[ANSWER_PUBLIC] = True
    return mode


async def reach_gms(
    interaction: discord.Interaction[Any], store: Store, mode: Mode, kind: str = "roll"
) -> None:
    """For a gm or blind roll, the GMs' copies opened before any die is rolled, and after the roll's options
    were read: a roll refused for its options notifies no GM of a roll never made.

    With no GM channel and no GM of the channel, the roll is refused at once. Otherwise the interaction is
    acknowledged (posting to GMs may be slow) and each copy's header posted (`open_gm_copies`); when no GM
    could get one, the roll is refused too, saying why and how to fix it. ``kind``: what the copies' header
    calls it ("roll", "hand").
    """
    if mode in ("gm", "blind") and interaction.guild is not None and interaction.channel_id is not None:
        await open_gm_copies(interaction, store, mode, kind)


async def gm_reachable(store: Store, settings: GuildSettings, guild_id: int, channel_id: int) -> bool:
    """Whether a hidden roll in the channel has somewhere to go: a GM channel, or a GM of the channel
    (appointed or claimed). Whether a copy then gets through is `open_gm_copies`' to find out."""
    return settings.gm_channel_id is not None or bool(await store.gm.list_channel_gms(guild_id, channel_id))


async def open_gm_copies(
    interaction: discord.Interaction[Any], store: Store, mode: Mode, kind: str = "roll"
) -> GMCopies:
    """Post the headers of a hidden roll's GM copies, for `deliver` to fill; refuses when none got through.

    Copies of a roll refused later (a bad option) are deleted again (`report_error` runs ``AFTER_ERROR``).
    """
    assert interaction.guild is not None and interaction.channel_id is not None
    guild_id, channel_id = interaction.guild.id, interaction.channel_id
    settings = await settings_read(store, interaction, guild_id)
    if not await gm_reachable(store, settings, guild_id, channel_id):
        raise UserError(NO_GM_HERE)
    await defer(interaction, ephemeral=True)  # the answer (a result or a refusal) is the roller's alone
    header = gm_header(kind, mode, interaction.user.id, channel_id)
    copies = await post_gm_copies(
        interaction.client, store, guild_id=guild_id, channel_id=channel_id, header=header
    )
    if not copies.messages:
        raise UserError(
            f"Nothing was rolled: no GM could get it ({'; '.join(copies.reasons)}); {HOW_TO_REACH_A_GM}."
        )
    interaction.extras[GM_COPIES] = copies
    interaction.extras.setdefault(AFTER_ERROR, []).append(copies.withdraw)
    return copies


async def keep_gm_copies(interaction: discord.Interaction[Any], text: str) -> None:
    """The roll's result comes on a later interaction (a hand played on): note it on the opened copies."""
    copies = interaction.extras.pop(GM_COPIES, None)
    if isinstance(copies, GMCopies):
        _forget_withdraw(interaction, copies)
        await copies.note(text)


def _forget_withdraw(interaction: discord.Interaction[Any], copies: GMCopies) -> None:
    undo = interaction.extras.get(AFTER_ERROR, [])
    if copies.withdraw in undo:
        undo.remove(copies.withdraw)


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
    details: bool = False,
    gm_embeds: Sequence[discord.Embed] = (),
) -> Delivery:
    """Show ``result_embed`` to whoever ``mode`` allows.

    ``gm_items`` (a GM's buttons, checked when clicked) go where a GM sees the result: on the public
    message, or next to Reveal on the GM's copy; never on a result only the roller sees.
    - public: the result in the channel (with ``view``).
    - private: the result ephemerally to the roller (with ``view``) and a public notice with no result.
    - gm: the result on the GM copies `resolve_mode` opened (with a Reveal button for ``log_id``), then
      ephemerally to the roller, then a public notice naming roller and kind.
    - blind: the result on the GM copies; the roller only learns that the roll went to the GM.
    ``notice_text`` replaces the default notice; ``kind`` names the check in it ("System X check").
    ``details``: the roll ``log_id`` was logged with its details; the GM copy gets a Details button too.
    ``gm_embeds`` follow the result on the GM copies only (what Reveal posts is the result alone).
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

    gm_view = (
        reveal_view(log_id, *gm_items, details=details) if log_id is not None else with_items(None, gm_items)
    )
    copies = interaction.extras.pop(GM_COPIES, None)
    if isinstance(copies, GMCopies):
        _forget_withdraw(interaction, copies)  # the roll stands now: its copies stay, whatever comes
        reached = await copies.fill([result_embed, *gm_embeds], gm_view)
    else:  # a roll that did not come through resolve_mode: post the copies whole
        assert interaction.channel_id is not None and interaction.guild is not None
        copies = await post_gm_copies(
            interaction.client,
            store,
            guild_id=interaction.guild.id,
            channel_id=interaction.channel_id,
            header=gm_header("roll", mode, interaction.user.id, interaction.channel_id),
            embeds=[result_embed, *gm_embeds],
            view=gm_view,
        )
        reached = bool(copies.messages)
    used = requests_used(interaction)  # a GM's request this roll took stands with it
    if not reached:  # no GM shows it (Discord refused every edit): the log has it for them
        await reply(interaction, NOT_DELIVERED, ephemeral=True)
    else:
        copies.record(done)
        problems = " ".join(done.problems) or None
        if mode == "gm":
            await reply(interaction, problems, embed=result_embed, view=view, ephemeral=True)
            await reply(interaction, notice_text or default_notice(interaction, mode, kind))
        else:
            roller_text = BLIND_ROLLER_TEXT + (f"\n{problems}" if problems else "")
            await reply(interaction, roller_text, ephemeral=True)
    for request_id in used:  # after the roller's answer: the request's message says it was rolled
        await mark_rolled(interaction, store, request_id)
    return done


async def may_reveal(interaction: discord.Interaction[Any], store: Store, record: RollRecord) -> bool:
    """Whether this user may reveal the roll: a GM of the roll's own channel (`gm_of_roll`)."""
    return await gm_of_roll(interaction, store, record)


def _view(view: discord.ui.View | None) -> dict[str, Any]:
    return {"view": view} if view is not None else {}


def with_items(view: discord.ui.View | None, items: Sequence[discord.ui.Item[Any]]) -> discord.ui.View | None:
    """``view`` with ``items`` added (a new view when there was none); ``view`` itself without items."""
    if not items:
        return view
    if view is None:
        view = TableView(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def reveal_view(log_id: int, *items: discord.ui.Item[Any], details: bool = False) -> discord.ui.View:
    """A view holding the Reveal button for the roll ``log_id`` (persistent: survives restarts), then
    ``items``, and its Details button when the roll was logged with details.
    """
    view = discord.ui.View(timeout=None)
    view.add_item(RevealButton(log_id))
    for item in items:
        view.add_item(item)
    return details_view(log_id, view) if details else view


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
        # acknowledged before the post, which Discord may be slow to take (the 3-second rule)
        await defer(interaction, ephemeral=True)
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
        await self.show_revealed(interaction.message)

    async def show_revealed(self, copy: discord.Message | None) -> None:
        """The clicked GM copy with its Reveal button greyed out as "Revealed", its other buttons as they
        were: a GM sees at a glance which hidden rolls are out (another GM's copy still says so when
        clicked). Only how the message looks changes, so a failed edit is logged, not shown."""
        if copy is None:
            return
        view = discord.ui.View.from_message(copy, timeout=None)
        for item in view.children:
            if isinstance(item, discord.ui.Button) and item.custom_id == f"reveal:{self.log_id}":
                item.disabled, item.label = True, "Revealed"
        # stopped: a view that listens would be kept for this message, and its plain copies of the buttons
        # would answer clicks beside the DynamicItems that own them
        view.stop()
        try:
            await copy.edit(view=view)
        except discord.HTTPException as error:
            log.info("Could not grey out the Reveal button of roll %s: %s", self.log_id, error)
