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
import contextlib
import logging
import multiprocessing
import multiprocessing.process
import os
import pickle
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
# Per pool. The event loop needs a core of its own: on the two-core machines this runs on, a second odds
# process would compete with the loop exactly when the bot is busiest, and each costs ~15 MB of its own.
PROCESSES = 1
WATCH_SECONDS = 0.5  # how often a worker checks that the bot is still its parent
# Workers run at a lower CPU priority than the bot (this is added to its niceness). A worker's job is
# milliseconds of one answer (a chart, the Odds button's figures) or none (a hand's last-move odds, edited
# in after the result): the event loop serves every other interaction meanwhile, so when the two want the
# same core the loop should get it. On an idle machine the priority changes nothing. Measured with
# bench/ab.py on Hit clicks at C=16: p50 0.89x and 0.94x, throughput 1.15x and 1.09x.
NICENESS = 10
# And as batch work (Linux's SCHED_BATCH): a worker woken by a call never preempts the loop that woke it.
# Niceness alone does not stop that: with the core contended, a call's write to the worker's socket could
# hand the core to the worker for its whole job (4 ms for a hand's last-move odds) before the loop got it
# back. Measured with bench/worker_wakeup.py (loop and worker on one core): the write took 4,024 µs at p90
# as a nice process, 10 µs as a batch one. The worker still gets its fair (niced) share of a busy core.
BATCH_POLICY = getattr(os, "SCHED_BATCH", None)


def watch_parent() -> None:
    """Worker initializer: forget the bot's signal handling, yield the CPU to the bot's loop, and exit as
    soon as the bot is gone.

    A forked worker inherits the event loop's signal wake-up socket: a SIGTERM meant for the worker must
    not reach the bot's loop, so the default handlers come back. And a pool's workers never learn that
    the bot was killed (SIGKILL, a crash): they would wait for work forever, holding the bot's stderr
    open; a worker is re-parented the moment its parent dies, so the parent's pid is polled.
    """
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    with contextlib.suppress(OSError, AttributeError):  # no nice() on Windows; a capped niceness stays
        os.nice(NICENESS)
    if BATCH_POLICY is not None:  # Linux only (macOS and Windows have no scheduling policies to set)
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, BATCH_POLICY, os.sched_param(0))
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="worker-watchdog", daemon=True).start()


class WorkerDied(RuntimeError):
    """The worker process running a call died (killed, out of memory) before it answered."""


_FRAME = struct.Struct("!I")  # each message on a worker's socket: its length, then a pickle


#: The bot's ends of its workers' sockets. A forked worker closes its copies of all of them: a worker
#: holding the bot's end of its own socket (or a sibling's) would never read end of stream when the bot
#: closes it.
_BOT_ENDS: set[int] = set()


def _serve(sock: socket.socket, bot_ends: list[int]) -> None:
    """A worker process: answer ``(job, function, args)`` messages in order until the bot hangs up."""
    for fd in bot_ends:
        with contextlib.suppress(OSError):
            os.close(fd)
    watch_parent()
    try:
        while True:
            header = _receive(sock, _FRAME.size)
            if header is None:  # the bot closed its end (or died): nothing more will come
                return
            job, function, args = pickle.loads(_receive(sock, _FRAME.unpack(header)[0]) or b"")
            try:
                answer: tuple[int, bool, Any] = (job, True, function(*args))
                data = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
            except BaseException as error:  # the caller gets the exception, as with a local call
                try:
                    data = pickle.dumps((job, False, error), pickle.HIGHEST_PROTOCOL)
                except Exception:  # an exception that does not pickle: its text does
                    data = pickle.dumps((job, False, RuntimeError(repr(error))), pickle.HIGHEST_PROTOCOL)
            sock.sendall(_FRAME.pack(len(data)) + data)
    except OSError:  # the bot closed its end mid-call (shutting down): the answer has no one to go to
        return


def _receive(sock: socket.socket, size: int) -> bytes | None:
    """Exactly ``size`` bytes, or None at end of stream."""
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(size - len(chunks))
        if not chunk:
            return None
        chunks += chunk
    return bytes(chunks)


