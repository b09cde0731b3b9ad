"""`/cards` end to end: hands dealt from a stacked shoe, played by buttons, checked against the core.

The shoe is stacked through the store (chosen cards on top, the rest of the deck below), and every expected
value is computed by replaying the same cards through ``bot.core.blackjack``: nothing here is hard-coded.
"""

from __future__ import annotations

import asyncio
import copy
from collections import Counter
from typing import Any

import pytest

from bot.core.blackjack import (
    Ending,
    Hand,
    HandOptions,
    add_skill,
    adder_values,
    deal,
    feed,
    hit,
    play_involuntary,
    resolve,
    stand,
    start_voluntary,
)
from bot.core.cards import Card, Shoe, full_deck
from bot.store import Conflict, Store
from bot.ui.hands import BUSY
from tests.fake_discord.harness import Answer, Harness, World
from tests.fake_discord.server import UPDATE_MESSAGE, FakeDiscord
from tests.fake_discord.world import FakeChannel, FakeMessage, FakeUser

# -- helpers -------------------------------------------------------------------------------------------


async def stack_shoe(store: Store, channel: FakeChannel, top: list[str], decks: int = 1) -> list[Card]:
    """Make the channel's shoe ``decks`` full decks with ``top`` (card codes) drawn first."""
    assert channel.guild_id is not None
    _, version = await store.cards.get_shoe(channel.guild_id, channel.id, decks)
    chosen = [Card.parse(code) for code in top]
    rest = Counter(full_deck() * decks)
    rest.subtract(chosen)
    shoe = Shoe(decks=decks, remaining=tuple(chosen) + tuple(sorted(rest.elements())))
    await store.cards.put_shoe(channel.id, shoe, version)
    return chosen


async def shoe_of(store: Store, channel: FakeChannel) -> Shoe:
    assert channel.guild_id is not None
    shoe, _ = await store.cards.get_shoe(channel.guild_id, channel.id)
    return shoe


async def conserved(store: Store, channel: FakeChannel) -> bool:
    """BJ-1: shoe + discards + cards in open hands are exactly the shoe's decks."""
    assert channel.guild_id is not None
    in_play = await store.cards.in_play(channel.guild_id, channel.id)
    return (await shoe_of(store, channel)).is_conserved(in_play)


def hand_id_of(message: FakeMessage) -> int:
    [hand_id] = {int(custom_id.split(":")[1]) for custom_id in message.custom_ids()}
    return hand_id


def field(embed: dict[str, Any], name: str) -> str:
    for entry in embed.get("fields", []):
        if entry["name"] == name:
            return str(entry["value"])
    raise AssertionError(f"no field {name!r} in {[f['name'] for f in embed.get('fields', [])]}")


def field_names(embed: dict[str, Any]) -> list[str]:
    return [f["name"] for f in embed.get("fields", [])]


async def forged_click(
    harness: Harness,
    message: FakeMessage,
    custom_id: str,
    user: FakeUser,
    values: list[str] | None = None,
) -> Answer:
    """A component interaction Discord's client would never send (forged id, or a value not offered).

    The message's components are forged too, as discord.py only dispatches ids found on the message.
    """
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": 3 if values is not None else 2}
    if values is not None:
        data["values"] = values
    prefix = custom_id.rsplit(":", 1)[0] + ":"
    forged = copy.deepcopy(message)
    for component in forged.walk_components():
        if "custom_id" in component:
            component["custom_id"] = prefix + component["custom_id"].rsplit(":", 1)[1]
    channel = harness.fake.channels[message.channel_id]
    record = harness.fake.interaction_payload(3, data, user=user, channel=channel, message=forged)
    return await harness._send(record)


async def deal_voluntary(
    harness: Harness, world: World, *, level: int = 5, difficulty: int = 3, **options: Any
) -> Answer:
    answer = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {"difficulty": difficulty, "level": level, **options},
    )
    return answer


# -- involuntary ------------------------------------------------------------------------------------------


