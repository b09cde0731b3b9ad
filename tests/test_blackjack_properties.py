"""Property tests for the hand state machine (BJ-2..BJ-7, BJ-11): random plays, never a move after the end."""

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.core import blackjack as bj
from bot.core.blackjack import Ending, HandMode, HandOptions, HandState
from bot.core.cards import full_deck
from bot.core.errors import IllegalMove

decks = st.permutations(full_deck())
options = st.builds(
    HandOptions,
    adder_scheme=st.sampled_from(sorted(bj.ADDER_SCHEMES)),
    suit_bonus=st.booleans(),
    characteristic_rule=st.booleans(),
    fumble_flags=st.booleans(),
)
moves = st.lists(st.sampled_from(["hit", "stand", "add"]), max_size=15)


def _best_total(hand):
    ranks = [card.rank for card in hand]
    base = sum(min(rank, 10) for rank in ranks if rank != 1)
    aces = ranks.count(1)
    totals = {base + sum(choice) for choice in itertools.product((1, 11), repeat=aces)}
    under = [t for t in totals if t <= 21]
    return max(under) if under else min(totals)


def _play(deck, mode, skill, opts, chosen, rng_index):
    """Play a hand: the shoe's cards when it needs them, the chosen moves otherwise."""
    cards = iter(deck)
    start = bj.start_voluntary if mode is HandMode.VOLUNTARY else bj.start_involuntary
    hand = start(skill, 3, "Speed", 2, opts)
    history = [hand]
    for move in chosen:
        while hand.needs_card:
            hand = bj.deal(hand, next(cards))
            history.append(hand)
        if hand.is_over:
            break
        if move == "hit":
            hand = bj.hit(hand, next(cards))
        elif move == "stand":
            hand = bj.stand(hand)
        elif hand.can_add_skill:
            allowed = hand.allowed_adders
            hand = bj.add_skill(hand, allowed[rng_index % len(allowed)])
        history.append(hand)
    while hand.needs_card:
        hand = bj.deal(hand, next(cards))
        history.append(hand)
    return hand, history, cards


@settings(max_examples=400, deadline=None)
@given(
    deck=decks,
    mode=st.sampled_from(list(HandMode)),
    skill=st.integers(0, 10),
    opts=options,
    chosen=moves,
    rng_index=st.integers(0, 10),
)
def test_random_plays_keep_every_rule(deck, mode, skill, opts, chosen, rng_index):
    hand, history, cards = _play(deck, mode, skill, opts, chosen, rng_index)
    for step in history:
        # Totals never exceed 21 except through bonus cards (BJ-5 wraps, BJ-6 adds without wrapping).
        if not step.bonus_cards:
            assert 1 <= step.total <= 21 or not step.played
        else:
            assert step.total > 21 and step.running_total == 21
            assert len(step.bonus_cards) <= 2
        if step.adder is None:
            assert step.running_total == _best_total(step.cards)  # BJ-2
        if step.wrapped:
            assert step.total == step.running_total - 21 <= 10  # BJ-5
        assert step.state is not HandState.AWAITING_BONUS or step.running_total == 21  # BJ-6
        if step.fumble_flags:  # BJ-11
            assert all(step.played[i].pip_value <= i + 1 for i in step.fumble_flags)
        assert bj.Hand.from_dict(step.to_dict()) == step
        # a transition copies the hand without re-running __init__ (bj._evolve): every step is still
        # exactly the hand the checked constructor builds from its fields, and carries nothing else
        built = bj.Hand(**{f.name: getattr(step, f.name) for f in dataclasses.fields(bj.Hand)})
        assert built == step and vars(built) == vars(step) and type(step) is bj.Hand
    if mode is HandMode.INVOLUNTARY:
        assert hand.is_over  # BJ-3 plays itself out
        assert hand.adder is None and hand.ending is not Ending.STOOD
    if hand.ending is Ending.DEALER_STOOD:
        assert 17 <= hand.total <= 20
        assert all(bj.card_total(hand.cards[:n]) <= 16 for n in range(1, len(hand.cards)))
    if hand.is_over:
        _assert_refuses_every_move(hand, next(cards))
        result = bj.resolve(hand)
        assert result.trl == (hand.total + hand.counted_bonus) // 5 + skill - 3  # BJ-8
        summary = bj.summarize(hand)
        assert None not in summary.cards and summary.total == hand.total


def test_a_transition_changes_only_how_the_hand_was_played():
    # BJ-4..BJ-7: hit, stand, bonus and adder moves change the cards, the adder and the state, never the task
    hand = bj.start_voluntary(3, 2)
    with pytest.raises(TypeError):
        bj._evolve(hand, skill=9)  # the task is never a transition's to change
    with pytest.raises(bj.RuleError):
        bj._evolve(hand, state=HandState.ENDED)  # ended without an ending
    with pytest.raises(bj.RuleError):
        bj._evolve(hand, cards=("AS",))  # a code is not a card


def _assert_refuses_every_move(hand, card):
    for move in (
        lambda: bj.hit(hand, card),
        lambda: bj.deal(hand, card),
        lambda: bj.add_bonus(hand, card),
        lambda: bj.stand(hand),
        *(lambda v=v: bj.add_skill(hand, v) for v in range(1, 11)),
    ):
        with pytest.raises(IllegalMove):
            move()


@settings(max_examples=300, deadline=None)
@given(deck=decks, skill=st.integers(0, 10), opts=options)
def test_bj_3_involuntary_hands_follow_the_dealers_rule(deck, skill, opts):
    hand = bj.play_involuntary(deck, skill, 4, options=opts)
    assert hand.is_over
    for n in range(1, len(hand.cards)):
        assert bj.card_total(hand.cards[:n]) <= 16  # it drew only while at 16 or less
    last = bj.card_total(hand.cards)
    expected = Ending.WRAPPED if last > 21 else Ending.BLACKJACK_BONUS if last == 21 else Ending.DEALER_STOOD
    assert hand.ending is expected


@given(st.lists(st.sampled_from(full_deck()), max_size=10))
def test_bj_2_card_total_is_the_best_blackjack_count(hand):
    assert bj.card_total(hand) == _best_total(hand)


@given(
    total=st.integers(1, 41),
    skill=st.integers(0, 9),
    difficulty=st.integers(1, 7),
    bonus=st.integers(-10, 10),
)
def test_bj_8_trl_is_monotonic(total, skill, difficulty, bonus):
    trl = bj.task_resolution_level(total, skill, difficulty, bonus)
    assert bj.task_resolution_level(total + 1, skill, difficulty, bonus) >= trl
    assert bj.task_resolution_level(total, skill + 1, difficulty, bonus) == trl + 1
    assert bj.task_resolution_level(total, skill, difficulty - 1, bonus) == trl + 1


@given(st.lists(st.sampled_from(full_deck()), min_size=1, max_size=12))
def test_bj_11_flags_are_exactly_the_low_cards(drawn):
    hand = bj.start_voluntary(5, 2, options=HandOptions(suit_bonus=False))
    for card in drawn:
        if hand.pending_bonus:
            hand = bj.add_bonus(hand, card)
        elif hand.is_over:
            break
        else:
            hand = bj.hit(hand, card)
    expected = tuple(i for i, card in enumerate(hand.played) if card.pip_value <= i + 1)
    assert hand.fumble_flags == expected
