"""Standing orders for response windows (architecture "Response windows"; issue 4): a player's rules that
the server turns into ordinary logged answers (source ``standing``) the moment a window opens.

Rules, most specific first: orders for this game before global ones; within a scope ``fracture`` before
``pass_unless`` before ``pass``. The ``pass_unless`` orders of one scope act together ("pass unless A or B is
used against me"); a scope whose orders say nothing about a window leaves it to the next scope. An artefact
is *used against* a seat when its owner is someone else and it would apply to that seat: a crown that names
the seat as its affected player (R39–R41), or a sceptre or orb in a battle the seat fights in as attacker or
defender (R64, R72).
"""

from __future__ import annotations

from collections.abc import Iterable

from games import engine
from games.engine import actions as A


def used_against(state: engine.GameState, seat: int) -> set[str]:
    """Artefact ids of the open response window that would apply against ``seat`` (empty without one)."""
    w = state.window
    if w is None:
        return set()
    owners = {t: next((p.seat for p in state.players if p.artefact(t) is not None), -1) for t in w.targets}
    if w.kind == engine.ArtefactType.CROWN:
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
    holds = engine.holds_fracture(state, seat)
    given = list(orders)
    for scope in (True, False):  # this game's orders, then the global ones
        rules = [(rule, artefact) for for_game, rule, artefact in given if for_game == scope]
        for rule, artefact in rules:
            if rule == "fracture" and artefact in against:
                return A.Respond((artefact,) if holds else ())
        unless = {artefact for rule, artefact in rules if rule == "pass_unless"}
        if unless:
            # every pass_unless order of the scope counts, not only the first one
            return None if unless & against else A.Respond(())
        if any(rule == "pass" for rule, _artefact in rules):
            return A.Respond(())
    return None
