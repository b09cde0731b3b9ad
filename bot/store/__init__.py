"""The store: aiosqlite + pydantic; all SQL lives in this package."""

from bot.store.cards import ShoeRead
from bot.store.db import latest_version
from bot.store.errors import Conflict, DatabaseTooNew, InvalidData, MigrationFailed, NotFound, StoreError
from bot.store.models import (
    MARGINS,
    MODIFIER_KINDS,
    SHEET_RANGES,
    SUPPLY_DICE,
    SYSTEMS,
    VISIBILITIES,
    AppliedModifier,
    GuildSettings,
    HandRecord,
    PendingModifier,
    Pool,
    PoolCheck,
    RollRecord,
    SecondTry,
    Sheet,
    SheetDocument,
    Skill,
    SupplyDie,
    Wounds,
)
from bot.store.store import Store

__all__ = [
    "MARGINS",
    "MODIFIER_KINDS",
    "SHEET_RANGES",
    "SUPPLY_DICE",
    "SYSTEMS",
    "VISIBILITIES",
    "AppliedModifier",
    "Conflict",
    "DatabaseTooNew",
    "GuildSettings",
    "HandRecord",
    "InvalidData",
    "MigrationFailed",
    "NotFound",
    "PendingModifier",
    "Pool",
    "PoolCheck",
    "RollRecord",
    "SecondTry",
    "Sheet",
    "SheetDocument",
    "ShoeRead",
    "Skill",
    "Store",
    "StoreError",
    "SupplyDie",
    "Wounds",
    "latest_version",
]
