"""How a hand of cards looks on Discord (BJ-1..BJ-11): the hand in play, its result, its details, the shoe.

A hand's public message is compact: a title saying whose task it is and how it went, then at most three
short lines (the cards and total; the task, with who set a GM modifier; while in play, what Hit, Stand
and Add skill do). The breakdown, the rules and the chance it had are in Details (`hand_details_embed`),
which only a GM sees with the fumble chances (BJ-11); the odds of each move are the player's, on request.
A hand's message never shows the face-down card (BJ-4) while the hand is in play: everything here is built
from ``bot.core.blackjack.summarize``, which hides it (and the total it would give away) until the end.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.blackjack import (
    CHARACTERISTIC_SUITS,
    DIFFICULTY_NAMES,
    SKILL_NAMES,
    Ending,
    Hand,
    HandMode,
    HandSummary,
    canonical_characteristic,
    card_total,
    format_adder_values,
    summarize,
)
from bot.core.cards import Card, Shoe, parse_cards
from bot.store import SHEET_RANGES, AppliedModifier, HandRecord, Sheet, Store
from bot.ui.embeds import NEUTRAL, WARNING, compact_embed, info_embed, result_embed, rule_footer
from bot.ui.freeroll import shown
from bot.ui.options import whole_number
from bot.ui.reply import UserError
from bot.ui.visibility import HOW_TO_REACH_A_GM, Mode, gm_header, post_gm_copies, reveal_view

log = logging.getLogger(__name__)

KIND = "cards task"
BLIND_HAND_OVER = "Your hand is over; the result went to the GM."
# How a hand ended, in the words of the Details view (which may name the rules)
ENDINGS = {
    Ending.STOOD: "the player stood (BJ-4)",
    Ending.WRAPPED: "the total went over 21 and wrapped (BJ-5)",
    Ending.BLACKJACK_BONUS: "exactly 21 drew its bonus card (BJ-6)",
    Ending.SKILL_ADDED: "the player added skill (BJ-7)",
    Ending.DEALER_STOOD: "the dealer's rule stood on 17 or more (BJ-3)",
}
# a characteristic bonus typed in a command: what a cards sheet may hold, so typing one never allows more
# than the sheet would (BJ-9 sets no bound; the core's wider guard is MAX_CHARACTERISTIC_BONUS)
BONUS_MIN, BONUS_MAX = SHEET_RANGES["cards"].bonuses
#: The help of the commands' characteristics option (`read_characteristics` reads it).
CHARACTERISTICS_HELP = (
    "The task's characteristics by commas, e.g. Strength, Dexterity +2 (bonus: your sheet's)."
)
#: The characteristics option's length, for /cards task and /odds cards alike: every characteristic with
#: a two-digit bonus, ``Strength: -10, Intelligence: -10, ...``, is 167 characters.
CHARACTERISTICS_MAX = 200


def skill_text(level: int, label: str | None = None) -> str:
    """``Expert (6)``, with the sheet's skill name in front when the level came from a sheet."""
    base = f"{SKILL_NAMES[level]} ({level})"
    return f"{shown(label)}: {base}" if label else base


def difficulty_text(level: int, asked: int | None = None, by: str | None = None) -> str:
    """``Hard (4)``, saying what the player asked for when a GM modifier replaced it (GM-3); ``by``: who set
    it, ``Hard (4), GM modifier by @Gm, asked Easy (2)``."""
    text = f"{DIFFICULTY_NAMES[level]} ({level})"
    if by:
        text += f", {by}"
    if asked is not None and asked != level:
        text += f", asked {DIFFICULTY_NAMES[asked]} ({asked})"
    return text


# -- the table's notes on a stored hand --------------------------------------------------------------------


def hand_meta(data: dict[str, Any]) -> dict[str, Any]:
    """The table's notes stored next to the core's hand: visibility, GM modifiers, sheet skill name."""
    meta = data.get("table")
    return dict(meta) if isinstance(meta, dict) else {}


def hand_visibility(data: dict[str, Any]) -> Mode:
    """Who was shown the hand: its visibility as stored with it ("public" when none was)."""
    value = hand_meta(data).get("visibility")
    return value if value in ("public", "private", "gm", "blind") else "public"


@dataclass(frozen=True)
class Notes:
    """What the table knows of a hand besides the core's hand: whose it is, how the task was asked for."""

    hand_id: int
    owner_id: int
    owner_name: str | None = None
    skill_label: str | None = None
    asked_difficulty: int | None = None
    modifiers: tuple[AppliedModifier, ...] = ()


