"""The odds worker's part of bench/latency.py's Hit: the last move's odds of each hand a Hit ends.

bench/latency.py's Hit deals eight voluntary hands (skill 3, difficulty 2) from each channel's 1-deck shoe,
then clicks Hit once on each. A Hit that ends its hand (a 21 and its bonus card) sends the odds of the move
before it (`bot.ui.odds.hand_decision`, the player's chances from a one-card hand) to the worker process;
the "workers" column of bench/latency.py is that. This plays the same deals and clicks in-process, with
the bot's own dealing and Hit (`bot.ui.hands.play_out`, `hit_move`), and times each of those decisions (CPU,
one core):

    python bench/last_move_odds.py [--channels 150] [--seed 1]

Prints how many Hits ended a hand, the decisions' spread, and their CPU per Hit click.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.blackjack import HandOptions, start_voluntary
from bot.core.cards import Shoe
from bot.core.odds.cards import voluntary_decision
from bot.ui.hands import hit_move as _hit
from bot.ui.hands import play_out as _play_out

HANDS_PER_CHANNEL = 8  # as bench/latency.py's Hit


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--channels", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    clicks = 0
    timings: list[tuple[float, int]] = []
    for _ in range(args.channels):
        shoe = Shoe.fresh(rng, 1)
        hands = []
        for _ in range(HANDS_PER_CHANNEL):
            dealt, shoe = _play_out(start_voluntary(3, 2, None, 0, HandOptions()), shoe, rng)
            hands.append(dealt)
        for before in hands:
            remaining, discards = shoe.remaining, shoe.discards
            after, shoe = _play_out(*_hit(before, shoe, rng), rng)
            clicks += 1
            if after.is_over:
                start = time.process_time()
                voluntary_decision(before, remaining, discards)
                timings.append((time.process_time() - start, before.cards[0].rank))
    ms = sorted(t * 1000 for t, _ in timings)
    aces = [t * 1000 for t, rank in timings if rank == 1]
    ended = f"{len(ms)} ended their hand ({len(ms) / clicks:.1%})"
    print(f"{clicks} Hit clicks on {args.channels} channels' shoes; {ended}")
    if ms:
        print(
            f"last-move odds: median {statistics.median(ms):.2f} ms, mean {statistics.fmean(ms):.2f}, "
            f"lowest {ms[0]:.2f}, highest {ms[-1]:.2f}; with an ace face down: {len(aces)} of them"
            + (f", mean {statistics.fmean(aces):.2f} ms" if aces else "")
        )
        print(f"worker CPU per Hit click: {sum(ms) / clicks * 1000:.0f} µs")
    print(f"rerun: python bench/last_move_odds.py --channels {args.channels} --seed {args.seed}")


if __name__ == "__main__":
    main()
