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
    DIFFICULTY_NAMES,
    SKILL_NAMES,
    Ending,
    Hand,
    HandOptions,
    TaskResult,
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
from bot.core.odds import cards_summary
from bot.core.odds.cards import involuntary_odds
from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import UPDATE_MESSAGE, FakeDiscord
from bot.local.fake.world import FakeChannel, FakeMessage, FakeUser
from bot.store import Conflict, Store
from bot.ui.hands import BLIND_DETAILS, BLIND_ODDS, BUSY
from bot.ui.permissions import NOT_OWNER
from tests.e2e.compact import compact_lines

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


def lines(embed: dict[str, Any]) -> list[str]:
    """The lines under a hand's title: cards and total, the task (with who set a GM modifier), the moves."""
    return str(embed.get("description", "")).split("\n")


def outcome(result: TaskResult) -> str:
    """How a hand's title ends: ``Good (TRL 5), success``."""
    return f"{result.name} (TRL {result.trl}), {'success' if result.succeeded else 'failure'}"


def labels(cards: Any) -> str:
    return " ".join(card.label for card in cards)


def ended_buttons(message: FakeMessage, *, odds: bool = True) -> bool:
    """A finished hand keeps Details and (voluntary) Odds, nothing to play."""
    hand_id = hand_id_of(message)
    return message.custom_ids() == [f"bj:{hand_id}:details", *([f"bj:{hand_id}:odds"] if odds else [])]


async def alices_sheet(store: Store, world: World, skills: dict[str, int], bonuses: dict[str, int]) -> None:
    """Alice's active cards sheet, Rook: skill levels and characteristic bonuses (BJ-8, BJ-9)."""
    await store.sheets.create(
        {
            "guild_id": world.guild.id,
            "owner_id": world.alice.id,
            "name": "Rook",
            "system": "cards",
            "skills": {name: {"rating": rating} for name, rating in skills.items()},
            "bonuses": bonuses,
        }
    )


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
    harness: Harness,
    world: World,
    *,
    level: int = 5,
    difficulty: int = 3,
    user: FakeUser | None = None,
    **options: Any,
) -> Answer:
    """Alice's hand (or ``user``'s) in #general; a player holds one open hand in a channel, a GM several."""
    answer = await harness.slash(
        world.guild,
        world.general,
        user or world.alice,
        "cards task",
        {"difficulty": difficulty, "level": level, **options},
    )
    return answer


# -- involuntary ------------------------------------------------------------------------------------------


async def test_involuntary_hand_plays_out_at_once(harness: Harness, world: World) -> None:  # BJ-3, BJ-11
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["5H", "3C", "2D", "9S", "KD"])
    before = await shoe_of(store, world.general)
    expected = play_involuntary(iter(top), 4, 2, "Speed", 2)
    result = resolve(expected)
    answer = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {"difficulty": 2, "level": 4, "characteristics": "Speed +2", "mode": "involuntary"},
    )
    [message] = answer.public()
    assert ended_buttons(message, odds=False)  # nothing left to play; the breakdown is behind Details
    embed = message.embed
    [record] = await store.cards.recent_hands(world.guild.id, world.general.id, 1)
    assert embed["title"] == f"Alice - cards task: {outcome(result)}"
    assert embed["footer"]["text"] == f"Hand #{record.id}"
    cards, task = lines(embed)  # a title and two lines: no GM modifier applied
    assert expected.ending is Ending.DEALER_STOOD  # 5 + 3 + 2 + 9 = 19
    assert cards == f"{labels(expected.cards)}: the dealer's rule stands on {expected.total}"
    assert task == "Competent (4) vs Easy (2) · Speed +2 counts (♥ played)"  # a heart was played (BJ-9)
    # BJ-11: 2♦ as third card (2 <= 3) is a fumble chance, for the GM only: never on the public message
    assert expected.fumble_flags
    assert "umble" not in message.text() and "%" not in message.text() and "BJ-" not in message.text()
    anyone = await harness.click(message, "Details", world.bob)
    details = anyone.embed
    assert anyone.ephemeral and anyone.public() == []
    assert field(details, "Down / Up (BJ-10)").startswith(f"{result.down:+d} / {result.up:+d}: ")
    assert field(details, "TRL (BJ-8)").endswith(f"= {result.trl}")
    odds = involuntary_odds(before.remaining, 4, 2, "Speed", 2, HandOptions(), discards=before.discards)
    assert field(details, "Chance it had") == cards_summary(odds, result.trl)
    assert "umble" not in anyone.text()
    gm = await harness.click(message, "Details", world.gm)
    assert gm.ephemeral and field(gm.embed, "For the GM (BJ-11)").startswith("Fumble chance: 2♦ as card 3")
    shoe = await shoe_of(store, world.general)
    assert len(shoe.discards) == len(expected.played) and await conserved(store, world.general)
    [logged] = await store.log.last(world.guild.id, world.general.id, 1)
    assert logged.dice == [card.code for card in expected.played] and logged.visibility == "public"
    # the log line reads "/cards task: Hand #N: <outcome>": the summary does not say "cards task" again; a
    # public hand's row keeps no Details of its own (its Details button reads the hand)
    assert "details" not in logged.inputs
    assert logged.summary == f"Hand #{record.id}: {outcome(result)}"


