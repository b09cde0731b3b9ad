"""`/dn`: Difficulty Number checks from a sheet (`check`) or from raw numbers (`raw`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.dice import Dice
from bot.core.dn import check, non_skill_dn, skill_dn
from bot.store import Sheet, Store
from bot.ui.dn import (
    COMPLEXITY_CHOICES,
    SYSTEM,
    DifficultyFactor,
    difficulty_factor,
    dn_compact,
    dn_details,
    limit_dn,
    parse_complexity,
    skill_choices,
)
from bot.ui.embeds import shown_name
from bot.ui.odds import add_odds, dn_line
from bot.ui.reply import UserError
from bot.ui.roll_inputs import dn_skill_use
from bot.ui.rolls import publish, sheet_of, take_modifiers
from bot.ui.sysx import list_choices
from bot.ui.visibility import choose_visibility, reach_gms, resolve_mode

if TYPE_CHECKING:
    from bot.client import TabletopBot

Visibility = Literal["public", "private", "gm", "blind"]
DF = app_commands.Range[int, -10, 5]
KIND = "Difficulty Number check"
VISIBILITY_HELP = "Who sees the result (default: this channel's default)."


def _choices(pairs: list[tuple[str, str]]) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=name, value=value) for name, value in pairs]


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class DifficultyNumber(
    commands.GroupCog, group_name="dn", group_description="Difficulty Number: a d20 at or under the DN."
):
    """DN checks; rules in bot.core.dn, rendering in bot.ui.dn."""

    def __init__(self, bot: TabletopBot) -> None:
        self.bot = bot

    @property
    def store(self) -> Store:
        store: Store = self.bot.store
        return store

    async def _sheet(self, interaction: discord.Interaction[Any]) -> Sheet | None:
        return await sheet_of(self.store, interaction, interaction.user.id, SYSTEM)

    async def _roll_and_publish(
        self,
        interaction: discord.Interaction[Any],
        *,
        mode: Any,
        dn: int,
        title: str,
        dn_text: str,
        rules: list[str],
        applied: Any,
        command: str,
        inputs: dict[str, Any],
        sheet_name: str | None = None,
        factor: DifficultyFactor | None = None,
    ) -> None:
        natural = Dice(self.bot.rng).d20()
        result = check(dn, natural)
        who = shown_name(sheet_name or interaction.user.display_name)
        what = title if sheet_name else f"DN {dn}"  # a raw check is named by its DN
        compact = dn_compact(result, who=who, what=what, applied=applied, factor=factor)
        details = dn_details(
            result,
            title=title,
            roller=interaction.user.mention,
            dn_text=dn_text,
            rules=rules,
            applied=applied,
            sheet_name=sheet_name,
        )
        add_odds(details, dn_line(dn, result.level))
        outcome = result.level.value
        await publish(
            interaction,
            self.store,
            compact,
            details=details,
            mode=mode,
            system=SYSTEM,
            command=command,
            inputs={**inputs, "dn": dn},
            dice=[natural],
            result=f"{outcome} (margin {result.margin:+d})",
            summary=f"{title}: DN {dn}, {outcome}",
            kind=KIND,
        )

    # -- /dn check -----------------------------------------------------------------------------------
    @app_commands.command(name="check", description="Skill check: skill level + natural ability + DF.")
    @app_commands.describe(
        skill="A skill from your active Difficulty Number sheet.",
        characteristics="Characteristics whose average is the natural ability, by commas "
        "(default: the skill's own).",
        df="Difficulty Factor, -10 (hard) to +5 (easy); default 0.",
        visibility=VISIBILITY_HELP,
    )
    async def check_command(
        self,
        interaction: discord.Interaction[Any],
        skill: str,
        characteristics: app_commands.Range[str, 1, 400] | None = None,
        df: DF = 0,
        visibility: Visibility | None = None,
    ) -> None:
        mode = await choose_visibility(interaction, self.store, visibility)
        use = await dn_skill_use(self.store, interaction, skill, characteristics)
        # after the options are read: a refused roll opens no GM copy (its GMs would be notified)
        await reach_gms(interaction, self.store, mode)
        applied = await take_modifiers(interaction, self.store, SYSTEM)
        factor = difficulty_factor(df, applied)
        dn = skill_dn(use.level, [v for _, v in use.characteristics], factor.total)
        await self._roll_and_publish(
            interaction,
            mode=mode,
            dn=dn,
            title=use.skill,
            dn_text=(
                f"skill {use.skill} {use.level} + natural ability {use.ability_text()} + {factor.text()}"
                f" = **{dn}**"
            ),
            rules=["DN-1"],
            applied=applied,
            command="dn check",
            inputs={
                "skill": use.skill,
                "level": use.level,
                "characteristics": dict(use.characteristics),
                "df": factor.total,
            },
            sheet_name=use.sheet_name,
            factor=factor,
        )

    @check_command.autocomplete("skill")
    async def _skill(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return _choices(skill_choices(await self._sheet(interaction), current))

    @check_command.autocomplete("characteristics")
    async def _characteristics(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        sheet = await self._sheet(interaction)
        return _choices(list_choices(list(sheet.attributes) if sheet else [], current))

    # -- /dn raw -------------------------------------------------------------------------------------
    @app_commands.command(name="raw", description="A DN from numbers: given, or characteristic x complexity.")
    @app_commands.describe(
        dn="The Difficulty Number itself (it already includes its DF).",
        characteristic="Or a characteristic (1-30) for a use without a skill.",
        complexity="Complexity factor for the characteristic (default x1).",
        df="Difficulty Factor with a characteristic, -10 to +5.",
        visibility=VISIBILITY_HELP,
    )
    @app_commands.choices(
        complexity=[app_commands.Choice(name=name, value=value) for name, value in COMPLEXITY_CHOICES]
    )
    async def raw_command(
        self,
        interaction: discord.Interaction[Any],
        dn: app_commands.Range[int, -10, 65] | None = None,
        characteristic: app_commands.Range[int, 1, 30] | None = None,
        complexity: str = "1",
        df: DF = 0,
        visibility: Visibility | None = None,
    ) -> None:
        if (dn is None) == (characteristic is None):
            raise UserError("Give either a DN or a characteristic (with a complexity), not both or neither.")
        if dn is not None and df != 0:
            raise UserError("A DN given directly already includes its DF; give a characteristic to add a DF.")
        if dn is not None and complexity != "1":
            raise UserError("A complexity multiplies a characteristic; a DN given directly takes none.")
        factor_choice = parse_complexity(complexity)
        mode = await resolve_mode(interaction, self.store, visibility)
        applied = await take_modifiers(interaction, self.store, SYSTEM)
        factor = difficulty_factor(df, applied)
        if characteristic is not None:
            total = non_skill_dn(characteristic, factor_choice, factor.total)
            text = f"characteristic {characteristic} {factor_choice.label}, rounded down, + {factor.text()}"
            rules = ["DN-2"]
            inputs: dict[str, Any] = {
                "characteristic": characteristic,
                "complexity": factor_choice.label,
                "df": factor.total,
            }
        else:
            assert dn is not None
            total = limit_dn(dn + factor.total)
            text = f"{dn} (given)"
            if factor.total:
                text += f" + GM {factor.text()}"
                if total != dn + factor.total:
                    text += f" = {dn + factor.total}, held at {total}"
            rules = []
            inputs = {"given": dn, "df": factor.total}
        await self._roll_and_publish(
            interaction,
            mode=mode,
            dn=total,
            title="Raw check",
            dn_text=f"{text} = **{total}**",
            rules=rules,
            applied=applied,
            command="dn raw",
            inputs=inputs,
            factor=factor,
        )


async def setup(bot: TabletopBot) -> None:
    await bot.add_cog(DifficultyNumber(bot))
