"""INTERACTION_CREATE payloads that discord.py itself would choke on, refused before it parses them.

discord.py trusts the shape of what the gateway sends. A component interaction without a
``component_type`` raises KeyError inside the gateway's parser, which ends the bot's connection: every
later interaction goes unheard. A select's ``values`` that is not a list raises inside discord.py's own
task, so nobody answers and the traceback is logged as an error. Discord never sends either, but a hostile
input must cost one ephemeral sentence at most, never the bot (issue 6).

`guard_interactions` puts a check in front of discord.py's INTERACTION_CREATE parser. A payload whose
user-controlled part (``data``) has the wrong shape gets `UNREADABLE_CLICK` and goes no further; anything
discord.py still fails to parse is logged as a warning and dropped, so one interaction can never take the
connection down. Options of slash commands are checked later, against their declarations, by
`bot.ui.options.TableTree`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import discord

from bot.ui.clicks import dispatch_click
from bot.ui.reply import refuse, release_when_handled

log = logging.getLogger(__name__)

UNREADABLE_CLICK = "That came with data I cannot read; nothing was changed. Please try again."
CUSTOM_ID_MAX = 100  # Discord's limit for a component's custom_id
VALUES_MAX = 25  # a select sends at most 25 values
VALUE_MAX = 100  # each at most 100 characters (an option's value, or a snowflake)
TASK_PREFIX = "tabletop-"  # the bot's own handler tasks (the test harness waits for them)
COMPONENT = discord.InteractionType.component.value
MODAL_SUBMIT = discord.InteractionType.modal_submit.value
CHECKED = (
    discord.InteractionType.application_command.value,
    COMPONENT,
    discord.InteractionType.autocomplete.value,
    MODAL_SUBMIT,
)


def _custom_id_problem(data: dict[str, Any]) -> str | None:
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str) or not 0 < len(custom_id) <= CUSTOM_ID_MAX:
        return "custom_id is not a text of 1 to 100 characters"
    return None


def payload_problem(payload: Any) -> str | None:
    """What makes ``payload``'s ``data`` unreadable for discord.py, or None when its shape is sound.

    Only the parts an interaction's sender chooses are checked (the rest is Discord's own): a component's
    custom_id, component type and select values; a modal's custom_id and components; that a command's
    data is an object.
    """
    if not isinstance(payload, dict):
        return "the payload is not an object"
    kind = payload.get("type")
    if kind not in CHECKED:
        return None  # a ping, or a type discord.py ignores
    data = payload.get("data")
    if not isinstance(data, dict):
        return "data is not an object"
    if kind == COMPONENT:
        problem = _custom_id_problem(data)
        if problem is not None:
            return problem
        component_type = data.get("component_type")
        if type(component_type) is not int:
            return "component_type is not an integer"
        if "values" in data:
            values = data["values"]
            if not isinstance(values, list) or len(values) > VALUES_MAX:
                return "values is not a list of at most 25"
            if any(not isinstance(value, str) or len(value) > VALUE_MAX for value in values):
                return "a value is not a text of at most 100 characters"
    elif kind == MODAL_SUBMIT:
        problem = _custom_id_problem(data)
        if problem is not None:
            return problem
        if not isinstance(data.get("components"), list):
            return "components is not a list"
    return None


def guard_interactions(client: discord.Client) -> None:
    """Check every INTERACTION_CREATE before discord.py parses it (see the module doc)."""
    state = client._connection
    parse: Callable[[Any], None] = state.parsers["INTERACTION_CREATE"]
    if getattr(parse, "_guarded", False):
        return

    def parse_checked(payload: Any) -> None:
        problem = payload_problem(payload)
        if problem is not None:
            log.info("Refused an interaction discord.py cannot read: %s", problem)
            _refuse_unreadable(client, payload)
            return
        try:
            if payload.get("type") == COMPONENT and dispatch_click(client, payload):
                return  # one of our own items: run without discord.py's view rebuild (bot.ui.clicks)
            parse(payload)
        except Exception:  # discord.py's parser raised: drop this one interaction, keep the connection
            log.warning("Ignored an interaction discord.py could not parse", exc_info=True)

    parse_checked._guarded = True  # type: ignore[attr-defined]
    state.parsers["INTERACTION_CREATE"] = parse_checked


def _refuse_unreadable(client: discord.Client, payload: Any) -> None:
    """Answer `UNREADABLE_CLICK`, built from the payload without its unreadable ``data``; or nothing,
    when even that cannot be read (an interaction without a usable id and token cannot be answered)."""
    if not isinstance(payload, dict):
        return
    try:
        interaction: discord.Interaction[Any] = discord.Interaction(
            data={**payload, "data": {}},  # type: ignore[arg-type]
            state=client._connection,
        )
    except Exception:
        log.warning("Could not answer an unreadable interaction", exc_info=True)
        return

    async def answer() -> None:
        release_when_handled(interaction)
        try:
            await refuse(interaction, UNREADABLE_CLICK)
        except discord.HTTPException as error:
            log.warning("Could not refuse an unreadable interaction: %s", error)

    client.loop.create_task(answer(), name=f"{TASK_PREFIX}refuse-unreadable-{interaction.id}")
    client.dispatch("interaction", interaction)  # as discord.py does after parsing any interaction


__all__ = ["TASK_PREFIX", "UNREADABLE_CLICK", "guard_interactions", "payload_problem"]
