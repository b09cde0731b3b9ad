"""Guild settings (one row per guild, defaults when absent) and channel visibility defaults."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from bot.store._util import dumps, now_text, validated
from bot.store.db import Database, Tx
from bot.store.errors import InvalidData
from bot.store.models import VISIBILITIES, GuildSettings, Visibility


def settings_from(guild_id: int, data: str | None) -> GuildSettings:
    """A guild's settings from its row's ``data`` (None: it has no row, the defaults)."""
    values: dict[str, Any] = json.loads(data) if data is not None else {}
    return validated(lambda: GuildSettings.model_validate({**values, "guild_id": guild_id}), "Setting")


class SettingsRepository:
    """Per-guild choices and per-channel default visibility."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, guild_id: int) -> GuildSettings:
        """The guild's settings; the defaults when it never changed any."""
        row = await self._db.one("SELECT data FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return settings_from(guild_id, row["data"] if row else None)

    async def update(self, guild_id: int, /, **changes: Any) -> GuildSettings:
        """Change some settings at once; all are validated first and nothing changes on a refusal."""
        _, after = await self.edit(guild_id, lambda current: changes)
        return after

    async def edit(
        self, guild_id: int, change: Callable[[GuildSettings], dict[str, Any] | None]
    ) -> tuple[GuildSettings, GuildSettings]:
        """Change settings computed from the current ones, read in the same transaction: (before, after).

        ``change`` gets the settings as stored and returns the settings to change (None or {}: none), so
        two edits of one list at once (two GM roles added) both count. It must be quick and touch nothing
        else: it runs inside the unit of work.
        """
        return await self._db.run(self._edit_step(guild_id, change))

    async def save(
        self, guild_id: int, changes: dict[str, Any], *, channel_id: int, visibility: str | None
    ) -> tuple[GuildSettings, Visibility]:
        """`/setup settings`: guild settings and the channel's default visibility in one transaction (both
        or neither); the settings and the channel's visibility after it."""
        if visibility is not None:
            _check_visibility(visibility)
        edit = self._edit_step(guild_id, lambda current: changes)

        async def work(tx: Tx) -> tuple[GuildSettings, Visibility | None]:
            _, settings = await edit(tx)
            if visibility is None:
                return settings, None
            await self._write_channel(tx, guild_id, channel_id, visibility)
            mode: Visibility = visibility  # type: ignore[assignment]  # checked above
            return settings, mode

        settings, mode = await self._db.run(work)
        return settings, mode if mode is not None else await self.channel_visibility(guild_id, channel_id)

    @staticmethod
    def _edit_step(
        guild_id: int, change: Callable[[GuildSettings], dict[str, Any] | None]
    ) -> Callable[[Tx], Awaitable[tuple[GuildSettings, GuildSettings]]]:
        async def work(tx: Tx) -> tuple[GuildSettings, GuildSettings]:
            row = await tx.one("SELECT data FROM guild_settings WHERE guild_id = ?", (guild_id,))
            data: dict[str, Any] = json.loads(row["data"]) if row else {}
            stored = {**data, "guild_id": guild_id}
            before = validated(lambda: GuildSettings.model_validate(stored), "Setting")
            changes = change(before) or {}
            unknown = sorted(
                name for name in changes if name not in GuildSettings.model_fields or name == "guild_id"
            )
            if unknown:
                raise InvalidData(f"There is no guild setting called {unknown[0]!r}.")
            if not changes:
                return before, before
            merged = {**data, **changes, "guild_id": guild_id}
            settings = validated(lambda: GuildSettings.model_validate(merged), "Setting")
            kept = settings.model_dump(mode="json", exclude={"guild_id"})
            await tx.execute(
                "INSERT INTO guild_settings (guild_id, data, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at",
                (guild_id, dumps(kept), now_text()),
            )
            return before, settings

        return work

    async def reset(self, guild_id: int) -> GuildSettings:
        """Forget every change: the guild gets the defaults again."""
        await self._db.execute("DELETE FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return GuildSettings(guild_id=guild_id)

    async def channel_visibility(self, guild_id: int, channel_id: int) -> Visibility:
        """The channel's default visibility for rolls ("public" unless a GM set another)."""
        row = await self._db.one(
            "SELECT visibility FROM channel_settings WHERE channel_id = ? AND guild_id = ?",
            (channel_id, guild_id),
        )
        mode: Visibility = "public" if row is None else row["visibility"]
        return mode

    async def channels_with_visibility(self, guild_id: int, mode: str) -> list[int]:
        """The guild's channels whose default visibility is ``mode``, by id."""
        _check_visibility(mode)
        rows = await self._db.all(
            "SELECT channel_id FROM channel_settings WHERE guild_id = ? AND visibility = ? "
            "ORDER BY channel_id",
            (guild_id, mode),
        )
        return [int(row["channel_id"]) for row in rows]

    async def set_channel_visibility(self, guild_id: int, channel_id: int, mode: str) -> Visibility:
        """Set the channel's default visibility: public, private, gm or blind."""
        _check_visibility(mode)
        await self._db.run(lambda tx: self._write_channel(tx, guild_id, channel_id, mode))
        result: Visibility = mode  # type: ignore[assignment]  # checked above
        return result

    @staticmethod
    async def _write_channel(tx: Tx, guild_id: int, channel_id: int, mode: str) -> None:
        await tx.execute(
            "INSERT INTO channel_settings (channel_id, guild_id, visibility) VALUES (?, ?, ?) "
            "ON CONFLICT (channel_id) DO UPDATE SET guild_id = excluded.guild_id, "
            "visibility = excluded.visibility",
            (channel_id, guild_id, mode),
        )


def _check_visibility(mode: str) -> None:
    if mode not in VISIBILITIES:
        raise InvalidData(f"A channel's visibility is one of {', '.join(VISIBILITIES)}, not {mode!r}.")
