"""Browser tests: Playwright for Python driving Debian's Chromium against the local table.

Without Chromium at /usr/bin/chromium or without playwright they are skipped, with one line saying how to
run them. `--update-screenshot` rewrites docs/local-table.png (the README's picture) from the screenshot test.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
HOW_TO_RUN = (
    "browser tests skipped ({why}): apt-get install -y chromium && .venv/bin/pip install -e '.[browser]', "
    "then .venv/bin/python -m pytest tests/browser"
)


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed"
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM}"
    return None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-screenshot",
        action="store_true",
        default=False,
        help="write the local table's screenshot to docs/local-table.png",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    why = missing()
    if why is None:
        return
    here = Path(__file__).parent
    skip = pytest.mark.skip(reason=HOW_TO_RUN.format(why=why))
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    why = missing()
    skipped = terminalreporter.stats.get("skipped", [])
    if why is not None and any("tests/browser" in str(getattr(r, "nodeid", "")) for r in skipped):
        terminalreporter.write_line(HOW_TO_RUN.format(why=why))
