"""A random-legal bot over :func:`legal_actions` (used by the CLI, playouts and benchmarks).

It draws from the engine's counter-based :class:`~games.engine.rng.Rng` (never ``random``) and prefers
progress (advances over shuffling knights around) so that random games terminate.
"""

from __future__ import annotations

from . import actions as A
from .prompts import legal_actions, pending
from .rng import Rng
from .state import GameState

#: Relative weights of action families in the active player's free window / manoeuvre.
_WEIGHTS = {
    A.Advance: 12,
    A.EndTurn: 3,
    A.Redistribute: 2,
    A.DeclineAdvance: 2,
    A.FinishRedistribution: 3,
    A.CallToArms: 4,
    A.TacticalAdvance: 4,
    A.Fracture: 1,
    A.UseCrown: 3,
}


def choose(state: GameState, seat: int, rng: Rng) -> A.Action | None:
    """Pick a legal action for ``seat`` (``None`` if it has no decision): first an action family by
    weight, then uniformly within it."""
    legal = legal_actions(state, seat)
    if not legal:
        return None
    families: dict[type[A.Action], list[A.Action]] = {}
    for action in legal:
        families.setdefault(type(action), []).append(action)
    kinds = list(families)
    weights = [_WEIGHTS.get(k, 1) for k in kinds]
    pick = rng.below(sum(weights))
    for kind, weight in zip(kinds, weights, strict=True):
        if pick < weight:
            group = families[kind]
            if kind is A.Advance:  # bigger advances are likelier to stick
                group = [a for a in group if isinstance(a, A.Advance) and a.knights >= 3] or group
            return group[rng.below(len(group))]
        pick -= weight
    return legal[-1]


def next_decision(state: GameState) -> int | None:
    """Return the lowest seat with an open prompt, or ``None`` when the game is over."""
    prompts = pending(state)
    return prompts[0].seat if prompts else None


def random_step(state: GameState, rng: Rng) -> tuple[int, A.Action] | None:
    """The next move of a random game: the lowest prompted seat and :func:`choose`'s action for it.

    Returns:
        ``(seat, action)``, or ``None`` when the game is over (nobody is prompted).
    """
    seat = next_decision(state)
    if seat is None:
        return None
    action = choose(state, seat, rng)
    assert action is not None, "a prompted seat always has a legal action"
    return seat, action
