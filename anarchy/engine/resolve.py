"""Resolving the cards once they are all face up: the best play, card by card (D7–D24).

After the reveal everything is known, so what is left to choose (Muster moves, Tactics, Beer, which
Workers take the damage) is a search. :class:`Table` finds the best play from any state by dynamic
programming over the cards, right to left, and remembers every state it has solved, so one table serves
every deployment and every reveal of a position whose remaining cards are the same.

A state's value is one integer that orders plays as the contract's objective does (D28): fewer undefended
cards, then more strength kept, then more Bravery, then more Tactics and Beer left. Sums of values order
sums of plays the same way, which the solver's expectation relies on (each part stays below its radix).

Units on a side are counted in three kinds: ``m`` Craftsmen and Soldiers (strength 1, may drink Beer),
``k`` Knights (strength 2) and ``l`` laid-down Workers (strength 1, no Beer) (D3, D12, D13).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import chain, product
from operator import itemgetter, mul, sub
from typing import Protocol

from .cards import DEFENCES, AttackType, Card, Fortification, Tactic

RADIX = 1 << 16
#: One undefended card, one point of strength kept, one Bravery, one unused Tactic or Beer (D28).
UNDEFENDED = -(RADIX**3)
KEPT = RADIX**2
BRAVERY = RADIX
SAVED = 1
#: A ceiling above every value (a play whose bound is not asked yet).
NO_CEILING = RADIX**4
TACTICS: tuple[Tactic, ...] = tuple(Tactic)

Units = tuple[int, ...]  # (m, k, l) for each side, flattened: 12 numbers
#: The strength of one unit of each count in :data:`Units`.
STRENGTHS: tuple[int, ...] = (1, 2, 1) * 4


def value_parts(value: int) -> tuple[int, int, int, int]:
    """``(undefended, strength kept, Bravery, Tactics and Beer saved)`` of a value or a sum of values."""
    undefended, rest = divmod(-value, RADIX**3)
    if rest:
        undefended += 1
        rest = RADIX**3 - rest
    kept, rest = divmod(rest, KEPT)
    bravery, saved = divmod(rest, BRAVERY)
    return undefended, kept, bravery, saved


@dataclass(frozen=True, slots=True)
class Hit:
    """One side of a card after Fortifications: ``side`` index, ``strength`` of the attack, ``fortified``
    (what the Fortification absorbs, D9) and ``need`` (the rest)."""

    side: int
    strength: int
    fortified: int
    need: int


@dataclass(frozen=True, slots=True, eq=False)
class Attack:
    """A card as it meets one Castle: its ``hits`` (none for a Catapult), the Catapult's ``castle``
    strength, its Tactic's index in ``TACTICS`` (or -1) and its skull. :func:`attack` gives one object per
    card and Castle, so attacks compare and hash by identity (cheap as a cache key)."""

    card: Card
    hits: tuple[Hit, ...]
    castle: int
    tactic: int
    skull: bool

    def shape(self) -> Shape:
        """What the best play depends on: the hits that ask for strength as ``(side, need)``, the Catapult's
        strength, the Tactic and the skull. Cards of one shape resolve alike, so tables share their memo by
        shape, not by card."""
        return (tuple((h.side, h.need) for h in self.hits if h.need), self.castle, self.tactic, self.skull)


Shape = tuple[tuple[tuple[int, int], ...], int, int, bool]


def fortification(
    kind: Fortification | None,
    side: int,
    walls: tuple[int, ...],
    towers: tuple[int, ...],
    moat: int,
    gate: int,
) -> int:
    """The defence a Fortification gives ``side`` (D9): Walls their side's level, the Moat its one level on
    every side, Towers the two corners joining the side, the Gate the bottom side."""
    if kind is Fortification.WALLS:
        return walls[side]
    if kind is Fortification.MOAT:
        return moat
    if kind is Fortification.TOWERS:
        return towers[side] + towers[(side + 1) % 4]
    if kind is Fortification.GATE:
        return gate if side == 2 else 0
    return 0


@lru_cache(maxsize=1 << 12)
def attack(
    card: Card, values: tuple[int, ...], walls: tuple[int, ...], towers: tuple[int, ...], moat: int, gate: int
) -> Attack:
    """``card`` against a Castle with these Fortifications and the round's A–E ``values`` (D8, D9)."""
    defence = DEFENCES[card.type]
    hits = []
    for side, strength in card.strengths(values):
        fort = min(strength, fortification(defence.fortification, side, walls, towers, moat, gate))
        hits.append(Hit(side, strength, fort, strength - fort))
    castle = values["ABCDE".index(card.castle)] if card.type is AttackType.CATAPULT else 0
    tactic = TACTICS.index(defence.tactic) if defence.tactic is not None else -1
    return Attack(card, tuple(hits), castle, tactic, card.skull)


