"""A hand of `/cards` in play: finding it for a click, its moves, and playing a move against the shoe.

`open_hand` finds the clicked hand in this channel and lets only its owner or a GM go on (GM-4). `play`
applies one move (Hit, Stand, Add skill) to the stored hand, drawing what the move needs from the channel's
shoe, and writes hand and shoe with version checks (`store.cards.apply_logged`): a double click is refused,
and another hand's draw in between is answered by playing the move again on the new shoe. The move that
ends a hand keeps the hand and shoe it was played from, so the odds it had can be worked out when asked
(`last_move_line`), as can an involuntary hand's from the shoe it was dealt from (`dealt_odds_line`), each
as the clicker could know that shoe (others' face-down cards count as unseen).
How the result looks is `bot.ui.cards`; the buttons that call these are the cards cog's.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands

from bot.core.blackjack import Hand, HandMode, add_skill, deal, hit, resolve, stand
from bot.core.cards import Card, Shoe
from bot.store import Conflict, HandRecord, NotFound, RollRecord, ShoeRead, Store
from bot.ui.cards import (
    blind_hand_embed,
    codes,
    hand_details_embed,
    hand_embed,
    hand_meta,
    hand_visibility,
    kept_shoe_as_seen,
    notes_of,
    shoe_as_seen,
)
from bot.ui.details import with_details
from bot.ui.freeroll import shown
from bot.ui.odds import card_codes, hand_decision_text, involuntary_line
from bot.ui.permissions import is_gm, owner_or_gm
from bot.ui.reply import refuse

log = logging.getLogger(__name__)

SYSTEM = "cards"
COMMAND = "cards task"
SHOE_RETRIES = 5  # another hand in the channel drawing between our read and our write: read again
NOT_HERE = "There is no hand {id} in this channel."
MOVED_ON = (
    "This hand moved on before your click counted (a double click?); nothing was drawn. "
    "Look at the hand again and click if you still want to."
)
BUSY = "The shoe is busy with other hands right now; click again."
OVER = "Hand #{id} is over; start a new one with /cards task."
# one sentence each, for the player of a blind hand (who is no GM): whose they are
BLIND_DETAILS = "A blind hand's details are for a GM of this channel only."
BLIND_ODDS = "A blind hand's odds are for a GM of this channel only."

#: A player's move: the hand and shoe after it, before the cards it makes the hand ask for are dealt.
Move = Callable[[Hand, Shoe, Any], tuple[Hand, Shoe]]
#: A hand found for a click, and the channel's shoe when it was read in the same statement.
Found = tuple[HandRecord, ShoeRead | None]


def hit_move(hand: Hand, shoe: Shoe, rng: Any) -> tuple[Hand, Shoe]:
    """Draw one card (BJ-4)."""
    card, shoe = shoe.draw(rng)
    return hit(hand, card), shoe


def stand_move(hand: Hand, shoe: Shoe, rng: Any) -> tuple[Hand, Shoe]:
    """Keep the total (BJ-4)."""
    return stand(hand), shoe


def add_skill_move(value: int) -> Move:
    """Add one value of the skill's adder set (BJ-7)."""

    def move(hand: Hand, shoe: Shoe, rng: Any) -> tuple[Hand, Shoe]:
        return add_skill(hand, value), shoe

    return move


def play_out(hand: Hand, shoe: Shoe, rng: Any) -> tuple[Hand, Shoe]:
    """Deal what the hand asks for (face-down card, dealer draws, bonus cards); an ended hand is discarded."""
    while hand.needs_card:
        card, shoe = shoe.draw(rng)
        hand = deal(hand, card)
    if hand.is_over:
        shoe = shoe.discard(hand.played)
    return hand, shoe


# -- the stored hand ---------------------------------------------------------------------------------------


def stored(hand: Hand, meta: dict[str, Any]) -> dict[str, Any]:
    """What the store keeps of a hand: the core's hand and the table's notes (visibility, modifiers)."""
    return {**hand.to_dict(), "table": meta}


def full_embed(record: HandRecord, hand: Hand, *, reveal: bool = False) -> discord.Embed:
    """The hand with its task and modifiers (``reveal``: with the face-down card, for a GM)."""
    return hand_embed(hand, notes_of(record), reveal=reveal)


def owner_embed(record: HandRecord, hand: Hand) -> discord.Embed:
    """What the hand's own message shows (a blind hand's owner sees neither the task nor the result)."""
    if hand_visibility(record.data) == "blind":
        return blind_hand_embed(hand, hand_id=record.id)
    return full_embed(record, hand)


def shoe_note(shoe: Shoe) -> dict[str, str]:
    """The shoe as a hand's move found it, kept with the hand for the odds asked for later."""
    return {"remaining": card_codes(shoe.remaining), "discards": card_codes(shoe.discards)}


