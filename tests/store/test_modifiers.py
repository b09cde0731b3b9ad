"""Pending GM modifiers (GM-3): per channel, per system, for one player or everyone, N uses each."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from bot.store import MODIFIER_KINDS, InvalidData, NotFound, RollRecord, Store
from bot.store import modifiers as modifiers_module

G, C = 1, 10
GM, ANN, BOB = 7, 20, 21


async def test_gm3_one_player_modifier_lasts_n_rolls(store: Store) -> None:  # GM-3
    mod = await store.modifiers.set(G, C, "sysx", ANN, "sv", 2, 2, GM)
    assert (mod.uses, mod.uses_left, mod.for_everyone) == (2, 2, False)
    assert await store.modifiers.consume(G, C, "sysx", BOB) == []  # not Bob's
    assert await store.modifiers.consume(G, C, "dn", ANN) == []  # another system
    assert await store.modifiers.consume(G, C + 1, "sysx", ANN) == []  # another channel
    first = await store.modifiers.consume(G, C, "sysx", ANN)
    assert [(a.kind, a.value, a.set_by, a.uses_left) for a in first] == [("sv", 2, GM, 1)]
    second = await store.modifiers.consume(G, C, "sysx", ANN)
    assert [a.uses_left for a in second] == [0]
    assert await store.modifiers.consume(G, C, "sysx", ANN) == []
    assert await store.modifiers.list(G, C) == []  # used up, gone
    with pytest.raises(NotFound):
        await store.modifiers.get(mod.id)  # type: ignore[arg-type]


async def test_gm3_everyone_modifier_gives_each_player_n_uses_and_stands(store: Store) -> None:  # GM-3
    mod = await store.modifiers.set(G, C, "decision", None, "advantage", 1, 2, GM)
    assert mod.for_everyone
    for player in (ANN, BOB):
        assert [a.uses_left for a in await store.modifiers.consume(G, C, "decision", player)] == [1]
    assert [a.uses_left for a in await store.modifiers.consume(G, C, "decision", ANN)] == [0]
    assert await store.modifiers.consume(G, C, "decision", ANN) == []
    assert [a.for_everyone for a in await store.modifiers.consume(G, C, "decision", BOB)] == [True]
    assert await store.modifiers.uses_taken(mod.id, ANN) == 2  # type: ignore[arg-type]
    assert [m.id for m in await store.modifiers.list(G, C)] == [mod.id]  # stands until cleared
    assert [a.uses_left for a in await store.modifiers.consume(G, C, "decision", 99)] == [1]  # a newcomer
    assert await store.modifiers.clear(G, C) == 1
    assert await store.modifiers.consume(G, C, "decision", 100) == []


async def test_gm3_all_matching_modifiers_apply_together_with_who_set_them(store: Store) -> None:
    await store.modifiers.set(G, C, "sysx", ANN, "sv", -1, 1, GM)
    await store.modifiers.set(G, C, "sysx", None, "roll", 3, 1, GM + 1)
    await store.modifiers.set(G, C, "sysx", ANN, "required_margin", "S2", 1, GM)
    preview = await store.modifiers.pending_for(G, C, "sysx", ANN)
    applied = await store.modifiers.consume(G, C, "sysx", ANN)
    # the preview shows the uses before this roll; the roll took one of each
    assert [(p.modifier_id, p.uses_left - 1) for p in preview] == [
        (a.modifier_id, a.uses_left) for a in applied
    ]
    assert [(a.kind, a.value, a.set_by) for a in applied] == [
        ("sv", -1, GM),
        ("roll", 3, GM + 1),
        ("required_margin", "S2", GM),
    ]
    assert await store.modifiers.pending_for(G, C, "sysx", ANN) == []


async def test_gm3_of_two_replacing_modifiers_one_applies_and_the_other_keeps_its_use(store: Store) -> None:
    # GM-3, BJ-8: a cards difficulty replaces the task's, so two cannot both apply: the player's own wins
    everyone = await store.modifiers.set(G, C, "cards", None, "difficulty", 6, 1, GM)
    own = await store.modifiers.set(G, C, "cards", ANN, "difficulty", 2, 1, GM + 1)
    assert [a.modifier_id for a in await store.modifiers.pending_for(G, C, "cards", ANN)] == [own.id]
    held = await store.modifiers.reserve("deal 1", G, C, "cards", ANN)
    assert [(a.modifier_id, a.value) for a in held] == [(own.id, 2)]
    ticket = store.modifiers.ticket("deal 1")
    deal = RollRecord(
        guild_id=G, channel_id=C, user_id=ANN, system="cards", command="cards task", result="dealt"
    )
    await store.log.add(deal, modifiers=ticket)
    # the everyone-modifier was not used: Ann's next task gets it
    assert [(a.modifier_id, a.uses_left) for a in await store.modifiers.consume(G, C, "cards", ANN)] == [
        (everyone.id, 0)
    ]
    # SX-7: of two required margins for one player, the latest set applies; the earlier waits its turn
    first = await store.modifiers.set(G, C, "sysx", ANN, "required_margin", "S2", 1, GM)
    latest = await store.modifiers.set(G, C, "sysx", ANN, "required_margin", "S4", 1, GM)
    await store.modifiers.set(G, C, "sysx", ANN, "roll", 1, 1, GM)
    applied = await store.modifiers.consume(G, C, "sysx", ANN)
    assert [(a.kind, a.value) for a in applied] == [("required_margin", "S4"), ("roll", 1)]
    assert latest.id in [a.modifier_id for a in applied]
    assert [a.modifier_id for a in await store.modifiers.consume(G, C, "sysx", ANN)] == [first.id]
    # DD-2: advantage does not stack: of two, one is used; an advantage and a disadvantage both apply
    await store.modifiers.set(G, C, "decision", None, "advantage", 1, 1, GM)
    await store.modifiers.set(G, C, "decision", ANN, "advantage", 1, 1, GM)
    await store.modifiers.set(G, C, "decision", ANN, "disadvantage", 1, 1, GM)
    applied = await store.modifiers.consume(G, C, "decision", ANN)
    assert [(a.kind, a.for_everyone) for a in applied] == [("advantage", False), ("disadvantage", False)]
    assert [(a.kind, a.for_everyone) for a in await store.modifiers.consume(G, C, "decision", ANN)] == [
        ("advantage", True)
    ]


@pytest.mark.parametrize(
    ("system", "kind", "value", "words"),
    [
        ("sysx", "sv", 5, "runs from -4 to 4"),  # SX-6
        ("sysx", "roll", -5, "runs from -4 to 4"),  # SX-6
        ("sysx", "required_margin", "S9", "one of CF"),  # SX-7
        ("dn", "df", 6, "runs from -10 to 5"),  # DN-3
        ("dn", "sv", 1, "kind df"),
        ("cards", "difficulty", 8, "runs from 0 to 7"),  # BJ-8
        ("rps", "difficulty", 21, "runs from -20 to 20"),
        ("chess", "sv", 1, "system"),
    ],
)
async def test_bad_modifiers_are_refused(
    store: Store, system: str, kind: str, value: object, words: str
) -> None:
    with pytest.raises(InvalidData, match=words):
        await store.modifiers.set(G, C, system, ANN, kind, value, 1, GM)  # type: ignore[arg-type]
    assert await store.modifiers.list(G, C) == []


@pytest.mark.parametrize("uses", [0, -1, 101])
async def test_uses_are_1_to_100(store: Store, uses: int) -> None:
    with pytest.raises(InvalidData, match="uses"):
        await store.modifiers.set(G, C, "dn", ANN, "df", 1, uses, GM)


def test_every_system_has_modifier_kinds() -> None:
    assert set(MODIFIER_KINDS) == {"sysx", "dn", "rps", "decision", "cards"}


async def test_clear_by_system_and_player(store: Store) -> None:
    await store.modifiers.set(G, C, "sysx", ANN, "sv", 1, 1, GM)
    await store.modifiers.set(G, C, "sysx", None, "sv", 1, 1, GM)
    await store.modifiers.set(G, C, "dn", ANN, "df", 1, 1, GM)
    await store.modifiers.set(G, C + 1, "dn", ANN, "df", 1, 1, GM)
    assert await store.modifiers.clear(G, C, system="sysx", user_id=ANN) == 1
    assert await store.modifiers.clear(G, C, system="sysx") == 1
    assert await store.modifiers.clear(G, C) == 1
    assert len(await store.modifiers.list(G, C + 1)) == 1
    mod = (await store.modifiers.list(G, C + 1))[0]
    assert await store.modifiers.remove(mod.id)  # type: ignore[arg-type]
    assert not await store.modifiers.remove(mod.id)  # type: ignore[arg-type]


async def test_dm_channels_have_no_guild(store: Store) -> None:
    await store.modifiers.set(None, C, "dn", ANN, "df", 2, 1, GM)
    assert await store.modifiers.consume(G, C, "dn", ANN) == []
    assert [a.value for a in await store.modifiers.consume(None, C, "dn", ANN)] == [2]


# -- races: a GM's change and a roll at the same time --------------------------------------------------------
async def test_a_modifier_set_while_a_roll_reads_the_channel_still_applies(store: Store) -> None:  # GM-3
    # the roll may read the scope before the insert commits and find it empty; that read must not be
    # remembered as "no modifiers here", or every later roll would skip the modifier
    key = object()
    mod, seen = await asyncio.gather(
        store.modifiers.set(G, C, "dn", None, "df", 2, 3, GM),
        store.modifiers.reserve(key, G, C, "dn", ANN),
    )
    assert [a.modifier_id for a in seen] in ([], [mod.id])  # before the insert or after it: both fine
    store.modifiers.release(store.modifiers.ticket(key))  # that roll was not logged
    later = await store.modifiers.consume(G, C, "dn", ANN)
    assert [(a.modifier_id, a.uses_left) for a in later] == [(mod.id, 2)]


async def test_a_modifier_cleared_after_a_roll_reserved_it_does_not_lose_the_roll(store: Store) -> None:
    # GM-3: the roll was computed with the modifiers pending when it began; the GM's clear in between
    # must neither fail its log write (a use of a deleted modifier) nor leave a use behind
    await store.modifiers.set(G, C, "dn", None, "df", 2, 3, GM)
    await store.modifiers.set(G, C, "dn", ANN, "df", 1, 1, GM)
    key = object()
    reserved = await store.modifiers.reserve(key, G, C, "dn", ANN)
    assert len(reserved) == 2
    assert await store.modifiers.clear(G, C, "dn") == 2
    ticket = store.modifiers.ticket(key)
    record = RollRecord(
        guild_id=G, channel_id=C, user_id=ANN, system="dn", command="dn roll", visibility="public",
        inputs={"df": 12}, dice=[7], result="success", summary="7 vs 12",
    )  # fmt: skip
    try:
        log_id = await store.log.add(record, modifiers=ticket)
    finally:
        store.modifiers.release(ticket)
    assert [r.id for r in await store.log.last(G, C)] == [log_id]
    assert await store.modifiers.list(G, C) == []
    assert await store.modifiers.consume(G, C, "dn", ANN) == []


async def test_50_rolls_while_the_gm_sets_and_clears_take_each_use_once(store: Store) -> None:  # GM-3
    async def roll(user: int) -> list[int]:
        await asyncio.sleep(0)
        return [a.modifier_id for a in await store.modifiers.consume(G, C, "sysx", user)]

    async def gm() -> list[int]:
        ids = []
        for _ in range(5):
            ids.append((await store.modifiers.set(G, C, "sysx", ANN, "sv", 1, 2, GM)).id)
            await asyncio.sleep(0)
        return ids

    rolls = [roll(ANN) for _ in range(50)]
    results = await asyncio.gather(gm(), *rolls)
    set_ids, taken = results[0], [i for r in results[1:] for i in r]
    left = {m.id: m.uses_left for m in await store.modifiers.list(G, C)}
    for mod_id in set_ids:  # every use is either taken by exactly one roll or still pending
        assert taken.count(mod_id) + left.get(mod_id, 0) == 2


async def test_gm3_a_hold_left_by_a_process_that_died_expires(
    store: Store, open_store: Callable[[], Awaitable[Store]], monkeypatch: pytest.MonkeyPatch
) -> None:  # GM-3
    monkeypatch.setattr(modifiers_module, "TICKET_TTL_S", 0.3)
    await store.modifiers.set(G, C, "dn", ANN, "df", 2, 1, GM)
    dying = await open_store()
    assert await dying.modifiers.reserve("roll", G, C, "dn", ANN)  # then its process dies: no release
    assert await store.modifiers.reserve("other", G, C, "dn", ANN) == []  # held elsewhere
    await asyncio.sleep(0.4)
    assert [a.value for a in await store.modifiers.consume(G, C, "dn", ANN)] == [2]


async def test_gm3_before_roll_reads_a_kept_request_and_whether_modifiers_wait_at_once(store: Store) -> None:
    # GM-3: a roll that finds no modifier pending for its system in its channel takes none
    key = "blind_request:1:10:20:sysx"
    nothing = await store.modifiers.before_roll(G, C, "sysx", kept_key=key)
    assert (nothing.kept, nothing.modifiers_pending) == (None, False)
    await store.meta.set(key, "42")
    await store.modifiers.set(G, C + 1, "sysx", ANN, "sv", 2, 1, GM)  # another channel
    await store.modifiers.set(G, C, "dn", None, "df", 1, 1, GM)  # another system
    state = await store.modifiers.before_roll(G, C, "sysx", kept_key=key)
    assert (state.kept, state.modifiers_pending) == ("42", False)
    mod = await store.modifiers.set(G, C, "sysx", BOB, "sv", 2, 1, GM)  # Bob's: pending for the channel
    assert (await store.modifiers.before_roll(G, C, "sysx", kept_key="nothing here")).modifiers_pending
    await store.modifiers.consume(G, C, "sysx", BOB)  # its one use taken: gone
    with pytest.raises(NotFound):
        await store.modifiers.get(mod.id)  # type: ignore[arg-type]
    assert not (await store.modifiers.before_roll(G, C, "sysx", kept_key=key)).modifiers_pending
    await store.modifiers.set(None, C, "dn", None, "df", 1, 1, GM)  # a DM channel has no guild
    assert (await store.modifiers.before_roll(None, C, "dn", kept_key=key)).modifiers_pending
    assert not (await store.modifiers.before_roll(G + 1, C, "dn", kept_key=key)).modifiers_pending
    with pytest.raises(InvalidData):
        await store.modifiers.before_roll(G, C, "chess", kept_key=key)


async def test_before_roll_reads_the_roller_s_active_sheet_of_the_system_when_asked(store: Store) -> None:
    key = "blind_request:1:10:20:rps"
    asked = await store.modifiers.before_roll(G, C, "rps", kept_key=key, sheet_owner=ANN)
    assert (asked.sheet_owner, asked.active_sheet()) == (ANN, None)  # none yet
    rps_sheet = await store.sheets.create(
        {"guild_id": G, "owner_id": ANN, "name": "Kit", "system": "rps", "attributes": {"Strength": 12}}
    )
    await store.sheets.create({"guild_id": G, "owner_id": ANN, "name": "Dara", "system": "dn"})
    await store.sheets.create({"guild_id": G, "owner_id": BOB, "name": "Bo", "system": "rps"})
    await store.sheets.create({"guild_id": G + 1, "owner_id": ANN, "name": "Far", "system": "rps"})
    await store.meta.set(key, "7")
    state = await store.modifiers.before_roll(G, C, "rps", kept_key=key, sheet_owner=ANN)
    assert state.active_sheet() == await store.sheets.active(G, ANN, "rps") == rps_sheet
    assert (state.kept, state.modifiers_pending) == ("7", False)  # the rest of the read is unchanged
    assert state.settings == await store.settings.get(G)
    # not asked: no sheet, even though there is one
    assert (await store.modifiers.before_roll(G, C, "rps", kept_key=key)).active_sheet() is None
    # another active sheet of the system replaces it (one active per system)
    second = await store.sheets.create(
        {"guild_id": G, "owner_id": ANN, "name": "Lee", "system": "rps", "attributes": {"Strength": 9}}
    )
    await store.sheets.use(G, ANN, "Lee")
    again = await store.modifiers.before_roll(G, C, "rps", kept_key=key, sheet_owner=ANN)
    sheet = again.active_sheet()
    assert sheet is not None
    assert (sheet.id, sheet.name, sheet.attributes) == (second.id, "Lee", {"Strength": 9})
    # in a DM (no guild), sheets are kept under guild 0
    await store.sheets.create({"guild_id": 0, "owner_id": ANN, "name": "Solo", "system": "rps"})
    alone = (await store.modifiers.before_roll(None, C, "rps", kept_key=key, sheet_owner=ANN)).active_sheet()
    assert alone is not None and alone.name == "Solo"


async def test_before_roll_reads_the_channel_s_default_visibility_too(store: Store) -> None:
    key = "blind_request:1:10:20:dn"
    assert (await store.modifiers.before_roll(G, C, "dn", kept_key=key)).channel_visibility == "public"
    await store.settings.set_channel_visibility(G, C, "private")
    await store.settings.set_channel_visibility(G, C + 1, "gm")
    for sheet_owner in (None, ANN):  # with or without the sheet, the same
        state = await store.modifiers.before_roll(G, C, "dn", kept_key=key, sheet_owner=sheet_owner)
        assert state.channel_visibility == "private" == await store.settings.channel_visibility(G, C)
    assert (await store.modifiers.before_roll(G, C + 2, "dn", kept_key=key)).channel_visibility == "public"
    assert (await store.modifiers.before_roll(None, C, "dn", kept_key=key)).channel_visibility == "public"


async def test_before_roll_reads_the_guild_s_settings_too(store: Store) -> None:
    key = "blind_request:1:10:20:cards"
    assert (await store.modifiers.before_roll(G, C, "cards", kept_key=key)).settings == (
        await store.settings.get(G)
    )  # the defaults: the guild never changed a setting
    await store.settings.update(G, decks_per_shoe=4, allow_blind=False)
    settings = (await store.modifiers.before_roll(G, C, "cards", kept_key=key)).settings
    assert settings is not None and (settings.guild_id, settings.decks_per_shoe, settings.allow_blind) == (
        G,
        4,
        False,
    )
    assert (await store.modifiers.before_roll(None, C, "cards", kept_key=key)).settings is None  # a DM


async def test_a_roll_s_sheet_from_the_read_before_it_is_used_once_then_read_again(store: Store) -> None:
    from types import SimpleNamespace

    from bot.ui.gm import ROLL_READ, RollRead
    from bot.ui.rolls import sheet_of

    await store.sheets.create({"guild_id": G, "owner_id": ANN, "name": "Kit", "system": "rps"})
    state = await store.modifiers.before_roll(G, C, "rps", kept_key="k", sheet_owner=ANN)
    await store.sheets.create({"guild_id": G, "owner_id": ANN, "name": "Lee", "system": "rps"})
    await store.sheets.use(G, ANN, "Lee")  # changed after the read
    interaction = SimpleNamespace(guild=SimpleNamespace(id=G), user=SimpleNamespace(id=ANN), extras={})
    interaction.extras[ROLL_READ] = RollRead(G, C, ANN, "rps", state)
    first = await sheet_of(store, interaction, ANN, "rps")  # type: ignore[arg-type]
    second = await sheet_of(store, interaction, ANN, "rps")  # type: ignore[arg-type]
    assert first is not None and first.name == "Kit"  # as the read found it
    assert second is not None and second.name == "Lee"  # read again: the read is used once
    # another owner's sheet is read from the store (Bob has none)
    assert await sheet_of(store, interaction, BOB, "rps") is None  # type: ignore[arg-type]
