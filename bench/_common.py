"""Shared by the bench scripts: the fake Discord, bots as subprocesses, timed interactions, stored data.

Nothing here is a test: the scripts print numbers (and PASS/FAIL against their targets).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import itertools
import math
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.local.fake import server as fake_server  # noqa: E402
from bot.local.fake.harness import World, standard_world, subprocess_env  # noqa: E402
from bot.local.fake.server import FakeDiscord, InteractionRecord  # noqa: E402

TOKEN = "MTEx.bench-token.not-a-real-one-5e4d3c2b1a"
WAIT = 60.0


# -- the machine --------------------------------------------------------------------------------------------
def machine() -> str:
    """One line: cores, CPU model, Python, platform (for the README's figures)."""
    model = "unknown CPU"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} cores, {model}, Python {platform.python_version()}, {platform.system()}"


def rerun(script: str, argv: Sequence[str]) -> str:
    """The command that reruns this measurement."""
    return f"rerun: python bench/{script} {' '.join(argv)}".rstrip()


# -- the fake -----------------------------------------------------------------------------------------------
class _NoChecks:
    def check(self, method: str, path: str, body: Any, **_: Any) -> list[Any]:
        return []


def schema_checks(enabled: bool) -> None:
    """Turn the fake's OpenAPI validation of every request body on or off (off: the fake costs less)."""
    if enabled:
        fake_server.validator = _original_validator
    else:
        fake_server.validator = lambda: _NoChecks()  # type: ignore[assignment,return-value]


_original_validator = fake_server.validator


async def open_fake(extra_guilds: int = 0) -> tuple[FakeDiscord, World]:
    """A started fake Discord with the usual table, plus ``extra_guilds`` guilds of a few members each."""
    fake = FakeDiscord()
    await fake.start()
    world = standard_world(fake)
    for n in range(extra_guilds):
        guild = fake.add_guild(f"Guild {n}")
        fake.add_channel(guild, "dice")
        fake.add_role(guild, "GM")
        for m in range(3):
            fake.add_member(guild, fake.add_user(f"player-{n}-{m}"))
    return fake, world


# -- bots as subprocesses ----------------------------------------------------------------------------------
def _cpu_ticks(pid: int) -> int:
    """utime + stime of one process from /proc/<pid>/stat (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    return int(fields[11]) + int(fields[12])


def _run_delay_ns(pid: int) -> int:
    """Nanoseconds the process's main thread (the bot's event loop) has spent runnable but not running,
    waiting on a run queue (Linux's /proc/<pid>/schedstat; 0 where there is none)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _pss_kb(pid: int) -> int:
    """Pss of one process from /proc/<pid>/smaps_rollup in kB (0 if it is gone)."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith("Pss:")), 0)


@dataclass
class BotProcess:
    """A bot child process (the real one via `python -m bot`, bench/bare_bot.py or bench/plain_bot.py)."""

    kind: str
    process: asyncio.subprocess.Process
    spawned: float  # time.monotonic() just before the process was created
    connected: float  # time.monotonic() when the fake had sent READY and every GUILD_CREATE
    log_path: Path
    database: Path
    database_url: str | None = None  # the real bot's PostgreSQL database, when it runs on one

    @property
    def store(self) -> Path | str:
        """What `Store.open` opens to reach the bot's database."""
        return self.database_url or self.database

    @property
    def pid(self) -> int:
        return self.process.pid

    def status_kb(self, key: str) -> int:
        """A value of /proc/<pid>/status in kB (VmRSS: resident now, VmHWM: resident peak)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
        raise KeyError(key)

    def children(self) -> list[int]:
        """The pids of the process's live descendants: its worker processes, the fork server they are
        forked from, and multiprocessing's resource tracker."""
        found, parents = [], [self.pid]
        while parents:
            pid = parents.pop()
            for listing in Path(f"/proc/{pid}/task").glob("*/children"):
                with contextlib.suppress(OSError):
                    kids = [int(child) for child in listing.read_text().split()]
                    found += kids
                    parents += kids
        return found

    def cpu_split(self) -> tuple[float, float]:
        """User + system CPU seconds so far of the process itself (its event loop and its SQLite thread),
        and of its live children (the worker processes: odds and charts)."""
        tick = os.sysconf("SC_CLK_TCK")
        return _cpu_ticks(self.pid) / tick, sum(_cpu_ticks(child) for child in self.children()) / tick

    def pss_kb(self) -> int:
        """Proportional set size of the process and its children: shared pages divided among them."""
        return sum(_pss_kb(pid) for pid in (self.pid, *self.children()))

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def error_lines(self) -> list[str]:
        """ERROR (and worse) lines the bot logged, and tracebacks."""
        return [
            line
            for line in self.log().splitlines()
            if " ERROR " in line or " CRITICAL " in line or line.startswith("Traceback")
        ]

    async def stop(self) -> None:
        """SIGTERM, then wait (SIGKILL if it hangs)."""
        if self.process.returncode is None:
            self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), WAIT)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()


