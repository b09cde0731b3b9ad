"""Latency and throughput of the real bot against a bare discord.py bot, through the loopback fake Discord.

Both bots run as subprocesses (`python -m bot` and bench/bare_bot.py) against their own fake Discord in
this process. For each interaction the fake records time.monotonic() when it writes the INTERACTION_CREATE
frame and when the interaction's callback request arrives; the difference is the latency. Throughput is
answered interactions per second over the burst. N interactions are fired with C in flight at once.
"µs CPU/answer" is the bot's CPU time per answer, its worker processes included; "workers" is their part
of it (a hand's last-move odds, on Hit), spent beside the event loop rather than on it.

Targets (issue 6), checked at the largest C: median within 1.5x of the bare bot, throughput at least 60% of
the bare bot's, p99 under 25 ms, no errors. Run from the repository root:

    python bench/latency.py                       # every target that exists, C=1 and C=16
    python bench/latency.py --target rps -n 2000 -c 16
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from _common import (
    HEADER,
    ROOT,
    BotProcess,
    Check,
    Run,
    fire,
    launch,
    machine,
    open_fake,
    rerun,
    schema_checks,
)

from tests.fake_discord.harness import World
from tests.fake_discord.server import MESSAGE, UPDATE_MESSAGE, FakeDiscord, InteractionRecord

MEDIAN_RATIO, THROUGHPUT_SHARE, P99_MS = 1.5, 0.6, 25.0
Prepare = Callable[[FakeDiscord, World, BotProcess, int], Awaitable[Callable[[int], InteractionRecord]]]
Settled = Callable[[InteractionRecord], bool]


@dataclass
class Target:
    """One kind of interaction to time on the real bot."""

    name: str
    what: str  # shown in the report
    # after the bot connected: store what the interactions need (sheets, hands), through the bot itself
    prepare: Prepare
    check: Callable[[InteractionRecord], str | None]
    available: Callable[[], bool]
    # a second floor on the bare bot for the same kind of interaction (a click), shown for information;
    # the targets are judged against the bare /ok, as issue 6 sets them
    floor: tuple[str, Prepare, Check] | None = None
    in_default: bool = True  # run when no --target is given
    # for a target whose answer has a follow-up (a finished hand's Odds line): has it arrived? A burst's
    # CPU is read once every follow-up is in, and the next burst starts only then (see `fire`)
    settled: Settled | None = None


def answered_with_message(record: InteractionRecord) -> str | None:
    """The bot answered with a message (type 4); an ephemeral one only where the command is ephemeral."""
    if record.callback_type != MESSAGE:
        return f"callback type {record.callback_type} for {record.payload['data'].get('name')}"
    return None


def answered_publicly(record: InteractionRecord) -> str | None:
    """A public result (an ephemeral answer to a roll is a refusal)."""
    problem = answered_with_message(record)
    if problem is None and record.original is not None and record.original.ephemeral:
        return f"ephemeral answer: {record.original.text()[:200]}"
    return problem


def answered_privately(record: InteractionRecord) -> str | None:
    """A private result: an ephemeral embed (a refusal is one ephemeral sentence, without an embed)."""
    problem = answered_with_message(record)
    original = record.original
    if problem is None and original is not None and not (original.ephemeral and original.embeds):
        return f"not a private result: {original.text()[:200]}"
    return problem


# -- the targets --------------------------------------------------------------------------------------------
async def prepare_bare(
    fake: FakeDiscord, world: World, bot: BotProcess, n: int
) -> Callable[[int], InteractionRecord]:
    data = fake.build_command_data(world.guild, "ok", {})

    def make(i: int) -> InteractionRecord:
        return fake.interaction_payload(2, data, user=world.alice, channel=world.general)

    return make


async def prepare_bare_button(
    fake: FakeDiscord, world: World, bot: BotProcess, n: int
) -> Callable[[int], InteractionRecord]:
    """``n`` messages with the bare bot's "ok" button (/button), spread over channels; one click each."""
    channels = [fake.add_channel(world.guild, f"ok-{c}") for c in range(n // HANDS_PER_CHANNEL + 1)]
    data = fake.build_command_data(world.guild, "button", {})
    records = [
        fake.interaction_payload(2, data, user=world.alice, channel=channels[i % len(channels)])
        for i in range(n)
    ]
    posted = await fire(fake, records, 8, "post", answered_with_message, bot)
    if posted.errors:
        raise RuntimeError(f"posting buttons failed: {posted.errors[:3]}")
    targets = []
    for record in records:
        message = record.original
        assert message is not None
        [custom_id] = message.custom_ids()
        targets.append((message, custom_id))

    def make(i: int) -> InteractionRecord:
        message, custom_id = targets[i]
        data = {"custom_id": custom_id, "component_type": 2}
        channel = fake.channels[message.channel_id]
        return fake.interaction_payload(3, data, user=world.alice, channel=channel, message=message)

    return make


def answered_by_updating_to_ok(record: InteractionRecord) -> str | None:
    """The bare button's click edits its message (type 7)."""
    if record.callback_type != UPDATE_MESSAGE:
        return f"callback type {record.callback_type} for a click on the bare button"
    return None


async def prepare_help(
    fake: FakeDiscord, world: World, bot: BotProcess, n: int
) -> Callable[[int], InteractionRecord]:
    data = fake.build_command_data(world.guild, "help", {"system": "rps"})

    def make(i: int) -> InteractionRecord:
        return fake.interaction_payload(2, data, user=world.alice, channel=world.general)

    return make


async def store_sheet(bot: BotProcess, world: World, system: str, attributes: dict[str, int]) -> None:
    """Give alice an active sheet of ``system`` (written beside the running bot, as another process would)."""
    from bot.store import Skill, Store

    async with await Store.open(bot.database) as store:
        await store.sheets.create(
            {
                "guild_id": world.guild.id,
                "owner_id": world.alice.id,
                "name": "Alice Bench",
                "system": system,
                "attributes": attributes,
                "skills": {"Climb": Skill(rating=3, attribute=next(iter(attributes)))},
            }
        )


async def prepare_decision(
    fake: FakeDiscord, world: World, bot: BotProcess, n: int
) -> Callable[[int], InteractionRecord]:
    await store_sheet(bot, world, "decision", {"Strength": 3})
    options = {"stat_name": "Strength", "target": 12, "visibility": "public"}
    data = fake.build_command_data(world.guild, "decision roll", options)

    def make(i: int) -> InteractionRecord:
        return fake.interaction_payload(2, data, user=world.alice, channel=world.general)

    return make


async def prepare_rps(
    fake: FakeDiscord, world: World, bot: BotProcess, n: int, visibility: str = "public"
) -> Callable[[int], InteractionRecord]:
    await store_sheet(bot, world, "rps", {"Strength": 12})
    data = fake.build_command_data(world.guild, "rps check", {"skill": "Climb", "visibility": visibility})

    def make(i: int) -> InteractionRecord:
        return fake.interaction_payload(2, data, user=world.alice, channel=world.general)

    return make


async def prepare_rps_private(
    fake: FakeDiscord, world: World, bot: BotProcess, n: int
) -> Callable[[int], InteractionRecord]:
    """`/rps check` as a private roll: the result to the roller alone and a public notice (a follow-up)."""
    return await prepare_rps(fake, world, bot, n, visibility="private")


HANDS_PER_CHANNEL = 8  # each channel has its own 1-deck shoe; open hands keep their cards out of it


async def prepare_hit(
    fake: FakeDiscord, world: World, bot: BotProcess, n: int
) -> Callable[[int], InteractionRecord]:
    """Deal ``n`` voluntary hands through the bot (``/cards task``), spread over channels; one Hit each.

    Clicks in flight at once are on hands of different channels (each channel's shoe is one row that every
    draw there updates, so concurrent draws in one channel can be refused with "click again").
    """
    import re

    channels = [fake.add_channel(world.guild, f"cards-{c}") for c in range(n // HANDS_PER_CHANNEL + 1)]
    options = {"difficulty": 2, "level": 3, "visibility": "public"}
    records = []
    for i in range(n):  # round robin over the channels: deals in flight draw from different shoes
        data = fake.build_command_data(world.guild, "cards task", options)
        channel = channels[i % len(channels)]
        records.append(fake.interaction_payload(2, data, user=world.alice, channel=channel))
    dealt = await fire(fake, records, 8, "deal", answered_publicly, bot)
    if dealt.errors:
        raise RuntimeError(f"dealing hands failed: {dealt.errors[:3]}")
    hit = re.compile(r"^bj:\d+:hit$")
    targets = []
    for record in records:
        message = record.original
        assert message is not None
        [custom_id] = [c for c in message.custom_ids() if hit.match(c)]
        targets.append((message, custom_id))

    def make(i: int) -> InteractionRecord:
        message, custom_id = targets[i]
        channel = fake.channels[message.channel_id]
        data = {"custom_id": custom_id, "component_type": 2}
        return fake.interaction_payload(3, data, user=world.alice, channel=channel, message=message)

    return make


def odds_line_followed(record: InteractionRecord) -> bool:
    """A Hit that ended its hand (its answer took the buttons away) is done once the Odds line of the hand's
    last move is edited onto the message; any other Hit once it is answered."""
    data = (record.callback or {}).get("data") or {}
    if data.get("components") != []:
        return True
    message = record.original
    return message is not None and any(f.get("name") == "Odds" for f in message.embed.get("fields", []))


def answered_by_updating(record: InteractionRecord) -> str | None:
    """A Hit click edits the hand's message (type 7) or posts a result; an ephemeral answer is a refusal."""
    if record.callback_type == UPDATE_MESSAGE:
        return None
    return answered_publicly(record)


def _has_cog(module: str) -> Callable[[], bool]:
    def available() -> bool:
        from bot.client import COGS

        return module in COGS

    return available


TARGETS: dict[str, Target] = {
    "help": Target(
        "help",
        "/help system:rps (an ephemeral embed, no store access)",
        prepare_help,
        answered_with_message,
        lambda: True,
    ),
    "decision": Target(
        "decision",
        "/decision roll stat_name:Strength (stored sheet) target:12 visibility:public, roll logged",
        prepare_decision,
        answered_publicly,
        _has_cog("cogs.decision"),
    ),
    "rps": Target(
        "rps",
        "/rps check skill:Climb (stored sheet: Climb 3 + Strength 12) visibility:public, roll logged",
        prepare_rps,
        answered_publicly,
        _has_cog("cogs.rps"),
    ),
    "rps-private": Target(
        "rps-private",
        "/rps check skill:Climb (stored sheet) visibility:private: result to the roller, notice follows up",
        prepare_rps_private,
        answered_privately,
        _has_cog("cogs.rps"),
        in_default=False,
    ),
    "hit": Target(
        "hit",
        "a Hit click on a fresh voluntary hand (/cards task difficulty:2 level:3 public, 8 hands a channel)",
        prepare_hit,
        answered_by_updating,
        _has_cog("cogs.cards"),
        floor=("bare discord.py button", prepare_bare_button, answered_by_updating_to_ok),
        settled=odds_line_followed,
    ),
}


# -- running ------------------------------------------------------------------------------------------------
@dataclass
class Session:
    """One bot subprocess on its own fake Discord, ready to fire at."""

    label: str
    fake: FakeDiscord
    bot: BotProcess
    make: Callable[[int], InteractionRecord]
    check: Callable[[InteractionRecord], str | None]
    folder: tempfile.TemporaryDirectory[str]
    settled: Settled | None = None
    made: int = 0

    @classmethod
    async def open(
        cls,
        kind: str,
        label: str,
        prepare: Prepare,
        check: Check,
        count: int,
        profile: Path | None = None,
        source: Path = ROOT,
        settled: Settled | None = None,
    ) -> Session:
        fake, world = await open_fake()
        folder = tempfile.TemporaryDirectory(prefix=f"latency-{kind}-")
        bot = await launch(kind, fake, Path(folder.name) / "bot.db", profile=profile, source=source)
        try:
            make = await prepare(fake, world, bot, count)
        except BaseException:
            await bot.stop()
            await fake.stop()
            folder.cleanup()
            raise
        return cls(label, fake, bot, make, check, folder, settled)

    async def burst(self, n: int, concurrency: int, label: str) -> Run:
        records = [self.make(self.made + i) for i in range(n)]
        self.made += n
        violations = len(self.fake.violations)
        run = await fire(self.fake, records, concurrency, label, self.check, self.bot, self.settled)
        run.errors += [str(v) for v in self.fake.violations[violations:]]
        return run

    async def close(self) -> list[str]:
        """Stop the bot and the fake; the ERROR lines of the bot's log."""
        await self.bot.stop()
        errors = self.bot.error_lines()
        await self.fake.stop()
        self.folder.cleanup()
        return errors


def pooled(runs: list[Run], label: str) -> Run:
    """The runs of several rounds as one (latencies pooled, throughput over the summed wall time)."""
    out = Run(label, sum(r.n for r in runs), runs[0].concurrency)
    for run in runs:
        out.latencies += run.latencies
        out.wall += run.wall
        out.errors += run.errors
        out.bot_cpu += run.bot_cpu
        out.worker_cpu += run.worker_cpu
        out.fake_cpu += run.fake_cpu
        out.loop_wait += run.loop_wait
        out.drain += run.drain
    out.bursts = len(runs)
    return out


async def compare(
    target: Target, n: int, concurrencies: list[int], warmup: int, rounds: int, profile: Path | None = None
) -> tuple[list[Run], list[Run], list[list[tuple[float, float]]], list[Run] | None]:
    """Bare and real bot side by side (and the target's own floor, if any), bursts interleaved round by
    round (noise hits them alike)."""
    count = warmup + n * len(concurrencies) * rounds
    sessions: list[Session] = []
    try:  # a session that fails to open (a bot that cannot deal its hands) stops the ones already open
        sessions.append(
            await Session.open("bare", "bare discord.py /ok", prepare_bare, answered_with_message, count)
        )
        if target.floor is not None:
            label, prepare, check = target.floor
            sessions.append(await Session.open("bare", label, prepare, check, count))
        sessions.append(
            await Session.open(
                "tabletop",
                f"tabletop {target.name}",
                target.prepare,
                target.check,
                count,
                profile,
                settled=target.settled,
            )
        )
    except BaseException:
        for session in sessions:
            await session.close()
        raise
    per_round: list[list[tuple[float, float]]] = [[] for _ in concurrencies]
    runs: list[dict[int, list[Run]]] = [{c: [] for c in concurrencies} for _ in sessions]
    errors: list[list[str]] = []
    try:
        for session in sessions:
            await session.burst(warmup, 4, "warm-up")
        for _ in range(rounds):
            for index, c in enumerate(concurrencies):
                for session, kept in zip(sessions, runs, strict=True):
                    kept[c].append(await session.burst(n, c, session.label))
                b, r = runs[0][c][-1], runs[-1][c][-1]
                per_round[index].append((r.median / b.median, r.throughput / b.throughput))
    finally:
        for session in sessions:
            errors.append(await session.close())
    out = []
    for session, kept, logged in zip(sessions, runs, errors, strict=True):
        pooled_runs = [pooled(kept[c], f"{session.label} C={c}") for c in concurrencies]
        pooled_runs[-1].errors += [f"bot log: {line}" for line in logged]
        out.append(pooled_runs)
    return out[0], out[-1], per_round, (out[1] if target.floor is not None else None)


def verdicts(bare: Run, real: Run) -> list[tuple[str, bool, str]]:
    """The four targets of issue 6 for one pair of runs."""
    ratio = real.median / bare.median if bare.median else float("inf")
    share = real.throughput / bare.throughput if bare.throughput else 0.0
    return [
        (f"median within {MEDIAN_RATIO}x of bare", ratio <= MEDIAN_RATIO, f"{ratio:.2f}x"),
        (f"throughput >= {THROUGHPUT_SHARE:.0%} of bare", share >= THROUGHPUT_SHARE, f"{share:.0%}"),
        (f"p99 < {P99_MS:.0f} ms", real.quantile(0.99) < P99_MS, f"{real.quantile(0.99):.2f} ms"),
        ("no errors", not real.errors and not bare.errors, f"{len(real.errors)} + {len(bare.errors)} bare"),
    ]


async def main(args: argparse.Namespace) -> int:
    schema_checks(args.validate)
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    names = (
        [args.target]
        if args.target
        else [t for t, target in TARGETS.items() if target.available() and target.in_default]
    )
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    print(
        f"N={args.n} per concurrency per round, {args.rounds} rounds interleaved with the bare bot, warm-up "
        f"{args.warmup}; fake's schema checks {'on' if args.validate else 'off'}; latency = "
        "INTERACTION_CREATE written -> callback request arrived, at the fake; loop wait = µs per answer "
        "that the bot's event loop was ready to run but waited for a core; drain = ms a burst's follow-ups "
        "(a finished hand's Odds line) took after its last answer: CPU is read after them, the next burst "
        "starts after them, answers/s is over the answers only"
    )
    failed = False
    for name in names:
        target = TARGETS[name]
        if not target.available():
            print(f"\n{name}: not available yet ({target.what})")
            continue
        profile = Path(args.profile).with_suffix(f".{name}.prof") if args.profile else None
        bare_runs, real_runs, per_round, floor_runs = await compare(
            target, args.n, concurrencies, args.warmup, args.rounds, profile
        )
        print(f"\n{name}: {target.what}")
        print(HEADER)
        floors = floor_runs or [None] * len(bare_runs)
        for bare, real, rounds, floor in zip(bare_runs, real_runs, per_round, floors, strict=True):
            print(bare.row())
            if floor is not None:
                print(floor.row())
            print(real.row())
            if floor is not None:
                print(
                    f"{'  tabletop / bare button':<34} {real.median / floor.median:7.2f}x {'':>35} "
                    f"{real.throughput / floor.throughput:9.0%}   CPU/answer "
                    f"{real.cpu_per_answer / floor.cpu_per_answer:.2f}x   (information: the same kind of "
                    "interaction)"
                )
            ratio = real.median / bare.median if bare.median else float("nan")
            share = real.throughput / bare.throughput if bare.throughput else float("nan")
            spread = ", ".join(f"{m:.2f}x/{t:.0%}" for m, t in rounds)
            cpu = real.cpu_per_answer / bare.cpu_per_answer if bare.cpu_per_answer else float("nan")
            loop = (
                (real.cpu_per_answer - real.worker_cpu_per_answer) / bare.cpu_per_answer
                if bare.cpu_per_answer
                else float("nan")
            )
            print(
                f"{'  tabletop / bare':<34} {ratio:7.2f}x {'':>35} {share:9.0%}   CPU/answer {cpu:.2f}x "
                f"(without workers {loop:.2f}x)   rounds: {spread}"
            )
        for run in (*bare_runs, *real_runs, *(floor_runs or [])):
            for error in run.errors[:5]:
                print(f"  error ({run.label}): {error}")
        if profile is not None:
            show_profile(profile)
        print(f"targets at C={concurrencies[-1]}:")
        for what, ok, value in verdicts(bare_runs[-1], real_runs[-1]):
            failed |= not ok
            print(f"  {'PASS' if ok else 'FAIL'}  {what}: {value}")
    print(f"load average after: {os.getloadavg()[0]:.2f} (other work on the machine inflates every figure)")
    argv = [f"-n {args.n}", f"-c {args.concurrency}", f"--rounds {args.rounds}", f"--warmup {args.warmup}"]
    if args.target:
        argv.insert(0, f"--target {args.target}")
    if args.validate:
        argv.append("--validate")
    print(rerun("latency.py", argv))
    return 1 if failed else 0


def show_profile(path: Path) -> None:
    """The bot's hottest functions by own time, from its cProfile file."""
    import pstats

    print(f"profile of the tabletop bot (whole run incl. set-up): {path}")
    pstats.Stats(str(path)).sort_stats("tottime").print_stats(25)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", choices=sorted(TARGETS), help="one target (default: every available)")
    parser.add_argument("-n", type=int, default=1000, help="interactions per concurrency level")
    parser.add_argument("-c", "--concurrency", default="1,16", help="comma-separated in-flight counts")
    parser.add_argument("--rounds", type=int, default=3, help="bare/real bursts interleaved this many times")
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--profile", help="run the real bot under cProfile, writing PROFILE.<target>.prof")
    parser.add_argument(
        "--validate",
        action="store_true",
        help="keep the fake's OpenAPI checks on (slows the fake, not the bot)",
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse())))
