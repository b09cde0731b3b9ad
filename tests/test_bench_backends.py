"""bench/latency.py runs the real bot on each backend asked for, judging each on its own row, and
bench/processes.py says whether a second process dropped the throughput."""

import sys

import pytest

from tests.paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))  # the bench scripts import each other by name

import latency
import processes
from _common import Run

SERVER = "postgresql://postgres@127.0.0.1:5432/test"


def test_postgres_runs_with_sqlites_promise_unless_the_address_says_otherwise() -> None:
    assert latency.with_setting(SERVER, "synchronous_commit", "off") == SERVER + "?synchronous_commit=off"
    mine = SERVER + "?search_path=x&synchronous_commit=on"
    assert latency.with_setting(mine, "synchronous_commit", "off") == mine


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], [("sqlite", None)]),
        (["--database-url", SERVER], [("postgres", SERVER + "?synchronous_commit=off")]),
        (
            ["--backends", "sqlite,postgres", "--synchronous-commit", "server"],
            [("sqlite", None), ("postgres", latency.DEFAULT_SERVER)],
        ),
    ],
)
def test_the_backends_and_their_servers(argv: list[str], expected: list[tuple[str, str | None]]) -> None:
    assert latency.chosen_backends(latency.parse(argv)) == expected


def test_an_unknown_backend_is_refused() -> None:
    with pytest.raises(SystemExit, match="mysql"):
        latency.chosen_backends(latency.parse(["--backends", "sqlite,mysql"]))


def run(label: str, ms: float, n: int, wall: float) -> Run:
    return Run(label, n, 16, latencies=[ms / 1000] * n, wall=wall)


def test_the_summary_has_a_row_per_backend_each_judged_at_its_largest_concurrency() -> None:
    bare, plain = run("bare", 1, 100, 0.1), run("plain", 10, 100, 0.1)
    levels = [
        latency.Level(1, bare, plain, run("sqlite C=1", 11, 100, 0.1), [], "sqlite", top=False),
        latency.Level(16, bare, plain, run("sqlite C=16", 11, 100, 0.1), [], "sqlite", top=True),
        latency.Level(1, bare, plain, run("postgres C=1", 11, 100, 0.1), [], "postgres", top=False),
        latency.Level(16, bare, plain, run("postgres C=16", 11, 100, 0.1), [], "postgres", top=True),
    ]
    levels[-1].real.latencies[-5:] = [0.030] * 5  # a slow tail: p99 30 ms
    _, *rows = latency.summary([(latency.TARGETS["rps"], levels)])
    assert [row.split()[1:3] for row in rows] == [["sqlite", "1"], ["sqlite", "16"], ["postgres", "1"],
                                                  ["postgres", "16"]]  # fmt: skip
    assert rows[1].rstrip().endswith("PASS      PASS    PASS     PASS")
    assert rows[3].rstrip().endswith("PASS      PASS    FAIL     PASS")  # p99 30 ms, on PostgreSQL only
    assert "-" in rows[0].split("|")[-1]  # p99 is not judged below the largest C


def test_the_verdict_names_a_drop() -> None:
    one = run("1", 10, 1000, 1.0)
    assert processes.verdict(one, run("2", 10, 1000, 0.9)).startswith("no drop:")
    assert processes.verdict(one, run("2", 10, 970, 1.0)).startswith("no drop beyond noise")
    assert processes.verdict(one, run("2", 10, 800, 1.0)).startswith("DROP: two processes answer 80%")


def _clicked(data: dict[str, object]) -> latency.InteractionRecord:
    record = latency.InteractionRecord(1, "t", 3, None, None, None, {})  # type: ignore[arg-type]
    record.callback = {"type": 7, "data": data}
    return record


def test_a_hit_s_answers_are_told_apart_by_whether_they_ended_the_hand(
    capsys: pytest.CaptureFixture[str],
) -> None:
    hit = {"type": 2, "custom_id": "bj:5:hit"}
    assert latency.hand_ended(_clicked({"embeds": []})) == "went on"  # the embed alone: the controls stay
    assert latency.hand_ended(_clicked({"components": [{"type": 1, "components": [hit]}]})) == "went on"
    details = {"type": 2, "custom_id": "bj:5:details"}
    assert latency.hand_ended(_clicked({"components": [{"type": 1, "components": [details]}]})) == (
        "ended the hand"
    )
    assert latency.hand_ended(_clicked({"components": []})) == "ended the hand"
    # and each kind gets a line of its own under the bot's row
    bare, plain = run("bare", 1, 4, 0.1), run("plain", 10, 4, 0.1)
    real = Run("tabletop hit C=16", 4, 16, [0.010, 0.011, 0.030, 0.031], wall=0.1)
    real.kinds = ["went on", "went on", "ended the hand", "ended the hand"]
    latency.detail(latency.TARGETS["hit"], [latency.Level(16, bare, plain, real, [], "sqlite", top=True)])
    shown = capsys.readouterr().out
    assert "of which ended the hand" in shown and "(2 answers)" in shown
    [went_on] = [line for line in shown.splitlines() if "of which went on" in line]
    assert went_on.split()[4] == "10.50"  # its median: of the two fast answers only
