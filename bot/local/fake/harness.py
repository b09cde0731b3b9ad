"""Run the real bot class against the fake Discord and talk to it like users do.

fake = FakeDiscord(); await fake.start(); world = standard_world(fake)
harness = await start_bot(fake, tmp_path)              # in-process bot.start(token)
answer = await harness.slash(world.guild, world.general, world.alice, "help", {"system": "rps"})
answer.embed["title"]; answer.ephemeral; answer.messages; answer.public(); answer.dms(world.gm)
again = await harness.click(answer.original, "reveal:12", world.gm)
    answer = await harness.autocomplete(guild, channel, world.alice, "sheet use", {"name": "A"}, "name")
await harness.stop()

slash and autocomplete raise CommandUnavailable for a command Discord hides from that user there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
from pydantic import SecretStr

from bot.client import COGS, TabletopBot
from bot.local.fake.server import (
    DEFERRED_MESSAGE,
    DEFERRED_UPDATE,
    UPDATE_MESSAGE,
    FakeDiscord,
    InteractionRecord,
)
from bot.local.fake.world import FakeChannel, FakeGuild, FakeMessage, FakeRole, FakeUser
from bot.settings import Settings

TOKEN = "MTEx.fake-token.for-tests-only-9f8e7d6c5b4a"
HANDLER_TASKS = re.compile(r"^(CommandTree-invoker|discord-ui-|discord\.py: on_)")
WAIT = 30.0  # generous: only a hung bot ever reaches it


@dataclass
class Answer:
    """Everything the bot sent while handling one interaction."""

    record: InteractionRecord
    messages: list[FakeMessage]
    fake: FakeDiscord

    @property
    def callback_type(self) -> int | None:
        return self.record.callback_type

    @property
    def original(self) -> FakeMessage:
        """The message the user got as the answer (`answer_message`); the first callback as sent made
        ``record.original``."""
        assert self.record.original is not None, f"no response message; callback {self.record.callback}"
        return answer_message(self.record) or self.record.original

    @property
    def edited_in_place(self) -> bool:
        return edited_in_place(self.record)

    @property
    def followups(self) -> list[FakeMessage]:
        return list(self.record.followups)

    @property
    def ephemeral(self) -> bool:
        return self.original.ephemeral

    @property
    def content(self) -> str:
        return self.original.content

    @property
    def embed(self) -> dict[str, Any]:
        """The first embed of the first message that has one."""
        for message in [self.original, *self.messages]:
            if message.embeds:
                return message.embeds[0]
        raise AssertionError(f"no embed in the answer: {[m.text() for m in self.messages]}")

    @property
    def choices(self) -> list[dict[str, Any]]:
        assert self.record.choices is not None, f"not an autocomplete answer: {self.record.callback}"
        return self.record.choices

    def public(self) -> list[FakeMessage]:
        """Messages everyone in their channel can see (not ephemeral, not DMs, not deleted)."""
        return [
            m
            for m in self.messages
            if not m.ephemeral and not m.deleted and not self.fake.channels[m.channel_id].is_dm
        ]

    def ephemeral_messages(self) -> list[FakeMessage]:
        return [m for m in self.messages if m.ephemeral and not m.deleted]

    def in_channel(self, channel: FakeChannel) -> list[FakeMessage]:
        return [m for m in self.messages if m.channel_id == channel.id and not m.deleted]

    def dms(self, user: FakeUser) -> list[FakeMessage]:
        """Messages the bot sent to ``user`` by DM."""
        return [
            m for m in self.messages if (c := self.fake.channels[m.channel_id]).is_dm and c.recipient is user
        ]

    def text(self) -> str:
        """All text of every message sent, for "nothing leaks" assertions."""
        return "\n".join(m.text() for m in self.messages)


@dataclass
class World:
    """A guild with the usual table: an owner, a manager, a GM by role, three players, a GM channel."""

    guild: FakeGuild
    general: FakeChannel
    gm_screen: FakeChannel
    gm_role: FakeRole
    owner: FakeUser
    manager: FakeUser
    gm: FakeUser
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser
    stranger: FakeUser  # not a member of the guild; can only DM the bot


def standard_world(fake: FakeDiscord) -> World:
    """Build the usual table in ``fake``."""
    owner = fake.add_user("owner")
    guild = fake.add_guild("Table", owner)
    general = guild.channel("general")
    gm_screen = fake.add_channel(guild, "gm-screen")
    gm_role = fake.add_role(guild, "GM")
    admin_role = fake.add_role(guild, "Admin", manage_guild=True)
    manager, gm = fake.add_user("manager"), fake.add_user("gamemaster")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    fake.add_member(guild, manager, [admin_role])
    fake.add_member(guild, gm, [gm_role])
    gm_screen.make_private(gm_role, admin_role, fake.bot_user)  # as a server's GM channel is
    for player in (alice, bob, carol):
        fake.add_member(guild, player)
    stranger = fake.add_user("stranger")
    return World(guild, general, gm_screen, gm_role, owner, manager, gm, alice, bob, carol, stranger)


def unanswered(record: InteractionRecord) -> str:
    """Why the user saw "The application did not respond"."""
    if record.late_callback is not None:
        return (
            f"the bot answered interaction {record.payload['data']} {record.late_callback:.2f} s after it "
            "was sent: Discord had dropped it (404 Unknown interaction)"
        )
    return f"the bot left interaction {record.payload['data']} unanswered"


class ErrorCollector(logging.Handler):
    """Collects every ERROR record (tree.on_error, View.on_error, dynamic items, our error codes)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class Harness:
    fake: FakeDiscord
    bot: TabletopBot
    task: asyncio.Task[None]
    errors: ErrorCollector
    _seen: dict[int, asyncio.Event] = field(default_factory=dict)

    # -- user actions -----------------------------------------------------------------------------------
    async def slash(
        self,
        guild: FakeGuild | None,
        channel: FakeChannel | None,
        user: FakeUser,
        path: str,
        options: dict[str, Any] | None = None,
        *,
        locale: str = "en-US",
    ) -> Answer:
        """Run ``/path`` with ``options`` as ``user`` in ``channel`` (guild None and channel None: a DM).

        Raises `CommandUnavailable` when Discord would not offer the command to ``user`` there
        (``default_member_permissions``, ``contexts``): nothing is sent to the bot."""
        channel = self._where(guild, channel, user)
        data = self.fake.build_command_data(guild, path, options or {})
        record = self.fake.interaction_payload(
            2, data, user=user, channel=channel, locale=locale, check_permissions=True
        )
        return await self._send(record)

    async def autocomplete(
        self,
        guild: FakeGuild | None,
        channel: FakeChannel | None,
        user: FakeUser,
        path: str,
        options: dict[str, Any],
        focused: str,
    ) -> Answer:
        """Type into option ``focused`` of ``/path``; the answer's ``choices`` are what Discord would list."""
        channel = self._where(guild, channel, user)
        data = self.fake.build_command_data(guild, path, options, focused=focused)
        record = self.fake.interaction_payload(4, data, user=user, channel=channel, check_permissions=True)
        return await self._send(record)

    async def click(
        self,
        message: FakeMessage,
        custom_id_or_label: str,
        user: FakeUser,
        values: Sequence[str] | None = None,
    ) -> Answer:
        """Click a button (or choose ``values`` in a select) on ``message`` as ``user``."""
        component = message.component(custom_id_or_label)
        if component.get("disabled"):
            raise AssertionError(f"{custom_id_or_label!r} is disabled on message {message.id}")
        data: dict[str, Any] = {"custom_id": component["custom_id"], "component_type": component["type"]}
        if component["type"] != 2:
            allowed = [o["value"] for o in component.get("options", [])]
            for value in values or []:
                if allowed and value not in allowed:
                    raise AssertionError(f"{value!r} is not an option of {custom_id_or_label!r}: {allowed}")
            data["values"] = list(values or [])
        elif values is not None:
            raise AssertionError("a button takes no values")
        channel = self.fake.channels[message.channel_id]
        record = self.fake.interaction_payload(3, data, user=user, channel=channel, message=message)
        return await self._send(record)

    def _where(self, guild: FakeGuild | None, channel: FakeChannel | None, user: FakeUser) -> FakeChannel:
        if channel is None:
            if guild is not None:
                raise AssertionError("a guild command needs a channel")
            return self.fake.dm_channel(user)
        if guild is not None and channel.guild_id != guild.id:
            raise AssertionError(f"#{channel.name} is not in {guild.name}")
        return channel

    async def _send(self, record: InteractionRecord) -> Answer:
        seen = self._seen.setdefault(record.id, asyncio.Event())
        await self.fake.dispatch("INTERACTION_CREATE", record.payload)
        await self._settle(record, seen)
        if record.callback is None:
            raise AssertionError(unanswered(record))
        return Answer(record, self.fake.message_log[record.first_message_index :], self.fake)

    async def _settle(self, record: InteractionRecord, seen: asyncio.Event) -> None:
        """Wait until the bot received the interaction and every task it started for it has finished,
        the GM modifier holds a refused roll gives back in the background included."""
        received = asyncio.ensure_future(seen.wait())
        done, _ = await asyncio.wait({received, self.task}, timeout=WAIT, return_when=asyncio.FIRST_COMPLETED)
        if received not in done:
            received.cancel()
            raise AssertionError("the bot never received the interaction (did it crash?)")
        me = asyncio.current_task()
        while True:
            pending = [
                t
                for t in asyncio.all_tasks()
                if t is not me and not t.done() and HANDLER_TASKS.match(t.get_name())
            ]
            if not pending:
                await asyncio.wait_for(self.bot.store.modifiers.given_back(), WAIT)
                return
            _, still = await asyncio.wait(pending, timeout=WAIT)
            if still:
                raise AssertionError(f"the bot is still busy after {WAIT}s: {[t.get_name() for t in still]}")

    async def _on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        self._seen.setdefault(interaction.id, asyncio.Event()).set()

    # -- errors and teardown ----------------------------------------------------------------------------
    def take_errors(self) -> list[logging.LogRecord]:
        """The ERROR records so far (a test that provokes an error takes them, so teardown does not fail)."""
        taken, self.errors.records[:] = list(self.errors.records), []
        return taken

    async def stop(self) -> None:
        await self.bot.close()
        with contextlib.suppress(asyncio.CancelledError, discord.ConnectionClosed):
            await asyncio.wait_for(self.task, WAIT)


