"""The planner's solver: the deployment with the best expected result over the face-down cards' faces.

D6: each face-down card is one of the cards of its back's type not face up in the row, all equally
likely. A deployment's value is the mean over every reveal of the best play after it (:class:`Table`);
D28 orders the results. Source of the method: exhaustive expectimax over deployments, with the per-card
dynamic programme of :mod:`.resolve`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .cards import cards_of
from .position import Deployment, Position, row_cards
from .resolve import TACTICS, Memo, State, Table, attack, relaxed_bound, value_parts


@dataclass(frozen=True, slots=True)
class Expectation:
    """A deployment's expected result over ``reveals`` equally likely reveals (D6, D28): mean undefended
    cards, strength kept (D27), Bravery (D16) and Tactics and Beer left; ``value`` is the sum of the
    per-reveal values (:mod:`.resolve`), which orders deployments."""

    value: int
    reveals: int
    undefended: float
    kept: float
    bravery: float
    saved: float


@dataclass(frozen=True, slots=True)
class Solution:
    """The best deployment and its :class:`Expectation`; ``deployments`` is how many were compared."""

    deployment: Deployment
    expectation: Expectation
    deployments: int


def reveals(position: Position) -> list[dict[int, str]]:
    """Every equally likely assignment of faces to the face-down cards (D6): row index -> card id."""
    down = position.face_down()
    seen = {slot.card for slot in position.row if slot.card is not None}
    pools = [[card.id for card in cards_of(position.row[i].back) if card.id not in seen] for i in down]
    out: list[dict[int, str]] = []

    def walk(at: int, chosen: dict[int, str]) -> None:
        if at == len(down):
            out.append(dict(chosen))
            return
        for card_id in pools[at]:
            if card_id not in chosen.values():
                chosen[down[at]] = card_id
                walk(at + 1, chosen)
                del chosen[down[at]]

    walk(0, {})
    return out


def start_state(position: Position, deployment: Deployment) -> State:
    """The state the resolution starts from: units per side, Beer, Tactics and Muster Tokens."""
    units: list[int] = []
    for craftsmen, soldiers, knights in deployment.sides:
        units += [craftsmen + soldiers, knights, 0]
    return (tuple(units), position.beer, tuple(position.tactic(t) for t in TACTICS), position.muster)


def table(position: Position, faces: dict[int, str], shared: Memo | None = None) -> Table:
    """The :class:`Table` of ``position`` with ``faces`` turned up, resolving right to left (D7)."""
    cards = row_cards(position, faces)
    attacks = tuple(
        attack(card, position.values, position.walls, position.towers, position.moat, position.gate)
        for card in reversed(cards)
    )
    return Table(attacks, shared)


def deployments(position: Position) -> Iterator[Deployment]:
    """Every distinct deployment of the position's Workers (D3). Craftsmen and Soldiers defend alike, so
    the solver places them as one kind, Craftsmen first."""
    men = position.craftsmen + position.soldiers
    for men_split in _splits4(men):
        for knight_split in _splits4(position.knights):
            yield _deployment(position, men_split, knight_split)


def _deployment(position: Position, men: tuple[int, ...], knights: tuple[int, ...]) -> Deployment:
    craftsmen_left = position.craftsmen
    sides = []
    for j in range(4):
        c = min(craftsmen_left, men[j])
        craftsmen_left -= c
        sides.append((c, men[j] - c, knights[j]))
    return Deployment(tuple(sides))


def _splits4(n: int) -> list[tuple[int, ...]]:
    return [
        (a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n - a + 1) for c in range(n - a - b + 1)
    ]


def evaluate(position: Position, deployment: Deployment, shared: Memo | None = None) -> Expectation:
    """The expected result of ``deployment`` (D6, D28); raises :class:`InvalidDeployment` if it does not
    deploy exactly the position's Workers (D3)."""
    deployment.check(position)
    shared = {} if shared is None else shared
    state = start_state(position, deployment)
    values = [table(position, faces, shared).best(0, state) for faces in reveals(position)]
    return _expectation(sum(values), len(values))


def _expectation(total: int, n: int) -> Expectation:
    undefended, kept, bravery, saved = value_parts(total)
    return Expectation(total, n, undefended / n, kept / n, bravery / n, saved / n)


def solve(position: Position) -> Solution:
    """The deployment with the best :class:`Expectation` (D28); among equals, the first in the order of
    :func:`deployments`."""
    shared: Memo = {}
    tables = [table(position, faces, shared) for faces in reveals(position)]
    pool = (position.craftsmen + position.soldiers, position.knights, 0)
    tactics = tuple(position.tactic(t) for t in TACTICS)
    bounds = [relaxed_bound(t.attacks, pool, position.beer, tactics) for t in tables]
    ceiling = sum(bounds)
    order = list(range(len(tables)))
    best: tuple[int, Deployment] | None = None
    count = 0
    for deployment in deployments(position):
        count += 1
        state = start_state(position, deployment)
        total, left = 0, ceiling
        for rank, r in enumerate(order):
            total += tables[r].best(0, state)
            left -= bounds[r]
            if best is not None and total + left <= best[0]:
                order.insert(0, order.pop(rank))  # this reveal tells deployments apart: try it first
                break
        else:
            if best is None or total > best[0]:
                best = (total, deployment)
                if total == ceiling:
                    break  # no deployment can do better
    assert best is not None
    return Solution(best[1], _expectation(best[0], len(tables)), count)
