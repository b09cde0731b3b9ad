"""Cards as values: the 52 standard cards, and a shoe of one or more decks as a pure state."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum

from bot.core.errors import RuleError

MAX_DECKS = 8


class Suit(Enum):
    """The four suits, by their one-letter code."""

    SPADES = "S"
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"

    @property
    def symbol(self) -> str:
        """The suit's symbol, as printed on a card."""
        return _SYMBOLS[self]

    # Card is ordered by (rank, suit); without an order on suits, sorting a shoe with two cards of the
    # same rank (as reshuffle does) raised TypeError. Suits order as they are declared: S < C < D < H.
    def _index(self) -> int:
        return list(Suit).index(self)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Suit):
            return NotImplemented
        return self._index() < other._index()

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Suit):
            return NotImplemented
        return self._index() <= other._index()

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Suit):
            return NotImplemented
        return self._index() > other._index()

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Suit):
            return NotImplemented
        return self._index() >= other._index()


_SYMBOLS = {Suit.SPADES: "♠", Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥"}
_RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
_RANK_CODES = {"A": 1, "J": 11, "Q": 12, "K": 13}
_PARSED: dict[str, Card] = {}
_PARSED_MAX = 1024


@dataclass(frozen=True, order=True)
class Card:
    """One playing card: rank 1 (ace) .. 13 (king) and a suit."""

    rank: int
    suit: Suit
    # `code`, worked out once: a shoe is stored as its cards' codes after every draw (up to 416 of them)
    _code: str = field(init=False, repr=False, compare=False)
    # `label` too: every hand's message shows its cards' labels on every click
    _label: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.rank, bool) or not isinstance(self.rank, int) or not 1 <= self.rank <= 13:
            raise RuleError(f"A card's rank runs from 1 (ace) to 13 (king), not {self.rank!r}.")
        if not isinstance(self.suit, Suit):
            raise RuleError(f"{self.suit!r} is not a suit.")
        rank = self.rank_name
        object.__setattr__(self, "_code", f"{rank}{self.suit.value}")
        object.__setattr__(self, "_label", f"{rank}{self.suit.symbol}")

    def __reduce__(self) -> tuple[Callable[[str], Card], tuple[str]]:
        """Pickled as its code and read back as the shared Card (the odds workers get a shoe's every card):
        a code is smaller and quicker to pickle than the dataclass's fields."""
        return _card_of, (self._code,)

    @property
    def rank_name(self) -> str:
        """``A``, ``2``..``10``, ``J``, ``Q`` or ``K``."""
        return _RANK_NAMES.get(self.rank, str(self.rank))

    @property
    def code(self) -> str:
        """A compact, parseable code such as ``AS``, ``10H`` or ``QD``."""
        return self._code

    @property
    def label(self) -> str:
        """How the card is shown to players, such as ``A♠``."""
        return self._label

    @property
    def pip_value(self) -> int:
        """The card's value with an ace counted 1 and a face card 10."""
        return min(self.rank, 10)

    @classmethod
    def parse(cls, code: str) -> Card:
        """Read a card from its code (``AS``, ``10H``, ``qd``)."""
        # Shoes are stored as codes and re-read on every draw; a Card is frozen, so one per code is shared.
        known = _PARSED.get(code) if isinstance(code, str) and cls is Card else None
        if known is not None:
            return known
        text = code.strip().upper() if isinstance(code, str) else ""
        if len(text) < 2:
            raise RuleError(f"{code!r} is not a card code such as AS, 10H or QD.")
        rank_text, suit_text = text[:-1], text[-1]
        try:
            suit = Suit(suit_text)
        except ValueError:
            raise RuleError(f"{code!r} is not a card code such as AS, 10H or QD.") from None
        if rank_text in _RANK_CODES:
            rank = _RANK_CODES[rank_text]
        elif rank_text.isascii() and rank_text.isdigit() and 2 <= int(rank_text) <= 10:  # not "²", "١٠"
            rank = int(rank_text)
        else:
            raise RuleError(f"{code!r} is not a card code such as AS, 10H or QD.")
        card = cls(rank, suit)
        if cls is Card and len(_PARSED) < _PARSED_MAX:  # bounded: odd spellings ("  as") must not grow it
            _PARSED[code] = card
        return card

    def __str__(self) -> str:
        return self.label


