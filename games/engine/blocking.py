"""The moves the seat deciding now cannot make, and why: the ``blocked`` column of the decision table
(:data:`games.engine.prompts.DECISIONS`, read by :func:`games.engine.blocked`; issue 31 §2).

Every reason is an :class:`~games.engine.errors.IllegalAction` raised by the check that :func:`apply` runs
for such a move (:func:`~.rules.core.check_manoeuvre`, :func:`~.rules.advance.check_advance`,
:func:`~.rules.redistribution.check_redistribution`, :func:`~.rules.crowns.check_crown_use`,
:func:`~.rules.core.require_turn`, :func:`~.rules.battle.check_support_allowed`), or, where no attempt
of the move exists to check (nothing to advance into, no territory, no target, no conflict card), one of
the ``NO_*`` codes. Each carries the family it blocks as its ``action`` parameter (an
:class:`~games.engine.kinds.ActionType`). A reason reads only what the seat's own view shows: the map,
the artefacts, the turn's counters and the seat's own hand.
"""

from __future__ import annotations

from collections.abc import Callable

from . import actions as A
from .errors import ErrorCode, IllegalAction
from .kinds import ActionType, Phase, Stage
from .rules.advance import advance_options, advance_targets, check_advance, check_castle_knights
from .rules.battle import check_support_allowed, holds_conflict_card
from .rules.core import check_manoeuvre, holds_fracture, require_turn
from .rules.crowns import check_crown_use, crown_of, crown_options
from .rules.quantities import supplied
from .rules.redistribution import check_redistribution, redistribution_options
from .rules.windows import fracture_options
from .state import NO_CARD, UNCHOSEN, GameState

#: A reason finder: why ``seat`` cannot make the family's move now, or ``None`` if it can (or the family
#: is not its to make: no crown, no such card).
Reason = Callable[[GameState, int], IllegalAction | None]


def _refusal(check: Callable[[], object]) -> IllegalAction | None:
    """The :class:`IllegalAction` ``check`` raises, or ``None`` if it passes."""
    try:
        check()
    except IllegalAction as err:
        return err
    return None


def _tagged(err: IllegalAction, family: ActionType) -> IllegalAction:
    """``err`` with the blocked family as its ``action`` parameter."""
    return IllegalAction(err.code, **err.params, action=family.value)


def _advance(state: GameState, seat: int) -> IllegalAction | None:
    """Why ``seat`` cannot advance (R28, R52–R53, R55, R16): no manoeuvre left, an empty castle, nothing
    within reach (``NO_ADVANCE_TARGET``), or the dice budget for even one knight."""
    refusal = _refusal(lambda: check_manoeuvre(state))
    if refusal is not None or advance_options(state, seat):
        return refusal
    refusal = _refusal(lambda: check_castle_knights(state, seat, 1))
    if refusal is not None:
        return refusal
    targets = advance_targets(state, seat)
    if not targets:
        return IllegalAction(ErrorCode.NO_ADVANCE_TARGET, rule="R53")
    return _refusal(lambda: check_advance(state, seat, state.board.pos_id(targets[0]), 1))


def _redistribution(state: GameState, seat: int) -> IllegalAction | None:
    """Why ``seat`` cannot redistribute (R28, R43, R45–R46, R16): no manoeuvre left, no territory
    (``NO_TERRITORY``), none supplied (``LOCATION_UNSUPPLIED``), or every one-knight move would leave a
    territory empty or over its capacity (preferred), exceed the dice, or take from an empty castle."""
    refusal = _refusal(lambda: check_manoeuvre(state))
    if refusal is not None or redistribution_options(state, seat):
        return refusal
    board = state.board
    mine = [t for t in range(board.size) if state.owner[t] == seat and board.kinds[t] == "territory"]
    if not mine:
        return IllegalAction(ErrorCode.NO_TERRITORY, rule="R43")
    places = ["castle", *(board.pos_id(t) for t in sorted(supplied(state, seat)))]
    if len(places) == 1:  # no supplied territory: the check refuses the first one as unsupplied
        places.append(board.pos_id(mine[0]))
    moves = [(A.Move(src, dst, 1),) for src in places for dst in places if src != dst]
    refusals = [err for err in (_move_refusal(state, seat, move) for move in moves) if err is not None]
    if not refusals:
        return None
    return next((err for err in refusals if err.code != ErrorCode.NOT_ENOUGH_KNIGHTS), refusals[0])


def _move_refusal(state: GameState, seat: int, moves: tuple[A.Move, ...]) -> IllegalAction | None:
    """The refusal of the redistribution ``moves`` by ``seat`` (:func:`check_redistribution`), or ``None``."""
    return _refusal(lambda: check_redistribution(state, seat, moves))