def bot_env(
    fake: FakeDiscord,
    database: Path,
    *,
    seed: int = 1234,
    log_level: str = "INFO",
    source: Path = ROOT,
    database_url: str | None = None,
) -> dict[str, str]:
    """The environment of a bot subprocess: ours only, none of the caller's DISCORD_* settings.

    ``source``: the source tree the bot's code is imported from (another commit's worktree for an A/B).
    ``database_url``: the bot's PostgreSQL database (None: the SQLite file ``database``).
    """
    env = subprocess_env(fake, database, seed=seed, log_level=log_level, source=source)
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    return env


async def launch(
    kind: str,
    fake: FakeDiscord,
    database: Path,
    *,
    log_level: str = "INFO",
    profile: Path | None = None,
    source: Path = ROOT,
    database_url: str | None = None,
    env: dict[str, str] | None = None,
) -> BotProcess:
    """Start ``kind`` ("tabletop": python -m bot; "probed": the same with bench/_lag_probe.py's loop-lag
    monitor, writing to `lag_file`; "gc-probed": with bench/_gc_probe.py's timing of the garbage
    collector, writing to GC_PROBE_FILE; "bare": bench/bare_bot.py; "plain": bench/plain_bot.py); wait
    until it connected.

    ``source``: where the tabletop bot's code comes from (default: this checkout). ``env``: more of the
    bot's settings (SHARD_COUNT, SHARD_IDS).
    """
    env = bot_env(fake, database, log_level=log_level, source=source, database_url=database_url) | (env or {})
    if kind in ("probed", "gc-probed"):
        module = "_lag_probe" if kind == "probed" else "_gc_probe"
        if kind == "probed":
            env["LOOP_LAG_FILE"] = str(lag_file(database))
        else:
            env.setdefault("GC_PROBE_FILE", str(database.parent / "gc.log"))
        # -c, not a script path: the bot's worker processes would import a script as their main module
        bench = str(ROOT / "bench")
        probe = f"import sys; sys.path.insert(0, {bench!r}); import {module}; {module}.main()"
        argv = [sys.executable, "-c", probe]
    elif kind == "tabletop":
        argv = [sys.executable, "-m", "bot"]
        if profile is not None:  # cProfile writes the file when the bot exits on SIGTERM
            argv = [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "bot"]
    elif kind in ("bare", "plain"):
        argv = [sys.executable, str(ROOT / "bench" / f"{kind}_bot.py")]
    else:
        raise ValueError(kind)
    log_path = database.parent / f"{kind}-{int(time.time() * 1000)}.log"
    fake.connected.clear()
    with log_path.open("wb") as log_file:
        spawned = time.monotonic()
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=database.parent,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
        )
    waiter = asyncio.ensure_future(fake.connected.wait())
    exited = asyncio.ensure_future(process.wait())
    done, _ = await asyncio.wait({waiter, exited}, timeout=WAIT, return_when=asyncio.FIRST_COMPLETED)
    exited.cancel()
    if waiter not in done:
        waiter.cancel()
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        raise RuntimeError(f"the {kind} bot did not connect:\n{log_path.read_text()[-3000:]}")
    return BotProcess(kind, process, spawned, time.monotonic(), log_path, database, database_url)


def lag_file(database: Path) -> Path:
    """Where a "probed" bot's loop-lag monitor writes (see bench/_lag_probe.py)."""
    return database.parent / "loop-lag.txt"


