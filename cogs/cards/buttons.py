"""The buttons and the select on a hand's message: Hit, Stand, Peek, Odds, Details and Add skill.

A custom_id carries the hand's id and the action only (``bj:12:hit``). Every click finds the hand in the
store again (`bot.ui.hands.open_hand`), so the buttons work after a restart. Moves, Peek and Odds are for
the hand's owner or a GM (GM-4): anyone else is told so in one ephemeral sentence and nothing happens.
Details is for anyone who sees the hand (a hidden hand's only for its owner and the GMs).
A finished hand keeps Details and, for a voluntary hand, Odds: the chance each move had before the last.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.core.blackjack import Hand, HandMode
from bot.store import HandRecord
from bot.ui.cards import (
    adder_choices,
    adder_options,
    gm_notes_embed,
    hand_details_embed,
    hand_meta,
    hand_visibility,
    last_move_name,
    notes_of,
    peek_text,
    send_to_gms,
)
from bot.ui.hands import (
    BLIND_DETAILS,
    BLIND_ODDS,
    Found,
    Move,
    Moved,
    add_skill_move,
    dealt_odds_line,
    decision_line,
    find_hand,
    full_embed,
    hit_move,
    last_move_line,
    open_hand,
    owner_embed,
    play,
    shows_odds,
    stand_move,
)
from bot.ui.permissions import is_gm, owner_or_gm
from bot.ui.reply import ID_PATTERN, ErrorReportingItem, UserError, defer, refuse, reply, update_message

log = logging.getLogger(__name__)

#: The hand's buttons, in the order they are shown: label, style, emoji.
ACTIONS: dict[str, tuple[str, discord.ButtonStyle, str | None]] = {
    "hit": ("Hit", discord.ButtonStyle.primary, None),
    "stand": ("Stand", discord.ButtonStyle.secondary, None),
    "peek": ("Peek", discord.ButtonStyle.secondary, "👁"),
    "odds": ("Odds", discord.ButtonStyle.secondary, "🎯"),
    "details": ("Details", discord.ButtonStyle.secondary, None),
}
MOVES: dict[str, Move] = {"hit": hit_move, "stand": stand_move}
PRIVATE = ("odds", "details")  # never on a blind hand: they would tell its owner the task
# the select offers ASCII numbers; str.isdigit would also pass "٣" (read as 3) and "³" (which int() refuses)
ADDER_VALUE = re.compile(r"-?[0-9]{1,3}")
ADD_SKILL = "Add skill…"  # the select's placeholder
NOT_KEPT = "The odds of this hand's last move were not kept (it ended before the bot kept them)."
NO_MOVES = "An involuntary hand has no moves to weigh; its chance is in Details."


def hand_controls(record: HandRecord, hand: Hand) -> tuple[list[str], list[int] | None]:
    """In play: Hit, Stand, Peek, Odds, Details and, when the skill allows one, Add skill (the values it
    may add). Finished: Details, and Odds on a voluntary hand that kept its last move. A blind hand shows
    its owner neither Odds nor Details; finished, it has no controls at all.
    """
    private = shows_odds(record)
    if hand.is_over:
        actions = ["details"]
        if hand.mode is HandMode.VOLUNTARY and "last_move" in hand_meta(record.data):
            actions.append("odds")
    else:
        actions = list(ACTIONS)
    actions = [a for a in actions if private or a not in PRIVATE]
    adders = list(hand.allowed_adders) if not hand.is_over and hand.can_add_skill else None
    return actions, adders


def hand_view(record: HandRecord, hand: Hand) -> discord.ui.View | None:
    """The hand's buttons and select (`hand_controls`); None when it has none."""
    actions, adders = hand_controls(record, hand)
    if not actions:
        return None
    view = discord.ui.View(timeout=None)
    for action in actions:
        view.add_item(HandButton(record.id, action))
    if adders is not None:
        view.add_item(AddSkillSelect(record.id, adder_options(adders)))
    return view


