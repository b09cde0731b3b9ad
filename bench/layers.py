"""Where the bot's CPU per answer goes, layer by layer, against the bare and the plain discord.py bots.

Runs the real bot, the bare bot (`bench/bare_bot.py`) and the plain bot doing the same work
(`bench/plain_bot.py`) as subprocesses on the loopback fake Discord, as `bench/latency.py` does. Each
thread's CPU in the burst is read from /proc: the event loop's thread, and the others (aiosqlite's
connection threads, discord.py's keep-alive) as one row. The loop thread's CPU is split by layer from
py-spy samples taken with ``--gil``: only the thread running Python is sampled, so a thread waiting for a
core or for the GIL (which a plain sample counts as busy on a loaded machine) is not charged. Every sample
is charged to the innermost frame of its stack that belongs to a layer (so pydantic called by the store
counts as the store, json parsed by discord.py as discord.py). The bot's worker processes (cards odds,
charts) are a row of their own, from /proc alone.

Needs py-spy (`.venv/bin/pip install -e '.[bench]'`) and permission to read another process's memory
(root, or ptrace allowed). Run from the repository root, after `./scripts/test` has made `.venv`:

    .venv/bin/python bench/layers.py --target rps
    .venv/bin/python bench/layers.py --target rps --database-url postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import Check, machine, rerun, schema_checks
from latency import BARE, DATABASE_URL_HELP, TARGETS, Prepare, Session, database_argv, postgres_server

ROOT = Path(__file__).resolve().parents[1]
# (layer, what a frame's file path contains); the first that matches names the frame's layer
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bot: store", ("/bot/store/",)),
    ("bot: cogs, ui, core, client", ("/cogs/", "/bot/")),
    ("discord.py", ("/discord/", "/commands/")),  # py-spy names discord/ext/commands as commands/
    ("aiohttp, yarl, multidict", ("/aiohttp/", "/yarl/", "/multidict/")),
    # the drivers' Python on the loop's thread (aiosqlite's connection threads are the THREADS row)
    ("database driver (aiosqlite, asyncpg)", ("/aiosqlite/", "/asyncpg/")),
    ("asyncio event loop", ("/asyncio/", "/selectors.py")),
)
OUR_LAYERS = {"bot: store", "bot: cogs, ui, core, client"}
OTHER = "other (start-up, unattributed)"
WORKERS = "worker processes (odds, charts)"
THREADS = "other threads (aiosqlite's connections)"
_THREAD = re.compile(r"^thread \((?P<tid>\d+)\)")  # py-spy --threads: "thread (<tid>): <name>" first
IDLE_LEAVES = ("select (selectors.py", "EpollSelector.select (", "_wait_for_tstate_lock", "Condition.wait (")
_FRAME = re.compile(r"^(?P<function>.*?) \((?P<path>.*?):\d+\)$")


@dataclass
class Split:
    """One bot's CPU per answer split by layer (µs), and its hottest functions in our own code."""

    label: str
    cpu_us: float  # the process's own CPU per answer, from /proc
    worker_us: float
    threads_us: float = 0.0  # the part of cpu_us its threads other than the loop's used
    layers: dict[str, float] = field(default_factory=dict)
    ours: Counter[str] = field(default_factory=Counter)  # inclusive µs per answer, our functions
    samples: int = 0


def layer_of(path: str) -> str | None:
    """The layer of a source file (py-spy names it relative to sys.path, or absolute)."""
    path = "/" + path
    for name, marks in LAYERS:
        if any(mark in path for mark in marks):
            return name
    return None


def short(function: str, path: str) -> str:
    """``function (file)`` with the file relative to the repository or site-packages."""
    path = re.sub(r".*site-packages/", "", path)
    path = re.sub(r".*/lib/python3\.\d+/", "", path)
    return f"{function} ({path.replace(str(ROOT) + '/', '')})"