def shows_odds(record: HandRecord) -> bool:
    """A blind hand's odds would tell its owner the task's difficulty: no Odds button on it."""
    return hand_visibility(record.data) != "blind"


def record_for_log(record: HandRecord, hand: Hand, command: str = COMMAND) -> RollRecord:
    """The log row of a hand that has ended. A gm or blind hand's keeps its Details as anyone may see them
    once revealed (a GM's fumble chance left out), for its GM copy and its reveal; the other hands' Details
    button reads the hand itself, so their rows (most hands, on a Hit's path) carry none."""
    meta = hand_meta(record.data)
    result = resolve(hand)
    mode = hand_visibility(record.data)
    notes = notes_of(record)
    details = hand_details_embed(hand, notes) if mode in ("gm", "blind") else None
    # which of a player's hands it was, in the log as at the table: the skill and the hand's number
    which = f"{shown(notes.skill_label)}, hand #{record.id}" if notes.skill_label else f"Hand #{record.id}"
    return RollRecord(
        guild_id=record.guild_id,
        channel_id=record.channel_id,
        user_id=record.owner_id,
        system=SYSTEM,
        command=command,
        visibility=mode,
        inputs=with_details(
            {
                "hand_id": record.id,
                "mode": hand.mode.value,
                "skill": hand.skill,
                "difficulty": hand.difficulty,
                "asked_difficulty": meta.get("asked_difficulty", hand.difficulty),
                "characteristics": [[c.name, c.bonus] for c in hand.characteristics],
                "adder": hand.adder,
                "options": hand.options.to_dict(),
                "modifiers": meta.get("modifiers", []),
            },
            details,
        ),
        dice=codes(hand.played),
        result=f"{result.name} (TRL {result.trl}, total {result.total})",
        # the log line says "/cards task:" before it, as the other systems' summaries
        summary=f"{which}: {result.name} (TRL {result.trl}), {'success' if result.succeeded else 'failure'}",
    )


# -- a click on a hand -------------------------------------------------------------------------------------


def _store(interaction: discord.Interaction[Any]) -> Store:
    store: Store = interaction.client.store
    return store


def where(interaction: discord.Interaction[Any]) -> tuple[int, int]:
    """The guild and channel a hand is played in; hands are not dealt in DMs."""
    if interaction.guild_id is None or interaction.channel_id is None:
        raise app_commands.NoPrivateMessage()
    return interaction.guild_id, interaction.channel_id


async def find_hand(interaction: discord.Interaction[Any], hand_id: int) -> HandRecord | None:
    """The hand, in any state, if it was dealt in this guild and channel; else the clicker is told so in one
    ephemeral sentence and None is returned (the same sentence for every hand not here: ids cannot be
    probed)."""
    guild_id, channel_id = where(interaction)
    try:
        return await _store(interaction).cards.hand_in(hand_id, guild_id, channel_id)
    except NotFound:
        await refuse(interaction, NOT_HERE.format(id=hand_id))
        return None


async def open_hand(
    interaction: discord.Interaction[Any], hand_id: int, *, for_move: bool = False
) -> Found | None:
    """The hand, if it is in this guild and channel, still open, and the clicker is its owner or a GM
    (GM-4); anyone else is answered with one ephemeral sentence, and None is returned.

    ``for_move``: read the channel's shoe in the same statement, unless another move in the channel is
    under way (it will change the shoe, so `play` reads it again anyway).
    """
    guild_id, channel_id = where(interaction)
    store = _store(interaction)
    try:
        if for_move and not store.cards.shoe_busy(channel_id):
            record, shoe = await store.cards.hand_with_shoe(hand_id, guild_id, channel_id)
        else:
            record, shoe = await store.cards.hand_in(hand_id, guild_id, channel_id), None
    except NotFound:  # no such hand, or one dealt elsewhere: the same sentence, so ids cannot be probed
        await refuse(interaction, NOT_HERE.format(id=hand_id))
        return None
    if not await owner_or_gm(interaction, store, record.owner_id):
        return None
    if record.finished:
        await refuse(interaction, OVER.format(id=record.id))
        return None
    return record, shoe


@dataclass
class Moved:
    """A move that was played and stored: the hand after it, and its log row when it ended the hand."""

    record: HandRecord
    hand: Hand
    log_id: int | None


