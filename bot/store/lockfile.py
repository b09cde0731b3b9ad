"""The lock file beside the database: every open Store holds it shared, a restore needs it alone.

An advisory ``flock`` on ``<database>.lock`` (never replaced, unlike the database). The kernel drops it
when the process ends, however it ends, so a crashed bot leaves no stale lock behind. Programs other than
the bot (the sqlite3 shell) do not take it. POSIX only: elsewhere nothing is locked.
"""

from __future__ import annotations

import os
from pathlib import Path

from bot.store.errors import StoreError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


def lock_path(database: Path) -> Path:
    """The lock file of ``database``."""
    return database.with_name(database.name + ".lock")


class DatabaseLock:
    """A held lock on a database's lock file; `release` (or the process ending) lets it go."""

    def __init__(self, fd: int | None) -> None:
        self._fd = fd

    @classmethod
    def _take(cls, database: Path, exclusive: bool) -> DatabaseLock | None:
        if fcntl is None:
            return cls(None)
        fd = os.open(lock_path(database), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        return cls(fd)

    @classmethod
    def shared(cls, database: Path) -> DatabaseLock:
        """The lock an open Store holds; StoreError while a restore holds it alone."""
        held = cls._take(database, exclusive=False)
        if held is None:
            raise StoreError(
                f"The database {database} is being restored; start the bot again once the restore is done."
            )
        return held

    @classmethod
    def exclusive(cls, database: Path) -> DatabaseLock | None:
        """The lock a restore needs, or None while anything holds it (a running bot, a backup)."""
        return cls._take(database, exclusive=True)

    def release(self) -> None:
        """Let the lock go (closing the file drops the flock)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
