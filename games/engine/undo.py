"""Taking back steps (issue 16): which recorded steps brought new information, so that a player may undo
their own steps of the current turn back to the last point where something new appeared.

The policy is Board Game Arena's: a step can be taken back while it revealed nothing to anybody. Drawing a
card, rolling a die, revealing a card, opening a response window or a battle, another player's answer and
the turn changing are *barriers*. The engine only classifies a transition; keeping the records and
rebuilding the state without the undone steps is the services' job (``games.services.undo``), so replay
stays an ordinary replay of the steps that count.
"""

from __future__ import annotations

from .actions import Action
from .kinds import TURN_KINDS, ActionType, Barrier, EventType, PromptKind
from .rules import Transition
from .state import GameState

#: The action types that can ever be taken back: the steps of a manoeuvre and of a Crown of Vitality
#: redistribution (R28, R41, R43–R58), and the optional discard a conquest may offer (R102; keeping the
#: hand reveals nothing, a discard shows the card and so is a barrier of its own). Resource cards, crowns
#: and Fracture reveal a card or open a window (R32, R37, R40) and ending the turn hands the game on (R93).
STEP_TYPES = frozenset(
    {
        ActionType.REDISTRIBUTE,
        ActionType.ADVANCE,
        ActionType.DECLINE_ADVANCE,
        ActionType.FINISH_REDISTRIBUTION,
        ActionType.DISCARD_CHOICE,
    }
)

#: The decisions of one's own turn a step answers (R27, R28, R41, R102).
_STEP_PROMPTS = TURN_KINDS | {PromptKind.MAY_DISCARD}

_DRAWN = frozenset({EventType.DRAW, EventType.RESHUFFLE})
_CHANCE = frozenset({EventType.ARENA, EventType.MAYHEM, EventType.MAYHEM_FLIP, EventType.FIRST_PLAYER})
_REVEALED = frozenset(
    {
        EventType.CARD_PLAYED,
        EventType.CONFLICT_REVEALED,
        EventType.SUPPORT_PLAYED,
        EventType.DISCARD,
        EventType.CARD_RETURNED,
        EventType.INSIGHT_DONE,
        EventType.PROSPERITY_KEPT,
    }
)
_OPENED = frozenset({EventType.WINDOW_OPENED, EventType.BATTLE_STARTED, EventType.CROWN_ANNOUNCED})
_TURN = frozenset({EventType.TURN_ENDED, EventType.TURN_STARTED, EventType.GAME_OVER})


def undo_barrier(before: GameState, seat: int, action: Action, transition: Transition) -> Barrier | None:
    """Whether ``seat``'s ``action`` from ``before`` (giving ``transition``) can be taken back, and if not,
    why.

    A step can be taken back when it is a step of the seat's own turn (a redistribution, an advance, a
    declined advance or the end of a Vitality redistribution, answering the seat's turn, manoeuvre or
    Vitality decision) and it brought no new information: no card drawn or revealed, no chance used, no
    window or battle opened, nobody else to decide next, the same turn and no winner (issue 16).

    Args:
        before: the state the action was applied to.
        seat: the acting seat.
        action: the applied action.
        transition: :func:`games.engine.apply`'s result for it.

    Returns:
        ``None`` when the step can be taken back; otherwise the most telling :class:`Barrier` (a card drawn
        first, then chance, a revealed card, an opened window or battle, the turn changing, and last an
        answer that is not a step of one's own turn).
    """
    after = transition.state
    kinds = {event["type"] for event in transition.events}
    if kinds & _DRAWN or _piles_changed(before, after, decks=True):
        return Barrier.CARD_DRAWN
    if kinds & _CHANCE or after.rng_counter != before.rng_counter or after.dice_queue != before.dice_queue:
        return Barrier.DICE_ROLLED
    if kinds & _REVEALED or _piles_changed(before, after, decks=False):
        return Barrier.CARD_REVEALED
    if kinds & _OPENED or after.window is not None or after.battle is not None:
        return Barrier.WINDOW_OPENED
    if kinds & _TURN or after.turn != before.turn or after.active != before.active or after.winners:
        return Barrier.TURN_OVER
    # With no window, battle or turn change after it, only a choice could ask someone else (R102).
    if not _own_step(before, seat, action) or (after.choice is not None and after.choice.seat != seat):
        return Barrier.ANSWER
    return None


def _own_step(before: GameState, seat: int, action: Action) -> bool:
    """Whether ``action`` (already accepted by the engine) is a step of ``seat``'s own turn: a manoeuvre or
    Vitality step in its free window, manoeuvre or redistribution (R27, R28, R41), or the answer to its own
    optional discard (R102); never in a response window or a battle."""
    if action.TYPE not in STEP_TYPES or before.active != seat or before.window or before.battle:
        return False
    choice = before.choice
    if choice is None:
        return action.TYPE != ActionType.DISCARD_CHOICE
    return choice.seat == seat and choice.kind == PromptKind.MAY_DISCARD


def _piles_changed(before: GameState, after: GameState, *, decks: bool) -> bool:
    """Whether any deck (``decks``), or else any hand or discard pile, changed. A player the transition did
    not touch is the same object (copy-on-write, ``Tx``), so only touched players are compared."""
    for a, b in zip(before.players, after.players, strict=True):
        if a is b:
            continue
        if (a.deck != b.deck) if decks else (a.hand != b.hand or a.discard != b.discard):
            return True
    return False
