"""Benchmark the store's hot writes with 10,000 characters stored (a script, not a test).

Prints writes/s and p50/p99 latency for: log a roll, consume a modifier, draw a card (read the hand and
shoe, draw, apply the hand transition with its version checks); and a roll's write by how many rolls
share its COMMIT, with the CPU caches warm and cold. On each backend asked for: SQLite (a temporary file)
and PostgreSQL (a throw-away schema on ``--database-url``, dropped afterwards). Run from the repository
root:

    python bench/store_bench.py [--backends sqlite,postgres] [--database-url URL] [--characters 10000]
        [--ops 2000] [--concurrency 16] [--path FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.store import RollRecord, Skill, Store

G, C = 1, 10


async def fill(store: Store, characters: int) -> None:
    """Store ``characters`` sheets spread over 500 players."""
    systems = ("sysx", "dn", "rps", "decision", "cards")
    for n in range(characters):
        await store.sheets.create(
            {
                "guild_id": G,
                "owner_id": 1000 + n % 500,
                "name": f"Character {n}",
                "system": systems[n % 5],
                "attributes": {"Strength": 5, "Dexterity": 6},
                "skills": {"Climb": Skill(rating=3, attribute="Strength")},
            }
        )


async def measure(name: str, ops: int, op: Callable[[int], Awaitable[object]]) -> None:
    """Run ``op`` ``ops`` times one after another and print throughput and latency."""
    latencies: list[float] = []
    start = time.perf_counter()
    for i in range(ops):
        t0 = time.perf_counter()
        await op(i)
        latencies.append(time.perf_counter() - t0)
    total = time.perf_counter() - start
    cuts = statistics.quantiles(latencies, n=100)
    p50, p99 = cuts[49] * 1000, cuts[98] * 1000
    print(f"{name:<20} {ops / total:9.0f} writes/s   p50 {p50:7.3f} ms   p99 {p99:7.3f} ms")


async def measure_concurrent(
    store: Store, name: str, ops: int, concurrency: int, op: Callable[[int], Awaitable[object]]
) -> None:
    """Run ``op`` ``ops`` times, ``concurrency`` at once; print throughput and latency."""
    latencies: list[float] = []
    next_op = iter(range(ops))

    async def worker() -> None:
        for i in next_op:
            t0 = time.perf_counter()
            await op(i)
            latencies.append(time.perf_counter() - t0)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    total = time.perf_counter() - start
    cuts = statistics.quantiles(latencies, n=100)
    print(
        f"{name:<20} {ops / total:9.0f} writes/s   p50 {cuts[49] * 1000:7.3f} ms   "
        f"p99 {cuts[98] * 1000:7.3f} ms"
    )


def roll(i: int) -> RollRecord:
    """The ``i``-th roll the benchmark logs (500 players taking turns)."""
    return RollRecord(
        guild_id=G, channel_id=C, user_id=1000 + i % 500, system="rps", command="check",
        inputs={"base": 12}, dice=[i % 10 + 1, 7], result=f"SL {i % 9}", summary="check",
    )  # fmt: skip


async def commit_sizes(store: Store, ops: int) -> None:
    """A logged roll's write by how many share its COMMIT, back to back and after other Python work.

    The rolls of one turn of the event loop commit together. In the running bot discord.py's work
    between two transactions leaves the CPU caches cold; here ~1.7 ms of JSON encoding stands in for it.
    """
    other = {str(i): [i, str(i) * 5, {"a": i}] for i in range(3000)}
    for cold in (False, True):
        for size in (1, 6, 16):
            records = [roll(i) for i in range(size)]
            spent = 0.0
            rounds = max(1, ops // size)
            for _ in range(rounds):
                if cold:
                    json.dumps(other)
                start = time.perf_counter()
                await asyncio.gather(*(store.log.add(record) for record in records))
                spent += time.perf_counter() - start
            print(
                f"log {size:2d} rolls in one COMMIT, {'after other work' if cold else 'back to back':<16} "
                f"{spent / (rounds * size) * 1e6:7.1f} µs a roll"
            )


async def main(args: argparse.Namespace) -> None:
    """Fill the store, then time the three hot operations, on each backend in turn."""
    for backend in args.backends.split(","):
        print(f"== {backend}")
        if backend == "sqlite":
            with tempfile.TemporaryDirectory(prefix="store-bench-") as folder:
                await run(Path(args.path) if args.path else Path(folder) / "bench.sqlite3", args)
        elif backend == "postgres":
            from tests.postgres import new_schema

            url, drop = await new_schema(args.database_url)
            try:
                await run(url, args)
            finally:
                await drop()
        else:
            raise SystemExit(f"unknown backend {backend!r}: sqlite or postgres")
    print(
        f"rerun: python bench/store_bench.py --backends {args.backends} --characters {args.characters} "
        f"--ops {args.ops} --concurrency {args.concurrency}"
    )


async def run(target: Path | str, args: argparse.Namespace) -> None:
    """The measurements on one database (a file, or a PostgreSQL schema's address)."""
    store = await Store.open(target)
    try:
        t0 = time.perf_counter()
        await fill(store, args.characters)
        print(f"stored {args.characters} characters in {time.perf_counter() - t0:.1f} s ({target})")

        async def log_roll(i: int) -> object:
            return await store.log.add(roll(i))

        await store.modifiers.set(G, C, "sysx", None, "sv", 2, 100, 7)  # everyone: per-player uses

        async def consume(i: int) -> object:
            return await store.modifiers.consume(G, C, "sysx", 5000 + i)

        rng = random.Random(1)
        hand_holder: dict[str, int] = {}

        async def new_hand() -> None:
            shoe, version = await store.cards.get_shoe(G, C, 1, rng)
            card, shoe = shoe.draw(rng)
            hand = await store.cards.create_hand(
                G,
                C,
                1000,
                {"cards": [card.code]},
                state="playing",
                cards=[card],
                shoe=shoe,
                shoe_version=version,
            )
            hand_holder["id"] = hand.id

        async def finish_hand() -> None:
            hand = await store.cards.get_hand(hand_holder["id"])
            shoe, version = await store.cards.get_shoe(G, C)
            await store.cards.apply(
                hand.id, hand.version, hand.data, state="finished", cards=hand.cards, finished=True,
                shoe=shoe.discard(hand.card_objects), shoe_version=version,
            )  # fmt: skip

        await new_hand()

        async def draw(i: int) -> object:
            hand = await store.cards.get_hand(hand_holder["id"])
            shoe, version = await store.cards.get_shoe(G, C)
            card, shoe = shoe.draw(rng)
            cards = [*hand.cards, card.code]
            result = await store.cards.apply(
                hand.id,
                hand.version,
                {"cards": cards},
                state="playing",
                cards=cards,
                shoe=shoe,
                shoe_version=version,
            )
            if len(cards) >= 5:  # keep hands realistic: finish and deal a new one (timed with this draw)
                await finish_hand()
                await new_hand()
            return result

        await measure("log a roll", args.ops, log_roll)
        await measure_concurrent(
            store, f"log a roll, {args.concurrency} at once", args.ops, args.concurrency, log_roll
        )
        await commit_sizes(store, args.ops)
        await measure("consume a modifier", args.ops, consume)
        await measure("draw a card", args.ops, draw)
    finally:
        await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--characters", type=int, default=10_000)
    parser.add_argument("--ops", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16, help="rolls in flight at once (group commit)")
    parser.add_argument("--path", default="", help="SQLite file (default: a new temporary file)")
    parser.add_argument("--backends", default="sqlite", help="comma-separated: sqlite, postgres")
    parser.add_argument(
        "--database-url",
        default="postgresql://postgres@127.0.0.1:5432/test",
        help="the PostgreSQL server (a throw-away schema is made on it)",
    )
    asyncio.run(main(parser.parse_args()))
