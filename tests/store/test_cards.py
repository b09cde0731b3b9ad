"""Shoes and hands (BJ-1): persisted shoes, version-checked draws, conservation of cards, reshuffles."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence

import pytest

from bot.core.cards import Card, Shoe, full_deck
from bot.store import Conflict, HandRecord, InvalidData, NotFound, RollRecord, Store
from bot.store.cards import SHOE_WRITE_BUCKETS, Written, write_bucket

G, C, P = 1, 10, 20


async def _deal(store: Store, rng: random.Random, owner: int = P) -> int:
    """Start a hand with one card drawn from the channel's shoe; returns the hand id."""
    shoe, version = await store.cards.get_shoe(G, C, 1, rng)
    card, shoe = shoe.draw(rng)
    hand = await store.cards.create_hand(
        G, C, owner, {"cards": [card.code], "mode": "voluntary"}, state="playing", cards=[card],
        shoe=shoe, shoe_version=version,
    )  # fmt: skip
    return hand.id


async def _conserved(store: Store) -> bool:
    shoe, _ = await store.cards.get_shoe(G, C)
    return shoe.is_conserved(await store.cards.in_play(G, C))


async def test_bj1_a_channel_gets_one_persistent_shoe(store: Store) -> None:  # BJ-1
    shoe, version = await store.cards.get_shoe(G, C, 2, random.Random(3))
    assert version == 1 and shoe.decks == 2 and len(shoe.remaining) == 104 and shoe.is_conserved()
    again, version_again = await store.cards.get_shoe(G, C, 1, random.Random(4))
    assert (again, version_again) == (shoe, 1)  # an existing shoe keeps its order and decks
    other, _ = await store.cards.get_shoe(G, C + 1, 1, random.Random(3))
    assert other.decks == 1
    with pytest.raises(InvalidData, match="1 to 8 decks"):
        await store.cards.get_shoe(G, C + 2, 9)


async def test_bj1_hand_transitions_draw_and_discard(store: Store) -> None:  # BJ-1
    rng = random.Random(5)
    hand_id = await _deal(store, rng)
    hand = await store.cards.get_hand(hand_id)
    assert (hand.version, hand.state, hand.finished, len(hand.cards)) == (1, "playing", False, 1)
    shoe, version = await store.cards.get_shoe(G, C)
    card, shoe = shoe.draw(rng)
    cards = [*hand.card_objects, card]
    hand = await store.cards.apply(
        hand_id, hand.version, {"cards": [c.code for c in cards]}, state="playing", cards=cards,
        shoe=shoe, shoe_version=version, message_id=555,
    )  # fmt: skip
    assert (hand.version, hand.cards, hand.message_id) == (2, tuple(c.code for c in cards), 555)
    # a move that does not end the hand leaves it open (its UPDATE does not name `finished`), and the
    # record a move returns is the row as stored
    assert hand == await store.cards.get_hand(hand_id) and not hand.finished
    assert [h.id for h in await store.cards.open_hands(G, C)] == [hand_id]
    assert await _conserved(store)
    shoe, version = await store.cards.get_shoe(G, C)
    done = await store.cards.apply(
        hand_id, hand.version, hand.data, state="finished", cards=cards, finished=True,
        shoe=shoe.discard(cards), shoe_version=version,
    )  # fmt: skip
    assert done.finished and await store.cards.open_hands(G, C) == []
    assert done == await store.cards.get_hand(hand_id)
    assert [h.id for h in await store.cards.recent_hands(G, C)] == [hand_id]
    shoe, _ = await store.cards.get_shoe(G, C)
    assert Counter(shoe.discards) == Counter(cards) and await _conserved(store)
    with pytest.raises(Conflict, match="finished"):
        await store.cards.apply(hand_id, done.version, {}, state="x", cards=[])


async def test_a_stale_hand_version_raises_conflict_and_changes_nothing(store: Store) -> None:
    rng = random.Random(6)
    hand_id = await _deal(store, rng)
    hand = await store.cards.get_hand(hand_id)
    shoe, version = await store.cards.get_shoe(G, C)
    card, new_shoe = shoe.draw(rng)
    await store.cards.apply(hand_id, 1, {"n": 2}, state="playing", cards=[*hand.cards, card.code],
                            shoe=new_shoe, shoe_version=version)  # fmt: skip
    before_hand = await store.cards.get_hand(hand_id)
    before_shoe = await store.cards.get_shoe(G, C)
    # the same click again: computed from hand version 1 and shoe `version`
    with pytest.raises(Conflict, match="already moved on"):
        await store.cards.apply(hand_id, 1, {"n": 3}, state="playing", cards=[*hand.cards, card.code],
                                shoe=new_shoe, shoe_version=version + 1)  # fmt: skip
    assert await store.cards.get_hand(hand_id) == before_hand
    assert await store.cards.get_shoe(G, C) == before_shoe


