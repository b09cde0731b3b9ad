"""Resident memory of the bot with 1,000 guilds delivered by the fake gateway and a full database.

The database holds 10,000 sheets, 1,000 open hands and 1,000 running pools (as in bench/startup.py). The
fake delivers 1,000 guilds (GUILD_CREATE with a few members, roles and channels each); after they all
arrived and discord.py's guild_ready_timeout has passed, the bot answers a few hundred commands, then
VmRSS (resident now) and VmHWM (resident peak) are read from /proc/<pid>/status. The bare discord.py bot
(bench/bare_bot.py) with the same guilds is the floor. Target (issue 6): under 150 MB.

    python bench/memory.py [--guilds 1000 --commands 300]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from _common import WAIT, cached_database, launch, machine, open_fake, rerun

from tests.fake_discord.harness import World
from tests.fake_discord.server import FakeDiscord

TARGET_MB = 150.0
SETTLE_S = 3.0  # past discord.py's guild_ready_timeout (2 s after the last GUILD_CREATE)


WORKER_LOAD = (  # /odds answers that start every worker: odds (cards) and charts (all four)
    ("odds rps", {"base": 12}),
    ("odds rps", {"base": 13}),
    ("odds cards", {"difficulty": 3, "level": 5}),
    ("odds cards", {"difficulty": 2, "level": 4}),
)


async def odds_through_the_workers(fake: FakeDiscord, world: World) -> None:
    """`WORKER_LOAD` at once: the odds workers compute, the chart worker loads matplotlib and draws."""
    records = []
    for path, options in WORKER_LOAD:
        data = fake.build_command_data(world.guild, path, options)
        records.append(fake.interaction_payload(2, data, user=world.alice, channel=world.general))
        await fake.dispatch("INTERACTION_CREATE", records[-1].payload)
    for _ in range(int(WAIT / 0.05)):  # deferred first; each answer edits its loading message in
        if all(r.original is not None and not r.original.loading for r in records):
            return
        await asyncio.sleep(0.05)
    raise RuntimeError("an /odds answer did not come")


async def resident(
    kind: str, database: Path, guilds: int, commands: int
) -> tuple[float, float, int, float, int]:
    """(VmRSS MB, VmHWM MB, answers, PSS MB with workers, workers) of ``kind`` after the guilds arrived
    and ``commands`` were answered; the real bot then answers `WORKER_LOAD` in its worker processes."""
    fake, world = await open_fake(guilds - 1)
    try:
        bot = await launch(kind, fake, database)
        try:
            await asyncio.sleep(SETTLE_S)
            command, options = ("help", {"system": "cards"}) if kind == "tabletop" else ("ok", {})
            data = fake.build_command_data(world.guild, command, options)
            answered = 0
            for _ in range(commands):
                record = fake.interaction_payload(2, data, user=world.alice, channel=world.general)
                await fake.dispatch("INTERACTION_CREATE", record.payload)
                await asyncio.wait_for(record.answered.wait(), WAIT)
                answered += record.callback is not None
            await asyncio.sleep(0.5)
            rss, hwm = bot.status_kb("VmRSS") / 1024, bot.status_kb("VmHWM") / 1024
            if kind == "tabletop":
                await odds_through_the_workers(fake, world)
                await asyncio.sleep(0.5)
            pss, workers = bot.pss_kb() / 1024, len(bot.children())
        finally:
            await bot.stop()
        errors = bot.error_lines()
        if errors:
            raise RuntimeError("the bot logged errors:\n" + "\n".join(errors))
        return rss, hwm, answered, pss, workers
    finally:
        await fake.stop()


async def main(args: argparse.Namespace) -> int:
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(prefix="memory-") as folder:
        database = await cached_database(args.sheets, args.hands, args.pools, Path(folder))
        print(
            f"{args.guilds} guilds from the gateway; database: {args.sheets} sheets, {args.hands} hands, "
            f"{args.pools} running pools; {args.commands} commands answered before reading"
        )
        print(
            f"{'':<24} {'VmRSS MB':>10} {'VmHWM MB':>10} {'answers':>8}   then, after two /odds charts "
            "and card odds at once: PSS MB of the bot and its worker processes"
        )
        results = {}
        total = 0.0
        for kind in ("bare", "tabletop"):
            rss, hwm, answered, pss, workers = await resident(kind, database, args.guilds, args.commands)
            results[kind] = rss
            after = f"{pss:10.1f} ({workers} workers)" if kind == "tabletop" else ""
            total = pss
            print(f"{kind:<24} {rss:10.1f} {hwm:10.1f} {answered:8d}   {after}")
    ok = results["tabletop"] < TARGET_MB and total < TARGET_MB
    print(f"tabletop over bare: {results['tabletop'] - results['bare']:+.1f} MB")
    print(
        f"  {'PASS' if results['tabletop'] < TARGET_MB else 'FAIL'}  resident under {TARGET_MB:.0f} MB: "
        f"{results['tabletop']:.1f} MB"
    )
    print(
        f"  {'PASS' if total < TARGET_MB else 'FAIL'}  with the chart workers running (PSS, shared pages "
        f"divided): {total:.1f} MB"
    )
    argv = [
        f"--guilds {args.guilds}",
        f"--commands {args.commands}",
        f"--sheets {args.sheets}",
        f"--hands {args.hands}",
        f"--pools {args.pools}",
    ]
    print(rerun("memory.py", argv))
    return 0 if ok else 1


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--guilds", type=int, default=1_000)
    parser.add_argument("--commands", type=int, default=300)
    parser.add_argument("--sheets", type=int, default=10_000)
    parser.add_argument("--hands", type=int, default=1_000)
    parser.add_argument("--pools", type=int, default=1_000)
    return parser.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse())))
