"""The local table's page: aiohttp serves the static page, the messages' files, a websocket that pushes
what the chosen person sees (and every later change), and the actions a person takes (JSON POSTs)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import mimetypes
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import BodyPartReader, WSMsgType, web

from bot.local.play import PlayError, Table, Upload
from bot.local.stand_in import FakeDiscord, FakeMessage
from bot.local.view import ChangeWatcher, message_json, sees, state_json, visible
from bot.local.world import Person, TableWorld

log = logging.getLogger(__name__)
STOP_WAIT = 2.0  # seconds the open requests and live pages get to finish when the table stops
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

STATIC = Path(__file__).parent / "static"
FALLBACK_LOOK = 0.5  # how often changes are looked for when no REST call announced one
MAX_UPLOAD = 25 * 1024 * 1024  # Discord's upload limit for a server without boosts


def listen(port: int, host: str = "127.0.0.1") -> socket.socket:
    """A listening socket on ``host:port`` (0: any free port); OSError when the port is taken. Taken
    first, so a second table started by mistake stops before it touches the first one's files."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # a table restarted at once finds its port in TIME_WAIT for a minute; a port another table listens on
    # is still refused (that would take SO_REUSEPORT)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen(128)
    except OSError:
        listener.close()
        raise
    return listener


class Viewer:
    """One open page: who it shows the table as, and which messages it has drawn."""

    def __init__(self, socket: web.WebSocketResponse, person: Person) -> None:
        self.socket = socket
        self.person = person
        self.shown: set[int] = set()


