"""Interaction callbacks and follow-ups over kept-alive HTTP/1.1 connections of our own, beside discord.py's
aiohttp session.

Every roll, refusal and move of a hand is answered with one ``POST /interactions/{id}/{token}/callback``,
a private or GM roll's public notice is one ``POST /webhooks/{application_id}/{token}``, and the odds line
added to a finished hand is one ``PATCH /webhooks/{application_id}/{token}/messages/@original``. Through
discord.py those requests go through aiohttp's ``ClientSession``, whose per-request machinery (URL and
header objects, cookie jar, tracing, timers, the response object) costs 84 µs of CPU on the benchmark's
machine (`bench/callback_bench.py`), and discord.py parses the message a follow-up answers with. The
requests are always the same shape: a small JSON body, no authorisation (the token is in the path), an
answer of 204 or a short JSON error. `CallbackClient` sends them on connections it keeps open, writes each
request as bytes and reads the answer with `read_response`: 24 µs.

What discord.py's webhook adapter does with the answer is kept: a 429 that came from Discord (it has a
``Via`` header) is waited out and sent again, a 5xx is retried after 1, 3, 5, 7 seconds, a connection
reset is retried the same way (errnos 54 and 10054, as discord.py), and anything else raises discord.py's
own ``HTTPException`` (``Forbidden``, ``NotFound``, ``DiscordServerError`` after the last try), so callers
see no difference; like discord.py's session, there is no limit on connections at once. Two differences
(Discord takes one callback per interaction and an edit twice is the same edit, but it posts a follow-up
sent twice twice): a kept connection that turns out closed before any byte of the answer came back is
replaced and a callback or an edit sent again at once (aiohttp raises), and "already acknowledged"
(40060) answering a callback's second try means an earlier try reached Discord, so the callback is done
(discord.py raises). An edit's answer (the edited message) is read but not parsed. Nothing here logs a
request's path: it holds the interaction's token.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import ssl
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import discord
import orjson

MAX_IDLE = 32  # connections kept open to one host between requests (as many as needed are opened)
IDLE_S = 15.0  # a connection unused this long is closed rather than reused (aiohttp's keep-alive default)
CONNECT_TIMEOUT_S = 10.0
ANSWER_TIMEOUT_S = 30.0  # per try, from writing the request to the end of the answer
SWEEPS_PER_TIMEOUT = 30  # answers are checked against their deadlines this often per ANSWER_TIMEOUT_S
ATTEMPTS = 5  # as discord.py's webhook adapter
MAX_HEAD = 64 * 1024  # status line and headers
MAX_BODY = 4 * 1024 * 1024  # an error body is a few hundred bytes; anything this big is not Discord's answer
RESET_ERRNOS = frozenset({54, 10054})  # reset by peer on BSD and Windows: tried again, as discord.py does
HAPPY_EYEBALLS_S = 0.25  # a host's next address is tried this long after the last (aiohttp's figure)
ALREADY_ACKNOWLEDGED = 40060  # Discord's code for a second callback to one interaction


_STATUS = re.compile(r"[1-5][0-9][0-9]")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # a header name (RFC 9110 5.6.2)
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")


class ProtocolError(OSError):
    """The server's answer is not HTTP/1.1 we can read; the connection is closed."""


@dataclass(frozen=True)
class Response:
    """An answer, shaped like the aiohttp response discord.py's exceptions read (``status``, ``reason``)."""

    status: int
    reason: str
    headers: dict[str, str]
    body: bytes

    def data(self) -> dict[str, Any] | str:
        """The body as discord.py's ``json_or_text`` reads it: JSON when labelled so, else text."""
        if self.headers.get("content-type") == "application/json":
            try:
                loaded = orjson.loads(self.body)
            except orjson.JSONDecodeError:
                loaded = None
            if isinstance(loaded, dict):
                return loaded
        return self.body.decode("utf-8", "replace")


def read_response(buffer: bytes | bytearray, *, until_close: bool = False) -> tuple[Response, int] | None:
    """The first complete final HTTP/1.1 answer in ``buffer`` and how many bytes it took (any informational
    1xx answers before it included), or None while it is incomplete.

    ``until_close``: the server has closed the connection, so a body without a length ends here.
    Raises `ProtocolError` for anything that is not a readable answer.
    """
    at = 0
    while True:
        head = _read_head(buffer, at)
        if head is None:
            return None
        status, reason, headers, start = head
        if status >= 200:
            break
        if status == 101:
            raise ProtocolError("the server switched protocols")
        at = start  # 100 Continue, 103 Early Hints: the final answer follows
    if status in (204, 304):
        return Response(status, reason, headers, b""), start
    if "chunked" in headers.get("transfer-encoding", "").lower():
        if "content-length" in headers:  # RFC 9112 6.3: chunked wins, and the connection is not reused
            headers["connection"] = "close"
        return _read_chunked(buffer, start, status, reason, headers)
    length_text = headers.get("content-length")
    if length_text is not None:
        lengths = {text.strip() for text in length_text.split(",")}  # "2, 2" is one length
        if len(lengths) != 1 or not all(text.isdigit() and text.isascii() for text in lengths):
            raise ProtocolError("bad content-length")
        length = int(lengths.pop())
        if length > MAX_BODY:
            raise ProtocolError("answer body too long")
        if len(buffer) - start < length:
            return None
        return Response(status, reason, headers, bytes(buffer[start : start + length])), start + length
    if not until_close:  # the body runs to the end of the connection
        if len(buffer) - start > MAX_BODY:
            raise ProtocolError("answer body too long")
        return None
    headers["connection"] = "close"
    return Response(status, reason, headers, bytes(buffer[start:])), len(buffer)