async def test_gm_difficulty_modifier_replaces_the_task_difficulty(
    harness: Harness, world: World
) -> None:  # GM-3
    store = harness.bot.store
    # everyone's difficulty 3 waits behind Alice's own 7: one replaces the task's, so one hand takes one
    await store.modifiers.set(
        world.guild.id, world.general.id, "cards", None, "difficulty", 3, 1, world.gm.id
    )
    await store.modifiers.set(
        world.guild.id, world.general.id, "cards", world.alice.id, "difficulty", 7, 1, world.gm.id
    )
    top = await stack_shoe(store, world.general, ["10H", "8C", "10S", "7D", "9C", "9D"])
    options = {"difficulty": 0, "level": 6, "mode": "involuntary"}
    first = await harness.slash(world.guild, world.general, world.alice, "cards task", options)
    expected = resolve(play_involuntary(iter(top[:2]), 6, 7))
    assert first.embed["title"].endswith(outcome(expected))
    _, task = lines(first.embed)  # who set the modifier is told with the difficulty it set
    assert task == (
        f"Expert (6) vs Absurdly Difficult (7), GM modifier by {world.gm.mention}, asked Mindlessly Easy (0)"
    )
    details = await harness.click(first.original, "Details", world.alice)
    assert field(details.embed, "GM modifier (GM-3)") == (
        f"difficulty Absurdly Difficult (7) for this player, set by {world.gm.mention}"
    )
    second = await harness.slash(world.guild, world.general, world.alice, "cards task", options)
    everyones = resolve(play_involuntary(iter(top[2:4]), 6, 3))
    assert second.embed["title"].endswith(outcome(everyones))
    assert lines(second.embed)[1].startswith("Expert (6) vs Average (3), GM modifier by")
    third = await harness.slash(world.guild, world.general, world.alice, "cards task", options)
    unmodified = resolve(play_involuntary(iter(top[4:]), 6, 0))
    assert third.embed["title"].endswith(outcome(unmodified))
    assert "GM modifier" not in third.embed["description"] and len(lines(third.embed)) == 2


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
    assert world.gm.mention in lines(dealt.embed)[1]
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
    assert top[0].label not in message.text() and lines(message.embed)[0] == "🂠: face down"  # BJ-4
    assert message.embed["title"] == "Alice - cards task: in play"
    assert lines(message.embed)[1:] == [
        "Proficient (5) vs Average (3)",
        "**Hit** draws a card · **Stand** keeps your total · **Add skill** adds 1-5 and ends the hand",
    ]

    first = await harness.click(message, "Hit", world.alice)
    assert first.edited_in_place
    assert lines(message.embed)[0] == f"🂠 {top[1].label}: 9 showing + the face-down card"
    assert top[0].label not in message.text()

    second = await harness.click(message, "Hit", world.alice)
    expected = hit(hit(deal(start_voluntary(5, 3), top[0]), top[1]), top[2])
    assert expected.wrapped and expected.ending is Ending.WRAPPED  # 10 + 9 + 5 = 24 wraps to 3
    result = resolve(expected)
    assert second.edited_in_place and ended_buttons(message)
    assert message.embed["title"] == f"Alice - cards task: {outcome(result)}"
    # the face-down card shows now
    assert lines(message.embed)[0] == f"{labels(top)}: 24 is over 21, wraps to {expected.total}"
    [logged] = await store.log.last(world.guild.id, world.general.id, 5)  # logged once, at the end
    assert logged.dice == [c.code for c in top] and str(result.trl) in logged.result
    assert await conserved(store, world.general)
    assert len((await shoe_of(store, world.general)).discards) == 3


def edit_body(answer: Answer) -> dict[str, Any]:
    """What the click sent to edit its message: its callback's data, or once the click was acknowledged
    first (a slow answer), the edit through its token."""
    if answer.callback_type == UPDATE_MESSAGE:
        return dict(answer.record.callback["data"])
    assert answer.record.original_edit is not None
    return answer.record.original_edit


