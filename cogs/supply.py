"""`/supply roll | show` and GM `/supply set`: supply dice per character and item (RULES.md DD-7).

A supply belongs to a member's character: their active decision-dice sheet's, or the member's own when
they have none (so a table without sheets still works). An own supply is kept by the member's id and shown
under their name of the moment, so a new nickname keeps it; one set before the member's first sheet stays
theirs to roll until the sheet's character has one of the item. Only a GM
creates, sets or restores a supply (`/supply set`, any size, including empty); a player's roll of an item
they have no supply of says so and asks the GM to set it. A roll rolls the stored die and steps it down on
3 or lower through the store's atomic ``apply_roll_logged`` with the die it rolled (the step and the roll's
log row are one transaction); when someone else's roll changed the die first (Conflict) the bot re-reads
it and rolls the current die once more, else asks the player to roll again.
Supply rolls take no GM modifiers (GM-3 lists none for them). The commands are guild-only: supplies are
set by a guild's GMs. A supply roll is never blind: the die's new size is visible to its owner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core import decision
from bot.core.dice import Dice
from bot.store import Conflict, Holder, NotFound, Store
from bot.store.models import name_key
from bot.ui.decision import (
    supply_compact,
    supply_list_embeds,
    supply_roll_details,
    supply_set_embed,
)
from bot.ui.embeds import shown_name
from bot.ui.odds import add_odds, supply_line
from bot.ui.permissions import is_server_gm, server_gm_only
from bot.ui.reply import UserError, reply, reply_in_parts
from bot.ui.roll_inputs import (
    rollable_supply,
    shown_supplies,
    supply_character,
    supply_dice_of,
    supply_holder,
)
from bot.ui.rolls import publish, roll_record
from bot.ui.visibility import choose_visibility, reach_gms

if TYPE_CHECKING:
    from bot.client import TabletopBot

SYSTEM = "decision"
# A blind roll's result must not be inferable by the roller, but a supply die's size is what
# /supply show, the item autocomplete and the next roll all show; so supply rolls are never blind, and
# the option does not offer it. A channel whose rolls are blind by default gets this sentence.
Visibility = Literal["public", "private", "gm"]
BLIND_SUPPLY = (
    "This channel's rolls are blind, but a supply roll cannot be: your die's size shows in /supply show "
    "and on your next roll; roll with visibility gm (you and the GMs) or private instead."
)
OTHERS_SUPPLIES = (
    "Only a GM of the server can see another player's supply dice (their size would tell how a hidden roll "
    "went); /supply show without a member shows yours."
)
DIE_CHOICES = [
    app_commands.Choice(name=die.label, value=die.sides) for die in decision.SupplyDie
]  # d12, d10, d8, d6, d4, empty (0)


@app_commands.guild_only()
class Supply(commands.GroupCog, group_name="supply", group_description="Supply dice: d12 down to empty."):
    """Supply dice: roll one, show them, and (GM) set or restore them."""

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot

    @property
    def store(self) -> Store:
        store: Store = self.bot.store
        return store

    # ------------------------------------------------------------------------------------------------
    @app_commands.command(name="roll", description="Roll an item's supply die; 3 or lower steps it down.")
    @app_commands.describe(
        item="One of your character's supplies",
        visibility="Who sees the result (default: the channel's default)",
    )
    async def roll(
        self,
        interaction: discord.Interaction[Any],
        item: app_commands.Range[str, 1, 64],
        visibility: Visibility | None = None,
    ) -> None:
        assert interaction.guild is not None
        guild_id, owner_id = interaction.guild.id, interaction.user.id
        mode = await choose_visibility(interaction, self.store, visibility, blind_refusal=BLIND_SUPPLY)
        # no such item or an empty one is refused before the GMs' copies are opened (they would be notified)
        character = await supply_holder(self.store, guild_id, interaction.user, item)
        supply = await rollable_supply(self.store, guild_id, owner_id, character, item)
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, self.store, mode)
        dice = Dice(self.bot.rng)  # read bot.rng per roll: tests and demos may swap the dice source
        for attempt in range(2):
            if attempt:  # someone else's roll changed the die between our read and our write: roll once more
                supply = await rollable_supply(self.store, guild_id, owner_id, character, item)
            result = decision.supply_roll(decision.SupplyDie(supply.die), dice.roll(supply.die))
            details = add_odds(
                supply_roll_details(result, character=supply.character, item=supply.item),
                supply_line(result.die, result.new_die),
            )
            # the step and its log row are one transaction (DD-7): a crash cannot keep one without the other
            record = roll_record(
                interaction,
                mode=mode,
                system=SYSTEM,
                command="supply roll",
                inputs={"character": supply.character, "item": supply.item, "die": result.die.sides},
                dice=[result.value],
                result=result.name,
                summary=f"{supply.character}'s {supply.item}: {result.name} (rolled {result.value})",
                details=details,
            )
            try:
                after, log_id = await self.store.supply.apply_roll_logged(
                    guild_id, owner_id, character, item, supply.die, result.value, record
                )
                break
            except Conflict:
                if attempt:
                    raise UserError(
                        f"{supply.item} changed while you rolled (another roll came first); roll again."
                    ) from None
        assert after.die == result.new_die.sides
        await publish(
            interaction,
            self.store,
            supply_compact(result, character=after.character, item=after.item),
            details=details,
            mode=mode,
            system=SYSTEM,
            command="supply roll",
            inputs=record.inputs,
            dice=record.dice,
            result=record.result,
            summary=record.summary,
            kind="supply roll",
            log_id=log_id,
        )

    @roll.autocomplete("item")
    async def roll_item_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild is None:
            return []
        supplies = await supply_dice_of(self.store, interaction.guild.id, interaction.user)
        key = name_key(current)
        found = [s for s in supplies if key in name_key(s.item)]
        found.sort(key=lambda s: (not name_key(s.item).startswith(key), name_key(s.item)))
        return [app_commands.Choice(name=f"{s.item} ({s.label})"[:100], value=s.item) for s in found[:25]]

    # ------------------------------------------------------------------------------------------------
    @app_commands.command(name="show", description="List a member's supply dice (default: yours).")
    @app_commands.describe(member="Whose supplies to show (default: you; another's: GMs only)")
    async def show(self, interaction: discord.Interaction[Any], member: discord.Member | None = None) -> None:
        assert interaction.guild is not None
        who = member or interaction.user
        # a die's size tells how a private or gm supply roll went: another's are for the GMs to see, of
        # the whole server (supply dice are the server's; a GM of one channel is a player elsewhere)
        if who.id != interaction.user.id and not await is_server_gm(interaction, self.store):
            raise UserError(OTHERS_SUPPLIES)
        supplies = shown_supplies(await self.store.supply.list(interaction.guild.id, who.id), who)
        parts = supply_list_embeds(shown_name(who.display_name), supplies)
        await reply_in_parts(interaction, None, parts, ephemeral=True)

    # ------------------------------------------------------------------------------------------------
    @app_commands.command(name="set", description="GM: set or restore a character's supply die.")
    @app_commands.describe(
        member="Whose supply (their active decision sheet's character, else their own)",
        item="The item, e.g. rations or torches",
        die="The new size: d12 .. d4, or empty",
    )
    @app_commands.choices(die=DIE_CHOICES)
    @server_gm_only()  # supply dice are the server's: a GM of one channel could restore their own
    async def set(
        self,
        interaction: discord.Interaction[Any],
        member: discord.Member,
        item: app_commands.Range[str, 1, 64],
        die: int,
    ) -> None:
        assert interaction.guild is not None
        guild_id = interaction.guild.id
        character = await supply_character(self.store, guild_id, member)
        rolled = await supply_holder(self.store, guild_id, member, item)  # the die the player rolls now
        try:
            previous: str | None = (await self.store.supply.get(guild_id, member.id, rolled, item)).label
        except NotFound:
            previous = None
        # the sheet's character's die replaces the member's own of the item: the GM's size is the one left
        # to roll, whichever sheet they play next (else an emptied item came back with another sheet)
        own = None if character.own else Holder(member.display_name, own=True)
        supply = await self.store.supply.set(guild_id, member.id, character, item, die, replaces=own)
        set_by = shown_name(interaction.user.display_name)
        # the size before is the GM's alone: after a hidden supply roll it tells how that roll went
        await reply(interaction, embed=supply_set_embed(supply, previous, set_by), ephemeral=True)
        await reply(interaction, embed=supply_set_embed(supply, previous, set_by, public=True))

    @set.autocomplete("item")
    async def set_item_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        member = getattr(interaction.namespace, "member", None)
        if interaction.guild is None or member is None:
            return []
        supplies = await self.store.supply.list(interaction.guild.id, member.id)
        key = name_key(current)
        items = sorted({s.item for s in supplies if key in name_key(s.item)}, key=name_key)
        return [app_commands.Choice(name=i, value=i) for i in items[:25]]


async def setup(bot: TabletopBot) -> None:
    await bot.add_cog(Supply(bot))
