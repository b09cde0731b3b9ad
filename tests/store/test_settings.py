"""Guild settings, channel visibility defaults, channel GMs (GM-1) and the meta table."""

from __future__ import annotations

import asyncio

import pytest

from bot.store import GuildSettings, InvalidData, Store
from tests.store._backends import refuse


async def test_defaults_when_absent(store: Store) -> None:
    settings = await store.settings.get(1)
    assert settings == GuildSettings(guild_id=1)
    assert settings.gm_role_ids == []  # GM-1: the default role names apply
    assert settings.adder_scheme == "low"  # BJ-7 default
    assert (settings.bj_suit_bonus, settings.bj_characteristic_bonus, settings.bj_fumble_flags) == (True,) * 3
    assert (settings.decks_per_shoe, settings.margin_display, settings.allow_blind) == (1, "signed", True)


async def test_update_validates_and_keeps_earlier_changes(store: Store) -> None:
    await store.settings.update(1, gm_role_ids=[11, 12], margin_display="letters")
    updated = await store.settings.update(1, bj_suit_bonus=False, gm_channel_id=99)
    assert updated.gm_role_ids == [11, 12] and updated.margin_display == "letters"
    assert updated == await store.settings.get(1)
    assert (await store.settings.get(2)) == GuildSettings(guild_id=2)  # other guilds untouched


@pytest.mark.parametrize(
    ("changes", "word"),
    [
        ({"decks_per_shoe": 0}, "decks_per_shoe"),
        ({"decks_per_shoe": 9}, "decks_per_shoe"),
        ({"adder_scheme": "random"}, "adder_scheme"),
        ({"margin_display": "percent"}, "margin_display"),
        ({"bj_suit_bonus": "yes"}, "bj_suit_bonus"),
        ({"no_such": 1}, "no_such"),
        ({"guild_id": 5}, "guild_id"),
        ({"systemx_chart": "x" * 20_001}, "systemx_chart"),
        ({"adder_scheme": "high", "decks_per_shoe": 99}, "decks_per_shoe"),
    ],
)
async def test_bad_settings_are_refused_and_nothing_changes(
    store: Store, changes: dict[str, object], word: str
) -> None:
    await store.settings.update(1, adder_scheme="middle")
    with pytest.raises(InvalidData, match=word) as err:
        await store.settings.update(1, **changes)
    assert str(err.value).endswith(".")
    assert await store.settings.get(1) == GuildSettings(guild_id=1, adder_scheme="middle")


async def test_reset(store: Store) -> None:
    await store.settings.update(1, decks_per_shoe=4)
    assert await store.settings.reset(1) == GuildSettings(guild_id=1)
    assert await store.settings.get(1) == GuildSettings(guild_id=1)


async def test_channel_visibility(store: Store) -> None:
    assert await store.settings.channel_visibility(1, 10) == "public"
    for mode in ("private", "gm", "blind", "public"):
        assert await store.settings.set_channel_visibility(1, 10, mode) == mode
        assert await store.settings.channel_visibility(1, 10) == mode
    with pytest.raises(InvalidData, match="public, private, gm, blind"):
        await store.settings.set_channel_visibility(1, 10, "secret")
    assert await store.settings.channel_visibility(1, 11) == "public"


async def test_gm1_channel_gms(store: Store) -> None:  # GM-1 third way: made GM of that channel
    assert not await store.gm.is_channel_gm(1, 10, 7)
    assert await store.gm.add_channel_gm(1, 10, 7)
    assert not await store.gm.add_channel_gm(1, 10, 7)
    await store.gm.add_channel_gm(1, 10, 8)
    assert await store.gm.is_channel_gm(1, 10, 7)
    assert not await store.gm.is_channel_gm(1, 11, 7)  # only that channel
    assert sorted(await store.gm.list_channel_gms(1, 10)) == [7, 8]
    assert await store.gm.remove_channel_gm(1, 10, 7)
    assert not await store.gm.remove_channel_gm(1, 10, 7)
    assert await store.gm.list_channel_gms(1, 10) == [8]


async def test_meta(store: Store) -> None:
    assert await store.meta.get("command_tree_hash") is None
    await store.meta.set("command_tree_hash", "abc")
    await store.meta.set("command_tree_hash", "def")
    assert await store.meta.get("command_tree_hash") == "def"
    assert await store.meta.delete("command_tree_hash")
    assert await store.meta.get("command_tree_hash") is None
    with pytest.raises(InvalidData):
        await store.meta.set("", "x")


