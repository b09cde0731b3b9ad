"""Fill a command's required options with the smallest valid values, from the payload the bot synced."""

from __future__ import annotations

from typing import Any

from bot.local.fake.harness import World
from bot.local.fake.server import (
    ATTACHMENT,
    BOOLEAN,
    CHANNEL,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    ROLE,
    STRING,
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    USER,
    FakeDiscord,
)


def minimal_options(fake: FakeDiscord, world: World, path: str) -> dict[str, Any]:
    """Valid values for every required option of ``/path`` (users are bob, channels #general)."""
    words = path.split()
    level: dict[str, Any] = fake.find_command(world.guild, words[0])
    for word in words[1:]:
        level = next(
            o
            for o in level.get("options") or []
            if o["name"] == word and o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)
        )
    out: dict[str, Any] = {}
    for option in level.get("options") or []:
        if option.get("required"):
            out[option["name"]] = _value(fake, world, option)
    return out


def _value(fake: FakeDiscord, world: World, option: dict[str, Any]) -> Any:
    if option.get("choices"):
        return option["choices"][0]["value"]
    kind = option["type"]
    if kind == STRING:
        return "x" * max(1, option.get("min_length", 1))
    if kind in (INTEGER, NUMBER):
        low, high = option.get("min_value"), option.get("max_value")
        value = 1 if low is None else low
        return value if high is None else min(value, high)
    if kind == BOOLEAN:
        return False
    if kind in (USER, MENTIONABLE):
        return world.bob
    if kind == CHANNEL:
        return world.general
    if kind == ROLE:
        return world.gm_role
    if kind == ATTACHMENT:
        return fake.attachment("empty.json", b"{}")
    raise AssertionError(f"no minimal value for option type {kind}")
