"""One process against two on one PostgreSQL database: the real bot's throughput and latency.

The same load twice, each on its own fake Discord and its own fresh schema of one PostgreSQL server, bursts
interleaved round by round (so load on the machine hits both alike):

- one `python -m bot` process holding every guild (one shard);
- two `python -m bot` processes, SHARD_COUNT=2 with SHARD_IDS=0 and SHARD_IDS=1: the fake sends a guild's
  events to its shard, ``(guild_id >> 22) % 2``.

The load is `/rps check` (a stored sheet read, the roll logged) round robin over guilds of both shards, each
by a player of that guild with a sheet there, N at C in flight. "CPU/answer" is both processes' CPU. On a
2-core machine that also runs PostgreSQL and the fake, a second process has no core of its own: expect
little gain; the figure to watch is no drop. Run from the repository root:

    python bench/processes.py                        # C=16, 3 rounds
    python bench/processes.py -n 2000 -c 16 --database-url postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BotProcess, Run, fire, launch, machine, open_fake, rerun, schema_checks
from latency import DEFAULT_SERVER, answered_publicly, pooled, with_setting

from bot.local.fake.server import FakeDiscord, InteractionRecord
from bot.local.fake.world import FakeGuild, FakeUser
from bot.store.db import safe_url

SHARDS = 2
NO_DROP = 0.95  # two processes' answers/s at least this share of one's: within a run's noise, no drop


@dataclass
class Setup:
    """One fake Discord, its guilds of both shards, one schema, and the bot processes answering them."""

    label: str
    fake: FakeDiscord
    bots: list[BotProcess]
    make: Callable[[int], InteractionRecord]
    folder: tempfile.TemporaryDirectory[str]
    drop: Callable[[], object]
    runs: list[Run] = field(default_factory=list)
    made: int = 0
    cpu: list[float] = field(default_factory=list)  # per process, over its bursts (the warm-up too)

    async def burst(self, n: int, concurrency: int, label: str) -> Run:
        records = [self.make(self.made + i) for i in range(n)]
        self.made += n
        before = [bot.cpu_split() for bot in self.bots]
        violations = len(self.fake.violations)
        # the CPU of both processes is read here: fire reads one bot's
        run = await fire(self.fake, records, concurrency, label, answered_publicly)
        run.errors += [str(v) for v in self.fake.violations[violations:]]
        after = [bot.cpu_split() for bot in self.bots]
        run.bot_cpu = sum(a[0] + a[1] - b[0] - b[1] for a, b in zip(after, before, strict=True))
        run.worker_cpu = sum(a[1] - b[1] for a, b in zip(after, before, strict=True))
        spent = [a[0] + a[1] - b[0] - b[1] for a, b in zip(after, before, strict=True)]
        self.cpu = [x + y for x, y in zip(self.cpu or [0.0] * len(spent), spent, strict=True)]
        return run

    async def close(self) -> list[str]:
        """Stop the bots and the fake, drop the schema; the ERROR lines of the bots' logs."""
        errors = []
        for bot in self.bots:
            await bot.stop()
            errors += bot.error_lines()
        await self.fake.stop()
        self.folder.cleanup()
        await self.drop()  # type: ignore[misc]
        return errors


async def guilds_on_every_shard(fake: FakeDiscord, per_shard: int) -> list[FakeGuild]:
    """``per_shard`` guilds on each of the shards, each with a channel and a player (guild ids are
    snowflakes, time-based: a guild for a shard that is full waits a millisecond for another id)."""
    found: dict[int, list[FakeGuild]] = {shard: [] for shard in range(SHARDS)}
    while any(len(guilds) < per_shard for guilds in found.values()):
        guild = fake.add_guild(f"Table {sum(map(len, found.values()))}")
        shard = (guild.id >> 22) % SHARDS
        if len(found[shard]) >= per_shard:
            del fake.guilds[guild.id]
            await asyncio.sleep(0.002)
            continue
        found[shard].append(guild)
        fake.add_channel(guild, "dice")
        fake.add_member(guild, fake.add_user(f"player-{guild.id}"))
    return [guild for pair in zip(*found.values(), strict=True) for guild in pair]  # shards alternate


def player(guild: FakeGuild) -> FakeUser:
    """The guild's player (not its owner)."""
    return next(m.user for m in guild.members.values() if m.id != guild.owner_id)


