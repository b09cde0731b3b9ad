"""The local table's world: one guild with a table channel and a GM channel, five people, what they saw.

The bot's store keys sheets, hands and modifiers by Discord ids, so the ids must stay the same between
runs: the world is kept in ``<folder>/world.json`` (ids, names, the synced commands, the channels'
messages) with the messages' files in ``<folder>/files/``, and rebuilt from them on the next start.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from bot.local.stand_in import (
    EVERYONE_PERMISSIONS,
    FakeAttachment,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    snowflake,
)

log = logging.getLogger(__name__)

FORMAT = 1
KEEP_MESSAGES = 500  # per run the page shows at most this many of the latest messages from before
OWNER, GM, PLAYER = "owner", "gm", "player"
DEFAULT_PEOPLE = (
    ("sam", "Sam", OWNER),
    ("robin", "Robin", GM),
    ("alice", "Alice", PLAYER),
    ("bob", "Bob", PLAYER),
    ("carol", "Carol", PLAYER),
)
TABLE, GM_SCREEN = "table", "gm-screen"
MAX_NAME = 32  # Discord's limit for a display name


@dataclass(eq=False)
class Person(FakeUser):
    """A member of the table; the user can change the name the bot sees (Discord's display name)."""

    name: str = ""
    kind: str = PLAYER  # owner, gm or player

    def payload(self) -> dict[str, Any]:
        data = super().payload()
        data["global_name"] = self.name or self.username
        return data


@dataclass(frozen=True)
class Label:
    """Who used which command: the line Discord shows above an interaction's answer."""

    user_id: int
    command: str


class TableWorld:
    """The guild, its channels and people inside a `FakeDiscord`, and their files on disk."""

    def __init__(self, fake: FakeDiscord, folder: Path, spec: dict[str, Any]) -> None:
        self.fake = fake
        self.folder = folder
        self.labels: dict[int, Label] = {}
        self.people: list[Person] = []
        self.dms: dict[int, FakeChannel] = {}  # person id -> their DM channel with the bot
        self._build(spec)

    # -- opening and saving ------------------------------------------------------------------------------
    @classmethod
    def open(cls, fake: FakeDiscord, folder: Path) -> tuple[TableWorld, bool]:
        """The world kept in ``folder``, or a new one; True when it is new. ``fake`` must be started."""
        path = folder / "world.json"
        try:
            spec = orjson.loads(path.read_bytes())
            if spec.get("format") != FORMAT:
                raise ValueError(f"format {spec.get('format')!r}")
        except FileNotFoundError:
            return cls(fake, folder, new_spec()), True
        except (ValueError, KeyError) as err:
            # a damaged file must not stop the table: keep it aside and start a new world
            log.warning("Could not read %s (%s); starting a new table, the old file is kept.", path, err)
            path.replace(path.with_suffix(".damaged"))
            return cls(fake, folder, new_spec()), True
        world = cls(fake, folder, spec)
        world._restore_messages(spec.get("messages") or [], spec.get("labels") or {})
        return world, False

    def save(self) -> None:
        """Write the world and the files of its messages (each file once)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        files = self.folder / "files"
        kept = self._kept_messages()
        for message in kept:
            for att in message.attachments:
                target = files / _file_name(att)
                if not target.exists():
                    files.mkdir(exist_ok=True)
                    target.write_bytes(att.data)
        spec = self._spec(kept)
        temporary = self.folder / "world.json.tmp"
        temporary.write_bytes(orjson.dumps(spec, option=orjson.OPT_INDENT_2))
        os.replace(temporary, self.folder / "world.json")

    # -- what the page asks ------------------------------------------------------------------------------
    @property
    def owner(self) -> Person:
        return next(p for p in self.people if p.kind == OWNER)

    def person(self, user_id: int | str) -> Person:
        """The person with this id; ValueError for anyone else."""
        for person in self.people:
            if str(person.id) == str(user_id):
                return person
        raise ValueError(f"no one at the table has the id {user_id}")

    def rename(self, person: Person, name: str) -> None:
        """Change ``person``'s display name; ValueError with a sentence when it is not usable."""
        cleaned = " ".join(name.split())
        if not 1 <= len(cleaned) <= MAX_NAME:
            raise ValueError(f"A name is 1 to {MAX_NAME} characters.")
        person.name = cleaned

    def channels(self) -> list[FakeChannel]:
        """The guild's text channels, table first."""
        return list(self.guild.channels.values())

    def can_see(self, person: Person, channel: FakeChannel) -> bool:
        """The GM channel is private to the owner and the GMs, as a server owner would set it up (the
        stand-in has no channel permissions: the page keeps players out of it)."""
        if channel.is_dm:
            return channel is self.dms.get(person.id)
        return channel.guild_id == self.guild.id and (channel is not self.gm_screen or person.kind != PLAYER)

    # -- building ----------------------------------------------------------------------------------------
    def _build(self, spec: dict[str, Any]) -> None:
        fake = self.fake
        fake.app_id = int(spec["app_id"])
        fake.bot_user = FakeUser(fake.app_id, "tabletop", bot=True)
        fake.global_commands = list(spec.get("commands") or [])
        guild_id = int(spec["guild"]["id"])
        everyone = FakeRole(guild_id, "@everyone", EVERYONE_PERMISSIONS, 0)
        guild = FakeGuild(guild_id, spec["guild"]["name"], int(spec["guild"]["owner_id"]), everyone)
        fake.guilds[guild_id] = guild
        self.guild = guild
        role = spec["gm_role"]
        self.gm_role = FakeRole(int(role["id"]), role["name"], 0, 1)
        guild.roles[self.gm_role.id] = self.gm_role
        for entry in spec["channels"]:
            channel = FakeChannel(int(entry["id"]), entry["name"], guild_id)
            guild.channels[channel.id] = channel
            fake.channels[channel.id] = channel
        self.table, self.gm_screen = guild.channel(TABLE), guild.channel(GM_SCREEN)
        self.gm_screen.make_private(self.gm_role, fake.bot_user)  # players do not see it
        for entry in spec["people"]:
            person = Person(int(entry["id"]), entry["username"], name=entry["name"], kind=entry["kind"])
            fake.users[person.id] = person
            self.people.append(person)
            fake.add_member(guild, person, [self.gm_role] if person.kind == GM else [])
            dm = FakeChannel(int(entry["dm_channel_id"]), f"dm-{person.username}", None, 1, person)
            fake.channels[dm.id] = dm
            self.dms[person.id] = dm

    def _spec(self, kept: list[FakeMessage]) -> dict[str, Any]:
        interactions = {m.interaction_id for m in kept if m.interaction_id is not None}
        return {
            "format": FORMAT,
            "app_id": str(self.fake.app_id),
            "guild": {
                "id": str(self.guild.id),
                "name": self.guild.name,
                "owner_id": str(self.guild.owner_id),
            },
            "gm_role": {"id": str(self.gm_role.id), "name": self.gm_role.name},
            "channels": [{"id": str(c.id), "name": c.name} for c in self.channels()],
            "people": [
                {
                    "id": str(p.id),
                    "username": p.username,
                    "name": p.name,
                    "kind": p.kind,
                    "dm_channel_id": str(self.dms[p.id].id),
                }
                for p in self.people
            ],
            # Discord keeps an application's commands between runs; the bot syncs only when they changed
            "commands": self.fake.global_commands,
            "messages": [_message_spec(m) for m in kept],
            "labels": {
                str(i): {"user": str(label.user_id), "command": label.command}
                for i, label in self.labels.items()
                if i in interactions
            },
        }

    def _kept_messages(self) -> list[FakeMessage]:
        """Messages worth keeping: in the world's channels, seen by everyone they were for, finished."""
        ours = {c.id for c in self.channels()} | {c.id for c in self.dms.values()}
        kept = [
            m
            for m in self.fake.message_log
            if m.channel_id in ours and not (m.deleted or m.ephemeral or m.loading)
        ]
        return kept[-KEEP_MESSAGES:]

    def _restore_messages(self, messages: list[dict[str, Any]], labels: dict[str, Any]) -> None:
        fake = self.fake
        users: dict[int, FakeUser] = {p.id: p for p in self.people}
        users[fake.app_id] = fake.bot_user
        files = self.folder / "files"
        for entry in messages:
            channel = fake.channels.get(int(entry["channel_id"]))
            author = users.get(int(entry["author_id"]))
            if channel is None or author is None:
                continue
            attachments = []
            for att in entry.get("attachments") or []:
                restored = FakeAttachment(int(att["id"]), att["filename"], b"", att["content_type"])
                with contextlib.suppress(FileNotFoundError):
                    restored.data = (files / _file_name(restored)).read_bytes()
                restored.url = f"{fake.api_base}/attachments/{restored.id}/{restored.filename}"
                fake.attachments[restored.id] = restored
                attachments.append(restored)
            interaction_user = entry.get("interaction_user_id")
            message = FakeMessage(
                id=int(entry["id"]),
                channel_id=channel.id,
                guild_id=channel.guild_id,
                author=author,
                content=entry.get("content") or "",
                embeds=entry.get("embeds") or [],
                components=entry.get("components") or [],
                flags=int(entry.get("flags") or 0),
                attachments=attachments,
                interaction_id=int(entry["interaction_id"]) if entry.get("interaction_id") else None,
                interaction_user=users.get(int(interaction_user)) if interaction_user else None,
                webhook_id=fake.app_id if entry.get("webhook") else None,
                edits=int(entry.get("edits") or 0),
            )
            fake.messages[message.id] = message
            fake.message_log.append(message)
        for interaction_id, label in labels.items():
            self.labels[int(interaction_id)] = Label(int(label["user"]), label["command"])


def new_spec() -> dict[str, Any]:
    """A new world's ids and names."""
    guild_id, owner_id = snowflake(), None
    people = []
    for username, name, kind in DEFAULT_PEOPLE:
        person_id = snowflake()
        owner_id = person_id if kind == OWNER else owner_id
        people.append(
            {"id": person_id, "username": username, "name": name, "kind": kind, "dm_channel_id": snowflake()}
        )
    return {
        "format": FORMAT,
        "app_id": snowflake(),
        "guild": {"id": guild_id, "name": "The Table", "owner_id": owner_id},
        "gm_role": {"id": snowflake(), "name": "GM"},
        "channels": [{"id": snowflake(), "name": TABLE}, {"id": snowflake(), "name": GM_SCREEN}],
        "people": people,
        "commands": [],
    }


def forget(folder: Path) -> None:
    """Remove a kept world (``--fresh``)."""
    shutil.rmtree(folder, ignore_errors=True)


def _message_spec(message: FakeMessage) -> dict[str, Any]:
    return {
        "id": str(message.id),
        "channel_id": str(message.channel_id),
        "author_id": str(message.author.id),
        "content": message.content,
        "embeds": message.embeds,
        "components": message.components,
        "flags": message.flags,
        "attachments": [
            {"id": str(a.id), "filename": a.filename, "content_type": a.content_type}
            for a in message.attachments
        ],
        "interaction_id": str(message.interaction_id) if message.interaction_id else None,
        "interaction_user_id": str(message.interaction_user.id) if message.interaction_user else None,
        "webhook": message.webhook_id is not None,
        "edits": message.edits,
    }


def _file_name(att: FakeAttachment) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in att.filename)[-80:]
    return f"{att.id}-{safe}"
