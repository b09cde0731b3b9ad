"""What every worker process runs once, before its first job: set up by `bot.ui.workers`.

Light to import (the standard library only): the fork server preloads it, and each worker is forked
from there.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from multiprocessing.connection import Connection
from typing import Any

# Workers run at a lower CPU priority than the bot (this is added to their niceness): a job is the figures
# of one answer, or none the player waits for (a hand's last-move odds, edited in after the result), and
# the event loop serves every other interaction meanwhile, so when the two want the same core the loop
# should get it. On an idle machine the priority changes nothing (bench/README.md has the A/B figures).
NICENESS = 10
# And as batch work (Linux's SCHED_BATCH): a worker woken by a job does not preempt the event loop that
# sent it; it still gets its fair (niced) share of a busy core.
BATCH_POLICY = getattr(os, "SCHED_BATCH", None)


def prepare_worker(pids: Any, bot_alive: Connection) -> None:
    """Pool initializer: note this worker's pid, step back for the bot's loop, and exit with the bot.

    ``pids`` is the pool's shared array of worker pids (``multiprocessing.Array``): the bot kills the
    workers listed there when a job overruns its time. ``bot_alive`` is the reading end of a pipe whose
    only writing end the bot holds: it reads end of stream once the bot closes the pool or dies (even
    killed outright). A worker would not notice otherwise (it holds both ends of its pool's queues, and
    the fork server it came from lives as long as its children), and would hold the bot's stderr open.
    """
    with pids.get_lock():
        slot = list(pids).index(0)
        pids[slot] = os.getpid()
    # Ctrl-C reaches the whole process group: the bot shuts its pools down, a worker needs no traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):  # no nice() on Windows; a capped niceness stays
        os.nice(NICENESS)
    if BATCH_POLICY is not None:  # Linux only
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, BATCH_POLICY, os.sched_param(0))

    def watch() -> None:
        with contextlib.suppress(EOFError, OSError):
            bot_alive.recv_bytes()  # the bot never writes: this returns only at end of stream
        os._exit(0)

    threading.Thread(target=watch, name="worker-watchdog", daemon=True).start()
