"""Start the local table as a user does (`python -m bot`, here on a free port) in a folder of its own."""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.paths import ROOT

ADDRESS = re.compile(
    r"^Local table at (http://127\.0\.0\.1:\d+) - set DISCORD_TOKEN in \.env to run on Discord$"
)
START_WAIT = 60.0


@dataclass
class RunningTable:
    process: subprocess.Popen[str]
    url: str
    folder: Path
    log_path: Path

    def stop(self) -> int:
        """SIGTERM, as Ctrl+C or a service manager would; the exit status."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            # generous: on a loaded machine the bot, its worker processes and the stand-in all stop in turn
            return self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            # what it hangs on: every thread's stack, which `python -m bot` writes on SIGUSR1
            self.process.send_signal(signal.SIGUSR1)
            time.sleep(2)
            self.process.kill()
            self.process.wait()
            raise AssertionError(
                f"the table did not stop within 60 s; its log ends:\n{self.log()[-6000:]}"
            ) from None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def error_lines(self) -> list[str]:
        return [line for line in self.log().splitlines() if " ERROR " in line or "Traceback" in line]


def launch(folder: Path, *args: str, seed: int | None = 1234, **env: str) -> RunningTable:
    """`python -m bot --port 0 *args` with no token in ``folder``; returns once it printed its address."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DISCORD_", "DEV_GUILD", "DICE_", "DATABASE_"))
    }
    clean |= {"PYTHONPATH": str(ROOT), **env}
    if seed is not None:
        clean["DICE_SEED"] = str(seed)
    log_path = folder / "table.log"
    with log_path.open("a") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "bot", "--port", "0", *args],
            cwd=folder,
            env=clean,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + START_WAIT
    line = ""
    while time.monotonic() < deadline and process.poll() is None:
        if selector.select(timeout=0.2):
            line = process.stdout.readline().strip()
            break
    selector.close()
    matched = ADDRESS.match(line)
    if matched is None:
        process.kill()
        process.wait()
        raise AssertionError(f"the local table did not start: {line!r}\n{log_path.read_text()[-3000:]}")
    return RunningTable(process, matched[1], folder, log_path)


@contextmanager
def running_table(folder: Path, *args: str, seed: int | None = 1234, **env: str) -> Iterator[RunningTable]:
    """The local table for the length of a ``with``; it must stop cleanly and log no error."""
    table = launch(folder, *args, seed=seed, **env)
    try:
        yield table
    finally:
        status = table.stop()
    assert status == 0, f"the local table exited with {status}:\n{table.log()[-3000:]}"
    assert not table.error_lines(), "the local table logged errors:\n" + table.log()[-5000:]
