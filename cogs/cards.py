"""`/cards`: blackjack-style task resolution (BJ-1..BJ-11) from each channel's shoe, with hand buttons.

Decisions (where the rules are silent):
- A GM modifier of kind ``difficulty`` (0..7) replaces the task difficulty the player asked for (GM-3); when
  several apply, one for this player wins over one for everyone, then the newest. All of them are consumed
  and shown.
- A voluntary hand is logged once, when it ends (its result is not known before); an involuntary hand is
  logged and delivered at once through `bot.ui.rolls.publish`. Modifiers are consumed when the hand is dealt.
- Visibility of a voluntary hand: public = the hand's message in the channel; private and gm = the hand is
  ephemeral to its owner (edited through each click's interaction) with a public one-line notice; at the end
  a gm hand's result also goes to the GM channel (or the GMs' DMs) with a Reveal button. A blind hand shows
  its owner only the face-up cards to play on; the result goes only to the GMs.
  The blind hand's owner may still Peek (BJ-4: the player sees the face-down card); they never see the
  task's difficulty, modifiers or result.
- A click re-reads the hand and the shoe and writes both with version checks (store.cards.apply). If the
  hand moved on meanwhile (a double click), the click is refused and nothing is drawn; if only the shoe
  moved (another hand in the channel drew), the click is recomputed on the new shoe (up to 5 times).
- A hand's result is shown at once; the chance each move had just before the last one (exact, from the
  worker process, milliseconds) is edited onto the same message when it arrives. If the worker fails or
  the edit is refused, the result stands without that line.
- `/cards shuffle` (GM) reshuffles everything not in an open hand, with ``decks`` decks or, without it,
  the guild's ``decks_per_shoe``; it does not change the guild setting (that is `/gm settings`).
- `/cards reveal hand:` (GM) shows the GM the hand with its face-down card and running total, ephemerally
  (BJ-4 "on request, the GM"); it does not end the hand (only the player's choices do).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.core.blackjack import (
    CHARACTERISTIC_SUITS,
    DIFFICULTY_NAMES,
    SKILL_NAMES,
    Hand,
    HandOptions,
    add_skill,
    deal,
    hit,
    resolve,
    stand,
    start_involuntary,
    start_voluntary,
)
from bot.core.cards import Shoe
from bot.store import AppliedModifier, Conflict, HandRecord, NotFound, RollRecord, ShoeRead, Store
from bot.ui.cards import (
    KIND,
    adder_options,
    blind_hand_embed,
    codes,
    hand_embed,
    hand_meta,
    peek_text,
    send_to_gms,
    shoe_as_seen,
    shoe_embed,
)
from bot.ui.clicks import ACTION_ROW, raw_components
from bot.ui.odds import add_odds, card_codes, hand_decision_text, involuntary_line
from bot.ui.permissions import NOT_GM, gm_only, is_gm, owner_or_gm
from bot.ui.reply import (
    ID_PATTERN,
    ErrorReportingItem,
    UserError,
    defer,
    edit_original,
    refuse,
    release_when_handled,
    reply,
    respond,
    run_reported,
)
from bot.ui.rolls import publish, take_modifiers
from bot.ui.visibility import Mode, default_notice, keep_gm_copies, resolve_mode

log = logging.getLogger(__name__)

SYSTEM = "cards"
SHOE_RETRIES = 5  # another hand in the channel drawing between our read and our write: read again
NOT_HERE = "There is no hand {id} in this channel."
MOVED_ON = (
    "This hand moved on before your click counted (a double click?); nothing was drawn. "
    "Look at the hand again and click if you still want to."
)
UPDATE = discord.InteractionResponseType.message_update
BUSY = "The shoe is busy with other hands right now; click again."

SKILL_CHOICES = [Choice(name=f"{i} {name}", value=i) for i, name in enumerate(SKILL_NAMES)]
DIFFICULTY_CHOICES = [Choice(name=f"{i} {name}", value=i) for i, name in enumerate(DIFFICULTY_NAMES)]
CHARACTERISTIC_CHOICES = [
    Choice(name=f"{name} ({suit.symbol})", value=name) for name, suit in CHARACTERISTIC_SUITS.items()
]

Move = Callable[[Hand, Shoe, Any], tuple[Hand, Shoe]]
ADDER_VALUE = re.compile(r"-?[0-9]{1,3}")


def _store(interaction: discord.Interaction[Any]) -> Store:
    store: Store = interaction.client.store
    return store


def _where(interaction: discord.Interaction[Any]) -> tuple[int, int]:
    if interaction.guild_id is None or interaction.channel_id is None:
        raise app_commands.NoPrivateMessage()
    return interaction.guild_id, interaction.channel_id


def _play_out(hand: Hand, shoe: Shoe, rng: Any) -> tuple[Hand, Shoe]:
    """Deal what the hand asks for (face-down card, dealer draws, bonus cards); an ended hand is discarded."""
    while hand.needs_card:
        card, shoe = shoe.draw(rng)
        hand = deal(hand, card)
    if hand.is_over:
        shoe = shoe.discard(hand.played)
    return hand, shoe


def _chosen_difficulty(asked: int, applied: Sequence[AppliedModifier]) -> int:
    """GM-3: a ``difficulty`` modifier replaces the task difficulty (a player's own beats everyone's)."""
    mods = [m for m in applied if m.kind == "difficulty" and isinstance(m.value, int)]
    if not mods:
        return asked
    best = max(mods, key=lambda m: (not m.for_everyone, m.modifier_id))
    assert isinstance(best.value, int)
    return best.value


def _stored(hand: Hand, meta: dict[str, Any]) -> dict[str, Any]:
    return {**hand.to_dict(), "table": meta}


def _modifiers(meta: dict[str, Any]) -> list[AppliedModifier]:
    return [AppliedModifier.model_validate(m) for m in meta.get("modifiers", [])]


def _mode(meta: dict[str, Any]) -> Mode:
    value = meta.get("visibility")
    return value if value in ("public", "private", "gm", "blind") else "public"


def _embed(record: HandRecord, hand: Hand, *, reveal: bool = False) -> discord.Embed:
    meta = hand_meta(record.data)
    return hand_embed(
        hand,
        owner_id=record.owner_id,
        hand_id=record.id,
        skill_label=meta.get("skill_label"),
        asked_difficulty=meta.get("asked_difficulty"),
        modifiers=_modifiers(meta),
        reveal=reveal,
    )


def _owner_embed(record: HandRecord, hand: Hand) -> discord.Embed:
    """What the hand's own message shows (a blind hand's owner sees neither the task nor the result)."""
    if _mode(hand_meta(record.data)) == "blind":
        return blind_hand_embed(hand, hand_id=record.id)
    return _embed(record, hand)


def hand_view(hand_id: int, hand: Hand, *, odds: bool = True) -> discord.ui.View | None:
    """Hit, Stand, Peek, Odds (not on a blind hand) and (when the skill allows one) Add skill.

    None once the hand has ended.
    """
    if hand.is_over:
        return None
    return _build_view(hand_id, odds, _adders(hand))


def _adders(hand: Hand) -> tuple[int, ...] | None:
    """The Add skill select's values, or None when the hand shows no select."""
    return hand.allowed_adders if hand.can_add_skill else None