# -- timed interactions ------------------------------------------------------------------------------------
@dataclass
class Run:
    """The latencies (dispatch written -> callback arrived) of one burst, and what went wrong."""

    label: str
    n: int
    concurrency: int
    latencies: list[float] = field(default_factory=list)  # seconds
    wall: float = 0.0
    errors: list[str] = field(default_factory=list)
    bot_cpu: float = 0.0  # CPU seconds the bot process and its workers used during the burst
    worker_cpu: float = 0.0  # the part of bot_cpu that its worker processes used
    fake_cpu: float = 0.0  # CPU seconds this process (the fake and the load) used during the burst
    # seconds the bot's event loop waited for a core during the burst (runnable, not running): the
    # processes on the machine, the bot's own workers among them, taking the cores it could have used
    loop_wait: float = 0.0
    # seconds from the last answer until every follow-up the target waits for had arrived (a finished
    # hand's Odds line): the bot's CPU is read after them, so work a burst leaves behind is counted in it
    # and never runs in the next bot's burst
    drain: float = 0.0
    bursts: int = 1  # a run pooled over rounds: how many (the row shows the mean drain of one)
    # per latency, what kind of answer it timed, when the target tells kinds apart (see `fire`'s ``kind``)
    kinds: list[str] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[float]:
        """The latencies of the answers of one kind (seconds)."""
        return [latency for latency, k in zip(self.latencies, self.kinds, strict=True) if k == kind]

    def quantile(self, q: float) -> float:
        """The q-quantile of the latencies in ms (nearest rank)."""
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
        return ordered[index] * 1000

    @property
    def median(self) -> float:
        return statistics.median(self.latencies) * 1000 if self.latencies else float("nan")

    @property
    def throughput(self) -> float:
        """Answered interactions per second over the whole burst."""
        return len(self.latencies) / self.wall if self.wall else 0.0

    def share(self, cpu: float) -> float:
        """CPU seconds as a share of one core over the burst (its follow-ups' drain included)."""
        return cpu / (self.wall + self.drain) if self.wall else 0.0

    @property
    def cpu_per_answer(self) -> float:
        """The bot's CPU microseconds per answered interaction (steadier than latency on a busy machine)."""
        return self.bot_cpu / len(self.latencies) * 1e6 if self.latencies else float("nan")

    @property
    def worker_cpu_per_answer(self) -> float:
        """The part of `cpu_per_answer` spent in the bot's worker processes, not on its event loop."""
        return self.worker_cpu / len(self.latencies) * 1e6 if self.latencies else float("nan")

    @property
    def loop_wait_per_answer(self) -> float:
        """Microseconds per answered interaction that the bot's event loop waited for a core."""
        return self.loop_wait / len(self.latencies) * 1e6 if self.latencies else float("nan")

    def row(self) -> str:
        return (
            f"{self.label:<34} {self.median:8.2f} {self.quantile(0.9):8.2f} {self.quantile(0.99):8.2f} "
            f"{max(self.latencies, default=0) * 1000:8.2f} {self.throughput:10.0f} {len(self.errors):7d} "
            f"{self.share(self.bot_cpu):6.0%} {self.share(self.fake_cpu):6.0%} {self.cpu_per_answer:9.0f} "
            f"{self.worker_cpu_per_answer:8.0f} {self.loop_wait_per_answer:9.0f} "
            f"{self.drain / self.bursts * 1000:8.1f}"
        )


HEADER = (
    f"{'':<34} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8} {'answers/s':>10} {'errors':>7} "
    f"{'botCPU':>6} {'fakeCPU':>6} {'µs CPU/answer':>9} {'workers':>8} {'loop wait':>9} {'drain ms':>8}"
)

Check = Callable[[InteractionRecord], str | None]  # None when the answer is what was expected


async def fire(
    fake: FakeDiscord,
    records: Sequence[InteractionRecord],
    concurrency: int,
    label: str,
    check: Check,
    bot: BotProcess | None = None,
    settled: Callable[[InteractionRecord], bool] | None = None,
    kind: Callable[[InteractionRecord], str] | None = None,
) -> Run:
    """Send every record, at most ``concurrency`` unanswered at once; time each from dispatch to callback.

    With ``kind``, each latency is noted with the kind of answer it timed (`Run.kinds`).

    With ``settled``, wait after the last answer until it holds for every record (the follow-ups the bot
    sends after its answer have arrived) before reading the bot's CPU; the wait is the run's `drain`."""
    run = Run(label, len(records), concurrency)
    order = iter(records)

    async def worker() -> None:
        for record in order:
            await fake.dispatch("INTERACTION_CREATE", record.payload)
            try:  # (not wait_for: its task per interaction was the load generator's CPU, not the bot's)
                async with asyncio.timeout(WAIT):
                    await record.answered.wait()
            except TimeoutError:
                run.errors.append(f"unanswered: {record.payload['data']}")
                continue
            problem = check(record)
            if problem is not None:
                run.errors.append(problem)
            if record.dispatched_at is not None and record.callback_at is not None:
                run.latencies.append(record.callback_at - record.dispatched_at)
                if kind is not None:
                    run.kinds.append(kind(record))

    for record in records:
        record.encode_ahead()
    bot_cpu, worker_cpu = bot.cpu_split() if bot else (0.0, 0.0)
    waited = _run_delay_ns(bot.pid) if bot else 0
    # The fake times every interaction in this process: its own collector's full passes (over every
    # record and payload of the run, 50-200 ms each) would stall all interactions in flight and be
    # counted against the bot. So the fake collects before the burst and not during it.
    gc.collect()
    gc.freeze()
    gc.disable()
    fake_cpu = time.process_time()
    start = time.monotonic()
    try:
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    finally:
        gc.enable()
        gc.unfreeze()
    run.wall = time.monotonic() - start
    if settled is not None:
        waiting = [record for record in records if record.callback is not None]
        deadline = time.monotonic() + WAIT
        while waiting and time.monotonic() < deadline:
            waiting = [record for record in waiting if not settled(record)]
            if waiting:
                await asyncio.sleep(0.001)
        run.drain = time.monotonic() - start - run.wall
        run.errors += [f"follow-up missing: {record.payload['data']}" for record in waiting]
    run.fake_cpu = time.process_time() - fake_cpu
    if bot:
        own, workers = bot.cpu_split()
        run.bot_cpu = own + workers - bot_cpu - worker_cpu
        run.worker_cpu = workers - worker_cpu
        run.loop_wait = (_run_delay_ns(bot.pid) - waited) / 1e9
    return run


