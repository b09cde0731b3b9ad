"""The longest stall of the real bot's event loop under a mixed load, against the target: none over 50 ms.

The bot runs as `python -m bot` with a loop-lag monitor on its loop (bench/_lag_probe.py: a task that
sleeps 5 ms again and again and notes how late it wakes, i.e. how long the loop did not run a callback
that was ready). This process plays Discord (the loopback fake of the tests) and sends, all at once and
each at its own pace for --seconds:

- rolls: `/rps check base:13` and `/decision roll` on a stored sheet, in turn;
- Hit clicks on freshly dealt voluntary hands;
- Stand clicks, each ending a hand (a last move's odds are worked out only when a player asks for them);
- `/odds rps` with a chart (drawn in the chart worker, uploaded);
- `/log export:csv` by a GM of a channel with 30,000 logged rolls (read, built into a ~4 MB file, uploaded);
- `/sheet import` of a ~500 KB file (refused: too big) and of the largest sheet the bot accepts, in turn.

It prints each stream's answers and latencies (to the callback, and to the whole answer: a deferred
reply filled, a chart or file uploaded, an Odds line edited in), then the loop's longest stall within the
load. Run from the repository root:

    python bench/loop_lag.py [--seconds 20] [--scale 1.0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from _common import (
    WAIT,
    BotProcess,
    fire,
    lag_file,
    launch,
    machine,
    open_fake,
    rerun,
    schema_checks,
)
from latency import (
    HANDS_PER_CHANNEL,
    answered_by_updating,
    answered_publicly,
    odds_line_followed,
    store_sheet,
)

from bot.local.fake.harness import World
from bot.local.fake.server import FakeDiscord, FakeMessage, InteractionRecord

TARGET_MS = 50.0
INTERVAL_MS = 5  # bench/_lag_probe.py's INTERVAL
EXPORT_ROWS = 30_000
BIG_UPLOAD = 500 * 1024
# interactions per second, each stream (times --scale)
RATES = {"rolls": 60.0, "hit": 30.0, "stand": 6.0, "odds": 2.0, "export": 0.25, "import": 1.0}


@dataclass
class Stream:
    """One kind of interaction, sent at ``rate`` per second; ``make`` None when out of material."""

    name: str
    rate: float
    make: Callable[[int], InteractionRecord | None]
    check: Callable[[InteractionRecord], str | None]
    done: Callable[[InteractionRecord], bool]  # the whole answer is in (deferred reply filled, edit made)
    to_callback: list[float] = field(default_factory=list)
    to_done: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def answered(record: InteractionRecord) -> bool:
    return record.callback is not None


def has_file(record: InteractionRecord) -> bool:
    return record.original is not None and bool(record.original.attachments)


def answered_at_all(record: InteractionRecord) -> str | None:
    return None if record.callback is not None else "no callback"


def answered_in_full(record: InteractionRecord) -> bool:
    """Answered, and a deferred answer's message filled in (the import defers: its file comes from a CDN)."""
    return record.original is not None and not record.original.loading


def answered_privately(record: InteractionRecord) -> str | None:
    if record.original is None or not record.original.ephemeral or record.original.loading:
        return f"not an ephemeral answer: {record.callback}"
    return None


async def one(fake: FakeDiscord, stream: Stream, record: InteractionRecord) -> None:
    started = time.monotonic()
    await fake.dispatch("INTERACTION_CREATE", record.payload)
    try:
        async with asyncio.timeout(WAIT):
            await record.answered.wait()
            stream.to_callback.append(time.monotonic() - started)
            while not stream.done(record):
                await asyncio.sleep(0.005)
            stream.to_done.append(time.monotonic() - started)
    except TimeoutError:
        stream.errors.append(f"no whole answer in {WAIT:.0f} s: {record.payload['data']}")
        return
    problem = stream.check(record)
    if problem is not None:
        stream.errors.append(problem)


async def drive(fake: FakeDiscord, stream: Stream, until: float) -> None:
    """Send ``stream``'s interactions at its rate until ``until``, then wait for their answers."""
    tasks: set[asyncio.Task[None]] = set()
    due, i = time.monotonic(), 0
    while due < until:
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        record = stream.make(i)
        if record is None:
            break
        tasks.add(asyncio.ensure_future(one(fake, stream, record)))
        i += 1
        due += 1 / stream.rate
    await asyncio.gather(*tasks)


# -- what the load needs --------------------------------------------------------------------------------
async def log_rolls(database: Path, world: World, channel_id: int, n: int) -> None:
    """``n`` rolls in a channel's log, written before the bot starts (as a long campaign leaves them)."""
    from bot.store import RollRecord, Store

    rng = random.Random(29)
    async with await Store.open(database) as store:
        for start in range(0, n, 500):
            await asyncio.gather(
                *(
                    store.log.add(
                        RollRecord(
                            guild_id=world.guild.id,
                            channel_id=channel_id,
                            user_id=rng.choice([world.alice, world.bob, world.carol]).id,
                            system="rps",
                            command="rps check",
                            visibility=rng.choice(["public", "public", "public", "private", "gm"]),
                            inputs={"base": rng.randint(5, 20), "skill": "Climb"},
                            dice=[rng.randint(1, 10), rng.randint(1, 10)],
                            result=f"SL {rng.randint(-5, 9)}",
                            summary=f"Climb check {i}: Base 13 - 2d10",
                        )
                    )
                    for i in range(start, min(n, start + 500))
                )
            )


