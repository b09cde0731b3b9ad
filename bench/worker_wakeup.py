"""How long the event loop loses when a call wakes a worker process (`bot.ui.workers`) on a contended core.

A call is a pickled frame written to the worker's socket. The write wakes the worker, and Linux may give
it the core there and then: the loop stops inside that write until the worker's job is done or its slice
is over. Niceness alone does not prevent it. A batch process (SCHED_BATCH) is never given the core by a
wake-up, only by the scheduler's ticks.

This script pins itself and its worker to one core (the contended core of a busy bot), then sends N jobs
of J ms, each followed by 1 ms of the loop's own work. It times the write. It does that twice in the same
run: first with the worker as a nice process only (the baseline), then as the bot starts it now (nice and
batch). Linux only. Run from the repository root:

    .venv/bin/python bench/worker_wakeup.py [-n 200] [--job-ms 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, rerun  # noqa: E402

from bot.ui import workers  # noqa: E402


def spin(ms: float) -> float:
    """Busy for ``ms`` milliseconds (a job of the worker, or the loop's own work)."""
    end = time.perf_counter() + ms / 1000
    while time.perf_counter() < end:
        pass
    return ms


async def measure(n: int, job_ms: float) -> list[float]:
    """µs each of ``n`` calls spent writing its frame to the worker, sorted."""
    pool = workers.Workers(processes=1)
    try:
        await pool.run(spin, 1)  # started, and warm
        worker = await pool._worker()
        times: list[float] = []
        for job in range(n):
            start = time.perf_counter()
            answer = worker.send(1_000_000 + job, spin, (job_ms,))
            times.append((time.perf_counter() - start) * 1e6)
            spin(1)  # the loop goes on with its own work while the worker runs
            await answer
            await asyncio.sleep(0.002)  # the worker sleeps again before the next call
        return sorted(times)
    finally:
        pool.close()


def line(label: str, times: list[float]) -> str:
    def at(q: float) -> float:
        return times[min(len(times) - 1, int(q * len(times)))]

    return (
        f"{label:<22} {at(0.5):8.0f} {at(0.9):8.0f} {at(0.99):8.0f} {statistics.fmean(times):8.0f}"
        f" {sum(t > 1000 for t in times):>10}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=200, help="calls per policy")
    parser.add_argument("--job-ms", type=float, default=4.0, help="each job's length (a hand's odds: ~4 ms)")
    args = parser.parse_args()
    if workers.BATCH_POLICY is None or not hasattr(os, "sched_setaffinity"):
        raise SystemExit("Linux only: needs SCHED_BATCH and CPU affinity.")
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})  # the worker, forked from here, shares the core
    print(f"machine: {machine()}; loop and worker pinned to core {core}")
    print(f"{args.n} calls of {args.job_ms:g} ms each, 1 ms of the loop's work after each write\n")
    print(f"{'worker':<22} {'p50 µs':>8} {'p90 µs':>8} {'p99 µs':>8} {'mean µs':>8} {'over 1 ms':>10}")
    batch = workers.BATCH_POLICY
    workers.BATCH_POLICY = None  # the baseline: niceness only
    nice = asyncio.run(measure(args.n, args.job_ms))
    workers.BATCH_POLICY = batch
    batched = asyncio.run(measure(args.n, args.job_ms))
    print(line("nice only (baseline)", nice))
    print(line("nice and batch (now)", batched))
    print(f"\nmean time the loop lost per call: {statistics.fmean(batched) / statistics.fmean(nice):.3f}x")
    print(rerun("worker_wakeup.py", sys.argv[1:]))


if __name__ == "__main__":
    main()