async def test_a_stale_shoe_version_raises_conflict_and_changes_nothing(store: Store) -> None:
    rng = random.Random(7)
    first = await _deal(store, rng)
    shoe, version = await store.cards.get_shoe(G, C)
    await _deal(store, rng, owner=P + 1)  # another player drew meanwhile
    card, stale = shoe.draw(rng)
    hand = await store.cards.get_hand(first)
    with pytest.raises(Conflict, match="shoe changed"):
        await store.cards.apply(first, hand.version, {}, state="playing", cards=[*hand.cards, card.code],
                                shoe=stale, shoe_version=version)  # fmt: skip
    assert await store.cards.get_hand(first) == hand
    assert await _conserved(store)


async def test_bj1_reshuffle_keeps_cards_in_open_hands_out(store: Store) -> None:  # BJ-1
    rng = random.Random(8)
    held = [await _deal(store, rng) for _ in range(3)]
    in_play = await store.cards.in_play(G, C)
    assert len(in_play) == 3
    shoe, version = await store.cards.reshuffle(G, C, rng)
    assert len(shoe.remaining) == 49 and not shoe.discards and not set(in_play) - set(full_deck())
    assert Counter(shoe.remaining) + Counter(in_play) == Counter(full_deck())
    assert (shoe, version) == await store.cards.get_shoe(G, C)
    assert [h.id for h in await store.cards.open_hands(G, C)] == held
    bigger, _ = await store.cards.reshuffle(G, C, rng, decks=2)
    assert bigger.decks == 2 and len(bigger.remaining) == 101
    with pytest.raises(InvalidData):
        await store.cards.reshuffle(G, C, rng, decks=9)


async def test_reshuffle_of_a_channel_without_shoe_creates_one(store: Store) -> None:
    shoe, version = await store.cards.reshuffle(G, C + 5, random.Random(1), decks=3)
    assert version == 1 and len(shoe.remaining) == 156


async def test_bad_hand_data_is_refused(store: Store) -> None:
    with pytest.raises(InvalidData, match="JSON object"):
        await store.cards.create_hand(G, C, P, [1, 2], state="playing", cards=[])  # type: ignore[arg-type]
    with pytest.raises(InvalidData, match="not valid JSON"):
        await store.cards.create_hand(G, C, P, "{nope", state="playing", cards=[])
    with pytest.raises(InvalidData, match="card code"):
        await store.cards.create_hand(G, C, P, {}, state="playing", cards=["ZZ"])
    with pytest.raises(InvalidData, match="too big"):
        await store.cards.create_hand(G, C, P, {"x": "y" * 70_000}, state="playing", cards=[])
    with pytest.raises(InvalidData, match="plain JSON"):  # a lone surrogate: SQLite has no text for it
        await store.cards.create_hand(G, C, P, {"x": "\udc00"}, state="playing", cards=[])
    with pytest.raises(InvalidData, match="shoe version"):
        await store.cards.create_hand(G, C, P, {}, state="p", cards=[], shoe=Shoe(decks=1, remaining=()))
    assert await store.cards.open_hands(G, C) == []
    with pytest.raises(NotFound):
        await store.cards.get_hand(12345)


async def test_hand_json_string_and_message_id(store: Store) -> None:
    hand = await store.cards.create_hand(
        G, C, P, '{"a": [1, {"b": null}]}', state="dealt", cards=[Card.parse("AS")]
    )
    assert hand.data == {"a": [1, {"b": None}]} and hand.cards == ("AS",)
    await store.cards.set_message_id(hand.id, 42)
    again = await store.cards.get_hand(hand.id)
    assert again.message_id == 42 and again.version == hand.version


def test_shoe_columns_are_the_codes_as_compact_json() -> None:  # BJ-1: what older rows hold reads the same
    from bot.store._util import dumps
    from bot.store.cards import shoe_from_columns, shoe_to_columns

    rng = random.Random(8)
    for decks in (1, 3, 8):
        cards = list(full_deck()) * decks
        rng.shuffle(cards)
        for cut in (0, 1, 17, len(cards)):
            shoe = Shoe(decks=decks, remaining=tuple(cards[cut:]), discards=tuple(cards[:cut]))
            columns = shoe_to_columns(shoe)
            assert columns == (
                decks,
                dumps([c.code for c in cards[cut:]]),
                dumps([c.code for c in cards[:cut]]),
            )
            assert shoe_from_columns(*columns) == shoe
    assert shoe_from_columns(1, '["as", " 10h"]', "[]").remaining == (Card.parse("AS"), Card.parse("10H"))


