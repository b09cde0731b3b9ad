"""A fake Discord (REST + gateway on 127.0.0.1) and a harness that runs the real bot against it."""

from tests.fake_discord.server import CommandUnavailable, Delay, FakeDiscord, Fault, InteractionRecord
from tests.fake_discord.world import FakeChannel, FakeGuild, FakeMember, FakeMessage, FakeRole, FakeUser

__all__ = [
    "CommandUnavailable",
    "Delay",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "Fault",
    "InteractionRecord",
]