class _Worker(asyncio.Protocol):
    """One worker process and the bot's end of its socket: calls go out as frames, answers come back."""

    def __init__(self, process: multiprocessing.process.BaseProcess, fd: int) -> None:
        self.process = process
        self.fd = fd  # the bot's end, while open (see `_BOT_ENDS`)
        self.transport: asyncio.WriteTransport | None = None
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.buffer = bytearray()
        self.alive = True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        self.transport = transport

    def send(self, job: int, function: Callable[..., Any], args: tuple[Any, ...]) -> asyncio.Future[Any]:
        data = pickle.dumps((job, function, args), pickle.HIGHEST_PROTOCOL)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[job] = future
        assert self.transport is not None
        self.transport.write(_FRAME.pack(len(data)) + data)
        return future

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= _FRAME.size:
            (size,) = _FRAME.unpack_from(self.buffer)
            end = _FRAME.size + size
            if len(self.buffer) < end:
                return
            job, ok, value = pickle.loads(memoryview(self.buffer)[_FRAME.size : end])
            del self.buffer[:end]
            future = self.pending.pop(job, None)
            if future is None or future.done():  # its caller stopped waiting (cancelled)
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)

    def connection_lost(self, exc: Exception | None) -> None:
        self.alive = False
        _BOT_ENDS.discard(self.fd)
        pending, self.pending = self.pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(WorkerDied("the worker process died before answering"))

    def close(self) -> None:
        self.alive = False
        if self.transport is not None:
            self.transport.close()  # the worker reads end of stream and exits
        for future in self.pending.values():
            future.cancel()
        self.pending.clear()
        self.process.join(timeout=0)  # reap it if it is already gone; the next start reaps the rest


class Workers:
    """Worker processes; `run` sends one call and awaits its value without blocking the loop.

    No thread in the bot: each worker is a forked process with a socket pair, whose bot end is an
    asyncio transport. A call is one pickled frame written on the loop; the answer arrives as data on
    the same loop. (`concurrent.futures.ProcessPoolExecutor` hands every call to a manager thread, and
    that thread's turns with the GIL made the loop wait; in an A/B run of bench/latency.py's Hit on a
    busy machine it cost 20% of the click's CPU, on a quiet one a few percent.)
    """

    def __init__(self, processes: int = PROCESSES) -> None:
        self.processes = processes
        self._workers: list[_Worker] = []
        self._starting = asyncio.Lock()  # calls arriving together start one process, not one each
        self.jobs = 0  # calls sent so far (tests read it)

    async def _start(self) -> _Worker:
        # fork: a worker is the bot's direct child, so it can see the bot die (a fork server's workers
        # keep the server alive and outlive a killed bot); `watch_parent` resets the inherited signals.
        ours, theirs = socket.socketpair()
        _BOT_ENDS.add(ours.fileno())
        process = multiprocessing.get_context("fork").Process(
            target=_serve, args=(theirs, sorted(_BOT_ENDS)), name="tabletop-worker", daemon=True
        )
        try:
            process.start()
        except BaseException:
            _BOT_ENDS.discard(ours.fileno())
            ours.close()
            raise
        finally:
            theirs.close()
        loop = asyncio.get_running_loop()
        _, worker = await loop.create_unix_connection(lambda: _Worker(process, ours.fileno()), sock=ours)
        return worker

    async def _worker(self) -> _Worker:
        """The live worker with the fewest calls waiting (starting one while there are fewer than asked)."""
        for dead in [w for w in self._workers if not w.alive]:
            dead.close()
            self._workers.remove(dead)
        if len(self._workers) < self.processes:
            async with self._starting:
                if len(self._workers) < self.processes:
                    self._workers.append(await self._start())
        return min(self._workers, key=lambda w: len(w.pending))

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker process; a call whose worker died is sent once more."""
        for attempt in range(2):
            worker = await self._worker()
            self.jobs += 1
            try:
                value: T = await worker.send(self.jobs, function, args)
                return value
            except WorkerDied:
                log.warning("A worker process died; starting a new one.")
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Stop the workers (calls still waiting are cancelled); a later `run` starts new ones."""
        workers, self._workers = self._workers, []
        for worker in workers:
            worker.close()