async def test_involuntary_hand_plays_out_at_once(harness: Harness, world: World) -> None:  # BJ-3, BJ-11
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["5H", "3C", "2D", "9S", "KD"])
    expected = play_involuntary(iter(top), 4, 2, "Speed", 2)
    result = resolve(expected)
    answer = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {"difficulty": 2, "level": 4, "characteristic": "Speed", "bonus": 2, "mode": "involuntary"},
    )
    [message] = answer.public()
    assert message.components == []  # nothing left to click: the hand is over
    embed = message.embed
    [record] = await store.cards.recent_hands(world.guild.id, world.general.id, 1)
    assert embed["title"] == f"Cards task #{record.id}: {result.name} (TRL {result.trl})"
    assert field(embed, "Cards") == " ".join(card.label for card in expected.cards)
    assert field(embed, "Down / Up (BJ-10)") == f"{result.down:+d} / {result.up:+d}"
    assert f"= {result.trl}" in field(embed, "TRL (BJ-8)")
    assert ("Fumble chance" in field_names(embed)) == bool(expected.fumble_flags)
    assert expected.fumble_flags  # 2♦ as third card: 2 <= 3 (BJ-11)
    assert ": counts" in field(embed, "Characteristic (BJ-9)")  # a heart was played (BJ-9)
    shoe = await shoe_of(store, world.general)
    assert len(shoe.discards) == len(expected.played) and await conserved(store, world.general)
    [logged] = await store.log.last(world.guild.id, world.general.id, 1)
    assert logged.dice == [card.code for card in expected.played] and logged.visibility == "public"


async def test_gm_difficulty_modifier_replaces_the_task_difficulty(
    harness: Harness, world: World
) -> None:  # GM-3
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "cards", world.alice.id, "difficulty", 7, 1, world.gm.id
    )
    top = await stack_shoe(store, world.general, ["10H", "8C", "10S", "7D"])
    options = {"difficulty": 0, "level": 6, "mode": "involuntary"}
    first = await harness.slash(world.guild, world.general, world.alice, "cards task", options)
    expected = resolve(play_involuntary(iter(top[:2]), 6, 7))
    assert f"TRL {expected.trl})" in first.embed["title"]
    assert field(first.embed, "Difficulty").startswith("Absurdly Difficult (7), asked Mindlessly Easy (0)")
    assert world.gm.mention in field(first.embed, "GM modifier")
    second = await harness.slash(world.guild, world.general, world.alice, "cards task", options)
    unmodified = resolve(play_involuntary(iter(top[2:]), 6, 0))
    assert f"TRL {unmodified.trl})" in second.embed["title"]
    assert "GM modifier" not in field_names(second.embed)


async def test_a_deal_that_fails_leaves_the_gm_modifier_for_the_next_hand(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:  # GM-3: a use is taken with the hand it applied to, never for a hand that was not dealt
    store = harness.bot.store
    await store.modifiers.set(
        world.guild.id, world.general.id, "cards", world.alice.id, "difficulty", 7, 1, world.gm.id
    )

    async def shoe_moved_on(*args: Any, **kwargs: Any) -> Any:  # as if another writer drew every time
        raise Conflict("The shoe has moved on since it was read.")

    options = {"difficulty": 0, "level": 6, "mode": "involuntary"}
    with monkeypatch.context() as patched:
        patched.setattr(store.cards, "create_hand_logged", shoe_moved_on)
        busy = await harness.slash(world.guild, world.general, world.alice, "cards task", options)
    assert busy.ephemeral and busy.content == BUSY and busy.public() == []
    [pending] = await store.modifiers.list(world.guild.id, world.general.id)
    assert pending.uses_left == 1
    dealt = await harness.slash(world.guild, world.general, world.alice, "cards task", options)
    assert world.gm.mention in field(dealt.embed, "GM modifier")
    assert await store.modifiers.list(world.guild.id, world.general.id) == []


# -- voluntary hands by buttons ---------------------------------------------------------------------------


async def test_voluntary_hand_played_to_a_wrap(harness: Harness, world: World) -> None:  # BJ-4, BJ-5
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["10S", "9H", "5C"])
    dealt = await deal_voluntary(harness, world)
    message = dealt.original
    assert not message.ephemeral and message.custom_ids()[:3] == [
        f"bj:{hand_id_of(message)}:hit",
        f"bj:{hand_id_of(message)}:stand",
        f"bj:{hand_id_of(message)}:peek",
    ]
    assert top[0].label not in message.text() and "🂠" in field(message.embed, "Cards")  # BJ-4
    assert field(message.embed, "Total").startswith("hidden")

    first = await harness.click(message, "Hit", world.alice)
    assert first.callback_type == UPDATE_MESSAGE
    assert field(message.embed, "Cards") == f"🂠 {top[1].label}" and top[0].label not in message.text()

    second = await harness.click(message, "Hit", world.alice)
    expected = hit(hit(deal(start_voluntary(5, 3), top[0]), top[1]), top[2])
    assert expected.wrapped and expected.ending is Ending.WRAPPED  # 10 + 9 + 5 = 24 wraps to 3
    result = resolve(expected)
    assert second.callback_type == UPDATE_MESSAGE and message.components == []
    assert message.embed["title"].endswith(f"{result.name} (TRL {result.trl})")
    assert field(message.embed, "Cards") == " ".join(c.label for c in top)  # the face-down card shows now
    assert f"wraps to {expected.total}" in field(message.embed, "Total")
    [logged] = await store.log.last(world.guild.id, world.general.id, 5)  # logged once, at the end
    assert logged.dice == [c.code for c in top] and str(result.trl) in logged.result
    assert await conserved(store, world.general)
    assert len((await shoe_of(store, world.general)).discards) == 3


