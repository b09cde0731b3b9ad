"""Answering an interaction: one reply helper, one defer helper, and one error table for commands and buttons.

`reply` sends the response when nothing was sent yet and follows up otherwise, always without pings.
`report_error` turns any exception into one ephemeral sentence (user errors) or a logged short code
(anything unexpected), so no interaction is ever left unanswered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar

import discord
from discord import app_commands
from discord.http import Route, handle_message_parameters
from discord.utils import MISSING
from discord.webhook.async_ import async_context, interaction_message_response_params

from bot.core.errors import RuleError
from bot.store.errors import StoreError
from bot.ui.callbacks import CallbackClient
from bot.ui.clicks import message_id
from bot.ui.embeds import CONTENT_MAX, NO_MENTIONS, clip

log = logging.getLogger("bot.errors")
NO_DMS = "This command works only in a server channel, not in DMs."
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


class UserError(Exception):
    """Something the user must change; ``str(err)`` is the one sentence they see (ephemeral)."""


async def defer(interaction: discord.Interaction[Any], *, ephemeral: bool = False) -> None:
    """Acknowledge now (Discord's 3-second rule) when the work may be slow; `reply` then fills the answer."""
    if interaction.response.is_done():
        return
    await interaction.response.defer(ephemeral=ephemeral, thinking=True)
    interaction.extras[_DEFERRED] = ephemeral


async def reply(
    interaction: discord.Interaction[Any],
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    embeds: Sequence[discord.Embed] = (),
    view: discord.ui.View | None = None,
    ephemeral: bool = False,
    files: Sequence[discord.File] = (),
    want_message: bool = False,
) -> discord.InteractionMessage | discord.WebhookMessage | None:
    """Send ``content``/``embeds``: the response if none was sent yet, else a follow-up. Never pings.

    After `defer`, the first reply fills the deferred message when its visibility matches; when it does
    not, the deferred message is removed so a public deferral never shows a private answer.
    ``want_message``: return the message sent (None only when Discord did not say which message it was);
    without it a response or follow-up does not ask Discord for its message back (`respond`), and the
    return value is None unless a deferred message was edited. ``files`` are closed afterwards, sent or
    not (`_close_upload`).
    """
    try:
        all_embeds = ([embed] if embed is not None else []) + list(embeds)
        text = clip(content, CONTENT_MAX) if content else None
        kwargs: dict[str, Any] = {"allowed_mentions": NO_MENTIONS}
        if text is not None:
            kwargs["content"] = text
        if all_embeds:
            kwargs["embeds"] = all_embeds
        if view is not None:
            kwargs["view"] = view
        if not interaction.response.is_done():
            if files or want_message or not _lean(view):
                if files:  # none: no empty attachments list in the payload
                    kwargs["files"] = list(files)
                callback = await interaction.response.send_message(ephemeral=ephemeral, **kwargs)
                resource = callback.resource if callback is not None else None
                return resource if isinstance(resource, discord.InteractionMessage) else None
            await respond(
                interaction, discord.InteractionResponseType.channel_message, ephemeral=ephemeral, **kwargs
            )
            return None
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
        if files or want_message or view is not None:
            return await interaction.followup.send(
                ephemeral=ephemeral, files=list(files), wait=True, **kwargs
            )
        await follow_up(interaction, ephemeral=ephemeral, **kwargs)
        return None
    finally:
        for file in files:
            _close_upload(file)


def _close_upload(file: discord.File) -> None:
    """Close an upload that has been sent (or failed to be).

    discord.py's ``File`` swaps its buffer's ``close`` for a no-op while it sends, and its ``close()`` puts
    the buffer's own bound ``close`` back in the buffer's ``__dict__``: the buffer then refers to itself,
    and with it its bytes (a chart: ~27 KB), which only the cycle collector frees. The bot's young
    collections run every 10,000 new objects (`bot.client.YOUNG_THRESHOLD`), so those bytes piled up for
    hundreds of charts (bench/memory.py: ~75 KB a round). With discord.py's swapped-in ``close`` taken
    out, the buffer's own closes it (a file discord.py opened from a path too) and frees its bytes at once.
    """
    getattr(file.fp, "__dict__", {}).pop("close", None)
    file.fp.close()


def _lean(view: discord.ui.View | None) -> bool:
    """Whether `respond` can send ``view``: none, or only dynamic items (dispatched by their custom_id's
    pattern, so discord.py has nothing to remember about the message)."""
    return view is None or all(isinstance(item, discord.ui.DynamicItem) for item in view.walk_children())


async def respond(
    interaction: discord.Interaction[Any],
    kind: discord.InteractionResponseType,
    *,
    content: str | None = MISSING,
    embed: discord.Embed | None = MISSING,
    embeds: Sequence[discord.Embed] = MISSING,
    view: discord.ui.View | None = MISSING,
    ephemeral: bool = False,
    allowed_mentions: discord.AllowedMentions = NO_MENTIONS,
) -> None:
    """Answer ``interaction`` with a new message (``channel_message``) or an edit of the clicked one
    (``message_update``), as ``interaction.response.send_message`` / ``edit_message`` do, but without
    asking Discord for the message back.

    discord.py asks for it on every response (``with_response``) and builds a ``Message`` from it: for a
    roll's embed or a hand with its buttons, a bigger part of answering than anything else discord.py does
    with the request's answer, for a message nothing here reads. ``view`` must be None or fully dynamic
    (`_lean`); files go through discord.py's own methods. Raises as they do: ``InteractionResponded``,
    ``HTTPException``. Uses three private names of discord.py 2.7 (``Interaction._state``/``_session``,
    ``InteractionResponse._response_type``), covered by every end-to-end test.
    """
    response = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    if kind is discord.InteractionResponseType.message_update and interaction.type not in (
        discord.InteractionType.component,
        discord.InteractionType.modal_submit,
    ):
        raise ValueError("only a click or a modal's answer can edit its message")
    if not _lean(view if view is not MISSING else None):
        raise ValueError("respond() sends no view that discord.py would have to remember")
    state = interaction._state
    flags = discord.MessageFlags(ephemeral=True) if ephemeral else MISSING
    params = interaction_message_response_params(
        type=kind.value,
        content=content,
        embed=embed,
        embeds=embeds,
        view=view,
        flags=flags,
        previous_allowed_mentions=state.allowed_mentions,
        allowed_mentions=allowed_mentions,
    )
    if kind is discord.InteractionResponseType.message_update and view is not MISSING:
        clicked = message_id(interaction)  # without parsing the message (bot.ui.clicks)
        if clicked is not None:
            state.prevent_view_updates_for(clicked)  # as edit_message: no gateway edit re-syncs a stale view
    http = state.http
    callbacks = _own_connections(interaction)
    if callbacks is not None and params.payload is not None:
        await callbacks.post(interaction.id, interaction.token, params.payload, user_agent=http.user_agent)
    else:  # through a proxy, or a client without our connections: discord.py's session
        route = Route(
            "POST",
            "/interactions/{webhook_id}/{webhook_token}/callback",
            webhook_id=interaction.id,
            webhook_token=interaction.token,
        )
        await async_context.get().request(
            route,
            session=interaction._session,
            proxy=http.proxy,
            proxy_auth=http.proxy_auth,
            payload=params.payload,
        )
    response._response_type = kind


def _own_connections(interaction: discord.Interaction[Any]) -> CallbackClient | None:
    """The bot's own connections (`bot.ui.callbacks`), or None: through a proxy, or on a client without
    them, answers go through discord.py's session."""
    callbacks = getattr(interaction.client, "callbacks", None)
    if isinstance(callbacks, CallbackClient) and interaction._state.http.proxy is None:
        return callbacks
    return None


async def follow_up(
    interaction: discord.Interaction[Any],
    *,
    content: str | None = MISSING,
    embeds: Sequence[discord.Embed] = MISSING,
    ephemeral: bool = False,
    allowed_mentions: discord.AllowedMentions = NO_MENTIONS,
) -> None:
    """A follow-up message without components, as ``interaction.followup.send`` posts it, but without
    waiting for the message: discord.py always waits for an interaction's follow-up and parses it.

    Through a proxy, or a client without our connections, discord.py's own ``followup.send``.
    """
    state = interaction._state
    http = state.http
    callbacks = _own_connections(interaction)
    if callbacks is None:
        await interaction.followup.send(
            content=content, embeds=embeds, ephemeral=ephemeral, allowed_mentions=allowed_mentions, wait=True
        )
        return
    flags = discord.MessageFlags(ephemeral=True) if ephemeral else MISSING
    with handle_message_parameters(
        content=content,
        embeds=embeds,
        flags=flags,
        allowed_mentions=allowed_mentions,
        previous_allowed_mentions=state.allowed_mentions,
    ) as params:
        payload = params.payload
    assert payload is not None  # no files: always a JSON body
    application_id, token = interaction.application_id, interaction.token
    await callbacks.follow_up(application_id, token, payload, user_agent=http.user_agent)


async def edit_original(
    interaction: discord.Interaction[Any],
    *,
    embed: discord.Embed,
    allowed_mentions: discord.AllowedMentions = NO_MENTIONS,
) -> None:
    """Edit the interaction's response to show ``embed``, as ``interaction.edit_original_response`` does,
    without parsing the edited message Discord sends back (nothing here reads it).

    Through a proxy, or a client without our connections, discord.py's own ``edit_original_response``.
    """
    callbacks = _own_connections(interaction)
    if callbacks is None:
        await interaction.edit_original_response(embed=embed, allowed_mentions=allowed_mentions)
        return
    state = interaction._state
    with handle_message_parameters(
        embed=embed, allowed_mentions=allowed_mentions, previous_allowed_mentions=state.allowed_mentions
    ) as params:
        payload = params.payload
    assert payload is not None  # no files: always a JSON body
    await callbacks.edit_original(
        interaction.application_id, interaction.token, payload, user_agent=state.http.user_agent
    )


async def refuse(interaction: discord.Interaction[Any], sentence: str) -> None:
    """Answer with one ephemeral sentence (a refusal or a user error); nothing else happens."""
    await reply(interaction, sentence, ephemeral=True)


def user_message(error: BaseException) -> str | None:
    """The one sentence for an error the user caused, or None when the error is unexpected."""
    if isinstance(error, app_commands.CommandInvokeError | app_commands.TransformerError) and error.__cause__:
        inner = user_message(error.__cause__)
        if inner is not None:
            return inner
    if isinstance(error, app_commands.CommandInvokeError):
        return user_message(error.original)
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
        return f"{error.value!r} is not a valid {error.type.name.lower().replace('_', ' ')}."
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
    message = user_message(error)
    code: str | None = None
    store = getattr(interaction.client, "store", None)
    if store is not None:  # the roll failed before its log row: give back the GM modifier uses it reserved
        store.modifiers.release(store.modifiers.ticket(interaction.id))
        # and the blind request it took (if it failed after its log row, the next roll is blind too: a
        # result hidden once more, never one shown that the GM asked to hide)
        for key, value in interaction.extras.pop(GIVE_BACK_ON_ERROR, []):
            try:
                await store.meta.set(key, value)
            except Exception:  # the answer below still goes out
                log.warning("Could not give back %s after an error", key, exc_info=True)
    if interaction.type is discord.InteractionType.autocomplete:
        # an autocomplete cannot show a sentence: log it and offer no choices rather than leave it hanging
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


def release_when_handled(interaction: discord.Interaction[Any] | None, *views: discord.ui.View) -> None:
    """When the task handling ``interaction`` ends, break the reference cycles it leaves behind.

    discord.py's ``Interaction`` caches its ``InteractionResponse``, which points back at the interaction,
    and a ``View`` and its items point at each other (a hand's view: about 30 objects). Reference counting
    never frees a cycle: under load they pile up until a full garbage collection, 10-40 ms during which
    nothing is answered (bench/latency.py's p99). So once the handler's task is over, the interaction's
    link to its response is cut and each of ``views`` (the clicked message's, the ones sent) is emptied,
    and reference counting frees them at once. The response keeps its own link to the interaction, so a
    task discord.py started from it (``delete_after``) still works; nothing reads ``interaction.response``
    or those views after the handler has finished. Only fully dynamic views may be passed (discord.py
    keeps no reference to them). ``interaction`` None: only the views (one that a helper running in the
    handler's task sent, as a pool's message edit).
    """
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop running (a view built outside the bot): nothing to wait for
        return
    if task is not None:
        task.add_done_callback(lambda _: _release(interaction, views))


def _release(interaction: discord.Interaction[Any] | None, views: Sequence[discord.ui.View]) -> None:
    if interaction is not None:
        with contextlib.suppress(AttributeError):  # never asked for a response (or already cut)
            del interaction._cs_response  # type: ignore[attr-defined]  # discord.py's cached_slot_property
    for view in views:
        view.clear_items()


class TableView(discord.ui.View):
    """Base view: any error in an item's callback is answered with `report_error`."""

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, item: discord.ui.Item[Any], /
    ) -> None:
        await report_error(interaction, error)


