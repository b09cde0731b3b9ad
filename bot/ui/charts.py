"""Charts of exact odds as PNG bytes, readable on Discord's dark theme.

Every function builds its own ``matplotlib.figure.Figure`` on an Agg canvas and never touches pyplot's
global state, so charts may be rendered off the event loop. Rendering holds the GIL for stretches of tens
of milliseconds, so a thread pool still delays the loop now and then (bench/odds_bench.py measures it); a
worker process (`bot.ui.workers`) keeps it free: every argument here (distributions, odds results)
pickles, and the functions are module-level (pass keyword arguments with ``functools.partial``). Bars are
coloured by what they mean (success, failure, critical); the bar of the actual result, when given, is
outlined and labelled.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from bot.core.dn import SuccessLevel
from bot.core.odds.cards import HandDecision, InvoluntaryOdds
from bot.core.odds.contest import ContestOdds
from bot.core.odds.decision import DecisionOdds, SupplyOdds
from bot.core.odds.distribution import Distribution
from bot.core.odds.dn import DnOdds
from bot.core.odds.format import is_estimate, move_chance, percent
from bot.core.odds.rps import CheckCountOdds, RpsCheckOdds
from bot.core.systemx import CF, CS, S0, Margin, MarginStyle

__all__ = [
    "Bar",
    "bar_chart",
    "check_count_chart",
    "contest_chart",
    "decision_chart",
    "dn_chart",
    "hand_decision_chart",
    "hand_decision_figure",
    "render",
    "rps_chart",
    "supply_chart",
    "systemx_chart",
    "trl_chart",
]

BACKGROUND = "#313338"  # Discord's dark message background
PANEL = "#2b2d31"
TEXT = "#dbdee1"
MUTED = "#949ba4"
GRID = "#3f4147"
COLOURS = {
    "success": "#23a55a",
    "failure": "#f23f43",
    "critical_success": "#f0b232",
    "critical_failure": "#a12d2f",
    "neutral": "#5865f2",
    "near": "#949ba4",
}
HIGHLIGHT = "#ffffff"
WIDTH, HEIGHT, DPI = 8.0, 4.2, 100
MAX_LABELLED_BARS = 24  # above this the per-bar percentages would overlap
MAX_TICK_LABELS = 20


@dataclass(frozen=True)
class Bar:
    """One bar: its label under the axis, its probability, and what it means (a key of ``COLOURS``)."""

    label: str
    probability: Fraction
    kind: str = "neutral"


def bar_chart(
    bars: Sequence[Bar],
    *,
    title: str,
    xlabel: str = "",
    highlight: int | None = None,
    subtitle: str = "",
    highlight_text: str = "rolled",
) -> bytes:
    """A bar chart of probabilities as PNG bytes; ``highlight`` is the index of the bar to outline."""
    figure = _figure(title)
    axes = figure.add_subplot(1, 1, 1)
    _draw(axes, bars, highlight=highlight, highlight_text=highlight_text)
    axes.set_xlabel(xlabel, color=MUTED, fontsize=9)
    if subtitle:
        axes.set_title(subtitle, color=MUTED, fontsize=9, loc="left")
    return render(figure)


def _figure(title: str) -> Figure:
    figure = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI, facecolor=BACKGROUND)
    FigureCanvasAgg(figure)
    figure.suptitle(title, color=TEXT, fontsize=13, fontweight="bold", x=0.06, ha="left")
    # Fixed margins: tight_layout would lay every label out twice and more than double the render time.
    figure.subplots_adjust(left=0.07, right=0.985, top=0.80, bottom=0.14)
    return figure


def _draw(
    axes: Axes,
    bars: Sequence[Bar],
    *,
    highlight: int | None = None,
    highlight_text: str = "",
    values: Sequence[float] | None = None,
    texts: Sequence[str] | None = None,
) -> None:
    """Draw ``bars`` on ``axes``: heights are the probabilities in percent (an axis up to 100%), or
    ``values`` with their own ``texts`` (an axis of another quantity, which may go below 0)."""
    axes.set_facecolor(PANEL)
    heights = [float(b.probability) * 100 for b in bars] if values is None else list(values)
    labels = [percent(b.probability) for b in bars] if texts is None else list(texts)
    colours = [COLOURS.get(b.kind, COLOURS["neutral"]) for b in bars]
    positions = list(range(len(bars)))
    drawn = axes.bar(positions, heights, color=colours, width=0.8, zorder=3)
    top = max([*heights, 0.0])
    bottom = min([*heights, 0.0])
    span = max(top - bottom, 1.0)
    axes.set_ylim(bottom - (0.12 * span if bottom < 0 else 0), top + 0.22 * span)
    if values is None:
        # a chance axis: room above a 100% bar for its label, but no tick past 100%
        axes.set_ylim(0, max(top * 1.22, 1.0))
        axes.set_yticks([t for t in axes.get_yticks() if 0 <= t <= 100])
        axes.yaxis.set_major_formatter("{x:.0f}%")
    if highlight is not None and 0 <= highlight < len(bars):
        patch = drawn[highlight]
        patch.set_edgecolor(HIGHLIGHT)
        patch.set_linewidth(2.5)
        axes.annotate(
            highlight_text,
            xy=(highlight, max(heights[highlight], 0.0)),
            xytext=(0, 16 if len(bars) <= MAX_LABELLED_BARS else 6),
            textcoords="offset points",
            ha="center",
            va="bottom",
            color=HIGHLIGHT,
            fontsize=9,
            fontweight="bold",
            zorder=5,
        )
    if len(bars) <= MAX_LABELLED_BARS:
        for x, text, height in zip(positions, labels, heights, strict=True):
            below = height < 0  # a bar going down is labelled under its end
            axes.text(x, height, text, ha="center", va="top" if below else "bottom", color=TEXT, fontsize=8)
    step = -(-len(bars) // MAX_TICK_LABELS)  # text is most of the render time: label at most ~20 ticks
    axes.set_xticks(positions[::step])
    axes.set_xticklabels([b.label for b in bars][::step], color=TEXT, fontsize=8)
    axes.tick_params(axis="y", colors=MUTED, labelsize=8)
    axes.tick_params(axis="x", colors=MUTED, length=0)
    axes.grid(axis="y", color=GRID, linewidth=0.8, zorder=0)
    for side in ("top", "right", "left"):
        axes.spines[side].set_visible(False)
    axes.spines["bottom"].set_color(GRID)
    if bottom < 0:
        axes.axhline(0, color=MUTED, linewidth=0.8, zorder=4)


def render(figure: Figure) -> bytes:
    """The figure as PNG bytes; the figure is taken apart afterwards."""
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", facecolor=BACKGROUND)
    finally:
        # A figure is a web of reference cycles, and its canvas keeps the renderer's pixel buffer: only the
        # cycle collector would free them, and the chart worker grew round after round with dead figures
        # (bench/memory.py). Taken apart here, what is left is small.
        canvas = figure.canvas
        figure.clear()
        canvas.__dict__.pop("renderer", None)
    return buffer.getvalue()


def _index(labels: Sequence[object], actual: object) -> int | None:
    for i, label in enumerate(labels):
        if label == actual:
            return i
    return None


def systemx_chart(
    distribution: Distribution[Margin],
    *,
    required: Margin = S0,
    actual: Margin | None = None,
    style: MarginStyle = MarginStyle.LETTERS,
    title: str = "System X: margin",
) -> bytes:
    """Each margin's chance, worst first; bars at or above the required margin are successes (SX-7)."""
    bars = []
    for margin, p in distribution:
        if margin == CS:
            kind = "critical_success"
        elif margin == CF:
            kind = "critical_failure"
        else:
            kind = "success" if margin >= required else "failure"
        bars.append(Bar(margin.format(style), p, kind))
    success = distribution.at_least(required)
    subtitle = f"{percent(success)} to reach {required.format(style)} or better"
    return bar_chart(
        bars, title=title, xlabel="margin", highlight=_index(distribution.support, actual), subtitle=subtitle
    )