async def start_bot(
    fake: FakeDiscord,
    tmp_path: Path,
    *,
    seed: int | None = 1234,
    cogs: Sequence[str] = COGS,
    dev_guild_id: int | None = None,
    database: Path | None = None,
    force_sync: bool = False,
    shard_count: int | None = None,
    shard_ids: Sequence[int] | None = None,
) -> Harness:
    """Start the real bot class in-process against ``fake`` and wait until it is ready (every shard)."""
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        discord_token=SecretStr(TOKEN),
        database_path=database or tmp_path / "bot.db",
        discord_api_base=fake.api_base,
        dice_seed=seed,
        dev_guild_id=dev_guild_id,
        force_sync=force_sync,
        log_level="DEBUG",
        shard_count=shard_count,
        shard_ids=tuple(shard_ids) if shard_ids is not None else None,
    )
    errors = ErrorCollector()
    logging.getLogger().addHandler(errors)
    bot = TabletopBot(settings, cogs=cogs, guild_ready_timeout=0.05)
    task = asyncio.create_task(bot.start(TOKEN), name="test-bot")
    harness = Harness(fake, bot, task, errors)
    bot.add_listener(harness._on_interaction, "on_interaction")
    ready = asyncio.ensure_future(bot.wait_until_ready())
    done, _ = await asyncio.wait({ready, task}, timeout=WAIT, return_when=asyncio.FIRST_COMPLETED)
    if ready not in done:
        ready.cancel()
        if task.done():
            task.result()  # re-raise why the bot could not start
        raise AssertionError("the bot did not become ready")
    return harness