def notes_of(record: HandRecord) -> Notes:
    """The notes of a stored hand (hands stored before a note existed read without it)."""
    meta = hand_meta(record.data)
    name = meta.get("owner_name")
    label = meta.get("skill_label")
    asked = meta.get("asked_difficulty")
    return Notes(
        hand_id=record.id,
        owner_id=record.owner_id,
        owner_name=name if isinstance(name, str) and name else None,
        skill_label=label if isinstance(label, str) and label else None,
        asked_difficulty=asked if isinstance(asked, int) else None,
        modifiers=tuple(AppliedModifier.model_validate(m) for m in meta.get("modifiers", [])),
    )


# -- the lines of a hand's message ---------------------------------------------------------------------------


def _labels(cards: Sequence[Card]) -> str:
    return " ".join(card.label for card in cards)


def _regular_labels(summary: HandSummary) -> str:
    return " ".join(summary.labels[: len(summary.labels) - summary.bonus_count])


def cards_line(hand: Hand, summary: HandSummary) -> str:
    """The cards and the total, plainly: ``🂠 5♥ 3♣: 8 showing + the face-down card`` while it is hidden,
    ``10♠ 9♥ 5♣: 24 is over 21, wraps to 3`` at the end."""
    labels = _regular_labels(summary) or "no card yet"
    if summary.total is None:  # the face-down card is hidden
        visible = card_total(hand.cards[1:])
        return (
            f"{labels}: {visible} showing + the face-down card" if hand.cards[1:] else f"{labels}: face down"
        )
    running = hand.running_total
    if not hand.is_over:
        return f"{labels}: total {running}"
    ending = hand.ending
    if ending is Ending.SKILL_ADDED:
        text = f"{labels} + skill {hand.adder}: {running}"
    elif ending is Ending.BLACKJACK_BONUS:
        return f"{labels}: 21, bonus {_labels(hand.bonus_cards)}: total {hand.total}"
    elif ending is Ending.STOOD:
        return f"{labels}: stood on {running}"
    elif ending is Ending.DEALER_STOOD:
        return f"{labels}: the dealer's rule stands on {running}"
    else:
        text = f"{labels}: {running}"
    if hand.wrapped:
        text += f" is over 21, wraps to {hand.total}"
    return text


def _characteristic_parts(hand: Hand, summary: HandSummary) -> list[str]:
    # while a card is hidden, only the cards shown say which bonuses count already
    shown_suits = {card.suit for card in summary.cards if card is not None}
    parts = []
    for i, item in enumerate(hand.characteristics):
        text = f"{item.name} {item.bonus:+d}"
        counts = item.suit in shown_suits if summary.counting is None else summary.counting[i]
        if not hand.options.characteristic_rule:
            parts.append(f"{text} (not used in this server)")
        elif not hand.is_over and not counts:
            parts.append(f"{text} if a {item.suit.symbol} is played")
        elif counts:
            parts.append(f"{text} counts ({item.suit.symbol} played)")
        else:
            parts.append(f"{text} does not count (no {item.suit.symbol})")
    return parts


def task_line(hand: Hand, summary: HandSummary, notes: Notes) -> str:
    """``Expert (6) vs Hard (4) · Dexterity +3 counts (♦ played)``; a GM modifier is told with the
    difficulty it set, ``Expert (6) vs Hard (4), GM modifier by @Gm, asked Easy (2)``."""
    difficulty = difficulty_text(hand.difficulty, notes.asked_difficulty, modifier_setters(notes.modifiers))
    head = f"{SKILL_NAMES[hand.skill]} ({hand.skill}) vs {difficulty}"
    return " · ".join([head, *_characteristic_parts(hand, summary)])


def adder_words(values: Sequence[int]) -> str:
    """An adder set in words: ``1-5``, ``1 or 10``, ``1-2 or 9-10`` (the seed writes ``1,10``)."""
    runs = format_adder_values(values).split(",")
    return runs[0] if len(runs) == 1 else f"{', '.join(runs[:-1])} or {runs[-1]}"


def choices_line(hand: Hand) -> str:
    """What each move does, for a voluntary hand in play."""
    parts = ["**Hit** draws a card", "**Stand** keeps your total"]
    if hand.can_add_skill:
        parts.append(f"**Add skill** adds {adder_words(hand.allowed_adders)} and ends the hand")
    return " · ".join(parts)


