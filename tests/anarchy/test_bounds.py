"""Property tests of the solver's bounds and its fail-soft probe (anarchy/engine/bound.py,
resolve.Table.probe): every bound is at least the exact best value it bounds, for every deployment,
reveal and state met on the best line, and a probe is exact above its threshold and an upper bound at
or below it (D6, D7–D28).

Positions have up to 4 cards, 5 Workers, 2 of each Tactic, 2 Beer and 0–2 Muster Tokens, so that the sides
compete for Beer and Tactics and units move between them (D14: the side bound then lets units arrive on a
side, at most as many as there are tokens).
"""

from __future__ import annotations

from itertools import product

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anarchy.engine import AttackType, Deployment, Position, Slot, Tactic, deck, reveals
from anarchy.engine.bound import Closure, SideRelaxation, StateBound, combined, tactic_needs, usable_supply
from anarchy.engine.resolve import (
    BRAVERY,
    KEPT,
    NO_CEILING,
    SAVED,
    STRENGTHS,
    TACTICS,
    UNDEFENDED,
    Attack,
    State,
    Table,
    _outcomes,
    attack,
    relaxed_bound,
    value_parts,
)
from anarchy.engine.solver import _side_bounds, deployments, start_state, table
from tests.anarchy.test_solver_property import _walls_ok, draw_row

T = AttackType
BOUNDS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """A random position of round 2–3 with 0–2 Muster Tokens (D3, D4, D9, D10, D13, D14)."""
    round_ = draw(st.integers(2, 3))
    row = draw_row(draw, round_)
    workers = draw(
        st.tuples(st.integers(0, 5), st.integers(0, 3), st.integers(0, 3)).filter(lambda w: 1 <= sum(w) <= 5)
    )
    small = st.integers(0, 2)
    return Position(
        round=round_,
        values=draw(st.tuples(*[st.integers(1, 4)] * 5)),
        determination=2,
        row=tuple(row),
        walls=draw(st.tuples(small, small, small, small).filter(_walls_ok)),
        towers=draw(st.tuples(small, small, small, small)),
        moat=draw(small),
        gate=draw(small),
        tactics={t: draw(small) for t in Tactic},
        craftsmen=workers[0],
        soldiers=workers[1],
        knights=workers[2],
        beer=draw(small),
        muster=draw(small),
    )


@BOUNDS
@given(positions())
def test_deployment_bounds_are_never_below_the_best(position: Position) -> None:
    """D28: for every deployment and reveal, the side bound (per reveal, and the quicker one summed over the
    reveals) is at least the exact best value."""
    relaxation = SideRelaxation()
    tables = [table(position, faces, {}, relaxation) for faces in reveals(position)]
    tactics = tuple(position.tactic(t) for t in TACTICS)
    pool = (position.craftsmen + position.soldiers, position.knights, 0)
    ceilings = [relaxed_bound(t.attacks, pool, position.beer, tactics) for t in tables]
    bounds = _side_bounds(position, tables, ceilings, tactics, relaxation, [1] * len(tables))
    for deployment in deployments(position):
        sides = tuple((c + s, k) for c, s, k in deployment.sides)
        state = start_state(position, deployment)
        exact = [t.best(0, state) for t in tables]
        per = bounds.per_reveal(sides)
        assert all(b >= e for b, e in zip(per, exact, strict=True))
        assert bounds.total(sides) >= sum(exact)


@BOUNDS
@given(positions(), st.data())
def test_state_bound_holds_along_every_best_line(position: Position, data: st.DataObject) -> None:
    """D28: the bound the exact search prunes with is at least the best value from every state of the best
    line, for a drawn deployment and every reveal, with each side's figures found from the start's Beer and
    Tactics as the solver does."""
    relaxation = SideRelaxation()
    deployment = data.draw(st.sampled_from(list(deployments(position))))
    for faces in reveals(position):
        plain = table(position, faces)
        state = start_state(position, deployment)
        # Each side's figures with the Beer and Tactics of the start, as the solver asks them (more than a
        # later state holds, which only loosens the bound).
        bound = StateBound(plain.attacks, relaxation, (state[1], state[2]))
        assert bound(0, state) >= plain.best(0, state)
        for i, (_play, _before, after) in enumerate(plain.line(state), start=1):
            assert bound(i, after) >= plain.best(i, after)


