"""`/gm` end to end: modifiers (GM-3), channel GMs and roles (GM-1), settings, blind-roll requests."""

from __future__ import annotations

import asyncio
import dataclasses
from types import SimpleNamespace
from typing import Any

import pytest
from discord import app_commands

from bot.core.systemx import RollChart
from bot.local.fake.harness import Answer, Harness, World
from bot.local.fake.server import CommandUnavailable, FakeDiscord
from bot.ui.gm import blind_key
from bot.ui.permissions import NOT_GM, NOT_MANAGER
from bot.ui.requests import NOTHING_TO_WITHDRAW, WITHDRAW_NOT_GM
from bot.ui.visibility import HOW_TO_REACH_A_GM, choose_mode


async def gm(
    harness: Harness, world: World, user, sub: str, options: dict | None = None, channel=None
) -> Answer:
    return await harness.slash(world.guild, channel or world.general, user, f"gm {sub}", options or {})


async def set_up(
    harness: Harness, world: World, user, sub: str, options: dict | None = None, channel=None
) -> Answer:
    return await harness.slash(world.guild, channel or world.general, user, f"setup {sub}", options or {})


async def test_modifier_set_listed_and_cleared(harness: Harness, world: World) -> None:  # GM-3
    store = harness.bot.store
    made = await gm(
        harness,
        world,
        world.gm,
        "modifier",
        {"system": "sysx", "kind": "sv", "value": "+2", "member": world.alice, "uses": 2},
    )
    assert made.ephemeral and made.public() == []
    assert "Skill Value modifier +2 on Alice's next 2 System X rolls in this channel." in made.content
    [pending] = await store.modifiers.list(world.guild.id, world.general.id)
    assert (pending.system, pending.kind, pending.value, pending.target_user_id) == (
        "sysx",
        "sv",
        2,
        world.alice.id,
    )
    assert pending.uses == 2 and pending.set_by == world.gm.id
    everyone = await gm(harness, world, world.gm, "modifier", {"system": "decision", "kind": "advantage"})
    assert "advantage on each player's next decision dice roll" in everyone.content
    listed = await gm(harness, world, world.gm, "modifiers")
    text = listed.original.text()
    assert f"`#{pending.id}` System X: Skill Value modifier +2 for {world.alice.mention}" in text
    assert "2 of 2 uses left" in text and "advantage for everyone, 1 use each" in text
    # elsewhere nothing is pending
    other = await gm(harness, world, world.gm, "modifiers", channel=world.gm_screen)
    assert "None in this channel" in other.original.text()
    cleared = await gm(harness, world, world.gm, "clear", {"system": "sysx"})
    assert cleared.content == "Cleared 1 pending System X modifier."
    assert [m.system for m in await store.modifiers.list(world.guild.id, world.general.id)] == ["decision"]
    cleared_all = await gm(harness, world, world.gm, "clear")
    assert cleared_all.content == "Cleared 1 pending modifier."
    assert await store.modifiers.list(world.guild.id, world.general.id) == []


async def test_gm_sentences_read_as_english(harness: Harness, world: World) -> None:
    # GM-3; issue 31, item 13: "Cleared 1 pending RPS modifier.", plurals, the system named before "modifier"
    store = harness.bot.store
    for _ in range(2):
        await store.modifiers.set(
            world.guild.id, world.general.id, "rps", world.alice.id, "difficulty", -2, 1, world.gm.id
        )
    made = await gm(
        harness,
        world,
        world.gm,
        "modifier",
        {"system": "rps", "kind": "difficulty", "value": "+3", "uses": 1},
    )
    assert made.content.endswith(": difficulty +3 on each player's next RPS roll in this channel.")
    cleared = await gm(harness, world, world.gm, "clear", {"system": "rps", "member": world.alice})
    assert cleared.content == "Cleared 2 pending RPS modifiers for Alice."
    again = await gm(harness, world, world.gm, "clear", {"system": "rps", "member": world.alice})
    assert again.content == "There were no pending RPS modifiers for Alice to clear in this channel."
    rest = await gm(harness, world, world.gm, "clear", {"system": "rps"})
    assert rest.content == "Cleared 1 pending RPS modifier."


async def test_modifier_values_are_validated_per_system(harness: Harness, world: World) -> None:  # GM-3, SX-6
    store = harness.bot.store
    cases = [
        ({"system": "sysx", "kind": "sv", "value": "5"}, "A Skill Value modifier runs from -4 to 4, not 5."),
        ({"system": "sysx", "kind": "df", "value": "1"}, "System X takes a modifier of kind sv, roll,"),
        ({"system": "sysx", "kind": "required_margin", "value": "S9"}, "A required margin is one of CF, F5"),
        (
            {"system": "dn", "kind": "df", "value": "six"},
            "'six' is not a whole number; a Difficulty Factor runs from -10 to 5.",
        ),
        ({"system": "dn", "kind": "df"}, "Give a value for Difficulty Factor"),
        ({"system": "cards", "kind": "difficulty", "value": "8"}, "A difficulty runs from 0 to 7, not 8."),
        (  # it replaces the task's difficulty: "+1" meant as a step harder would set Very Easy
            {"system": "cards", "kind": "difficulty", "value": "+1"},
            "A cards difficulty replaces the task's, so give its level without a sign: "
            "from Mindlessly Easy (0) to Absurdly Difficult (7).",
        ),
    ]
    for options, sentence in cases:
        answer = await gm(harness, world, world.gm, "modifier", options)
        assert answer.ephemeral and answer.content.startswith(sentence), (options, answer.content)
    assert await store.modifiers.list(world.guild.id, world.general.id) == []
    # a margin may be typed signed or as letters (SX-7)
    await gm(
        harness, world, world.gm, "modifier", {"system": "sysx", "kind": "required_margin", "value": "+2"}
    )
    [margin] = await store.modifiers.list(world.guild.id, world.general.id)
    assert margin.value == "S2"