async def test_a_move_that_keeps_the_buttons_leaves_them_as_they_are(harness: Harness, world: World) -> None:
    """A Hit that leaves the hand going edits the embed; the message keeps the same buttons."""
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["2S", "3H", "4C"])
    dealt = await deal_voluntary(harness, world, level=3)
    message = dealt.original
    shown = copy.deepcopy(message.components)
    assert any(cid.endswith(":add") for cid in message.custom_ids())  # the Add skill select is kept too
    first = await harness.click(message, "Hit", world.alice)
    assert first.edited_in_place and message.components == shown
    assert "components" not in edit_body(first)  # left out: Discord keeps what it shows
    assert lines(message.embed)[0].startswith(f"🂠 {top[1].label}: ")
    second = await harness.click(message, "Hit", world.alice)  # the kept buttons still play the hand
    assert second.edited_in_place and message.components == shown
    assert "components" not in edit_body(second)
    assert lines(message.embed)[0].startswith(f"🂠 {top[1].label} {top[2].label}: ")


@pytest.mark.parametrize(
    "change", ["label", "missing", "hand id", "option", "emoji", "disabled", "placeholder"]
)
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
    elif change == "disabled":
        stand["disabled"] = True
    elif change == "placeholder":
        message.component(f"bj:{hand_id}:add")["placeholder"] = "Add…"
    else:
        message.component(f"bj:{hand_id}:add")["options"].pop()
    hit = await harness.click(message, f"bj:{hand_id}:hit", world.alice)
    assert hit.edited_in_place  # with the buttons sent again: see below
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
    assert ended_buttons(message)
    assert message.embed["title"].endswith(outcome(result))
    assert lines(message.embed)[0] == (
        f"{labels(expected.cards)}: 21, bonus {labels(expected.bonus_cards)}: total {expected.total}"
    )
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
    assert added.edited_in_place and ended_buttons(message)
    assert lines(message.embed)[0] == f"{labels(expected.cards)} + skill {chosen}: {expected.total}"
    assert message.embed["title"].endswith(outcome(result))
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
    assert gm.edited_in_place


async def test_a_click_on_a_finished_hand_says_so(harness: Harness, world: World) -> None:
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["9C", "9D"])
    dealt = await deal_voluntary(harness, world)
    message = dealt.original
    stale = copy.deepcopy(message)  # the buttons as another client still shows them
    stood = await harness.click(message, "Stand", world.alice)
    assert stood.edited_in_place and ended_buttons(message)
    expected = resolve(stand(deal(start_voluntary(5, 3), top[0])))
    assert message.embed["title"].endswith(outcome(expected))
    assert lines(message.embed)[0] == f"{top[0].label}: stood on 9"
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
    hits = [a for a in answers if a.edited_in_place]
    refused = [a for a in answers if not a.edited_in_place]
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
    messages = [(await deal_voluntary(harness, world, user=world.gm)).original for _ in range(6)]
    conflicts = []
    apply_logged = store.cards.apply_logged

    async def counted(*args: Any, **kwargs: Any) -> Any:
        try:
            return await apply_logged(*args, **kwargs)
        except Conflict:
            conflicts.append(args[0])
            raise

    monkeypatch.setattr(store.cards, "apply_logged", counted)
    answers = await asyncio.gather(*(harness.click(m, "Hit", world.gm) for m in messages))
    assert all(a.edited_in_place for a in answers) and conflicts == []
    drawn = []
    for message in messages:
        hand = Hand.from_dict((await store.cards.get_hand(hand_id_of(message))).data)
        assert len(hand.cards) == 2
        drawn.append(hand.cards[1].code)
    assert sorted(drawn) == sorted(codes[6:])  # each of the next six cards, once
    assert await conserved(store, world.general)


