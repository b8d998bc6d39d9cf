"""How good a position is for a seat (issue 17): the bots' static evaluation, in points where one VP of
the seat's side is worth :data:`VP`. A side is the seat alone, or its Allegiance team (R105–R109).

The terms, from the rules: VP towards the threshold (R103, R109) and the rivals' VP against it; knights,
which are both defence (R59) and the dice budget (R16); territories without a line of supply, which cannot
be reinforced or advanced from (R48–R51); cards in hand, which win battles (R68–R72); face-up artefacts
(R89–R90).
"""

from __future__ import annotations

from ..rules import victory_points
from ..rules.core import option, teammates
from ..rules.quantities import supplied
from ..state import GameState

#: The value of one VP of the seat's side; the other weights are in these units.
VP = 10.0
#: A won game (or a lost one, negated): larger than any position's value.
WIN = 10_000.0
KNIGHT = 0.8
CARD = 1.6
ARTEFACT = 2.5
UNSUPPLIED = 4.0


def side_of(state: GameState, seat: int) -> list[int]:
    """The seats playing together with ``seat``: its Allegiance team, or itself (R105–R109)."""
    return sorted([seat, *teammates(state, seat)])


def target_vp(state: GameState, side: list[int]) -> int:
    """The VP ``side`` needs to win (R103, R109, R117)."""
    numbers = state.content.numbers
    if option(state, "allegiance"):
        return int(numbers["team_victory_vp"][str(len(side))])
    return int(numbers["skirmish_victory_vp" if option(state, "skirmish") else "victory_vp"])


def value(state: GameState, seat: int) -> float:
    """The value of ``state`` for ``seat``'s side (higher is better).

    Returns:
        ``±WIN`` (less the turn number, so sooner wins count more) once the game is over; otherwise VP of
        the side, closeness to the threshold, knights, hand cards, artefacts and supply, less the strongest
        rival side's VP and closeness.
    """
    mine = side_of(state, seat)
    if state.winners:
        won = bool(set(state.winners) & set(mine))
        return (WIN - state.turn) if won else -(WIN - state.turn)
    vp = victory_points(state)
    need = target_vp(state, mine)
    own = _side_score(state, mine, vp, need)
    rivals = {tuple(side_of(state, s)) for s in range(state.num_players) if s not in mine}
    worst = max((_side_score(state, list(r), vp, target_vp(state, list(r))) for r in rivals), default=0.0)
    return own - 0.9 * worst


def _side_score(state: GameState, side: list[int], vp: list[int], need: int) -> float:
    """One side's strength: VP (rising steeply near the threshold), knights, cards, artefacts, supply."""
    points = sum(vp[s] for s in side)
    near = points / need if need else 0.0
    score = VP * points + 4 * VP * near * near
    for s in side:
        p = state.players[s]
        on_map = [i for i, o in enumerate(state.owner) if o == s]
        knights = p.castle + sum(state.knights[i] for i in on_map)
        score += KNIGHT * knights + CARD * len(p.hand) + ARTEFACT * sum(a.face_up for a in p.artefacts)
        fed = supplied(state, s)
        score -= UNSUPPLIED * sum(1 for i in on_map if state.board.kinds[i] == "territory" and i not in fed)
    return score
