"""The bot's worker pools: jobs run in other processes, never on the loop's thread; a job that overruns
its time or loses its worker gets one clear sentence, and the next job runs on a fresh pool."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator

import pytest

from bot.core.blackjack import deal, hit, start_voluntary
from bot.core.cards import Card, full_deck
from bot.core.odds.cards import voluntary_decision
from bot.ui import workers as workers_module
from bot.ui.odds import card_codes, hand_decision, hand_decision_line, hand_decision_text, resisted_cached
from bot.ui.odds_jobs import _decision
from bot.ui.reply import UserError
from bot.ui.worker_process import BATCH_POLICY, NICENESS
from bot.ui.workers import JobTimedOut, WorkerDied, Workers


@pytest.fixture
async def workers() -> AsyncIterator[Workers]:
    pool = Workers(processes=1)
    try:
        yield pool
    finally:
        pool.close()


def where() -> tuple[int, int]:
    """The process and thread a job ran in."""
    return os.getpid(), threading.get_ident()


def loaded(*names: str) -> str:
    """An expression for `eval` in a worker (a function of this module would import it, and discord with
    it): which of ``names`` it has imported."""
    return f"[name for name in {names!r} if name in __import__('sys').modules]"


async def gone(pid: int, seconds: float = 10) -> bool:
    """Whether process ``pid`` has exited (and been reaped) within ``seconds``."""
    for _ in range(int(seconds / 0.02)):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.02)
    return False


async def test_a_call_runs_in_another_process_and_returns_its_value(workers: Workers) -> None:
    assert await workers.run(os.getpid) != os.getpid()
    # a real odds call: core values pickle both ways and come back equal to the local answer
    assert await workers.run(resisted_cached, (12, 9)) == resisted_cached((12, 9))
    assert workers.jobs == 2


async def test_no_job_ever_runs_on_the_event_loops_thread(workers: Workers) -> None:
    loop_thread = (os.getpid(), threading.get_ident())
    ticks: list[float] = []

    async def tick() -> None:  # the loop keeps running callbacks while a job computes
        while True:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    ticker = asyncio.ensure_future(tick())
    try:
        places = await asyncio.gather(*(workers.run(where) for _ in range(20)))
        first = places[0][0]
        os.kill(first, signal.SIGKILL)  # and after its pool is replaced
        with contextlib.suppress(WorkerDied):
            await workers.run(time.sleep, 1)
        places.append(await workers.run(where))
        started = time.monotonic()
        await workers.run(time.sleep, 0.5)  # had it run on the loop's thread, no tick would happen
    finally:
        ticker.cancel()
    assert all(place[0] != loop_thread[0] for place in places)
    assert places[-1][0] != first
    during = [t for t in ticks if t >= started]
    assert len(during) >= 10 and max(b - a for a, b in itertools.pairwise(during)) < 0.25


async def test_a_pool_starts_on_a_thread_so_the_loop_never_waits_for_a_process_to_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # starting a worker waits for the fork server (which may have to start and import first)
    opened_on: list[int] = []
    real = workers_module._open

    def slow_open(processes: int) -> object:
        opened_on.append(threading.get_ident())
        time.sleep(0.3)
        return real(processes)

    monkeypatch.setattr(workers_module, "_open", slow_open)
    workers = Workers()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.ensure_future(tick())
    try:
        pids = await asyncio.gather(*(workers.run(os.getpid) for _ in range(3)))
    finally:
        ticker.cancel()
        workers.close()
    assert opened_on and threading.get_ident() not in opened_on
    assert len(opened_on) == 1 and len(set(pids)) == 1  # jobs arriving together start one pool
    assert ticks >= 10


async def test_a_worker_imports_neither_discord_nor_the_store(workers: Workers) -> None:
    # the fork server preloads only the worker-side modules, so each worker stays small
    assert await workers.run(eval, loaded("discord", "pydantic", "aiosqlite", "bot.store")) == []
    await workers.run(hand_decision_text, *_a_hand_and_shoe())
    assert await workers.run(eval, loaded("discord", "pydantic", "bot.ui.odds")) == []
    assert "discord" in sys.modules  # (as the bot has)


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


async def test_a_worker_killed_mid_job_answers_that_job_clearly_and_the_next_job_works(
    workers: Workers,
) -> None:
    first = await workers.run(os.getpid)
    job = asyncio.ensure_future(workers.run(time.sleep, 30))
    queued = asyncio.ensure_future(workers.run(divmod, 7, 2))  # waiting behind it
    await asyncio.sleep(0.3)
    os.kill(first, signal.SIGKILL)
    for waiting in (job, queued):
        with pytest.raises(WorkerDied) as died:
            await asyncio.wait_for(waiting, 10)
    # one sentence the player can read, answered like any user error
    assert isinstance(died.value, UserError) and str(died.value).endswith("please try again.")
    second = await workers.run(os.getpid)
    assert second not in (first, os.getpid())
    assert await workers.run(divmod, 9, 4) == (2, 1)


async def test_a_job_that_overruns_its_time_is_stopped_with_a_clear_sentence() -> None:
    workers = Workers(timeout=1.5)
    try:
        stuck = await workers.run(os.getpid)
        started = time.monotonic()
        with pytest.raises(JobTimedOut) as overran:
            await workers.run(time.sleep, 60)
        assert time.monotonic() - started < 5
        assert isinstance(overran.value, UserError) and "took too long" in str(overran.value)
        assert await gone(stuck)  # killed, not left computing
        assert await workers.run(divmod, 7, 2) == (3, 1)  # on a fresh worker
        assert await workers.run(os.getpid) != stuck
    finally:
        workers.close()


async def test_a_job_queued_behind_an_overrunning_one_still_gets_its_answer() -> None:
    workers = Workers(timeout=1.5)
    try:
        await workers.run(os.getpid)
        stuck = asyncio.ensure_future(workers.run(time.sleep, 60))
        await asyncio.sleep(0.5)
        # not its fault that the worker was killed: it goes to the next pool, within its own time
        assert await workers.run(divmod, 7, 2) == (3, 1)
        with pytest.raises(JobTimedOut):
            await stuck
    finally:
        workers.close()


async def test_close_stops_the_workers_and_a_later_call_starts_new_ones(workers: Workers) -> None:
    first = await workers.run(os.getpid)
    workers.close()
    assert await gone(first)
    second = await workers.run(os.getpid)
    assert second != first


async def test_a_worker_closed_mid_job_stops_at_once(workers: Workers) -> None:
    pid = await workers.run(os.getpid)
    call = asyncio.ensure_future(workers.run(time.sleep, 30))
    await asyncio.sleep(0.3)
    workers.close()  # the bot shutting down while the worker still computes: nobody will read it
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(call, 10)
    assert await gone(pid, 5)


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


async def test_calls_arriving_together_share_one_process(workers: Workers) -> None:
    pids = await asyncio.gather(*(workers.run(os.getpid) for _ in range(8)))
    assert len(set(pids)) == 1 and pids[0] != os.getpid()


def _raise_timeout() -> None:
    raise TimeoutError("the job's own")


def _a_hand_and_shoe() -> tuple[object, str, str]:
    hand = hit(deal(start_voluntary(3, 2), Card.parse("9S")), Card.parse("5H"))
    rest = [c for c in full_deck() if c not in (Card.parse("9S"), Card.parse("5H"))]
    return hand, card_codes(rest[:30]), card_codes(rest[30:])


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


async def test_a_jobs_own_timeout_error_is_its_own_not_an_overrun(workers: Workers) -> None:
    pid = await workers.run(os.getpid)
    with pytest.raises(TimeoutError) as raised:
        await workers.run(_raise_timeout)
    assert not isinstance(raised.value, JobTimedOut)
    assert await workers.run(os.getpid) == pid  # its worker was not killed for it


async def test_a_warmed_pool_has_its_worker_running_before_any_job(workers: Workers) -> None:
    await workers.warm()
    pool = workers._pool
    assert pool is not None and workers.jobs == 0
    (pid,) = pool.pids[:]  # the worker wrote its pid as it started (`prepare_worker`)
    assert pid and pid != os.getpid()
    assert await workers.run(os.getpid) == pid  # the first job runs on it, no new pool


async def test_a_job_arriving_while_the_pool_warms_up_waits_for_that_pool(workers: Workers) -> None:
    # a table's first click during start-up: one pool, not one for the warm-up and one for the job
    warming = asyncio.ensure_future(workers.warm())
    pid = await workers.run(os.getpid)
    await warming
    assert workers._pool is not None and workers._pool.pids[:] == [pid]


async def test_a_pool_that_cannot_warm_up_is_left_to_the_first_job(
    workers: Workers, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_process(processes: int) -> object:
        raise WorkerDied()

    with monkeypatch.context() as patched:
        patched.setattr(workers_module, "_open", no_process)
        await workers.warm()  # nothing raised: start-up goes on
    assert workers._pool is None
    assert await workers.run(divmod, 7, 2) == (3, 1)


async def test_a_bot_closed_while_its_pool_warms_up_leaves_no_worker(
    workers: Workers, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[workers_module._Pool] = []

    def recorded(processes: int) -> workers_module._Pool:
        opened.append(pool := open_pool(processes))
        return pool

    open_pool = workers_module._open
    monkeypatch.setattr(workers_module, "_open", recorded)
    warming = asyncio.ensure_future(workers.warm())
    await asyncio.sleep(0)  # the pool is opening on its thread
    workers.close()  # the bot stopping during start-up
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(warming, 10)
    assert workers._pool is None
    (pool,) = opened
    assert pool.stopped == "closed"
    (pid,) = pool.pids[:]
    assert await gone(pid)
