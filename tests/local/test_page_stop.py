"""The local table's page stops when asked, whatever its watch of the stand-in was doing at that moment."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.local.stand_in import FakeDiscord
from bot.local.web import TablePage, listen
from bot.local.world import TableWorld


async def test_the_page_stops_even_when_a_change_arrives_as_it_is_stopped(tmp_path: Path) -> None:
    # Python 3.11's wait_for returns the inner result when a cancel lands just as that result arrives,
    # and the watch loop then ran on forever: a table that never stopped on Ctrl+C (seen once in CI).
    fake = FakeDiscord(validate=False)
    await fake.start()
    try:
        world, _ = TableWorld.open(fake, tmp_path)
        for turns in range(8):  # how far the poke has got when the stop arrives
            page = TablePage(fake, world)
            await page.start(listen(0))
            await asyncio.sleep(0.02)  # the watch is waiting for a poke
            page.poke()
            for _ in range(turns):
                await asyncio.sleep(0)
            stopping = asyncio.create_task(page.stop())
            done, _ = await asyncio.wait({stopping}, timeout=5)
            if not done:
                stopping.cancel()
            assert done, f"the page did not stop when the stop came {turns} turns after a change"
            stopping.result()
    finally:
        await fake.stop()
