"""Numbers typed into text options: a digit int() cannot read ("²" passes str.isdigit) gets one sentence."""

from __future__ import annotations

from typing import Any

import pytest

from bot.local.fake.harness import Harness, World

TYPED_LISTS: list[tuple[str, dict[str, Any]]] = [
    ("sysx synergy", {"skills": "², 12"}),
    ("odds sysx", {"sv": 10, "combined": "¹"}),
    ("odds rps", {"base": 10, "resisted": "², 5"}),
    ("odds decision", {"stat": 1, "contested": "³"}),
    ("decision contested", {"npc1": "Orc", "npc2": "Elf", "advantage": "²"}),
]


@pytest.mark.parametrize(("path", "options"), TYPED_LISTS, ids=[p for p, _ in TYPED_LISTS])
async def test_a_superscript_digit_in_a_typed_list_gets_one_sentence(
    harness: Harness, world: World, path: str, options: dict[str, Any]
) -> None:
    answer = await harness.slash(world.guild, world.general, world.alice, path, options)
    assert answer.ephemeral and answer.public() == []
    assert "error code" not in answer.content and answer.content.endswith((".", ")"))
    assert await harness.bot.store.log.last(world.guild.id, world.general.id) == []


async def test_other_scripts_decimal_digits_are_numbers(harness: Harness, world: World) -> None:  # DD-6
    # "١" is the Arabic-Indic digit one: int() reads it, and a player typing it means party 1
    answer = await harness.slash(
        world.guild, world.general, world.alice, "decision contested",
        {"npc1": "Orc", "npc2": "Elf", "advantage": "١"},
    )  # fmt: skip
    assert not answer.ephemeral and "advantage" in answer.original.text().lower()
