"""`/log` end to end: public rolls for everyone, hidden rolls' results only for GMs (issue 7), and the export.

Rows are written with ``store.log.add`` (the system cogs are built elsewhere); every hidden row carries
unique words and dice so a leak shows up in the text a player sees.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import sys

import pytest

from bot.local.fake.harness import Answer, Harness, World
from bot.store import RollRecord
from cogs.log import LINE_MAX, log_line

# per row: visibility, roller (World attribute), what only allowed readers may see
ROWS = [
    ("public", "alice", "Sword check: S3 success", [17], "S3"),
    ("private", "alice", "PRIVSECRET check: F2 failure", [4, 91], "F2-PRIV"),
    ("gm", "bob", "GMSECRET check: S1 success", [13, 92], "S1-GM"),
    ("blind", "carol", "BLINDSECRET check: CS", [1, 93], "CS-BLIND"),
]


async def add_rows(harness: Harness, world: World, channel=None) -> dict[str, int]:
    ids = {}
    for visibility, who, summary, dice, result in ROWS:
        ids[visibility] = await harness.bot.store.log.add(
            RollRecord(
                guild_id=world.guild.id,
                channel_id=(channel or world.general).id,
                user_id=getattr(world, who).id,
                system="sysx",
                command="sysx check",
                visibility=visibility,
                inputs={"sv": 12, "margin": result},
                dice=dice,
                result=result,
                summary=summary,
            )
        )
    return ids


def secrets_of(visibility: str) -> list[str]:
    _, _, summary, dice, result = next(r for r in ROWS if r[0] == visibility)
    return [summary.split()[0], f"dice {' '.join(map(str, dice))}", result]


def assert_hidden(answer: Answer, visibility: str) -> None:
    text = answer.text()
    for secret in secrets_of(visibility):
        assert secret not in text, f"{secret!r} of a {visibility} roll leaked: {text!r}"


def assert_shown(answer: Answer, visibility: str) -> None:
    text = answer.text()
    for secret in secrets_of(visibility)[:2]:  # the line shows the summary (the result's words) and dice
        assert secret in text, f"{secret!r} of a {visibility} roll missing: {text!r}"


async def log(harness: Harness, world: World, user, options: dict | None = None, channel=None) -> Answer:
    return await harness.slash(world.guild, channel or world.general, user, "log", options or {})


async def test_gms_see_every_roll(harness: Harness, world: World) -> None:
    await add_rows(harness, world)
    for viewer in (world.gm, world.manager, world.owner):
        answer = await log(harness, world, viewer)
        assert answer.ephemeral and answer.embed["title"] == "Last 4 rolls in this channel"
        for visibility in ("public", "private", "gm", "blind"):
            assert_shown(answer, visibility)
        lines = answer.embed["description"].splitlines()
        assert "Sword check" in lines[0] and "BLINDSECRET" in lines[-1]  # oldest first


async def test_players_see_hidden_rolls_only_as_hidden(harness: Harness, world: World) -> None:
    await add_rows(harness, world)
    # a bystander sees the public roll and nothing of the three hidden ones
    dave = await log(harness, world, world.carol)  # carol rolled the blind one: she must not see it either
    assert dave.ephemeral
    assert_shown(dave, "public")
    for visibility in ("private", "gm", "blind"):
        assert_hidden(dave, visibility)
    assert dave.text().count("hidden roll") == 3
    assert "hidden roll (blind, System X)" in dave.text()
    # the private roll's own roller sees it; the gm roll's roller saw it when rolling and sees it too
    alice = await log(harness, world, world.alice)
    assert_shown(alice, "private")
    assert_hidden(alice, "gm")
    assert_hidden(alice, "blind")
    bob = await log(harness, world, world.bob)
    assert_shown(bob, "gm")
    assert_hidden(bob, "private")
    assert_hidden(bob, "blind")
    for answer in (dave, alice, bob):
        assert answer.public() == []


async def test_a_revealed_roll_is_visible_to_everyone(harness: Harness, world: World) -> None:
    ids = await add_rows(harness, world)
    assert await harness.bot.store.log.mark_revealed(ids["blind"], world.gm.id)
    answer = await log(harness, world, world.alice)
    assert_shown(answer, "blind")
    assert "(blind, revealed)" in answer.text()
    assert_hidden(answer, "gm")


async def test_count_and_channel(harness: Harness, world: World) -> None:
    store = harness.bot.store
    for n in range(30):
        await store.log.add(
            RollRecord(
                guild_id=world.guild.id,
                channel_id=world.general.id,
                user_id=world.alice.id,
                system="dn",
                command="dn check",
                result=f"roll number {n}",
            )
        )
    default = await log(harness, world, world.alice)
    assert len(default.embed["description"].splitlines()) == 10
    assert "roll number 29" in default.text() and "roll number 19" not in default.text()
    most = await log(harness, world, world.alice, {"count": 25})
    assert len(most.embed["description"].splitlines()) == 25
    elsewhere = await log(harness, world, world.alice, channel=world.gm_screen)
    assert "No rolls in this channel yet." in elsewhere.text()


async def test_export_gives_gms_everything_and_players_only_what_they_may_see(
    harness: Harness, world: World
) -> None:
    await add_rows(harness, world)
    full = await log(harness, world, world.gm, {"export": "jsonl"})
    assert full.ephemeral and "every roll" in full.content
    [file] = full.original.attachments
    rows = [json.loads(line) for line in file.data.decode().splitlines()]
    assert [r["visibility"] for r in rows] == ["public", "private", "gm", "blind"]
    # on the terms of /log: Alice's own private roll too; Bob's gm roll and Carol's blind one not
    player = await log(harness, world, world.alice, {"export": "csv"})
    assert "your own private and gm rolls" in player.content
    [file] = player.original.attachments
    assert file.filename.endswith(".csv")
    table = list(csv.DictReader(io.StringIO(file.data.decode())))
    assert [r["visibility"] for r in table] == ["public", "private"]
    for visibility in ("gm", "blind"):
        for secret in secrets_of(visibility)[:2]:
            assert secret.encode() not in file.data
    # Bob sees his gm roll; Carol never her blind one (its roller never sees a blind result)
    bob = await log(harness, world, world.bob, {"export": "jsonl"})
    assert [
        json.loads(line)["visibility"] for line in bob.original.attachments[0].data.decode().splitlines()
    ] == [
        "public",
        "gm",
    ]
    carol = await log(harness, world, world.carol, {"export": "jsonl"})
    assert b"BLINDSECRET" not in carol.original.attachments[0].data


def alices_check(world: World, summary: str, dice: list[int], result: str) -> RollRecord:
    """An RPS check of Alice's in #general, as the log stores it."""
    return RollRecord(
        guild_id=world.guild.id,
        channel_id=world.general.id,
        user_id=world.alice.id,
        system="rps",
        command="rps check",
        inputs={"base": 12},
        dice=dice,
        result=result,
        summary=summary,
    )