def _card_of(code: str) -> Card:
    """``Card.parse`` for pickle (`Card.__reduce__`): a module function is one reference that pickle
    remembers, where the bound ``Card.parse`` is written out again for every card."""
    return Card.parse(code)


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    """``Card.parse`` of each code (a stored shoe: up to 416 codes, read again on every draw)."""
    codes = codes if isinstance(codes, list | tuple) else list(codes)
    try:  # the codes the shoe was written with are the ones already parsed: one lookup each
        return tuple(map(_PARSED.__getitem__, codes))
    except (KeyError, TypeError):
        return tuple(Card.parse(code) for code in codes)


def full_deck() -> tuple[Card, ...]:
    """The 52 standard cards, in a fixed order."""
    return tuple(Card(rank, suit) for suit in Suit for rank in range(1, 14))


def check_decks(decks: object) -> int:
    """Return ``decks`` if it is a valid number of decks in a shoe (1..MAX_DECKS)."""
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= MAX_DECKS:
        raise RuleError(f"A shoe holds 1 to {MAX_DECKS} decks, not {decks!r}.")
    return decks


@dataclass(frozen=True)
class Shoe:
    """A channel's shoe: the cards still to draw (top first) and the discard pile (BJ-1)."""

    decks: int
    remaining: tuple[Card, ...]
    discards: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        check_decks(self.decks)

    @classmethod
    def fresh(cls, rng: random.Random, decks: int = 1) -> Shoe:
        """A full shoe of ``decks`` decks, shuffled with ``rng``."""
        cards = list(full_deck()) * check_decks(decks)
        rng.shuffle(cards)
        return cls(decks=decks, remaining=tuple(cards))

    def draw(self, rng: random.Random) -> tuple[Card, Shoe]:
        """Draw the top card; an empty shoe first reshuffles its discards (BJ-1)."""
        shoe = self
        if not shoe.remaining:
            if not shoe.discards:
                raise RuleError("The shoe is empty and every card is in a hand in play; finish a hand first.")
            pile = list(shoe.discards)
            rng.shuffle(pile)
            shoe = Shoe(decks=shoe.decks, remaining=tuple(pile), discards=())
        return shoe.remaining[0], Shoe(decks=shoe.decks, remaining=shoe.remaining[1:], discards=shoe.discards)

    def discard(self, cards: Iterable[Card]) -> Shoe:
        """Put played cards on the discard pile."""
        return Shoe(decks=self.decks, remaining=self.remaining, discards=self.discards + tuple(cards))

    def reshuffle(self, rng: random.Random, in_play: Iterable[Card] = ()) -> Shoe:
        """Gather every card not in an open hand and shuffle them into a new shoe (BJ-1)."""
        pool = Counter(full_deck() * self.decks)
        pool.subtract(Counter(in_play))
        if any(n < 0 for n in pool.values()):
            many = "1 deck has" if self.decks == 1 else f"{self.decks} decks have"
            raise RuleError(
                f"The open hands hold more of a card than {many}; shuffle with more decks, or end those "
                "hands first."
            )
        cards = sorted(pool.elements())
        rng.shuffle(cards)
        return Shoe(decks=self.decks, remaining=tuple(cards), discards=())

    def is_conserved(self, in_play: Iterable[Card] = ()) -> bool:
        """True when remaining + discards + in_play are exactly ``decks`` full decks."""
        return Counter(self.remaining + self.discards + tuple(in_play)) == Counter(full_deck() * self.decks)
