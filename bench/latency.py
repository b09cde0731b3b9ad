"""Latency and throughput of the real bot beside two floors, through the loopback fake Discord.

Three bots run as subprocesses, each against its own fake Discord in this process, their bursts
interleaved round by round (so load on the machine hits them alike):

- the real bot (`python -m bot`);
- the bare floor, bench/bare_bot.py: `/ok` replies "ok" and does nothing else. Reported, no target;
- the plain floor, bench/plain_bot.py: the same work written plainly on discord.py and aiosqlite (a
  command that reads a sheet row, logs the roll and answers with an embed; a button that reads a row,
  updates it and edits its message). The targets are judged against it.

For each interaction the fake records time.monotonic() when it writes the INTERACTION_CREATE frame and when
the interaction's callback request arrives; the difference is the latency. Throughput is answered
interactions per second over the burst. N interactions are fired with C in flight at once. "µs
CPU/answer" is the bot's CPU time per answer, its worker processes included; "workers" is their part of it
(a hand's last-move odds, on Hit), spent beside the event loop rather than on it.

Targets, at every C (1 and 16 by default), for `/rps check`, `/decision roll` and `/sysx check` against
the plain bot's `/check` and for Hit against its button: median within 1.25x of the plain bot's,
throughput at least 80% of the plain bot's, p99 under 25 ms (at the largest C), no errors. `/help` is
reported beside both floors, without a target.

With ``--backends sqlite,postgres`` the real bot runs once per backend in the same run, each its own
session beside the same two floors, every backend's bursts interleaved with theirs; each backend is judged
on its own row. On PostgreSQL each bot gets a fresh schema on ``--database-url``'s server, with
``synchronous_commit=off`` unless the address says otherwise (SQLite's ``synchronous=NORMAL`` makes the
same promise: nothing acknowledged is lost when the bot crashes). Run from the repository root:

    python bench/latency.py                       # every target, C=1 and C=16, against both floors
    python bench/latency.py --target rps -n 2000 -c 16
    python bench/latency.py --backends sqlite,postgres   # the bot on SQLite and on PostgreSQL
    python bench/latency.py --database-url postgresql://postgres@127.0.0.1:5432/test   # on PostgreSQL only
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import plain_bot
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

from bot.local.fake.harness import World
from bot.local.fake.server import MESSAGE, UPDATE_MESSAGE, FakeDiscord, InteractionRecord
from bot.store.db import safe_url

MEDIAN_RATIO, THROUGHPUT_SHARE, P99_MS = 1.25, 0.8, 25.0
Prepare = Callable[[FakeDiscord, World, BotProcess, int], Awaitable[Callable[[int], InteractionRecord]]]
Settled = Callable[[InteractionRecord], bool]


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


def answered_by_updating(record: InteractionRecord) -> str | None:
    """A Hit click edits the hand's message (type 7) or posts a result; an ephemeral answer is a refusal."""
    if record.callback_type == UPDATE_MESSAGE:
        return None
    return answered_publicly(record)


def hand_ended(record: InteractionRecord) -> str:
    """Whether a Hit's answer ended the hand: its controls change (no Hit button is left), so the edit
    names its components; a move that goes on edits the embed alone."""
    data = (record.callback or {}).get("data") or {}
    if "components" not in data:
        return "went on"
    ids = [str(c.get("custom_id", "")) for row in data["components"] for c in row.get("components", [row])]
    return "went on" if any(i.endswith(":hit") for i in ids) else "ended the hand"


# -- what the bots are asked ---------------------------------------------------------------------------------
def command(path: str, options: dict[str, object]) -> Prepare:
    """The same slash command by alice in #general, every time."""

    async def prepare(
        fake: FakeDiscord, world: World, bot: BotProcess, n: int
    ) -> Callable[[int], InteractionRecord]:
        data = fake.build_command_data(world.guild, path, options)

        def make(i: int) -> InteractionRecord:
            return fake.interaction_payload(2, data, user=world.alice, channel=world.general)

        return make

    return prepare


