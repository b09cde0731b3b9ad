"""A fake Discord on 127.0.0.1: REST under /api/v10 and a JSON gateway, enough for discord.py 2.7 bots.

Every request body the bot sends is checked against Discord's OpenAPI description; a violation is recorded
(and the e2e fixtures fail the test on any). Interactions are built from the commands the bot synced.
As on Discord, a callback later than 3 s after INTERACTION_CREATE, or a follow-up or an edit through the
interaction's token later than 15 minutes, is refused with 404 10062 (the clock is injectable).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord
import orjson
from aiohttp import BodyPartReader, WSMsgType, web

from bot.local.fake.schema import Violation, validator
from bot.local.fake.world import (
    ADMINISTRATOR,
    EPHEMERAL,
    EVERYONE_PERMISSIONS,
    LOADING,
    MANAGE_GUILD,
    USE_APPLICATION_COMMANDS,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    snowflake,
)

API = "/api/v10"
COMMAND_NAME = re.compile(r"^[-_\w]{1,32}$")
ARRIVED = web.RequestKey("arrived", float)  # time.monotonic() when a REST request reached the fake
ARRIVED_CLOCK = web.RequestKey("arrived_clock", float)  # the fake's clock (`FakeDiscord.now`) then
CALLBACK_DEADLINE = 3.0  # seconds Discord waits for the first callback
TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction token takes follow-ups and edits

# Interaction callback types
PONG, MESSAGE, DEFERRED_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, AUTOCOMPLETE_RESULT, MODAL = (
    1,
    4,
    5,
    6,
    7,
    8,
    9,
)

# Application command option types
(
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    STRING,
    INTEGER,
    BOOLEAN,
    USER,
    CHANNEL,
    ROLE,
    MENTIONABLE,
    NUMBER,
    ATTACHMENT,
) = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)


# Interaction types
APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE = 2, 3, 4


class CommandUnavailable(AssertionError):
    """The user cannot invoke this command there (Discord does not even list it): nothing was sent."""


class FakeHTTPError(Exception):
    """Answer a request with this status and Discord error body."""

    def __init__(self, status: int, code: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


# Route patterns for `FakeDiscord.fail` and `FakeDiscord.delay`: "METHOD path-regex", searched in the path
# without /api/v10; "*" matches any method. {id} is any snowflake, {token} an interaction token, {dm} the
# id of a DM channel (checked when a request arrives, so DMs opened later count).
CALLBACK_ROUTE = r"POST ^/interactions/{id}/{token}/callback$"
FOLLOWUP_ROUTE = r"POST ^/webhooks/{id}/{token}$"
EDIT_ORIGINAL_ROUTE = r"PATCH ^/webhooks/{id}/{token}/messages/@original$"
CHANNEL_POST_ROUTE = r"POST ^/channels/{id}/messages$"
DM_POST_ROUTE = r"POST ^/channels/{dm}/messages$"
DM_OPEN_ROUTE = r"POST ^/users/@me/channels$"
PLACEHOLDERS = {"{id}": r"\d+", "{token}": r"[^/]+", "{dm}": r"(?P<dm>\d+)"}

STATUS_MESSAGES = {
    429: "You are being rate limited.",
    500: "500: Internal Server Error",
    502: "502: Bad Gateway",
    503: "503: Service Unavailable",
    504: "504: Gateway Timeout",
}


def posts_to(channel: FakeChannel) -> str:
    """The route pattern of messages posted to ``channel`` (to make that channel slow or failing)."""
    return rf"POST ^/channels/{channel.id}/messages$"


def route_pattern(method: str, path_regex: str | None = None) -> tuple[str, re.Pattern[str]]:
    r"""``("POST", r"^/channels/\d+/messages$")`` or ``("POST ^/channels/{dm}/messages$",)``: a method and a
    compiled path regex (the placeholders expanded)."""
    if path_regex is None:
        method, _, path_regex = method.strip().partition(" ")
        if method.startswith(("/", "^")):  # no method: any
            method, path_regex = "*", method + (" " + path_regex if path_regex else "")
    for name, regex in PLACEHOLDERS.items():
        path_regex = path_regex.replace(name, regex)
    return method.upper(), re.compile(path_regex.strip())


@dataclass
class RouteRule:
    """What a fault or a delay applies to: a method, a path, optionally only uploads; ``times`` at most."""

    method: str
    path: re.Pattern[str]
    times: int | None  # None = forever
    hits: int = field(default=0, kw_only=True)
    uploads: bool | None = field(default=None, kw_only=True)  # True: only multipart requests with files

    def applies(self, method: str, path: str, uploads: bool, channels: dict[int, FakeChannel]) -> bool:
        if self.method not in ("*", method) or (self.times is not None and self.hits >= self.times):
            return False
        if self.uploads is not None and self.uploads != uploads:
            return False
        matched = self.path.search(path)
        if matched is None:
            return False
        if "dm" in self.path.groupindex:
            channel = channels.get(int(matched["dm"]))
            return channel is not None and channel.is_dm
        return True


@dataclass
class Fault(RouteRule):
    """An error the fake answers instead of the real thing (for reliability tests)."""

    status: int = 500
    code: int = 0
    message: str = ""
    retry_after: float | None = None
    after: bool = False  # carry the request out, then answer the error (the response was lost on the way)
    is_global: bool = False  # a 429 of the global rate limit, not of the route's bucket
    scope: str = "user"  # X-RateLimit-Scope of a 429: user, global or shared
    bucket: str = field(default_factory=lambda: secrets.token_hex(16))
    limit: int = 5  # X-RateLimit-Limit of a 429


@dataclass
class Delay(RouteRule):
    """Discord being slow on a route: each matching request waits ``seconds`` before it is carried out."""

    seconds: float = 0.0


GUILD_EVENTS = frozenset({"GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE"})  # the guild is the data's "id"
# GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT: Discord closes 4014 unless switched on for the app
PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | (1 << 15)


@dataclass(eq=False)
class GatewaySession:
    """One gateway connection: the shard it identified as, its sequence number, whether READY went out."""

    ws: web.WebSocketResponse
    shard_id: int = 0
    shard_count: int = 1
    intents: int = 0
    seq: int = 0
    session_id: str = ""
    ready: bool = False

    def owns(self, guild_id: int | None) -> bool:
        """Whether this shard gets the events of ``guild_id`` (None: DMs, which go to shard 0)."""
        if guild_id is None:
            return self.shard_id == 0
        return (guild_id >> 22) % self.shard_count == self.shard_id


@dataclass
class InteractionRecord:
    """One interaction the fake sent, and everything the bot answered to it."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    guild: FakeGuild | None
    payload: dict[str, Any]
    callback: dict[str, Any] | None = None
    callbacks: int = 0
    asked_for_message: bool = False  # the callback asked for its message back (with_response)
    original: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    followup_waits: list[bool] = field(default_factory=list)  # per follow-up: did the bot ask for it back
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    first_message_index: int = 0
    # time.monotonic() when the INTERACTION_CREATE frame was written / the first callback request arrived
    dispatched_at: float | None = None
    callback_at: float | None = None
    # the payload as JSON, when a load generator encoded it ahead of its burst (`encode_ahead`)
    encoded: str | None = None
    # the fake's clock (`FakeDiscord.now`) when INTERACTION_CREATE was written: the deadlines count from it
    dispatched_clock: float | None = None
    # seconds after INTERACTION_CREATE of a callback refused for coming too late (None: none was)
    late_callback: float | None = None
    # edits of the response message through the token (how a deferred click edits its message), and the
    # last one's body
    original_edits: int = 0
    original_edit: dict[str, Any] | None = None

    def encode_ahead(self) -> None:
        """Encode the payload now, so dispatching it spends no CPU on that (benchmarks: the encoding is the
        load generator's work, not the bot's); the payload must not change after this."""
        self.encoded = _dumps(self.payload).decode()

    @property
    def callback_type(self) -> int | None:
        return None if self.callback is None else self.callback["type"]