async def test_a_move_that_keeps_the_buttons_leaves_them_as_they_are(harness: Harness, world: World) -> None:
    """A Hit that leaves the hand going edits the embed; the message keeps the same buttons."""
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["2S", "3H", "4C"])
    dealt = await deal_voluntary(harness, world, level=3)
    message = dealt.original
    shown = copy.deepcopy(message.components)
    assert any(cid.endswith(":add") for cid in message.custom_ids())  # the Add skill select is kept too
    first = await harness.click(message, "Hit", world.alice)
    assert first.callback_type == UPDATE_MESSAGE and message.components == shown
    assert field(message.embed, "Cards") == f"🂠 {top[1].label}"
    second = await harness.click(message, "Hit", world.alice)  # the kept buttons still play the hand
    assert second.callback_type == UPDATE_MESSAGE and message.components == shown
    assert field(message.embed, "Cards") == f"🂠 {top[1].label} {top[2].label}"


@pytest.mark.parametrize("change", ["label", "missing", "hand id", "option", "emoji"])
async def test_a_hand_message_showing_other_buttons_gets_the_current_ones(
    harness: Harness, world: World, change: str
) -> None:
    """A message whose buttons differ from the hand's (an older bot's layout) is sent the current view."""
    store = harness.bot.store
    await stack_shoe(store, world.general, ["2S", "3H", "4C"])
    dealt = await deal_voluntary(harness, world, level=3)
    message = dealt.original
    hand_id = hand_id_of(message)
    current = copy.deepcopy(message)  # the buttons as the bot laid them out
    stand = message.component(f"bj:{hand_id}:stand")
    if change == "label":
        stand["label"] = "Keep"
    elif change == "missing":
        message.components[0]["components"].remove(stand)
    elif change == "hand id":  # a button of another id on the hand's message: not this hand's layout
        stand["custom_id"] = f"bj:{hand_id + 1}:stand"
    elif change == "emoji":
        message.component(f"bj:{hand_id}:peek")["emoji"] = {"id": None, "name": "👀"}
    else:
        message.component(f"bj:{hand_id}:add")["options"].pop()
    hit = await harness.click(message, f"bj:{hand_id}:hit", world.alice)
    assert hit.callback_type == UPDATE_MESSAGE and "components" in hit.record.callback["data"]
    assert message.components == current.components
    assert message.component(f"bj:{hand_id}:stand")["label"] == "Stand"