async def test_a_busy_channel_s_hits_draw_from_the_shoe_the_hit_before_left(
    harness: Harness, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:  # BJ-1: each Hit reads its hand and writes its move; none reads the shoe or the settings again
    store = harness.bot.store
    await stack_shoe(store, world.general, ["2S", "2H", "2C", "2D", "3S", "3H", "3C", "3D"] * 2, decks=2)
    messages = [(await deal_voluntary(harness, world, user=world.gm)).original for _ in range(8)]
    reads: list[str] = []
    for name, repository in (("get_shoe", store.cards), ("get", store.settings)):
        read = getattr(repository, name)

        async def counted(*args: Any, _read: Any = read, _name: str = name, **kwargs: Any) -> Any:
            reads.append(_name)
            return await _read(*args, **kwargs)

        monkeypatch.setattr(repository, name, counted)
    # busy: the first move writes only once all eight have read their hands and wait on the channel's
    # lock (on a loaded machine they could otherwise come one after another, the lock free in between,
    # and a move then rightly reads the shoe again)
    hands_read: list[int] = []
    for name in ("hand_with_shoe", "hand_in"):
        read_hand = getattr(store.cards, name)

        async def reading(*args: Any, _read: Any = read_hand, **kwargs: Any) -> Any:
            found = await _read(*args, **kwargs)
            hands_read.append(args[0])
            return found

        monkeypatch.setattr(store.cards, name, reading)
    apply_logged = store.cards.apply_logged

    async def after_every_read(*args: Any, **kwargs: Any) -> Any:
        async with asyncio.timeout(2):  # the interactions' 3-second deadline runs meanwhile
            while len(hands_read) < len(messages):
                await asyncio.sleep(0.005)
        await asyncio.sleep(0.05)  # a moment for the other seven to reach the lock
        return await apply_logged(*args, **kwargs)

    monkeypatch.setattr(store.cards, "apply_logged", after_every_read)
    answers = await asyncio.gather(*(harness.click(m, "Hit", world.gm) for m in messages))
    assert all(a.edited_in_place for a in answers) and reads == []
    assert await conserved(store, world.general)


async def test_bj4_a_player_holds_one_open_hand_in_a_channel(harness: Harness, world: World) -> None:  # BJ-4
    # dealing again would let a player keep only the face-down cards they like, the others left unlogged
    store = harness.bot.store
    first = (await deal_voluntary(harness, world, visibility="private")).original
    held = hand_id_of(first)
    await gm_sets_difficulty(harness, world, 6, world.alice)
    again = await deal_voluntary(harness, world, visibility="gm")
    assert again.ephemeral and again.content == (
        f"You already have hand #{held} open in this channel; finish it first "
        "(/cards resume gives you its buttons again)."
    )
    assert again.public() == []  # no GM was sent a copy, and nothing changed
    assert [h.id for h in await store.cards.open_hands(world.guild.id, world.general.id)] == [held]
    [pending] = await store.modifiers.list(world.guild.id, world.general.id)
    assert pending.uses_left == 1
    # elsewhere, or once it is over, a new hand is dealt; an involuntary one ends as dealt, so is never held
    elsewhere = await harness.slash(
        world.guild, world.gm_screen, world.alice, "cards task", {"difficulty": 3, "level": 5}
    )
    assert hand_id_of(elsewhere.original) != held
    involuntary = await deal_voluntary(harness, world, mode="involuntary")
    assert not involuntary.ephemeral and involuntary.original.embeds
    await harness.click(first, "Stand", world.alice)
    assert hand_id_of((await deal_voluntary(harness, world)).original) != held
    # a GM, who deals for several characters, may hold several
    gm_hands = [hand_id_of((await deal_voluntary(harness, world, user=world.gm)).original) for _ in range(2)]
    assert len(set(gm_hands)) == 2


async def test_bj4_two_deals_sent_at_once_leave_one_hand(harness: Harness, world: World) -> None:  # BJ-4
    # a retry or a second device sends the same deal twice: both pass the first check, one is dealt
    store = harness.bot.store
    answers = await asyncio.gather(*(deal_voluntary(harness, world) for _ in range(3)))
    dealt = [a for a in answers if not a.ephemeral]
    refused = [a for a in answers if a.ephemeral]
    [held] = await store.cards.open_hands(world.guild.id, world.general.id)
    assert [hand_id_of(a.original) for a in dealt] == [held.id]
    assert [a.content for a in refused] == [
        f"You already have hand #{held.id} open in this channel; finish it first "
        "(/cards resume gives you its buttons again)."
    ] * 2
    assert await conserved(store, world.general)


async def test_a_list_of_only_commas_is_refused(harness: Harness, world: World) -> None:  # BJ-9
    state = harness.bot.rng.getstate()
    answer = await deal_voluntary(harness, world, mode="involuntary", characteristics=",,,")
    assert answer.ephemeral and answer.content == (
        "Name the task's characteristics, like Strength, Dexterity +2, or leave the option out."
    )
    assert harness.bot.rng.getstate() == state
    assert await harness.bot.store.log.last(world.guild.id, world.general.id, 5) == []


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
    assert lines(message.embed)[0].startswith(f"🂠 {top[1].label}: ")
    await harness.click(message, "Stand", world.alice)
    expected = resolve(stand(hit(deal(start_voluntary(5, 3), top[0]), top[1])))
    assert message.embed["title"].endswith(outcome(expected))
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
    assert [m.channel_id for m in dealt.public()] == (
        [world.gm_screen.id, world.general.id] if mode == "gm" else [world.gm_screen.id]
    )
    [note] = dealt.in_channel(world.gm_screen)  # the GMs learn a hand is in play, not what it holds
    assert note.embeds == [] and note.components == [] and "result comes when it ends" in note.content
    word = "Blind" if mode == "blind" else "GM"  # the deal's note and the result name it alike
    assert note.content.startswith(f"🔒 {word} hand by {world.alice.mention} in <#{world.general.id}>.")
    if mode == "blind":  # its odds and details are the GMs': the player is told so in one sentence
        for action, sentence in (("odds", BLIND_ODDS), ("details", BLIND_DETAILS)):
            shown = copy.deepcopy(message)  # a blind hand shows no such button: forged on its message
            button = next(c for c in shown.walk_components() if "custom_id" in c)
            button["custom_id"] = f"bj:{hand_id_of(message)}:{action}"
            told = await forged_click(harness, shown, button["custom_id"], world.alice)
            assert told.ephemeral and told.content == sentence
    ended = await harness.click(message, "Stand", world.alice)
    expected = resolve(stand(deal(start_voluntary(5, 3), top[0])))
    [gm_copy] = ended.in_channel(world.gm_screen)
    assert gm_copy.content.startswith(f"🔒 {word} hand by {world.alice.mention}")
    assert gm_copy.embed["title"].endswith(outcome(expected))
    assert gm_copy.custom_ids()[0].startswith("reveal:")
    # the GMs' notes: the odds each move had before the last one, in a second embed of their copy
    [_, notes] = gm_copy.embeds
    assert notes["title"] == "For the GM" and "Odds: before the last move (Stand): " in notes["description"]
    if mode == "blind":
        assert "went to the GM" in message.text() and expected.name not in message.text()
        assert top[0].label not in message.text() and message.components == []
    else:
        assert message.embed["title"].endswith(outcome(expected))
        assert "%" not in message.text()  # the odds are the player's to ask for
    revealed = await harness.click(gm_copy, "Reveal", world.gm)
    [post] = revealed.in_channel(world.general)
    assert post.embed["title"] == gm_copy.embed["title"]
    assert len(post.embeds) == 1 and "For the GM" not in post.text()  # the notes stay the GMs'


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
        world.guild, world.general, world.gm, "cards peek", {"hand": ""}, "hand"
    )
    assert [c["value"] for c in offered.choices] == [hand_id]
    # GM-2: a player who can open the command is offered nothing (the labels name skill and difficulty)
    players = await harness.autocomplete(
        world.guild, world.general, world.alice, "cards peek", {"hand": ""}, "hand"
    )
    assert players.choices == []
    refused = await harness.slash(world.guild, world.general, world.alice, "cards peek", {"hand": hand_id})
    assert refused.ephemeral and "Only a GM" in refused.content
    shown = await harness.slash(world.guild, world.general, world.gm, "cards peek", {"hand": hand_id})
    assert shown.ephemeral and shown.public() == []
    assert lines(shown.embed)[0] == f"{top[0].label}: total 10"
    assert not (await store.cards.get_hand(hand_id)).finished  # revealing does not end the hand
    elsewhere = await harness.slash(world.guild, world.gm_screen, world.gm, "cards peek", {"hand": hand_id})
    assert elsewhere.ephemeral and elsewhere.content == f"There is no hand {hand_id} in this channel."
    missing = await harness.slash(world.guild, world.gm_screen, world.gm, "cards peek", {"hand": 999999})
    assert missing.ephemeral and missing.content == "There is no hand 999999 in this channel."


