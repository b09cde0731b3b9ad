"""Clicks on the bot's own buttons and selects, dispatched without rebuilding the clicked message.

discord.py handles a click on a `DynamicItem` (every button and select of this bot is one) in three steps
that a click here never needs:

- it parses the clicked message, embeds and components, into a `discord.Message` before anything else;
- it rebuilds that message's whole view (`View.from_message`: a `discord.ui` item for every button and
  select on it) to find the clicked item and put the DynamicItem in its place;
- the view it built points at its items and back, a reference cycle that only a full garbage collection
  frees.

Our items read nothing but their custom_id: they take their ids from it and reload the hand, pool or
request from the store. On a Hit click those steps were about a seventh of the event loop's CPU
(bench/layers.py: `View.from_message` 7%, `Message.__init__` 5%).

`dispatch_click` takes a component interaction that matches exactly one registered DynamicItem and runs
what discord.py's `ViewStore.schedule_dynamic_item_call` runs, in the same order and with the same
outcome, without the view: ``from_custom_id``, ``_refresh_state`` (a select's values), the item's
``interaction_check``, then its ``callback``, in a task named as discord.py names it. An item class whose
``reads_clicked_item`` is False (`bot.ui.reply.ErrorReportingItem`: ours take everything from the
custom_id) gets None for ``from_custom_id``'s ``item``, the clicked component rebuilt as a `discord.ui`
item, and is spared building it (5 µs a click); one that also has a ``run_click(interaction, match)``
classmethod (a hand's buttons and select) is not built at all: that method runs the click. The clicked
component must be on the clicked message, as discord.py requires (a forged custom_id that is not is
ignored the same way). The interaction is a `ClickInteraction`, which parses its message only when
something reads ``interaction.message``. Everything else (a custom_id that no DynamicItem or several
match, one a stored view also listens to, a components-v2 message, a message of a shape we do not know)
goes to discord.py's own path unchanged.

Uses discord.py 2.7 internals: ``ConnectionState._view_store`` with its ``_dynamic_items``, ``_views``
and ``add_task``, and ``discord.ui.view._component_to_item`` / ``discord.components._component_factory``
(pinned below 2.8 in pyproject.toml; every end-to-end test of a button goes through here).
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

import discord
from discord.components import _component_factory
from discord.ui.view import _component_to_item
from discord.utils import MISSING

log = logging.getLogger(__name__)

ACTION_ROW = 1
ITEM_TYPES = frozenset({2, 3, 5, 6, 7, 8})  # a button and the five kinds of select
COMPONENTS_V2 = 1 << 15  # the message flag of a layout (components v2) message


class ClickInteraction(discord.Interaction):  # type: ignore[type-arg]
    """A component interaction whose ``message`` is parsed when it is first read, not when it arrives.

    discord.py builds the whole `discord.Message` (embeds, components, author) for every click; a click
    on one of our items usually never reads it. Reading ``message`` builds the same Message discord.py
    would have built, with the guild filled in as discord.py fills it.
    """

    __slots__ = ("_parsed_message", "_raw_message")

    def _from_data(self, data: Any) -> None:
        # taken out of the payload while discord.py reads it, then put back (copying it was 1.8 µs)
        raw = data.pop("message", MISSING)
        try:
            super()._from_data(data)
        finally:
            if raw is not MISSING:
                data["message"] = raw
        raw = raw if raw is not MISSING else None
        self._raw_message: dict[str, Any] | None = raw
        self._parsed_message: discord.Message | None = MISSING if raw is not None else None

    @property  # type: ignore[override]
    def message(self) -> discord.Message | None:
        if self._parsed_message is MISSING:
            message = discord.Message(state=self._state, channel=self.channel, data=self._raw_message)  # type: ignore[arg-type]
            guild = self.guild
            if guild is not None and message.guild is None:
                message.guild = guild  # as discord.py's Interaction does with partial guild data
            self._parsed_message = message
        return self._parsed_message

    @message.setter
    def message(self, value: discord.Message | None) -> None:
        self._parsed_message = value
        self._raw_message = None


def _unparsed(interaction: discord.Interaction[Any]) -> dict[str, Any] | None:
    """The clicked message as Discord sent it, while nothing has parsed it; None otherwise."""
    if isinstance(interaction, ClickInteraction) and interaction._parsed_message is MISSING:
        return interaction._raw_message or {}
    return None


def raw_components(interaction: discord.Interaction[Any]) -> list[Any] | None:
    """The clicked message's components as Discord sent them (dicts), or None without a message.

    From the payload when the message has not been parsed; from the parsed message otherwise.
    """
    raw = _unparsed(interaction)
    if raw is not None:
        components = raw.get("components")
        return components if isinstance(components, list) else []
    message = interaction.message
    if message is None:
        return None
    return [component.to_dict() for component in message.components]


def message_id(interaction: discord.Interaction[Any]) -> int | None:
    """The clicked message's id, without parsing the message."""
    raw = _unparsed(interaction)
    if raw is not None:
        try:
            return int(raw["id"])
        except (KeyError, TypeError, ValueError):
            return None
    message = interaction.message
    return message.id if message is not None else None