@pytest.mark.parametrize("suit_rule", [True, False])
async def test_voluntary_hand_to_a_blackjack_bonus(harness: Harness, world: World, suit_rule: bool) -> None:
    """BJ-6: 21 draws a bonus card; with the suit rule a bonus matching the card before it draws one more."""
    store = harness.bot.store
    await store.settings.update(world.guild.id, bj_suit_bonus=suit_rule)
    top = await stack_shoe(store, world.general, ["KS", "5H", "6H", "7H", "2C"])
    dealt = await deal_voluntary(harness, world)
    message = dealt.original
    await harness.click(message, "Hit", world.alice)
    await harness.click(message, "Hit", world.alice)  # 10 + 5 + 6 = 21
    options = HandOptions(suit_bonus=suit_rule)
    expected = feed(
        hit(hit(deal(start_voluntary(5, 3, options=options), top[0]), top[1]), top[2]), iter(top[3:])
    )
    assert expected.ending is Ending.BLACKJACK_BONUS
    assert len(expected.bonus_cards) == (2 if suit_rule else 1)  # 7♥ follows 6♥: one more only with the rule
    result = resolve(expected)
    assert message.components == []
    assert message.embed["title"].endswith(f"{result.name} (TRL {result.trl})")
    assert field(message.embed, "Bonus cards") == " ".join(c.label for c in expected.bonus_cards)
    assert field(message.embed, "Total").endswith(f"= {expected.total} (BJ-6)")
    assert await conserved(store, world.general)


async def test_add_skill_ends_the_hand_and_a_value_not_allowed_is_refused(
    harness: Harness, world: World
) -> None:  # BJ-7
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["8S", "4H"])
    dealt = await deal_voluntary(harness, world, level=3)
    message = dealt.original
    hand_id = hand_id_of(message)
    select = message.component(f"bj:{hand_id}:add")
    allowed = adder_values(3, "low")
    assert [o["value"] for o in select["options"]] == [str(v) for v in allowed]
    before = await store.cards.get_hand(hand_id)

    refused = await forged_click(harness, message, f"bj:{hand_id}:add", world.alice, ["7"])
    assert refused.ephemeral and "may add" in refused.content
    after = await store.cards.get_hand(hand_id)
    assert after.version == before.version and not after.finished

    chosen = allowed[-1]
    added = await harness.click(message, f"bj:{hand_id}:add", world.alice, [str(chosen)])
    expected = add_skill(deal(start_voluntary(3, 3), top[0]), chosen)
    result = resolve(expected)
    assert added.callback_type == UPDATE_MESSAGE and message.components == []
    assert field(message.embed, "Adder") == f"+{chosen}"
    assert message.embed["title"].endswith(f"{result.name} (TRL {result.trl})")
    assert (await store.cards.get_hand(hand_id)).finished


async def test_unskilled_hands_have_no_add_skill(harness: Harness, world: World) -> None:  # BJ-7
    dealt = await deal_voluntary(harness, world, level=0)
    assert not any(cid.endswith(":add") for cid in dealt.original.custom_ids())


async def test_peek_is_for_the_owner_and_gms_only(harness: Harness, world: World) -> None:  # BJ-4, GM-4
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["QD", "3S"])
    dealt = await deal_voluntary(harness, world)
    message = dealt.original
    edits = message.edits
    own = await harness.click(message, "Peek", world.alice)
    assert own.ephemeral and top[0].label in own.content and "10" in own.content
    assert own.public() == [] and message.edits == edits
    stranger = await harness.click(message, "Peek", world.bob)
    assert stranger.ephemeral and "Only the player who started this" in stranger.content
    assert top[0].label not in stranger.text()
    gm = await harness.click(message, "Peek", world.gm)
    assert gm.ephemeral and top[0].label in gm.content


async def test_a_stranger_clicking_hit_changes_nothing(harness: Harness, world: World) -> None:  # GM-4
    store = harness.bot.store
    await stack_shoe(store, world.general, ["4S", "3S", "2S"])
    dealt = await deal_voluntary(harness, world, level=3)
    message = dealt.original
    hand_id = hand_id_of(message)
    before_hand = await store.cards.get_hand(hand_id)
    before_shoe = await shoe_of(store, world.general)
    embeds, edits = copy.deepcopy(message.embeds), message.edits
    [adder] = [option["value"] for option in message.component(f"bj:{hand_id}:add")["options"]][:1]
    for button, values in [("Hit", None), ("Stand", None), ("Odds", None), (f"bj:{hand_id}:add", [adder])]:
        answer = await harness.click(message, button, world.bob, values=values)
        # one ephemeral sentence, from the item's own check, before anything is read or drawn
        assert answer.ephemeral and "Only the player who started this" in answer.content
        assert answer.public() == [] and len(answer.messages) == 1
    assert (await store.cards.get_hand(hand_id)).version == before_hand.version
    assert await shoe_of(store, world.general) == before_shoe
    assert message.embeds == embeds and message.edits == edits
    gm = await harness.click(message, "Hit", world.gm)  # GM-4: a GM may play it
    assert gm.callback_type == UPDATE_MESSAGE