def _build_view(hand_id: int, odds: bool, adders: tuple[int, ...] | None) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(HitButton(hand_id))
    view.add_item(StandButton(hand_id))
    view.add_item(PeekButton(hand_id))
    if odds:
        view.add_item(OddsButton(hand_id))
    if adders is not None:
        view.add_item(AddSkillSelect(hand_id, adder_options(adders)))
    return view


def _view(record: HandRecord, hand: Hand) -> discord.ui.View | None:
    # a blind hand's odds would tell its owner the task's difficulty: no Odds button on it
    return hand_view(record.id, hand, odds=_shows_odds(record))


def _shows_odds(record: HandRecord) -> bool:
    return _mode(hand_meta(record.data)) != "blind"


_Look = tuple[Any, ...]


def _looks(rows: Any, hand_id: int) -> tuple[_Look, ...]:
    """What a player sees of each button and select in a message's rows (components as Discord sends
    them: dicts; one not in a row stands for itself), custom_ids without the hand id."""
    prefix = f"bj:{hand_id}:"
    cut = len(prefix)
    looks = []
    for row in rows:
        for component in row.get("components", ()) if row.get("type") == ACTION_ROW else (row,):
            get = component.get
            custom_id = get("custom_id") or ""  # none on a link button or a text block
            emoji, options = get("emoji"), get("options")
            looks.append(
                (
                    get("type"),
                    custom_id[cut:] if custom_id.startswith(prefix) else None,
                    get("label"),
                    get("style"),
                    _emoji(emoji) if emoji else None,
                    get("placeholder"),
                    bool(get("disabled", False)),
                    tuple(
                        (
                            option["label"],
                            option["value"],
                            option.get("description"),
                            _emoji(option.get("emoji")),
                        )
                        for option in options
                    )
                    if options
                    else (),
                )
            )
    return tuple(looks)


