"""`bot.ui.clicks`: a click on one of our DynamicItems runs without discord.py rebuilding the clicked
message's view or parsing the message, and every case it does not take is left to discord.py.

A real discord.py client (never connected: dispatching needs none) and payloads shaped as Discord sends
them; the items record what reached them.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from typing import Any

import discord
import pytest
from discord.utils import MISSING

from bot.ui.clicks import COMPONENTS_V2, ClickInteraction, dispatch_click, message_id, raw_components

GUILD, CHANNEL, MESSAGE, USER = 1001, 2002, 3003, 4004
SEEN: list[tuple[str, Any]] = []


class Probe(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"probe:(?P<n>[0-9]+)"):
    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label="Go", custom_id=f"probe:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> Probe:
        SEEN.append(("base", item))
        if match["n"] == "666":
            raise ValueError("no such probe")
        return cls(int(match["n"]))

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        if self.n == 13:
            raise RuntimeError("check failed")
        return self.n != 7

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        SEEN.append(("click", (self.n, interaction)))


class Pick(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"pick:(?P<n>[0-9]+)"):
    def __init__(self, n: int) -> None:
        super().__init__(
            discord.ui.Select(custom_id=f"pick:{n}", options=[discord.SelectOption(label=x) for x in "ab"])
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> Pick:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        SEEN.append(("pick", list(self.item.values)))


class Lean(Probe, template=r"lean:(?P<n>[0-9]+)"):
    """An item that reads nothing but its custom_id (as ours, `bot.ui.reply.ErrorReportingItem`)."""

    reads_clicked_item = False

    def __init__(self, n: int) -> None:
        discord.ui.DynamicItem.__init__(self, discord.ui.Button(label="Go", custom_id=f"lean:{n}"))
        self.n = n


class Direct(Lean, template=r"direct:(?P<n>[0-9]+)"):
    """An item that runs its clicks itself, never built (as a hand's buttons, `cogs.cards._HandItem`)."""

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> Direct:
        raise AssertionError("a class with run_click is never built for a click")

    @classmethod
    async def run_click(cls, interaction: discord.Interaction[Any], match: Any, /) -> None:
        if match["n"] == "666":
            raise ValueError("the click failed")
        SEEN.append(("run_click", (int(match["n"]), interaction)))


class Greedy(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"probe:(?P<n>[0-9]{1,3})"):
    """A second template matching what Probe matches: discord.py would run both."""

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> Greedy:
        return cls(discord.ui.Button(custom_id=item.custom_id))  # type: ignore[attr-defined]


def _user() -> dict[str, Any]:
    return {
        "id": str(USER),
        "username": "alice",
        "discriminator": "0",
        "global_name": "Alice",
        "avatar": None,
    }


def payload(custom_id: str = "probe:1", component_type: int = 2, **message: Any) -> dict[str, Any]:
    """A click on the message's button (or select) ``custom_id``, as Discord sends INTERACTION_CREATE."""
    row = {"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "probe:1", "id": 2}]}
    return {
        "id": "5005",
        "application_id": "6006",
        "type": 3,
        "token": "tok",
        "version": 1,
        "attachment_size_limit": 8_388_608,
        "guild_id": str(GUILD),
        "channel_id": str(CHANNEL),
        "channel": {
            "id": str(CHANNEL),
            "type": 0,
            "name": "general",
            "guild_id": str(GUILD),
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
        },
        "member": {
            "user": _user(),
            "roles": [],
            "joined_at": "2026-01-01T00:00:00+00:00",
            "permissions": "0",
            "flags": 0,
            "deaf": False,
            "mute": False,
        },
        "app_permissions": "0",
        "locale": "en-US",
        "data": {"custom_id": custom_id, "component_type": component_type},
        "message": {
            "id": str(MESSAGE),
            "channel_id": str(CHANNEL),
            "author": {**_user(), "id": "6006", "username": "bot", "bot": True},
            "content": "",
            "timestamp": "2026-01-01T00:00:00+00:00",
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [{"type": "rich", "title": "Hand #1", "fields": [{"name": "Cards", "value": "2S"}]}],
            "pinned": False,
            "type": 0,
            "flags": 0,
            "components": [row],
            **message,
        },
    }


@pytest.fixture
async def client() -> Any:
    SEEN.clear()
    bot = discord.Client(intents=discord.Intents.default())
    state = bot._connection
    state.user = discord.ClientUser(
        state=state, data={**_user(), "id": "6006", "username": "bot", "bot": True}
    )
    bot.add_dynamic_items(Probe, Pick, Lean, Direct)
    yield bot
    await bot.close()


async def settle() -> None:
    """Let the scheduled item tasks run to their end."""
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_click_on_our_item_runs_it_and_never_parses_the_message(client: discord.Client) -> None:
    assert dispatch_click(client, payload())
    await settle()
    [(first, base), (second, (n, interaction))] = SEEN
    assert (first, second) == ("base", "click") and n == 1 and isinstance(interaction, ClickInteraction)
    assert isinstance(base, discord.ui.Button) and base.custom_id == "probe:1"  # the clicked component
    assert interaction._parsed_message is MISSING  # nothing read it
    assert (
        message_id(interaction) == MESSAGE
        and raw_components(interaction) == payload()["message"]["components"]
    )
    assert interaction._parsed_message is MISSING
    assert interaction.user.id == USER and interaction.guild_id == GUILD and interaction.channel_id == CHANNEL


async def test_an_item_that_reads_only_its_custom_id_gets_no_rebuilt_component(
    client: discord.Client,
) -> None:
    row = {"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "lean:3", "id": 2}]}
    assert dispatch_click(client, payload("lean:3", components=[row]))
    await settle()
    [(first, base), (second, (n, interaction))] = SEEN
    assert (first, base, second, n) == ("base", None, "click", 3)
    assert isinstance(interaction, ClickInteraction) and interaction._parsed_message is MISSING


async def test_an_item_with_run_click_runs_the_click_without_being_built(client: discord.Client) -> None:
    row = {"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "direct:4"}]}
    assert dispatch_click(client, payload("direct:4", components=[row]))
    await settle()
    [(kind, (n, interaction))] = SEEN
    assert (kind, n) == ("run_click", 4) and isinstance(interaction, ClickInteraction)
    assert interaction._parsed_message is MISSING


async def test_the_payload_is_left_as_it_came(client: discord.Client) -> None:
    data = payload()
    before = copy.deepcopy(data)
    assert dispatch_click(client, data)
    await settle()
    assert data == before  # the message taken out while discord.py read the rest is back
    [_, (_, (_, interaction))] = SEEN
    assert interaction._raw_message is data["message"]
    del before["message"]
    bare = ClickInteraction(data=before, state=client._connection)  # type: ignore[arg-type]
    assert bare.message is None and "message" not in before


async def test_the_message_read_late_is_the_one_discord_py_builds(client: discord.Client) -> None:
    data = payload()
    assert dispatch_click(client, copy.deepcopy(data))
    await settle()
    [_, (_, (_, lazy))] = SEEN
    eager = discord.Interaction(data=data, state=client._connection)  # type: ignore[arg-type]
    late, early = lazy.message, eager.message
    assert late is not None and early is not None and lazy.message is late  # parsed once
    assert late.id == early.id == MESSAGE and late.guild is not None and late.guild.id == GUILD
    assert late.author.id == early.author.id and late.content == early.content
    assert [e.to_dict() for e in late.embeds] == [e.to_dict() for e in early.embeds]
    assert [c.to_dict() for c in late.components] == [c.to_dict() for c in early.components]
    # once parsed, the helpers read the parsed message
    assert message_id(lazy) == MESSAGE and raw_components(lazy) == [c.to_dict() for c in late.components]


async def test_a_select_gets_its_values(client: discord.Client) -> None:
    select = {
        "type": 3,
        "custom_id": "pick:4",
        "options": [{"label": "a", "value": "a"}, {"label": "b", "value": "b"}],
    }
    data = payload("pick:4", 3, components=[{"type": 1, "components": [select]}])
    data["data"]["values"] = ["b"]
    assert dispatch_click(client, data)
    await settle()
    assert SEEN == [("pick", ["b"])]


@pytest.mark.parametrize("n", [7, 13])  # the check says no; the check raises
async def test_an_item_whose_check_fails_is_not_run(client: discord.Client, n: int) -> None:
    row = {"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": f"probe:{n}"}]}
    assert dispatch_click(client, payload(f"probe:{n}", components=[row]))
    await settle()
    assert [kind for kind, _ in SEEN] == ["base"]


@pytest.mark.parametrize(
    ("custom_id", "reached", "logged"),
    [
        ("probe:666", ["base"], "Ignoring exception in dynamic item creation"),  # from_custom_id raised
        ("direct:666", [], "Ignoring exception in dynamic item callback"),  # run_click raised
    ],
)
async def test_an_item_that_fails_is_logged_as_discord_py_logs_it(
    client: discord.Client, caplog: pytest.LogCaptureFixture, custom_id: str, reached: list[str], logged: str
) -> None:
    row = {"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": custom_id}]}
    with caplog.at_level(logging.ERROR, logger="bot.ui.clicks"):
        assert dispatch_click(client, payload(custom_id, components=[row]))
        await settle()
    assert [kind for kind, _ in SEEN] == reached and logged in caplog.text


