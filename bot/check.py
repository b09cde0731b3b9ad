"""The settings checked before the bot starts (`python -m bot check`, and `python -m bot` itself).

`read_settings` returns the settings and every problem found, each a sentence a server owner can act on:
what is missing or wrong, and what to put instead. Nothing here touches the network or writes a file, and
the token is never repeated back.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from bot.settings import TOKEN_HELP, Settings
from bot.store.db import safe_url

PORTAL = "copy it again from the Discord Developer Portal (your application → Bot → Reset Token)"
# a bot token: the bot's id in base64, a timestamp, a signature; base64url parts joined by dots
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
DISCORD_EPOCH_MS = 1_420_070_400_000


def read_settings(**overrides: Any) -> tuple[Settings | None, list[str]]:
    """The settings from the environment and `.env` (and ``overrides``), and the problems found in them."""
    try:
        settings = Settings(**overrides)
    except ValidationError as err:
        return None, [_sentence(error) for error in err.errors(include_url=False)]
    return settings, problems(settings)


def problems(settings: Settings) -> list[str]:
    """What is missing or wrong in ``settings`` (empty when the bot can start)."""
    found = token_problems(settings.token())
    if (
        settings.database_url is None
    ):  # PostgreSQL: `python -m bot check` connects (`reach`), the bot at start
        found += database_problems(settings.database_path)
    if settings.dev_guild_id is not None and not looks_like_an_id(settings.dev_guild_id):
        found.append(
            f"DEV_GUILD_ID {settings.dev_guild_id} is not a Discord server id (those have 17 to 20 digits): "
            "with Developer Mode on in Discord, right-click the server → Copy Server ID."
        )
    return found


def summary(settings: Settings) -> str:
    """The one line `python -m bot check` prints when nothing is wrong."""
    if settings.dev_guild_id is not None:
        where = f"commands sync to server {settings.dev_guild_id} at start"
    elif settings.force_sync:
        where = "commands sync to every server at start (FORCE_SYNC)"
    else:
        where = "commands sync to every server when they changed"
    if not settings.syncs_commands():
        where = "another process (the one running shard 0) syncs the commands"
    if settings.shard_count is None:
        shards = "as many shards as Discord asks for"
    else:
        ids = settings.shard_ids if settings.shard_ids is not None else range(settings.shard_count)
        shards = f"shards {','.join(map(str, ids))} of {settings.shard_count}"
    if settings.database_url is not None:
        database = (
            f"the database is PostgreSQL at {safe_url(settings.database_url.get_secret_value())} and answers"
        )
    else:
        database = f"the database {settings.database_path} can be written"
    return f"OK: a token is set, {database}, {where}, {shards}."


def token_problems(token: str | None) -> list[str]:
    """The token is missing, or is something else pasted in its place; never quotes the token."""
    if token is None:
        return [TOKEN_HELP]
    if token.lower().startswith("bot "):
        return ['DISCORD_TOKEN starts with "Bot ": put only the token itself after DISCORD_TOKEN=.']
    if token[:1] in "\"'" or token[-1:] in "\"'":
        return ["DISCORD_TOKEN is in quotes inside the value: remove the quotes."]
    if token.isdigit():
        return [f"DISCORD_TOKEN is a number, probably the application id, not the bot's token: {PORTAL}."]
    if re.fullmatch(r"[0-9a-f]{64}", token):
        return [f"DISCORD_TOKEN looks like the application's public key, not the bot's token: {PORTAL}."]
    if re.fullmatch(r"[A-Za-z0-9_-]{32}", token):
        return [f"DISCORD_TOKEN looks like the OAuth2 client secret, not the bot's token: {PORTAL}."]
    if not TOKEN_SHAPE.fullmatch(token) or not _names_a_user(token.split(".")[0]):
        return [
            "DISCORD_TOKEN does not look like a bot token (three parts joined by dots, about 70 characters, "
            f"no spaces): {PORTAL}."
        ]
    return []


def _names_a_user(part: str) -> bool:
    """A token's first part is the bot's user id, in base64."""
    try:
        decoded = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        return False
    return decoded.isdigit()


def database_problems(path: Path) -> list[str]:
    """SQLite writes the file and, beside it, its journal: the file and its folder must be writable."""
    shown = str(path)
    if path.is_dir():
        return [f"DATABASE_PATH {shown} is a folder: give a file in it, such as {path / 'bot.db'}."]
    if path.exists():
        if not os.access(path, os.R_OK | os.W_OK):
            return [f"DATABASE_PATH {shown} cannot be read and written by this user: check its owner."]
        if not os.access(path.parent, os.W_OK | os.X_OK):
            return [
                f"The folder of DATABASE_PATH ({path.parent}) cannot be written by this user, and SQLite "
                "writes its journal beside the database: check the folder's owner."
            ]
        return []
    existing = path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return [f"DATABASE_PATH {shown} cannot be created: {existing} is a file, not a folder."]
    if not os.access(existing, os.W_OK | os.X_OK):
        return [
            f"DATABASE_PATH {shown} cannot be created: this user cannot write in {existing}. Choose a "
            "path you can write to, such as data/bot.db in the bot's folder."
        ]
    return []


def looks_like_an_id(number: int) -> bool:
    """A Discord id (snowflake) made after Discord began and before tomorrow."""
    made_ms = (number >> 22) + DISCORD_EPOCH_MS
    tomorrow_ms = (datetime.now(UTC).timestamp() + 86_400) * 1000
    return number < 2**64 and DISCORD_EPOCH_MS < made_ms < tomorrow_ms


def _sentence(error: ErrorDetails) -> str:
    """One setting refused by `Settings`, as a sentence naming it."""
    name = ".".join(str(part) for part in error["loc"]).upper()
    context = error.get("ctx") or {}
    if error["type"] == "value_error" and "error" in context:
        text = str(context["error"])  # our validators' sentences already name the setting and its value
    elif name == "DISCORD_TOKEN":
        text = f"DISCORD_TOKEN cannot be read: {PORTAL}"
    else:
        value = error.get("input")
        shown = repr(value.strip()) if isinstance(value, str) else repr(value)
        text = f"{name} cannot be used: {error['msg'].rstrip('.')}; it is {shown}"
    return text if text.endswith(".") else text + "."
