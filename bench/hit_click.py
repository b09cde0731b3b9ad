"""CPU of a Hit click's own code (the cog, the core, the store), without Discord: this tree against another.

bench/ab.py measures the whole bot, where discord.py, aiohttp and the odds workers are most of a click and the
host's load moves every figure by up to 10%. This times only what the cards code does per click: read the
hand and the shoe, draw, write both, build the hand's embed (and its view when the buttons change; the
clicked message carries the dealt hand's, as Discord's does), and when the hand ends, log it. The
store is a real one on a temporary file; Discord is a stub that serializes what it is given (``to_dict``),
and the worker answers the odds at once. Clicks go 16 at a time on hands of different channels, as in
bench/latency.py's Hit. Each tree runs in its own process, the two alternating; run from the repository root:

    python bench/hit_click.py --base /tmp/base [--clicks 400] [--rounds 9] [--pairs 3]

Prints each run's median and lowest µs per click over its rounds, then new/base of the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONCURRENCY = 16
HANDS_PER_CHANNEL = 8


async def _measure(clicks: int, rounds: int) -> list[float]:
    """µs of CPU per click, one figure per round (this process imports the cards code of its PYTHONPATH)."""
    import cogs.cards as cc
    from bot.core.blackjack import HandOptions, start_voluntary
    from bot.core.cards import Shoe
    from bot.store import Store
    from bot.ui.odds import hand_decision

    rng = random.Random(1)
    first = cc._play_out(start_voluntary(3, 2, None, 0, HandOptions()), Shoe.fresh(rng), rng)[0]
    decision = hand_decision(first, Shoe.fresh(rng).remaining[:40], ())

    class Response:
        async def edit_message(self, **kwargs: Any) -> None:
            for key in ("view", "embed"):
                if kwargs.get(key) is not None:
                    getattr(kwargs[key], "to_components" if key == "view" else "to_dict")()

    class Workers:
        async def run(self, function: Any, *args: Any) -> Any:
            return decision

    async def edit_original_response(**kwargs: Any) -> None:
        return None

    if hasattr(cc, "respond"):  # trees since the callbacks of our own: the cog answers through respond()

        async def respond(interaction: Any, kind: Any, **kwargs: Any) -> None:
            await interaction.response.edit_message(**kwargs)

        cc.respond = respond  # type: ignore[attr-defined]

    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "bench.db")
        client = types.SimpleNamespace(store=store, rng=rng, workers=Workers())
        meta = {"visibility": "public", "skill_label": None, "asked_difficulty": 2, "modifiers": []}
        figures = []
        try:
            for index in range(rounds):
                hands = []
                for i in range(clicks):
                    channel = 1000 + index * clicks + i // HANDS_PER_CHANNEL
                    hand = start_voluntary(3, 2, None, 0, HandOptions())
                    shoe, version = await store.cards.get_shoe(1, channel, 1, rng)
                    dealt, after = cc._play_out(hand, shoe, rng)
                    record = await store.cards.create_hand(
                        1, channel, 5, cc._stored(dealt, meta), state=dealt.state.value, cards=dealt.played,
                        shoe=after, shoe_version=version,
                    )  # fmt: skip
                    hands.append((record.id, channel, _shown(cc, record, dealt)))
                # clicked as bench/latency.py clicks them: the hands in flight at once are each of its
                # own channel (the first hand of every channel, then the second, ...)
                order = sorted(range(clicks), key=lambda i: (i % HANDS_PER_CHANNEL, hands[i][1]))
                hands = [hands[i] for i in order]

                async def click(hand_id: int, channel: int, message: Any) -> None:
                    interaction = types.SimpleNamespace(
                        guild_id=1, channel_id=channel, client=client, user=types.SimpleNamespace(id=5),
                        response=Response(), edit_original_response=edit_original_response, message=message,
                    )  # fmt: skip
                    await cc._play(interaction, hand_id, cc._hit)  # type: ignore[arg-type]

                start = time.process_time()
                for k in range(0, clicks, CONCURRENCY):
                    await asyncio.gather(*(click(*hand) for hand in hands[k : k + CONCURRENCY]))
                figures.append((time.process_time() - start) / clicks * 1e6)
        finally:
            await store.close()
    return figures


def _shown(cc: Any, record: Any, dealt: Any) -> Any:
    """The dealt hand's message as the click brings it: its components, which the cog compares with the
    buttons the hand needs and, when they match, does not rebuild (trees since that comparison)."""
    view = cc._view(record, dealt)
    if view is None or not hasattr(cc, "_shows_view"):
        return None
    rows = [types.SimpleNamespace(to_dict=lambda row=row: row) for row in view.to_components()]
    return types.SimpleNamespace(components=rows)


def _run(tree: Path, clicks: int, rounds: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    argv = [sys.executable, __file__, "--child", "--clicks", str(clicks), "--rounds", str(rounds)]
    out = subprocess.run(argv, env=env, cwd=tree, check=True, capture_output=True, text=True).stdout
    return [float(x) for x in out.split()]


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--base", type=Path, help="another checkout (e.g. git worktree add /tmp/base HEAD~1)")
    parser.add_argument("--clicks", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(" ".join(f"{x:.1f}" for x in asyncio.run(_measure(args.clicks, args.rounds))))
        return
    trees = [("base", args.base)] if args.base else []
    trees.append(("new", ROOT))
    medians: dict[str, list[float]] = {label: [] for label, _ in trees}
    for pair in range(args.pairs):
        for label, tree in trees if pair % 2 == 0 else list(reversed(trees)):
            figures = _run(tree.resolve(), args.clicks, args.rounds)
            medians[label].append(statistics.median(figures))
            print(f"{label:5} median {statistics.median(figures):6.1f} µs/click, lowest {min(figures):6.1f}")
    if args.base:
        ratio = statistics.median(medians["new"]) / statistics.median(medians["base"])
        print(f"new/base (median of the runs' medians): {ratio:.2f}x")


if __name__ == "__main__":
    main()
