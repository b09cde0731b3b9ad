"""Test-only stand-in for `bot.store`, used ONLY while the real store is not merged into this branch.

It implements the part of STORE_API.md the bot foundation calls (meta, settings, channel GMs, roll log), in
memory. `install_if_missing()` puts it in place of `bot.store.Store` / `bot.store.errors` when importing the
real ones fails; once the store lands, the e2e tests run against the real one and this file can go.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar


class StoreError(Exception):
    """Anything the store refuses; ``str(err)`` is one readable sentence."""


class NotFound(StoreError):
    pass


class Conflict(StoreError):
    pass


class InvalidData(StoreError):
    pass


@dataclass(frozen=True)
class GuildSettings:
    guild_id: int
    gm_role_ids: list[int] = field(default_factory=list)
    margin_display: str = "signed"
    adder_scheme: str = "low"
    bj_suit_bonus: bool = True
    bj_characteristic_bonus: bool = True
    bj_fumble_flags: bool = True
    decks_per_shoe: int = 1
    systemx_chart: str | None = None
    gm_channel_id: int | None = None
    allow_blind: bool = True


@dataclass(frozen=True)
class RollRecord:
    guild_id: int | None
    channel_id: int
    user_id: int
    system: str
    command: str
    result: str
    visibility: str = "public"
    inputs: Any = field(default_factory=dict)
    dice: Any = field(default_factory=list)
    summary: str = ""
    id: int | None = None
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    revealed_by: int | None = None


class _Meta:
    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    async def get(self, key: str) -> str | None:
        return self.values.get(key)

    async def set(self, key: str, value: str) -> None:
        self.values[key] = value


class _Settings:
    def __init__(self) -> None:
        self.rows: dict[int, GuildSettings] = {}
        self.visibility: dict[tuple[int, int], str] = {}

    async def get(self, guild_id: int) -> GuildSettings:
        return self.rows.get(guild_id, GuildSettings(guild_id))

    async def update(self, guild_id: int, **changes: Any) -> GuildSettings:
        self.rows[guild_id] = replace(await self.get(guild_id), **changes)
        return self.rows[guild_id]

    async def channel_visibility(self, guild_id: int, channel_id: int) -> str:
        return self.visibility.get((guild_id, channel_id), "public")

    async def set_channel_visibility(self, guild_id: int, channel_id: int, mode: str) -> None:
        self.visibility[(guild_id, channel_id)] = mode


class _GM:
    def __init__(self) -> None:
        self.rows: set[tuple[int, int, int]] = set()

    async def add_channel_gm(self, guild_id: int, channel_id: int, user_id: int) -> bool:
        added = (guild_id, channel_id, user_id) not in self.rows
        self.rows.add((guild_id, channel_id, user_id))
        return added

    async def remove_channel_gm(self, guild_id: int, channel_id: int, user_id: int) -> bool:
        removed = (guild_id, channel_id, user_id) in self.rows
        self.rows.discard((guild_id, channel_id, user_id))
        return removed

    async def list_channel_gms(self, guild_id: int, channel_id: int) -> list[int]:
        return sorted(u for g, c, u in self.rows if (g, c) == (guild_id, channel_id))

    async def is_channel_gm(self, guild_id: int, channel_id: int, user_id: int) -> bool:
        return (guild_id, channel_id, user_id) in self.rows


class _Log:
    def __init__(self) -> None:
        self.rows: dict[int, RollRecord] = {}

    async def add(self, record: RollRecord) -> int:
        record_id = len(self.rows) + 1
        self.rows[record_id] = replace(record, id=record_id)
        return record_id

    async def get(self, record_id: int) -> RollRecord:
        if record_id not in self.rows:
            raise NotFound(f"There is no roll number {record_id} in the log.")
        return self.rows[record_id]

    async def mark_revealed(self, record_id: int, by_user_id: int) -> bool:
        record = await self.get(record_id)
        if record.revealed_by is not None:
            return False
        self.rows[record_id] = replace(record, revealed_by=by_user_id)
        return True

    async def last(self, guild_id: int | None, channel_id: int, n: int) -> list[RollRecord]:
        rows = [r for r in self.rows.values() if (r.guild_id, r.channel_id) == (guild_id, channel_id)]
        return rows[-n:]


class MemoryStore:
    """The subset of the store contract the foundation needs, per database path (so a restart keeps it)."""

    _by_path: ClassVar[dict[str, MemoryStore]] = {}

    def __init__(self) -> None:
        self.meta = _Meta()
        self.settings = _Settings()
        self.gm = _GM()
        self.log = _Log()
        self.closed = False

    @classmethod
    async def open(cls, path: str | Path) -> MemoryStore:
        store = cls._by_path.setdefault(str(path), cls())
        store.closed = False
        return store

    async def close(self) -> None:
        self.closed = True


def real_store_available() -> bool:
    try:
        from bot.store.errors import StoreError as _  # noqa: F401

        from bot.store import Store  # noqa: F401
    except ImportError:
        return False
    return True


def install_if_missing() -> bool:
    """Put the stand-in in place when the real store is absent; True when it did."""
    if real_store_available():
        return False
    import bot.store

    bot.store.Store = MemoryStore  # type: ignore[attr-defined]
    bot.store.RollRecord = RollRecord  # type: ignore[attr-defined]
    bot.store.GuildSettings = GuildSettings  # type: ignore[attr-defined]
    errors = types.ModuleType("bot.store.errors")
    for cls in (StoreError, NotFound, Conflict, InvalidData):
        setattr(errors, cls.__name__, cls)
    sys.modules["bot.store.errors"] = errors
    bot.store.errors = errors  # type: ignore[attr-defined]
    return True