def _emoji(emoji: Any) -> tuple[Any, str | None] | None:
    """An emoji as (name, id): Discord sends ``"id": null`` back for one sent without an id."""
    if not emoji:
        return None
    return emoji.get("name"), str(emoji["id"]) if emoji.get("id") else None


@functools.lru_cache(maxsize=64)
def _layout(odds: bool, adders: tuple[int, ...] | None) -> tuple[_Look, ...]:
    """How `_build_view` looks for every hand (the id aside), read off what its view sends."""
    return _looks(_build_view(1, odds, adders).to_components(), 1)


def _shows_view(interaction: discord.Interaction[Any], record: HandRecord, hand: Hand) -> bool:
    """True when the clicked message already shows exactly the buttons ``hand`` needs.

    Then a move's edit leaves the components out (Discord keeps them): building a hand's view (five
    dynamic items) and sending it was a tenth of a Hit click's CPU, and most moves leave the buttons as
    they were. Compared with the message itself, not with what the hand showed before, so a message
    whose buttons differ (laid out by an older version of the bot) gets the current ones. Read from the
    components as Discord sent them, so the message is never parsed (`bot.ui.clicks`); components of a
    shape we do not know count as different.
    """
    rows = raw_components(interaction)
    if rows is None:
        return False
    try:
        shown = _looks(rows, record.id)
    except (AttributeError, KeyError, TypeError):
        return False
    return shown == _layout(_shows_odds(record), _adders(hand))


def _record_for_log(record: HandRecord, hand: Hand, command: str) -> RollRecord:
    meta = hand_meta(record.data)
    result = resolve(hand)
    return RollRecord(
        guild_id=record.guild_id,
        channel_id=record.channel_id,
        user_id=record.owner_id,
        system=SYSTEM,
        command=command,
        visibility=_mode(meta),
        inputs={
            "hand_id": record.id,
            "mode": hand.mode.value,
            "skill": hand.skill,
            "difficulty": hand.difficulty,
            "asked_difficulty": meta.get("asked_difficulty", hand.difficulty),
            "characteristic": hand.characteristic,
            "characteristic_bonus": hand.characteristic_bonus,
            "adder": hand.adder,
            "options": hand.options.to_dict(),
            "modifiers": meta.get("modifiers", []),
        },
        dice=codes(hand.played),
        result=f"{result.name} (TRL {result.trl}, total {result.total})",
        summary=f"cards task: {result.name} (TRL {result.trl})",
    )


# --------------------------------------------------------------------------------------------------------
# Buttons: ids only in the custom_id; every click reloads the hand and the shoe from the store.


async def _load(
    interaction: discord.Interaction[Any], hand_id: int, *, with_shoe: bool = False
) -> tuple[HandRecord, ShoeRead | None] | None:
    """The hand, if it is in this guild and channel and the clicker is its owner or a GM (GM-4); and
    ``with_shoe``, the channel's shoe read in the same statement (`hand_with_shoe`), else None."""
    guild_id, channel_id = _where(interaction)
    store = _store(interaction)
    try:
        if with_shoe:
            record, shoe = await store.cards.hand_with_shoe(hand_id, guild_id, channel_id)
        else:
            record, shoe = await store.cards.hand_in(hand_id, guild_id, channel_id), None
    except NotFound:  # no such hand, or one dealt elsewhere: the same sentence, so ids cannot be probed
        await refuse(interaction, NOT_HERE.format(id=hand_id))
        return None
    if not await owner_or_gm(interaction, store, record.owner_id):
        return None
    return record, shoe


