"""Shared embed helpers: colour by verdict, Discord's size limits, footers, and no pings ever."""

from __future__ import annotations

from collections.abc import Iterable

import discord

from bot.core.common import BIDI_CONTROLS, Verdict

#: Everything the bot sends uses this: a character called @everyone pings no one.
NO_MENTIONS = discord.AllowedMentions.none()

VERDICT_COLOURS: dict[Verdict, discord.Colour] = {
    Verdict.CRITICAL_SUCCESS: discord.Colour(0x1F8B4C),
    Verdict.SUCCESS: discord.Colour(0x57F287),
    Verdict.FAILURE: discord.Colour(0xED4245),
    Verdict.CRITICAL_FAILURE: discord.Colour(0x992D22),
}
NEUTRAL = discord.Colour(0x5865F2)  # help, listings, rolls without a verdict
WARNING = discord.Colour(0xFEE75C)  # near misses, fumble flags, hidden-roll notices

# Discord's limits (what real Discord answers 400 to)
TITLE_MAX = 256
DESCRIPTION_MAX = 4096
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1024
FIELDS_MAX = 25
FOOTER_MAX = 2048
AUTHOR_MAX = 256
EMBED_TOTAL_MAX = 6000
CONTENT_MAX = 2000


def shown_name(name: str, *, markdown: bool = True) -> str:
    """A name (a player's, a character's, a label) as results show it: direction controls removed, and
    markdown escaped unless it goes where Discord shows text as it is (``markdown=False``: an embed's
    author or footer). The one place names are prepared for display."""
    plain = BIDI_CONTROLS.sub("", name)
    return discord.utils.escape_markdown(plain) if markdown else plain


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when something was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def verdict_colour(verdict: Verdict | None) -> discord.Colour:
    """Green for success, red for failure, darker for criticals; blurple without a verdict."""
    return NEUTRAL if verdict is None else VERDICT_COLOURS[verdict]


def result_embed(
    title: str,
    *,
    verdict: Verdict | None = None,
    description: str | None = None,
    fields: Iterable[tuple[str, str]] = (),
    inline: bool = True,
    footer: str | None = None,
    author: str | None = None,
) -> discord.Embed:
    """A result embed within Discord's limits: title, coloured by verdict, one field per (name, value)."""
    embed = discord.Embed(
        title=clip(title, TITLE_MAX),
        description=clip(description, DESCRIPTION_MAX) if description else None,
        colour=verdict_colour(verdict),
    )
    for name, value in list(fields)[:FIELDS_MAX]:
        embed.add_field(
            name=clip(name or "\u200b", FIELD_NAME_MAX),
            value=clip(value or "\u200b", FIELD_VALUE_MAX),
            inline=inline,
        )
    if author:
        embed.set_author(name=clip(author, AUTHOR_MAX))
    if footer:
        set_footer(embed, footer)
    return fit(embed)


COMPACT_LINES = 3  # a roll's public message: a title and at most this many short lines
COMPACT_TITLE = 120  # a longer title (six long names) is cut before its outcome, never in it


def keep_outcome(title: str, limit: int = COMPACT_TITLE) -> str:
    """``title`` within ``limit``, cut in who rolled what so the outcome after its last ``": "`` stays."""
    if len(title) <= limit or ": " not in title:
        return clip(title, limit)
    head, outcome = title.rsplit(": ", 1)
    room = limit - len(outcome) - 2
    return f"{clip(head, room)}: {outcome}" if room >= 20 else clip(title, limit)


def compact_embed(
    title: str, lines: Iterable[str | None], *, verdict: Verdict | None = None
) -> discord.Embed:
    """A roll's public message: who rolled what and the outcome as the title, then at most three short
    lines (empty ones dropped), coloured by verdict; the breakdown goes behind its Details button."""
    shown = [line for line in lines if line]
    if len(shown) > COMPACT_LINES:
        raise ValueError(f"A compact result has at most {COMPACT_LINES} lines, not {len(shown)}.")
    return result_embed(keep_outcome(title), verdict=verdict, description="\n".join(shown) or None)


def info_embed(title: str, description: str, *, fields: Iterable[tuple[str, str]] = ()) -> discord.Embed:
    """A neutral embed for help, listings and settings."""
    return result_embed(title, description=description, fields=fields, inline=False)


def set_footer(embed: discord.Embed, text: str) -> discord.Embed:
    """Set the footer (clipped to Discord's limit)."""
    embed.set_footer(text=clip(text, FOOTER_MAX))
    return embed


def add_footer_line(embed: discord.Embed, line: str) -> discord.Embed:
    """Append a line to the footer, e.g. which GM modifier applied and who set it."""
    current = embed.footer.text or ""
    return set_footer(embed, f"{current}\n{line}" if current else line)


def rule_footer(*rule_ids: str) -> str:
    """The footer naming the rules a result used, e.g. ``Rules: RPS-2, RPS-3``."""
    return "Rules: " + ", ".join(rule_ids) if rule_ids else ""


def embed_size(embed: discord.Embed) -> int:
    """The characters Discord counts towards its 6000 limit."""
    return len(embed)


def fit(embed: discord.Embed) -> discord.Embed:
    """Drop trailing fields until the embed fits Discord's 6000-character total."""
    if len(embed) <= EMBED_TOTAL_MAX:
        return embed  # nearly always: measured once
    while len(embed) > EMBED_TOTAL_MAX and embed.fields:
        embed.remove_field(len(embed.fields) - 1)
    if len(embed) > EMBED_TOTAL_MAX and embed.description:
        embed.description = clip(
            embed.description, max(1, len(embed.description) - (len(embed) - EMBED_TOTAL_MAX))
        )
    return embed