class TablePage:
    """The page's web server; ``await page.start(port)`` gives its address."""

    def __init__(
        self, fake: FakeDiscord, world: TableWorld, *, on_change: Callable[[], None] | None = None
    ) -> None:
        self.fake = fake
        self.world = world
        self.table = Table(fake, world)
        self.on_change = on_change or (lambda: None)
        self.viewers: list[Viewer] = []
        self._watcher = ChangeWatcher(fake)
        self._poke = asyncio.Event()
        self._commands: list[dict[str, Any]] = fake.global_commands
        self._runner: web.AppRunner | None = None
        self._watch: asyncio.Task[None] | None = None
        self.url = ""

    # -- lifecycle --------------------------------------------------------------------------------------
    def application(self) -> web.Application:
        app = web.Application(client_max_size=MAX_UPLOAD + 1024 * 1024, middlewares=[self._same_site])
        app.router.add_get("/", self._index)
        app.router.add_static("/static/", STATIC)
        app.router.add_get("/files/{id}/{name}", self._file)
        app.router.add_get("/api/live", self._live)
        app.router.add_post("/api/command", self._command)
        app.router.add_post("/api/autocomplete", self._autocomplete)
        app.router.add_post("/api/click", self._click)
        app.router.add_post("/api/say", self._say)
        app.router.add_post("/api/rename", self._rename)
        return app

    async def start(self, listener: socket.socket) -> str:
        """Serve on ``listener`` (from `listen`); the page's address."""
        # a page's requests still open when the table stops get a moment, not aiohttp's default minute
        self._runner = web.AppRunner(self.application(), access_log=None, shutdown_timeout=STOP_WAIT)
        await self._runner.setup()
        await web.SockSite(self._runner, listener).start()
        host, port = listener.getsockname()[:2]
        self.url = f"http://{host}:{port}"
        self._watcher.changed()  # what the world brought from before is drawn from snapshots, not pushed
        self.fake.request_hooks.append(self._on_request)
        self._watch = asyncio.create_task(self._watch_changes(), name="local-table-watch")
        return self.url

    async def stop(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            # wait, not await: a cancel of this stop itself must not be swallowed with the watch's
            await asyncio.wait({self._watch})
        for viewer in list(self.viewers):
            await viewer.socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- pushing changes --------------------------------------------------------------------------------
    async def _on_request(self, _method: str, _path: str, _body: Any) -> None:
        # called before the stand-in handles the bot's request: look once it has been handled
        asyncio.get_running_loop().call_later(0.01, self.poke)

    def poke(self) -> None:
        """Look for changes now rather than at the next fallback look."""
        self._poke.set()

    async def _watch_changes(self) -> None:
        while True:
            # not wait_for: on Python 3.11 it swallows a cancel that lands as the poke arrives, and the
            # table then never stopped
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(FALLBACK_LOOK):
                    await self._poke.wait()
            self._poke.clear()
            try:
                await self.push()
            except Exception:  # a page that went away mid-send must not stop the pushes to the others
                log.exception("Could not update the open pages")

    async def push(self) -> None:
        """Send every open page the messages created, edited or deleted since the last push."""
        changed = self._watcher.changed()
        if changed:
            self.on_change()
        if self.fake.global_commands is not self._commands:  # the bot synced its commands
            self._commands = self.fake.global_commands
            self.on_change()
            await self.push_state()
        for viewer in list(self.viewers):
            for message in changed:
                await self._show(viewer, message)

    async def push_state(self) -> None:
        for viewer in list(self.viewers):
            await self._send(viewer, {"type": "state", "state": state_json(self.world, viewer.person)})

    async def _show(self, viewer: Viewer, message: FakeMessage) -> None:
        if sees(self.world, viewer.person, message):
            viewer.shown.add(message.id)
            await self._send(viewer, {"type": "message", "message": message_json(self.world, message)})
        elif message.id in viewer.shown:
            viewer.shown.discard(message.id)
            await self._send(viewer, {"type": "gone", "id": str(message.id)})

    async def _send(self, viewer: Viewer, data: dict[str, Any]) -> None:
        if viewer.socket.closed:
            return
        with contextlib.suppress(ConnectionError):
            await viewer.socket.send_json(data)

    async def _snapshot(self, viewer: Viewer) -> None:
        messages = visible(self.world, viewer.person)
        viewer.shown = {m.id for m in messages}
        await self._send(
            viewer,
            {
                "type": "hello",
                "state": state_json(self.world, viewer.person),
                "messages": [message_json(self.world, m) for m in messages],
            },
        )

    # -- routes -----------------------------------------------------------------------------------------
    @web.middleware
    async def _same_site(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Only this page may act: another site open in the same browser could otherwise post commands
        (a form needs no permission to post to 127.0.0.1) or read the table through the websocket, and a
        name that resolves to 127.0.0.1 could stand in for it."""
        port = self.url.rsplit(":", 1)[-1]
        if request.host not in (f"127.0.0.1:{port}", f"localhost:{port}"):
            raise web.HTTPForbidden(text="Open the local table at its printed address.")
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"http://{request.host}":
            raise web.HTTPForbidden(text="Only the local table's own page can do that.")
        return await handler(request)

    async def _index(self, _request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def _file(self, request: web.Request) -> web.Response:
        try:
            att = self.fake.attachments.get(int(request.match_info["id"]))
        except ValueError:
            att = None
        if att is None:
            raise web.HTTPNotFound()
        kind = mimetypes.guess_type(att.filename)[0] or att.content_type or "application/octet-stream"
        return web.Response(body=att.data, headers={"Content-Type": kind})

    async def _live(self, request: web.Request) -> web.WebSocketResponse:
        """Send ``{"as": person id}`` to choose who the page shows; the server answers with a snapshot
        (``hello``), then pushes ``message``, ``gone`` and ``state`` as things change."""
        ws = web.WebSocketResponse(heartbeat=30)
        await ws.prepare(request)
        viewer: Viewer | None = None
        try:
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    continue
                try:
                    person = self.world.person(frame.json().get("as", ""))
                except (ValueError, AttributeError):
                    person = self.world.people[0]
                if viewer is None:
                    viewer = Viewer(ws, person)
                    self.viewers.append(viewer)
                viewer.person = person
                await self._snapshot(viewer)
        finally:
            if viewer is not None:
                self.viewers.remove(viewer)
        return ws

    async def _command(self, request: web.Request) -> web.Response:
        uploads: dict[str, Upload] = {}
        if request.content_type.startswith("multipart/"):
            body: dict[str, Any] = {}
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                if not isinstance(part, BodyPartReader):
                    continue
                if part.name == "json":
                    body = await part.json() or {}
                elif part.name and part.filename:
                    data = await part.read()
                    kind = part.headers.get("Content-Type", "application/octet-stream")
                    uploads[part.name] = Upload(part.filename, bytes(data), kind)
        else:
            body = await request.json()
        return await self._act(
            lambda person: self.table.command(
                person, body.get("channel", ""), str(body.get("path", "")), body.get("options") or {}, uploads
            ),
            body,
        )

    async def _autocomplete(self, request: web.Request) -> web.Response:
        body = await request.json()
        try:
            person = self.world.person(body.get("as", ""))
            choices = await self.table.autocomplete(
                person,
                body.get("channel", ""),
                str(body.get("path", "")),
                body.get("options") or {},
                str(body.get("focused", "")),
            )
        except (PlayError, ValueError) as err:
            return web.json_response({"error": str(err)}, status=400)
        return web.json_response({"choices": choices})

    async def _click(self, request: web.Request) -> web.Response:
        body = await request.json()
        return await self._act(
            lambda person: self.table.click(
                person, body.get("message", ""), str(body.get("custom_id", "")), body.get("values")
            ),
            body,
        )

    async def _say(self, request: web.Request) -> web.Response:
        body = await request.json()

        async def say(person: Person) -> None:
            self.table.say(person, body.get("channel", ""), str(body.get("text", "")))

        return await self._act(say, body)

    async def _rename(self, request: web.Request) -> web.Response:
        body = await request.json()
        try:
            self.world.rename(self.world.person(body.get("id", "")), str(body.get("name", "")))
        except ValueError as err:
            return web.json_response({"error": str(err)}, status=400)
        self.on_change()
        await self.push_state()
        return web.json_response({"ok": True})

    async def _act(self, action: Callable[[Person], Any], body: dict[str, Any]) -> web.Response:
        try:
            person = self.world.person(body.get("as", ""))
            await action(person)
        except (PlayError, ValueError) as err:
            return web.json_response({"error": str(err)}, status=400)
        self._poke.set()
        return web.json_response({"ok": True})
