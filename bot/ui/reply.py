"""Answering an interaction: one reply helper, one defer helper, and one error table for commands and buttons.

Everything goes through discord.py's public interaction API (``interaction.response``, ``followup``,
``edit_original_response``). `reply` sends the response when nothing was sent yet and follows up
otherwise, always without pings. `report_error` turns any exception into one ephemeral sentence (user
errors) or a logged short code (anything unexpected), so no interaction is ever left unanswered.
`ErrorReportingItem` gives the bot's `DynamicItem` buttons the same error table and an owner check that
answers the person it refuses.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import discord
from discord import app_commands

from bot.core.errors import RuleError
from bot.store.errors import StoreError
from bot.ui.embeds import CONTENT_MAX, NO_MENTIONS, clip, shown_name

log = logging.getLogger("bot.errors")
NO_DMS = "This command works only in a server channel, not in DMs."
CHANGED = "This command has just changed; try it again in a minute."
#: A command Discord still shows in an older shape than the running code's (an older copy still synced, a
#: sync still spreading): discord.py raises these; the user only has to wait for Discord's copy.
STALE_COMMAND = (app_commands.CommandNotFound, app_commands.CommandSignatureMismatch)
#: Commands whose member options name the people taking part in a roll (or in its odds).
ROLL_COMMANDS = frozenset({"sysx", "dn", "rps", "decision", "cards", "odds", "roll"})
_KIND_NAMES = {
    discord.AppCommandOptionType.channel: "channel",
    discord.AppCommandOptionType.role: "role",
    discord.AppCommandOptionType.user: "member",
    discord.AppCommandOptionType.mentionable: "member or role",
    discord.AppCommandOptionType.attachment: "file",
}
# interaction.extras key: (meta key, value) pairs a command took (a GM's blind request) and gives back if
# it fails, so a refused roll leaves them for the next one
GIVE_BACK_ON_ERROR = "tabletop_give_back_on_error"
# interaction.extras key: coroutine functions that undo what a refused command already posted (a hidden
# roll's GM copies), run once the user has their answer
AFTER_ERROR = "tabletop_after_error"

#: The id in a DynamicItem's custom_id (``template=rf"bj:(?P<hand_id>{ID_PATTERN}):hit"``): a positive number
#: below 9 * 10**18 (snowflakes, used as request ids, have 19 digits), so a forged id never overflows
#: SQLite's 64-bit integers: it matches no item and is ignored like any unknown id.
ID_PATTERN = r"(?:[1-9][0-9]{0,17}|[1-8][0-9]{18})"
_DEFERRED = "tabletop_deferred_ephemeral"  # interaction.extras key: how the response was deferred
_ORIGINAL_USED = "tabletop_original_used"
_FIRST_RESPONSE = "tabletop_first_response"  # interaction.extras key: the lock around the one response
_GUARD = "tabletop_deadline_guard"  # interaction.extras key: `guard_deadline`'s timer, cancelled on answer
# interaction.extras key: Discord took a late acknowledgement though its answer to it was lost (a retry was
# refused as a second one), so discord.py does not know the interaction is acknowledged
_ACKNOWLEDGED = "tabletop_acknowledged"
#: interaction.extras key: the command's answer is known to be public (`choose_visibility` sets it), so a
#: late acknowledgement may show the channel its "thinking"; until then it is the user's alone
ANSWER_PUBLIC = "tabletop_answer_public"
#: Discord drops an interaction not acknowledged 3 s after it sent it. An answer not begun this long after
#: the bot received it (a cold worker, a slow store, a loaded host) is acknowledged first, `guard_deadline`.
DEFER_AFTER = 1.5
ACKNOWLEDGED_ALREADY = 40060  # Discord's code: "Interaction has already been acknowledged"
_ACKNOWLEDGED_LATE = (discord.InteractionType.application_command, discord.InteractionType.component)
_LATE: set[asyncio.Task[None]] = set()  # late acknowledgements in flight (the loop keeps weak references)

Sent = discord.InteractionMessage | discord.WebhookMessage


class UserError(Exception):
    """Something the user must change; ``str(err)`` is the one sentence they see (ephemeral)."""


def first_response(interaction: discord.Interaction[Any]) -> asyncio.Lock:
    """The lock every first response takes: `guard_deadline`'s acknowledgement and the handler's own
    answer can then never both go out (Discord refuses a second one, 40060)."""
    lock: asyncio.Lock | None = interaction.extras.get(_FIRST_RESPONSE)
    if lock is None:
        lock = interaction.extras[_FIRST_RESPONSE] = asyncio.Lock()
    return lock


def responded(interaction: discord.Interaction[Any]) -> bool:
    """Whether Discord has this interaction's first response (after which only follow-ups and edits go)."""
    return interaction.response.is_done() or bool(interaction.extras.get(_ACKNOWLEDGED))


