"""Long listings page with Previous / Next (`bot.ui.pages`): `/log` and `/sheet list`, end to end.

Each click reloads its page from the store (so the buttons work after a restart), shows "Page 2 of 5",
and only the person who asked can turn the pages of their listing.
"""

from __future__ import annotations

from pathlib import Path

from bot.local.fake.harness import Harness, World
from bot.local.fake.server import FakeDiscord
from bot.local.fake.world import FakeMessage
from bot.store import RollRecord
from bot.ui.pages import STRANGER
from tests.e2e.conftest import running_bot


async def add_rolls(harness: Harness, world: World, n: int, words: str = "") -> None:
    for i in range(n):
        await harness.bot.store.log.add(
            RollRecord(
                guild_id=world.guild.id,
                channel_id=world.general.id,
                user_id=world.alice.id,
                system="dn",
                command="dn check",
                result=f"roll number {i:02d}{words}",
            )
        )


def numbers(message: FakeMessage) -> list[int]:
    return [int(line.split("roll number ")[1][:2]) for line in message.embed["description"].splitlines()]


def disabled(message: FakeMessage, label: str) -> bool:
    return bool(message.component(label).get("disabled"))


async def test_item14_log_pages_with_previous_and_next(harness: Harness, world: World) -> None:
    await add_rolls(harness, world, 25)
    first = await harness.slash(world.guild, world.general, world.alice, "log")
    message = first.original
    assert first.ephemeral and numbers(message) == list(range(15, 25))  # the newest ten, oldest first
    assert message.embed["footer"]["text"] == "Page 1 of 3"
    assert disabled(message, "Previous") and not disabled(message, "Next")
    assert all(cid.startswith("page:log:") for cid in message.custom_ids())
    turned = await harness.click(message, "Next", world.alice)
    assert turned.edited_in_place
    assert numbers(message) == list(range(5, 15)) and message.embed["footer"]["text"] == "Page 2 of 3"
    await harness.click(message, "Next", world.alice)
    assert numbers(message) == list(range(5)) and message.embed["footer"]["text"] == "Page 3 of 3"
    assert disabled(message, "Next") and not disabled(message, "Previous")
    await harness.click(message, "Previous", world.alice)
    assert numbers(message) == list(range(5, 15)) and message.embed["footer"]["text"] == "Page 2 of 3"
    # a page size of its own, and one page: no buttons
    most = await harness.slash(world.guild, world.general, world.alice, "log", {"count": 25})
    assert numbers(most.original) == list(range(25)) and most.original.components == []


async def test_item14_a_full_page_of_long_rolls_is_shown_whole(harness: Harness, world: World) -> None:
    # before paging, the listing was cut at 4,000 characters: a page of 25 long lines must fit whole
    await add_rolls(harness, world, 30, words=" " + "long words " * 30)
    answer = await harness.slash(world.guild, world.general, world.alice, "log", {"count": 25})
    lines = answer.original.embed["description"].splitlines()
    assert len(lines) == 25 and all("roll number" in line for line in lines)
    assert answer.original.embed["footer"]["text"] == "Page 1 of 2"


async def test_item14_only_the_asker_turns_the_pages(harness: Harness, world: World) -> None:
    await add_rolls(harness, world, 15)
    message = (await harness.slash(world.guild, world.general, world.alice, "log")).original
    before, edits = message.text(), message.edits  # (1 when the answer was slow enough to be deferred)
    stranger = await harness.click(message, "Next", world.bob)
    assert stranger.ephemeral and stranger.content == STRANGER
    assert message.text() == before and message.edits == edits


async def test_item14_log_pages_after_a_restart(fake: FakeDiscord, world: World, tmp_path: Path) -> None:
    database = tmp_path / "pages.db"
    async with running_bot(fake, tmp_path, database=database) as first:
        await add_rolls(first, world, 12)
        message = (await first.slash(world.guild, world.general, world.alice, "log", {"count": 5})).original
    assert message.embed["footer"]["text"] == "Page 1 of 3"
    async with running_bot(fake, tmp_path, database=database) as second:
        await add_rolls(second, world, 3)  # the log grew meanwhile: the pages are counted again
        turned = await second.click(message, "Next", world.alice)
    assert turned.edited_in_place
    assert numbers(message) == [5, 6, 7, 8, 9] and message.embed["footer"]["text"] == "Page 2 of 3"


async def test_item14_sheet_list_pages(harness: Harness, world: World) -> None:
    for n in range(18):
        await harness.slash(
            world.guild, world.general, world.alice, "sheet create", {"name": f"Hero {n:02d}", "system": "dn"}
        )
    own = await harness.slash(world.guild, world.general, world.alice, "sheet list")
    message = own.original
    assert own.ephemeral and message.embed["title"] == "Sheets of Alice"
    lines = message.embed["description"].splitlines()
    assert len(lines) == 15 and lines[0] == "▶ **Hero 00** (Difficulty Number, active)"
    assert message.embed["footer"]["text"].endswith("Page 1 of 2")
    await harness.click(message, "Next", world.alice)
    assert message.embed["description"].splitlines() == [
        f"• Hero {n} (Difficulty Number)" for n in (15, 16, 17)
    ]
    assert (
        message.embed["footer"]["text"].endswith("Page 2 of 2")
        and message.embed["title"] == "Sheets of Alice"
    )
    # bob lists alice's sheets and pages them himself; alice cannot turn bob's listing
    theirs = await harness.slash(world.guild, world.general, world.bob, "sheet list", {"member": world.alice})
    await harness.click(theirs.original, "Next", world.bob)
    assert theirs.original.embed["title"] == "Sheets of Alice"
    assert "Hero 17" in theirs.original.embed["description"]
    refused = await harness.click(theirs.original, "Previous", world.alice)
    assert refused.ephemeral and refused.content == STRANGER