async def _open_hand(
    interaction: discord.Interaction[Any], hand_id: int, *, with_shoe: bool = False
) -> tuple[HandRecord, ShoeRead | None] | None:
    """`_load`, and a hand that has ended is refused too: what every hand button needs first."""
    loaded = await _load(interaction, hand_id, with_shoe=with_shoe)
    if loaded is not None and loaded[0].finished:
        await refuse(interaction, f"Hand #{loaded[0].id} is over; start a new one with /cards task.")
        return None
    return loaded


async def _play(interaction: discord.Interaction[Any], hand_id: int, move: Move) -> None:
    """Apply one player move to the stored hand, drawing what it needs, written atomically with the shoe."""
    store = _store(interaction)
    # the shoe is read with the hand unless another move in the channel is under way (it will change it)
    busy = store.cards.shoe_busy(_where(interaction)[1])
    opened = await _open_hand(interaction, hand_id, with_shoe=not busy)
    if opened is None:
        return
    record, read = opened
    rng = interaction.client.rng
    seen_version = record.version
    settings = await store.settings.get(record.guild_id or 0)
    for _ in range(SHOE_RETRIES):
        hand = Hand.from_dict(record.data)
        try:
            async with store.cards.shoe_lock(record.channel_id):  # bug 5: no in-process shoe conflicts
                if read is not None and store.cards.shoe_read_current(read):
                    shoe, shoe_version = read.shoe, read.version  # read with the hand, still the shoe
                else:
                    shoe, shoe_version = await store.cards.get_shoe(
                        record.guild_id, record.channel_id, settings.decks_per_shoe, rng
                    )
                read = None  # a retry reads the shoe again
                moved, moved_shoe = move(hand, shoe, rng)
                moved, moved_shoe = _play_out(moved, moved_shoe, rng)
                # a move that draws or discards makes a new Shoe; comparing 50 cards was 1 µs a click
                shoe_changed = moved_shoe is not shoe
                updated, log_id = await store.cards.apply_logged(
                    record.id,
                    seen_version,
                    _stored(moved, hand_meta(record.data)),
                    state=moved.state.value,
                    cards=moved.played,
                    shoe=moved_shoe if shoe_changed else None,
                    shoe_version=shoe_version if shoe_changed else None,
                    finished=moved.is_over,
                    # the hand's roll is logged with the move that ends it
                    log=functools.partial(_record_for_log, hand=moved, command="cards task")
                    if moved.is_over
                    else None,
                    base=record,
                )
            break
        except Conflict:
            record = await store.cards.hand_in(hand_id, record.guild_id, record.channel_id)
            if record.version != seen_version:
                # the hand itself moved: this click was computed from a state that is gone
                await refuse(interaction, MOVED_ON)
                return
    else:
        await refuse(interaction, BUSY)
        return
    decision: asyncio.Future[str] | None = None
    if moved.is_over:
        # the chance each move had just before the last one (the player knew the face-down card): worked
        # out in the worker while the result goes out, so the result never waits for it
        decision = asyncio.ensure_future(
            interaction.client.workers.run(
                hand_decision_text, hand, card_codes(shoe.remaining), card_codes(shoe.discards)
            )
        )
    try:
        await _show(interaction, updated, moved, decision, log_id)
    finally:
        if decision is not None and not decision.done():
            decision.cancel()  # the result could not be shown: nobody will read the odds
        elif decision is not None and not decision.cancelled():
            decision.exception()  # read, so a failure nobody awaited is not reported again at exit


