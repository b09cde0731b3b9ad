"""The local table end to end, through the page's own API (no browser): `python -m bot` without a token,
the real bot behind the stand-in, what each person is shown, and what is kept between runs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest

from tests.local.client import Live, PageClient, custom_id, text
from tests.local.launch import RunningTable, launch, running_table

pytestmark = pytest.mark.slow


@pytest.fixture
def table(tmp_path: Path) -> Iterator[RunningTable]:
    with running_table(tmp_path) as running:
        yield running


@pytest.fixture
async def client(table: RunningTable) -> AsyncIterator[PageClient]:
    async with aiohttp.ClientSession() as session:
        yield PageClient(session, table.url)


def titled(words: str):  # type: ignore[no-untyped-def]
    return lambda m: any(words in (e.get("title") or "") for e in m["embeds"])


def hand_number(number: int):  # type: ignore[no-untyped-def]
    """A hand's message: its number is in the footer."""
    return lambda m: any((e.get("footer") or {}).get("text") == f"Hand #{number}" for e in m["embeds"])


def answer_to(command: str):  # type: ignore[no-untyped-def]
    return lambda m: (m["used"] or {}).get("command") == command and bool(m["embeds"])


def name_of(live: Live, username: str) -> str:
    return next(p["name"] for p in live.state["people"] if p["username"] == username)


async def make_sheet(client: PageClient, live: Live, name: str = "Ayla") -> None:
    for path, options in (
        ("sheet create", {"name": name, "system": "sysx"}),
        ("sheet set-attribute", {"name": name, "attribute": "Agility", "value": 12}),
        ("sheet set-skill", {"name": name, "skill": "Stealth", "rating": 3, "parent": "Agility"}),
    ):
        assert await client.command(live, path, options) == (200, {"ok": True})


async def test_the_page_shows_the_synced_commands_and_a_command_reaches_the_real_bot(
    client: PageClient, table: RunningTable
) -> None:
    owner = await client.open()
    assert [p["kind"] for p in owner.state["people"]] == ["owner", "gm", "player", "player", "player"]
    assert [c["name"] for c in owner.state["channels"]] == ["table", "gm-screen"]
    names = {c["name"] for c in owner.state["commands"]["guild"]}
    assert {"sysx", "cards", "odds", "sheet", "gm", "setup", "help"} <= names
    # a new table's owner named the GM channel with the bot's own command, as the first thing on a server
    settings = await owner.message(lambda m: (m["used"] or {}).get("command") == "/setup gm-channel")
    assert settings["ephemeral"] and "#gm-screen" not in text(settings)  # a mention: the page names it
    assert f"<#{owner.channel('gm-screen')}>" in text(settings)

    alice = await client.open("alice")
    assert await client.command(alice, "sysx check", {"sv": 12}) == (200, {"ok": True})
    rolled = await alice.message(answer_to("/sysx check"))
    assert rolled["used"] == {"user": alice.state["me"], "name": "Alice", "command": "/sysx check"}
    assert not rolled["ephemeral"] and rolled["embeds"][0]["color"]
    assert await owner.message(lambda m: m["id"] == rolled["id"])  # pushed to every open page


async def test_each_person_sees_only_what_is_theirs(client: PageClient) -> None:
    alice, bob, gm = await client.open("alice"), await client.open("bob"), await client.open("robin")
    assert [c["name"] for c in bob.state["channels"]] == ["table"]  # the GM channel is the GMs'
    await client.command(alice, "sysx check", {"sv": 12, "visibility": "private"})
    secret = await alice.message(lambda m: m["ephemeral"] and bool(m["embeds"]))
    notice = await bob.message(lambda m: "private roll" in m["content"])
    await alice.message(lambda m: m["id"] == notice["id"])
    await asyncio.gather(bob.quiet(), gm.quiet())
    assert secret["id"] not in bob.messages and secret["id"] not in gm.messages

    await client.command(alice, "sysx check", {"sv": 12, "visibility": "gm"})
    copy = await gm.message(lambda m: m["channel"] == gm.channel("gm-screen") and bool(m["embeds"]))
    await asyncio.gather(bob.quiet(), alice.quiet())
    assert copy["id"] not in bob.messages and copy["id"] not in alice.messages
    status, refused = await client.post(
        "command", {"as": bob.state["me"], "channel": gm.channel("gm-screen"), "path": "help", "options": {}}
    )
    assert (status, refused) == (400, {"error": "You cannot write in that channel."})


