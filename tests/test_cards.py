"""Cards and the shoe (BJ-1): codes, drawing, discards, reshuffles and conservation of the cards."""

import dataclasses
import pickle
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from bot.core import blackjack as bj
from bot.core.cards import MAX_DECKS, Card, Shoe, Suit, check_decks, full_deck, parse_cards
from bot.core.errors import RuleError


def test_full_deck_is_52_distinct_cards():
    deck = full_deck()
    assert len(deck) == 52
    assert len(set(deck)) == 52
    assert Counter(card.suit for card in deck) == {suit: 13 for suit in Suit}


@pytest.mark.parametrize("card", full_deck(), ids=lambda c: c.code)
def test_parse_round_trips_every_card(card):
    assert Card.parse(card.code) == card
    assert Card.parse(card.code.lower()) == card
    assert Card.parse(f" {card.code} ") == card


def test_codes_and_labels():
    assert Card(1, Suit.SPADES).code == "AS"
    assert Card(10, Suit.HEARTS).code == "10H"
    assert Card(12, Suit.DIAMONDS).label == "Q♦"
    assert Card(13, Suit.CLUBS).pip_value == 10
    assert Card(1, Suit.CLUBS).pip_value == 1


def test_a_cards_code_and_label_are_worked_out_once_and_are_not_part_of_its_identity():
    # the code is kept with the card (shoes are stored as codes after every draw), the label too (every
    # click shows the hand's); equality, order, hashing, copies and pickling see only rank and suit
    ten = Card(10, Suit.HEARTS)
    assert ten.code == "10H" and ten == Card.parse("10h") and hash(ten) == hash(Card(10, Suit.HEARTS))
    assert sorted([Card(13, Suit.SPADES), ten, Card(1, Suit.CLUBS)])[0] == Card(1, Suit.CLUBS)
    queen = dataclasses.replace(ten, rank=12)
    assert (queen.code, queen.label) == ("QH", "Q♥")
    assert pickle.loads(pickle.dumps(ten)).label == "10♥"
    assert "_code" not in repr(ten) and "_label" not in repr(ten)
    for card in full_deck():
        assert card.label == f"{card.rank_name}{card.suit.symbol}" == str(card)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_cards_are_pickled_as_their_codes(protocol):
    # the odds workers get a hand and its shoe's every card: each card goes as its code and comes back as
    # the one shared Card of that code (Card.parse), equal to the original
    shoe = Shoe(decks=8, remaining=full_deck() * 7, discards=full_deck())
    back = pickle.loads(pickle.dumps(shoe, protocol))
    assert back == shoe and back.remaining[0] is Card.parse(full_deck()[0].code)
    assert len(pickle.dumps(full_deck(), protocol)) < 52 * 30  # a code and a reference each, no fields
    assert pickle.loads(pickle.dumps(Card(10, Suit.HEARTS), protocol)).code == "10H"


@pytest.mark.parametrize(
    "code", ["", "A", "1S", "11H", "ZS", "AX", "10", "0D", "KSS", None, 12, "²H", "١٠S", "３C"]
)
def test_bad_codes_raise_rule_error(code):
    with pytest.raises(RuleError):
        Card.parse(code)


def test_parse_cards_is_card_parse_of_each_code():
    codes = [card.code for card in full_deck()] + ["as", " 10h ", "Qd"]
    assert parse_cards(codes) == tuple(Card.parse(code) for code in codes)
    assert parse_cards(iter(["KS", "2c"])) == (Card(13, Suit.SPADES), Card(2, Suit.CLUBS))
    assert parse_cards([]) == ()
    for bad in (["AS", "ZZ"], ["AS", 12], ["AS", ["KS"]], "AS"):
        with pytest.raises(RuleError):
            parse_cards(bad)


@pytest.mark.parametrize("rank", [0, 14, -1, True, 2.0, "A"])
def test_bad_ranks_raise_rule_error(rank):
    with pytest.raises(RuleError):
        Card(rank, Suit.SPADES)


@pytest.mark.parametrize("decks", [0, MAX_DECKS + 1, -1, True, "2", 1.5])
def test_bad_deck_counts_raise_rule_error(decks):
    with pytest.raises(RuleError):
        check_decks(decks)
    with pytest.raises(RuleError):
        Shoe.fresh(random.Random(1), decks)


@pytest.mark.parametrize("decks", range(1, MAX_DECKS + 1))
def test_bj_1_fresh_shoe_holds_52_per_deck(decks):
    # BJ-1: the shoe is one 52-card deck by default, the count configurable.
    shoe = Shoe.fresh(random.Random(decks), decks)
    assert len(shoe.remaining) == 52 * decks
    assert shoe.discards == ()
    assert Counter(shoe.remaining) == Counter(full_deck() * decks)
    assert shoe.is_conserved()


def test_bj_1_default_shoe_is_one_deck_and_shuffled_by_the_injected_random():
    one = Shoe.fresh(random.Random(7))
    assert one.decks == 1
    assert one == Shoe.fresh(random.Random(7))
    assert one.remaining != full_deck()


def test_bj_1_drawing_empties_the_shoe_then_reshuffles_the_discards():
    rng = random.Random(3)
    shoe = Shoe.fresh(rng)
    drawn = []
    for _ in range(52):
        card, shoe = shoe.draw(rng)
        drawn.append(card)
    assert shoe.remaining == ()
    assert sorted(drawn) == sorted(full_deck())
    # Cards still held in a hand are not in the discards, so they cannot come back.
    held, played = drawn[:5], drawn[5:]
    shoe = shoe.discard(played)
    card, shoe = shoe.draw(rng)
    assert card in played
    assert shoe.discards == ()
    assert len(shoe.remaining) == len(played) - 1
    assert not set(shoe.remaining) & set(held)
    assert shoe.is_conserved([*held, card])


