"""Long listings in pages, turned with Previous / Next buttons that work after a restart.

A listing (the roll log, a player's sheets) registers a loader under a short kind: given the click (or
the command), the listing's ids and a page number, it reloads that page from the store. The buttons'
custom_id carries only those: ``page:<kind>:<asker>:<page>[:<id>...]``. Only the person who asked may
turn the pages; anyone else who gets a click through is answered with one ephemeral sentence.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import discord

from bot.ui.embeds import add_footer_line
from bot.ui.reply import ID_PATTERN, ErrorReportingItem, TableView, refuse, update_message

T = TypeVar("T")
MAX_ARGS = 3
STRANGER = "Only the person who asked for this list can turn its pages; run the command to get your own."
GONE = "This list can no longer be paged; run its command again."


@dataclass(frozen=True)
class Page:
    """One page of a listing: its embed, which page it is (from 1) and how many there are."""

    embed: discord.Embed
    number: int
    pages: int


#: A loader: (the interaction, the listing's ids, the page wanted) -> that page, the number clamped to
#: the pages there are now (the listing may have grown or shrunk since the buttons were sent).
Loader = Callable[[discord.Interaction[Any], tuple[int, ...], int], Awaitable[Page]]
_LOADERS: dict[str, Loader] = {}


def register(bot: discord.Client, kind: str, loader: Loader) -> None:
    """Page the listing ``kind`` with ``loader`` (a cog's setup calls this)."""
    _LOADERS[kind] = loader
    bot.add_dynamic_items(PageButton)


def page_count(total: int, size: int) -> int:
    """How many pages of ``size`` hold ``total`` entries (an empty listing is one empty page)."""
    return max(1, -(-total // size))


def clamp(number: int, pages: int) -> int:
    """A page number within 1..pages."""
    return min(max(number, 1), pages)


def window(entries: Sequence[T], number: int, size: int) -> Sequence[T]:
    """The entries on page ``number`` (from 1) of pages of ``size``."""
    return entries[(number - 1) * size : number * size]


async def load(
    interaction: discord.Interaction[Any], kind: str, args: tuple[int, ...], number: int, asker: int
) -> tuple[discord.Embed, discord.ui.View | None]:
    """Page ``number`` of the listing ``kind``: its embed, with "Page 2 of 5" in the footer when there are
    several, and the buttons to turn them (None for a single page)."""
    return present(await _LOADERS[kind](interaction, args, number), kind, args, asker)


def present(
    page: Page, kind: str, args: tuple[int, ...], asker: int
) -> tuple[discord.Embed, discord.ui.View | None]:
    """`load`'s answer for a page already loaded (a command that knows more than the ids, e.g. a name)."""
    if page.pages <= 1:
        return page.embed, None
    add_footer_line(page.embed, f"Page {page.number} of {page.pages}")
    view = TableView(timeout=None)
    view.add_item(PageButton(kind, asker, page.number - 1, args, "Previous", page.number == 1))
    view.add_item(PageButton(kind, asker, page.number + 1, args, "Next", page.number == page.pages))
    return page.embed, view


class PageButton(
    ErrorReportingItem,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"page:(?P<kind>[a-z]{{1,16}}):(?P<asker>{ID_PATTERN}):(?P<page>[0-9]{{1,6}})"
    rf"(?P<args>(?::{ID_PATTERN}){{0,{MAX_ARGS}}})",
):
    """Previous or Next on a paged listing: reloads the page it names and shows it in place."""

    def __init__(
        self,
        kind: str,
        asker: int,
        page: int,
        args: tuple[int, ...],
        label: str = "Next",
        disabled: bool = False,
    ) -> None:
        custom_id = f"page:{kind}:{asker}:{page}" + "".join(f":{arg}" for arg in args)
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.secondary, custom_id=custom_id, disabled=disabled
            )
        )
        self.kind, self.asker, self.page, self.args = kind, asker, page, args

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any] | None, match: Any, /
    ) -> PageButton:
        args = tuple(int(arg) for arg in match["args"].split(":")[1:])
        return cls(match["kind"], int(match["asker"]), int(match["page"]), args)

    async def allowed(self, interaction: discord.Interaction[Any]) -> bool:
        if interaction.user.id != self.asker:
            await refuse(interaction, STRANGER)
            return False
        if self.kind not in _LOADERS:
            await refuse(interaction, GONE)
            return False
        return True

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        embed, view = await load(interaction, self.kind, self.args, self.page, self.asker)
        await update_message(interaction, embed=embed, view=view)