async def test_sql_parameters_are_bound_not_formatted(store: Store) -> None:
    evil = "x'); DROP TABLE meta; --"
    await store.meta.set(evil, evil)
    assert await store.meta.get(evil) == evil
    assert await store.sheets.autocomplete_names(1, 1, evil) == []


async def test_gm_settings_and_the_channel_default_are_saved_together(store: Store) -> None:
    settings, mode = await store.settings.save(1, {"decks_per_shoe": 3}, channel_id=5, visibility="gm")
    assert settings.decks_per_shoe == 3 and mode == "gm"
    assert await store.settings.channel_visibility(1, 5) == "gm"
    # the channel's row cannot be written (a real database failure): the guild's change is not kept either
    refused = await refuse(store, "no_channels", "UPDATE", "channel_settings")
    with pytest.raises(refused):
        await store.settings.save(
            1, {"decks_per_shoe": 6, "allow_blind": False}, channel_id=5, visibility="private"
        )
    after = await store.settings.get(1)
    assert (after.decks_per_shoe, after.allow_blind) == (3, True)
    assert await store.settings.channel_visibility(1, 5) == "gm"
    with pytest.raises(InvalidData):  # a bad setting: nothing written, the channel included
        await store.settings.save(1, {"decks_per_shoe": 99}, channel_id=6, visibility="blind")
    assert await store.settings.channel_visibility(1, 6) == "public"


async def test_meta_move_is_one_transaction_and_happens_once(store: Store) -> None:
    await store.meta.set("request:1", "{}")
    moves = await asyncio.gather(*(store.meta.move("request:1", "blind:1", "1") for _ in range(3)))
    assert moves.count(None) == 2 and moves.count(1) == 1  # one move: a queue of one request
    assert (await store.meta.get("request:1"), await store.meta.get("blind:1")) == (None, "1")
    # the new key cannot be written (a real failure): the old one stays, in the database and in memory
    await store.meta.set("request:2", "{}")
    refused = await refuse(store, "no_blind", "INSERT", "meta", "NEW.key = 'blind:2'")
    with pytest.raises(refused):
        await store.meta.move("request:2", "blind:2", "2")
    assert (await store.meta.get("request:2"), await store.meta.get("blind:2")) == ("{}", None)


async def test_a_meta_delete_that_fails_keeps_its_key(store: Store) -> None:
    await store.meta.set("k", "v")
    refused = await refuse(store, "keep_k", "DELETE", "meta", "OLD.key = 'k'")
    with pytest.raises(refused):
        await store.meta.delete("k")
    assert await store.meta.get("k") == "v"  # not reported gone while the row is still there


async def test_a_claim_is_no_channel_gm_right_and_an_admin_s_row_replaces_it(store: Store) -> None:  # GM-1
    assert await store.gm.add_channel_gm(1, 10, 7, claimed=True)
    assert not await store.gm.is_channel_gm(1, 10, 7)  # a claim routes hidden rolls; it gives no rights
    assert await store.gm.channel_gms(1, 10) == [(7, True)]
    assert not await store.gm.add_channel_gm(1, 10, 7, claimed=True)  # claimed already
    assert await store.gm.add_channel_gm(1, 10, 7)  # an admin's /setup channel-gm add: rights and all
    assert await store.gm.is_channel_gm(1, 10, 7) and await store.gm.channel_gms(1, 10) == [(7, False)]
    assert not await store.gm.add_channel_gm(1, 10, 7, claimed=True)  # a claim never demotes it
    assert not await store.gm.add_channel_gm(1, 10, 7)
    assert await store.gm.list_channel_gms(1, 10) == [7] and await store.gm.is_channel_gm(1, 10, 7)


async def test_the_channels_with_a_default_visibility(store: Store) -> None:
    for channel, mode in ((5, "blind"), (3, "blind"), (4, "gm")):
        await store.settings.set_channel_visibility(1, channel, mode)
    await store.settings.set_channel_visibility(2, 6, "blind")  # another guild's
    assert await store.settings.channels_with_visibility(1, "blind") == [3, 5]
    assert await store.settings.channels_with_visibility(1, "private") == []
    with pytest.raises(InvalidData):
        await store.settings.channels_with_visibility(1, "loud")


async def test_too_many_gm_roles_are_named_in_words(store: Store) -> None:
    # GM-1: the refusal reaches a server admin as it is: no field name of ours in it
    with pytest.raises(InvalidData) as err:
        await store.settings.update(1, gm_role_ids=list(range(1, 27)))
    assert str(err.value) == "The server has at most 25 GM roles; you gave 26."
    assert (await store.settings.get(1)).gm_role_ids == []