async def test_skill_and_bonus_from_the_active_sheet(harness: Harness, world: World) -> None:  # BJ-8, BJ-9
    store = harness.bot.store
    await alices_sheet(store, world, {"Lockpicking": 6, "Riding": 2}, {"Dexterity": 3})
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
        {"difficulty": 2, "skill": "Lockpicking", "characteristics": "dexterity", "mode": "involuntary"},
    )
    expected = play_involuntary(iter(top), 6, 2, "Dexterity", 3)
    assert expected.characteristic_counts  # a diamond was played (BJ-9)
    result = resolve(expected)
    assert result.bonus == 3 and answer.embed["title"] == f"Alice - Lockpicking: {outcome(result)}"
    assert lines(answer.embed)[1] == "Expert (6) vs Easy (2) · Dexterity +3 counts (♦ played)"
    # the log names the skill and the hand, as the other systems' rows name what was rolled
    [logged] = await store.log.last(world.guild.id, world.general.id, 1)
    assert logged.summary == f"Lockpicking, hand #{hand_id_of(answer.original)}: {outcome(result)}"
    missing = await harness.slash(
        world.guild, world.general, world.alice, "cards task", {"difficulty": 2, "skill": "Flying"}
    )
    assert missing.ephemeral and "no skill 'Flying'" in missing.content


async def test_task_needs_a_skill(harness: Harness, world: World) -> None:
    answer = await harness.slash(world.guild, world.general, world.alice, "cards task", {"difficulty": 2})
    assert answer.ephemeral and "skill level" in answer.content
    assert answer.public() == []


