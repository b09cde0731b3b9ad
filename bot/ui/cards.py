"""How a hand of cards looks on Discord (BJ-1..BJ-11): the hand in play, its result, the peek, the shoe.

A hand's message never shows the face-down card (BJ-4) while the hand is in play: everything here is built
from ``bot.core.blackjack.summarize``, which hides it (and the total it would give away) until the end.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import discord

from bot.core.blackjack import (
    DIFFICULTY_NAMES,
    SKILL_NAMES,
    Ending,
    Hand,
    HandMode,
    HandSummary,
    format_adder_values,
    summarize,
)
from bot.core.cards import Card, Shoe
from bot.store import AppliedModifier, Store
from bot.ui.embeds import info_embed, result_embed, rule_footer
from bot.ui.rolls import modifier_field
from bot.ui.visibility import HOW_TO_REACH_A_GM, Mode, gm_header, post_gm_copies, reveal_view

KIND = "cards task"
BLIND_HAND_OVER = "Your hand is over; the result went to the GM."
ENDINGS = {
    Ending.STOOD: "stood",
    Ending.WRAPPED: "went over 21 and wrapped (BJ-5)",
    Ending.BLACKJACK_BONUS: "made 21 and drew its bonus (BJ-6)",
    Ending.SKILL_ADDED: "added skill (BJ-7)",
    Ending.DEALER_STOOD: "the dealer's rule stood on 17+ (BJ-3)",
}


def skill_text(level: int, label: str | None = None) -> str:
    """``Expert (6)``, with the sheet's skill name in front when the level came from a sheet."""
    base = f"{SKILL_NAMES[level]} ({level})"
    return f"{label}: {base}" if label else base


def difficulty_text(level: int, asked: int | None = None) -> str:
    """``Hard (4)``, saying what the player asked for when a GM modifier replaced it (GM-3)."""
    text = f"{DIFFICULTY_NAMES[level]} ({level})"
    if asked is not None and asked != level:
        text += f", asked {DIFFICULTY_NAMES[asked]} ({asked})"
    return text


def _cards_line(summary: HandSummary) -> str:
    regular = summary.labels[: len(summary.labels) - summary.bonus_count]
    return " ".join(regular) or "none yet"


def _bonus_line(summary: HandSummary) -> str | None:
    if not summary.bonus_count:
        return None
    return " ".join(summary.labels[-summary.bonus_count :])


def _fumble_line(summary: HandSummary) -> str | None:
    if not summary.fumble_flags:
        return None
    parts = [f"{summary.labels[i]} (card {i + 1})" for i in summary.fumble_flags]
    return "Fumble chance for the GM (BJ-11): " + ", ".join(parts)


def _characteristic_line(hand: Hand, summary: HandSummary) -> str | None:
    if hand.characteristic is None:
        return None
    suit = hand.characteristic_suit
    symbol = suit.symbol if suit is not None else ""
    text = f"{hand.characteristic} {hand.characteristic_bonus:+d} (counts with a {symbol} card)"
    if not hand.options.characteristic_rule:
        return text + ": rule off in this server"
    if summary.characteristic_counts is None:
        return text
    return text + (": counts" if summary.characteristic_counts else ": does not count")


def _adder_line(hand: Hand) -> str:
    return _adder_text(hand.allowed_adders, hand.options.adder_scheme)


@functools.lru_cache(maxsize=64)
def _adder_text(values: tuple[int, ...], scheme: str) -> str:
    # a few skill levels and schemes, shown on every click of a voluntary hand: 1.4 -> 0.2 µs
    if not values:
        return "none (Unskilled)"
    return f"{format_adder_values(values)} ({scheme} scheme)"


def _total_line(hand: Hand) -> str:
    base = hand.running_total
    adder = f" incl. adder +{hand.adder}" if hand.adder is not None else ""
    text = f"{base}{adder}"
    if hand.wrapped:
        text += f": over 21, wraps to {base - 21} (BJ-5)"
    if hand.bonus_cards:
        text += f", + bonus {' + '.join(str(c.pip_value) for c in hand.bonus_cards)} = {hand.total} (BJ-6)"
    return text