def shows_controls(message: discord.Message | None, record: HandRecord, hand: Hand) -> bool:
    """Whether ``message`` carries exactly the controls `hand_view` would give it: an edit can then leave
    them out, and Discord keeps them (most Hits change only the cards)."""
    if message is None:
        return False
    actions, adders = hand_controls(record, hand)
    if not actions:
        return not message.components
    wanted: list[tuple[Any, ...]] = []
    for action in actions:
        label, style, emoji = ACTIONS[action]
        wanted.append((f"bj:{record.id}:{action}", label, style, emoji, False))
    if adders is not None:
        wanted.append((f"bj:{record.id}:add", ADD_SKILL, tuple(adder_choices(adders)), False))
    shown: list[tuple[Any, ...]] = []
    for row in message.components:
        for item in getattr(row, "children", (row,)):
            if isinstance(item, discord.Button):
                emoji = str(item.emoji) if item.emoji is not None else None
                shown.append((item.custom_id, item.label, item.style, emoji, item.disabled))
            elif isinstance(item, discord.SelectMenu):
                options = tuple((option.label, option.value) for option in item.options)
                shown.append((item.custom_id, item.placeholder, options, item.disabled))
            else:
                return False
    return shown == wanted


class HandButton(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"bj:(?P<hand_id>{ID_PATTERN}):(?P<action>hit|stand|peek|odds|details)",
):
    """Hit draws a card (and the bonus cards a 21 earns, BJ-6), Stand ends the hand; Peek shows the
    face-down card and Odds the chance of each move, to the owner or a GM only; Details the breakdown."""

    def __init__(self, hand_id: int, action: str) -> None:
        label, style, emoji = ACTIONS[action]
        super().__init__(
            discord.ui.Button(label=label, style=style, emoji=emoji, custom_id=f"bj:{hand_id}:{action}")
        )
        self.hand_id = hand_id
        self.action = action
        self.found: Found | None = None

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> HandButton:
        return cls(int(match["hand_id"]), match["action"])

    async def allowed(self, interaction: discord.Interaction[Any]) -> bool:
        if self.action in PRIVATE:  # a finished hand too
            record = await find_hand(interaction, self.hand_id)
            if record is None:
                return False
            self.found = (record, None)
            if self.action == "details" and hand_visibility(record.data) == "public":
                return True  # what the hand's public message shows, in full
            return await owner_or_gm(interaction, interaction.client.store, record.owner_id)
        self.found = await open_hand(interaction, self.hand_id, for_move=self.action in MOVES)
        return self.found is not None

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        assert self.found is not None  # `allowed` found it
        if self.action in MOVES:
            await play_and_show(interaction, self.found, MOVES[self.action])
        elif self.action == "peek":
            await peek(interaction, self.found[0])
        elif self.action == "odds":
            await odds(interaction, self.found[0])
        else:
            await details(interaction, self.found[0])


class AddSkillSelect(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"bj:(?P<hand_id>{ID_PATTERN}):add",
):
    """Add one value of the skill's adder set; the hand ends."""

    def __init__(self, hand_id: int, options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"bj:{hand_id}:add",
                placeholder=ADD_SKILL,
                # Discord needs at least one option; a rebuilt select only reads the chosen values
                options=options or [discord.SelectOption(label="+1", value="1")],
                min_values=1,
                max_values=1,
            )
        )
        self.hand_id = hand_id
        self.found: Found | None = None
        self.value = 0

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> AddSkillSelect:
        return cls(int(match["hand_id"]))

    async def allowed(self, interaction: discord.Interaction[Any]) -> bool:
        values = self.item.values
        if len(values) != 1 or ADDER_VALUE.fullmatch(values[0]) is None:
            raise UserError("Choose one of the skill adder values in the list.")
        self.value = int(values[0])
        self.found = await open_hand(interaction, self.hand_id, for_move=True)
        return self.found is not None

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        assert self.found is not None  # `allowed` found it
        await play_and_show(interaction, self.found, add_skill_move(self.value))


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (HandButton, AddSkillSelect)