def _find(components: Any, component_type: int, custom_id: str) -> dict[str, Any] | None:
    """The component with this type and custom_id in a message's rows; None if absent or not readable."""
    if not isinstance(components, list):
        return None
    for top in components:
        if not isinstance(top, dict):
            return None
        children = top.get("components") if top.get("type") == ACTION_ROW else [top]
        if not isinstance(children, list):
            return None
        for component in children:
            if not isinstance(component, dict):
                return None
            if component.get("type") == component_type and component.get("custom_id") == custom_id:
                return component
    return None


def dispatch_click(client: discord.Client, payload: dict[str, Any]) -> bool:
    """Run a click on one of our DynamicItems (see the module doc); False: discord.py should take it.

    ``payload`` is an INTERACTION_CREATE whose ``data`` `bot.ui.payloads.payload_problem` accepted.
    """
    data = payload["data"]
    custom_id: str = data["custom_id"]
    component_type: int = data["component_type"]
    state = client._connection
    store = state._view_store
    found: list[tuple[Any, re.Match[str]]] = []
    for pattern, factory in store._dynamic_items.items():
        match = pattern.fullmatch(custom_id)
        if match is not None:
            found.append((factory, match))
    if len(found) != 1:
        return False
    message = payload.get("message")
    if not isinstance(message, dict):
        return False
    flags = message.get("flags") or 0
    if not isinstance(flags, int) or flags & COMPONENTS_V2:
        return False
    try:
        message_key = int(message["id"])
    except (KeyError, TypeError, ValueError):
        return False
    key = (component_type, custom_id)
    if key in store._views.get(message_key, {}) or key in store._views.get(None, {}):
        return False  # a stored view listens to it as well: discord.py runs both
    if component_type not in ITEM_TYPES:
        return False
    component = _find(message.get("components"), component_type, custom_id)
    if component is None:
        return False  # not on the message: discord.py finds no item and ignores the click
    factory, match = found[0]
    base: Any = None
    if getattr(factory, "reads_clicked_item", True):
        try:
            base = _component_to_item(_component_factory(component))  # type: ignore[arg-type]
        except Exception:  # a component discord.py cannot read either: its own path fails as it does
            return False
    interaction = ClickInteraction(data=payload, state=state)  # type: ignore[arg-type]
    store.add_task(
        asyncio.create_task(
            _run(factory, interaction, base, match),
            name=f"discord-ui-dynamic-item-{factory.__name__}-{custom_id}",
        )
    )
    state.dispatch("interaction", interaction)
    return True


async def _run(factory: Any, interaction: ClickInteraction, base: Any, match: Any) -> None:
    """discord.py's ``schedule_dynamic_item_call``, without the rebuilt view: same steps, same logging.

    A class with a ``run_click(interaction, match)`` classmethod (`bot.ui.reply.ErrorReportingItem`) runs
    the click itself, without the item being built: it promises to do what those steps would, for an
    item whose ``from_custom_id`` reads only the match, whose ``interaction_check`` is the default (True)
    and which reads a select's values from ``interaction.data`` rather than from a refreshed item.
    """
    run_click = getattr(factory, "run_click", None)
    if run_click is not None and base is None:
        try:
            await run_click(interaction, match)
        except Exception:
            log.exception("Ignoring exception in dynamic item callback for %r", factory)
        return
    try:
        item = await factory.from_custom_id(interaction, base, match)
    except Exception:
        log.exception("Ignoring exception in dynamic item creation for %r", factory)
        return
    if base is not None:
        item._rendered_row = base._rendered_row
    item._refresh_state(interaction, interaction.data)
    try:
        allow = await item.interaction_check(interaction)
    except Exception:
        allow = False
    if not allow:
        return
    try:
        await item.callback(interaction)
    except Exception:
        log.exception("Ignoring exception in dynamic item callback for %r", item)


__all__ = ["ACTION_ROW", "ClickInteraction", "dispatch_click", "message_id", "raw_components"]
