"""The bot logs in to the fake Discord, syncs valid commands, and answers /help in a guild and in a DM."""

from __future__ import annotations

from tests.fake_discord.harness import Harness, World
from tests.fake_discord.server import FakeDiscord


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
    assert "RPS-7" in answer.original.text()
    assert answer.ephemeral
    assert answer.original.allowed_mentions == {"parse": []}


async def test_help_works_in_a_dm(harness: Harness, world: World) -> None:
    answer = await harness.slash(None, None, world.stranger, "help")
    assert "GM-1" in answer.original.text()
    assert not answer.ephemeral
