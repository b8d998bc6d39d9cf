"""Bot policies over ``legal_actions`` (architecture §3): fill empty seats, stand in for absent players.

The bot is the engine's random-legal policy, seeded from the game id and ``seq`` so that a bot move is
reproducible from the log.
"""

from __future__ import annotations

from games import engine
from games.engine.bot import choose
from games.engine.rng import Rng


def bot_action(state: engine.GameState, seat: int, game_id: int, seq: int) -> engine.Action:
    """Choose an action for ``seat`` (which must have a decision) with a per-(game, seq) seeded RNG.

    Raises:
        ValueError: the seat has no decision to make.
    """
    action = choose(state, seat, Rng(game_id * 1_000_003 + seq))
    if action is None:
        raise ValueError(f"seat {seat} has no decision")
    return action