async def test_a_task_names_several_characteristics_each_counted_once(harness: Harness, world: World) -> None:
    # BJ-9: a task may name one or more characteristics; each one's bonus counts once when a played card
    # has its suit (two spades bring Strength's bonus once), and one whose suit never shows does not count.
    store = harness.bot.store
    await alices_sheet(store, world, {"Climbing": 3}, {"Strength": 2, "Dexterity": 3})
    offered = await harness.autocomplete(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {"characteristics": "Strength, de"},
        "characteristics",
    )
    assert offered.choices[0]["value"] == "Strength, Dexterity"
    assert offered.choices[0]["name"] == "Strength, Dexterity (♦, your bonus +3)"
    top = await stack_shoe(store, world.general, ["KS", "5S", "3D"])
    answer = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {
            "difficulty": 3,
            "skill": "Climbing",
            "characteristics": "Strength, Dexterity, Speed +4",
            "mode": "involuntary",
        },
    )
    named = [("Strength", 2), ("Dexterity", 3), ("Speed", 4)]
    expected = play_involuntary(iter(top), 3, 3, characteristics=named)
    result = resolve(expected)
    assert expected.ending is Ending.DEALER_STOOD and result.bonus == 2 + 3  # no heart: Speed does not count
    assert answer.embed["title"] == f"Alice - Climbing: {outcome(result)}"
    assert lines(answer.embed)[1] == (
        "Familiar (3) vs Average (3) · Strength +2 counts (♠ played) · Dexterity +3 counts (♦ played) · "
        "Speed +4 does not count (no ♥)"
    )
    [record] = await store.cards.recent_hands(world.guild.id, world.general.id, 1)
    assert [tuple(c) for c in Hand.from_dict(record.data).characteristics] == named  # stored on the hand
    [logged] = await store.log.last(world.guild.id, world.general.id, 1)
    assert logged.inputs["characteristics"] == [list(c) for c in named]
    details = await harness.click(answer.original, "Details", world.alice)
    assert field(details.embed, "Characteristics (BJ-9)").split("\n") == [
        "Strength +2: counts when a ♠ card is played; counts",
        "Dexterity +3: counts when a ♦ card is played; counts",
        "Speed +4: counts when a ♥ card is played; does not count",
    ]
    assert field(details.embed, "TRL (BJ-8)").startswith(f"⌊({expected.total} + 5) / 5⌋")

    # in play, a voluntary hand says what each characteristic waits for (the face-down card may have it)
    dealt = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {"difficulty": 3, "level": 3, "characteristics": "dexterity +1, Will"},
    )
    assert (
        lines(dealt.embed)[1]
        == "Familiar (3) vs Average (3) · Dexterity +1 if a ♦ is played · Will +0 if a ♣ is played"
    )


@pytest.mark.parametrize(
    ("typed", "refusal"),
    [
        ("Strength, strength +1", "The task names Strength twice; name each characteristic once."),
        ("Luck", "'Luck' is not a characteristic; choose one of "),
        ("Speed +20", "A characteristic bonus is a whole number from -10 to 10."),
        ("Speed ++2", "Write each characteristic as a name with an optional bonus, like Dexterity +2, not "),
    ],
)
async def test_a_task_with_a_characteristic_it_cannot_name_is_refused(
    harness: Harness, world: World, typed: str, refusal: str
) -> None:  # BJ-9: one sentence, nothing dealt
    store = harness.bot.store
    before = await shoe_of(store, world.general)
    answer = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "cards task",
        {"difficulty": 3, "level": 3, "characteristics": typed},
    )
    assert answer.ephemeral and answer.content.startswith(refusal) and answer.public() == []
    assert await shoe_of(store, world.general) == before
    assert await store.cards.recent_hands(world.guild.id, world.general.id, 1) == []


async def test_details_of_a_hand_for_whoever_sees_it(harness: Harness, world: World) -> None:
    # A public hand's Details are anyone's (the breakdown, the rules); a private hand's only its owner's
    # and the GMs'; the fumble chance only the GMs' (BJ-11).
    store = harness.bot.store
    top = await stack_shoe(store, world.general, ["AS", "KC", "9H", "2D", "5S"])
    public = (await deal_voluntary(harness, world)).original
    bob = await harness.click(public, "Details", world.bob)
    assert bob.ephemeral and bob.embed["title"] == f"Hand #{hand_id_of(public)}: details"
    assert field(bob.embed, "Cards (BJ-2)") == "🂠" and top[0].label not in bob.text()
    assert "For the GM (BJ-11)" not in field_names(bob.embed)
    # the face-down ace is a fumble chance (1 <= 1), but Details do not give it away while in play
    gm = await harness.click(public, "Details", world.gm)
    assert field(gm.embed, "For the GM (BJ-11)") == "No fumble chance."
    await harness.click(public, "Stand", world.alice)  # A♠: the hand ends on 11, the face-down card shown
    ended = await harness.click(public, "Details", world.gm)
    assert field(ended.embed, "For the GM (BJ-11)").startswith(f"Fumble chance: {top[0].label} as card 1")
    assert "umble" not in public.text()
    private = (await deal_voluntary(harness, world, visibility="private")).original
    forged = await forged_click(harness, private, f"bj:{hand_id_of(private)}:details", world.bob)
    assert forged.ephemeral and "Only the player who started this" in forged.content
    own = await harness.click(private, "Details", world.alice)
    assert own.ephemeral and field(own.embed, "Cards (BJ-2)") == "🂠"


# -- a hand's message keeps to a title and three lines ----------------------------------------------------


