"""`/help`: a quick start (players, then GMs), every command by group, and each system's rules in a few lines.

Everything here is player-facing: no rule ids and no files the players do not have. The command list is read
from the running command tree, so it never names a command that is gone.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.ui.embeds import clip, info_embed
from bot.ui.freeroll import MAX_DICE, MAX_EXTRA, MAX_LENGTH, MAX_OPERATED, MAX_SIDES
from bot.ui.reply import reply

if TYPE_CHECKING:
    from bot.client import TabletopBot

SYSTEMS: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "sysx": (
        "System X (/sysx)",
        "d20 against a Skill Value on the roll chart; the margin runs CF, F5..F0, S0..S5, CS.",
        [
            (
                "Skill Value",
                "SV = attribute + skill + modifiers; wounds cap it at 2 x current wounds.",
            ),
            (
                "The roll",
                "SV < 1 is CF, SV > 30 is CS; d20 + roll modifiers, above 20 CS, below 1 CF.",
            ),
            (
                "Margin",
                "Otherwise the chart gives the margin; it succeeds when it reaches the required "
                "margin, default S0. GM modifiers lie in -4..+4.",
            ),
            (
                "Many actors",
                "Opposed: actor minus target. Combined: margins folded pairwise. "
                "Synergy: each check adds the previous margin to its SV.",
            ),
            (
                "Other",
                "Flat chance: d20 strictly under the value. One die per task, no rerolls.",
            ),
        ],
    ),
    "dn": (
        "Difficulty Number (/dn)",
        "Roll a d20 under your Difficulty Number.",
        [
            (
                "DN",
                "Skill: skill + natural ability + DF. No skill: characteristic x CF + DF. "
                "DF lies in -10..+5.",
            ),
            (
                "The roll",
                "Roll <= DN succeeds; a natural 20 is a critical failure when DN <= 20; DN <= 0 "
                "cannot succeed.",
            ),
            (
                "Success levels",
                "Critical <= DN/20 (at least a 1), Special <= DN/5, High <= DN/3, Medium <= DN/2, "
                "else Average, each rounded half up (DN 15: 1 Critical, 2-3 Special, 4-5 High, 6-8 "
                "Medium); the margin DN - roll is shown.",
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
                "modifiers; named difficulties +20..-20. SL = Base - 2d10.",
            ),
            (
                "Result",
                "SL >= 1 succeeds, 0 is a near miss, below 0 fails; 1-4 acceptable, 16+ miraculous.",
            ),
            (
                "Doubles",
                "Double 1s: automatic or critical success. Double 10s: automatic failure or "
                "fumble. Base > 15 may take SL 1 without rolling (forgo), at any Base when a GM grants it.",
            ),
            ("Resisted", "Highest SL wins by its SL minus the second highest; ties roll again."),
            (
                "Sustained",
                "Checks fill a pool towards the GM's goal; a fumble or a pool below -goal fails it. "
                "A GM may grant a second try at the same Base, with -5..+5.",
            ),
        ],
    ),
    "decision": (
        "Decision dice (/decision, /supply)",
        "2d6 + stat + modifiers against a target number.",
        [
            (
                "The roll",
                "Success when the total reaches the target, a tie succeeds. Targets: Simple 6, "
                "Challenging 12, Strenuous 18, Impossible 20.",
            ),
            (
                "Advantage",
                "Advantage rolls 3d6, disadvantage 1d6; both cancel to 2d6; neither stacks. "
                "A bonus never goes below 0, a penalty never above 0.",
            ),
            (
                "Contested",
                "Everyone rolls; the highest total wins; ties reroll. Fractions round down once, at the end.",
            ),
            (
                "Supply dice",
                "d12 → d10 → d8 → d6 → d4 → empty: a roll of 3 or lower steps the die down. "
                "Percentage: d100 <= chance.",
            ),
        ],
    ),
    "cards": (
        "Cards: blackjack task resolution (/cards)",
        "Draw from the channel's shoe towards 21, then read the Task Result Level.",
        [
            (
                "Shoe and values",
                "One shared shoe per channel. 2-10 face value, J/Q/K 10, ace 11 or 1.",
            ),
            (
                "Hands",
                "Involuntary: the bot draws to 17. Voluntary: first card face down; Hit, Stand or "
                "Add skill. Over 21 wraps to total - 21 and ends the hand. One open hand each per "
                "channel. Lost a hidden hand's message? `/cards resume` brings its buttons back (a "
                "GM's: any hand here).",
            ),
            (
                "21 and adders",
                "Exactly 21 draws a bonus card (a second on a matching suit). The skill "
                "adder adds one allowed value and ends the hand.",
            ),
            (
                "Result",
                "TRL = floor((total + characteristic bonus) / 5) + skill base - difficulty; "
                "TRL >= 1 succeeds, named Fumble to Superb. Low cards may flag a fumble.",
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
                "GM of the channel. GM-only commands refuse everyone else and change nothing.",
            ),
            (
                "Modifiers",
                "A GM may set a modifier for one player or everyone for the next roll or N rolls; "
                "the result says which applied and who set it. Several add up, except a cards "
                "difficulty or a System X required margin: one applies (a player's own, else the latest "
                "set) and the other waits for the next roll.",
            ),
            ("Buttons", "Buttons on a hand or pool work for their owner and GMs only."),
            (
                "Visibility",
                "public: everyone; private: you, and the GMs in /log (the table sees that you rolled); "
                "gm: you and the GMs; blind: only the GMs (/log shows the table a hidden roll). A GM can "
                "reveal a gm or blind roll later.",
            ),
        ],
    ),
}


QUICK_START: list[tuple[str, str]] = [
    (
        "If you play: your first three commands",
        "1. `/sheet create`: a character sheet for your game's system; fill it with `/sheet set-attribute` "
        "and `/sheet set-skill`.\n"
        "2. A roll with it: `/sysx check`, `/dn check`, `/rps check`, `/decision roll` or `/cards task`, "
        "whichever system your game uses (your GM knows); `/roll` rolls any other dice, like `2d6+3`.\n"
        "3. `/odds`: your exact chances before you roll.",
    ),
    (
        "If you run the game (GM): setting up",
        "A server admin uses `/setup` to set the GM roles and the GM channel. A GM then uses `/gm claim` to "
        "claim a table (the channel you play in), and `/gm modifier` to give a roll a bonus or a penalty. "
        "Hidden rolls and their copies go to the GM channel.",
    ),
    (
        "Who sees a roll",
        "Every roll has a visibility option: public (everyone), private (you, and the GMs in /log; the "
        "table sees that you rolled), gm (you and the GMs) or blind (only the GMs).",
    ),
]
#: Groups in the order a newcomer meets them, and their name in the table's words; others follow by name.
GROUPS: dict[str, str] = {
    "sheet": "Character sheets",
    "sysx": "System X",
    "dn": "Difficulty Number",
    "rps": "RPS",
    "decision": "Decision dice",
    "supply": "Supply dice",
    "cards": "Cards",
    "odds": "Chances before you roll",
    "gm": "For GMs",
    "setup": "Server set-up (Manage Server)",
}
RULE_IDS = re.compile(r"\s*\((?:[A-Z]{2,3}(?:-\d+)?(?:, )?)+\)")
FIELD_MAX = 1024  # Discord's limit on an embed field's value


def _plain(description: str) -> str:
    """A command's description without the rule ids some carry."""
    return RULE_IDS.sub("", description).strip()