async def deal_hands(fake: FakeDiscord, world: World, bot: BotProcess, n: int) -> list[FakeMessage]:
    """``n`` voluntary hands dealt through the bot by a GM (a player holds one open hand in a channel),
    spread over channels (a shoe per channel)."""
    channels = [fake.add_channel(world.guild, f"cards-{c}") for c in range(n // HANDS_PER_CHANNEL + 1)]
    data = fake.build_command_data(world.guild, "cards task", {"difficulty": 2, "level": 3})
    records = [
        fake.interaction_payload(2, data, user=world.gm, channel=channels[i % len(channels)])
        for i in range(n)
    ]
    dealt = await fire(fake, records, 8, "deal", answered_publicly, bot)
    if dealt.errors:
        raise RuntimeError(f"dealing hands failed: {dealt.errors[:3]}")
    return [record.original for record in records if record.original is not None]


def click(fake: FakeDiscord, world: World, message: FakeMessage, action: str) -> InteractionRecord:
    pattern = re.compile(rf"^bj:\d+:{action}$")
    [custom_id] = [c for c in message.custom_ids() if pattern.match(c)]
    data = {"custom_id": custom_id, "component_type": 2}
    channel = fake.channels[message.channel_id]
    return fake.interaction_payload(3, data, user=world.gm, channel=channel, message=message)


def largest_sheet() -> bytes:
    """The biggest sheet the bot imports: every attribute and skill it allows, long names, full notes."""
    attributes = {f"Attribute {i:02d} " + "a" * 48: 12 for i in range(50)}
    first = next(iter(attributes))
    skills = {
        f"Skill {i:02d} " + "s" * 52: {
            "rating": 3,
            "attribute": first,
            "alternates": [f"Alternate {j} " + "x" * 50 for j in range(10)],
        }
        for i in range(50)
    }
    sheet = {"name": "Everything", "system": "rps", "attributes": attributes, "skills": skills}
    return json.dumps(sheet | {"notes": "n" * 2000}).encode()


def streams(
    fake: FakeDiscord, world: World, hands: list[FakeMessage], scale: float, only: set[str]
) -> list[Stream]:
    archive = next(c for c in fake.channels.values() if c.name == "archive")
    roll = fake.build_command_data(world.guild, "rps check", {"base": 13})
    decision = fake.build_command_data(
        world.guild, "decision roll", {"stat_name": "Strength", "target": 12, "visibility": "public"}
    )
    export = fake.build_command_data(world.guild, "log", {"export": "csv"})
    rate = {
        name: per_second * scale if not only or name in only else 0.0 for name, per_second in RATES.items()
    }
    split = round(len(hands) * rate["hit"] / (rate["hit"] + rate["stand"])) if hands else 0
    hits, stands = hands[:split], hands[split:]
    big = fake.attachment("campaign.sheet.json", b" " * BIG_UPLOAD)
    sheet = largest_sheet()

    def rolls(i: int) -> InteractionRecord:
        return fake.interaction_payload(2, (roll, decision)[i % 2], user=world.alice, channel=world.general)

    def hit(i: int) -> InteractionRecord | None:
        return click(fake, world, hits[i], "hit") if i < len(hits) else None

    def stand(i: int) -> InteractionRecord | None:
        return click(fake, world, stands[i], "stand") if i < len(stands) else None

    def odds(i: int) -> InteractionRecord:
        data = fake.build_command_data(world.guild, "odds rps", {"base": 5 + i % 16, "public": True})
        return fake.interaction_payload(2, data, user=world.bob, channel=world.general)

    def exports(i: int) -> InteractionRecord:
        return fake.interaction_payload(2, export, user=world.gm, channel=archive)

    def imports(i: int) -> InteractionRecord:
        upload = big if i % 2 == 0 else fake.attachment("everything.sheet.json", sheet)
        data = fake.build_command_data(world.guild, "sheet import", {"file": upload, "replace": True})
        return fake.interaction_payload(2, data, user=world.carol, channel=world.general)

    every = [
        Stream("rolls (/rps check, /decision roll)", rate["rolls"], rolls, answered_publicly, answered),
        Stream("Hit clicks", rate["hit"], hit, answered_by_updating, answered),
        Stream("Stand clicks", rate["stand"], stand, answered_by_updating, odds_line_followed),
        Stream("/odds rps with a chart", rate["odds"], odds, answered_at_all, has_file),
        Stream(f"/log export, {EXPORT_ROWS:,} rows", rate["export"], exports, answered_at_all, has_file),
        Stream(
            "/sheet import (500 KB; largest)", rate["import"], imports, answered_privately, answered_in_full
        ),
    ]
    return [stream for stream in every if stream.rate > 0]


# -- the monitor's file ----------------------------------------------------------------------------------
@dataclass
class Lag:
    """What the monitor saw within the load (ms): the worst lateness of a wake-up, the worst less the
    time the loop's thread waited for a core, and each stall over the monitor's threshold as
    (lateness, waiting for a core, on a core)."""

    worst: float = 0.0
    worst_own: float = 0.0
    wakeups: int = 0
    stalls: list[tuple[float, float, float]] = field(default_factory=list)


def lag_between(path: Path, start: float, end: float) -> Lag:
    lag = Lag()
    for line in path.read_text().splitlines():
        words = line.split()
        if words[0] == "stall":
            late, for_core, on_core = map(float, words[2:5])
            if start <= float(words[1]) <= end:
                lag.stalls.append((late, for_core, on_core))
                lag.worst, lag.worst_own = max(lag.worst, late), max(lag.worst_own, late - for_core)
        elif start + 1.0 <= float(words[0]) <= end:  # the seconds wholly within the load
            lag.worst, lag.worst_own = max(lag.worst, float(words[1])), max(lag.worst_own, float(words[3]))
            lag.wakeups += int(words[2])
    return lag


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))] * 1000


