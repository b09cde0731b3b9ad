"""Exact probability distributions over ordered outcomes (Fractions that sum to exactly 1)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, Protocol, TypeVar

from bot.core.errors import RuleError

__all__ = ["Distribution", "Ordered"]


class Ordered(Protocol):
    """Anything with a total order: ints, ``Margin``, tuples of those."""

    def __lt__(self, other: Any, /) -> bool: ...


K = TypeVar("K", bound=Ordered)


@dataclass(frozen=True)
class Distribution(Generic[K]):
    """Outcomes in ascending order (worst first), each with a positive exact probability; they sum to 1."""

    outcomes: tuple[tuple[K, Fraction], ...]

    def __post_init__(self) -> None:
        if not self.outcomes:
            raise RuleError("A distribution needs at least one outcome.")
        if sum((p for _, p in self.outcomes), Fraction(0)) != 1:
            raise RuleError("A distribution's probabilities must add up to exactly 1.")

    @classmethod
    def from_counts(cls, counts: Mapping[K, int], total: int | None = None) -> Distribution[K]:
        """Outcomes weighted by integer counts (zero counts dropped); ``total`` defaults to their sum."""
        denominator = sum(counts.values()) if total is None else total
        return cls(
            tuple(
                (outcome, Fraction(count, denominator))
                for outcome, count in sorted(counts.items(), key=lambda item: item[0])
                if count
            )
        )

    @classmethod
    def from_probabilities(cls, probabilities: Mapping[K, Fraction]) -> Distribution[K]:
        """Outcomes with exact probabilities (zeros dropped)."""
        return cls(tuple((o, Fraction(p)) for o, p in sorted(probabilities.items(), key=lambda i: i[0]) if p))

    @classmethod
    def certain(cls, outcome: K) -> Distribution[K]:
        """The distribution that always gives ``outcome``."""
        return cls(((outcome, Fraction(1)),))

    def __iter__(self) -> Iterator[tuple[K, Fraction]]:
        return iter(self.outcomes)

    def __len__(self) -> int:
        return len(self.outcomes)

    @property
    def support(self) -> tuple[K, ...]:
        """The outcomes that can happen, worst first."""
        return tuple(o for o, _ in self.outcomes)

    @property
    def lowest(self) -> K:
        """The worst outcome that can happen."""
        return self.outcomes[0][0]

    @property
    def highest(self) -> K:
        """The best outcome that can happen."""
        return self.outcomes[-1][0]

    def probability(self, outcome: K) -> Fraction:
        """P(exactly ``outcome``)."""
        for o, p in self.outcomes:
            if o == outcome:
                return p
        return Fraction(0)

    def where(self, predicate: Callable[[K], bool]) -> Fraction:
        """P(the outcome satisfies ``predicate``)."""
        return sum((p for o, p in self.outcomes if predicate(o)), Fraction(0))

    def at_least(self, outcome: K) -> Fraction:
        """P(``outcome`` or better)."""
        return self.where(lambda o: not o < outcome)

    def at_most(self, outcome: K) -> Fraction:
        """P(``outcome`` or worse)."""
        return self.where(lambda o: not outcome < o)

    def above(self, outcome: K) -> Fraction:
        """P(strictly better than ``outcome``)."""
        return self.where(lambda o: outcome < o)

    def below(self, outcome: K) -> Fraction:
        """P(strictly worse than ``outcome``)."""
        return self.where(lambda o: o < outcome)

    def expectation(self, value: Callable[[K], int | Fraction]) -> Fraction:
        """E[value(outcome)], exactly."""
        return sum((p * value(o) for o, p in self.outcomes), Fraction(0))

    def map(self, function: Callable[[K], Any]) -> Distribution[Any]:
        """The distribution of ``function(outcome)`` (outcomes that map together add up)."""
        merged: dict[Any, Fraction] = {}
        for o, p in self.outcomes:
            key = function(o)
            merged[key] = merged.get(key, Fraction(0)) + p
        return Distribution.from_probabilities(merged)
