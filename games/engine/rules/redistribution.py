"""Redistribution (R43–R47, R16, R12): moving knights between one's castle and supplied territories, at
the start of a manoeuvre or during the Crown of Vitality; check, legal moves and handlers."""

from __future__ import annotations

from .. import actions as A
from ..errors import ErrorCode, IllegalAction
from ..kinds import EventType, Phase
from ..state import GameState
from .core import Tx, check_manoeuvre, require_turn
from .quantities import capacity, dice_after, dice_budget, dice_in_use, supplied


def _location(state: GameState, actor: int, loc: str, sup: set[int]) -> int:
    """Resolve a redistribution location: -1 for the castle, else an own supplied territory (R43, R46)."""
    if loc == "castle":
        return -1
    pos = state.board.parse_pos(loc)
    if pos is None:
        raise IllegalAction(ErrorCode.UNKNOWN_LOCATION, location=loc)
    if state.board.kinds[pos] != "territory" or state.owner[pos] != actor:
        raise IllegalAction(ErrorCode.NOT_YOUR_LOCATION, location=loc, rule="R43")
    if pos not in sup:
        raise IllegalAction(ErrorCode.LOCATION_UNSUPPLIED, location=loc, rule="R46")
    return pos


def _final_counts(
    state: GameState, actor: int, moves: tuple[A.Move, ...]
) -> tuple[dict[int, int], dict[int, int]]:
    """Apply ``moves`` on paper: knights per touched location before and after (-1 = castle)."""
    sup = supplied(state, actor)
    before: dict[int, int] = {}
    final: dict[int, int] = {}
    for m in moves:
        if m.knights < 1:
            raise IllegalAction(ErrorCode.BAD_KNIGHT_COUNT, knights=m.knights)
        src = _location(state, actor, m.src, sup)
        dst = _location(state, actor, m.dst, sup)
        if src == dst:
            raise IllegalAction(ErrorCode.BAD_CHOICE, location=m.src)
        for loc in (src, dst):
            if loc not in final:
                before[loc] = final[loc] = state.players[actor].castle if loc == -1 else state.knights[loc]
        final[src] -= m.knights
        final[dst] += m.knights
    return before, final


def check_redistribution(state: GameState, actor: int, moves: tuple[A.Move, ...]) -> dict[int, int]:
    """Validate a redistribution by ``actor`` and return the final knights per location (-1 = castle).

    Raises:
        IllegalAction: unknown/foreign/unsupplied location (R43, R46), abandoned territory or over
            capacity (R45, R12), not enough knights, dice budget (R16).
    """
    before, final = _final_counts(state, actor, moves)
    for loc, count in final.items():
        if loc == -1:
            if count < 0:
                raise IllegalAction(ErrorCode.NOT_ENOUGH_KNIGHTS, location="castle")
        elif count < 1:
            raise IllegalAction(ErrorCode.TERRITORY_ABANDONED, location=state.board.pos_id(loc), rule="R45")
        elif count > capacity(state, loc):
            raise IllegalAction(ErrorCode.OVER_CAPACITY, location=state.board.pos_id(loc), rule="R45")
    dice = dice_after(state, actor, [(before[loc], n) for loc, n in final.items()])
    if dice > dice_budget(state):
        raise IllegalAction(ErrorCode.DICE_BUDGET, dice=dice, budget=dice_budget(state), rule="R16")
    return final


def h_redistribute(tx: Tx, actor: int, action: A.Action) -> None:
    """Redistribute knights (R43–R47): from a free window this starts a manoeuvre (R28); it may be
    repeated before the manoeuvre's advance and during the Crown of Vitality (R41).

    Raises:
        IllegalAction: wrong seat or phase, no manoeuvre left (R28), or see :func:`check_redistribution`.
    """
    assert isinstance(action, A.Redistribute)
    s = tx.s
    require_turn(s, actor, Phase.WINDOW, Phase.MANOEUVRE, Phase.VITALITY)
    phase = s.phase
    check_manoeuvre(s)
    final = check_redistribution(s, actor, action.moves)
    if phase == Phase.WINDOW:
        s.manoeuvres_left -= 1
        s.phase = Phase.MANOEUVRE
        tx.next_serial()
    for loc, count in final.items():
        if loc == -1:
            tx.p(actor).castle = count
        else:
            s.knights[loc] = count
    tx.emit(EventType.REDISTRIBUTED, seat=actor, moves=[m.to_dict() for m in action.moves])


def h_finish_redistribution(tx: Tx, actor: int, action: A.Action) -> None:
    """End the Crown of Vitality redistribution (R41).

    Raises:
        IllegalAction: not the actor's Vitality redistribution.
    """
    require_turn(tx.s, actor, Phase.VITALITY)
    tx.s.phase = Phase.WINDOW
    tx.next_serial()
    tx.emit(EventType.REDISTRIBUTION_FINISHED, seat=actor)


def _loc(state: GameState, pos: int) -> str:
    return "castle" if pos == -1 else state.board.pos_id(pos)


def redistribution_options(state: GameState, seat: int) -> list[A.Action]:
    """Single-knight moves that keep the redistribution legal (R43–R46, R12, R16); any legal outcome is
    reached by a sequence of them (the atomic multi-move form stays available to clients). The caller
    checks the phase and the manoeuvre count."""
    sup = sorted(supplied(state, seat))
    room = dice_budget(state) - dice_in_use(state, seat)
    counts = {-1: state.players[seat].castle, **{t: state.knights[t] for t in sup}}
    # The change in dice is additive over locations: price one knight leaving / arriving once each.
    leave = {loc: dice_after(state, seat, ((n, n - 1),), 0) for loc, n in counts.items()}
    arrive = {loc: dice_after(state, seat, ((n, n + 1),), 0) for loc, n in counts.items()}
    names = {loc: _loc(state, loc) for loc in counts}  # each location's id and room, once (not per pair)
    full = {loc for loc, n in counts.items() if loc != -1 and n + 1 > capacity(state, loc)}
    out: list[A.Action] = []
    for src, have in counts.items():
        if have < (1 if src == -1 else 2):
            continue
        for dst in counts:
            if dst == src or dst in full or leave[src] + arrive[dst] > room:
                continue
            out.append(A.Redistribute((A.Move(names[src], names[dst], 1),)))
    return out
