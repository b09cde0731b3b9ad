"""The Discord stand-in the local table runs on: the same fake Discord the tests and benchmarks use,
imported here and nowhere else in the local table."""

from bot.local.fake.server import FakeDiscord, InteractionRecord
from bot.local.fake.world import (
    EPHEMERAL,
    EVERYONE_PERMISSIONS,
    LOADING,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    snowflake,
)

__all__ = [
    "EPHEMERAL",
    "EVERYONE_PERMISSIONS",
    "LOADING",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "InteractionRecord",
    "snowflake",
]