def modifier_setters(modifiers: Sequence[AppliedModifier]) -> str | None:
    """Who set the GM modifiers a hand took, for its task line (``GM modifier by @Gm``); what each set and
    for whom is in Details. None when the hand took none."""
    if not modifiers:
        return None
    setters = ", ".join(dict.fromkeys(f"<@{mod.set_by}>" for mod in modifiers))
    return f"{'GM modifier' if len(modifiers) == 1 else 'GM modifiers'} by {setters}"


def modifier_line(modifiers: Sequence[AppliedModifier]) -> str | None:
    """GM-3: the difficulty the GM set for this task, and who set it (the hand's Details)."""
    if not modifiers:
        return None
    parts = []
    for mod in modifiers:
        if mod.kind == "difficulty" and isinstance(mod.value, int) and 0 <= mod.value < len(DIFFICULTY_NAMES):
            what = f"difficulty {DIFFICULTY_NAMES[mod.value]} ({mod.value})"
        else:
            what = f"{mod.kind} {mod.value}"
        scope = "everyone" if mod.for_everyone else "this player"
        parts.append(f"{what} for {scope}, set by <@{mod.set_by}>")
    return "GM modifier: " + "; ".join(parts)


def hand_title(hand: Hand, summary: HandSummary, notes: Notes) -> str:
    """``Bea - Lockpicking: Good (TRL 5), success``; ``Bea - cards task: in play``."""
    who = shown(notes.owner_name) if notes.owner_name else f"Hand #{notes.hand_id}"
    what = shown(notes.skill_label) if notes.skill_label else "cards task"
    result = summary.result
    if result is None:
        return f"{who} - {what}: in play"
    return f"{who} - {what}: {result.name} (TRL {result.trl}), {'success' if result.succeeded else 'failure'}"


def hand_embed(hand: Hand, notes: Notes, *, reveal: bool = False) -> discord.Embed:
    """The hand's message: in play (the face-down card hidden unless ``reveal``, for a GM) or its result.

    The fumble chance (for the GM) and the odds (for the player, on request) are never on it.
    """
    summary = summarize(hand, reveal=reveal)
    in_play = not hand.is_over and hand.mode is HandMode.VOLUNTARY
    lines = [
        cards_line(hand, summary),
        task_line(hand, summary, notes),
        choices_line(hand) if in_play else None,
    ]
    footer = f"Hand #{notes.hand_id}"
    if reveal and not hand.is_over:
        footer += " · the face-down card shown to you, a GM"
    embed = compact_embed(hand_title(hand, summary, notes), lines, verdict=summary.verdict)
    return embed.set_footer(text=footer)


def blind_hand_embed(hand: Hand, *, hand_id: int) -> discord.Embed:
    """What the roller of a blind hand sees: the face-up cards to play on, never the task or the result."""
    summary = summarize(hand)
    if hand.is_over:
        return info_embed(f"Blind hand #{hand_id}: over", BLIND_HAND_OVER)
    lines = [cards_line(hand, summary), choices_line(hand), "Only the GMs will see the result."]
    return info_embed(f"Blind hand #{hand_id}: in play", "\n".join(lines))


def peek_text(hand: Hand) -> str:
    """BJ-4: the face-down card and the running total, for the owner (or a GM) only."""
    if not hand.cards:
        return "No card has been dealt yet."
    return f"Face-down card: **{hand.cards[0].label}**. Running total: **{hand.running_total}**."


# -- Details, and the GM's notes -----------------------------------------------------------------------------


def _card_values(cards: Sequence[Card | None], labels: Sequence[str]) -> str:
    return ", ".join(
        label if card is None else f"{label} ({card.pip_value if card.rank != 1 else '1 or 11'})"
        for card, label in zip(cards, labels, strict=True)
    )


def _total_details(hand: Hand) -> str:
    base = hand.running_total
    adder = f", with the skill adder +{hand.adder}" if hand.adder is not None else ""
    text = f"{base}{adder}"
    if hand.wrapped:
        text += f": over 21, wraps to {base - 21} (BJ-5)"
    if hand.bonus_cards:
        text += f"; + bonus {' + '.join(str(c.pip_value) for c in hand.bonus_cards)} = {hand.total} (BJ-6)"
    return text


