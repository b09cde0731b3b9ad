"""Refusals in the table's words, never Python's: members who cannot take part, commands Discord still shows
in an older shape, and names made safe to display (markdown escaped, direction controls removed)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.core.common import INVISIBLES
from bot.local.fake.harness import Answer, Harness, World
from bot.ui.reply import CHANGED

PYTHON_WORDS = ("<User", "<Member", "id=", "global_name=", "is not a valid", "Error", "None")


def assert_plain(answer: Answer, sentence: str) -> None:
    assert answer.ephemeral and answer.public() == []
    assert answer.content == sentence
    assert not any(word in answer.content for word in PYTHON_WORDS), answer.content


IN_A_DM = [
    ("odds sysx", {"sv": 12, "against": "bob", "against_sv": 10}),
    ("sysx opposed", {"actor": "bob", "target": "carol", "actor_sv": 12, "target_sv": 10}),
    ("sysx combined", {"member1": "bob", "member2": "carol", "sv1": 12, "sv2": 10}),
    ("decision contested", {"party1": "bob", "npc2": "Guard"}),
]


def with_users(world: World, options: dict[str, Any]) -> dict[str, Any]:
    return {k: getattr(world, v) if v in ("bob", "carol") else v for k, v in options.items()}


@pytest.mark.parametrize(("path", "options"), IN_A_DM, ids=[p for p, _ in IN_A_DM])
async def test_item16_a_member_named_in_a_dm_is_named_plainly(
    harness: Harness, world: World, path: str, options: dict[str, Any]
) -> None:
    before = await harness.bot.store.log.count(None, harness.fake.dm_channel(world.alice).id)
    answer = await harness.slash(None, None, world.alice, path, with_users(world, options))
    assert_plain(answer, "Bob can take part in a roll only in a server channel you share, not in DMs.")
    assert await harness.bot.store.log.count(None, harness.fake.dm_channel(world.alice).id) == before


@pytest.mark.parametrize(("path", "options"), IN_A_DM, ids=[p for p, _ in IN_A_DM])
async def test_item16_member_who_left_is_named_plainly(
    harness: Harness, world: World, path: str, options: dict[str, Any]
) -> None:
    del world.guild.members[world.bob.id]  # Bob left the server; Discord still resolves him as a user
    answer = await harness.slash(world.guild, world.general, world.alice, path, with_users(world, options))
    assert_plain(answer, "Bob is not in this server, so they can't take part in this roll.")
    assert await harness.bot.store.log.count(world.guild.id, world.general.id) == 0


async def test_item16_outside_a_roll_the_sentence_says_so(harness: Harness, world: World) -> None:
    del world.guild.members[world.bob.id]
    answer = await harness.slash(world.guild, world.general, world.gm, "supply show", {"member": world.bob})
    assert_plain(answer, "Bob is not in this server, so they can't be chosen here.")


async def test_item16_the_refusal_names_them_safely(harness: Harness, world: World) -> None:
    odd = harness.fake.add_user("\u202eash_*x*")  # a right-to-left override and markdown in the name
    answer = await harness.slash(
        world.guild, world.general, world.alice, "sysx opposed", {"actor": odd, "target": world.bob}
    )
    assert_plain(answer, "Ash\\_\\*X\\* is not in this server, so they can't take part in this roll.")


def forged(harness: Harness, world: World, data: dict[str, Any], kind: int = 2) -> Any:
    data = {"type": 1, "guild_id": str(world.guild.id), **data}
    return harness.fake.interaction_payload(kind, data, user=world.alice, channel=world.general)


@pytest.mark.parametrize(
    "shape",
    ["a command that is gone", "a subcommand that is gone", "an option it no longer has", "a group alone"],
)
async def test_item16_a_command_discord_still_shows_in_an_older_shape(
    harness: Harness, world: World, caplog: pytest.LogCaptureFixture, shape: str
) -> None:
    sysx = harness.fake.find_command(world.guild, "sysx")
    data = {
        "a command that is gone": {"id": sysx["id"], "name": "oldroll", "options": []},
        "a subcommand that is gone": {
            "id": sysx["id"],
            "name": "sysx",
            "options": [{"name": "oldcheck", "type": 1, "options": []}],
        },
        "an option it no longer has": {
            "id": sysx["id"],
            "name": "sysx",
            "options": [{"name": "check", "type": 1, "options": [{"name": "oldsv", "type": 4, "value": 12}]}],
        },
        "a group alone": {"id": sysx["id"], "name": "sysx", "options": []},
    }[shape]
    with caplog.at_level(logging.WARNING):
        answer = await harness._send(forged(harness, world, data))
    assert_plain(answer, CHANGED)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and "bot" in r.name]
    assert warnings and all(r.exc_info is None for r in warnings)
    assert harness.take_errors() == []  # no traceback, no error code
    # typing into it (an autocomplete) gets no choices, and no error either
    data = {
        "id": sysx["id"],
        "name": "oldroll",
        "options": [{"name": "x", "type": 3, "value": "", "focused": True}],
    }
    typed = await harness._send(forged(harness, world, data, kind=4))
    assert typed.choices == [] and harness.take_errors() == []


async def test_item16_names_in_results_are_safe_to_display(harness: Harness, world: World) -> None:
    odd = harness.fake.add_user("\u202eeve_\u2066*x*")
    harness.fake.add_member(world.guild, odd)
    await harness.slash(world.guild, world.general, odd, "sheet create", {"name": "Nia", "system": "dn"})
    shown = await harness.slash(world.guild, world.general, world.alice, "sheet show", {"member": odd})
    assert "sheet of Eve\\_\\*X\\*" in shown.embed["description"]
    rolled = await harness.slash(world.guild, world.general, odd, "roll", {"expression": "1d6"})
    for answer in (shown, rolled):
        assert not INVISIBLES.search(answer.text()), answer.text()
    assert rolled.public()[0].embed["title"].startswith("Eve\\_\\*X\\*")
