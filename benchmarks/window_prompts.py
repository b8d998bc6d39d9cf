"""Window prompts and window emails a player gets, before and after issue 14's "no empty prompts".

Usage: ``.venv/bin/python -m benchmarks.window_prompts [--games 200] [--players 3]``. Engine only (no
database): each game is played to its end by the random-legal bot (``games.engine.bot``) for every seat,
the same seeds for both variants. Seat 0 stands for the one person at a table of bots.

- **before**: rules edition 1, every asked seat is prompted whatever its hand (the behaviour before issue
  14: a response prompt for each asked seat, each one an email to a person).
- **after**: rules edition 2 (windows offer every face-up sceptre/orb of the battle players), sealed
  windows; a seat with no Fracture to play gets an ``auto`` prompt, which the server answers and which is
  neither shown nor emailed.

A window prompt is counted once per prompt key that opens for seat 0; a window email is such a prompt
that opens on another seat's move (the mover gets no email about their own move, ``queue_write``).
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from games.engine import PromptKind, apply, new_game, pending
from games.engine.bot import choose
from games.engine.rng import Rng

#: Stop a game after this many actions (the random bot ends nearly every game well before).
MAX_ACTIONS = 20_000


def play(seed: int, players: int, options: dict[str, Any], *, after: bool) -> dict[str, int]:
    """Play one game; return seat 0's window ``prompts`` and ``emails``."""
    state = new_game({"players": players, "seed": seed, "options": options})
    rng = Rng(seed ^ 0xB07)
    seen: set[str] = set()
    counts = {"prompts": 0, "emails": 0}
    mover: int | None = None
    for _ in range(MAX_ACTIONS):
        prompts = pending(state)
        if not prompts:
            break
        for p in prompts:
            if p.kind != PromptKind.RESPONSE or p.key in seen:
                continue
            seen.add(p.key)
            if p.seat == 0 and not (after and p.auto):
                counts["prompts"] += 1
                counts["emails"] += mover != 0
        p = prompts[0]
        if after and p.auto:
            action = p.timeout_action  # the server's pass
        else:
            chosen = choose(state, p.seat, rng)
            assert chosen is not None
            action = chosen
        state = apply(state, p.seat, action).state
        mover = p.seat
    return counts


def main() -> None:
    """Run both variants over the same seeds and print the per-game means."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    variants: dict[str, tuple[dict[str, Any], bool]] = {
        "before (edition 1, every asked seat prompted)": ({"rules_edition": 1}, False),
        "after (edition 2, sealed, no empty prompts)": ({"rules_edition": 2}, True),
        "after (edition 2, in turn, no empty prompts)": (
            {"rules_edition": 2, "fracture_windows": "in_turn"},
            True,
        ),
    }
    print(f"{args.games} games of {args.players} players, random-legal bots; seat 0's window prompts/emails")
    for label, (options, after) in variants.items():
        runs = [play(1000 + g, args.players, options, after=after) for g in range(args.games)]
        prompts = statistics.mean(r["prompts"] for r in runs)
        emails = statistics.mean(r["emails"] for r in runs)
        print(f"  {label:<48} prompts {prompts:6.2f}  emails {emails:6.2f}  per game")


if __name__ == "__main__":
    main()
