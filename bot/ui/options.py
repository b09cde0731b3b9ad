"""The command tree's guard: every option of an incoming command is checked against what the command declared.

Discord enforces the declared types, ranges, lengths and choices before it sends a command, but discord.py
checks none of them on what arrives, and it builds its Namespace from the raw values (``int(None)`` for a
member option raises in a task nobody awaits). A forged or buggy payload must neither reach a cog nor go
unanswered: `TableTree` refuses it with one ephemeral sentence naming the option, and changes nothing.
"""

from __future__ import annotations

import logging
import math
import re
import weakref
from dataclasses import dataclass
from typing import Any

import discord
from discord import AppCommandOptionType as Kind
from discord import app_commands

from bot.core.common import one_line
from bot.ui.reply import CHANGED, NO_DMS, guard_deadline, refuse

log = logging.getLogger(__name__)

DISCORD_INT = 2**53  # Discord's integer options lie in -2^53..2^53
SNOWFLAKE = re.compile(r"[1-9][0-9]{0,19}")
UNREADABLE = "That command came with options I cannot read; please run it again."
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2  # option types that nest a subcommand's options

_KIND_WORDS: dict[Kind, str] = {
    Kind.string: "text",
    Kind.integer: "a whole number",
    Kind.boolean: "true or false",
    Kind.number: "a number",
    Kind.user: "a user",
    Kind.channel: "a channel",
    Kind.role: "a role",
    Kind.mentionable: "a user or a role",
    Kind.attachment: "a file",
}
#: Where each snowflake-typed option's value must appear in the interaction's ``resolved`` data.
_RESOLVED: dict[Kind, tuple[str, ...]] = {
    Kind.user: ("users",),
    Kind.channel: ("channels",),
    Kind.role: ("roles",),
    Kind.mentionable: ("users", "roles"),
    Kind.attachment: ("attachments",),
}