async def test_a_click_on_a_finished_hand_says_so(harness: Harness, world: World) -> None:
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["9C", "9D"])
    dealt = await deal_voluntary(harness, world)
    message = dealt.original
    stale = copy.deepcopy(message)  # the buttons as another client still shows them
    stood = await harness.click(message, "Stand", world.alice)
    assert stood.callback_type == UPDATE_MESSAGE and message.components == []
    expected = resolve(stand(deal(start_voluntary(5, 3), top[0])))
    assert message.embed["title"].endswith(f"{expected.name} (TRL {expected.trl})")
    shoe = await shoe_of(store, world.general)
    for button in ("Hit", "Stand", "Peek"):
        again = await harness.click(stale, button, world.alice)
        assert again.ephemeral and "is over" in again.content
    assert await shoe_of(store, world.general) == shoe
    assert len(await store.log.last(world.guild.id, world.general.id, 10)) == 1


async def test_fifty_concurrent_hits_draw_each_card_once(harness: Harness, world: World) -> None:
    """Issue 6 race: every Hit that succeeded drew exactly one card (plus owed bonuses), none twice."""
    store = harness.bot.store
    await stack_shoe(store, world.general, ["2S", "2H", "AS", "2C", "AH", "3D", "2D", "AC", "3S"])
    dealt = await deal_voluntary(harness, world)
    message = dealt.original
    hand_id = hand_id_of(message)
    stale = copy.deepcopy(message)
    answers = await asyncio.gather(*(harness.click(stale, "Hit", world.alice) for _ in range(50)))
    hits = [a for a in answers if a.callback_type == UPDATE_MESSAGE]
    refused = [a for a in answers if a.callback_type != UPDATE_MESSAGE]
    assert hits and len(hits) + len(refused) == 50
    assert all(a.ephemeral and ("moved on" in a.content or "is over" in a.content) for a in refused)
    record = await store.cards.get_hand(hand_id)
    hand = Hand.from_dict(record.data)
    assert len(hand.cards) == 1 + len(hits)  # the face-down card plus one per successful click
    shoe = await shoe_of(store, world.general)
    assert 52 - len(shoe.remaining) == len(hand.played)  # drawn from the shoe exactly once each
    assert await conserved(store, world.general)


async def test_concurrent_hits_on_a_channel_s_hands_each_draw_without_a_conflict(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:  # BJ-1: moves in one channel take turns with its shoe; none is computed from a shoe gone stale
    store = harness.bot.store
    codes = ["2S", "2H", "2C", "2D", "3S", "3H", "3C", "3D", "4S", "4H", "4C", "4D"]
    await stack_shoe(store, world.general, codes)
    messages = [(await deal_voluntary(harness, world)).original for _ in range(6)]
    conflicts = []
    apply_logged = store.cards.apply_logged

    async def counted(*args: Any, **kwargs: Any) -> Any:
        try:
            return await apply_logged(*args, **kwargs)
        except Conflict:
            conflicts.append(args[0])
            raise

    monkeypatch.setattr(store.cards, "apply_logged", counted)
    answers = await asyncio.gather(*(harness.click(m, "Hit", world.alice) for m in messages))
    assert all(a.callback_type == UPDATE_MESSAGE for a in answers) and conflicts == []
    drawn = []
    for message in messages:
        hand = Hand.from_dict((await store.cards.get_hand(hand_id_of(message))).data)
        assert len(hand.cards) == 2
        drawn.append(hand.cards[1].code)
    assert sorted(drawn) == sorted(codes[6:])  # each of the next six cards, once
    assert await conserved(store, world.general)


async def test_forged_custom_id_for_another_channels_hand_is_refused(harness: Harness, world: World) -> None:
    store = harness.bot.store
    other = await harness.slash(
        world.guild, world.gm_screen, world.alice, "cards task", {"difficulty": 3, "level": 5}
    )
    other_id = hand_id_of(other.original)
    before = await store.cards.get_hand(other_id)
    here = (await deal_voluntary(harness, world)).original
    for action in ("hit", "stand", "peek"):
        answer = await forged_click(harness, here, f"bj:{other_id}:{action}", world.alice)
        assert answer.ephemeral and answer.content == f"There is no hand {other_id} in this channel."
    # a hand that does not exist reads the same as one dealt elsewhere: ids cannot be probed
    missing = await forged_click(harness, here, "bj:999999:hit", world.alice)
    assert missing.ephemeral and missing.content == "There is no hand 999999 in this channel."
    assert (await store.cards.get_hand(other_id)).version == before.version


# -- visibility (issue 7) ---------------------------------------------------------------------------------


async def test_private_hand_is_ephemeral_and_edited_by_its_clicks(harness: Harness, world: World) -> None:
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["7S", "6H"])
    dealt = await deal_voluntary(harness, world, visibility="private")
    message = dealt.original
    assert message.ephemeral and message.custom_ids()
    [notice] = dealt.public()
    assert "private roll" in notice.content and notice.embeds == [] and notice.components == []
    await harness.click(message, "Hit", world.alice)
    assert field(message.embed, "Cards") == f"🂠 {top[1].label}"
    await harness.click(message, "Stand", world.alice)
    expected = resolve(stand(hit(deal(start_voluntary(5, 3), top[0]), top[1])))
    assert message.embed["title"].endswith(f"{expected.name} (TRL {expected.trl})")
    [logged] = await store.log.last(world.guild.id, world.general.id, 5)
    assert logged.visibility == "private"


