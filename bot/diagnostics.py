"""`kill -USR1 <pid>`: what a bot that hangs, or will not stop, is doing, without stopping it."""

from __future__ import annotations

import asyncio
import faulthandler
import signal
import sys


def stacks_on_sigusr1() -> None:
    """Every thread's stack to stderr (the log) on SIGUSR1; works even when the event loop is stuck."""
    if hasattr(signal, "SIGUSR1"):  # not on Windows
        faulthandler.register(signal.SIGUSR1, all_threads=True, chain=True)


def tasks_on_sigusr1(loop: asyncio.AbstractEventLoop) -> None:
    """Also every asyncio task's stack: a loop idle in its selector shows only that in the threads' stacks,
    and what is awaited forever is in a task."""
    if not hasattr(signal, "SIGUSR1"):
        return

    def write_tasks() -> None:
        for task in asyncio.all_tasks(loop):
            task.print_stack(file=sys.stderr)
        sys.stderr.flush()

    # faulthandler's handler first, so that it chains to the loop's (it would not reinstall itself)
    faulthandler.unregister(signal.SIGUSR1)
    loop.add_signal_handler(signal.SIGUSR1, write_tasks)
    stacks_on_sigusr1()
