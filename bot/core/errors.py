"""Rule violations, raised with a sentence a player can read."""

from __future__ import annotations


class RuleError(Exception):
    """A move or an input the rules do not allow; ``str(err)`` is one readable sentence."""


class InvalidDie(RuleError):
    """A die value outside the faces of its die."""


class IllegalMove(RuleError):
    """A move a state machine does not accept in its current state."""


def require_int(value: object, name: str) -> int:
    """Return ``value`` if it is a plain int (bools refused), else raise RuleError."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(f"{name} must be a whole number, not {value!r}.")
    return value


def require_range(value: object, low: int, high: int, name: str) -> int:
    """Return ``value`` if it is an int in ``low..high``, else raise RuleError."""
    if type(value) is int and low <= value <= high:
        return value
    number = require_int(value, name)
    if not low <= number <= high:
        raise RuleError(f"{name} must be between {low} and {high}, not {number}.")
    return number
