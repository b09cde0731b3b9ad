"""The buttons and the select on a hand's message: Hit, Stand, Peek, Odds and Add skill (BJ-4..BJ-7).

A custom_id carries the hand's id and the action only (``bj:12:hit``). Every click finds the hand in the
store again (`bot.ui.hands.open_hand`), so the buttons work after a restart, and only the hand's owner or a
GM gets past that check (GM-4): anyone else is told so in one ephemeral sentence and nothing happens.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.core.blackjack import Hand
from bot.store import HandRecord
from bot.ui.cards import adder_options, hand_visibility, peek_text, send_to_gms
from bot.ui.embeds import NO_MENTIONS
from bot.ui.hands import (
    Found,
    Move,
    Moved,
    add_skill_move,
    decision_line,
    full_embed,
    hit_move,
    open_hand,
    owner_embed,
    play,
    shows_odds,
    stand_move,
)
from bot.ui.odds import add_odds
from bot.ui.permissions import NOT_GM, is_gm
from bot.ui.reply import ID_PATTERN, ErrorReportingItem, UserError, defer, release_when_handled, reply

log = logging.getLogger(__name__)

#: The hand's buttons, in the order they are shown: label, style, emoji.
ACTIONS: dict[str, tuple[str, discord.ButtonStyle, str | None]] = {
    "hit": ("Hit", discord.ButtonStyle.primary, None),
    "stand": ("Stand", discord.ButtonStyle.secondary, None),
    "peek": ("Peek", discord.ButtonStyle.secondary, "👁"),
    "odds": ("Odds", discord.ButtonStyle.secondary, "🎯"),
}
MOVES: dict[str, Move] = {"hit": hit_move, "stand": stand_move}
# the select offers ASCII numbers; str.isdigit would also pass "٣" (read as 3) and "³" (which int() refuses)
ADDER_VALUE = re.compile(r"-?[0-9]{1,3}")


def hand_view(record: HandRecord, hand: Hand) -> discord.ui.View | None:
    """Hit, Stand, Peek, Odds (not on a blind hand) and, when the skill allows one, Add skill; None once
    the hand has ended.

    Built to be sent by the handler running now, and emptied when it ends (`release_when_handled`).
    """
    if hand.is_over:
        return None
    view = discord.ui.View(timeout=None)
    for action in ACTIONS:
        if action != "odds" or shows_odds(record):
            view.add_item(HandButton(record.id, action))
    if hand.can_add_skill:
        view.add_item(AddSkillSelect(record.id, adder_options(hand.allowed_adders)))
    release_when_handled(view)
    return view


class HandButton(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"bj:(?P<hand_id>{ID_PATTERN}):(?P<action>hit|stand|peek|odds)",
):
    """Hit draws a card (and the bonus cards a 21 earns, BJ-6), Stand ends the hand (BJ-4); Peek shows the
    face-down card and Odds the chance of each move, to the owner or a GM only."""

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
        self.found = await open_hand(interaction, self.hand_id, for_move=self.action in MOVES)
        return self.found is not None

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        assert self.found is not None  # `allowed` found it
        if self.action in MOVES:
            await play_and_show(interaction, self.found, MOVES[self.action])
        elif self.action == "peek":
            await peek(interaction, self.found[0])
        else:
            await odds(interaction, self.found[0])


class AddSkillSelect(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"bj:(?P<hand_id>{ID_PATTERN}):add",
):
    """Add one value of the skill's adder set; the hand ends (BJ-7)."""

    def __init__(self, hand_id: int, options: list[discord.SelectOption] | None = None) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"bj:{hand_id}:add",
                placeholder="Add skill…",
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
    if moved is None:
        return
    try:
        await show(interaction, moved)
    finally:
        moved.forget()


async def show(interaction: discord.Interaction[Any], moved: Moved) -> None:
    """Edit the hand's message to the new state. At the end, the chance each move had before the last one
    becomes an Odds line on the owner's message (not a blind hand's) and on the GMs' copy, sent when asked."""
    record, hand = moved.record, moved.hand
    owner = owner_embed(record, hand)
    view = hand_view(record, hand)
    await interaction.response.edit_message(embed=owner, view=view, allowed_mentions=NO_MENTIONS)
    if not hand.is_over:
        return
    mode = hand_visibility(record.data)
    odds_line = await moved.last_move_line()
    if odds_line is not None and mode != "blind":
        try:
            await interaction.edit_original_response(
                embed=add_odds(owner, odds_line), allowed_mentions=NO_MENTIONS
            )
        except discord.HTTPException as error:  # the result stands; only its odds line is missing
            log.warning("Could not add the odds line to hand #%s: %s", record.id, error)
    if mode in ("gm", "blind") and record.guild_id is not None and moved.log_id is not None:
        problems = await send_to_gms(
            interaction.client,
            interaction.client.store,
            guild_id=record.guild_id,
            channel_id=record.channel_id,
            owner_id=record.owner_id,
            mode=mode,
            embed=add_odds(full_embed(record, hand), odds_line),
            log_id=moved.log_id,
        )
        if problems:
            await reply(interaction, " ".join(problems), ephemeral=True)


async def peek(interaction: discord.Interaction[Any], record: HandRecord) -> None:
    """The face-down card and the running total, and the odds unless the hand is blind (BJ-4)."""
    hand = Hand.from_dict(record.data)
    text = peek_text(hand)
    if hand_visibility(record.data) != "blind" or await is_gm(interaction, interaction.client.store):
        text += f"\nOdds: {await decision_line(interaction, record, hand)}"
    await reply(interaction, text, ephemeral=True)


async def odds(interaction: discord.Interaction[Any], record: HandRecord) -> None:
    """The chance of Stand, each adder and Hit (with the best move). It depends on the face-down card, so
    it is never shown publicly; a blind hand's owner is refused (it would tell them the difficulty)."""
    if hand_visibility(record.data) == "blind" and not await is_gm(interaction, interaction.client.store):
        await reply(interaction, f"A blind hand's odds are for the GM only. {NOT_GM}", ephemeral=True)
        return
    await defer(interaction, ephemeral=True)
    hand = Hand.from_dict(record.data)
    line = await decision_line(interaction, record, hand)
    await reply(
        interaction, f"Odds for hand #{record.id} (total {hand.running_total}): {line}", ephemeral=True
    )