@pytest.mark.parametrize(
    "text", ['["AS","10H"]', ' [ "as" , " 10h" ] ', '["\\u0041S"]', '["\\ud800"]', "{}", "[]"]
)
def test_a_card_code_column_decodes_as_json_decodes_it(text: str) -> None:  # BJ-1
    # orjson reads the columns; text it refuses (here a lone surrogate) goes to json
    import json

    from bot.store.cards import _code_list

    read, expected = _code_list(text), json.loads(text)
    assert read == expected and [type(code) for code in read] == [type(code) for code in expected]


@pytest.mark.parametrize("text", ["[NaN]", "[18446744073709551616]", "[5]"])
def test_numbers_in_a_card_code_column_are_refused(text: str) -> None:  # BJ-1
    # orjson may read them otherwise than json (an int beyond 64 bits as a float): no card code either way
    from bot.core.errors import RuleError
    from bot.store.cards import shoe_from_columns

    with pytest.raises(RuleError, match="not a card code"):
        shoe_from_columns(1, text, "[]")


async def test_a_move_s_record_is_the_hand_as_read_back(store: Store) -> None:
    # the record a move returns is built from the values it wrote, not from decoding them again
    rng = random.Random(11)
    hand_id = await _deal(store, rng)
    for data in ({"x": [1, 2.5, None, "é"], "big": 2**70}, {"n": -(2**63), "s": '"\\\u2028'}, {}):
        hand = await store.cards.get_hand(hand_id)
        written = await store.cards.apply_logged(
            hand_id, hand.version, data, state="playing", cards=["AS", Card.parse("10H")]
        )
        again = await store.cards.get_hand(hand_id)
        assert written.record == again and written.record.data == again.data == data
        assert type(written.record.data.get("big", 0)) is int and written.record.cards == ("AS", "10H")


async def test_a_move_from_a_record_read_returns_the_hand_as_read_back(store: Store) -> None:  # BJ-1
    # with the record the move was computed from, the returned record is built from it (no RETURNING)
    rng = random.Random(13)
    hand_id = await _deal(store, rng)
    base = await store.cards.hand_in(hand_id, G, C)
    written = await store.cards.apply_logged(
        hand_id, base.version, {"n": 1}, state="playing", cards=["AS", "10H"], base=base
    )
    assert written.record == await store.cards.get_hand(hand_id) and written.record.message_id is None
    # the message the hand is shown on, set after the record was read: the move keeps it, and says so
    base = written.record
    await store.cards.set_message_id(hand_id, 42)
    shoe, version = await store.cards.get_shoe(G, C)
    card, drawn = shoe.draw(rng)
    written = await store.cards.apply_logged(
        hand_id, base.version, {"n": 2}, state="over", cards=["AS", "10H", card], shoe=drawn,
        shoe_version=version, finished=True, base=base,
    )  # fmt: skip
    record = await store.cards.get_hand(hand_id)
    assert written.record == record and (record.message_id, record.finished, record.version) == (42, True, 3)
    assert await store.cards.get_shoe(G, C) == (drawn, version + 1)
    # a base from another version is refused before anything is written; a stale one is a Conflict
    other = await _deal(store, rng)
    first = await store.cards.hand_in(other, G, C)
    with pytest.raises(InvalidData, match="base record"):
        await store.cards.apply_logged(other, first.version + 1, {}, state="x", cards=[], base=first)
    with pytest.raises(InvalidData, match="base record"):
        await store.cards.apply_logged(hand_id, first.version, {}, state="x", cards=[], base=first)
    moved = await store.cards.apply(other, first.version, {"n": 3}, state="playing", cards=[])
    shoe, version = await store.cards.get_shoe(G, C)
    with pytest.raises(Conflict, match="moved on"):
        await store.cards.apply_logged(
            other, first.version, {}, state="x", cards=[], shoe=shoe.draw(rng)[1], shoe_version=version,
            base=first,
        )  # fmt: skip
    assert await store.cards.get_hand(other) == moved and await store.cards.get_shoe(G, C) == (shoe, version)


async def test_a_hands_cards_column_is_its_codes_as_compact_json(store: Store) -> None:  # BJ-1
    # written without a JSON encoder, as the shoe's columns are: the same text `dumps` gives
    from bot.store._util import dumps

    rng = random.Random(10)
    hand_id = await _deal(store, rng)
    for cards, codes in (([], []), ([" as", "10h", Card.parse("QD")], ["AS", "10H", "QD"])):
        hand = await store.cards.get_hand(hand_id)
        await store.cards.apply(hand_id, hand.version, {}, state="playing", cards=cards)
        row = await store.db.one("SELECT cards FROM hands WHERE id = ?", (hand_id,))
        assert row is not None and row["cards"] == dumps(codes)
        assert (await store.cards.get_hand(hand_id)).cards == tuple(codes)


