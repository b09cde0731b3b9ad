"""A hidden roll always reaches a GM, or is not rolled: GM channel, GMs who claimed the table, closed DMs.

With no GM channel, a gm or blind roll goes by DM to the GMs of its channel (made so with /setup
channel-gm, or who claimed it with /gm claim). When no GM can get it, the roll is refused before any die
is rolled: nothing logged, no public notice, and the roller is told why and how to fix it.
"""

from __future__ import annotations

from typing import Any

from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import FakeDiscord, posts_to
from bot.local.fake.world import FakeUser
from bot.ui.permissions import NOT_GM
from bot.ui.visibility import BLIND_ROLLER_TEXT, HOW_TO_REACH_A_GM, NO_GM_HERE


async def sysx(harness: Harness, world: World, user: FakeUser, visibility: str, **extra: Any) -> Answer:
    options = {"sv": 12, "visibility": visibility, **extra}
    return await harness.slash(world.guild, world.general, user, "sysx check", options)


async def gm(harness: Harness, world: World, user: FakeUser, sub: str, options: dict | None = None) -> Answer:
    return await harness.slash(world.guild, world.general, user, f"gm {sub}", options or {})


async def assert_not_rolled(harness: Harness, world: World, answer: Answer, state: object) -> None:
    """Refused before any die: one ephemeral sentence, no public trace, no copy, nothing logged."""
    assert answer.ephemeral and answer.original.embeds == []
    assert [m for m in answer.messages if not m.deleted] == [answer.original]
    assert BLIND_ROLLER_TEXT not in answer.text()
    assert harness.bot.rng.getstate() == state
    assert await harness.bot.store.log.last(world.guild.id, world.general.id, 5) == []


async def test_a_gm_by_role_claims_the_table_and_gets_its_hidden_rolls_by_dm(
    harness: Harness, world: World
) -> None:  # GM-1
    player = await gm(harness, world, world.alice, "claim")
    assert player.ephemeral and player.content == NOT_GM
    claimed = await gm(harness, world, world.gm, "claim")
    assert claimed.ephemeral and claimed.content.startswith("You have claimed this channel")
    assert "by DM" in claimed.content
    again = await gm(harness, world, world.gm, "claim")
    assert again.content.startswith("You already had this channel")
    for mode in ("gm", "blind"):
        answer = await sysx(harness, world, world.alice, mode)
        [dm] = answer.dms(world.gm)
        assert dm.embeds and dm.custom_ids()[0].startswith("reveal:")
        word = "Blind" if mode == "blind" else "GM"
        assert dm.content == f"🔒 {word} roll by {world.alice.mention} in <#{world.general.id}>."
        if mode == "blind":
            assert answer.content == BLIND_ROLLER_TEXT and answer.public() == []
        else:
            assert answer.original.embeds == dm.embeds and len(answer.public()) == 1
    logged = await harness.bot.store.log.last(world.guild.id, world.general.id, 5)
    assert [r.visibility for r in logged] == ["blind", "gm"]  # each once
    revealed = await harness.click(dm, "Reveal", world.gm)  # a claimed GM reveals from the DM
    assert len(revealed.in_channel(world.general)) == 1
    left = await gm(harness, world, world.gm, "unclaim")
    assert left.ephemeral and left.content.startswith("You no longer have this channel")
    state = harness.bot.rng.getstate()
    refused = await sysx(harness, world, world.alice, "blind")
    assert refused.content == NO_GM_HERE
    assert refused.dms(world.gm) == []
    assert harness.bot.rng.getstate() == state


