"""Upper bounds on a deployment's value for each reveal, found one side at a time (the solver's pruning).

Without Muster Tokens (D14) no unit leaves its side, so the sides meet only in three ways: they share the
Beer (D13) and the Tactics (D10), and a card is defended only if every side it hits holds (D11, D15). The
*side relaxation* lets each side face its own hits alone, with all the Beer and all the Tactics to itself.
Every real play, seen from one side, is a play of that side's relaxation, so for every play ``P`` and every
side ``j``:

- the cards ``P`` leaves undefended are at least the cards side ``j`` lets fall, which are at least the
  fewest side ``j`` can let fall (:attr:`SideFigures.falls`);
- the Strong Attacks (skulls) ``P`` leaves undefended are at least the fewest skulls side ``j`` can let
  fall, so ``P``'s Bravery (D16) is at most the skulls in the row less that (:attr:`SideFigures.skulls`);
- the strength ``P`` keeps on side ``j`` (D27) is at most the most that side can keep
  (:attr:`SideFigures.kept`).

Adding the sides' best strength and taking the worst side's falls gives an upper bound on the value of the
best play (:mod:`.resolve`'s radix order, D28) that depends on the deployment, which the solver computes for
thousands of deployments from a few tables per side. Source of the method: Lagrangian-free decomposition
bounds for branch and bound, as in any textbook on combinatorial search.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product
from operator import mul

from .cards import Tactic
from .resolve import BRAVERY, KEPT, SAVED, TACTICS, UNDEFENDED, Attack, State, absorb

#: The index of Covers in :data:`.resolve.TACTICS`: only Catapults use them (D24), never a side.
COVERS = TACTICS.index(Tactic.COVERS)

#: "No play does it": more Beer and Tactics than any Castle holds.
NEVER = 1 << 20

#: One side's hits in resolution order: ``(need, Tactic index or -1, skull, card bit)`` per card that asks
#: it for strength after Fortifications (D9); the card bit is ``1 << index`` in resolution order.
SideHits = tuple[tuple[int, int, bool, int], ...]


def side_hits(attacks: tuple[Attack, ...], side: int) -> SideHits:
    """The hits of ``attacks`` (resolution order) on ``side`` that ask for strength."""
    return tuple(
        (hit.need, at.tactic, at.skull, 1 << i)
        for i, at in enumerate(attacks)
        for hit in at.hits
        if hit.side == side and hit.need
    )


def fewest_catapults_lost(attacks: tuple[Attack, ...], tactics: tuple[int, ...]) -> int:
    """The fewest Catapults of ``attacks`` left undefended with the Covers in ``tactics`` (D24): the Covers
    go to the weakest Catapults first, which defends the most of them."""
    castles = sorted(at.castle for at in attacks if not at.hits)
    covers = tactics[TACTICS.index(Tactic.COVERS)]
    defended = 0
    for castle in castles:
        if castle > covers:
            break
        covers -= castle
        defended += 1
    return len(castles) - defended


@dataclass(frozen=True, slots=True)
class SideFigures:
    """One side's relaxation from one start: the fewest cards it must let fall, the fewest Strong Attacks
    it must let fall, and the most strength it can keep, each over every play (not necessarily the same
    play); ``forced``, the cards it lets fall in every play (bits as in :data:`SideHits`); ``demand[u]``,
    the fewest Beer and Tactics it spends in a play letting at most ``u`` cards fall (:data:`NEVER` if no
    play does; the last entry holds for any larger ``u``)."""

    falls: int
    skulls: int
    kept: int
    forced: int
    demand: tuple[int, ...]


class _Hits:
    """One side's hits from some card on, as a chain: the first hit's ``need``, ``tactic``, ``skull`` and
    ``bit``, the ``rest``, and what the relaxation reads of the whole: its ``uid`` (the memo's key), how
    many hits (``size``), the strength asked for in all (``most``) and the Tactics used (``usable``)."""

    __slots__ = ("bit", "most", "need", "rest", "size", "skull", "tactic", "uid", "usable")

    def __init__(self, hits: SideHits, rest: _Hits | None, uid: int) -> None:
        self.need, self.tactic, self.skull, self.bit = hits[0]
        self.rest = rest
        self.uid = uid
        self.size = len(hits)
        self.most = sum(hit[0] for hit in hits)
        self.usable = frozenset(hit[1] for hit in hits)


class SideRelaxation:
    """The side relaxation's figures, remembered by hits and start so that reveals, deployments and states
    that meet the same hits share them."""

    def __init__(self) -> None:
        """An empty memo (one per solve: it grows with the positions met)."""
        self.memo: dict[tuple[int, int, int, int, int, tuple[int, ...], int, bool], SideFigures] = {}
        self.chains: dict[SideHits, _Hits | None] = {(): None}

    def figures(
        self,
        hits: SideHits,
        men: int,
        knights: int,
        down: int,
        beer: int,
        tactics: tuple[int, ...],
        arrivals: int = 0,
    ) -> SideFigures:
        """The :class:`SideFigures` of ``men`` Craftsmen and Soldiers, ``knights`` Knights and ``down``
        laid-down Workers standing on a side that meets ``hits``, with ``beer`` Beer and ``tactics`` (counts
        per :data:`.resolve.TACTICS`) all to itself, and up to ``arrivals`` more Workers (Craftsmen,
        Soldiers or Knights) joining it before any hit.

        The arrivals are the Muster Tokens' relaxation (D14). A unit moved onto a side joins it before some
        card; a unit moved off a side would, had it stayed, only have added to the units there (and more
        units at every moment never hold less nor keep less); a unit moved onto a side after its last hit
        is kept there (counted as a Knight's strength). So each side's play with the units it really had is
        a play of this relaxation, with the units moved onto it arriving when they did."""
        return self._solve(self._chain(hits), men, knights, down, beer, tactics, arrivals, True)

    def _chain(self, hits: SideHits) -> _Hits | None:
        found = self.chains.get(hits, False)
        if found is False:
            found = _Hits(hits, self._chain(hits[1:]), len(self.chains))
            self.chains[hits] = found
        return found  # type: ignore[return-value]

    def _solve(
        self,
        hits: _Hits | None,
        m: int,
        k: int,
        down: int,
        beer: int,
        tactics: tuple[int, ...],
        arrivals: int,
        join: bool,
    ) -> SideFigures:
        """The figures from ``hits`` on; ``join``: whether arrivals may join before the first of them."""
        if hits is None:
            # Units may still arrive to be kept here (at most a Knight's strength each).
            return SideFigures(0, 0, m + 2 * k + down + 2 * arrivals, 0, (0,))
        join = join and arrivals > 0
        raw = (hits.uid, m, k, down, beer, tactics, arrivals, join)
        found = self.memo.get(raw)
        if found is not None:
            return found
        # What cannot matter any more: units of a kind beyond the strength still asked for (they are only
        # kept: a side asked for N more touches at most N units of each kind), Beer beyond the men who may
        # drink it (D13; men may still arrive), Tactics no hit uses.
        most = hits.most
        extra = max(m - most, 0) + 2 * max(k - most, 0) + max(down - most, 0)
        if extra:
            inner = self._solve(
                hits, min(m, most), min(k, most), min(down, most), beer, tactics, arrivals, join
            )
            found = SideFigures(inner.falls, inner.skulls, inner.kept + extra, inner.forced, inner.demand)
            self.memo[raw] = found
            return found
        beer = min(beer, m + arrivals)
        usable = hits.usable
        tactics = tuple(count if t in usable else 0 for t, count in enumerate(tactics))
        key = (hits.uid, m, k, down, beer, tactics, arrivals, join)
        found = self.memo.get(key)
        if found is None:
            found = self._expand(hits, m, k, down, beer, tactics, arrivals, join)
            self.memo[key] = found
        self.memo[raw] = found
        return found

    def _expand(
        self,
        hits: _Hits,
        m: int,
        k: int,
        down: int,
        beer: int,
        tactics: tuple[int, ...],
        arrivals: int,
        join: bool,
    ) -> SideFigures:
        need, tactic, skull, bit = hits.need, hits.tactic, hits.skull, hits.bit
        rest = hits.rest
        available = tactics[tactic] if tactic >= 0 else 0
        size = hits.size + 1
        falls = skulls = size
        kept = forced = -1
        demand = [NEVER] * size
        groups: dict[tuple[int, bool], tuple[int, ...]] = {}
        # Arrivals join men or Knights (a laid-down Worker arriving does no more than a man would), and only
        # at the start or after a hit the side let fall: a unit that joins while the side holds does as well
        # joining at the start of that run of held hits (more units never hold less); one that joins just
        # before a fall is spent in it for nothing.
        joining = (
            [(men, knights) for men in range(arrivals + 1) for knights in range(arrivals - men + 1)]
            if join
            else [(0, 0)]
        )
        for men, knights in joining:
            later_arrivals = arrivals - men - knights
            for used in range(min(need, available) + 1):
                left = (*tactics[:tactic], available - used, *tactics[tactic + 1 :]) if used else tactics
                for m2, k2, down2, drunk, held, _damage in absorb(
                    m + men, k + knights, down, need - used, beer
                ):
                    after = self._solve(rest, m2, k2, down2, beer - drunk, left, later_arrivals, not held)
                    falls = min(falls, after.falls + (not held))
                    skulls = min(skulls, after.skulls + (not held and skull))
                    kept = max(kept, after.kept)
                    forced &= after.forced | (0 if held else bit)
                    # The rest's demand, padded to this side's length, least per (spent here, held).
                    later = after.demand
                    if len(later) < size:
                        later = later + (later[-1],) * (size - len(later))
                    group = (used + drunk, held)
                    least = groups.get(group)
                    groups[group] = later if least is None else tuple(map(min, least, later))
        for (spent, held), later in groups.items():
            shift = not held
            for u in range(shift, size):
                cost = spent + later[u - shift]
                if cost < demand[u]:
                    demand[u] = cost
        return SideFigures(falls, skulls, kept, forced, tuple(demand))


def enough(
    falls: int, supply: int, f0: SideFigures, f1: SideFigures, f2: SideFigures, f3: SideFigures
) -> int:
    """The fewest cards, from ``falls`` up, that the four sides may let fall between them when they share
    ``supply`` Beer and Tactics (Covers aside): each side letting at most ``u`` fall spends at least its
    ``demand[u]``, and the sides' spending adds up (a Tactic or a Beer is spent once, D10, D13)."""
    while True:
        spent = (
            f0.demand[min(falls, len(f0.demand) - 1)]
            + f1.demand[min(falls, len(f1.demand) - 1)]
            + f2.demand[min(falls, len(f2.demand) - 1)]
            + f3.demand[min(falls, len(f3.demand) - 1)]
        )
        if spent <= supply:
            return falls
        falls += 1


def combined(
    supply: int, skull_mask: int, f0: SideFigures, f1: SideFigures, f2: SideFigures, f3: SideFigures
) -> tuple[int, int, int]:
    """What the four sides' figures bound together: ``(cards let fall, Strong Attacks let fall, strength
    kept)``. The cards: at least every card some side lets fall in every play, and at least each side's
    fewest, raised until the sides' Beer and Tactics fit ``supply`` (:func:`enough`). The Strong Attacks:
    likewise, among the cards of ``skull_mask``. The strength: each side's most, added up."""
    forced = f0.forced | f1.forced | f2.forced | f3.forced
    falls = max(forced.bit_count(), f0.falls, f1.falls, f2.falls, f3.falls)
    falls = enough(falls, supply, f0, f1, f2, f3)
    lost = max((forced & skull_mask).bit_count(), f0.skulls, f1.skulls, f2.skulls, f3.skulls)
    return falls, lost, f0.kept + f1.kept + f2.kept + f3.kept


@dataclass(frozen=True, slots=True)
class RevealFigures:
    """For one reveal, what the side bound needs besides the sides: ``undefended``, the fewest undefended
    cards of any deployment (from the pooled relaxation, :func:`.resolve.relaxed_bound`); ``catapults``,
    the fewest Catapults the Covers leave undefended (D24: no Worker plays a part there, so these add to
    any side's falls); ``skulls``, the Strong Attacks in the row, and ``skull_mask`` those that hit sides
    (bits as in :data:`SideHits`); ``saved``, all the Tactics and Beer;
    ``ceiling``, the pooled bound itself."""

    undefended: int
    catapults: int
    skulls: int
    skull_mask: int
    saved: int
    ceiling: int


@cache
def shares(muster: int) -> tuple[tuple[int, int, int, int], ...]:
    """The ways to share ``muster`` arrivals between the four sides, each using them all (more arrivals
    never bound less, so these are the only ones to try)."""
    return tuple(
        (a, b, c, muster - a - b - c)
        for a in range(muster + 1)
        for b in range(muster - a + 1)
        for c in range(muster - a - b + 1)
    )


class DeploymentBounds:
    """Upper bounds on :meth:`.resolve.Table.best` per deployment and reveal, from the side relaxation.

    ``reveals``: per reveal, its attacks (resolution order) and its :class:`RevealFigures`; ``men`` and
    ``knights``: the Workers to deploy (Craftsmen and Soldiers as one kind). A deployment is given as its
    ``(men, knights)`` per side. With ``muster`` Muster Tokens, the sides are relaxed with arrivals
    (:meth:`SideRelaxation.figures`): each token moves one unit onto one side, so the sides' arrivals add
    up to at most ``muster``.
    """

    def __init__(
        self,
        reveals: list[tuple[tuple[Attack, ...], RevealFigures]],
        men: int,
        knights: int,
        beer: int,
        tactics: tuple[int, ...],
        relaxation: SideRelaxation,
        weights: list[int] | None = None,
        muster: int = 0,
    ) -> None:
        """Computes every side's figures for every start of ``men`` and ``knights``, every reveal and every
        number of arrivals up to ``muster``, with the position's ``beer`` and ``tactics``; ``weights``: how
        many reveals each stands for (1 each by default), by which :meth:`quick` counts them."""
        self.reveals = [figures for _attacks, figures in reveals]
        self.weights = [1] * len(reveals) if weights is None else list(weights)
        self.supply = beer + sum(tactics) - tactics[COVERS]
        self.muster = muster
        starts = list(product(range(men + 1), range(knights + 1)))
        self.hits = [[side_hits(attacks, side) for attacks, _figures in reveals] for side in range(4)]
        self.relaxation = relaxation
        self.beer, self.tactics = beer, tactics
        #: Per number of arrivals, side and start: the :class:`SideFigures` per reveal, filled as they are
        #: needed (:meth:`_figures`) but for all the arrivals, which :meth:`quick` reads for every start.
        self.by_arrivals: list[list[dict[tuple[int, int], list[SideFigures]]]] = [
            [{} for _side in range(4)] for _a in range(muster + 1)
        ]
        self.sides = [{start: self._figures(muster, side, start) for start in starts} for side in range(4)]
        self.shares = shares(muster)
        # For :meth:`quick`: per side and start, the falls (Catapults added) and the skulls lost per reveal,
        # and the strength kept summed over the reveals.
        self.falls = [
            {
                start: [f.falls + figures.catapults for f, figures in zip(row, self.reveals, strict=True)]
                for start, row in table.items()
            }
            for table in self.sides
        ]
        self.skulls = [
            {start: [f.skulls for f in row] for start, row in table.items()} for table in self.sides
        ]
        weight = self.weights
        self.kept = [
            {start: sum(w * f.kept for w, f in zip(weight, row, strict=True)) for start, row in table.items()}
            for table in self.sides
        ]
        self.undefended = [figures.undefended for figures in self.reveals]
        self.base = sum(
            w * (figures.saved * SAVED + figures.skulls * BRAVERY)
            for w, figures in zip(weight, self.reveals, strict=True)
        )

    def quick(self, sides: tuple[tuple[int, int], ...]) -> int:
        """A looser upper bound than the sum of :meth:`per_reveal`, quicker to compute (it leaves out the
        cards every play lets fall, and gives every side all the arrivals): the bound that orders the
        deployments."""
        a, b, c, d = sides
        f, s = self.falls, self.skulls
        w = self.weights
        undefended: int = sum(map(mul, w, map(max, self.undefended, f[0][a], f[1][b], f[2][c], f[3][d])))
        lost: int = sum(map(mul, w, map(max, s[0][a], s[1][b], s[2][c], s[3][d])))
        kept = self.kept[0][a] + self.kept[1][b] + self.kept[2][c] + self.kept[3][d]
        return self.base + undefended * UNDEFENDED + kept * KEPT - lost * BRAVERY

    def per_reveal(self, sides: tuple[tuple[int, int], ...]) -> list[int]:
        """Per reveal, an upper bound on the best value from the deployment ``sides``: the least of the side
        bound (the best over the ways to share the arrivals) and the pooled relaxation's."""
        per_share = [[self._figures(share[j], j, sides[j]) for j in range(4)] for share in self.shares]
        out = []
        for r, figures in enumerate(self.reveals):
            best = max(self._bound(figures, f0[r], f1[r], f2[r], f3[r]) for f0, f1, f2, f3 in per_share)
            out.append(min(best, figures.ceiling))
        return out

    def _figures(self, arrivals: int, side: int, start: tuple[int, int]) -> list[SideFigures]:
        """Side ``side``'s figures per reveal from ``start`` with ``arrivals``, remembered."""
        table = self.by_arrivals[arrivals][side]
        found = table.get(start)
        if found is None:
            found = table[start] = [
                self.relaxation.figures(h, *start, 0, self.beer, self.tactics, arrivals)
                for h in self.hits[side]
            ]
        return found

    def _bound(
        self, figures: RevealFigures, f0: SideFigures, f1: SideFigures, f2: SideFigures, f3: SideFigures
    ) -> int:
        falls, lost, kept = combined(self.supply, figures.skull_mask, f0, f1, f2, f3)
        undefended = max(figures.undefended, falls + figures.catapults)
        return (
            undefended * UNDEFENDED + kept * KEPT + (figures.skulls - lost) * BRAVERY + figures.saved * SAVED
        )


class StateBound:
    """An upper bound on :meth:`.resolve.Table.best` from any state, for one sequence of attacks: the side
    relaxation from that state (with ``t`` Muster Tokens left, ``t`` arrivals on every side). The exact
    search uses it to skip plays that cannot beat the best play found so far at the same card."""

    def __init__(self, attacks: tuple[Attack, ...], relaxation: SideRelaxation) -> None:
        """``attacks``: resolution order; ``relaxation``: the side relaxation's memo, shared by a solve."""
        self.figures = relaxation.figures
        self.memo: dict[tuple[int, State], int] = {}
        ends = range(len(attacks) + 1)
        #: Per card index: the hits per side from there on, the bits of the Strong Attacks among them and
        #: their count (Catapults included), and the Covers' Catapults from there on.
        self.hits = [[side_hits(attacks[i:], side) for side in range(4)] for i in ends]
        self.skull_mask = [
            sum(1 << n for n, at in enumerate(attacks[i:]) if at.skull and at.hits) for i in ends
        ]
        self.skulls = [sum(at.skull for at in attacks[i:]) for i in ends]
        self.catapults = [tuple(at for at in attacks[i:] if not at.hits) for i in ends]
        #: Per card index and side: the side's figures by its units and the resources (:meth:`_side`).
        self.sides: list[list[dict[tuple[int, int, int, int, tuple[int, ...], int], SideFigures]]] = [
            [{} for _side in range(4)] for _ in ends
        ]

    def __call__(self, i: int, state: State) -> int:
        """An upper bound on the best value of ``attacks[i:]`` from ``state`` (D28)."""
        key = (i, state)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = self._bound(i, state)
        return found

    def _bound(self, i: int, state: State) -> int:
        # With Muster Tokens left, every side may take them all as arrivals: looser than sharing them out
        # as the deployment bound does, but one evaluation in place of one per share, at every node.
        u, beer, tactics, muster = state
        side = self._side
        f0 = side(i, 0, u[0], u[1], u[2], beer, tactics, muster)
        f1 = side(i, 1, u[3], u[4], u[5], beer, tactics, muster)
        f2 = side(i, 2, u[6], u[7], u[8], beer, tactics, muster)
        f3 = side(i, 3, u[9], u[10], u[11], beer, tactics, muster)
        falls, lost, kept = combined(
            beer + sum(tactics) - tactics[COVERS], self.skull_mask[i], f0, f1, f2, f3
        )
        if self.catapults[i]:
            falls += fewest_catapults_lost(self.catapults[i], tactics)
        return (
            falls * UNDEFENDED
            + kept * KEPT
            + (self.skulls[i] - lost) * BRAVERY
            + (beer + sum(tactics)) * SAVED
        )

    def _side(
        self, i: int, j: int, m: int, k: int, down: int, beer: int, tactics: tuple[int, ...], arrivals: int
    ) -> SideFigures:
        """Side ``j``'s figures from card ``i`` on, remembered here by the side's units, the resources and
        the arrivals (a smaller key than the relaxation's, which holds the hits)."""
        cache = self.sides[i][j]
        key = (m, k, down, beer, tactics, arrivals)
        found = cache.get(key)
        if found is None:
            found = cache[key] = self.figures(self.hits[i][j], m, k, down, beer, tactics, arrivals)
        return found
