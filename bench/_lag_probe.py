"""The real bot (`python -m bot`) with a loop-lag monitor on its event loop, for bench/loop_lag.py.

The monitor is a task that sleeps `INTERVAL` again and again and notes how late each wake-up came: the
time the loop did not get round to a callback that was ready. Of that time, it also notes how long the
loop's thread waited for a core (Linux's /proc/thread-self/schedstat: runnable, not running), which
other processes on the machine cause, not the bot's own work. It appends one line per second to the file
named by LOOP_LAG_FILE: ``<time.monotonic()> <worst lateness, ms> <wake-ups> <worst lateness less the
wait for a core, ms>``, and a line ``stall <time.monotonic()> <lateness> <waiting for a core> <on a core>``
(ms) for every wake-up later than `STALL_MS`. time.monotonic() is the machine's clock, so the benchmark
compares these times with its own. Started as

    python -c "import sys; sys.path.insert(0, 'bench'); import _lag_probe; _lag_probe.main()"

(not as a script: the bot's worker processes would import a script's module as their own main).
"""

from __future__ import annotations

import asyncio
import os
import runpy
import time

INTERVAL = 0.005
STALL_MS = 20.0


def _thread_times(fd: int | None) -> tuple[float, float]:
    """Seconds this thread has run on a core and waited for one (0, 0 where the kernel does not say)."""
    if fd is None:
        return 0.0, 0.0
    on_core, waiting, _ = os.pread(fd, 128, 0).split()
    return int(on_core) / 1e9, int(waiting) / 1e9


async def watch(path: str) -> None:
    loop = asyncio.get_running_loop()
    try:
        fd: int | None = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
    except OSError:
        fd = None
    with open(path, "a", buffering=1) as out:
        window, worst, worst_own, wakeups = loop.time(), 0.0, 0.0, 0
        while True:
            asleep = loop.time()
            ran, waited = _thread_times(fd)
            await asyncio.sleep(INTERVAL)
            now = loop.time()
            ran_after, waited_after = _thread_times(fd)
            late = (now - asleep - INTERVAL) * 1000
            for_core, on_core = (waited_after - waited) * 1000, (ran_after - ran) * 1000
            worst, wakeups = max(worst, late), wakeups + 1
            worst_own = max(worst_own, late - for_core)
            if late > STALL_MS:
                out.write(f"stall {time.monotonic():.4f} {late:.2f} {for_core:.2f} {on_core:.2f}\n")
            if now - window >= 1.0:
                out.write(f"{time.monotonic():.4f} {worst:.2f} {wakeups} {worst_own:.2f}\n")
                window, worst, worst_own, wakeups = now, 0.0, 0.0, 0


class _Policy(asyncio.DefaultEventLoopPolicy):
    """The default loop, with the monitor started on it (asyncio.run makes the bot's loop here)."""

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        loop = super().new_event_loop()
        loop.create_task(watch(os.environ["LOOP_LAG_FILE"]))
        return loop


def main() -> None:
    asyncio.set_event_loop_policy(_Policy())
    runpy.run_module("bot", run_name="__main__", alter_sys=True)  # exits as python -m bot does
