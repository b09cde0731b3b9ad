"""Discord failing (issue 6): 429 with Retry-After and 500 on callbacks, follow-ups and channel posts.

The bot must retry or report cleanly, never apply a game action twice (one roll in the log per command,
whatever Discord answered) and never crash (it answers the next command normally). A roll stands for
every game action until the system cogs land; the races file covers Hit clicks.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.local.fake.harness import Harness, World
from bot.local.fake.server import DEFERRED_MESSAGE, FakeDiscord
from bot.ui import reply
from tests.reliability.conftest import dump, send_raw

pytestmark = pytest.mark.slow

CALLBACK = r"^/interactions/\d+/[^/]+/callback$"
FOLLOWUP = r"^/webhooks/\d+/[^/]+$"
ORIGINAL = r"^/webhooks/\d+/[^/]+/messages/@original$"
CHANNEL_POST = r"^/channels/\d+/messages$"


def rolls(harness: Harness) -> list[tuple[object, ...]]:
    return dump(Path(harness.bot.settings.database_path))["rolls"]


def discord_errors_only(harness: Harness) -> list[str]:
    """ERROR records not caused by Discord failing (an HTTPException from discord.py) — should be none."""
    others = []
    for record in harness.take_errors():
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, discord.HTTPException):
            others.append(f"{record.getMessage()}\n{record.exc_text or ''}")
    return others


async def still_answers(harness: Harness, world: World) -> None:
    again = await harness.slash(world.guild, world.general, world.carol, "help", {"system": "dn"})
    assert again.embed["title"].startswith("Difficulty Number")


@pytest.mark.parametrize(
    ("status", "times", "after"),
    [(429, 1, False), (429, 3, False), (500, 1, False), (500, 1, True), (429, 1, True)],
    ids=["429-once", "429-thrice", "500-once", "500-after-applying", "429-after-applying"],
)
async def test_a_failing_callback_is_retried_and_the_roll_logged_once(
    probe: Harness, world: World, fake: FakeDiscord, status: int, times: int, after: bool
) -> None:
    fake.fail("POST", CALLBACK, status=status, times=times, retry_after=0.05, after=after)
    data = fake.build_command_data(world.guild, "probe roll", {"visibility": "public"})
    record = fake.interaction_payload(2, data, user=world.alice, channel=world.general)
    answer = await send_raw(probe, record)
    assert len(rolls(probe)) == 1  # the roll happened once, however often the answer was sent
    shown = [m for m in answer.messages if m.embeds and not m.deleted]
    assert len(shown) == 1 and shown[0].embed["title"] == "Probe check: success"
    if after:  # Discord applied the first try; the retry is refused as a second acknowledgement
        assert {v.problem for v in fake.violations} == {"acknowledged twice"}
        fake.violations.clear()
    assert discord_errors_only(probe) == []
    await still_answers(probe, world)
    assert len(rolls(probe)) == 1


@pytest.mark.parametrize("status", [500, 429])
async def test_a_late_acknowledgement_whose_answer_was_lost_is_filled(
    probe: Harness, world: World, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    """The acknowledgement of a slow answer (`guard_deadline`) reached Discord, its answer did not; the
    retry is refused as a second acknowledgement. The bot knows then it is acknowledged, and fills it."""
    monkeypatch.setattr(reply, "DEFER_AFTER", 0.05)
    add = probe.bot.store.log.add

    async def slow_add(*args: Any) -> Any:  # the roll's answer is slow: the acknowledgement goes first
        await asyncio.sleep(0.3)
        return await add(*args)

    monkeypatch.setattr(probe.bot.store.log, "add", slow_add)
    fake.fail("POST", CALLBACK, status=status, times=1, retry_after=0.05, after=True)
    data = fake.build_command_data(world.guild, "probe roll", {"visibility": "public"})
    record = fake.interaction_payload(2, data, user=world.alice, channel=world.general)
    answer = await send_raw(probe, record)
    assert record.callback is not None and record.callback["type"] == DEFERRED_MESSAGE
    shown = [m for m in answer.messages if m.embeds and not m.deleted]
    assert len(shown) == 1 and shown[0].embed["title"] == "Probe check: success"
    assert all(not m.loading for m in answer.messages)  # no "thinking" left behind
    assert len(rolls(probe)) == 1
    assert {v.problem for v in fake.violations} == {"acknowledged twice"}  # the retry, as in real Discord
    fake.violations.clear()
    assert discord_errors_only(probe) == []


async def test_a_callback_that_keeps_failing_is_given_up_cleanly(
    probe: Harness, world: World, fake: FakeDiscord
) -> None:
    fault = fake.fail("POST", CALLBACK, status=429, times=None, retry_after=0.01)
    data = fake.build_command_data(world.guild, "probe roll", {"visibility": "public"})
    record = fake.interaction_payload(2, data, user=world.alice, channel=world.general)
    answer = await send_raw(probe, record)
    assert record.callback is None and answer.messages == []  # Discord never took an answer
    assert fault.hits >= 5
    assert len(rolls(probe)) == 1
    assert discord_errors_only(probe) == []
    fake.faults.clear()
    await still_answers(probe, world)
    assert len(rolls(probe)) == 1


@pytest.mark.parametrize("status", [429, 500])
async def test_a_failing_edit_of_the_deferred_answer_is_retried(
    probe: Harness, world: World, fake: FakeDiscord, status: int
) -> None:
    fault = fake.fail("PATCH", ORIGINAL, status=status, times=1, retry_after=0.05)
    answer = await probe.slash(world.guild, world.general, world.alice, "probe slow")
    assert fault.hits == 1
    assert answer.original.content == "done slowly" and not answer.original.loading
    assert discord_errors_only(probe) == []


@pytest.mark.parametrize("status", [429, 500])
async def test_a_failing_follow_up_is_retried(
    probe: Harness, world: World, fake: FakeDiscord, status: int
) -> None:
    fault = fake.fail("POST", FOLLOWUP, status=status, times=1, retry_after=0.05)
    answer = await probe.slash(world.guild, world.general, world.alice, "probe slowrule")
    assert fault.hits == 1
    assert [m.content for m in answer.ephemeral_messages()] == ["That pool is already finished."]
    assert answer.public() == []
    assert discord_errors_only(probe) == []


@pytest.mark.parametrize("status", [429, 500])
async def test_a_failing_post_to_the_gm_channel_is_retried_and_logged_once(
    probe: Harness, world: World, fake: FakeDiscord, status: int
) -> None:
    await probe.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    fault = fake.fail("POST", CHANNEL_POST, status=status, times=1, retry_after=0.05)
    answer = await probe.slash(world.guild, world.general, world.alice, "probe roll", {"visibility": "blind"})
    assert fault.hits == 1
    [gm_copy] = answer.in_channel(world.gm_screen)
    assert gm_copy.embed["title"] == "Probe check: success"
    assert len(rolls(probe)) == 1
    assert discord_errors_only(probe) == []


@pytest.mark.parametrize(
    ("status", "after"), [(429, False), (500, False), (500, True)], ids=["429", "500", "500-after-applying"]
)
async def test_a_hit_whose_answer_fails_moves_the_hand_once(
    harness: Harness, world: World, fake: FakeDiscord, status: int, after: bool
) -> None:  # BJ-4
    posted = await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 2, "level": 3}
    )
    [before] = await harness.bot.store.cards.open_hands(world.guild.id, world.general.id)
    fake.fail("POST", CALLBACK, status=status, times=1, retry_after=0.05, after=after)
    component = posted.original.component("Hit")
    record = fake.interaction_payload(
        3,
        {"custom_id": component["custom_id"], "component_type": 2},
        user=world.alice,
        channel=world.general,
        message=posted.original,
    )
    await send_raw(harness, record)
    hand = await harness.bot.store.cards.get_hand(before.id)
    assert hand.version == before.version + 1  # one card, however often the answer was sent
    assert len(hand.cards) > len(before.cards)
    if after:
        assert {v.problem for v in fake.violations} == {"acknowledged twice"}
        fake.violations.clear()
    assert discord_errors_only(harness) == []
    again = await harness.slash(
        world.guild, world.general, world.bob, "cards task", {"difficulty": 2, "level": 3}
    )
    assert again.original.custom_ids()
