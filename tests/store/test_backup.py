"""`python -m bot backup` while the bot writes, and `python -m bot restore`: its refusals and its success."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.core.cards import Shoe, parse_cards
from bot.store import Conflict, RollRecord, Sheet, Store, latest_version
from bot.store import db as dbmod
from bot.store.backup import backup, default_backup_path, restore
from bot.store.db import Migration
from bot.store.errors import StoreError
from tests.paths import ROOT

G, C = 1, 10
PLAYERS = range(20, 26)

# backups and restores are of the SQLite file; PostgreSQL has its own tools (pg_dump)
pytestmark = pytest.mark.sqlite_only


def _cli(
    *args: str, database: Path, cwd: Path | None = None, url: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
    env |= {"PYTHONPATH": str(ROOT), "DATABASE_PATH": str(database)} | ({"DATABASE_URL": url} if url else {})
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=cwd or database.parent, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip


async def _cli_async(*args: str, database: Path) -> tuple[int, str, str]:
    """The CLI in a child process while this event loop keeps writing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
    env |= {"PYTHONPATH": str(ROOT), "DATABASE_PATH": str(database)}
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, cwd=database.parent, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(child.communicate(), 120)
    assert child.returncode is not None
    return child.returncode, out.decode(), err.decode()


def _read(path: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def _record(user: int, n: int) -> RollRecord:
    return RollRecord(
        guild_id=G, channel_id=C, user_id=user, system="decision", command="decision roll",
        inputs={"n": n}, dice=[n % 6 + 1, 3], result=str(n),
    )  # fmt: skip


class Acknowledged:
    """Every write the store acknowledged, as (sheet versions, hand versions, log ids), growing."""

    def __init__(self) -> None:
        self.sheets: dict[int, int] = {}
        self.hands: dict[int, int] = {}
        self.logs: set[int] = set()

    def copy(self) -> tuple[dict[int, int], dict[int, int], set[int]]:
        return dict(self.sheets), dict(self.hands), set(self.logs)

    def count(self) -> int:
        return sum(self.sheets.values()) + sum(self.hands.values()) + len(self.logs)


async def _burst(store: Store, acked: Acknowledged, stop: asyncio.Event) -> None:
    """Players saving sheets, rolling (a log row each) and moving hands, all at once, until ``stop``."""
    rng = random.Random(7)

    async def sheets(player: int) -> None:
        n = 0
        while not stop.is_set():
            n += 1
            sheet = await store.sheets.set_attribute(G, player, "Ann", "Strength", n % 20 + 1)
            acked.sheets[player] = sheet.version
            acked.logs.add(await store.log.add(_record(player, n)))

    async def hands(player: int) -> None:
        while not stop.is_set():
            try:
                async with store.cards.shoe_lock(C):
                    shoe, version = await store.cards.get_shoe(G, C, 2, rng)
                    if len(shoe.remaining) < 10:
                        await store.cards.reshuffle(G, C, rng)
                        continue
                    card, shoe = shoe.draw(rng)
                    hand = await store.cards.create_hand(
                        G, C, player, {"p": player}, state="open", cards=[card], shoe=shoe,
                        shoe_version=version,
                    )  # fmt: skip
                acked.hands[hand.id] = hand.version
                for hit in range(3):  # two hits, then a third that ends the hand (its cards discarded)
                    async with store.cards.shoe_lock(C):
                        record, read = await store.cards.hand_with_shoe(hand.id, G, C)
                        assert read is not None
                        card, shoe = read.shoe.draw(rng)
                        cards = [*record.cards, card.code]
                        ends = hit == 2
                        written = await store.cards.apply_logged(
                            hand.id, record.version, {"p": player}, state="done" if ends else "open",
                            cards=cards, shoe=shoe.discard(parse_cards(cards)) if ends else shoe,
                            shoe_version=read.version, finished=ends,
                            log=lambda h: _record(h.owner_id, h.version), base=record,
                        )  # fmt: skip
                    acked.hands[hand.id] = written.record.version
                    if written.log_id is not None:
                        acked.logs.add(written.log_id)
            except Conflict:
                continue

    for player in PLAYERS:
        await store.sheets.create(Sheet(guild_id=G, owner_id=player, name="Ann", system="sysx"))
    await asyncio.gather(*(sheets(p) for p in PLAYERS), *(hands(p) for p in PLAYERS[:3]))


async def test_a_backup_taken_mid_burst_is_whole_and_holds_every_write_acknowledged_before_it(
    store: Store, db_path: Path
) -> None:
    acked, stop = Acknowledged(), asyncio.Event()
    burst = asyncio.ensure_future(_burst(store, acked, stop))
    try:
        while acked.count() < 300:
            await asyncio.sleep(0.01)
        before = acked.copy()  # acknowledged before the backup began
        code, out, err = await _cli_async("backup", str(db_path.parent / "mid-burst.db"), database=db_path)
        during = acked.count() - sum(before[0].values()) - sum(before[1].values()) - len(before[2])
        await asyncio.sleep(0.2)
    finally:
        stop.set()
        await burst
    assert (code, err) == (0, ""), err
    copy = db_path.parent / "mid-burst.db"
    assert out == f"Backed up {db_path} to {copy}.\n"
    assert during > 0, "the writes went on while the backup ran"
    assert _read(copy, "PRAGMA integrity_check") == [("ok",)]
    sheets, hands, logs = before
    for player, version in sheets.items():
        [(stored,)] = _read(copy, "SELECT version FROM sheets WHERE owner_id = ?", (player,))
        assert stored >= version, (player, stored, version)
    for hand_id, version in hands.items():
        [(stored,)] = _read(copy, "SELECT version FROM hands WHERE id = ?", (hand_id,))
        assert stored >= version, (hand_id, stored, version)
    stored_logs = {row[0] for row in _read(copy, "SELECT id FROM rolls")}
    assert logs <= stored_logs
    # one consistent moment: every card of the shoe is in it, in an open hand, or discarded (BJ-1)
    [(decks, remaining, discards)] = _read(copy, "SELECT decks, remaining, discards FROM shoes")
    shoe = Shoe(
        decks=decks, remaining=parse_cards(json.loads(remaining)), discards=parse_cards(json.loads(discards))
    )
    in_play = [
        card for (cards,) in _read(copy, "SELECT cards FROM hands WHERE finished = 0")
        for card in parse_cards(json.loads(cards))
    ]  # fmt: skip
    assert shoe.is_conserved(in_play)
    async with await Store.open(copy) as reopened:  # and the bot can run on it
        assert await reopened.db.user_version() == latest_version()


async def test_backup_defaults_beside_the_database_and_never_overwrites(store: Store, db_path: Path) -> None:
    await store.meta.set("k", "v")
    done = _cli("backup", database=db_path)
    assert done.returncode == 0, done.stderr
    [written] = (db_path.parent / "backups").iterdir()
    assert written.name.startswith("store-") and written.suffix == ".db"
    assert done.stdout == f"Backed up {db_path} to {written}.\n"
    assert _read(written, "SELECT value FROM meta WHERE key = 'k'") == [("v",)]
    again = _cli("backup", str(written), database=db_path)
    assert (again.returncode, again.stdout) == (1, "")
    assert again.stderr == f"{written} already exists; choose another path.\n"
    assert default_backup_path(Path("data/bot.db")).parent == Path("data/backups")


async def test_backup_of_a_missing_database_says_so(tmp_path: Path) -> None:
    done = _cli("backup", database=tmp_path / "none.db")
    assert done.returncode == 1 and "There is no database at" in done.stderr
    assert not (tmp_path / "none.db").exists()


async def test_backup_and_restore_refuse_when_the_bot_uses_postgresql(tmp_path: Path) -> None:
    # the SQLite file at DATABASE_PATH is stale once DATABASE_URL is set: copying it would be a false backup
    async with await Store.open(tmp_path / "old.db"):
        pass
    for words in (("backup",), ("restore", str(tmp_path / "old.db"))):
        done = _cli(*words, database=tmp_path / "old.db", url="postgresql://bot:pw@127.0.0.1:5432/bot")
        assert (done.returncode, done.stdout) == (1, "")
        assert done.stderr.strip() == (
            f"The bot keeps its data in PostgreSQL (DATABASE_URL), so {words[0]} does not apply: use "
            "PostgreSQL's pg_dump and pg_restore (README, Moving to PostgreSQL)."
        )
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")) == ["old.db"]


# --------------------------------------------------------------------------------------------- restore


async def _database_with(path: Path, value: str) -> None:
    async with await Store.open(path) as store:
        await store.meta.set("k", value)
        await store.sheets.create(Sheet(guild_id=G, owner_id=20, name=value, system="dn"))


async def test_restore_refuses_while_the_bot_holds_the_database(store: Store, db_path: Path) -> None:
    await store.meta.set("k", "live")
    saved = await backup(db_path, db_path.parent / "saved.db")
    done = _cli("restore", str(saved), database=db_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert (
        done.stderr
        == f"The bot (or a backup) is using {db_path}; stop the bot first. Nothing was restored.\n"
    )
    assert await store.meta.get("k") == "live"
    assert not list(db_path.parent.glob("*.replaced-*"))


@pytest.mark.skipif(os.name != "posix", reason="needs SIGKILL")
async def test_a_killed_bot_leaves_no_lock_and_its_last_writes_are_kept(tmp_path: Path) -> None:
    database = tmp_path / "bot.db"
    await _database_with(database, "old")
    saved = await backup(database, tmp_path / "saved.db")
    child = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(database)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "written\n"
        assert _cli("restore", str(saved), database=database).returncode == 1  # it is running
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
    assert Path(f"{database}-wal").exists(), "the killed process's last write is only in the WAL"
    done = _cli("restore", str(saved), database=database)
    assert done.returncode == 0, done.stderr
    [kept] = tmp_path.glob("bot.db.replaced-*")
    assert _read(kept, "SELECT value FROM meta WHERE key = 'k'") == [("written by the killed bot",)]
    assert _read(database, "SELECT value FROM meta WHERE key = 'k'") == [("old",)]
    assert not Path(f"{database}-wal").exists() or Path(f"{database}-wal").stat().st_size == 0


_HOLD = """
import asyncio, sys, time
from bot.store import Store

async def main():
    store = await Store.open(sys.argv[1])
    await store.meta.set("k", "written by the killed bot")
    print("written", flush=True)
    time.sleep(60)

asyncio.run(main())
"""


async def test_restore_puts_the_backup_back_and_keeps_what_it_replaced(tmp_path: Path) -> None:
    database = tmp_path / "bot.db"
    await _database_with(database, "before")
    saved = await backup(database, tmp_path / "saved.db")
    async with await Store.open(database) as store:
        await store.meta.set("k", "after")
    done = _cli("restore", str(saved), database=database)
    assert done.returncode == 0, done.stderr
    [kept] = tmp_path.glob("bot.db.replaced-*")
    assert done.stdout == (
        f"Restored {database} from {saved} (schema version {latest_version()}); the database it replaced "
        f"is kept as {kept}.\n"
    )
    assert _read(kept, "SELECT value FROM meta WHERE key = 'k'") == [("after",)]
    async with await Store.open(database) as store:
        assert await store.meta.get("k") == "before"
        assert [s.name for s in await store.sheets.list(G, 20)] == ["before"]
        await store.meta.set("k", "writable")
    assert _read(saved, "SELECT value FROM meta WHERE key = 'k'") == [("before",)], "the backup is untouched"


async def test_restore_into_a_place_with_no_database_yet(tmp_path: Path) -> None:
    await _database_with(tmp_path / "elsewhere.db", "moved")
    database = tmp_path / "new" / "bot.db"
    database.parent.mkdir()
    restored = await restore(database, tmp_path / "elsewhere.db")
    assert restored.kept is None and restored.version == latest_version()
    async with await Store.open(database) as store:
        assert await store.meta.get("k") == "moved"


def _newer(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {latest_version() + 1}")
    conn.commit()
    conn.close()


def _foreign(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()


def _garbage(path: Path) -> None:
    path.write_bytes(b"this is not a database at all" * 100)


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        (_newer, "newer than this bot's"),
        (_foreign, "is not a database of this bot (it lacks the bot's tables)"),
        (_garbage, "is not a database of this bot"),
        (None, "There is no file at"),
    ],
)
async def test_restore_refuses_what_it_should_not_put_in_place(
    tmp_path: Path, spoil: Callable[[Path], None] | None, said: str
) -> None:
    database = tmp_path / "bot.db"
    await _database_with(database, "kept")
    source = tmp_path / "candidate.db"
    if spoil is _newer:
        await backup(database, source)
    if spoil is not None:
        spoil(source)
    done = _cli("restore", str(source), database=database)
    assert (done.returncode, done.stdout) == (1, "")
    assert said in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.rstrip().endswith("Nothing was restored.") or "nothing was restored" in done.stderr
    assert _read(database, "SELECT value FROM meta WHERE key = 'k'") == [("kept",)]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".restoring") or ".replaced-" in p.name]


async def test_restore_refuses_the_database_itself_and_a_bad_command(tmp_path: Path) -> None:
    database = tmp_path / "bot.db"
    await _database_with(database, "kept")
    with pytest.raises(StoreError, match="is the database itself"):
        await restore(database, database)
    done = _cli("restore", database=database)
    assert done.returncode == 2 and done.stderr.startswith("usage: python -m bot restore")


async def test_an_older_backup_is_restored_and_upgraded_when_the_bot_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = tmp_path / "bot.db"
    await _database_with(database, "v1")
    saved = await backup(database, tmp_path / "saved.db")
    shipped = dbmod.migrations()
    newer = [*shipped, Migration(len(shipped) + 1, "0099_notes.sql", "CREATE TABLE notes (body TEXT);")]
    monkeypatch.setattr(dbmod, "migrations", lambda: newer)
    async with await Store.open(database) as store:  # the bot upgraded, then the table wants the old save
        assert await store.db.user_version() == len(newer)
    restored = await restore(database, saved)
    assert restored.version == len(shipped) < len(newer)
    async with await Store.open(database) as store:
        assert await store.db.user_version() == len(newer)
        assert await store.meta.get("k") == "v1"
    assert Path(f"{database}.before-v{len(newer)}").exists()
