"""A child process for the migration race test: a shard starting on a shared SQLite file.

Run as ``python -m tests.store._migrate_child DB_PATH NAME``. It prints ``ready`` once imported and waits
for a line on stdin, so the test can let every child open the store at the same moment; then it opens the
store (migrating the file if it needs it), writes ``NAME`` = ``up`` in meta and closes.
"""

from __future__ import annotations

import asyncio
import sys

from bot.store import Store


async def main(path: str, name: str) -> None:
    store = await Store.open(path)
    try:
        await store.meta.set(name, "up")
    finally:
        await store.close()


if __name__ == "__main__":
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.readline()
    asyncio.run(main(sys.argv[1], sys.argv[2]))