async def _show(
    interaction: discord.Interaction[Any],
    record: HandRecord,
    hand: Hand,
    decision: Awaitable[str] | None = None,
    log_id: int | None = None,
) -> None:
    """Edit the hand's message to the new state; at the end (logged as ``log_id`` with the move), tell the
    GMs when asked to.

    At the end, ``decision`` (the chance of each move before the last one, a line on its way from the
    worker) becomes an Odds line: edited onto the owner's message once the result is there, unless the
    hand is blind, and on the GMs' copy.
    """
    if not hand.is_over:
        embed = _owner_embed(record, hand)
        if _shows_view(interaction, record, hand):
            await respond(interaction, UPDATE, embed=embed)
            return
        view = _view(record, hand)
        if view is not None:
            release_when_handled(interaction, view)
        await respond(interaction, UPDATE, embed=embed, view=view)
        return
    store = _store(interaction)
    mode = _mode(hand_meta(record.data))
    owner = _owner_embed(record, hand)
    await respond(interaction, UPDATE, embed=owner, view=None)
    odds_line = await _last_move_line(decision)
    if odds_line is not None and mode != "blind":
        try:
            await edit_original(interaction, embed=add_odds(owner, odds_line))
        except discord.HTTPException as error:  # the result stands; only its odds line is missing
            log.warning("Could not add the odds line to hand #%s: %s", record.id, error)
    if mode in ("gm", "blind") and record.guild_id is not None:
        problems = await send_to_gms(
            interaction.client,
            store,
            guild_id=record.guild_id,
            channel_id=record.channel_id,
            owner_id=record.owner_id,
            mode=mode,
            embed=add_odds(_embed(record, hand), odds_line),
            log_id=log_id,
        )
        if problems:
            await reply(interaction, " ".join(problems), ephemeral=True)


async def _last_move_line(decision: Awaitable[str] | None) -> str | None:
    """ "Before the last move: Hit 62% ..." once the worker has it; None without one (or if it failed)."""
    if decision is None:
        return None
    try:
        return f"Before the last move: {await decision}"
    except Exception:  # the result is already shown; a missing odds line must not turn it into an error
        log.exception("Working out the odds of a hand's last move failed")
        return None


def _hit(hand: Hand, shoe: Shoe, rng: Any) -> tuple[Hand, Shoe]:
    card, shoe = shoe.draw(rng)
    return hit(hand, card), shoe


def _stand(hand: Hand, shoe: Shoe, rng: Any) -> tuple[Hand, Shoe]:
    return stand(hand), shoe


class _HandItem(ErrorReportingItem):
    """A hand's button or select (put first in the bases): the hand id is all its custom_id carries."""

    hand_id: int

    def __init__(self, hand_id: int, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)  # type: ignore[call-arg]  # DynamicItem's, next in the bases
        self.hand_id = hand_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any] | None, match: Any, /
    ) -> _HandItem:
        return cls(int(match["hand_id"]))  # type: ignore[call-arg]  # each subclass takes the id alone

    @classmethod
    async def run_click(cls, interaction: discord.Interaction[Any], match: Any, /) -> None:
        """A click without the item built (`bot.ui.clicks`): ``act`` needs only the hand id."""
        hand_id = int(match["hand_id"])
        await run_reported(interaction, lambda clicked: cls.act(clicked, hand_id))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await self.act(interaction, self.hand_id)

    @classmethod
    async def act(cls, interaction: discord.Interaction[Any], hand_id: int) -> None:
        """What a click on this item does to hand ``hand_id``."""
        raise NotImplementedError


def _button(
    hand_id: int, action: str, label: str, style: discord.ButtonStyle, emoji: str | None = None
) -> discord.ui.Button[Any]:
    return discord.ui.Button(label=label, style=style, custom_id=f"bj:{hand_id}:{action}", emoji=emoji)


class HitButton(
    _HandItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"bj:(?P<hand_id>{ID_PATTERN}):hit",
):
    """Draw one card (BJ-4), and any bonus cards a 21 earns (BJ-6)."""

    def __init__(self, hand_id: int) -> None:
        super().__init__(hand_id, _button(hand_id, "hit", "Hit", discord.ButtonStyle.primary))

    @classmethod
    async def act(cls, interaction: discord.Interaction[Any], hand_id: int) -> None:
        await _play(interaction, hand_id, _hit)


class StandButton(
    _HandItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"bj:(?P<hand_id>{ID_PATTERN}):stand",
):
    """Keep the total and end the hand (BJ-4)."""

    def __init__(self, hand_id: int) -> None:
        super().__init__(hand_id, _button(hand_id, "stand", "Stand", discord.ButtonStyle.secondary))

    @classmethod
    async def act(cls, interaction: discord.Interaction[Any], hand_id: int) -> None:
        await _play(interaction, hand_id, _stand)


