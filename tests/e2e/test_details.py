"""A roll's Details button (issue 31, item 1): the full breakdown, the deciding rule and the exact odds,
ephemerally to whoever clicks it, and never a hidden roll's to someone who may not see that roll."""

from __future__ import annotations

from pathlib import Path

from bot.local.fake.harness import Harness, SubprocessBot, World
from bot.local.fake.server import FakeDiscord
from bot.ui.details import NOT_FOR_YOU
from tests.e2e.compact import assert_compact, open_details


def field(embed: dict, name: str) -> str:
    for item in embed.get("fields", []):
        if item["name"].startswith(name):
            return str(item["value"])
    raise AssertionError(f"no field {name!r} in {[f['name'] for f in embed.get('fields', [])]}")


async def check(harness: Harness, world: World, user=None, **options) -> object:
    return await harness.slash(world.guild, world.general, user or world.alice, "sysx check", options)


async def test_item1_details_from_the_roller_and_from_another_player(harness: Harness, world: World) -> None:
    answer = await check(harness, world, sv=14)
    assert_compact(answer.original)
    edits = answer.original.edits  # (1 when a slow answer filled an acknowledgement)
    mine = await open_details(harness, answer.original, world.alice)
    theirs = await open_details(harness, answer.original, world.bob)
    assert mine == theirs  # the same breakdown for everyone who may see the roll
    assert "SX-5" in field(mine, "Decided by")  # Details may name the rule that decided it
    odds = field(mine, "Odds")
    assert "to succeed" in odds and "Exactly " in odds and "/" in odds  # the exact odds, as a fraction
    assert "Rules:" in mine["footer"]["text"]
    assert answer.original.edits == edits  # the public message stays as it was


async def test_item1_a_gm_rolls_details_go_to_the_roller_and_the_gms_only(
    harness: Harness, world: World
) -> None:
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    answer = await check(harness, world, sv=14, visibility="gm")
    assert_compact(answer.original)  # the roller's own copy, ephemeral, with its Details
    assert field(await open_details(harness, answer.original, world.alice), "Decided by")
    [gm_copy] = answer.in_channel(world.gm_screen)
    assert [c.split(":")[0] for c in gm_copy.custom_ids()] == ["reveal", "details"]
    assert field(await open_details(harness, gm_copy, world.gm), "Odds")
    refused = await harness.click(gm_copy, "Details", world.bob)  # GM-1: a player is no GM here
    assert refused.ephemeral and refused.content == NOT_FOR_YOU and refused.public() == []
    assert not refused.original.embeds
    on_notice = [m for m in answer.public() if m.channel_id == world.general.id]
    assert all(not m.custom_ids() for m in on_notice)  # the public notice has no Details to click

    revealed = await harness.click(gm_copy, "Reveal", world.gm)
    [post] = revealed.in_channel(world.general)
    assert_compact(post)
    opened = await open_details(harness, post, world.bob)  # revealed: the table may see it all
    assert field(opened, "Decided by")


async def test_item1_a_blind_rolls_details_are_refused_to_the_roller(harness: Harness, world: World) -> None:
    await harness.bot.store.gm.add_channel_gm(world.guild.id, world.general.id, world.gm.id)
    answer = await check(harness, world, sv=14, visibility="blind")
    assert answer.content == "Your roll went to the GM." and not answer.original.custom_ids()
    [dm] = answer.dms(world.gm)  # no GM channel: the GM's copy by DM
    assert field(await open_details(harness, dm, world.gm), "Odds")  # a GM of the roll's channel, in a DM
    for player in (world.alice, world.bob):
        refused = await harness.click(dm, "Details", player)
        assert refused.ephemeral and refused.content == NOT_FOR_YOU and not refused.original.embeds


async def test_item1_a_private_rolls_details_are_the_rollers(harness: Harness, world: World) -> None:
    answer = await check(harness, world, sv=14, visibility="private")
    assert answer.ephemeral and assert_compact(answer.original)
    assert field(await open_details(harness, answer.original, world.alice), "Odds")
    for other in (world.bob, world.gm):
        refused = await harness.click(answer.original, "Details", other)
        assert refused.ephemeral and refused.content == NOT_FOR_YOU


async def test_item1_details_work_after_a_restart(fake: FakeDiscord, world: World, tmp_path: Path) -> None:
    database = tmp_path / "bot.db"
    first = await SubprocessBot.launch(fake, database)
    try:
        rolled = await first.slash(world.guild, world.general, world.alice, "sysx check", {"sv": 14})
        before = await open_details(first, rolled.original, world.bob)
    finally:
        await first.stop()
    assert first.error_lines() == [], first.log[-2000:]
    second = await SubprocessBot.launch(fake, database)
    try:
        after = await open_details(second, rolled.original, world.bob)  # the message from before the restart
    finally:
        await second.stop()
    assert second.error_lines() == [], second.log[-2000:]
    assert after == before and "SX-5" in field(after, "Decided by")