def test_bj_1_empty_shoe_without_discards_refuses_to_draw():
    rng = random.Random(4)
    shoe = Shoe(decks=1, remaining=(), discards=())
    with pytest.raises(RuleError):
        shoe.draw(rng)


def test_bj_1_reshuffle_gathers_everything_not_in_an_open_hand():
    rng = random.Random(5)
    shoe = Shoe.fresh(rng, 2)
    hand = []
    for _ in range(6):
        card, shoe = shoe.draw(rng)
        hand.append(card)
    finished = []
    for _ in range(10):
        card, shoe = shoe.draw(rng)
        finished.append(card)
    shoe = shoe.discard(finished)
    shoe = shoe.reshuffle(rng, in_play=hand)
    assert shoe.discards == ()
    assert len(shoe.remaining) == 104 - 6
    assert Counter(shoe.remaining) + Counter(hand) == Counter(full_deck() * 2)
    assert shoe.is_conserved(hand)


def test_bj_1_reshuffle_refuses_cards_that_are_not_from_the_shoe():
    rng = random.Random(6)
    shoe = Shoe.fresh(rng)
    ace = Card(1, Suit.SPADES)
    with pytest.raises(RuleError) as refused:
        shoe.reshuffle(rng, in_play=[ace, ace])
    assert str(refused.value) == (  # what the GM can do about it, in one sentence
        "The open hands hold more of a card than 1 deck has; shuffle with more decks, or end those hands "
        "first."
    )


def test_is_conserved_sees_a_lost_or_duplicated_card():
    rng = random.Random(8)
    shoe = Shoe.fresh(rng)
    card, shoe = shoe.draw(rng)
    assert not shoe.is_conserved()
    assert shoe.is_conserved([card])
    assert not shoe.is_conserved([card, card])


class ShoeAndHands(RuleBasedStateMachine):
    """BJ-1 conservation: a channel's shoe, its discards and its open hands always hold the same cards."""

    def __init__(self):
        super().__init__()
        self.rng = random.Random(0)
        self.shoe = None
        self.hands = []

    @precondition(lambda self: self.shoe is None)
    @rule(decks=st.integers(1, 3), seed=st.integers(0, 2**32))
    def open_shoe(self, decks, seed):
        self.rng = random.Random(seed)
        self.shoe = Shoe.fresh(self.rng, decks)

    def _in_play(self):
        return [card for hand in self.hands for card in hand.played]

    def _draw(self):
        card, self.shoe = self.shoe.draw(self.rng)
        return card

    def _can_draw(self):
        return self.shoe is not None and (self.shoe.remaining or self.shoe.discards)

    @precondition(lambda self: self.shoe is not None and len(self.hands) < 6)
    @rule(voluntary=st.booleans(), skill=st.integers(0, 10))
    def start_hand(self, voluntary, skill):
        start = bj.start_voluntary if voluntary else bj.start_involuntary
        self.hands.append(start(skill, 3))

    @precondition(lambda self: self.hands)
    @rule(index=st.integers(0, 5), choice=st.sampled_from(["hit", "stand", "add", "feed"]))
    def play(self, index, choice):
        hand = self.hands[index % len(self.hands)]
        i = self.hands.index(hand)
        if hand.needs_card or choice == "feed":
            while hand.needs_card and self._can_draw():
                hand = bj.deal(hand, self._draw())
        elif choice == "hit" and self._can_draw() and not hand.is_over:
            hand = bj.hit(hand, self._draw())
        elif choice == "stand" and hand.can_stand:
            hand = bj.stand(hand)
        elif choice == "add" and hand.can_add_skill:
            hand = bj.add_skill(hand, self.rng.choice(hand.allowed_adders))
        self.hands[i] = hand

    @precondition(lambda self: any(hand.is_over for hand in self.hands))
    @rule()
    def discard_finished(self):
        finished = [hand for hand in self.hands if hand.is_over]
        self.hands = [hand for hand in self.hands if not hand.is_over]
        for hand in finished:
            self.shoe = self.shoe.discard(hand.played)

    @precondition(lambda self: self.shoe is not None)
    @rule()
    def gm_reshuffle(self):
        self.shoe = self.shoe.reshuffle(self.rng, in_play=self._in_play())

    @precondition(lambda self: self.shoe is not None and self.shoe.remaining)
    @rule(count=st.integers(1, 60))
    def burn_cards(self, count):
        # Cards drawn and straight away discarded, as by hands that came and went.
        burned = []
        while count and self._can_draw():
            burned.append(self._draw())
            count -= 1
        self.shoe = self.shoe.discard(burned)

    @invariant()
    def cards_are_conserved(self):
        if self.shoe is None:
            return
        in_play = self._in_play()
        assert self.shoe.is_conserved(in_play)
        every = Counter(self.shoe.remaining + self.shoe.discards + tuple(in_play))
        assert max(every.values()) == self.shoe.decks  # none duplicated beyond its decks
        assert len(every) == 52


TestShoeConservation = ShoeAndHands.TestCase
TestShoeConservation.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)


@settings(deadline=None)
@given(seed=st.integers(0, 2**32), decks=st.integers(1, 4), draws=st.integers(0, 500))
def test_bj_1_draws_with_discards_never_lose_or_duplicate(seed, decks, draws):
    # BJ-1: every drawn card goes back to the discards at once; an empty shoe reshuffles them.
    rng = random.Random(seed)
    shoe = Shoe.fresh(rng, decks)
    for _ in range(draws):
        card, shoe = shoe.draw(rng)
        assert shoe.is_conserved([card])
        shoe = shoe.discard([card])
    assert shoe.is_conserved()
