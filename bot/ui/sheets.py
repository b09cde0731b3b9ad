"""Character sheets as embeds and files: one sheet, a player's list, and the exported JSON attachment."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

import discord

from bot.store import SHEET_RANGES, Sheet, Skill
from bot.store.models import SYSTEM_NAMES
from bot.store.sheets import MAX_IMPORT_CHARS, export_json
from bot.ui.embeds import NEUTRAL, field_chunks, info_embed, result_embed, shown_lines, shown_name, spread

LIST_TITLE = "Sheets of "
# What /sheet import downloads at most, in bytes: the most characters the store reads, so it never refuses a
# file this let through for its size, and more than the export of any sheet it holds. The cap is what a
# hostile file can cost: its download, and reading it, which takes a worker process tens of milliseconds.
MAX_SHEET_FILE = MAX_IMPORT_CHARS
_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9_.-]+")


def system_label(system: str) -> str:
    """The system's name as players know it (``System X``)."""
    return SYSTEM_NAMES.get(system, system)


def ranges_line(system: str) -> str:
    """What the system's sheet may hold, e.g. ``System X: attribute 1..20, skill 0..10, bonus -10..10``."""
    r = SHEET_RANGES[system]
    skills = f"{r.skill_word} {r.skills[0]}..{r.skills[1]}, " if r.skill_word != r.attribute_word else ""
    return (
        f"{system_label(system)}: {r.attribute_word} {r.attributes[0]}..{r.attributes[1]}, "
        f"{skills}bonus {r.bonuses[0]}..{r.bonuses[1]}, "
        f"maximum wounds {r.wounds_max[0]}..{r.wounds_max[1]}"
    )


def _plural(word: str) -> str:
    return (word + "s").capitalize()


def _skill_line(name: str, skill: Skill) -> str:
    line = f"{shown_name(name)} {skill.rating}"
    parents = [shown_name(p) for p in ([skill.attribute] if skill.attribute else []) + list(skill.alternates)]
    if parents:
        head = parents[0] if skill.attribute else f"any of {', '.join(parents)}"
        rest = f"; or {', '.join(parents[1:])}" if skill.attribute and len(parents) > 1 else ""
        line += f" ({head}{rest})"
    return line


def sheet_embeds(sheet: Sheet, owner: str) -> list[discord.Embed]:
    """One sheet: attributes, skills (parent, alternates), bonuses, wounds, notes; ranges in the footer.

    A long section goes on in "Skills (continued)" fields, and a sheet longer than one message's 6,000
    characters in more embeds, one message each (the largest sheet the store accepts takes several).
    """
    ranges = SHEET_RANGES[sheet.system]
    fields = [
        *field_chunks(
            _plural(ranges.attribute_word),
            [f"{shown_name(n)} {v}" for n, v in sheet.attributes.items()] or ["none yet"],
        ),
        *field_chunks(
            _plural(ranges.skill_word) if ranges.skill_word != ranges.attribute_word else "Skills",
            [_skill_line(n, s) for n, s in sheet.skills.items()] or ["none yet"],
        ),
        *field_chunks("Bonuses", [f"{shown_name(n)} {v:+d}" for n, v in sheet.bonuses.items()]),
    ]
    if sheet.wounds is not None:
        fields.append(("Wounds", f"{sheet.wounds.current} / {sheet.wounds.maximum}"))
    fields += field_chunks("Notes", shown_lines(sheet.notes))  # as typed, line by line
    status = "active" if sheet.active else "not active (/sheet use to make it active)"
    first = result_embed(
        shown_name(sheet.name),
        description=f"{system_label(sheet.system)} sheet of {owner}, {status}.",
        footer=ranges_line(sheet.system),
    )
    first.colour = NEUTRAL
    return spread(first, fields)


def sheet_list_embed(sheets: Sequence[Sheet], owner: str) -> discord.Embed:
    """A page of a player's sheets by name, with their system and which is active (short enough for one
    embed: `cogs.sheets` pages the list)."""
    if not sheets:
        return info_embed(f"{LIST_TITLE}{owner}", "No sheets yet: /sheet create makes one.")
    lines = [
        f"▶ **{shown_name(s.name)}** ({system_label(s.system)}, active)"
        if s.active
        else f"• {shown_name(s.name)} ({system_label(s.system)})"
        for s in sheets
    ]
    embed = info_embed(f"{LIST_TITLE}{owner}", "\n".join(lines))
    embed.set_footer(text="▶ the active sheet: the one rolls in its system use. /sheet use switches.")
    return embed


def export_filename(sheet: Sheet) -> str:
    """A safe file name for the exported sheet (``Aria_Vell.sheet.json``)."""
    stem = _UNSAFE_FILENAME.sub("_", sheet.name).strip("._") or "sheet"
    return f"{stem[:48]}.sheet.json"


def export_file(sheet: Sheet) -> discord.File:
    """The sheet as a JSON attachment, valid against data/sheet.schema.json."""
    data = export_json(sheet).encode("utf-8")
    return discord.File(io.BytesIO(data), filename=export_filename(sheet))
