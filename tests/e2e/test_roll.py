"""`/roll` end to end against the fake Discord with the seeded dice (DICE_SEED 1234).

The first roll of a fresh bot draws the same dice every time: ``2d6+3`` shows 6 and 2.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import FakeDiscord
from bot.store import RollRecord
from bot.ui.embeds import NEUTRAL

FIRST = "2d6 (**6**, 2) + 3 = `11`"  # 2d6+3 with DICE_SEED 1234


async def roll(
    harness: Harness, world: World, user: Any = None, channel: Any = None, **options: Any
) -> Answer:
    return await harness.slash(world.guild, channel or world.general, user or world.alice, "roll", options)


async def logged(harness: Harness, world: World) -> list[RollRecord]:
    return await harness.bot.store.log.last(world.guild.id, world.general.id)


def assert_hides_the_result(text: str) -> None:
    for secret in (": 11", "`11`", "**6**", "2d6", "Damage"):  # not "11" alone: ids may hold it
        assert secret not in text, f"{secret!r} leaked into {text!r}"


async def test_a_seeded_roll_shows_title_and_one_line_and_is_logged_once(
    harness: Harness, world: World
) -> None:
    answer = await roll(harness, world, expression="2d6+3", label="Damage")
    assert not answer.ephemeral
    embed = answer.embed
    assert embed["title"] == "Alice - Damage: 11"
    assert embed["description"] == FIRST
    assert "fields" not in embed and embed["color"] == NEUTRAL.value
    assert answer.original.allowed_mentions == {"parse": []}
    [record] = await logged(harness, world)
    assert (record.system, record.command, record.visibility) == ("dice", "roll", "public")
    assert record.user_id == world.alice.id
    assert record.inputs == {"expression": "2d6+3", "label": "Damage"}
    assert record.dice == [6, 2] and record.result == FIRST
    assert record.summary == "Damage: 2d6+3 = 11"


async def test_without_a_label_the_title_names_the_expression(harness: Harness, world: World) -> None:
    answer = await roll(harness, world, expression="2D6 + 3")
    assert answer.embed["title"] == "Alice - 2d6 + 3: 11"


async def test_keep_highest_marks_the_dropped_die(harness: Harness, world: World) -> None:
    answer = await roll(harness, world, expression="4d6kh3", label="Strength")
    assert answer.embed["title"] == "Alice - Strength: 11"
    assert answer.embed["description"] == "4d6kh3 (**6**, 2, 3, ~~2~~) = `11`"


async def test_the_log_command_lists_the_roll(harness: Harness, world: World) -> None:
    await roll(harness, world, expression="2d6+3", label="Damage")
    answer = await harness.slash(world.guild, world.general, world.bob, "log", {})
    assert "/roll: Damage: 2d6+3 = 11 [dice 6 2]" in answer.text()


async def test_private_roll(harness: Harness, world: World) -> None:
    answer = await roll(harness, world, expression="2d6+3", label="Damage", visibility="private")
    assert answer.ephemeral and answer.embed["title"] == "Alice - Damage: 11"
    [notice] = answer.public()
    assert notice.content == f"🎲 {world.alice.mention} made a private roll (dice)."
    assert_hides_the_result(notice.text())
    [record] = await logged(harness, world)
    assert record.visibility == "private"


async def test_gm_roll_goes_to_the_gm_channel_and_can_be_revealed(harness: Harness, world: World) -> None:
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    answer = await roll(harness, world, expression="2d6+3", label="Damage", visibility="gm")
    assert answer.ephemeral and answer.original.embeds[0]["description"] == FIRST
    [gm_copy] = answer.in_channel(world.gm_screen)
    assert gm_copy.embed["title"] == "Alice - Damage: 11"
    assert gm_copy.custom_ids()[0].startswith("reveal:")
    [notice] = [m for m in answer.public() if m.channel_id == world.general.id]
    assert notice.content == f"🎲 {world.alice.mention} made a roll for the GM (dice)."
    [record] = await logged(harness, world)
    assert record.visibility == "gm" and gm_copy.custom_ids() == [f"reveal:{record.id}"]
    revealed = await harness.click(gm_copy, "Reveal", world.gm)
    [post] = revealed.in_channel(world.general)
    assert post.embed["title"] == "Alice - Damage: 11" and post.embed["description"] == FIRST


async def test_blind_roll_tells_the_roller_nothing(harness: Harness, world: World) -> None:
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    answer = await roll(harness, world, expression="2d6+3", label="Damage", visibility="blind")
    assert answer.ephemeral and answer.content == "Your roll went to the GM."
    assert answer.original.embeds == []
    [gm_copy] = answer.in_channel(world.gm_screen)
    assert gm_copy.embed["title"] == "Alice - Damage: 11"
    for message in answer.messages:
        if message.channel_id != world.gm_screen.id:
            assert_hides_the_result(message.text())
    [record] = await logged(harness, world)
    assert record.visibility == "blind"


async def test_gm_roll_by_dm_when_no_gm_channel_is_set(harness: Harness, world: World) -> None:
    await harness.bot.store.gm.add_channel_gm(world.guild.id, world.general.id, world.gm.id)
    answer = await roll(harness, world, expression="2d6+3", visibility="gm")
    [dm] = answer.dms(world.gm)
    assert dm.embed["description"] == FIRST and dm.custom_ids()[0].startswith("reveal:")


async def test_channel_default_visibility_applies(harness: Harness, world: World) -> None:
    await harness.bot.store.settings.set_channel_visibility(world.guild.id, world.general.id, "private")
    answer = await roll(harness, world, expression="d100")
    assert answer.ephemeral and len(answer.public()) == 1
    [record] = await logged(harness, world)
    assert record.visibility == "private"


async def test_in_a_dm_public_works_and_gm_is_refused(harness: Harness, world: World) -> None:
    public = await harness.slash(None, None, world.stranger, "roll", {"expression": "2d6+3"})
    assert not public.ephemeral and public.embed["title"] == "Stranger - 2d6+3: 11"
    refused = await harness.slash(
        None, None, world.stranger, "roll", {"expression": "1d6", "visibility": "gm"}
    )
    assert refused.ephemeral and refused.content == (
        "GM and blind rolls work only in a server channel; in DMs use public or private."
    )


async def test_names_and_labels_are_not_markdown(harness: Harness, world: World, fake: FakeDiscord) -> None:
    bea = fake.add_user("b*e_a")
    fake.add_member(world.guild, bea)
    answer = await roll(harness, world, user=bea, expression="1d6[**fire**]+2", label="@everyone ~~Boom~~")
    title = answer.embed["title"]
    assert title.startswith("B\\*E\\_A - @everyone \\~\\~Boom\\~\\~: ")
    assert "[\\*\\*fire\\*\\*]" in answer.embed["description"]
    assert answer.original.allowed_mentions == {"parse": []}


async def test_bad_expressions_get_one_sentence_and_change_nothing(harness: Harness, world: World) -> None:
    cases = {
        "2d6+": "I can't read `2d6+` at position 5: the expression ends after `+`; "
        "try something like `2d6+3`.",
        "1d20!!": "I can't read `1d20!!` at position 5: `!!` does not belong there; "
        "try something like `2d6+3`.",
        "1000000d1000000": "`d1000000` in `1000000d1000000` is not a die I roll: dice have 1 to 10,000 "
        "sides (or `d%`).",
        "1001d6": "`1001d6` rolls 1,001 dice; I roll at most 1,000 in one expression.",
        "1000d6kh999": "`1000d6kh999` keeps, drops, rerolls or explodes among 1,000 dice (each operation "
        "counts the dice it looks at); I do that for at most 100 in one roll, so use fewer dice.",
        "1d1e1": "`1d1e1` kept rerolling or exploding past 100 extra dice, so I stopped; make the trigger "
        "rarer (`e6` on a d6, not `e>1`).",
        "1/0": "I can't roll `1/0`: cannot divide by zero.",
        "-" * 150 + "1": f"`{'-' * 150}1` nests 151 levels deep; I read at most 100.",
    }
    await harness.slash(world.guild, world.general, world.gm, "gm claim")  # a GM for the blind rolls
    for expression, sentence in cases.items():
        for visibility in ("public", "blind"):
            answer = await roll(harness, world, expression=expression, visibility=visibility)
            assert answer.ephemeral and answer.content == sentence, answer.content
            assert answer.public() == []
            # one answer; a blind roll refused only once rolled takes back the GM's copy it had opened
            assert [m for m in answer.messages if not m.deleted] == [answer.original]
    assert await logged(harness, world) == []


async def test_huge_numbers_and_many_dice_stay_compact(harness: Harness, world: World) -> None:
    big = await roll(harness, world, expression="99999999999999999999", label="Hoard")
    assert big.embed["title"] == "Alice - Hoard: 99999999999999999999"
    many = await roll(harness, world, expression="1000d6")
    description = many.embed["description"]
    assert description.startswith("1000d6 (") and "… 990 more) = `" in description
    assert "\n" not in description and len(description) <= 200
    record, _ = await logged(harness, world)  # newest first
    assert len(record.dice) == 1000 and many.embed["title"] == f"Alice - 1000d6: {sum(record.dice)}"


async def test_help_explains_free_dice(harness: Harness, world: World) -> None:
    answer = await harness.slash(world.guild, world.general, world.alice, "help", {"system": "roll"})
    assert answer.ephemeral and answer.embed["title"] == "Free dice (/roll)"
    limits = next(f["value"] for f in answer.embed["fields"] if f["name"] == "Limits")
    assert limits.startswith("200 characters, 1,000 dice of up to 10,000 sides")


async def test_rolls_at_once_are_each_logged_once_with_their_own_dice(harness: Harness, world: World) -> None:
    players = [world.alice, world.bob, world.carol] * 4
    answers = await asyncio.gather(
        *(roll(harness, world, user=p, expression="3d6", label=f"Roll {i}") for i, p in enumerate(players))
    )
    records = {
        r.summary.split(":")[0]: r
        for r in await harness.bot.store.log.last(world.guild.id, world.general.id, 25)
    }
    assert len(records) == len(players)
    for i, answer in enumerate(answers):
        record = records[f"Roll {i}"]
        shown = [int(face) for face in re.findall(r"\d+", answer.embed["description"].split("(")[1])]
        assert record.dice == shown[:3] and record.user_id == players[i].id
        assert answer.embed["title"].endswith(f": {sum(record.dice)}")
