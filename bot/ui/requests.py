"""A GM's request for a blind roll, on its message: the named player accepts it, a GM withdraws it.

The request lives in the store's key-value table (no schema change): ``roll_request:<id>`` holds the open
request (guild, channel, player, system, GM) until the player presses **Roll (blind)**; that press moves
it, in one transaction, to the player's queue ``blind_request:<guild>:<channel>:<player>:<system>``
(`bot.ui.gm.blind_key`), where `bot.ui.gm.take_blind_request` takes it for their next roll of that system.
**Withdraw** takes it back from wherever it is, until it is rolled. The message says at a glance where the
request stands: asked, accepted, withdrawn, or rolled (`mark_rolled`, once the roll that used it is done).
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import discord

from bot.store import SYSTEMS, Store
from bot.ui.embeds import NO_MENTIONS, shown_name
from bot.ui.gm import BLIND_PREFIX, blind_key, system_label
from bot.ui.permissions import is_gm
from bot.ui.reply import (
    GIVE_BACK_ON_ERROR,
    ID_PATTERN,
    ErrorReportingItem,
    UserError,
    refuse,
    reply,
    update_message,
)

log = logging.getLogger(__name__)

REQUEST_PREFIX = "roll_request:"
MESSAGE_PREFIX = "roll_request_message:"  # where the request was posted, to say there once it is rolled
WITHDRAW_NOT_GM = "Only a GM of this channel can withdraw this roll request."
NOTHING_TO_WITHDRAW = "Nothing to withdraw: that roll request was already rolled or withdrawn."
# a request posted before it had a second line carried its instructions on its first (2026-11-28)
_OLD_INSTRUCTIONS = re.compile(r"^(.*\.) [^\n]*?: press \*\*Roll \(blind\)\*\*.*$")


def _name(user: discord.abc.User) -> str:
    return f"**{shown_name(user.display_name)}**"


def request_text(gm: discord.abc.User, player: discord.abc.User, system: str, note: str | None) -> str:
    """The request as posted: what is asked, then what the player does."""
    what = f": {shown_name(note)}" if note else ""
    return (
        f"🎲 {_name(gm)} asks {_name(player)} for a blind {system_label(system)} roll{what}.\n"
        f"{_name(player)}: press **Roll (blind)**, then roll with /{system}; "
        "only the GMs will see the result."
    )


async def note_request_message(store: Store, request_id: int, message: discord.Message) -> None:
    """Remember where the request was posted and what it asked, for `mark_rolled`."""
    where = {"channel": message.channel.id, "message": message.id, "asked": _asked(message)}
    await store.meta.set(f"{MESSAGE_PREFIX}{request_id}", json.dumps(where))


def requests_used(interaction: discord.Interaction[Any]) -> list[int]:
    """The accepted requests this roll took (`bot.ui.gm.take_blind_request`), now that it stands (its GM
    copies are filled): an error after this point no longer gives them back for another roll."""
    extras = interaction.extras
    taken = extras.pop(GIVE_BACK_ON_ERROR, [])
    others = [(key, value) for key, value in taken if not key.startswith(BLIND_PREFIX)]
    if others:
        extras[GIVE_BACK_ON_ERROR] = others
    return [int(value) for key, value in taken if key.startswith(BLIND_PREFIX)]


async def mark_rolled(interaction: discord.Interaction[Any], store: Store, request_id: int) -> None:
    """The player's roll used the request: its message says so and loses its Withdraw (once; a message
    deleted meanwhile, or one the bot may no longer edit, is left as it is)."""
    key = f"{MESSAGE_PREFIX}{request_id}"
    raw = await store.meta.get(key)
    if raw is None or not await store.meta.delete(key):
        return
    where: dict[str, Any] = json.loads(raw)
    channel = interaction.client.get_partial_messageable(where["channel"])
    try:
        await channel.get_partial_message(where["message"]).edit(
            content=f"{where['asked']}\n✅ {_name(interaction.user)} has rolled it: only the GMs see the "
            "result.",
            view=None,
            allowed_mentions=NO_MENTIONS,
        )
    except discord.HTTPException as error:
        log.info("Could not mark roll request %s as rolled: %s", request_id, error)


def _asked(message: discord.Message | None) -> str:
    """The request message's first line: what was asked."""
    content = message.content if message is not None else ""
    return _OLD_INSTRUCTIONS.sub(r"\1", content.split("\n", 1)[0])


async def open_request(
    store: Store, request_id: int, *, guild_id: int, channel_id: int, player_id: int, system: str, gm_id: int
) -> None:
    """Remember a GM's request for a blind roll until the player accepts it."""
    record = {"guild": guild_id, "channel": channel_id, "player": player_id, "system": system, "gm": gm_id}
    await store.meta.set(f"{REQUEST_PREFIX}{request_id}", json.dumps(record))


