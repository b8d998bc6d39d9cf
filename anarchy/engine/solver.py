"""The planner's solver: the deployment with the best expected result over the face-down cards' faces.

D6: each face-down card is one of the cards of its back's type not face up in the row, all equally
likely. A deployment's value is the mean over every reveal of the best play after it (:class:`Table`);
D28 orders the results. Source of the method: expectimax over deployments (best first, with bounds), with
the per-card dynamic programme of :mod:`.resolve`.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass

from .bound import (
    DeploymentBounds,
    RevealFigures,
    SideRelaxation,
    StateBound,
    fewest_catapults_lost,
    tactic_needs,
    usable_supply,
)
from .cards import Tactic, cards_of
from .position import Deployment, Position, row_cards
from .resolve import TACTICS, Attack, Memo, State, Table, attack, relaxed_bound, value_parts


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


def table(
    position: Position,
    faces: dict[int, str],
    shared: Memo | None = None,
    relaxation: SideRelaxation | None = None,
) -> Table:
    """The :class:`Table` of ``position`` with ``faces`` turned up, resolving right to left (D7); with a
    ``relaxation``, its search skips plays that the side relaxation shows cannot be the best."""
    attacks = _attacks(position, faces)
    if relaxation is None:
        return Table(attacks, shared)
    bound = StateBound(attacks, relaxation)
    return Table(attacks, shared, bound, bound.rough)


def _attacks(position: Position, faces: dict[int, str]) -> tuple[Attack, ...]:
    """The row with ``faces`` turned up as :class:`.resolve.Attack` s, in resolution order (D7)."""
    return tuple(
        attack(card, position.values, position.walls, position.towers, position.moat, position.gate)
        for card in reversed(row_cards(position, faces))
    )


def deployments(position: Position) -> Iterator[Deployment]:
    """Every distinct deployment of the position's Workers (D3). Craftsmen and Soldiers defend alike, so
    the solver places them as one kind, Craftsmen first."""
    for men, knights in _placements(position):
        yield _deployment(position, men, knights)


def _placements(position: Position) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Per deployment, in the order of :func:`deployments`: the Craftsmen and Soldiers (as one kind) and the
    Knights per side, without making the :class:`.position.Deployment` (the solver needs thousands)."""
    return [
        (men, knights)
        for men in _splits4(position.craftsmen + position.soldiers)
        for knights in _splits4(position.knights)
    ]


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
    :func:`deployments`.

    Catapults are set aside first: only Covers defend them and no Worker, Beer or Muster Token plays a
    part (D24), so a reveal's value is the value of its other cards plus that of its Catapults, and the
    latter is the same for every deployment. Reveals whose other cards have the same shape (:meth:`.resolve.
    Attack.shape`) have the same value for every deployment, so each such class is solved once and counted
    as many times as it occurs.

    Best-first search over deployments (:func:`_search`): each deployment's bound is summed class by
    class, and the deployment with the best bound is searched only while it stays ahead of the next best;
    the first one found exact on top is the best. The bound is the side relaxation of :mod:`.bound` (with
    Muster Tokens, units may arrive on a side and leave it), capped by the pooled relaxation of
    :func:`.resolve.relaxed_bound`, each made tighter only as far as the search needs (:class:`_Ranking`).
    Source of the method: best-first (A*-like) search with admissible bounds, as in any textbook on
    combinatorial search; the exact values come from the per-card dynamic programme of :mod:`.resolve`.
    """
    shared: Memo = {}
    relaxation = SideRelaxation()
    rows = [_attacks(position, faces) for faces in reveals(position)]
    classes = _classes(position, rows, shared, relaxation)
    tables = [t for t, _w in classes.values()]
    weights = [w for _t, w in classes.values()]
    catapults = sum(_catapults_value(position, row) for row in rows)
    pool = (position.craftsmen + position.soldiers, position.knights, 0)
    tactics = _without_covers(position)
    pooled: dict[tuple[object, ...], dict[State, int]] = {}
    ceilings = [relaxed_bound(t.attacks, pool, position.beer, tactics, pooled) for t in tables]
    every = _placements(position)
    side_bounds = _side_bounds(position, tables, ceilings, tactics, relaxation, weights)
    sides = [tuple(zip(men, knights, strict=True)) for men, knights in every]
    ranking = _Ranking(side_bounds, sides, weights, ceilings, position.muster)
    found = _search(position, tables, weights, sides, ranking)
    n = sum(weights)
    best = _deployment(position, *every[found.index])
    return Solution(best, _expectation(found.value + catapults, n), found.count)


def _without_covers(position: Position) -> tuple[int, ...]:
    """The position's Tactics per :data:`.resolve.TACTICS` with the Covers left out (they go to the
    Catapults, which are solved apart, D24)."""
    return tuple(0 if t is Tactic.COVERS else position.tactic(t) for t in TACTICS)


def _classes(
    position: Position, rows: list[tuple[Attack, ...]], shared: Memo, relaxation: SideRelaxation
) -> dict[object, tuple[Table, int]]:
    """The reveals' ``rows`` (:func:`_attacks`) grouped by the shape of their cards other than Catapults:
    per class, the :class:`Table` of those cards (resolution order) and how many reveals it stands for. A
    Tactic the position does not hold is no part of the shape (it can never be spent)."""
    out: dict[object, tuple[Table, int]] = {}
    held = _without_covers(position)
    for row in rows:
        attacks = tuple(at for at in row if at.hits)
        key = tuple(
            (hits, castle, tactic if tactic >= 0 and held[tactic] else -1, skull)
            for hits, castle, tactic, skull in (at.shape() for at in attacks)
        )
        if key in out:
            t, w = out[key]
            out[key] = (t, w + 1)
        else:
            bound = StateBound(attacks, relaxation, (position.beer, held))
            out[key] = (Table(attacks, shared, bound, bound.rough), 1)
    return out


def _catapults_value(position: Position, row: tuple[Attack, ...]) -> int:
    """The value of the best play of a reveal's Catapults (of its ``row``, :func:`_attacks`) alone, with the
    Covers and nothing else (D24)."""
    catapults = tuple(at for at in row if not at.hits)
    covers = tuple(position.tactic(t) if t is Tactic.COVERS else 0 for t in TACTICS)
    return Table(catapults).best(0, ((0,) * 12, 0, covers, 0))


#: How many steps :class:`_Ranking` takes between two reorderings of its steps.
LEARN = 64


class _Ranking:
    """The deployments best bound first, each bound made tighter only as far as the search needs it.

    Every deployment starts at the sum of the classes' pooled ceilings (the same for all). The one on top
    has one class's bound made tighter and goes back in its place: first its side bound with every side
    given all the arrivals (:meth:`.bound.DeploymentBounds.loose`), class by class; then, with Muster
    Tokens, the tighter one over the ways to share them out (:meth:`.bound.DeploymentBounds.tight`). The
    classes start heaviest first, and are then taken in the order of how much they lowered the bounds so
    far (:meth:`_learn`). Once all its classes are bounded both ways it is the best bounded deployment
    left, and :meth:`next` hands it to the search. A deployment that stays below the others is never
    bounded further, so each is bounded only as far as it must be to be set aside (bounding every class of
    every deployment first cost more than the search in most positions). ``per[i]`` is deployment ``i``'s
    bound per class once :meth:`next` has handed it out; the search may lower it and :meth:`put_back`
    the deployment."""

    def __init__(
        self,
        bounds: DeploymentBounds,
        sides: list[tuple[tuple[int, int], ...]],
        weights: list[int],
        ceilings: list[int],
        muster: int,
    ) -> None:
        """``sides``: per deployment, its ``(men, knights)`` per side; ``weights``: reveals per class;
        ``ceilings``: per class, the pooled relaxation's bound (:func:`.resolve.relaxed_bound`);
        ``muster``: the Muster Tokens (without, the tight bound is the loose one)."""
        self.bounds = bounds
        self.sides = sides
        self.weights = weights
        order = sorted(range(len(weights)), key=lambda r: -weights[r])
        #: The steps of tightening, in the order they are tried: (class, whether by the tight bound). The
        #: order is learnt as the search goes (:meth:`_learn`).
        self.steps = [(r, False) for r in order] + ([(r, True) for r in order] if muster else [])
        top = sum(w * c for w, c in zip(weights, ceilings, strict=True))
        #: ``(-bound, deployment, steps done)``; ties go to the earlier deployment.
        self.heap = [(-top, i, 0) for i in range(len(sides))]
        #: Per deployment bounded at least once, its bound per class so far and the steps done.
        self.per: dict[int, list[int]] = {}
        self.done: dict[int, set[tuple[int, bool]]] = {}
        self.ceilings = ceilings
        #: Per step, how much it lowered the bounds in all and how often it was taken.
        self.lowered = dict.fromkeys(self.steps, 0)
        self.taken = dict.fromkeys(self.steps, 0)
        self.since = 0

    def _learn(self) -> None:
        """Orders the steps by how much each lowered a deployment's bound on average so far, the loose bounds
        before the tight ones (which cost more) and steps not taken yet first (so that each is tried), ties
        in the order before: so that a deployment falls behind after as few steps as may be."""
        taken, lowered = self.taken, self.lowered
        rank = {step: n for n, step in enumerate(self.steps)}

        def key(step: tuple[int, bool]) -> tuple[bool, float, int]:
            mean = lowered[step] / taken[step] if taken[step] else float("inf")
            return step[1], -mean, rank[step]

        self.steps.sort(key=key)

    def next(self) -> tuple[int, int] | None:
        """``(deployment, its bound)``: takes out the deployment with the best bound over every class (the
        others are bounded further as needed to tell), or ``None`` when none is left."""
        heap, weights, bounds = self.heap, self.weights, self.bounds
        every = len(self.steps)
        while heap:
            negative, i, count = heap[0]
            value = -negative
            if count == every:
                heapq.heappop(heap)
                return i, value
            per = self.per.get(i)
            if per is None:
                per = self.per[i] = list(self.ceilings)
                done = self.done[i] = set()
            else:
                done = self.done[i]
            step = next(step for step in self.steps if step not in done)
            done.add(step)
            r, tight = step
            bound = (
                bounds.tight(self.sides[i], r, per[r])
                if tight
                else min(per[r], bounds.loose(self.sides[i], r))
            )
            lowered = weights[r] * (per[r] - bound)
            self.lowered[step] += lowered
            self.taken[step] += 1
            self.since += 1
            if self.since == LEARN:
                self.since = 0
                self._learn()
            value -= lowered
            per[r] = bound
            heapq.heapreplace(heap, (-value, i, count + 1))
        return None

    def rival(self) -> tuple[int, int] | None:
        """``(bound, deployment)`` of the deployment on top (its bound may not be over every class yet: it is
        an upper bound all the same), or ``None`` when none is left."""
        if not self.heap:
            return None
        negative, i, _done = self.heap[0]
        return -negative, i

    def put_back(self, i: int, value: int) -> None:
        """Puts deployment ``i`` back with the bound ``value`` (its per-class bounds made tighter by the
        search, :attr:`per`)."""
        heapq.heappush(self.heap, (-value, i, len(self.steps)))


def _side_bounds(
    position: Position,
    tables: list[Table],
    ceilings: list[int],
    tactics: tuple[int, ...],
    relaxation: SideRelaxation,
    weights: list[int],
) -> DeploymentBounds:
    saved = position.beer + sum(tactics)
    reveals_figures = [
        (
            t.attacks,
            RevealFigures(
                undefended=value_parts(ceiling)[0],
                catapults=fewest_catapults_lost(t.attacks, tactics),
                skulls=sum(at.skull for at in t.attacks),
                skull_mask=sum(1 << i for i, at in enumerate(t.attacks) if at.skull and at.hits),
                saved=saved,
                ceiling=ceiling,
                supply=usable_supply(position.beer, tactics, tactic_needs(t.attacks)),
            ),
        )
        for t, ceiling in zip(tables, ceilings, strict=True)
    ]
    return DeploymentBounds(
        reveals_figures,
        position.craftsmen + position.soldiers,
        position.knights,
        position.beer,
        tactics,
        relaxation,
        weights,
        position.muster,
    )


@dataclass(frozen=True, slots=True)
class _Found:
    """What :func:`_search` found: the best deployment's ``index``, its summed ``value`` over the classes
    (weighted), and how many deployments were compared (``count``)."""

    index: int
    value: int
    count: int


def _search(
    position: Position,
    tables: list[Table],
    weights: list[int],
    every: list[tuple[tuple[int, int], ...]],
    ranking: _Ranking,
) -> _Found:
    """Best-first search over ``every`` deployment (its ``(men, knights)`` per side), each class of reveals
    counted ``weights`` times.

    The deployment with the best bound (``ranking``) is searched class by class, only as far as it stays
    ahead of the next best bound (its rival): each class's search is told the value below which the
    deployment falls behind (``alpha``), and stops at a play reaching the class's bound (``beta``: no play
    is worth more, so that is the class's value). A class whose value is found exactly is never searched
    again; one whose search fails low leaves a smaller upper bound for the class, and the deployment goes
    back with its lower total, to be taken again only if it is again the best bound. The first deployment
    whose every class is exact on top is the best (it is worth its bound, and every other is worth at most its
    own, which is no better; an earlier deployment wins ties, as the heap orders them). A class that fails
    low twice for a deployment is searched exactly the next time, so that a deployment cannot go back and
    forth for ever. The tables are solved without the Covers (:func:`solve`)."""
    # Classes standing for more reveals first: they weigh most in a deployment's total, so they tell
    # deployments apart soonest (then the one that last put a deployment back moves to the front).
    order = sorted(range(len(tables)), key=lambda r: -weights[r])
    known: dict[int, set[int]] = {}
    cuts: dict[tuple[int, int], int] = {}
    while (taken := ranking.next()) is not None:
        i, total = taken
        per = ranking.per[i]
        exact = known.setdefault(i, set())
        units = tuple(n for men, knights in every[i] for n in (men, knights, 0))
        state = (units, position.beer, _without_covers(position), position.muster)
        rival = ranking.rival()
        for rank, r in enumerate(order):
            if r in exact:
                continue
            w = weights[r]
            rest = total - w * per[r]
            alpha = None
            if rival is not None and cuts.get((i, r), 0) < 2:
                # Deployment i stays ahead while ``rest + w * v`` beats the rival's bound (an earlier
                # deployment wins ties): while ``w * v >= target``, so it falls behind when ``v <= alpha``.
                target = rival[0] - rest + (i > rival[1])
                alpha = -(-target // w) - 1
            value = tables[r].probe(0, state, alpha, per[r])
            if alpha is None or value > alpha:
                exact.add(r)  # between alpha and beta, or at beta (the class's bound), the value is exact
            else:
                cuts[(i, r)] = cuts.get((i, r), 0) + 1
            per[r] = min(value, per[r])
            total = rest + w * per[r]
            if rival is not None and (total < rival[0] or (total == rival[0] and i > rival[1])):
                order.insert(0, order.pop(rank))  # this class tells deployments apart: try it first
                ranking.put_back(i, total)
                break
        else:
            return _Found(i, total, len(known))
    raise AssertionError("no deployment")  # pragma: no cover - deployments() yields at least one
