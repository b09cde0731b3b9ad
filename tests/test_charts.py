"""Odds charts (issue 5): each kind renders a real PNG, also from worker threads."""

from __future__ import annotations

import gc
import io
import platform
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import matplotlib.image
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from bot.core import blackjack as bj
from bot.core import rps
from bot.core.cards import Card, full_deck
from bot.core.decision import DiceMode, SupplyDie
from bot.core.dn import SuccessLevel
from bot.core.odds import cards, decision, dn, systemx
from bot.core.odds import rps as rps_odds
from bot.core.systemx import S2
from bot.ui import chart_worker, charts

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _hand_decision() -> bytes:
    root = bj.hit(bj.start_voluntary(1, 4, "Strength", 3), Card.parse("4S"))
    return charts.hand_decision_chart(cards.voluntary_decision(root, full_deck()[:30]))


CHARTS: dict[str, Callable[[], bytes]] = {
    "systemx": lambda: charts.systemx_chart(systemx.check_distribution(14), required=S2, actual=S2),
    "systemx combined": lambda: charts.systemx_chart(
        systemx.combined_distribution([systemx.check_distribution(sv) for sv in (10, 15, 20)])
    ),
    "dn": lambda: charts.dn_chart(dn.dn_odds(15), actual=SuccessLevel.SPECIAL),
    "rps": lambda: charts.rps_chart(rps_odds.check_odds(12), actual_sl=4),
    "decision": lambda: charts.decision_chart(decision.roll_odds(1, 0, 12, advantage=True), actual_total=13),
    "trl": lambda: charts.trl_chart(cards.involuntary_odds(full_deck(), 2, 3), actual_trl=2),
    "hand decision": _hand_decision,
    "check count": lambda: charts.check_count_chart(
        rps_odds.check_count_distribution(rps.start_pool(20, 12, 5), cap=60)
    ),
    "supply": lambda: charts.supply_chart(decision.supply_odds(SupplyDie.D8)),
    "contest": lambda: charts.contest_chart(
        decision.contested_odds([0, 1], [DiceMode.NORMAL, DiceMode.ADVANTAGE]), ["Ann", "Bo"]
    ),
}


def _assert_png(data: bytes) -> None:
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 5_000
    image = matplotlib.image.imread(io.BytesIO(data), format="png")
    height, width = image.shape[:2]
    assert (width, height) == (800, 420)
    # Discord's dark theme: the corner pixel is the dark background, not white.
    assert image[0, 0, :3].max() < 0.25


@pytest.mark.parametrize("kind", sorted(CHARTS))
def test_each_chart_is_a_png(kind: str) -> None:
    _assert_png(CHARTS[kind]())


def test_charts_render_in_worker_threads() -> None:
    # The cogs render off the event loop; Figure objects are independent, so threads may overlap.
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda kind: CHARTS[kind](), ["systemx", "dn", "rps", "decision"] * 2))
    for data in results:
        _assert_png(data)


def test_highlight_changes_the_picture() -> None:
    odds = rps_odds.check_odds(12)
    assert charts.rps_chart(odds, actual_sl=4) != charts.rps_chart(odds)


def test_charts_render_in_a_worker_process() -> None:
    # The odds results pickle, so a ProcessPoolExecutor can render without holding the bot's GIL.
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    odds = rps_odds.check_odds(12)
    with ProcessPoolExecutor(max_workers=1) as pool:
        data = pool.submit(partial(charts.rps_chart, odds, actual_sl=4)).result(timeout=60)
    _assert_png(data)


def test_a_chart_frees_its_pixel_buffer_without_waiting_for_the_cycle_collector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The chart worker draws one chart after another; dead figures waiting for the cycle collector kept
    # their renderers' pixel buffers (MBs each) and the worker grew by ~25 MB before it ran.
    renderers: list[weakref.ref[Any]] = []
    get_renderer = FigureCanvasAgg.get_renderer

    def spy(canvas: FigureCanvasAgg, *args: Any, **kwargs: Any) -> Any:
        renderer = get_renderer(canvas, *args, **kwargs)
        renderers.append(weakref.ref(renderer))
        return renderer

    monkeypatch.setattr(FigureCanvasAgg, "get_renderer", spy)
    gc.disable()
    try:
        _assert_png(charts.rps_chart(rps_odds.check_odds(12), actual_sl=4))
        assert renderers and all(renderer() is None for renderer in renderers)
    finally:
        gc.enable()


def test_the_chart_worker_gives_a_charts_freed_memory_back_to_the_system(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trimmed: list[int] = []
    monkeypatch.setattr(chart_worker, "_trim", lambda: trimmed.append)
    _assert_png(chart_worker.render_chart("rps_chart", (rps_odds.check_odds(12),), {"actual_sl": 4}))
    assert trimmed == [0]  # after the chart, its buffers freed: malloc_trim(0)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_the_chart_worker_finds_malloc_trim_in_glibc() -> None:
    trim = chart_worker._trim()
    assert trim is not None and trim(0) in (0, 1)


def _bar_heights(axes: Any) -> list[float]:
    return [round(patch.get_height(), 9) for patch in axes.patches]


def test_the_hand_chart_bars_differ_where_the_moves_odds_differ() -> None:
    # /odds cards hand: drew identical 100% bars for an easy task: every move succeeds for certain, and the
    # chart showed only that. The moves differ in the TRL they reach, which the second panel shows.
    easy = bj.deal(bj.start_voluntary(5, 3), Card.parse("7S"))
    decision = cards.voluntary_decision(easy, full_deck()[:30])
    assert {o.success for o in decision.options} == {1}
    chances, levels = charts.hand_decision_figure(decision).axes
    assert _bar_heights(chances) == [100.0] * len(decision.options)
    assert chances.get_yticks().max() <= 100  # no 120% on a chance axis
    expected = [round(float(o.expected_trl), 9) for o in decision.options]
    assert _bar_heights(levels) == expected and len(set(expected)) > 1

    hard = bj.hit(bj.start_voluntary(1, 4, "Strength", 3), Card.parse("4S"))
    decision = cards.voluntary_decision(hard, full_deck()[:30])
    chances, levels = charts.hand_decision_figure(decision).axes
    expected = [round(float(o.success) * 100, 9) for o in decision.options]
    assert _bar_heights(chances) == expected and len(set(expected)) > 1
    assert _bar_heights(levels) == [round(float(o.expected_trl), 9) for o in decision.options]


def test_the_hand_chart_marks_an_estimated_hit() -> None:  # BJ-9: several suits and the suit rule
    hand = bj.deal(
        bj.start_voluntary(2, 3, characteristics=[("Strength", 2), ("Dexterity", 3)]), Card.parse("7H")
    )
    decision = cards.voluntary_decision(hand, full_deck()[:20])
    assert not decision.exact
    chances, _ = charts.hand_decision_figure(decision).axes
    labels = [label.get_text() for label in chances.get_xticklabels()]
    assert labels[-1] == "Hit ~" and all("~" not in label for label in labels[:-1])
    assert any(text.get_text().startswith("~") for text in chances.texts)
