"""What one person at the local table sees, as the JSON the page draws: the guild, the commands they can
pick, and the messages of the channels and of their DMs (ephemeral ones only when they are theirs)."""

from __future__ import annotations

import mimetypes
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from bot.local.stand_in import FakeAttachment, FakeDiscord, FakeMessage
from bot.local.world import Person, TableWorld

DISCORD_EPOCH_MS = 1420070400000
SNAPSHOT = 300  # the latest messages of each channel a page gets when it (re)connects
PERMISSION_NAMES = {1 << 3: "Administrator", 1 << 5: "Manage Server", 1 << 4: "Manage Channels"}


def sees(world: TableWorld, person: Person, message: FakeMessage) -> bool:
    """Whether ``person`` has ``message`` on their screen."""
    if message.deleted:
        return False
    channel = world.fake.channels.get(message.channel_id)
    if channel is None or not world.can_see(person, channel):
        return False
    return not message.ephemeral or message.interaction_user is person


def visible(world: TableWorld, person: Person) -> list[FakeMessage]:
    """The latest messages ``person`` sees, per channel, oldest first."""
    per_channel: dict[int, list[FakeMessage]] = {}
    for message in world.fake.message_log:
        if sees(world, person, message):
            per_channel.setdefault(message.channel_id, []).append(message)
    out = [m for messages in per_channel.values() for m in messages[-SNAPSHOT:]]
    return sorted(out, key=lambda m: m.id)


def message_json(world: TableWorld, message: FakeMessage) -> dict[str, Any]:
    """A message as the page draws it; ids are strings (JavaScript numbers cannot hold a snowflake)."""
    author = message.author
    label = world.labels.get(message.interaction_id) if message.interaction_id else None
    used = None
    if label is not None:
        user = next((p for p in world.people if p.id == label.user_id), None)
        used = {
            "user": str(label.user_id),
            "name": user.name if user else "someone",
            "command": label.command,
        }
    return {
        "id": str(message.id),
        "channel": str(message.channel_id),
        "time": (message.id >> 22) + DISCORD_EPOCH_MS,
        "author": {
            "id": str(author.id),
            "name": author.name if isinstance(author, Person) else author.username,
            "bot": author.bot,
        },
        "content": message.content,
        "embeds": message.embeds,
        "components": message.components,
        "attachments": [_attachment_json(a) for a in message.attachments],
        "ephemeral": message.ephemeral,
        "loading": message.loading,
        # an interaction's answer filled in or updated is not "(edited)" on Discord; a posted message is
        "edited": message.edits > 0 and message.interaction_id is None,
        "used": used,
    }


def state_json(world: TableWorld, person: Person) -> dict[str, Any]:
    """The guild, the people, and the commands ``person`` can pick in a channel and in their DMs."""
    member = world.guild.members[person.id]
    commands = world.fake.global_commands + world.fake.guild_commands.get(world.guild.id, [])
    return {
        "me": str(person.id),
        "guild": {"id": str(world.guild.id), "name": world.guild.name},
        "bot": {"id": str(world.fake.bot_user.id), "name": world.fake.bot_user.username},
        "people": [
            {
                "id": str(p.id),
                "name": p.name,
                "username": p.username,
                "kind": p.kind,
                "roles": [r.name for r in world.guild.members[p.id].roles],
            }
            for p in world.people
        ],
        "roles": [{"id": str(r.id), "name": r.name} for r in world.guild.roles.values()],
        "channels": [{"id": str(c.id), "name": c.name} for c in world.channels() if world.can_see(person, c)],
        "dm": str(world.dms[person.id].id),
        "commands": {
            "guild": [_command_json(c, member.permissions) for c in commands if _in_context(c, 0)],
            "dm": [_command_json(c, None) for c in world.fake.global_commands if _in_context(c, 1)],
        },
    }


def _command_json(command: dict[str, Any], permissions: int | None) -> dict[str, Any]:
    """The synced command, with ``locked`` naming what Discord would hide it for (it stays usable here, so
    the page shows how the bot answers those who reach it anyway)."""
    out = dict(command)
    needed = command.get("default_member_permissions")
    if permissions is not None and needed is not None and int(needed) & ~permissions:
        missing = int(needed) & ~permissions
        names = [name for bit, name in PERMISSION_NAMES.items() if missing & bit] or ["a permission"]
        out["locked"] = " and ".join(names)
    return out


def _in_context(command: dict[str, Any], context: int) -> bool:
    """Discord's interaction contexts: 0 a guild, 1 the bot's DM."""
    if command.get("type", 1) != 1:
        return False
    contexts = command.get("contexts")
    if contexts is not None:
        return context in contexts
    return context == 0 or command.get("dm_permission", True) is not False


def _attachment_json(att: FakeAttachment) -> dict[str, Any]:
    kind = att.content_type
    if not kind or kind == "application/octet-stream":
        kind = mimetypes.guess_type(att.filename)[0] or "application/octet-stream"
    return {
        "id": str(att.id),
        "filename": att.filename,
        "url": f"/files/{att.id}/{quote(att.filename)}",
        "size": len(att.data),
        "image": kind.startswith("image/"),
    }


class ChangeWatcher:
    """Which messages were created, edited or deleted since the last look.

    The stand-in has no change events: what the bot changes, it changes through REST, and every message
    keeps a count of its edits, its flags and whether it is deleted, so comparing those finds every change.
    """

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self._seen: dict[int, tuple[int, bool, int]] = {}

    def mark_all_seen(self) -> None:
        self.changed()

    def changed(self) -> list[FakeMessage]:
        out = []
        for message in self.fake.message_log:
            signature = (message.edits, message.deleted, message.flags)
            if self._seen.get(message.id) != signature:
                self._seen[message.id] = signature
                out.append(message)
        return out


def ids(messages: Iterable[FakeMessage]) -> set[int]:
    return {m.id for m in messages}
