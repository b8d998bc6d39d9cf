"""Advance (R50–R58, R112, Q13, Q33, Q35): where a player may advance, how many knights, and the advance
and decline-advance actions. An advance into empty territory conquers it (R56); otherwise a battle
starts (R59, :mod:`.battle`). The line of supply itself is :func:`.quantities.supplied`."""

from __future__ import annotations

from .. import actions as A
from ..errors import ErrorCode, IllegalAction
from ..kinds import EventType, Phase
from ..state import GameState
from .battle import start_battle
from .conquest import conquer
from .core import Tx, check_manoeuvre, edition, option, require_turn, teammates
from .quantities import capacity, dice_after, dice_budget, dice_in_use, supplied


def _reach(state: GameState, seat: int, sup: set[int]) -> set[int]:
    """Positions next to ``seat``'s launch tiles (R53 a–b): next to its castle or to a supplied territory
    ``sup``, or sharing a lake with such a territory (R11; the castle only under ``castle_lake_link``, Q13).
    A castle on a lake shore is reached across the lake too (R112)."""
    board = state.board
    castle = board.castle_of_seat[seat]
    reach: set[int] = set(board.adjacent[castle])
    if option(state, "castle_lake_link"):
        reach.update(board.lake_links[castle])
    for t in sup:
        reach.update(board.adjacent[t])
        reach.update(board.lake_links[t])
    if option(state, "castle_siege") and edition(state) >= 2:  # rules edition 1 linked territories only
        for t in sup:
            reach.update(board.lake_castles[t])
    return reach


def _unsupplied(state: GameState, seat: int, sup: set[int]) -> set[int]:
    """``seat``'s territories without a line of supply (none counted under rules edition 1)."""
    if edition(state) < 2:
        return set()
    kinds, owner = state.board.kinds, state.owner
    return {
        t for t in range(state.board.size) if owner[t] == seat and kinds[t] == "territory" and t not in sup
    }


def _closed_by(state: GameState, unsupplied: set[int], pos: int, sup: set[int]) -> bool:
    """Whether territory ``pos`` is closed to advances by one of the player's ``unsupplied`` territories
    (R53, Q35 as corrected by issue 14): the rulebook's "you cannot advance into any of the territories
    adjacent to that territory, unless the territory that you wish to advance to is also adjacent to
    another territory you control that has a line of supply" (``sup``). Adjacent means sharing an edge or a
    lake (R11: a lake links the territories on its shore); the castle is not a territory, so being next to
    it does not lift the ban."""
    if not unsupplied:
        return False
    board = state.board
    near = set(board.adjacent[pos]).union(board.lake_links[pos])
    return bool(near & unsupplied) and not near & sup


def advance_targets(state: GameState, seat: int) -> list[int]:
    """Positions ``seat`` may advance into now (R52–R54, R112, Q13, Q35), in position order: territories
    of other teams next to its castle or to a supplied territory, or across a lake from one, and not
    closed by an unsupplied territory (:func:`_closed_by`); rival castles too under Castle Siege."""
    kinds = state.board.kinds
    owner = state.owner
    castle = state.board.castle_of_seat[seat]
    sup = supplied(state, seat)
    unsupplied = _unsupplied(state, seat, sup)
    mates = set(teammates(state, seat))
    siege = option(state, "castle_siege")
    out: list[int] = []
    for x in sorted(_reach(state, seat, sup)):
        kind = kinds[x]
        if kind == "territory":
            if owner[x] != seat and owner[x] not in mates and not _closed_by(state, unsupplied, x, sup):
                out.append(x)
        elif kind == "castle" and siege and x != castle:
            out.append(x)
    return out


def advance_limit(state: GameState, pos: int) -> int:
    """Most knights one may advance into ``pos``: its capacity (R55, R12), or 8 into a castle (R112)."""
    if state.board.kinds[pos] == "castle":
        return state.content.n("siege_max_advance")
    return capacity(state, pos)


def advance_dice(state: GameState, seat: int, knights: int, in_use: int | None = None) -> int:
    """Dice ``seat`` would need after advancing ``knights`` knights from its castle (R16, R55)."""
    castle = state.players[seat].castle
    return dice_after(state, seat, ((castle, castle - knights), (0, knights)), in_use)


def check_castle_knights(state: GameState, actor: int, knights: int) -> None:
    """Check that ``actor``'s castle can send ``knights`` knights out: at least one (Q33), at most those it
    holds (R52, R55).

    Raises:
        IllegalAction: ``BAD_KNIGHT_COUNT`` or ``NOT_ENOUGH_KNIGHTS`` (``knights``, ``castle``).
    """
    castle = state.players[actor].castle
    if knights < 1:
        raise IllegalAction(ErrorCode.BAD_KNIGHT_COUNT, knights=knights, rule="Q33")
    if knights > castle:
        raise IllegalAction(ErrorCode.NOT_ENOUGH_KNIGHTS, knights=knights, castle=castle, rule="R55")


