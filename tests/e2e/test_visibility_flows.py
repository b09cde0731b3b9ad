"""Issue 7 around the rolls, with the real system cogs: /log, autocomplete and refusals leak nothing; GM
channel, DM fallbacks and reveal; /setup settings (channel default, blind switched off) and /gm request-roll.

System X checks (`/sysx check sv:12`, SX-5) stand in for "a roll" where the system does not matter.
"""

from __future__ import annotations

import re
from typing import Any

from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.world import FakeMessage, FakeUser
from bot.store import Holder
from bot.ui.visibility import BLIND_ROLLER_TEXT, NO_GM_HERE
from cogs.supply import BLIND_SUPPLY
from tests.e2e.test_rps import ScriptedDice

BLIND_OFF = "Blind rolls are switched off in this server; ask a GM (they can request one)."


async def sysx(
    harness: Harness, world: World, user: FakeUser, visibility: str | None = None, channel: Any = None
) -> Answer:
    options: dict[str, Any] = {"sv": 12}
    if visibility is not None:
        options["visibility"] = visibility
    return await harness.slash(world.guild, channel or world.general, user, "sysx check", options)


async def settings(harness: Harness, world: World, **options: Any) -> Answer:
    """/setup settings as the admin; ``gm_channel`` (or ``no_gm_channel``) through /setup gm-channel."""
    gm_channel, no_gm_channel = options.pop("gm_channel", None), options.pop("no_gm_channel", None)
    if gm_channel is not None or no_gm_channel:
        where = {"channel": gm_channel} if gm_channel is not None else {"remove": True}
        set_gm = await harness.slash(world.guild, world.general, world.manager, "setup gm-channel", where)
        assert set_gm.ephemeral and ("No GM channel" in set_gm.content or "now go to" in set_gm.content)
    answer = await harness.slash(world.guild, world.general, world.manager, "setup settings", options)
    assert answer.ephemeral and answer.embed["title"] == "Server settings"
    return answer


async def log_text(harness: Harness, world: World, user: FakeUser) -> str:
    answer = await harness.slash(world.guild, world.general, user, "log", {})
    assert answer.ephemeral
    return answer.text()


def visible(record_summary: str, text: str) -> bool:
    return record_summary[:60] in text


def gm_copy(answer: Answer, world: World) -> FakeMessage:
    [copy] = answer.in_channel(world.gm_screen)
    assert copy.custom_ids()[0].startswith("reveal:")
    return copy


