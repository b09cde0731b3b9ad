"""Migrations with PRAGMA user_version, pragmas, and restart (close, reopen, same data)."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import sqlite3
import sys
from pathlib import Path

import pytest

from bot.local.fake.harness import TOKEN
from bot.local.fake.server import FakeDiscord
from bot.store import DatabaseTooNew, Holder, RollRecord, Sheet, Store, latest_version
from bot.store import db as dbmod
from bot.store import postgres as pgmod
from bot.store.db import Migration, Tx, migrations, split_statements
from bot.store.errors import MigrationFailed
from bot.store.store import default_path
from tests.e2e.conftest import fake
from tests.paths import ROOT

_ = fake  # the fake Discord fixture, for the bot started here


def _schema(path: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
        ).fetchall()
    conn.close()
    return [(t, n, s or "") for t, n, s in rows]


def _apply_first(path: Path, version: int) -> None:
    """Build a database as an older bot would have left it: migrations 1..version only."""
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in migrations()[:version]:
        for statement in split_statements(migration.sql):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {migration.version}")
    conn.close()


def test_migrations_are_numbered_without_gaps() -> None:
    found = migrations()
    assert [m.version for m in found] == list(range(1, len(found) + 1))
    assert latest_version() == len(found) >= 1


async def test_empty_file_migrates_to_latest(db_path: Path) -> None:
    db_path.touch()  # an existing empty file, as a first start with a pre-created path leaves it
    store = await Store.open(db_path)
    try:
        assert await store.db.user_version() == latest_version()
    finally:
        await store.close()


@pytest.mark.parametrize("start", range(latest_version()))
async def test_upgrade_from_every_earlier_version(tmp_path: Path, start: int) -> None:
    fresh = tmp_path / "fresh.sqlite3"
    old = tmp_path / "old.sqlite3"
    store_fresh = await Store.open(fresh)
    await store_fresh.close()
    _apply_first(old, start)
    store = await Store.open(old)
    try:
        assert await store.db.user_version() == latest_version()
        await store.meta.set("after-upgrade", "ok")
        assert await store.meta.get("after-upgrade") == "ok"
    finally:
        await store.close()
    assert _schema(old) == _schema(fresh)


async def test_newer_database_is_refused_and_left_unchanged(db_path: Path) -> None:
    store = await Store.open(db_path)
    await store.meta.set("k", "v")
    await store.close()
    newer = latest_version() + 1
    conn = sqlite3.connect(db_path)
    conn.execute(f"PRAGMA user_version = {newer}")
    conn.commit()
    conn.close()
    before = _schema(db_path)
    with pytest.raises(DatabaseTooNew, match=r"newer than this bot's"):
        await Store.open(db_path)
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == newer
    assert conn.execute("SELECT value FROM meta WHERE key = 'k'").fetchone()[0] == "v"
    conn.close()
    assert _schema(db_path) == before


@pytest.mark.sqlite_only
async def test_pragmas_wal_foreign_keys_busy_timeout(store: Store) -> None:
    assert (await store.db.one("PRAGMA journal_mode"))[0] == "wal"  # type: ignore[index]

    async def pragmas(tx: Tx) -> list[int]:
        return [(await tx.one(f"PRAGMA {name}"))[0] for name in ("foreign_keys", "busy_timeout")]  # type: ignore[index]

    foreign_keys, busy_timeout = await store.db.run(pragmas, write=False)
    assert foreign_keys == 1 and busy_timeout >= 1000  # the writer waits for another process's write lock


def test_every_migration_splits_into_whole_statements() -> None:
    # the splitter's rule (a statement ends with ";" at the end of a line) must hold for every file
    for migration in migrations():
        statements = split_statements(migration.sql)
        assert statements, migration.name
        for statement in statements:
            assert sqlite3.complete_statement(statement), (migration.name, statement)
            assert statement.count(";") == 1 or "BEGIN" in statement.upper(), (migration.name, statement)


def test_a_trigger_s_body_and_a_function_s_body_stay_whole() -> None:
    script = (
        "-- a comment; not a statement\n"
        "CREATE VIEW v AS SELECT 1 AS a;\n"
        "\n"
        "CREATE TRIGGER t INSTEAD OF INSERT ON v\n"
        "BEGIN\n"
        "    SELECT RAISE(ABORT, 'no') WHERE NEW.a = 0;\n"
        "    UPDATE x SET a = NEW.a;\n"
        "END;\n"
        "CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        "BEGIN\n"
        "    UPDATE x SET a = 1;\n"
        "    RETURN NEW;\n"
        "END;\n"
        "$$;\n"
        "CREATE TRIGGER t2 INSTEAD OF INSERT ON v FOR EACH ROW EXECUTE FUNCTION f();\n"
    )
    statements = split_statements(script)
    assert [s.split()[1] for s in statements] == ["VIEW", "TRIGGER", "FUNCTION", "TRIGGER"]
    assert statements[1].endswith("END;") and statements[1].count(";") == 3
    assert statements[2].endswith("$$;") and "RETURN NEW;" in statements[2]


async def test_reopening_twice_does_not_reapply(db_path: Path) -> None:
    for _ in range(3):
        store = await Store.open(db_path)
        assert await store.db.user_version() == latest_version()
        await store.close()


async def test_restart_keeps_every_kind_of_data(db_path: Path) -> None:
    store = await Store.open(db_path)
    await store.meta.set("tree", "abc")
    await store.settings.update(1, adder_scheme="high", decks_per_shoe=2)
    await store.settings.set_channel_visibility(1, 10, "gm")
    await store.gm.add_channel_gm(1, 10, 7)
    await store.modifiers.set(1, 10, "dn", 5, "df", -3, 2, 7)
    sheet = await store.sheets.create(
        Sheet(guild_id=1, owner_id=5, name="Ann", system="rps", attributes={"Str": 8})
    )
    await store.supply.set(1, 5, "Ann", "Torch", 8)
    pool = await store.pools.start(1, 10, 7, "Climb", goal=10, base=12, time_per_check=10)
    shoe, version = await store.cards.get_shoe(1, 10, 1, random.Random(2))
    card, shoe = shoe.draw(random.Random(2))
    hand = await store.cards.create_hand(
        1, 10, 5, {"k": [1]}, state="dealt", cards=[card], shoe=shoe, shoe_version=version
    )
    roll = await store.log.add(
        RollRecord(guild_id=None, channel_id=3, user_id=5, system="dn", command="r", result="ok")
    )
    await store.close()

    again = await Store.open(db_path)
    try:
        assert await again.meta.get("tree") == "abc"
        settings = await again.settings.get(1)
        assert (settings.adder_scheme, settings.decks_per_shoe) == ("high", 2)
        assert await again.settings.channel_visibility(1, 10) == "gm"
        assert await again.gm.is_channel_gm(1, 10, 7)
        assert [(m.kind, m.value, m.uses_left) for m in await again.modifiers.list(1, 10)] == [("df", -3, 2)]
        assert await again.sheets.get(1, 5, "ann") == sheet
        assert (await again.supply.get(1, 5, "ann", "torch")).die == 8
        assert await again.pools.get_by_id(pool.id) == pool
        assert await again.cards.get_hand(hand.id) == hand
        assert (await again.cards.get_shoe(1, 10)) == (shoe, version + 1)
        assert (await again.log.get(roll)).result == "ok"
    finally:
        await again.close()


def test_database_path_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DATABASE_PATH", raising=False)
    assert default_path() == Path("data") / "bot.db"
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "x.sqlite3"))
    assert default_path() == tmp_path / "x.sqlite3"


# -- upgrades that cannot lose a campaign ------------------------------------------------------------------
def _with_migration(monkeypatch: pytest.MonkeyPatch, sql: str) -> int:
    """Ship one more migration (a test-only one) after the real ones; its version."""
    shipped = migrations()
    extra = Migration(len(shipped) + 1, f"{len(shipped) + 1:04d}_test.sql", sql)
    monkeypatch.setattr(dbmod, "migrations", lambda: [*shipped, extra])
    return extra.version


async def _campaign(path: Path) -> None:
    async with await Store.open(path) as store:
        await store.meta.set("campaign", "kept")
        await store.sheets.create(Sheet(guild_id=1, owner_id=5, name="Ann", system="dn"))


async def test_an_existing_database_is_copied_before_it_is_migrated(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await _campaign(db_path)
    old = latest_version()
    before = _schema(db_path)
    new = _with_migration(
        monkeypatch, "CREATE TABLE notes (body TEXT);\nCREATE INDEX notes_body ON notes (body);"
    )
    with caplog.at_level(logging.INFO, logger="bot.store.db"):
        async with await Store.open(db_path) as store:
            assert await store.db.user_version() == new
            assert await store.meta.get("campaign") == "kept"
    copy = Path(f"{db_path}.before-v{new}")
    assert [r.getMessage() for r in caplog.records if r.name == "bot.store.db"] == [
        f"Kept a copy of {db_path} as {copy} before upgrading its schema from version {old} to {new}."
    ]
    assert _schema(copy) == before
    conn = sqlite3.connect(copy)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == old
    assert conn.execute("SELECT value FROM meta WHERE key = 'campaign'").fetchone()[0] == "kept"
    conn.close()
    caplog.clear()
    async with await Store.open(db_path):  # already upgraded: no copy, no line
        pass
    assert [r for r in caplog.records if r.name == "bot.store.db"] == []


async def test_a_new_database_is_not_copied(db_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="bot.store.db"):
        async with await Store.open(db_path):
            pass
    assert list(db_path.parent.glob("*.before-v*")) == []
    assert [r for r in caplog.records if r.name == "bot.store.db"] == []


def _dump(path: Path) -> tuple[int, list[tuple[str, str, str]], list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        return version, _schema(path), conn.execute("SELECT * FROM meta ORDER BY key").fetchall()
    finally:
        conn.close()


BROKEN = "\n".join(
    [
        "CREATE TABLE notes (body TEXT);",
        "ALTER TABLE sheets ADD COLUMN extra TEXT;",
        "INSERT INTO nowhere VALUES (1);",
    ]
)


async def test_a_failing_migration_leaves_the_database_as_it_was(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _campaign(db_path)
    before = _dump(db_path)
    new = _with_migration(monkeypatch, BROKEN)
    with pytest.raises(MigrationFailed) as failed:
        await Store.open(db_path)
    copy = Path(f"{db_path}.before-v{new}")
    assert str(failed.value) == (
        f"Upgrading the database {db_path} failed at {new:04d}_test.sql (no such table: nowhere); it was "
        f"left as it was (a copy is at {copy})."
    )
    assert _dump(db_path) == before, "the tables made and altered before the failure were rolled back"
    assert _dump(copy) == before
    monkeypatch.undo()  # the fixed release: the same file opens and works
    async with await Store.open(db_path) as store:
        assert await store.meta.get("campaign") == "kept"


async def test_the_bot_stops_with_one_sentence_when_a_migration_fails(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    database = tmp_path / "bot.db"
    await _campaign(database)
    before = _dump(database)
    boot = (
        "import runpy, bot.store.db as d\n"
        "shipped = d.migrations()\n"
        f"broken = d.Migration(len(shipped) + 1, 'broken.sql', {BROKEN!r})\n"
        "d.migrations = lambda: [*shipped, broken]\n"
        "runpy.run_module('bot', run_name='__main__', alter_sys=True)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_", "DEV_GUILD"))}
    env |= {
        "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE": fake.api_base,
        "DATABASE_PATH": str(database), "LOG_LEVEL": "INFO",
    }  # fmt: skip
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", boot, cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(child.communicate(), 60)
    log = err.decode()
    assert child.returncode == 1, log
    assert "Traceback" not in log
    errors = [line for line in log.splitlines() if " ERROR " in line or "CRITICAL" in line]
    assert len(errors) == 1, log
    assert errors[0].endswith(
        f"The bot stopped: Upgrading the database {database} failed at broken.sql (no such table: nowhere); "
        f"it was left as it was (a copy is at {database}.before-v{latest_version() + 1})."
    ), errors[0]
    assert f"Kept a copy of {database} as {database}.before-v{latest_version() + 1}" in log
    assert _dump(database) == before


# -- the previous release's schema, with a campaign in it, on both backends --------------------------------
async def test_the_previous_release_s_database_is_upgraded_with_its_data(
    database: Path | str, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = pgmod if backend == "postgres" else dbmod
    shipped = module.migrations()
    monkeypatch.setattr(module, "migrations", lambda: shipped[:-1])  # the release before this one
    async with await Store.open(database) as old:
        assert await old.db.user_version() == len(shipped) - 1
        await old.meta.set("campaign", "kept")
        await old.settings.update(1, decks_per_shoe=2)
        sheet = await old.sheets.create(Sheet(guild_id=1, owner_id=5, name="Ann", system="rps"))
        await old.sheets.create(Sheet(guild_id=1, owner_id=5, name="Bo", system="decision"))
        await old.supply.set(1, 5, "Bo", "Torch", 8)
        # written as the previous release wrote it (today's code writes a column it did not have)
        stamp = "2025-01-01T00:00:00+00:00"
        [row] = await old.db.all(
            "INSERT INTO pools (guild_id, channel_id, owner_id, name, name_key, goal, base, time_per_check, "
            "time_unit, no_loss, state, created_at, updated_at) "
            "VALUES (1, 10, 7, 'Climb', 'climb', 10, 12, 10, 'minutes', 0, 'running', ?, ?) RETURNING id",
            (stamp, stamp),
        )
        modifier = await old.modifiers.set(1, 10, "dn", 5, "df", -3, 2, 7)
        shoe, version = await old.cards.get_shoe(1, 10, 1, random.Random(2))
        card, shoe = shoe.draw(random.Random(2))
        hand = await old.cards.create_hand(
            1, 10, 5, {"k": [1]}, state="dealt", cards=[card], shoe=shoe, shoe_version=version
        )
        roll = await old.log.add(
            RollRecord(guild_id=1, channel_id=10, user_id=5, system="dn", command="r", result="ok")
        )
    monkeypatch.undo()
    async with await Store.open(database) as store:
        assert await store.db.user_version() == latest_version()
        assert await store.meta.get("campaign") == "kept"
        assert (await store.settings.get(1)).decks_per_shoe == 2
        assert await store.sheets.get(1, 5, "ann") == sheet
        assert (await store.supply.get(1, 5, "bo", "torch")).die == 8
        pool = await store.pools.get_by_id(row["id"])
        assert (pool.name, pool.base, pool.checks_made, pool.base_parts) == ("Climb", 12, 0, ())
        assert await store.cards.get_hand(hand.id) == hand
        assert (await store.log.get(roll)).result == "ok"
        # the new table works on the old rows: a roll holds, then takes, the modifier set before the upgrade
        assert [a.modifier_id for a in await store.modifiers.reserve("r", 1, 10, "dn", 5)] == [modifier.id]
        await store.log.add(
            RollRecord(guild_id=1, channel_id=10, user_id=5, system="dn", command="r", result="ok"),
            modifiers=store.modifiers.ticket("r"),
        )
        assert [m.uses_left for m in await store.modifiers.list(1, 10)] == [1]
        # 0004's one-statement draw works on a hand dealt before the upgrade (BJ-1)
        shoe, version = await store.cards.get_shoe(1, 10)
        drawn, shoe = shoe.draw(random.Random(3))
        hit = await store.cards.apply_logged(
            hand.id, hand.version, {"k": [2]}, state="playing", cards=[card, drawn], shoe=shoe,
            shoe_version=version, base=hand,
        )  # fmt: skip
        assert hit.record == await store.cards.get_hand(hand.id) and hit.record.version == hand.version + 1
        assert await store.cards.get_shoe(1, 10) == (shoe, version + 1)


async def test_0007_makes_a_nickname_s_supplies_the_member_s_own(
    database: Path | str, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:  # DD-7: supplies set for a member with no decision sheet were kept under their name of the moment
    module = pgmod if backend == "postgres" else dbmod
    shipped = module.migrations()
    assert shipped[6].name == "0007_own_supplies.sql"
    monkeypatch.setattr(module, "migrations", lambda: shipped[:6])
    async with await Store.open(database) as old:
        await old.sheets.create(Sheet(guild_id=1, owner_id=5, name="Mira", system="decision"))
        await old.sheets.create(Sheet(guild_id=1, owner_id=5, name="Ann", system="rps"))
        rows = [  # (owner, character, item, die, set at): as 0001..0006 kept them
            (5, "Mira", "Torch", 8, "2025-01-01T00:00:00+00:00"),  # the decision sheet's: stays Mira's
            (5, "Ann", "Torch", 6, "2025-01-02T00:00:00+00:00"),  # a nickname (Ann is an RPS sheet)
            (5, "Annie", "Torch", 4, "2025-01-03T00:00:00+00:00"),  # a later nickname: the member's own
            (5, "Zed", "Rope", 10, "2025-01-01T00:00:00+00:00"),  # two nicknames set at one moment:
            (5, "Al", "Rope", 12, "2025-01-01T00:00:00+00:00"),  # one of them (the last by name) is own
            (6, "Bob", "Torch", 12, "2025-01-01T00:00:00+00:00"),  # another member: his own
        ]
        for owner, character, item, die, stamp in reversed(rows):  # the order rows are visited is no help
            await old.db.execute(
                "INSERT INTO supply_dice (guild_id, owner_id, character, character_key, item, item_key, die, "
                "updated_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
                (owner, character, character.casefold(), item, item.casefold(), die, stamp),
            )
    monkeypatch.undo()
    async with await Store.open(database) as store:
        found = {(s.owner_id, s.character, s.item, s.die, s.own) for s in await store.supply.list(1, 5)}
        found |= {(s.owner_id, s.character, s.item, s.die, s.own) for s in await store.supply.list(1, 6)}
        assert found == {
            (5, "Mira", "Torch", 8, False), (5, "Ann", "Torch", 6, False), (5, "Annie", "Torch", 4, True),
            (5, "Zed", "Rope", 10, True), (5, "Al", "Rope", 12, False), (6, "Bob", "Torch", 12, True),
        }  # fmt: skip
        own = Holder("Alice", own=True)  # the member's name now, whatever it was
        assert (await store.supply.get(1, 5, own, "torch")).character == "Alice"
        assert (await store.supply.get(1, 5, own, "torch")).die == 4
        assert (await store.supply.get(1, 5, "mira", "torch")).die == 8
        assert (await store.supply.set(1, 6, Holder("Robert", own=True), "Torch", 10)).character == "Robert"
        assert [s.die for s in await store.supply.list(1, 6)] == [10]  # the same row, not a second one


async def test_0008_finds_names_stored_with_invisible_characters(
    database: Path | str, backend: str, monkeypatch: pytest.MonkeyPatch
) -> (
    None
):  # a name stored before direction controls (then other invisible characters) left names kept its key
    module = pgmod if backend == "postgres" else dbmod
    shipped = module.migrations()
    assert shipped[7].name == "0008_clean_name_keys.sql"
    monkeypatch.setattr(module, "migrations", lambda: shipped[:7])
    rlo, zwsp = "\u202e", "\u200b"
    async with await Store.open(database) as old:
        for name in ("Ash", "Bo"):  # stored clean, then given the names an older bot kept as typed
            await old.sheets.create(Sheet(guild_id=1, owner_id=5, name=name, system="decision"))
        for old_name, new_name in (("Ash", f"Ash{rlo}\u2066"), ("Bo", f" Bo\t\n\u00adWen{zwsp}")):
            await old.db.execute(
                "UPDATE sheets SET name = ?, name_key = ? WHERE name = ?",
                (new_name, new_name.strip().casefold(), old_name),
            )
        await old.sheets.create(Sheet(guild_id=1, owner_id=5, name="Cy", system="rps"))
        await old.db.execute(  # a second Cy, alike but for a zero-width space: it keeps its key
            "INSERT INTO sheets (guild_id, owner_id, name, name_key, system, active, data, version, "
            "created_at, updated_at) SELECT guild_id, owner_id, ?, ?, system, 0, data, 1, created_at, "
            "updated_at FROM sheets WHERE name = 'Cy'",
            (f"Cy{zwsp}", f"cy{zwsp}"),
        )
        for character, item, die in ((f"Ash{rlo}", f"Torch{zwsp}", 8), ("Bo", "Rope\x07", 6)):
            await old.db.execute(
                "INSERT INTO supply_dice (guild_id, owner_id, character, character_key, item, item_key, die, "
                "updated_at) VALUES (1, 5, ?, ?, ?, ?, ?, '2025-01-01T00:00:00+00:00')",
                (character, character.casefold(), item, item.casefold(), die),
            )
    monkeypatch.undo()
    async with await Store.open(database) as store:
        assert (await store.sheets.get(1, 5, "ash")).name == "Ash"
        assert (await store.sheets.get(1, 5, "Bo Wen")).name == "Bo Wen"
        assert (await store.sheets.get(1, 5, "cy")).active  # the clean one
        assert sorted(s.name for s in await store.sheets.list(1, 5)) == ["Ash", "Bo Wen", "Cy", "Cy"]
        assert (await store.sheets.set_notes(1, 5, "Ash", "found")).notes == "found"  # writes find it too
        assert (await store.supply.get(1, 5, "ash", "torch")).die == 8
        assert (await store.supply.get(1, 5, "bo", "rope")).item == "Rope"
        rows = await store.db.all("SELECT name_key FROM sheets ORDER BY name_key", ())
        assert [r["name_key"] for r in rows] == ["ash", "bo wen", "cy", f"cy{zwsp}"]
