"""Random play against python-chess's (issue 31, "engine speed back where it was"): how many random plies a
second the rules engine plays (``pending`` → a random legal action → ``apply``, the engine's own random
bot) against python-chess's random play (``legal_moves`` → a random move → ``push``), as a ratio, in CPU
time, rounds interleaved so that the machine's drift falls on both alike.

Usage: ``python -m benchmarks.chess_ratio`` (``make bench`` runs it after the engine benchmark; one core
where ``taskset`` exists). A ratio of 1.0 means as many plies a second as python-chess; the issue asks for
at least 0.9 at 2 players. Needs ``chess`` (a dev dependency).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

import chess

from games.engine import apply, new_game
from games.engine.bot import random_step
from games.engine.rng import Rng


def engine_plies(players: int, plies: int, seed: int) -> tuple[int, float]:
    """Random games of ``players`` until ``plies`` actions were applied; returns (plies, CPU seconds)."""
    done = 0
    game = 0
    start = time.process_time()
    while done < plies:
        rng = Rng(seed + game)
        state = new_game({"players": players, "seed": seed + game})
        while done < plies:
            step = random_step(state, rng)
            if step is None:
                break
            state = apply(state, *step).state
            done += 1
        game += 1
    return done, time.process_time() - start


def chess_plies(plies: int, seed: int) -> tuple[int, float]:
    """Random chess games (restarted when one ends) until ``plies`` moves were pushed."""
    rnd = random.Random(seed)
    done = 0
    start = time.process_time()
    while done < plies:
        board = chess.Board()
        while done < plies and not board.is_game_over(claim_draw=False):
            moves = list(board.legal_moves)
            board.push(moves[rnd.randrange(len(moves))])
            done += 1
    return done, time.process_time() - start


def measure(players: int, plies: int, rounds: int) -> dict[str, Any]:
    """``rounds`` interleaved rounds (engine, then chess); the ratio of the medians of plies per CPU
    second."""
    ours: list[float] = []
    theirs: list[float] = []
    for r in range(rounds):
        n, seconds = engine_plies(players, plies, 7919 * (r + 1))
        ours.append(n / seconds)
        n, seconds = chess_plies(plies, 104729 * (r + 1))
        theirs.append(n / seconds)
    return {
        "players": players,
        "engine_plies_per_s": round(statistics.median(ours)),
        "chess_plies_per_s": round(statistics.median(theirs)),
        "ratio": round(statistics.median(ours) / statistics.median(theirs), 3),
        "ratio_range": [
            round(min(o / t for o, t in zip(ours, theirs, strict=True)), 3),
            round(max(o / t for o, t in zip(ours, theirs, strict=True)), 3),
        ],
    }


def main() -> None:
    """Print the ratio at 2, 4 and 6 players as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--plies", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--players", default="2,4,6")
    args = parser.parse_args()
    results = [measure(int(p), args.plies, args.rounds) for p in args.players.split(",")]
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