async def defer(interaction: discord.Interaction[Any], *, ephemeral: bool = False) -> None:
    """Acknowledge now (Discord's 3-second rule) when the work may be slow; `reply` then fills the answer."""
    async with first_response(interaction):
        if responded(interaction):
            return
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        interaction.extras[_DEFERRED] = ephemeral
    _answered(interaction)


def guard_deadline(interaction: discord.Interaction[Any]) -> None:
    """Acknowledge ``interaction`` `DEFER_AFTER` seconds from now unless it was answered by then.

    A command gets Discord's "thinking" (the user's alone unless its answer is known to be public, so a
    hidden roll is never announced), filled by `reply`; a button or menu a silent acknowledgement, after
    which `reply` follows up and `update_message` edits its message. Costs one timer when all goes well.
    """
    if interaction.type not in _ACKNOWLEDGED_LATE:
        return  # an autocomplete cannot be deferred
    loop = asyncio.get_running_loop()
    interaction.extras[_GUARD] = loop.call_later(DEFER_AFTER, _deadline_near, interaction, loop.time())


def _answered(interaction: discord.Interaction[Any]) -> None:
    """The first response went out: the deadline's timer lets go of the interaction at once."""
    guard: asyncio.TimerHandle | None = interaction.extras.pop(_GUARD, None)
    if guard is not None:
        guard.cancel()


def _deadline_near(interaction: discord.Interaction[Any], received: float) -> None:
    if responded(interaction) or interaction.client.is_closed():
        return
    # named as discord.py names a view's tasks: whoever waits for a click's work waits for this too
    task = asyncio.get_running_loop().create_task(
        _acknowledge_late(interaction, received), name=f"discord-ui-late-ack-{interaction.id}"
    )
    _LATE.add(task)
    task.add_done_callback(_LATE.discard)


async def _acknowledge_late(interaction: discord.Interaction[Any], received: float) -> None:
    async with first_response(interaction):
        if responded(interaction):
            return
        component = interaction.type is discord.InteractionType.component
        ephemeral = not interaction.extras.get(ANSWER_PUBLIC, False)
        try:
            if component:
                await interaction.response.defer()  # "deferred update": nothing shows, the message stays
            else:
                await interaction.response.defer(ephemeral=ephemeral, thinking=True)
        except discord.HTTPException as error:
            if error.code != ACKNOWLEDGED_ALREADY:  # too late already, or Discord is down
                log.warning("Could not acknowledge %s in time: %s", _describe(interaction), error)
                return
            interaction.extras[_ACKNOWLEDGED] = True  # a retry of this very acknowledgement was refused
        if not component:
            interaction.extras[_DEFERRED] = ephemeral
    elapsed = asyncio.get_running_loop().time() - received
    log.warning(
        "Slow answer to %s: acknowledged first, %.1f s after it came", _describe(interaction), elapsed
    )


