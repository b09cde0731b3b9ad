"""Resident memory of the bot with 1,000 guilds delivered by the fake gateway and a full database.

The database holds 10,000 sheets, 1,000 open hands and 1,000 running pools (as in bench/startup.py). The
fake delivers 1,000 guilds (GUILD_CREATE with a few members, roles and channels each); after they all
arrived and discord.py's guild_ready_timeout has passed, the bot answers a few hundred commands, then
VmRSS (resident now) and VmHWM (resident peak) are read from /proc/<pid>/status. The bare discord.py bot
(bench/bare_bot.py) with the same guilds is the floor. Target (issue 6): under 150 MB.

Then the real bot's worker processes are put to work, round after round (a worker's memory grows with use,
up to a level): two /odds charts, two card odds and a hand's last move at once, and the same few hundred
commands again. The proportional set size (PSS: shared pages divided among the processes sharing them)
of the bot and its workers is read after each round, and the highest is held to the same target.

    python bench/memory.py [--guilds 1000 --commands 300 --worker-rounds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
from pathlib import Path

from _common import WAIT, cached_database, launch, machine, open_fake, rerun

from bot.local.fake.harness import World
from bot.local.fake.server import FakeDiscord

TARGET_MB = 150.0
SETTLE_S = 3.0  # past discord.py's guild_ready_timeout (2 s after the last GUILD_CREATE)


def worker_load(round_: int) -> tuple[tuple[str, dict[str, int]], ...]:
    """/odds answers that start the odds worker (cards) and the chart worker (all four): other figures each
    round, so no answer comes from a cache."""
    return (
        ("odds rps", {"base": 8 + round_ % 10}),
        ("odds rps", {"base": 18 - round_ % 10}),
        ("odds cards", {"difficulty": 1 + round_ % 4, "level": 5}),
        ("odds cards", {"difficulty": 1 + round_ % 4, "level": 4}),
    )


async def odds_through_the_workers(fake: FakeDiscord, world: World, round_: int) -> None:
    """`worker_load` at once: the odds workers compute, the chart worker loads matplotlib and draws; and a
    voluntary hand is dealt and stood on, and its Odds asked for, so the odds worker works out its last
    move's odds."""
    deal = fake.build_command_data(world.guild, "cards task", {"difficulty": 2, "level": 3})
    dealt = fake.interaction_payload(2, deal, user=world.alice, channel=world.general)
    await fake.dispatch("INTERACTION_CREATE", dealt.payload)
    await asyncio.wait_for(dealt.answered.wait(), WAIT)
    hand = dealt.original
    if hand is None:
        raise RuntimeError("the hand was not dealt")
    [stand] = [c for c in hand.custom_ids() if re.fullmatch(r"bj:\d+:stand", c)]
    records = []
    for path, options in worker_load(round_):
        data = fake.build_command_data(world.guild, path, options)
        records.append(fake.interaction_payload(2, data, user=world.alice, channel=world.general))
        await fake.dispatch("INTERACTION_CREATE", records[-1].payload)
    click = {"custom_id": stand, "component_type": 2}
    stood = fake.interaction_payload(3, click, user=world.alice, channel=world.general, message=hand)
    await fake.dispatch("INTERACTION_CREATE", stood.payload)
    await asyncio.wait_for(stood.answered.wait(), WAIT)
    # the last move's odds are worked out when asked for: the finished hand's Odds button
    odds = stand.replace(":stand", ":odds")
    asked = {"custom_id": odds, "component_type": 2}
    records.append(fake.interaction_payload(3, asked, user=world.alice, channel=world.general, message=hand))
    await fake.dispatch("INTERACTION_CREATE", records[-1].payload)
    for _ in range(int(WAIT / 0.05)):  # deferred first; each answer edits its loading message in
        if all(r.original is not None and not r.original.loading for r in records):
            return
        await asyncio.sleep(0.05)
    raise RuntimeError("an /odds answer or the odds of the hand's last move did not come")


async def resident(
    kind: str, database: Path, guilds: int, commands: int, rounds: int
) -> tuple[float, float, int, list[float], int]:
    """(VmRSS MB, VmHWM MB, answers before reading them, PSS MB with workers after each round, workers) of
    ``kind`` after the guilds arrived and ``commands`` were answered; the real bot then answers
    `worker_load` in its worker processes ``rounds`` times, ``commands`` more answered after each (a
    worker's memory grows with use)."""
    fake, world = await open_fake(guilds - 1)
    try:
        bot = await launch(kind, fake, database)
        try:
            await asyncio.sleep(SETTLE_S)
            command, options = ("help", {"system": "cards"}) if kind == "tabletop" else ("ok", {})
            data = fake.build_command_data(world.guild, command, options)

            async def answer_commands() -> int:
                """Send ``commands`` one after another; how many were answered."""
                answered = 0
                for _ in range(commands):
                    record = fake.interaction_payload(2, data, user=world.alice, channel=world.general)
                    await fake.dispatch("INTERACTION_CREATE", record.payload)
                    await asyncio.wait_for(record.answered.wait(), WAIT)
                    answered += record.callback is not None
                return answered

            answered = await answer_commands()
            await asyncio.sleep(0.5)
            rss, hwm = bot.status_kb("VmRSS") / 1024, bot.status_kb("VmHWM") / 1024
            pss = []
            for round_ in range(rounds if kind == "tabletop" else 0):
                if round_:
                    await answer_commands()
                await odds_through_the_workers(fake, world, round_)
                await asyncio.sleep(0.5)
                pss.append(bot.pss_kb() / 1024)
            workers = len(bot.children())
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
            f"{'':<24} {'VmRSS MB':>10} {'VmHWM MB':>10} {'answers':>8}   then, after each of "
            f"{args.worker_rounds} rounds of two /odds charts, two card odds and a hand's last move at once "
            f"({args.commands} more commands after each): PSS MB of the bot and its worker processes"
        )
        results = {}
        total = 0.0
        for kind in ("bare", "tabletop"):
            rss, hwm, answered, pss, workers = await resident(
                kind, database, args.guilds, args.commands, args.worker_rounds
            )
            results[kind] = rss
            after = f"{' '.join(f'{p:.1f}' for p in pss)} ({workers} workers)" if pss else ""
            total = max(pss, default=0.0)
            print(f"{kind:<24} {rss:10.1f} {hwm:10.1f} {answered:8d}   {after}")
    ok = results["tabletop"] < TARGET_MB and total < TARGET_MB
    print(f"tabletop over bare: {results['tabletop'] - results['bare']:+.1f} MB")
    print(
        f"  {'PASS' if results['tabletop'] < TARGET_MB else 'FAIL'}  resident under {TARGET_MB:.0f} MB: "
        f"{results['tabletop']:.1f} MB"
    )
    print(
        f"  {'PASS' if total < TARGET_MB else 'FAIL'}  with the worker processes running, the highest of "
        f"the rounds (PSS, shared pages divided): {total:.1f} MB"
    )
    argv = [
        f"--guilds {args.guilds}",
        f"--commands {args.commands}",
        f"--sheets {args.sheets}",
        f"--hands {args.hands}",
        f"--pools {args.pools}",
        f"--worker-rounds {args.worker_rounds}",
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
    parser.add_argument("--worker-rounds", type=int, default=10, help="rounds of work for the workers")
    return parser.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse())))
