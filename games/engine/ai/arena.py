"""Bot arena (issue 17): seat-rotated matches between bot levels, win rates with 95 % confidence
intervals (Wilson score interval) and an OpenSkill table (``openskill.models.PlackettLuce``, the site's
rating model, docs: openskill.readthedocs.io). Used by ``python -m games.engine arena`` and
``make bench-bots``; pure: it returns the records for the caller to write, and measures decision times
only with a clock the caller passes in (benchmarks; no decision depends on them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from ..actions import Action
from ..bot import choose
from ..prompts import pending
from ..record import make_record
from ..rng import Rng
from ..rules import apply, current_options, new_game
from ..state import GameState
from .levels import LEVELS, decide
from .observe import observe

#: Bot names the arena knows: the three levels and the random bot (tests and benchmarks only).
BOTS = (*LEVELS, "random")
#: A game still running after this many actions counts as a draw (no winner).
GAME_ACTIONS = 4000


def bot_move(bot: str, state: GameState, seat: int, seed: int, budget: int | None = None) -> Action:
    """The move of ``bot`` (a level or ``"random"``) for ``seat``: levels see only the seat's observation.

    Raises:
        ValueError: an unknown bot.
    """
    if bot == "random":
        action = choose(state, seat, Rng(seed))
        assert action is not None
        return action
    return decide(observe(state, seat), bot, seed, budget=budget)


def play_game(
    lineup: list[str],
    seed: int,
    options: dict[str, Any] | None = None,
    budget: int | None = None,
    timings: dict[str, list[float]] | None = None,
    clock: Callable[[], float] | None = None,
) -> tuple[GameState, list[tuple[int, Action]]]:
    """One game with ``lineup[seat]`` playing each seat. With a ``clock`` (the caller's, e.g.
    ``time.process_time``: the engine reads none), ``timings`` collects each bot's decision times.

    Returns:
        The final state and the ``(seat, action)`` list (for :func:`~games.engine.make_record`).
    """
    setup = {"players": len(lineup), "seed": seed, "options": {**current_options(), **(options or {})}}
    state = new_game(setup)
    history: list[tuple[int, Action]] = []
    for n in range(GAME_ACTIONS):
        prompts = pending(state)
        if not prompts:
            break
        seat = prompts[0].seat
        started = clock() if clock is not None else 0.0
        action = bot_move(lineup[seat], state, seat, seed * 100_003 + n, budget)
        if timings is not None and clock is not None:
            timings.setdefault(lineup[seat], []).append(clock() - started)
        history.append((seat, action))
        state = apply(state, seat, action).state
    return state, history


@dataclass
class Tally:
    """One bot's results: games played and won."""

    games: int = 0
    wins: int = 0

    def interval(self) -> tuple[float, float, float]:
        """The win rate and its 95 % Wilson score interval ``(rate, low, high)``."""
        if not self.games:
            return 0.0, 0.0, 1.0
        z, n, p = 1.96, self.games, self.wins / self.games
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return p, max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Report:
    """What an arena run found: tallies per player count and bot, OpenSkill ratings and the records."""

    tallies: dict[int, dict[str, Tally]] = field(default_factory=dict)
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report as text: one row per player count and bot, then the rating table."""
        out = []
        for players, tallies in sorted(self.tallies.items()):
            for bot, t in tallies.items():
                rate, low, high = t.interval()
                share = f"{t.wins:>4}/{t.games:<4} {rate:6.1%}"
                out.append(f"{players}p  {bot:<7} won {share}  (95 % CI {low:.1%}–{high:.1%})")
        out.append("OpenSkill (PlackettLuce): bot, mu, sigma, mu - 3 sigma")
        for bot, (mu, sigma) in sorted(self.ratings.items(), key=lambda kv: -(kv[1][0] - 3 * kv[1][1])):
            out.append(f"  {bot:<7} {mu:6.2f} {sigma:5.2f} {mu - 3 * sigma:6.2f}")
        return out


def arena(
    bots: list[str],
    players: list[int],
    games: int,
    seed: int,
    *,
    options: dict[str, Any] | None = None,
    budget: int | None = None,
) -> Report:
    """Play ``games`` games for each player count, the bots cycled over the seats and the lineup rotated
    one seat per game, so every bot sits in every seat equally often.

    Raises:
        ValueError: an unknown bot name.
    """
    unknown = [b for b in bots if b not in BOTS]
    if unknown:
        raise ValueError(f"unknown bots {unknown}; choose from {', '.join(BOTS)}")
    model = PlackettLuce()
    ratings = {b: model.rating(name=b) for b in bots}
    report = Report()
    for n in players:
        tallies = report.tallies.setdefault(n, {b: Tally() for b in bots})
        base = [bots[i % len(bots)] for i in range(n)]
        for g in range(games):
            lineup = base[g % n :] + base[: g % n]
            game_seed = seed + 1000 * n + g
            state, history = play_game(lineup, game_seed, options, budget)
            winners = {lineup[s] for s in state.winners}
            for bot in set(lineup):
                tallies[bot].games += 1
                tallies[bot].wins += bot in winners
            present = sorted(set(lineup))
            ranks = [0.0 if b in winners else 1.0 for b in present]
            if winners and len(present) > 1:
                new = model.rate([[ratings[b]] for b in present], ranks=ranks)
                for b, team in zip(present, new, strict=True):
                    ratings[b] = team[0]
            record = make_record(state.setup, history)
            record["bots"] = lineup
            report.records.append(record)
    report.ratings = {b: (r.mu, r.sigma) for b, r in ratings.items()}
    return report