@BOUNDS
@given(positions(), st.data())
def test_state_bound_holds_on_any_line_with_tokens_left(position: Position, data: st.DataObject) -> None:
    """D14, D28: from every state of a drawn line (each step a drawn outcome of the card or a drawn Muster
    move before it), the state bound is at least the best value, both the quick one (every side given all
    the tokens, asked with a floor above it) and, with one token left, the tighter one that gives its
    arrival to one side only."""
    deployment = data.draw(st.sampled_from(list(deployments(position))))
    faces = data.draw(st.sampled_from(reveals(position)))
    plain = table(position, faces)
    state = start_state(position, deployment)
    bound = StateBound(plain.attacks, SideRelaxation(), (state[1], state[2]))
    i = 0
    while i <= len(plain.attacks):
        best = plain.best(i, state)
        assert bound(i, state, NO_CEILING) >= best  # a floor above every value: the quick bound
        assert bound(i, state) >= best  # no floor: the tighter one where it applies
        if i == len(plain.attacks):
            break
        moves = list(plain._moved(i, state))
        move: bool = data.draw(st.booleans()) if moves else False
        if move:
            state = data.draw(st.sampled_from(moves))
        else:
            state = data.draw(st.sampled_from(sorted(plain.successors(i, state))))
            i += 1


@BOUNDS
@given(positions(), st.data())
def test_probe_is_exact_above_its_threshold_and_a_bound_below(
    position: Position, data: st.DataObject
) -> None:
    """The fail-soft probe (Table.probe): above ``alpha`` it returns the exact best; otherwise a value at
    most ``alpha`` and at least the best. The bounded search gives the same exact values as the plain one."""
    deployment = data.draw(st.sampled_from(list(deployments(position))))
    faces = data.draw(st.sampled_from(reveals(position)))
    state = start_state(position, deployment)
    exact = table(position, faces).best(0, state)
    bounded: Table = table(position, faces, {}, SideRelaxation())
    offset = data.draw(st.integers(-3, 3)) * (1 << 16) + data.draw(st.integers(-2, 2))
    alpha = exact + offset
    value = bounded.probe(0, state, alpha)
    if value > alpha:
        assert value == exact
    else:
        assert exact <= value <= alpha
    assert bounded.best(0, state) == exact


@BOUNDS
@given(st.data())
def test_a_cards_cached_outcomes_are_the_ways_of_taking_it(data: st.DataObject) -> None:
    """D10–D13: the search's outcomes of a card (``resolve._outcomes``: units after on the sides it hits,
    Beer and Tactic left, held per side, best gain) are exactly those of the ways the narration tells
    (``Table._resolve``), each with its best gain."""
    card = data.draw(st.sampled_from([c for c in deck().values() if c.type is not T.CATAPULT]))
    values = data.draw(st.tuples(*[st.integers(0, 4)] * 5))
    at = attack(card, values, (1, 0, 1, 0), (0, 1, 0, 1), 1, 1)
    sides = tuple(sorted({h.side for h in at.hits}))
    local = tuple(data.draw(st.integers(0, 3)) for _ in range(3 * len(sides)))
    beer = data.draw(st.integers(0, 2))
    available = data.draw(st.integers(0, 2)) if at.tactic >= 0 else 0
    units = [0] * 12
    for n, j in enumerate(sides):
        units[3 * j : 3 * j + 3] = local[3 * n : 3 * n + 3]
    tactics = tuple(available if t == at.tactic else 0 for t in range(len(TACTICS)))
    expected: dict[tuple[object, ...], int] = {}
    for gain, plays, after, beer_left, tactics_left in Table._resolve(at, tuple(units), beer, tactics):
        held = {play.side: play.held for play in plays}
        index = (
            tuple(after[3 * j + kind] for j in sides for kind in range(3)),
            beer_left,
            tactics_left[at.tactic] if at.tactic >= 0 else 0,
            tuple(held[j] for j in sides),
        )
        expected[index] = max(expected.get(index, gain), gain)
    found = {tuple(row[1:]): row[0] for row in _outcomes(at, sides, local, beer, available)}
    assert found == expected


def _closure(*rows: tuple[int, int, int, int, int]) -> Closure:
    """One side's figures over 2 cards from its rows ``(fall mask, kept, spent, lost, lost and spent)``,
    with the strength lost and Beer drunk together taken as the strength lost (no Beer drunk)."""
    return Closure(tuple((*row, row[3]) for row in rows), 2)


NOTHING = _closure((0, 0, 0, 0, 0))
#: A side with no units and no hits, over 1 card.
NOTHING_1 = Closure(((0, 0, 0, 0, 0, 0),), 1)


