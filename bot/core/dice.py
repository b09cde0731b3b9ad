"""Dice as values: rolling is a separate step from the rules, with an injected ``random.Random``."""

from __future__ import annotations

import random
from collections.abc import Iterable

from bot.core.errors import InvalidDie, RuleError

STANDARD_DICE = (4, 6, 8, 10, 12, 20, 100)


def check_die(value: object, sides: int, name: str | None = None) -> int:
    """Return ``value`` if it is a face of a d``sides`` (1..sides), else raise InvalidDie."""
    label = name or f"a d{sides}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidDie(f"{label} must be a whole number from 1 to {sides}, not {value!r}.")
    if not 1 <= value <= sides:
        raise InvalidDie(f"{label} shows 1 to {sides}; {value} is not a face of it.")
    return value


def check_dice(values: Iterable[object], sides: int, name: str | None = None) -> tuple[int, ...]:
    """Validate every value as a face of a d``sides`` and return them as a tuple."""
    return tuple(check_die(v, sides, name) for v in values)


class Dice:
    """A roller over an injected ``random.Random`` (production: ``random.SystemRandom``)."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng: random.Random = rng if rng is not None else random.SystemRandom()

    def roll(self, sides: int) -> int:
        """One die with ``sides`` faces, 1..sides."""
        if isinstance(sides, bool) or not isinstance(sides, int) or sides < 1:
            raise RuleError(f"A die needs a whole number of sides, at least 1, not {sides!r}.")
        return self.rng.randint(1, sides)

    def roll_many(self, count: int, sides: int) -> tuple[int, ...]:
        """``count`` dice with ``sides`` faces each."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise RuleError(f"Cannot roll {count!r} dice.")
        return tuple(self.roll(sides) for _ in range(count))

    def d6(self) -> int:
        """One d6."""
        return self.roll(6)

    def d10(self) -> int:
        """One d10 (the face marked 0 counts 10)."""
        return self.roll(10)

    def d20(self) -> int:
        """One d20."""
        return self.roll(20)

    def d100(self) -> int:
        """One d100."""
        return self.roll(100)
