"""The `/cards` commands: deal a task's hand, look at the shoe, and the GM's shuffle and peek."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.core.blackjack import (
    DIFFICULTY_NAMES,
    SKILL_NAMES,
    Hand,
    HandOptions,
    resolve,
    start_involuntary,
    start_voluntary,
)
from bot.core.cards import Shoe
from bot.store import AppliedModifier, Conflict, HandRecord, Store
from bot.ui.cards import (
    CHARACTERISTICS_HELP,
    CHARACTERISTICS_MAX,
    KIND,
    characteristic_choices,
    gm_notes_embed,
    hand_meta,
    hand_visibility,
    shoe_embed,
)
from bot.ui.gm import settings_read
from bot.ui.hands import (
    BUSY,
    OVER,
    SHOE_RETRIES,
    SYSTEM,
    full_embed,
    owner_embed,
    play_out,
    record_for_log,
    shoe_note,
    stored,
    where,
)
from bot.ui.odds import involuntary_line
from bot.ui.permissions import gm_only, is_gm, owner_or_gm
from bot.ui.reply import UserError, reply
from bot.ui.roll_inputs import at_once, cards_task
from bot.ui.rolls import publish, take_modifiers
from bot.ui.visibility import Mode, choose_visibility, default_notice, keep_gm_copies, reach_gms

from .buttons import hand_view

if TYPE_CHECKING:
    from bot.client import TabletopBot

SKILL_CHOICES = [Choice(name=f"{i} {name}", value=i) for i, name in enumerate(SKILL_NAMES)]
DIFFICULTY_CHOICES = [Choice(name=f"{i} {name}", value=i) for i, name in enumerate(DIFFICULTY_NAMES)]


def _chosen_difficulty(asked: int, applied: Sequence[AppliedModifier]) -> int:
    """GM-3: a ``difficulty`` modifier replaces the task difficulty. The store holds one at most (a
    player's own before everyone's, then the latest: `REPLACING_KINDS`); the same order picks here."""
    mods = [m for m in applied if m.kind == "difficulty" and isinstance(m.value, int)]
    if not mods:
        return asked
    best = max(mods, key=lambda m: (not m.for_everyone, m.modifier_id))
    assert isinstance(best.value, int)
    return best.value


@app_commands.guild_only()
class Cards(commands.GroupCog, group_name="cards", group_description="Blackjack-style task resolution."):
    """`/cards task | shoe` and GM `/cards shuffle | peek`."""

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot

    @property
    def store(self) -> Store:
        store: Store = self.bot.store
        return store

    async def skill_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[str]]:
        """The skills of the roller's active cards sheet, with their levels."""
        if interaction.guild_id is None:
            return []
        sheet = await self.store.sheets.active(interaction.guild_id, interaction.user.id, SYSTEM)
        if sheet is None:
            return []
        key = current.strip().casefold()
        out: list[Choice[str]] = []
        for name, skill in sheet.skills.items():
            if key in name.casefold() and 0 <= skill.rating < len(SKILL_NAMES):
                label = f"{name}: {SKILL_NAMES[skill.rating]} ({skill.rating})"
                out.append(Choice(name=label[:100], value=name))
        return out[:25]

    async def characteristics_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[str]]:
        """The characteristics for the comma-separated option, the roller's sheet's bonuses shown."""
        sheet = None
        if interaction.guild_id is not None:
            sheet = await self.store.sheets.active(interaction.guild_id, interaction.user.id, SYSTEM)
        return [
            Choice(name=label, value=value) for label, value in characteristic_choices(sheet, str(current))
        ]

    async def hand_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[int]]:
        """The channel's open hands (GM `/cards peek`), for GMs only: the labels name skill and difficulty,
        which a blind hand's owner must not see (discord.py runs no command check before autocomplete)."""
        if interaction.guild_id is None or interaction.channel_id is None:
            return []
        if not await is_gm(interaction, self.store):
            return []
        hands = await self.store.cards.open_hands(interaction.guild_id, interaction.channel_id)
        out: list[Choice[int]] = []
        for record in hands:
            hand = Hand.from_dict(record.data)
            label = (
                f"#{record.id}: {len(hand.played)} card{'s' if len(hand.played) != 1 else ''}, "
                f"{SKILL_NAMES[hand.skill]} vs {DIFFICULTY_NAMES[hand.difficulty]}"
            )
            if str(current).strip() in label:  # Discord sends partial input; never trust its type
                out.append(Choice(name=label[:100], value=record.id))
        return out[-25:]

    @app_commands.command(name="task", description="Resolve a task with cards from this channel's shoe.")
    @app_commands.describe(
        difficulty="The task's difficulty.",
        level="Your skill level; or pick a skill from your sheet.",
        skill="A skill from your active cards sheet.",
        characteristics=CHARACTERISTICS_HELP,
        mode="Voluntary: you play Hit/Stand/Add skill. Involuntary: the dealer's rule.",
        visibility="Who sees the result (default: the channel's).",
    )
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES, level=SKILL_CHOICES)
    @app_commands.autocomplete(skill=skill_autocomplete, characteristics=characteristics_autocomplete)
    async def task(
        self,
        interaction: discord.Interaction[Any],
        difficulty: int,
        level: int | None = None,
        skill: app_commands.Range[str, 1, 64] | None = None,
        characteristics: app_commands.Range[str, 1, CHARACTERISTICS_MAX] | None = None,
        mode: Literal["voluntary", "involuntary"] = "voluntary",
        visibility: Literal["public", "private", "gm", "blind"] | None = None,
    ) -> None:
        guild_id, channel_id = where(interaction)
        store = self.store
        one_hand = mode == "voluntary"
        if one_hand:  # before any GM is sent a copy; checked again as the hand is dealt (`_deal`)
            await self._one_open_hand(interaction, guild_id, channel_id)
        shown = await choose_visibility(interaction, store, visibility)
        task_inputs, settings = await at_once(
            cards_task(store, interaction, level=level, skill=skill, characteristics=characteristics),
            settings_read(store, interaction, guild_id),
        )
        skill_level, skill_label, named = (
            task_inputs.level,
            task_inputs.skill_label,
            task_inputs.characteristics,
        )
        options = HandOptions(
            adder_scheme=settings.adder_scheme,
            suit_bonus=settings.bj_suit_bonus,
            characteristic_rule=settings.bj_characteristic_bonus,
            fumble_flags=settings.bj_fumble_flags,
        )
        start = start_voluntary if mode == "voluntary" else start_involuntary
        start(skill_level, difficulty, options=options, characteristics=named)  # refuse bad input before GM-3
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, store, shown, "hand")
        # reserved now, taken in the transaction that stores the dealt hand (the hand may end and be logged
        # on a later click); a deal that fails leaves them for the next roll (`report_error` releases them)
        applied = await take_modifiers(interaction, store, SYSTEM)
        task_difficulty = _chosen_difficulty(difficulty, applied)
        hand = start(skill_level, task_difficulty, options=options, characteristics=named)
        meta = {
            "visibility": shown,
            "owner_name": interaction.user.display_name,
            "skill_label": skill_label,
            "asked_difficulty": difficulty,
            "modifiers": [m.model_dump(mode="json") for m in applied],
        }
        record, hand, before, log_id = await self._deal(
            interaction, guild_id, channel_id, hand, meta, settings.decks_per_shoe, one_hand=one_hand
        )
        if log_id is not None:  # over as dealt (involuntary): logged with the deal
            await self._publish_involuntary(interaction, record, hand, shown, before, log_id)
            return
        await self._post_hand(interaction, record, hand, shown)

    async def _one_open_hand(
        self, interaction: discord.Interaction[Any], guild_id: int, channel_id: int
    ) -> None:
        """BJ-4: a player holds one open hand in a channel at a time. One who could deal again would play on
        only the face-down cards they liked, and leave the others open, unlogged. A GM, who may deal for
        several characters, may hold several (asked only when a hand is held: most deals find none)."""
        held = await self.store.cards.open_hand_of(guild_id, channel_id, interaction.user.id)
        if held is not None and not await is_gm(interaction, self.store):
            raise UserError(
                f"You already have hand #{held} open in this channel; finish it first "
                "(/cards resume gives you its buttons again)."
            )

    async def _deal(
        self,
        interaction: discord.Interaction[Any],
        guild_id: int,
        channel_id: int,
        hand: Hand,
        meta: dict[str, Any],
        decks: int,
        *,
        one_hand: bool = False,
    ) -> tuple[HandRecord, Hand, Shoe, int | None]:
        """Deal the new hand's first cards; store it with the shoe, again if another draw came first.
        ``one_hand``: BJ-4 checked again under the channel's deal lock, so two deals sent at once (a retry,
        a second device) cannot both pass the first check and leave a player two hands to choose from.

        Returns the stored hand, the dealt hand, the shoe as it was before dealing (for the odds) and,
        for a hand over as dealt, its log row's id (written in the same transaction).
        """
        rng = self.bot.rng
        for _ in range(SHOE_RETRIES):
            try:
                async with self.store.cards.shoe_lock(channel_id):  # no conflicts between in-process draws
                    if one_hand:
                        await self._one_open_hand(interaction, guild_id, channel_id)
                    known = self.store.cards.known_shoe(channel_id)  # as the draw before this one left it
                    if known is not None:
                        shoe, version = known.shoe, known.version
                    else:
                        shoe, version = await self.store.cards.get_shoe(guild_id, channel_id, decks, rng)
                    dealt, after = play_out(hand, shoe, rng)
                    # over as dealt: the shoe it came from is kept for its odds, shown in Details
                    notes = {**meta, "dealt_from": shoe_note(shoe)} if dealt.is_over else meta
                    record, log_id = await self.store.cards.create_hand_logged(
                        guild_id,
                        channel_id,
                        interaction.user.id,
                        stored(dealt, notes),
                        state=dealt.state.value,
                        cards=dealt.played,
                        shoe=after,
                        shoe_version=version,
                        finished=dealt.is_over,
                        modifiers=self.store.modifiers.ticket(interaction.id),
                        log=functools.partial(record_for_log, hand=dealt) if dealt.is_over else None,
                    )
                return record, dealt, shoe, log_id
            except Conflict:
                continue
        raise UserError(BUSY)

    async def _publish_involuntary(
        self,
        interaction: discord.Interaction[Any],
        record: HandRecord,
        hand: Hand,
        shown: Mode,
        before: Shoe,
        log_id: int,
    ) -> None:
        entry = record_for_log(record, hand)
        gm_embeds: list[discord.Embed] = []
        if shown in ("gm", "blind"):
            # the GMs' copy has the fumble chance and the chance it had, from the shoe this hand was dealt
            # from (tens of ms: off the event loop); the others find the chance in Details
            line, _ = await self.bot.workers.run(
                involuntary_line, before.remaining, hand, resolve(hand).trl, before.discards
            )
            notes = gm_notes_embed(hand, line)
            gm_embeds = [notes] if notes is not None else []
        await publish(
            interaction,
            self.store,
            full_embed(record, hand),
            mode=shown,
            system=SYSTEM,
            command="cards task",
            inputs=entry.inputs,
            dice=entry.dice,
            result=entry.result,
            summary=entry.summary,
            kind=KIND,
            log_id=log_id,
            view=hand_view(record, hand),
            gm_embeds=gm_embeds,
            logged_details=shown in ("gm", "blind"),  # `record_for_log` kept them for the GM copy
        )

    async def _post_hand(
        self, interaction: discord.Interaction[Any], record: HandRecord, hand: Hand, shown: Mode
    ) -> None:
        view = hand_view(record, hand)
        if shown == "public":
            message = await reply(interaction, embed=owner_embed(record, hand), view=view)
        else:
            message = await reply(interaction, embed=owner_embed(record, hand), view=view, ephemeral=True)
            if shown != "blind":
                await reply(interaction, default_notice(interaction, shown, KIND))
        if message is not None:
            await self.store.cards.set_message_id(record.id, message.id)
        if shown in ("gm", "blind"):
            await keep_gm_copies(interaction, f"Hand #{record.id} was dealt; its result comes when it ends.")

    @app_commands.command(name="shoe", description="What is left in this channel's shoe.")
    async def shoe(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = where(interaction)
        settings = await self.store.settings.get(guild_id)
        shoe, _ = await self.store.cards.get_shoe(
            guild_id,
            channel_id,
            settings.decks_per_shoe,
            self.bot.rng,
        )
        hands = await self.store.cards.open_hands(guild_id, channel_id)
        await reply(interaction, embed=shoe_embed(shoe, sum(len(h.cards) for h in hands), len(hands)))

    @app_commands.command(name="shuffle", description="GM: reshuffle every card not in an open hand.")
    @app_commands.describe(decks="Decks in the new shoe (default: the server's setting).")
    @gm_only()
    async def shuffle(
        self, interaction: discord.Interaction[Any], decks: app_commands.Range[int, 1, 8] | None = None
    ) -> None:
        guild_id, channel_id = where(interaction)
        settings = await self.store.settings.get(guild_id)
        count = decks if decks is not None else settings.decks_per_shoe
        shoe, _ = await self.store.cards.reshuffle(
            guild_id,
            channel_id,
            self.bot.rng,
            decks=count,
        )
        in_hands = 52 * shoe.decks - len(shoe.remaining)
        await reply(
            interaction,
            f"🔀 {interaction.user.mention} reshuffled the shoe: {len(shoe.remaining)} cards from "
            f"{shoe.decks} deck{'s' if shoe.decks != 1 else ''}; {in_hands} stay in open hands.",
        )

    async def resume_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[int]]:
        """The open hands here that the user may resume: their own; a GM's, every one. Labels say only the
        number of cards and who holds it (a blind hand's owner must not see its difficulty)."""
        if interaction.guild_id is None or interaction.channel_id is None:
            return []
        hands = await self.store.cards.open_hands(interaction.guild_id, interaction.channel_id)
        if not await is_gm(interaction, self.store):
            hands = [h for h in hands if h.owner_id == interaction.user.id]
        out: list[Choice[int]] = []
        for record in hands:
            count = len(record.cards)
            owner = hand_meta(record.data).get("owner_name") or "a player"
            label = f"#{record.id}: {owner}'s hand, {count} card{'s' if count != 1 else ''}"
            if str(current).strip() in label:  # Discord sends partial input; never trust its type
                out.append(Choice(name=label[:100], value=record.id))
        return out[-25:]

    @app_commands.command(
        name="resume", description="An open hand's buttons again (yours; a GM's: anyone's)."
    )
    @app_commands.describe(
        hand="The hand's number (#12 on its message); default: your latest open hand here."
    )
    @app_commands.autocomplete(hand=resume_autocomplete)
    async def resume(
        self, interaction: discord.Interaction[Any], hand: app_commands.Range[int, 1, 2**53 - 1] | None = None
    ) -> None:
        """A private, gm or blind hand's buttons are on a message only its owner sees, which Discord lets
        them dismiss: this gives them back, to the owner, or to a GM who must end a hand left open (GM-4).
        A public hand's message is in the channel for all: the answer links to it."""
        guild_id, channel_id = where(interaction)
        if hand is None:
            mine = [
                h
                for h in await self.store.cards.open_hands(guild_id, channel_id)
                if h.owner_id == interaction.user.id
            ]
            if not mine:
                raise UserError("You have no open hand in this channel; start one with /cards task.")
            record = mine[-1]
        else:
            record = await self.store.cards.hand_in(hand, guild_id, channel_id)
            if not await owner_or_gm(interaction, self.store, record.owner_id):
                return
            if record.finished:
                raise UserError(OVER.format(id=record.id))
        played = Hand.from_dict(record.data)
        if hand_visibility(record.data) == "public" and record.message_id is not None:
            link = f"https://discord.com/channels/{guild_id}/{channel_id}/{record.message_id}"
            await reply(
                interaction, f"Hand #{record.id} is in play in this channel's message: {link}", ephemeral=True
            )
            return
        await reply(
            interaction, embed=owner_embed(record, played), view=hand_view(record, played), ephemeral=True
        )

    # "peek", not "reveal": only the GM sees it, where a GM copy's Reveal button shows the table a roll
    @app_commands.command(name="peek", description="GM: see a hand with its face-down card (only you).")
    @app_commands.describe(hand="The hand's number (#12 on its message).")
    @app_commands.autocomplete(hand=hand_autocomplete)
    @gm_only()
    async def peek(
        self, interaction: discord.Interaction[Any], hand: app_commands.Range[int, 1, 2**53 - 1]
    ) -> None:
        guild_id, channel_id = where(interaction)
        record = await self.store.cards.hand_in(hand, guild_id, channel_id)
        played = Hand.from_dict(record.data)
        notes = gm_notes_embed(played, None, reveal=True)
        embeds = [full_embed(record, played, reveal=True), *([notes] if notes is not None else [])]
        await reply(interaction, embeds=embeds, ephemeral=True)
