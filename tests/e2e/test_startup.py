"""Starting up: where the bot connects, how commands sync, and the token kept out of every log line."""

from __future__ import annotations

import asyncio
import logging
import re
import signal
import sys
from pathlib import Path

import discord
import pytest

from bot.client import COGS, point_at
from bot.invite import invite_url
from bot.local.fake.harness import SubprocessBot, World, subprocess_env
from bot.local.fake.server import FakeDiscord
from bot.ui.worker_process import NICENESS
from tests.e2e.conftest import running_bot

TOKEN = "MTIz.subprocess-secret-token.zyxwvutsrqponm"
BOOT = "import runpy; runpy.run_module('bot', run_name='__main__', alter_sys=True)"


def test_one_setting_points_rest_and_gateway_at_the_api_base(fake: FakeDiscord) -> None:
    point_at("http://127.0.0.1:9999/")
    assert discord.http.Route.BASE == "http://127.0.0.1:9999/api/v10"
    assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "ws://127.0.0.1:9999/gateway/"
    point_at("https://example.test")
    assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "wss://example.test/gateway/"


async def test_dev_guild_syncs_there_only_and_commands_work(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with running_bot(fake, tmp_path, dev_guild_id=world.guild.id) as bot:
        assert [guild for guild, _ in fake.command_syncs] == [world.guild.id]
        assert fake.global_commands == []
        answer = await bot.slash(world.guild, world.general, world.alice, "help")
        assert answer.embed["title"]


async def test_emptying_dev_guild_id_removes_that_servers_copy_of_the_commands(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    database = tmp_path / "bot.db"
    async with running_bot(fake, tmp_path, database=database, dev_guild_id=world.guild.id):
        assert fake.guild_commands[world.guild.id]
    async with running_bot(fake, tmp_path, database=database) as running:
        assert running.bot.synced == "synced globally"
        answer = await running.slash(world.guild, world.general, world.alice, "help")
        assert answer.embed["title"]
    assert fake.guild_commands[world.guild.id] == []  # listed once, from the global commands
    assert [guild for guild, _ in fake.command_syncs] == [world.guild.id, world.guild.id, None]
    async with running_bot(fake, tmp_path, database=database):
        pass
    assert len(fake.command_syncs) == 3  # done once: nothing more to remove


async def test_global_sync_only_when_the_tree_changed(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    database = tmp_path / "bot.db"
    async with running_bot(fake, tmp_path, database=database) as first:
        assert first.bot.synced == "synced globally"
    async with running_bot(fake, tmp_path, database=database) as second:
        assert second.bot.synced == "unchanged, not synced"
    assert len(fake.command_syncs) == 1
    async with running_bot(fake, tmp_path, database=database, cogs=COGS[:1]) as changed:  # /help removed
        assert changed.bot.synced == "synced globally"
    assert len(fake.command_syncs) == 2 and fake.command_syncs[-1][1] == []


async def test_force_sync_sends_the_commands_whatever_the_stored_hash_says(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    database = tmp_path / "bot.db"
    async with running_bot(fake, tmp_path, database=database):
        pass
    synced = list(fake.global_commands)
    assert synced
    fake.global_commands = []  # the commands went on Discord's side (another copy of the bot, a tool)
    async with running_bot(fake, tmp_path, database=database) as trusting:
        assert trusting.bot.synced == "unchanged, not synced"  # the stored hash is wrong now
    assert fake.global_commands == [] and len(fake.command_syncs) == 1
    async with running_bot(fake, tmp_path, database=database, force_sync=True) as forced:
        assert forced.bot.synced == "synced globally (forced)"
        answer = await forced.slash(world.guild, world.general, world.alice, "help")
        assert answer.embed["title"]
    assert len(fake.command_syncs) == 2 and fake.command_syncs[-1][0] is None
    assert [c["name"] for c in fake.global_commands] == [c["name"] for c in synced]
    async with running_bot(fake, tmp_path, database=database) as after:
        assert after.bot.synced == "unchanged, not synced"  # and the hash stored by the forced sync holds


async def test_force_sync_with_a_dev_guild_syncs_there_only_and_says_so(
    fake: FakeDiscord, world: World, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_bot(fake, tmp_path, dev_guild_id=world.guild.id, force_sync=True) as running:
        assert running.bot.synced == f"synced to guild {world.guild.id}"
    assert [guild for guild, _ in fake.command_syncs] == [world.guild.id]
    assert "FORCE_SYNC (--sync) is ignored: DEV_GUILD_ID is set, so commands sync there." in caplog.text


async def test_the_ready_bot_logs_its_invite_link_once(
    fake: FakeDiscord, world: World, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.client")
    async with running_bot(fake, tmp_path) as running:
        await running.bot.on_ready()  # as after a reconnect
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Invite link: ")]
    assert lines == [f"Invite link: {invite_url(fake.app_id)}"]
    assert f"client_id={fake.app_id}&" in lines[0]


async def run_subprocess(
    fake: FakeDiscord, tmp_path: Path, *args: str, **env: str
) -> asyncio.subprocess.Process:
    clean = subprocess_env(fake, tmp_path / "bot.db", seed=None, log_level="DEBUG", **env)
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        BOOT,
        *args,
        cwd=tmp_path,
        env=clean,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_python_m_bot_connects_and_never_logs_the_token(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    process = await run_subprocess(fake, tmp_path)
    try:
        await asyncio.wait_for(fake.connected.wait(), 60)
        assert fake.command_syncs, "the subprocess bot did not sync"
        process.send_signal(signal.SIGUSR1)  # every thread's stack to the log, and the bot goes on
        await asyncio.sleep(0.5)
        assert process.returncode is None
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    log = stderr.decode()
    assert "DEBUG" in log and "Shard ID 0 has connected to Gateway" in log  # it really logged at DEBUG
    # start-up's objects are out of the collector's way (a full pass over them stalled commands 40-50 ms)
    frozen = re.search(r"(\d+) start-up objects frozen", log)
    assert frozen is not None and int(frozen.group(1)) > 10_000
    assert TOKEN not in log and TOKEN not in stdout.decode()
    assert process.returncode == 0
    # SIGTERM closes the database before the loop: no thread of aiosqlite's left to call into a closed loop
    assert "Traceback" not in log
    # the stacks SIGUSR1 asked for: every thread's, and every asyncio task's (the bot's own among them)
    assert "(most recent call first)" in log and "bot/__main__.py" in log
    assert "Stack for <Task" in log and "coro=<_run() running at" in log
    assert fake.violations == []


async def test_python_m_bot_sync_forces_a_global_sync(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with running_bot(fake, tmp_path, database=tmp_path / "bot.db"):
        pass  # the hash of these commands is stored: a plain start would not sync
    fake.global_commands = []
    process = await run_subprocess(fake, tmp_path, "--sync")
    try:
        await asyncio.wait_for(fake.connected.wait(), 60)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0
    assert "commands: synced globally (forced)." in stderr.decode()
    assert len(fake.command_syncs) == 2 and fake.global_commands


async def test_a_refused_token_stops_the_bot_with_one_line_and_no_token(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    fake.fail("GET", r"^/users/@me$", status=401, code=0, message="401: Unauthorized", times=None)
    process = await run_subprocess(fake, tmp_path)
    _, stderr = await asyncio.wait_for(process.communicate(), 60)
    log = stderr.decode()
    assert process.returncode == 1
    assert "The bot stopped: Improper token has been passed." in log
    assert TOKEN not in log


async def test_the_subprocess_bot_restarts_on_the_same_database(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """The restart harness other tests build on: stop cleanly, start again, answer again (then a crash)."""
    from bot.local.fake.harness import SubprocessBot

    database = tmp_path / "bot.db"
    first = await SubprocessBot.launch(fake, database)
    try:
        help_answer = await first.slash(world.guild, world.general, world.alice, "help", {"system": "cards"})
        assert "Over 21 wraps" in help_answer.original.text()
    finally:
        await first.stop()
    assert first.process.returncode == 0 and first.error_lines() == []
    second = await SubprocessBot.launch(fake, database)
    try:
        again = await second.slash(None, None, world.stranger, "help", {"system": "dn"})
        assert "a natural 20 is a critical failure" in again.original.text()
    finally:
        await second.kill()
    assert fake.violations == []


def _niced_descendants(pid: int) -> list[int]:
    """Processes under ``pid`` (its children, theirs...) running at the odds workers' niceness."""
    parents: dict[int, int] = {}
    nice: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # exited meanwhile
                continue
            parents[int(entry.name)] = int(fields[1])
            nice[int(entry.name)] = int(fields[16])
    found, frontier = [], {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found += [child for child in frontier if nice[child] == NICENESS]
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
async def test_python_m_bot_starts_its_odds_worker_at_start_up_and_stops_it_with_itself(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    # a table's first hand or pool roll after a restart would otherwise wait for the worker to start
    sub = await SubprocessBot.launch(fake, tmp_path / "bot.db")
    try:
        for _ in range(200):  # started beside the gateway's connect, not before it
            workers = _niced_descendants(sub.process.pid)
            if workers:
                break
            await asyncio.sleep(0.05)
        assert len(workers) == 1, "no odds worker was started before the first job"
        answer = await sub.slash(
            world.guild, world.general, world.alice, "cards task", {"difficulty": 2, "level": 4}
        )
        assert answer.original.embed["title"]
        assert _niced_descendants(sub.process.pid) == workers  # the hand's odds used it
    finally:
        await sub.stop()
    assert sub.process.returncode == 0 and sub.error_lines() == []
    for _ in range(100):
        if not Path(f"/proc/{workers[0]}").exists():
            break
        await asyncio.sleep(0.05)
    assert not Path(f"/proc/{workers[0]}").exists()