async def test_a_refused_move_says_why_in_order_and_writes_nothing(store: Store) -> None:
    rng = random.Random(9)
    hand_id = await _deal(store, rng)
    shoe, version = await store.cards.get_shoe(G, C)
    card, drawn = shoe.draw(rng)
    with pytest.raises(NotFound):  # no hand beats a bad state
        await store.cards.apply(hand_id + 99, 1, {}, state="", cards=[], shoe=drawn, shoe_version=version)
    with pytest.raises(Conflict, match="shoe changed"):  # a moved shoe beats a bad state
        await store.cards.apply(hand_id, 1, {}, state="", cards=[], shoe=drawn, shoe_version=version - 1)
    with pytest.raises(InvalidData):
        await store.cards.apply(hand_id, 1, {}, state="", cards=[], shoe=drawn, shoe_version=version)
    assert await store.cards.get_shoe(G, C) == (shoe, version)
    assert (await store.cards.get_hand(hand_id)).version == 1
    done = await store.cards.apply(
        hand_id, 1, {"n": 2}, state="over", cards=[card], shoe=drawn, shoe_version=version, finished=True,
        message_id=5,
    )  # fmt: skip
    assert (done.version, done.state, done.finished, done.cards, done.data, done.message_id) == (
        2, "over", True, (card.code,), {"n": 2}, 5,
    )  # fmt: skip
    assert done == await store.cards.get_hand(hand_id)
    with pytest.raises(Conflict, match="finished"):
        await store.cards.apply(hand_id, 2, {}, state="", cards=[])
    with pytest.raises(Conflict, match="moved on"):
        await store.cards.apply(hand_id, 1, {}, state="x", cards=[])


# -- a hand's end and its roll in the log: one transaction -------------------------------------------------
def _roll_of(hand: HandRecord) -> RollRecord:
    return RollRecord(
        guild_id=hand.guild_id, channel_id=hand.channel_id, user_id=hand.owner_id, system="cards",
        command="cards task", visibility="public", inputs={"hand_id": hand.id}, dice=list(hand.cards),
        result="Success (TRL 1, total 18)", summary="cards task: Success (TRL 1)",
    )  # fmt: skip


def _broken_roll(hand: HandRecord) -> RollRecord:
    # skips validation here; the store validates again inside the transaction and refuses it
    return RollRecord.model_construct(**{**_roll_of(hand).__dict__, "visibility": "shouted"})


async def test_bj1_the_move_that_ends_a_hand_is_logged_with_it(store: Store) -> None:  # BJ-1
    rng = random.Random(11)
    hand_id = await _deal(store, rng)
    hand = await store.cards.get_hand(hand_id)
    shoe, version = await store.cards.get_shoe(G, C)
    ended = dict(
        state="over", cards=hand.cards, finished=True, shoe=shoe.discard(hand.card_objects),
        shoe_version=version,
    )  # fmt: skip
    with pytest.raises(InvalidData):  # the log row is refused: the move is not written either
        await store.cards.apply_logged(hand_id, 1, hand.data, log=_broken_roll, **ended)  # type: ignore[arg-type]
    assert await store.cards.get_hand(hand_id) == hand
    assert await store.cards.get_shoe(G, C) == (shoe, version)
    assert await store.log.last(G, C) == []
    done, log_id = await store.cards.apply_logged(hand_id, 1, hand.data, log=_roll_of, **ended)  # type: ignore[arg-type]
    [logged] = await store.log.last(G, C)
    assert done.finished and logged.id == log_id and logged.inputs == {"hand_id": hand_id}


async def test_bj1_a_hand_dealt_over_is_logged_with_its_deal(store: Store) -> None:  # BJ-1, GM-3
    rng = random.Random(12)
    await store.modifiers.set(G, C, "cards", P, "difficulty", 5, 1, 99)
    shoe, version = await store.cards.get_shoe(G, C, 1, rng)
    card, after = shoe.draw(rng)
    dealt = dict(
        state="over", cards=[card], finished=True, shoe=after.discard([card]), shoe_version=version,
    )  # fmt: skip

    async def deal(log) -> tuple[HandRecord, int | None]:  # type: ignore[no-untyped-def]
        key = object()
        await store.modifiers.reserve(key, G, C, "cards", P)
        ticket = store.modifiers.ticket(key)
        try:
            return await store.cards.create_hand_logged(
                G,
                C,
                P,
                {"mode": "involuntary"},
                modifiers=ticket,
                log=log,
                **dealt,  # type: ignore[arg-type]
            )
        finally:
            store.modifiers.release(ticket)

    with pytest.raises(InvalidData):
        await deal(_broken_roll)
    assert await store.cards.recent_hands(G, C) == [] and await store.log.last(G, C) == []
    assert await store.cards.get_shoe(G, C) == (shoe, version)
    assert [m.uses_left for m in await store.modifiers.list(G, C)] == [1]  # not taken for no hand
    record, log_id = await deal(_roll_of)
    [logged] = await store.log.last(G, C)
    assert logged.id == log_id and logged.inputs == {"hand_id": record.id} and record.finished
    assert await store.modifiers.list(G, C) == []


