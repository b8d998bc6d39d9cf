"""Bot decision times (issue 17): every decision of seat-rotated games between the levels, timed with
``time.process_time`` on one core, p50/p95/max per level at the default budget; and the wall time of a whole
4-player game of four *normal* bots.

Usage: ``.venv/bin/python -m benchmarks.bots [--games 4] [--seed 1]`` (``make bench-bots`` runs it with the
arena's strength matches).
"""

from __future__ import annotations

import argparse
import statistics
import time

from games.engine.ai.arena import play_game


def main() -> None:
    """Print the decision-time table and the 4-normal game time."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    times: dict[str, list[float]] = {}
    lineup = ["hard", "normal", "easy", "random"]
    for g in range(args.games):
        play_game(lineup[g % 4 :] + lineup[: g % 4], args.seed + g, timings=times, clock=time.process_time)
    print("level    decisions  p50 ms   p95 ms   max ms")
    for bot in lineup:
        v = sorted(times[bot])
        p95 = v[min(len(v) - 1, int(0.95 * len(v)))]
        print(f"{bot:<8} {len(v):>9} {statistics.median(v) * 1e3:8.2f} {p95 * 1e3:8.2f} {v[-1] * 1e3:8.1f}")
    t0 = time.process_time()
    _state, history = play_game(["normal"] * 4, args.seed)
    spent = time.process_time() - t0
    print(f"a 4-player game of four normal bots: {spent:.2f} s CPU, {len(history)} actions")


if __name__ == "__main__":
    main()
