"""Every interaction is acknowledged within 3 s, whatever Discord does elsewhere and however slow the bot.

A command that makes another REST call before its answer (a GM's copy in the GM channel, a DM to a GM,
opening a DM channel, a reveal's post, a file upload) acknowledges first. Each test makes that other call
slow (5 s) or rate limited (429, retry after 4 s): the interaction's first callback still comes within
3 s, the slow call is made after it and lands once, and a roll is logged once.

Any other answer not begun 1.5 s after the interaction came (a worker process still starting, a slow
store, a loaded host) is acknowledged then (`bot.ui.reply.guard_deadline`): the last tests make the bot
slow, or make it acknowledge everything first, and follow the answer to its end.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import (
    CALLBACK_ROUTE,
    DEFERRED_MESSAGE,
    DEFERRED_UPDATE,
    MESSAGE,
    FakeDiscord,
    posts_to,
)
from bot.ui import reply
from bot.ui.visibility import BLIND_ROLLER_TEXT

DEADLINE = 3.0
SLOW: dict[str, Callable[..., Any]] = {
    "delayed 5 s": lambda fake, route, **kw: fake.delay(route, seconds=5, times=1, **kw),
    "429 retry after 4 s": lambda fake, route, **kw: fake.fail(
        route, status=429, retry_after=4, times=1, **kw
    ),
}
DM_POST = "POST ^/channels/{dm}/messages$"
OPEN_DM = "POST ^/users/@me/channels$"


def arrivals(fake: FakeDiscord, method: str, path_part: str) -> list[float]:
    """When each request of ``method`` to a path containing ``path_part`` arrived (time.monotonic)."""
    times: list[float] = []

    async def hook(request_method: str, path: str, body: Any) -> None:
        if request_method == method and path_part in path:
            times.append(time.monotonic())

    fake.request_hooks.append(hook)
    return times


def assert_acknowledged_in_time(answer: Answer) -> float:
    record = answer.record
    assert record.dispatched_at is not None and record.callback_at is not None
    assert record.callback_at - record.dispatched_at < DEADLINE, record.callback_at - record.dispatched_at
    assert record.callbacks == 1 and record.late_callback is None
    return record.callback_at


@pytest.mark.parametrize("slow", SLOW, ids=list(SLOW))
async def test_a_gm_roll_is_acknowledged_while_the_gm_channel_is_slow(
    harness: Harness, world: World, fake: FakeDiscord, slow: str
) -> None:
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    posted = arrivals(fake, "POST", f"/channels/{world.gm_screen.id}/messages")
    rule = SLOW[slow](fake, posts_to(world.gm_screen))
    answer = await harness.slash(
        world.guild, world.general, world.alice, "sysx check", {"sv": 12, "visibility": "gm"}
    )
    acknowledged = assert_acknowledged_in_time(answer)
    assert rule.hits == 1 and min(posted) > acknowledged  # the GM's copy was sent after the acknowledgement
    [copy] = answer.in_channel(world.gm_screen)  # once, though Discord was slow or asked to wait
    assert copy.embeds and copy.custom_ids()[0].startswith("reveal:")
    assert answer.original.ephemeral and answer.original.embeds == copy.embeds
    assert len(answer.public()) == 2  # the copy and the notice in the roll's channel
    [logged] = await harness.bot.store.log.last(world.guild.id, world.general.id, 5)
    assert logged.visibility == "gm"


@pytest.mark.parametrize("slow", SLOW, ids=list(SLOW))
@pytest.mark.parametrize("route", [DM_POST, OPEN_DM], ids=["the DM", "opening the DM channel"])
async def test_a_blind_roll_is_acknowledged_while_the_gms_dm_is_slow(
    harness: Harness, world: World, fake: FakeDiscord, slow: str, route: str
) -> None:
    await harness.bot.store.gm.add_channel_gm(world.guild.id, world.general.id, world.gm.id)
    rule = SLOW[slow](fake, route)
    answer = await harness.slash(
        world.guild, world.general, world.alice, "sysx check", {"sv": 12, "visibility": "blind"}
    )
    assert_acknowledged_in_time(answer)
    assert rule.hits == 1
    [dm] = answer.dms(world.gm)
    assert dm.embeds and dm.custom_ids()[0].startswith("reveal:")
    assert answer.content == BLIND_ROLLER_TEXT and answer.public() == []
    assert len(await harness.bot.store.log.last(world.guild.id, world.general.id, 5)) == 1


@pytest.mark.parametrize("slow", SLOW, ids=list(SLOW))
async def test_a_reveal_is_acknowledged_while_the_post_is_slow(
    harness: Harness, world: World, fake: FakeDiscord, slow: str
) -> None:
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    rolled = await harness.slash(
        world.guild, world.general, world.alice, "sysx check", {"sv": 12, "visibility": "blind"}
    )
    [copy] = rolled.in_channel(world.gm_screen)
    posted = arrivals(fake, "POST", f"/channels/{world.general.id}/messages")
    rule = SLOW[slow](fake, posts_to(world.general))
    revealed = await harness.click(copy, "Reveal", world.gm)
    acknowledged = assert_acknowledged_in_time(revealed)
    assert rule.hits == 1 and min(posted) > acknowledged
    [post] = revealed.in_channel(world.general)
    assert post.embeds == copy.embeds and "Revealed by" in post.content
    assert revealed.ephemeral and revealed.content == f"Revealed in <#{world.general.id}>."
    [logged] = await harness.bot.store.log.last(world.guild.id, world.general.id, 5)
    assert logged.revealed_by == world.gm.id


@pytest.mark.parametrize("slow", SLOW, ids=list(SLOW))
async def test_a_log_export_is_acknowledged_while_the_upload_is_slow(
    harness: Harness, world: World, fake: FakeDiscord, slow: str
) -> None:
    for _ in range(3):
        await harness.slash(world.guild, world.general, world.alice, "sysx check", {"sv": 12})
    rule = SLOW[slow](fake, r"^/webhooks/", uploads=True)
    exported = await harness.slash(world.guild, world.general, world.alice, "log", {"export": "csv"})
    assert_acknowledged_in_time(exported)
    assert rule.hits == 1
    [message] = [m for m in exported.messages if m.attachments and not m.deleted]
    assert message.ephemeral and len(message.attachments) == 1
    assert message.attachments[0].data.decode().count("\n") == 4  # the header and the three rolls


# -- the bot itself slow: acknowledged at 1.5 s ---------------------------------------------------------
def slow_workers(harness: Harness, monkeypatch: pytest.MonkeyPatch, seconds: float = 2.0) -> None:
    """Each odds job waits ``seconds`` first, as a worker process still starting on a busy host does."""
    run = harness.bot.workers.run

    async def slow_run(function: Callable[..., Any], *args: Any) -> Any:
        await asyncio.sleep(seconds)
        return await run(function, *args)

    monkeypatch.setattr(harness.bot.workers, "run", slow_run)


async def start_pool(harness: Harness, world: World) -> Answer:
    values = {"name": "Pick the lock", "goal": 12, "minutes": 10, "member": world.alice, "base": 15}
    return await harness.slash(world.guild, world.general, world.gm, "rps sustained start", values)


def progress(message: Any) -> str:
    return next(f["value"] for f in message.embed["fields"] if f["name"] == "Progress")


async def test_a_slow_button_is_acknowledged_then_answered(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:  # RPS-8: the pool's check, its message and its result, though the pool's odds took 2 s
    message = (await start_pool(harness, world)).original
    slow_workers(harness, monkeypatch)
    with caplog.at_level(logging.WARNING, logger="bot.errors"):
        clicked = await harness.click(message, "Roll next check", world.alice)
    assert_acknowledged_in_time(clicked)
    assert clicked.callback_type == DEFERRED_UPDATE  # a click's acknowledgement shows nothing
    [result] = [m for m in clicked.public() if m is not message]
    assert result.embeds[0]["title"].startswith("Alice - Pick the lock: SL ")
    assert message.edits == 1 and progress(message) != "0/12"
    assert any("Slow answer to component rpspool:" in r.getMessage() for r in caplog.records)


async def test_a_slow_command_is_acknowledged_then_filled_in_place(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:  # RPS-8 through the command: a public answer known public before the deadline fills the "thinking"
    await start_pool(harness, world)
    slow_workers(harness, monkeypatch)
    rolled = await harness.slash(
        world.guild, world.general, world.alice, "rps sustained roll", {"name": "Pick the lock"}
    )
    assert_acknowledged_in_time(rolled)
    assert rolled.callback_type == DEFERRED_MESSAGE  # public: no ephemeral flag
    assert not (rolled.record.callback.get("data") or {}).get("flags")
    assert not rolled.original.ephemeral and not rolled.original.loading
    assert rolled.original.embeds[0]["title"].startswith("Alice - Pick the lock: SL ")
    assert rolled.ephemeral_messages() == [] and all(not m.loading for m in rolled.messages)


async def test_a_hand_acknowledged_first_edits_its_own_message(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:  # BJ-4: every move through the late path: Hit edits the hand's message, not a new one
    monkeypatch.setattr(reply, "DEFER_AFTER", 0.0)
    dealt = await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 3, "level": 5}
    )
    message = dealt.original if not dealt.original.deleted else dealt.public()[0]
    before = message.embed["description"]
    hit = await harness.click(message, "Hit", world.alice)
    assert hit.callback_type == DEFERRED_UPDATE and hit.record.callbacks == 1
    assert message.edits == 1 and message.embed["description"] != before
    assert [m for m in hit.messages if m is not message and not m.deleted] == []


async def test_a_hidden_roll_acknowledged_first_shows_the_channel_nothing_more(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:  # (a gm roll, DESIGN.md's visibility) the acknowledgement of a roll not yet known public is
    # the roller's alone
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    monkeypatch.setattr(reply, "DEFER_AFTER", 0.0)
    answer = await harness.slash(
        world.guild, world.general, world.alice, "sysx check", {"sv": 12, "visibility": "gm"}
    )
    assert answer.callback_type == DEFERRED_MESSAGE and answer.record.callback["data"]["flags"] & 64
    assert answer.original.ephemeral and answer.original.embeds
    [copy] = answer.in_channel(world.gm_screen)
    assert answer.original.embeds == copy.embeds
    public_in_general = [m for m in answer.messages if m.channel_id == world.general.id and not m.ephemeral]
    assert [m.deleted for m in public_in_general] == [False]  # the notice only: no "thinking" came and went


async def test_a_public_roll_and_a_refusal_acknowledged_first(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:  # a System X check's result once in the channel; a refusal one ephemeral sentence
    monkeypatch.setattr(reply, "DEFER_AFTER", 0.0)
    rolled = await harness.slash(world.guild, world.general, world.alice, "sysx check", {"sv": 12})
    assert rolled.record.callbacks == 1 and rolled.callback_type == DEFERRED_MESSAGE
    [result] = rolled.public()
    assert result.embeds and not result.loading
    assert all(not m.loading for m in rolled.messages)
    refused = await harness.slash(
        world.guild, world.general, world.alice, "sysx check", {"sv": 12, "visibility": "gm"}
    )  # no GM channel, no GM of the channel
    assert refused.record.callbacks == 1 and refused.public() == []
    [sentence] = refused.ephemeral_messages()
    assert sentence.content and not sentence.loading


async def test_an_answer_in_flight_is_not_acknowledged_twice(
    harness: Harness, world: World, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:  # the deadline comes while the answer's own request is on its way: one callback, no 40060
    monkeypatch.setattr(reply, "DEFER_AFTER", 0.05)
    fake.delay(CALLBACK_ROUTE, seconds=0.3, times=1)
    answer = await harness.slash(world.guild, world.general, world.alice, "sysx check", {"sv": 12})
    assert answer.record.callbacks == 1 and answer.callback_type == MESSAGE
    assert not answer.ephemeral and answer.original.embeds