def check_advance(state: GameState, actor: int, to: str, knights: int) -> int:
    """Validate an advance of ``knights`` knights into position id ``to`` and return the target position
    (R52–R55, R112, R16).

    Raises:
        IllegalAction: unknown or unreachable target, a target closed by an unsupplied territory
            (``target_next_to_unsupplied``), own/teammate/lake/castle target, bad knight count, over
            capacity, dice budget.
    """
    pos = state.board.parse_pos(to)
    if pos is None:
        raise IllegalAction(ErrorCode.UNKNOWN_LOCATION, location=to)
    kind = state.board.kinds[pos]
    if kind == "lake" or (kind == "castle" and not option(state, "castle_siege")):
        raise IllegalAction(ErrorCode.TARGET_NOT_ENTERABLE, location=to, rule="R54")
    if kind == "territory" and state.owner[pos] == actor:
        raise IllegalAction(ErrorCode.TARGET_OWN, location=to, rule="R52")
    if kind == "territory" and state.owner[pos] in teammates(state, actor):
        raise IllegalAction(ErrorCode.TARGET_TEAMMATE, location=to, rule="R108")
    if pos == state.board.castle_of_seat[actor]:
        raise IllegalAction(ErrorCode.TARGET_OWN, location=to, rule="R10")
    if pos not in advance_targets(state, actor):
        if kind == "territory" and pos in _reach(state, actor, supplied(state, actor)):
            raise IllegalAction(ErrorCode.TARGET_NEXT_TO_UNSUPPLIED, location=to, rule="R53")
        raise IllegalAction(ErrorCode.TARGET_NOT_REACHABLE, location=to, rule="R53")
    limit = advance_limit(state, pos)
    check_castle_knights(state, actor, knights)
    if knights > limit:
        raise IllegalAction(ErrorCode.OVER_CAPACITY, knights=knights, capacity=limit, rule="R55")
    dice = advance_dice(state, actor, knights)
    if dice > dice_budget(state):
        raise IllegalAction(ErrorCode.DICE_BUDGET, dice=dice, budget=dice_budget(state), rule="R16")
    return pos


def h_advance(tx: Tx, actor: int, action: A.Action) -> None:
    """Advance knights from the castle (R52–R57): conquer an empty territory (R56) or start a battle
    (R59). From a free window this uses a manoeuvre (R28).

    Raises:
        IllegalAction: wrong seat or phase, no manoeuvre left (R28), or see :func:`check_advance`.
    """
    assert isinstance(action, A.Advance)
    s = tx.s
    require_turn(s, actor, Phase.WINDOW, Phase.MANOEUVRE)
    check_manoeuvre(s)
    pos = check_advance(s, actor, action.to, action.knights)
    if s.phase == Phase.WINDOW:
        s.manoeuvres_left -= 1
    s.phase = Phase.WINDOW
    tx.next_serial()
    tx.p(actor).castle -= action.knights
    tx.emit(EventType.ADVANCED, seat=actor, pos=action.to, knights=action.knights)
    if s.board.kinds[pos] == "territory" and s.owner[pos] < 0:
        s.owner[pos] = actor
        s.knights[pos] = action.knights
        conquer(tx, actor, pos, resume="window")
    else:
        start_battle(tx, actor, pos, action.knights)


def h_decline_advance(tx: Tx, actor: int, action: A.Action) -> None:
    """End the current manoeuvre without advancing (R28, R58).

    Raises:
        IllegalAction: not the actor's manoeuvre.
    """
    require_turn(tx.s, actor, Phase.MANOEUVRE)
    tx.s.phase = Phase.WINDOW
    tx.next_serial()
    tx.emit(EventType.ADVANCE_DECLINED, seat=actor)


def advance_options(state: GameState, seat: int) -> list[A.Action]:
    """Every legal advance of ``seat`` (R52–R55, R112, R16), from the same target, limit and dice helpers
    as :func:`check_advance`. The caller checks the phase and the manoeuvre count."""
    out: list[A.Action] = []
    castle = state.players[seat].castle
    if castle < 1:
        return out
    targets = [(pos, advance_limit(state, pos)) for pos in advance_targets(state, seat)]
    if not targets:
        return out
    budget = dice_budget(state)
    in_use = dice_in_use(state, seat)
    # The dice needed depend on the number of knights only, so each count is priced once.
    most = min(castle, max(limit for _pos, limit in targets))
    sizes = [n for n in range(1, most + 1) if advance_dice(state, seat, n, in_use) <= budget]
    for pos, limit in targets:
        pid = state.board.pos_id(pos)
        out.extend(A.Advance(pid, n) for n in sizes if n <= limit)
    return out