class AddSkillSelect(
    _HandItem,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"bj:(?P<hand_id>{ID_PATTERN}):add",
):
    """Add one value of the skill's adder set; the hand ends (BJ-7)."""

    def __init__(self, hand_id: int, options: list[discord.SelectOption] | None = None) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"bj:{hand_id}:add",
            placeholder="Add skill…",
            # Discord needs at least one option; a rebuilt select only reads the clicked values
            options=options or [discord.SelectOption(label="+1", value="1")],
            min_values=1,
            max_values=1,
        )
        super().__init__(hand_id, select)

    @classmethod
    async def act(cls, interaction: discord.Interaction[Any], hand_id: int) -> None:
        data: dict[str, Any] = dict(interaction.data or {})
        values = list(data.get("values") or [])
        # the option values the select offers are ASCII numbers; str.isdigit would also pass "٣" (read as
        # 3) and "³" (which int() refuses)
        if len(values) != 1 or not isinstance(values[0], str) or ADDER_VALUE.fullmatch(values[0]) is None:
            raise UserError("Choose one of the skill adder values in the list.")
        value = int(values[0])

        def move(hand: Hand, shoe: Shoe, rng: Any) -> tuple[Hand, Shoe]:
            return add_skill(hand, value), shoe

        await _play(interaction, hand_id, move)


class PeekButton(
    _HandItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"bj:(?P<hand_id>{ID_PATTERN}):peek",
):
    """Show the face-down card and the running total, ephemerally, to the owner or a GM (BJ-4)."""

    def __init__(self, hand_id: int) -> None:
        super().__init__(hand_id, _button(hand_id, "peek", "Peek", discord.ButtonStyle.secondary, "👁"))

    @classmethod
    async def act(cls, interaction: discord.Interaction[Any], hand_id: int) -> None:
        opened = await _open_hand(interaction, hand_id)
        if opened is None:
            return
        record = opened[0]
        hand = Hand.from_dict(record.data)
        text = peek_text(hand)
        if _mode(hand_meta(record.data)) != "blind" or await is_gm(interaction, _store(interaction)):
            text += f"\nOdds: {await _decision_line(interaction, record, hand)}"
        await refuse(interaction, text)


async def _decision_line(interaction: discord.Interaction[Any], record: HandRecord, hand: Hand) -> str:
    """Stand, each adder and Hit from the hand as it stands and the channel's shoe as it is now."""
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


class OddsButton(
    _HandItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"bj:(?P<hand_id>{ID_PATTERN}):odds",
):
    """The chance of Stand, each adder and Hit (with the best move), ephemerally, for the owner or a GM.

    It depends on the face-down card, so it is never shown publicly; a blind hand's owner is refused (the
    odds would tell them the task's difficulty).
    """

    def __init__(self, hand_id: int) -> None:
        super().__init__(hand_id, _button(hand_id, "odds", "Odds", discord.ButtonStyle.secondary, "🎯"))

    @classmethod
    async def act(cls, interaction: discord.Interaction[Any], hand_id: int) -> None:
        opened = await _open_hand(interaction, hand_id)
        if opened is None:
            return
        record = opened[0]
        store = _store(interaction)
        if _mode(hand_meta(record.data)) == "blind" and not await is_gm(interaction, store):
            await refuse(interaction, f"A blind hand's odds are for the GM only. {NOT_GM}")
            return
        await defer(interaction, ephemeral=True)
        hand = Hand.from_dict(record.data)
        line = await _decision_line(interaction, record, hand)
        await reply(
            interaction, f"Odds for hand #{record.id} (total {hand.running_total}): {line}", ephemeral=True
        )


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    HitButton,
    StandButton,
    AddSkillSelect,
    PeekButton,
    OddsButton,
)


# --------------------------------------------------------------------------------------------------------
# Commands


