"""Vocabulary shared by every rule system."""

from __future__ import annotations

import re
from enum import Enum


class Verdict(Enum):
    """How a result reads at the table; the UI colours results by it."""

    CRITICAL_SUCCESS = "critical success"
    SUCCESS = "success"
    FAILURE = "failure"
    CRITICAL_FAILURE = "critical failure"

    @property
    def succeeded(self) -> bool:
        """True for either kind of success."""
        return self in (Verdict.CRITICAL_SUCCESS, Verdict.SUCCESS)


#: Unicode's direction controls (embeddings, overrides, isolates, marks): in a name they would reorder the
#: text around it, so "Ash" could make a result read backwards. No name needs one.
BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
