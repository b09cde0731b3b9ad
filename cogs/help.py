"""`/help`: each system's rules in a few lines, with the rule ids of RULES.md."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.ui.embeds import info_embed
from bot.ui.freeroll import MAX_DICE, MAX_EXTRA, MAX_LENGTH, MAX_OPERATED, MAX_SIDES
from bot.ui.reply import reply

SYSTEMS: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "sysx": (
        "System X (/sysx)",
        "d20 against a Skill Value on the roll chart; the margin runs CF, F5..F0, S0..S5, CS.",
        [
            (
                "Skill Value",
                "SV = attribute + skill + modifiers (SX-1); wounds cap it at 2 x current wounds (SX-2).",
            ),
            (
                "The roll",
                "SV < 1 is CF, SV > 30 is CS (SX-3); d20 + roll modifiers, above 20 CS, below 1 CF (SX-4).",
            ),
            (
                "Margin",
                "Otherwise the chart gives the margin (SX-5); it succeeds when it reaches the required "
                "margin, default S0 (SX-7). GM modifiers lie in -4..+4 (SX-6).",
            ),
            (
                "Many actors",
                "Opposed: actor minus target (SX-8). Combined: margins folded pairwise (SX-9). "
                "Synergy: each check adds the previous margin to its SV (SX-10).",
            ),
            (
                "Other",
                "Flat chance: d20 strictly under the value (SX-11). One die per task, no rerolls (SX-12).",
            ),
        ],
    ),
    "dn": (
        "Difficulty Number (/dn)",
        "Roll a d20 under your Difficulty Number.",
        [
            (
                "DN",
                "Skill: skill + natural ability + DF (DN-1). No skill: characteristic x CF + DF (DN-2). "
                "DF lies in -10..+5 (DN-3).",
            ),
            (
                "The roll",
                "Roll <= DN succeeds; a natural 20 is a critical failure when DN <= 20; DN <= 0 "
                "cannot succeed (DN-4).",
            ),
            (
                "Success levels",
                "Critical <= DN/20, Special <= DN/5, High <= DN/3, Medium <= DN/2, else Average; "
                "the margin DN - roll is shown (DN-5).",
            ),
        ],
    ),
    "rps": (
        "RPS: Base minus 2d10 (/rps)",
        "Success Level = Base - (d10 + d10).",
        [
            (
                "Base",
                "Attribute check: 2 x attribute + modifiers; skill check: skill + parent attribute + "
                "modifiers; named difficulties +20..-20 (RPS-1). SL = Base - 2d10 (RPS-2).",
            ),
            (
                "Result",
                "SL >= 1 succeeds, 0 is a near miss, below 0 fails; 1-4 acceptable, 16+ miraculous (RPS-3).",
            ),
            (
                "Doubles",
                "Double 1s: automatic or critical success (RPS-4). Double 10s: automatic failure or "
                "fumble (RPS-5). Base > 15 may take SL 1 without rolling (RPS-6).",
            ),
            ("Resisted", "Highest SL wins by its SL minus the second highest; ties roll again (RPS-7)."),
            (
                "Sustained",
                "Checks fill a pool towards the GM's goal; a fumble or a pool below -goal fails it "
                "(RPS-8). A GM may grant a second try with -5..+5 (RPS-9).",
            ),
        ],
    ),
    "decision": (
        "Decision dice (/decision, /supply)",
        "2d6 + stat + modifiers against a target number.",
        [
            (
                "The roll",
                "Success when the total reaches the target, a tie succeeds (DD-1). Targets: Simple 6, "
                "Challenging 12, Strenuous 18, Impossible 20 (DD-4).",
            ),
            (
                "Advantage",
                "Advantage rolls 3d6, disadvantage 1d6; both cancel to 2d6; neither stacks (DD-2). "
                "A bonus never goes below 0, a penalty never above 0 (DD-3).",
            ),
            (
                "Contested",
                "Everyone rolls; the highest total wins; ties reroll (DD-5). Fractions round down "
                "once, at the end (DD-6).",
            ),
            (
                "Supply dice",
                "d12 -> d10 -> d8 -> d6 -> d4 -> empty: a roll of 3 or lower steps the die down "
                "(DD-7). Percentage: d100 <= chance (DD-8).",
            ),
        ],
    ),
    "cards": (
        "Cards: blackjack task resolution (/cards)",
        "Draw from the channel's shoe towards 21, then read the Task Result Level.",
        [
            (
                "Shoe and values",
                "One shared shoe per channel (BJ-1). 2-10 face value, J/Q/K 10, ace 11 or 1 (BJ-2).",
            ),
            (
                "Hands",
                "Involuntary: the bot draws to 17 (BJ-3). Voluntary: first card face down; Hit, Stand or "
                "Add skill (BJ-4). Over 21 wraps to total - 21 and ends the hand (BJ-5).",
            ),
            (
                "21 and adders",
                "Exactly 21 draws a bonus card (a second on a matching suit) (BJ-6). The skill "
                "adder adds one allowed value and ends the hand (BJ-7).",
            ),
            (
                "Result",
                "TRL = floor((total + characteristic bonus) / 5) + skill base - difficulty (BJ-8, BJ-9); "
                "TRL >= 1 succeeds, named Fumble to Superb (BJ-10). Low cards may flag a fumble (BJ-11).",
            ),
        ],
    ),
    "roll": (
        "Free dice (/roll)",
        "Any dice in standard notation: damage, random tables, a quick d6. Add a label to say what for.",
        [
            (
                "Notation",
                "`2d6+3`, `d100` (or `d%`), `1d20+5`, `(1d8+2)*2`; keep highest/lowest `4d6kh3`, "
                "`2d20kl1`; drop `p`; reroll `rr1` (once: `ro1`); explode `8d6e6`; minimum `mi2`.",
            ),
            (
                "Limits",
                f"{MAX_LENGTH} characters, {MAX_DICE:,} dice of up to {MAX_SIDES:,} sides; keep, drop, "
                f"reroll and explode work on {MAX_OPERATED} dice, and rerolls and explosions add at most "
                f"{MAX_EXTRA} more.",
            ),
            ("Who sees it", "The same visibility option as every roll: public, private, gm or blind."),
        ],
    ),
    "table": (
        "GMs, modifiers and visibility",
        "How the table works in every system.",
        [
            (
                "GMs",
                "A GM has Manage Server, a GM role (default: a role named GM or Game Master), or was made "
                "GM of the channel (GM-1). GM-only commands refuse everyone else and change nothing (GM-2).",
            ),
            (
                "Modifiers",
                "A GM may set a modifier for one player or everyone for the next roll or N rolls; "
                "the result says which applied and who set it (GM-3).",
            ),
            ("Buttons", "Buttons on a hand or pool work for their owner and GMs only (GM-4)."),
            (
                "Visibility",
                "public: everyone; private: only you, the table sees that you rolled; gm: you and "
                "the GMs; blind: only the GMs. A GM can reveal a hidden roll later.",
            ),
        ],
    ),
}


def help_embed(system: str) -> discord.Embed:
    """The help page for ``system`` (a key of SYSTEMS)."""
    title, summary, lines = SYSTEMS[system]
    embed = info_embed(title, summary, fields=lines)
    embed.set_footer(text="Rule ids refer to RULES.md. /help system:<name> for another system.")
    return embed


class Help(commands.Cog):
    """The rules, a few lines per system."""

    @app_commands.command(name="help", description="How each system's rules work, with their rule ids.")
    @app_commands.describe(system="Which system to explain (default: the table: GMs, modifiers, visibility).")
    @app_commands.choices(
        system=[app_commands.Choice(name=title, value=key) for key, (title, _, _) in SYSTEMS.items()]
    )
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def help(self, interaction: discord.Interaction[Any], system: str = "table") -> None:
        await reply(interaction, embed=help_embed(system), ephemeral=interaction.guild is not None)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Help())
