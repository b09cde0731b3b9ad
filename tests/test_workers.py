"""The bot's worker processes: calls run in another process, and a dead worker is replaced."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from collections.abc import AsyncIterator

import pytest

from bot.core.blackjack import deal, hit, start_voluntary
from bot.core.cards import Card, full_deck
from bot.core.odds.cards import voluntary_decision
from bot.ui.odds import (
    _decision,
    card_codes,
    hand_decision,
    hand_decision_line,
    hand_decision_text,
    resisted_cached,
)
from bot.ui.workers import BATCH_POLICY, NICENESS, Workers


@pytest.fixture
async def workers() -> AsyncIterator[Workers]:
    pool = Workers(processes=1)
    try:
        yield pool
    finally:
        pool.close()


async def test_a_call_runs_in_another_process_and_returns_its_value(workers: Workers) -> None:
    assert await workers.run(os.getpid) != os.getpid()
    # a real odds call: core values pickle both ways and come back equal to the local answer
    assert await workers.run(resisted_cached, (12, 9)) == resisted_cached((12, 9))
    assert workers.jobs == 2


async def test_a_worker_runs_at_a_lower_cpu_priority_than_the_bot(workers: Workers) -> None:
    # the odds of a hand's last move must not take a contested core from the loop answering clicks
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    theirs = await workers.run(os.getpriority, os.PRIO_PROCESS, 0)
    assert theirs == min(ours + NICENESS, 19)
    assert os.getpriority(os.PRIO_PROCESS, 0) == ours  # the bot's own is untouched


@pytest.mark.skipif(BATCH_POLICY is None, reason="scheduling policies are Linux's")
async def test_a_worker_is_batch_work_so_waking_it_never_preempts_the_loop(workers: Workers) -> None:
    # a call's write wakes the worker: as a batch process it never takes the loop's core there and then
    ours = os.sched_getscheduler(0)
    assert await workers.run(os.sched_getscheduler, 0) == BATCH_POLICY
    assert os.sched_getscheduler(0) == ours  # the bot's own is untouched


async def test_a_killed_worker_is_replaced_and_the_call_still_answers(workers: Workers) -> None:
    first = await workers.run(os.getpid)
    os.kill(first, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):  # the pool's own thread may have reaped it already
        os.waitpid(first, 0)
    second = await workers.run(os.getpid)
    assert second not in (first, os.getpid())


async def test_close_stops_the_workers_and_a_later_call_starts_new_ones(workers: Workers) -> None:
    first = await workers.run(os.getpid)
    workers.close()
    second = await workers.run(os.getpid)
    assert second != first


async def test_an_exception_in_the_worker_reaches_the_caller_and_the_worker_goes_on(workers: Workers) -> None:
    with pytest.raises(ZeroDivisionError):
        await workers.run(divmod, 1, 0)
    assert await workers.run(divmod, 7, 2) == (3, 1)


async def test_concurrent_calls_each_get_their_own_answer(workers: Workers) -> None:
    answers = await asyncio.gather(*(workers.run(divmod, n, 3) for n in range(50)))
    assert answers == [divmod(n, 3) for n in range(50)]


async def test_a_caller_that_stops_waiting_does_not_disturb_the_next_call(workers: Workers) -> None:
    slow = asyncio.ensure_future(workers.run(time.sleep, 0.2))
    await asyncio.sleep(0.05)
    slow.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await slow
    # the sleep's late answer is dropped; this call gets its own
    assert await workers.run(divmod, 9, 4) == (2, 1)


async def test_the_bot_side_starts_no_thread(workers: Workers) -> None:
    before = threading.active_count()
    await asyncio.gather(*(workers.run(os.getpid) for _ in range(5)))
    assert threading.active_count() == before


async def test_calls_arriving_together_start_one_process(workers: Workers) -> None:
    pids = await asyncio.gather(*(workers.run(os.getpid) for _ in range(8)))
    assert len(set(pids)) == 1 and pids[0] != os.getpid()


async def test_a_worker_closed_mid_call_exits_quietly(workers: Workers) -> None:
    pid = await workers.run(os.getpid)
    call = asyncio.ensure_future(workers.run(time.sleep, 0.3))
    await asyncio.sleep(0.05)
    workers.close()  # the bot shutting down while the worker still computes
    with contextlib.suppress(asyncio.CancelledError):
        await call
    for _ in range(100):  # it finishes the call, finds nobody listening, and exits
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the worker is still running after its bot closed")


def test_a_hands_decision_is_cached_on_its_cards_not_their_order() -> None:
    # BJ-4: the Odds button and then the last move ask the worker the same question; the second answer
    # comes from the cache, whatever order the shoe's cards are listed in.
    hand = hit(deal(start_voluntary(3, 2), Card.parse("9S")), Card.parse("5H"))
    shoe = [c for c in full_deck() if c not in (Card.parse("9S"), Card.parse("5H"))]
    first = hand_decision(hand, shoe)
    hits = _decision.cache_info().hits
    again = hand_decision(hand, list(reversed(shoe)))
    assert again is first and _decision.cache_info().hits == hits + 1
    assert first == voluntary_decision(hand, shoe)
    fewer = hand_decision(hand, shoe[1:])  # another shoe: another question
    assert fewer is not first and fewer == voluntary_decision(hand, shoe[1:])


async def test_a_hands_odds_line_is_worked_out_from_card_codes_in_the_worker(workers: Workers) -> None:
    # BJ-4: the cards cog sends the shoe and its discards as codes and gets the Odds line back as text
    hand = hit(deal(start_voluntary(3, 2), Card.parse("9S")), Card.parse("5H"))
    rest = [c for c in full_deck() if c not in (Card.parse("9S"), Card.parse("5H"))]
    # four cards left: a Hit may run the shoe out, and BJ-1 deals on from the discards
    shoe, discards = rest[:4], rest[4:24]
    assert card_codes(shoe) == " ".join(c.code for c in shoe)
    expected = hand_decision_line(voluntary_decision(hand, shoe, discards))
    assert await workers.run(hand_decision_text, hand, card_codes(shoe), card_codes(discards)) == expected
    without = hand_decision_line(voluntary_decision(hand, shoe))
    assert hand_decision_text(hand, card_codes(shoe)) == without != expected
