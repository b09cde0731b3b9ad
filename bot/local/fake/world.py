"""The fake Discord's world: users, guilds, roles, channels and messages, each able to give its payload."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

DISCORD_EPOCH_MS = 1420070400000
EPHEMERAL = 1 << 6
LOADING = 1 << 7

# Permission bits (https://discord.com/developers/docs/topics/permissions)
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_APPLICATION_COMMANDS = 1 << 31
EVERYONE_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_APPLICATION_COMMANDS
)
ALL_PERMISSIONS = (1 << 50) - 1

_counter = itertools.count(1)


def snowflake() -> int:
    """A fresh, increasing snowflake whose timestamp is now."""
    now_ms = int(datetime.now(UTC).timestamp() * 1000)
    return ((now_ms - DISCORD_EPOCH_MS) << 22) | (next(_counter) & 0x3FFFFF)


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class FakeUser:
    id: int
    username: str
    bot: bool = False
    blocks_dms: bool = False

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.username.title(),
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }


@dataclass
class FakeRole:
    id: int
    name: str
    permissions: int = 0
    position: int = 1

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }


@dataclass
class FakeChannel:
    id: int
    name: str
    guild_id: int | None = None
    type: int = 0  # 0 guild text, 1 DM
    recipient: FakeUser | None = None
    # Discord's permission overwrites ({"id", "type": 0 role / 1 member, "allow", "deny"}), as it sends them
    overwrites: list[dict[str, Any]] = field(default_factory=list)

    @property
    def is_dm(self) -> bool:
        return self.type == 1

    def make_private(self, *allowed: FakeRole | FakeUser) -> None:
        """Hide the channel from @everyone (its role's id is the guild's) and show it to ``allowed``."""
        assert self.guild_id is not None, "a DM has no permission overwrites"
        seen = VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS | READ_MESSAGE_HISTORY
        self.overwrites = [{"id": str(self.guild_id), "type": 0, "allow": "0", "deny": str(VIEW_CHANNEL)}]
        for who in allowed:
            kind = 1 if isinstance(who, FakeUser) else 0
            self.overwrites.append({"id": str(who.id), "type": kind, "allow": str(seen), "deny": "0"})

    def partial(self) -> dict[str, Any]:
        """The channel as an interaction's resolved data carries it: Discord sends a partial channel there
        (id, name, type and the member's permissions in it), never its overwrites."""
        return {"id": str(self.id), "name": self.name, "type": self.type}

    def payload(self) -> dict[str, Any]:
        if self.is_dm:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": 1,
                "last_message_id": None,
                "recipients": [self.recipient.payload()],
                "flags": 0,
            }
        return {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "guild_id": str(self.guild_id),
            "position": 0,
            "permission_overwrites": [dict(o) for o in self.overwrites],
            "parent_id": None,
            "topic": None,
            "nsfw": False,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }


@dataclass
class FakeMember:
    user: FakeUser
    guild: FakeGuild
    roles: list[FakeRole] = field(default_factory=list)
    nick: str | None = None  # the server nickname, the display name in this guild when set

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def permissions(self) -> int:
        """The member's permissions: @everyone plus its roles; the owner and administrators have all."""
        if self.user.id == self.guild.owner_id:
            return ALL_PERMISSIONS
        total = self.guild.everyone.permissions
        for role in self.roles:
            total |= role.permissions
        return ALL_PERMISSIONS if total & ADMINISTRATOR else total

    def payload(self, *, with_permissions: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "user": self.user.payload(),
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "roles": [str(role.id) for role in self.roles],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass
class FakeGuild:
    id: int
    name: str
    owner_id: int
    everyone: FakeRole
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)

    def channel(self, name: str) -> FakeChannel:
        """The guild's channel called ``name``."""
        for channel in self.channels.values():
            if channel.name == name:
                return channel
        raise KeyError(name)

    def role(self, name: str) -> FakeRole:
        """The guild's role called ``name``."""
        for role in self.roles.values():
            if role.name == name:
                return role
        raise KeyError(name)

    def payload(self, bot_member: FakeMember | None = None) -> dict[str, Any]:
        members = [m.payload() for m in self.members.values()]
        if bot_member is not None:
            members.append(bot_member.payload())
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [self.everyone.payload()] + [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": "2024-01-01T00:00:00+00:00",
            "large": False,
            "unavailable": False,
            "member_count": len(members),
            "voice_states": [],
            "members": members,
            "channels": [c.payload() for c in self.channels.values()],
            "threads": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }


@dataclass
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    content_type: str = "application/octet-stream"
    url: str = ""

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        }


@dataclass
class FakeMessage:
    """A message the bot sent (or a test posted), as Discord would store it."""

    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    attachments: list[FakeAttachment] = field(default_factory=list)
    interaction_id: int | None = None
    interaction_user: FakeUser | None = None
    webhook_id: int | None = None
    deleted: bool = False
    edits: int = 0
    allowed_mentions: dict[str, Any] | None = None

    # -- what a test reads -------------------------------------------------------------------------------
    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    @property
    def embed(self) -> dict[str, Any]:
        """The first embed (fails the test when there is none)."""
        assert self.embeds, f"message {self.id} has no embed: {self.content!r}"
        return self.embeds[0]

    def text(self) -> str:
        """Everything a reader can see: content, embed titles, descriptions, fields, footers, labels."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title", ""), embed.get("description", "")]
            parts += [embed.get("author", {}).get("name", ""), embed.get("footer", {}).get("text", "")]
            for fld in embed.get("fields", []):
                parts += [fld.get("name", ""), fld.get("value", "")]
        for item in self.walk_components():
            parts += [
                str(item.get("label", "")),
                str(item.get("placeholder", "")),
                str(item.get("content", "")),
            ]
            parts += [str(option.get("label", "")) for option in item.get("options", [])]
        return "\n".join(p for p in parts if p)

    def walk_components(self) -> list[dict[str, Any]]:
        """Every component, rows flattened."""
        out: list[dict[str, Any]] = []
        stack = list(self.components)
        while stack:
            item = stack.pop(0)
            out.append(item)
            stack[:0] = item.get("components", [])
            if "accessory" in item:
                stack.insert(0, item["accessory"])
        return out

    def custom_ids(self) -> list[str]:
        """The custom ids of every button and select, in order."""
        return [c["custom_id"] for c in self.walk_components() if "custom_id" in c]

    def component(self, custom_id_or_label: str) -> dict[str, Any]:
        """The button or select whose custom id matches exactly, or whose label matches (case-insensitive)."""
        for item in self.walk_components():
            if item.get("custom_id") == custom_id_or_label:
                return item
        for item in self.walk_components():
            if str(item.get("label", "")).lower() == custom_id_or_label.lower() and "custom_id" in item:
                return item
        raise AssertionError(f"no component {custom_id_or_label!r} on message {self.id}: {self.custom_ids()}")

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "type": 20 if self.interaction_id else 0,
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": iso_now(),
            "edited_timestamp": iso_now() if self.edits else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "flags": self.flags,
            "reactions": [],
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction_id is not None and self.interaction_user is not None:
            data["interaction_metadata"] = {
                "id": str(self.interaction_id),
                "type": 2,
                "user": self.interaction_user.payload(),
                "authorizing_integration_owners": {},
            }
        return data


MENTION = re.compile(r"<@[!&]?\d+>|@everyone|@here")
