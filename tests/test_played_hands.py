"""bot.ui.cards.played/remember: a stored hand is rebuilt from its dict once per record object."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.core import blackjack as bj
from bot.core.cards import Shoe
from bot.store import HandRecord
from bot.ui import cards as ui_cards


def _record(hand: bj.Hand, hand_id: int = 7, version: int = 1) -> HandRecord:
    now = datetime.now(UTC)
    return HandRecord(
        id=hand_id, guild_id=1, channel_id=2, owner_id=3, state=hand.state.value, finished=hand.is_over,
        cards=tuple(c.code for c in hand.played), data={**hand.to_dict(), "table": {}}, version=version,
        message_id=None, created_at=now, updated_at=now,
    )  # fmt: skip


def _dealt(seed: int) -> bj.Hand:
    rng = random.Random(seed)
    card, _ = Shoe.fresh(rng).draw(rng)
    return bj.deal(bj.start_voluntary(3, 2), card)


@pytest.fixture
def rebuilt(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The dicts Hand.from_dict is asked to rebuild meanwhile (an empty cache to start from)."""
    monkeypatch.setattr(ui_cards, "_parsed", type(ui_cards._parsed)())
    calls: list[Any] = []
    original = bj.Hand.from_dict.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        bj.Hand, "from_dict", classmethod(lambda cls, data: calls.append(data) or original(cls, data))
    )
    return calls


def test_a_record_is_rebuilt_once_and_a_remembered_one_never(rebuilt: list[Any]) -> None:
    hand = _dealt(1)
    first = _record(hand)
    assert ui_cards.played(first) == hand and len(rebuilt) == 1
    assert ui_cards.played(first) == hand and len(rebuilt) == 1  # the same record: kept
    moved = bj.hit(hand, _dealt(2).played[0])
    written = _record(moved, version=2)
    ui_cards.remember(written, moved)  # what a click does with the record its write returned
    assert ui_cards.played(written) is moved and len(rebuilt) == 1
    assert bj.Hand.from_dict(written.data) == moved  # and it is what the stored dict holds


def test_another_record_of_the_same_hand_is_rebuilt(rebuilt: list[Any]) -> None:
    """Another version, or an equal record read again (another store's, a cache miss): never the kept hand."""
    hand = _dealt(3)
    ui_cards.remember(_record(hand), hand)
    again = _record(hand)
    assert ui_cards.played(again) == hand and len(rebuilt) == 1
    other = _dealt(4)
    assert ui_cards.played(_record(other)) == other and len(rebuilt) == 2


def test_one_entry_a_hand_at_most_parsed_hands_in_all(
    rebuilt: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ui_cards, "PARSED_HANDS", 3)
    hand = _dealt(5)
    for version in range(1, 6):  # one hand written five times: one entry
        ui_cards.remember(_record(hand, version=version), hand)
    assert list(ui_cards._parsed) == [7]
    records = [_record(hand, hand_id=i) for i in range(10, 15)]
    for record in records:
        ui_cards.remember(record, hand)
    assert list(ui_cards._parsed) == [12, 13, 14]  # the oldest went first
    ui_cards.played(records[0])
    assert len(rebuilt) == 1 and list(ui_cards._parsed) == [13, 14, 10]
