"""A sustained pool survives a full restart of the bot as a subprocess, and its old button still works."""

from __future__ import annotations

from pathlib import Path

from bot.local.fake.harness import SubprocessBot, World
from bot.local.fake.server import FakeDiscord
from bot.store import Store
from tests.e2e.compact import open_details


def _fields(embed: dict[str, str | list[dict[str, str]]]) -> dict[str, str]:
    return {f["name"]: f["value"] for f in embed.get("fields", [])}  # type: ignore[union-attr,index]


async def test_pool_button_works_after_a_restart(fake: FakeDiscord, world: World, tmp_path: Path) -> None:
    # RPS-8 (persisted per channel), GM-4 (owner's button) across a restart
    database = tmp_path / "bot.db"
    first = await SubprocessBot.launch(fake, database)
    try:
        started = await first.slash(
            world.guild,
            world.general,
            world.gm,
            "rps sustained start",
            {"name": "Break the seal", "goal": 50, "minutes": 30, "member": world.alice, "base": 14},
        )
    finally:
        await first.stop()
    assert first.process.returncode == 0 and first.error_lines() == []
    message = started.original
    custom_id = message.custom_ids()[0]
    assert custom_id.startswith("rpspool:") and "0/50" in _fields(message.embed)["Progress"]

    edits = message.edits
    second = await SubprocessBot.launch(fake, database)
    try:
        stranger = await second.click(message, custom_id, world.bob)
        assert stranger.ephemeral and "Only the player who started this" in stranger.content
        assert message.edits == edits
        clicked = await second.click(message, custom_id, world.alice)
        assert not clicked.ephemeral
        assert clicked.original.embed["title"].startswith("Alice - Break the seal: SL ")
        result = await open_details(second, clicked.original, world.bob)
        assert result["title"].startswith("RPS sustained action Break the seal")
        shown = _fields(result)
        sl = int(shown["Success Level"].split("= ")[1].split(";")[0])  # Base 14 - roll, recomputable
        dice = [int(d) for d in shown["Dice (2d10)"].split(" = ")[0].split(" + ")]
        assert sl == 14 - sum(dice)
    finally:
        await second.stop()
    assert second.process.returncode == 0 and second.error_lines() == []
    assert message.edits == 1 and _fields(message.embed)["Checks made"] == "1"
    assert "30 minutes" in _fields(message.embed)["Time spent"]
    async with await Store.open(database) as store:
        [pool] = await store.pools.list(world.guild.id, world.general.id, running_only=False)
    assert pool.checks_made == 1 and pool.message_id == message.id
    assert fake.violations == []


async def test_a_second_try_is_granted_and_taken_across_restarts(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:  # RPS-9: the Grant, modifier and Try again buttons carry ids only and reload from the store
    database = tmp_path / "bot.db"
    first = await SubprocessBot.launch(fake, database)
    try:
        failed = await first.slash(world.guild, world.general, world.alice, "rps check", {"base": -200})
    finally:
        await first.stop()
    [grant_id] = [c for c in failed.original.custom_ids() if c.startswith("rps:grant:")]
    second = await SubprocessBot.launch(fake, database)
    try:
        asked = await second.click(failed.original, grant_id, world.gm)
        [select] = asked.original.custom_ids()
    finally:
        await second.stop()
    third = await SubprocessBot.launch(fake, database)
    try:
        granted = await third.click(asked.original, select, world.gm, values=["5"])
        [offered] = [m for m in granted.in_channel(world.general) if m.custom_ids()]
    finally:
        await third.stop()
    fourth = await SubprocessBot.launch(fake, database)
    try:
        taken = await fourth.click(offered, "Try again", world.alice)
        details = await fourth.click(taken.original, "Details", world.alice)
        assert _fields(details.original.embed)["Base"] == "-195 = given Base -200 + second try (+5)"
    finally:
        await fourth.stop()
    assert all(bot.error_lines() == [] for bot in (first, second, third, fourth))
    assert offered.custom_ids() == [] and fake.violations == []
