"""What a chart-rendering worker process runs: light to import (no discord), matplotlib loaded lazily.

`cogs/odds.py` sends `render_chart` to the bot's chart worker (``bot.chart_workers``, `bot.ui.workers`);
pickling the call needs only this module and the ``bot.core`` values passed to it, so the bot's own
process never imports matplotlib.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import importlib
from collections.abc import Callable
from typing import Any

CHARTS = "bot.ui.charts"


def render_chart(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    """Run ``bot.ui.charts.<name>(*args, **kwargs)`` and return its PNG bytes."""
    function = getattr(importlib.import_module(CHARTS), name)
    png: bytes = function(*args, **kwargs)
    give_back = _trim()
    if give_back is not None:
        # A chart's pixel buffers (MBs) are freed by now, but the C allocator keeps the memory for reuse:
        # hand it back to the system, so a worker that drew one chart does not keep its peak for ever.
        give_back(0)
    return png


@functools.cache
def _trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (macOS, musl)."""
    name = ctypes.util.find_library("c")
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim
