"""What a chart-rendering worker process runs: light to import (no discord), matplotlib loaded lazily.

`cogs/odds.py` sends `render_chart` to the bot's chart worker (``bot.chart_workers``, `bot.ui.workers`);
pickling the call needs only this module and the ``bot.core`` values passed to it, so the bot's own
process never imports matplotlib.
"""

from __future__ import annotations

import importlib
from typing import Any

CHARTS = "bot.ui.charts"


def render_chart(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bytes:
    """Run ``bot.ui.charts.<name>(*args, **kwargs)`` and return its PNG bytes."""
    function = getattr(importlib.import_module(CHARTS), name)
    png: bytes = function(*args, **kwargs)
    return png
