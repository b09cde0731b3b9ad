"""Whole-table scenarios across cogs: sheets made with /sheet feed /sysx; /gm modifiers feed one roll."""

from __future__ import annotations

import json
import random
from typing import Any

from bot.core import systemx as sx
from bot.core.dice import Dice
from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import FakeDiscord
from tests.e2e.compact import shown

CHART = sx.RollChart.model()
SEED = 1234  # the harness's DICE_SEED


def d20s(count: int) -> list[int]:
    dice = Dice(random.Random(SEED))
    return [dice.d20() for _ in range(count)]


async def run(harness: Harness, world: World, user: Any, path: str, options: dict[str, Any]) -> Answer:
    return await harness.slash(world.guild, world.general, user, path, options)


def field(embed: dict[str, Any], prefix: str) -> str:
    return next(f["value"] for f in embed.get("fields", []) if f["name"].startswith(prefix))


async def make_sheet(
    harness: Harness, world: World, user: Any, name: str, attribute: tuple[str, int], skill: tuple[str, int]
) -> None:
    made = await run(harness, world, user, "sheet create", {"name": name, "system": "sysx"})
    assert "Created" in made.content
    await run(
        harness,
        world,
        user,
        "sheet set-attribute",
        {"name": name, "attribute": attribute[0], "value": attribute[1]},
    )
    await run(
        harness,
        world,
        user,
        "sheet set-skill",
        {"name": name, "skill": skill[0], "rating": skill[1], "parent": attribute[0]},
    )


async def test_sheets_made_with_commands_drive_an_opposed_check_and_survive_export_import(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:  # SX-1, SX-8
    await make_sheet(harness, world, world.alice, "Ayla", ("Agility", 12), ("Stealth", 3))
    await make_sheet(harness, world, world.bob, "Brom", ("Senses", 11), ("Notice", 5))
    options = {"actor": world.alice, "target": world.bob, "actor_skill": "Stealth", "target_skill": "Notice"}
    first = await run(harness, world, world.alice, "sysx opposed", options)
    actor_roll, target_roll = d20s(2)
    actor = sx.check(CHART, 15, actor_roll)
    target = sx.check(CHART, 16, target_roll)
    final = sx.opposed(actor.margin, target.margin)
    assert first.embed["title"].startswith(f"Ayla (Stealth) vs Brom (Notice): {final.signed()}, ")
    assert "Agility 12 + Stealth 3 = 15" in field(await shown(harness, first), "Actor: Stealth")
    assert "Senses 11 + Notice 5 = 16" in field(await shown(harness, first), "Target: Notice")

    # export Alice's sheet, delete it, import it back: the same sheet drives the same Skill Value
    exported = await run(harness, world, world.alice, "sheet export", {"name": "Ayla"})
    [file] = exported.original.attachments
    before = await harness.bot.store.sheets.get(world.guild.id, world.alice.id, "Ayla")
    gone = await run(harness, world, world.alice, "sheet delete", {"name": "Ayla", "confirm": True})
    assert gone.content == "Deleted the sheet Ayla."
    assert await harness.bot.store.sheets.active(world.guild.id, world.alice.id, "sysx") is None
    imported = await run(
        harness, world, world.alice, "sheet import", {"file": fake.attachment(file.filename, file.data)}
    )
    assert "Imported Ayla" in imported.content
    after = await harness.bot.store.sheets.get(world.guild.id, world.alice.id, "Ayla")
    assert after.document() == before.document()
    assert json.loads(file.data)["skills"]["Stealth"]["rating"] == 3
    again = await run(harness, world, world.alice, "sysx opposed", options)
    assert "Agility 12 + Stealth 3 = 15" in field(await shown(harness, again), "Actor: Stealth")


async def test_a_gm_modifier_set_with_gm_modifier_is_consumed_by_exactly_one_roll(
    harness: Harness, world: World
) -> None:  # GM-3
    refused = await run(
        harness, world, world.alice, "gm modifier", {"system": "sysx", "kind": "roll", "value": "2"}
    )
    assert refused.ephemeral and not await harness.bot.store.modifiers.list(world.guild.id, world.general.id)
    set_ = await run(
        harness,
        world,
        world.gm,
        "gm modifier",
        {"system": "sysx", "kind": "roll", "value": "2", "member": world.alice},
    )
    assert set_.ephemeral
    rolls = d20s(2)
    first = await run(harness, world, world.alice, "sysx check", {"sv": 12})
    assert world.gm.mention in field(await shown(harness, first), "GM modifier")
    assert sx.check(CHART, 12, rolls[0], roll_modifier=2).margin.signed() in first.embed["title"]
    second = await run(harness, world, world.alice, "sysx check", {"sv": 12})
    assert not any(f["name"].startswith("GM modifier") for f in (await shown(harness, second))["fields"])
    assert sx.check(CHART, 12, rolls[1]).margin.signed() in second.embed["title"]
    listed = await run(harness, world, world.gm, "gm modifiers", {})
    assert listed.embed["description"] == "None in this channel."


async def test_a_roll_that_fails_before_its_log_row_keeps_the_gm_modifier_for_the_next_roll(
    harness: Harness, world: World
) -> None:  # GM-3
    await run(
        harness,
        world,
        world.gm,
        "gm modifier",
        {"system": "sysx", "kind": "roll", "value": "2", "member": world.alice},
    )
    store = harness.bot.store
    # the log write itself fails, for real, inside SQLite (a temporary trigger on the bot's own connection)
    await store.db.execute(
        "CREATE TEMP TRIGGER refuse_log BEFORE INSERT ON rolls BEGIN SELECT RAISE(ABORT, 'disk full'); END"
    )
    failed = await run(harness, world, world.alice, "sysx check", {"sv": 12})
    assert failed.ephemeral and "went wrong" in failed.content.lower()
    assert [r.levelname for r in harness.take_errors()] == ["ERROR"]
    [pending] = await store.modifiers.list(world.guild.id, world.general.id)
    assert pending.uses_left == 1, "the failed roll took the modifier's use"
    assert store.modifiers.ticket(failed.record.id) is None, "its reservation was not given back"
    await store.db.execute("DROP TRIGGER refuse_log")
    rolled = await run(harness, world, world.alice, "sysx check", {"sv": 12})
    assert world.gm.mention in field(await shown(harness, rolled), "GM modifier")
    assert await store.modifiers.list(world.guild.id, world.general.id) == []