def hand_embed(
    hand: Hand,
    *,
    owner_id: int,
    hand_id: int,
    skill_label: str | None = None,
    asked_difficulty: int | None = None,
    modifiers: Sequence[AppliedModifier] = (),
    reveal: bool = False,
) -> discord.Embed:
    """The hand's message: in play with the face-down card hidden, or its full result once it has ended."""
    summary = summarize(hand, reveal=reveal)
    mode = "Voluntary" if hand.mode is HandMode.VOLUNTARY else "Involuntary"
    fields: list[tuple[str, str]] = [
        ("Skill", skill_text(hand.skill, skill_label)),
        ("Difficulty", difficulty_text(hand.difficulty, asked_difficulty)),
        ("Cards", _cards_line(summary)),
    ]
    bonus = _bonus_line(summary)
    if bonus:
        fields.append(("Bonus cards", bonus))
    characteristic = _characteristic_line(hand, summary)
    if characteristic:
        fields.append(("Characteristic (BJ-9)", characteristic))
    result = summary.result
    if result is None:
        total = "hidden (face-down card)" if summary.total is None else str(hand.running_total)
        fields.append(("Total", total))
        if hand.mode is HandMode.VOLUNTARY:
            fields.append(("Skill adder (BJ-7)", _adder_line(hand)))
        title = f"{mode} hand #{hand_id}: in play"
        description = f"<@{owner_id}>'s task. Hit, Stand, or Add skill; Peek shows your face-down card."
        if reveal and summary.total is not None:
            title = f"{mode} hand #{hand_id}: in play (GM view)"
            description = f"<@{owner_id}>'s task, face-down card shown to the GM."
    else:
        assert hand.ending is not None
        fields.append(("Total", _total_line(hand)))
        if hand.adder is not None:
            fields.append(("Adder", f"+{hand.adder}"))
        fields.append(
            (
                "TRL (BJ-8)",
                f"⌊({result.total} + {result.bonus}) / 5⌋ + {result.skill} − {result.difficulty} "
                f"= {result.trl}",
            )
        )
        fields.append(("Down / Up (BJ-10)", f"{result.down:+d} / {result.up:+d}"))
        title = f"Cards task #{hand_id}: {result.name} (TRL {result.trl})"
        description = (
            f"<@{owner_id}>'s {mode.lower()} hand {ENDINGS[hand.ending]}: "
            f"{'success' if result.succeeded else 'failure'}."
        )
    fumbles = _fumble_line(summary)
    if fumbles:
        fields.append(("Fumble chance", fumbles))
    extra = modifier_field(modifiers)
    if extra is not None:
        fields.append(extra)
    rules = ["BJ-1", "BJ-2", "BJ-3" if hand.mode is HandMode.INVOLUNTARY else "BJ-4"]
    if summary.result is not None:
        rules += ["BJ-8", "BJ-10"]
    return result_embed(
        title,
        verdict=summary.verdict,
        description=description,
        fields=fields,
        footer=rule_footer(*rules),
    )


def blind_hand_embed(hand: Hand, *, hand_id: int) -> discord.Embed:
    """What the roller of a blind hand sees: the face-up cards to play on, never the task or the result."""
    summary = summarize(hand)
    if hand.is_over:
        return info_embed(f"Blind hand #{hand_id}: over", BLIND_HAND_OVER)
    fields = [("Cards", _cards_line(summary)), ("Skill adder (BJ-7)", _adder_line(hand))]
    return info_embed(
        f"Blind hand #{hand_id}: in play",
        "Only the GMs will see the result. Hit, Stand, or Add skill; Peek shows your face-down card.",
        fields=fields,
    )


def peek_text(hand: Hand) -> str:
    """BJ-4: the face-down card and the running total, for the owner (or a GM) only."""
    if not hand.cards:
        return "No card has been dealt yet."
    return f"Face-down card: **{hand.cards[0].label}**. Running total: **{hand.running_total}**."