class FakeDiscord:
    """The server. ``await fake.start()`` then point the bot at ``fake.api_base``.

    ``clock`` (default ``time.monotonic``) times the interaction deadlines: ``callback_deadline`` seconds
    for the first callback, ``token_lifetime`` for follow-ups and edits; ``advance_clock`` jumps ahead.
    ``shards`` is the shard count ``GET /gateway/bot`` recommends (None: as few as the guilds need); each
    gateway connection gets the events of the guilds of the shard it identified as. ``validate=False``: no
    schema checks (the local table: jsonschema and the OpenAPI file may be absent).
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        callback_deadline: float = CALLBACK_DEADLINE,
        token_lifetime: float = TOKEN_LIFETIME,
        shards: int | None = None,
        validate: bool = True,
    ) -> None:
        self.validate = validate
        self.clock = clock
        self.clock_offset = 0.0
        self.callback_deadline = callback_deadline
        self.token_lifetime = token_lifetime
        self.app_id = snowflake()
        self.bot_user = FakeUser(self.app_id, "tabletop", bot=True)
        self.users: dict[int, FakeUser] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.message_log: list[FakeMessage] = []  # every message created, in order
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.command_syncs: list[tuple[int | None, list[dict[str, Any]]]] = []
        # (guild id, command name) -> {role, user, channel or guild (@everyone) id: allowed}
        self.command_permissions: dict[tuple[int, str], dict[int, bool]] = {}
        self.interactions: dict[str, InteractionRecord] = {}
        self.requests: list[tuple[str, str, Any]] = []
        self.violations: list[Violation] = []
        self.faults: list[Fault] = []
        self.delays: list[Delay] = []
        self.identify_payloads: list[dict[str, Any]] = []
        self.attachments: dict[int, FakeAttachment] = {}
        self.sessions: list[GatewaySession] = []  # open gateway connections, oldest first
        self._session_ready = asyncio.Event()  # pulsed when a connection received READY
        self.shards = shards
        self.guilds_per_shard = 2500  # Discord closes 4011 when a shard would hold more
        self.privileged_intents = 0  # the privileged intents switched on for the app (Developer Portal)
        self.session_start_limit = {
            "total": 1000,
            "remaining": 1000,
            "reset_after": 86_400_000,
            "max_concurrency": 1,
        }
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.connected = asyncio.Event()
        self.request_hooks: list[Callable[[str, str, Any], Awaitable[None]]] = []
        self._route_table = self._routes()  # once: rebuilt per request it was the load generator's CPU

    # -- lifecycle --------------------------------------------------------------------------------------
    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway/", self._gateway)  # the trailing slash, as wss://gateway.discord.gg/
        app.router.add_get("/attachments/{id}/{filename}", self._attachment)
        app.router.add_route("*", API + "/{tail:.*}", self._rest)
        # requests still open at stop (a bot's gateway, a slow route) are cut after a moment, not a minute
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]  # port 0 above: the one the system chose

    async def stop(self) -> None:
        for session in list(self.sessions):
            await session.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_base(self) -> str:
        """What DISCORD_API_BASE should be for a bot to use this fake."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway/"

    # -- time -------------------------------------------------------------------------------------------
    def now(self) -> float:
        """The fake's clock: ``clock()`` plus whatever ``advance_clock`` added."""
        return self.clock() + self.clock_offset

    def advance_clock(self, seconds: float) -> None:
        """Move the fake's clock ahead (a test need not wait 15 minutes for a token to expire)."""
        self.clock_offset += seconds

    # -- building the world -----------------------------------------------------------------------------
    def add_user(self, username: str, *, blocks_dms: bool = False) -> FakeUser:
        user = FakeUser(snowflake(), username, blocks_dms=blocks_dms)
        self.users[user.id] = user
        return user

    def add_guild(self, name: str, owner: FakeUser | None = None) -> FakeGuild:
        guild_id = snowflake()
        owner = owner or self.add_user(f"{name.lower().replace(' ', '-')}-owner")
        guild = FakeGuild(guild_id, name, owner.id, FakeRole(guild_id, "@everyone", EVERYONE_PERMISSIONS, 0))
        self.guilds[guild_id] = guild
        self.add_member(guild, owner)
        self.add_channel(guild, "general")
        return guild

    def add_channel(self, guild: FakeGuild, name: str) -> FakeChannel:
        channel = FakeChannel(snowflake(), name, guild.id)
        guild.channels[channel.id] = channel
        self.channels[channel.id] = channel
        return channel

    def add_role(
        self, guild: FakeGuild, name: str, *, manage_guild: bool = False, permissions: int = 0
    ) -> FakeRole:
        role = FakeRole(
            snowflake(), name, permissions | (MANAGE_GUILD if manage_guild else 0), len(guild.roles) + 1
        )
        guild.roles[role.id] = role
        return role

    async def create_guild(self, name: str, owner: FakeUser | None = None) -> FakeGuild:
        """Add a guild while the bot is connected (the bot is invited: GUILD_CREATE on its shard)."""
        guild = self.add_guild(name, owner)
        if self._session_for(guild.id) is not None:
            await self.dispatch("GUILD_CREATE", guild.payload(FakeMember(self.bot_user, guild)))
        return guild

    async def create_role(self, guild: FakeGuild, name: str, *, manage_guild: bool = False) -> FakeRole:
        """Add a role while the bot is connected (Discord tells the bot with GUILD_ROLE_CREATE)."""
        role = self.add_role(guild, name, manage_guild=manage_guild)
        await self.dispatch("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.payload()})
        return role

    async def update_channel(self, channel: FakeChannel) -> None:
        """Tell the connected bot a guild channel changed (its overwrites): Discord's CHANNEL_UPDATE."""
        assert channel.guild_id is not None, "a DM channel is not updated this way"
        await self.dispatch("CHANNEL_UPDATE", channel.payload(), guild_id=channel.guild_id)

    def add_member(self, guild: FakeGuild, user: FakeUser, roles: list[FakeRole] | None = None) -> FakeMember:
        member = FakeMember(user, guild, list(roles or []))
        guild.members[user.id] = member
        return member

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (made on first use)."""
        for channel in self.channels.values():
            if channel.is_dm and channel.recipient is user:
                return channel
        channel = FakeChannel(snowflake(), f"dm-{user.username}", None, 1, user)
        self.channels[channel.id] = channel
        return channel

    def attachment(
        self, filename: str, data: bytes, content_type: str = "application/json"
    ) -> FakeAttachment:
        """A file a user uploads with a command (for attachment options)."""
        att = FakeAttachment(snowflake(), filename, data, content_type)
        att.url = f"{self.api_base}/attachments/{att.id}/{filename}"
        self.attachments[att.id] = att
        return att

    # -- faults and delays ------------------------------------------------------------------------------
    def fail(
        self,
        method: str,
        path_regex: str | None = None,
        *,
        status: int = 500,
        code: int = 0,
        message: str | None = None,
        times: int | None = 1,
        retry_after: float | None = None,
        after: bool = False,
        is_global: bool = False,
        scope: str | None = None,
        bucket: str | None = None,
        limit: int = 5,
        uploads: bool | None = None,
    ) -> Fault:
        """Answer the next ``times`` matching requests (None: all of them) with an error.

        The route is ``method, path_regex`` or one pattern ``"POST ^/channels/{dm}/messages$"`` (see
        `route_pattern`; the path is searched without /api/v10). A 429 carries ``retry_after`` in its body
        and the ``Retry-After`` and ``X-RateLimit-*`` headers Discord sends (``is_global``: the global limit;
        ``scope``, ``bucket``, ``limit`` as in those headers); a 5xx carries ``code`` and ``message``.
        ``after``: carry each request out first, then answer the error (as when Discord applied it but the
        answer was lost), so a client that retries sends it twice. ``uploads``: only requests with files.
        """
        route_method, path = route_pattern(method, path_regex)
        fault = Fault(
            route_method,
            path,
            times,
            uploads=uploads,
            status=status,
            code=code,
            message=message if message is not None else STATUS_MESSAGES.get(status, f"{status}: Error"),
            retry_after=retry_after,
            after=after,
            is_global=is_global,
            scope=scope or ("global" if is_global else "user"),
            limit=limit,
        )
        if bucket is not None:
            fault.bucket = bucket
        self.faults.append(fault)
        return fault

    def rate_limit(
        self,
        method: str,
        path_regex: str | None = None,
        *,
        retry_after: float = 0.05,
        times: int | None = 1,
        is_global: bool = False,
    ) -> Fault:
        """Answer 429 with ``retry_after`` the next ``times`` matching requests."""
        return self.fail(
            method, path_regex, status=429, times=times, retry_after=retry_after, is_global=is_global
        )

    def delay(
        self,
        method: str,
        path_regex: str | None = None,
        *,
        seconds: float,
        times: int | None = None,
        uploads: bool | None = None,
    ) -> Delay:
        """Make matching requests (all, or the next ``times``) wait ``seconds`` before they are carried out:
        Discord slow on a route (DMs, posts to another channel, uploads). Routes as for `fail`."""
        route_method, path = route_pattern(method, path_regex)
        delay = Delay(route_method, path, times, uploads=uploads, seconds=seconds)
        self.delays.append(delay)
        return delay

    def _rule_for(self, rules: list[Any], method: str, path: str, uploads: bool) -> Any:
        for rule in rules:
            if rule.applies(method, path, uploads, self.channels):
                rule.hits += 1
                return rule
        return None

    def _fault_for(self, method: str, path: str, uploads: bool = False) -> Fault | None:
        return self._rule_for(self.faults, method, path, uploads)  # type: ignore[no-any-return]

    # -- gateway ----------------------------------------------------------------------------------------
    @property
    def recommended_shards(self) -> int:
        """The ``shards`` of ``GET /gateway/bot``: as set, or what Discord requires for the guilds."""
        return self.shards if self.shards is not None else self.required_shards

    @property
    def required_shards(self) -> int:
        """The fewest shards Discord accepts (one per ``guilds_per_shard`` guilds)."""
        return max(1, math.ceil(len(self.guilds) / self.guilds_per_shard))

    @property
    def ready_shards(self) -> list[tuple[int, int]]:
        """``(shard id, shard count)`` of every connection that received READY, in connection order."""
        return [(s.shard_id, s.shard_count) for s in self.sessions if s.ready]

    async def wait_for_shards(self, count: int, timeout: float = 30.0) -> None:
        """Wait until ``count`` different shard ids are connected and ready."""
        async with asyncio.timeout(timeout):
            while len({shard for shard, _ in self.ready_shards}) < count:
                self._session_ready.clear()
                await self._session_ready.wait()

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        version, encoding = request.query.get("v"), request.query.get("encoding", "json")
        if version != "10":
            await ws.close(code=4012, message=b"Invalid API version")
            return ws
        if encoding != "json":
            await ws.close(code=4002, message=b"Decode error: the fake speaks JSON only")
            return ws
        session = GatewaySession(ws)
        self.sessions.append(session)
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41250}, "s": None, "t": None})
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                try:
                    frame = json.loads(msg.data)
                    op = frame["op"]
                except (ValueError, KeyError, TypeError):
                    await ws.close(code=4002, message=b"Decode error")
                    break
                if op == 1:
                    await ws.send_json({"op": 11, "d": None, "s": None, "t": None})
                elif op == 2:
                    await self._identify(session, frame.get("d"))
                elif op == 6:  # RESUME: make it identify afresh
                    await ws.send_json({"op": 9, "d": False, "s": None, "t": None})
                elif op not in (3, 4, 8):  # presence, voice state and member requests are accepted
                    await ws.close(code=4001, message=b"Unknown opcode")
                elif not session.ready:
                    await ws.close(code=4003, message=b"Not authenticated")
        finally:
            self.sessions.remove(session)
            if not any(s.ready for s in self.sessions):
                self.connected.clear()
        return ws

    async def _identify(self, session: GatewaySession, data: Any) -> None:
        """IDENTIFY as Discord checks it: the shard, the shard count the guilds need, privileged intents."""
        ws = session.ws
        if session.ready:
            await ws.close(code=4005, message=b"Already authenticated")
            return
        if not (
            isinstance(data, dict)
            and isinstance(data.get("token"), str)
            and isinstance(data.get("properties"), dict)
            and isinstance(data.get("intents"), int)
        ):
            await ws.close(code=4002, message=b"Decode error: IDENTIFY needs token, properties, intents")
            return
        self.identify_payloads.append(data)
        shard = data.get("shard", [0, 1])
        if not (
            isinstance(shard, list)
            and len(shard) == 2
            and all(isinstance(n, int) for n in shard)
            and 0 <= shard[0] < shard[1]
        ):
            await ws.close(code=4010, message=b"Invalid shard")
            return
        if shard[1] < self.required_shards:
            await ws.close(code=4011, message=b"Sharding required")
            return
        if data["intents"] & PRIVILEGED_INTENTS & ~self.privileged_intents:
            await ws.close(code=4014, message=b"Disallowed intent(s)")
            return
        self.session_start_limit["remaining"] = max(0, self.session_start_limit["remaining"] - 1)
        session.shard_id, session.shard_count, session.intents = shard[0], shard[1], data["intents"]
        await self._ready(session)

    async def _ready(self, session: GatewaySession) -> None:
        session.seq = 0
        session.session_id = secrets.token_hex(16)
        guilds = [g for g in self.guilds.values() if session.owns(g.id)]
        ready = {
            "v": 10,
            "user": self.bot_user.payload(),
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "resume_gateway_url": self.gateway_url,
            "shard": [session.shard_id, session.shard_count],
            "application": {"id": str(self.app_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "user_settings": {},
            "guild_join_requests": [],
            "presences": [],
        }
        await self._dispatch_on(session, "READY", ready)
        for guild in guilds:
            bot_member = FakeMember(self.bot_user, guild)
            await self._dispatch_on(session, "GUILD_CREATE", guild.payload(bot_member))
        session.ready = True
        self.connected.set()
        self._session_ready.set()

    async def _dispatch_on(
        self,
        session: GatewaySession,
        event: str,
        data: dict[str, Any],
        record: InteractionRecord | None = None,
    ) -> None:
        session.seq += 1
        if record is not None and record.encoded is not None and data is record.payload:
            text = f'{{"op":0,"t":"{event}","s":{session.seq},"d":{record.encoded}}}'
        else:
            text = _dumps({"op": 0, "t": event, "s": session.seq, "d": data}).decode()
        if record is not None:  # stamped after encoding, right before the write (for latency benchmarks)
            record.dispatched_at = time.monotonic()
            record.dispatched_clock = self.now()
        await session.ws.send_str(text)

    def _session_for(self, guild_id: int | None) -> GatewaySession | None:
        for session in reversed(self.sessions):  # the newest connection of a shard gets its events
            if session.ready and session.owns(guild_id):
                return session
        return None

    async def dispatch(self, event: str, data: dict[str, Any], *, guild_id: int | None = None) -> None:
        """Send a gateway event to the bot, on the connection of the shard its guild belongs to
        (``(guild_id >> 22) % shard_count``; DMs and guild-less events: shard 0). The guild is read from
        the event (``guild_id``, or ``id`` for GUILD_CREATE/UPDATE/DELETE) unless given."""
        if guild_id is None:
            raw = data.get("id") if event in GUILD_EVENTS else data.get("guild_id")
            guild_id = int(raw) if raw is not None else None
        session = self._session_for(guild_id)
        if session is None:  # (a wait_for's task per event was the load generator's CPU: only when needed)
            async with asyncio.timeout(30):
                while (session := self._session_for(guild_id)) is None:
                    self._session_ready.clear()
                    await self._session_ready.wait()
        record = self.interactions.get(data.get("token", "")) if event == "INTERACTION_CREATE" else None
        await self._dispatch_on(session, event, data, record)

    # -- REST -------------------------------------------------------------------------------------------
    async def _attachment(self, request: web.Request) -> web.Response:
        att = self.attachments.get(int(request.match_info["id"]))
        if att is None:
            return web.Response(status=404)
        return web.Response(body=att.data, headers={"Content-Type": att.content_type})

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        arrived = time.monotonic()
        request[ARRIVED_CLOCK] = self.now()
        path = "/" + request.match_info["tail"]
        method = request.method
        try:
            body, files = await self._read_body(request)
        except ValueError as err:
            self.violations.append(Violation(method, path, f"unreadable body: {err}"))
            return _json({"message": "400: Bad Request", "code": 50109}, status=400)
        self.requests.append((method, path, body))
        request[ARRIVED] = arrived
        for hook in self.request_hooks:
            await hook(method, path, body)
        problems = (
            validator().check(method, path, body, query=request.query, files=bool(files))
            if self.validate
            else []
        )
        if not problems:  # one refusal names what the schema found; the rest beyond it come after
            problems = self._extra_checks(method, path, body, files=bool(files))
        if problems:
            self.violations.extend(problems)
            errors = {"_errors": [{"code": "BASE_TYPE_INVALID", "message": str(p)} for p in problems]}
            return _json({"message": "Invalid Form Body", "code": 50035, "errors": errors}, 400)
        if self.delays and (delay := self._rule_for(self.delays, method, path, bool(files))):
            await asyncio.sleep(delay.seconds)
        fault = self._fault_for(method, path, bool(files)) if self.faults else None
        if fault is not None and not fault.after:
            return _fault_response(fault)
        try:
            handler, params = self._route(method, path)
            result = await handler(request, body, files, *params)
        except FakeHTTPError as err:
            return _json({"message": err.message, "code": err.code}, err.status, err.headers)
        if fault is not None:
            return _fault_response(fault)
        if result is None:
            return web.Response(status=204)
        return _json(result)

    async def _read_body(self, request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
        if not request.can_read_body:
            return None, []
        ctype = request.headers.get("Content-Type", "")
        if ctype.startswith("multipart/form-data"):
            reader = await request.multipart()
            body: Any = None
            files: list[tuple[str, bytes]] = []
            names: list[str] = []
            while (part := await reader.next()) is not None:
                assert isinstance(part, BodyPartReader)  # Discord's bodies nest no multipart
                data = await part.read()
                if part.name == "payload_json":
                    body = json.loads(data)
                else:
                    names.append(part.name or "")
                    files.append((part.filename or part.name or "file", bytes(data)))
            self._check_uploads(request, body, names, files)
            return body, files
        raw = await request.read()
        if not raw:
            return None, []
        if not ctype.startswith("application/json"):
            raise ValueError(f"content type {ctype!r}")
        return _loads(raw), []

    def _check_uploads(
        self, request: web.Request, body: Any, names: list[str], files: list[tuple[str, bytes]]
    ) -> None:
        """Real Discord's multipart rules: each file part is ``files[n]``, not empty, and described by an
        ``attachments`` entry with id n and its filename; an embed's ``attachment://name`` is uploaded."""
        method, path = request.method, request.path
        payload = body if isinstance(body, dict) else {}
        if isinstance(payload.get("data"), dict) and "type" in payload:  # an interaction callback
            payload = payload["data"]
        described = {str(a.get("id")): a for a in payload.get("attachments") or [] if isinstance(a, dict)}
        uploaded = set()
        for name, (filename, data) in zip(names, files, strict=True):
            matched = re.fullmatch(r"files\[(\d+)\]", name)
            if matched is None:
                self.violations.append(Violation(method, path, f"file part named {name!r}, not files[n]"))
                continue
            entry = described.get(matched[1])
            if entry is None or entry.get("filename") != filename:
                self.violations.append(
                    Violation(method, path, f"{name} ({filename!r}) has no matching attachments entry")
                )
            if not data:
                self.violations.append(Violation(method, path, f"{name} ({filename!r}) is empty"))
            uploaded.add(filename)
        uploaded |= {str(a.get("filename")) for a in described.values()}  # kept ones count too
        for embed in payload.get("embeds") or []:
            for key in ("image", "thumbnail"):
                url = str((embed.get(key) or {}).get("url") or "")
                if url.startswith("attachment://") and url.removeprefix("attachment://") not in uploaded:
                    self.violations.append(Violation(method, path, f"embed {key} {url} was not uploaded"))

    def _extra_checks(self, method: str, path: str, body: Any, *, files: bool = False) -> list[Violation]:
        """Rules real Discord enforces that the OpenAPI schemas do not spell out."""
        out: list[Violation] = []
        if method == "PUT" and path.endswith("/commands") and isinstance(body, list):
            for command in body:
                for name in _all_names(command):
                    if not COMMAND_NAME.match(name) or name != name.lower():
                        out.append(
                            Violation(method, path, f"command or option name {name!r} is not lower-case")
                        )
        if not isinstance(body, dict):
            return out
        message: dict[str, Any] | None = None
        creating = method == "POST"
        if method == "POST" and path.endswith("/callback"):
            data: dict[str, Any] = body["data"] if isinstance(body.get("data"), dict) else {}
            if body.get("type") == 8:  # autocomplete: the schema lets a choice's value run to 6,000
                for choice in data.get("choices") or []:
                    value = choice.get("value") if isinstance(choice, dict) else None
                    if isinstance(value, str) and not 1 <= len(value) <= 100:
                        out.append(Violation(method, path, f"autocomplete value of {len(value)} characters"))
            elif body.get("type") in (4, 7):  # a message, or the clicked message's update
                message, creating = data, body.get("type") == 4
        elif re.fullmatch(r"/webhooks/\d+/[^/]+(/messages/[^/]+)?|/channels/\d+/messages(/\d+)?", path):
            message = body if method in ("POST", "PATCH") else None
        if message is not None:
            out += [
                Violation(method, path, problem) for problem in message_problems(message, creating, files)
            ]
        return out

    def _route(self, method: str, path: str) -> tuple[Callable[..., Awaitable[Any]], tuple[str, ...]]:
        for route_method, regex, handler in self._route_table:
            if route_method == method and (m := regex.fullmatch(path)):
                return handler, m.groups()
        self.violations.append(Violation(method, path, "the fake does not implement this route"))
        raise FakeHTTPError(404, 0, "404: Not Found")

    def _routes(self) -> list[tuple[str, re.Pattern[str], Callable[..., Awaitable[Any]]]]:
        table: list[tuple[str, str, Callable[..., Awaitable[Any]]]] = [
            ("GET", r"/users/@me", self._get_me),
            ("GET", r"/oauth2/applications/@me", self._get_application),
            ("GET", r"/gateway", self._get_gateway),
            ("GET", r"/gateway/bot", self._get_bot_gateway),
            ("PUT", r"/applications/(\d+)/commands", self._put_global_commands),
            ("GET", r"/applications/(\d+)/commands", self._get_global_commands),
            ("PUT", r"/applications/(\d+)/guilds/(\d+)/commands", self._put_guild_commands),
            ("GET", r"/applications/(\d+)/guilds/(\d+)/commands", self._get_guild_commands),
            ("POST", r"/interactions/(\d+)/([^/]+)/callback", self._callback),
            ("POST", r"/webhooks/(\d+)/([^/]+)", self._followup),
            ("GET", r"/webhooks/(\d+)/([^/]+)/messages/([^/]+)", self._get_webhook_message),
            ("PATCH", r"/webhooks/(\d+)/([^/]+)/messages/([^/]+)", self._edit_webhook_message),
            ("DELETE", r"/webhooks/(\d+)/([^/]+)/messages/([^/]+)", self._delete_webhook_message),
            ("POST", r"/channels/(\d+)/messages", self._create_message),
            ("GET", r"/channels/(\d+)/messages/(\d+)", self._get_message),
            ("PATCH", r"/channels/(\d+)/messages/(\d+)", self._edit_message),
            ("DELETE", r"/channels/(\d+)/messages/(\d+)", self._delete_message),
            ("GET", r"/channels/(\d+)", self._get_channel),
            ("POST", r"/users/@me/channels", self._create_dm),
            ("GET", r"/users/(\d+)", self._get_user),
            ("GET", r"/guilds/(\d+)/members/(\d+)", self._get_member),
        ]
        return [(m, re.compile(p), h) for m, p, h in table]

    # -- REST handlers ----------------------------------------------------------------------------------
    async def _get_me(self, *_: Any) -> dict[str, Any]:
        return self.bot_user.payload()

    async def _get_application(self, *_: Any) -> dict[str, Any]:
        owner = FakeUser(snowflake(), "app-owner")
        return {
            "id": str(self.app_id),
            "name": "Tabletop",
            "icon": None,
            "description": "",
            "summary": "",
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": owner.payload(),
            "verify_key": "0" * 64,
            "team": None,
            "flags": 0,
            "interactions_endpoint_url": None,
            "bot": self.bot_user.payload(),
        }

    async def _get_gateway(self, *_: Any) -> dict[str, Any]:
        return {"url": self.gateway_url}

    async def _get_bot_gateway(self, *_: Any) -> dict[str, Any]:
        return {
            "url": self.gateway_url,
            "shards": self.recommended_shards,
            "session_start_limit": dict(self.session_start_limit),
        }

    def _commands_out(self, body: list[dict[str, Any]], guild_id: int | None) -> list[dict[str, Any]]:
        out = []
        for command in body:
            stored = dict(command)
            stored.setdefault("type", 1)
            stored["id"] = str(snowflake())
            stored["application_id"] = str(self.app_id)
            stored["version"] = str(snowflake())
            stored.setdefault("description", "")
            stored.setdefault("default_member_permissions", None)
            if guild_id is not None:
                stored["guild_id"] = str(guild_id)
            out.append(stored)
        return out

    async def _put_global_commands(self, _r: Any, body: Any, _f: Any, app: str) -> list[dict[str, Any]]:
        self.global_commands = self._commands_out(body or [], None)
        self.command_syncs.append((None, body or []))
        return self.global_commands

    async def _get_global_commands(self, *_: Any) -> list[dict[str, Any]]:
        return self.global_commands

    async def _put_guild_commands(
        self, _r: Any, body: Any, _f: Any, app: str, guild: str
    ) -> list[dict[str, Any]]:
        self.guild_commands[int(guild)] = self._commands_out(body or [], int(guild))
        self.command_syncs.append((int(guild), body or []))
        return self.guild_commands[int(guild)]

    async def _get_guild_commands(
        self, _r: Any, _b: Any, _f: Any, app: str, guild: str
    ) -> list[dict[str, Any]]:
        return self.guild_commands.get(int(guild), [])

    def _record(self, token: str) -> InteractionRecord:
        record = self.interactions.get(token)
        if record is None:
            raise FakeHTTPError(404, 10062, "Unknown interaction")
        return record

    def _live_record(self, request: web.Request, token: str) -> InteractionRecord:
        """The interaction of a webhook route's token, refused as Discord does once the token expired."""
        record = self._record(token)
        if record.dispatched_clock is not None:
            age = request[ARRIVED_CLOCK] - record.dispatched_clock
            if age > self.token_lifetime:
                where = re.sub(r"/webhooks/(\d+)/[^/]+", r"/webhooks/\1/...", request.path.removeprefix(API))
                self.violations.append(
                    Violation(request.method, where, f"interaction token used {age:.0f} s after it was sent")
                )
                raise FakeHTTPError(404, 10062, "Unknown interaction")
        return record

    def _new_message(
        self,
        channel: FakeChannel,
        body: dict[str, Any] | None,
        files: list[tuple[str, bytes]],
        *,
        record: InteractionRecord | None = None,
        flags: int = 0,
    ) -> FakeMessage:
        body = body or {}
        message = FakeMessage(
            id=snowflake(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=self.bot_user,
            flags=flags | (int(body.get("flags") or 0) & EPHEMERAL),
            interaction_id=record.id if record else None,
            interaction_user=record.user if record else None,
            webhook_id=self.app_id if record else None,
        )
        self._apply(message, body, files)
        self.messages[message.id] = message
        self.message_log.append(message)
        return message

    def _apply(self, message: FakeMessage, body: dict[str, Any], files: list[tuple[str, bytes]]) -> None:
        if "content" in body:
            message.content = body["content"] or ""
        if "embeds" in body:
            message.embeds = list(body["embeds"] or [])
        if "components" in body:
            message.components = list(body["components"] or [])
        if "allowed_mentions" in body:
            message.allowed_mentions = body["allowed_mentions"]
        if "attachments" in body or files:
            kept = {str(a.get("id")) for a in body.get("attachments") or []}
            message.attachments = [a for a in message.attachments if str(a.id) in kept]
            for name, data in files:
                att = self.attachment(name, data, "application/octet-stream")
                message.attachments.append(att)

    async def _callback(
        self, _r: Any, body: Any, files: Any, interaction_id: str, token: str
    ) -> dict[str, Any] | None:
        record = self._record(token)
        if record.dispatched_clock is not None:
            late = _r[ARRIVED_CLOCK] - record.dispatched_clock
            if late > self.callback_deadline:  # Discord dropped the interaction already
                record.late_callback = late
                self.violations.append(
                    Violation(
                        "POST",
                        f"/interactions/{interaction_id}/.../callback",
                        f"callback {late:.2f} s after INTERACTION_CREATE "
                        f"(Discord waits {self.callback_deadline:g} s)",
                    )
                )
                raise FakeHTTPError(404, 10062, "Unknown interaction")
        if record.callback_at is None:
            record.callback_at = _r[ARRIVED]
        record.callbacks += 1
        if record.callbacks > 1:
            self.violations.append(
                Violation("POST", f"/interactions/{interaction_id}/.../callback", "acknowledged twice")
            )
            raise FakeHTTPError(400, 40060, "Interaction has already been acknowledged.")
        record.callback = body
        kind = body["type"]
        data = body.get("data") or {}
        # the message goes back only when asked for (discord.py asks, the bot's own callbacks do not): built
        # only then, as a load generator must not spend on an answer nobody reads
        record.asked_for_message = asked = _flag(_r.query.get("with_response"))
        resource: dict[str, Any] | None = None
        if kind in (MESSAGE, DEFERRED_MESSAGE):
            flags = LOADING if kind == DEFERRED_MESSAGE else 0
            record.original = self._new_message(record.channel, data, files, record=record, flags=flags)
            if asked:
                resource = {"type": kind, "message": record.original.payload()}
        elif kind == UPDATE_MESSAGE:
            target = self._component_message(record)
            self._apply(target, data, files)
            target.edits += 1
            record.original = target
            if asked:
                resource = {"type": kind, "message": target.payload()}
        elif kind == DEFERRED_UPDATE:
            record.original = self._component_message(record)
        elif kind == AUTOCOMPLETE_RESULT:
            record.choices = list(data.get("choices") or [])
        elif kind == MODAL:
            record.modal = data
        record.answered.set()
        if not asked:
            return None  # Discord: 204 No Content unless asked for the callback object
        answer: dict[str, Any] = {
            "interaction": {
                "id": str(record.id),
                "type": record.type,
                "activity_instance_id": None,
                "response_message_id": str(record.original.id) if record.original else None,
                "response_message_loading": kind == DEFERRED_MESSAGE,
                "response_message_ephemeral": bool(record.original and record.original.ephemeral),
            }
        }
        if resource is not None:
            answer["resource"] = resource
        return answer

    def _component_message(self, record: InteractionRecord) -> FakeMessage:
        message_id = int(record.payload["message"]["id"])
        return self.messages[message_id]

    def _webhook_message(self, record: InteractionRecord, message_id: str) -> FakeMessage:
        if message_id == "@original":
            if record.original is None:
                raise FakeHTTPError(404, 10008, "Unknown Message")
            message = record.original
        else:
            message = self.messages.get(int(message_id))  # type: ignore[assignment]
            if message is None or (message.interaction_id != record.id and message is not record.original):
                raise FakeHTTPError(404, 10008, "Unknown Message")
        if message.deleted:
            raise FakeHTTPError(404, 10008, "Unknown Message")
        return message

    async def _followup(self, _r: Any, body: Any, files: Any, app: str, token: str) -> dict[str, Any] | None:
        record = self._live_record(_r, token)
        if record.callback is None:
            raise FakeHTTPError(
                404, 10015, "Unknown Webhook"
            )  # no follow-up before the interaction is answered
        body = body or {}
        original = record.original
        if original is not None and original.loading and not original.deleted:
            # Discord: the first follow-up after a deferred response edits the loading message, keeping
            # the ephemeral flag chosen when deferring.
            self._apply(original, body, files)
            original.flags &= ~LOADING
            original.edits += 1
            record.answered.set()
            return original.payload()
        message = self._new_message(record.channel, body, files, record=record)
        record.followups.append(message)
        record.followup_waits.append(_flag(_r.query.get("wait")))
        if not record.followup_waits[-1]:
            return None  # Discord: 204 No Content unless asked to wait for the message
        return message.payload()

    async def _get_webhook_message(
        self, _r: Any, _b: Any, _f: Any, app: str, token: str, mid: str
    ) -> dict[str, Any]:
        return self._webhook_message(self._live_record(_r, token), mid).payload()

    async def _edit_webhook_message(
        self, _r: Any, body: Any, files: Any, app: str, token: str, mid: str
    ) -> Any:
        record = self._live_record(_r, token)
        message = self._webhook_message(record, mid)
        self._apply(message, body or {}, files)
        message.flags &= ~LOADING
        message.edits += 1
        if message is record.original:
            record.original_edits += 1
            record.original_edit = body or {}
        return message.payload()

    async def _delete_webhook_message(
        self, _r: Any, _b: Any, _f: Any, app: str, token: str, mid: str
    ) -> None:
        message = self._webhook_message(self._live_record(_r, token), mid)
        message.deleted = True
        message.flags &= ~LOADING
        return None

    def _channel(self, channel_id: str) -> FakeChannel:
        channel = self.channels.get(int(channel_id))
        if channel is None:
            raise FakeHTTPError(404, 10003, "Unknown Channel")
        return channel

    async def _create_message(self, _r: Any, body: Any, files: Any, channel_id: str) -> dict[str, Any]:
        channel = self._channel(channel_id)
        if channel.is_dm and channel.recipient is not None and channel.recipient.blocks_dms:
            raise FakeHTTPError(403, 50007, "Cannot send messages to this user")
        return self._new_message(channel, body, files).payload()

    def _message(self, channel_id: str, message_id: str) -> FakeMessage:
        message = self.messages.get(int(message_id))
        if message is None or message.deleted or message.channel_id != int(channel_id) or message.ephemeral:
            raise FakeHTTPError(404, 10008, "Unknown Message")
        return message

    async def _get_message(
        self, _r: Any, _b: Any, _f: Any, channel_id: str, message_id: str
    ) -> dict[str, Any]:
        return self._message(channel_id, message_id).payload()

    async def _edit_message(
        self, _r: Any, body: Any, files: Any, channel_id: str, message_id: str
    ) -> dict[str, Any]:
        message = self._message(channel_id, message_id)
        if message.author is not self.bot_user:
            raise FakeHTTPError(403, 50005, "Cannot edit a message authored by another user")
        self._apply(message, body or {}, files)
        message.edits += 1
        return message.payload()

    async def _delete_message(self, _r: Any, _b: Any, _f: Any, channel_id: str, message_id: str) -> None:
        self._message(channel_id, message_id).deleted = True
        return None

    async def _get_channel(self, _r: Any, _b: Any, _f: Any, channel_id: str) -> dict[str, Any]:
        return self._channel(channel_id).payload()

    async def _create_dm(self, _r: Any, body: Any, _f: Any) -> dict[str, Any]:
        user = self.users.get(int(body["recipient_id"]))
        if user is None:
            raise FakeHTTPError(404, 10013, "Unknown User")
        return self.dm_channel(user).payload()

    async def _get_user(self, _r: Any, _b: Any, _f: Any, user_id: str) -> dict[str, Any]:
        user = self.users.get(int(user_id))
        if user is None:
            raise FakeHTTPError(404, 10013, "Unknown User")
        return user.payload()

    async def _get_member(self, _r: Any, _b: Any, _f: Any, guild_id: str, user_id: str) -> dict[str, Any]:
        guild = self.guilds.get(int(guild_id))
        if guild is None or int(user_id) not in guild.members:
            raise FakeHTTPError(404, 10007, "Unknown Member")
        return guild.members[int(user_id)].payload()

    # -- interactions -----------------------------------------------------------------------------------
    def find_command(self, guild: FakeGuild | None, name: str) -> dict[str, Any]:
        """The synced top-level command called ``name`` (guild commands first, then global)."""
        pools = ([self.guild_commands.get(guild.id, [])] if guild else []) + [self.global_commands]
        for pool in pools:
            for command in pool:
                if command["name"] == name and command.get("type", 1) == 1:
                    if guild is None and not _usable_in_dms(command):
                        raise CommandUnavailable(f"/{name} is not available in DMs (dm_permission/contexts)")
                    return command
        raise AssertionError(f"the bot did not sync a command /{name}")

    def command_by_id(self, command_id: int | str) -> dict[str, Any] | None:
        """The synced command with this id, global or of any guild (None: no such command)."""
        for pool in [self.global_commands, *self.guild_commands.values()]:
            for command in pool:
                if command["id"] == str(command_id):
                    return command
        return None

    def set_command_permissions(
        self,
        guild: FakeGuild,
        name: str,
        *,
        allow: Sequence[FakeRole | FakeUser | FakeMember | FakeChannel | FakeGuild] = (),
        deny: Sequence[FakeRole | FakeUser | FakeMember | FakeChannel | FakeGuild] = (),
    ) -> None:
        """What a server admin sets under Integrations: allow or deny command ``name`` to roles, members and
        channels (the guild itself stands for @everyone), over its ``default_member_permissions``."""
        table = self.command_permissions.setdefault((guild.id, name), {})
        for targets, allowed in ((allow, True), (deny, False)):
            for target in targets:
                table[target.id] = allowed

    def why_hidden(self, command: dict[str, Any], user: FakeUser, channel: FakeChannel) -> str | None:
        """Why Discord hides ``command`` from ``user`` in ``channel`` (None: they see it and can use it).

        In a DM: ``contexts`` / ``dm_permission``. In a guild: ``contexts``, Use Application Commands, the
        admin's overrides (`set_command_permissions`), then ``default_member_permissions`` against the
        member's permissions from their roles; the owner and Administrators see every command.
        """
        name = command["name"]
        if channel.guild_id is None:
            return None if _usable_in_dms(command) else f"/{name} is not available in DMs"
        guild = self.guilds[channel.guild_id]
        contexts = command.get("contexts")
        if contexts is not None and 0 not in contexts:
            return f"/{name} is not available in servers"
        member = guild.members.get(user.id)
        if member is None:
            return f"{user.username} is not a member of {guild.name}"
        permissions = member.permissions
        if permissions & ADMINISTRATOR:
            return None
        if not permissions & USE_APPLICATION_COMMANDS:
            return f"{user.username} lacks Use Application Commands in #{channel.name}"
        overrides = self.command_permissions.get((guild.id, name), {})
        if overrides.get(channel.id) is False or overrides.get(guild.id - 1) is False:
            return f"an admin turned /{name} off in #{channel.name}"
        roles = [overrides[role.id] for role in member.roles if role.id in overrides]
        for decided in (
            overrides.get(user.id),
            True in roles or (False if roles else None),
            overrides.get(guild.id),
        ):
            if decided is not None:
                return None if decided else f"an admin turned /{name} off for {user.username}"
        needed = command.get("default_member_permissions")
        if needed is None:
            return None
        missing = int(needed) & ~permissions if int(needed) else ADMINISTRATOR
        if not missing:
            return None
        names = ", ".join(n for n, on in discord.Permissions(missing) if on)
        return f"{user.username} lacks {names} (default_member_permissions of /{name})"

    def visible_commands(self, user: FakeUser, channel: FakeChannel) -> list[dict[str, Any]]:
        """The slash commands ``user`` sees when typing / in ``channel``, as Discord lists them."""
        guild = self.guilds.get(channel.guild_id) if channel.guild_id else None
        pools = ([self.guild_commands.get(guild.id, [])] if guild else []) + [self.global_commands]
        return [
            command
            for pool in pools
            for command in pool
            if command.get("type", 1) == 1 and self.why_hidden(command, user, channel) is None
        ]

    def build_command_data(
        self,
        guild: FakeGuild | None,
        path: str,
        options: dict[str, Any],
        *,
        focused: str | None = None,
    ) -> dict[str, Any]:
        """The ``data`` of an APPLICATION_COMMAND (or AUTOCOMPLETE) interaction for ``/path``."""
        words = path.split()
        command = self.find_command(guild, words[0])
        resolved: dict[str, dict[str, Any]] = {}
        level: dict[str, Any] = command
        container: list[dict[str, Any]] = []
        top = container
        for word in words[1:]:
            sub = next((o for o in level.get("options") or [] if o["name"] == word), None)
            if sub is None or sub["type"] not in (SUB_COMMAND, SUB_COMMAND_GROUP):
                raise AssertionError(f"/{path}: no subcommand {word!r}")
            entry: dict[str, Any] = {"name": word, "type": sub["type"], "options": []}
            container.append(entry)
            container = entry["options"]
            level = sub
        declared = {o["name"]: o for o in level.get("options") or []}
        for name, value in options.items():
            if name not in declared:
                raise AssertionError(f"/{path} has no option {name!r}; it has {sorted(declared)}")
            container.append(self._option(declared[name], value, resolved, guild, focused == name))
        missing = [o["name"] for o in declared.values() if o.get("required") and o["name"] not in options]
        if missing and focused is None:
            raise AssertionError(f"/{path} needs options {missing}")
        data: dict[str, Any] = {"id": command["id"], "name": command["name"], "type": 1, "options": top}
        if guild is not None:
            data["guild_id"] = str(guild.id)
        if resolved:
            data["resolved"] = resolved
        return data

    def _option(
        self,
        declared: dict[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        guild: FakeGuild | None,
        focused: bool,
    ) -> dict[str, Any]:
        kind = declared["type"]
        out: dict[str, Any] = {"name": declared["name"], "type": kind}
        if focused:
            out["focused"] = True
            out["value"] = str(value)
            return out
        if kind in (USER, MENTIONABLE) and isinstance(value, FakeUser | FakeMember):
            user = value.user if isinstance(value, FakeMember) else value
            resolved.setdefault("users", {})[str(user.id)] = user.payload()
            if guild is not None and user.id in guild.members:
                member = guild.members[user.id].payload(with_permissions=True)
                member.pop("user")
                resolved.setdefault("members", {})[str(user.id)] = member
            out["value"] = str(user.id)
        elif kind in (ROLE, MENTIONABLE) and isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            out["value"] = str(value.id)
        elif kind == CHANNEL and isinstance(value, FakeChannel):
            channel = value.partial()
            channel["permissions"] = str(EVERYONE_PERMISSIONS)
            resolved.setdefault("channels", {})[str(value.id)] = channel
            out["value"] = str(value.id)
        elif kind == ATTACHMENT and isinstance(value, FakeAttachment):
            resolved.setdefault("attachments", {})[str(value.id)] = value.payload()
            out["value"] = str(value.id)
        else:
            out["value"] = _check_primitive(declared, value)
        return out

    def interaction_payload(
        self,
        kind: int,
        data: dict[str, Any],
        *,
        user: FakeUser,
        channel: FakeChannel,
        message: FakeMessage | None = None,
        locale: str = "en-US",
        check_permissions: bool = False,
    ) -> InteractionRecord:
        """A full INTERACTION_CREATE payload, remembered so the bot's answers can be matched to it.

        ``check_permissions`` (the harness's slash and autocomplete set it): a command, or its
        autocomplete, that Discord hides from ``user`` in ``channel`` raises `CommandUnavailable` and
        nothing is made. Without it the payload is built as asked (a forged or stale call).
        """
        if check_permissions and kind in (APPLICATION_COMMAND, AUTOCOMPLETE):
            command = self.command_by_id(data.get("id", ""))
            if command is not None and (why := self.why_hidden(command, user, channel)) is not None:
                raise CommandUnavailable(f"Discord hides /{command['name']} here: {why}")
        guild = self.guilds.get(channel.guild_id) if channel.guild_id else None
        interaction_id = snowflake()
        token = "aW50ZXJhY3Rpb24" + secrets.token_urlsafe(48)
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.app_id),
            "type": kind,
            "data": data,
            "token": token,
            "version": 1,
            "locale": locale,
            "app_permissions": str((1 << 50) - 1 - 8),
            "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if guild is not None:
            member = guild.members.get(user.id)
            if member is None:
                raise AssertionError(f"{user.username} is not a member of {guild.name}")
            channel_data = channel.payload()
            channel_data["permissions"] = str(member.permissions)
            payload |= {
                "guild_id": str(guild.id),
                "guild": {"id": str(guild.id), "locale": "en-US", "features": []},
                "guild_locale": "en-US",
                "member": member.payload(with_permissions=True),
                "channel": channel_data,
                "channel_id": str(channel.id),
                "context": 0,
                "authorizing_integration_owners": {"0": str(guild.id)},
            }
        else:
            payload |= {
                "user": user.payload(),
                "channel": channel.payload(),
                "channel_id": str(channel.id),
                "context": 1,
                "authorizing_integration_owners": {"0": "0"},
            }
        if message is not None:
            payload["message"] = message.payload()
        record = InteractionRecord(interaction_id, token, kind, user, channel, guild, payload)
        record.first_message_index = len(self.message_log)
        self.interactions[token] = record
        return record


def _usable_in_dms(command: dict[str, Any]) -> bool:
    contexts = command.get("contexts")
    if contexts is not None:
        return 1 in contexts
    return command.get("dm_permission", True) is not False


def _check_primitive(declared: dict[str, Any], value: Any) -> Any:
    kind = declared["type"]
    types: dict[int, type | tuple[type, ...]] = {
        STRING: str,
        INTEGER: int,
        BOOLEAN: bool,
        NUMBER: (int, float),
    }
    expected = types.get(kind)
    typed = expected is not None and isinstance(value, expected)  # (not in the `if`: value stays Any)
    if not typed or (kind == INTEGER and isinstance(value, bool)):
        raise AssertionError(f"option {declared['name']!r} (type {kind}) cannot take {value!r}")
    if declared.get("choices") and value not in [c["value"] for c in declared["choices"]]:
        raise AssertionError(f"option {declared['name']!r} must be one of its choices, not {value!r}")
    if kind in (INTEGER, NUMBER):
        if "min_value" in declared and value < declared["min_value"]:
            raise AssertionError(f"Discord refuses {declared['name']}={value} below {declared['min_value']}")
        if "max_value" in declared and value > declared["max_value"]:
            raise AssertionError(f"Discord refuses {declared['name']}={value} above {declared['max_value']}")
    if kind == STRING and not declared.get("min_length", 0) <= len(value) <= declared.get("max_length", 6000):
        raise AssertionError(f"Discord refuses {declared['name']} of length {len(value)}")
    return value


IS_COMPONENTS_V2 = 1 << 15
EMBED_TEXT = 6000  # the characters of all of a message's embeds together


def message_problems(message: dict[str, Any], creating: bool, files: bool) -> list[str]:
    """What real Discord refuses in a message body beyond its schema: a bot's content past 2,000 characters
    (the schema allows Nitro's 4,000), embeds past 6,000 characters together, an empty or blank field, more
    than 5 rows, a custom_id twice, a select's value twice, a button with neither label nor emoji, and a
    new message with nothing in it (50006)."""
    problems: list[str] = []
    content = message.get("content")
    if isinstance(content, str) and len(content) > 2000:
        problems.append(f"content of {len(content)} characters (a bot's limit is 2000)")
    embeds = [e for e in message.get("embeds") or [] if isinstance(e, dict)]
    total = 0
    for embed in embeds:
        fields = [f for f in embed.get("fields") or [] if isinstance(f, dict)]
        texts = [embed.get("title"), embed.get("description"), (embed.get("footer") or {}).get("text")]
        texts += [(embed.get("author") or {}).get("name")]
        texts += [f.get("name") for f in fields] + [f.get("value") for f in fields]
        total += sum(len(t) for t in texts if isinstance(t, str))
        for f in fields:
            if not str(f.get("name") or "").strip() or not str(f.get("value") or "").strip():
                problems.append(f"an embed field with an empty name or value: {f!r}")
    if total > EMBED_TEXT:
        problems.append(f"embeds of {total} characters together (at most {EMBED_TEXT})")
    rows = [r for r in message.get("components") or [] if isinstance(r, dict)]
    if len(rows) > 5 and not int(message.get("flags") or 0) & IS_COMPONENTS_V2:
        problems.append(f"{len(rows)} action rows (at most 5)")
    ids: list[str] = []
    for row in rows:
        for item in row.get("components") or []:
            if not isinstance(item, dict):
                continue
            if "custom_id" in item:
                ids.append(str(item["custom_id"]))
            if (
                item.get("type") == 2
                and item.get("style") != 5
                and not (item.get("label") or item.get("emoji"))
            ):
                problems.append(f"a button with neither label nor emoji: {item!r}")
            values = [str(o.get("value")) for o in item.get("options") or [] if isinstance(o, dict)]
            if len(values) != len(set(values)):
                problems.append(f"a select with one value twice: {values!r}")
    if len(ids) != len(set(ids)):
        problems.append(f"a custom_id twice in one message: {ids!r}")
    if creating and not (
        content or embeds or rows or files or message.get("sticker_ids") or message.get("poll")
    ):
        problems.append("an empty message (50006)")
    return problems


def _all_names(command: dict[str, Any]) -> list[str]:
    names = [command["name"]] if command.get("type", 1) == 1 else []
    stack = list(command.get("options") or [])
    while stack:
        option = stack.pop()
        names.append(option["name"])
        stack.extend(option.get("options") or [])
    return names


def _loads(raw: bytes) -> Any:
    """A request's JSON body, by orjson (stdlib json was an eighth of the fake's CPU in a burst of Hits: the
    body holds the hand's embed). What orjson refuses (NaN, a lone surrogate) goes to json, which read every
    body before. Integers beyond 64 bits, which orjson reads as floats, are in nothing the bot sends."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


def _dumps(data: Any) -> bytes:
    """JSON as Discord sends it, with orjson (as discord.py reads it): a benchmark's load generator must
    not hold interactions out of flight while it encodes (stdlib json was a seventh of the fake's CPU)."""
    try:
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # what orjson cannot hold (hostile tests' integers beyond 64 bits) stdlib json can
        return json.dumps(data).encode()


def _flag(value: str | None) -> bool:
    """A boolean query parameter as Discord reads it ("true", "True" or "1")."""
    return value is not None and value.lower() in ("true", "1")


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py compares the content type exactly: no charset parameter.
    return web.Response(
        body=_dumps(data),
        status=status,
        headers={"Content-Type": "application/json", **(headers or {})},
    )


def _fault_response(fault: Fault) -> web.Response:
    if fault.status == 429:
        retry = fault.retry_after if fault.retry_after is not None else 0.05
        body = {"message": fault.message, "retry_after": retry, "global": fault.is_global}
        # real Discord answers via Google's front end; discord.py takes a 429 without Via for a Cloudflare ban
        headers = {
            "Retry-After": str(math.ceil(retry)),
            "Via": "1.1 google",
            "X-RateLimit-Scope": fault.scope,
        }
        if fault.is_global:
            headers["X-RateLimit-Global"] = "true"
        else:
            headers |= {
                "X-RateLimit-Limit": str(fault.limit),
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{time.time() + retry:.3f}",
                "X-RateLimit-Reset-After": f"{retry:.3f}",
                "X-RateLimit-Bucket": fault.bucket,
            }
        return _json(body, 429, headers)
    return _json({"message": fault.message, "code": fault.code}, fault.status)
