"""Write data/systemx_roll_chart.csv from SX-5's formula (``bot.core.systemx.model_margin``).

Run from the repository root: ``python data/generate_systemx_chart.py`` (writes the file) or
``python data/generate_systemx_chart.py --check`` (exit status 1 if the file differs from the formula).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.core.systemx import RollChart  # noqa: E402

CHART_PATH = ROOT / "data" / "systemx_roll_chart.csv"


def main(argv: list[str]) -> int:
    """Write (or with --check, compare) the frozen chart."""
    text = RollChart.model().to_csv()
    if "--check" in argv:
        current = CHART_PATH.read_bytes().decode("utf-8") if CHART_PATH.exists() else ""
        if current != text:
            print(f"{CHART_PATH} differs from SX-5's formula; rerun without --check.")
            return 1
        print(f"{CHART_PATH} matches SX-5's formula.")
        return 0
    CHART_PATH.write_bytes(text.encode("utf-8"))
    print(f"Wrote {CHART_PATH}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