def hand_lines(message: FakeMessage) -> list[str]:
    """The lines of a hand's message, checked as a compact result (a hand's footer only names the hand)."""
    embed = message.embed
    assert embed["footer"]["text"].startswith("Hand #")
    return compact_lines({key: value for key, value in embed.items() if key != "footer"})


async def gm_sets_difficulty(
    harness: Harness, world: World, value: int, member: FakeUser | None = None
) -> None:
    """A GM's `/gm modifier` for cards: the difficulty of ``member``'s next task (default: everyone's)."""
    options: dict[str, Any] = {"system": "cards", "kind": "difficulty", "value": str(value)}
    if member is not None:
        options["member"] = member
    answer = await harness.slash(world.guild, world.general, world.gm, "gm modifier", options)
    assert answer.ephemeral and answer.content.startswith("Set ")


#: Voluntary hands played move by move: (level, characteristics, stacked cards, the moves played).
VOLUNTARY_PLAYS = {
    "hit then stand": (5, "Strength +2, Dexterity +1, Speed, Will -1", ["10S", "5H", "2C"], ["Hit", "Stand"]),
    "stand at once": (5, None, ["9S", "5H"], ["Stand"]),
    "hit to a wrap": (5, "Dexterity +1", ["10S", "9H", "5C"], ["Hit", "Hit"]),
    "hit to a bonus": (5, "Speed +2", ["KS", "5H", "6H", "7H", "2C"], ["Hit", "Hit"]),
    "add skill": (3, "Strength", ["8S", "4H"], ["add"]),
    "unskilled": (0, "Strength +1, Dexterity +2, Speed +3, Will +4", ["2S", "3H", "4C"], ["Hit", "Stand"]),
}


@pytest.mark.parametrize("modifier", ["none", "for the player", "for everyone too"])
@pytest.mark.parametrize("play", list(VOLUNTARY_PLAYS))
async def test_a_voluntary_hand_keeps_to_three_lines_in_every_state(
    harness: Harness, world: World, play: str, modifier: str
) -> None:  # GM-3 on a compact hand: the modifier is told on the task's line, its breakdown in Details
    store = harness.bot.store
    level, characteristics, top, moves = VOLUNTARY_PLAYS[play]
    if modifier != "none":
        await gm_sets_difficulty(harness, world, 6, world.alice)
    if modifier == "for everyone too":  # the player's own applies; everyone's waits for her next task
        await gm_sets_difficulty(harness, world, 1)
    await stack_shoe(store, world.general, top)
    options = {"characteristics": characteristics} if characteristics else {}
    dealt = await deal_voluntary(harness, world, level=level, difficulty=2, **options)
    message = dealt.original
    states = [hand_lines(message)]
    for move in moves:
        if move == "add":
            await harness.click(
                message, f"bj:{hand_id_of(message)}:add", world.alice, [str(adder_values(level)[-1])]
            )
        else:
            await harness.click(message, move, world.alice)
        states.append(hand_lines(message))
    assert ended_buttons(message)
    assert all(len(shown) == (3 if i < len(moves) else 2) for i, shown in enumerate(states)), states
    for shown in states:
        task = shown[1]
        if modifier == "none":
            assert "GM" not in "\n".join(shown) and f"{DIFFICULTY_NAMES[6]} (6)" not in task
        else:  # the difficulty the GM set, who set it, and what the player asked for, on the task's line
            head = f"{SKILL_NAMES[level]} ({level}) vs {DIFFICULTY_NAMES[6]} (6), GM modifier"
            assert task.startswith(head) and f"by {world.gm.mention}, asked Easy (2)" in task
            assert "GM modifiers" not in task
    details = await harness.click(message, "Details", world.alice)
    assert (modifier == "none") != ("GM modifier (GM-3)" in field_names(details.embed))
    pending = await store.modifiers.pending_for(world.guild.id, world.general.id, "cards", world.alice.id)
    assert [(m.value, m.for_everyone) for m in pending] == (
        [(1, True)] if modifier == "for everyone too" else []
    )


@pytest.mark.parametrize("modifier", [False, True])
@pytest.mark.parametrize("visibility", ["public", "gm"])
async def test_an_involuntary_hand_keeps_to_three_lines(
    harness: Harness, world: World, modifier: bool, visibility: str
) -> None:  # GM-3: the modifier on the task's line, in the channel and on the GM's copy
    store = harness.bot.store
    if modifier:
        await gm_sets_difficulty(harness, world, 6, world.alice)
    await store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    top = await stack_shoe(store, world.general, ["2S", "3H", "4C", "5D", "6S"])
    answer = await deal_voluntary(
        harness,
        world,
        level=4,
        difficulty=2,
        mode="involuntary",
        characteristics="Strength +2, Dexterity +1, Speed, Will -1",
        visibility=visibility,
    )
    expected = resolve(play_involuntary(iter(top), 4, 6 if modifier else 2))
    results = [m for m in answer.messages if m.embeds and m.embed["title"].endswith(outcome(expected))]
    assert len(results) == (1 if visibility == "public" else 2)  # gm: the player's, and the GMs' copy
    for message in results:
        shown = hand_lines(message)
        assert len(shown) == 2
        assert (world.gm.mention in shown[1]) == modifier
    if visibility == "gm":  # the GMs' copy has Reveal and Details, as a voluntary hand's does
        [gm_copy] = answer.in_channel(world.gm_screen)
        assert [c.split(":")[0] for c in gm_copy.custom_ids()] == ["reveal", "details"]
        details = await harness.click(gm_copy, gm_copy.custom_ids()[1], world.gm)
        assert details.ephemeral and field(details.embed, "TRL (BJ-8)").endswith(f"= {expected.trl}")


