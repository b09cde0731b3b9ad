"""What a chart-rendering worker process runs: light to import (no discord), matplotlib loaded lazily.

`cogs/odds.py` submits `render_chart` to its ``ProcessPoolExecutor``; pickling the call needs only this
module and the ``bot.core`` values passed to it, so the bot's own process never imports matplotlib.
"""

from __future__ import annotations

import importlib
import os
import signal
import threading
import time
from typing import Any

CHARTS = "bot.ui.charts"
WATCH_SECONDS = 0.5


def render_chart(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    """Run ``bot.ui.charts.<name>(*args, **kwargs)`` and return its PNG bytes."""
    function = getattr(importlib.import_module(CHARTS), name)
    png: bytes = function(*args, **kwargs)
    return png


def warm_up() -> str:
    """Import the chart module ahead of the first /odds (loading matplotlib takes a while)."""
    return importlib.import_module(CHARTS).__name__


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

    threading.Thread(target=watch, name="chart-worker-watchdog", daemon=True).start()