@BOUNDS
@given(positions(), st.data())
def test_probe_stops_at_a_play_reaching_its_ceiling(position: Position, data: st.DataObject) -> None:
    """The probe with a ``beta`` (Table.probe): at or above ``beta`` it returns a lower bound on the best
    (the search stopped at a play worth that much), between ``alpha`` and ``beta`` the exact best, and at or
    below ``alpha`` an upper bound. The values it leaves in the memo keep later exact searches exact."""
    deployment = data.draw(st.sampled_from(list(deployments(position))))
    faces = data.draw(st.sampled_from(reveals(position)))
    state = start_state(position, deployment)
    exact = table(position, faces).best(0, state)
    bounded: Table = table(position, faces, {}, SideRelaxation())
    alpha = exact + data.draw(st.integers(-3, 1)) * (1 << 16) + data.draw(st.integers(-2, 0))
    beta = alpha + 1 + data.draw(st.integers(0, 4)) * (1 << 16)
    value = bounded.probe(0, state, alpha, beta)
    if value >= beta:
        assert beta <= value <= exact
    elif value > alpha:
        assert value == exact
    else:
        assert exact <= value <= alpha
    assert bounded.best(0, state) == exact


def _up(card_id: str) -> Slot:
    """The card ``card_id`` face up in its slot."""
    return Slot(deck()[card_id].type, card_id)


def test_tactics_no_card_can_take_are_no_supply() -> None:
    """D10, D13: the sides together spend no more of a Tactic than its cards can take. Here two sides would
    each hold with the same 2 Rocks (Ladders A3 and the Final Escalade F6 both take Rocks); the 2 Bolts in
    store fit no card, so they do not make up for it, and the side bound sees all three undefended cards
    that the best play leaves (it saw two when any Tactic counted as supply)."""

    position = Position(
        round=5,
        values=(4, 3, 3, 4, 5),
        determination=3,
        row=(_up("F6"), _up("A35"), _up("A29"), _up("A3"), _up("A34"), _up("A10")),
        walls=(1, 0, 0, 0),
        towers=(1, 1, 0, 0),
        moat=3,
        gate=2,
        tactics={Tactic.ROCKS: 2, Tactic.BOLTS: 2, Tactic.HOT_OIL: 2, Tactic.LOGS: 0, Tactic.COVERS: 0},
        craftsmen=4,
        soldiers=3,
        knights=5,
        beer=2,
        muster=2,
    )
    deployment = Deployment(((3, 0, 0), (1, 0, 1), (0, 1, 0), (0, 2, 4)))
    relaxation = SideRelaxation()
    tables = [table(position, faces, {}, relaxation) for faces in reveals(position)]
    tactics = tuple(0 if t is Tactic.COVERS else position.tactic(t) for t in TACTICS)
    assert usable_supply(2, tactics, tactic_needs(tables[0].attacks)) == 2 + 2 + 2  # Beer, Rocks, Hot Oil
    pool = (position.craftsmen + position.soldiers, position.knights, 0)
    ceilings = [relaxed_bound(t.attacks, pool, position.beer, tactics) for t in tables]
    bounds = _side_bounds(position, tables, ceilings, tactics, relaxation, [1])
    exact = tables[0].best(0, start_state(position, deployment))
    (bound,) = bounds.per_reveal(tuple((c + s, k) for c, s, k in deployment.sides))
    assert bound >= exact
    assert value_parts(bound)[0] == value_parts(exact)[0]


def test_a_card_falls_if_any_side_it_hits_falls_so_the_sides_falls_add_up() -> None:
    """D15: side 0 must let the first card fall and side 1 the second, so the play leaves both undefended,
    though each side alone lets only one fall."""
    value = combined(
        2, 0, 0, 0, 0, 0, _closure((0b01, 0, 0, 0, 0)), _closure((0b10, 0, 0, 0, 0)), NOTHING, NOTHING
    )
    assert value_parts(value)[0] == 2


def test_a_set_of_falls_whose_losses_exceed_all_strength_is_no_play() -> None:
    """D11, D27: holding the card would cost side 0 at least 2 strength and side 1 at least 1, but the
    Castle has 2 in all; so no play holds it, and the bound is that of letting it fall (not of holding it
    with -1 strength kept, which the radix order would rank above a fall)."""
    side0 = _closure((0b0, 0, 0, 2, 2), (0b1, 0, 0, 0, 0))
    side1 = _closure((0b0, 0, 0, 1, 1), (0b1, 0, 0, 0, 0))
    value = combined(2, 0, 0, 0, 0, 2, side0, side1, NOTHING, NOTHING)
    assert value == UNDEFENDED + 0 * KEPT


