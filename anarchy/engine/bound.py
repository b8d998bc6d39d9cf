"""Upper bounds on a deployment's value for each reveal, found one side at a time (the solver's pruning).

The sides of the Castle meet in few ways: they share the Beer (D13) and the Tactics (D10), a card is
defended only if every side it hits holds (D11, D15), and Muster Tokens move units between them (D14). The
*side relaxation* lets each side face its own hits alone, with all the Beer and all the Tactics to itself,
and with Muster Tokens, units arriving on it and leaving it (:meth:`SideRelaxation.figures`). Every real
play, seen from one side, is a play of that side's relaxation. So if a play ``P`` lets fall the cards of a
set ``U`` (a card falls when any side it hits falls), then every side ``j``:

- lets fall only cards of ``U`` in its relaxation;
- keeps at most the most strength its relaxation keeps while letting fall only cards of ``U``;
- loses at least the least strength its relaxation loses so (the strength the hits take off its units);
- spends at least the fewest Beer and Tactics its relaxation spends so, and the sides' spending adds up
  to at most what the Castle holds.

Each side's figures per set of cards let fall (its :data:`FallTable`) are found once per start and
remembered; :func:`combined` puts the four sides together into an upper bound on the value of the best play
(:mod:`.resolve`'s radix order, D28), which the solver computes for thousands of deployments. Source of the
method: decomposition bounds for branch and bound, as in any textbook on combinatorial search.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import chain
from operator import mul

from .cards import Tactic
from .resolve import BRAVERY, KEPT, SAVED, STRENGTHS, TACTICS, UNDEFENDED, Attack, State, absorb, relaxed

#: The index of Covers in :data:`.resolve.TACTICS`: only Catapults use them (D24), never a side.
COVERS = TACTICS.index(Tactic.COVERS)

#: "No play does it": more Beer and Tactics than any Castle holds.
NEVER = 1 << 20

#: The bits of one figure in :attr:`Closure.packed`: four sides' figures (strength, Beer and Tactics, at
#: most a few dozen each) add up below ``1 << FIELD``, so packed figures add without carrying.
FIELD = 16
MASK = (1 << FIELD) - 1
#: Where the strength lost, the cost and the cost in Beer start in :attr:`Closure.packed` (the Beer and
#: Tactics spent start at :data:`FIELD`, the strength kept at 0).
LOST = 2 * FIELD
COST = 3 * FIELD
DRUNK = 4 * FIELD

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


def tactic_needs(attacks: tuple[Attack, ...]) -> tuple[int, ...]:
    """Per Tactic (:data:`.resolve.TACTICS` order), the most of it that ``attacks`` can take: the needs of
    the cards that use it, summed over the sides they hit (a Tactic spent on a side stops at most its need
    there, D10). Catapults ask no side for strength, so Covers count 0 here."""
    return tuple(
        sum(h.need for at in attacks if at.tactic == t for h in at.hits) for t in range(len(TACTICS))
    )


def usable_supply(beer: int, tactics: tuple[int, ...], needs: tuple[int, ...]) -> int:
    """The Beer and Tactics that the sides can spend in all: the Beer, and of each Tactic no more than its
    cards can take (``needs``, :func:`tactic_needs`). Each is spent once (D10, D13), so the sides' spending
    adds up to at most this."""
    return beer + sum(map(min, tactics, needs))


def fewest_catapults_lost(attacks: tuple[Attack, ...], tactics: tuple[int, ...]) -> int:
    """The fewest Catapults of ``attacks`` left undefended with the Covers in ``tactics`` (D24): the Covers
    go to the weakest Catapults first, which defends the most of them."""
    castles = sorted(at.castle for at in attacks if not at.hits)
    covers = tactics[COVERS]
    defended = 0
    for castle in castles:
        if castle > covers:
            break
        covers -= castle
        defended += 1
    return len(castles) - defended


#: One side's relaxation from one start, per exact set of cards it lets fall: ``(fall mask, most strength
#: kept, fewest Beer and Tactics spent, least strength lost, least strength lost and Beer and Tactics
#: spent together, least strength lost and Beer drunk together)``, each over every play letting exactly
#: those cards fall (bits as in :data:`SideHits`). The strength lost is what the hits took off the units
#: while they stood on the side.
FallTable = tuple[tuple[int, int, int, int, int, int], ...]


class Closure:
    """A side's :data:`FallTable` closed over every set ``U`` of the first ``n`` cards (``U`` a bit mask):
    ``reach`` has bit ``U`` set when some play lets only cards of ``U`` fall; ``kept[U]`` is the most
    strength kept, ``spent[U]`` the fewest Beer and Tactics spent, ``lost[U]`` the least strength lost,
    ``cost[U]`` the least of the two together and ``drunk[U]`` the least strength lost and Beer drunk
    together by such plays (-1, else :data:`NEVER`, when none does)."""

    __slots__ = ("cost", "drunk", "kept", "lost", "packed", "reach", "spent")

    def __init__(self, table: FallTable, n: int) -> None:
        """Closes ``table`` over the ``2**n`` sets of ``n`` cards."""
        size = 1 << n
        kept = [-1] * size
        spent = [NEVER] * size
        lost = [NEVER] * size
        cost = [NEVER] * size
        drunk = [NEVER] * size
        for mask, most, least, loss, both, dear in table:
            for u in range(size):
                if mask & u == mask:
                    if most > kept[u]:
                        kept[u] = most
                    if least < spent[u]:
                        spent[u] = least
                    if loss < lost[u]:
                        lost[u] = loss
                    if both < cost[u]:
                        cost[u] = both
                    if dear < drunk[u]:
                        drunk[u] = dear
        self.kept = kept
        self.spent = spent
        self.lost = lost
        self.cost = cost
        self.drunk = drunk
        self.reach = sum(1 << u for u in range(size) if kept[u] >= 0)
        #: Per set ``U`` some play reaches, its five figures in one number, :data:`FIELD` bits each (kept,
        #: spent, lost, cost, drunk from the lowest), so that :func:`combined` sums four sides' in one
        #: addition.
        self.packed = [
            kept[u] | spent[u] << FIELD | lost[u] << LOST | cost[u] << COST | drunk[u] << DRUNK
            if kept[u] >= 0
            else 0
            for u in range(size)
        ]


#: Per number of cards ``n``: the sets of cards (bit masks below ``2**n``) by how many cards they hold, each
#: as a bit set over the sets (bit ``U`` for set ``U``).
LEVELS: list[list[int]] = [
    [sum(1 << u for u in range(1 << n) if u.bit_count() == c) for c in range(n + 1)] for n in range(8)
]


class _Hits:
    """One side's hits from some card on, as a chain: the first hit's ``need``, ``tactic`` and ``bit``, the
    ``rest``, and what the relaxation reads of the whole: its ``uid`` (the memo's key), the strength asked
    for in all (``most``) and the Tactics used (``keep``)."""

    __slots__ = ("bit", "keep", "most", "need", "rest", "tactic", "uid")

    def __init__(self, hits: SideHits, rest: _Hits | None, uid: int) -> None:
        self.need, self.tactic, _skull, self.bit = hits[0]
        self.rest = rest
        self.uid = uid
        self.most = sum(hit[0] for hit in hits)
        usable = {hit[1] for hit in hits}
        #: Per Tactic, 1 if some hit uses it, else 0 (a Tactic no hit uses is set to 0 by multiplying).
        self.keep = tuple(int(t in usable) for t in range(len(TACTICS)))


class SideRelaxation:
    """The side relaxation's figures, remembered by hits and start so that reveals, deployments and states
    that meet the same hits share them."""

    def __init__(self) -> None:
        """An empty memo (one per solve: it grows with the positions met)."""
        self.memo: dict[tuple[int, int, int, int, int, tuple[int, ...], int, int, bool], FallTable] = {}
        self.chains: dict[SideHits, _Hits | None] = {(): None}
        self.closures: dict[tuple[FallTable, int], Closure] = {}
        #: The pooled relaxation's memo (:func:`.resolve.relaxed`), for the state bounds.
        self.pooled: dict[tuple[object, ...], dict[State, int]] = {}

    def closure(self, table: FallTable, n: int) -> Closure:
        """``table`` closed over the sets of ``n`` cards (:class:`Closure`), remembered."""
        key = (table, n)
        found = self.closures.get(key)
        if found is None:
            found = self.closures[key] = Closure(table, n)
        return found

    def figures(
        self,
        hits: SideHits,
        men: int,
        knights: int,
        down: int,
        beer: int,
        tactics: tuple[int, ...],
        arrivals: int = 0,
        departures: int = 0,
    ) -> FallTable:
        """The :data:`FallTable` of ``men`` Craftsmen and Soldiers, ``knights`` Knights and ``down``
        laid-down Workers standing on a side that meets ``hits``, with ``beer`` Beer and ``tactics`` (counts
        per :data:`.resolve.TACTICS`) all to itself, up to ``arrivals`` more Workers (Craftsmen, Soldiers
        or Knights) joining it before any hit, and up to ``departures`` of its units leaving it.

        The arrivals and departures are the Muster Tokens' relaxation (D14). A unit moved onto a side joins
        it before some card; a unit moved onto a side after its last hit is kept there (counted as a
        Knight's strength). A unit moved off a side would, had it stayed, only have added to the units there
        (more units at every moment never hold less nor keep less) up to the next hit the side lets fall,
        where it would have been spent: so it leaves just before that hit (the strongest units leave
        first). So each side's play with the units it really had is a play of this relaxation, with the
        units moved onto it arriving when they did, and it loses no more strength there than the real play
        (the strength lost, unlike the strength kept, is not counted twice for a unit that moves)."""
        chain = self._chain(hits)
        return self._solve(chain, men, knights, down, beer, tactics, arrivals, departures, True)

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
        departures: int,
        join: bool,
    ) -> FallTable:
        """The table from ``hits`` on; ``join``: whether arrivals may join before the first of them."""
        if hits is None:
            # Units may still arrive to be kept here (at most a Knight's strength each).
            return ((0, m + 2 * k + down + 2 * arrivals, 0, 0, 0, 0),)
        join = join and arrivals > 0
        raw = (hits.uid, m, k, down, beer, tactics, arrivals, departures, join)
        found = self.memo.get(raw)
        if found is not None:
            return found
        # What cannot matter any more: units of a kind beyond the strength still asked for and the departures
        # (they are only kept: a side asked for N more touches at most N units of each kind, and cannot fall
        # while it holds more than N of one kind), Beer beyond the men who may drink it (D13; men may still
        # arrive), Tactics no hit uses.
        most = hits.most + departures
        if m > most or k > most or down > most:
            extra = max(m - most, 0) + 2 * max(k - most, 0) + max(down - most, 0)
            inner = self._solve(
                hits, min(m, most), min(k, most), min(down, most), beer, tactics, arrivals, departures, join
            )
            found = tuple(
                [
                    (mask, kept + extra, spent, lost, cost, drunk)
                    for mask, kept, spent, lost, cost, drunk in inner
                ]
            )
            self.memo[raw] = found
            return found
        if beer > m + arrivals:
            beer = m + arrivals
        tactics = tuple(map(mul, tactics, hits.keep))
        key = (hits.uid, m, k, down, beer, tactics, arrivals, departures, join)
        found = self.memo.get(key)
        if found is None:
            found = self._expand(hits, m, k, down, beer, tactics, arrivals, departures, join)
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
        departures: int,
        join: bool,
    ) -> FallTable:
        need, tactic, bit = hits.need, hits.tactic, hits.bit
        rest = hits.rest
        available = tactics[tactic] if tactic >= 0 else 0
        # Per exact set of cards let fall: the most strength kept, the fewest Beer and Tactics spent and the
        # least strength lost.
        found: dict[int, list[int]] = {}

        def add(after: FallTable, fell: int, spent_here: int, lost_here: int, drunk_here: int) -> None:
            for mask, kept, spent, lost, cost, drunk in after:
                mask |= fell
                spent += spent_here
                lost += lost_here
                cost += spent_here + lost_here
                drunk += drunk_here + lost_here
                best = found.get(mask)
                if best is None:
                    found[mask] = [kept, spent, lost, cost, drunk]
                else:
                    if kept > best[0]:
                        best[0] = kept
                    if spent < best[1]:
                        best[1] = spent
                    if lost < best[2]:
                        best[2] = lost
                    if cost < best[3]:
                        best[3] = cost
                    if drunk < best[4]:
                        best[4] = drunk

        # Arrivals join men or Knights (a laid-down Worker arriving does no more than a man would), and only
        # at the start or after a hit the side let fall: a unit that joins while the side holds does as well
        # joining at the start of that run of held hits (more units never hold less); one that joins just
        # before a fall is spent in it for nothing.
        joining = (
            [(men, knights) for men in range(arrivals + 1) for knights in range(arrivals - men + 1)]
            if join
            else [(0, 0)]
        )
        solve = self._solve
        for men, knights in joining:
            later = arrivals - men - knights
            m1, k1 = m + men, k + knights
            strength = m1 + 2 * k1 + down
            leaving = min(departures, m1 + k1 + down)
            for used in range(min(need, available) + 1):
                left = (*tactics[:tactic], available - used, *tactics[tactic + 1 :]) if used else tactics
                asked = need - used
                for m2, k2, down2, drunk, held, _damage in absorb(m1, k1, down, asked, beer):
                    after = solve(rest, m2, k2, down2, beer - drunk, left, later, departures, not held)
                    add(after, 0 if held else bit, used + drunk, strength - (m2 + 2 * k2 + down2), drunk)
                # Units leaving just before a hit the side then cannot hold (or holds with every unit left),
                # the strongest first.
                staying = strength
                for gone in range(1, leaving + 1):
                    staying -= 2 if gone <= k1 else 1
                    if staying <= asked:
                        fell = staying < asked
                        after = solve(rest, 0, 0, 0, beer, left, later, departures - gone, fell)
                        add(after, bit if fell else 0, used, staying, 0)
        return tuple(
            sorted(
                (mask, kept, spent, lost, cost, drunk)
                for mask, (kept, spent, lost, cost, drunk) in found.items()
            )
        )


def combined(
    n: int,
    supply: int,
    beer: int,
    skull_mask: int,
    floor: int,
    total: int,
    f0: Closure,
    f1: Closure,
    f2: Closure,
    f3: Closure,
) -> int:
    """What the four sides' closed figures (:class:`Closure`, over ``n`` cards) bound together: the value
    (:mod:`.resolve`'s radix order, D28) of the cards let fall, the Strong Attacks let fall, the strength
    kept and the Beer and Tactics spent, for the best set ``U`` of cards let fall. (Whoever adds the value
    of every Strong Attack defended and every Beer and Tactic saved has a bound on the play's value.)

    A real play lets fall the cards of some set ``U`` (a card falls when any side it hits falls, D15): each
    side lets fall only cards of ``U``, keeps at most its ``kept[U]`` and spends at least its ``spent[U]``,
    and the sides' spending adds up to at most the ``supply`` of Beer and Tactics (each is spent once, D10,
    D13). The strength kept is also at most the ``total`` strength of the units less what each side loses
    at least: a unit moved by a Muster Token may be counted as kept on two sides, but its losses are
    counted on the side where it took them. Each side loses and spends together at least its ``cost[U]``,
    so the strength kept is at most the ``total`` less those costs plus what is spent: keeping more than
    the total less the costs takes that much more spent (up to the ``supply``), which the bound counts (a
    play keeping the most a side can may spend Beer that the side's fewest spent does not). In the same way
    each side loses and drinks together at least its ``drunk[U]``, and no play drinks more than the
    ``beer`` there is: so the strength kept is also at most the ``total`` less those plus the Beer, and
    keeping more than the total less those takes that much Beer (a Tactic spent on a card that falls saves
    nobody, but the Beer and Tactics together would let it count). The strength
    kept cannot be below 0 (no unit loses more strength than it has, and a unit's strength is lost on one
    side only), so a ``U`` for which it is cannot be any play's. So the play is worth at most the best
    ``U`` meeting all these, counted with at least ``floor`` cards let fall (a bound found elsewhere);
    ``skull_mask`` holds the Strong Attacks among the cards."""
    reach = f0.reach & f1.reach & f2.reach & f3.reach
    p0, p1, p2, p3 = f0.packed, f1.packed, f2.packed, f3.packed
    best: int | None = None
    for count, level in enumerate(LEVELS[n]):
        sets = reach & level
        fell = (count if count > floor else floor) * UNDEFENDED
        while sets:
            low = sets & -sets
            sets ^= low
            u = low.bit_length() - 1
            # The four sides' figures summed at once (:attr:`Closure.packed`).
            summed = p0[u] + p1[u] + p2[u] + p3[u]
            spent = (summed >> FIELD) & MASK
            if spent > supply:
                continue
            kept = summed & MASK
            most = total - ((summed >> LOST) & MASK)
            if most < kept:
                kept = most
            # The strength lost and the Beer and Tactics spent add up to at least the sides' least costs, so
            # keeping ``kept`` spends at least ``kept - base``, and no play spends more than the supply;
            # likewise with the strength lost and the Beer drunk (``dry``), and the Beer there is.
            base = total - ((summed >> COST) & MASK)
            if kept > base + supply:
                kept = base + supply
            dry = total - (summed >> DRUNK)
            if kept > dry + beer:
                kept = dry + beer
            if kept < 0:
                continue  # the sides would lose more strength than there is: no play lets fall just U
            extra = kept - (base if base < dry else dry)
            if extra > spent:
                spent = extra
            value = fell + kept * KEPT - (u & skull_mask).bit_count() * BRAVERY - spent * SAVED
            if best is None or value > best:
                best = value
        if best is not None and count >= floor:
            return best  # more cards let fall can only be worse
    assert best is not None  # letting every card fall spends nothing
    return best


@dataclass(frozen=True, slots=True)
class RevealFigures:
    """For one reveal, what the side bound needs besides the sides: ``undefended``, the fewest undefended
    cards of any deployment (from the pooled relaxation, :func:`.resolve.relaxed_bound`); ``catapults``,
    the fewest Catapults the Covers leave undefended (D24: no Worker plays a part there, so these add to
    any side's falls); ``skulls``, the Strong Attacks in the row, and ``skull_mask`` those that hit sides
    (bits as in :data:`SideHits`); ``saved``, all the Tactics and Beer; ``ceiling``, the pooled bound
    itself; ``supply``, the Beer and Tactics its sides can spend (:func:`usable_supply`)."""

    undefended: int
    catapults: int
    skulls: int
    skull_mask: int
    saved: int
    ceiling: int
    supply: int


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
    ``(men, knights)`` per side. With ``muster`` Muster Tokens, the sides are relaxed with arrivals and
    departures (:meth:`SideRelaxation.figures`): each token moves one unit off one side and onto another,
    so the sides' arrivals add up to at most ``muster``, and so do their departures. :meth:`tight`
    shares the arrivals out (all of them, as more never bound less) and gives a side with ``s`` of them at
    most ``muster - s`` departures: a play using ``t`` tokens with ``a_j`` arrivals on side ``j`` sends at
    most ``t - a_j`` units from it (each goes to another side), and the share that adds the ``muster - t``
    tokens left to the ``a_j`` adds no more than that to any one side.
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
        """Nothing is computed yet: each side's figures per start are found when a bound first needs them.
        ``beer`` and ``tactics``: the position's; ``weights``: how many reveals each stands for (1 each by
        default), by which :meth:`total` counts them."""
        self.reveals = [figures for _attacks, figures in reveals]
        self.weights = [1] * len(reveals) if weights is None else list(weights)
        self.muster = muster
        self.strength = men + 2 * knights
        self.hits = [[side_hits(attacks, side) for attacks, _figures in reveals] for side in range(4)]
        self.cards = [len(attacks) for attacks, _figures in reveals]
        self.relaxation = relaxation
        self.beer, self.tactics = beer, tactics
        #: Per number of arrivals, side and start: the closed figures per reveal (:meth:`_closure`).
        self.closed: list[list[dict[tuple[tuple[int, int], int], list[Closure | None]]]] = [
            [{} for _side in range(4)] for _a in range(muster + 1)
        ]
        self.shares = shares(muster)
        #: Per reveal, the way to share the arrivals that :meth:`tight` tries first.
        self.first = [0] * len(reveals)

    def total(self, sides: tuple[tuple[int, int], ...]) -> int:
        """An upper bound on the summed value (each reveal counted by its weight) from the deployment
        ``sides``: the sum of :meth:`loose` over the reveals."""
        return sum(w * self.loose(sides, r) for r, w in enumerate(self.weights))

    def loose(self, sides: tuple[tuple[int, int], ...], r: int) -> int:
        """An upper bound on the best value of reveal ``r`` from the deployment ``sides``, looser than
        :meth:`tight`'s but quicker: every side is given all the arrivals, so the sides are combined
        once, not once per way to share the arrivals; at most the pooled relaxation's. Only reveal ``r``'s
        figures are found (the solver asks reveal by reveal, and stops asking once a deployment is out)."""
        muster = self.muster
        figures = self.reveals[r]
        closure = self._closure
        f0 = closure(muster, 0, sides[0], muster, r)
        f1 = closure(muster, 1, sides[1], muster, r)
        f2 = closure(muster, 2, sides[2], muster, r)
        f3 = closure(muster, 3, sides[3], muster, r)
        return min(self._bound(self.cards[r], figures, f0, f1, f2, f3), figures.ceiling)

    def per_reveal(self, sides: tuple[tuple[int, int], ...]) -> list[int]:
        """Per reveal, :meth:`tight` (the solver asks reveal by reveal; the property tests ask them all)."""
        return [self.tight(sides, r) for r in range(len(self.reveals))]

    def tight(self, sides: tuple[tuple[int, int], ...], r: int, ceiling: int | None = None) -> int:
        """An upper bound on the best value of reveal ``r`` from the deployment ``sides``: the least of the
        side bound (the best over the ways to share the arrivals), the pooled relaxation's and ``ceiling``
        (a bound known already, such as :meth:`loose`: once one way to share reaches it, the others are
        not tried). Without Muster Tokens it is :meth:`loose`."""
        muster = self.muster
        figures = self.reveals[r]
        top = figures.ceiling if ceiling is None else min(ceiling, figures.ceiling)
        n = self.cards[r]
        closure = self._closure
        shares = self.shares
        first = self.first[r]  # the way that gave the best bound last time: the likeliest to reach ``top``
        best: int | None = None
        for k in chain((first,), range(first), range(first + 1, len(shares))):
            share = shares[k]
            value = self._bound(
                n,
                figures,
                closure(share[0], 0, sides[0], muster - share[0], r),
                closure(share[1], 1, sides[1], muster - share[1], r),
                closure(share[2], 2, sides[2], muster - share[2], r),
                closure(share[3], 3, sides[3], muster - share[3], r),
            )
            if best is None or value > best:
                best = value
                self.first[r] = k
                if value >= top:
                    return top
        assert best is not None
        return min(best, top)

    def _closure(self, arrivals: int, side: int, start: tuple[int, int], departures: int, r: int) -> Closure:
        """Side ``side``'s figures for reveal ``r`` from ``start`` with ``arrivals`` and ``departures``,
        closed over the reveal's cards (:class:`Closure`), remembered."""
        table = self.closed[arrivals][side]
        per = table.get((start, departures))
        if per is None:
            per = table[(start, departures)] = [None] * len(self.reveals)
        found = per[r]
        if found is None:
            n = self.cards[r]
            figures = self.relaxation.figures(
                self.hits[side][r], *start, 0, self.beer, self.tactics, arrivals, departures
            )
            found = per[r] = self.relaxation.closure(figures, n)
        return found

    def _bound(
        self, n: int, figures: RevealFigures, f0: Closure, f1: Closure, f2: Closure, f3: Closure
    ) -> int:
        floor = max(figures.undefended - figures.catapults, 0)
        sides = combined(
            n, figures.supply, self.beer, figures.skull_mask, floor, self.strength, f0, f1, f2, f3
        )
        return sides + figures.catapults * UNDEFENDED + figures.skulls * BRAVERY + figures.saved * SAVED


class StateBound:
    """An upper bound on :meth:`.resolve.Table.best` from any state, for one sequence of attacks: the least
    of the side relaxation from that state (with ``t`` Muster Tokens left, ``t`` arrivals and departures on
    every side) and the pooled relaxation (:func:`.resolve.relaxed`). The exact search uses it to skip plays
    that cannot beat the best play found so far at the same card."""

    def __init__(
        self,
        attacks: tuple[Attack, ...],
        relaxation: SideRelaxation,
        start: tuple[int, tuple[int, ...]] | None = None,
    ) -> None:
        """``attacks``: resolution order; ``relaxation``: the side relaxation's memo, shared by a solve;
        ``start``: the Beer and Tactics at the start, if each side's figures are to be found with them
        rather than with a state's own (every state holds no more, so the figures only loosen, while the
        sides' spending is still held to the state's supply; far fewer figures are found)."""
        self.start = start
        self.figures = relaxation.figures
        self.closure = relaxation.closure
        self.pooled = relaxed(attacks, relaxation.pooled)
        #: Per card index and state: the bound with every side given all the arrivals, and the tighter one.
        self.memo: dict[tuple[int, State], int] = {}
        self.tight: dict[tuple[int, State], int] = {}
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
        self.sides: list[list[dict[tuple[int, int, int, int, tuple[int, ...], int, int], Closure]]] = [
            [{} for _side in range(4)] for _ in ends
        ]
        self.cards = [len(attacks) - i for i in ends]
        #: Per card index: how much of each Tactic the cards from there on can take (:func:`tactic_needs`).
        self.needs = [tactic_needs(attacks[i:]) for i in ends]

    def __call__(self, i: int, state: State, floor: int | None = None) -> int:
        """An upper bound on the best value of ``attacks[i:]`` from ``state`` (D28). With Muster Tokens
        left, every side is first given them all as arrivals and departures (:meth:`_bound`); with one
        token left, if that bound is above ``floor`` (or there is none), the tighter one that gives the
        arrival to one side only is asked too (:meth:`_shared`)."""
        key = (i, state)
        found = self.tight.get(key)
        if found is not None:
            return found
        loose = self.memo.get(key)
        if loose is None:
            loose = self.memo[key] = self._bound(i, state)
        if state[3] != 1 or (floor is not None and loose <= floor):
            return loose
        found = self.tight[key] = self._shared(i, state, loose)
        return found

    def _bound(self, i: int, state: State) -> int:
        # Every side may take all the tokens as arrivals and departures: looser than sharing them out as the
        # deployment bound does, but one evaluation in place of one per share.
        u, beer, tactics, muster = state
        side = self._side
        total, supply, outside = self._parts(i, state)
        sides = combined(
            self.cards[i],
            supply,
            beer,
            self.skull_mask[i],
            0,
            total,
            side(i, 0, u[0], u[1], u[2], beer, tactics, muster, muster),
            side(i, 1, u[3], u[4], u[5], beer, tactics, muster, muster),
            side(i, 2, u[6], u[7], u[8], beer, tactics, muster, muster),
            side(i, 3, u[9], u[10], u[11], beer, tactics, muster, muster),
        )
        return min(sides + outside, self.rough(i, state))

    def _parts(self, i: int, state: State) -> tuple[int, int, int]:
        """What :func:`combined` needs of ``state`` besides the sides, and what the sides leave out:
        ``(total strength, supply of Beer and Tactics, the value outside the sides)``, the last being the
        Catapults the Covers leave undefended and the Strong Attacks, Beer and Tactics counted as if all
        defended and saved."""
        u, beer, tactics, _muster = state
        outside = self.skulls[i] * BRAVERY + (beer + sum(tactics)) * SAVED
        if self.catapults[i]:
            outside += fewest_catapults_lost(self.catapults[i], tactics) * UNDEFENDED
        return sum(map(mul, u, STRENGTHS)), usable_supply(beer, tactics, self.needs[i]), outside

    def _shared(self, i: int, state: State, loose: int) -> int:
        """With one Muster Token left: the best over the sides of the bound that gives that side the token's
        arrival and no departure, and every other side a departure and no arrival (as
        :meth:`DeploymentBounds.tight` shares them), at most ``loose`` (:meth:`_bound`). A play that uses
        the token moves one unit off one side and onto another (D14): that play is one of this share's
        (giving the other sides a departure too only loosens it), and a play that keeps the token is one
        of every share's."""
        u, beer, tactics, _muster = state
        side = self._side
        one = [side(i, j, u[3 * j], u[3 * j + 1], u[3 * j + 2], beer, tactics, 1, 0) for j in range(4)]
        none = [side(i, j, u[3 * j], u[3 * j + 1], u[3 * j + 2], beer, tactics, 0, 1) for j in range(4)]
        total, supply, outside = self._parts(i, state)
        n, skulls = self.cards[i], self.skull_mask[i]
        best: int | None = None
        for j in range(4):
            f0, f1, f2, f3 = (one[x] if x == j else none[x] for x in range(4))
            value = combined(n, supply, beer, skulls, 0, total, f0, f1, f2, f3) + outside
            if best is None or value > best:
                best = value
                if best >= loose:
                    return loose
        assert best is not None
        return best

    def rough(self, i: int, state: State) -> int:
        """A looser upper bound than this one, quicker to compute: the pooled relaxation alone."""
        u, beer, tactics, _muster = state
        return self.pooled(
            i,
            u[0] + u[3] + u[6] + u[9],
            u[1] + u[4] + u[7] + u[10],
            u[2] + u[5] + u[8] + u[11],
            beer,
            tactics,
        )

    def _side(
        self,
        i: int,
        j: int,
        m: int,
        k: int,
        down: int,
        beer: int,
        tactics: tuple[int, ...],
        arrivals: int,
        departures: int,
    ) -> Closure:
        """Side ``j``'s figures from card ``i`` on, closed (:class:`Closure`), remembered here by the side's
        units, the resources, the arrivals and the departures (a smaller key than the relaxation's, which
        holds the hits)."""
        cache = self.sides[i][j]
        if self.start is not None:
            beer, tactics = self.start
        key = (m, k, down, beer, tactics, arrivals, departures)
        found = cache.get(key)
        if found is None:
            figures = self.figures(self.hits[i][j], m, k, down, beer, tactics, arrivals, departures)
            found = cache[key] = self.closure(figures, self.cards[i])
        return found