async def test_a_claim_gives_no_rights_once_its_gm_loses_the_gm_role(
    harness: Harness, world: World
) -> None:  # GM-1, GM-2: a GM demoted by the server is no GM of the channels they claimed
    store = harness.bot.store
    await gm(harness, world, world.gm, "claim")
    answer = await sysx(harness, world, world.alice, "gm")
    [dm] = answer.dms(world.gm)
    # the server takes the GM role away (without the members intent the bot is not told)
    world.guild.members[world.gm.id].roles.remove(world.gm_role)
    refused = await gm(
        harness, world, world.gm, "modifier", {"system": "sysx", "kind": "roll", "value": "-4"}
    )
    assert refused.ephemeral and refused.content == NOT_GM
    assert await store.modifiers.list(world.guild.id, world.general.id) == []
    reveal = await harness.click(dm, "Reveal", world.gm)  # the DM copy they got as a GM
    assert reveal.ephemeral and reveal.in_channel(world.general) == []
    state = harness.bot.rng.getstate()
    blind = await sysx(harness, world, world.alice, "blind")  # no GM left to reach: not rolled
    assert blind.ephemeral and blind.original.embeds == [] and harness.bot.rng.getstate() == state
    assert "is no longer a GM" in blind.content and blind.dms(world.gm) == []
    assert len(await store.log.last(world.guild.id, world.general.id, 5)) == 1  # the gm roll alone
    # an admin's /setup channel-gm add makes the same member GM of the channel again, rights and all
    await harness.slash(
        world.guild, world.general, world.manager, "setup channel-gm add", {"member": world.gm}
    )
    assert (await sysx(harness, world, world.alice, "blind")).dms(world.gm) != []


async def test_unclaim_gives_up_a_claim_never_an_admin_s_appointment(harness: Harness, world: World) -> None:
    # GM-1: a member an admin made GM of the channel stays one after /gm unclaim, and is told who can undo it
    await harness.slash(
        world.guild, world.general, world.manager, "setup channel-gm add", {"member": world.carol}
    )
    kept = await gm(harness, world, world.carol, "unclaim")
    assert kept.ephemeral and kept.content.startswith("An admin made you GM of this channel")
    assert "/setup channel-gm remove" in kept.content
    assert await harness.bot.store.gm.is_channel_gm(world.guild.id, world.general.id, world.carol.id)
    still = await gm(harness, world, world.carol, "modifiers")
    assert still.ephemeral and still.embed["title"].startswith("Pending GM modifiers")
    nothing = await gm(harness, world, world.gm, "unclaim")  # a server GM who never claimed it
    assert nothing.content == "You had not claimed this channel, so there is nothing to give up."


async def test_the_last_gm_leaving_a_channel_hidden_by_default_is_told_its_plain_rolls_are_now_refused(
    harness: Harness, world: World
) -> None:
    # a channel whose rolls are gm by default, reached only through its GMs: when the last one goes (an
    # unclaim, an admin's removal), the one who did it learns that each plain roll here is now refused
    await gm(harness, world, world.gm, "claim")
    await harness.slash(world.guild, world.general, world.manager, "setup settings", {"visibility": "gm"})
    await harness.slash(
        world.guild, world.general, world.manager, "setup channel-gm add", {"member": world.carol}
    )
    left = await gm(harness, world, world.gm, "unclaim")  # Carol is still GM here: nothing to warn of
    assert left.content == "You no longer have this channel: its hidden rolls no longer come to you by DM."
    removed = await harness.slash(
        world.guild, world.general, world.manager, "setup channel-gm remove", {"member": world.carol}
    )
    assert removed.ephemeral and removed.content == (
        "Carol is no longer a GM of this channel. Rolls here default to visibility gm, which no GM can see "
        f"now, so a roll here without a visibility is refused: {HOW_TO_REACH_A_GM}; /setup settings can "
        "also give this channel another visibility."
    )
    state = harness.bot.rng.getstate()
    plain = await harness.slash(world.guild, world.general, world.alice, "sysx check", {"sv": 12})
    await assert_not_rolled(harness, world, plain, state)
    assert plain.content == NO_GM_HERE
    # the same warning for a claim given up, and none once a GM channel reaches them
    await gm(harness, world, world.gm, "claim")
    again = await gm(harness, world, world.gm, "unclaim")
    assert again.content.endswith("/setup settings can also give this channel another visibility.")
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    await gm(harness, world, world.gm, "claim")
    quiet = await gm(harness, world, world.gm, "unclaim")
    assert quiet.content == "You no longer have this channel: its hidden rolls no longer come to you by DM."