def _stored_view(client: discord.Client) -> None:
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="Go", custom_id="probe:1"))
    client.add_view(view, message_id=MESSAGE)


@pytest.mark.parametrize(
    "case",
    [
        "not on the message",
        "not ours",
        "a components-v2 message",
        "no message",
        "a message without an id",
        "rows of an unknown shape",
        "an unknown component type",
        "a stored view listens too",
        "two templates match",
    ],
)
async def test_everything_else_is_left_to_discord_py(client: discord.Client, case: str) -> None:
    data = payload()
    if case == "not on the message":
        data["data"]["custom_id"] = "probe:2"  # a forged id: discord.py finds no item for it
    elif case == "not ours":
        data["data"]["custom_id"] = "other:1"
    elif case == "a components-v2 message":
        data["message"]["flags"] = COMPONENTS_V2
    elif case == "no message":
        del data["message"]
    elif case == "a message without an id":
        del data["message"]["id"]
    elif case == "rows of an unknown shape":
        data["message"]["components"] = [["probe:1"]]
    elif case == "an unknown component type":
        data["data"]["component_type"] = 99
        data["message"]["components"][0]["components"][0]["type"] = 99
    elif case == "a stored view listens too":
        _stored_view(client)
    else:
        client.add_dynamic_items(Greedy)
    assert not dispatch_click(client, data)
    await settle()
    assert SEEN == []
