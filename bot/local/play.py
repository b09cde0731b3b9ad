"""What a person at the local table does: run a slash command, type into an autocompleted option, click a
button or choose in a select, say something. Each becomes what Discord would send the bot (an interaction
through the stand-in's gateway), built from the commands the bot synced."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.local.stand_in import FakeChannel, FakeDiscord, FakeGuild, FakeMessage, InteractionRecord, snowflake
from bot.local.view import sees
from bot.local.world import Label, Person, TableWorld

ANSWER_WAIT = 3.0  # Discord gives up on an interaction that is not acknowledged in 3 s
MAX_CONTENT = 2000
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11
APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE = 2, 3, 4
BUTTON, STRING_SELECT = 2, 3


class PlayError(Exception):
    """Something the page asked that Discord would not send; the message is the sentence shown."""


@dataclass(frozen=True)
class Upload:
    """A file the person attached to a command option."""

    filename: str
    data: bytes
    content_type: str


class Table:
    """The person-facing actions, against ``fake`` whose bot is connected."""

    def __init__(self, fake: FakeDiscord, world: TableWorld) -> None:
        self.fake = fake
        self.world = world

    # -- slash commands ----------------------------------------------------------------------------------
    async def command(
        self,
        person: Person,
        channel_id: int | str,
        path: str,
        options: Mapping[str, Any],
        uploads: Mapping[str, Upload] | None = None,
    ) -> None:
        """Run ``/path`` with the page's raw option values (ids for members, roles and channels)."""
        guild, channel = self._where(person, channel_id)
        declared = self._declared(guild, path)
        files = uploads or {}
        given = {**options, **{name: None for name in files}}  # a file option's value is its upload
        values = {name: self._value(declared, name, raw, guild, files) for name, raw in given.items()}
        data = self._data(guild, path, values)
        record = self._interaction(APPLICATION_COMMAND, data, person, channel)
        self.world.labels[record.id] = Label(person.id, "/" + " ".join(path.split()))
        await self._send(record)

    async def autocomplete(
        self, person: Person, channel_id: int | str, path: str, options: Mapping[str, Any], focused: str
    ) -> list[dict[str, Any]]:
        """The bot's suggestions for option ``focused`` while the other options hold ``options``."""
        guild, channel = self._where(person, channel_id)
        declared = self._declared(guild, path)
        if focused not in declared or not declared[focused].get("autocomplete"):
            raise PlayError(f"The option {focused} has no suggestions.")
        values: dict[str, Any] = {}
        for name, raw in options.items():
            if name == focused:
                continue
            try:  # Discord sends what is already valid of the other options and leaves out the rest
                values[name] = self._value(declared, name, raw, guild, {})
                self._data(guild, path, {name: values[name]}, focused=focused)
            except PlayError:
                values.pop(name, None)
        values[focused] = str(options.get(focused, ""))
        data = self._data(guild, path, values, focused=focused)
        record = self._interaction(AUTOCOMPLETE, data, person, channel)
        await self._send(record)
        return list(record.choices or [])

    # -- components -------------------------------------------------------------------------------------
    async def click(
        self, person: Person, message_id: int | str, custom_id: str, values: Sequence[str] | None = None
    ) -> None:
        """Click the button ``custom_id`` (or choose ``values`` in that select) on a message."""
        message = self.fake.messages.get(int(message_id))
        if message is None or not sees(self.world, person, message):
            raise PlayError("That message is gone.")
        component = next((c for c in message.walk_components() if c.get("custom_id") == custom_id), None)
        if component is None:
            raise PlayError("That button is no longer on the message.")
        if component.get("disabled"):
            raise PlayError("That button is disabled.")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if component["type"] == STRING_SELECT:
            allowed = {str(o["value"]) for o in component.get("options", [])}
            chosen = [str(v) for v in values or []]
            low, high = component.get("min_values", 1), component.get("max_values", 1)
            if not low <= len(chosen) <= high or not set(chosen) <= allowed:
                raise PlayError(f"Choose {low} to {high} of the select's options.")
            data["values"] = chosen
        elif component["type"] != BUTTON:
            raise PlayError("The local table does not draw that kind of select.")
        channel = self.fake.channels[message.channel_id]
        record = self._interaction(MESSAGE_COMPONENT, data, person, channel, message)
        await self._send(record)

    # -- talking ----------------------------------------------------------------------------------------
    def say(self, person: Person, channel_id: int | str, text: str) -> FakeMessage:
        """Post a plain message. The bot is not told: it asks Discord for no message events."""
        _, channel = self._where(person, channel_id)
        text = text.strip()
        if not text:
            raise PlayError("Type something to send.")
        if len(text) > MAX_CONTENT:
            raise PlayError(f"A message is at most {MAX_CONTENT} characters.")
        message = FakeMessage(snowflake(), channel.id, channel.guild_id, person, content=text)
        self.fake.messages[message.id] = message
        self.fake.message_log.append(message)
        return message

    # -- the parts --------------------------------------------------------------------------------------
    def _where(self, person: Person, channel_id: int | str) -> tuple[FakeGuild | None, FakeChannel]:
        try:
            channel = self.fake.channels.get(int(channel_id))
        except ValueError:
            channel = None
        if channel is None or not self.world.can_see(person, channel):
            raise PlayError("You cannot write in that channel.")
        return (None if channel.is_dm else self.world.guild), channel

    def _declared(self, guild: FakeGuild | None, path: str) -> dict[str, dict[str, Any]]:
        """The options of the command at ``path`` as the bot synced them."""
        words = path.split()
        try:
            level = self.fake.find_command(guild, words[0]) if words else None
        except AssertionError:
            level = None
        if level is None:
            raise PlayError(f"There is no command /{path} here.")
        for word in words[1:]:
            level = next(
                (
                    o
                    for o in level.get("options") or []
                    if o["name"] == word and o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)
                ),
                None,
            )
            if level is None:
                raise PlayError(f"There is no command /{path} here.")
        if any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in level.get("options") or []):
            raise PlayError(f"/{path} needs a subcommand.")
        return {o["name"]: o for o in level.get("options") or []}

    def _value(
        self,
        declared: Mapping[str, dict[str, Any]],
        name: str,
        raw: Any,
        guild: FakeGuild | None,
        uploads: Mapping[str, Upload],
    ) -> Any:
        """A raw value from the page as the stand-in takes it (a person, a role, a channel, a file...)."""
        option = declared.get(name)
        if option is None:
            raise PlayError(f"This command has no option {name}.")
        kind = option["type"]
        if kind in (USER, MENTIONABLE):
            members = guild.members if guild is not None else {}
            for member_id, member in members.items():
                if str(member_id) == str(raw):
                    return member.user
            if kind == MENTIONABLE and guild is not None:
                for role in guild.roles.values():
                    if str(role.id) == str(raw):
                        return role
            raise PlayError(f"{name}: choose someone at the table.")
        if kind == ROLE and guild is not None:
            for role in guild.roles.values():
                if str(role.id) == str(raw):
                    return role
            raise PlayError(f"{name}: choose a role.")
        if kind == CHANNEL and guild is not None:
            for channel in guild.channels.values():
                if str(channel.id) == str(raw):
                    return channel
            raise PlayError(f"{name}: choose a channel.")
        if kind == ATTACHMENT:
            upload = uploads.get(name)
            if upload is None:
                raise PlayError(f"{name}: attach a file.")
            return self.fake.attachment(upload.filename, upload.data, upload.content_type)
        return _primitive(option, raw)

    def _data(
        self, guild: FakeGuild | None, path: str, values: dict[str, Any], *, focused: str | None = None
    ) -> dict[str, Any]:
        try:
            return self.fake.build_command_data(guild, path, values, focused=focused)
        except AssertionError as err:  # the stand-in refuses what Discord's client would not send
            raise PlayError(str(err)) from None

    def _interaction(
        self,
        kind: int,
        data: dict[str, Any],
        person: Person,
        channel: FakeChannel,
        message: FakeMessage | None = None,
    ) -> InteractionRecord:
        try:
            return self.fake.interaction_payload(kind, data, user=person, channel=channel, message=message)
        except AssertionError as err:  # what Discord would not send for this person (the stand-in says why)
            raise PlayError(str(err)) from None

    async def _send(self, record: InteractionRecord) -> None:
        if not self.fake.connected.is_set():
            raise PlayError("The bot is not connected yet; try again in a moment.")
        await self.fake.dispatch("INTERACTION_CREATE", record.payload)
        try:  # not wait_for, which on Python 3.11 can swallow the page's stop
            async with asyncio.timeout(ANSWER_WAIT):
                await record.answered.wait()
        except TimeoutError:
            raise PlayError("The application did not respond.") from None


