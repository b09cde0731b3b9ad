"""The bot's worker processes: calls run in another process, and a dead worker is replaced."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator

import pytest

from bot.ui.odds import resisted_cached
from bot.ui.workers import Workers


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
