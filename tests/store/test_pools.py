"""Sustained pools (RPS-8): several per channel by name; the pool is the sum of its logged checks."""

from __future__ import annotations

import pytest

from bot.store import Conflict, InvalidData, NotFound, PoolCheck, Store

G, C, GM, P = 1, 10, 7, 20


async def test_rps8_start_add_checks_complete(store: Store) -> None:  # RPS-8
    pool = await store.pools.start(
        G, C, GM, "Climb", goal=10, base=12, time_per_check=10, time_unit="minutes"
    )
    assert (pool.pool, pool.checks_made, pool.state, pool.checks) == (0, 0, "running", ())
    pool = await store.pools.add_check(pool.id, 0, PoolCheck(sl=4, delta=4, dice=[1, 7], by_user_id=P))
    pool = await store.pools.add_check(pool.id, 1, PoolCheck(sl=-1, delta=-1, dice=[4, 9]))
    pool = await store.pools.add_check(pool.id, 2, PoolCheck(sl=7, delta=7), state="completed")
    assert (pool.pool, pool.checks_made, pool.state, pool.time_spent) == (10, 3, "completed", 30)
    assert pool.pool == sum(c.delta for c in pool.checks) and pool.checks_made == len(pool.checks)
    with pytest.raises(Conflict, match="completed; no more checks"):
        await store.pools.add_check(pool.id, 3, PoolCheck(sl=1, delta=1))
    assert await store.pools.get_by_id(pool.id) == pool


async def test_rps8_several_pools_per_channel_by_name(store: Store) -> None:  # RPS-8
    climb = await store.pools.start(G, C, GM, "Climb", goal=5, base=10, time_per_check=1)
    dig = await store.pools.start(
        G, C, GM, "Dig", goal=8, base=9, time_per_check=2, no_loss=True, skill="Dig"
    )
    assert [p.name for p in await store.pools.list(G, C)] == ["Climb", "Dig"]
    assert (await store.pools.get(G, C, "dig")).id == dig.id and dig.no_loss and dig.skill == "Dig"
    with pytest.raises(Conflict, match="already running"):
        await store.pools.start(G, C, GM, "CLIMB", goal=5, base=10, time_per_check=1)
    stopped = await store.pools.stop(climb.id)
    assert stopped.state == "stopped" and (await store.pools.stop(climb.id)) == stopped
    assert [p.name for p in await store.pools.list(G, C)] == ["Dig"]
    assert len(await store.pools.list(G, C, running_only=False)) == 2
    again = await store.pools.start(G, C, GM, "Climb", goal=5, base=10, time_per_check=1)
    assert (await store.pools.get(G, C, "climb")).id == again.id  # the running one first
    await store.pools.set_message_id(again.id, 99)
    assert (await store.pools.get_by_id(again.id)).message_id == 99
    with pytest.raises(NotFound):
        await store.pools.get(G, C, "Swim")


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"goal": 0}, "goal is a whole number from 1"),
        ({"goal": -3}, "goal"),
        ({"goal": True}, "goal"),
        ({"time_per_check": 0}, "time per check"),
        ({"name": ""}, "name is 1 to 64"),
        ({"base": 10_000}, "base"),
        ({"time_unit": ""}, "time unit"),
    ],
)
async def test_rps8_bad_pools_are_refused(store: Store, fields: dict[str, object], words: str) -> None:
    args: dict[str, object] = {"name": "Climb", "goal": 10, "base": 12, "time_per_check": 10} | fields
    with pytest.raises(InvalidData, match=words):
        await store.pools.start(G, C, GM, **args)  # type: ignore[arg-type]
    assert await store.pools.list(G, C, running_only=False) == []


async def test_stale_check_count_is_a_conflict(store: Store) -> None:
    pool = await store.pools.start(G, C, GM, "Climb", goal=10, base=12, time_per_check=10)
    await store.pools.add_check(pool.id, 0, PoolCheck(sl=2, delta=2))
    with pytest.raises(Conflict, match="Another check"):
        await store.pools.add_check(pool.id, 0, PoolCheck(sl=3, delta=3))
    with pytest.raises(InvalidData):
        await store.pools.add_check(pool.id, 1, PoolCheck(sl=3, delta=3), state="won")  # type: ignore[arg-type]
    assert (await store.pools.get_by_id(pool.id)).pool == 2
    with pytest.raises(NotFound):
        await store.pools.add_check(999, 0, PoolCheck(sl=1, delta=1))