async def play(interaction: discord.Interaction[Any], found: Found, move: Move) -> Moved | None:
    """Apply ``move`` to the hand `open_hand` found, drawing what it needs, written atomically with the shoe.

    Returns None after answering the clicker when the move cannot count: the hand moved on since it was
    read (a double click), or the shoe kept changing under it.
    """
    store = _store(interaction)
    record, read = found
    rng = interaction.client.rng
    seen_version = record.version
    decks: int | None = None  # the guild's shoe size: read only when the shoe must be read again
    for _ in range(SHOE_RETRIES):
        hand = Hand.from_dict(record.data)
        try:
            async with store.cards.shoe_lock(record.channel_id):  # no conflicts between in-process moves
                # read with the hand, or as the move before this one left it: still the shoe
                known = store.cards.known_shoe(record.channel_id, read)
                if known is not None:
                    shoe, shoe_version = known.shoe, known.version
                else:
                    if decks is None:
                        decks = (await store.settings.get(record.guild_id or 0)).decks_per_shoe
                    shoe, shoe_version = await store.cards.get_shoe(
                        record.guild_id, record.channel_id, decks, rng
                    )
                read = None  # a retry reads the shoe again
                moved, moved_shoe = play_out(*move(hand, shoe, rng), rng)
                shoe_changed = moved_shoe is not shoe  # a move that draws or discards makes a new Shoe
                meta = hand_meta(record.data)
                if moved.is_over:  # what the odds of the last move, asked for later, are worked out from
                    meta["last_move"] = {"hand": hand.to_dict(), **shoe_note(shoe)}
                updated, log_id = await store.cards.apply_logged(
                    record.id,
                    seen_version,
                    stored(moved, meta),
                    state=moved.state.value,
                    cards=moved.played,
                    shoe=moved_shoe if shoe_changed else None,
                    shoe_version=shoe_version if shoe_changed else None,
                    finished=moved.is_over,
                    # the hand's roll is logged with the move that ends it
                    log=functools.partial(record_for_log, hand=moved) if moved.is_over else None,
                    base=record,
                )
            break
        except Conflict:
            record = await store.cards.hand_in(record.id, record.guild_id, record.channel_id)
            if record.version != seen_version:
                # the hand itself moved: this click was computed from a state that is gone
                await refuse(interaction, MOVED_ON)
                return None
    else:
        await refuse(interaction, BUSY)
        return None
    return Moved(updated, moved, log_id)


async def decision_line(interaction: discord.Interaction[Any], record: HandRecord, hand: Hand) -> str:
    """Stand, each adder and Hit from the hand as it stands and the channel's shoe as the clicker knows it."""
    store = _store(interaction)
    settings = await store.settings.get(record.guild_id or 0)
    shoe, _ = await store.cards.get_shoe(
        record.guild_id, record.channel_id, settings.decks_per_shoe, interaction.client.rng
    )
    # from the cards the clicker can know about: other players' face-down cards do not show through
    unseen, discards = await shoe_as_seen(
        store,
        shoe,
        record.guild_id,
        record.channel_id,
        interaction.user.id,
        gm=await is_gm(interaction, store),
    )
    text: str = await interaction.client.workers.run(
        hand_decision_text, hand, card_codes(unseen), card_codes(discards)
    )
    return text


async def last_move_line(
    interaction: discord.Interaction[Any], record: HandRecord, *, for_gms: bool = False
) -> str | None:
    """The chance each move had just before a finished voluntary hand's last one, from the hand and shoe
    kept with that move, as the clicker could know the shoe then (the player knew the face-down card; GMs,
    or ``for_gms``, every card). None for a hand that kept none."""
    note = hand_meta(record.data).get("last_move")
    if not isinstance(note, dict):
        return None
    before = Hand.from_dict(note["hand"])
    remaining, discards = await _as_seen(interaction, record, note, for_gms=for_gms)
    text: str = await interaction.client.workers.run(
        hand_decision_text, before, card_codes(remaining), card_codes(discards)
    )
    return text


async def dealt_odds_line(interaction: discord.Interaction[Any], record: HandRecord) -> str | None:
    """An involuntary hand's chance from the shoe it was dealt from (BJ-3) as the clicker could know it;
    None without that shoe kept."""
    note = hand_meta(record.data).get("dealt_from")
    hand = Hand.from_dict(record.data)
    if not isinstance(note, dict) or hand.mode is not HandMode.INVOLUNTARY or not hand.is_over:
        return None
    remaining, discards = await _as_seen(interaction, record, note)
    line, _ = await interaction.client.workers.run(
        involuntary_line, remaining, hand, resolve(hand).trl, discards
    )
    text: str = line
    return text


async def _as_seen(
    interaction: discord.Interaction[Any], record: HandRecord, note: dict[str, str], *, for_gms: bool = False
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """The shoe kept in ``note`` as the clicker could know it then (`kept_shoe_as_seen`)."""
    store = _store(interaction)
    gm = for_gms or await is_gm(interaction, store)
    return await kept_shoe_as_seen(store, note, record, None if gm else interaction.user.id)