async def reply(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
    ephemeral: bool = False,
    files: Sequence[discord.File] = (),
) -> Sent | None:
    """Send ``content``/``embeds``: the response if none was sent yet, else a follow-up. Never pings.

    After `defer`, the first reply fills the deferred message when its visibility matches; when it does
    not, the deferred message is removed so a public deferral never shows a private answer. Returns the
    message sent (None only when Discord did not say which message a response was). ``files`` are
    closed afterwards, sent or not.
    """
    try:
        kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
        if content:
            kwargs["content"] = clip(content, CONTENT_MAX)
        all_embeds = ([embed] if embed is not None else []) + list(embeds)
        if all_embeds:
            kwargs["embeds"] = all_embeds
        if view is not None:
            kwargs["view"] = view
        if not responded(interaction):
            async with first_response(interaction):
                if not responded(interaction):
                    first = kwargs | {"files": list(files)} if files else kwargs  # none: no empty list sent
                    callback = await interaction.response.send_message(ephemeral=ephemeral, **first)
                    _answered(interaction)
                    resource = callback.resource if callback is not None else None
                    return resource if isinstance(resource, discord.InteractionMessage) else None
        deferred_ephemeral = interaction.extras.get(_DEFERRED)
        if (
            deferred_ephemeral is None
            and interaction.response.type is discord.InteractionResponseType.deferred_channel_message
        ):
            deferred_ephemeral = False  # deferred elsewhere without our helper: assume public
        if deferred_ephemeral is not None and not interaction.extras.get(_ORIGINAL_USED):
            interaction.extras[_ORIGINAL_USED] = True
            if deferred_ephemeral == ephemeral:
                return await interaction.edit_original_response(attachments=list(files), **kwargs)
            await interaction.delete_original_response()
        return await interaction.followup.send(ephemeral=ephemeral, files=list(files), wait=True, **kwargs)
    finally:
        for file in files:
            file.close()


async def update_message(interaction: discord.Interaction[Any], **changes: Any) -> None:
    """Edit the message whose button or menu was used: as the response, or once `guard_deadline`
    acknowledged the click, through the interaction's original message (that same message). Never pings."""
    changes.setdefault("allowed_mentions", NO_MENTIONS)
    async with first_response(interaction):
        if not responded(interaction):
            await interaction.response.edit_message(**changes)
            _answered(interaction)
            return
    await interaction.edit_original_response(**changes)


async def reply_in_parts(
    interaction: discord.Interaction[Any],
    content: str | None,
    parts: Sequence[discord.Embed],
    *,
    ephemeral: bool = False,
) -> None:
    """``parts`` one message each, ``content`` with the first: `embeds.spread`'s embeds, each as much as one
    message may hold (Discord counts its 6,000 characters across all the embeds of a message)."""
    for number, part in enumerate(parts):
        await reply(interaction, content if number == 0 else None, embed=part, ephemeral=ephemeral)


async def refuse(interaction: discord.Interaction[Any], sentence: str) -> None:
    """Answer with one ephemeral sentence (a refusal or a user error); nothing else happens."""
    await reply(interaction, sentence, ephemeral=True)


def transformer_sentence(
    error: app_commands.TransformerError, interaction: discord.Interaction[Any] | None = None
) -> str:
    """An option discord.py could not turn into what the command takes, in the table's words.

    With a real client this is a member option naming someone who is no member here: in a DM (no server
    to be a member of), or someone who has left the server; Discord then sends them as a user only.
    """
    value = error.value
    command = interaction.command if interaction is not None else None
    root = getattr(command, "root_parent", None) or command
    in_a_roll = root is not None and root.name in ROLL_COMMANDS
    if isinstance(value, discord.abc.User):
        name = shown_name(value.display_name)
        if interaction is not None and interaction.guild is None:
            what = "take part in a roll" if in_a_roll else "be chosen"
            return f"{name} can {what} only in a server channel you share, not in DMs."
        then = "they can't take part in this roll" if in_a_roll else "they can't be chosen here"
        return f"{name} is not in this server, so {then}."
    kind = _KIND_NAMES.get(error.type, "value")
    return f"That {kind} can't be used here; pick another."


