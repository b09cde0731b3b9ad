"""`python -m bot check` and the same checks at start: what is missing or wrong, in plain words."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

import bot.__main__ as entry
from bot.check import database_problems, looks_like_an_id, read_settings, summary, token_problems
from bot.settings import TOKEN_HELP
from tests.postgres import require_postgres
from tests.test_settings import NAMES, run_bot

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789ABC"
GUILD = "1090000000000000000"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env of the developer's


def test_a_complete_set_of_settings_has_no_problem(tmp_path: Path) -> None:
    settings, found = read_settings(discord_token=TOKEN, database_path=tmp_path / "data" / "bot.db")
    assert settings is not None and found == []


@pytest.mark.parametrize(
    ("token", "words"),
    [
        (None, TOKEN_HELP),
        (f"Bot {TOKEN}", 'starts with "Bot "'),
        (f'"{TOKEN}"', "in quotes"),
        ("1090000000000000000", "probably the application id"),
        ("a" * 64, "public key"),
        ("Zx9_" * 8, "client secret"),
        ("not a token at all", "does not look like a bot token"),
        ("bm90LWFuLWlk.GaBcDe.abcdefghijklmnopqrstuvwxyz", "does not look like a bot token"),  # not an id
    ],
)
def test_a_token_pasted_wrong_is_named_without_repeating_it(token: str | None, words: str) -> None:
    found = token_problems(token)
    assert len(found) == 1 and words in found[0]
    if token is not None:
        assert token not in found[0] and TOKEN not in found[0]


def test_real_and_test_token_shapes_pass() -> None:
    assert token_problems(TOKEN) == []
    assert token_problems("MTEx.fake-token.for-tests-only-9f8e7d6c5b4a") == []


def test_the_database_path_must_be_a_writable_file(tmp_path: Path) -> None:
    assert database_problems(tmp_path / "new" / "deeper" / "bot.db") == []  # folders are created at start
    assert "is a folder" in database_problems(tmp_path)[0]
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert "is a file, not a folder" in database_problems(blocker / "bot.db")[0]


def owner_access(path: Path, mode: int) -> bool:
    """`os.access` as the file's owner sees it when not root (root may write everywhere)."""
    bits = Path(path).stat().st_mode
    wanted = [(os.R_OK, stat.S_IRUSR), (os.W_OK, stat.S_IWUSR), (os.X_OK, stat.S_IXUSR)]
    return all(bits & bit for flag, bit in wanted if mode & flag)


def test_an_unwritable_database_or_folder_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() == 0:
        monkeypatch.setattr("bot.check.os.access", owner_access)
    locked = tmp_path / "locked"
    locked.mkdir()
    database = locked / "bot.db"
    database.write_text("")
    database.chmod(stat.S_IRUSR)
    try:
        assert "cannot be read and written" in database_problems(database)[0]
        database.chmod(stat.S_IRUSR | stat.S_IWUSR)
        locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
        assert "journal" in database_problems(database)[0]
        assert "cannot write in" in database_problems(locked / "sub" / "other.db")[0]
    finally:
        locked.chmod(stat.S_IRWXU)
        database.chmod(stat.S_IRUSR | stat.S_IWUSR)


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("DEV_GUILD_ID", "my server", "DEV_GUILD_ID must be a server id"),
        ("DEV_GUILD_ID", "123", "DEV_GUILD_ID 123 is not a Discord server id"),
        ("DISCORD_API_BASE", "ftp://x", "DISCORD_API_BASE must be a web address"),
        ("DISCORD_API_BASE", "http://", "DISCORD_API_BASE must be a web address"),
        ("DICE_SEED", "lucky", "DICE_SEED must be a whole number"),
        ("LOG_LEVEL", "LOUD", "LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR; it is 'LOUD'."),
        ("SHARD_COUNT", "0", "SHARD_COUNT must be a whole number from 1, or empty to ask Discord"),
        ("SHARD_COUNT", "two", "SHARD_COUNT must be a whole number from 1"),
        ("SHARD_IDS", "0", "SHARD_IDS needs SHARD_COUNT"),
        ("DATABASE_URL", "postgressql://bot:pw@db/bot", "DATABASE_URL must be a PostgreSQL address"),
        ("DATABASE_URL", "postgresql://bot:p#ss/w@db/bot", "DATABASE_URL's password holds one of @ / # ?"),
        ("DATABASE_URL", "postgresql://bot:pw@db:5432x/bot", "DATABASE_URL's port must be a number"),
    ],
)
def test_each_bad_setting_is_one_sentence_naming_it(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, words: str
) -> None:
    monkeypatch.setenv(name, value)
    _, found = read_settings(discord_token=TOKEN)
    assert len(found) == 1 and words in found[0] and found[0].endswith(".")
    assert "\n" not in found[0] and "pydantic" not in found[0] and "Value error" not in found[0]