def dn_chart(odds: DnOdds, *, actual: SuccessLevel | None = None, title: str = "") -> bytes:
    """Each success level's chance for a DN, critical failure first (DN-4, DN-5)."""
    kinds = {
        SuccessLevel.CRITICAL_FAILURE: "critical_failure",
        SuccessLevel.FAILURE: "failure",
        SuccessLevel.CRITICAL: "critical_success",
    }
    bars = [Bar(level.value, p, kinds.get(level, "success")) for level, p in odds.levels]
    return bar_chart(
        bars,
        title=title or f"DN {odds.dn}: success level",
        highlight=_index([lv for lv, _ in odds.levels], actual),
        subtitle=f"{percent(odds.success)} to succeed",
    )


def rps_chart(odds: RpsCheckOdds, *, actual_sl: int | None = None, title: str = "") -> bytes:
    """Each SL's chance for a Base (RPS-2..RPS-5); SL 0 is the near miss."""
    bars = [
        Bar(str(sl), p, "success" if sl >= 1 else ("near" if sl == 0 else "failure"))
        for sl, p in odds.distribution
    ]
    return bar_chart(
        bars,
        title=title or f"RPS Base {odds.base}: Success Level",
        xlabel="SL",
        highlight=_index(odds.distribution.support, actual_sl),
        subtitle=f"{percent(odds.success)} to succeed · fumble {percent(odds.fumble)}",
    )


