"""bench/plain_bot.py, the floor bench/latency.py judges the bot against, does its work right.

It runs as latency.py runs it (a subprocess on the fake Discord, prepared by latency.py's own floors):
its command reads the sheet, logs the roll and answers with the embed; its button moves the stored hand
and edits the message; a stranger's click is refused and moves nothing.
"""

import json
import sqlite3
import sys

import pytest

from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))  # the bench scripts import each other by name

import latency
from _common import fire, launch, open_fake

pytestmark = pytest.mark.slow


def field(embed: dict, name: str) -> str:
    return next(f["value"] for f in embed["fields"] if f["name"] == name)


async def test_plain_bot_answers_its_command_and_its_button(tmp_path) -> None:
    fake, world = await open_fake()
    bot = await launch("plain", fake, tmp_path / "plain.db")
    try:
        make = await latency.PLAIN_COMMAND.prepare(fake, world, bot, 3)
        checks = [make(i) for i in range(3)]
        run = await fire(fake, checks, 2, "check", latency.PLAIN_COMMAND.check, bot)
        assert run.errors == [] and len(run.latencies) == 3
        for record in checks:
            embed = record.original.embed
            assert embed["title"] == "Alice Bench: Climb"
            assert field(embed, "Skill Value") == "Strength 12 + Climb 3 = 15"
            natural = int(field(embed, "Roll").removeprefix("d20: **").removesuffix("**"))
            verdict = "success" if natural <= 15 else "failure"
            assert field(embed, "Result") == f"{15 - natural:+d} {verdict}"

        make = await latency.PLAIN_BUTTON.prepare(fake, world, bot, 4)
        hits = [make(i) for i in range(4)]
        run = await fire(fake, hits, 4, "hit", latency.PLAIN_BUTTON.check, bot)
        assert run.errors == [] and len(run.latencies) == 4
        for record in hits:
            cards = [int(c) for c in field(record.original.embed, "Cards").split(", ")]
            assert len(cards) == 3 and record.original.edits == 1
            assert field(record.original.embed, "Total").startswith(f"**{sum(cards)}**")
            # a hand at 21 or more is over: its Hit button goes
            clicked = [] if sum(cards) >= 21 else [record.payload["data"]["custom_id"]]
            assert record.original.custom_ids() == clicked

        stranger = fake.interaction_payload(
            3, hits[0].payload["data"], user=world.bob, channel=hits[0].channel, message=hits[0].original
        )
        refused = await fire(fake, [stranger], 1, "stranger", lambda r: None, bot)
        assert refused.errors == [] and stranger.original.ephemeral
        assert stranger.original.content == "This is not your hand."
    finally:
        await bot.stop()
        await fake.stop()
    assert bot.error_lines() == []
    with sqlite3.connect(tmp_path / "plain.db") as db:
        rolls = db.execute("SELECT command, json(dice), result FROM rolls").fetchall()
        hands = db.execute("SELECT cards, version FROM hands ORDER BY id").fetchall()
        [[mode]] = db.execute("PRAGMA journal_mode").fetchall()
    assert mode == "wal"
    shown = [(field(r.original.embed, "Roll"), field(r.original.embed, "Result")) for r in checks]
    assert sorted((f"d20: **{json.loads(d)[0]}**", result) for c, d, result in rolls) == sorted(shown)
    assert {c for c, _, _ in rolls} == {"check"}
    assert [(len(json.loads(cards)), version) for cards, version in hands] == [(3, 2)] * 4