@pytest.mark.slow
def test_check_connects_to_postgresql_and_names_what_stops_it(tmp_path: Path) -> None:
    # a well-formed address can still be unusable: check says so as the bot would at start, in one line
    server = require_postgres()
    good = run_bot(tmp_path, "check", DISCORD_TOKEN=TOKEN, DATABASE_URL=server)
    assert good.returncode == 0, good.stderr
    assert (
        good.stdout.startswith("OK: ") and "is PostgreSQL at" in good.stdout and "and answers" in good.stdout
    )
    parts = urlsplit(server)
    no_port = urlunsplit(parts._replace(netloc=f"bot:s3cret@{parts.hostname}:1"))
    no_database = urlunsplit(parts._replace(path="/no_such_database_here"))
    for url, words in (
        (no_port, "Could not connect to the database postgresql://bot:***@"),
        (no_database, 'database "no_such_database_here" does not exist'),
    ):
        bad = run_bot(tmp_path, "check", DISCORD_TOKEN=TOKEN, DATABASE_URL=url)
        assert (bad.returncode, bad.stdout) == (2, ""), bad.stdout
        assert words in bad.stderr and len(bad.stderr.splitlines()) == 1, bad.stderr
        assert "s3cret" not in bad.stderr and "Traceback" not in bad.stderr


def test_several_problems_are_all_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEV_GUILD_ID", "x")
    monkeypatch.setenv("DICE_SEED", "y")
    _, found = read_settings()
    assert [line.split()[0] for line in found] == ["DEV_GUILD_ID", "DICE_SEED"]


@pytest.mark.parametrize(
    ("count", "ids", "words"),
    [
        ("4", "0, 4", "SHARD_IDS must name different shards from 0 to 3 (SHARD_COUNT is 4); it is '0,4'."),
        ("4", "1,1", "SHARD_IDS must name different shards from 0 to 3"),
        ("4", "0-1", "SHARD_IDS must be shard numbers separated by commas, such as 0,1; it is '0-1'."),
    ],
)
def test_shard_ids_must_fit_the_shard_count(
    monkeypatch: pytest.MonkeyPatch, count: str, ids: str, words: str
) -> None:
    monkeypatch.setenv("SHARD_COUNT", count)
    monkeypatch.setenv("SHARD_IDS", ids)
    _, found = read_settings(discord_token=TOKEN)
    assert len(found) == 1 and words in found[0], found


def test_shards_split_over_processes_and_only_shard_0_syncs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SHARD_COUNT", "4")
    assert read_settings(discord_token=TOKEN)[0].syncs_commands()  # type: ignore[union-attr]
    monkeypatch.setenv("SHARD_IDS", " 2,3 ")
    settings, found = read_settings(discord_token=TOKEN, database_path=tmp_path / "bot.db")
    assert found == [] and settings is not None
    assert (settings.shard_count, settings.shard_ids, settings.syncs_commands()) == (4, (2, 3), False)
    line = summary(settings)
    assert "another process (the one running shard 0) syncs the commands, shards 2,3 of 4." in line
    monkeypatch.setenv("SHARD_IDS", "0,1")
    assert read_settings(discord_token=TOKEN)[0].syncs_commands()  # type: ignore[union-attr]
    monkeypatch.delenv("SHARD_COUNT")
    monkeypatch.delenv("SHARD_IDS")
    assert summary(read_settings(discord_token=TOKEN)[0]).endswith("as many shards as Discord asks for.")  # type: ignore[arg-type]


def test_a_server_id_is_a_snowflake() -> None:
    assert looks_like_an_id(int(GUILD))
    assert not looks_like_an_id(123) and not looks_like_an_id(2**64)


@pytest.mark.slow
def test_check_says_ok_in_one_line_and_exits_zero(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={TOKEN}\nDEV_GUILD_ID={GUILD}\n")
    result = run_bot(tmp_path, "check")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("OK: ") and len(result.stdout.splitlines()) == 1
    assert f"server {GUILD}" in result.stdout and "data/bot.db" in result.stdout
    assert result.stderr == "" and TOKEN not in result.stdout
    assert not (tmp_path / "data").exists()  # a check writes nothing


@pytest.mark.slow
def test_check_and_start_name_every_problem_and_exit_non_zero(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file where the folder should be")
    env = {"DISCORD_TOKEN": f"Bot {TOKEN}", "DATABASE_PATH": "data/bot.db"}
    checked = run_bot(tmp_path, "check", **env)
    started = run_bot(tmp_path, **env)
    for result in (checked, started):
        assert result.returncode == 2 and result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 2 and "Traceback" not in result.stderr and TOKEN not in result.stderr
        assert lines[0].startswith("DISCORD_TOKEN starts with") and "is a file, not a folder" in lines[1]
    assert checked.stderr == started.stderr  # the bot runs the same checks at start


@pytest.mark.slow
def test_an_unknown_command_is_refused_with_the_usage(tmp_path: Path) -> None:
    result = run_bot(tmp_path, "frobnicate")
    assert result.returncode == 2 and "usage: python -m bot" in result.stderr and "check" in result.stderr


@pytest.mark.parametrize(
    ("argv", "sync"), [([], False), (["--sync"], True), (["run", "--sync"], True), (["--sync", "run"], True)]
)
def test_sync_is_read_before_or_after_run(argv: list[str], sync: bool) -> None:
    args = entry.build_parser().parse_args(argv)
    assert args.sync is sync and args.run is entry.run_bot
