"""bench/gc_pauses.py: the collector's passes as its probe writes them, kept to the bursts, summed up."""

import sys

from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))  # the bench scripts import each other by name

import gc_pauses
from gc_pauses import Pass


def test_the_probe_s_lines_are_read_and_kept_to_the_bursts() -> None:
    text = (
        "10.0 2 40.0 80000\n11.5 0 0.5 0\n12.0 1 4.0 3000\n13.0 2 12.5 14000\n20.5 0 0.6"  # last: cut short
    )
    passes = gc_pauses.read_passes(text)
    assert passes[1] == Pass(11.5, 0, 0.5, 0) and len(passes) == 4
    # start-up's full pass (at 10.0) and anything between the bursts are no answer's wait
    kept = gc_pauses.during(passes, [(11.0, 12.5), (12.9, 13.5)])
    assert [p.at for p in kept] == [11.5, 12.0, 13.0]


def test_the_pauses_are_summed_per_generation_per_1000_answers() -> None:
    passes = [Pass(1.0, 0, 0.5, 0), Pass(1.1, 0, 0.7, 10), Pass(1.2, 1, 4.0, 3000), Pass(1.3, 2, 12.0, 14000)]
    lines = gc_pauses.pause_lines(passes, 500)
    assert lines[0] == (
        "  generation 0:    4.0 passes, pause median 0.60 p99 0.70 max 0.70 ms, 5 objects freed (median)"
    )
    assert lines[2].startswith("  generation 2:    2.0 passes, pause median 12.00")
    assert lines[-1] == "  in all: 34.4 ms of pauses, 4.00 passes over 3 ms"