async def test_autocomplete_buttons_and_selects_go_through_the_bot(client: PageClient) -> None:
    alice = await client.open("alice")
    await make_sheet(client, alice)
    status, answer = await client.post(
        "autocomplete",
        {
            "as": alice.state["me"],
            "channel": alice.channel("table"),
            "path": "sysx check",
            "options": {"skill": "Ste"},
            "focused": "skill",
        },
    )
    assert status == 200 and "Stealth" in [c["value"] for c in answer["choices"]]

    # the select: a skill adder on a fresh hand
    await client.command(alice, "cards task", {"difficulty": 2, "level": 3})
    first = await alice.message(hand_number(1))
    select = next(c for row in first["components"] for c in row["components"] if c["type"] == 3)
    chosen = select["options"][0]["value"]
    assert await client.click(alice, first, select["custom_id"], [chosen]) == (200, {"ok": True})
    await alice.message(lambda m: m["id"] == first["id"] and m["embeds"] != first["embeds"])
    # the buttons: Hit, then Stand, on the same message, edited in place
    await client.command(alice, "cards task", {"difficulty": 2, "level": 3})
    hand = await alice.message(hand_number(2))
    assert {"Hit", "Stand"} <= {c.get("label") for row in hand["components"] for c in row["components"]}
    assert await client.click(alice, hand, custom_id(hand, "Hit")) == (200, {"ok": True})
    hit = await alice.message(lambda m: m["id"] == hand["id"] and m["embeds"] != hand["embeds"])
    assert await client.click(alice, hit, custom_id(hit, "Stand")) == (200, {"ok": True})
    done = await alice.message(lambda m: m["id"] == hand["id"] and "Hit" not in str(m["components"]))
    assert "in play" not in done["embeds"][0]["title"]
    # a stranger's click on someone else's hand is the bot's to refuse, one sentence to them only
    bob = await client.open("bob")
    await client.command(alice, "cards task", {"difficulty": 2, "level": 3})
    third = await alice.message(hand_number(3))
    assert await client.click(bob, third, custom_id(third, "Hit")) == (200, {"ok": True})
    refusal = await bob.message(lambda m: m["ephemeral"] and "Only the player" in m["content"])
    await alice.quiet(0.5)
    assert refusal["id"] not in alice.messages


async def test_a_sheet_is_imported_from_a_file_attached_on_the_page(
    client: PageClient, tmp_path: Path
) -> None:
    alice = await client.open("alice")
    await make_sheet(client, alice)
    await client.command(alice, "sheet export", {"name": "Ayla"})
    exported = await alice.message(lambda m: any(a["filename"].endswith(".json") for a in m["attachments"]))
    [file] = exported["attachments"]
    async with client.session.get(client.url + file["url"]) as response:
        document = await response.json(content_type=None)
    assert document["skills"]["Stealth"]["rating"] == 3
    await client.command(alice, "sheet delete", {"name": "Ayla", "confirm": True})
    upload = tmp_path / "ayla.json"
    upload.write_text(json.dumps(document))
    assert await client.command(alice, "sheet import", files={"file": upload}) == (200, {"ok": True})
    await alice.message(lambda m: "Imported Ayla" in m["content"])


async def test_what_the_page_cannot_send_gets_one_sentence(client: PageClient) -> None:
    alice = await client.open("alice")
    assert await client.command(alice, "sysx check", {"sv": 99}) == (
        400,
        {"error": "sv: enter a number from -60 to 60."},
    )
    assert await client.command(alice, "sheet create", {"name": "Ayla"}) == (
        400,
        {"error": "/sheet create needs options ['system']"},
    )
    assert await client.command(alice, "sysx", {}) == (400, {"error": "/sysx needs a subcommand."})
    assert await client.command(alice, "nope", {}) == (400, {"error": "There is no command /nope here."})
    status, answer = await client.post("rename", {"id": alice.state["me"], "name": " "})
    assert (status, answer) == (400, {"error": "A name is 1 to 32 characters."})


def test_the_table_says_it_keeps_its_own_data_when_database_url_is_set(tmp_path: Path) -> None:
    # the table never uses the bot's PostgreSQL: a GM trying it out is told, not left to believe it did
    url = "postgresql://bot:s3cret@127.0.0.1:1/bot"
    with running_table(tmp_path, DATABASE_URL=url) as table:
        assert table.process.stdout is not None
        line = table.process.stdout.readline().strip()
    assert line.startswith("The local table keeps its data in ") and line.endswith(
        "local.db; DATABASE_URL is used by the bot on Discord."
    )


