"""`python -m bot copy-data`: every row from an SQLite file to PostgreSQL (and back), a non-empty target
refused unless --force, ids kept and never given out twice."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.store import RollRecord, SecondTry, Sheet, Store
from bot.store.copy import NOT_COPIED, ROW_KEYS, TABLES, copy_data, counts
from bot.store.db import Tx
from tests.paths import ROOT
from tests.postgres import new_schema, require_postgres

pytestmark = pytest.mark.slow
SHEETS, HANDS = 10_000, 1_000
G, C = 1, 10


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    url, drop = await new_schema(require_postgres())
    try:
        yield url
    finally:
        await drop()


async def _campaign(path: Path) -> None:
    """A table's database: a little of everything through the repositories, then 10,000 sheets and 1,000
    open hands in bulk (rows shaped as the repositories wrote the first ones)."""
    rng = random.Random(3)
    async with await Store.open(path) as store:
        await store.meta.set("tree", "abc")
        await store.settings.update(G, decks_per_shoe=2)
        await store.settings.set_channel_visibility(G, C, "gm")
        await store.gm.add_channel_gm(G, C, 7)
        await store.modifiers.set(G, C, "dn", 5, "df", -3, 2, 7)
        everyone = await store.modifiers.set(G, C, "decision", None, "advantage", 1, 3, 7)
        await store.modifiers.consume(G, C, "decision", 5)
        await store.supply.set(G, 5, "Ann", "Torch", 8)
        pool = await store.pools.start(G, C, 7, "Climb", goal=10, base=12, time_per_check=10)
        await store.pools.stop(pool.id)
        sheet = await store.sheets.create(
            Sheet(guild_id=G, owner_id=5, name="Ann", system="rps", attributes={"Str": 8}, notes="é ✓")
        )
        shoe, version = await store.cards.get_shoe(G, C, 1, rng)
        card, shoe = shoe.draw(rng)
        await store.cards.create_hand(
            G, C, 5, {"k": [1]}, state="dealt", cards=[card], shoe=shoe, shoe_version=version
        )
        for i in range(30):
            await store.log.add(
                RollRecord(guild_id=G, channel_id=C, user_id=5, system="dn", command="r", result=f"ok {i}")
            )
        # RPS-9: a GM's grant of a second try, to a logged check (taken once: copied, it stays taken)
        first = (await store.log.last(G, C, 30))[-1]
        assert first.id is not None
        await store.second_tries.grant(
            SecondTry(log_id=first.id, guild_id=G, channel_id=C, roller_id=5, modifier=2, granted_by=7)
        )
        [last] = await store.log.last(G, C, 1)
        await store.db.execute("DELETE FROM rolls WHERE id = ?", (last.id,))  # the newest id is gone
        assert everyone.id is not None and sheet.id is not None

        async def bulk(tx: Tx) -> None:
            [row] = await tx.all("SELECT * FROM sheets")
            template = dict(row)
            await tx.executemany(
                "INSERT INTO sheets (guild_id, owner_id, name, name_key, system, active, data, version, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, 1, ?, ?)",
                [
                    (
                        G + i % 7,
                        1000 + i,
                        f"Sheet {i}",
                        f"sheet {i}",
                        template["system"],
                        template["data"],
                        template["created_at"],
                        template["updated_at"],
                    )
                    for i in range(SHEETS - 1)
                ],
            )
            [hand] = await tx.all("SELECT * FROM hands")
            await tx.executemany(
                "INSERT INTO hands (guild_id, channel_id, owner_id, state, finished, cards, data, version, "
                "message_id, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?, 1, ?, ?, ?)",
                [
                    (
                        G,
                        C + 1 + i % 50,
                        2000 + i,
                        hand["state"],
                        hand["cards"],
                        hand["data"],
                        9_000_000 + i,
                        hand["created_at"],
                        hand["updated_at"],
                    )
                    for i in range(HANDS - 1)
                ],
            )

        await store.db.run(bulk)


def _key(table: str, row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row[name] for name in ROW_KEYS.get(table, ("id",)))


async def _rows(target: str | Path) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
    async with await Store.open(target) as store:
        found: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {}
        for table in TABLES:
            rows = [dict(row) for row in await store.db.all(f"SELECT * FROM {table}")]
            found[table] = {_key(table, row): row for row in rows}
        return found


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
    env |= {"PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "bot", "copy-data", *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


async def test_a_campaign_moves_to_postgresql_and_back_whole(tmp_path: Path, pg_url: str) -> None:
    source = tmp_path / "bot.db"
    await _campaign(source)
    copied = _cli("--from", str(source), "--to", pg_url, cwd=tmp_path)
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout.startswith(
        "Copied 1 bot fact, 1 server's settings, 1 channel's settings, 1 channel GM, 2 GM modifiers, "
        f"1 modifier use, {SHEETS:,} sheets, 1 shoe, {HANDS:,} hands"
    )
    assert "search_path" in copied.stdout and copied.stderr == ""

    before, after = await _rows(source), await _rows(pg_url)
    for table in TABLES:
        assert len(after[table]) == len(before[table]), table  # the counts
        sample = random.Random(table).sample(sorted(before[table]), min(50, len(before[table])))
        for key in sample:  # and a sample of rows, column by column
            assert after[table][key] == before[table][key], (table, key)
    async with await Store.open(source) as lite, await Store.open(pg_url) as pg:
        for sheet_id in (1, 2, SHEETS // 2, SHEETS):  # read back through the repositories alike
            assert await pg.sheets.get_by_id(sheet_id) == await lite.sheets.get_by_id(sheet_id)
        assert await pg.cards.open_hands(G, C) == await lite.cards.open_hands(G, C)
        assert await pg.log.last(G, C, 100) == await lite.log.last(G, C, 100)
        # ids go on past the source's: the deleted newest roll's id is not given out again
        new_roll = await pg.log.add(RollRecord(guild_id=G, channel_id=C, user_id=5, system="dn", command="r",
                                               result="after the move"))  # fmt: skip
        assert new_roll == 31
        new = await pg.sheets.create(Sheet(guild_id=G, owner_id=5, name="Bob", system="dn"))
        assert new.id == SHEETS + 1

    # and back: PostgreSQL to a new SQLite file
    back = tmp_path / "back.db"
    returned = _cli("--from", pg_url, "--to", str(back), cwd=tmp_path)
    assert returned.returncode == 0, returned.stderr
    async with await Store.open(back) as store:
        assert (await counts(store.db))["sheets"] == SHEETS + 1
        assert await store.log.add(RollRecord(guild_id=G, channel_id=C, user_id=5, system="dn", command="r",
                                              result="x")) == 32  # fmt: skip


async def test_a_target_that_holds_data_is_refused_unless_forced(tmp_path: Path, pg_url: str) -> None:
    source = tmp_path / "bot.db"
    async with await Store.open(source) as store:
        await store.sheets.create(Sheet(guild_id=G, owner_id=5, name="Ann", system="dn"))
    async with await Store.open(pg_url) as store:
        await store.sheets.create(Sheet(guild_id=G, owner_id=6, name="Other", system="dn"))
        await store.meta.set("k", "v")
    refused = _cli("--from", str(source), "--to", pg_url, cwd=tmp_path)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.strip().startswith("The target postgresql://")
    assert "already holds data (1 bot fact, 1 sheet); copy into an empty database, or pass --force" in (
        refused.stderr
    )
    async with await Store.open(pg_url) as store:
        assert [s.name for s in await store.sheets.list(G, 6)] == ["Other"]  # untouched
    forced = _cli("--from", str(source), "--to", pg_url, "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    async with await Store.open(pg_url) as store:
        assert await store.sheets.list(G, 6) == [] and await store.meta.get("k") is None
        assert [s.name for s in await store.sheets.list(G, 5)] == ["Ann"]


async def test_every_table_of_the_schema_is_copied(tmp_path: Path) -> None:
    # a table a later migration adds is copied, or said not to be (a running roll's holds): not forgotten
    async with await Store.open(tmp_path / "bot.db") as store:
        rows = await store.db.all("SELECT name FROM sqlite_master WHERE type = 'table'")
    tables = {str(row["name"]) for row in rows} - {"sqlite_sequence", "schema_version"}
    assert tables == set(TABLES) | set(NOT_COPIED)


async def test_a_mistyped_address_is_refused_and_its_password_never_shown(tmp_path: Path) -> None:
    source = tmp_path / "bot.db"
    async with await Store.open(source):
        pass
    for typo in ("postgressql", "PostgreSQL", "postgresql+asyncpg"):
        address = f"{typo}://bot:s3cret-pw@127.0.0.1:5432/bot"
        refused = _cli("--from", str(source), "--to", address, cwd=tmp_path)
        assert (refused.returncode, refused.stdout) == (1, ""), refused.stdout
        assert refused.stderr.strip() == (
            f"{typo}://bot:***@127.0.0.1:5432/bot is neither a PostgreSQL address "
            "(postgresql://user:password@host:5432/name) nor an SQLite file; nothing was copied."
        )
    assert not [p for p in tmp_path.iterdir() if not p.name.startswith("bot.db")]  # no file named after it


async def test_what_cannot_be_copied_is_one_sentence(tmp_path: Path) -> None:
    missing = _cli("--from", str(tmp_path / "none.db"), "--to", str(tmp_path / "x.db"), cwd=tmp_path)
    assert (missing.returncode, missing.stderr.strip()) == (
        1, f"There is no database at {tmp_path / 'none.db'} to copy from; nothing was copied.",
    )  # fmt: skip
    same = tmp_path / "bot.db"
    async with await Store.open(same):
        pass
    with pytest.raises(Exception, match="same database"):
        await copy_data(same, same)


async def test_text_postgresql_cannot_store_is_named_and_nothing_is_copied(
    tmp_path: Path, pg_url: str
) -> None:
    # an SQLite file written before names dropped control characters can hold a NUL, which PostgreSQL text
    # cannot: the copy says where and how to remove it, and writes nothing
    source = tmp_path / "old bot.db"
    async with await Store.open(source) as store:
        sheet = await store.sheets.create(Sheet(guild_id=G, owner_id=5, name="Ann", system="dn"))
        bob = await store.sheets.create(Sheet(guild_id=G, owner_id=5, name="Bob", system="dn"))
        await store.sheets.create(Sheet(guild_id=G, owner_id=6, name="Cy", system="dn"))
        await store.db.execute("UPDATE sheets SET name = name || ? WHERE owner_id = 5", ("\x00",))
        await store.meta.set("motto", "a\x00b")
    refused = _cli("--from", str(source), "--to", pg_url, cwd=tmp_path)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.strip() == (
        f"Text in {source} holds a NUL character (\\0), which PostgreSQL cannot store, in "
        f"meta.value (key 'motto'); sheets.name (id {sheet.id}, id {bob.id}); nothing was copied. Add "
        "--drop-nul to copy it without them (the source keeps them)."
    ), refused.stderr
    async with await Store.open(pg_url) as store:
        assert not any((await counts(store.db)).values())
    copied = _cli("--from", str(source), "--to", pg_url, "--drop-nul", cwd=tmp_path)
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout.splitlines()[1] == (
        "Dropped the NUL characters PostgreSQL cannot store from meta.value (key 'motto'); "
        f"sheets.name (id {sheet.id}, id {bob.id})."
    )
    async with await Store.open(pg_url) as store:
        assert sorted(s.name for s in await store.sheets.list(G, 5)) == ["Ann", "Bob"]
        assert await store.meta.get("motto") == "ab"
    async with await Store.open(source) as store:
        assert await store.meta.get("motto") == "a\x00b"  # the source keeps them


async def test_names_that_dropping_nul_would_make_equal_are_named_and_nothing_is_copied(
    tmp_path: Path, pg_url: str
) -> None:
    # "Ann" and "Ann\0" were two sheets of one player; without the NUL they would be one name twice
    source = tmp_path / "old bot.db"
    async with await Store.open(source) as store:
        await store.sheets.create(Sheet(guild_id=G, owner_id=5, name="Ann", system="dn"))
        other = await store.sheets.create(Sheet(guild_id=G, owner_id=5, name="Anna", system="dn"))
        await store.db.execute(
            "UPDATE sheets SET name = ?, name_key = ? WHERE id = ?", ("Ann\x00", "ann\x00", other.id)
        )
    refused = _cli("--from", str(source), "--to", pg_url, "--drop-nul", cwd=tmp_path)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.strip() == (
        "Without their NUL characters two rows of sheets would be the same ((guild_id, owner_id, name_key)="
        f"({G}, 5, ann)); nothing was copied. Rename one of them in the source, then copy again."
    ), refused.stderr
    async with await Store.open(pg_url) as store:
        assert not any((await counts(store.db)).values())
