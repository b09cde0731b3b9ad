"""`bot.ui.callbacks`: interaction callbacks on kept-alive connections, against real sockets on loopback.

The server here is a few lines of asyncio that answer each request with scripted bytes, so every case a real
server can produce (a connection closed while idle, a chunked error, a 429 from Discord or from Cloudflare,
an answer that never comes, TLS) is sent for real. The whole bot goes through the same client in every
end-to-end test, against the fake Discord's aiohttp server.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import discord
import orjson
import pytest
import trustme

from bot.ui import callbacks
from bot.ui.callbacks import CallbackClient, ProtocolError, read_response

UA = "DiscordBot (tests, 1)"
NO_CONTENT = b"HTTP/1.1 204 No Content\r\n\r\n"


def json_answer(status: int, reason: str, body: dict[str, object], *extra: str) -> bytes:
    data = orjson.dumps(body)
    head = [f"HTTP/1.1 {status} {reason}", "Content-Type: application/json", f"Content-Length: {len(data)}"]
    return ("\r\n".join([*head, *extra]) + "\r\n\r\n").encode() + data


@dataclass
class Step:
    """What the server does with one request: write ``answer`` (None: nothing), then maybe close or stall."""

    answer: bytes | None = NO_CONTENT
    close: bool = False
    stall: bool = False
    reset: bool = False  # abort the connection (RST) instead of answering
    delay: float = 0.0


@dataclass
class Server:
    steps: list[Step]
    connections: int = 0
    requests: list[tuple[bytes, bytes]] = field(default_factory=list)  # (head, body)
    closed_by_client: int = 0
    in_flight: int = 0
    most_in_flight: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except asyncio.IncompleteReadError:
                    self.closed_by_client += 1
                    return
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                self.requests.append((head, await reader.readexactly(length)))
                step = self.steps.pop(0) if self.steps else Step()
                if step.reset:
                    sock = writer.get_extra_info("socket")
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    writer.transport.abort()
                    return
                if step.stall:
                    await asyncio.sleep(3600)
                self.in_flight += 1
                self.most_in_flight = max(self.most_in_flight, self.in_flight)
                await asyncio.sleep(step.delay)
                self.in_flight -= 1
                if step.answer is not None:
                    writer.write(step.answer)
                    await writer.drain()
                if step.close:
                    return
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def serving(
    steps: list[Step], monkeypatch: pytest.MonkeyPatch, *, tls: ssl.SSLContext | None = None
) -> AsyncIterator[Server]:
    server = Server(steps)
    listener = await asyncio.start_server(server.handle, "127.0.0.1", 0, ssl=tls)
    port = listener.sockets[0].getsockname()[1]
    scheme, host = ("https", "localhost") if tls else ("http", "127.0.0.1")
    monkeypatch.setattr(discord.http.Route, "BASE", f"{scheme}://{host}:{port}/api/v10")
    monkeypatch.setattr(callbacks, "backoff", lambda attempt: 0.0)
    try:
        yield server
    finally:
        listener.close()


async def post(client: CallbackClient, n: int = 1) -> None:
    await client.post(1234567890, "tok-en", {"type": 4, "data": {"content": f"roll {n}"}}, user_agent=UA)


# -- the answer parser ------------------------------------------------------------------------------------


def test_an_answer_read_byte_by_byte_completes_at_its_last_byte() -> None:
    whole = json_answer(404, "Not Found", {"message": "Unknown interaction", "code": 10062}) + NO_CONTENT
    first_end = whole.index(b"}") + 1
    for cut in range(first_end):
        assert read_response(whole[:cut]) is None
    response, used = read_response(whole[:first_end]) or (None, 0)
    assert response is not None and used == first_end
    assert (response.status, response.reason) == (404, "Not Found")
    assert response.data() == {"message": "Unknown interaction", "code": 10062}
    second = read_response(whole[used:])  # two answers in a row: each takes its own bytes
    assert second is not None and second[0].status == 204 and second[1] == len(NO_CONTENT)


def test_a_chunked_answer_with_extensions_and_trailers() -> None:
    raw = (
        b"HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
        b'5;ext=1\r\n{"cod\r\n'
        b'c\r\ne": 40060}\r\n\r\n'
        b"0\r\nX-Trailer: yes\r\n\r\n"
    )
    for cut in range(len(raw)):
        assert read_response(raw[:cut]) is None
    response, used = read_response(raw) or (None, 0)
    assert response is not None and used == len(raw) and response.data() == {"code": 40060}


def test_a_body_without_a_length_ends_with_the_connection() -> None:
    raw = b"HTTP/1.0 500 Internal Server Error\r\n\r\noops"
    assert read_response(raw) is None
    response, used = read_response(raw, until_close=True) or (None, 0)
    assert response is not None and response.body == b"oops" and response.data() == "oops"
    assert response.headers["connection"] == "close" and used == len(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"SSH-2.0-OpenSSH\r\n\r\n",
        b"HTTP/1.1 2000 Odd\r\n\r\n",
        b"HTTP/1.1 101 Switching Protocols\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
        b"HTTP/1.1 200 OK\nContent-Length: 0\n\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\nab\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n" + b"X: " + b"a" * (70 * 1024),
    ],
    ids=[
        "not http",
        "status",
        "switching",
        "two lengths",
        "bare LF",
        "hex prefix",
        "length",
        "header",
        "chunk size",
        "chunk end",
        "huge",
        "head",
    ],
)
def test_what_is_not_a_readable_answer_raises(raw: bytes) -> None:
    with pytest.raises(ProtocolError):
        read_response(raw)


def test_informational_answers_are_skipped_and_folded_headers_joined() -> None:
    raw = (
        b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
        b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nX-Note: one\r\n two\r\n"
        b'Content-Length: 15, 15\r\nSet-Cookie: a\r\nSet-Cookie: b\r\n\r\n{"code": 40060}'
    )
    assert read_response(raw[:60]) is None
    response, used = read_response(raw) or (None, 0)
    assert response is not None and used == len(raw) and response.status == 400
    assert response.headers["x-note"] == "one two" and response.headers["set-cookie"] == "a, b"
    assert response.data() == {"code": 40060}
    both = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n0\r\n\r\n"
    answer = read_response(both)
    assert answer is not None and answer[0].body == b"" and answer[0].headers["connection"] == "close"


def test_a_connection_lost_before_its_request_fails_the_request_at_once() -> None:
    loop = asyncio.new_event_loop()
    try:
        connection = callbacks._Connection()
        connection.connection_made(asyncio.Transport())
        connection.connection_lost(None)
        waiter = connection.send(b"POST / HTTP/1.1\r\n\r\n", loop)
        assert waiter.done() and isinstance(waiter.exception(), ConnectionResetError)
    finally:
        loop.close()


# -- the client over real sockets -------------------------------------------------------------------------


async def test_requests_in_turn_share_one_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serving([], monkeypatch) as server:
        client = CallbackClient()
        for n in range(3):
            await post(client, n)
        client.close()
    assert server.connections == 1 and len(server.requests) == 3
    head, body = server.requests[2]
    assert head.startswith(b"POST /api/v10/interactions/1234567890/tok-en/callback HTTP/1.1\r\n")
    assert b"\r\nUser-Agent: " + UA.encode() + b"\r\n" in head and b"Content-Type: application/json" in head
    port = discord.http.Route.BASE.rsplit(":", 1)[1].split("/")[0]
    assert f"\r\nHost: 127.0.0.1:{port}\r\n".encode() in head
    assert orjson.loads(body) == {"type": 4, "data": {"content": "roll 2"}}


async def test_a_connection_the_server_closed_while_idle_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serving([Step(close=True)], monkeypatch) as server:
        client = CallbackClient()
        await post(client)
        await asyncio.sleep(0.05)  # the close reaches the client
        await post(client)
    assert server.connections == 2 and len(server.requests) == 2  # each sent once


async def test_a_kept_connection_closed_before_any_answer_sends_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the server read the request and closed (its idle timer ran out as the request came): nothing came back
    async with serving([Step(), Step(answer=None, close=True)], monkeypatch) as server:
        client = CallbackClient()
        await post(client, 1)
        await post(client, 2)
    assert server.connections == 2 and [orjson.loads(b)["data"]["content"] for _, b in server.requests] == [
        "roll 1",
        "roll 2",
        "roll 2",
    ]


TAKEN = json_answer(
    400, "Bad Request", {"message": "Interaction has already been acknowledged.", "code": 40060}
)


async def test_a_resent_request_that_discord_already_took_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serving([Step(), Step(answer=None, close=True), Step(answer=TAKEN)], monkeypatch) as server:
        client = CallbackClient()
        await post(client, 1)
        await post(client, 2)  # sent again on a new connection; "already acknowledged": the first got in
    assert len(server.requests) == 3


async def test_a_reset_on_linux_is_not_sent_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # discord.py tries again only on errnos 54 and 10054 (BSD, Windows): Linux's ECONNRESET is raised
    async with serving([Step(reset=True)], monkeypatch) as server:
        client = CallbackClient()
        with pytest.raises(ConnectionResetError):
            await post(client)
    assert len(server.requests) == 1


async def test_a_server_error_then_already_acknowledged_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    applied = json_answer(500, "Internal Server Error", {"message": "oops"})  # Discord had acted on it
    async with serving([Step(answer=applied), Step(answer=TAKEN)], monkeypatch) as server:
        await post(CallbackClient())
    assert len(server.requests) == 2


async def test_a_new_connection_closed_without_an_answer_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serving([Step(answer=None, close=True)], monkeypatch) as server:
        client = CallbackClient()
        with pytest.raises(ConnectionResetError):
            await post(client)
    assert len(server.requests) == 1  # never sent twice on a connection that was not kept


async def test_an_answer_cut_short_raises_and_is_not_sent_again(monkeypatch: pytest.MonkeyPatch) -> None:
    cut = json_answer(500, "Internal Server Error", {"message": "x"})[:-3]
    async with serving([Step(), Step(answer=cut, close=True)], monkeypatch) as server:
        client = CallbackClient()
        await post(client)
        with pytest.raises(OSError):
            await post(client)
    assert len(server.requests) == 2


async def test_an_error_is_discord_pys_own_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    chunked = (
        b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"2b\r\n" + b'{"message": "Unknown interaction", "code": ' + b"\r\n6\r\n10062}\r\n0\r\n\r\n"
    )
    steps = [
        Step(answer=chunked),
        Step(answer=json_answer(403, "Forbidden", {"message": "Missing Access", "code": 50001})),
        Step(answer=json_answer(400, "Bad Request", {"message": "Already acknowledged", "code": 40060})),
    ]
    async with serving(steps, monkeypatch) as server:
        client = CallbackClient()
        with pytest.raises(discord.NotFound) as missing:
            await post(client)
        with pytest.raises(discord.Forbidden) as forbidden:
            await post(client)
        with pytest.raises(discord.HTTPException) as twice:
            await post(client)
    assert (missing.value.status, missing.value.code, missing.value.text) == (
        404,
        10062,
        "Unknown interaction",
    )
    assert str(missing.value) == "404 Not Found (error code: 10062): Unknown interaction"
    assert forbidden.value.code == 50001 and twice.value.code == 40060
    assert server.connections == 1 and len(server.requests) == 3  # errors keep the connection


async def test_a_429_from_discord_is_waited_out_and_one_from_elsewhere_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limited = json_answer(429, "Too Many Requests", {"retry_after": 0.05, "global": False}, "Via: 1.1 google")
    banned = json_answer(429, "Too Many Requests", {"message": "You are being blocked"})
    async with serving([Step(answer=limited), Step(), Step(answer=banned)], monkeypatch) as server:
        client = CallbackClient()
        started = asyncio.get_running_loop().time()
        await post(client)
        assert asyncio.get_running_loop().time() - started >= 0.05
        with pytest.raises(discord.HTTPException) as error:
            await post(client)
    assert error.value.status == 429 and len(server.requests) == 3


async def test_server_errors_are_tried_five_times(monkeypatch: pytest.MonkeyPatch) -> None:
    failing = Step(answer=json_answer(502, "Bad Gateway", {"message": "upstream"}))
    async with serving([failing] * 5, monkeypatch) as server:
        client = CallbackClient()
        with pytest.raises(discord.DiscordServerError):
            await post(client)
        assert len(server.requests) == 5
        server.steps[:] = [failing]
        await post(client)  # one failure, then the default 204
    assert len(server.requests) == 7


async def test_an_answer_that_never_comes_times_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(callbacks, "ANSWER_TIMEOUT_S", 0.2)
    async with serving([Step(), Step(stall=True)], monkeypatch) as server:
        client = CallbackClient()
        await post(client)
        with pytest.raises(TimeoutError):
            await post(client)
        await post(client)  # on a new connection: the stalled one is closed
    assert len(server.requests) == 3 and server.connections == 2


async def test_bytes_nobody_asked_for_close_the_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serving([Step(answer=NO_CONTENT + NO_CONTENT)], monkeypatch) as server:
        client = CallbackClient()
        await post(client)
        await asyncio.sleep(0.05)
        await post(client)
    assert server.connections == 2 and len(server.requests) == 2


async def test_many_at_once_never_wait_for_each_other(monkeypatch: pytest.MonkeyPatch) -> None:
    # a slow Discord must not hold answers back in a queue: each has 3 seconds, whatever the others do
    monkeypatch.setattr(callbacks, "MAX_IDLE", 8)
    async with serving([Step(delay=0.2) for _ in range(60)], monkeypatch) as server:
        client = CallbackClient()
        await asyncio.gather(*(post(client, n) for n in range(60)))
        assert server.most_in_flight == 60 and server.connections == 60
        assert len(client._host(discord.http.Route.BASE).idle) == 8  # the rest closed once answered
        await asyncio.gather(*(post(client, n) for n in range(60, 200)))  # and reused
        client.close()
        await asyncio.sleep(0.05)
    sent = sorted(orjson.loads(body)["data"]["content"] for _, body in server.requests)
    assert sent == sorted(f"roll {n}" for n in range(200))
    assert server.closed_by_client == server.connections


async def test_https_with_the_servers_certificate_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(server_context)
    trusting = ssl.create_default_context()
    authority.configure_trust(trusting)
    async with serving([], monkeypatch, tls=server_context) as server:
        client = CallbackClient(ssl_context=trusting)
        await post(client)
        await post(client)
        with pytest.raises(ssl.SSLCertVerificationError):  # the system's authorities do not know this one
            await post(CallbackClient())
    assert server.connections == 1 and len(server.requests) == 2


def test_answers_carry_what_discord_pys_exceptions_read() -> None:
    response = callbacks.Response(429, "Too Many Requests", {"retry-after": "2.5"}, b"")
    assert callbacks._retry_after(response, "") == 2.5
    assert callbacks._retry_after(response, {"retry_after": 0.25}) == 0.25
    assert callbacks._retry_after(callbacks.Response(429, "", {}, b""), {}) == 1.0
    error = discord.HTTPException(response, {"message": "slow down", "code": 0})  # type: ignore[arg-type]
    assert str(error) == "429 Too Many Requests (error code: 0): slow down"


async def test_a_follow_up_goes_to_the_webhook_and_is_never_sent_twice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    notice = {"content": "Alice made a private roll.", "allowed_mentions": {"parse": []}}
    steps = [Step(), Step(answer=None, close=True), Step(answer=TAKEN)]
    async with serving(steps, monkeypatch) as server:
        client = CallbackClient()
        await client.follow_up(42, "tok-en", notice, user_agent=UA)
        with pytest.raises(ConnectionResetError):  # a kept connection closed: Discord might post it twice
            await client.follow_up(42, "tok-en", notice, user_agent=UA)
        with pytest.raises(discord.HTTPException):  # 40060 means nothing special for a follow-up
            await client.follow_up(42, "tok-en", notice, user_agent=UA)
    assert [head.split(b"\r\n")[0] for head, _ in server.requests] == [
        b"POST /api/v10/webhooks/42/tok-en HTTP/1.1"
    ] * 3
    assert orjson.loads(server.requests[0][1]) == notice


async def test_an_edit_patches_the_original_response_and_is_sent_again_on_a_closed_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    edit = {"embeds": [{"title": "Hand #3: Success", "fields": [{"name": "Odds", "value": "Hit 62%"}]}]}
    message = json_answer(200, "OK", {"id": "99", "embeds": edit["embeds"], "components": []})
    missing = json_answer(404, "Not Found", {"message": "Unknown Webhook", "code": 10015})
    steps = [Step(answer=message), Step(answer=None, close=True), Step(answer=message), Step(answer=missing)]
    async with serving(steps, monkeypatch) as server:
        client = CallbackClient()
        await client.edit_original(42, "tok-en", edit, user_agent=UA)
        await client.edit_original(42, "tok-en", edit, user_agent=UA)  # the same edit again on a new one
        with pytest.raises(discord.NotFound) as raised:  # the token expired (15 minutes)
            await client.edit_original(42, "tok-en", edit, user_agent=UA)
    assert raised.value.code == 10015
    assert [head.split(b"\r\n")[0] for head, _ in server.requests] == [
        b"PATCH /api/v10/webhooks/42/tok-en/messages/@original HTTP/1.1"
    ] * 4
    assert server.connections == 2 and all(orjson.loads(body) == edit for _, body in server.requests)


async def test_a_token_is_quoted_into_the_path(monkeypatch: pytest.MonkeyPatch) -> None:
    async with serving([], monkeypatch) as server:
        await CallbackClient().post(7, "a b\r\nX: y/é", {"type": 1}, user_agent=UA)
    [(head, _)] = server.requests
    assert head.startswith(b"POST /api/v10/interactions/7/a%20b%0D%0AX%3A%20y%2F%C3%A9/callback HTTP/1.1\r\n")


def test_the_api_base_gives_host_port_path_and_the_host_header() -> None:
    client = CallbackClient()
    discord_com = client._host("https://discord.com/api/v10")
    assert (discord_com.host, discord_com.port, discord_com.prefix) == ("discord.com", 443, "/api/v10")
    assert discord_com.authority == "discord.com"  # the scheme's own port is left out
    local = client._host("http://[::1]:8080/api/v10/")
    assert (local.host, local.port, local.prefix, local.authority) == ("::1", 8080, "/api/v10", "[::1]:8080")
    with pytest.raises(ValueError):
        client._host("ftp://discord.com/api")


async def test_answers_are_timed_out_by_one_sweep_that_stops_when_none_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # one timer checks every waiting answer's deadline (not a timer per request); an answer slower than a
    # sweep but within the timeout is not cut, a stalled one is, and no sweep stays scheduled after
    monkeypatch.setattr(callbacks, "ANSWER_TIMEOUT_S", 0.3)
    async with serving([Step(delay=0.15), Step(stall=True)], monkeypatch) as server:
        client = CallbackClient()
        await post(client)  # answered after 0.15 s: several sweeps (every 0.01 s) passed over it
        assert client._waiting == {}  # an answered request no longer waits
        started = asyncio.get_running_loop().time()
        with pytest.raises(TimeoutError):
            await post(client)
        waited = asyncio.get_running_loop().time() - started
        assert 0.3 <= waited < 0.3 + 0.1  # within a sweep or two of its deadline
        assert client._waiting == {}
        await asyncio.sleep(0.05)
        assert client._sweep_handle is None  # nothing waits: the sweep has stopped
        client.close()
    assert len(server.requests) == 2
