"""What classifying each step for undo costs (issue 16): every stored record now also runs
``engine.undo_barrier``. Random playouts (the engine's random bot) are replayed twice, interleaved, with
``apply`` alone and with ``apply`` + ``undo_barrier``; the ratio of the two CPU times is the cost added to
every action the site stores (bot turns included).

Usage: ``.venv/bin/python -m benchmarks.undo_barrier [--games 40] [--players 4] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from games import engine
from games.engine.bot import random_step
from games.engine.rng import Rng


def _playout(players: int, seed: int) -> tuple[engine.GameState, list[tuple[int, engine.Action]]]:
    """A whole random game: its start and its ``(seat, action)`` list."""
    options = engine.current_options()
    start = engine.new_game({"players": players, "seed": seed, "options": options})
    state, rng, moves = start, Rng(seed), []
    for _ in range(3000):
        step = random_step(state, rng)
        if step is None:
            break
        moves.append(step)
        state = engine.apply(state, *step).state
    return start, moves


def _replay(games: list[tuple[engine.GameState, list[tuple[int, engine.Action]]]], classify: bool) -> float:
    """CPU seconds to replay ``games`` (with ``undo_barrier`` after each action when ``classify``)."""
    t0 = time.process_time()
    for start, moves in games:
        state = start
        for seat, action in moves:
            t = engine.apply(state, seat, action)
            if classify:
                engine.undo_barrier(state, seat, action, t)
            state = t.state
    return time.process_time() - t0


def main() -> None:
    """Print the CPU per action without and with the classification, and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    games = [_playout(args.players, seed) for seed in range(1, args.games + 1)]
    actions = sum(len(moves) for _, moves in games)
    plain, classified = [], []
    for _ in range(args.rounds):
        plain.append(_replay(games, False))
        classified.append(_replay(games, True))
    a, b = statistics.median(plain), statistics.median(classified)
    print(f"{actions} actions, median of {args.rounds} interleaved rounds")
    print(f"  apply                 {a / actions * 1e6:8.1f} µs per action")
    print(f"  apply + undo_barrier  {b / actions * 1e6:8.1f} µs per action   ratio {b / a:.3f}")


if __name__ == "__main__":
    main()
