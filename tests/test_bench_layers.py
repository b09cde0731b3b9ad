"""bench/layers.py charges each py-spy sample to the right layer (the figures behind issue 6's proposal)."""

import importlib.util
import sys

import pytest

from tests.paths import ROOT


@pytest.fixture(scope="module")
def layers():
    spec = importlib.util.spec_from_file_location("bench_layers", ROOT / "bench" / "layers.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


LOOP = (
    "main (bot/__main__.py:40);BaseEventLoop._run_once (asyncio/base_events.py:1922);"
    "Handle._run (asyncio/events.py:80)"
)
COMMAND = f"{LOOP};CommandTree._call (discord/app_commands/tree.py:1200);Rps.check (cogs/rps.py:493)"
RAW = "\n".join(
    [
        # our command sending its reply: aiohttp is the innermost layer, json (no layer) is charged to it
        f"{COMMAND};reply (bot/ui/reply.py:74);send_message (discord/interactions.py:1085);"
        "ClientSession._request (aiohttp/client.py:819);loads (json/decoder.py:337) 4",
        # pydantic validating a log record counts as the store
        f"{COMMAND};RollLogRepository.add (bot/store/log.py:70);BaseModel.__init__ (pydantic/main.py:214) 3",
        # discord.ext.commands, named commands/bot.py by py-spy, is discord.py, not ours
        f"{LOOP};BotBase.dispatch (commands/bot.py:220) 2",
        # the loop's own bookkeeping
        f"{LOOP};BaseEventLoop.call_soon (asyncio/base_events.py:760) 1",
        # waiting in the selector is not CPU: left out
        "main (bot/__main__.py:40);BaseEventLoop._run_once (asyncio/base_events.py:1910);"
        "EpollSelector.select (selectors.py:468) 50",
        "a line py-spy did not write",
    ]
)


def test_each_sample_goes_to_the_innermost_frame_with_a_layer(layers):
    split = layers.split(RAW, "rps", cpu_us=100.0, worker_us=0.0)
    assert split.samples == 10  # the 50 idle ones left out
    assert split.layers == pytest.approx(
        {
            "aiohttp, yarl, multidict": 40.0,
            "bot: store": 30.0,
            "discord.py": 20.0,
            "asyncio event loop": 10.0,
        }
    )


def test_the_database_drivers_and_their_threads_are_a_layer_of_their_own(layers):
    raw = "\n".join(
        [
            "thread (1): Thread-1 (_connection_worker_thread);Thread.run (threading.py:982);"
            "_connection_worker_thread (aiosqlite/core.py:59) 3",
            f"{COMMAND};SqliteDatabase.all (bot/store/db.py:420);"
            "Connection.execute_fetchall (aiosqlite/core.py:242) 1",
            f"{COMMAND};PgTx.all (bot/store/postgres.py:109);Connection.fetch (asyncpg/connection.py:690) 2",
            "thread (1): Thread-1 (_connection_worker_thread);a frame of no file 4",
        ]
    )
    split = layers.split(raw, "rps", cpu_us=100.0, worker_us=0.0)
    assert split.layers == pytest.approx({"database driver (aiosqlite, asyncpg)": 60.0, layers.OTHER: 40.0})


def test_only_the_loop_thread_s_samples_split_its_own_cpu(layers):
    # py-spy --threads names each sample's thread first; the other threads' CPU is a row of its own
    raw = "\n".join(
        [
            f"thread (100): MainThread;{COMMAND};reply (bot/ui/reply.py:74) 3",
            f"thread (100): MainThread;{LOOP};BaseEventLoop.call_soon (asyncio/base_events.py:760) 1",
            "thread (101): Thread-1 (_connection_worker_thread);Thread.run (threading.py:982);"
            "_connection_worker_thread (aiosqlite/core.py:59) 6",
        ]
    )
    split = layers.split(raw, "rps", cpu_us=1000.0, worker_us=0.0, threads_us=200.0, loop_thread=100)
    assert split.samples == 4
    assert split.layers == pytest.approx({"bot: cogs, ui, core, client": 600.0, "asyncio event loop": 200.0})
    assert split.threads_us == 200.0
    assert any(
        line.startswith(layers.THREADS) and line.rstrip().endswith("200") for line in layers.table([split])
    )


def test_the_layers_add_up_to_the_measured_cpu(layers):
    split = layers.split(RAW, "rps", cpu_us=344.0, worker_us=12.0)
    assert sum(split.layers.values()) == pytest.approx(344.0)
    assert split.worker_us == 12.0


def test_our_functions_are_counted_inclusively_once_per_sample(layers):
    recursive = f"{COMMAND};Rps.check (cogs/rps.py:500);check (bot/core/rps.py:20) 5"
    split = layers.split(RAW + "\n" + recursive, "rps", cpu_us=150.0, worker_us=0.0)
    per_sample = 150.0 / 15
    assert split.ours["Rps.check (cogs/rps.py)"] == pytest.approx(12 * per_sample)  # 4 + 3 + 5, not 17
    assert split.ours["RollLogRepository.add (bot/store/log.py)"] == pytest.approx(3 * per_sample)
    assert split.layers["bot: cogs, ui, core, client"] == pytest.approx(5 * per_sample)
    assert not any("__main__" in name or "discord" in name for name in split.ours)


def test_no_samples_no_figures(layers):
    split = layers.split("", "bare /ok", cpu_us=220.0, worker_us=0.0)
    assert split.samples == 0 and split.layers == {}
