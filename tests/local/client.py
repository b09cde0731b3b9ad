"""The local table's page API as the page's script uses it: a websocket per open page, JSON posts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

WAIT = 20.0


class Live:
    """One open page: who it shows, and every message it was sent (kept by id, updated in place)."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.messages: dict[str, dict[str, Any]] = {}
        self.gone: list[str] = []

    async def be(self, person_id: str) -> None:
        """Show the table as ``person_id``; returns once the snapshot arrived."""
        await self.ws.send_json({"as": person_id})
        await self._until(lambda frame: frame["type"] == "hello")

    async def message(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first message (already here or pushed later) for which ``test`` is true."""
        for message in self.messages.values():
            if test(message):
                return message
        frame = await self._until(lambda f: f["type"] == "message" and test(f["message"]))
        return frame["message"]  # type: ignore[no-any-return]

    async def quiet(self, seconds: float = 1.0) -> None:
        """Take in whatever is pushed during ``seconds``."""
        with_deadline = asyncio.get_running_loop().time() + seconds
        while (left := with_deadline - asyncio.get_running_loop().time()) > 0:
            try:
                frame = await self.ws.receive_json(timeout=left)
            except TimeoutError:
                return
            self._take(frame)

    async def _until(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        async with asyncio.timeout(WAIT):
            while True:
                frame = await self.ws.receive_json()
                self._take(frame)
                if test(frame):
                    return frame

    def _take(self, frame: dict[str, Any]) -> None:
        if frame["type"] == "hello":
            self.state = frame["state"]
            self.messages = {m["id"]: m for m in frame["messages"]}
        elif frame["type"] == "state":
            self.state = frame["state"]
        elif frame["type"] == "message":
            self.messages[frame["message"]["id"]] = frame["message"]
        elif frame["type"] == "gone":
            self.messages.pop(frame["id"], None)
            self.gone.append(frame["id"])

    def person(self, username: str) -> str:
        return next(p["id"] for p in self.state["people"] if p["username"] == username)

    def channel(self, name: str) -> str:
        return next(c["id"] for c in self.state["channels"] if c["name"] == name)


class PageClient:
    """The page's requests against the table at ``url``."""

    def __init__(self, session: aiohttp.ClientSession, url: str) -> None:
        self.session = session
        self.url = url

    async def open(self, username: str | None = None) -> Live:
        """A page showing the table as ``username`` (default: whoever the table picks)."""
        ws = await self.session.ws_connect(f"{self.url}/api/live")
        live = Live(ws)
        await live.be("")
        if username is not None:
            await live.be(live.person(username))
        return live

    async def post(self, route: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        async with self.session.post(f"{self.url}/api/{route}", json=body) as response:
            return response.status, await response.json()

    async def command(
        self,
        live: Live,
        path: str,
        options: dict[str, Any] | None = None,
        *,
        channel: str = "table",
        files: dict[str, Path] | None = None,
    ) -> tuple[int, dict[str, Any]]:
        """Run ``/path`` as the person ``live`` shows, in ``channel`` (a name, or "dm")."""
        where = live.state["dm"] if channel == "dm" else live.channel(channel)
        body = {"as": live.state["me"], "channel": where, "path": path, "options": options or {}}
        if not files:
            return await self.post("command", body)
        form = aiohttp.FormData()
        form.add_field("json", json.dumps(body), content_type="application/json")
        for name, file in files.items():
            form.add_field(name, file.read_bytes(), filename=file.name, content_type="application/json")
        async with self.session.post(f"{self.url}/api/command", data=form) as response:
            return response.status, await response.json()

    async def click(
        self, live: Live, message: dict[str, Any], custom_id: str, values: list[str] | None = None
    ) -> tuple[int, dict[str, Any]]:
        body = {"as": live.state["me"], "message": message["id"], "custom_id": custom_id, "values": values}
        return await self.post("click", body)


def components(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Every button and select of a message, rows flattened."""
    out = []
    for row in message["components"]:
        out.extend(row.get("components") or [row])
    return out


def custom_id(message: dict[str, Any], label: str) -> str:
    for item in components(message):
        if item.get("label") == label or item.get("placeholder") == label:
            return str(item["custom_id"])
    raise AssertionError(f"no {label!r} on {message['id']}: {[c.get('label') for c in components(message)]}")


def text(message: dict[str, Any]) -> str:
    """The words of a message: content, embed titles, descriptions, fields and footers."""
    parts = [message["content"]]
    for embed in message["embeds"]:
        parts += [embed.get("title", ""), embed.get("description", "")]
        parts.append(embed.get("footer", {}).get("text", ""))
        for field in embed.get("fields", []):
            parts += [field["name"], field["value"]]
    return "\n".join(p for p in parts if p)
