"""Shared quantities, each computed here and nowhere else: the dice budget (R16), capacity (R12) and the
line of supply (R48–R49, R111). Rule modules, the legal-action generators and the views call these."""

from __future__ import annotations

from collections.abc import Iterable

from ..state import GameState
from .core import ceil_div


def dice_for(state: GameState, knights: int) -> int:
    """Dice needed for ``knights`` knights in one location: ceil(knights / 6) (R16, Q20)."""
    return ceil_div(knights, state.content.n("knights_per_die"))


def dice_budget(state: GameState) -> int:
    """Dice each player owns, the most they may have in use (10, R16)."""
    return state.content.n("dice_per_player")


def dice_in_use(state: GameState, seat: int) -> int:
    """Dice seat ``seat`` needs now (R16, Q20): Σ ceil(knights / 6) over every location with its knights
    (castle, controlled territories, and its attacking knights in a battle)."""
    kpd = state.content.n("knights_per_die")
    total = ceil_div(state.players[seat].castle, kpd)
    owner = state.owner
    knights = state.knights
    for i in range(len(owner)):
        if owner[i] == seat:
            total += ceil_div(knights[i], kpd)
    b = state.battle
    if b is not None and b.attacker == seat:
        total += ceil_div(b.att_knights, kpd)
    return total


def dice_after(
    state: GameState, seat: int, changes: Iterable[tuple[int, int]], in_use: int | None = None
) -> int:
    """Dice ``seat`` would need after locations change their knights (R16).

    Args:
        changes: ``(knights before, knights after)`` per changed location (a new location has 0 before).
        in_use: :func:`dice_in_use` of ``seat`` if the caller already has it; with ``in_use=0`` the
            result is the change in dice, which is additive over locations.

    Returns:
        The number of dice; legal while at most :func:`dice_budget`.
    """
    kpd = state.content.n("knights_per_die")
    total = dice_in_use(state, seat) if in_use is None else in_use
    for before, after in changes:
        total += (-before // kpd) - (-after // kpd)  # ceil(after / kpd) - ceil(before / kpd)
    return total


def castle_room(state: GameState, seat: int) -> int:
    """Knights that can still be added to ``seat``'s castle before it would need an 11th die (R16)."""
    castle = state.players[seat].castle
    kpd = state.content.n("knights_per_die")
    other = dice_in_use(state, seat) - ceil_div(castle, kpd)
    return max(0, (dice_budget(state) - other) * kpd - castle)


def capacity(state: GameState, pos: int) -> int:
    """Capacity in knights of territory ``pos`` for one player (R12)."""
    return state.content.territory_types[state.tiles[pos]].capacity


def supplied(state: GameState, seat: int) -> set[int]:
    """Territories of ``seat`` with a line of supply (R48–R49, R111).

    A chain from the castle through adjacent tiles that are the seat's own territories or lakes. A
    disputed territory still counts as its defender's (``owner`` keeps the defender during a battle).

    Returns:
        Positions (board indices) of the supplied territories.
    """
    board = state.board
    owner = state.owner
    kinds = board.kinds
    adjacent = board.adjacent
    start = board.castle_of_seat[seat]
    seen = {start}
    stack = [start]
    result: set[int] = set()
    while stack:
        cur = stack.pop()
        for n in adjacent[cur]:
            if n in seen:
                continue
            if kinds[n] == "lake":
                seen.add(n)
                stack.append(n)
            elif kinds[n] == "territory" and owner[n] == seat:
                seen.add(n)
                result.add(n)
                stack.append(n)
    return result