def user_message(error: BaseException, interaction: discord.Interaction[Any] | None = None) -> str | None:
    """The one sentence for an error the user caused, or None when the error is unexpected."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError) and error.__cause__:
        inner = user_message(error.__cause__, interaction)
        if inner is not None:
            return inner
    if isinstance(error, app_commands.CommandInvokeError):
        return user_message(error.original, interaction)
    if isinstance(error, STALE_COMMAND):
        return CHANGED
    if isinstance(error, UserError | RuleError | StoreError):
        return str(error)
    if isinstance(error, app_commands.NoPrivateMessage):
        return NO_DMS
    if isinstance(error, app_commands.MissingPermissions):
        needed = ", ".join(
            p.replace("_", " ").replace("guild", "server").title() for p in error.missing_permissions
        )
        return f"You need the {needed} permission for this."
    if isinstance(error, app_commands.BotMissingPermissions):
        needed = ", ".join(
            p.replace("_", " ").replace("guild", "server").title() for p in error.missing_permissions
        )
        return f"I need the {needed} permission in this channel for this."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} seconds."
    if isinstance(error, app_commands.TransformerError):
        return transformer_sentence(error, interaction)
    if isinstance(error, app_commands.CheckFailure):
        text = str(error)
        return (
            text
            if text and not text.startswith("The check functions")
            else "You cannot use this command here."
        )
    return None


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> str | None:
    """Answer ``error`` ephemerally; unexpected errors are logged with a short code shown to the user.

    Returns the code for unexpected errors (None for user errors).
    """
    message = user_message(error, interaction)
    code: str | None = None
    if isinstance(error, STALE_COMMAND):  # Discord's copy is older than ours: no bug, no traceback
        log.warning(
            "%s in %s from user %s: %s",
            type(error).__name__,
            _describe(interaction),
            interaction.user.id,
            error,
        )
    store = getattr(interaction.client, "store", None)
    if store is not None:  # the roll failed before its log row: give back the GM modifier uses it reserved
        store.modifiers.release(store.modifiers.ticket(interaction.id))
        # and the blind request it took (if it failed after its log row, the next roll is blind too: a
        # result hidden once more, never one shown that the GM asked to hide)
        for key, value in interaction.extras.pop(GIVE_BACK_ON_ERROR, []):
            try:
                await store.meta.push(key, value)
            except Exception:  # the answer below still goes out
                log.warning("Could not give back %s after an error", key, exc_info=True)
    if interaction.type is discord.InteractionType.autocomplete:
        # an autocomplete cannot show a sentence: log it and offer no choices rather than leave it hanging
        if not isinstance(error, STALE_COMMAND):
            log.error("Autocomplete failed in %s", _describe(interaction), exc_info=error)
        if not interaction.response.is_done():
            await interaction.response.autocomplete([])
        return None
    if message is None:
        code = secrets.token_hex(3)
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        log.error(
            "Unexpected error %s in %s by user %s",
            code,
            _describe(interaction),
            interaction.user.id,
            exc_info=(type(original), original, original.__traceback__),
        )
        message = (
            f"Something went wrong on my side (error code `{code}`); the bot's host can find it in the log."
        )
    try:
        await reply(interaction, message, ephemeral=True)
    except (
        discord.HTTPException
    ) as http_error:  # the interaction expired or Discord is down: nothing left to do
        log.warning("Could not tell the user about an error in %s: %s", _describe(interaction), http_error)
    for undo in interaction.extras.pop(AFTER_ERROR, []):
        try:
            await undo()
        except Exception:  # the user has their answer; what could not be undone is only logged
            log.warning(
                "Could not undo part of a refused command in %s", _describe(interaction), exc_info=True
            )
    return code


def _describe(interaction: discord.Interaction[Any]) -> str:
    if interaction.command is not None:
        return f"/{interaction.command.qualified_name}"
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = data.get("custom_id")
    return f"component {custom_id}" if custom_id else f"interaction type {interaction.type.name}"


class TableView(discord.ui.View):
    """Base view: any error in an item's callback is answered with `report_error`."""

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, item: discord.ui.Item[Any], /
    ) -> None:
        await report_error(interaction, error)


async def run_reported(
    interaction: discord.Interaction[Any],
    handle: Callable[[discord.Interaction[Any]], Awaitable[None]],
) -> None:
    """Run ``handle(interaction)``, answering an error with `report_error` (discord.py only logs a
    DynamicItem's)."""
    try:
        await handle(interaction)
    except Exception as error:
        await report_error(interaction, error)


class ErrorReportingItem:
    """Mixin for the bot's `DynamicItem`s (put it first in the bases), dispatched by discord.py itself.

    Subclasses implement ``handle(interaction)`` instead of ``callback``, and may implement
    ``allowed(interaction)``: False stops the click after it answered the clicker (an owner-only item
    answers the stranger with one ephemeral sentence, `bot.ui.permissions.owner_or_gm`). An error in
    either is answered with `report_error`; discord.py would only log it, or drop the click silently.
    """

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        guard_deadline(interaction)
        try:
            return await self.allowed(interaction)
        except Exception as error:
            await report_error(interaction, error)
            return False

    async def allowed(self, interaction: discord.Interaction[Any]) -> bool:
        """Whether this click may go on; answer the clicker before returning False."""
        return True

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await run_reported(interaction, self.handle)

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        raise NotImplementedError
