"""Shared embed helpers: colour by verdict, Discord's size limits, footers, and no pings ever."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

import discord

from bot.core.common import Verdict, one_line

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
    """A name (a player's, a character's, a label) as results show it: on one line without invisible
    characters (`one_line`), and markdown escaped unless it goes where Discord shows text as it is
    (``markdown=False``: an embed's author or footer). The one place names are prepared for display."""
    plain = one_line(name)
    return discord.utils.escape_markdown(plain) if markdown else plain


def shown_lines(text: str) -> list[str]:
    """Free text a player wrote (a sheet's notes) as its lines, each shown as typed: markdown escaped like a
    name's, and a line that starts like a numbered list ("1. ") too, which `escape_markdown` leaves. A
    mention in it shows as one and pings no one: nothing the bot sends pings (`NO_MENTIONS`)."""
    return [_NUMBERED.sub(r"\1\\.", discord.utils.escape_markdown(line)) for line in text.splitlines()]


_NUMBERED = re.compile(r"^(\s*\d+)\.(?=\s)")


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


def field_chunks(name: str, lines: Iterable[str], limit: int = FIELD_VALUE_MAX) -> list[tuple[str, str]]:
    """``lines`` as (name, value) fields of at most ``limit`` characters, cut between lines, so a long list
    loses no entry: the first is called ``name``, the others ``name (continued)``. A line longer than a field
    goes on in the next one after a comma (between two names) or a space."""
    chunks: list[list[str]] = []
    size = 0  # the characters of the last chunk's lines, joined
    for line in lines:
        for piece in _pieces(line, limit):
            if not chunks or size + 1 + len(piece) > limit:
                chunks.append([])
                size = -1
            chunks[-1].append(piece)
            size += 1 + len(piece)
    values = [value for value in ("\n".join(chunk).strip("\n") for chunk in chunks) if value.strip()]
    more = " (continued)"
    return [
        (name if i == 0 else clip(name, FIELD_NAME_MAX - len(more)) + more, value)
        for i, value in enumerate(values)
    ]


def _pieces(line: str, limit: int) -> Iterator[str]:
    """``line`` in pieces of at most ``limit``: cut after a comma, else at a space, else where it must."""
    while len(line) > limit:
        cut = line.rfind(", ", 0, limit + 1)
        if cut > 0:
            yield line[: cut + 1]
            line = line[cut + 2 :]
            continue
        cut = line.rfind(" ", 0, limit + 1)
        yield line[:cut] if cut > 0 else line[:limit]
        line = line[cut + 1 :] if cut > 0 else line[limit:]
    yield line


PART_ROOM = 40  # what the marks of a message's part, "(part 2 of 3)" or a footer line, may add to it


def spread(
    first: discord.Embed, fields: Sequence[tuple[str, str]], *, inline: bool = True
) -> list[discord.Embed]:
    """``first`` with ``fields`` added while Discord's limits allow (25 fields, 6,000 characters), then as
    many more embeds as the rest needs, titled as ``first`` with "(part 2 of 3)". Each is one message's:
    the 6,000 characters count across all the embeds of a message, so more embeds in one would not help."""
    embeds = [first]
    for name, value in fields:
        embed = embeds[-1]
        if (
            len(embed.fields) >= FIELDS_MAX
            or len(embed) + len(name) + len(value) > EMBED_TOTAL_MAX - PART_ROOM
        ):
            embed = discord.Embed(title=first.title, colour=first.colour)
            embeds.append(embed)
        embed.add_field(name=name, value=value, inline=inline)
    if len(embeds) > 1:
        title = first.title or ""  # counted in each embed above: its mark is within PART_ROOM
        for number, embed in enumerate(embeds[1:], start=2):
            mark = f" (part {number} of {len(embeds)})"
            embed.title = clip(title, TITLE_MAX - len(mark)) + mark
        add_footer_line(first, f"Part 1 of {len(embeds)}: the rest follows.")
    return embeds


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