async def test_when_every_gm_refuses_dms_the_roll_is_not_rolled_and_says_how_to_fix_it(
    harness: Harness, world: World
) -> None:
    await gm(harness, world, world.gm, "claim")
    added = await harness.slash(
        world.guild, world.general, world.manager, "setup channel-gm add", {"member": world.carol}
    )
    assert added.ephemeral
    world.gm.blocks_dms = world.carol.blocks_dms = True  # the fake answers 50007, as Discord does
    state = harness.bot.rng.getstate()
    for mode in ("gm", "blind"):
        answer = await sysx(harness, world, world.alice, mode)
        await assert_not_rolled(harness, world, answer, state)
        assert answer.content == (
            f"Nothing was rolled: no GM could get it ({world.gm.mention} does not accept DMs from me; "
            f"{world.carol.mention} does not accept DMs from me); someone with Manage Server can set a GM "
            "channel with /setup gm-channel, or a GM can claim this channel with /gm claim."
        )
    # one GM who accepts DMs is enough: the roll goes, and the roller hears of the other
    world.carol.blocks_dms = False
    answer = await sysx(harness, world, world.alice, "blind")
    assert len(answer.dms(world.carol)) == 1 and answer.dms(world.gm) == []
    assert answer.content == (
        f"{BLIND_ROLLER_TEXT}\nI could not DM {world.gm.mention} (they do not accept DMs from me)."
    )


async def test_a_gm_channel_the_bot_cannot_post_in_falls_back_to_claimed_gms_or_refuses(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    await harness.slash(
        world.guild, world.general, world.manager, "setup gm-channel", {"channel": world.gm_screen}
    )
    fake.fail(posts_to(world.gm_screen), status=403, code=50013, message="Missing Permissions", times=None)
    state = harness.bot.rng.getstate()
    refused = await sysx(harness, world, world.alice, "gm")
    await assert_not_rolled(harness, world, refused, state)
    assert refused.content.startswith(
        f"Nothing was rolled: no GM could get it (I cannot post in the GM channel <#{world.gm_screen.id}>; "
        "no GM has claimed this channel); someone with Manage Server can set a GM channel"
    )
    await gm(harness, world, world.gm, "claim")
    answer = await sysx(harness, world, world.alice, "gm")
    [dm] = answer.dms(world.gm)
    assert dm.embeds and answer.in_channel(world.gm_screen) == []
    assert answer.original.embeds == dm.embeds
    assert "I could not post in the GM channel" in answer.content


async def test_a_roll_refused_after_its_gm_copies_were_posted_takes_them_back(
    harness: Harness, world: World
) -> None:
    await gm(harness, world, world.gm, "claim")
    typo = await harness.slash(
        world.guild, world.general, world.alice, "rps check", {"skill": "Clmb", "visibility": "blind"}
    )
    assert typo.ephemeral and "sheet" in typo.content and typo.public() == []
    assert [m for m in typo.dms(world.gm) if not m.deleted] == []  # the header posted first is gone
    assert await harness.bot.store.log.last(world.guild.id, world.general.id, 5) == []


async def test_a_requested_blind_roll_nobody_could_get_stays_requested(
    harness: Harness, world: World
) -> None:
    await gm(harness, world, world.gm, "claim")
    posted = await gm(harness, world, world.gm, "request-roll", {"member": world.alice, "system": "sysx"})
    await harness.click(posted.original, "Roll (blind)", world.alice)
    world.gm.blocks_dms = True
    state = harness.bot.rng.getstate()
    refused = await sysx(harness, world, world.alice, "public")  # the request makes it blind
    await assert_not_rolled(harness, world, refused, state)
    assert refused.content.startswith("Nothing was rolled")
    world.gm.blocks_dms = False
    rolled = await sysx(harness, world, world.alice, "public")
    assert rolled.content == BLIND_ROLLER_TEXT and len(rolled.dms(world.gm)) == 1
