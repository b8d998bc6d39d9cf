"""Bots on the site (issue 17): fill empty seats at a level and stand in for absent players.

A bot decides from its seat's observation only (:func:`games.engine.ai.observe.observe`: what the seat
may know, R95), at its level (``easy``, ``normal``, ``hard``; ``random`` is the engine's random-legal bot,
for tests and benchmarks), seeded from the game id and ``seq`` so that a bot move is reproducible from the
log. A stand-in for an absent player plays at ``normal`` and keeps the player's Fracture and Tactical
Advance cards (it never spends them for someone who is not there to choose).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings

from games import engine
from games.engine.ai.levels import LEVELS, decide
from games.engine.ai.observe import observe
from games.engine.bot import choose
from games.engine.rng import Rng

if TYPE_CHECKING:
    from games.models import Seat

#: Levels a seat may have: the three of the site and the random bot (tests and benchmarks only).
BOT_LEVELS = (*LEVELS, "random")
#: The level of a stand-in for an absent player (issue 17).
STAND_IN = "stand-in"

#: What a stand-in never spends for its absent player (issue 17): Fracture and Tactical Advance.
_KEPT = frozenset({engine.ActionType.FRACTURE, engine.ActionType.TACTICAL_ADVANCE})


def bot_action(
    state: engine.GameState, seat: int, game_id: int, seq: int, level: str = "normal"
) -> engine.Action:
    """Choose an action for ``seat`` (which must have a decision) at ``level`` (a bot level or
    :data:`STAND_IN`), seeded per (game, seq).

    Raises:
        ValueError: the seat has no decision to make, or an unknown level.
    """
    seed = game_id * 1_000_003 + seq
    if level == "random":
        action = choose(state, seat, Rng(seed))
        if action is None:
            raise ValueError(f"seat {seat} has no decision")
        return action
    if level == STAND_IN:
        return _stand_in(state, seat, seed)
    return decide(observe(state, seat), level, seed)


def _stand_in(state: engine.GameState, seat: int, seed: int) -> engine.Action:
    """A normal-level move that spends no Fracture (in a free window or a response window) and no
    Tactical Advance (issue 17)."""
    return decide(observe(state, seat), "normal", seed, allowed=_keeps_cards)


def _keeps_cards(action: engine.Action) -> bool:
    """Whether ``action`` spends neither Fracture nor Tactical Advance."""
    if isinstance(action, engine.actions.Respond):
        return not action.fracture
    return action.TYPE not in _KEPT


def stand_ins(seats: list[Seat]) -> dict[int, str]:
    """Seats a bot plays, with the level it plays at: bot seats at their own level, absent players
    (``ABSENT_AFTER_MISSES`` missed turns in a row) by a stand-in (``normal``, keeping their Fracture and
    Tactical Advance; issue 17). A read of the seat rows: the play service and the decision panel use it.

    Returns:
        ``{seat number: level}`` (``"easy"`` … or :data:`STAND_IN`).
    """
    out = {s.number: s.level for s in seats if s.is_bot}
    for s in seats:
        if not s.is_bot and (s.missed_deadlines >= settings.ABSENT_AFTER_MISSES or s.resigned_at is not None):
            out[s.number] = STAND_IN
    return out