# -- leaks: /log -----------------------------------------------------------------------------------------
async def test_log_shows_hidden_rolls_only_to_gms_until_revealed(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await settings(harness, world, gm_channel=world.gm_screen)
    rolled = {mode: await sysx(harness, world, world.alice, mode) for mode in ("private", "gm", "blind")}
    records = {r.visibility: r for r in await store.log.last(world.guild.id, world.general.id, 3)}
    assert set(records) == {"private", "gm", "blind"}

    gm_log = await log_text(harness, world, world.gm)
    assert all(visible(r.summary, gm_log) for r in records.values())  # GMs see every roll
    assert "hidden roll" not in gm_log

    bob_log = await log_text(harness, world, world.bob)
    for record in records.values():
        assert not visible(record.summary, bob_log)
        assert f"hidden roll ({record.visibility}, System X)" in bob_log
    for line in bob_log.splitlines()[1:]:  # after the title: only "#id <time> <@user>: hidden roll (...)"
        assert re.fullmatch(r"`#\d+` <t:\d+:t> <@\d+>: hidden roll \((private|gm|blind), System X\)", line)

    alice_log = await log_text(harness, world, world.alice)  # she saw her private and gm rolls, not the blind
    assert visible(records["private"].summary, alice_log) and visible(records["gm"].summary, alice_log)
    assert not visible(records["blind"].summary, alice_log)
    assert "hidden roll (blind, System X)" in alice_log

    revealed = await harness.click(gm_copy(rolled["blind"], world), "Reveal", world.gm)
    assert revealed.ephemeral
    bob_after = await log_text(harness, world, world.bob)
    assert visible(records["blind"].summary, bob_after) and "(blind, revealed)" in bob_after
    assert not visible(records["gm"].summary, bob_after)


async def test_log_export_leaves_hidden_rolls_out_for_players(harness: Harness, world: World) -> None:
    await settings(harness, world, gm_channel=world.gm_screen)
    await sysx(harness, world, world.alice, "public")
    await sysx(harness, world, world.alice, "blind")
    public, blind = reversed(await harness.bot.store.log.last(world.guild.id, world.general.id, 2))
    for user, expected in ((world.bob, {public.id}), (world.gm, {public.id, blind.id})):
        answer = await harness.slash(world.guild, world.general, user, "log", {"export": "jsonl"})
        [file] = answer.original.attachments
        ids = {int(m) for m in re.findall(r'"id": ?(\d+)', file.data.decode())}
        assert {public.id, blind.id} & ids == expected, user.username


# -- leaks: supply dice (decision: supply rolls are never blind) ---------------------------------------
async def test_a_blind_supply_roll_is_refused_and_changes_nothing(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await settings(harness, world, gm_channel=world.gm_screen)
    await harness.slash(
        world.guild, world.general, world.gm, "supply set", {"member": world.alice, "item": "Rope", "die": 6}
    )
    state = harness.bot.rng.getstate()
    [roll] = [c for c in harness.bot.tree.walk_commands() if c.qualified_name == "supply roll"]
    [visibility] = [p for p in roll.to_dict(harness.bot.tree)["options"] if p["name"] == "visibility"]
    assert [c["value"] for c in visibility["choices"]] == ["public", "private", "gm"]  # blind is not offered
    await settings(harness, world, visibility="blind")  # a blind channel default does not make it blind
    default = await harness.slash(world.guild, world.general, world.alice, "supply roll", {"item": "Rope"})
    assert default.ephemeral and default.content == BLIND_SUPPLY and len(default.messages) == 1
    assert harness.bot.rng.getstate() == state  # nothing rolled
    assert await store.log.last(world.guild.id, world.general.id, 5) == []  # nothing logged
    supply = await store.supply.get(world.guild.id, world.alice.id, Holder("alice", own=True), "Rope")
    assert supply.die == 6
    choices = await harness.autocomplete(
        world.guild, world.general, world.alice, "supply roll", {"item": "R"}, "item"
    )
    assert [c["name"] for c in choices.choices] == ["Rope (d6)"]
    # a gm roll works: the roller sees the die they rolled, which /supply show would tell them anyway
    gm_roll = await harness.slash(
        world.guild, world.general, world.alice, "supply roll", {"item": "Rope", "visibility": "gm"}
    )
    assert gm_roll.ephemeral and gm_roll.original.embeds
    assert len(gm_roll.in_channel(world.gm_screen)) == 1


def without_mentions(text: str) -> str:
    return re.sub(r"<[@#][!&]?\d+>", "<mention>", text)


# -- leaks: a sustained pool ended by a blind check -----------------------------------------------------
async def test_a_pool_owner_does_not_learn_a_blind_check_through_status_or_refusals(
    harness: Harness, world: World
) -> None:  # RPS-8 with issue 7
    await settings(harness, world, gm_channel=world.gm_screen)
    start = {"name": "Climb", "goal": 5, "minutes": 10, "member": world.alice, "base": 15}
    started = await harness.slash(world.guild, world.general, world.gm, "rps sustained start", start)
    harness.bot.rng = ScriptedDice([1, 1])  # SL 13: the pool completes
    blind = await harness.slash(
        world.guild,
        world.general,
        world.alice,
        "rps sustained roll",
        {"name": "Climb", "visibility": "blind"},
    )
    assert blind.content == BLIND_ROLLER_TEXT
    secrets = ("13", "completed", "18/5", "Progress")
    for user in (world.alice, world.bob):
        status = await harness.slash(
            world.guild, world.general, user, "rps sustained status", {"name": "Climb"}
        )
        assert "(finished)" in status.embed["title"]
        shown = without_mentions(status.text())  # a snowflake in a mention may contain "13" by chance
        assert not any(s in shown for s in secrets), (user.username, shown)
        again = await harness.slash(world.guild, world.general, user, "rps sustained roll", {"name": "Climb"})
        assert again.ephemeral and again.content == "The sustained action 'Climb' has already finished."
    assert not any(s in without_mentions(started.original.text()) for s in secrets)  # the public message
    gm_status = await harness.slash(
        world.guild, world.general, world.gm, "rps sustained status", {"name": "Climb"}
    )
    assert "(completed)" in gm_status.embed["title"]
    await harness.click(gm_copy(blind, world), "Reveal", world.gm)
    after = await harness.slash(
        world.guild, world.general, world.alice, "rps sustained status", {"name": "Climb"}
    )
    assert "(completed)" in after.embed["title"]  # revealed: the owner sees the pool again
    told = await harness.slash(world.guild, world.general, world.bob, "rps sustained roll", {"name": "Climb"})
    assert told.content == "The sustained action 'Climb' has already completed."


# -- GM channel, DM fallbacks, nobody to tell -----------------------------------------------------------
async def test_without_a_gm_channel_copies_go_to_the_channel_gms_by_dm(
    harness: Harness, world: World
) -> None:
    for member in (world.gm, world.bob):
        added = await harness.slash(
            world.guild, world.general, world.manager, "setup channel-gm add", {"member": member}
        )
        assert added.ephemeral
    world.bob.blocks_dms = True  # the fake answers 50007
    could_not = f"I could not DM {world.bob.mention} (they do not accept DMs from me)."
    for mode in ("gm", "blind"):
        answer = await sysx(harness, world, world.alice, mode)
        [dm] = answer.dms(world.gm)
        assert dm.embeds and dm.custom_ids()[0].startswith("reveal:")
        assert answer.dms(world.bob) == [] and answer.in_channel(world.gm_screen) == []
        [told] = answer.ephemeral_messages()
        assert could_not in told.content
        if mode == "blind":
            assert told.content == f"{BLIND_ROLLER_TEXT}\n{could_not}" and told.embeds == []
        else:
            assert told.embeds == dm.embeds  # the roller's own copy, with the problem said
    revealed = await harness.click(dm, "Reveal", world.gm)  # from the DM: to the roll's channel
    [post] = revealed.in_channel(world.general)
    assert post.embeds == dm.embeds and f"Revealed by {world.gm.mention}" in post.content


async def test_with_no_gm_at_all_the_roll_is_refused_before_any_die(harness: Harness, world: World) -> None:
    state = harness.bot.rng.getstate()
    for mode in ("gm", "blind"):
        answer = await sysx(harness, world, world.alice, mode)
        assert answer.ephemeral and answer.content == NO_GM_HERE and len(answer.messages) == 1
        assert "/setup gm-channel" in answer.content and "/gm claim" in answer.content
    assert harness.bot.rng.getstate() == state  # nothing rolled
    assert await harness.bot.store.log.last(world.guild.id, world.general.id, 5) == []


async def test_the_gm_channel_set_by_gm_settings_wins_over_dms(harness: Harness, world: World) -> None:
    await harness.slash(
        world.guild, world.general, world.manager, "setup channel-gm add", {"member": world.gm}
    )
    shown = await settings(harness, world, gm_channel=world.gm_screen)
    assert f"<#{world.gm_screen.id}>" in shown.text()
    answer = await sysx(harness, world, world.alice, "gm")
    assert len(answer.in_channel(world.gm_screen)) == 1 and answer.dms(world.gm) == []
    await settings(harness, world, no_gm_channel=True)
    back = await sysx(harness, world, world.alice, "gm")
    assert back.in_channel(world.gm_screen) == [] and len(back.dms(world.gm)) == 1


# -- reveal ------------------------------------------------------------------------------------------------
async def test_a_gm_reveals_gm_and_blind_rolls_once(harness: Harness, world: World) -> None:
    await settings(harness, world, gm_channel=world.gm_screen)
    for mode in ("gm", "blind"):
        answer = await sysx(harness, world, world.alice, mode)
        copy = gm_copy(answer, world)
        [record] = await harness.bot.store.log.last(world.guild.id, world.general.id, 1)
        player = await harness.click(copy, "Reveal", world.bob)
        assert player.ephemeral and "Only a GM" in player.content and player.public() == []
        assert not any(v["value"] in player.text() for v in copy.embed.get("fields", []))
        assert (await harness.bot.store.log.get(record.id)).hidden
        revealed = await harness.click(copy, "Reveal", world.gm)
        assert revealed.ephemeral and revealed.content == f"Revealed in <#{world.general.id}>."
        [post] = revealed.in_channel(world.general)
        assert not post.ephemeral and post.embeds == copy.embeds
        assert post.content == (f"🔓 Revealed by {world.gm.mention}: a {mode} roll by {world.alice.mention}.")
        # the copy says so at a glance; its Details button works as before
        button = copy.component(f"reveal:{record.id}")
        assert (button["disabled"], button["label"]) == (True, "Revealed")
        details = await harness.click(copy, f"details:{record.id}", world.manager)
        assert details.ephemeral and details.embed["title"] and details.public() == []
        bob_log = await log_text(harness, world, world.bob)
        assert visible(record.summary, bob_log) and f"({mode}, revealed)" in bob_log


# -- /setup settings and /gm request-roll -----------------------------------------------------------------
async def test_the_channel_default_applies_when_no_mode_is_given(harness: Harness, world: World) -> None:
    await settings(harness, world, visibility="private")
    answer = await sysx(harness, world, world.alice)
    assert answer.ephemeral and answer.original.embeds
    [notice] = answer.public()
    assert notice.content == f"🎲 {world.alice.mention} made a private roll (System X check)."
    elsewhere = await sysx(harness, world, world.alice, channel=world.gm_screen)  # another channel: public
    assert not elsewhere.ephemeral
    chosen = await sysx(harness, world, world.alice, "public")  # an explicit mode wins over the default
    assert not chosen.ephemeral
    modes = [r.visibility for r in await harness.bot.store.log.last(world.guild.id, world.general.id, 5)]
    assert modes == ["public", "private"]


async def test_blind_switched_off_refuses_players_and_changes_nothing(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await settings(harness, world, gm_channel=world.gm_screen, allow_blind=False)
    modifier = {"system": "sysx", "kind": "sv", "value": "+2", "member": world.alice}
    assert (await harness.slash(world.guild, world.general, world.gm, "gm modifier", modifier)).ephemeral
    state = harness.bot.rng.getstate()
    refused = await sysx(harness, world, world.alice, "blind")
    assert refused.ephemeral and refused.content == BLIND_OFF and len(refused.messages) == 1
    assert harness.bot.rng.getstate() == state  # nothing rolled
    assert await store.log.last(world.guild.id, world.general.id, 5) == []  # nothing logged
    assert await store.modifiers.pending_for(world.guild.id, world.general.id, "sysx", world.alice.id)  # GM-3
    gm_roll = await sysx(harness, world, world.gm, "blind")  # a GM still can
    assert gm_roll.content == BLIND_ROLLER_TEXT and len(gm_roll.in_channel(world.gm_screen)) == 1
    # the modifier shows on the roller's private copy, never on the notice
    private = await sysx(harness, world, world.alice, "private")
    assert "GM modifier" in private.original.text() and "+2" in private.original.text()
    [notice] = private.public()
    assert notice.content == f"🎲 {world.alice.mention} made a private roll (System X check)."


async def test_a_requested_roll_is_blind_once_even_when_blind_is_off(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await settings(harness, world, gm_channel=world.gm_screen, allow_blind=False)
    request = await harness.slash(
        world.guild,
        world.general,
        world.gm,
        "gm request-roll",
        {"member": world.alice, "system": "sysx", "note": "Perception"},
    )
    assert not request.ephemeral and "Perception" in request.content
    bob = await harness.click(request.original, "Roll (blind)", world.bob)
    assert bob.ephemeral and "Only" in bob.content
    accepted = await harness.click(request.original, "Roll (blind)", world.alice)
    [told] = accepted.followups  # the request message now says it was accepted; this, the player alone
    assert accepted.edited_in_place and told.ephemeral and "blind" in told.content
    other_system = await harness.slash(world.guild, world.general, world.alice, "dn raw", {"dn": 10})
    assert not other_system.ephemeral  # only a System X roll honours the request
    blind = await sysx(harness, world, world.alice, "public")  # the request wins over the option, once
    assert blind.ephemeral and blind.content == BLIND_ROLLER_TEXT
    assert [m.channel_id for m in blind.public()] == [world.gm_screen.id]  # no notice, the GM copy only
    copy = gm_copy(blind, world)
    assert copy.content.startswith("🔒 Blind roll by") and copy.embeds
    [last] = await store.log.last(world.guild.id, world.general.id, 1)
    assert last.visibility == "blind" and last.command == "sysx check"
    next_roll = await sysx(harness, world, world.alice)
    assert not next_roll.ephemeral  # back to the channel default


REFUSED_HIDDEN = [
    ("sysx check", {}),
    ("sysx check", {"skill": "Nope"}),
    ("sysx opposed", {"actor_sv": 10}),
    ("sysx combined", {"sv1": 10}),
    ("sysx synergy", {"skills": "Nope, Nada"}),
    ("rps check", {}),
    ("rps check", {"skill": "Nope"}),
    ("rps resisted", {"party1": "A", "base1": 10}),
    ("rps sustained roll", {"name": "Nope"}),
    ("roll", {"expression": "d"}),
    ("cards task", {"difficulty": 3}),
    ("cards task", {"difficulty": 3, "skill": "Nope"}),
    ("decision roll", {"stat": 1}),
    ("dn check", {"skill": "Nope"}),
    ("supply roll", {"item": "Nope"}),
]


async def test_a_hidden_roll_refused_for_its_options_bothers_no_gm(harness: Harness, world: World) -> None:
    # the options are read before the GMs' copies are opened: a GM is never notified of a roll never made
    await harness.slash(world.guild, world.general, world.gm, "gm claim", {})
    for path, options in REFUSED_HIDDEN:
        for visibility in ("gm", "blind"):
            if path == "supply roll" and visibility == "blind":
                continue  # not offered
            answer = await harness.slash(
                world.guild, world.general, world.alice, path, options | {"visibility": visibility}
            )
            assert answer.ephemeral and answer.messages == [answer.original], (path, options, answer.content)
    assert await harness.bot.store.log.last(world.guild.id, world.general.id, 5) == []