def fumble_text(hand: Hand, summary: HandSummary) -> str | None:
    """BJ-11, for the GM: the cards whose value is at most their place in the hand; None when none is."""
    if not summary.fumble_flags:
        return None
    parts = [f"{summary.labels[i]} as card {i + 1}" for i in summary.fumble_flags]
    return "Fumble chance: " + ", ".join(parts) + " (a card's value at most its place in the hand)"


def _characteristic_details(hand: Hand, summary: HandSummary) -> str:
    if not hand.characteristics:
        return "none named"
    lines = []
    for i, item in enumerate(hand.characteristics):
        text = f"{item.name} {item.bonus:+d}: counts when a {item.suit.symbol} card is played"
        if not hand.options.characteristic_rule:
            text += "; the rule is off in this server"
        elif summary.counting is not None:
            text += "; counts" if summary.counting[i] else "; does not count"
        lines.append(text)
    return "\n".join(lines)


def hand_details_embed(
    hand: Hand, notes: Notes, *, gm: bool = False, odds_line: str | None = None
) -> discord.Embed:
    """Details, ephemeral to whoever asks: the task, every card and the total, the TRL worked out, and the
    rules that decided it; ``odds_line`` the chance it had; the fumble chance for a GM only (``gm``)."""
    summary = summarize(hand)
    fields: list[tuple[str, str]] = [
        ("Skill (BJ-8)", f"{skill_text(hand.skill, notes.skill_label)}: base {hand.skill}"),
        (
            "Difficulty (BJ-8)",
            f"{difficulty_text(hand.difficulty, notes.asked_difficulty)}: base {hand.difficulty}",
        ),
        ("Characteristics (BJ-9)", _characteristic_details(hand, summary)),
        ("Cards (BJ-2)", _card_values(summary.cards, summary.labels) or "none yet"),
    ]
    result = summary.result
    if result is None:
        total = "hidden by the face-down card" if summary.total is None else str(hand.running_total)
        fields.append(("Total", total))
        if hand.mode is HandMode.VOLUNTARY:
            adders = format_adder_values(hand.allowed_adders) if hand.allowed_adders else "none (Unskilled)"
            fields.append(
                (
                    "Moves (BJ-4..BJ-7)",
                    "Hit draws a card: over 21 wraps (22 is 1) and ends the hand, exactly 21 draws a bonus "
                    "card. Stand keeps the total. Add skill adds one of "
                    f"{adders} ({hand.options.adder_scheme} scheme) and ends the hand.",
                )
            )
    else:
        assert hand.ending is not None
        fields.append(("Total", _total_details(hand)))
        fields.append(("How it ended", ENDINGS[hand.ending]))
        fields.append(
            (
                "TRL (BJ-8)",
                f"⌊({result.total} + {result.bonus}) / 5⌋ + {result.skill} − {result.difficulty} "
                f"= {result.trl}",
            )
        )
        fields.append(
            (
                "Result (BJ-10)",
                f"{result.name}: {'success' if result.succeeded else 'failure'} "
                "(a TRL of 1 or more succeeds)",
            )
        )
        fields.append(
            (
                "Down / Up (BJ-10)",
                f"{result.down:+d} / {result.up:+d}: the result table's two adjustments, 0 / 0 at Good "
                "(TRL 5) and 5 more either way per level",
            )
        )
    if odds_line:
        fields.append(("Chance it had" if result is not None else "Odds", odds_line))
    modifiers = modifier_line(notes.modifiers)
    if modifiers:
        fields.append(("GM modifier (GM-3)", modifiers.removeprefix("GM modifier: ")))
    if gm:
        fields.append(("For the GM (BJ-11)", fumble_text(hand, summary) or "No fumble chance."))
    rules = ["BJ-1", "BJ-2", "BJ-3" if hand.mode is HandMode.INVOLUNTARY else "BJ-4"]
    embed = result_embed(
        f"Hand #{notes.hand_id}: details",
        description=f"<@{notes.owner_id}>'s {hand.mode.value} hand.",
        fields=fields,
        inline=False,
        footer=rule_footer(*rules, "BJ-8", "BJ-10") + " · only you see this",
    )
    embed.colour = NEUTRAL
    return embed


def gm_notes_embed(hand: Hand, odds_line: str | None, *, reveal: bool = False) -> discord.Embed | None:
    """What the GM copy of a hidden hand adds for the GM alone: the fumble chance and the odds; None when
    there is neither. A second embed, so a Reveal (which posts the first) never shows it. ``reveal``: a
    hand in play with its face-down card counted (`/cards peek`)."""
    fumble = fumble_text(hand, summarize(hand, reveal=reveal))
    lines = [line for line in (fumble, f"Odds: {odds_line}" if odds_line else None) if line]
    if not lines:
        return None
    embed = discord.Embed(title="For the GM", description="\n".join(lines), colour=WARNING)
    return embed