async def play_and_show(interaction: discord.Interaction[Any], found: Found, move: Move) -> None:
    """Play ``move`` and edit the hand's message to what it made of the hand."""
    moved = await play(interaction, found, move)
    if moved is not None:
        await show(interaction, moved)


async def show(interaction: discord.Interaction[Any], moved: Moved) -> None:
    """Edit the hand's message to the new state. At the end of a gm or blind hand, its result goes to the
    GMs, with the fumble chance and the odds the moves had before the last one for them alone."""
    record, hand = moved.record, moved.hand
    if shows_controls(interaction.message, record, hand):
        await update_message(interaction, embed=owner_embed(record, hand))
    else:
        await update_message(interaction, embed=owner_embed(record, hand), view=hand_view(record, hand))
    mode = hand_visibility(record.data)
    if not hand.is_over or mode not in ("gm", "blind") or record.guild_id is None or moved.log_id is None:
        return
    try:
        odds_line = await last_move_line(interaction, record, for_gms=True)
    except Exception:  # the GMs still get the result; only its odds line is missing
        log.exception("Working out the odds of a hand's last move failed")
        odds_line = None
    if odds_line is not None:
        odds_line = f"before the last move ({last_move_name(hand)}): {odds_line}"
    notes = gm_notes_embed(hand, odds_line)
    problems = await send_to_gms(
        interaction.client,
        interaction.client.store,
        guild_id=record.guild_id,
        channel_id=record.channel_id,
        owner_id=record.owner_id,
        mode=mode,
        embeds=[full_embed(record, hand), *([notes] if notes is not None else [])],
        log_id=moved.log_id,
    )
    if problems:
        await reply(interaction, " ".join(problems), ephemeral=True)


async def peek(interaction: discord.Interaction[Any], record: HandRecord) -> None:
    """The face-down card and the running total, to the owner or a GM only."""
    await reply(interaction, peek_text(Hand.from_dict(record.data)), ephemeral=True)


async def odds(interaction: discord.Interaction[Any], record: HandRecord) -> None:
    """In play: the chance of Stand, each adder and Hit (with the best move); finished: the same just before
    the last move. It depends on the face-down card, so it is only ever shown to who asks; a blind hand's
    owner is refused (it would tell them the difficulty)."""
    store = interaction.client.store
    if hand_visibility(record.data) == "blind" and not await is_gm(interaction, store):
        await refuse(interaction, BLIND_ODDS)
        return
    hand = Hand.from_dict(record.data)
    if hand.is_over:
        if hand.mode is HandMode.INVOLUNTARY:
            raise UserError(NO_MOVES)
        await defer(interaction, ephemeral=True)
        line = await last_move_line(interaction, record)
        if line is None:
            raise UserError(NOT_KEPT)
        text = f"Hand #{record.id}, before your last move ({last_move_name(hand)}): {line}"
        await reply(interaction, text, ephemeral=True)
        return
    await defer(interaction, ephemeral=True)
    line = await decision_line(interaction, record, hand)
    await reply(
        interaction, f"Odds for hand #{record.id} (total {hand.running_total}): {line}", ephemeral=True
    )


async def details(interaction: discord.Interaction[Any], record: HandRecord) -> None:
    """The hand's breakdown and the rules that decided it, ephemeral; a GM sees the fumble chance too. An
    involuntary hand's Details say the chance it had, from the shoe it was dealt from."""
    store = interaction.client.store
    gm = await is_gm(interaction, store)
    if hand_visibility(record.data) == "blind" and not gm:
        await refuse(interaction, BLIND_DETAILS)
        return
    hand = Hand.from_dict(record.data)
    odds_line = None
    if hand.mode is HandMode.INVOLUNTARY:
        await defer(interaction, ephemeral=True)  # the odds take a worker's while
        odds_line = await dealt_odds_line(interaction, record)
    embed = hand_details_embed(hand, notes_of(record), gm=gm, odds_line=odds_line)
    await reply(interaction, embed=embed, ephemeral=True)
