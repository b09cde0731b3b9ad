"""The Store: one SQLite file behind repository objects (the only thing cogs hold)."""

from __future__ import annotations

import os
from pathlib import Path

from bot.store.cards import CardRepository
from bot.store.db import Database
from bot.store.gm import ChannelGMRepository
from bot.store.log import RollLogRepository
from bot.store.meta import MetaRepository
from bot.store.modifiers import ModifierRepository
from bot.store.pools import PoolRepository
from bot.store.settings import SettingsRepository
from bot.store.sheets import SheetRepository
from bot.store.supply import SupplyRepository

DEFAULT_PATH = Path("data") / "bot.db"


def default_path() -> Path:
    """``DATABASE_PATH`` from the environment, else ``data/bot.db`` (the bot passes its settings' path)."""
    return Path(os.environ.get("DATABASE_PATH") or DEFAULT_PATH)


class Store:
    """Everything the table must not lose; open once (``await Store.open(path)``), close at shutdown.

    Assumption: one bot process (one Store) owns the database file while it runs. The Store keeps in
    memory what every command reads (guild settings, channel visibility, channel GMs, which channels
    have no pending GM modifier) and the GM modifier uses reserved by rolls not yet logged; it sees its
    own writes but not another process's. Atomicity itself never relies on this: every write is still
    guarded in SQL (version checks, ``uses_left > 0``), so a second writer can make a cached read stale,
    never a write wrong.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self.meta = MetaRepository(db)
        self.settings = SettingsRepository(db)
        self.gm = ChannelGMRepository(db)
        self.modifiers = ModifierRepository(db)
        self.sheets = SheetRepository(db)
        self.cards = CardRepository(db, self.modifiers)
        self.log = RollLogRepository(db, self.modifiers)
        self.supply = SupplyRepository(db, self.log)
        self.pools = PoolRepository(db, self.log, self.modifiers)

    @classmethod
    async def open(cls, path: str | Path | None = None, *, inline: bool = True) -> Store:
        """Open the SQLite file (creating it), apply migrations; WAL, foreign keys and busy_timeout on.

        ``inline=False``: every unit of work goes through aiosqlite's thread (see `Database`).
        """
        return cls(await Database.open(path if path is not None else default_path(), inline=inline))

    async def close(self) -> None:
        """Close the connection."""
        await self.db.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
