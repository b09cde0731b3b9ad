"""Worker processes for CPU-heavy pure work: exact odds that take milliseconds, and charts.

The event loop runs every interaction on one thread. Work that holds the GIL for milliseconds (a
voluntary hand's exact decision, a sustained pool's Markov chain, a chart) must not run on it, and not
in a thread either: the thread would hold the GIL while the loop waits for it after every socket call,
up to the interpreter's switch interval each time (bench/latency.py showed Hit clicks at 5x the CPU and
4x the latency of a bare bot while the odds ran in threads). In a process the loop keeps the GIL.

The bot makes two in ``setup_hook``, one process each: ``bot.workers`` for the exact odds and
``bot.chart_workers`` for charts, so matplotlib is loaded in one process only and a chart never waits
behind a hand's odds (nor the other way round). Each process starts with its pool's first job.
What is sent must pickle: module-level functions of ``bot.core`` / ``bot.ui`` and frozen core values.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
# Per pool. The event loop needs a core of its own: on the two-core machines this runs on, a second odds
# process would compete with the loop exactly when the bot is busiest, and each costs ~15 MB of its own.
PROCESSES = 1
WATCH_SECONDS = 0.5  # how often a worker checks that the bot is still its parent


def watch_parent() -> None:
    """Worker initializer: forget the bot's signal handling, and exit as soon as the bot is gone.

    A forked worker inherits the event loop's signal wake-up socket: a SIGTERM meant for the worker must
    not reach the bot's loop, so the default handlers come back. And a pool's workers never learn that
    the bot was killed (SIGKILL, a crash): they would wait for work forever, holding the bot's stderr
    open; a worker is re-parented the moment its parent dies, so the parent's pid is polled.
    """
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="worker-watchdog", daemon=True).start()


class Workers:
    """A pool of worker processes; `run` sends one call and awaits its value without blocking the loop."""

    def __init__(self, processes: int = PROCESSES) -> None:
        self.processes = processes
        self._executor: ProcessPoolExecutor | None = None
        self.jobs = 0  # calls sent so far (tests read it)

    def _new_executor(self) -> ProcessPoolExecutor:
        # fork: a worker is the bot's direct child, so it can see the bot die (a fork server's workers
        # keep the server alive and outlive a killed bot); `watch_parent` resets the inherited signals.
        context = multiprocessing.get_context("fork")
        return ProcessPoolExecutor(self.processes, mp_context=context, initializer=watch_parent)

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker process; a pool broken by a dead worker is replaced once."""
        loop = asyncio.get_running_loop()
        for attempt in range(2):
            if self._executor is None:
                self._executor = self._new_executor()
            self.jobs += 1
            try:
                return await loop.run_in_executor(self._executor, function, *args)
            except BrokenProcessPool:
                # a worker died (killed, out of memory): start fresh workers and try once more
                log.warning("The worker processes broke; starting new ones.")
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Stop the workers (queued calls are cancelled); a later `run` starts new ones."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
