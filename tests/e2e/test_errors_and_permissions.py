"""The error table, the reply helper and the GM checks, through the test-only probe cog."""

from __future__ import annotations

import re

import pytest

from bot.local.fake.harness import Harness, World
from bot.local.fake.server import DEFERRED_MESSAGE, CommandUnavailable, FakeDiscord


async def test_unexpected_error_shows_a_code_and_logs_it(probe: Harness, world: World) -> None:
    answer = await probe.slash(world.guild, world.general, world.alice, "probe boom")
    assert answer.ephemeral
    code = re.search(r"error code `([0-9a-f]{6})`", answer.content)
    assert code, answer.content
    errors = probe.take_errors()
    assert len(errors) == 1 and code.group(1) in errors[0].getMessage()
    assert "KeyError" in (errors[0].exc_text or "")


async def test_rule_error_is_one_ephemeral_sentence_and_nothing_is_logged(
    probe: Harness, world: World
) -> None:
    answer = await probe.slash(world.guild, world.general, world.alice, "probe rule")
    assert answer.ephemeral
    assert answer.content == "Skill must be between 0 and 10, not 11."
    assert answer.public() == []


async def test_error_after_a_public_defer_does_not_show_in_public(probe: Harness, world: World) -> None:
    answer = await probe.slash(world.guild, world.general, world.alice, "probe slowrule")
    assert answer.callback_type == DEFERRED_MESSAGE
    assert answer.record.original is not None and answer.record.original.deleted  # the "thinking" removed
    [sentence] = answer.ephemeral_messages()
    assert sentence.content == "That pool is already finished."


async def test_defer_then_reply_fills_the_deferred_message(probe: Harness, world: World) -> None:
    public = await probe.slash(world.guild, world.general, world.alice, "probe slow")
    assert public.original.content == "done slowly" and not public.original.ephemeral and not public.followups
    secret = await probe.slash(world.guild, world.general, world.alice, "probe slow", {"secret": True})
    assert secret.original.content == "done slowly" and secret.original.ephemeral


async def test_nothing_the_bot_sends_can_ping(probe: Harness, world: World) -> None:
    answer = await probe.slash(world.guild, world.general, world.alice, "probe ping")
    assert answer.original.allowed_mentions == {"parse": []}


async def test_button_errors_are_answered_with_a_code(probe: Harness, world: World) -> None:
    posted = await probe.slash(world.guild, world.general, world.alice, "probe buttons")
    answer = await probe.click(posted.original, "Boom", world.bob)
    assert answer.ephemeral and "error code" in answer.content
    assert len(probe.take_errors()) == 1


async def test_owner_or_gm_buttons_refuse_strangers(probe: Harness, world: World) -> None:  # GM-4
    posted = await probe.slash(world.guild, world.general, world.alice, "probe buttons")
    stranger = await probe.click(posted.original, "Mine", world.bob)
    assert stranger.ephemeral and "Only the player who started this" in stranger.content
    assert stranger.public() == []
    owner = await probe.click(posted.original, "Mine", world.alice)
    assert not owner.ephemeral and "Pressed by" in owner.content
    gm = await probe.click(posted.original, "Mine", world.gm)
    assert not gm.ephemeral


async def test_gm_only_refuses_players_and_admits_each_kind_of_gm(
    probe: Harness, world: World
) -> None:  # GM-1, GM-2
    refused = await probe.slash(world.guild, world.general, world.alice, "probe gmthing")
    assert refused.ephemeral and "Only a GM" in refused.content and refused.public() == []
    for gm in (world.owner, world.manager, world.gm):  # owner, Manage Server, the "GM" role
        allowed = await probe.slash(world.guild, world.general, gm, "probe gmthing")
        assert allowed.content == "GM thing done.", gm.username
    # a channel GM, made so in the store, is GM in that channel only
    await probe.bot.store.gm.add_channel_gm(world.guild.id, world.general.id, world.carol.id)
    assert (
        await probe.slash(world.guild, world.general, world.carol, "probe gmthing")
    ).content == "GM thing done."
    elsewhere = await probe.slash(world.guild, world.gm_screen, world.carol, "probe gmthing")
    assert "Only a GM" in elsewhere.content


async def test_gm_role_names_are_case_insensitive_and_guild_roles_replace_them(
    probe: Harness, world: World, fake: FakeDiscord
) -> None:  # GM-1
    game_master = await fake.create_role(world.guild, "game MASTER")
    world.guild.members[world.bob.id].roles.append(game_master)
    assert (
        await probe.slash(world.guild, world.general, world.bob, "probe gmthing")
    ).content == "GM thing done."
    table_lead = await fake.create_role(world.guild, "Table lead")
    world.guild.members[world.carol.id].roles.append(table_lead)
    await probe.bot.store.settings.update(world.guild.id, gm_role_ids=[table_lead.id])
    assert (
        await probe.slash(world.guild, world.general, world.carol, "probe gmthing")
    ).content == "GM thing done."
    # once a guild names its GM roles, the default names no longer count
    assert "Only a GM" in (await probe.slash(world.guild, world.general, world.bob, "probe gmthing")).content


async def test_manage_server_commands_refuse_role_gms(probe: Harness, world: World) -> None:
    refused = await probe.slash(world.guild, world.general, world.gm, "probe managerthing")
    assert refused.ephemeral and "Manage Server" in refused.content
    allowed = await probe.slash(world.guild, world.general, world.manager, "probe managerthing")
    assert allowed.content == "Manager thing done."


async def test_gm_only_commands_are_marked_and_hinted(probe: Harness, fake: FakeDiscord) -> None:
    from bot.ui.permissions import gm_only_commands

    names = {c.qualified_name for c in gm_only_commands(probe.bot.tree)}
    probes = sorted(n for n in names if n.startswith("probe "))
    assert probes == ["probe gmthing", "probe managerthing"]
    # Discord's hint sits on top-level commands only; the runtime check is what protects subcommands
    synced = {c["name"]: c for c in fake.global_commands}
    assert synced["probe"]["default_member_permissions"] is None


async def test_every_gm_only_command_refuses_a_player(
    probe: Harness, world: World, fake: FakeDiscord
) -> None:
    """GM-2 for the whole tree: a new GM-only command cannot slip through."""
    from bot.ui.permissions import gm_only_commands
    from tests.e2e.auto_options import minimal_options

    commands = list(gm_only_commands(probe.bot.tree))
    assert commands
    hidden = 0
    for command in commands:
        before = len(fake.message_log)
        options = minimal_options(fake, world, command.qualified_name)
        root = command.root_parent or command
        if root.default_permissions is not None:  # server set-up: Discord does not even offer it
            with pytest.raises(CommandUnavailable):
                await probe.slash(world.guild, world.general, world.alice, command.qualified_name, options)
            hidden += 1
            continue
        answer = await probe.slash(world.guild, world.general, world.alice, command.qualified_name, options)
        assert answer.ephemeral, command.qualified_name
        assert "Only" in answer.content, (command.qualified_name, answer.content)
        assert [m for m in fake.message_log[before:] if not m.ephemeral] == [], command.qualified_name
    assert 0 < hidden < len(commands)  # /setup hidden from players; the table's GM commands shown to all


async def test_a_rate_limited_callback_is_retried(probe: Harness, world: World, fake: FakeDiscord) -> None:
    fake.rate_limit("POST", r"^/interactions/", retry_after=0.01)
    answer = await probe.slash(world.guild, world.general, world.alice, "probe rule")
    assert answer.content.startswith("Skill must be")
    assert fake.faults[0].hits == 1