def _leaves(group: app_commands.Group, prefix: str = "") -> list[str]:
    """The group's subcommands, its own before its subgroups' (`check`, then `sustained start`)."""
    names = [f"{prefix}{c.name}" for c in group.commands if not isinstance(c, app_commands.Group)]
    for child in group.commands:
        if isinstance(child, app_commands.Group):
            names += _leaves(child, f"{prefix}{child.name} ")
    return names


def commands_embed(tree: app_commands.CommandTree[Any]) -> discord.Embed:
    """Every slash command of ``tree``, by group: the systems first, then the rest."""
    entries = [c for c in tree.get_commands() if isinstance(c, app_commands.Command | app_commands.Group)]
    groups = sorted(
        (c for c in entries if isinstance(c, app_commands.Group)),
        key=lambda g: (list(GROUPS).index(g.name) if g.name in GROUPS else len(GROUPS), g.name),
    )
    fields = [
        (f"{GROUPS.get(g.name, _plain(g.description))} (/{g.name})", clip(", ".join(_leaves(g)), FIELD_MAX))
        for g in groups
    ]
    single = sorted((c for c in entries if isinstance(c, app_commands.Command)), key=lambda c: c.name)
    if single:
        lines = "\n".join(f"`/{c.name}`: {_plain(c.description)}" for c in single)
        fields.append(("More", clip(lines, FIELD_MAX)))
    return info_embed(
        "Commands",
        "Type / and a group's name in Discord to see its commands and their options.",
        fields=fields,
    )


def start_embeds(tree: app_commands.CommandTree[Any]) -> list[discord.Embed]:
    """The quick start, then every command by group."""
    start = info_embed(
        "Quick start",
        "Dice and cards for role-playing at your table: five rule systems, character sheets, and tools for "
        "the GM. First, who are you?",
        fields=QUICK_START,
    )
    start.set_footer(text="/help system: explains a system's rules in a few lines.")
    return [start, commands_embed(tree)]


def help_embed(system: str) -> discord.Embed:
    """The help page for ``system`` (a key of SYSTEMS)."""
    title, summary, lines = SYSTEMS[system]
    embed = info_embed(title, summary, fields=lines)
    embed.set_footer(text="/help without options: the quick start and every command.")
    return embed


class Help(commands.Cog):
    """The quick start, the commands, and the rules, a few lines per system."""

    @app_commands.command(name="help", description="Getting started, every command, and each system's rules.")
    @app_commands.describe(
        system="A system's rules in a few lines (default: the quick start and every command)."
    )
    @app_commands.choices(
        system=[app_commands.Choice(name=title, value=key) for key, (title, _, _) in SYSTEMS.items()]
    )
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def help(self, interaction: discord.Interaction[Any], system: str | None = None) -> None:
        ephemeral = interaction.guild is not None
        if system is None:
            tree: app_commands.CommandTree[Any] = interaction.client.tree
            await reply(interaction, embeds=start_embeds(tree), ephemeral=ephemeral)
            return
        await reply(interaction, embed=help_embed(system), ephemeral=ephemeral)


async def setup(bot: TabletopBot) -> None:
    await bot.add_cog(Help())