@dataclass(frozen=True, slots=True)
class Damage:
    """Who took one side's damage (D11–D13): Knights spent whole (``knights``) or laid down
    (``knights_down``), laid-down Workers spent (``laid``), Craftsmen and Soldiers spent (``men``, with
    Beer or not) or laid down after Beer (``men_down``), and the ``beer`` drunk."""

    knights: int = 0
    knights_down: int = 0
    laid: int = 0
    men: int = 0
    men_down: int = 0
    beer: int = 0


Option = tuple[int, int, int, int, bool, Damage]  # m, k, l after; Beer used; held; who took it


@cache
def absorb(m: int, k: int, down: int, need: int, beer: int) -> tuple[Option, ...]:
    """Ways the units ``(m, k, down)`` on one side take ``need`` damage with up to ``beer`` Beer (D11–D13).

    Returns ``(m, k, down, beer used, held, damage)`` after the attack, only those no other way beats: a
    Knight beats a Craftsman or Soldier, who beats a laid-down Worker, and less Beer used is better.
    ``held`` is False when the side cannot take the whole attack; then every unit is spent (D11) and no
    Beer is given.
    """
    strength = m + 2 * k + down
    if need == 0:
        return ((m, k, down, 0, True, Damage()),)
    # Per outcome, who took the damage (:class:`Damage`'s fields in order); the objects are made only for
    # the outcomes kept.
    options: dict[tuple[int, int, int, int, bool], tuple[int, int, int, int, int, int]] = {}
    if need >= strength:
        options[(0, 0, 0, 0, need == strength)] = (k, 0, down, m, 0, 0)
    drinkers = min(m, beer)
    if need <= strength + drinkers:
        # In the order a, b, c, e, f (the first way found to reach an outcome is the one kept), skipping
        # what cannot add up: Knights spent whole (a) or laid down (b), laid-down Workers spent (c), men who
        # drink and are spent (e) or laid down (f); the other men spent (d) make up the rest.
        for a in range(k + 1):
            for b in range(k - a + 1):
                for c in range(down + 1):
                    taken = 2 * a + b + c
                    if taken > need:
                        break
                    for e in range(drinkers + 1):
                        for f in range(drinkers - e + 1):
                            d = need - (taken + 2 * e + f)
                            if d < 0:
                                break
                            if d + e + f > m:
                                continue
                            key = (m - d - e - f, k - a - b, down - c + b + f, e + f, True)
                            if key not in options:
                                options[key] = (a, b, c, d + e, f, e + f)
    return tuple((*key, Damage(*options[key])) for key in _pareto(set(options)))


def _pareto(options: set[tuple[int, int, int, int, bool]]) -> list[tuple[int, int, int, int, bool]]:
    """The options no other beats (holds at least as well, with at least as many Knights, Knights and men,
    and units, and no more Beer), sorted. Each option is weighed in the order that puts whatever beats it
    first, so only the ones kept so far need asking (whatever beats one that was dropped beats it too)."""
    weighed = sorted(
        ((held, k, k + m, k + m + down, -beer), (m, k, down, beer, held))
        for m, k, down, beer, held in options
    )
    kept: list[tuple[bool, int, int, int, int]] = []
    out = []
    for key, option in reversed(weighed):
        held, k, km, units, less_beer = key
        for h, a, b, c, d in kept:
            if h >= held and a >= k and b >= km and c >= units and d >= less_beer:
                break
        else:
            kept.append(key)
            out.append(option)
    return sorted(out)


@dataclass(frozen=True, slots=True)
class SidePlay:
    """How one side took one card: ``tactics`` spent there, ``beer`` drunk, the units before and after as
    ``(m, k, l)``, whether it ``held``, and the :class:`Damage`."""

    side: int
    tactics: int
    beer: int
    before: tuple[int, int, int]
    after: tuple[int, int, int]
    held: bool
    damage: Damage


@dataclass(frozen=True, slots=True)
class Move:
    """One Muster Token: a unit of ``kind`` (0 Craftsman/Soldier, 1 Knight, 2 laid down) from ``source`` to
    ``target`` side (D14)."""

    source: int
    target: int
    kind: int


@dataclass(frozen=True, slots=True)
class Play:
    """The choice made at one card: the Muster ``moves`` before it, each side's :class:`SidePlay`, the
    Covers spent on a Catapult, and whether the card was ``defended``."""

    moves: tuple[Move, ...]
    sides: tuple[SidePlay, ...]
    covers: int
    defended: bool


State = tuple[Units, int, tuple[int, ...], int]  # units, beer, tactics, muster
MoveSet = tuple[tuple["Move", ...], Units]  # Muster moves and the units after them
Memo = dict[tuple[object, ...], dict[State, tuple[int, "Play | None", "State | None"]]]  # value per state


