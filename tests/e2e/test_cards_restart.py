"""A voluntary hand survives a full restart of `python -m bot`, and its old message's buttons still work."""

from __future__ import annotations

from pathlib import Path

from bot.core.blackjack import Hand
from bot.local.fake.harness import SubprocessBot, World
from bot.local.fake.server import FakeDiscord
from bot.store import Store


async def test_a_voluntary_hand_survives_a_restart(fake: FakeDiscord, world: World, tmp_path: Path) -> None:
    database = tmp_path / "bot.db"
    first = await SubprocessBot.launch(fake, database)
    try:
        dealt = await first.slash(
            world.guild, world.general, world.alice, "cards task", {"difficulty": 3, "level": 5}
        )
    finally:
        await first.stop()
    assert first.error_lines() == [], first.log[-2000:]
    message = dealt.original
    [hand_id] = {int(custom_id.split(":")[1]) for custom_id in message.custom_ids()}

    async with await Store.open(database) as store:
        before = await store.cards.get_hand(hand_id)
        shoe_before, _ = await store.cards.get_shoe(world.guild.id, world.general.id)
    assert len(before.cards) == 1 and not before.finished  # the face-down card (BJ-4)

    second = await SubprocessBot.launch(fake, database)
    try:
        hit = await second.click(message, "Hit", world.alice)  # the message from before the restart
        stranger = await second.click(message, "Hit", world.bob)  # GM-4 holds after a restart too
        details = await second.click(message, "Details", world.bob)  # anyone's, on a public hand
    finally:
        await second.stop()
    assert second.error_lines() == [], second.log[-2000:]
    assert hit.edited_in_place
    assert stranger.ephemeral and "Only the player who started this" in stranger.content
    assert details.ephemeral and details.embed["title"] == f"Hand #{hand_id}: details"

    async with await Store.open(database) as store:
        after = await store.cards.get_hand(hand_id)
        shoe, _ = await store.cards.get_shoe(world.guild.id, world.general.id)
        in_play = await store.cards.in_play(world.guild.id, world.general.id)
    hand = Hand.from_dict(after.data)
    assert after.cards[0] == before.cards[0]  # the same face-down card, kept across the restart
    assert len(hand.played) >= 2 and after.version > before.version
    # the card the Hit drew is the one that was on top of the stored shoe (BJ-1: the shoe persisted)
    assert hand.cards[1] == shoe_before.remaining[0]
    assert shoe.is_conserved(in_play)
    assert message.edits == 1 and hand.cards[1].label in message.text()