# -- stored data (startup and memory) ----------------------------------------------------------------------
async def populate(
    database: Path,
    *,
    sheets: int,
    hands: int,
    pools: int,
    guild_id: int = 1,
    channels: int = 100,
    progress: Callable[[str], None] = print,
) -> None:
    """Store ``sheets`` sheets, ``hands`` open hands and ``pools`` running pools through the store API."""
    from bot.core import blackjack
    from bot.core.cards import Shoe
    from bot.store import Skill, Store

    rng = random.Random(6)
    started = time.monotonic()
    store = await Store.open(database)
    try:
        systems = ("sysx", "dn", "rps", "decision", "cards")
        attributes = {
            "sysx": ("Strength", 12),
            "dn": ("Strength", 12),
            "rps": ("Strength", 12),
            "decision": ("Strength", 3),
            "cards": ("Strength", 12),
        }
        for n in range(sheets):
            system = systems[n % 5]
            word, value = attributes[system]
            await store.sheets.create(
                {
                    "guild_id": guild_id,
                    "owner_id": 10_000 + n % 1000,
                    "name": f"Character {n}",
                    "system": system,
                    "attributes": {word: value, "Dexterity": value},
                    "skills": {"Climb": Skill(rating=3, attribute=word)},
                }
            )
        for n in range(hands):
            channel = 5_000 + n % channels
            hand = blackjack.start_voluntary(3, 2)
            shoe = Shoe.fresh(rng, 1)
            while hand.needs_card:
                card, shoe = shoe.draw(rng)
                hand = blackjack.deal(hand, card)
            await store.cards.create_hand(
                guild_id, channel, 10_000 + n % 1000, hand.to_dict(), state="in_progress", cards=hand.played
            )
        for n in range(pools):
            await store.pools.start(
                guild_id,
                5_000 + n % channels,
                10_000 + n % 1000,
                f"Pool {n}",
                goal=50,
                base=12,
                time_per_check=10,
            )
    finally:
        await store.close()
    progress(
        f"stored {sheets} sheets, {hands} open hands, {pools} pools in {time.monotonic() - started:.1f} s"
    )


async def cached_database(sheets: int, hands: int, pools: int, folder: Path) -> Path:
    """A copy of a populated database (built once per size in the system's temp folder, then copied)."""
    import shutil

    from bot.store import latest_version

    name = f"tabletop-bench-v{latest_version()}-{sheets}-{hands}-{pools}.sqlite3"  # a new schema: rebuild
    cache = Path(tempfile.gettempdir()) / name
    if not cache.exists():
        building = cache.with_suffix(".building")
        for suffix in ("", "-wal", "-shm"):
            Path(str(building) + suffix).unlink(missing_ok=True)
        await populate(building, sheets=sheets, hands=hands, pools=pools)
        await _checkpoint(building)
        building.rename(cache)
    target = folder / "bot.db"
    shutil.copyfile(cache, target)
    return target


async def _checkpoint(path: Path) -> None:
    from bot.store import Store

    store = await Store.open(path)
    await store.close()  # closing the last connection checkpoints the WAL into the file


def each(n: int, make: Callable[[int], InteractionRecord]) -> list[InteractionRecord]:
    """``make(i)`` for i in 0..n-1 (built before timing starts)."""
    return [make(i) for i in range(n)]


async def gather_limited(jobs: Sequence[Callable[[], Awaitable[Any]]], limit: int) -> list[Any]:
    """Run the jobs with at most ``limit`` at once (set-up steps through the bot)."""
    counter = itertools.count()
    results: list[Any] = [None] * len(jobs)

    async def worker() -> None:
        while (i := next(counter)) < len(jobs):
            results[i] = await jobs[i]()

    await asyncio.gather(*(worker() for _ in range(limit)))
    return results