# -- /cards resume: a hand's buttons back, for its owner or a GM (GM-4) -------------------------------------


async def resume(harness: Harness, world: World, user: FakeUser, **options: Any) -> Answer:
    return await harness.slash(world.guild, world.general, user, "cards resume", options)


async def test_a_dismissed_private_hand_is_resumed_by_its_owner_and_plays_on(
    harness: Harness, world: World
) -> None:  # GM-4
    store = harness.bot.store
    await stack_shoe(store, world.general, ["7S", "6H", "2C", "3D"])
    dealt = (await deal_voluntary(harness, world, visibility="private")).original
    hand_id = hand_id_of(dealt)
    again = await resume(harness, world, world.alice)  # no number: her latest open hand here
    assert again.ephemeral and again.public() == [] and hand_id_of(again.original) == hand_id
    assert again.original.embed == dealt.embed
    hit = await harness.click(again.original, "Hit", world.alice)
    assert hit.edited_in_place and (await store.cards.get_hand(hand_id)).version == 2
    # anyone else is refused, and learns nothing of the hand
    bob = await resume(harness, world, world.bob, hand=hand_id)
    assert bob.ephemeral and bob.content == NOT_OWNER and bob.original.embeds == []
    none = await resume(harness, world, world.bob)
    assert (
        none.ephemeral
        and none.content == "You have no open hand in this channel; start one with /cards task."
    )


async def test_a_gm_resumes_a_hidden_hand_left_open_and_ends_it(
    harness: Harness, world: World
) -> None:  # GM-4
    store = harness.bot.store
    await store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    await stack_shoe(store, world.general, ["7S", "6H", "2C", "3D"])
    dealt = (await deal_voluntary(harness, world, visibility="gm")).original
    hand_id = hand_id_of(dealt)
    offered = await harness.autocomplete(
        world.guild, world.general, world.gm, "cards resume", {"hand": ""}, "hand"
    )
    [choice] = offered.choices
    assert choice == {"name": f"#{hand_id}: Alice's hand, 1 card", "value": hand_id}
    other = await harness.autocomplete(
        world.guild, world.general, world.bob, "cards resume", {"hand": ""}, "hand"
    )
    assert other.choices == []  # only her own, or a GM's
    again = await resume(harness, world, world.gm, hand=hand_id)
    assert again.ephemeral and again.original.component("Stand")
    stood = await harness.click(again.original, "Stand", world.gm)
    record = await store.cards.get_hand(hand_id)
    assert record.finished and await conserved(store, world.general)
    [logged] = await store.log.last(world.guild.id, world.general.id, 1)
    assert logged.visibility == "gm" and logged.inputs["hand_id"] == hand_id
    # the GMs' copy has Reveal and Details; once revealed, anyone opens the hand's Details from the post
    [copy] = [m for m in stood.in_channel(world.gm_screen) if m.custom_ids()]
    assert copy.custom_ids() == [f"reveal:{logged.id}", f"details:{logged.id}"]
    hidden = await harness.click(copy, f"details:{logged.id}", world.bob)
    assert hidden.ephemeral and hidden.original.embeds == []
    revealed = await harness.click(copy, "Reveal", world.gm)
    [post] = revealed.in_channel(world.general)
    opened = await harness.click(post, f"details:{logged.id}", world.bob)
    assert opened.ephemeral and "TRL" in opened.original.text() and "umble" not in opened.original.text()
    over = await resume(harness, world, world.alice, hand=hand_id)
    assert over.ephemeral and over.content == f"Hand #{hand_id} is over; start a new one with /cards task."


async def test_a_public_hand_resumed_is_linked_not_copied(harness: Harness, world: World) -> None:  # GM-4
    dealt = (await deal_voluntary(harness, world)).original
    again = await resume(harness, world, world.alice)
    link = f"https://discord.com/channels/{world.guild.id}/{world.general.id}/{dealt.id}"
    assert (
        again.ephemeral
        and again.content == f"Hand #{hand_id_of(dealt)} is in play in this channel's message: {link}"
    )
    assert again.original.components == []