class Bound(Protocol):
    """An upper bound on :meth:`Table.best` from any state (the solver's side relaxation,
    :class:`.bound.StateBound`)."""

    def __call__(self, i: int, state: State, floor: int | None = None) -> int:
        """An upper bound on the best value of the cards from index ``i`` on from ``state``; with a
        ``floor``, one that need be made no tighter once it is at most ``floor`` (the caller only asks
        whether the state can beat it)."""


class Table:
    """The best play from every state met, for one sequence of attacks in resolution order.

    ``attacks`` is the row right to left (D7). ``best(i, state)`` is the value of the best play of
    ``attacks[i:]`` from ``state`` (:data:`State`: units, Beer, Tactics per ``TACTICS``, Muster Tokens).

    The search makes the Muster moves before a card one at a time (D14): a state before card ``i`` leads
    either to the card's outcomes or, by one move, to another state before card ``i`` with one token fewer.
    Moves before a card are made in any order with the same result, so the states reached by moves are
    remembered like any other and shared by every state (and every deployment) that reaches them; and each
    is asked its bound before it is searched. (:meth:`plays`, for the narration, still lists whole sets of
    moves, :meth:`_musters`.)
    """

    def __init__(
        self,
        attacks: tuple[Attack, ...],
        shared: Memo | None = None,
        bound: Bound | None = None,
        rough: Callable[[int, State], int] | None = None,
    ) -> None:
        """``attacks``: the cards in the order they are resolved; ``shared``: the memo of other tables of
        the same Castle, whose states are reused where the remaining cards are the same; ``bound``: an upper
        bound on ``best(i, state)`` from any state (the solver's side relaxation), with
        which plays that cannot beat the best found at a card are skipped (the values stay exact);
        ``rough``: a looser upper bound, quicker to compute, by which the plays are ordered (``bound`` is
        then asked only of the plays the rough one does not rule out)."""
        self.attacks = attacks
        self.bound = bound
        self.rough = rough
        shared = {} if shared is None else shared
        ids = tuple(at.shape() for at in attacks)
        self.memo = [shared.setdefault(ids[i:], {}) for i in range(len(attacks) + 1)]
        #: Upper bounds found by searches cut short (:meth:`probe`), kept beside the exact values.
        self.upper = [shared.setdefault(("<=", *ids[i:]), {}) for i in range(len(attacks) + 1)]
        #: Lower bounds found by searches that stopped at a play reaching ``beta`` (:meth:`probe`).
        self.lower = [shared.setdefault((">=", *ids[i:]), {}) for i in range(len(attacks) + 1)]
        #: Per card index, the sides no remaining card reaches with any need, and whether any remaining card
        #: is one Workers defend.
        self.idle: list[tuple[int, ...]] = []
        self.workers: list[bool] = []
        #: Per card index, the most strength each side can still be asked for (its needs summed).
        self.needs: list[tuple[int, ...]] = []
        for i in range(len(attacks) + 1):
            self.needs.append(
                tuple(sum(h.need for at in attacks[i:] for h in at.hits if h.side == j) for j in range(4))
            )
            reached = {h.side for at in attacks[i:] for h in at.hits if h.need}
            self.idle.append(tuple(j for j in range(4) if j not in reached))
            self.workers.append(bool(reached))
        #: Per card index, the Tactics no remaining card can use.
        self.unused = unused_tactics(attacks)
        #: Per card index: each unit count's cap without Muster Tokens (the strength its side can still be
        #: asked for, :meth:`reduce`).
        self.caps = [tuple(most for most in needs for _kind in range(3)) for needs in self.needs]
        #: Per card index: the sides it hits (:meth:`successors`).
        self.hit_sides = [tuple(sorted({h.side for h in at.hits})) for at in attacks]
        #: Per card index: what reads the units on the sides it hits out of a state's units, in order.
        self.local = [
            itemgetter(*[3 * j + kind for j in sides for kind in range(3)]) if sides else None
            for sides in self.hit_sides
        ]
        #: Per card index: what puts the units after the card back in place, read out of the units before
        #: it followed by those after it on the sides it hits (:meth:`successors`).
        self.splice = [_splice(sides) for sides in self.hit_sides]
        #: Per card index: the Muster moves worth trying before it (:meth:`_musters`).
        self.candidates = [_candidates(at, sides) for at, sides in zip(attacks, self.hit_sides, strict=True)]

    def reduce(self, i: int, state: State) -> tuple[State, int]:
        """``(key, offset)``: ``state`` without what can no longer change, whose value is ``offset``, so
        that states differing only there share one memo entry (``best = memo[key] + offset``).

        - Units on sides no remaining card reaches: with Muster Tokens left they can still be moved, so they
          are pooled on the first such side; without, they only count as strength kept (D27).
        - Without Muster Tokens, units of a kind beyond the strength their side can still be asked for.
        - Tactics no remaining card can use, and Beer and Muster Tokens when no remaining card is one
          Workers defend, only count as saved (D28).
        """
        units, beer, tactics, muster = state
        offset = 0
        if muster == 0:
            # Without Muster Tokens no unit leaves its side, and a side asked for N more strength touches at
            # most N of its units of each kind: the others are only strength kept (a side with N of a kind
            # never falls for want of them, so capping changes no play).
            # (A side no remaining card reaches is asked for nothing: all its units are only kept.)
            capped = tuple(map(min, units, self.caps[i]))
            if capped != units:
                offset += sum(map(mul, map(sub, units, capped), STRENGTHS)) * KEPT
                units = capped
        idle = self.idle[i]
        if idle and muster and len(idle) > 1:
            pooled = list(units)
            first = 3 * idle[0]
            for j in idle[1:]:
                base = 3 * j
                for kind in range(3):
                    pooled[first + kind] += pooled[base + kind]
                pooled[base] = pooled[base + 1] = pooled[base + 2] = 0
            units = tuple(pooled)
        unused = self.unused[i]
        if unused and any(tactics[t] for t in unused):
            offset += sum(tactics[t] for t in unused) * SAVED
            kept_tactics = list(tactics)
            for t in unused:
                kept_tactics[t] = 0
            tactics = tuple(kept_tactics)
        if not self.workers[i]:
            offset += beer * SAVED
            beer = muster = 0
        return (units, beer, tactics, muster), offset

    def best(self, i: int, state: State) -> int:
        """The value of the best play of ``attacks[i:]`` from ``state`` (D28)."""
        return self.probe(i, state, None)

    def probe(self, i: int, state: State, alpha: int | None, beta: int | None = None) -> int:
        """The best value of ``attacks[i:]`` from ``state`` if it is above ``alpha`` and below ``beta``; if
        it is not above ``alpha``, an upper bound on it that is at most ``alpha``; if it is at least
        ``beta``, a lower bound on it that is at least ``beta`` (a fail-soft search: plays that cannot rise
        above ``alpha`` or the best play found so far are not searched to the end, and the search stops at
        the first play that reaches ``beta``). ``None`` leaves that side open: ``alpha=None, beta=None``
        asks for the exact value."""
        key, offset = self.reduce(i, state)
        return (
            self._probe(
                i, key, None if alpha is None else alpha - offset, None if beta is None else beta - offset
            )
            + offset
        )

    def _probe(self, i: int, key: State, alpha: int | None, beta: int | None = None) -> int:
        found = self.memo[i].get(key)
        if found is not None:
            return found[0]
        if i == len(self.attacks):
            value = _final(key)
            self.memo[i][key] = (value, None, None)
            return value
        if alpha is not None:
            upper = self.upper[i].get(key)
            if upper is not None and upper[0] <= alpha:
                return upper[0]
        if beta is not None:
            lower = self.lower[i].get(key)
            if lower is not None and lower[0] >= beta:
                return lower[0]
        bound, rough = self.bound, self.rough
        best_value: int | None = None
        #: The most any play not searched may be worth (each at most the floor when it was passed over).
        passed: int | None = None
        for ceiling, gain, after, how in self._children(i, key):
            if how == 1:
                if best_value is None or ceiling > best_value:
                    best_value = ceiling
                    if beta is not None and ceiling >= beta:
                        break
                continue
            floor = alpha if best_value is None else best_value if alpha is None else max(alpha, best_value)
            if bound is not None and floor is not None and ceiling <= floor:
                passed = ceiling if passed is None else max(passed, ceiling)
                if how == 3:
                    break  # the moves come last, under the cap
                continue
            if how == 3:
                continue  # the moves follow
            # A move's state is searched from card i again (its gain is 0), an outcome from card i + 1. The
            # side bound is asked here of what its ceiling did not ask: a move's state (it has none) and an
            # outcome ordered by the rough bound.
            at = i if how == 2 else i + 1
            if bound is not None and floor is not None and (how == 2 or rough is not None):
                tighter = gain + bound(at, after, floor - gain)
                if tighter <= floor:
                    passed = tighter if passed is None else max(passed, tighter)
                    continue
            below = None if floor is None else floor - gain
            value = gain + self.probe(at, after, below, None if beta is None else beta - gain)
            if best_value is None or value > best_value:
                best_value = value
                if beta is not None and value >= beta:
                    break
        if beta is not None and best_value is not None and best_value >= beta:
            # A play reaches beta: the best is at least its value (the plays after it were not searched).
            lower = self.lower[i].get(key)
            if lower is None or lower[0] < best_value:
                self.lower[i][key] = (best_value, None, None)
            return best_value
        result = best_value if passed is None else passed if best_value is None else max(best_value, passed)
        assert result is not None
        if alpha is None or result > alpha:
            self.memo[i][key] = (result, None, None)
        else:
            self.upper[i][key] = (result, None, None)
        return result

    def _children(self, i: int, key: State) -> Iterable[tuple[int, int, State, int]]:
        """What :meth:`_probe` tries from ``key`` before card ``i``, in order: ``(ceiling, gain, state,
        how)``. How 0 is a state after card ``i`` (searched from card ``i + 1``), 1 a state after the last
        card (its value is known at once: the ceiling), 2 a state after one Muster move before card ``i``
        (searched from card ``i`` again, with one token fewer) and 3 the marker before those. The card's
        outcomes come first, the most promising first by the rough bound; then the marker, whose ceiling,
        the rough bound of ``key``, caps every move (a move changes no pooled count); then the moves, made
        only if the search gets there, each asked its side bound when it is reached (:meth:`_moves`)."""
        last = i + 1 == len(self.attacks)
        bound, rough = self.bound, self.rough
        children: list[tuple[int, int, State, int]] = []
        order = bound if rough is None else rough
        for after, gain in self.successors(i, key).items():
            if last:
                children.append((gain + _final(after), gain, after, 1))
            elif order is not None:
                children.append((gain + order(i + 1, after), gain, after, 0))
            else:
                children.append((0, gain, after, 0))
        if bound is not None or last:
            children.sort(key=itemgetter(0), reverse=True)
        if not (key[3] and self.candidates[i]):
            return children
        cap = NO_CEILING if rough is None else rough(i, key)
        return chain(children, ((cap, 0, key, 3),), self._moves(i, key))

    def successors(self, i: int, state: State) -> dict[State, int]:
        """The states the plays at card ``i`` lead to from ``state`` without a Muster move first, each with
        the best gain reaching it. A card changes only the units on the sides it hits, the Beer and its
        Tactic, so its outcomes are remembered by those (:func:`_outcomes`)."""
        at = self.attacks[i]
        units, beer, tactics, muster = state
        out: dict[State, int] = {}
        if not at.hits:
            for gain, _play, reached in self.plays(i, state):
                if out.get(reached, gain - 1) < gain:
                    out[reached] = gain
            return out
        sides = self.hit_sides[i]
        read = self.local[i]
        splice = self.splice[i]
        assert read is not None and splice is not None
        available = tactics[at.tactic] if at.tactic >= 0 else 0
        for gain, after_local, beer_left, left, _held in _outcomes(at, sides, read(units), beer, available):
            tactics_left = tactics
            if at.tactic >= 0 and left != available:
                tactics_left = (*tactics[: at.tactic], left, *tactics[at.tactic + 1 :])
            key = (splice(units + after_local), beer_left, tactics_left, muster)
            if out.get(key, gain - 1) < gain:
                out[key] = gain
        return out

    def _moves(self, i: int, state: State) -> Iterator[tuple[int, int, State, int]]:
        """The states one Muster move before card ``i`` leads to (:meth:`_moved`) as plays of
        :meth:`_probe` (no ceiling yet, gain 0, state, 2); made when the search reaches them, and asked their
        side bound then (asking it of every move first, to try the best first, cost more than it saved)."""
        yield from ((NO_CEILING, 0, after, 2) for after in self._moved(i, state))

    def _moved(self, i: int, state: State) -> Iterator[State]:
        """The states one Muster move before card ``i`` leads to (D14), with one token fewer: only moves
        that leave or reach a side the card asks strength of (any other can wait for a later card)."""
        units, beer, tactics, muster = state
        if not muster:
            return
        for _move, source, target, _check, (base, need) in self.candidates[i]:
            if not units[source]:
                continue
            after = list(units)
            after[source] -= 1
            after[target] += 1
            # A unit taken to a side the card does not ask strength of is rescued from a side that may fall
            # (:meth:`_musters`): even if the tokens left took its strongest units away, it could not hold
            # by its units alone.
            if need and after[base] + 2 * after[base + 1] + after[base + 2] - 2 * (muster - 1) >= need:
                continue
            yield (tuple(after), beer, tactics, muster - 1)

    def line(self, state: State) -> list[tuple[Play, State, State]]:
        """The best play from ``state`` at the first card: ``(play, state before, state after)`` per card.

        Each card's play is found again from the real state (not the pooled one the memo keeps), so a
        Muster move is told from the side where the unit really stands.
        """
        out = []
        for i in range(len(self.attacks)):
            target = self.best(i, state)
            for gain, play, after in self.plays(i, state):
                if gain + self.best(i + 1, after) == target:
                    out.append((play, state, after))
                    state = after
                    break
            else:  # pragma: no cover - best() is the maximum over these very plays
                raise AssertionError("no play reaches the best value")
        return out

    def plays(self, i: int, state: State) -> Iterator[tuple[int, Play, State]]:
        """Every play worth considering at card ``i`` from ``state``: ``(gain, play, state after)``."""
        at = self.attacks[i]
        units, beer, tactics, muster = state
        if not at.hits:  # a Catapult: Covers only (D24); Workers and Muster play no part
            covers = tactics[at.tactic]
            yield UNDEFENDED, Play((), (), 0, False), state
            if covers >= at.castle:
                spent = (*tactics[: at.tactic], covers - at.castle, *tactics[at.tactic + 1 :])
                yield BRAVERY * at.skull, Play((), (), at.castle, True), (units, beer, spent, muster)
            return
        hit, read = self.hit_sides[i], self.local[i]
        assert read is not None
        for moves, moved, checks in self._musters(i, units, muster):
            for gain, sides, after_units, beer_left, tactics_left in self._resolve(at, moved, beer, tactics):
                held = {side.side: side.held for side in sides}
                if checks and not _justified(checks, tuple(held[j] for j in hit), read(after_units)):
                    continue
                defended = all(side.held for side in sides)
                play = Play(moves, sides, 0, defended)
                yield gain, play, (after_units, beer_left, tactics_left, muster - len(moves))

    def _musters(self, i: int, units: Units, muster: int) -> Iterator[tuple[tuple[Move, ...], Units, Checks]]:
        """Sets of Muster moves before card ``i`` (D14), each unit arrangement once with the fewest moves
        that reach it (level by level), with the units after them and each move's :data:`Checks`. Only
        moves that leave or reach a side this card hits are tried (any other can wait for a later card),
        and a set is offered only if each move to a side this card does not hit leaves a side that may
        fall: from a side whose units cover its need, which must hold, the unit could as well move after
        the card (:func:`_justified`)."""
        yield (), units, ()
        candidates = self.candidates[i]
        if not muster or not candidates:
            return
        seen = {units}
        level: list[tuple[tuple[Move, ...], Units, Checks, tuple[tuple[int, int], ...]]] = [
            ((), units, (), ())
        ]
        for tokens_left in range(muster, 0, -1):
            following: list[tuple[tuple[Move, ...], Units, Checks, tuple[tuple[int, int], ...]]] = []
            for moves, now, checks, rescues in level:
                for move, source, target, check, rescue in candidates:
                    if not now[source]:
                        continue
                    after = list(now)
                    after[source] -= 1
                    after[target] += 1
                    moved = tuple(after)
                    if moved in seen:
                        continue
                    seen.add(moved)
                    more = (*moves, move)
                    more_checks = (*checks, check)
                    more_rescues = (*rescues, rescue) if rescue[1] else rescues
                    if tokens_left > 1:  # the last level is not extended
                        following.append((more, moved, more_checks, more_rescues))
                    # A side a unit left for a side this card does not hit must still be one that may fall.
                    if all(moved[b] + 2 * moved[b + 1] + moved[b + 2] < need for b, need in more_rescues):
                        yield more, moved, more_checks
            level = following

    @staticmethod
    def _resolve(
        at: Attack, units: Units, beer: int, tactics: tuple[int, ...]
    ) -> Iterator[tuple[int, tuple[SidePlay, ...], Units, int, tuple[int, ...]]]:
        """Every way of taking ``at`` on its sides: Tactics per side (D10), then each side's units and Beer
        (D11–D13). Yields ``(gain, side plays, units, Beer, Tactics)``."""
        available = tactics[at.tactic] if at.tactic >= 0 else 0
        hits = at.hits
        stands = [units[3 * hit.side : 3 * hit.side + 3] for hit in hits]
        for split, choice, drunk in _ways(at, stands, beer, available):
            after = list(units)
            sides = []
            for hit, used, option in zip(hits, split, choice, strict=True):
                j = 3 * hit.side
                before = (after[j], after[j + 1], after[j + 2])
                after[j : j + 3] = option[:3]
                m2, k2, down2, drunk_here, held_here, damage = option
                sides.append(SidePlay(hit.side, used, drunk_here, before, (m2, k2, down2), held_here, damage))
            held = all(option[4] for option in choice)
            gain = BRAVERY * int(at.skull) if held else UNDEFENDED
            tactics_left = tactics
            spent = int(sum(split))
            if at.tactic >= 0 and spent:
                tactics_left = (*tactics[: at.tactic], available - spent, *tactics[at.tactic + 1 :])
            yield gain, tuple(sides), tuple(after), beer - drunk, tactics_left