def test_the_sides_share_the_beer_and_tactics() -> None:
    """D10, D13: each side holds its card only by spending 1 (or lets it fall for nothing); with 1 to share,
    one card falls and nothing is left, and with 2 none falls and nothing is left either."""
    side0 = _closure((0b00, 0, 1, 0, 1), (0b01, 0, 0, 0, 0))
    side1 = _closure((0b00, 0, 1, 0, 1), (0b10, 0, 0, 0, 0))
    for supply, falls in ((1, 1), (2, 0)):
        value = (
            combined(2, supply, supply, 0, 0, 0, side0, side1, NOTHING, NOTHING) + supply * SAVED
        )  # all saved
        assert value_parts(value) == (falls, 0, 0, supply - (2 - falls))


def test_keeping_strength_with_tactics_counts_the_tactics_spent() -> None:
    """D10, D28: a Knight and a man (strength 3) meet a card asking 2 on their side, with 2 Rocks. Keeping
    all 3 strength takes both Rocks; spending none keeps 1. The side's figures keep at most 3 and spend at
    least 0, but not by one play: the bound is the best play's value (3 kept, 2 spent), not 3 kept with
    nothing spent (the bound's fourth place was 2 too high before it weighed the costs)."""
    rocks = TACTICS.index(Tactic.ROCKS)
    tactics = tuple(2 if t == rocks else 0 for t in range(len(TACTICS)))
    figures = SideRelaxation().figures(((2, rocks, False, 1),), 1, 1, 0, 0, tactics)
    side = Closure(figures, 1)
    value = combined(1, 2, 0, 0, 0, 3, side, NOTHING_1, NOTHING_1, NOTHING_1)
    assert value == 3 * KEPT - 2 * SAVED


def test_beer_makes_up_for_lost_strength_no_more_than_there_is() -> None:
    """D13, D10: two sides each meet a card asking 1 more than their men hold; each keeps 1 more by giving
    a man Beer. With 1 Beer and 1 Rock in store, the Beer and Tactics together would pay for both, but only
    Beer does it, and there is 1: the bound keeps 3 of the 4 strength, not 4 (a Rock spent on a card that
    falls saves nobody)."""
    # Per side: kept 2 with the Beer (lost 0) or 1 without (lost 1); lost and spent together at least 1, and
    # lost and Beer drunk together at least 1.
    side = Closure(((0b00, 2, 0, 0, 1, 1),), 2)
    value = combined(2, 2, 1, 0, 0, 4, side, side, NOTHING, NOTHING)
    assert value == 3 * KEPT - 1 * SAVED
    with_more_beer = combined(2, 2, 2, 0, 0, 4, side, side, NOTHING, NOTHING)
    assert with_more_beer == 4 * KEPT - 2 * SAVED


def test_the_state_bound_lets_no_rock_pay_for_what_only_beer_saves() -> None:
    """D13, D10, D28: the Arrows A31 ask 3 of sides 0, 1 and 2, then the Arrows A36, then the Final
    Escalade F5 (the only card that takes Rocks). Sides 0, 1 and 2 hold 3 strength each, so each keeps
    more only by giving a man Beer, and there are 2 Beer and 1 Rock. The best play keeps 4 strength and
    saves 1; the state bound once kept 5 with nothing saved, as if the Rock could stand in for a third
    Beer. Now it is the best play's value."""

    position = Position(
        round=2,
        values=(4, 3, 3, 4, 5),
        determination=2,
        row=(_up("F5"), _up("A36"), _up("A31")),
        walls=(0, 0, 0, 0),
        towers=(2, 1, 0, 0),
        moat=1,
        gate=3,
        tactics={Tactic.ROCKS: 1},
        craftsmen=11,
        soldiers=0,
        knights=0,
        beer=2,
        muster=1,
    )
    bounded = table(position, {}, {}, SideRelaxation())
    assert [[(h.side, h.need) for h in at.hits] for at in bounded.attacks] == [
        [(0, 3), (1, 3), (2, 3)],
        [(0, 3), (1, 4), (2, 3)],
        [(0, 4), (2, 4)],
    ]
    rocks = tuple(int(t is Tactic.ROCKS) for t in TACTICS)
    state: State = ((1, 0, 2, 2, 0, 1, 2, 0, 0, 3, 0, 0), 2, rocks, 1)
    exact = Table(bounded.attacks).best(0, state)
    assert value_parts(exact) == (2, 4, 0, 1)
    assert bounded.bound is not None
    assert bounded.bound(0, state) == exact