def decision_chart(odds: DecisionOdds, *, actual_total: int | None = None, title: str = "") -> bytes:
    """Each total's chance; totals at or above the target succeed (DD-1)."""
    bars = [Bar(str(t), p, "success" if t >= odds.target else "failure") for t, p in odds.distribution]
    return bar_chart(
        bars,
        title=title or f"Decision dice ({odds.mode.label}) vs {odds.target}",
        xlabel="total",
        highlight=_index(odds.distribution.support, actual_total),
        subtitle=f"{percent(odds.success)} to reach {odds.target}",
    )


def trl_chart(
    odds: InvoluntaryOdds | Distribution[int], *, actual_trl: int | None = None, title: str = "Cards: TRL"
) -> bytes:
    """Each TRL's chance (BJ-10: 1 or more succeeds)."""
    distribution = odds.trl if isinstance(odds, InvoluntaryOdds) else odds
    bars = [
        Bar(str(t), p, "critical_success" if t >= 8 else "success" if t >= 1 else "failure")
        for t, p in distribution
    ]
    return bar_chart(
        bars,
        title=title,
        xlabel="TRL",
        highlight=_index(distribution.support, actual_trl),
        subtitle=f"{percent(distribution.at_least(1))} to succeed",
    )


def hand_decision_figure(decision: HandDecision, *, title: str | None = None) -> Figure:
    """Two panels, one bar per move (Stand, each adder, Hit): the chance to succeed, and the TRL expected.

    The moves of an easy task all succeed for certain, so the chances alone would be identical 100% bars;
    what tells them apart is how well each does, the TRL. The best move is outlined in both; an estimated
    Hit (``HandDecision.exact`` False) is labelled "about".
    """
    figure = _figure(title or f"Your hand (total {decision.total}): each move")
    figure.subplots_adjust(wspace=0.18)
    options = decision.options
    best = options.index(decision.best)
    bars = [
        Bar(
            o.action.label + (" ~" if is_estimate(decision, o) else ""),
            o.success,
            "success" if o == decision.best else "neutral",
        )
        for o in options
    ]
    chances = figure.add_subplot(1, 2, 1)
    _draw(
        chances,
        bars,
        highlight=best,
        highlight_text="best",
        texts=[move_chance(decision, o).replace("about ", "~") for o in options],
    )
    chances.set_title("chance to succeed", color=MUTED, fontsize=9, loc="left")
    levels = figure.add_subplot(1, 2, 2)
    trls = [float(o.expected_trl) for o in options]
    _draw(
        levels,
        bars,
        highlight=best,
        highlight_text="best",
        values=trls,
        texts=[
            f"{'~' if is_estimate(decision, o) else ''}{t:.1f}" for o, t in zip(options, trls, strict=True)
        ],
    )
    levels.set_title("TRL expected (1 or more succeeds)", color=MUTED, fontsize=9, loc="left")
    return figure


def hand_decision_chart(decision: HandDecision, *, title: str | None = None) -> bytes:
    """`hand_decision_figure` as PNG bytes."""
    return render(hand_decision_figure(decision, title=title))


def check_count_chart(counts: CheckCountOdds, *, title: str = "Sustained action: checks to finish") -> bytes:
    """P(the action ends on the n-th check from now), green when it completes, red when it fails."""
    last = max((n for n in range(counts.cap) if counts.complete[n] or counts.fail[n]), default=0)
    # Drop the far tail where the bars would be invisible.
    while last > 0 and counts.complete[last] + counts.fail[last] < Fraction(1, 2000):
        last -= 1
    figure_bars = []
    for n in range(last + 1):
        done, failed = counts.complete[n], counts.fail[n]
        kind = "success" if done >= failed else "failure"
        figure_bars.append(Bar(str(n + 1), done + failed, kind))
    complete = sum(counts.complete, Fraction(0))
    return bar_chart(
        figure_bars,
        title=title,
        xlabel="checks from now",
        subtitle=f"{percent(complete)} to complete within {counts.cap} checks",
    )


def supply_chart(odds: SupplyOdds, *, title: str = "") -> bytes:
    """P(the item runs out on exactly the n-th roll from now) (DD-7)."""
    last = max((n for n in range(odds.cap) if odds.uses[n] >= Fraction(1, 2000)), default=0)
    bars = [Bar(str(n + 1), odds.uses[n], "neutral") for n in range(last + 1)]
    return bar_chart(
        bars,
        title=title or f"Supply {odds.die.label}: rolls until empty",
        xlabel="rolls from now",
        subtitle=f"about {float(odds.expected_uses):.1f} rolls on average",
    )


def contest_chart(odds: ContestOdds, names: Sequence[str], *, title: str = "Who wins") -> bytes:
    """Each party's chance to win a resisted action or contested roll (RPS-7, DD-5)."""
    bars = [Bar(name, p, "neutral") for name, p in zip(names, odds.win, strict=True)]
    return bar_chart(bars, title=title)