async def _open_record(
    interaction: discord.Interaction[Any], store: Store, request_id: int
) -> tuple[str, dict[str, Any] | None]:
    """The open request's key and record (None once accepted or withdrawn); `UserError` for one of another
    channel (a forged copy of the button)."""
    key = f"{REQUEST_PREFIX}{request_id}"
    raw = await store.meta.get(key)
    if raw is None:
        return key, None
    record: dict[str, Any] = json.loads(raw)
    here = (interaction.guild.id if interaction.guild else None, interaction.channel_id)
    if here != (record["guild"], record["channel"]):
        raise UserError("This roll request belongs to another channel.")
    return key, record


class RequestRollButton(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"rr:(?P<request_id>{ID_PATTERN})",
):
    """On a GM's request: the named player accepts, and their next roll of that system goes blind."""

    def __init__(self, request_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Roll (blind)", style=discord.ButtonStyle.primary, custom_id=f"rr:{request_id}"
            )
        )
        self.request_id = request_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any] | None, match: Any, /
    ) -> RequestRollButton:
        return cls(int(match["request_id"]))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        store: Store = interaction.client.store
        key, record = await _open_record(interaction, store, self.request_id)
        if record is None:
            await refuse(interaction, "This roll request was already accepted or no longer exists.")
            return
        if interaction.user.id != record["player"]:
            await refuse(interaction, f"Only <@{record['player']}> can accept this roll request.")
            return
        system = str(record["system"])
        # the request becomes the player's blind roll in one transaction: never gone without it
        # one queue of accepted requests per player, channel and system: each takes one roll
        waiting = await store.meta.move(
            key, blind_key(record["guild"], record["channel"], record["player"], system), str(self.request_id)
        )
        if waiting is None:  # a double click: the first one accepted it
            await refuse(interaction, "This roll request was already accepted.")
            return
        await update_message(
            interaction,
            content=f"{_asked(interaction.message)}\n✅ {_name(interaction.user)} accepted: only the GMs "
            "will see that roll.",
            view=request_view(self.request_id, record["player"], system, accepted=True),
        )
        label = system_label(system)
        if waiting == 1:
            text = (
                f"Your next {label} roll in this channel will be blind: only the GMs will see it. "
                f"Roll it now with /{system}."
            )
        else:
            text = (
                f"Your next {waiting} {label} rolls in this channel will be blind: only the GMs will see "
                f"them. Roll them with /{system}."
            )
        await reply(interaction, text, ephemeral=True)


class WithdrawRequestButton(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"rw:(?P<request_id>{ID_PATTERN}):(?P<player_id>{ID_PATTERN}):(?P<system>{'|'.join(SYSTEMS)})",
):
    """A GM of the channel takes the request back, open or accepted, until the player has rolled it."""

    def __init__(self, request_id: int, player_id: int, system: str) -> None:
        super().__init__(
            discord.ui.Button(
                label="Withdraw",
                style=discord.ButtonStyle.secondary,
                custom_id=f"rw:{request_id}:{player_id}:{system}",
            )
        )
        self.request_id, self.player_id, self.system = request_id, player_id, system

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any] | None, match: Any, /
    ) -> WithdrawRequestButton:
        return cls(int(match["request_id"]), int(match["player_id"]), str(match["system"]))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        store: Store = interaction.client.store
        if interaction.guild is None or interaction.channel_id is None:
            await refuse(interaction, NOTHING_TO_WITHDRAW)
            return
        if not await is_gm(interaction, store):
            await refuse(interaction, WITHDRAW_NOT_GM)
            return
        key, record = await _open_record(interaction, store, self.request_id)
        # open: one DELETE, which an accept's move at the same moment cannot also take; accepted (or moved
        # meanwhile): out of the player's queue, unless their roll took it first
        withdrawn = record is not None and await store.meta.delete(key)
        if not withdrawn:
            queue = blind_key(interaction.guild.id, interaction.channel_id, self.player_id, self.system)
            withdrawn = await store.meta.remove(queue, str(self.request_id))
        if not withdrawn:
            await refuse(interaction, NOTHING_TO_WITHDRAW)
            return
        await store.meta.delete(f"{MESSAGE_PREFIX}{self.request_id}")  # nothing left to mark rolled
        await update_message(
            interaction,
            content=f"~~{_asked(interaction.message)}~~\nWithdrawn by {_name(interaction.user)}.",
            view=None,
        )


def request_view(request_id: int, player_id: int, system: str, *, accepted: bool = False) -> discord.ui.View:
    """The request message's persistent view: **Roll (blind)** until accepted, and **Withdraw**."""
    view = discord.ui.View(timeout=None)
    if not accepted:
        view.add_item(RequestRollButton(request_id))
    view.add_item(WithdrawRequestButton(request_id, player_id, system))
    return view


REQUEST_ITEMS = (RequestRollButton, WithdrawRequestButton)