async def test_bj1_a_hand_is_read_with_its_channel_s_shoe(store: Store) -> None:  # BJ-1
    rng = random.Random(11)
    hand_id = await _deal(store, rng)
    record, read = await store.cards.hand_with_shoe(hand_id, G, C)
    assert record == await store.cards.hand_in(hand_id, G, C)
    assert read is not None and (read.shoe, read.version) == await store.cards.get_shoe(G, C)
    # scoped as hand_in: another channel or guild reads as no hand at all
    for guild, channel in ((G, C + 1), (G + 1, C), (None, C)):
        with pytest.raises(NotFound, match=f"no hand {hand_id} in this channel"):
            await store.cards.hand_with_shoe(hand_id, guild, channel)
    # a hand whose channel has no shoe (stored without one) reads with none
    bare = await store.cards.create_hand(G, C + 5, P, {"mode": "voluntary"}, state="playing", cards=[])
    assert await store.cards.hand_with_shoe(bare.id, G, C + 5) == (bare, None)


async def test_bj1_a_shoe_read_with_a_hand_is_current_until_its_shoe_is_written(store: Store) -> None:
    # BJ-1: a move may draw from the shoe it read with its hand only while no write of that channel's shoe
    # came in between; other channels' writes leave it current
    rng = random.Random(12)
    first, second = await _deal(store, rng), await _deal(store, rng)
    _, read = await store.cards.hand_with_shoe(first, G, C)
    assert read is not None and store.cards.shoe_read_current(read)
    await store.cards.hand_in(second, G, C)  # reads change nothing
    assert store.cards.shoe_read_current(read)
    shoe, version = await store.cards.get_shoe(G, C + 3, 1, rng)  # creating another channel's shoe
    await store.cards.put_shoe(C + 3, shoe.draw(rng)[1], version)  # and writing it
    assert store.cards.shoe_read_current(read)
    # channels are counted in buckets: one that shares this channel's makes its reads look stale
    shared = next(c for c in range(C + 1, C + 10**6) if write_bucket(c) == write_bucket(C))
    shoe, version = await store.cards.get_shoe(G, shared, 1, rng)
    assert not store.cards.shoe_read_current(read)
    _, read = await store.cards.hand_with_shoe(first, G, C)
    assert read is not None
    # a write counts as soon as it is sent: a read taken before it is stale while it is in flight
    hand = await store.cards.get_hand(second)
    card, moved = read.shoe.draw(rng)
    writing = asyncio.ensure_future(
        store.cards.apply(
            second, hand.version, {"cards": [*hand.cards, card.code]}, state="playing",
            cards=[*hand.card_objects, card], shoe=moved, shoe_version=read.version,
        )
    )  # fmt: skip
    await asyncio.sleep(0)
    assert not writing.done() and not store.cards.shoe_read_current(read)
    await writing
    _, after = await store.cards.hand_with_shoe(first, G, C)
    assert after is not None and (after.shoe, after.version) == (moved, read.version + 1)
    assert store.cards.shoe_read_current(after)
    with pytest.raises(Conflict):  # a move from a stale read is refused by its version check anyway
        await store.cards.put_shoe(C, read.shoe, read.version)
    assert store.cards.shoe_read_current(after) is False  # a refused write counted too
    # a move given without its base record names no channel before it settles: every read is stale
    _, after = await store.cards.hand_with_shoe(first, G, C)
    hand = await store.cards.get_hand(second)
    assert after is not None and store.cards.shoe_read_current(after)
    await store.cards.apply(
        second, hand.version, {"cards": list(hand.cards)}, state="playing", cards=hand.card_objects,
        shoe=after.shoe, shoe_version=after.version,
    )  # fmt: skip
    assert not store.cards.shoe_read_current(after)


