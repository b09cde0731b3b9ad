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
from bot.store.second_tries import SecondTryRepository
from bot.store.settings import SettingsRepository
from bot.store.sheets import SheetRepository
from bot.store.supply import SupplyRepository

DEFAULT_PATH = Path("data") / "bot.db"


def default_path() -> Path:
    """``DATABASE_PATH`` from the environment, else ``data/bot.db`` (the bot passes its settings' path)."""
    return Path(os.environ.get("DATABASE_PATH") or DEFAULT_PATH)


class Store:
    """Everything the table must not lose; open once (``await Store.open(path)``), close at shutdown.

    Nothing read from the database is kept in memory between calls: another process may write the same
    database (a second bot, the backup tool, later PostgreSQL with several processes), and each read
    sees what was last committed. Every write is guarded in SQL (version checks, ``uses_left > 0``).
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
        self.second_tries = SecondTryRepository(db, self.log, self.modifiers)

    @classmethod
    async def open(cls, path: str | Path | None = None) -> Store:
        """Open the SQLite file (creating it), apply migrations; WAL, foreign keys and busy_timeout on."""
        return cls(await Database.open(path if path is not None else default_path()))

    async def close(self) -> None:
        """Close the connections (after every queued write has run)."""
        await self.db.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