def _ways(
    at: Attack, stands: list[Units], beer: int, available: int
) -> Iterator[tuple[tuple[int, ...], tuple[Option, ...], int]]:
    """Every way of taking ``at`` with ``stands[n]`` = ``(m, k, l)`` on the side of its ``n``-th hit, up to
    ``beer`` Beer and ``available`` of its Tactic: Tactics per side (D10), then each side's units and Beer
    (D11–D13). Yields ``(Tactics per hit, absorb option per hit, Beer drunk)``."""
    for split in _splits(tuple(h.need for h in at.hits), available):
        per_side = [
            absorb(*stand, hit.need - used, beer)
            for hit, used, stand in zip(at.hits, split, stands, strict=True)
        ]
        for choice in product(*per_side):
            drunk = sum(option[3] for option in choice)
            if drunk <= beer:
                yield split, choice, drunk


def _final(state: State) -> int:
    """The value of a state after the last card: the strength kept (D27) and the Tactics and Beer left."""
    units, beer, tactics, _muster = state
    kept = sum(units[j] + 2 * units[j + 1] + units[j + 2] for j in (0, 3, 6, 9))
    return kept * KEPT + (beer + sum(tactics)) * SAVED


@lru_cache(maxsize=1 << 16)
def _outcomes(
    at: Attack, sides: tuple[int, ...], local: Units, beer: int, available: int
) -> tuple[tuple[int, Units, int, int, tuple[bool, ...]], ...]:
    """What taking ``at`` can leave on the ``sides`` it hits, from their units ``local`` (``(m, k, l)`` per
    side in ``sides`` order), ``beer`` and ``available`` of its Tactic: ``(gain, units after, Beer left,
    Tactic left, held per side)``, each outcome once with its best gain. The ways are those of
    :meth:`Table._resolve` (Tactics per side, D10, then each side's units and Beer, D11–D13), without
    the side plays that tell them."""
    at_side = {j: 3 * n for n, j in enumerate(sides)}
    stands = [local[at_side[h.side] : at_side[h.side] + 3] for h in at.hits]
    found: dict[tuple[Units, int, int, tuple[bool, ...]], int] = {}
    for split, choice, drunk in _ways(at, stands, beer, available):
        after = list(local)
        held = [True] * len(sides)
        for h, option in zip(at.hits, choice, strict=True):
            n = at_side[h.side]
            after[n : n + 3] = option[:3]
            held[n // 3] = option[4]
        gain = BRAVERY * int(at.skull) if all(held) else UNDEFENDED
        index = (tuple(after), beer - drunk, available - sum(split), tuple(held))
        if found.get(index, gain - 1) < gain:
            found[index] = gain
    return tuple((gain, *index) for index, gain in found.items())


#: Per Muster move, what :func:`_justified` asks of it: the position of its source among the sides the card
#: hits (-1 if it hits none) and where its kind stands on its target in the units after the card, read
#: as :meth:`Table.local` reads them (-1 if the card does not hit the target).
Checks = tuple[tuple[int, int], ...]


def _candidates(
    at: Attack, sides: tuple[int, ...]
) -> tuple[tuple[Move, int, int, tuple[int, int], tuple[int, int]], ...]:
    """The Muster moves worth trying before ``at`` (which hits ``sides``): those that leave or reach a side
    it asks strength of. Each as ``(move, index of its unit in the units, index after it, its check for
    :func:`_justified`, (first index of its source side, the need there) when it goes to a side the card
    does not ask strength of, else (0, 0))``."""
    need = {h.side: h.need for h in at.hits if h.need}
    return tuple(
        (
            Move(source, target, kind),
            3 * source + kind,
            3 * target + kind,
            (
                sides.index(source) if source in sides else -1,
                3 * sides.index(target) + kind if target in sides else -1,
            ),
            (3 * source, need.get(source, 0)) if target not in need else (0, 0),
        )
        for source in range(4)
        for target in range(4)
        for kind in range(3)
        if source != target and (source in need or target in need)
    )


def _splice(sides: tuple[int, ...]) -> Callable[[tuple[int, ...]], Units] | None:
    """What reads the units after a card hitting ``sides`` out of the units before it (12 numbers) followed
    by the units after it on ``sides`` (``(m, k, l)`` per side in order)."""
    if not sides:
        return None
    order = [
        12 + 3 * sides.index(j) + kind if j in sides else 3 * j + kind for j in range(4) for kind in range(3)
    ]
    return itemgetter(*order)


def _justified(checks: Checks, held: tuple[bool, ...], after: Units) -> bool:
    """Whether every Muster move before a card was needed there (D14), given each move's :data:`Checks`,
    whether each side the card hits ``held`` and their units ``after`` it (``(m, k, l)`` per side in
    order). A move is needed if it takes a unit off a side that then falls (it would have been spent
    there), or brings a unit to a side that holds and where no unit of its kind is left untouched after the
    card (so it, or one like it, took damage). Any other move could be made after this card with the same
    token and the same result, which keeps the token longer; a unit brought to a side that falls is spent
    there for nothing, where staying put it would at least not have been lost to this side. Plays with such
    a move are never better and are skipped."""
    for source, target in checks:
        if source >= 0 and not held[source]:
            continue
        if target >= 0 and held[target // 3] and not after[target]:
            continue
        return False
    return True


@cache
def _splits(needs: tuple[int, ...], available: int) -> tuple[tuple[int, ...], ...]:
    """Every way to spend up to ``available`` Tactics over sides needing ``needs`` (never more than a side
    needs) (D10)."""
    ranges = [range(min(need, available) + 1) for need in needs]
    return tuple(split for split in product(*ranges) if sum(split) <= available)


def unused_tactics(attacks: tuple[Attack, ...]) -> list[tuple[int, ...]]:
    """Per card index ``i`` (0 to ``len(attacks)``): the Tactics (indices in :data:`TACTICS`) that no card of
    ``attacks[i:]`` can use (D10, D24), which from there on only count as saved (D28)."""
    out = []
    for i in range(len(attacks) + 1):
        usable = {at.tactic for at in attacks[i:]}
        out.append(tuple(t for t in range(len(TACTICS)) if t not in usable))
    return out


def relaxed_bound(
    attacks: tuple[Attack, ...],
    pool: tuple[int, int, int],
    beer: int,
    tactics: tuple[int, ...],
    shared: dict[tuple[object, ...], dict[State, int]] | None = None,
) -> int:
    """An upper bound on :meth:`Table.best` from any deployment of the units ``pool`` = ``(m, k, l)``.

    The relaxation lets every unit answer every side of every card (as if Muster Tokens were unlimited and
    one card's sides were one), and lets a card that will not hold pass without spending anyone. Every real
    play is also a relaxed one, so the relaxed best is at least the real best from any deployment; the solver
    prunes with it.
    """
    return relaxed(attacks, shared)(0, *pool, beer, tactics)


Relaxed = Callable[[int, int, int, int, int, tuple[int, ...]], int]


def relaxed(
    attacks: tuple[Attack, ...], shared: dict[tuple[object, ...], dict[State, int]] | None = None
) -> Relaxed:
    """The relaxed best of :func:`relaxed_bound` as a function of ``(card index, m, k, l, Beer, Tactics)``,
    remembered between calls. ``shared``: the memo of other rows of the same Castle (reveals), whose values
    are reused where the remaining cards are the same."""
    shared = {} if shared is None else shared
    ids = tuple(at.shape() for at in attacks)
    memos = [shared.setdefault(ids[i:], {}) for i in range(len(attacks) + 1)]
    unusable = unused_tactics(attacks)
    #: Every answer given, by the question as asked (before what cannot matter is set aside).
    asked: dict[tuple[int, int, int, int, int, tuple[int, ...]], int] = {}

    def best(i: int, m: int, k: int, down: int, beer: int, tactics: tuple[int, ...]) -> int:
        question = (i, m, k, down, beer, tactics)
        answer = asked.get(question)
        if answer is not None:
            return answer
        # What no remaining card can use only counts as saved: Beer beyond the men, unused Tactics.
        offset = 0
        if beer > m:
            offset += (beer - m) * SAVED
            beer = m
        idle = [t for t in unusable[i] if tactics[t]]
        if idle:
            offset += sum(tactics[t] for t in idle) * SAVED
            kept = list(tactics)
            for t in idle:
                kept[t] = 0
            tactics = tuple(kept)
        key = ((m, k, down), beer, tactics, 0)
        found = memos[i].get(key)
        if found is None:
            found = _relaxed_step(i, m, k, down, beer, tactics)
            memos[i][key] = found
        answer = asked[question] = found + offset
        return answer

    def _relaxed_step(i: int, m: int, k: int, down: int, beer: int, tactics: tuple[int, ...]) -> int:
        if i == len(attacks):
            return (m + 2 * k + down) * KEPT + (beer + sum(tactics)) * SAVED
        at = attacks[i]
        value = UNDEFENDED + best(i + 1, m, k, down, beer, tactics)
        if not at.hits:
            covers = tactics[at.tactic]
            if covers >= at.castle:
                spent = (*tactics[: at.tactic], covers - at.castle, *tactics[at.tactic + 1 :])
                value = max(value, BRAVERY * at.skull + best(i + 1, m, k, down, beer, spent))
            return value
        need = sum(h.need for h in at.hits)
        available = tactics[at.tactic] if at.tactic >= 0 else 0
        for used in range(min(need, available) + 1):
            left = (*tactics[: at.tactic], available - used, *tactics[at.tactic + 1 :]) if used else tactics
            for m2, k2, l2, drunk, held, _damage in absorb(m, k, down, need - used, beer):
                if held:
                    value = max(value, BRAVERY * at.skull + best(i + 1, m2, k2, l2, beer - drunk, left))
        return value

    return best
