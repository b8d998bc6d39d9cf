"""Benchmark: the Castle Defence solver on Round 5 positions (6 cards, 2 face down, 12 Workers), issue 33.

Run: ``taskset -c 1 .venv/bin/python -m benchmarks.anarchy_solve --positions 40 --seed 1``. Prints each
position's CPU seconds (``time.process_time``) and the p50, p95 and max; docs/performance.md keeps the
figures. Positions are random but seeded: Fortifications, Tactics, Beer, 0–3 Muster Tokens, 2–5 Knights.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from anarchy.engine import (
    AttackType,
    Position,
    Slot,
    Tactic,
    cards_of,
    practice_values,
    solve,
    write_deployment,
)


def round5(rng: random.Random, muster: int | None = None) -> Position:
    """A random Round 5 position with 12 Workers and the 2nd and 4th Attack Cards face down; ``muster``
    fixes the Muster Tokens (0–3 at random when ``None``)."""
    values, determination = practice_values(5)
    attacks = [card for t in AttackType if t is not AttackType.FINAL_ESCALADE for card in cards_of(t)]
    rng.shuffle(attacks)
    final = rng.choice(cards_of(AttackType.FINAL_ESCALADE))
    cards = [final, *attacks[:5]]
    row = tuple(Slot(card.type, None if i in (2, 4) else card.id) for i, card in enumerate(cards))
    base = rng.randint(0, 3)
    knights = rng.randint(2, 5)
    craftsmen = rng.randint(0, 12 - knights)
    return Position(
        round=5,
        values=values,
        determination=determination,
        row=row,
        food=5,
        walls=tuple(base + rng.randint(0, 1) for _ in range(4)),
        towers=tuple(rng.randint(0, 2) for _ in range(4)),
        gate=rng.randint(0, 3),
        moat=rng.randint(0, 4),
        tactics={t: rng.randint(0, 2) for t in Tactic},
        craftsmen=craftsmen,
        soldiers=12 - knights - craftsmen,
        knights=knights,
        beer=rng.randint(0, 3),
        muster=rng.randint(0, 3) if muster is None else muster,
    )


def main() -> None:
    """Solve the positions one after another and print the CPU time of each, then p50, p95 and max."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--muster", type=int, default=None, help="fix the Muster Tokens (default: 0-3)")
    parser.add_argument("--only", type=int, default=None, help="solve only position N of the sequence")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    times = []
    for n in range(args.positions):
        position = round5(rng, args.muster)
        if args.only is not None and n != args.only:
            continue
        start = time.process_time()
        solution = solve(position)
        spent = time.process_time() - start
        times.append(spent)
        print(
            f"{n:3d} muster {position.muster} knights {position.knights}: {spent:7.3f} s "
            f"{write_deployment(solution.deployment)} ({solution.deployments} deployments)",
            flush=True,
        )
    times.sort()
    print(
        f"positions {len(times)}  p50 {statistics.median(times):.3f} s  p95 {p95(times):.3f} s  "
        f"max {times[-1]:.3f} s"
    )


def p95(times: list[float]) -> float:
    """The 95th percentile of ``times`` (sorted, seconds) as this benchmark counts it: the value at rank
    ``round(0.95 * n)`` (the 19th of 20, so one position in 20 may be slower)."""
    return times[min(len(times) - 1, round(0.95 * len(times)) - 1)]


if __name__ == "__main__":
    main()
