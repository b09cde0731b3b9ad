"""Handled interactions leave no view for the cycle collector (see `bot.ui.reply.release_when_handled`).

A View and its items point at each other. Left alone, every hand, pool and GM copy adds such cycles, which
only a full garbage collection frees. Once a handler's task is over, the bot empties the views it built or
was handed, so reference counting frees them at once. (discord.py's Interaction and its
InteractionResponse point at each other too; nothing in discord.py's public API cuts that link, so those
are left to the collector.)
"""

from __future__ import annotations

import gc
import io
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from tests.fake_discord.harness import Harness, World

DISCORD_OBJECTS = (discord.ui.View, discord.ui.Item)


async def cyclic_leftovers(
    play: Callable[[], Awaitable[Any]], kinds: tuple[type, ...] = DISCORD_OBJECTS
) -> Counter[str]:
    """The objects of ``kinds`` (discord.py's) that ``play`` left in reference cycles (found by a
    collection, kept)."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        await play()
        gc.collect()
        return Counter(type(o).__name__ for o in gc.garbage if isinstance(o, kinds))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


async def test_dealing_and_clicking_a_hand_leave_no_view_in_a_cycle(harness: Harness, world: World) -> None:
    options = {"difficulty": 2, "level": 3}

    async def play() -> None:
        for _ in range(3):
            dealt = await harness.slash(world.guild, world.general, world.alice, "cards task", options)
            await harness.click(dealt.original, "Hit", world.alice)
            if dealt.original.custom_ids():  # still open: end it
                await harness.click(dealt.original, "Stand", world.alice)

    await play()
    assert await cyclic_leftovers(play) == Counter()


async def test_a_refused_click_leaves_no_view_in_a_cycle(harness: Harness, world: World) -> None:
    dealt = await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 2, "level": 3}
    )

    async def play() -> None:
        answer = await harness.click(dealt.original, "Hit", world.bob)  # not bob's hand
        assert answer.ephemeral

    await play()
    assert await cyclic_leftovers(play) == Counter()


async def test_a_sustained_pool_leaves_no_view_in_a_cycle(harness: Harness, world: World) -> None:
    # RPS-8: starting a pool, and each check that edits its message, send a view with its button
    values = {"name": "Pick the lock", "goal": 40, "minutes": 10, "member": world.alice, "base": 15}

    async def play() -> None:
        started = await harness.slash(world.guild, world.general, world.gm, "rps sustained start", values)
        await harness.click(started.original, "Roll next check", world.alice)
        await harness.slash(
            world.guild, world.general, world.alice, "rps sustained roll", {"name": values["name"]}
        )
        await harness.slash(
            world.guild, world.general, world.gm, "rps sustained stop", {"name": values["name"]}
        )

    await play()
    assert await cyclic_leftovers(play) == Counter()


async def test_gm_copies_and_blind_requests_leave_no_view_in_a_cycle(harness: Harness, world: World) -> None:
    # a GM roll's copy carries a Reveal button; a blind request carries Roll (blind)
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    request = {"member": world.alice, "system": "sysx", "note": "Perception"}

    async def play() -> None:
        await harness.slash(
            world.guild, world.general, world.alice, "rps check", {"base": 13, "visibility": "gm"}
        )
        posted = await harness.slash(world.guild, world.general, world.gm, "gm request-roll", request)
        await harness.click(posted.original, "Roll (blind)", world.alice)

    await play()
    assert await cyclic_leftovers(play) == Counter()


async def test_an_uploads_buffer_is_freed_at_once_not_left_in_a_cycle(harness: Harness, world: World) -> None:
    # discord.py's File leaves its buffer referring to itself once sent (its own bound `close`); the bot's
    # young collections are rare (bot.client.YOUNG_THRESHOLD), so every chart's bytes used to stay for
    # hundreds of charts (bench/memory.py). `bot.ui.reply.reply` closes what it sent.
    async def play() -> None:
        chart = await harness.slash(world.guild, world.general, world.alice, "odds rps", {"base": 12})
        export = await harness.slash(world.guild, world.general, world.alice, "log", {"export": "csv"})
        for answer in (chart, export):
            assert [a.filename for a in answer.original.attachments]

    await play()
    assert await cyclic_leftovers(play, (io.IOBase,)) == Counter()