def _number(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def type_problem(kind: Kind, value: Any, resolved: dict[str, Any]) -> bool:
    """True when ``value`` is not what Discord sends for an option of ``kind`` (resolved ids included)."""
    if kind is Kind.string:
        return not isinstance(value, str)
    if kind is Kind.boolean:
        return not isinstance(value, bool)
    if kind is Kind.integer:
        return (
            not isinstance(value, int) or isinstance(value, bool) or not -DISCORD_INT <= value <= DISCORD_INT
        )
    if kind is Kind.number:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return True
        return not math.isfinite(value) or not -DISCORD_INT <= value <= DISCORD_INT
    if kind in _RESOLVED:
        if not isinstance(value, str) or SNOWFLAKE.fullmatch(value) is None:
            return True
        return not any(value in (resolved.get(key) or {}) for key in _RESOLVED[kind])
    return True  # a kind no command here declares


@dataclass(frozen=True, slots=True)
class Declared:
    """What one option of a command declares, read once from its `app_commands.Parameter` (whose
    attributes are properties, and ``command.parameters`` rebuilds them per call)."""

    name: str
    type: Kind
    required: bool
    choices: tuple[Any, ...] | None  # the allowed values, or None when any value of the type will do
    choice_names: str
    low: int | float | None
    high: int | float | None

    @classmethod
    def of(cls, parameter: app_commands.Parameter) -> Declared:
        listed = parameter.choices and not parameter.autocomplete
        return cls(
            name=parameter.display_name,
            type=parameter.type,
            required=parameter.required,
            choices=tuple(choice.value for choice in parameter.choices) if listed else None,
            choice_names=", ".join(choice.name for choice in parameter.choices),
            low=parameter.min_value,
            high=parameter.max_value,
        )


def value_problem(option: Declared, value: Any) -> str | None:
    """The sentence refusing a well-typed ``value`` outside the option's range, length or choices."""
    name, low, high = option.name, option.low, option.high
    if option.choices is not None and value not in option.choices:
        return f"{name} must be one of: {option.choice_names}."
    if option.type is Kind.string:
        size = len(value)
        if (low is not None and size < low) or (high is not None and size > high):
            if low is not None and high is not None:
                return f"{name} must be {low} to {high} characters long."
            if high is not None:
                return f"{name} must be at most {high} characters long."
            return f"{name} must be at least {low} characters long."
    numeric = option.type is Kind.integer or option.type is Kind.number
    if numeric and ((low is not None and value < low) or (high is not None and value > high)):
        if low is not None and high is not None:
            return f"{name} must be between {_number(low)} and {_number(high)}."
        if high is not None:
            return f"{name} must be at most {_number(high)}."
        return f"{name} must be at least {_number(low)}."
    return None


def options_problem(
    command: app_commands.Command[Any, ..., Any],
    options: list[Any],
    resolved: dict[str, Any],
    *,
    autocomplete: bool,
) -> str | None:
    """One sentence naming the first option that breaks what ``command`` declares, or None when all fit.

    For an autocomplete request the focused option is what the user typed so far (text, unchecked) and the
    others are checked for their type only, as Discord sends them before they are complete.
    """
    declared, required = _declared(command)
    given: set[str] = set()
    for option in options:
        if not isinstance(option, dict):
            return UNREADABLE
        name = option.get("name")
        parameter = declared.get(name) if isinstance(name, str) else None
        if parameter is None:
            return CHANGED  # only an older copy of the command, still shown by Discord, sends it
        if name in given:
            return f"{name} was given twice."
        given.add(parameter.name)
        value = option.get("value")
        kind = parameter.type
        if option.get("type") != kind.value or "value" not in option:
            return f"{name} must be {_KIND_WORDS.get(kind, 'something else')}."
        if autocomplete and option.get("focused"):
            numeric = kind is Kind.integer or kind is Kind.number
            typed_so_far = isinstance(value, str) or (numeric and isinstance(value, int | float))
            if isinstance(value, bool) or not typed_so_far:
                return f"{name} must be {_KIND_WORDS.get(kind, 'something else')}."
            continue
        if type_problem(kind, value, resolved):
            return f"{name} must be {_KIND_WORDS.get(kind, 'something else')}."
        if not autocomplete:
            problem = value_problem(parameter, value)
            if problem is not None:
                return problem
    if not autocomplete:
        for parameter in required:
            if parameter.name not in given:
                return f"{parameter.name} is required."
    return None


_Declared = tuple[dict[str, Declared], tuple[Declared, ...]]
_DECLARED: weakref.WeakKeyDictionary[app_commands.Command[Any, ..., Any], _Declared] = (
    weakref.WeakKeyDictionary()
)


def _declared(command: app_commands.Command[Any, ..., Any]) -> _Declared:
    """A command's options by name, and the required ones, read once per command."""
    found = _DECLARED.get(command)
    if found is None:
        options = tuple(Declared.of(parameter) for parameter in command.parameters)
        found = ({option.name: option for option in options}, tuple(o for o in options if o.required))
        _DECLARED[command] = found
    return found


def whole_number(text: str, *, digits: int = 3) -> int | None:
    """A typed whole number ("12", "+3", "-2", " 7 ") of at most ``digits`` digits, else None.

    Decimal digits only: str.isdigit would also pass "²", which int() refuses (an error code instead
    of a sentence). Other scripts' decimal digits ("١٢") are numbers int() reads, and are kept.
    """
    stripped = text.strip()
    body = stripped[1:] if stripped[:1] in "+-" else stripped
    return int(stripped) if body.isdecimal() and len(body) <= digits else None


def _guild_only(command: app_commands.Command[Any, ..., Any]) -> bool:
    """Whether the command, or a group it belongs to, is declared ``@app_commands.guild_only()``."""
    node: app_commands.Command[Any, ..., Any] | app_commands.Group | None = command
    while node is not None:
        if node.guild_only:
            return True
        node = node.parent
    return False


def leaf_options(data: dict[str, Any]) -> Any:
    """The options of the subcommand a command's data runs (below its groups), as Discord nests them."""
    options = data.get("options", [])
    while isinstance(options, list) and options:
        first = options[0]
        if not isinstance(first, dict) or first.get("type") not in (SUB_COMMAND, SUB_COMMAND_GROUP):
            break
        options = first.get("options", [])
    return options


def clean_text_options(options: Any) -> None:
    """Make every text option one line without invisible characters (`one_line`), before it is checked or
    read: a name ending in a right-to-left override would show a result written backwards, and a tab or a
    bell in a name has no place in a one-line result. Discord's clients cannot type a line break into an
    option, so nothing typed is lost. (Results clean names they got elsewhere again: `shown_name`.)"""
    if not isinstance(options, list):
        return
    for option in options:
        if isinstance(option, dict) and option.get("type") == Kind.string.value:
            value = option.get("value")
            if isinstance(value, str):
                option["value"] = one_line(value)


class TableTree(app_commands.CommandTree[Any]):
    """A CommandTree that refuses any command whose options break their declaration (see the module doc)."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        guard_deadline(interaction)
        if interaction.type not in (
            discord.InteractionType.application_command,
            discord.InteractionType.autocomplete,
        ):
            return True
        data: Any = interaction.data
        if not isinstance(data, dict) or data.get("type", 1) != 1:
            return True  # context menus carry a target, no options
        try:
            command = interaction.command
        except Exception:  # discord.py could not follow the subcommands: their shape is not Discord's
            problem: str | None = UNREADABLE
        else:
            if not isinstance(command, app_commands.Command):
                return True  # an unknown command: discord.py reports it through on_error as usual
            options = leaf_options(data)
            clean_text_options(options)
            resolved = data.get("resolved") or {}
            if not isinstance(resolved, dict) or not isinstance(options, list):
                problem = UNREADABLE
            elif interaction.guild_id is None and _guild_only(command):
                # Discord hides these commands in DMs, but does not stop a forged or stale call arriving
                problem = NO_DMS
            else:
                autocomplete = interaction.type is discord.InteractionType.autocomplete
                problem = options_problem(command, options, resolved, autocomplete=autocomplete)
        if problem is None:
            return True
        if problem == CHANGED:  # not the user's doing, and no bug: worth a warning, not a traceback
            log.warning(
                "Refused /%s from %s: an option it no longer has", data.get("name"), interaction.user.id
            )
        else:
            log.info("Refused /%s from %s: %s", data.get("name"), interaction.user.id, problem)
        await refuse_options(interaction, problem)
        return False


async def refuse_options(interaction: discord.Interaction[Any], problem: str) -> None:
    """One ephemeral sentence, or no choices for an autocomplete (it cannot show a sentence)."""
    if interaction.type is discord.InteractionType.autocomplete:
        if not interaction.response.is_done():
            await interaction.response.autocomplete([])  # nothing to suggest for a malformed request
        return
    await refuse(interaction, problem)  # (after a late acknowledgement too: `reply` fills it)