async def main(args: argparse.Namespace) -> int:
    schema_checks(False)
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    fake, world = await open_fake()
    archive = fake.add_channel(world.guild, "archive")
    with tempfile.TemporaryDirectory(prefix="loop-lag-") as folder:
        database = Path(folder) / "bot.db"
        started = time.monotonic()
        await log_rolls(database, world, archive.id, EXPORT_ROWS)
        print(f"{EXPORT_ROWS:,} rolls logged in #archive in {time.monotonic() - started:.1f} s")
        bot = await launch("probed", fake, database)
        try:
            await store_sheet(bot, world, "decision", {"Strength": 3})
            only = set(args.only.split(",")) if args.only else set()
            needed = math.ceil(
                sum(RATES[s] for s in ("hit", "stand") if not only or s in only) * args.scale * args.seconds
            )
            hands = await deal_hands(fake, world, bot, needed)
            load = streams(fake, world, hands, args.scale, only)
            print(f"{len(hands)} hands dealt; load for {args.seconds:.0f} s:")
            cpu_before = sum(bot.cpu_split())
            start = time.monotonic()
            until = start + args.seconds
            await asyncio.gather(*(drive(fake, stream, until) for stream in load))
            end = time.monotonic()
            cpu = sum(bot.cpu_split()) - cpu_before
            await asyncio.sleep(1.5)  # the monitor's last whole second
        finally:
            await bot.stop()
        errors = bot.error_lines()
        lag = lag_between(lag_file(database), start, end)
    await fake.stop()

    print(
        f"{'':<36} {'sent':>5} {'callback p50':>12} {'p99':>7} {'whole p50':>10} {'p99':>7} {'max':>7}"
        f" {'errors':>6}   (ms)"
    )
    for stream in load:
        print(
            f"{stream.name:<36} {len(stream.to_callback) + len(stream.errors):5d} "
            f"{quantile(stream.to_callback, 0.5):12.1f} {quantile(stream.to_callback, 0.99):7.1f} "
            f"{quantile(stream.to_done, 0.5):10.1f} {quantile(stream.to_done, 0.99):7.1f} "
            f"{quantile(stream.to_done, 1.0):7.1f} {len(stream.errors):6d}"
        )
        for error in stream.errors[:3]:
            print(f"  error: {error[:300]}")
    for line in errors[:5]:
        print(f"  bot log: {line[:300]}")
    print(
        f"the bot and its workers used {cpu / (end - start):.0%} of a core over {end - start:.1f} s; "
        f"the monitor woke {lag.wakeups:,} times (every {INTERVAL_MS} ms when the loop is free)"
    )
    for late, for_core, on_core in sorted(lag.stalls, reverse=True)[:5]:
        print(f"  stall {late:6.1f} ms: waiting for a core {for_core:6.1f}, on a core {on_core:6.1f}")
    clean = not errors and not any(s.errors for s in load)
    for what, worst in (("", lag.worst), (" less its wait for a core", lag.worst_own)):
        verdict = "PASS" if worst <= TARGET_MS and clean else "FAIL"
        print(
            f"longest event-loop stall{what}: {worst:.1f} ms (target: none over {TARGET_MS:.0f} ms) {verdict}"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    argv = [f"--seconds {args.seconds:g}", f"--scale {args.scale:g}"] + (
        [f"--only {args.only}"] if args.only else []
    )
    print(rerun("loop_lag.py", argv))
    return 0 if lag.worst <= TARGET_MS and clean else 1


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the load runs")
    parser.add_argument("--scale", type=float, default=1.0, help="every stream's rate times this")
    parser.add_argument("--only", default="", help=f"some streams only, comma-separated: {', '.join(RATES)}")
    return parser.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse())))