def last_move_name(hand: Hand) -> str:
    """The move that ended a voluntary hand: Stand, Add N, or Hit."""
    if hand.ending is Ending.STOOD:
        return "Stand"
    if hand.ending is Ending.SKILL_ADDED:
        return f"Add {hand.adder}"
    return "Hit"


# -- a task's characteristics, as typed --------------------------------------------------------------------

_ENTRY = re.compile(r"(?P<name>[^\d+\-−=:]*?)\s*[=:]?\s*(?P<bonus>[+\-−]?\s*[0-9]+)?")


def read_characteristics(text: str | None, sheet: Sheet | None) -> list[tuple[str, int]]:
    """BJ-9: the characteristics a task names, ``Strength, Dexterity +2``: each bonus as typed, else the
    sheet's for it, else 0. Refuses an unknown name, a name given twice, or a bonus out of range."""
    if text is None or not text.strip():
        return []
    out: list[tuple[str, int]] = []
    entries = [part.strip() for part in text.split(",") if part.strip()]
    if not entries:  # only commas: the option was given, and would be dropped without a word
        raise UserError(
            "Name the task's characteristics, like Strength, Dexterity +2, or leave the option out."
        )
    if len(entries) > len(CHARACTERISTIC_SUITS):
        raise UserError(f"Name at most {len(CHARACTERISTIC_SUITS)} characteristics, separated by commas.")
    for entry in entries:
        match = _ENTRY.fullmatch(entry)
        if match is None or not match["name"].strip():
            raise UserError(
                "Write each characteristic as a name with an optional bonus, like Dexterity +2, "
                f"not {entry[:40]!r}."
            )
        name = canonical_characteristic(match["name"])
        if any(name == seen for seen, _ in out):
            raise UserError(f"The task names {name} twice; name each characteristic once.")
        if match["bonus"] is None:
            bonus = sheet.bonus(name) if sheet is not None else 0
        else:
            raw = match["bonus"].replace(" ", "").replace("−", "-")
            value = whole_number(raw)
            if value is None or not BONUS_MIN <= value <= BONUS_MAX:
                raise UserError(f"A characteristic bonus is a whole number from {BONUS_MIN} to {BONUS_MAX}.")
            bonus = value
        out.append((name, bonus))
    return out


def characteristic_choices(sheet: Sheet | None, current: str, limit: int = 25) -> list[tuple[str, str]]:
    """Autocomplete for a comma-separated list of characteristics: the last entry completed from the table's
    names (the sheet's with a bonus first), each label showing the suit and the sheet's bonus."""
    done, _, last = current.rpartition(",")
    head = [part.strip() for part in done.split(",") if part.strip()] if done else []
    key = last.strip().casefold()
    taken = {h.casefold() for h in head}
    names = [n for n in CHARACTERISTIC_SUITS if key in n.casefold() and n.casefold() not in taken]
    names.sort(key=lambda n: (not (sheet and sheet.bonus(n)), not n.casefold().startswith(key)))
    out: list[tuple[str, str]] = []
    for name in names:
        value = ", ".join([*head, name])
        bonus = sheet.bonus(name) if sheet is not None else 0
        label = f"{value} ({CHARACTERISTIC_SUITS[name].symbol}{f', your bonus {bonus:+d}' if bonus else ''})"
        if len(value) <= 100:
            out.append((label[:100], value))
        if len(out) == limit:
            break
    return out


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


def adder_choices(values: Sequence[int]) -> list[tuple[str, str]]:
    """The Add skill choices as (label, value): exactly the values the hand's skill may add (BJ-7),
    `Hand.allowed_adders`."""
    return [(f"+{value}", str(value)) for value in values]


