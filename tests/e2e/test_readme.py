"""The README's example commands work as written: each runnable block, in order, against the fake."""

from __future__ import annotations

import re
from typing import Any

from discord import app_commands

from bot.local.fake.harness import Harness, World
from tests.paths import ROOT

# Discord's option types (the fake's synced command payloads carry them)
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = 3, 4, 5, 6, 7, 8, 9, 10


def runnable_blocks() -> list[list[str]]:
    """The command lines of every code block the README marks ``<!-- runnable: ... -->``."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"<!-- runnable:[^\n]*-->\n```\n(.*?)```", text, re.S)
    return [[line.strip() for line in block.splitlines() if line.strip()] for block in blocks]


def declared_options(harness: Harness, world: World, path: list[str]) -> dict[str, dict[str, Any]]:
    level = harness.fake.find_command(world.guild, path[0])
    for word in path[1:]:
        level = next(o for o in level.get("options") or [] if o["name"] == word)
    return {o["name"]: o for o in level.get("options") or []}


def parse(harness: Harness, world: World, line: str) -> tuple[str, dict[str, Any]]:
    """``/setup roles add role:@GM`` -> ("setup roles add", {"role": the GM role}), typed as Discord would."""
    assert line.startswith("/"), line
    words = line[1:].split(" ")
    path = [w for w in words if ":" not in w]
    declared = declared_options(harness, world, path)
    names = {"@GM": world.gm_role, "#gm-screen": world.gm_screen, "@alice": world.alice}
    options: dict[str, Any] = {}
    for word in words[len(path) :]:
        name, _, raw = word.partition(":")
        kind = declared[name]["type"]
        if kind in (USER, ROLE, CHANNEL, MENTIONABLE):
            options[name] = names[raw]
        elif kind == INTEGER:
            options[name] = int(raw)
        elif kind == NUMBER:
            options[name] = float(raw)
        elif kind == BOOLEAN:
            assert raw in ("True", "False"), line  # what Discord's picker shows
            options[name] = raw == "True"
        else:
            options[name] = raw
    return " ".join(path), options


async def test_every_example_command_of_the_readme_works_as_written(harness: Harness, world: World) -> None:
    blocks = runnable_blocks()
    assert len(blocks) == 2 and sum(map(len, blocks)) >= 10
    refused: list[tuple[str, app_commands.AppCommandError]] = []
    original = harness.bot.tree.on_error
    line = ""

    async def recording(interaction: Any, error: app_commands.AppCommandError, /) -> None:
        refused.append((line, error))  # a user error, a failed check: the command did not do its job
        await original(interaction, error)

    harness.bot.tree.on_error = recording  # type: ignore[method-assign]
    for block in blocks:
        for line in block:
            path, options = parse(harness, world, line)
            answer = await harness.slash(world.guild, world.general, world.manager, path, options)
            assert answer.original is not None, line
    assert refused == []