async def test_a_long_logs_export_defers_first_and_is_built_off_the_event_loop(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [alices_check(world, f"roll {i}", [i % 10 + 1, 7], f"SL {i % 9}") for i in range(2_000)]
    await asyncio.gather(*(harness.bot.store.log.add(row) for row in rows))
    cog_module = sys.modules[type(harness.bot.get_cog("Log")).__module__]  # as the bot loaded it
    monkeypatch.setattr(cog_module, "EXPORT_SLICE", 500)
    jobs = harness.bot.chart_workers.jobs
    answer = await log(harness, world, world.gm, {"export": "csv"})
    assert answer.callback_type == 5  # deferred: the reading and building come after the acknowledgement
    # built in the worker process, a slice of rows per job (so odds and charts never wait for a whole file)
    assert harness.bot.chart_workers.jobs == jobs + 4
    [file] = answer.original.attachments
    table = list(csv.DictReader(io.StringIO(file.data.decode())))
    assert answer.ephemeral and [r["summary"] for r in table] == [f"roll {i}" for i in range(2_000)]
    assert file.data.decode().count("id,guild_id,") == 1  # one header row


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
async def test_an_export_cut_to_its_size_keeps_whole_rolls_the_oldest_first(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:  # a cut in a row (or in a character: "é" is two bytes) would leave a file no reader takes
    for i in range(60):
        await harness.bot.store.log.add(alices_check(world, f"roll {i} de la fée éèà", [3, 7], "SL 2"))
    cog_module = sys.modules[type(harness.bot.get_cog("Log")).__module__]
    monkeypatch.setattr(cog_module, "EXPORT_SLICE", 7)  # the cut falls inside a slice, not between two
    whole = (await log(harness, world, world.gm, {"export": fmt})).original.attachments[0].data
    limit = len(whole) // 3 + 5  # (+5: off a row's end)
    monkeypatch.setattr(cog_module, "MAX_EXPORT_BYTES", limit)
    answer = await log(harness, world, world.gm, {"export": fmt})
    [file] = answer.original.attachments
    assert 0 < len(file.data) <= limit and whole.startswith(file.data)
    text = file.data.decode("utf-8")  # whole characters
    if fmt == "csv":
        summaries = [r["summary"] for r in csv.DictReader(io.StringIO(text))]
    else:
        summaries = [json.loads(line)["summary"] for line in text.splitlines()]
    assert summaries == [f"roll {i} de la fée éèà" for i in range(len(summaries))]  # the oldest, each whole
    assert 10 < len(summaries) < 60
    assert f"cut at {limit:,} bytes: the oldest rolls are all in it" in answer.content  # the limit it had


async def test_log_in_a_dm(harness: Harness, world: World) -> None:
    dm = harness.fake.dm_channel(world.stranger)
    await harness.bot.store.log.add(
        RollRecord(
            guild_id=None,
            channel_id=dm.id,
            user_id=world.stranger.id,
            system="decision",
            command="decision roll",
            visibility="private",
            result="total 9",
            summary="DMROLL total 9",
        )
    )
    answer = await harness.slash(None, None, world.stranger, "log")
    assert answer.ephemeral and "DMROLL total 9" in answer.text()  # their own private roll


def test_a_long_line_keeps_its_outcome_and_visibility() -> None:
    # a line is at most LINE_MAX: long names lose the dice first, then who rolled what, never the verdict
    long = "Climbing the north face of the Cathedral of Saint Evermore in a storm"
    record = RollRecord(
        id=12, guild_id=1, channel_id=2, user_id=123456789012345678, system="sysx", command="sysx opposed",
        result="S2", summary=f"Opposed: Alice ({long}) vs Bob ({long}): actor succeeds by S2",
        dice=[14, 3], visibility="gm",
    )  # fmt: skip
    line = log_line(record, visible=True)
    assert len(line) <= LINE_MAX and line.endswith(": actor succeeds by S2 (gm)"), line
    assert "[dice" not in line and "Opposed: Alice (Climbing" in line
    short = record.model_copy(update={"summary": "Opposed: Alice vs Bob: actor succeeds by S2"})
    assert log_line(short, visible=True).endswith(
        "Opposed: Alice vs Bob: actor succeeds by S2 [dice 14 3] (gm)"
    )
