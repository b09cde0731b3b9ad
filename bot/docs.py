"""`python -m bot docs`: the reference pages written from the code, so they cannot drift from it.

`docs/commands.md` comes from the command tree (the cogs loaded into a bot that never connects, so no token
and no network), the README's settings table from `Settings`, and its permission table from `bot.invite`.
`--check` only compares; a test does the same and fails when a page is stale.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import discord
from discord import app_commands
from pydantic.fields import FieldInfo

from bot.invite import permissions_table
from bot.settings import Settings
from bot.ui.permissions import MANAGE_GUILD_ONLY, SERVER_GM_ONLY, is_gm_only

ROOT = Path(__file__).resolve().parent.parent
COMMANDS_PAGE = Path("docs/commands.md")
README = Path("README.md")
REGENERATE = "python -m bot docs"
UNBOUNDED = 2**53 - 1

OPTION_TYPES = {
    discord.AppCommandOptionType.string: "text",
    discord.AppCommandOptionType.integer: "whole number",
    discord.AppCommandOptionType.number: "number",
    discord.AppCommandOptionType.boolean: "True/False",
    discord.AppCommandOptionType.user: "member",
    discord.AppCommandOptionType.channel: "channel",
    discord.AppCommandOptionType.role: "role",
    discord.AppCommandOptionType.mentionable: "member or role",
    discord.AppCommandOptionType.attachment: "file",
}
# the names Discord's server settings show; a permission not listed here shows as its flag
PERMISSION_NAMES = {"manage_guild": "Manage Server", "administrator": "Administrator"}


# -- the command tree -------------------------------------------------------------------------------------
async def read_commands() -> str:
    """docs/commands.md as the code says now: the cogs loaded as at start, without connecting."""
    from bot.client import TabletopBot  # the cogs need discord; the settings table does not

    bot = TabletopBot(Settings.model_construct())  # the defaults: neither .env nor the environment
    try:
        await bot.load_cogs()
        return commands_page(bot.tree)
    finally:
        await bot.close()  # unloads the cogs


def commands_page(tree: app_commands.CommandTree[Any]) -> str:
    """docs/commands.md: every command, subcommand and option, alphabetically, as Discord lists them."""
    tops = sorted(tree.get_commands(type=discord.AppCommandType.chat_input), key=lambda c: c.name)
    menus = [
        menu
        for kind in (discord.AppCommandType.user, discord.AppCommandType.message)
        for menu in sorted(tree.get_commands(type=kind), key=lambda c: c.name)
    ]
    lines = [
        "# Command reference",
        "",
        f"Written by `{REGENERATE}` from the bot's command tree; do not edit by hand (a test fails when",
        "this page is stale). Discord shows the same descriptions as you type a command.",
        "",
        "*Default permission* is what Discord asks of a member before it shows them the command; a server",
        "owner can change it under Server Settings → Integrations → the bot. *Who* is what the bot itself",
        "checks when the command is used: a GM of the channel is someone with Manage Server, one of the",
        "server's GM roles, or made GM of that channel.",
        "",
        "## Contents",
        "",
    ]
    lines += [f"- [`/{top.name}`](#{top.name}): {_cell(top.description)}" for top in tops]
    for top in tops:
        lines += ["", f"## /{top.name}", "", _text(top.description), ""]
        lines += _top_facts(tree, top)
        if isinstance(top, app_commands.Group):
            for command in _leaves(top):
                lines += ["", f"### /{command.qualified_name}", "", _text(command.description)]
                lines += _command_body(command)
        elif isinstance(top, app_commands.Command):
            lines += _command_body(top)
    if menus:  # right-click menus take no options: their name says it all
        lines += ["", "## Right-click menus", ""]
        lines += [f"- {menu.name} (on a {menu.type.name})" for menu in menus]
    return "\n".join(lines).rstrip() + "\n"


def _leaves(group: app_commands.Group) -> Iterable[app_commands.Command[Any, ..., Any]]:
    for child in sorted(group.commands, key=lambda c: c.name):
        if isinstance(child, app_commands.Group):
            yield from _leaves(child)
        else:
            yield child


def _top_facts(tree: app_commands.CommandTree[Any], top: Any) -> list[str]:
    payload = top.to_dict(tree)
    value = payload.get("default_member_permissions")
    facts = []
    if value is not None:
        granted = [name for name, on in discord.Permissions(int(value)) if on]
        names = ", ".join(PERMISSION_NAMES.get(name, name) for name in granted) or "none (admins only)"
        facts.append(f"- Default permission: {names}")
    else:
        facts.append("- Default permission: none (everyone sees it)")
    facts.append("- Where: servers only" if top.guild_only else "- Where: servers and DMs with the bot")
    return facts


def _command_body(command: app_commands.Command[Any, ..., Any]) -> list[str]:
    lines = [""]
    if _marked(command, MANAGE_GUILD_ONLY):
        lines += ["Who: members with Manage Server.", ""]
    elif _marked(command, SERVER_GM_ONLY):
        lines += ["Who: GMs of the whole server (Manage Server or a GM role).", ""]
    elif is_gm_only(command):
        lines += ["Who: GMs of the channel.", ""]
    if not command.parameters:
        return [*lines, "No options."]
    lines += [
        "| Option | Type | Required | Default | Description | Values |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for option in command.parameters:
        lines.append(
            f"| `{option.display_name}` | {OPTION_TYPES.get(option.type, option.type.name)} "
            f"| {'yes' if option.required else 'no'} | {_default(option)} | {_cell(option.description)} "
            f"| {_values(option)} |"
        )
    return lines


def _marked(command: app_commands.Command[Any, ..., Any], key: str) -> bool:
    """Marked by `bot.ui.permissions` on the command or its callback (whichever the decorator saw)."""
    return bool(command.extras.get(key) or getattr(command.callback, f"__tabletop_{key}__", False))


def _default(option: app_commands.Parameter) -> str:
    if option.required or option.default is None:
        return ""
    return f"`{option.default}`"


def _values(option: app_commands.Parameter) -> str:
    parts = []
    if option.choices:
        parts.append(
            ", ".join(
                f"`{c.value}`" if c.name == str(c.value) else f"{_cell(c.name)} (`{c.value}`)"
                for c in option.choices
            )
        )
    low, high = option.min_value, option.max_value
    # a bound at JavaScript's largest safe integer only keeps Discord's client exact: no real limit
    low = None if low is not None and low <= -UNBOUNDED else low
    high = None if high is not None and high >= UNBOUNDED else high
    if low is not None or high is not None:
        unit = " characters" if option.type is discord.AppCommandOptionType.string else ""
        if low is not None and high is not None:
            parts.append(f"{low} to {high}{unit}")
        elif low is not None:
            parts.append(f"at least {low}{unit}")
        else:
            parts.append(f"at most {high}{unit}")
    if option.channel_types:
        parts.append(", ".join(f"{kind.name} channels" for kind in option.channel_types))
    if option.autocomplete:
        parts.append("suggestions as you type")
    return "; ".join(parts)


def _text(text: str) -> str:
    return text.strip() or "(no description)"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


# -- the README's generated tables ------------------------------------------------------------------------
def settings_table() -> str:
    """Every setting, its default and what it does (Markdown)."""
    lines = ["| Setting | Default | What it does |", "| --- | --- | --- |"]
    for name, field in Settings.model_fields.items():
        lines.append(f"| `{name.upper()}` | {_setting_default(field)} | {_cell(field.description or '')} |")
    return "\n".join(lines)


def _setting_default(field: FieldInfo) -> str:
    if field.default is None:
        return "empty"
    if isinstance(field.default, bool):
        return f"`{int(field.default)}`"
    return f"`{field.default}`"


def with_block(text: str, name: str, body: str) -> str:
    """``text`` with the part between ``<!-- name: ... -->`` and ``<!-- /name -->`` replaced by ``body``."""
    pattern = re.compile(rf"(<!-- {name}:[^\n]*-->\n).*?(<!-- /{name} -->)", re.S)
    if not pattern.search(text):
        raise ValueError(f"README.md has no <!-- {name}: ... --> ... <!-- /{name} --> block")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text, count=1)


# -- all pages --------------------------------------------------------------------------------------------
def pages(commands: str, root: Path = ROOT) -> dict[Path, str]:
    """Every generated page as it should read now (``commands``: `read_commands`): path -> text."""
    readme = (root / README).read_text(encoding="utf-8")
    readme = with_block(readme, "permissions", permissions_table())
    readme = with_block(readme, "settings", settings_table())
    return {COMMANDS_PAGE: commands, README: readme}


def stale(wanted: dict[Path, str], root: Path = ROOT) -> list[Path]:
    """The pages of ``wanted`` whose file under ``root`` reads otherwise."""
    return [
        path
        for path, text in wanted.items()
        if not (root / path).exists() or (root / path).read_text(encoding="utf-8") != text
    ]


def write(check_only: bool = False, root: Path = ROOT) -> list[Path]:
    """Write (or with ``check_only`` only compare) the pages; returns the ones that were stale."""
    wanted = pages(asyncio.run(read_commands()), root)
    changed = stale(wanted, root)
    if not check_only:
        for path in changed:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(wanted[path], encoding="utf-8")
    return changed
