"""Second tries (RPS-9): one grant per failed check, taken once, with the try's log row in one transaction."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from bot.store import Conflict, InvalidData, NotFound, RollRecord, SecondTry, Store

G, C, GM, P, Q = 1, 10, 7, 20, 21


def record(user: int = P, command: str = "rps check") -> RollRecord:
    return RollRecord(
        guild_id=G, channel_id=C, user_id=user, system="rps", command=command, result="SL -3: failure"
    )


def grant(log_id: int, modifier: int = 2, roller: int = P) -> SecondTry:
    return SecondTry(
        log_id=log_id, guild_id=G, channel_id=C, roller_id=roller, modifier=modifier, granted_by=GM
    )


async def test_rps9_a_check_is_granted_once_and_taken_once(store: Store) -> None:  # RPS-9
    failed = await store.log.add(record())
    assert await store.second_tries.get(failed) is None
    assert await store.second_tries.grant(grant(failed)) is True
    assert await store.second_tries.grant(grant(failed, modifier=-5)) is False  # the first grant stands
    stored = await store.second_tries.get(failed)
    assert stored is not None and stored.modifier == 2 and not stored.taken
    used = await store.second_tries.take_logged(failed, P, record(command="rps second try"))
    taken = await store.second_tries.get(failed)
    assert taken is not None and taken.taken and taken.used_log_id == used
    assert (await store.log.get(used)).command == "rps second try"
    with pytest.raises(Conflict, match="already taken"):
        await store.second_tries.take_logged(failed, P, record(command="rps second try"))
    assert len(await store.log.last(G, C, 10)) == 2  # the refused take wrote nothing
    assert await store.second_tries.withdraw(failed) is False  # a taken grant stays


async def test_rps9_only_the_roller_takes_it(store: Store) -> None:  # RPS-9
    failed = await store.log.add(record())
    await store.second_tries.grant(grant(failed))
    with pytest.raises(NotFound):
        await store.second_tries.take_logged(failed, Q, record(user=Q))
    with pytest.raises(NotFound):
        await store.second_tries.take_logged(failed + 99, P, record())
    assert len(await store.log.last(G, C, 10)) == 1


async def test_rps9_two_takes_at_once_from_two_connections_roll_once(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:  # RPS-9: a double click (or two bot processes) rolls the second try once
    other = await open_store()
    failed = await store.log.add(record())
    await store.second_tries.grant(grant(failed))
    outcomes = await asyncio.gather(
        store.second_tries.take_logged(failed, P, record(command="rps second try")),
        other.second_tries.take_logged(failed, P, record(command="rps second try")),
        return_exceptions=True,
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["Conflict", "int"]
    assert [r.command for r in await store.log.last(G, C, 10)] == ["rps second try", "rps check"]


async def test_rps9_two_grants_at_once_make_one(store: Store) -> None:  # RPS-9
    failed = await store.log.add(record())
    made = await asyncio.gather(*(store.second_tries.grant(grant(failed, m)) for m in (1, -1, 3)))
    assert sorted(made) == [False, False, True]


async def test_rps9_a_withdrawn_grant_can_be_granted_again(store: Store) -> None:  # RPS-9
    failed = await store.log.add(record())
    await store.second_tries.grant(grant(failed))
    assert await store.second_tries.withdraw(failed) is True
    assert await store.second_tries.get(failed) is None
    assert await store.second_tries.grant(grant(failed, modifier=0)) is True


@pytest.mark.parametrize("modifier", [-6, 6, True])
async def test_rps9_a_modifier_outside_minus_5_to_5_is_refused(store: Store, modifier: object) -> None:
    failed = await store.log.add(record())
    with pytest.raises((InvalidData, ValueError)):
        await store.second_tries.grant(grant(failed, modifier=modifier))  # type: ignore[arg-type]
    assert await store.second_tries.get(failed) is None
