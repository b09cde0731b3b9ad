"""Answers that do not ask Discord for their message back, and the ones that do (`bot.ui.reply.respond`).

discord.py asks for the message with every response (``with_response``) and parses it; a roll, a refusal or a
move of a hand never reads it. The fake answers 204 to a callback that does not ask, as Discord does, so
each of these would fail if the bot still needed the message it no longer gets.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest

from tests.e2e.test_cards import deal_voluntary, field, stack_shoe
from tests.fake_discord.harness import Harness, World
from tests.fake_discord.server import MESSAGE, UPDATE_MESSAGE


async def test_a_public_roll_is_posted_without_asking_for_its_message(harness: Harness, world: World) -> None:
    answer = await harness.slash(
        world.guild, world.general, world.alice, "dn raw", {"characteristic": 12, "complexity": "1"}
    )
    assert answer.callback_type == MESSAGE and not answer.record.asked_for_message
    assert not answer.ephemeral and "= **12**" in answer.original.text()
    [logged] = await harness.bot.store.log.last(world.guild.id, world.general.id)
    assert logged.command == "dn raw"


async def test_a_private_roll_and_its_notice_ask_for_nothing(harness: Harness, world: World) -> None:
    answer = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "dn raw",
        {"characteristic": 12, "complexity": "1", "visibility": "private"},
    )
    assert not answer.record.asked_for_message and answer.original.ephemeral
    [notice] = answer.record.followups  # the public notice: a follow-up sent without waiting for it
    assert not notice.ephemeral and "private roll" in notice.text()
    assert answer.record.followup_waits == [False]


async def test_a_refusal_asks_for_nothing(harness: Harness, world: World) -> None:
    answer = await harness.slash(world.guild, world.general, world.alice, "gm modifiers", {})
    assert answer.ephemeral and not answer.record.asked_for_message


async def test_a_hand_is_dealt_asking_for_its_message_and_played_without(
    harness: Harness, world: World
) -> None:
    store = harness.bot.store
    await stack_shoe(store, world.general, ["2S", "3H", "4C", "5D"])
    dealt = await deal_voluntary(harness, world, level=3)
    assert dealt.record.asked_for_message  # the hand keeps its message's id, for edits made later
    record = await store.cards.hand_in(int(dealt.original.custom_ids()[0].split(":")[1]), world.guild.id,
                                       world.general.id)  # fmt: skip
    assert record.message_id == dealt.original.id
    hit = await harness.click(dealt.original, "Hit", world.alice)
    assert hit.callback_type == UPDATE_MESSAGE and not hit.record.asked_for_message
    assert "2S" not in dealt.original.text() and dealt.original.edits == 1
    stand = await harness.click(dealt.original, "Stand", world.alice)  # the end: buttons removed, no ask
    assert not stand.record.asked_for_message and dealt.original.components == []


async def test_a_hit_click_never_parses_the_clicked_message(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bot.ui.clicks: the hand's message (embed, five components) comes with every click; nothing reads it.
    bot.ui.reply.edit_original: nor the message Discord sends back when the result gets its odds line."""
    store = harness.bot.store
    await stack_shoe(store, world.general, ["2S", "3H", "4C", "5D"])
    dealt = await deal_voluntary(harness, world, level=3)
    parsed: list[Any] = []
    build = discord.Message.__init__

    def counting(self: discord.Message, **kwargs: Any) -> None:
        parsed.append(kwargs["data"]["id"])
        build(self, **kwargs)

    monkeypatch.setattr(discord.Message, "__init__", counting)
    hit = await harness.click(dealt.original, "Hit", world.alice)
    assert hit.callback_type == UPDATE_MESSAGE and dealt.original.edits == 1
    hand_id = int(dealt.original.custom_ids()[0].split(":")[1])
    record = await store.cards.hand_in(hand_id, world.guild.id, world.general.id)
    assert record.cards == ("2S", "3H")  # 2S face down, then the Hit drew 3H
    assert parsed == []
    stand = await harness.click(dealt.original, "Stand", world.alice)  # the end, then its odds line
    assert stand.callback_type == UPDATE_MESSAGE and dealt.original.components == []
    assert field(dealt.original.embed, "Odds").startswith("Before the last move: ")
    assert parsed == []  # nor the edited message Discord answers the odds line's edit with


async def test_a_sustained_pool_asks_for_its_message(harness: Harness, world: World) -> None:
    started = await harness.slash(
        world.guild, world.general, world.gm, "rps sustained start",
        {"name": "Pick the lock", "goal": 12, "minutes": 10, "member": world.alice, "base": 15},
    )  # fmt: skip
    assert started.record.asked_for_message
    pool = await harness.bot.store.pools.get(world.guild.id, world.general.id, "Pick the lock")
    assert pool.message_id == started.original.id
