"""Response windows and the Fracture card (R32, R36–R37, architecture "Response windows").

A window opens before an artefact applies (a crown use, the sceptres of battle step 3, the orbs of step
7). Seats are asked in clockwise order from the opener. In a sealed window (``fracture_windows``) they
answer at once with ranked Fracture targets and :func:`close_window` fractures in clockwise order; in an
in-turn window they answer one at a time and a Fracture is played as it is answered. The surviving
targets then go to the crown or battle rules (:func:`games.engine.rules.dispatch.run`). This module also
holds the Fracture family played in one's own free window (R36 a)."""

from __future__ import annotations

from typing import Any

from .. import actions as A
from ..errors import ErrorCode, IllegalAction
from ..kinds import EventType, Phase
from ..state import GameState, Window
from .core import (
    Tx,
    artefact_owner,
    destroy_artefact,
    face_up,
    holds_fracture,
    in_turn,
    not_your_decision,
    open_targets,
    option,
    require_turn,
    window_waiting,
    wrong_phase,
)
from .resources import discard


def play_fracture(tx: Tx, seat: int, target: str) -> None:
    """R32, R36: reveal Fracture from ``seat``'s hand, destroy artefact ``target``, then discard the card."""
    card = tx.c.effect_index["fracture"]
    tx.p(seat).hand.remove(card)
    tx.emit(
        EventType.CARD_PLAYED,
        seat=seat,
        card=A.card_id(seat, card),
        name=tx.c.cards[card].name,
        target=target,
    )
    destroy_artefact(tx, target, seat, "fracture")
    discard(tx, seat, card)


def open_window(
    tx: Tx, kind: str, opener: int, targets: list[str], crown: dict[str, Any] | None = None
) -> None:
    """Open a response window of ``kind`` (crown/sceptre/orb) before ``targets`` apply (R37).

    Every seat with another player's artefact among the targets is asked, clockwise from ``opener``
    (only Fracture holders under ``fracture_prompts = "holders"``). ``crown`` keeps the announced crown
    use. A window nobody is asked in closes at the next automatic step.
    """
    s = tx.s
    holders_only = option(s, "fracture_prompts") == "holders"
    fracture = tx.c.effect_index["fracture"]
    owners = {t: artefact_owner(s, t) for t in targets}
    asked: list[int] = []
    for k in range(s.num_players):
        seat = (opener + k) % s.num_players
        if not any(owners[t] != seat for t in targets):
            continue  # only own artefacts: this seat's opportunity is always a pass (R37)
        if holders_only and fracture not in s.players[seat].hand:
            continue
        asked.append(seat)
    window = Window(
        kind, opener, list(targets), asked, [None] * len(asked), dict(crown or {}), tx.next_serial()
    )
    tx.emit(EventType.WINDOW_OPENED, kind=kind, opener=opener, targets=list(targets), asked=list(asked))
    tx.new_window(window)


def window_answered(state: GameState) -> bool:
    """Whether a response window is open and every asked seat has answered (R37)."""
    w = state.window
    return w is not None and all(a is not None for a in w.answers)


def close_window(tx: Tx) -> tuple[Window, list[str]]:
    """Close the answered window. A sealed window is resolved now, in clockwise order from the opener:
    each seat fractures the first of its ranked targets that is still face up, so the outcome equals the
    rulebook's sequential lap (R37). An in-turn window's Fractures were played as they were answered.

    Returns:
        ``(the closed window, the targets still face up)``; the window is removed from the state.
    """
    s = tx.s
    w = tx.w()
    fracture = tx.c.effect_index["fracture"]
    if not in_turn(s):
        for seat, ranked in zip(w.asked, w.answers, strict=True):
            for target in ranked or []:
                if face_up(s, target) and fracture in s.players[seat].hand:
                    play_fracture(tx, seat, target)
                    break
    s.window = None
    survivors = [t for t in w.targets if face_up(s, t)]
    tx.emit(EventType.WINDOW_CLOSED, kind=w.kind, survivors=survivors)
    return w, survivors


