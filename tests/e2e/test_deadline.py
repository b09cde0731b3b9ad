"""Every interaction is acknowledged within 3 s, whatever Discord does elsewhere.

A command that makes another REST call before its answer (a GM's copy in the GM channel, a DM to a GM,
opening a DM channel, a reveal's post, a file upload) acknowledges first. Each test makes that other call
slow (5 s) or rate limited (429, retry after 4 s): the interaction's first callback still comes within
3 s, the slow call is made after it and lands once, and a roll is logged once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import FakeDiscord, posts_to
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
