"""Turn flow (R26–R31, R93): starting a turn, ending it, and the end-turn action."""

from __future__ import annotations

from .. import actions as A
from ..kinds import EventType, Phase
from .core import Tx, require_turn
from .resources import gain


def start_turn(tx: Tx) -> None:
    """R27 PLACE: increment T, reset per-turn state (one manoeuvre, crown unused), place three knights
    in the active player's castle (R31, within the dice budget R16)."""
    s = tx.s
    s.turn += 1
    s.phase = Phase.WINDOW
    s.manoeuvres_left = 1
    s.crown_used = False
    tx.next_serial()
    tx.emit(EventType.TURN_STARTED, seat=s.active)
    gain(tx, s.active, tx.c.n("knights_per_turn"), "turn")


def end_turn(tx: Tx) -> None:
    """Step 9 (R93): restore own artefacts destroyed on a previous turn, then pass clockwise."""
    s = tx.s
    seat = s.active
    for art in s.players[seat].artefacts:
        if not art.face_up and art.destroyed_on < s.turn:
            mine = tx.p(seat).artefact(art.id)
            assert mine is not None
            mine.face_up = True
            mine.destroyed_on = 0
            tx.emit(EventType.ARTEFACT_RESTORED, artefact=art.id, owner=seat)
    tx.emit(EventType.TURN_ENDED, seat=seat)
    s.active = (seat + 1) % s.num_players
    start_turn(tx)


def h_end_turn(tx: Tx, actor: int, action: A.Action) -> None:
    """End the turn from one's free window (Q23, R93).

    Raises:
        IllegalAction: not the actor's free window.
    """
    require_turn(tx.s, actor, Phase.WINDOW)
    end_turn(tx)