def h_respond(tx: Tx, actor: int, action: A.Action) -> None:
    """Answer the open response window (R37): in a sealed window with ranked Fracture targets, in an
    in-turn window with at most one, played at once (the next seat then sees it); or pass with none.

    Raises:
        IllegalAction: no window (``WRONG_PHASE``), not asked or (in turn) not this seat's turn in the lap
            (``NOT_YOUR_DECISION``), already answered, no Fracture in hand, duplicate or (in turn) several
            targets (``BAD_CHOICE``), or a target outside the window / the actor's own / already
            destroyed (R37).
    """
    assert isinstance(action, A.Respond)
    s = tx.s
    w = s.window
    if w is None:
        raise wrong_phase(s, Phase.RESPONSE)
    if actor not in w.asked:
        raise not_your_decision(s, actor)
    i = w.asked.index(actor)
    if w.answers[i] is not None:
        raise IllegalAction(ErrorCode.ALREADY_ANSWERED)
    lap = in_turn(s)
    if lap and actor not in window_waiting(s):
        raise not_your_decision(s, actor)
    ranked = list(action.fracture)
    if ranked and not holds_fracture(s, actor):
        raise IllegalAction(ErrorCode.NO_FRACTURE_IN_HAND)
    if len(set(ranked)) != len(ranked) or (lap and len(ranked) > 1):
        raise IllegalAction(ErrorCode.BAD_CHOICE)
    for target in ranked:
        if target not in w.targets or artefact_owner(s, target) == actor or (lap and not face_up(s, target)):
            raise IllegalAction(ErrorCode.INVALID_FRACTURE_TARGET, target=target, rule="R37")
    tx.w().answers[i] = ranked
    if lap:  # in turn the lap is public, as at the table
        tx.emit(EventType.WINDOW_ANSWERED, seat=actor)
    else:  # sealed: who has answered stays the answerer's until the close (issue 14)
        tx.emit(EventType.WINDOW_ANSWERED, private={actor: {"seat": actor}})
    if lap and ranked:
        play_fracture(tx, actor, ranked[0])


def respond_options(state: GameState, seat: int) -> list[A.Action]:
    """Answers ``seat`` may give to the open window: pass, or Fracture one face-up target of another
    player if it holds Fracture (R37). Empty when ``seat`` is not asked, has answered or (in an in-turn
    window) it is not yet its turn in the lap."""
    w = state.window
    assert w is not None
    if seat not in w.asked or w.answers[w.asked.index(seat)] is not None:
        return []
    if in_turn(state) and seat not in window_waiting(state):
        return []
    out: list[A.Action] = [A.Respond(())]
    if holds_fracture(state, seat):
        out.extend(A.Respond((t,)) for t in open_targets(state, seat))
    return out


# -- Fracture in one's own free window (R36 a, Q22) -----------------------------------------------------


def fracture_targets(state: GameState, seat: int) -> list[str]:
    """Artefacts ``seat`` may Fracture in its free window: every other player's face-up artefact (R36)."""
    return [a.id for p in state.players if p.seat != seat for a in p.artefacts if a.face_up]


def h_fracture(tx: Tx, actor: int, action: A.Action) -> None:
    """Play Fracture in one's own free window on another player's face-up artefact (R36, Q22).

    Raises:
        IllegalAction: not the actor's free window, no Fracture in hand, or an invalid target (R36).
    """
    assert isinstance(action, A.Fracture)
    s = tx.s
    require_turn(s, actor, Phase.WINDOW)
    if not holds_fracture(s, actor):
        raise IllegalAction(ErrorCode.NO_FRACTURE_IN_HAND)
    if action.target not in fracture_targets(s, actor):
        raise IllegalAction(ErrorCode.INVALID_FRACTURE_TARGET, target=action.target, rule="R36")
    play_fracture(tx, actor, action.target)


def fracture_options(state: GameState, seat: int) -> list[A.Action]:
    """Fracture plays open to ``seat`` in its free window (R36); the caller checks the phase."""
    if not holds_fracture(state, seat):
        return []
    return [A.Fracture(t) for t in fracture_targets(state, seat)]