def shoe_embed(shoe: Shoe, in_hands: int, open_hands: int) -> discord.Embed:
    """The channel's shoe (BJ-1): cards left, discards, cards in open hands, decks."""
    size = 52 * shoe.decks
    return info_embed(
        "The shoe",
        f"{shoe.decks} deck{'s' if shoe.decks != 1 else ''} ({size} cards). "
        "An empty shoe reshuffles its discards; a GM can reshuffle everything not in an open hand.",
        fields=[
            ("Cards left", str(len(shoe.remaining))),
            ("Discards", str(len(shoe.discards))),
            ("In open hands", f"{in_hands} ({open_hands} hand{'s' if open_hands != 1 else ''})"),
        ],
    )


def adder_options(values: Sequence[int]) -> list[discord.SelectOption]:
    """The Add skill choices: exactly the values the hand's skill may add (BJ-7), `Hand.allowed_adders`."""
    return [discord.SelectOption(label=f"+{value}", value=str(value)) for value in values]


def codes(cards: Sequence[Card]) -> list[str]:
    """Cards as codes for the log (anyone can recompute the total from them)."""
    return [card.code for card in cards]


async def send_to_gms(
    client: discord.Client,
    store: Store,
    *,
    guild_id: int,
    channel_id: int,
    owner_id: int,
    mode: Mode,
    embed: discord.Embed,
    log_id: int,
) -> list[str]:
    """A gm or blind hand's result to the GM channel, else by DM to the channel's GMs; returns problems.

    Like `bot.ui.visibility.deliver`'s GM copy, but the hand ends on a later click, which may be a GM's,
    so the header names the hand's owner rather than whoever clicked.
    """
    copies = await post_gm_copies(
        client,
        store,
        guild_id=guild_id,
        channel_id=channel_id,
        header=gm_header("hand", mode, owner_id, channel_id),
        embed=embed,
        view=reveal_view(log_id),
    )
    if not copies.messages and not copies.problems:
        return [f"No GM got this hand's result: {HOW_TO_REACH_A_GM}."]
    return copies.problems


def hand_meta(data: dict[str, Any]) -> dict[str, Any]:
    """The table's notes stored next to the core's hand: visibility, GM modifiers, sheet skill name."""
    meta = data.get("table")
    return dict(meta) if isinstance(meta, dict) else {}


def hand_visibility(data: dict[str, Any]) -> Mode:
    """Who was shown the hand: its visibility as stored with it ("public" when none was)."""
    value = hand_meta(data).get("visibility")
    return value if value in ("public", "private", "gm", "blind") else "public"


MAX_SEEN_HANDS = 500  # the finished hands looked at for cards in the discards (a 8-deck shoe holds 416 cards)


async def shoe_as_seen(
    store: Store, shoe: Shoe, guild_id: int | None, channel_id: int, viewer_id: int, *, gm: bool
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The shoe as ``viewer_id`` knows it: (the cards that may be drawn, the discards).

    Odds from the shoe's true remaining cards would tell a player the cards nobody showed them: other
    players' face-down cards, and every card of a hand played hidden. To the viewer each such card may
    as well still be in the shoe, so it counts as remaining: drawing from the unseen cards gives the
    viewer's own odds, and nothing they were not shown. GMs see every card.
    """
    if gm:
        return shoe.remaining, shoe.discards
    unseen: list[Card] = []
    for record in await store.cards.open_hands(guild_id, channel_id):
        if record.owner_id == viewer_id:
            continue  # their own cards: shown to them (Peek shows the face-down one)
        hand = Hand.from_dict(record.data)
        if hand_visibility(record.data) != "public":
            unseen += hand.played
        elif hand.face_down is not None:
            unseen.append(hand.played[hand.face_down])
    discards = list(shoe.discards)
    if discards:
        for record in await store.cards.recent_hands(guild_id, channel_id, MAX_SEEN_HANDS):
            mode = hand_visibility(record.data)
            if mode == "public" or (record.owner_id == viewer_id and mode != "blind"):
                continue
            for card in record.card_objects:
                if card in discards:  # still in the discards (not reshuffled into the shoe since)
                    discards.remove(card)
                    unseen.append(card)
    return (*shoe.remaining, *unseen), tuple(discards)
