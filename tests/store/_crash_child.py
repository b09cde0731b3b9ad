"""A child process for the crash test: writes transactions forever, printing each one after it commits.

Run as ``python -m tests.store._crash_child DB_PATH``; the test SIGKILLs it mid-burst. Each transaction
writes two rows that must both exist or neither (a hand and the shoe it drew from), or a row whose two
columns must agree (a pool and its logged checks).
"""

from __future__ import annotations

import asyncio
import random
import sys

from bot.store import PoolCheck, RollRecord, Store

G, C = 1, 10


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(path: str) -> None:
    store = await Store.open(path)
    try:
        await burst(store)
    finally:
        await store.close()  # an unclosed aiosqlite connection keeps the process alive


async def burst(store: Store) -> None:
    rng = random.Random(1234)
    pool = await store.pools.start(G, C, 7, "Burst", goal=10_000, base=12, time_per_check=1)
    say(f"pool {pool.id}")
    i = 0
    while True:
        i += 1
        if pool.checks_made >= 500:  # a pool takes at most 1000 checks: start the next one
            await store.pools.stop(pool.id)
            pool = await store.pools.start(G, C, 7, f"Burst {i}", goal=10_000, base=12, time_per_check=1)
            say(f"pool {pool.id}")
        shoe, version = await store.cards.get_shoe(G, C, 1, rng)
        card, shoe = shoe.draw(rng)
        hand = await store.cards.create_hand(
            G, C, 20, {"i": i}, state="playing", cards=[card], shoe=shoe, shoe_version=version
        )
        say(f"deal {hand.id}")
        shoe, version = await store.cards.get_shoe(G, C)
        hand = await store.cards.apply(
            hand.id, hand.version, {"i": i, "done": True}, state="finished", cards=hand.cards, finished=True,
            shoe=shoe.discard(hand.card_objects), shoe_version=version,
        )  # fmt: skip
        say(f"finish {hand.id}")
        pool = await store.pools.add_check(
            pool.id, pool.checks_made, PoolCheck(sl=i % 7 - 3, delta=i % 7 - 3)
        )
        say(f"check {pool.id}:{pool.checks_made}")
        record = RollRecord(
            guild_id=G, channel_id=C, user_id=20, system="cards", command="draw", inputs={"i": i},
            dice=[card.code], result=card.code,
        )  # fmt: skip
        rid = await store.log.add(record)
        say(f"log {rid}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