async def open_setup(label: str, server: str, processes: int, per_shard: int) -> Setup:
    """The fake, its guilds, a fresh schema, the sheets, then ``processes`` bots (1: one shard; 2: one
    shard each of two)."""
    from bot.store import Skill, Store
    from tests.postgres import new_schema

    fake, _ = await open_fake()
    guilds = await guilds_on_every_shard(fake, per_shard)
    url, drop = await new_schema(server)
    folder = tempfile.TemporaryDirectory(prefix="processes-")
    bots: list[BotProcess] = []
    try:
        async with await Store.open(url) as store:  # the schema migrated once, the sheets stored
            for guild in guilds:
                await store.sheets.create(
                    {
                        "guild_id": guild.id,
                        "owner_id": player(guild).id,
                        "name": "Bench",
                        "system": "rps",
                        "attributes": {"Strength": 12},
                        "skills": {"Climb": Skill(rating=3, attribute="Strength")},
                    }
                )
        for index in range(processes):
            shards = {"SHARD_COUNT": str(SHARDS), "SHARD_IDS": str(index)} if processes > 1 else {}
            database = Path(folder.name) / f"unused-{index}.db"
            bots.append(await launch("tabletop", fake, database, database_url=url, env=shards))
        if processes > 1:
            await fake.wait_for_shards(SHARDS)
    except BaseException:
        for bot in bots:
            await bot.stop()
        await fake.stop()
        folder.cleanup()
        await drop()
        raise
    options = {"skill": "Climb", "visibility": "public"}
    built = [
        (fake.build_command_data(guild, "rps check", options), player(guild), guild.channel("dice"))
        for guild in guilds
    ]

    def make(i: int) -> InteractionRecord:
        data, user, channel = built[i % len(built)]
        return fake.interaction_payload(2, data, user=user, channel=channel)

    return Setup(label, fake, bots, make, folder, drop)


def verdict(one: Run, two: Run) -> str:
    share = two.throughput / one.throughput if one.throughput else float("nan")
    if share >= 1:
        return f"no drop: two processes answer {share:.0%} of one's answers/s"
    if share >= NO_DROP:
        return f"no drop beyond noise: two processes answer {share:.0%} of one's (within {1 - NO_DROP:.0%})"
    return f"DROP: two processes answer {share:.0%} of one's answers/s ({1 - share:.0%} fewer)"


async def main(args: argparse.Namespace) -> int:
    schema_checks(False)
    server = with_setting(args.database_url or DEFAULT_SERVER, "synchronous_commit", args.synchronous_commit)
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    print(
        f"/rps check round robin over {args.guilds_per_shard * SHARDS} guilds ({args.guilds_per_shard} per "
        f"shard of {SHARDS}), N={args.n} per round at C={args.concurrency}, {args.rounds} rounds "
        f"interleaved, warm-up {args.warmup}; PostgreSQL {safe_url(server)}, a fresh schema per setup"
    )
    setups: list[Setup] = []
    try:
        setups.append(await open_setup("1 process", server, 1, args.guilds_per_shard))
        setups.append(await open_setup(f"{SHARDS} processes (shards)", server, SHARDS, args.guilds_per_shard))
        for setup in setups:
            await setup.burst(args.warmup, 4, "warm-up")
        for index in range(args.rounds):  # the order flips every round
            for setup in setups if index % 2 == 0 else reversed(setups):
                setup.runs.append(await setup.burst(args.n, args.concurrency, setup.label))
    finally:
        logged = [await setup.close() for setup in setups]
    one, two = (pooled(setup.runs, f"{setup.label} C={args.concurrency}") for setup in setups)
    print(f"\n{'':<28} {'p50 ms':>8} {'p99 ms':>8} {'answers/s':>10} {'µs CPU/answer':>14} {'errors':>7}")
    for run in (one, two):
        print(
            f"{run.label:<28} {run.median:8.2f} {run.quantile(0.99):8.2f} {run.throughput:10.0f} "
            f"{run.cpu_per_answer:14.0f} {len(run.errors):7d}"
        )
    rounds = ", ".join(
        f"{b.throughput / a.throughput:.0%}" for a, b in zip(setups[0].runs, setups[1].runs, strict=True)
    )
    print(f"{'rounds, 2 over 1 answers/s':<28} {rounds}")
    split = " / ".join(f"{cpu / sum(setups[1].cpu):.0%}" for cpu in setups[1].cpu)
    print(f"{'CPU of shard 0 / shard 1':<28} {split} (both answer their guilds)")
    for setup, run, lines in zip(setups, (one, two), logged, strict=True):
        for error in (run.errors + [f"bot log: {line}" for line in lines])[:5]:
            print(f"  error ({setup.label}): {error}")
    print(verdict(one, two))
    print(f"load average after: {os.getloadavg()[0]:.2f} (other work on the machine inflates every figure)")
    argv = [f"-n {args.n}", f"-c {args.concurrency}", f"--rounds {args.rounds}", f"--warmup {args.warmup}"]
    if args.database_url:
        argv.append(f"--database-url '{safe_url(args.database_url)}'")
    print(rerun("processes.py", argv))
    failed = one.errors or two.errors or any(logged)
    return 1 if failed else 0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", type=int, default=1000, help="interactions per round and setup")
    parser.add_argument("-c", "--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--guilds-per-shard", type=int, default=8)
    parser.add_argument("--database-url", help=f"the PostgreSQL server (default {DEFAULT_SERVER})")
    parser.add_argument(
        "--synchronous-commit",
        choices=("off", "on"),
        default="off",
        help="for the bots' connections, unless the address sets it (off: SQLite's promise)",
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse())))
