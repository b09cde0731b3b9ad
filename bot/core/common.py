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


#: What no text the bot shows needs: Unicode's direction controls (U+061C, 200E/F, 202A-E, 2066-9: in a
#: name they reorder the text around it, so "Ash" could make a result read backwards), the C0 and C1 controls
#: and DEL (a bell, an escape, a NUL that PostgreSQL cannot store), and invisible format characters
#: (zero-width space, soft hyphen, word joiner, byte order mark, ...) that hide a difference between two
#: look-alike names.
#: The joiners U+200C/U+200D and the tag characters stay: emoji sequences and several scripts need them.
#: Line breaks and tabs are not here: `one_line` and `multi_line` decide what they become.
INVISIBLES = re.compile(
    "[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U0001d173-\U0001d17a\U000e0001]"
)
#: What breaks a line (as `str.splitlines` reads it, less the controls INVISIBLES removes) or jumps to a tab;
#: in one line, a run of them is one space.
_BREAKS = re.compile("[\t\n\x0b\x0c\r\x85\u2028\u2029]+")
_LINE_BREAKS = re.compile("\r\n|[\n\x0b\x0c\r\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` as a name or any one-line text: line breaks and tabs become a space (they parted two words,
    and would split a one-line result), and every `INVISIBLES` character goes."""
    return INVISIBLES.sub("", _BREAKS.sub(" ", text))


def multi_line(text: str) -> str:
    """Free text that keeps its lines (a sheet's notes): every line break becomes ``\\n``, tabs stay, and
    every `INVISIBLES` character goes."""
    return INVISIBLES.sub("", _LINE_BREAKS.sub("\n", text))
