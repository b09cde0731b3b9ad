"""The bot's settings: from the environment or `.env`, never from code; the token is a secret."""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

TOKEN_HELP = (
    "No Discord token: open the Discord Developer Portal, choose your application, then Bot -> Reset Token, "
    "and put the token in .env as DISCORD_TOKEN=... (or in the environment)."
)


class Settings(BaseSettings):
    """Everything `.env.example` documents; empty values count as unset."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", env_ignore_empty=True, extra="ignore"
    )

    discord_token: SecretStr | None = None
    database_path: Path = Path("data/bot.db")
    dev_guild_id: int | None = None
    discord_api_base: str | None = None
    dice_seed: int | None = None
    log_level: str = Field(default="INFO")

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ValueError("LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR")
        return level

    @field_validator("discord_api_base")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        base = value.strip().rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise ValueError("DISCORD_API_BASE must start with http:// or https://")
        return base

    def token(self) -> str | None:
        """The token in plain text, or None when it is missing or blank."""
        if self.discord_token is None:
            return None
        value = self.discord_token.get_secret_value().strip()
        return value or None


class RedactSecrets(logging.Filter):
    """Replaces every occurrence of the given secrets in a log record's message and traceback."""

    def __init__(self, *secrets: str) -> None:
        super().__init__()
        self._secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        redact(record, self._secrets)
        return True


def redact(record: logging.LogRecord, secrets: list[str]) -> None:
    """Rewrite ``record`` in place so that none of ``secrets`` appears in it."""
    if not secrets:
        return
    message = record.getMessage()
    cleaned = _without(message, secrets)
    if cleaned != message:
        record.msg = cleaned
        record.args = None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = _without(record.exc_text, secrets)


def _without(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return text


_installed: list[str] = []


def install_redaction(token: str) -> None:
    """Redact ``token`` from every log record created from now on, whatever handler shows it."""
    if not token or token in _installed:
        return
    _installed.append(token)
    if len(_installed) > 1:
        return  # the factory below already reads the shared list
    previous = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        redact(record, _installed)
        return record

    logging.setLogRecordFactory(factory)