async def run_reported(
    interaction: discord.Interaction[Any],
    handle: Callable[[discord.Interaction[Any]], Awaitable[None]],
    *views: discord.ui.View,
) -> None:
    """Run ``handle(interaction)`` as a click's handler: its cycles cut once the task ends
    (`release_when_handled`, with ``views``), and an error answered with `report_error` (discord.py only
    logs a DynamicItem's)."""
    release_when_handled(interaction, *views)
    try:
        await handle(interaction)
    except Exception as error:
        await report_error(interaction, error)


class ErrorReportingItem:
    """Mixin for `DynamicItem`s (put it first in the bases): discord.py only logs their errors, so wrap them.

    Subclasses implement ``handle(interaction)`` instead of ``callback``. A class whose clicks need nothing
    of the item but its custom_id's match may also define ``run_click(interaction, match)``, a classmethod
    doing what ``from_custom_id`` and then ``callback`` would: `bot.ui.clicks` calls it instead of building
    the item (for a hand's button, a `discord.ui.Button` and two Item initialisers: 8 µs of a Hit).
    """

    #: Their ``from_custom_id`` reads only the custom_id's match, never ``item`` (the clicked component as
    #: a `discord.ui` item), so `bot.ui.clicks` passes None there instead of building one.
    reads_clicked_item: ClassVar[bool] = False

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        view = self.view  # type: ignore[attr-defined]  # the DynamicItem's: rebuilt from the clicked message
        await run_reported(interaction, self.handle, *([view] if isinstance(view, discord.ui.View) else []))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        raise NotImplementedError
