"""Issue 7's four visibility modes through `deliver`, driven by the probe's roll (margin S3, "d20: 17")."""

from __future__ import annotations

import asyncio

from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import FakeDiscord
from bot.ui.visibility import NO_GM_HERE

SECRETS = ("S3", "d20: 17", "Margin", "Probe check: success")


def assert_no_result(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} leaked into {text!r}"


async def roll(
    probe: Harness, world: World, user=None, visibility: str | None = None, channel=None
) -> Answer:
    options = {"visibility": visibility} if visibility else {}
    return await probe.slash(
        world.guild, channel or world.general, user or world.alice, "probe roll", options
    )


async def test_public_roll_shows_the_result_to_everyone(probe: Harness, world: World) -> None:
    answer = await roll(probe, world, visibility="public")
    assert not answer.ephemeral and answer.embed["title"] == "Probe check: success"
    assert answer.original.components == []


async def test_private_roll_shows_the_result_only_to_the_roller(probe: Harness, world: World) -> None:
    answer = await roll(probe, world, visibility="private")
    assert answer.ephemeral and answer.embed["title"] == "Probe check: success"
    [notice] = answer.public()
    assert "private roll" in notice.content and world.alice.mention in notice.content
    assert_no_result(notice.text())
    assert notice.embeds == []


async def test_gm_roll_goes_to_the_gm_channel_with_a_reveal_button(probe: Harness, world: World) -> None:
    await probe.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    answer = await roll(probe, world, visibility="gm")
    assert answer.ephemeral and answer.original.embeds[0]["title"] == "Probe check: success"
    [gm_copy] = answer.in_channel(world.gm_screen)
    assert gm_copy.embed["title"] == "Probe check: success"
    assert gm_copy.custom_ids()[0].startswith("reveal:")
    notices = [m for m in answer.public() if m.channel_id == world.general.id]
    [notice] = notices
    assert world.alice.mention in notice.content and "probe check" in notice.content
    assert_no_result(notice.text())


async def test_blind_roll_tells_the_roller_nothing_but_where_it_went(probe: Harness, world: World) -> None:
    await probe.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    answer = await roll(probe, world, visibility="blind")
    assert answer.ephemeral and answer.content == "Your roll went to the GM."
    assert answer.original.embeds == [] and answer.original.components == []
    assert [m.channel_id for m in answer.public()] == [world.gm_screen.id]
    for message in answer.messages:
        if message.channel_id != world.gm_screen.id:
            assert_no_result(message.text())


async def test_gm_roll_without_gm_channel_goes_by_dm_and_says_when_a_dm_fails(
    probe: Harness, world: World, fake: FakeDiscord
) -> None:
    store = probe.bot.store
    await store.gm.add_channel_gm(world.guild.id, world.general.id, world.gm.id)
    await store.gm.add_channel_gm(world.guild.id, world.general.id, world.bob.id)
    world.bob.blocks_dms = True  # Discord answers 50007 "Cannot send messages to this user"
    answer = await roll(probe, world, visibility="gm")
    [dm] = answer.dms(world.gm)
    assert dm.embed["title"] == "Probe check: success" and dm.custom_ids()[0].startswith("reveal:")
    assert answer.dms(world.bob) == []
    assert answer.ephemeral and f"I could not DM {world.bob.mention}" in answer.content
    assert "do not accept DMs" in answer.content


async def test_blind_roll_with_nowhere_to_go_is_not_rolled(probe: Harness, world: World) -> None:
    answer = await roll(probe, world, visibility="blind")
    assert answer.ephemeral and answer.content == NO_GM_HERE
    assert answer.public() == [] and len(answer.messages) == 1
    assert await probe.bot.store.log.last(world.guild.id, world.general.id, 5) == []


