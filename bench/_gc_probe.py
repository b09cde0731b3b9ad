"""The real bot (`python -m bot`) with its garbage collector's passes timed, for bench/gc_pauses.py.

A `gc.callbacks` hook appends one line per pass to the file named by GC_PROBE_FILE:
``<time.monotonic()> <generation> <pause, ms> <objects collected>``. GC_PROBE_THRESHOLDS (``700,2,1``)
sets the collector's thresholds once the bot has frozen start-up (`bot.client.freeze_start_up`), so one
run can time CPython's own against another set. Started, as bench/_lag_probe.py, with ``-c``:

    python -c "import sys; sys.path.insert(0, 'bench'); import _gc_probe; _gc_probe.main()"
"""

from __future__ import annotations

import gc
import os
import runpy
import time
from typing import Any


def main() -> None:
    out = open(os.environ["GC_PROBE_FILE"], "a", buffering=1)  # noqa: SIM115 (open while the bot runs)
    started = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            return
        pause = (time.perf_counter() - started[0]) * 1000
        out.write(f"{time.monotonic():.4f} {info['generation']} {pause:.3f} {info['collected']}\n")

    gc.callbacks.append(timed)
    chosen = os.environ.get("GC_PROBE_THRESHOLDS")
    if chosen:
        import bot.client

        thresholds = [int(part) for part in chosen.split(",")]
        freeze = bot.client.freeze_start_up

        def freeze_then_set() -> None:  # from the moment start-up is frozen, as a setting in the bot would
            freeze()
            gc.set_threshold(*thresholds)

        bot.client.freeze_start_up = freeze_then_set
    runpy.run_module("bot", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