def test_channels_made_apart_in_time_count_their_shoe_writes_apart() -> None:
    # a snowflake's low 12 bits count the ids its worker made, the same few for ids made a moment apart:
    # a bucket mixes every bit, so 1,000 channels made over a day do not crowd into a few buckets
    day = 86_400_000
    channels = [((1_420_070_400_000 + i * day // 1000) << 22) | (1 << 17) | (i % 3) for i in range(1000)]
    assert len({write_bucket(channel) for channel in channels}) > 850  # about 890 for 1,000 drawn at random
    assert all(0 <= write_bucket(channel) < SHOE_WRITE_BUCKETS for channel in (*channels, 0, 2**63 - 1))


async def test_bj1_the_next_move_under_a_channel_s_lock_knows_the_shoe_the_last_one_left(
    store: Store,
) -> None:  # BJ-1: a busy channel's moves draw from the shoe as the move before left it, without a read
    rng = random.Random(13)
    first, second = await _deal(store, rng), await _deal(store, rng)
    assert store.cards.known_shoe(C) is None  # nobody holds the lock: nothing is carried
    lock = store.cards.shoe_lock(C)
    async with lock:
        assert store.cards.known_shoe(C) is None  # the deals before it were written under no lock
        record, read = await store.cards.hand_with_shoe(first, G, C)
        assert read is not None and store.cards.known_shoe(C, read) == read
        card, moved = read.shoe.draw(rng)
        await store.cards.apply_logged(
            first, record.version, {"cards": [*record.cards, card.code]}, state="playing",
            cards=[*record.card_objects, card], shoe=moved, shoe_version=read.version, base=record,
        )  # fmt: skip
        assert store.cards.known_shoe(C, read) == store.cards.known_shoe(C)  # the stale read gives way
        known = store.cards.known_shoe(C)
        assert known is not None and (known.shoe, known.version) == await store.cards.get_shoe(G, C)
        assert store.cards.known_shoe(C + 1) is None and store.cards.known_shoe(C + 1, known) is None
    async with lock:  # the next holder of the same lock: the second hand stands on a card drawn from it
        record = await store.cards.hand_in(second, G, C)
        known = store.cards.known_shoe(C)
        assert known is not None
        card, moved = known.shoe.draw(rng)
        await store.cards.apply_logged(
            second, record.version, {"cards": [*record.cards, card.code]}, state="stood",
            cards=[*record.card_objects, card], shoe=moved, shoe_version=known.version, finished=True,
        )  # fmt: skip
        known = store.cards.known_shoe(C)
        assert known is not None and (known.shoe, known.version) == await store.cards.get_shoe(G, C)
        # a write that carries nothing (a reshuffle) makes what was carried stale
        await store.cards.reshuffle(G, C, rng)
        assert store.cards.known_shoe(C) is None
    del lock
    assert store.cards.known_shoe(C) is None  # the lock went, and what it carried with it


async def test_bj1_a_shoe_carried_in_one_process_loses_to_another_s_write(
    open_store: Callable[[], Awaitable[Store]],
) -> None:  # BJ-1: what a process carries is checked by the write's version check, like any read
    one, two = await open_store(), await open_store()
    rng = random.Random(14)
    hand_id = await _deal(one, rng)
    lock = one.cards.shoe_lock(C)
    async with lock:
        record, read = await one.cards.hand_with_shoe(hand_id, G, C)
        assert read is not None
        card, moved = read.shoe.draw(rng)
        written = await one.cards.apply_logged(
            hand_id, record.version, {"cards": [*record.cards, card.code]}, state="playing",
            cards=[*record.card_objects, card], shoe=moved, shoe_version=read.version, base=record,
        )  # fmt: skip
        record = written.record
        carried = one.cards.known_shoe(C)
        assert carried is not None
        shoe, version = await two.cards.get_shoe(G, C)  # the other process draws a card meanwhile
        await two.cards.put_shoe(C, shoe.draw(rng)[1], version)
        assert one.cards.known_shoe(C) == carried  # this process cannot know
        card, moved = carried.shoe.draw(rng)
        with pytest.raises(Conflict, match="shoe changed"):
            await one.cards.apply_logged(
                hand_id, record.version, {"cards": [*record.cards, card.code]}, state="playing",
                cards=[*record.card_objects, card], shoe=moved, shoe_version=carried.version, base=record,
            )  # fmt: skip
        assert one.cards.known_shoe(C) is None  # the refused write counted: read the shoe again
    assert await one.cards.get_hand(hand_id) == record


async def test_bj1_a_channel_s_shoe_is_busy_while_its_lock_is_held(store: Store) -> None:  # BJ-1
    assert not store.cards.shoe_busy(C)
    async with store.cards.shoe_lock(C):
        assert store.cards.shoe_busy(C) and not store.cards.shoe_busy(C + 1)
    assert not store.cards.shoe_busy(C)


# -- a move that goes on and draws: one statement (migration 0004's trigger checks both versions) ---------
async def _hit_from(store: Store, hand: HandRecord, rng: random.Random) -> tuple[Shoe, int, Shoe, list[str]]:
    shoe, version = await store.cards.get_shoe(G, C)
    card, drawn = shoe.draw(rng)
    return shoe, version, drawn, [*hand.cards, card.code]


async def test_bj1_a_draw_that_goes_on_writes_the_hand_and_the_shoe_at_once(store: Store) -> None:  # BJ-1
    rng = random.Random(21)
    hand_id = await _deal(store, rng)
    await store.cards.set_message_id(hand_id, 77)
    base = await store.cards.hand_in(hand_id, G, C)
    _, version, drawn, cards = await _hit_from(store, base, rng)
    written = await store.cards.apply_logged(
        hand_id, base.version, {"n": 1, "big": 2**70}, state="playing", cards=cards, shoe=drawn,
        shoe_version=version, base=base,
    )  # fmt: skip
    record = await store.cards.get_hand(hand_id)
    assert written.log_id is None and written.record == record
    assert (record.version, record.cards, record.message_id, record.finished) == (2, tuple(cards), 77, False)
    assert record.data == {"n": 1, "big": 2**70} and record.updated_at >= base.updated_at
    assert await store.cards.get_shoe(G, C) == (drawn, version + 1)
    assert drawn.is_conserved(await store.cards.in_play(G, C))


async def test_bj1_a_draw_refused_by_either_version_writes_neither_row(store: Store) -> None:  # BJ-1
    rng = random.Random(22)
    hand_id = await _deal(store, rng)
    base = await store.cards.hand_in(hand_id, G, C)
    _, version, drawn, cards = await _hit_from(store, base, rng)
    # another hand's draw moved the shoe on: the hand's own write, which came first, is undone with it
    other = await _deal(store, rng)
    shoe_after, version_after = await store.cards.get_shoe(G, C)
    with pytest.raises(Conflict, match="shoe changed"):
        await store.cards.apply_logged(
            hand_id, base.version, {}, state="playing", cards=cards, shoe=drawn, shoe_version=version,
            base=base,
        )  # fmt: skip
    assert await store.cards.hand_in(hand_id, G, C) == base
    assert await store.cards.get_shoe(G, C) == (shoe_after, version_after)
    # the hand moved on (a double click): the shoe is not written either
    moved = await store.cards.apply(hand_id, base.version, {"n": 2}, state="playing", cards=base.cards)
    _, version, drawn, cards = await _hit_from(store, base, rng)
    with pytest.raises(Conflict, match="moved on"):
        await store.cards.apply_logged(
            hand_id, base.version, {}, state="playing", cards=cards, shoe=drawn, shoe_version=version,
            base=base,
        )  # fmt: skip
    assert await store.cards.get_hand(hand_id) == moved
    assert await store.cards.get_shoe(G, C) == (shoe_after, version_after)
    # a finished hand says so
    done = await store.cards.apply(other, 1, {}, state="over", cards=[], finished=True)
    with pytest.raises(Conflict, match="finished"):
        await store.cards.apply_logged(
            other, done.version, {}, state="playing", cards=cards, shoe=drawn, shoe_version=version,
            base=done.model_copy(update={"finished": False}),  # as read just before it finished
        )  # fmt: skip
    assert await store.cards.get_shoe(G, C) == (shoe_after, version_after)


async def _statements(store: Store, write: Awaitable[object]) -> list[str]:
    """The statements SQLite ran for ``write``: no BEGIN or COMMIT around a single statement (the trace
    names the statement again for each of its trigger's steps)."""
    seen: list[str] = []
    await store.db.trace(seen.append)
    try:
        await write
    finally:
        await store.db.trace(None)
    return seen


@pytest.mark.sqlite_only
async def test_bj1_a_draw_that_goes_on_is_one_statement(store: Store) -> None:  # BJ-1
    rng = random.Random(23)
    hand_id = await _deal(store, rng)
    base = await store.cards.hand_in(hand_id, G, C)
    _, version, drawn, cards = await _hit_from(store, base, rng)
    seen = await _statements(
        store,
        store.cards.apply_logged(
            hand_id, base.version, {}, state="playing", cards=cards, shoe=drawn, shoe_version=version,
            base=base,
        ),
    )  # fmt: skip
    assert len(set(seen)) == 1 and seen[0].startswith("INSERT INTO hand_moves")


# -- a move that ends a hand: the hand, the shoe it drew from and its log row in one statement (0005) ------
async def _log_id_on_hand(store: Store, hand_id: int) -> int | None:
    row = await store.db.one("SELECT log_id FROM hands WHERE id = ?", (hand_id,))
    assert row is not None
    return None if row["log_id"] is None else int(row["log_id"])


async def _end(
    store: Store,
    base: HandRecord,
    cards: Sequence[str],
    shoe: Shoe | None = None,
    shoe_version: int | None = None,
    log: Callable[[HandRecord], RollRecord] = _roll_of,
) -> Written:
    """End ``base`` as read: a Hit that drew from ``shoe`` (at ``shoe_version``), or a Stand without."""
    return await store.cards.apply_logged(
        base.id, base.version, {"cards": len(cards)}, state="over" if shoe else "stood", cards=cards,
        shoe=shoe, shoe_version=shoe_version, finished=True, log=log, base=base,
    )  # fmt: skip


async def test_bj1_a_move_that_ends_a_hand_writes_hand_shoe_and_log_row_at_once(store: Store) -> None:  # BJ-1
    rng = random.Random(24)
    hand_id = await _deal(store, rng)
    await store.cards.set_message_id(hand_id, 78)
    base = await store.cards.hand_in(hand_id, G, C)
    _, version, drawn, cards = await _hit_from(store, base, rng)
    written = await _end(store, base, cards, drawn, version)
    record = await store.cards.get_hand(hand_id)
    assert written.record == record
    assert (record.version, record.cards, record.message_id, record.finished) == (2, tuple(cards), 78, True)
    assert (record.state, record.data) == ("over", {"cards": 2})
    assert await store.cards.get_shoe(G, C) == (drawn, version + 1)
    [logged] = await store.log.last(G, C)
    assert logged.id == written.log_id == await _log_id_on_hand(store, hand_id)
    assert (logged.inputs, logged.dice) == ({"hand_id": hand_id}, cards)
    # a Stand draws nothing: the shoe is neither checked nor written, and the next hand's row is its own
    other = await _deal(store, rng)
    shoe_before = await store.cards.get_shoe(G, C)
    stood = await store.cards.hand_in(other, G, C)
    done = await _end(store, stood, stood.cards)
    assert done.record == await store.cards.get_hand(other) and done.record.finished
    assert await store.cards.get_shoe(G, C) == shoe_before
    assert done.log_id == await _log_id_on_hand(store, other) != written.log_id
    assert [roll.id for roll in await store.log.last(G, C)] == [done.log_id, written.log_id]


async def test_bj1_an_ending_refused_for_any_reason_writes_nothing(store: Store) -> None:  # BJ-1
    rng = random.Random(25)
    hand_id = await _deal(store, rng)
    base = await store.cards.hand_in(hand_id, G, C)
    _, version, drawn, cards = await _hit_from(store, base, rng)
    with pytest.raises(InvalidData):  # the roll's row is refused: neither the hand nor the shoe is written
        await _end(store, base, cards, drawn, version, log=_broken_roll)
    other = await _deal(store, rng)  # another hand's draw moves the shoe on
    shoe_after, version_after = await store.cards.get_shoe(G, C)
    with pytest.raises(Conflict, match="shoe changed"):
        await _end(store, base, cards, drawn, version)
    assert await store.cards.hand_in(hand_id, G, C) == base
    assert await store.cards.get_shoe(G, C) == (shoe_after, version_after)
    assert await store.log.last(G, C) == [] and await _log_id_on_hand(store, hand_id) is None
    # the hand moved on (a double click), or is finished, or is gone
    moved = await store.cards.apply(hand_id, 1, {"n": 2}, state="playing", cards=base.cards)
    with pytest.raises(Conflict, match="moved on"):
        await _end(store, base, cards, drawn, version_after)
    assert await store.cards.get_hand(hand_id) == moved
    done = await store.cards.apply(other, 1, {}, state="over", cards=[], finished=True)
    with pytest.raises(Conflict, match="finished"):  # as read just before it finished
        await _end(store, done.model_copy(update={"finished": False}), cards, drawn, version_after)
    with pytest.raises(NotFound):
        await _end(store, base.model_copy(update={"id": other + 99}), cards, drawn, version_after)
    assert await store.cards.get_shoe(G, C) == (shoe_after, version_after)
    assert await store.log.last(G, C) == []


async def test_bj1_racing_endings_of_one_hand_end_it_once_with_one_log_row(store: Store) -> None:  # BJ-1
    rng = random.Random(26)
    hand_id = await _deal(store, rng)
    base = await store.cards.hand_in(hand_id, G, C)
    before, version, drawn, cards = await _hit_from(store, base, rng)

    async def end(i: int) -> Written | Conflict:
        try:  # Hits and Stands from the same view of the hand, as twenty clicks at once would be
            if i % 2:
                return await _end(store, base, cards, drawn, version)
            return await _end(store, base, base.cards)
        except Conflict as refused:
            return refused

    outcomes = await asyncio.gather(*(end(i) for i in range(20)))
    [won] = [outcome for outcome in outcomes if isinstance(outcome, Written)]
    assert all("moved on" in str(o) or "finished" in str(o) for o in outcomes if isinstance(o, Conflict))
    [logged] = await store.log.last(G, C)
    hand = await store.cards.get_hand(hand_id)
    assert won.record == hand and won.log_id == logged.id == await _log_id_on_hand(store, hand_id)
    assert hand.version == 2 and hand.finished
    drew = hand.state == "over"  # a Hit won: its draw is written; a Stand won: the shoe is as it was
    assert await store.cards.get_shoe(G, C) == ((drawn, version + 1) if drew else (before, version))


@pytest.mark.sqlite_only
async def test_bj1_a_move_that_ends_a_hand_is_one_statement(store: Store) -> None:  # BJ-1
    rng = random.Random(27)
    hand_id = await _deal(store, rng)
    base = await store.cards.hand_in(hand_id, G, C)
    _, version, drawn, cards = await _hit_from(store, base, rng)
    seen = await _statements(store, _end(store, base, cards, drawn, version))
    assert len(set(seen)) == 1 and seen[0].startswith("INSERT INTO hand_endings")