def _read_head(buffer: bytes | bytearray, at: int) -> tuple[int, str, dict[str, str], int] | None:
    """Status, reason, headers (names lower-cased) and where the body starts, or None while incomplete."""
    end = buffer.find(b"\r\n\r\n", at)
    if end < 0:
        if len(buffer) - at > MAX_HEAD:
            raise ProtocolError("answer headers too long")
        if buffer.find(b"\n\n", at) >= 0:
            raise ProtocolError("lines not ended by CRLF")
        return None
    lines = bytes(buffer[at:end]).decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or parts[0] not in ("HTTP/1.1", "HTTP/1.0") or not _STATUS.fullmatch(parts[1]):
        raise ProtocolError("not an HTTP/1.x status line")
    status, reason = int(parts[1]), parts[2] if len(parts) > 2 else ""
    headers: dict[str, str] = {}
    name = ""
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and name:  # obs-fold: the previous header's value goes on
            headers[name] = f"{headers[name]} {line.strip()}".strip()
            continue
        name, sep, value = line.partition(":")
        if not sep or not _TOKEN.fullmatch(name):
            raise ProtocolError("malformed header line")
        name = name.lower()
        value = value.strip()
        # a repeated header is one list (RFC 9110 5.3); Content-Length's values are compared by the caller
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    if parts[0] == "HTTP/1.0" and "keep-alive" not in headers.get("connection", "").lower():
        headers["connection"] = "close"
    return status, reason, headers, end + 4


def _read_chunked(
    buffer: bytes | bytearray, at: int, status: int, reason: str, headers: dict[str, str]
) -> tuple[Response, int] | None:
    body = bytearray()
    while True:
        line_end = buffer.find(b"\r\n", at)
        if line_end < 0:
            return None
        size_text = bytes(buffer[at:line_end]).split(b";", 1)[0].strip()
        if not _CHUNK_SIZE.fullmatch(size_text):
            raise ProtocolError("bad chunk size")
        size = int(size_text, 16)
        if len(body) + size > MAX_BODY:
            raise ProtocolError("answer body too long")
        at = line_end + 2
        if size == 0:
            while True:  # trailer lines, then the empty line that ends the answer
                line_end = buffer.find(b"\r\n", at)
                if line_end < 0:
                    return None
                if line_end == at:
                    return Response(status, reason, headers, bytes(body)), at + 2
                at = line_end + 2
        if len(buffer) < at + size + 2:
            return None
        if buffer[at + size : at + size + 2] != b"\r\n":
            raise ProtocolError("chunk not followed by CRLF")
        body += buffer[at : at + size]
        at += size + 2


class _Connection(asyncio.Protocol):
    """One kept-alive connection: one request at a time, its answer delivered to ``waiter``."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future[Response] | None = None
        self.closed = False
        self.received = False  # any byte of the current answer
        self.idle_since = time.monotonic()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def send(self, request: bytes, loop: asyncio.AbstractEventLoop) -> asyncio.Future[Response]:
        assert self.transport is not None and self.waiter is None
        waiter: asyncio.Future[Response] = loop.create_future()
        self.received = False
        if self.closed:  # lost before this request: connection_lost will not come again
            waiter.set_exception(ConnectionResetError("the connection was closed"))
            return waiter
        self.waiter = waiter
        self.transport.write(request)
        return waiter

    def data_received(self, data: bytes) -> None:
        self.received = True
        self.buffer += data
        self._deliver(until_close=False)

    def eof_received(self) -> bool:
        self._deliver(until_close=True)
        return False  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            closed = ConnectionResetError("the server closed the connection")
            waiter.set_exception(exc if isinstance(exc, OSError) else closed)

    def _deliver(self, *, until_close: bool) -> None:
        if self.waiter is None:
            if self.buffer:  # bytes nobody asked for: the connection is out of step
                self.close()
            return
        try:
            found = read_response(self.buffer, until_close=until_close)
        except ProtocolError as error:
            waiter, self.waiter = self.waiter, None
            if not waiter.done():  # (its caller's task was cancelled meanwhile)
                waiter.set_exception(error)
            self.close()
            return
        if found is None:
            return
        response, used = found
        del self.buffer[:used]
        waiter, self.waiter = self.waiter, None
        if not waiter.done():
            waiter.set_result(response)
        if self.buffer or response.headers.get("connection", "").lower() == "close":
            self.close()

    def time_out(self) -> None:
        """No answer in time: the request fails with TimeoutError (the caller then closes this)."""
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(TimeoutError(f"no answer within {ANSWER_TIMEOUT_S:g} s"))

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


@dataclass
class _Host:
    """The connections kept open to one scheme://host:port."""

    scheme: str
    host: str
    port: int
    prefix: str  # the API's path, as "/api/v10"
    authority: str  # the Host header: the host, and the port unless the scheme's own
    idle: list[_Connection] = field(default_factory=list)