def split(
    raw: str,
    label: str,
    cpu_us: float,
    worker_us: float,
    *,
    threads_us: float = 0.0,
    loop_thread: int | None = None,
) -> Split:
    """Charge py-spy's raw samples (``frame;frame;... count``, outermost first) to the layers, scaled to
    the loop thread's CPU (``cpu_us - threads_us``). ``loop_thread``: only samples whose first frame is
    ``thread (<loop_thread>)`` count (None: every sample)."""
    counts: Counter[str] = Counter()
    ours: Counter[str] = Counter()
    for line in raw.splitlines():
        stack, _, number = line.rpartition(" ")
        if not stack or not number.isdigit():
            continue
        frames = stack.split(";")
        if frames[-1].startswith(IDLE_LEAVES):
            continue
        thread = _THREAD.match(frames[0])
        if loop_thread is not None and (thread is None or int(thread["tid"]) != loop_thread):
            continue
        n = int(number)
        parsed = [m for m in (_FRAME.match(f) for f in frames) if m is not None]
        layers = [layer_of(m["path"]) for m in parsed]
        counts[next((lay for lay in reversed(layers) if lay is not None), OTHER)] += n
        ours.update(
            {
                short(m["function"], m["path"]): n  # a function on the stack twice counts once
                for m, lay in zip(parsed, layers, strict=True)
                if lay in OUR_LAYERS and not m["path"].endswith("__main__.py")
            }
        )
    total = sum(counts.values())
    result = Split(label, cpu_us, worker_us, threads_us, samples=total)
    if total:
        per_sample = (cpu_us - threads_us) / total  # µs of real CPU per answer one sample stands for
        result.layers = {lay: c * per_sample for lay, c in counts.items()}
        result.ours = Counter({name: c * per_sample for name, c in ours.items()})
    return result


