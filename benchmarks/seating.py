"""Benchmark: seating 1,000 players into 4-player Swiss tables (issue 34: "under 1 s").

Run: ``taskset -c 1 .venv/bin/python -m benchmarks.seating``. Simulates a Swiss event with random but seeded
results (table ranks score 3/2/1/0) and times, in CPU seconds (``time.process_time``, best and median of
``--repeat`` runs), the first round and the 5th round, whose ``met`` counts the pairs of the 4 earlier
rounds. Also a round with 1,001 players (bot seats) and byes. docs/performance.md keeps the figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable

from tournaments.seating import Bye, Seating, pairs_met, swiss_round


def timed(call: Callable[[], Seating], repeat: int) -> tuple[float, float, Seating]:
    """CPU seconds of ``call``: (best, median, the last seating)."""
    times: list[float] = []
    seating = call()
    for _ in range(repeat):
        start = time.process_time()
        seating = call()
        times.append(time.process_time() - start)
    return min(times), statistics.median(times), seating


def event(
    n: int, size: int, rounds: int, seed: int, policy: Bye
) -> tuple[list[str], Counter[frozenset[str]], dict[str, int]]:
    """The standings, ``met`` and byes after ``rounds`` Swiss rounds with random results."""
    rng = random.Random(seed)
    players = [f"p{i:04d}" for i in range(n)]
    points = dict.fromkeys(players, 0)
    met: Counter[frozenset[str]] = Counter()
    byes: dict[str, int] = {}
    for _ in range(rounds):
        standings = sorted(players, key=lambda p: (-points[p], p))
        seating = swiss_round(standings, size, met, byes, bye_policy=policy)
        for table in seating.tables:
            finish = list(table)
            rng.shuffle(finish)
            for place, p in enumerate(finish):
                points[p] += max(0, 3 - place)
        for p in seating.byes:
            byes[p] = byes.get(p, 0) + 1
            points[p] += 2
        met.update(pairs_met(seating.tables))
    return sorted(players, key=lambda p: (-points[p], p)), met, byes


def main() -> None:
    """Print the CPU seconds of each case."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cases = [
        (f"round 1, {args.players} players", args.players, 0, Bye.BOT),
        (f"round 5 (met from 4 rounds), {args.players} players", args.players, 4, Bye.BOT),
        (f"round 5, {args.players + 1} players, bot seats", args.players + 1, 4, Bye.BOT),
        (f"round 5, {args.players + 1} players, byes", args.players + 1, 4, Bye.BYE),
    ]
    print(f"tables of {args.size}, CPU seconds, best and median of {args.repeat}")
    for label, n, earlier, policy in cases:
        standings, met, byes = event(n, args.size, earlier, args.seed, policy)

        def call(
            standings: list[str] = standings,
            met: Counter[frozenset[str]] = met,
            byes: dict[str, int] = byes,
            policy: Bye = policy,
        ) -> Seating:
            return swiss_round(standings, args.size, met, byes, bye_policy=policy)

        best, median, seating = timed(call, args.repeat)
        print(
            f"{label}: best {best * 1000:.2f} ms, median {median * 1000:.2f} ms; "
            f"{len(seating.tables)} tables, {len(met)} pairs met before, repeats {seating.repeats} "
            f"(worst {seating.worst}), "
            f"bot seats {sum(seating.bot_seats)}, byes {len(seating.byes)}"
        )


if __name__ == "__main__":
    main()