async def store_sheet(bot: BotProcess, world: World, system: str, attributes: dict[str, int]) -> None:
    """Give alice an active sheet of ``system`` with the skill Climb (rating 3 on the first attribute),
    written beside the running bot as another process would."""
    attribute = next(iter(attributes))
    if bot.kind == "plain":
        skills = {"Climb": {"rating": 3, "attribute": attribute}}
        await plain_bot.add_sheet(
            bot.database, world.guild.id, world.alice.id, "Alice Bench", attributes, skills
        )
        return
    from bot.store import Skill, Store

    async with await Store.open(bot.store) as store:
        await store.sheets.create(
            {
                "guild_id": world.guild.id,
                "owner_id": world.alice.id,
                "name": "Alice Bench",
                "system": system,
                "attributes": attributes,
                "skills": {"Climb": Skill(rating=3, attribute=attribute)},
            }
        )


def with_sheet(system: str, attributes: dict[str, int], then: Prepare) -> Prepare:
    """`store_sheet`, then ``then``."""

    async def prepare(
        fake: FakeDiscord, world: World, bot: BotProcess, n: int
    ) -> Callable[[int], InteractionRecord]:
        await store_sheet(bot, world, system, attributes)
        return await then(fake, world, bot, n)

    return prepare


DEFAULT_SERVER = "postgresql://postgres@127.0.0.1:5432/test"  # the development server (tests' default)
HANDS_PER_CHANNEL = 8  # each channel has its own 1-deck shoe; open hands keep their cards out of it