def _crown(state: GameState, seat: int) -> IllegalAction | None:
    """Why ``seat`` cannot use its crown (R39, R41, R93, Q31): not in its free window (``WRONG_PHASE``),
    face down until restored (``CROWN_UNAVAILABLE``), used this turn (``CROWN_ALREADY_USED``), or nothing
    to act on (``NO_CROWN_TARGET``: Corruption with no other face-up artefact). ``None`` without a crown."""
    crown = crown_of(state, seat)
    if crown is None or (state.phase == Phase.WINDOW and crown_options(state, seat)):
        return None
    refusal = _refusal(lambda: check_crown_use(state, seat, A.UseCrown()))
    if refusal is not None and refusal.code != ErrorCode.CROWN_BAD_CHOICE:
        return refusal
    ability = state.content.artefacts[crown.id].ability
    return IllegalAction(ErrorCode.NO_CROWN_TARGET, ability=ability, rule="R41")


def _fracture(state: GameState, seat: int) -> IllegalAction | None:
    """Why ``seat``, holding Fracture, cannot play it (R36): not in its free window (``WRONG_PHASE``), or
    no other player has a face-up artefact (``NO_FRACTURE_TARGET``). ``None`` without Fracture."""
    if not holds_fracture(state, seat):
        return None
    refusal = _refusal(lambda: require_turn(state, seat, Phase.WINDOW))
    if refusal is not None or fracture_options(state, seat):
        return refusal
    return IllegalAction(ErrorCode.NO_FRACTURE_TARGET, rule="R36")


def _free_window_card(effect: str) -> Reason:
    """Why ``seat`` cannot play the resource card ``effect`` it holds (R32, R34, R35): not in its free
    window. ``None`` without the card."""

    def reason(state: GameState, seat: int) -> IllegalAction | None:
        if state.content.effect_index[effect] not in state.players[seat].hand:
            return None
        return _refusal(lambda: require_turn(state, seat, Phase.WINDOW))

    return reason


def _end_turn(state: GameState, seat: int) -> IllegalAction | None:
    """Why ``seat`` cannot end its turn (Q23, R28): a manoeuvre is under way (``WRONG_PHASE``)."""
    return _refusal(lambda: require_turn(state, seat, Phase.WINDOW))


#: The moves of the turn :func:`turn_blocked` answers for, in the order it reports them.
TURN_FAMILIES: tuple[tuple[ActionType, Reason], ...] = (
    (ActionType.ADVANCE, _advance),
    (ActionType.REDISTRIBUTE, _redistribution),
    (ActionType.USE_CROWN, _crown),
    (ActionType.FRACTURE, _fracture),
    (ActionType.CALL_TO_ARMS, _free_window_card("call_to_arms")),
    (ActionType.TACTICAL_ADVANCE, _free_window_card("tactical_advance")),
    (ActionType.END_TURN, _end_turn),
)


def turn_blocked(state: GameState, seat: int) -> list[IllegalAction]:
    """The moves of the turn that ``seat`` cannot make now, in its own free window or manoeuvre (R27–R28):
    advance (R28, R52–R53, R55, R16), redistribution (R28, R43, R45–R46), its crown (R39, R41, R93), the
    Fracture it holds (R36), its Call to Arms / Tactical Advance (R34–R35) and ending the turn (R28).

    Returns:
        One :class:`IllegalAction` per blocked family (its ``action`` parameter names it), in
        :data:`TURN_FAMILIES` order; ``[]`` for another seat or another phase (Vitality).
    """
    if seat != state.active or state.phase not in (Phase.WINDOW, Phase.MANOEUVRE):
        return []
    out: list[IllegalAction] = []
    for family, reason in TURN_FAMILIES:
        err = reason(state, seat)
        if err is not None:
            out.append(_tagged(err, family))
    return out


_STAGES = list(Stage)


def battle_blocked(state: GameState, seat: int) -> list[IllegalAction]:
    """The battle moves that ``seat``, a side of the running battle, cannot make (R68, R71): no conflict
    card to place while its conflict card is still to come (``NO_CONFLICT_CARD``, up to step 4: the
    battle's draw, R63, may still bring one), and, holding support cards, none may be played in a battle
    for the Mountains (``SUPPORT_FORBIDDEN``, up to step 5).

    Returns:
        One :class:`IllegalAction` per blocked family (``action``: ``choose_conflict`` / ``play_support``);
        ``[]`` without a battle, when the game is over or for a seat that is not a side.
    """
    b = state.battle
    if b is None or state.winners or b.side(seat) < 0:
        return []
    step = _STAGES.index(Stage(b.stage))
    out: list[IllegalAction] = []
    to_come = b.conflict[b.side(seat)] in (UNCHOSEN, NO_CARD)
    if step <= _STAGES.index(Stage.CONFLICT) and to_come and not holds_conflict_card(state, seat):
        out.append(
            IllegalAction(ErrorCode.NO_CONFLICT_CARD, rule="R68", action=ActionType.CHOOSE_CONFLICT.value)
        )
    cards = state.content.cards
    supports = any(cards[c].kind == "support" for c in state.players[seat].hand)
    if step <= _STAGES.index(Stage.SUPPORT) and supports:
        refusal = _refusal(lambda: check_support_allowed(state))
        if refusal is not None:
            out.append(_tagged(refusal, ActionType.PLAY_SUPPORT))
    return out