@pytest.mark.parametrize("mode", ["gm", "blind"])
async def test_gm_and_blind_hands_send_the_result_to_the_gm_channel(
    harness: Harness, world: World, mode: str
) -> None:
    store = harness.bot.store
    await store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    top = await stack_shoe(store, world.general, ["9S", "8H"])
    dealt = await deal_voluntary(harness, world, visibility=mode)
    message = dealt.original
    assert message.ephemeral
    assert [m.channel_id for m in dealt.public()] == ([world.general.id] if mode == "gm" else [])
    assert dealt.in_channel(world.gm_screen) == []  # nothing for the GM before the hand ends
    ended = await harness.click(message, "Stand", world.alice)
    expected = resolve(stand(deal(start_voluntary(5, 3), top[0])))
    [gm_copy] = ended.in_channel(world.gm_screen)
    assert gm_copy.embed["title"].endswith(f"{expected.name} (TRL {expected.trl})")
    assert gm_copy.custom_ids()[0].startswith("reveal:")
    if mode == "blind":
        assert "went to the GM" in message.text() and expected.name not in message.text()
        assert top[0].label not in message.text()
    else:
        assert message.embed["title"].endswith(f"{expected.name} (TRL {expected.trl})")
    revealed = await harness.click(gm_copy, "Reveal", world.gm)
    [post] = revealed.in_channel(world.general)
    assert post.embed["title"] == gm_copy.embed["title"]


# -- shoe, shuffle, reveal, sheets -----------------------------------------------------------------------


async def test_shoe_shows_what_is_left(harness: Harness, world: World) -> None:  # BJ-1
    store = harness.bot.store
    await stack_shoe(store, world.general, ["10S", "9H", "5C"])
    await harness.slash(
        world.guild,
        world.general,
        world.bob,
        "cards task",
        {"difficulty": 1, "level": 2, "mode": "involuntary"},
    )
    await deal_voluntary(harness, world)
    answer = await harness.slash(world.guild, world.general, world.alice, "cards shoe")
    shoe = await shoe_of(store, world.general)
    in_play = await store.cards.in_play(world.guild.id, world.general.id)
    assert field(answer.embed, "Cards left") == str(len(shoe.remaining))
    assert field(answer.embed, "Discards") == str(len(shoe.discards)) != "0"
    assert field(answer.embed, "In open hands").startswith(f"{len(in_play)} (1 hand)")


