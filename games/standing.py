"""Standing orders for response windows (architecture "Response windows"; issue 4): a player's rules that
the server turns into ordinary logged answers (source ``standing``) the moment a window opens.

Rules, most specific first: orders for this game before global ones; within a scope ``fracture`` before
``pass_unless`` before ``pass``. An artefact is *used against* a seat when its owner is someone else and
it would apply to that seat: a crown that names the seat as its affected player (R39–R41), or a sceptre
or orb in a battle the seat fights in as attacker or defender (R64, R72).
"""

from __future__ import annotations

from collections.abc import Iterable

from games import engine
from games.engine import actions as A

#: Rule evaluation order within one scope.
_RULE_ORDER = {"fracture": 0, "pass_unless": 1, "pass": 2}


def used_against(state: engine.GameState, seat: int) -> set[str]:
    """Artefact ids of the open response window that would apply against ``seat`` (empty without one)."""
    w = state.window
    if w is None:
        return set()
    owners = {t: next((p.seat for p in state.players if p.artefact(t) is not None), -1) for t in w.targets}
    if w.kind == "crown":
        hit = w.crown.get("player") == seat
    else:
        b = state.battle
        hit = b is not None and seat in (b.attacker, b.defender)
    return {t for t, owner in owners.items() if hit and owner not in (-1, seat)}


def standing_answer(
    state: engine.GameState, seat: int, orders: Iterable[tuple[bool, str, str]]
) -> A.Respond | None:
    """The answer ``seat``'s standing orders give to the open response window, or ``None`` when they leave
    the decision to the player.

    Args:
        orders: ``(for_this_game, rule, artefact id)`` triples (``rule`` as :class:`StandingOrder.Rule`).

    Returns:
        ``Respond((artefact,))`` to fracture, ``Respond(())`` to pass, or ``None``. A fracture order passes
        when the seat holds no Fracture card (R32), so an instant answer reveals nothing about the hand.
    """
    if state.window is None:
        return None
    against = used_against(state, seat)
    fracture = state.content.effect_index.get("fracture")
    holds = fracture is not None and fracture in state.players[seat].hand
    ranked = sorted(orders, key=lambda o: (not o[0], _RULE_ORDER.get(o[1], 9)))
    for _scope, rule, artefact in ranked:
        if rule == "fracture":
            if artefact in against:
                return A.Respond((artefact,) if holds else ())
        elif rule == "pass_unless":
            return None if artefact in against else A.Respond(())
        elif rule == "pass":
            return A.Respond(())
    return None