class CallbackClient:
    """Posts interaction callbacks to the API that ``discord.http.Route.BASE`` names (see the module doc)."""

    def __init__(self, *, ssl_context: ssl.SSLContext | None = None) -> None:
        self._hosts: dict[str, _Host] = {}
        self._ssl = ssl_context  # None: the system's trusted authorities, made at the first HTTPS request
        self._closed = False
        # connections waiting for an answer, and when it is due (loop time); see `_exchange`
        self._waiting: dict[_Connection, float] = {}
        self._sweep_handle: asyncio.TimerHandle | None = None

    async def post(
        self, interaction_id: int, token: str, payload: dict[str, Any], *, user_agent: str
    ) -> None:
        """Send ``payload`` as the callback of interaction ``interaction_id``; raises as discord.py would."""
        # quoted as discord.py's Route quotes it: whatever a token holds, it cannot break the request line
        path = f"/interactions/{int(interaction_id)}/{quote(token, safe='')}/callback"
        await self._send(path, payload, user_agent, callback=True, resend=True)

    async def follow_up(
        self, application_id: int, token: str, payload: dict[str, Any], *, user_agent: str
    ) -> None:
        """Post ``payload`` as a follow-up message of the interaction whose token is ``token``, without
        waiting for the message (204); raises as discord.py would.

        Never sent twice on a kept connection that closed (as aiohttp): Discord would post it twice.
        """
        path = f"/webhooks/{int(application_id)}/{quote(token, safe='')}"
        await self._send(path, payload, user_agent, callback=False, resend=False)

    async def edit_original(
        self, application_id: int, token: str, payload: dict[str, Any], *, user_agent: str
    ) -> None:
        """Edit the interaction's original response to ``payload`` (PATCH, as discord.py's
        ``edit_original_response``); Discord's answer, the edited message, is not parsed. Raises as
        discord.py would.

        An edit sets the message to the same thing however often it arrives, so a kept connection that
        closed before its answer gets it again on a new one, as a callback does.
        """
        path = f"/webhooks/{int(application_id)}/{quote(token, safe='')}/messages/@original"
        await self._send(path, payload, user_agent, callback=False, method="PATCH", resend=True)

    async def _send(
        self,
        path: str,
        payload: dict[str, Any],
        user_agent: str,
        *,
        callback: bool,
        method: str = "POST",
        resend: bool,
    ) -> None:
        """``resend`` as `_exchange` has it; ``callback``: a 40060 answering a second try means done."""
        host = self._host(discord.http.Route.BASE)
        path = host.prefix + path
        body = orjson.dumps(payload)
        request = (
            f"{method} {path} HTTP/1.1\r\nHost: {host.authority}\r\nUser-Agent: {user_agent}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode("latin-1") + body
        response: Response | None = None
        data: dict[str, Any] | str = ""
        for attempt in range(ATTEMPTS):
            try:
                response, resent = await self._exchange(host, request, resend=resend)
            except OSError as error:
                if attempt < ATTEMPTS - 1 and error.errno in RESET_ERRNOS:
                    await asyncio.sleep(backoff(attempt))
                    continue
                raise
            if 200 <= response.status < 300:
                return
            data = response.data()
            already = isinstance(data, dict) and data.get("code") == ALREADY_ACKNOWLEDGED
            if callback and (attempt or resent) and already:
                return  # an earlier try reached Discord (a 5xx it had acted on, a connection cut after it)
            if response.status == 429:
                if "via" not in response.headers:  # not from Discord: Cloudflare's ban, as discord.py has it
                    raise discord.HTTPException(response, data)
                await asyncio.sleep(_retry_after(response, data))
                continue
            if response.status >= 500:
                await asyncio.sleep(backoff(attempt))
                continue
            if response.status == 403:
                raise discord.Forbidden(response, data)
            if response.status == 404:
                raise discord.NotFound(response, data)
            raise discord.HTTPException(response, data)
        assert response is not None
        if response.status >= 500:
            raise discord.DiscordServerError(response, data)
        raise discord.HTTPException(response, data)

    async def _exchange(self, host: _Host, request: bytes, *, resend: bool) -> tuple[Response, bool]:
        """One request and its answer, on a kept connection when one is free; and whether it was sent twice.

        ``resend``: a kept connection that turns out closed before any byte of the answer came (the
        server's idle timer ran out as the request went) gets the request again on a new one. The server
        may, rarely, have acted on it first: for a callback Discord then answers "already acknowledged",
        which `post` takes as done.
        """
        loop = asyncio.get_running_loop()
        resent = False
        while True:
            connection, reused = await self._connection(host, loop)
            # the answer's deadline is kept in `_waiting` and checked by one sweep for all requests, not
            # by a timer per request: `asyncio.timeout` took 4 µs of every interaction's answer
            self._waiting[connection] = loop.time() + ANSWER_TIMEOUT_S
            if self._sweep_handle is None:
                self._sweep_handle = loop.call_later(ANSWER_TIMEOUT_S / SWEEPS_PER_TIMEOUT, self._sweep)
            try:
                response = await connection.send(request, loop)
            except TimeoutError:  # the server may be acting on it: never sent twice
                connection.close()
                raise
            except OSError:
                connection.close()
                if resend and reused and not connection.received:
                    resent = True
                    continue
                raise
            except BaseException:
                connection.close()
                raise
            finally:
                self._waiting.pop(connection, None)
            if connection.closed or self._closed or len(host.idle) >= MAX_IDLE:
                connection.close()
            else:
                connection.idle_since = time.monotonic()
                host.idle.append(connection)
            return response, resent

    def _sweep(self) -> None:
        """Time out every request whose answer is overdue; again later while any is waiting.

        A request times out between ``ANSWER_TIMEOUT_S`` and 1/``SWEEPS_PER_TIMEOUT`` of it later.
        """
        self._sweep_handle = None
        loop = asyncio.get_running_loop()
        now = loop.time()
        for connection, due in list(self._waiting.items()):
            if due <= now:
                del self._waiting[connection]
                connection.time_out()
        if self._waiting:
            self._sweep_handle = loop.call_later(ANSWER_TIMEOUT_S / SWEEPS_PER_TIMEOUT, self._sweep)

    async def _connection(self, host: _Host, loop: asyncio.AbstractEventLoop) -> tuple[_Connection, bool]:
        now = time.monotonic()
        while host.idle:
            connection = host.idle.pop()
            if not connection.closed and now - connection.idle_since < IDLE_S:
                return connection, True
            connection.close()
        context = self._context() if host.scheme == "https" else None
        async with asyncio.timeout(CONNECT_TIMEOUT_S):
            _, connection = await loop.create_connection(
                _Connection,
                host.host,
                host.port,
                ssl=context,
                server_hostname=host.host if context else None,
                happy_eyeballs_delay=HAPPY_EYEBALLS_S,  # an address that drops packets is not waited out
            )
        return connection, False

    def _host(self, base: str) -> _Host:
        host = self._hosts.get(base)
        if host is None:
            parts = urlsplit(base)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"not an http(s) API base: {base!r}")
            default = 443 if parts.scheme == "https" else 80
            port = parts.port or default
            name = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname  # IPv6 in brackets
            authority = name if port == default else f"{name}:{port}"
            host = _Host(parts.scheme, parts.hostname, port, parts.path.rstrip("/"), authority)
            self._hosts[base] = host
        return host

    def _context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return self._ssl

    def close(self) -> None:
        """Close every kept connection; requests under way finish on theirs, which then close."""
        self._closed = True
        for host in self._hosts.values():
            for connection in host.idle:
                connection.close()
            host.idle.clear()
        if self._sweep_handle is not None and not self._waiting:
            self._sweep_handle.cancel()  # (requests still under way keep their deadlines)
            self._sweep_handle = None


def backoff(attempt: int) -> float:
    """Seconds to wait before trying again after a 5xx or a reset (``attempt`` from 0): discord.py's."""
    return 1.0 + attempt * 2


def _retry_after(response: Response, data: dict[str, Any] | str) -> float:
    """Seconds to wait after a 429: the body's ``retry_after``, else the Retry-After header, else 1."""
    if isinstance(data, dict):
        with contextlib.suppress(TypeError, ValueError, KeyError):
            return max(0.0, float(data["retry_after"]))
    with contextlib.suppress(TypeError, ValueError, KeyError):
        return max(0.0, float(response.headers["retry-after"]))
    return 1.0


__all__ = ["CallbackClient", "ProtocolError", "Response", "read_response"]
