"""A fake Discord (REST + gateway on 127.0.0.1) and a harness that runs the real bot against it.

As strict as Discord where a bot can get it wrong: every request checked against Discord's OpenAPI
description (`FakeDiscord.violations`); a callback later than 3 s or a token used after 15 minutes is an
Unknown interaction (`callback_deadline`, `token_lifetime`, `advance_clock`); any route can answer 429 or
5xx or be slow (`fail`, `rate_limit`, `delay`); a command Discord hides from a member cannot be invoked
(`CommandUnavailable`, `set_command_permissions`, `visible_commands`); each guild's events go to its shard
(`shards`, `wait_for_shards`).
"""

from bot.local.fake.server import (
    CommandUnavailable,
    Delay,
    FakeDiscord,
    Fault,
    GatewaySession,
    InteractionRecord,
)
from bot.local.fake.world import FakeChannel, FakeGuild, FakeMember, FakeMessage, FakeRole, FakeUser

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
    "GatewaySession",
    "InteractionRecord",
]
