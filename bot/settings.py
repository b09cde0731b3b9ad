"""The bot's settings: from the environment or `.env`, never from code; the token is a secret."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

TOKEN_HELP = (
    "No Discord token: open the Discord Developer Portal, choose your application, then Bot → Reset Token, "
    "and put the token in .env as DISCORD_TOKEN=... (or in the environment)."
)

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
EXAMPLE_ID = 123456789012345678
YES, NO = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def _shown(value: object) -> str:
    """A setting's value quoted for a sentence (never used for the token)."""
    return repr(value.strip() if isinstance(value, str) else value)


class Settings(BaseSettings):
    """Everything `.env.example` documents; empty values count as unset.

    Each field's description is what docs/settings.md and the README say about it (`python -m bot docs`);
    a value that cannot be read is refused with a sentence naming the setting (`bot.check`).
    """

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", env_ignore_empty=True, extra="ignore"
    )

    discord_token: SecretStr | None = Field(
        default=None,
        description="The bot's token: Discord Developer Portal → your application → Bot → Reset Token. "
        "Required; never logged.",
    )
    database_path: Path = Field(
        default=Path("data/bot.db"),
        description="The SQLite file for sheets, hands, pools, supply dice, GM settings and the roll log; "
        "created on first start, with its folder.",
    )
    database_url: SecretStr | None = Field(
        default=None,
        description="A PostgreSQL database to use instead of the SQLite file, as postgresql://user:password"
        "@host:5432/dbname: for a bot run as several processes (shards) on one database. Empty: "
        "DATABASE_PATH. Never logged with its password.",
    )
    dev_guild_id: int | None = Field(
        default=None,
        description="A test server's id: slash commands sync to that server only, at once, at every start "
        "(for trying changes to them). Empty: commands sync to every server, when they changed.",
    )
    discord_api_base: str | None = Field(
        default=None,
        description="Where Discord's API lives; the tests point it at a fake Discord on 127.0.0.1. "
        "Leave empty to use Discord.",
    )
    dice_seed: int | None = Field(
        default=None,
        description="Seeds the dice for reproducible demos and tests. Empty: the system's secure random "
        "source.",
    )
    force_sync: bool = Field(
        default=False,
        description="1: at start, send the slash commands to Discord for every server even when the bot "
        "thinks they did not change (the same as `python -m bot --sync`). Ignored when DEV_GUILD_ID is set.",
    )
    log_level: str = Field(
        default="INFO", description="How much the bot logs: DEBUG, INFO, WARNING or ERROR."
    )
    shard_count: int | None = Field(
        default=None,
        description="How many shards (gateway connections) the bot's servers are split over. Empty: as "
        "many as Discord asks for (one per 2,500 servers). Set it, with SHARD_IDS, to run the shards in "
        "several processes.",
    )
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = Field(
        default=None,
        description="The shards this process runs, by commas (e.g. 0,1 with SHARD_COUNT=4, and 2,3 in a "
        "second process); needs SHARD_COUNT. Empty: all of them. Only the process that runs shard 0 sends "
        "the slash commands to Discord.",
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _known_level(cls, value: object) -> object:
        level = value.strip().upper() if isinstance(value, str) else value
        if level not in LOG_LEVELS:
            raise ValueError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR; it is {_shown(value)}")
        return level

    @field_validator("discord_api_base", mode="before")
    @classmethod
    def _http_url(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        base = value.strip().rstrip("/")
        scheme, _, rest = base.partition("://")
        if scheme not in ("http", "https") or not rest.split("/")[0]:
            raise ValueError(
                "DISCORD_API_BASE must be a web address starting with http:// or https://, or empty to use "
                f"Discord itself; it is {_shown(value)}"
            )
        return base

    @field_validator("force_sync", mode="before")
    @classmethod
    def _yes_or_no(cls, value: object) -> object:
        if isinstance(value, str):
            word = value.strip().lower()
            if word not in YES + NO:
                raise ValueError(f"FORCE_SYNC must be 1 or 0 (or true or false); it is {_shown(value)}")
            return word in YES
        return value

    @field_validator("dev_guild_id", mode="before")
    @classmethod
    def _server_id(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip().isdigit():
            raise ValueError(
                f"DEV_GUILD_ID must be a server id, a number such as {EXAMPLE_ID} (with Developer Mode on "
                f"in Discord, right-click the server → Copy Server ID), or empty; it is {_shown(value)}"
            )
        return value.strip() if isinstance(value, str) else value

    @field_validator("database_url", mode="before")
    @classmethod
    def _postgres_url(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip().startswith(POSTGRES_SCHEMES):
            # the value may hold a password: it is not repeated back
            raise ValueError(
                "DATABASE_URL must be a PostgreSQL address starting with postgresql:// (such as "
                "postgresql://bot:secret@127.0.0.1:5432/bot), or empty to use the SQLite file at "
                "DATABASE_PATH"
            )
        if isinstance(value, str):
            # an unencoded @ / # ? in the password cuts the address short: the driver would try another
            # host, or quote the password's start in its error
            userinfo = value.strip().partition("://")[2].rpartition("@")[0]
            if any(mark in userinfo for mark in "@/#?"):
                raise ValueError(
                    "DATABASE_URL's password holds one of @ / # ? as it is: write them as %40 %2F %23 %3F"
                )
            try:
                _ = urlsplit(value.strip()).port  # parsed only when read
            except ValueError:
                raise ValueError("DATABASE_URL's port must be a number, such as 5432") from None
        return value.strip() if isinstance(value, str) else value

    @field_validator("dice_seed", mode="before")
    @classmethod
    def _whole_number(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip().lstrip("+-").isdigit():
            raise ValueError(
                f"DICE_SEED must be a whole number, or empty for real random dice; it is {_shown(value)}"
            )
        return value.strip() if isinstance(value, str) else value

    @field_validator("shard_count", mode="before")
    @classmethod
    def _shard_count(cls, value: object) -> object:
        text = value.strip() if isinstance(value, str) else value
        if text is None or text == "":
            return None
        number = int(text) if isinstance(text, str) and text.isdigit() else text
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise ValueError(
                f"SHARD_COUNT must be a whole number from 1, or empty to ask Discord; it is {_shown(value)}"
            )
        return number

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _shard_ids(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        if not value.strip():
            return None
        parts = [part.strip() for part in value.split(",")]
        if not all(part.isdigit() for part in parts):
            raise ValueError(
                f"SHARD_IDS must be shard numbers separated by commas, such as 0,1; it is {_shown(value)}"
            )
        return tuple(int(part) for part in parts)

    @model_validator(mode="after")
    def _shards_fit(self) -> Settings:
        ids = self.shard_ids
        if ids is None:
            return self
        if self.shard_count is None:
            raise ValueError(
                "SHARD_IDS needs SHARD_COUNT: say how many shards there are in all (e.g. SHARD_COUNT=4)"
            )
        if len(set(ids)) != len(ids) or any(i >= self.shard_count for i in ids):
            raise ValueError(
                f"SHARD_IDS must name different shards from 0 to {self.shard_count - 1} "
                f"(SHARD_COUNT is {self.shard_count}); it is {','.join(map(str, ids))!r}"
            )
        return self

    def syncs_commands(self) -> bool:
        """Whether this process sends the slash commands: it runs shard 0 (or every shard)."""
        return self.shard_ids is None or 0 in self.shard_ids

    def database(self) -> str | Path:
        """Where the store lives: the PostgreSQL address when DATABASE_URL is set, else the SQLite file."""
        if self.database_url is not None:
            return self.database_url.get_secret_value()
        return self.database_path

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