async def test_modifier_autocomplete_follows_the_system(harness: Harness, world: World) -> None:
    kinds = await harness.autocomplete(
        world.guild, world.general, world.gm, "gm modifier", {"system": "sysx", "kind": ""}, "kind"
    )
    assert [c["value"] for c in kinds.choices] == ["sv", "roll", "required_margin"]
    decision = await harness.autocomplete(
        world.guild, world.general, world.gm, "gm modifier", {"system": "decision", "kind": "adv"}, "kind"
    )
    assert [c["value"] for c in decision.choices] == ["advantage", "disadvantage"]
    values = await harness.autocomplete(
        world.guild,
        world.general,
        world.gm,
        "gm modifier",
        {"system": "sysx", "kind": "sv", "value": ""},
        "value",
    )
    assert [c["value"] for c in values.choices] == ["-4", "-3", "-2", "-1", "0", "+1", "+2", "+3", "+4"]


async def test_a_channel_gm_is_gm_in_that_channel_only(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:  # GM-1, GM-2
    refused = await gm(harness, world, world.carol, "modifiers")
    assert refused.ephemeral and "Only a GM" in refused.content
    added = await set_up(harness, world, world.manager, "channel-gm add", {"member": world.carol})
    assert added.content == "Carol is now a GM of this channel."
    again = await set_up(harness, world, world.manager, "channel-gm add", {"member": world.carol})
    assert again.content.endswith("already was a GM of this channel.")
    allowed = await gm(harness, world, world.carol, "modifier", {"system": "dn", "kind": "df", "value": "-2"})
    assert allowed.ephemeral and "Set `#" in allowed.content
    listed = await set_up(harness, world, world.manager, "channel-gm list")
    assert world.carol.mention in listed.original.text()
    elsewhere = await gm(harness, world, world.carol, "modifiers", channel=world.gm_screen)
    assert "Only a GM" in elsewhere.content
    # a channel GM does not even see the server's set-up
    with pytest.raises(CommandUnavailable):
        await set_up(harness, world, world.carol, "settings")
    await set_up(harness, world, world.manager, "channel-gm remove", {"member": world.carol})
    assert "Only a GM" in (await gm(harness, world, world.carol, "modifiers")).content


async def test_a_gm_by_role_alone_sets_and_clears_a_modifier_and_a_player_cannot(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:  # GM-1, GM-2: /gm carries no default permission, so Discord shows it to a GM without Manage Server
    member = world.guild.members[world.gm.id]
    assert [r.name for r in member.roles] == ["GM"] and not member.permissions & 0x20  # no Manage Server
    assert "gm" in {c["name"] for c in fake.visible_commands(world.gm, world.general)}
    made = await gm(harness, world, world.gm, "modifier", {"system": "dn", "kind": "df", "value": "-2"})
    assert made.ephemeral and made.content.startswith("Set `#")
    assert len(await harness.bot.store.modifiers.list(world.guild.id, world.general.id)) == 1
    refused = await gm(harness, world, world.alice, "clear")
    assert refused.ephemeral and refused.content == NOT_GM and refused.public() == []
    assert len(await harness.bot.store.modifiers.list(world.guild.id, world.general.id)) == 1
    cleared = await gm(harness, world, world.gm, "clear")
    assert cleared.content == "Cleared 1 pending modifier."
    assert await harness.bot.store.modifiers.list(world.guild.id, world.general.id) == []


async def test_an_admin_sets_the_gm_channel_and_players_never_see_setup(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    store = harness.bot.store
    shown = await set_up(harness, world, world.manager, "gm-channel")
    assert shown.ephemeral and "No GM channel is set" in shown.content
    made = await set_up(harness, world, world.manager, "gm-channel", {"channel": world.gm_screen})
    assert made.ephemeral and f"now go to <#{world.gm_screen.id}>" in made.content
    assert (await store.settings.get(world.guild.id)).gm_channel_id == world.gm_screen.id
    for player in (world.alice, world.gm):  # a player, and a GM by role without Manage Server
        with pytest.raises(CommandUnavailable, match="default_member_permissions of /setup"):
            await set_up(harness, world, player, "gm-channel", {"remove": True})
    assert "setup" not in {c["name"] for c in fake.visible_commands(world.alice, world.general)}
    both = await set_up(
        harness, world, world.manager, "gm-channel", {"channel": world.gm_screen, "remove": True}
    )
    assert both.ephemeral and "not both" in both.content
    # GM-1: a channel whose rolls are hidden by default, with no GM of its own, would refuse every plain
    # roll without the GM channel: its removal is refused until that channel has a GM or another default
    await store.settings.set_channel_visibility(world.guild.id, world.general.id, "gm")
    stranding = await set_up(harness, world, world.manager, "gm-channel", {"remove": True})
    assert stranding.ephemeral and stranding.content == (
        f"Rolls in <#{world.general.id}> are hidden by default and only the GM channel could see them: give "
        "that channel a GM first (/gm claim there) or another visibility (/setup settings visibility: "
        "there). Nothing was changed."
    )
    assert (await store.settings.get(world.guild.id)).gm_channel_id == world.gm_screen.id
    claimed = await harness.slash(world.guild, world.general, world.gm, "gm claim", {})
    assert claimed.ephemeral
    removed = await set_up(harness, world, world.manager, "gm-channel", {"remove": True})
    assert "No GM channel" in removed.content
    assert (await store.settings.get(world.guild.id)).gm_channel_id is None
    # a channel everyone reads would show the table every hidden roll: refused, nothing stored
    public = await set_up(harness, world, world.manager, "gm-channel", {"channel": world.general})
    assert public.ephemeral and public.content.startswith(
        f"Everyone in this server can read <#{world.general.id}>, so hidden rolls would not be hidden there"
    )
    assert (await store.settings.get(world.guild.id)).gm_channel_id is None


async def test_a_gm_channel_a_players_role_reads_is_refused(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:  # GM-1: a server that hides its channels from @everyone and shows them to a "Member" role
    store = harness.bot.store
    member = await fake.create_role(world.guild, "Member")
    world.general.make_private(member, world.gm_role, fake.bot_user)
    await fake.update_channel(world.general)
    refused = await set_up(harness, world, world.manager, "gm-channel", {"channel": world.general})
    assert refused.ephemeral and refused.content.startswith(
        f"Members of Member (no GM role) can read <#{world.general.id}>, so hidden rolls would not be hidden"
    )
    assert (await store.settings.get(world.guild.id)).gm_channel_id is None
    # once Member is one of the server's GM roles, only GMs (and the bot) read the channel
    await store.settings.update(world.guild.id, gm_role_ids=[member.id, world.gm_role.id])
    made = await set_up(harness, world, world.manager, "gm-channel", {"channel": world.general})
    assert made.ephemeral and f"now go to <#{world.general.id}>" in made.content


async def test_a_gm_channel_opened_to_players_later_gets_no_hidden_roll(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:  # GM-1: an admin shows the GM channel to everyone after /setup gm-channel accepted it
    made = await set_up(harness, world, world.manager, "gm-channel", {"channel": world.gm_screen})
    assert f"now go to <#{world.gm_screen.id}>" in made.content
    hidden = list(world.gm_screen.overwrites)
    world.gm_screen.overwrites = []  # @everyone reads it now
    await fake.update_channel(world.gm_screen)
    state = harness.bot.rng.getstate()
    refused = await harness.slash(
        world.guild, world.general, world.alice, "dn raw", {"dn": 12, "visibility": "blind"}
    )
    assert refused.ephemeral and refused.content.startswith(
        f"Nothing was rolled: no GM could get it (the GM channel <#{world.gm_screen.id}> is now open to "
        "@everyone; no GM has claimed this channel)"
    ), refused.content
    assert refused.in_channel(world.gm_screen) == [] and refused.public() == []
    assert harness.bot.rng.getstate() == state  # nothing rolled
    assert await harness.bot.store.log.last(world.guild.id, world.general.id, 5) == []
    shown = await set_up(harness, world, world.manager, "gm-channel")
    assert shown.ephemeral and shown.content == (
        f"<#{world.gm_screen.id}> is the GM channel, but @everyone can read it now, so I post no hidden roll "
        "there: they go by DM to the GMs of each roll's channel until you hide it again."
    )
    # with a GM of the channel the roll goes to them by DM, and the roller is told why
    await set_up(harness, world, world.manager, "channel-gm add", {"member": world.gm})
    rolled = await harness.slash(
        world.guild, world.general, world.alice, "dn raw", {"dn": 12, "visibility": "gm"}
    )
    assert rolled.in_channel(world.gm_screen) == []
    assert len(rolled.in_channel(fake.dm_channel(world.gm))) == 1
    assert f"The GM channel <#{world.gm_screen.id}> is now open to @everyone, so I did not post there" in (
        rolled.text()
    )
    # hidden again: the copies go there once more
    world.gm_screen.overwrites = hidden
    await fake.update_channel(world.gm_screen)
    again = await harness.slash(
        world.guild, world.general, world.alice, "dn raw", {"dn": 12, "visibility": "gm"}
    )
    assert len(again.in_channel(world.gm_screen)) == 1 and "open to" not in again.text()


async def test_a_member_with_a_game_master_role_is_a_gm(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    role = await fake.create_role(world.guild, "Game Master")  # GM-1: default role names, any case
    world.guild.members[world.bob.id].roles.append(role)
    answer = await gm(harness, world, world.bob, "modifiers")
    assert answer.ephemeral and "Pending GM modifiers" in answer.original.text()


async def test_setup_needs_manage_server_even_when_shown_to_a_gm_role(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:  # GM-1, GM-2
    store = harness.bot.store
    # an admin lets the GM role see /setup (Integrations); the bot still asks for Manage Server
    fake.set_command_permissions(world.guild, "setup", allow=[world.gm_role])
    for sub, options in (
        ("roles list", {}),
        ("roles add", {"role": world.gm_role}),
        ("channel-gm add", {"member": world.alice}),
        ("gm-channel", {"channel": world.gm_screen}),
        ("settings", {"decks": 4}),
    ):
        answer = await set_up(harness, world, world.gm, sub, options)
        assert answer.ephemeral and answer.content == NOT_MANAGER, sub
        assert answer.public() == []
    settings = await store.settings.get(world.guild.id)
    assert (settings.decks_per_shoe, settings.gm_role_ids, settings.gm_channel_id) == (1, [], None)
    assert await store.gm.list_channel_gms(world.guild.id, world.general.id) == []


async def test_gm_roles_add_list_remove(harness: Harness, world: World, fake: FakeDiscord) -> None:  # GM-1
    store = harness.bot.store
    lead = await fake.create_role(world.guild, "Table lead")
    added = await set_up(harness, world, world.manager, "roles add", {"role": lead})
    assert "is now a GM role" in added.content
    assert (await store.settings.get(world.guild.id)).gm_role_ids == [lead.id]
    listed = await set_up(harness, world, world.manager, "roles list")
    assert f"<@&{lead.id}>" in listed.original.text()
    # once roles are named, the default "GM" role no longer makes a GM
    assert "Only a GM" in (await gm(harness, world, world.gm, "modifiers")).content
    world.guild.members[world.carol.id].roles.append(lead)
    assert "Pending GM modifiers" in (await gm(harness, world, world.carol, "modifiers")).original.text()
    removed = await set_up(harness, world, world.manager, "roles remove", {"role": lead})
    assert "no longer a GM role" in removed.content and "count again" in removed.content
    assert (await store.settings.get(world.guild.id)).gm_role_ids == []


async def test_an_advantage_modifier_takes_no_value(harness: Harness, world: World) -> None:  # GM-3
    options = {"system": "decision", "kind": "advantage", "value": "3"}
    refused = await gm(harness, world, world.gm, "modifier", options)
    assert refused.ephemeral and refused.content == "An advantage modifier takes no value; leave value empty."
    assert await harness.bot.store.modifiers.list(world.guild.id, world.general.id) == []
    taken = await gm(harness, world, world.gm, "modifier", {**options, "value": "+1"})
    assert "advantage on each player's next decision dice roll" in taken.content


async def test_everyone_cannot_be_a_gm_role(harness: Harness, world: World) -> None:  # GM-1, GM-2
    answer = await set_up(harness, world, world.manager, "roles add", {"role": world.guild.everyone})
    assert answer.ephemeral and answer.content == (
        "@everyone cannot be a GM role: every member would see hidden rolls. Add your GMs' own role."
    )
    assert (await harness.bot.store.settings.get(world.guild.id)).gm_role_ids == []
    assert "Only a GM" in (await gm(harness, world, world.bob, "modifiers")).content


async def test_gm_roles_added_and_removed_at_once_all_count(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:  # GM-1
    store = harness.bot.store
    roles = [await fake.create_role(world.guild, f"Lead {n}") for n in range(4)]
    added = await asyncio.gather(
        *(set_up(harness, world, world.manager, "roles add", {"role": role}) for role in roles)
    )
    assert all("is now a GM role" in answer.content for answer in added)
    assert sorted((await store.settings.get(world.guild.id)).gm_role_ids) == sorted(r.id for r in roles)
    again = await asyncio.gather(
        set_up(harness, world, world.manager, "roles add", {"role": roles[0]}),
        set_up(harness, world, world.manager, "roles add", {"role": roles[0]}),
    )
    assert (await store.settings.get(world.guild.id)).gm_role_ids.count(roles[0].id) == 1
    assert all(a.content.startswith(f"<@&{roles[0].id}>") for a in again)
    removed = await asyncio.gather(
        *(set_up(harness, world, world.manager, "roles remove", {"role": role}) for role in roles[:3])
    )
    assert all("no longer a GM role" in answer.content for answer in removed)
    assert (await store.settings.get(world.guild.id)).gm_role_ids == [roles[3].id]


async def test_settings_round_trip(harness: Harness, world: World) -> None:
    store = harness.bot.store
    shown = await set_up(harness, world, world.manager, "settings")
    assert shown.ephemeral and shown.embed["title"] == "Server settings"
    # hidden by default where no GM could see a hidden roll: every plain roll would be refused
    hidden = await set_up(harness, world, world.manager, "settings", {"visibility": "gm", "decks": 6})
    assert hidden.ephemeral and hidden.content.startswith(
        "No GM could see this channel's rolls if they were gm"
    )
    assert (await store.settings.get(world.guild.id)).decks_per_shoe == 1  # nothing of it saved
    await gm(harness, world, world.gm, "claim")  # now one can
    fields = {f["name"]: f["value"] for f in shown.embed["fields"]}
    assert fields["Margins (System X)"] == "signed (+3)" and fields["Decks per shoe (cards)"] == "1"
    changed = await set_up(
        harness,
        world,
        world.manager,
        "settings",
        {
            "margins": "letters",
            "adder_scheme": "extremes",
            "suit_bonus": False,
            "characteristic_rule": False,
            "fumble_flags": False,
            "decks": 6,
            "visibility": "gm",
            "allow_blind": False,
        },
    )
    fields = {f["name"]: f["value"] for f in changed.embed["fields"]}
    assert fields["Margins (System X)"] == "letters (S3)" and fields["Skill adders (cards)"] == "extremes"
    assert fields["Default visibility here"] == f"gm in <#{world.general.id}>"  # a mention in a value
    settings = await store.settings.get(world.guild.id)
    assert (settings.margin_display, settings.adder_scheme, settings.decks_per_shoe) == (
        "letters",
        "extremes",
        6,
    )
    assert (
        not settings.bj_suit_bonus and not settings.bj_characteristic_bonus and not settings.bj_fumble_flags
    )
    assert not settings.allow_blind
    assert await store.settings.channel_visibility(world.guild.id, world.general.id) == "gm"
    assert await store.settings.channel_visibility(world.guild.id, world.gm_screen.id) == "public"
    again = await set_up(harness, world, world.manager, "settings")
    assert {f["name"]: f["value"] for f in again.embed["fields"]} == fields
    assert "none" in fields["GM channel"]
    await set_up(harness, world, world.manager, "gm-channel", {"channel": world.gm_screen})
    shown = await set_up(harness, world, world.manager, "settings")
    assert {f["name"]: f["value"] for f in shown.embed["fields"]}["GM channel"] == f"<#{world.gm_screen.id}>"


async def test_a_blind_default_with_blind_rolls_off_is_refused(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await gm(harness, world, world.gm, "claim")  # a GM who can see this channel's hidden rolls
    sentence = (
        "Blind rolls would be off while this channel's rolls are blind by default: turn allow_blind on, "
        "or give this channel another visibility."
    )
    both = await set_up(
        harness, world, world.manager, "settings", {"visibility": "blind", "allow_blind": False}
    )
    assert both.ephemeral and both.content == sentence
    assert (await store.settings.get(world.guild.id)).allow_blind
    await set_up(harness, world, world.manager, "settings", {"visibility": "blind"})
    off = await set_up(harness, world, world.manager, "settings", {"allow_blind": False, "decks": 3})
    assert off.content == sentence  # nothing of it saved, the decks neither
    settings = await store.settings.get(world.guild.id)
    assert settings.allow_blind and settings.decks_per_shoe == 1
    # nor from another channel: every plain roll in #general would be refused, the player never told why
    options = {"allow_blind": False, "decks": 3}
    elsewhere = await harness.slash(world.guild, world.gm_screen, world.manager, "setup settings", options)
    assert elsewhere.ephemeral and elsewhere.content == (
        f"Blind rolls would be off while rolls in <#{world.general.id}> are blind by default: give that "
        "channel another visibility first (/setup settings visibility: there)."
    )
    assert (await store.settings.get(world.guild.id)).allow_blind
    # once #general has another default, blind rolls may go off; a new deck count says when a shoe takes it
    await set_up(harness, world, world.manager, "settings", {"visibility": "public"})
    elsewhere = await harness.slash(world.guild, world.gm_screen, world.manager, "setup settings", options)
    assert "at its next /cards shuffle" in elsewhere.original.text()
    assert not (await store.settings.get(world.guild.id)).allow_blind


async def test_custom_chart_valid_invalid_and_back_to_default(  # SX-5
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    store = harness.bot.store
    lines = RollChart.model().to_csv().splitlines()
    cells = lines[10].split(",")
    cells[5] = "CS" if cells[5] != "CS" else "CF"
    lines[10] = ",".join(cells)
    custom = "\n".join(lines) + "\n"
    upload = fake.attachment("chart.csv", custom.encode(), "text/csv")
    answer = await set_up(harness, world, world.manager, "settings", {"chart": upload})
    assert "The custom roll chart is valid" in answer.embed["description"]
    stored = (await store.settings.get(world.guild.id)).systemx_chart
    assert stored is not None and stored.splitlines() == lines  # normalised, same cells
    # an invalid chart is refused with its line and cell, and the stored chart stays
    broken = lines.copy()
    broken[3] = broken[3].replace(",S", ",S9", 1)
    bad = fake.attachment("chart.csv", "\n".join(broken).encode(), "text/csv")
    refused = await set_up(harness, world, world.manager, "settings", {"chart": bad, "decks": 3})
    assert refused.ephemeral and "Line 4 of the roll chart" in refused.content and "S9" in refused.content
    settings = await store.settings.get(world.guild.id)
    assert settings.systemx_chart == stored and settings.decks_per_shoe == 1  # nothing half-applied
    short = fake.attachment("chart.csv", b"skill_value,roll_1\n1,S0\n", "text/csv")
    assert (
        "first line must be the header"
        in (await set_up(harness, world, world.manager, "settings", {"chart": short})).content
    )
    default = await set_up(harness, world, world.manager, "settings", {"default_chart": True})
    assert "default roll chart again" in default.embed["description"]
    assert (await store.settings.get(world.guild.id)).systemx_chart is None
    both = await set_up(harness, world, world.manager, "settings", {"chart": upload, "default_chart": True})
    assert both.ephemeral and "not both" in both.content


def stand_in_interaction(world: World, user, system: str) -> SimpleNamespace:
    """What `choose_mode` reads, for a roll command whose root is ``system`` (system cogs are elsewhere)."""

    async def callback(interaction) -> None:  # pragma: no cover - never invoked
        return None

    group = app_commands.Group(name=system, description="A system.")
    command = app_commands.Command(name="check", description="A check.", callback=callback, parent=group)
    return SimpleNamespace(
        guild=SimpleNamespace(id=world.guild.id),
        channel_id=world.general.id,
        user=SimpleNamespace(id=user.id),
        command=command,
    )


async def test_request_roll_makes_the_players_next_roll_blind_once(harness: Harness, world: World) -> None:
    store = harness.bot.store
    # GM-2: with no GM channel and no GM of the channel, nobody could see the blind roll: the request is
    # refused (accepted, it would have every roll of the player's here refused until a GM is reachable)
    nowhere = await gm(harness, world, world.gm, "request-roll", {"member": world.alice, "system": "sysx"})
    assert (
        nowhere.ephemeral
        and nowhere.public() == []
        and nowhere.content
        == (f"Nothing was asked: no GM could see a blind roll here yet; {HOW_TO_REACH_A_GM}.")
    )
    await gm(harness, world, world.gm, "claim", {})
    posted = await gm(
        harness,
        world,
        world.gm,
        "request-roll",
        {"member": world.alice, "system": "sysx", "note": "Perception"},
    )
    assert not posted.ephemeral
    assert posted.content == (
        "🎲 **Gamemaster** asks **Alice** for a blind System X roll: Perception.\n"
        "**Alice**: press **Roll (blind)**, then roll with /sysx; only the GMs will see the result."
    )
    assert posted.original.allowed_mentions == {"parse": []}
    roll_id, withdraw_id = posted.original.custom_ids()
    assert roll_id.startswith("rr:") and withdraw_id == f"rw:{roll_id[3:]}:{world.alice.id}:sysx"
    stranger = await harness.click(posted.original, "Roll (blind)", world.bob)
    assert stranger.ephemeral and "Only" in stranger.content and "can accept" in stranger.content
    gm_click = await harness.click(posted.original, "Roll (blind)", world.gm)
    assert gm_click.ephemeral and "can accept" in gm_click.content
    key = blind_key(world.guild.id, world.general.id, world.alice.id, "sysx")
    assert await store.meta.get(key) is None
    stale = dataclasses.replace(posted.original)  # another client's copy, from before the accept
    accepted = await harness.click(posted.original, "Roll (blind)", world.alice)
    # the table sees at a glance that it was accepted; only a GM's Withdraw is left on it
    assert accepted.edited_in_place and posted.original.content == (
        "🎲 **Gamemaster** asks **Alice** for a blind System X roll: Perception.\n"
        "✅ **Alice** accepted: only the GMs will see that roll."
    )
    assert posted.original.custom_ids() == [withdraw_id]
    [told] = accepted.followups
    assert told.ephemeral and "next System X roll in this channel will be blind" in told.content
    assert accepted.public() == []
    twice = await harness.click(stale, "Roll (blind)", world.alice)
    assert twice.ephemeral and "already accepted" in twice.content
    # the next sysx roll resolves to blind even when asked public (and with players' blind rolls switched off)
    await store.settings.update(world.guild.id, allow_blind=False)
    other_system = stand_in_interaction(world, world.alice, "dn")
    assert await choose_mode(other_system, store, "public") == "public"
    roll = stand_in_interaction(world, world.alice, "sysx")
    assert await choose_mode(roll, store, "public") == "blind"
    assert await choose_mode(roll, store, "public") == "public"  # one use
    assert await store.meta.get(key) is None  # taken by the roll


async def test_a_refused_roll_leaves_the_accepted_blind_request_for_the_next(
    harness: Harness, world: World
) -> None:  # GM-2, issue 7: a typo must not turn the GM's blind roll into one the player sees
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    posted = await gm(harness, world, world.gm, "request-roll", {"member": world.alice, "system": "rps"})
    accepted = await harness.click(posted.original, "Roll (blind)", world.alice)
    assert "will be blind" in accepted.followups[0].content
    request = posted.original.content
    typo = await harness.slash(world.guild, world.general, world.alice, "rps check", {"skill": "Clmb"})
    assert typo.ephemeral and typo.public() == [] and "sheet" in typo.content
    assert posted.original.content == request  # still accepted: the refused roll rolled nothing
    rolled = await harness.slash(world.guild, world.general, world.alice, "rps check", {"base": 12})
    assert rolled.ephemeral and rolled.content == "Your roll went to the GM."
    assert len(rolled.in_channel(world.gm_screen)) == 1
    assert posted.original.content.endswith("✅ **Alice** has rolled it: only the GMs see the result.")
    after = await harness.slash(world.guild, world.general, world.alice, "rps check", {"base": 12})
    assert not after.ephemeral  # one blind roll, as requested


async def test_two_accepted_requests_make_two_blind_rolls(harness: Harness, world: World) -> None:
    # GM-2: the GM asks twice (Perception, then Insight); each accepted request hides one roll, a typo
    # between them uses none, and the third roll is the channel's usual public one
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    answers = []
    for note in ("Perception", "Insight"):
        posted = await gm(
            harness, world, world.gm, "request-roll", {"member": world.alice, "system": "sysx", "note": note}
        )
        answers.append(await harness.click(posted.original, "Roll (blind)", world.alice))
    told = [answer.followups[0].content for answer in answers]
    assert told[0].startswith("Your next System X roll in this channel will be blind")
    assert told[1].startswith("Your next 2 System X rolls in this channel will be blind")
    for _ in range(2):
        typo = await harness.slash(
            world.guild, world.general, world.alice, "sysx check", {"skill": "Prception"}
        )
        assert typo.ephemeral and typo.public() == []
        rolled = await harness.slash(world.guild, world.general, world.alice, "sysx check", {"sv": 12})
        assert rolled.ephemeral and rolled.content == "Your roll went to the GM."
        assert len(rolled.in_channel(world.gm_screen)) == 1
    third = await harness.slash(world.guild, world.general, world.alice, "sysx check", {"sv": 12})
    assert not third.ephemeral and third.in_channel(world.gm_screen) == []


async def test_a_gm_withdraws_an_open_request_and_only_a_gm_may(harness: Harness, world: World) -> None:
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    posted = await gm(
        harness, world, world.gm, "request-roll", {"member": world.alice, "system": "rps", "note": "Stealth"}
    )
    before, edits = posted.original.content, posted.original.edits
    stale = dataclasses.replace(posted.original)
    for player in (world.alice, world.bob):  # GM-2: the asked player cannot withdraw it either
        refused = await harness.click(posted.original, "Withdraw", player)
        assert refused.ephemeral and refused.content == WITHDRAW_NOT_GM and refused.public() == []
        assert posted.original.content == before and posted.original.edits == edits
    withdrawn = await harness.click(posted.original, "Withdraw", world.gm)
    assert withdrawn.edited_in_place and posted.original.content == (
        "~~🎲 **Gamemaster** asks **Alice** for a blind RPS roll: Stealth.~~\nWithdrawn by **Gamemaster**."
    )
    assert posted.original.custom_ids() == []  # nothing left to press
    late = await harness.click(stale, "Roll (blind)", world.alice)  # a client that still shows the button
    assert late.ephemeral and "no longer exists" in late.content
    rolled = await harness.slash(world.guild, world.general, world.alice, "rps check", {"base": 12})
    assert not rolled.ephemeral and rolled.in_channel(world.gm_screen) == []  # the roll is the usual one


async def test_a_gm_withdraws_an_accepted_request_before_it_is_rolled(harness: Harness, world: World) -> None:
    store = harness.bot.store
    await store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    posts = []
    for note in ("Perception", "Insight"):
        posted = await gm(
            harness, world, world.gm, "request-roll", {"member": world.alice, "system": "sysx", "note": note}
        )
        await harness.click(posted.original, "Roll (blind)", world.alice)
        posts.append(posted.original)
    key = blind_key(world.guild.id, world.general.id, world.alice.id, "sysx")
    assert len((await store.meta.get(key) or "").split()) == 2
    # a GM of the channel by role; the accepted Perception request is taken back, Insight still waits
    withdrawn = await harness.click(posts[0], "Withdraw", world.gm)
    assert withdrawn.edited_in_place and posts[0].content == (
        "~~🎲 **Gamemaster** asks **Alice** for a blind System X roll: Perception.~~\n"
        "Withdrawn by **Gamemaster**."
    )
    assert len((await store.meta.get(key) or "").split()) == 1
    stale = dataclasses.replace(posts[1])  # a client that still shows Insight's Withdraw
    blind = await harness.slash(world.guild, world.general, world.alice, "sysx check", {"sv": 12})
    assert blind.ephemeral and blind.content == "Your roll went to the GM."  # Insight's
    # Insight's message says it was rolled, and offers nothing more to press
    assert posts[1].content == (
        "🎲 **Gamemaster** asks **Alice** for a blind System X roll: Insight.\n"
        "✅ **Alice** has rolled it: only the GMs see the result."
    )
    assert posts[1].custom_ids() == []
    again = await harness.click(stale, "Withdraw", world.gm)
    assert again.ephemeral and again.content == NOTHING_TO_WITHDRAW and again.public() == []
    public = await harness.slash(world.guild, world.general, world.alice, "sysx check", {"sv": 12})
    assert not public.ephemeral and public.in_channel(world.gm_screen) == []


async def test_a_request_message_deleted_before_the_roll_leaves_the_roll_as_it_is(
    harness: Harness, world: World
) -> None:
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    posted = await gm(harness, world, world.gm, "request-roll", {"member": world.alice, "system": "dn"})
    await harness.click(posted.original, "Roll (blind)", world.alice)
    posted.original.deleted = True  # a moderator tidied the channel
    rolled = await harness.slash(world.guild, world.general, world.alice, "dn raw", {"dn": 10})
    assert rolled.ephemeral and rolled.content == "Your roll went to the GM."  # and no error logged


async def test_a_withdraw_racing_the_accept_leaves_no_blind_roll_waiting(
    harness: Harness, world: World
) -> None:
    store = harness.bot.store
    await store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    for _ in range(5):
        posted = await gm(harness, world, world.gm, "request-roll", {"member": world.alice, "system": "dn"})
        accepted, withdrawn = await asyncio.gather(
            harness.click(posted.original, "Roll (blind)", world.alice),
            harness.click(dataclasses.replace(posted.original), "Withdraw", world.gm),
        )
        assert withdrawn.edited_in_place  # open or accepted, it is taken back either way
        assert accepted.edited_in_place or "no longer exists" in accepted.content
        assert await store.meta.get(blind_key(world.guild.id, world.general.id, world.alice.id, "dn")) is None


async def test_request_roll_is_refused_for_a_player_and_scoped_to_its_channel(
    harness: Harness, world: World, fake: FakeDiscord
) -> None:
    refused = await gm(harness, world, world.alice, "request-roll", {"member": world.bob, "system": "dn"})
    assert refused.ephemeral and "Only a GM" in refused.content and refused.public() == []
    await harness.bot.store.settings.update(world.guild.id, gm_channel_id=world.gm_screen.id)
    posted = await gm(harness, world, world.gm, "request-roll", {"member": world.bob, "system": "dn"})
    # a forged copy of the button in another channel does not accept the request
    forged = dataclasses.replace(posted.original, channel_id=world.gm_screen.id)
    answer = await harness.click(forged, "Roll (blind)", world.bob)
    assert answer.ephemeral and "belongs to another channel" in answer.content
    assert (
        await harness.bot.store.meta.get(blind_key(world.guild.id, world.gm_screen.id, world.bob.id, "dn"))
        is None
    )


async def test_a_roll_reads_the_gms_state_once_and_a_modifier_set_before_it_applies(
    harness: Harness, world: World
) -> None:  # GM-3
    store = harness.bot.store
    seen: list[str] = []
    await store.db.trace(seen.append)  # every statement either SQLite connection runs
    try:
        plain = await harness.slash(
            world.guild, world.general, world.alice, "rps check", {"base": 10, "visibility": "public"}
        )
        assert not plain.ephemeral
        # besides the log row, one read: the blind request and the pending modifiers; nothing held or taken
        reads = [s for s in seen if not s.startswith("INSERT INTO rolls")]
        assert len(reads) == 1 and "FROM meta" in reads[0] and "FROM pending_modifiers" in reads[0], reads
        await gm(harness, world, world.gm, "modifier", {"system": "rps", "kind": "difficulty", "value": "+3"})
        seen.clear()
        modified = await harness.slash(
            world.guild, world.general, world.alice, "rps check", {"base": 10, "visibility": "public"}
        )
        assert any(s.startswith("INSERT INTO modifier_holds") for s in seen)
    finally:
        await store.db.trace(None)
    assert modified.original.embed["description"].endswith(
        f"GM modifier: difficulty +3 (set by {world.gm.mention})"
    )
    [everyone] = await store.modifiers.list(world.guild.id, world.general.id)
    assert everyone.target_user_id is None  # stands for the other players, Alice's one use taken
    again = await harness.slash(
        world.guild, world.general, world.alice, "rps check", {"base": 10, "visibility": "public"}
    )
    assert "GM modifier" not in again.original.text()


async def test_a_roll_from_the_sheet_reads_the_sheet_in_the_same_read_and_sees_its_latest_values(
    harness: Harness, world: World
) -> None:  # RPS-1, GM-3
    store = harness.bot.store
    await store.sheets.create(
        {
            "guild_id": world.guild.id,
            "owner_id": world.alice.id,
            "name": "Kit",
            "system": "rps",
            "attributes": {"Strength": 12},
            "skills": {"Climb": {"rating": 3, "attribute": "Strength"}},
        }
    )
    climb = {"skill": "Climb", "visibility": "public"}
    seen: list[str] = []
    await store.db.trace(seen.append)
    try:
        await harness.slash(world.guild, world.general, world.alice, "rps check", climb)
        reads = [s for s in seen if not s.startswith("INSERT INTO rolls")]
        # one read: the blind request, the pending modifiers, the settings and Alice's active RPS sheet
        assert len(reads) == 1 and "FROM meta" in reads[0] and "JOIN sheets" in reads[0], reads
    finally:
        await store.db.trace(None)
    await store.sheets.set_skill(world.guild.id, world.alice.id, "Kit", "Climb", 5)
    await harness.slash(world.guild, world.general, world.alice, "rps check", climb)
    # the second roll saw the raised skill: nothing of the first interaction's read was kept
    newest, first = await store.log.last(world.guild.id, world.general.id, 2)
    assert (first.inputs["base"], first.inputs["parts"]) == (15, ["Climb 3", "Strength 12"])
    assert (newest.inputs["base"], newest.inputs["parts"]) == (17, ["Climb 5", "Strength 12"])


async def test_a_roll_without_a_visibility_takes_the_channel_s_default_from_the_same_read(
    harness: Harness, world: World
) -> None:  # GM-3
    store = harness.bot.store
    await store.settings.set_channel_visibility(world.guild.id, world.general.id, "private")
    seen: list[str] = []
    await store.db.trace(seen.append)
    try:
        answer = await harness.slash(world.guild, world.general, world.alice, "rps check", {"base": 10})
    finally:
        await store.db.trace(None)
    assert answer.ephemeral  # the channel's default: private
    reads = [s for s in seen if not s.startswith("INSERT INTO rolls")]
    assert len(reads) == 1 and "FROM channel_settings" in reads[0], reads
    [logged] = await store.log.last(world.guild.id, world.general.id, 1)
    assert logged.visibility == "private"
    # a GM changes the default between two rolls: the next roll sees it
    await store.settings.set_channel_visibility(world.guild.id, world.general.id, "public")
    again = await harness.slash(world.guild, world.general, world.alice, "rps check", {"base": 10})
    assert not again.ephemeral


async def test_a_modifier_of_0_and_a_request_in_the_gm_channel_are_refused(
    harness: Harness, world: World
) -> None:
    # GM-3: a 0 would use up the players' next rolls and change nothing; a request in the GM channel could
    # neither be seen nor answered by the player
    store = harness.bot.store
    for system, kind in (("decision", "modifier"), ("sysx", "sv"), ("dn", "df"), ("rps", "difficulty")):
        zero = await gm(harness, world, world.gm, "modifier", {"system": system, "kind": kind, "value": "+0"})
        assert zero.ephemeral and "of 0 changes nothing" in zero.content, (system, zero.content)
    assert await store.modifiers.list(world.guild.id, world.general.id) == []
    easiest = await gm(
        harness, world, world.gm, "modifier", {"system": "cards", "kind": "difficulty", "value": "0"}
    )
    assert easiest.ephemeral and "Mindlessly Easy" in easiest.text()  # a cards difficulty of 0 is a level
    assert [m.value for m in await store.modifiers.list(world.guild.id, world.general.id)] == [0]
    await set_up(harness, world, world.manager, "gm-channel", {"channel": world.gm_screen})
    there = await gm(
        harness,
        world,
        world.gm,
        "request-roll",
        {"member": world.alice, "system": "dn"},
        channel=world.gm_screen,
    )
    assert there.ephemeral and there.content.startswith("This is the GM channel, which players cannot read")
    assert there.public() == [] and there.original.custom_ids() == []  # no request, no button
    # a modifier set there would wait for rolls in the GM channel, which players never make
    before = await store.modifiers.list(world.guild.id, world.gm_screen.id)
    secret = await gm(
        harness,
        world,
        world.gm,
        "modifier",
        {"system": "sysx", "kind": "roll", "value": "-2", "member": world.alice},
        channel=world.gm_screen,
    )
    assert secret.ephemeral and secret.content.startswith("This is the GM channel, where players do not roll")
    assert await store.modifiers.list(world.guild.id, world.gm_screen.id) == before == []


@pytest.mark.parametrize(
    ("system", "kind", "value", "path", "options"),
    [
        ("decision", "modifier", -2, "decision contested", lambda w: {"party1": w.alice, "party2": w.bob}),
        (
            "sysx",
            "roll",
            -2,
            "sysx opposed",
            lambda w: {"actor": w.bob, "actor_sv": 12, "target_npc": "Orc", "target_sv": 10},
        ),
        (
            "sysx",
            "sv",
            -2,
            "sysx opposed",
            lambda w: {"actor_npc": "Orc", "actor_sv": 12, "target": w.bob, "target_sv": 10},
        ),
        (
            "sysx",
            "roll",
            -2,
            "sysx combined",
            lambda w: {"member1": w.alice, "sv1": 10, "member2": w.bob, "sv2": 9},
        ),
        (
            "rps",
            "difficulty",
            -4,
            "rps resisted",
            lambda w: {"member1": w.alice, "base1": 10, "member2": w.bob, "base2": 9},
        ),
    ],
)
async def test_a_contest_a_player_runs_cannot_dodge_another_member_s_modifier(
    harness: Harness, world: World, system: str, kind: str, value: int, path: str, options: Any
) -> (
    None
):  # GM-3: Bob's modifier is Bob's: Alice's contest naming him is refused; his own or a GM's takes it.
    # The table's modifier for everyone applies to Bob's roll in any contest.
    store = harness.bot.store
    await store.modifiers.set(world.guild.id, world.general.id, system, None, kind, value, 5, world.gm.id)
    everyone = await harness.slash(world.guild, world.general, world.alice, path, options(world))
    assert not everyone.ephemeral, everyone.content  # a modifier for everyone is the table's: no refusal
    # ... and it applies to Bob's roll in Alice's contest as to his own: one of his five uses is taken
    [bobs] = await store.modifiers.pending_for(world.guild.id, world.general.id, system, world.bob.id)
    assert bobs.uses_left == 4
    assert f"{value:+d}" in everyone.text() and world.gm.mention in everyone.text()
    await store.modifiers.set(
        world.guild.id, world.general.id, system, world.bob.id, kind, value, 1, world.gm.id
    )
    refused = await harness.slash(world.guild, world.general, world.alice, path, options(world))
    assert refused.ephemeral and refused.content.startswith(f"<@{world.bob.id}> has a GM modifier waiting")
    assert refused.public() == [] and [m for m in refused.messages if not m.deleted] == [refused.original]
    mine = [m for m in await store.modifiers.list(world.guild.id, world.general.id) if m.target_user_id]
    assert [m.uses_left for m in mine] == [1]
    ran = await harness.slash(world.guild, world.general, world.gm, path, options(world))
    assert not ran.ephemeral, ran.content
    assert [m for m in await store.modifiers.list(world.guild.id, world.general.id) if m.target_user_id] == []


async def test_a_long_list_of_modifiers_says_how_many_it_leaves_out(harness: Harness, world: World) -> None:
    # GM-3: whole lines, and a count of the rest, where Discord's 4,096 characters end the list
    store = harness.bot.store
    for n in range(80):
        await store.modifiers.set(
            world.guild.id, world.general.id, "rps", None, "difficulty", n % 10 + 1, 1, world.gm.id
        )
    listed = await gm(harness, world, world.gm, "modifiers")
    embed = listed.embed
    lines = embed["description"].split("\n")
    assert embed["title"] == "Pending GM modifiers: 80" and len(embed["description"]) <= 4000
    shown = len(lines) - 1
    assert lines[-1] == f"… and {80 - shown} more; /gm clear removes them by system or player."
    assert all(line.startswith("`#") for line in lines[:-1])