# -- the bot as a subprocess (restart tests) ------------------------------------------------------------
def subprocess_env(
    fake: FakeDiscord,
    database: Path,
    *,
    seed: int | None = 1234,
    log_level: str = "INFO",
    source: Path | None = None,
    **env: str,
) -> dict[str, str]:
    """The environment of a `python -m bot` child against ``fake``: the caller's own, less any setting of
    the bot's (a developer's DISCORD_TOKEN or DATABASE_URL must never reach a test), then ours.

    ``seed`` None: dice from the system's generator; ``source``: the tree the bot's code is imported from
    (another commit's, for an A/B; default this one); ``env``: more settings, last.
    """
    import os

    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DISCORD_", "DEV_GUILD", "DICE_", "DATABASE_"))
    }
    clean |= {
        "PYTHONPATH": str(source if source is not None else Path(__file__).resolve().parents[3]),
        "DISCORD_TOKEN": TOKEN,
        "DISCORD_API_BASE": fake.api_base,
        "DATABASE_PATH": str(database),
        "LOG_LEVEL": log_level,
    }
    if seed is not None:
        clean["DICE_SEED"] = str(seed)
    return clean | env


SUBPROCESS_BOOT = "import runpy; runpy.run_module('bot', run_name='__main__', alter_sys=True)"
QUIET = 0.5  # a subprocess's tasks are invisible: it is done when it sent nothing for this long


def answer_message(record: InteractionRecord) -> FakeMessage | None:
    """The message the user got as the answer: the response (the deferred one once filled); or, when an
    acknowledgement came first (a slow answer, `bot.ui.reply.guard_deadline`) and the answer followed as a
    message of its own, that message. None while there is none (a "thinking" not yet filled)."""
    original = record.original
    if original is None:
        return None
    if record.callback_type == DEFERRED_UPDATE or original.deleted:
        for message in record.followups:
            if not message.deleted:
                return message
    return None if original.loading or original.deleted else original


