"""Worker processes for CPU-heavy pure work: exact odds that take milliseconds to seconds, and charts.

The event loop runs every interaction on one thread, so work that holds the GIL for milliseconds (a
voluntary hand's exact decision, a sustained pool's Markov chain, a chart) runs in another process:
`concurrent.futures.ProcessPoolExecutor` on a fork server (``spawn`` where there is none), through
``loop.run_in_executor``. The bot makes two pools in ``setup_hook``, one process each: ``bot.workers``
for the exact odds and ``bot.chart_workers`` for charts and other files (a long log's export, a slice
at a time), so matplotlib is loaded in one process only and a chart never waits behind a hand's odds.
A job that overruns its time, or whose worker dies, gets one clear sentence (`WorkerError`), and the
next job runs on a fresh pool. What is sent must pickle: module-level functions of ``bot.core`` /
``bot.ui`` / ``bot.store`` and plain or frozen values.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from bot.ui.reply import UserError
from bot.ui.worker_process import prepare_worker

log = logging.getLogger(__name__)

T = TypeVar("T")
# Per pool. The event loop needs a core of its own: on the two-core machines this runs on, a second odds
# process would compete with the loop exactly when the bot is busiest, and each costs memory of its own.
PROCESSES = 1
# A job's whole time, waiting in its pool's queue included. The slowest honest job (a sustained pool's
# odds near the largest Goal) takes a few seconds; a pool's first job also starts its worker.
TIMEOUT_SECONDS = 20.0
START_METHOD = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
# What the fork server imports once, so each worker forked from it starts ready and shares those pages:
# the worker-side modules, light on purpose (no discord, no store; matplotlib only in the chart worker).
PRELOAD = ["bot.ui.worker_process", "bot.ui.odds_jobs", "bot.ui.chart_worker"]


class WorkerError(UserError):
    """A job got no answer from its worker process; ``str(error)`` is the sentence the user sees."""


class JobTimedOut(WorkerError):
    """The job overran `TIMEOUT_SECONDS`; its worker was stopped."""

    def __init__(self) -> None:
        super().__init__("Working that out took too long, so I stopped; please try again in a moment.")


class WorkerDied(WorkerError):
    """The worker process running the job died (killed, out of memory) before it answered."""

    def __init__(self) -> None:
        super().__init__("The process working that out stopped unexpectedly; please try again.")


class _Pool:
    """One `ProcessPoolExecutor` and what the bot needs to stop its workers."""

    def __init__(self, processes: int) -> None:
        context = multiprocessing.get_context(START_METHOD)
        if START_METHOD == "forkserver":
            context.set_forkserver_preload(PRELOAD)  # read only when the fork server starts
        self.pids = context.Array("q", processes)  # filled in by each worker (`prepare_worker`)
        # the workers' end of a pipe only the bot writes to: they exit when it closes (see `prepare_worker`)
        theirs, self.alive = context.Pipe(duplex=False)
        self.executor = ProcessPoolExecutor(
            processes, mp_context=context, initializer=prepare_worker, initargs=(self.pids, theirs)
        )
        # why it was stopped (None while in use): "overran" (a job overran its time; the pool's other jobs
        # did nothing wrong and go to the next pool), "died" (a worker died by itself) or "closed"
        self.stopped: str | None = None

    def stop(self, why: str) -> None:
        """Accept no more jobs and end the workers, whatever they are running."""
        self.stopped = why
        if why == "overran":  # at once: a job stuck in one long C call would not see the pipe close
            with self.pids.get_lock():
                pids = [pid for pid in self.pids[:] if pid]
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        # jobs still queued fail with the pool (BrokenProcessPool) when it was killed, and are cancelled
        # when the bot closes: their answers would have nobody to go to
        self.executor.shutdown(wait=False, cancel_futures=why == "closed")
        self.alive.close()  # the workers read end of stream and exit


class Workers:
    """A pool of worker processes; `run` sends one job and awaits its value without blocking the loop."""

    def __init__(self, processes: int = PROCESSES, *, timeout: float = TIMEOUT_SECONDS) -> None:
        self.processes = processes
        self.timeout = timeout
        self._pool: _Pool | None = None  # started by its first job, replaced when it breaks
        self._starting = asyncio.Lock()  # jobs arriving together start one pool, not one each
        self._closes = 0  # how many times `close` ran
        self.jobs = 0  # jobs sent so far (tests read it)

    async def _current(self) -> _Pool:
        """The pool in use, or a new one, started on a thread: starting it blocks (the fork server may
        have to start first), and never on the event loop."""
        async with self._starting:
            if self._pool is None:
                closes = self._closes
                opening = asyncio.get_running_loop().run_in_executor(None, _open, self.processes)
                try:
                    pool = await asyncio.shield(opening)
                except asyncio.CancelledError:  # (the job overran) the pool is stopped once it is open
                    opening.add_done_callback(_stop_once_open)
                    raise
                if closes != self._closes:  # the bot closed meanwhile
                    pool.stop("closed")
                    raise asyncio.CancelledError()
                self._pool = pool
        return self._pool

    def _drop(self, pool: _Pool, why: str) -> None:
        """Stop ``pool`` unless it was already; the next job starts a new one."""
        if self._pool is pool:
            self._pool = None
        if pool.stopped is None:
            pool.stop(why)

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker process, never on the event loop's thread.

        Raises `JobTimedOut` after ``timeout`` seconds (its worker is killed) and `WorkerDied` when the
        worker died running it; the next job runs on a new pool either way.
        """
        loop = asyncio.get_running_loop()
        self.jobs += 1
        pool: _Pool | None = None
        limit = asyncio.timeout(self.timeout)
        try:
            async with limit:
                while True:
                    pool = await self._current()
                    try:
                        future = loop.run_in_executor(pool.executor, function, *args)
                    except BrokenProcessPool:  # it broke while idle: this job never reached it
                        self._drop(pool, "died")
                        continue
                    try:
                        value: T = await future
                        return value
                    except BrokenProcessPool:
                        self._drop(pool, "died")
                        if pool.stopped == "overran":
                            continue  # another job's worker was killed under this one: try again
                        if pool.stopped == "closed":
                            raise asyncio.CancelledError() from None
                        log.warning("A worker process died running %s; starting a new one.", _name(function))
                        raise WorkerDied() from None
        except TimeoutError:
            if not limit.expired():  # the job's own exception
                raise
            if pool is not None:
                log.warning("%s overran %s s; killing its worker process.", _name(function), self.timeout)
                self._drop(pool, "overran")
            raise JobTimedOut() from None

    async def warm(self) -> None:
        """Start the pool now rather than with its first job (`python -m bot` at start-up): the fork
        server and its worker take 0.3-0.7 s, which a table's first hand or pool roll would otherwise
        wait. A pool that cannot start is logged by `_open`; the first job tries again."""
        with contextlib.suppress(WorkerError):
            await self._current()

    def close(self) -> None:
        """Stop the pool (jobs still out are dropped: their answers have nobody to go to); a later `run`
        starts a new one."""
        self._closes += 1
        if self._pool is not None:
            self._drop(self._pool, "closed")


def _open(processes: int) -> _Pool:
    """A new pool with its workers ready (blocking: run on a thread); `WorkerDied` when they cannot start."""
    pool = _Pool(processes)
    try:
        pool.executor.submit(int).result()
    except BrokenProcessPool:
        pool.stop("died")
        log.warning("A worker process could not start.")
        raise WorkerDied() from None
    return pool


def _stop_once_open(opening: asyncio.Future[_Pool]) -> None:
    if not opening.cancelled() and opening.exception() is None:
        opening.result().stop("closed")


def _name(function: Callable[..., Any]) -> str:
    return getattr(function, "__qualname__", repr(function))
