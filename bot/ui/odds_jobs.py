"""The odds jobs that run in the bot's odds worker process (``bot.workers``, `bot.ui.workers`).

They take milliseconds to seconds (the cards odds depend on the shoe, a sustained pool's on a Markov
chain, a contest's on many parties). The fork server preloads this module and each worker is forked from
it, so it imports ``bot.core`` only: no discord, no store, and a worker stays small. `bot.ui.odds`
re-exports every name here for the cogs.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.core import rps as rps_rules
from bot.core.blackjack import Hand
from bot.core.cards import Card, parse_cards
from bot.core.decision import DiceMode
from bot.core.odds import cards_summary, hand_decision_summary, percent
from bot.core.odds.cards import HandDecision, InvoluntaryOdds, involuntary_odds, voluntary_decision
from bot.core.odds.contest import ContestOdds
from bot.core.odds.decision import contested_odds
from bot.core.odds.rps import resisted_odds, sustained_odds

if TYPE_CHECKING:  # a stored pool arrives pickled; its class is imported when it is unpickled
    from bot.store import Pool

CACHE_SIZE = 1024
# A pool's odds take longer the bigger its Goal (seconds near the largest): a roll's line shows them up
# to this Goal; /odds pool answers up to the engine's limit.
LINE_MAX_GOAL = 200


@functools.lru_cache(maxsize=CACHE_SIZE)
def resisted_cached(bases: tuple[int, ...]) -> ContestOdds:
    """RPS-7 odds for the parties' Bases (cached)."""
    return resisted_odds(bases)


def core_pool(pool: Pool) -> rps_rules.SustainedPool | None:
    """The stored pool as the core's running SustainedPool; None once it has ended (or was stopped)."""
    if not pool.running:
        return None
    return rps_rules.SustainedPool(
        goal=pool.goal,
        base=pool.base,
        minutes_per_check=pool.time_per_check,
        no_loss=pool.no_loss,
        pool=pool.pool,
        checks=pool.checks_made,
    )


def sustained_line(pool: Pool) -> str:
    """RPS-8 from the pool as it stands now: P(complete), expected checks and time left.

    Slow for a big Goal: run it in ``bot.workers``.
    """
    running = core_pool(pool)
    if running is None:
        return f"the action has {pool.state}"
    if running.goal > LINE_MAX_GOAL:
        return f"odds are shown here for Goals up to {LINE_MAX_GOAL}; ask /odds pool"
    odds = sustained_odds(running)
    return (
        f"{percent(odds.complete)} to complete, {percent(odds.fail)} to fail; about "
        f"{float(odds.expected_checks):.1f} checks ({float(odds.expected_minutes):.0f} {pool.time_unit}) left"
    )


@functools.lru_cache(maxsize=CACHE_SIZE)
def contested_cached(modifiers: tuple[int, ...], modes: tuple[DiceMode, ...]) -> ContestOdds:
    """DD-5 odds (cached)."""
    return contested_odds(modifiers, modes)


def involuntary_line(
    shoe: Sequence[Card], hand: Hand, actual_trl: int | None, discards: Sequence[Card] = ()
) -> tuple[str, InvoluntaryOdds]:
    """BJ-3 from the shoe the hand was dealt from, and its discards, which an empty shoe reshuffles and
    deals on from (BJ-1) (slow: run it in ``bot.workers``)."""
    odds = involuntary_odds(
        shoe,
        hand.skill,
        hand.difficulty,
        options=hand.options,
        discards=discards,
        characteristics=hand.characteristics,
    )
    return cards_summary(odds, actual_trl), odds


DECISION_CACHE = 256  # per worker process; a decision is a handful of Fractions


def hand_decision(hand: Hand, shoe: Sequence[Card], discards: Sequence[Card] = ()) -> HandDecision:
    """BJ-4/BJ-7: Stand, each adder and Hit from here, the shoe's discards dealt on from when it runs out
    (BJ-1) (slow: run it in ``bot.workers``).

    Cached on the hand and the cards left (their order does not matter): a player who asked the Odds
    button, then made the hand's last move, asks the same question twice, and the result's odds line
    then costs nothing.
    """
    return _decision(hand, _in_order(shoe), _in_order(discards))


@functools.lru_cache(maxsize=DECISION_CACHE)
def _decision(hand: Hand, shoe: tuple[Card, ...], discards: tuple[Card, ...]) -> HandDecision:
    return voluntary_decision(hand, shoe, discards)


def _in_order(cards: Sequence[Card]) -> tuple[Card, ...]:
    return tuple(sorted(cards, key=lambda card: (card.rank, card.suit.value)))


def hand_decision_line(decision: HandDecision) -> str:
    """ "Hit 62% (expected TRL 2.4) · Stand 0% (expected TRL -1.0) · ... · best: Add 3"."""
    return hand_decision_summary(decision)


def hand_decision_text(hand: Hand, shoe: str, discards: str = "") -> str:
    """`hand_decision_line` of `hand_decision`, from the codes of the shoe's cards and of its discards
    (`card_codes`): what the cards cog sends its worker. Codes pickle in a third of the time the Cards
    take, and the answer is the line: the event loop neither unpickles the decision's Fractions nor
    formats them."""
    return hand_decision_line(hand_decision(hand, parse_cards(shoe.split()), parse_cards(discards.split())))


def card_codes(cards: Sequence[Card]) -> str:
    """The cards' codes, space-separated: ``AS 10H QD`` (read back by `hand_decision_text`)."""
    return " ".join([card.code for card in cards])
