"""`/supply roll | show` and GM `/supply set` end to end (RULES.md DD-7, GM-2), including a burst of
concurrent rolls on one die and a die that survives a restart of the bot as a subprocess."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

from bot.core.decision import SupplyDie
from bot.local.fake.harness import Answer, Harness, SubprocessBot, World
from bot.local.fake.server import FakeDiscord
from bot.store import Holder, Store
from bot.store.models import MAX_NAME
from bot.ui.embeds import shown_name
from bot.ui.permissions import NOT_SERVER_GM
from cogs.supply import OTHERS_SUPPLIES
from tests.e2e.compact import assert_compact, compact_lines, open_details
from tests.e2e.test_decision import Scripted, field, upcoming
from tests.e2e.test_sheets import within_discord_limits

LADDER = [12, 10, 8, 6, 4, 0]


async def gm_set(harness: Harness, world: World, member: Any, item: str, die: int) -> Answer:
    return await harness.slash(
        world.guild, world.general, world.gm, "supply set", {"member": member, "item": item, "die": die}
    )


async def supply_roll(harness: Harness, world: World, item: str, user: Any = None, **options: Any) -> Answer:
    return await harness.slash(
        world.guild, world.general, user or world.alice, "supply roll", {"item": item, **options}
    )


async def stored(harness: Harness, world: World, item: str, character: str | None = None) -> int:
    """Alice's die of ``item``: her own (no sheet), else her character's."""
    holder = Holder("Alice", own=True) if character is None else Holder(character)
    return (await harness.bot.store.supply.get(world.guild.id, world.alice.id, holder, item)).die


def rolled(answer: Answer) -> tuple[int, int]:
    """(die sides, face) from a compact supply result: its first line is "d8 **3**: ..."."""
    first = compact_lines(answer.embed)[0]
    matched = re.match(r"d(\d+) \*\*(\d+)\*\*: ", first)
    assert matched, first
    return int(matched[1]), int(matched[2])


async def test_a_roll_of_3_or_lower_steps_the_die_down(harness: Harness, world: World) -> None:
    # DD-7
    assert (await gm_set(harness, world, world.alice, "Rope", 8)).embed["title"] == "Supply set: Rope"
    typed = await harness.autocomplete(
        world.guild, world.general, world.alice, "supply roll", {"item": "ro"}, "item"
    )
    assert typed.choices == [{"name": "Rope (d8)", "value": "Rope"}]
    harness.bot.rng = Scripted([3, 4])
    stepped = await supply_roll(harness, world, "rope")
    assert not stepped.ephemeral
    assert stepped.embed["title"] == "Alice - Rope: d8 steps down to d6"
    assert assert_compact(stepped.original) == ["d8 **3**: 3 or lower steps the die down"]
    assert await field(harness, stepped, "d8") == "3"
    assert await stored(harness, world, "Rope") == 6
    held = await supply_roll(harness, world, "Rope")
    assert held.embed["title"] == "Alice - Rope: d6 holds" and await field(harness, held, "d6") == "4"
    assert await stored(harness, world, "Rope") == 6
    [last, first] = await harness.bot.store.log.last(world.guild.id, world.general.id, 2)
    assert (first.dice, last.dice) == ([3], [4]) and first.command == "supply roll"


async def test_a_seeded_roll_steps_as_the_rule_says(harness: Harness, world: World) -> None:
    # DD-7 with the bot's own seeded dice
    await gm_set(harness, world, world.alice, "Torches", 10)
    [face] = upcoming(harness, 1, 10)
    answer = await supply_roll(harness, world, "Torches")
    assert rolled(answer) == (10, face)
    assert await stored(harness, world, "Torches") == (8 if face <= 3 else 10)


async def test_an_empty_die_is_refused_and_nothing_changes(harness: Harness, world: World) -> None:
    # DD-7: an empty item cannot be rolled, said clearly
    await gm_set(harness, world, world.alice, "Water", 4)
    harness.bot.rng = Scripted([1])
    last = await supply_roll(harness, world, "Water")
    assert last.embed["title"] == "Alice - Water: d4 runs out"
    assert assert_compact(last.original)[1] == "Alice has run out of Water."
    assert "run out of Water" in await field(harness, last, "Supply")
    before = await harness.bot.store.log.last(world.guild.id, world.general.id, 10)
    refused = await supply_roll(harness, world, "water")
    assert refused.ephemeral and refused.public() == []
    assert refused.content == (
        "Alice's Water is empty: it cannot be rolled until a GM restores it with /supply set."
    )
    assert await stored(harness, world, "Water") == 0
    assert await harness.bot.store.log.last(world.guild.id, world.general.id, 10) == before
    assert harness.bot.rng.faces == []  # nothing was rolled
    restored = await gm_set(harness, world, world.alice, "Water", 12)
    assert "empty → **d12**" in restored.embed["description"]


async def test_an_unknown_item_asks_the_gm(harness: Harness, world: World) -> None:
    answer = await supply_roll(harness, world, "Rations")
    assert answer.ephemeral and answer.content == (
        "Alice has no supply of Rations yet: ask a GM to set it with /supply set."
    )


async def test_set_is_gm_only(harness: Harness, world: World) -> None:
    # GM-2: a player is refused and nothing changes; a GM sets any size
    refused = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "supply set",
        {"member": world.alice, "item": "Rope", "die": 12},
    )
    assert refused.ephemeral and "Only a GM" in refused.content and refused.public() == []
    assert await harness.bot.store.supply.list(world.guild.id, world.alice.id) == []
    accepted = await gm_set(harness, world, world.alice, "Rope", 12)
    assert accepted.ephemeral and "new: **d12**" in accepted.embed["description"]  # the GM's own answer
    [notice] = accepted.public()  # and the table's
    assert notice.embeds[0]["description"] == "Alice's Rope: **d12** (set by Gamemaster)."
    assert await stored(harness, world, "Rope") == 12


async def test_a_new_nickname_keeps_a_member_s_own_supplies(harness: Harness, world: World) -> None:
    # DD-7: a member with no sheet holds their supplies themself, whatever they are called on the server
    await gm_set(harness, world, world.alice, "Rope", 8)
    world.guild.members[world.alice.id].nick = "Ally the Bold"
    typed = await harness.autocomplete(
        world.guild, world.general, world.alice, "supply roll", {"item": "r"}, "item"
    )
    assert typed.choices == [{"name": "Rope (d8)", "value": "Rope"}]
    harness.bot.rng = Scripted([5])
    kept = await supply_roll(harness, world, "Rope")
    assert not kept.ephemeral and kept.embed["title"] == "Ally the Bold - Rope: d8 holds"
    shown = await harness.slash(world.guild, world.general, world.gm, "supply show", {"member": world.alice})
    assert shown.embed["title"] == "Supplies of Ally the Bold"
    assert await field(harness, shown.embed, "Ally the Bold") == "Rope: **d8**"
    restored = await gm_set(harness, world, world.alice, "Rope", 12)  # the same die, not a second one
    assert "Ally the Bold's Rope: d8 → **d12**" in restored.embed["description"]
    # DD-7: the size before is the GM's alone (after a hidden supply roll it would tell how that went)
    [notice] = restored.public()
    assert notice.embeds[0]["description"] == "Ally the Bold's Rope: **d12** (set by Gamemaster)."
    world.guild.members[world.alice.id].nick = None
    assert await stored(harness, world, "Rope") == 12
    assert [(s.character, s.item, s.die, s.own) for s in await harness.bot.store.supply.list(
        world.guild.id, world.alice.id
    )] == [("Ally the Bold", "Rope", 12, True)]  # fmt: skip
    back = await harness.slash(world.guild, world.general, world.alice, "supply show")
    assert await field(harness, back.embed, "Alice") == "Rope: **d12**"


async def test_own_supplies_stay_rollable_beside_a_new_sheet_s(harness: Harness, world: World) -> None:
    # DD-7: set before the member's first decision sheet, under a nickname since dropped
    world.guild.members[world.alice.id].nick = "Ally"
    await gm_set(harness, world, world.alice, "Rope", 8)
    world.guild.members[world.alice.id].nick = None
    await harness.bot.store.sheets.create(
        {"guild_id": world.guild.id, "owner_id": world.alice.id, "name": "Mira", "system": "decision"}
    )
    await gm_set(harness, world, world.alice, "Arrows", 6)
    typed = await harness.autocomplete(
        world.guild, world.general, world.alice, "supply roll", {"item": ""}, "item"
    )
    assert typed.choices == [
        {"name": "Arrows (d6)", "value": "Arrows"},
        {"name": "Rope (d8)", "value": "Rope"},
    ]
    harness.bot.rng = Scripted([6])
    rope = await supply_roll(harness, world, "Rope")
    assert rope.embed["title"] == "Alice - Rope: d8 holds"
    shown = await harness.slash(world.guild, world.general, world.alice, "supply show")
    assert await field(harness, shown.embed, "Mira") == "Arrows: **d6**"
    assert await field(harness, shown.embed, "Alice") == "Rope: **d8**"
    # the GM now sets Mira's rope: it replaces the one Alice had before her sheet
    reset = await gm_set(harness, world, world.alice, "Rope", 10)
    assert "Mira's Rope: d8 → **d10**" in reset.embed["description"]
    harness.bot.rng = Scripted([6])
    assert (await supply_roll(harness, world, "Rope")).embed["title"] == "Mira - Rope: d10 holds"
    assert await stored(harness, world, "Rope", character="Mira") == 10
    assert [s.item for s in await harness.bot.store.supply.list(world.guild.id, world.alice.id)] == [
        "Arrows", "Rope"
    ]  # fmt: skip


async def test_an_item_the_gm_emptied_stays_empty_on_another_sheet(harness: Harness, world: World) -> None:
    # DD-7: the GM's set is the die left to roll; the member's own one, set before their sheets, is gone
    store = harness.bot.store
    await gm_set(harness, world, world.alice, "Rations", 12)
    for name in ("Mira", "Nox"):
        await harness.slash(
            world.guild, world.general, world.alice, "sheet create", {"name": name, "system": "decision"}
        )
    await harness.slash(world.guild, world.general, world.alice, "sheet use", {"name": "Mira"})
    emptied = await gm_set(harness, world, world.alice, "Rations", 0)
    assert "Mira's Rations: d12 → **empty**" in emptied.embed["description"]  # the die she was rolling
    assert [(s.character, s.die, s.own) for s in await store.supply.list(world.guild.id, world.alice.id)] == [
        ("Mira", 0, False)
    ]
    for name in ("Mira", "Nox"):
        await harness.slash(world.guild, world.general, world.alice, "sheet use", {"name": name})
        refused = await supply_roll(harness, world, "Rations")
        assert refused.ephemeral and refused.public() == [], name
    await harness.slash(
        world.guild, world.general, world.alice, "sheet delete", {"name": "Mira", "confirm": True}
    )
    assert (await supply_roll(harness, world, "Rations")).content == (
        "Nox has no supply of Rations yet: ask a GM to set it with /supply set."
    )


async def test_another_player_s_supplies_are_for_the_gms_to_see(harness: Harness, world: World) -> None:
    # a private or gm supply roll's step shows in the die's size: only its roller and the GMs learn it
    await gm_set(harness, world, world.alice, "Rations", 8)
    peek = await harness.slash(world.guild, world.general, world.bob, "supply show", {"member": world.alice})
    assert peek.ephemeral and peek.content == OTHERS_SUPPLIES and peek.original.embeds == []
    own = await harness.slash(world.guild, world.general, world.alice, "supply show", {"member": world.alice})
    assert await field(harness, own.embed, "Alice") == "Rations: **d8**"
    gm = await harness.slash(world.guild, world.general, world.gm, "supply show", {"member": world.alice})
    assert await field(harness, gm.embed, "Alice") == "Rations: **d8**"


async def test_a_roll_of_an_item_you_lack_bothers_no_gm(harness: Harness, world: World) -> None:
    # refused before the GMs' copies are opened: no GM is notified of a roll that never happened
    await harness.slash(world.guild, world.general, world.gm, "gm claim", {})
    for visibility in ("gm", "private"):
        answer = await supply_roll(harness, world, "Rope", visibility=visibility)
        assert answer.ephemeral and "has no supply of Rope" in answer.content
        assert answer.messages == [answer.original]  # no GM copy, not even one deleted again
    await gm_set(harness, world, world.alice, "Rope", 0)
    empty = await supply_roll(harness, world, "Rope", visibility="gm")
    assert "is empty" in empty.content and empty.messages == [empty.original]


async def test_the_character_is_the_active_decision_sheet(harness: Harness, world: World) -> None:
    await harness.bot.store.sheets.create(
        {"guild_id": world.guild.id, "owner_id": world.alice.id, "name": "Mira", "system": "decision"}
    )
    answer = await gm_set(harness, world, world.alice, "Arrows", 6)
    assert "Mira's Arrows" in answer.embed["description"]
    assert await stored(harness, world, "Arrows", character="Mira") == 6
    shown = await harness.slash(world.guild, world.general, world.gm, "supply show", {"member": world.alice})
    assert shown.ephemeral
    assert await field(harness, shown.embed, "Mira") == "Arrows: **d6**"
    mine = await harness.slash(world.guild, world.general, world.bob, "supply show")
    assert "No supply dice yet" in mine.embed["description"]


async def test_a_supply_set_before_the_first_sheet_is_still_rolled(harness: Harness, world: World) -> None:
    # DD-7: set while Alice had no decision sheet, it was kept under her name; her sheet came later
    await gm_set(harness, world, world.alice, "Torches", 6)
    await harness.bot.store.sheets.create(
        {"guild_id": world.guild.id, "owner_id": world.alice.id, "name": "Mira", "system": "decision"}
    )
    offered = await harness.autocomplete(
        world.guild, world.general, world.alice, "supply roll", {"item": ""}, "item"
    )
    assert [c["value"] for c in offered.choices] == ["Torches"]
    # /odds supply finds it as /supply roll does, and offers it
    odds = await harness.slash(world.guild, world.general, world.alice, "odds supply", {"item": "Torches"})
    assert odds.ephemeral and odds.embed["title"] == "Odds: Alice's Torches (d6)"
    offered = await harness.autocomplete(
        world.guild, world.general, world.alice, "odds supply", {"item": ""}, "item"
    )
    assert [c["value"] for c in offered.choices] == ["Torches"]
    harness.bot.rng = random.Random(1)
    answer = await supply_roll(harness, world, "Torches")
    assert not answer.ephemeral and "Torches" in answer.embed["title"]
    assert len(await harness.bot.store.log.last(world.guild.id, world.general.id, 5)) == 1
    # once the GM sets one for Mira, Mira's is the one rolled
    await gm_set(harness, world, world.alice, "Torches", 12)
    again = await supply_roll(harness, world, "Torches")
    assert "Mira" in again.embed["title"] and "d12" in again.original.text()


async def test_supply_is_guild_only(harness: Harness, world: World, fake: FakeDiscord) -> None:
    synced = {c["name"]: c for c in fake.global_commands}
    assert synced["supply"]["contexts"] == [0]


async def burst(harness: Harness, world: World, item: str, n: int = 20) -> list[Answer]:
    return list(await asyncio.gather(*(supply_roll(harness, world, item) for _ in range(n))))


def check_burst(start: int, answers: list[Answer], final: int) -> list[tuple[int, int]]:
    """DD-7 under concurrency: one step per shown roll of 3 or lower, never below empty."""
    shown = [rolled(a) for a in answers if not a.ephemeral]
    refusals = [a.content for a in answers if a.ephemeral]
    for text in refusals:
        assert "is empty: " in text or "roll again" in text, text
    stepped = sorted((die for die, face in shown if face <= 3), key=LADDER.index)
    # each size steps at most once and the steps run down the ladder from the start
    assert stepped == LADDER[LADDER.index(start) : LADDER.index(start) + len(stepped)]
    assert final == LADDER[LADDER.index(start) + len(stepped)]
    for die, _ in shown:  # every shown roll rolled a size the die had at some point
        assert LADDER.index(start) <= LADDER.index(die) <= LADDER.index(final)
    assert len(shown) + len(refusals) == len(answers)
    return shown


async def test_twenty_concurrent_rolls_step_as_the_log_says(harness: Harness, world: World) -> None:
    # DD-7: concurrent rolls on one die through the bot
    await gm_set(harness, world, world.alice, "Rations", 12)
    answers = await burst(harness, world, "Rations")
    final = await stored(harness, world, "Rations")
    shown = check_burst(12, answers, final)
    log = await harness.bot.store.log.last(world.guild.id, world.general.id, 50)
    supply_log = [r for r in log if r.command == "supply roll"]
    assert sorted(r.dice[0] for r in supply_log) == sorted(face for _, face in shown)
    stepped_in_log = [r for r in supply_log if "→" in r.result]
    assert len(stepped_in_log) == LADDER.index(final)


async def test_concurrent_rolls_of_a_last_d4_leave_it_empty_and_refuse_the_rest(
    harness: Harness, world: World
) -> None:
    # DD-7: never below empty; every roll after it emptied is refused as empty
    await gm_set(harness, world, world.alice, "Oil", 4)
    harness.bot.rng = _Ones()
    answers = await burst(harness, world, "Oil")
    assert await stored(harness, world, "Oil") == 0
    shown = check_burst(4, answers, 0)
    assert shown == [(4, 1)]
    assert sum("is empty: " in a.content for a in answers if a.ephemeral) == 19


class _Ones(random.Random):
    """Every die shows 1 (every supply roll steps down)."""

    def randint(self, a: int, b: int) -> int:
        return 1


async def test_a_supply_die_survives_a_restart(fake: FakeDiscord, world: World, tmp_path: Path) -> None:
    # DD-7: persisted; after a full restart the bot rolls the stored size
    database = tmp_path / "bot.db"
    first = await SubprocessBot.launch(fake, database)
    try:
        await first.slash(
            world.guild,
            world.general,
            world.gm,
            "supply set",
            {"member": world.alice, "item": "Rope", "die": 6},
        )
        before = await first.slash(world.guild, world.general, world.alice, "supply roll", {"item": "Rope"})
    finally:
        await first.stop()
    assert first.process.returncode == 0 and first.error_lines() == []
    die, face = rolled(before)
    assert die == 6
    kept = 4 if face <= 3 else 6
    second = await SubprocessBot.launch(fake, database)
    try:
        after = await second.slash(world.guild, world.general, world.alice, "supply roll", {"item": "Rope"})
        shown = await second.slash(world.guild, world.general, world.alice, "supply show")
    finally:
        await second.stop()
    assert second.error_lines() == []
    die_after, face_after = rolled(after)
    assert die_after == kept
    expected = SupplyDie(kept).step_down() if face_after <= 3 else SupplyDie(kept)
    assert re.search(rf"Rope: \*\*{expected.label}\*\*", shown.embed["fields"][0]["value"])
    store = await Store.open(database)
    try:
        assert (
            await store.supply.get(world.guild.id, world.alice.id, Holder("Alice", own=True), "Rope")
        ).die == expected.sides
    finally:
        await store.close()
    assert fake.violations == []


async def test_item1_a_supply_roll_is_a_title_and_at_most_three_lines(harness: Harness, world: World) -> None:
    await gm_set(harness, world, world.alice, "Rope", 4)
    harness.bot.rng = Scripted([2])
    answer = await supply_roll(harness, world, "Rope")
    assert answer.embed["title"] == "Alice - Rope: d4 runs out"
    assert assert_compact(answer.original) == [
        "d4 **2**: 3 or lower, and it was the last size",
        "Alice has run out of Rope.",
    ]
    details = await open_details(harness, answer.original, world.bob)
    assert "DD-7" in details["footer"]["text"] and "Exactly 3/4" in details["fields"][-1]["value"]


async def test_many_long_items_are_all_shown_within_discord_s_limits(harness: Harness, world: World) -> None:
    # one field held all of a character's items, and Discord's 1,024 characters cut off most of 40 long ones
    store = harness.bot.store
    dice = [12, 10, 8, 6, 4, 0]
    held: dict[str, dict[str, str]] = {"Alice": {}, "Mira": {}}
    for character, holder in (("Alice", Holder("Alice", own=True)), ("Mira", Holder("Mira"))):
        for i in range(40):
            # markdown characters are escaped when shown: underscores make the longest names to show
            item = f"{character[0]}{i:02d}" + "_" * (MAX_NAME - 3)
            supply = await store.supply.set(world.guild.id, world.alice.id, holder, item, dice[i % 6])
            held[character][shown_name(item)] = supply.label
    shown = await harness.slash(world.guild, world.general, world.alice, "supply show")
    messages = [m for m in shown.messages if not m.deleted]
    assert all(m.ephemeral for m in messages) and len(messages) > 1  # 80 such items pass 6,000 characters
    for message in messages:
        within_discord_limits(message)
    fields = [f for m in messages for e in m.embeds for f in e.get("fields", [])]
    for character, items in held.items():
        lines = [
            line
            for f in fields
            if f["name"] in (character, f"{character} (continued)")
            for line in f["value"].splitlines()
        ]
        assert lines == [f"{item}: **{label}**" for item, label in items.items()]


async def test_a_gm_of_one_channel_neither_sets_nor_sees_supply_dice(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    # GM-1, GM-2, DD-7: supply dice are the character's in every channel, so a GM of one channel (a
    # player running a side scene) could restore their own empty rations for the whole server: refused,
    # as is seeing another player's dice (their size tells how a hidden roll went)
    side = fake.add_channel(world.guild, "side-scene")
    await gm_set(harness, world, world.alice, "Rations", 4)
    await gm_set(harness, world, world.bob, "Torches", 8)
    made = await harness.slash(
        world.guild, side, world.owner, "setup channel-gm add", {"member": world.alice}
    )
    assert made.ephemeral and "Alice" in made.content
    for member, item in ((world.alice, "Rations"), (world.bob, "Torches")):
        refused = await harness.slash(
            world.guild, side, world.alice, "supply set", {"member": member, "item": item, "die": 12}
        )
        assert refused.ephemeral and refused.public() == [] and refused.content == NOT_SERVER_GM
    peek = await harness.slash(world.guild, side, world.alice, "supply show", {"member": world.bob})
    assert peek.ephemeral and peek.content == OTHERS_SUPPLIES
    assert await stored(harness, world, "Rations") == 4  # unchanged
    # while in that channel she is GM for what is the channel's own: a GM modifier there, say
    modifier = await harness.slash(
        world.guild, side, world.alice, "gm modifier", {"system": "decision", "kind": "advantage"}
    )
    assert "advantage" in modifier.text().lower()
    # and a GM of the server (by role) still sets and sees them from any channel
    restored = await harness.slash(
        world.guild, side, world.gm, "supply set", {"member": world.alice, "item": "Rations", "die": 12}
    )
    assert len(restored.public()) == 1 and await stored(harness, world, "Rations") == 12
    shown = await harness.slash(world.guild, side, world.gm, "supply show", {"member": world.bob})
    assert "Torches" in shown.text()