async def measure(
    kind: str,
    label: str,
    prepare: Prepare,
    check: Check,
    n: int,
    concurrency: int,
    rate: int,
    spy: str,
    server: str | None = None,
    keep: Path | None = None,
) -> Split:
    """Sample one bot (``kind``: "bare", "plain" or "tabletop") through a burst of ``n`` interactions;
    ``server``: the PostgreSQL server the real bot runs on (None: its SQLite file)."""
    session = await Session.open(kind, label, prepare, check, n + 400, server=server)
    with tempfile.TemporaryDirectory(prefix="layers-") as folder:
        out = Path(folder) / "samples.txt"
        try:
            await session.burst(400, concurrency, "warm-up")
            process = await asyncio.create_subprocess_exec(
                spy, "record", "--pid", str(session.bot.pid), "--rate", str(rate), "--format", "raw",
                "--gil", "--threads", "--output", str(out), "--nonblocking", "--duration", "3600",
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            try:
                await asyncio.sleep(1.0)  # py-spy attached
                before = thread_cpu(session.bot.pid)
                run = await session.burst(n, concurrency, label)
                after = thread_cpu(session.bot.pid)
            finally:
                process.send_signal(signal.SIGINT)  # py-spy writes what it has and exits
                _, err = await process.communicate()
        finally:
            await session.close()
        if run.errors:
            raise SystemExit(f"{label}: {len(run.errors)} errors, first: {run.errors[0]}")
        if not out.exists():
            raise SystemExit(f"py-spy recorded nothing: {err.decode(errors='replace').strip()[-400:]}")
        if keep is not None:  # for a look past the layers (py-spy's raw format: flamegraph.pl reads it)
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(out, keep / f"{kind}.txt")
        own_us = run.cpu_per_answer - run.worker_cpu_per_answer
        others = sum(
            seconds - before.get(tid, 0.0) for tid, seconds in after.items() if tid != session.bot.pid
        )
        threads_us = others / len(run.latencies) * 1e6
        return split(
            out.read_text(), label, own_us, run.worker_cpu_per_answer,
            threads_us=threads_us, loop_thread=session.bot.pid,
        )  # fmt: skip


def thread_cpu(pid: int) -> dict[int, float]:
    """User + system CPU seconds so far of each thread of process ``pid`` (its main thread's id is pid)."""
    tick = os.sysconf("SC_CLK_TCK")
    found: dict[int, float] = {}
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended meanwhile
            continue
        found[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / tick
    return found


def table(splits: list[Split]) -> list[str]:
    width = 40
    head = f"{'µs of CPU per answer':<{width}}" + "".join(f"{s.label:>16}" for s in splits)
    if len(splits) > 1:
        head += f"{'difference':>12}  (last column minus the one before it)"
    lines = [head]
    names = [lay for lay, _ in LAYERS] + [OTHER]
    for name in names:
        values = [s.layers.get(name, 0.0) for s in splits]
        line = f"{name:<{width}}" + "".join(f"{v:16.0f}" for v in values)
        if len(splits) > 1:
            line += f"{values[-1] - values[-2]:+12.0f}"
        lines.append(line)
    threads = [s.threads_us for s in splits]
    line = f"{THREADS:<{width}}" + "".join(f"{v:16.0f}" for v in threads)
    lines.append(line + (f"{threads[-1] - threads[-2]:+12.0f}" if len(splits) > 1 else ""))
    totals = [s.cpu_us for s in splits]
    lines.append(
        f"{'event loop process, measured':<{width}}"
        + "".join(f"{v:16.0f}" for v in totals)
        + (f"{totals[-1] - totals[-2]:+12.0f}" if len(splits) > 1 else "")
    )
    workers = [s.worker_us for s in splits]
    if any(workers):
        lines.append(f"{WORKERS:<{width}}" + "".join(f"{v:16.0f}" for v in workers))
    lines.append(f"{'samples':<{width}}" + "".join(f"{s.samples:16d}" for s in splits))
    return lines


async def main(args: argparse.Namespace) -> int:
    spy = args.py_spy or shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        print("py-spy is not installed: run `.venv/bin/pip install -e '.[bench]'` first.", file=sys.stderr)
        return 2
    schema_checks(False)
    target = TARGETS[args.target]
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    print(
        f"{args.target}: {target.what}\n"
        f"N={args.n} at C={args.concurrency}, py-spy --gil at {args.rate} Hz; each layer's share of the "
        "loop thread's samples times the CPU that thread used (from /proc)"
    )
    load = (args.n, args.concurrency, args.rate, spy)
    keep = {"keep": args.keep}
    splits = [await measure(BARE.kind, "bare /ok", BARE.prepare, BARE.check, *load, **keep)]
    plain = target.plain  # the same work, written plainly on discord.py and aiosqlite
    splits.append(await measure(plain.kind, plain.label, plain.prepare, plain.check, *load, **keep))
    server = postgres_server(args.database_url)
    label = args.target + (" (postgres)" if server else "")
    real = await measure("tabletop", label, target.prepare, target.check, *load, server=server, **keep)
    splits.append(real)
    bare = splits[0]
    print()
    print("\n".join(table(splits)))
    ours = sum(real.layers.get(lay, 0.0) for lay in OUR_LAYERS)
    print(
        f"\nour code (bot/, cogs/): {ours:.0f} µs of {real.cpu_us:.0f} ({ours / real.cpu_us:.0%}); "
        f"the bare bot's whole answer: {bare.cpu_us:.0f} µs"
    )
    print("\nhottest of our functions, inclusive µs per answer (calls into discord.py etc. included):")
    for name, us in real.ours.most_common(args.top):
        print(f"{us:8.1f}  {name}")
    print(f"load average after: {os.getloadavg()[0]:.2f} (other work on the machine inflates every figure)")
    argv = [f"--target {args.target}", f"-n {args.n}", f"-c {args.concurrency}", f"--rate {args.rate}"]
    print(rerun("layers.py", [*argv, *database_argv(args.database_url)]))
    return 0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", choices=sorted(TARGETS), default="rps")
    parser.add_argument("-n", type=int, default=20000, help="interactions sampled per bot")
    parser.add_argument("-c", "--concurrency", type=int, default=16)
    parser.add_argument("--rate", type=int, default=500, help="py-spy samples per second")
    parser.add_argument("--top", type=int, default=25, help="how many of our functions to list")
    parser.add_argument("--py-spy", help="path of the py-spy executable (default: on PATH or beside python)")
    parser.add_argument("--database-url", help=DATABASE_URL_HELP)
    parser.add_argument(
        "--keep", type=Path, help="a folder to keep each bot's raw py-spy samples in (bare.txt, plain.txt...)"
    )
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse())))
