"""A blind-roll request's message read back: what was asked, whichever way it was posted."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.ui.requests import _asked

ASKED = "🎲 **Gamemaster** asks **J.R.** for a blind System X roll: Perception. Quietly."


@pytest.mark.parametrize(
    "content",
    [
        f"{ASKED}\n**J.R.**: press **Roll (blind)**, then roll with /sysx; only the GMs will see the result.",
        # posted before the request had a second line (2026-11-28): the instructions followed on the first
        f"{ASKED} J.R.: press **Roll (blind)**, then roll with /sysx; only the GMs will see the result.",
        f"{ASKED}\n✅ **J.R.** accepted: only the GMs will see that roll.",
    ],
)
def test_the_asked_line_is_kept_and_the_instructions_dropped(content: str) -> None:
    assert _asked(SimpleNamespace(content=content)) == ASKED  # type: ignore[arg-type]