def clicks(deal: str, options: dict[str, object], button: str) -> Prepare:
    """Post ``n`` messages through the bot (``/deal``, with ``options``), spread over channels, and
    click on each once the button whose custom_id matches ``button``.

    A GM deals and clicks (a player holds one open hand in a channel; a GM, several). Clicks in flight at
    once are on messages of different channels (each of the real bot's channels has
    a shoe, one row that every draw there updates, so concurrent draws in one channel can be refused with
    "click again").
    """
    pattern = re.compile(button)

    async def prepare(
        fake: FakeDiscord, world: World, bot: BotProcess, n: int
    ) -> Callable[[int], InteractionRecord]:
        channels = [fake.add_channel(world.guild, f"hands-{c}") for c in range(n // HANDS_PER_CHANNEL + 1)]
        data = fake.build_command_data(world.guild, deal, options)
        records = [  # round robin over the channels: deals in flight draw from different shoes
            fake.interaction_payload(2, data, user=world.gm, channel=channels[i % len(channels)])
            for i in range(n)
        ]
        dealt = await fire(fake, records, 8, "deal", answered_publicly, bot)
        if dealt.errors:
            raise RuntimeError(f"/{deal} failed: {dealt.errors[:3]}")
        targets = []
        for record in records:
            message = record.original
            assert message is not None
            [custom_id] = [c for c in message.custom_ids() if pattern.fullmatch(c)]
            targets.append((message, custom_id))

        def make(i: int) -> InteractionRecord:
            message, custom_id = targets[i]
            channel = fake.channels[message.channel_id]
            data = {"custom_id": custom_id, "component_type": 2}
            return fake.interaction_payload(3, data, user=world.gm, channel=channel, message=message)

        return make

    return prepare


def odds_line_followed(record: InteractionRecord) -> bool:
    """A Hit is done once it is answered. (Trees before 2026-11-27 took a finished hand's buttons away and
    edited the odds of its last move in afterwards: with `bench/ab.py` against one, such a Hit is done once
    that Odds line is in. The bot now keeps Odds and Details on a finished hand and works the odds out
    only when asked.)"""
    data = (record.callback or {}).get("data") or {}
    if data.get("components") != []:
        return True
    message = record.original
    return message is not None and any(f.get("name") == "Odds" for f in message.embed.get("fields", []))


def _has_cog(module: str) -> Callable[[], bool]:
    def available() -> bool:
        from bot.client import COGS

        return module in COGS

    return available


# -- the floors and the targets ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Floor:
    """A bench bot and what it is asked, to set beside a target."""

    kind: str  # "bare" (bench/bare_bot.py) or "plain" (bench/plain_bot.py)
    label: str
    prepare: Prepare
    check: Check


BARE = Floor("bare", "bare discord.py /ok", command("ok", {}), answered_with_message)
PLAIN_COMMAND = Floor(
    "plain",
    "plain /check",
    with_sheet("plain", {"Strength": 12}, command("check", {"skill": "Climb"})),
    answered_publicly,
)
PLAIN_BUTTON = Floor("plain", "plain button", clicks("deal", {}, r"hand:\d+:hit"), answered_by_updating)


@dataclass
class Target:
    """One kind of interaction to time on the real bot."""

    name: str
    what: str  # shown in the report
    # after the bot connected: store what the interactions need (sheets, hands), through the bot itself
    prepare: Prepare
    check: Check
    available: Callable[[], bool]
    plain: Floor  # the same work on the plain bot: the floor the target is judged against
    judged: bool = True  # False: reported beside the floors, no target
    in_default: bool = True  # run when no --target is given
    # for a target whose answer may have a follow-up (an older tree's Odds line): has it arrived? A burst's
    # CPU is read once every follow-up is in, and the next burst starts only then (see `fire`)
    settled: Settled | None = None
    # tells kinds of answer apart, each reported on a line of its own beside the whole (see `detail`)
    kind: Callable[[InteractionRecord], str] | None = None


def roll(system: str, attributes: dict[str, int], path: str, options: dict[str, object]) -> Prepare:
    """A roll on alice's stored sheet of ``system``."""
    return with_sheet(system, attributes, command(path, options))


PUBLIC_CLIMB = {"skill": "Climb", "visibility": "public"}
TARGETS: dict[str, Target] = {
    "help": Target(
        "help",
        "/help system:rps (an ephemeral embed, no store access)",
        command("help", {"system": "rps"}),
        answered_with_message,
        lambda: True,
        PLAIN_COMMAND,
        judged=False,
    ),
    "decision": Target(
        "decision",
        "/decision roll stat_name:Strength (stored sheet) target:12 visibility:public, roll logged",
        roll(
            "decision",
            {"Strength": 3},
            "decision roll",
            {"stat_name": "Strength", "target": 12, "visibility": "public"},
        ),
        answered_publicly,
        _has_cog("cogs.decision"),
        PLAIN_COMMAND,
    ),
    "rps": Target(
        "rps",
        "/rps check skill:Climb (stored sheet: Climb 3 + Strength 12) visibility:public, roll logged",
        roll("rps", {"Strength": 12}, "rps check", PUBLIC_CLIMB),
        answered_publicly,
        _has_cog("cogs.rps"),
        PLAIN_COMMAND,
    ),
    "sysx": Target(
        "sysx",
        "/sysx check skill:Climb (stored sheet: Climb 3 + Strength 12) visibility:public, roll logged",
        roll("sysx", {"Strength": 12}, "sysx check", PUBLIC_CLIMB),
        answered_publicly,
        _has_cog("cogs.sysx"),
        PLAIN_COMMAND,
    ),
    "rps-private": Target(
        "rps-private",
        "/rps check skill:Climb (stored sheet) visibility:private: result to the roller, notice follows up",
        roll("rps", {"Strength": 12}, "rps check", {"skill": "Climb", "visibility": "private"}),
        answered_privately,
        _has_cog("cogs.rps"),
        PLAIN_COMMAND,
        judged=False,
        in_default=False,
    ),
    "hit": Target(
        "hit",
        "a Hit click on a fresh voluntary hand (/cards task difficulty:2 level:3 public, 8 hands a channel)",
        clicks("cards task", {"difficulty": 2, "level": 3, "visibility": "public"}, r"bj:\d+:hit"),
        answered_by_updating,
        _has_cog("cogs.cards"),
        PLAIN_BUTTON,
        settled=odds_line_followed,
        kind=hand_ended,
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
    answer_kind: Callable[[InteractionRecord], str] | None = None
    made: int = 0
    drop: Callable[[], Awaitable[None]] | None = None  # drops the session's PostgreSQL schema
    backend: str = "sqlite"
    store_line: str | None = None  # read from the bot's log once it stopped (see `store_line`)

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
        server: str | None = None,
        answer_kind: Callable[[InteractionRecord], str] | None = None,
        env: dict[str, str] | None = None,
    ) -> Session:
        """``server``: the PostgreSQL server the real bot runs on (None: an SQLite file); ``env``: more of
        the bot's environment."""
        fake, world = await open_fake()
        folder = tempfile.TemporaryDirectory(prefix=f"latency-{kind}-")
        url, drop = None, None
        if server and kind in ("tabletop", "probed", "gc-probed"):  # the floors keep their own databases
            from tests.postgres import new_schema

            url, drop = await new_schema(server)  # a fresh schema: a new bot syncs its commands
        bot = await launch(
            kind,
            fake,
            Path(folder.name) / "bot.db",
            profile=profile,
            source=source,
            database_url=url,
            env=env,
        )
        try:
            make = await prepare(fake, world, bot, count)
        except BaseException:
            await bot.stop()
            await fake.stop()
            folder.cleanup()
            if drop is not None:
                await drop()
            raise
        backend = "postgres" if url else "sqlite"
        return cls(label, fake, bot, make, check, folder, settled, answer_kind, drop=drop, backend=backend)

    @classmethod
    async def floor(cls, floor: Floor, count: int) -> Session:
        return await cls.open(floor.kind, floor.label, floor.prepare, floor.check, count)

    async def burst(self, n: int, concurrency: int, label: str) -> Run:
        records = [self.make(self.made + i) for i in range(n)]
        self.made += n
        violations = len(self.fake.violations)
        run = await fire(
            self.fake, records, concurrency, label, self.check, self.bot, self.settled, self.answer_kind
        )
        run.errors += [str(v) for v in self.fake.violations[violations:]]
        return run

    async def close(self) -> list[str]:
        """Stop the bot and the fake; the ERROR lines of the bot's log."""
        await self.bot.stop()
        errors = self.bot.error_lines()
        self.store_line = store_line(self.bot)
        await self.fake.stop()
        self.folder.cleanup()
        if self.drop is not None:
            await self.drop()
        return errors


def store_line(bot: BotProcess) -> str | None:
    """What the bot's PostgreSQL store logged when it closed: units committed, attempts run again."""
    count = re.findall(r"(\d+) units of work committed, (\d+) attempts run again", bot.log())
    if not count:
        return None
    units, retries = (sum(int(c[i]) for c in count) for i in (0, 1))
    return f"{units} write units committed, {retries} attempts run again after a serialization failure"


def pooled(runs: list[Run], label: str) -> Run:
    """The runs of several rounds as one (latencies pooled, throughput over the summed wall time)."""
    out = Run(label, sum(r.n for r in runs), runs[0].concurrency)
    for run in runs:
        out.latencies += run.latencies
        out.kinds += run.kinds
        out.wall += run.wall
        out.errors += run.errors
        out.bot_cpu += run.bot_cpu
        out.worker_cpu += run.worker_cpu
        out.fake_cpu += run.fake_cpu
        out.loop_wait += run.loop_wait
        out.drain += run.drain
    out.bursts = len(runs)
    return out


@dataclass
class Level:
    """One concurrency of one target on one backend: the real bot and both floors, each pooled over the
    rounds (the floors' runs are shared by every backend's levels)."""

    concurrency: int
    bare: Run
    plain: Run
    real: Run
    rounds: list[tuple[float, float]]  # per round: real/plain median, real/plain throughput
    backend: str = "sqlite"
    top: bool = True  # the largest C, where p99 is judged
    store: str | None = None  # the PostgreSQL store's own count of units and retries (at the largest C)


Backend = tuple[str, str | None]  # ("sqlite", None) or ("postgres", the server's address)


async def compare(
    target: Target,
    n: int,
    concurrencies: list[int],
    warmup: int,
    rounds: int,
    profile: Path | None = None,
    backends: list[Backend] | None = None,
) -> list[Level]:
    """The bare floor, the plain floor and the real bot (once per backend) side by side, bursts interleaved
    round by round (noise hits them alike). The levels: per backend, per concurrency."""
    backends = backends or [("sqlite", None)]
    count = warmup + n * len(concurrencies) * rounds
    sessions: list[Session] = []
    try:  # a session that fails to open (a bot that cannot deal its hands) stops the ones already open
        sessions.append(await Session.floor(BARE, count))
        sessions.append(await Session.floor(target.plain, count))
        for name, server in backends:
            label = f"tabletop {target.name}" + (f" {name}" if len(backends) > 1 else "")
            sessions.append(
                await Session.open(
                    "tabletop",
                    label,
                    target.prepare,
                    target.check,
                    count,
                    profile.with_suffix(f".{name}.prof") if profile and len(backends) > 1 else profile,
                    settled=target.settled,
                    server=server,
                    answer_kind=target.kind,
                )
            )
    except BaseException:
        for session in sessions:
            await session.close()
        raise
    reals = sessions[2:]
    per_round = [[[] for _ in concurrencies] for _ in reals]  # per backend, per C: (median, throughput)
    runs: list[dict[int, list[Run]]] = [{c: [] for c in concurrencies} for _ in sessions]
    errors: list[list[str]] = []
    try:
        for session in sessions:
            await session.burst(warmup, 4, "warm-up")
        for _ in range(rounds):
            for index, c in enumerate(concurrencies):
                for session, kept in zip(sessions, runs, strict=True):
                    kept[c].append(await session.burst(n, c, session.label))
                p = runs[1][c][-1]
                for spread, kept in zip(per_round, runs[2:], strict=True):
                    r = kept[c][-1]
                    spread[index].append((_ratio(r.median, p.median), _ratio(r.throughput, p.throughput)))
    finally:
        for session in sessions:
            errors.append(await session.close())
    out = []
    for session, kept, logged in zip(sessions, runs, errors, strict=True):
        pooled_runs = [pooled(kept[c], f"{session.label} C={c}") for c in concurrencies]
        pooled_runs[-1].errors += [f"bot log: {line}" for line in logged]
        out.append(pooled_runs)
    bare, plain = out[:2]
    return [
        Level(c, b, p, r, spread, session.backend, i == len(concurrencies) - 1, session.store_line)
        for session, real, spreads in zip(reals, out[2:], per_round, strict=True)
        for i, (c, b, p, r, spread) in enumerate(zip(concurrencies, bare, plain, real, spreads, strict=True))
    ]


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def verdicts(level: Level, top: bool) -> list[tuple[str, str, bool, str]]:
    """The targets for one concurrency against the plain floor (p99 only at the largest C, ``top``):
    (short name, what, met, the figure)."""
    real, plain, bare = level.real, level.plain, level.bare
    ratio = _ratio(real.median, plain.median)
    share = _ratio(real.throughput, plain.throughput)
    out = [
        ("p50", f"median within {MEDIAN_RATIO}x of plain", ratio <= MEDIAN_RATIO, f"{ratio:.2f}x"),
        ("thr", f"throughput >= {THROUGHPUT_SHARE:.0%} of plain", share >= THROUGHPUT_SHARE, f"{share:.0%}"),
    ]
    if top:
        p99 = real.quantile(0.99)
        out.append(("p99", f"p99 < {P99_MS:.0f} ms", p99 < P99_MS, f"{p99:.2f} ms"))
    errors = f"{len(real.errors)} + {len(plain.errors)} plain + {len(bare.errors)} bare"
    out.append(("errors", "no errors", not (real.errors or plain.errors or bare.errors), errors))
    return out


def detail(target: Target, levels: list[Level]) -> None:
    """Each bot's row per concurrency (the floors once, then the real bot on each backend), the ratios to
    both floors, the errors and the verdicts."""
    print(f"\n{target.name}: {target.what}")
    print(HEADER)
    for c in dict.fromkeys(level.concurrency for level in levels):
        at = [level for level in levels if level.concurrency == c]
        print(at[0].bare.row())
        print(at[0].plain.row())
        for level in at:
            real = level.real
            print(real.row())
            for kind in sorted(set(real.kinds)):
                of_kind = Run(kind, 0, c, real.of_kind(kind))
                print(
                    f"{'  of which ' + kind:<34} {of_kind.median:8.2f} {of_kind.quantile(0.9):8.2f} "
                    f"{of_kind.quantile(0.99):8.2f}   ({len(of_kind.latencies)} answers)"
                )
            for floor in (level.bare, level.plain):
                name = floor.label.rsplit(" C=", 1)[0]
                cpu = _ratio(real.cpu_per_answer, floor.cpu_per_answer)
                loop = _ratio(real.cpu_per_answer - real.worker_cpu_per_answer, floor.cpu_per_answer)
                print(
                    f"{'  tabletop / ' + name:<34} {_ratio(real.median, floor.median):7.2f}x {'':>35} "
                    f"{_ratio(real.throughput, floor.throughput):9.0%}   CPU/answer {cpu:.2f}x "
                    f"(without workers {loop:.2f}x)"
                )
            spread = ", ".join(f"{m:.2f}x/{t:.0%}" for m, t in level.rounds)
            print(f"{'  rounds, tabletop / plain':<34} {spread}")
    shown: set[int] = set()
    for level in levels:
        for run in (level.bare, level.plain, level.real):
            if id(run) not in shown:
                shown.add(id(run))
                for error in run.errors[:5]:
                    print(f"  error ({run.label}): {error}")
        if level.top and level.store:
            print(f"  {level.backend} store: {level.store}")
    if not target.judged:
        print("  reported only: no target")
        return
    several = len({level.backend for level in levels}) > 1
    for level in levels:
        print(f"targets at C={level.concurrency}" + (f" on {level.backend}:" if several else ":"))
        for _, what, ok, value in verdicts(level, level.top):
            print(f"  {'PASS' if ok else 'FAIL'}  {what}: {value}")


def summary(results: list[tuple[Target, list[Level]]]) -> list[str]:
    """One line per target, backend and concurrency: the bot's figures beside both floors', pass/fail per
    target."""
    head = (
        f"{'target':<12} {'backend':<8} {'C':>3} {'p50 ms':>7} {'p99 ms':>7} {'ans/s':>6} | {'bare p50':>8} "
        f"{'ans/s':>6} {'p50':>6} {'thr':>5} | {'plain p50':>9} {'ans/s':>6} {'p50':>6} {'thr':>5} | "
        f"p50<={MEDIAN_RATIO}x thr>={THROUGHPUT_SHARE:.0%} p99<{P99_MS:.0f}ms errors"
    )
    lines = [head]
    for target, levels in results:
        for level in levels:
            real, bare, plain = level.real, level.bare, level.plain
            line = (
                f"{target.name:<12} {level.backend:<8} {level.concurrency:>3} {real.median:7.2f} "
                f"{real.quantile(0.99):7.2f} {real.throughput:6.0f} | "
                f"{bare.median:8.2f} {bare.throughput:6.0f} "
                f"{_ratio(real.median, bare.median):5.2f}x {_ratio(real.throughput, bare.throughput):5.0%} | "
                f"{plain.median:9.2f} {plain.throughput:6.0f} {_ratio(real.median, plain.median):5.2f}x "
                f"{_ratio(real.throughput, plain.throughput):5.0%} | "
            )
            if target.judged:
                marks = {key: ok for key, _, ok, _ in verdicts(level, level.top)}
                line += " ".join(
                    f"{('PASS' if marks[key] else 'FAIL') if key in marks else '-':<{width}}"
                    for key, width in (("p50", 9), ("thr", 7), ("p99", 8), ("errors", 6))
                )
            else:
                line += "reported only"
            lines.append(line)
    return lines


def with_setting(url: str, name: str, value: str) -> str:
    """``url`` with the server setting ``name=value`` added, unless the address already sets it."""
    if any(key == name for key, _ in parse_qsl(urlsplit(url).query)):
        return url
    return f"{url}{'&' if '?' in url else '?'}{name}={value}"


DATABASE_URL_HELP = (
    "run the real bot on PostgreSQL at this address (a fresh schema per bot; synchronous_commit=off unless "
    "the address sets it), not on SQLite"
)


def postgres_server(url: str | None) -> str | None:
    """For ab.py and layers.py: ``--database-url`` with synchronous_commit=off, as `chosen_backends` does
    (None: SQLite)."""
    return with_setting(url, "synchronous_commit", "off") if url else None


def database_argv(url: str | None) -> list[str]:
    """``--database-url`` for a rerun line (none on SQLite)."""
    return [f"--database-url {url}"] if url else []


def chosen_backends(args: argparse.Namespace) -> list[Backend]:
    """``--backends`` with the server each runs on (``--database-url`` alone: PostgreSQL only, as before)."""
    names = args.backends.split(",") if args.backends else ["postgres" if args.database_url else "sqlite"]
    unknown = set(names) - {"sqlite", "postgres"}
    if unknown:
        raise SystemExit(f"unknown backend(s): {', '.join(sorted(unknown))} (sqlite, postgres)")
    server = args.database_url or DEFAULT_SERVER
    if args.synchronous_commit != "server":
        server = with_setting(server, "synchronous_commit", args.synchronous_commit)
    return [(name, server if name == "postgres" else None) for name in names]


async def main(args: argparse.Namespace) -> int:
    schema_checks(args.validate)
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    backends = chosen_backends(args)
    names = (
        [args.target]
        if args.target
        else [t for t, target in TARGETS.items() if target.available() and target.in_default]
    )
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    print(
        f"N={args.n} per concurrency per round, {args.rounds} rounds interleaved with the bare and plain "
        f"bots, warm-up {args.warmup}; fake's schema checks {'on' if args.validate else 'off'}; latency = "
        "INTERACTION_CREATE written -> callback request arrived, at the fake; loop wait = µs per answer "
        "that the bot's event loop was ready to run but waited for a core; drain = ms from a burst's last "
        "answer until its answers were all settled (see odds_line_followed): CPU is read after that, the "
        "next burst starts after that, answers/s is over the answers only"
    )
    for name, server in backends:
        if server is not None:
            print(f"{name}: a fresh schema per bot on {safe_url(server)}")
    failed = False
    results: list[tuple[Target, list[Level]]] = []
    for name in names:
        target = TARGETS[name]
        if not target.available():
            print(f"\n{name}: not available ({target.what})")
            continue
        profile = Path(args.profile).with_suffix(f".{name}.prof") if args.profile else None
        levels = await compare(target, args.n, concurrencies, args.warmup, args.rounds, profile, backends)
        detail(target, levels)
        if profile is not None:
            for found in sorted(profile.parent.glob(profile.name.removesuffix(".prof") + "*.prof")):
                show_profile(found)
        results.append((target, levels))
        if target.judged:
            failed |= not all(ok for level in levels for _, _, ok, _ in verdicts(level, level.top))
    print(
        "\nsummary: the bot's figures beside the bare /ok's and the plain bot's (p50 and thr: the bot over "
        f"the floor); targets against plain: median within {MEDIAN_RATIO}x, throughput at least "
        f"{THROUGHPUT_SHARE:.0%}, p99 under {P99_MS:.0f} ms at C={concurrencies[-1]}, no errors"
    )
    print("\n".join(summary(results)))
    print(f"load average after: {os.getloadavg()[0]:.2f} (other work on the machine inflates every figure)")
    argv = [f"-n {args.n}", f"-c {args.concurrency}", f"--rounds {args.rounds}", f"--warmup {args.warmup}"]
    if args.target:
        argv.insert(0, f"--target {args.target}")
    if args.backends:
        argv.append(f"--backends {args.backends}")
    if args.database_url:
        argv.append(f"--database-url '{safe_url(args.database_url)}'")
    if args.synchronous_commit != "off":
        argv.append(f"--synchronous-commit {args.synchronous_commit}")
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
    parser.add_argument(
        "--rounds", type=int, default=3, help="bare/plain/real bursts interleaved this many times"
    )
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument(
        "--backends",
        help="comma-separated: sqlite, postgres (default: sqlite; postgres alone with --database-url)",
    )
    parser.add_argument(
        "--database-url",
        help=f"the PostgreSQL server the real bot runs on, a fresh schema per bot (default {DEFAULT_SERVER})",
    )
    parser.add_argument(
        "--synchronous-commit",
        choices=("off", "on", "server"),
        default="off",
        help="PostgreSQL's synchronous_commit for the bot's connections, unless the address sets it "
        "(off: SQLite's promise; server: the server's own setting)",
    )
    parser.add_argument("--profile", help="run the real bot under cProfile, writing PROFILE.<target>.prof")
    parser.add_argument(
        "--validate",
        action="store_true",
        help="keep the fake's OpenAPI checks on (slows the fake, not the bot)",
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse())))
