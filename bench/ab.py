"""A/B: the bot of this checkout against the bot of another commit, one target, bursts interleaved.

On a shared machine the ratio to the bare bot (bench/latency.py) moves with the load from round to round;
two builds of the bot side by side, each burst of one followed at once by a burst of the other against
the same kind of fake, feel much the same load. CPU per answer (the bot and its worker processes) is the
steadiest figure, but it is read from /proc in 10 ms ticks and the host's load still moves it: on the
2-core VM of the README, two runs of the same code differ by up to 10%, so trust a change this shows
only beyond that (and time a mechanism directly when the gain is smaller). Make the other tree first:

    git worktree add /tmp/base HEAD~1              # or any commit
    python bench/ab.py --base /tmp/base --target rps
    python bench/ab.py --base /tmp/base --target hit -n 800 --rounds 6
    python bench/ab.py --base /tmp/base --target rps --database-url postgresql://postgres@127.0.0.1:5432/test

Both bots import their code from their own tree (PYTHONPATH); the fake, the load and this script are this
checkout's. Prints, per build, each round's CPU per answer and the medians over the rounds, then new/base.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from _common import ROOT, Run, machine, rerun, schema_checks
from latency import DATABASE_URL_HELP, TARGETS, Session, database_argv, postgres_server


@dataclass
class Build:
    """One build of the bot: its source tree and the runs measured on it."""

    label: str
    source: Path
    runs: list[Run] = field(default_factory=list)

    def median(self, value: str) -> float:
        figures = {
            "p50": lambda r: r.median,
            "p99": lambda r: r.quantile(0.99),
            "answers/s": lambda r: r.throughput,
            "CPU/answer": lambda r: r.bot_cpu / r.n * 1e6 if r.n else 0.0,
            "loop CPU/answer": lambda r: (r.bot_cpu - r.worker_cpu) / r.n * 1e6 if r.n else 0.0,
        }
        return statistics.median(figures[value](run) for run in self.runs)


async def compare(
    target: str, base: Path, n: int, concurrency: int, rounds: int, warmup: int, server: str | None = None
) -> list[Build]:
    """``server``: the PostgreSQL server both builds run on (None: each its SQLite file)."""
    chosen = TARGETS[target]
    builds = [Build("base", base), Build("new", ROOT)]
    count = warmup + n * rounds
    sessions = []
    try:
        for build in builds:
            sessions.append(
                await Session.open(
                    "tabletop",
                    build.label,
                    chosen.prepare,
                    chosen.check,
                    count,
                    source=build.source,
                    settled=chosen.settled,
                    server=server,
                    answer_kind=chosen.kind,
                )
            )
        for session in sessions:
            await session.burst(warmup, 4, "warm-up")
        for index in range(rounds):
            # each round is a pair of bursts, back to back; the order flips every round, so neither build
            # is always the one that runs just after the other
            pairs = list(zip(sessions, builds, strict=True))
            for session, build in pairs if index % 2 == 0 else reversed(pairs):
                build.runs.append(await session.burst(n, concurrency, build.label))
    finally:
        for session in sessions:
            await session.close()
    return builds


def report(builds: list[Build]) -> None:
    print(
        f"{'':8} {'p50 ms':>8} {'p99 ms':>8} {'answers/s':>10} {'CPU/answer µs':>14} {'(loop)':>7}  errors"
        "  per round (µs)"
    )
    for build in builds:
        rounds = " ".join(f"{r.bot_cpu / r.n * 1e6:.0f}" for r in build.runs if r.n)
        errors = sum(len(r.errors) for r in build.runs)
        print(
            f"{build.label:8} {build.median('p50'):8.2f} {build.median('p99'):8.2f} "
            f"{build.median('answers/s'):10.0f} {build.median('CPU/answer'):14.0f} "
            f"{build.median('loop CPU/answer'):7.0f}  {errors:6}  {rounds}"
        )
    for kind in sorted({k for build in builds for r in build.runs for k in r.kinds}):
        # each kind's answers pooled over the rounds (a kind can be a few answers a burst)
        pooled = [Run(b.label, 0, 0, [x for r in b.runs for x in r.of_kind(kind)]) for b in builds]
        shown = ", ".join(
            f"{run.label} p50 {run.median:.2f} p99 {run.quantile(0.99):.2f} ms ({len(run.latencies)})"
            for run in pooled
        )
        print(f"of which {kind}: {shown}")
    base, new = builds
    for what, cpu in (
        ("CPU per answer", lambda r: r.bot_cpu),
        # the event loop's process alone: the odds workers' part follows how the random hands ended
        ("loop CPU per answer", lambda r: r.bot_cpu - r.worker_cpu),
    ):
        paired = sorted(
            (cpu(r) / r.n) / (cpu(b) / b.n)
            for b, r in zip(base.runs, new.runs, strict=True)
            if b.n and r.n and cpu(b)
        )
        if paired:
            quarter = len(paired) // 4
            print(
                f"paired rounds: new/base {what} {statistics.median(paired):.2f}x "
                f"(middle half {paired[quarter]:.2f}-{paired[-1 - quarter]:.2f}x over {len(paired)} rounds)"
            )
    print(
        f"new/base: p50 {new.median('p50') / base.median('p50'):.2f}x, "
        f"throughput {new.median('answers/s') / base.median('answers/s'):.2f}x, "
        f"CPU per answer {new.median('CPU/answer') / base.median('CPU/answer'):.2f}x, "
        f"loop CPU per answer {new.median('loop CPU/answer') / base.median('loop CPU/answer'):.2f}x "
        f"(medians over the rounds; base = {base.source})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", required=True, help="the other commit's source tree (a git worktree)")
    parser.add_argument("--target", choices=sorted(TARGETS), default="rps")
    parser.add_argument("-n", type=int, default=400, help="interactions per burst")
    parser.add_argument("-c", "--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--database-url", help=DATABASE_URL_HELP)
    args = parser.parse_args()
    base = Path(args.base).resolve()
    if not (base / "bot" / "__main__.py").is_file():
        parser.error(f"{base} is not a source tree of this bot (no bot/__main__.py)")
    schema_checks(False)
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    print(
        f"{args.target}: {TARGETS[args.target].what}; C={args.concurrency}, {args.rounds} rounds of {args.n}"
    )
    server = postgres_server(args.database_url)
    if server:
        print(f"both builds on PostgreSQL: {server}, a fresh schema each")
    builds = asyncio.run(
        compare(args.target, base, args.n, args.concurrency, args.rounds, args.warmup, server)
    )
    report(builds)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(
        rerun(
            "ab.py",
            [
                f"--base {args.base} --target {args.target} -n {args.n} -c {args.concurrency}",
                f"--rounds {args.rounds} --warmup {args.warmup}",
                *database_argv(args.database_url),
            ],
        )
    )


if __name__ == "__main__":
    main()
