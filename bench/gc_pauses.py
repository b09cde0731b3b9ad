"""The bot's garbage-collector pauses under load: CPython's thresholds beside another set, in one run.

Two copies of the real bot (`python -m bot`, this checkout) run with bench/_gc_probe.py, which times every
pass of the collector; one keeps CPython's thresholds (700, 10, 10), the other is given ``--against``
from the moment start-up is frozen (default `AGAINST`). Their bursts are interleaved as in bench/ab.py.
Prints, per copy, the answers' p50 and p99 and CPU per answer (medians over the rounds), then the passes
that ran during the bursts: per generation how many per 1,000 answers and their median, p99 and longest
pause, and in all the pause time per 1,000 answers and the passes over `LONG_MS`. A pause stops the
event loop, so every answer in flight waits it out.

    python bench/gc_pauses.py --target hit -n 1000 --rounds 4
    python bench/gc_pauses.py --target rps --database-url postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from _common import Run, machine, rerun, schema_checks
from latency import DATABASE_URL_HELP, TARGETS, Session, database_argv, postgres_server

#: frequent small passes: a middle one every 3rd young one, a full one every 2nd middle one (bench/README,
#: "ninth session")
AGAINST = "700,2,1"
LONG_MS = 3.0


@dataclass(frozen=True)
class Pass:
    """One pass of the collector: when it ended (time.monotonic()), its generation, pause and garbage."""

    at: float
    generation: int
    pause_ms: float
    collected: int


def read_passes(text: str) -> list[Pass]:
    """The probe's lines (``<time> <generation> <pause ms> <collected>``); a line cut short is skipped."""
    passes = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4:
            passes.append(Pass(float(parts[0]), int(parts[1]), float(parts[2]), int(parts[3])))
    return passes


def during(passes: list[Pass], windows: list[tuple[float, float]]) -> list[Pass]:
    """The passes that ended inside one of the bursts' windows (start-up's and the idle time's left out)."""
    return [p for p in passes if any(start <= p.at <= end for start, end in windows)]


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(q * len(ordered) + 0.999999) - 1))]


def pause_lines(passes: list[Pass], answers: int) -> list[str]:
    """Per generation and in all, per 1,000 answers (see the module's docstring)."""
    per = 1000 / answers if answers else 0.0
    lines = []
    for generation in sorted({p.generation for p in passes}):
        pauses = [p.pause_ms for p in passes if p.generation == generation]
        garbage = statistics.median(p.collected for p in passes if p.generation == generation)
        lines.append(
            f"  generation {generation}: {len(pauses) * per:6.1f} passes, pause median "
            f"{statistics.median(pauses):.2f} p99 {nearest_rank(pauses, 0.99):.2f} max {max(pauses):.2f} ms, "
            f"{garbage:.0f} objects freed (median)"
        )
    total = sum(p.pause_ms for p in passes)
    long = sum(1 for p in passes if p.pause_ms > LONG_MS)
    lines.append(f"  in all: {total * per:.1f} ms of pauses, {long * per:.2f} passes over {LONG_MS:g} ms")
    return lines


@dataclass
class Variant:
    """One copy of the bot: the thresholds it runs with (None: CPython's) and what it measured."""

    label: str
    thresholds: str | None
    log: Path
    runs: list[Run] = field(default_factory=list)
    windows: list[tuple[float, float]] = field(default_factory=list)

    def median(self, value: str) -> float:
        figures = {
            "p50": lambda r: r.median,
            "p99": lambda r: r.quantile(0.99),
            "CPU/answer": lambda r: r.bot_cpu / r.n * 1e6 if r.n else 0.0,
        }
        return statistics.median(figures[value](run) for run in self.runs)

    def passes(self) -> list[Pass]:
        return during(read_passes(self.log.read_text()), self.windows)


async def measure(
    target: str,
    n: int,
    concurrency: int,
    rounds: int,
    warmup: int,
    server: str | None,
    against: str,
    logs: Path,
) -> list[Variant]:
    chosen = TARGETS[target]
    variants = [
        Variant("CPython's", None, logs / "cpython.log"),
        Variant(against, against, logs / "against.log"),
    ]
    sessions = []
    try:
        for variant in variants:
            env = {"GC_PROBE_FILE": str(variant.log)}
            if variant.thresholds is not None:
                env["GC_PROBE_THRESHOLDS"] = variant.thresholds
            sessions.append(
                await Session.open(
                    "gc-probed",
                    variant.label,
                    chosen.prepare,
                    chosen.check,
                    warmup + n * rounds,
                    settled=chosen.settled,
                    server=server,
                    answer_kind=chosen.kind,
                    env=env,
                )
            )
        for session in sessions:
            await session.burst(warmup, 4, "warm-up")
        for index in range(rounds):
            pairs = list(zip(sessions, variants, strict=True))
            for session, variant in pairs if index % 2 == 0 else reversed(pairs):
                start = time.monotonic()
                variant.runs.append(await session.burst(n, concurrency, variant.label))
                variant.windows.append((start, time.monotonic()))
    finally:
        for session in sessions:
            await session.close()
    return variants


def report(variants: list[Variant]) -> None:
    print(f"{'thresholds':12} {'p50 ms':>8} {'p99 ms':>8} {'CPU/answer µs':>14}  errors")
    for variant in variants:
        errors = sum(len(r.errors) for r in variant.runs)
        print(
            f"{variant.label:12} {variant.median('p50'):8.2f} {variant.median('p99'):8.2f} "
            f"{variant.median('CPU/answer'):14.0f}  {errors:6}"
        )
    for variant in variants:
        answers = sum(r.n for r in variant.runs)
        print(f"{variant.label}: the collector's passes during the bursts, per 1,000 answers")
        for line in pause_lines(variant.passes(), answers):
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", choices=sorted(TARGETS), default="hit")
    parser.add_argument("-n", type=int, default=1000, help="interactions per burst")
    parser.add_argument("-c", "--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--against", default=AGAINST, help=f"the other thresholds (default {AGAINST})")
    parser.add_argument("--database-url", help=DATABASE_URL_HELP)
    args = parser.parse_args()
    schema_checks(False)
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    print(
        f"{args.target}: {TARGETS[args.target].what}; C={args.concurrency}, {args.rounds} rounds of {args.n}"
    )
    server = postgres_server(args.database_url)
    print(f"on PostgreSQL: {server}, a fresh schema each" if server else "on SQLite, a file each")
    with tempfile.TemporaryDirectory(prefix="gc-pauses-") as logs:
        variants = asyncio.run(
            measure(
                args.target,
                args.n,
                args.concurrency,
                args.rounds,
                args.warmup,
                server,
                args.against,
                Path(logs),
            )
        )
        report(variants)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(
        rerun(
            "gc_pauses.py",
            [
                f"--target {args.target} -n {args.n} -c {args.concurrency} --rounds {args.rounds}",
                f"--warmup {args.warmup} --against {args.against}",
                *database_argv(args.database_url),
            ],
        )
    )


if __name__ == "__main__":
    main()
