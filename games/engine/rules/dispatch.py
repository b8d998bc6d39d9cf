"""The one entry point for change (architecture §2): :func:`apply` validates an action with its family's
handler, then :func:`run` advances the automatic steps (closing answered response windows, running the
order of battle) until the game waits for a decision again."""

from __future__ import annotations

from collections.abc import Callable

from .. import actions as A
from ..errors import ErrorCode, IllegalAction, InvalidActionPayload
from ..state import GameState, Window
from .advance import h_advance, h_decline_advance
from .battle import (
    artefact_window_closed,
    battle_step,
    h_choose_conflict,
    h_fear,
    h_pass_support,
    h_play_support,
)
from .core import Transition, Tx, check_seat
from .crowns import crown_window_closed, h_insight_order, h_prosperity, h_use_crown
from .redistribution import h_finish_redistribution, h_redistribute
from .resources import h_call_to_arms, h_discard_choice, h_tactical_advance
from .turn import h_end_turn
from .windows import close_window, h_fracture, h_respond, window_answered

Handler = Callable[[Tx, int, A.Action], None]

_HANDLERS: dict[type[A.Action], Handler] = {
    A.CallToArms: h_call_to_arms,
    A.TacticalAdvance: h_tactical_advance,
    A.Fracture: h_fracture,
    A.UseCrown: h_use_crown,
    A.Redistribute: h_redistribute,
    A.Advance: h_advance,
    A.DeclineAdvance: h_decline_advance,
    A.FinishRedistribution: h_finish_redistribution,
    A.EndTurn: h_end_turn,
    A.Respond: h_respond,
    A.ChooseConflict: h_choose_conflict,
    A.PlaySupport: h_play_support,
    A.PassSupport: h_pass_support,
    A.DiscardChoice: h_discard_choice,
    A.InsightOrder: h_insight_order,
    A.ProsperityChoice: h_prosperity,
    A.FearChoice: h_fear,
}

#: What follows a closed response window, by window kind (R37; crowns R41, sceptres R65, orbs R75).
_WINDOW_CLOSED: dict[str, Callable[[Tx, Window, list[str]], None]] = {
    "crown": crown_window_closed,
    "sceptre": artefact_window_closed,
    "orb": artefact_window_closed,
}


def run(tx: Tx) -> None:
    """Advance automatic steps until the game waits for a decision (or is over): close a response window
    once every asked seat has answered (R37), then run the battle's next step (R61)."""
    s = tx.s
    while not s.winners:
        if s.window is not None:
            if not window_answered(s):
                return
            window, survivors = close_window(tx)
            _WINDOW_CLOSED[window.kind](tx, window, survivors)
            continue
        if s.choice is not None or s.battle is None:
            return
        if not battle_step(tx):
            return


def apply(state: GameState, actor: int, action: A.Action) -> Transition:
    """Validate and apply ``action`` by seat ``actor`` (the only way a game changes).

    Args:
        state: the current state; never mutated.
        actor: the seat (0..n-1) taking the action.
        action: a parsed action (:func:`games.engine.parse_action`).

    Returns:
        A :class:`Transition` with the new state and its events.

    Raises:
        InvalidSeat: ``actor`` is not a seat of this game (:func:`check_seat`).
        InvalidActionPayload: ``action`` is not an engine action.
        IllegalAction: the rules forbid the action now (stable :class:`ErrorCode`, R-number in params):
            ``GAME_OVER`` (R103) or the family's code.
    """
    check_seat(state, actor)
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise InvalidActionPayload(f"not an action: {type(action).__name__}")
    if state.winners:
        raise IllegalAction(ErrorCode.GAME_OVER)
    tx = Tx(state)
    handler(tx, actor, action)
    run(tx)
    tx.s.actions_applied += 1
    return tx.finish()
