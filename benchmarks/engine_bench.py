"""``make bench``: engine speed on one core (a benchmark, not a test). Figures go to docs/performance.md.

Measures, for seeded mid-game states with 2, 4 and 6 players: parse + validate + apply per action
(actions/s, 50th/99th percentile), ``legal_actions`` latency (50th/95th percentile), the move notation
(``to_text`` then ``parse_text`` of each legal action, 95th percentile, issue 14); full seeded random
games per second (random-legal bot, bot time included); and the time to replay a 1,000-action record.
``--options '{"rules_edition": 2}'`` sets table options (default: none, the setups of older commits, so
two commits can be compared on the same games).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from games.engine import apply, current_phase, legal_actions, new_game, parse_action, pending, replay
from games.engine.__main__ import play_random_game
from games.engine.bot import random_step
from games.engine.notation import LANGS, parse_text, to_text
from games.engine.rng import Rng
from games.engine.state import GameState

#: Table options of every benchmark game (``--options``).
OPTIONS: dict[str, Any] = {}


def _mid_game_states(players: int, count: int, seed: int) -> list[tuple[GameState, int, list[Any]]]:
    """Seeded random games advanced 40–160 actions; returns (state, seat, legal payloads) samples."""
    out: list[tuple[GameState, int, list[Any]]] = []
    k = 0
    while len(out) < count:
        rng = Rng(seed + k)
        state = new_game({"players": players, "seed": seed + k, "options": OPTIONS})
        stop = 40 + rng.below(120)
        for _ in range(stop):
            step = random_step(state, rng)
            if step is None:
                break
            state = apply(state, *step).state
        prompts = pending(state)
        if prompts:
            seat = prompts[0].seat
            out.append((state, seat, [a.to_dict() for a in legal_actions(state, seat)]))
        k += 1
    return out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_actions(players: int, samples: int) -> dict[str, float]:
    """Apply every legal action of each sampled state once (parse + validate + apply)."""
    states = _mid_game_states(players, samples, 1000 * players)
    times: list[float] = []
    legal_times: list[float] = []
    window_times: list[float] = []
    notation_times: list[float] = []
    for state, seat, payloads in states:
        t0 = time.perf_counter()
        legal_actions(state, seat)
        legal_times.append(time.perf_counter() - t0)
        if current_phase(state) in ("window", "manoeuvre"):
            window_times.append(legal_times[-1])
        for payload in payloads[:60]:
            t0 = time.perf_counter()
            action = parse_action(payload)
            apply(state, seat, action)
            times.append(time.perf_counter() - t0)
            lang = LANGS[len(notation_times) % len(LANGS)]
            t0 = time.perf_counter()
            parse_text(state, seat, to_text(state, action, lang), lang)
            notation_times.append(time.perf_counter() - t0)
    return {
        "actions": len(times),
        "actions_per_s": len(times) / sum(times),
        "apply_p50_ms": 1000 * statistics.median(times),
        "apply_p99_ms": 1000 * _pct(times, 0.99),
        "legal_p50_ms": 1000 * statistics.median(legal_times),
        "legal_p95_ms": 1000 * _pct(legal_times, 0.95),
        "legal_window_p95_ms": 1000 * _pct(window_times, 0.95),
        "window_samples": len(window_times),
        "notation_p50_ms": 1000 * statistics.median(notation_times),
        "notation_p95_ms": 1000 * _pct(notation_times, 0.95),
    }


def bench_games(players: int, games: int) -> dict[str, float]:
    """Full seeded random games with the random-legal bot (bot decisions included)."""
    t0 = time.perf_counter()
    actions = 0
    for g in range(games):
        _state, history = play_random_game({"players": players, "seed": 500 + g, "options": OPTIONS}, 900 + g)
        actions += len(history)
    elapsed = time.perf_counter() - t0
    return {"games": games, "games_per_s": games / elapsed, "mean_actions": actions / games}


def bench_replay() -> dict[str, float]:
    """Replay a record of at least 1,000 actions from scratch."""
    g = 0
    while True:
        setup = {"players": 6, "seed": 77 + g, "options": OPTIONS}
        _state, history = play_random_game(setup, 3 + g)
        if len(history) >= 1000:
            break
        g += 1
    records = [{"seat": seat, "action": a.to_dict()} for seat, a in history[:1000]]
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        replay(setup, records)
        runs.append(time.perf_counter() - t0)
    return {"actions": len(records), "replay_s": min(runs), "replay_median_s": statistics.median(runs)}


def main() -> None:
    """Print the figures as JSON and a readable table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=150)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--options", default="{}", help="table options as JSON")
    args = parser.parse_args()
    OPTIONS.update(json.loads(args.options))
    results: dict[str, Any] = {"actions": {}, "games": {}}
    for players in (2, 4, 6):
        results["actions"][players] = bench_actions(players, args.samples)
        results["games"][players] = bench_games(players, args.games)
    results["replay"] = bench_replay()
    header = ["players", "actions/s", "apply p50 ms", "apply p99 ms", "legal p50 ms", "legal p95 ms"]
    header += ["legal p95 ms (free window)", "notation p95 ms"]
    print(" | ".join([*header, "games/s", "actions/game"]))
    for players in (2, 4, 6):
        a, g = results["actions"][players], results["games"][players]
        cells = [f"{players}", f"{a['actions_per_s']:.0f}"]
        keys = (
            "apply_p50_ms",
            "apply_p99_ms",
            "legal_p50_ms",
            "legal_p95_ms",
            "legal_window_p95_ms",
            "notation_p95_ms",
        )
        cells += [f"{a[k]:.3f}" for k in keys]
        cells += [f"{g['games_per_s']:.1f}", f"{g['mean_actions']:.0f}"]
        print(" | ".join(cells))
    r = results["replay"]
    print(f"replay of {r['actions']} actions: {r['replay_s']:.3f} s (median {r['replay_median_s']:.3f} s)")
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
