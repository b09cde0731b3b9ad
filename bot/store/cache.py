"""Rows this process read or wrote last, kept only while no other connection has committed since.

A Hit click reads its hand and the channel's shoe, then writes both: the next click on that hand (or
the next draw in that channel) would read back exactly what this one wrote. `RowCache` keeps those rows
so that read is a dict lookup, and stays right without assuming anything about who else writes:

- every lookup first asks SQLite ``PRAGMA data_version`` on the event loop's own connection (about
  1.5 µs). It changes whenever *another* connection committed (another process, or this Store's own
  aiosqlite thread), and then every kept row is dropped;
- a row is put with the token taken before the read or write that produced it, and only if
  data_version has not moved since: a row that may have been overtaken is never kept;
- every write of a cached table through this process's inline connection puts its result (or drops the
  row on failure): those commits do not change data_version.

Without the inline connection (an in-memory database, ``inline=False``, after close) nothing is kept.
Kept values must be immutable (frozen records, Shoes): callers share them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from bot.store.db import Database

Token = int | None  # data_version when a read or write began; None: do not cache


class RowCache:
    """At most ``size`` rows by key (a repository's own keys: ``("hand", id)``), oldest put dropped first;
    see the module docstring."""

    def __init__(self, db: Database, size: int) -> None:
        self._db = db
        self._size = size
        # ordered: dropping the oldest is O(1) (a dict's first key is found by skipping its dropped slots)
        self._rows: OrderedDict[Hashable, Any] = OrderedDict()
        self._epoch: int | None = None
        self.hits = 0
        self.misses = 0

    def token(self) -> Token:
        """Check data_version (dropping every row if another connection committed); the token to put with."""
        version = self._db.data_version()
        if version != self._epoch:
            self._rows.clear()
            self._epoch = version
        return version

    def get(self, key: Hashable) -> tuple[Token, Any]:
        """(token, the kept row or None): a miss's token is what its read puts the row with."""
        token = self.token()
        row = self._rows.get(key) if token is not None else None
        if row is None:
            self.misses += 1
        else:
            self.hits += 1
        return token, row

    def peek(self, key: Hashable) -> Any:
        """The kept row or None, without asking SQLite (to compare versions before a put)."""
        return self._rows.get(key)

    def put(self, token: Token, *rows: tuple[Hashable, Any]) -> None:
        """Keep each (key, value) if no other connection committed since ``token`` was taken (else forget
        those keys: what they held may be older than what the database holds)."""
        keep = token is not None and self.token() == token
        for key, value in rows:
            if not keep:
                self._rows.pop(key, None)
                continue
            self._rows[key] = value
            self._rows.move_to_end(key)  # put again: the newest goes last, so it is dropped last
        while len(self._rows) > self._size:
            self._rows.popitem(last=False)

    def drop(self, *keys: Hashable) -> None:
        """Forget rows (a write of them failed, or went around the cache)."""
        for key in keys:
            self._rows.pop(key, None)

    def __len__(self) -> int:
        return len(self._rows)
