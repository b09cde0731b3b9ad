"""Event-loop lag while the real bot answers ten /odds at once (issue 5: "the event loop stays free").

The bot runs in-process against the loopback fake Discord (the e2e harness). A 5 ms ticker on the bot's
own event loop measures how late it wakes while ten /odds commands, each rendering a chart in the bot's
chart worker process (``bot.chart_workers``, one process: the ten are drawn one after another), are in
flight; then the same with ten /rps check rolls (each with its odds line) for contrast. Prints numbers;
not a test.

Run from the repository root:
    /work/main/.venv/bin/python bench/odds_loop.py [--rounds N]
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.local.fake.harness import Harness, standard_world, start_bot
from bot.local.fake.server import FakeDiscord

RERUN = "/work/main/.venv/bin/python bench/odds_loop.py [--rounds N]"
TICK = 0.005
BURST = 10


async def with_lag(work: Callable[[], Awaitable[Any]]) -> tuple[float, float, float]:
    """(wall ms of ``work``, max lag ms, 95th-percentile lag ms) of a 5 ms ticker on this loop."""
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = loop.time()
        while not done.is_set():
            await asyncio.sleep(TICK)
            now = loop.time()
            lags.append(max(0.0, (now - last - TICK) * 1000))
            last = now

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    start = time.perf_counter()
    await work()
    wall = (time.perf_counter() - start) * 1000
    done.set()
    await task
    lags.sort()
    return wall, lags[-1], lags[int(0.95 * (len(lags) - 1))]


async def run(rounds: int) -> None:
    fake = FakeDiscord()
    await fake.start()
    world = standard_world(fake)
    with tempfile.TemporaryDirectory() as tmp:
        harness: Harness = await start_bot(fake, Path(tmp))
        try:
            options = [
                ("odds rps", {"base": 12 + i % 5})
                if i % 2
                else ("odds sysx", {"sv": 8 + i, "combined": "12, 9"})
                for i in range(BURST)
            ]

            async def ten_odds() -> None:
                answers = await asyncio.gather(
                    *(harness.slash(world.guild, world.general, world.alice, p, o) for p, o in options)
                )
                assert all(a.original.attachments for a in answers), "an /odds answer came without its chart"

            async def ten_rolls() -> None:
                await asyncio.gather(
                    *(
                        harness.slash(world.guild, world.general, world.alice, "rps check", {"base": 12})
                        for _ in range(BURST)
                    )
                )

            wall, worst, p95 = await with_lag(ten_odds)
            print(
                f"first burst (workers start, matplotlib loads): {wall:8.1f} ms wall, "
                f"lag max {worst:6.1f} ms, p95 {p95:5.1f} ms"
            )
            results = [await with_lag(ten_odds) for _ in range(rounds)]
            report("10 x /odds with charts, warm workers", results)
            report(
                "10 x /rps check with odds line (contrast)",
                [await with_lag(ten_rolls) for _ in range(rounds)],
            )
            print(f"rerun: {RERUN}")
        finally:
            await harness.stop()
            await fake.stop()


def report(name: str, results: list[tuple[float, float, float]]) -> None:
    walls, worsts, p95s = zip(*results, strict=True)
    print(
        f"{name:<44} wall median {statistics.median(walls):8.1f} ms · loop lag: max of maxima "
        f"{max(worsts):6.1f} ms, median max {statistics.median(worsts):6.1f} ms, median p95 "
        f"{statistics.median(p95s):5.1f} ms ({len(results)} rounds)"
    )


def main() -> None:
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 5
    asyncio.run(run(rounds))


if __name__ == "__main__":
    main()