async def test_shuffle_is_gm_only_and_keeps_open_hands_out(harness: Harness, world: World) -> None:
    """BJ-1 and GM-2: a player is refused; a GM's shuffle gathers everything but the open hands' cards."""
    store = harness.bot.store
    await stack_shoe(store, world.general, ["10S", "9H", "5C", "4D"])
    await harness.slash(
        world.guild,
        world.general,
        world.bob,
        "cards task",
        {"difficulty": 1, "level": 2, "mode": "involuntary"},
    )
    await deal_voluntary(harness, world)
    before = await shoe_of(store, world.general)
    refused = await harness.slash(world.guild, world.general, world.alice, "cards shuffle")
    assert refused.ephemeral and "Only a GM" in refused.content and refused.public() == []
    assert await shoe_of(store, world.general) == before
    done = await harness.slash(world.guild, world.general, world.gm, "cards shuffle")
    assert not done.ephemeral and "reshuffled" in done.content
    shoe = await shoe_of(store, world.general)
    in_play = await store.cards.in_play(world.guild.id, world.general.id)
    assert shoe.discards == () and len(shoe.remaining) == 52 - len(in_play) and in_play
    assert await conserved(store, world.general)
    two = await harness.slash(world.guild, world.general, world.gm, "cards shuffle", {"decks": 2})
    assert "2 decks" in two.content
    assert len((await shoe_of(store, world.general)).remaining) == 104 - len(in_play)
    assert await conserved(store, world.general)


async def test_gm_reveal_shows_the_face_down_card_to_the_gm_only(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:  # BJ-4
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["JC", "4S"])
    dealt = await deal_voluntary(harness, world, visibility="private")
    hand_id = hand_id_of(dealt.original)
    offered = await harness.autocomplete(
        world.guild, world.general, world.gm, "cards reveal", {"hand": ""}, "hand"
    )
    assert [c["value"] for c in offered.choices] == [hand_id]
    # GM-2: a player who can open the command is offered nothing (the labels name skill and difficulty)
    players = await harness.autocomplete(
        world.guild, world.general, world.alice, "cards reveal", {"hand": ""}, "hand"
    )
    assert players.choices == []
    refused = await harness.slash(world.guild, world.general, world.alice, "cards reveal", {"hand": hand_id})
    assert refused.ephemeral and "Only a GM" in refused.content
    shown = await harness.slash(world.guild, world.general, world.gm, "cards reveal", {"hand": hand_id})
    assert shown.ephemeral and shown.public() == []
    assert field(shown.embed, "Cards") == top[0].label and field(shown.embed, "Total") == "10"
    assert not (await store.cards.get_hand(hand_id)).finished  # revealing does not end the hand
    elsewhere = await harness.slash(world.guild, world.gm_screen, world.gm, "cards reveal", {"hand": hand_id})
    assert elsewhere.ephemeral and elsewhere.content == f"There is no hand {hand_id} in this channel."
    missing = await harness.slash(world.guild, world.gm_screen, world.gm, "cards reveal", {"hand": 999999})
    assert missing.ephemeral and missing.content == "There is no hand 999999 in this channel."


async def test_skill_and_bonus_from_the_active_sheet(harness: Harness, world: World) -> None:  # BJ-8, BJ-9
    store = harness.bot.store
    await store.sheets.create(
        {
            "guild_id": world.guild.id,
            "owner_id": world.alice.id,
            "name": "Rook",
            "system": "cards",
            "skills": {"Lockpicking": {"rating": 6}, "Riding": {"rating": 2}},
            "bonuses": {"Dexterity": 3},
        }
    )
    offered = await harness.autocomplete(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 2, "skill": "lock"}, "skill"
    )
    assert [c["value"] for c in offered.choices] == ["Lockpicking"]
    assert "Expert (6)" in offered.choices[0]["name"]
    top = await stack_shoe(store, world.general, ["10D", "9C"])
    answer = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {"difficulty": 2, "skill": "Lockpicking", "characteristic": "Dexterity", "mode": "involuntary"},
    )
    expected = play_involuntary(iter(top), 6, 2, "Dexterity", 3)
    assert expected.characteristic_counts  # a diamond was played (BJ-9)
    result = resolve(expected)
    assert result.bonus == 3 and answer.embed["title"].endswith(f"(TRL {result.trl})")
    assert field(answer.embed, "Skill") == "Lockpicking: Expert (6)"
    missing = await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 2, "skill": "Flying"}
    )
    assert missing.ephemeral and "no skill 'Flying'" in missing.content


async def test_task_needs_a_skill(harness: Harness, world: World) -> None:
    answer = await harness.slash(world.guild, world.general, world.alice, "cards task", {"difficulty": 2})
    assert answer.ephemeral and "skill level" in answer.content
    assert answer.public() == []
