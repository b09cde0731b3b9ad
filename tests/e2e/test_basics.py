"""The bot logs in to the fake Discord, syncs valid commands, and answers /help in a guild and in a DM."""

from __future__ import annotations

from typing import Any

from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import FakeDiscord


async def test_bot_logs_in_with_minimal_intents_and_syncs_commands(
    harness: Harness, fake: FakeDiscord
) -> None:
    assert fake.identify_payloads, "the bot never identified"
    assert fake.identify_payloads[-1]["intents"] == 1  # GUILDS only: no members, no message content
    assert fake.command_syncs, "the bot did not sync its commands"
    guild_id, payload = fake.command_syncs[-1]
    assert guild_id is None  # no DEV_GUILD_ID: global sync
    assert "help" in [c["name"] for c in payload]
    assert harness.bot.synced == "synced globally"


async def test_help_answers_with_an_embed(harness: Harness, world: World) -> None:
    answer = await harness.slash(world.guild, world.general, world.alice, "help", {"system": "rps"})
    assert answer.embed["title"].startswith("RPS")
    assert "Resisted" in answer.original.text()
    assert answer.ephemeral
    assert answer.original.allowed_mentions == {"parse": []}


async def test_help_works_in_a_dm(harness: Harness, world: World) -> None:
    answer = await harness.slash(None, None, world.stranger, "help")
    assert answer.embed["title"] == "Quick start"
    assert not answer.ephemeral


async def forged_in_dm(
    harness: Harness, world: World, path: str, options: dict[str, Any], *, focused: str | None = None
) -> Answer:
    """``/path`` sent from alice's DM although Discord offers it only in servers (as a forged call would)."""
    data = harness.fake.build_command_data(world.guild, path, options, focused=focused)
    record = harness.fake.interaction_payload(
        4 if focused else 2, data, user=world.alice, channel=harness.fake.dm_channel(world.alice)
    )
    return await harness._send(record)


async def test_a_server_only_command_called_from_a_dm_gets_one_sentence(
    harness: Harness, world: World
) -> None:
    # Discord hides these commands in DMs (dm_permission false); a forged or stale call still arrives
    for path, options in (
        ("supply roll", {"item": "rations"}),
        ("supply show", {}),
        ("cards task", {"difficulty": 3, "level": 5}),
        ("odds cards", {"hand": 1}),
    ):
        answer = await forged_in_dm(harness, world, path, options)
        assert answer.ephemeral, path
        assert answer.content == "This command works only in a server channel, not in DMs.", path
    offered = await forged_in_dm(harness, world, "supply roll", {"item": ""}, focused="item")
    assert offered.choices == []
    assert await harness.bot.store.supply.list(0, world.alice.id) == []