async def test_reveal_posts_the_result_once(probe: Harness, world: World, fake: FakeDiscord) -> None:
    await probe.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    answer = await roll(probe, world, visibility="blind")
    [gm_copy] = answer.in_channel(world.gm_screen)
    player = await probe.click(gm_copy, "Reveal", world.bob)
    assert player.ephemeral and "Only a GM" in player.content and player.public() == []
    # two GMs click at once: one reveals it, the other is told so
    revealed, again = await asyncio.gather(
        probe.click(gm_copy, "Reveal", world.gm), probe.click(gm_copy, "Reveal", world.manager)
    )
    if revealed.content == "That roll was already revealed.":
        revealed, again = again, revealed
    revealer = world.gm if revealed.record.user is world.gm else world.manager
    assert revealed.ephemeral and "Revealed in" in revealed.content
    assert again.ephemeral and again.content == "That roll was already revealed."
    [post] = [m for m in fake.messages.values() if "Revealed by" in m.content]  # one post, from either click
    assert post.channel_id == world.general.id and post.embed["title"] == "Probe check: success"
    assert revealer.mention in post.content and world.alice.mention in post.content
    # the copy shows it was revealed, and takes no more clicks
    [button] = [c for c in gm_copy.walk_components() if str(c.get("custom_id")).startswith("reveal:")]
    assert button["disabled"] is True and button["label"] == "Revealed"


async def test_a_reveal_discord_refuses_to_post_stays_hidden(
    probe: Harness, world: World, fake: FakeDiscord
) -> None:  # GM-1
    await probe.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    answer = await roll(probe, world, visibility="blind")
    [gm_copy] = answer.in_channel(world.gm_screen)
    fake.fail(
        "POST", rf"/channels/{world.general.id}/messages$", status=403, code=50001, message="Missing Access"
    )
    failed = await probe.click(gm_copy, "Reveal", world.gm)
    assert failed.ephemeral and failed.public() == []
    assert "stays hidden" in failed.content and "Missing Access" in failed.content
    [logged] = await probe.bot.store.log.last(world.guild.id, world.general.id, 1)
    assert logged.revealed_by is None and logged.revealed_at is None  # not shown, so not revealed in /log
    revealed = await probe.click(gm_copy, "Reveal", world.gm)
    assert revealed.ephemeral and "Revealed in" in revealed.content
    [post] = revealed.in_channel(world.general)
    assert post.embed["title"] == "Probe check: success"
    [logged] = await probe.bot.store.log.last(world.guild.id, world.general.id, 1)
    assert logged.revealed_by == world.gm.id


async def test_reveal_from_a_dm_copy(probe: Harness, world: World) -> None:
    await probe.bot.store.gm.add_channel_gm(world.guild.id, world.general.id, world.gm.id)
    answer = await roll(probe, world, visibility="gm")
    [dm] = answer.dms(world.gm)
    revealed = await probe.click(dm, "Reveal", world.gm)
    [post] = revealed.in_channel(world.general)
    assert post.embed["title"] == "Probe check: success"


async def test_channel_default_applies_when_no_mode_is_given(probe: Harness, world: World) -> None:
    await probe.bot.store.settings.set_channel_visibility(world.guild.id, world.general.id, "private")
    answer = await roll(probe, world)
    assert answer.ephemeral and len(answer.public()) == 1


async def test_blind_rolls_can_be_switched_off_for_players(probe: Harness, world: World) -> None:
    await probe.bot.store.settings.update(world.guild.id, allow_blind=False, gm_channel_id=world.gm_screen.id)
    refused = await roll(probe, world, visibility="blind")
    assert refused.ephemeral and "Blind rolls are switched off" in refused.content
    assert refused.public() == []
    allowed = await roll(probe, world, user=world.gm, visibility="blind")
    assert allowed.content == "Your roll went to the GM."


async def test_in_dms_only_public_and_private_work(probe: Harness, world: World) -> None:
    private = await probe.slash(None, None, world.stranger, "probe roll", {"visibility": "private"})
    assert private.ephemeral and private.embed["title"] == "Probe check: success"
    assert len(private.messages) == 1  # no notice in a DM
    refused = await probe.slash(None, None, world.stranger, "probe roll", {"visibility": "gm"})
    assert refused.ephemeral and "only in a server channel" in refused.content
