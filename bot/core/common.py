"""Vocabulary shared by every rule system."""

from __future__ import annotations

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