def adder_options(values: Sequence[int]) -> list[discord.SelectOption]:
    """`adder_choices` as the select's options."""
    return [discord.SelectOption(label=label, value=value) for label, value in adder_choices(values)]


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
    embeds: Sequence[discord.Embed],
    log_id: int,
) -> list[str]:
    """A gm or blind hand's result to the GM channel, else by DM to the channel's GMs; returns problems.

    Like `bot.ui.visibility.deliver`'s GM copy, but the hand ends on a later click, which may be a GM's,
    so the header names the hand's owner rather than whoever clicked. ``embeds``: the result first (what
    Reveal posts), then the GM's notes.
    """
    copies = await post_gm_copies(
        client,
        store,
        guild_id=guild_id,
        channel_id=channel_id,
        header=gm_header("hand", mode, owner_id, channel_id),
        embeds=embeds,
        view=reveal_view(log_id, details=True),  # the hand was logged with its details (record_for_log)
    )
    if not copies.messages and not copies.problems:
        return [f"No GM got this hand's result: {HOW_TO_REACH_A_GM}."]
    return copies.problems


MAX_SEEN_HANDS = 500  # the finished hands looked at for cards in the discards (a 8-deck shoe holds 416 cards)


@dataclass(frozen=True)
class Hidden:
    """The cards out of a shoe that a viewer was not shown (`hidden_cards`)."""

    in_hands: list[Card]  # in other players' open hands: their face-down cards, a hidden hand's every card
    in_discards: list[Card]  # of the discards given, from finished hands the viewer did not see
    seen_discards: tuple[Card, ...]  # the rest of the discards
    elsewhere: list[Card]  # of those finished hands, not in the discards given (only when asked for)


async def hidden_cards(
    store: Store,
    discards: Sequence[Card],
    guild_id: int | None,
    channel_id: int,
    viewer_id: int,
    *,
    elsewhere: bool = False,
) -> Hidden:
    """The cards out of the shoe that ``viewer_id`` was not shown (`Hidden`). The finished hands are read
    only when there are discards to look for, or ``elsewhere`` asks for their other cards too."""
    in_hands: list[Card] = []
    for record in await store.cards.open_hands(guild_id, channel_id):
        if record.owner_id == viewer_id:
            continue  # their own cards: shown to them (Peek shows the face-down one)
        hand = Hand.from_dict(record.data)
        if hand_visibility(record.data) != "public":
            in_hands += hand.played
        elif hand.face_down is not None:
            in_hands.append(hand.played[hand.face_down])
    seen = list(discards)
    in_discards: list[Card] = []
    other: list[Card] = []
    finished = (
        await store.cards.recent_hands(guild_id, channel_id, MAX_SEEN_HANDS) if seen or elsewhere else []
    )
    for record in finished:
        mode = hand_visibility(record.data)
        if mode == "public" or (record.owner_id == viewer_id and mode != "blind"):
            continue
        for card in record.card_objects:
            if card in seen:  # still in the discards (not reshuffled into the shoe since)
                seen.remove(card)
                in_discards.append(card)
            elif elsewhere:
                other.append(card)
    return Hidden(in_hands, in_discards, tuple(seen), other)


#: the viewer of an answer posted for the whole table: no Discord user has id 0, so nobody's face-down card
#: or hidden hand counts as seen
NOBODY = 0


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
    hidden = await hidden_cards(store, shoe.discards, guild_id, channel_id, viewer_id)
    return (*shoe.remaining, *hidden.in_hands, *hidden.in_discards), hidden.seen_discards


def held_then(held: Sequence[Card], remaining: Sequence[Card], discards: Sequence[Card]) -> Counter[Card]:
    """Of the cards in hands now, or in hands that ended since, those already in a hand when a shoe held
    ``remaining`` and ``discards``: a card then in the shoe or its discards was drawn since (after a
    reshuffle too). With several decks a card of the same face there counts against it: too few, never a
    card drawn since."""
    return Counter(held) - Counter(remaining) - Counter(discards)


async def kept_shoe_as_seen(
    store: Store, note: dict[str, str], record: HandRecord, viewer_id: int | None
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """A shoe kept with a hand's move (``note``: its remaining cards and discards) as ``viewer_id`` could
    know it then (`shoe_as_seen`): the cards then in other players' hands or in the discards that the
    viewer has not been shown count as remaining. ``viewer_id`` None: for the GMs, who see every card."""
    remaining, discards = parse_cards(note["remaining"].split()), parse_cards(note["discards"].split())
    if viewer_id is None:
        return remaining, discards
    hidden = await hidden_cards(
        store, discards, record.guild_id, record.channel_id, viewer_id, elsewhere=True
    )
    # a hand open then and hidden from the viewer may have ended since: its cards are "elsewhere"
    then = held_then([*hidden.in_hands, *hidden.elsewhere], remaining, discards)
    return (*remaining, *then.elements(), *hidden.in_discards), hidden.seen_discards
