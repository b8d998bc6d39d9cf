"""Victory and the optional rules that change scoring or control (R14, R103–R104, R109, R116–R117)."""

from __future__ import annotations

from ..kinds import EventType, Phase
from ..state import GameState
from .core import Tx, option
from .quantities import supplied


def territory_vp(state: GameState, pos: int) -> int:
    """VP value of territory ``pos`` (R14); Homelands count 0 under Skirmish (R117)."""
    if option(state, "skirmish") and state.content.territory_types[state.tiles[pos]].homelands:
        return 0
    return state.board.layout_vp[pos]


def victory_points(state: GameState) -> list[int]:
    """VP of every seat, indexed by seat (R14): controlled territories, a disputed territory counting for
    nobody (R104)."""
    vp = [0] * state.num_players
    disputed = state.battle.pos if state.battle is not None else -1
    kinds = state.board.kinds
    for i, o in enumerate(state.owner):
        if o >= 0 and i != disputed and kinds[i] == "territory":
            vp[o] += territory_vp(state, i)
    return vp


def check_victory(tx: Tx) -> bool:
    """R103–R104, R109, R117: end the game when a player (or team) reaches the VP threshold.

    Returns:
        ``True`` when the game is over (now or before).
    """
    s = tx.s
    if s.winners:
        return True
    vp = victory_points(s)
    if option(s, "allegiance"):
        teams: dict[int, list[int]] = {}
        for p in s.players:
            teams.setdefault(p.team, []).append(p.seat)
        for members in teams.values():
            need = int(tx.c.numbers["team_victory_vp"][str(len(members))])
            if sum(vp[m] for m in members) >= need:
                s.winners = sorted(members)
    else:
        need = tx.c.n("skirmish_victory_vp" if option(s, "skirmish") else "victory_vp")
        s.winners = [p for p in range(s.num_players) if vp[p] >= need]
    if s.winners:
        s.phase = Phase.OVER
        tx.emit(EventType.GAME_OVER, winners=list(s.winners), vp=vp)
        return True
    return False


def cut_throat(tx: Tx) -> None:
    """R116: remove every unsupplied territory's knights (to the reserve) in one pass (Q12 timing); the
    disputed territory of a running battle is left alone. Does nothing without the Cut-throat option."""
    s = tx.s
    if not option(s, "cut_throat"):
        return
    keep = set()
    for seat in range(s.num_players):
        keep |= supplied(s, seat)
    for pos, owner in enumerate(s.owner):
        if owner >= 0 and pos not in keep and (s.battle is None or s.battle.pos != pos):
            tx.emit(EventType.CUT_THROAT, seat=owner, pos=s.board.pos_id(pos), knights=s.knights[pos])
            s.owner[pos] = -1
            s.knights[pos] = 0