def _primitive(option: dict[str, Any], raw: Any) -> Any:
    """A string, number or boolean checked as Discord's client checks it before sending."""
    name, kind = option["name"], option["type"]
    value: Any
    if kind == BOOLEAN:
        if isinstance(raw, bool):
            value = raw
        elif str(raw).lower() in ("true", "false"):
            value = str(raw).lower() == "true"
        else:
            raise PlayError(f"{name}: choose True or False.")
    elif kind in (INTEGER, NUMBER):
        try:
            number = float(raw)
        except (TypeError, ValueError):
            raise PlayError(f"{name}: enter a number.") from None
        if not math.isfinite(number):
            raise PlayError(f"{name}: enter a number.")
        if kind == INTEGER:
            if number != int(number):
                raise PlayError(f"{name}: enter a whole number.")
            value = int(number)
        else:
            value = int(number) if number == int(number) else number
        low, high = option.get("min_value"), option.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise PlayError(f"{name}: enter a number from {low} to {high}.")
    elif kind == STRING:
        value = str(raw)
        low, high = option.get("min_length", 1), option.get("max_length", 6000)
        if not low <= len(value) <= high:
            raise PlayError(f"{name}: {low} to {high} characters.")
    else:
        raise PlayError(f"{name}: the local table cannot fill this kind of option.")
    choices = option.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise PlayError(f"{name}: pick one of the choices.")
    return value
