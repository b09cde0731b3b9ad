"""Settings from the environment or `.env`, no token (the local table), and the token never reaching a log."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.settings import TOKEN_HELP, RedactSecrets, Settings, install_redaction
from tests.local.launch import running_table
from tests.paths import ROOT

SECRET = "MTIz.very-secret-token.abcdefghijklmnop"
NAMES = (
    "DISCORD_TOKEN",
    "DATABASE_PATH",
    "DEV_GUILD_ID",
    "DISCORD_API_BASE",
    "DICE_SEED",
    "LOG_LEVEL",
    "FORCE_SYNC",
    "SHARD_COUNT",
    "SHARD_IDS",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)


def test_defaults_without_anything() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.token() is None
    assert settings.database_path == Path("data/bot.db")
    assert settings.dev_guild_id is None and settings.discord_api_base is None and settings.dice_seed is None
    assert settings.log_level == "INFO" and settings.force_sync is False


def test_values_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", f"  {SECRET} ")
    monkeypatch.setenv("DEV_GUILD_ID", "123")
    monkeypatch.setenv("DISCORD_API_BASE", "http://127.0.0.1:8080/")
    monkeypatch.setenv("DICE_SEED", "42")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.token() == SECRET
    assert settings.dev_guild_id == 123 and settings.dice_seed == 42
    assert settings.discord_api_base == "http://127.0.0.1:8080"
    assert settings.log_level == "DEBUG"
    assert SECRET not in repr(settings) and SECRET not in str(settings.model_dump())


def test_values_come_from_a_dotenv_file_and_blank_means_unset(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(f"DISCORD_TOKEN={SECRET}\nDATABASE_PATH=/tmp/x.db\nDEV_GUILD_ID=\nDICE_SEED=\n")
    settings = Settings(_env_file=env)  # type: ignore[call-arg]
    assert settings.token() == SECRET
    assert settings.database_path == Path("/tmp/x.db")
    assert settings.dev_guild_id is None and settings.dice_seed is None


def test_blank_token_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "   ")
    assert Settings(_env_file=None).token() is None  # type: ignore[call-arg]


@pytest.mark.parametrize(("value", "expected"), [("1", True), ("true", True), ("0", False), ("off", False)])
def test_force_sync_reads_one_or_zero(monkeypatch: pytest.MonkeyPatch, value: str, expected: bool) -> None:
    monkeypatch.setenv("FORCE_SYNC", value)
    assert Settings(_env_file=None).force_sync is expected  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("name", "value"),
    [("LOG_LEVEL", "LOUD"), ("DISCORD_API_BASE", "ftp://x"), ("DICE_SEED", "x"), ("FORCE_SYNC", "maybe")],
)
def test_bad_values_are_refused(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings(_env_file=None)  # type: ignore[call-arg]


def test_redaction_filter_hides_the_token_in_messages_arguments_and_tracebacks() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactSecrets(SECRET))
    logger = logging.getLogger("tests.redaction")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("token is %s", SECRET)
        logger.warning(f"inline {SECRET}")
        try:
            raise RuntimeError(f"failed with {SECRET}")
        except RuntimeError:
            logger.exception("boom")
    finally:
        logger.removeHandler(handler)
    output = stream.getvalue()
    assert SECRET not in output
    assert output.count("[redacted]") == 3


def test_installed_redaction_covers_every_logger_and_handler() -> None:
    install_redaction(SECRET)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("discord.http.some_child")
    logger.addHandler(handler)
    try:
        logger.error("Authorization: Bot %s", SECRET)
    finally:
        logger.removeHandler(handler)
    assert SECRET not in stream.getvalue() and "[redacted]" in stream.getvalue()


def run_bot(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m bot ARGS` in ``tmp_path``, with ``env`` in place of the settings of this environment."""
    clean = {k: v for k, v in os.environ.items() if k not in NAMES}
    clean["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_python_m_bot_without_a_token_runs_the_local_table(tmp_path: Path) -> None:
    # tmp_path has no .env; the table prints its address on stdout
    with running_table(tmp_path) as table, urllib.request.urlopen(table.url) as page:
        assert b"Local table" in page.read()
    assert table.log().splitlines()[0] == TOKEN_HELP  # how to get a token, then the table anyway
    assert "Invite link" not in table.log()  # it would invite the stand-in's made-up application
    assert "Developer Portal" in TOKEN_HELP and "Reset Token" in TOKEN_HELP and "DISCORD_TOKEN" in TOKEN_HELP
    assert (tmp_path / "data" / "local.db").exists()


@pytest.mark.slow
def test_python_m_bot_refuses_a_bad_setting_in_one_line(tmp_path: Path) -> None:
    result = run_bot(tmp_path, DISCORD_TOKEN=SECRET, LOG_LEVEL="LOUD")
    assert result.returncode == 2
    assert result.stderr.strip() == "LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR; it is 'LOUD'."
    assert SECRET not in result.stderr