def edited_in_place(record: InteractionRecord) -> bool:
    """A click answered by editing its own message: in its callback, or after an acknowledgement (a
    sentence for the clicker alone may follow either way)."""
    if record.callback_type == UPDATE_MESSAGE:
        return True
    return record.callback_type == DEFERRED_UPDATE and record.original_edits > 0


def _completed(record: InteractionRecord) -> bool:
    """Whether an acknowledged interaction got its answer: the "thinking" filled or replaced, a deferred
    click's message edited or followed up. (Every other callback is an answer itself.)"""
    if record.callback_type == DEFERRED_MESSAGE:
        assert record.original is not None
        return not record.original.loading or record.original.deleted
    if record.callback_type == DEFERRED_UPDATE:
        return record.original_edits > 0 or bool(record.followups)
    return True


class SubprocessBot(Harness):
    """`python -m bot` in a child process against ``fake``; same slash/click/autocomplete as `Harness`.

    ``await SubprocessBot.launch(fake, database)`` starts it; ``await sub.stop()`` sends SIGTERM (a clean
    shutdown); ``await sub.kill()`` kills it outright (a crash). The log is in ``sub.log`` after it stopped.
    """

    process: asyncio.subprocess.Process
    log: str = ""
    log_path: Path | None = None

    @classmethod
    async def launch(
        cls, fake: FakeDiscord, database: Path, *, seed: int = 1234, log_path: Path | None = None, **env: str
    ) -> SubprocessBot:
        import sys

        clean = subprocess_env(fake, database, seed=seed) | env  # (upper-case names: none is a keyword of it)
        fake.connected.clear()
        # a busy DEBUG log would fill a pipe nobody reads until the end: ``log_path`` sends it to a file
        log_file = log_path.open("ab") if log_path is not None else None
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                SUBPROCESS_BOOT,
                cwd=database.parent,
                env=clean,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=log_file if log_file is not None else asyncio.subprocess.PIPE,
            )
        finally:
            if log_file is not None:
                log_file.close()
        waiter = asyncio.ensure_future(fake.connected.wait())
        exited = asyncio.ensure_future(process.wait())
        done, _ = await asyncio.wait({waiter, exited}, timeout=WAIT, return_when=asyncio.FIRST_COMPLETED)
        if waiter not in done:
            waiter.cancel()
            stderr = (await process.stderr.read()).decode() if process.stderr and exited in done else ""
            if log_path is not None:
                stderr = log_path.read_text(errors="replace")
            raise AssertionError(f"the subprocess bot did not connect: {stderr[-2000:]}")
        exited.cancel()
        sub = cls.__new__(cls)
        sub.fake, sub.errors, sub._seen = fake, ErrorCollector(), {}
        sub.process = process
        sub.log_path = log_path
        return sub

    async def _send(self, record: InteractionRecord) -> Answer:
        await self.fake.dispatch("INTERACTION_CREATE", record.payload)
        try:
            await asyncio.wait_for(record.answered.wait(), WAIT)
        except TimeoutError:
            raise AssertionError(unanswered(record)) from None
        waited = 0.0
        while not _completed(record):  # acknowledged first: the answer itself may be seconds behind
            if waited > WAIT:
                raise AssertionError(f"the bot acknowledged {record.payload.get('data')} and never answered")
            await asyncio.sleep(0.02)
            waited += 0.02
        while True:  # follow-ups may still come: wait until the bot has been quiet for a moment
            seen = len(self.fake.requests)
            await asyncio.sleep(QUIET)
            if len(self.fake.requests) == seen:
                break
        return Answer(record, self.fake.message_log[record.first_message_index :], self.fake)

    async def stop(self) -> None:
        """Stop cleanly (SIGTERM) and keep the log; ERROR lines in it fail like in-process errors."""
        if self.process.returncode is None:
            self.process.terminate()
        await self._collect()

    async def kill(self) -> None:
        """Stop abruptly, as a crash would."""
        if self.process.returncode is None:
            self.process.kill()
        await self._collect()

    async def _collect(self) -> None:
        if self.process.stderr is not None:
            self.log += (await asyncio.wait_for(self.process.stderr.read(), WAIT)).decode()
        await asyncio.wait_for(self.process.wait(), WAIT)
        if self.log_path is not None:
            self.log = self.log_path.read_text(errors="replace")

    def error_lines(self) -> list[str]:
        """The ERROR lines of the subprocess's log."""
        return [line for line in self.log.splitlines() if " ERROR " in line]
