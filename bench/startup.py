"""Startup: from process start to connected (READY and every GUILD_CREATE sent) and to the first answer.

The database holds 10,000 sheets, 1,000 open hands and 1,000 running pools (stored through the store API,
built once and cached in the temp folder). `python -m bot` starts as a subprocess against the fake
Discord; the clock starts just before the process is created. Buttons are DynamicItems, so no per-hand
view objects are built at startup. The first start on a fresh copy syncs the command tree (as a new
install would); later starts find the tree unchanged and skip the sync. The bare discord.py bot
(bench/bare_bot.py) is timed the same way as the floor. Target (issue 6): answering within 2 s.

    python bench/startup.py [--sheets 10000 --hands 1000 --pools 1000 --runs 3 --guilds 0]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
from pathlib import Path

from _common import cached_database, launch, machine, open_fake, rerun

from bot.local.fake.harness import World
from bot.local.fake.server import MESSAGE, FakeDiscord

TARGET_S = 2.0


async def one_start(kind: str, fake: FakeDiscord, world: World, database: Path) -> tuple[float, float, int]:
    """(spawn -> connected, spawn -> first answer, callback type) for one start of ``kind``."""
    bot = await launch(kind, fake, database)
    try:
        command, options = ("help", {"system": "rps"}) if kind == "tabletop" else ("ok", {})
        data = fake.build_command_data(world.guild, command, options)
        record = fake.interaction_payload(2, data, user=world.alice, channel=world.general)
        await fake.dispatch("INTERACTION_CREATE", record.payload)
        await asyncio.wait_for(record.answered.wait(), 60)
        assert record.callback_at is not None
        answered = record.callback_at - bot.spawned
        connected = bot.connected - bot.spawned
    finally:
        await bot.stop()
    errors = bot.error_lines()
    if errors:
        raise RuntimeError("the bot logged errors:\n" + "\n".join(errors))
    return connected, answered, record.callback_type or 0


async def main(args: argparse.Namespace) -> int:
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="startup-") as folder:
        database = await cached_database(args.sheets, args.hands, args.pools, Path(folder))
        size = sum(p.stat().st_size for p in Path(folder).glob("bot.db*"))
        print(
            f"database: {args.sheets} sheets, {args.hands} open hands, {args.pools} running pools "
            f"({size / 1e6:.1f} MB); guilds: {1 + args.guilds}"
        )
        print(f"{'':<34} {'connected s':>12} {'answered s':>12}")
        rows: dict[str, list[float]] = {"tabletop": [], "bare": []}
        fakes = {kind: await open_fake(args.guilds) for kind in ("bare", "tabletop")}
        for run in range(args.runs + 1):
            for kind, (fake, world) in fakes.items():
                connected, answered, callback = await one_start(kind, fake, world, database)
                label = f"{kind} {'first start (syncs)' if run == 0 else f'restart {run}'}"
                ok = "" if callback == MESSAGE else f"  (callback type {callback}!)"
                print(f"{label:<34} {connected:12.3f} {answered:12.3f}{ok}")
                if run > 0 or args.runs == 0:
                    rows[kind].append(answered)
        for fake, _ in fakes.values():
            await fake.stop()
    median = statistics.median(rows["tabletop"])
    worst = max(rows["tabletop"])
    bare = statistics.median(rows["bare"])
    ok = worst < TARGET_S
    print(
        f"tabletop answering after {median:.3f} s median, {worst:.3f} s worst of {len(rows['tabletop'])} "
        f"restarts (bare discord.py: {bare:.3f} s)"
    )
    print(f"  {'PASS' if ok else 'FAIL'}  answering within {TARGET_S:.0f} s: {worst:.3f} s")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    argv = [
        f"--sheets {args.sheets}",
        f"--hands {args.hands}",
        f"--pools {args.pools}",
        f"--runs {args.runs}",
        f"--guilds {args.guilds}",
    ]
    print(rerun("startup.py", argv))
    return 0 if ok else 1


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sheets", type=int, default=10_000)
    parser.add_argument("--hands", type=int, default=1_000)
    parser.add_argument("--pools", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3, help="restarts timed after the first start")
    parser.add_argument("--guilds", type=int, default=0, help="extra guilds the fake delivers")
    return parser.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse())))