async def test_the_table_is_kept_between_runs_and_fresh_starts_over(tmp_path: Path) -> None:
    first = launch(tmp_path)
    try:
        async with aiohttp.ClientSession() as session:
            client = PageClient(session, first.url)
            alice = await client.open("alice")
            assert await client.post("rename", {"id": alice.state["me"], "name": "Ayla the Bold"}) == (
                200,
                {"ok": True},
            )
            await make_sheet(client, alice)
            await client.command(alice, "cards task", {"difficulty": 2, "level": 3})
            hand = await alice.message(titled("cards task"))
            await alice.quiet(0.5)
    finally:
        assert first.stop() == 0
    assert "synced globally" in first.log()

    with running_table(tmp_path) as second:
        assert "unchanged, not synced" in second.log()  # the stand-in kept the commands, like Discord
        async with aiohttp.ClientSession() as session:
            client = PageClient(session, second.url)
            alice = await client.open("alice")
            assert name_of(alice, "alice") == "Ayla the Bold"
            kept = alice.messages[hand["id"]]
            assert kept["embeds"] == hand["embeds"]
            # the hand's buttons still work: the bot reloads the hand from its store
            assert await client.click(alice, kept, custom_id(kept, "Hit")) == (200, {"ok": True})
            await alice.message(lambda m: m["id"] == hand["id"] and m["embeds"] != hand["embeds"])
            await client.command(alice, "sheet list", {})
            await alice.message(lambda m: "Ayla" in text(m) and m["ephemeral"])

    with running_table(tmp_path, "--fresh") as third:
        assert "synced globally" in third.log()
        async with aiohttp.ClientSession() as session:
            client = PageClient(session, third.url)
            alice = await client.open("alice")
            assert name_of(alice, "alice") == "Alice"
            assert hand["id"] not in alice.messages
            await client.command(alice, "sheet list", {})
            listed = await alice.message(lambda m: (m["used"] or {}).get("command") == "/sheet list")
            assert "Ayla" not in text(listed)


async def test_a_gm_copy_sent_by_dm_is_in_the_gms_dm_pane_only(client: PageClient) -> None:
    owner, gm = await client.open("sam"), await client.open("robin")
    alice, bob = await client.open("alice"), await client.open("bob")
    assert await client.command(owner, "setup gm-channel", {"remove": True}) == (200, {"ok": True})
    assert await client.command(gm, "gm claim", {}) == (200, {"ok": True})
    await client.command(alice, "sysx check", {"sv": 12, "visibility": "gm"})
    copy = await gm.message(lambda m: m["channel"] == gm.state["dm"] and bool(m["embeds"]))
    assert "GM roll by" in copy["content"]
    await asyncio.gather(alice.quiet(), bob.quiet(), owner.quiet())
    assert all(copy["id"] not in live.messages for live in (alice, bob, owner))
    # the GM reveals it from the DM: the result goes to the table, where everyone sees it
    assert await client.click(gm, copy, custom_id(copy, "Reveal")) == (200, {"ok": True})
    await bob.message(lambda m: m["channel"] == bob.channel("table") and "Revealed" in text(m))


async def test_commands_work_in_the_bots_dm(client: PageClient) -> None:
    alice, bob = await client.open("alice"), await client.open("bob")
    dm_commands = {c["name"] for c in alice.state["commands"]["dm"]}
    assert "help" in dm_commands and "cards" not in dm_commands  # /cards is for server channels only
    assert await client.command(alice, "help", {}, channel="dm") == (200, {"ok": True})
    answer = await alice.message(lambda m: m["channel"] == alice.state["dm"] and bool(m["embeds"]))
    await bob.quiet()
    assert answer["id"] not in bob.messages
    assert await client.command(alice, "cards shoe", {}, channel="dm") == (
        400,
        {"error": "There is no command /cards shoe here."},
    )


async def test_only_the_tables_own_page_can_act(client: PageClient) -> None:
    alice = await client.open("alice")
    body = {"as": alice.state["me"], "channel": alice.channel("table"), "text": "hello"}
    for headers in ({"Origin": "http://evil.test"}, {"Host": "evil.test"}):
        async with client.session.post(f"{client.url}/api/say", json=body, headers=headers) as response:
            assert response.status == 403
    with pytest.raises(aiohttp.WSServerHandshakeError):
        await client.session.ws_connect(f"{client.url}/api/live", origin="http://evil.test")
    await alice.quiet(0.5)
    assert not any(m["content"] == "hello" for m in alice.messages.values())
    assert await client.post("say", body) == (200, {"ok": True})  # the page itself (same origin) may
    await alice.message(lambda m: m["content"] == "hello")
