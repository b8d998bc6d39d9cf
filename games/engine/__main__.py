"""Command line: ``python -m games.engine replay RECORD.json`` and ``python -m games.engine play``.

``replay`` prints ``{"summary": ..., "referee": ..., "state_hash": ...}`` as JSON and exits 0 (``referee``:
:func:`games.engine.view.referee_summary`), or prints ``{"error": code, "index": i, "detail", "params",
"before"}`` and exits 2 when action ``i`` is illegal or malformed, ``before`` being the referee summary of
the position that action met (1 for a bad file or setup). ``play`` plays a full game with the random-legal
bot and prints a summary and the record.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .actions import Action
from .ai.arena import arena
from .bot import choose, next_decision
from .errors import ContentError, IllegalAction
from .record import ReplayError, make_record, read_record, replay
from .rng import Rng
from .rules import OPTION_FLAGS, apply, current_options, new_game
from .state import state_hash
from .view import public_summary, referee_summary

_FLAGS = OPTION_FLAGS


def play_random_game(
    setup: dict[str, Any], bot_seed: int, max_actions: int = 20000
) -> tuple[Any, list[tuple[int, Action]]]:
    """Play ``setup`` to the end with the random-legal bot; return ``(final state, [(seat, action)])``.

    Stops early (game not over) after ``max_actions`` actions.
    """
    state = new_game(setup)
    rng = Rng(bot_seed)
    history: list[tuple[int, Action]] = []
    while len(history) < max_actions:
        seat = next_decision(state)
        if seat is None:
            break
        action = choose(state, seat, rng)
        assert action is not None
        state = _apply(state, seat, action)
        history.append((seat, action))
    return state, history


def _apply(state: Any, seat: int, action: Action) -> Any:
    return apply(state, seat, action).state


def _replay(path: str) -> int:
    """``replay PATH``: print the rules edition, the summaries and the hash (exit 0), the failing action
    with the referee summary of the position it met (exit 2), or ``bad_record`` (exit 1)."""
    try:
        with open(path, encoding="utf-8") as fh:
            record = json.load(fh)
        state = replay(*read_record(record))
    except ReplayError as exc:
        failed: dict[str, Any] = {"error": exc.code, "index": exc.index, "detail": str(exc.error)}
        if isinstance(exc.error, IllegalAction):
            failed["params"] = exc.error.params
        if exc.before is not None:  # the position the failing action met, for the referee
            failed["before"] = referee_summary(exc.before)
        print(json.dumps(failed, indent=2))
        return 2
    except (OSError, ValueError, ContentError) as exc:
        print(json.dumps({"error": "bad_record", "detail": str(exc)}))
        return 1
    final = {
        "rules_edition": state.setup["options"]["rules_edition"],  # the rules it was replayed with
        "summary": public_summary(state),
        "referee": referee_summary(state),
        "state_hash": state_hash(state),
    }
    print(json.dumps(final, indent=2))
    return 0


def _arena(args: argparse.Namespace) -> int:
    """Run :func:`games.engine.ai.arena.arena`, print its report and write its records."""

    low, _, high = str(args.players).partition("..")
    players = list(range(int(low), int(high or low) + 1))
    try:
        report = arena(args.bots.split(","), players, args.games, args.seed, budget=args.budget)
    except ValueError as exc:
        print(json.dumps({"error": "bad_arguments", "detail": str(exc)}))
        return 1
    print("\n".join(report.lines()))
    if args.records:
        folder = Path(args.records)
        folder.mkdir(parents=True, exist_ok=True)
        for i, record in enumerate(report.records):
            (folder / f"game-{i:04d}.json").write_text(json.dumps(record), encoding="utf-8")
        print(f"{len(report.records)} records written to {folder}/")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m games.engine", description="Medieval Mastery rules engine"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="replay a game record and print the final public summary")
    rp.add_argument("record")
    pp = sub.add_parser("play", help="play a full game with random-legal bots")
    pp.add_argument("--players", type=int, default=4)
    pp.add_argument("--seed", type=int, default=1)
    pp.add_argument(
        "--options",
        nargs="*",
        default=[],
        help=f"any of {', '.join(_FLAGS)}, allegiance=pairs|triples, fracture_prompts=holders",
    )
    pp.add_argument("--content", default="default")
    pp.add_argument("--summary-only", action="store_true", help="omit the record from the output")
    ap = sub.add_parser("arena", help="seat-rotated matches between bot levels (issue 17)")
    ap.add_argument(
        "--bots", default="hard,normal,easy,random", help="comma-separated: hard, normal, easy, random"
    )
    ap.add_argument("--players", default="2", help="a count or a range such as 2..6")
    ap.add_argument("--games", type=int, default=20, help="games per player count")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=int, default=None, help="hard's playouts per decision")
    ap.add_argument("--records", default="var/arena", help="folder for the game records ('' for none)")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return _replay(args.record)
    if args.command == "arena":
        return _arena(args)
    options: dict[str, Any] = current_options()  # a new game: the newest rules
    for opt in args.options:
        key, _, value = opt.partition("=")
        options[key] = value if value else True
    setup = {"players": args.players, "seed": args.seed, "options": options, "content": args.content}
    try:
        state, history = play_random_game(setup, args.seed)
    except ContentError as exc:
        print(json.dumps({"error": "bad_setup", "detail": str(exc)}))
        return 1
    out: dict[str, Any] = {
        "summary": public_summary(state),
        "actions": len(history),
        "state_hash": state_hash(state),
    }
    if not args.summary_only:
        out["record"] = make_record(setup, history)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