def test_a_side_counts_the_strength_lost_and_beer_drunk_together() -> None:
    """D13: two men meet 2 strength with 1 Beer: both are spent (2 lost), or one drinks and the two lose 1
    between them (1 lost, 1 Beer). Either way the strength lost and the Beer drunk add up to 2, which is the
    side's sixth figure; the fewest lost alone is 1."""
    figures = SideRelaxation().figures(((2, -1, False, 1),), 2, 0, 0, 1, (0,) * len(TACTICS))
    (row,) = [row for row in figures if row[0] == 0]
    assert row[3] == 1
    assert row[5] == 2


def test_a_unit_that_may_stand_on_two_sides_is_kept_once() -> None:
    """D14, D27: with one Knight (strength 2) that a Muster Token may move, either side alone may keep it,
    but the strength kept is at most the strength there is less the strength lost."""
    side0 = _closure((0, 2, 0, 0, 0))
    side1 = _closure((0, 2, 0, 1, 1))
    assert value_parts(combined(2, 0, 0, 0, 0, 2, side0, side1, NOTHING, NOTHING))[1] == 1


def test_a_unit_may_leave_a_side_before_it_falls() -> None:
    """D14, D11: a Knight alone facing 3 strength falls and is spent, unless a Muster Token moves it away
    first: then the side loses no strength (the Knight is kept elsewhere)."""
    hits = ((3, -1, False, 1),)
    tactics = (0,) * len(TACTICS)
    stays = SideRelaxation().figures(hits, 0, 1, 0, 0, tactics)
    leaves = SideRelaxation().figures(hits, 0, 1, 0, 0, tactics, departures=1)
    assert [row[3] for row in stays if row[0] == 1] == [2]
    assert min(row[3] for row in leaves if row[0] == 1) == 0


def _naive_best(attacks: tuple[Attack, ...], i: int, state: State, memo: dict[tuple[int, State], int]) -> int:
    """The best value of ``attacks[i:]`` from ``state`` by trying every play there is: every set of up to
    the tokens left of Muster moves between any two sides (D14), then every way of taking the card
    (``Table._resolve``, D10–D13), or for a Catapult the Covers or not (D24). No move is skipped as
    needless, unlike ``Table``'s search."""
    if i == len(attacks):
        units, beer, tactics, _muster = state
        return (
            sum(u * s for u, s in zip(units, STRENGTHS, strict=True)) * KEPT + (beer + sum(tactics)) * SAVED
        )
    found = memo.get((i, state))
    if found is not None:
        return found
    at = attacks[i]
    units, beer, tactics, muster = state
    best: int | None = None
    if not at.hits:
        options = [(UNDEFENDED, state)]
        if tactics[at.tactic] >= at.castle:
            spent = tuple(c - at.castle if t == at.tactic else c for t, c in enumerate(tactics))
            options.append((BRAVERY * at.skull, (units, beer, spent, muster)))
        best = max(gain + _naive_best(attacks, i + 1, after, memo) for gain, after in options)
    else:
        arrangements = {units: 0}
        frontier = [units]
        for _ in range(muster):
            following = []
            for now in frontier:
                for source, target, kind in product(range(4), range(4), range(3)):
                    if source != target and now[3 * source + kind]:
                        step = list(now)
                        step[3 * source + kind] -= 1
                        step[3 * target + kind] += 1
                        if tuple(step) not in arrangements:
                            arrangements[tuple(step)] = arrangements[now] + 1
                            following.append(tuple(step))
            frontier = following
        for moved, used in arrangements.items():
            for gain, _sides, after, beer_left, left in Table._resolve(at, moved, beer, tactics):
                value = gain + _naive_best(attacks, i + 1, (after, beer_left, left, muster - used), memo)
                best = value if best is None else max(best, value)
    assert best is not None
    memo[(i, state)] = best
    return best


@BOUNDS
@given(positions(), st.data())
def test_the_search_skipping_needless_muster_moves_finds_the_best_play(
    position: Position, data: st.DataObject
) -> None:
    """D14, D28: the exact search tries only Muster moves that touch the sides a card hits and that were
    needed there (``resolve._justified``); every play there is, tried by brute force, is worth no more."""
    deployment = data.draw(st.sampled_from(list(deployments(position))))
    faces = data.draw(st.sampled_from(reveals(position)))
    plain = table(position, faces)
    state = start_state(position, deployment)
    assert plain.best(0, state) == _naive_best(plain.attacks, 0, state, {})
