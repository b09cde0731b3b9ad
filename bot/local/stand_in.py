"""The Discord stand-in the local table runs on: the fake Discord of the tests, imported here and nowhere
else in `bot.local`, so moving it into the package changes these lines only."""

from tests.fake_discord.server import FakeDiscord, InteractionRecord
from tests.fake_discord.world import (
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