@app_commands.guild_only()
class Cards(commands.GroupCog, group_name="cards", group_description="Blackjack-style task resolution."):
    """`/cards task | shoe` and GM `/cards shuffle | reveal`."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot  # the TabletopBot: .store and .rng

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

    async def hand_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[int]]:
        """The channel's open hands (GM `/cards reveal`), for GMs only: the labels name skill and difficulty,
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
        difficulty="The task's difficulty (BJ-8).",
        level="Your skill level (BJ-8); or pick a skill from your sheet.",
        skill="A skill from your active cards sheet.",
        characteristic="The task's characteristic (BJ-9): its bonus counts with a card of its suit.",
        bonus="The characteristic bonus (default: your sheet's bonus for it).",
        mode="Voluntary: you play Hit/Stand/Add skill (BJ-4). Involuntary: the dealer's rule (BJ-3).",
        visibility="Who sees the result (default: the channel's).",
    )
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES, level=SKILL_CHOICES)
    @app_commands.choices(characteristic=CHARACTERISTIC_CHOICES)
    @app_commands.autocomplete(skill=skill_autocomplete)
    async def task(
        self,
        interaction: discord.Interaction[Any],
        difficulty: int,
        level: int | None = None,
        skill: app_commands.Range[str, 1, 64] | None = None,
        characteristic: str | None = None,
        bonus: app_commands.Range[int, -10, 10] | None = None,
        mode: Literal["voluntary", "involuntary"] = "voluntary",
        visibility: Literal["public", "private", "gm", "blind"] | None = None,
    ) -> None:
        guild_id, channel_id = _where(interaction)
        store = self.store
        shown = await resolve_mode(interaction, store, visibility)
        skill_level, skill_label = await self._skill(interaction, level, skill)
        char_bonus = await self._bonus(interaction, characteristic, bonus)
        settings = await store.settings.get(guild_id)
        options = HandOptions(
            adder_scheme=settings.adder_scheme,
            suit_bonus=settings.bj_suit_bonus,
            characteristic_rule=settings.bj_characteristic_bonus,
            fumble_flags=settings.bj_fumble_flags,
        )
        start = start_voluntary if mode == "voluntary" else start_involuntary
        start(skill_level, difficulty, characteristic, char_bonus, options)  # refuse bad input before GM-3
        # reserved now, taken in the transaction that stores the dealt hand (the hand may end and be logged
        # on a later click); a deal that fails leaves them for the next roll (`report_error` releases them)
        applied = await take_modifiers(interaction, store, SYSTEM)
        task_difficulty = _chosen_difficulty(difficulty, applied)
        hand = start(skill_level, task_difficulty, characteristic, char_bonus, options)
        meta = {
            "visibility": shown,
            "skill_label": skill_label,
            "asked_difficulty": difficulty,
            "modifiers": [m.model_dump(mode="json") for m in applied],
        }
        record, hand, before, log_id = await self._deal(
            interaction, guild_id, channel_id, hand, meta, settings.decks_per_shoe
        )
        if log_id is not None:  # over as dealt (involuntary): logged with the deal
            await self._publish_involuntary(interaction, record, hand, shown, before, log_id)
            return
        await self._post_hand(interaction, record, hand, shown)

    async def _skill(
        self, interaction: discord.Interaction[Any], level: int | None, skill: str | None
    ) -> tuple[int, str | None]:
        if level is not None and skill is not None:
            raise UserError("Give either a skill level or a skill from your sheet, not both.")
        if level is not None:
            return level, None
        if skill is None:
            raise UserError("Give a skill level, or a skill from your active cards sheet.")
        assert interaction.guild_id is not None
        sheet = await self.store.sheets.active(interaction.guild_id, interaction.user.id, SYSTEM)
        if sheet is None:
            raise UserError("You have no active cards sheet; give a skill level instead (or /sheet use).")
        found = sheet.skill(skill)
        if found is None:
            raise UserError(f"Your sheet {sheet.name!r} has no skill {skill.strip()!r}.")
        name, entry = found
        return entry.rating, name

    async def _bonus(
        self, interaction: discord.Interaction[Any], characteristic: str | None, bonus: int | None
    ) -> int:
        if characteristic is None:
            if bonus is not None:
                raise UserError("A characteristic bonus needs the characteristic it belongs to.")
            return 0
        if bonus is not None:
            return bonus
        assert interaction.guild_id is not None
        sheet = await self.store.sheets.active(interaction.guild_id, interaction.user.id, SYSTEM)
        return sheet.bonus(characteristic) if sheet is not None else 0

    async def _deal(
        self,
        interaction: discord.Interaction[Any],
        guild_id: int,
        channel_id: int,
        hand: Hand,
        meta: dict[str, Any],
        decks: int,
    ) -> tuple[HandRecord, Hand, Shoe, int | None]:
        """Deal the new hand's first cards; store it with the shoe, again if another draw came first.

        Returns the stored hand, the dealt hand, the shoe as it was before dealing (for the odds) and,
        for a hand over as dealt, its log row's id (written in the same transaction).
        """
        rng = self.bot.rng
        for _ in range(SHOE_RETRIES):
            try:
                async with self.store.cards.shoe_lock(channel_id):  # bug 5: no in-process shoe conflicts
                    shoe, version = await self.store.cards.get_shoe(guild_id, channel_id, decks, rng)
                    dealt, after = _play_out(hand, shoe, rng)
                    record, log_id = await self.store.cards.create_hand_logged(
                        guild_id,
                        channel_id,
                        interaction.user.id,
                        _stored(dealt, meta),
                        state=dealt.state.value,
                        cards=dealt.played,
                        shoe=after,
                        shoe_version=version,
                        finished=dealt.is_over,
                        modifiers=self.store.modifiers.ticket(interaction.id),
                        log=functools.partial(_record_for_log, hand=dealt, command="cards task")
                        if dealt.is_over
                        else None,
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
        entry = _record_for_log(record, hand, "cards task")
        # BJ-3 from the shoe this hand was dealt from (tens of ms: off the event loop)
        line, _ = await self.bot.workers.run(
            involuntary_line, before.remaining, hand, resolve(hand).trl, before.discards
        )
        await publish(
            interaction,
            self.store,
            add_odds(_embed(record, hand), line),
            mode=shown,
            system=SYSTEM,
            command="cards task",
            inputs=entry.inputs,
            dice=entry.dice,
            result=entry.result,
            summary=entry.summary,
            kind=KIND,
            log_id=log_id,
        )

    async def _post_hand(
        self, interaction: discord.Interaction[Any], record: HandRecord, hand: Hand, shown: Mode
    ) -> None:
        view = _view(record, hand)
        if view is not None:
            release_when_handled(interaction, view)
        if shown == "public":
            message = await reply(interaction, embed=_owner_embed(record, hand), view=view, want_message=True)
        else:
            message = await reply(
                interaction, embed=_owner_embed(record, hand), view=view, ephemeral=True, want_message=True
            )
            if shown != "blind":
                await reply(interaction, default_notice(interaction, shown, KIND))
        if message is not None:
            await self.store.cards.set_message_id(record.id, message.id)
        if shown in ("gm", "blind"):
            await keep_gm_copies(interaction, f"Hand #{record.id} was dealt; its result comes when it ends.")

    @app_commands.command(name="shoe", description="What is left in this channel's shoe.")
    async def shoe(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = _where(interaction)
        settings = await self.store.settings.get(guild_id)
        shoe, _ = await self.store.cards.get_shoe(
            guild_id,
            channel_id,
            settings.decks_per_shoe,
            self.bot.rng,
        )
        hands = await self.store.cards.open_hands(guild_id, channel_id)
        await reply(interaction, embed=shoe_embed(shoe, sum(len(h.cards) for h in hands), len(hands)))

    @app_commands.command(name="shuffle", description="GM: reshuffle every card not in an open hand (BJ-1).")
    @app_commands.describe(decks="Decks in the new shoe (default: the server's setting).")
    @gm_only()
    async def shuffle(
        self, interaction: discord.Interaction[Any], decks: app_commands.Range[int, 1, 8] | None = None
    ) -> None:
        guild_id, channel_id = _where(interaction)
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

    @app_commands.command(name="reveal", description="GM: see a hand with its face-down card (only you).")
    @app_commands.describe(hand="The hand's number (#12 on its message).")
    @app_commands.autocomplete(hand=hand_autocomplete)
    @gm_only()
    async def reveal(
        self, interaction: discord.Interaction[Any], hand: app_commands.Range[int, 1, 2**53 - 1]
    ) -> None:
        guild_id, channel_id = _where(interaction)
        record = await self.store.cards.hand_in(hand, guild_id, channel_id)
        played = Hand.from_dict(record.data)
        embed = _embed(record, played, reveal=True)
        await reply(interaction, embed=embed, ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Cards(bot))
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
