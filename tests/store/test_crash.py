"""Crash safety: a real child process SIGKILLed during a burst of writes loses no committed change and
leaves no partial one, on either backend."""

from __future__ import annotations

import os
import select
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bot.store import Store
from tests.paths import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="needs SIGKILL")]


def _run_and_kill(path: Path | str, after_lines: int) -> list[str]:
    """Start the child, SIGKILL it after ``after_lines`` reported commits; return every reported line."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.store._crash_child", str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    lines: list[str] = []
    try:
        while len(lines) < after_lines:
            ready, _, _ = select.select([child.stdout], [], [], 60)
            if not ready:
                raise AssertionError("the child reported nothing for 60 seconds")
            line = child.stdout.readline()
            if not line:
                raise AssertionError(
                    f"the child stopped early: {child.stderr.read() if child.stderr else ''}"
                )
            lines.append(line.strip())
        child.send_signal(signal.SIGKILL)  # mid-burst: the child is writing as fast as it can
        rest, _ = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL
    # lines already written to the pipe before the kill were printed after their commit
    return lines + [line.strip() for line in rest.splitlines() if line.strip()]


@pytest.mark.parametrize("after_lines", [5, 120, 600, 2500])
async def test_sigkill_mid_burst_keeps_every_commit_and_no_partial_one(
    database: Path | str, after_lines: int
) -> None:
    path = database
    lines = _run_and_kill(path, after_lines)
    reported: dict[str, list[str]] = {}
    for line in lines:
        kind, number = line.split()
        reported.setdefault(kind, []).append(number)

    if isinstance(path, Path):
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()

    store = await Store.open(path)
    try:
        # every reported commit is there
        for hand_id in reported.get("deal", []):
            await store.cards.get_hand(int(hand_id))
        for hand_id in reported.get("finish", []):
            assert (await store.cards.get_hand(int(hand_id))).finished
        for roll_id in reported.get("log", []):
            await store.log.get(int(roll_id))
        for check in reported.get("check", []):
            pool_id, made = map(int, check.split(":"))
            assert (await store.pools.get_by_id(pool_id)).checks_made >= made
        # no partial transaction: a hand row without its shoe row (or the reverse) breaks conservation
        shoe, version = await store.cards.get_shoe(1, 10)
        assert shoe.is_conserved(await store.cards.in_play(1, 10))
        hands = await store.cards.open_hands(1, 10) + await store.cards.recent_hands(1, 10, 10_000)
        assert version == 1 + 2 * len(hands) - len(await store.cards.open_hands(1, 10))
        # a pool's value always equals the sum of its logged checks
        for pool in await store.pools.list(1, 10, running_only=False):
            assert pool.pool == sum(c.delta for c in pool.checks) and pool.checks_made == len(pool.checks)
        # and the file is still writable after the crash
        await store.meta.set("after-crash", "ok")
    finally:
        await store.close()
