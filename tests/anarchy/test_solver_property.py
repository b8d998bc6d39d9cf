"""Property tests of the Castle Defence solver over random small positions (issue 33 "How we will know"):
the solver's plan is never beaten by any other deployment (brute force), and the step-by-step resolution
(``narrate``) matches the solver's evaluation, reveal by reveal and on average (D6, D7–D28).

Positions are small on purpose (round 1–2, at most 3 Workers, Muster 0–1, each Tactic 0–1, at most one
card face down) so that every deployment can be evaluated.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anarchy.engine import (
    CORNERS,
    SIDES,
    AttackType,
    Deployment,
    Position,
    Slot,
    Tactic,
    cards_of,
    deck,
    evaluate,
    narrate,
    reveals,
    solve,
)
from anarchy.engine.bound import SideRelaxation
from anarchy.engine.resolve import value_parts
from anarchy.engine.solver import _attacks, _classes, deployments, start_state, table

T = AttackType
FINALS = [card.id for card in cards_of(T.FINAL_ESCALADE)]
ATTACKS = [card.id for card in deck().values() if card.type is not T.FINAL_ESCALADE]
#: What each attack type is defended by (D18–D24), written out here rather than read from the engine.
TACTIC_OF: dict[AttackType, Tactic | None] = {
    T.LADDERS: Tactic.ROCKS,
    T.FINAL_ESCALADE: Tactic.ROCKS,
    T.ARROWS: None,
    T.BALLISTA: Tactic.BOLTS,
    T.BATTERING_RAM: Tactic.HOT_OIL,
    T.SIEGE_TOWER: Tactic.LOGS,
    T.CATAPULT: Tactic.COVERS,
}
SMALL = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _walls_ok(walls: tuple[int, ...]) -> bool:
    return all(abs(walls[j] - walls[(j + 1) % 4]) <= 1 for j in range(4))


def draw_row(draw: st.DrawFn, round_: int) -> list[Slot]:
    """A random row for ``round_``: a Final Escalade Card and ``round_`` distinct Attack Cards, at most one
    of them face down (D4, D5)."""
    attacks = draw(st.permutations(ATTACKS))[:round_]
    row = [Slot(T.FINAL_ESCALADE, draw(st.sampled_from(FINALS)))]
    row += [Slot(deck()[card_id].type, card_id) for card_id in attacks]
    down = draw(st.sampled_from([None, *range(1, round_ + 1)]))
    if down is not None:
        row[down] = Slot(row[down].back)
    return row


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """A random small position (D3, D4, D9, D10, D13, D14)."""
    round_ = draw(st.integers(1, 2))
    row = draw_row(draw, round_)
    workers = draw(
        st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)).filter(lambda w: sum(w) <= 3)
    )
    small = st.integers(0, 2)
    return Position(
        round=round_,
        values=draw(st.tuples(*[st.integers(0, 4)] * 5)),
        determination=draw(st.integers(0, 3)),
        food=draw(st.integers(0, 2)),
        row=tuple(row),
        walls=draw(st.tuples(small, small, small, small).filter(_walls_ok)),
        towers=draw(st.tuples(small, small, small, small)),
        moat=draw(small),
        gate=draw(small),
        tactics={t: draw(st.integers(0, 1)) for t in Tactic},
        craftsmen=workers[0],
        soldiers=workers[1],
        knights=workers[2],
        beer=draw(st.integers(0, 1)),
        muster=draw(st.integers(0, 1)),
    )


@SMALL
@given(positions())
def test_solver_is_never_beaten(position: Position) -> None:
    """D28 (with D3, D6): the solver's expected value equals the best of ALL deployments, each evaluated
    on its own; the deployment it returns is worth what it says, and among equals it is the first in the
    order of ``deployments`` (as ``solve`` promises, whichever order its search takes them in)."""
    every = list(deployments(position))
    values = [evaluate(position, deployment).value for deployment in every]
    solution = solve(position)
    assert solution.expectation.value == max(values)
    assert evaluate(position, solution.deployment) == solution.expectation
    assert solution.deployment == every[values.index(max(values))]


@SMALL
@given(positions(), st.data())
def test_narration_matches_evaluation(position: Position, data: st.DataObject) -> None:
    """D6, D28: for every reveal, narrate's undefended, kept and Bravery are the parts of the best value
    from that deployment, and their mean over the reveals is evaluate's expectation."""
    every = list(deployments(position))
    chosen = data.draw(st.sampled_from(every))
    for deployment in (solve(position).deployment, chosen):
        faces_all = reveals(position)
        state = start_state(position, deployment)
        results = []
        total = 0
        for faces in faces_all:
            result = narrate(position, deployment, faces)
            best = table(position, faces).best(0, state)
            total += best
            assert (result.undefended, result.kept, result.bravery) == value_parts(best)[:3]
            results.append(result)
        expectation = evaluate(position, deployment)
        n = len(faces_all)
        assert expectation.reveals == n
        assert expectation.value == total
        assert expectation.undefended == pytest.approx(sum(r.undefended for r in results) / n)
        assert expectation.kept == pytest.approx(sum(r.kept for r in results) / n)
        assert expectation.bravery == pytest.approx(sum(r.bravery for r in results) / n)


def _fortification(position: Position, attack_type: AttackType, side: int) -> int:
    """D9, from the contract's words: Walls their side, Towers the two corners naming the side, the Gate the
    bottom, the Moat every side."""
    if attack_type in (T.LADDERS, T.FINAL_ESCALADE, T.ARROWS):
        return position.walls[side]
    if attack_type is T.BALLISTA:
        return sum(
            level
            for corner, level in zip(CORNERS, position.towers, strict=True)
            if SIDES[side] in corner.split("-")
        )
    if attack_type is T.BATTERING_RAM:
        return position.gate if SIDES[side] == "bottom" else 0
    if attack_type is T.SIEGE_TOWER:
        return position.moat
    return 0


@SMALL
@given(positions(), st.data())
def test_narration_accounts_for_every_point(position: Position, data: st.DataObject) -> None:
    """D7–D27: every narrated step adds up: right to left; a side holds exactly when Fortification,
    Tactics and Workers give its strength; Tactics only of the card's kind and never more than prepared;
    Beer and Muster within what the player has; Workers never spent twice; the totals follow."""
    deployment: Deployment = data.draw(st.sampled_from(list(deployments(position))))
    faces: dict[int, str] = data.draw(st.sampled_from(reveals(position)))
    result = narrate(position, deployment, faces)
    assert [s.row_index for s in result.steps] == list(range(len(position.row) - 1, -1, -1))
    spent: dict[Tactic, int] = dict.fromkeys(Tactic, 0)
    beer = moves = 0
    # per side: [Craftsmen and Soldiers, Knights, laid-down Workers]
    units = [[c + s, k, 0] for c, s, k in deployment.sides]
    for step in result.steps:
        card = step.card
        kind = TACTIC_OF[card.type]
        moves += len(step.moves)
        for move in step.moves:  # a Worker moves from the side it stands on (D14)
            assert move.source != move.target and units[move.source][move.kind] > 0
            units[move.source][move.kind] -= 1
            units[move.target][move.kind] += 1
        if card.type is T.CATAPULT:
            assert step.sides == () and step.castle == position.values["ABCDE".index(card.castle)]
            assert step.defended == (step.covers == step.castle)
            spent[Tactic.COVERS] += step.covers
        else:
            strengths = dict(card.strengths(position.values))
            assert [SIDES.index(s.side) for s in step.sides] == list(strengths)
            for side in step.sides:
                index = SIDES.index(side.side)
                assert side.strength == strengths[index]
                assert side.fortified == min(side.strength, _fortification(position, card.type, index))
                damage = side.damage
                workers = 2 * damage.knights + damage.knights_down + damage.laid + damage.men + damage.beer
                assert side.fortified + side.tactics + workers <= side.strength
                assert side.held == (side.fortified + side.tactics + workers == side.strength)
                if kind is None:
                    assert side.tactics == 0
                else:
                    spent[kind] += side.tactics
                assert damage.beer <= damage.men + damage.men_down  # never to a Knight, 1 each (D13)
                beer += damage.beer
                here = units[index]
                here[0] -= damage.men + damage.men_down
                here[1] -= damage.knights + damage.knights_down
                here[2] -= damage.laid
                assert min(here) >= 0  # nobody takes damage on a side they do not stand on
                here[2] += damage.knights_down + damage.men_down
                if not side.held:  # D11: a side that falls loses everyone on it
                    assert here == [0, 0, 0]
            assert step.defended == all(side.held for side in step.sides)
        assert step.bravery == int(step.defended and card.skull)
    assert all(spent[t] <= position.tactic(t) for t in Tactic)
    assert beer <= position.beer and moves <= position.muster
    assert result.kept == sum(m + 2 * k + down for m, k, down in units)
    assert result.serfs == result.kept // 3
    assert result.undefended == sum(not s.defended for s in result.steps)
    assert result.bravery == sum(s.bravery for s in result.steps)
    assert result.loyalty == max(0, position.determination - result.undefended)
    assert result.food_discontent == max(0, position.round - position.food)
    assert result.discontent == position.determination - result.loyalty + result.food_discontent


# --- An independent reference, written from the contract alone --------------------------------------

Score = tuple[int, int, int, int]  # (−undefended, strength kept, Bravery, Tactics and Beer left): D28's order
Units = tuple[tuple[int, int, int], ...]  # per side: (Craftsmen/Soldiers, Knights, laid-down Workers)


def _take(unit: tuple[int, int, int], need: int, beer: int) -> list[tuple[tuple[int, int, int], int, bool]]:
    """Every way one side's Workers take ``need`` (D11–D13): ``(units after, Beer drunk, held)``. When they
    can give exactly ``need`` they must; Beer only to Craftsmen and Soldiers, one each; a side that cannot
    hold loses everyone on it."""
    m, k, down = unit
    if need == 0:
        return [(unit, 0, True)]
    out: list[tuple[tuple[int, int, int], int, bool]] = []
    if need > m + 2 * k + down:
        out.append(((0, 0, 0), 0, False))
    for spent_k in range(k + 1):
        for down_k in range(k - spent_k + 1):
            for spent_l in range(down + 1):
                for plain in range(m + 1):
                    for beer_spent in range(m - plain + 1):
                        for beer_down in range(m - plain - beer_spent + 1):
                            drunk = beer_spent + beer_down
                            given_ = 2 * spent_k + down_k + spent_l + plain + 2 * beer_spent + beer_down
                            if given_ != need or drunk > beer:
                                continue
                            after = (
                                m - plain - drunk,
                                k - spent_k - down_k,
                                down - spent_l + down_k + beer_down,
                            )
                            out.append((after, drunk, True))
    return out


def _reference(position: Position, deployment: Deployment, faces: dict[int, str]) -> Score:
    """The best score of the phase by exhaustive search over every choice the contract allows (D7–D28)."""
    row = [deck()[slot.card if slot.card is not None else faces[i]] for i, slot in enumerate(position.row)]
    cards = row[::-1]  # right to left (D7)
    tactics0 = tuple(position.tactic(t) for t in Tactic)

    def best(i: int, units: Units, beer: int, tactics: tuple[int, ...], muster: int) -> Score:
        if i == len(cards):
            kept = sum(m + 2 * k + down for m, k, down in units)
            return (0, kept, 0, beer + sum(tactics))
        results: list[Score] = []
        starts: list[tuple[Units, int]] = [(units, muster)]
        for _ in range(muster):  # each token moves one Worker once (D14)
            more = []
            for now, left in starts:
                for source in range(4):
                    for target in range(4):
                        for kind in range(3):
                            if source != target and now[source][kind]:
                                moved = [list(u) for u in now]
                                moved[source][kind] -= 1
                                moved[target][kind] += 1
                                more.append((tuple((a, b, c) for a, b, c in moved), left - 1))
            starts += more
        card = cards[i]
        tactic = TACTIC_OF[card.type]
        kind_index = list(Tactic).index(tactic) if tactic is not None else -1
        for now, left in starts:
            if card.type is T.CATAPULT:
                strength = position.values["ABCDE".index(card.castle)]
                rest = best(i + 1, now, beer, tactics, left)
                results.append((rest[0] - 1, *rest[1:]))
                if tactics[kind_index] >= strength:
                    spent = tuple(n - strength * (j == kind_index) for j, n in enumerate(tactics))
                    rest = best(i + 1, now, beer, spent, left)
                    results.append((rest[0], rest[1], rest[2] + card.skull, rest[3]))
                continue
            needs = [
                (side, strength - min(strength, _fortification(position, card.type, side)))
                for side, strength in card.strengths(position.values)
            ]
            available = tactics[kind_index] if kind_index >= 0 else 0
            splits: list[tuple[int, ...]] = [()]
            for _side, need in needs:
                splits = [(*s, u) for s in splits for u in range(min(need, available) + 1)]
            for split in splits:
                if sum(split) > available:
                    continue
                options: list[tuple[Units, int, bool]] = [(now, beer, True)]
                for (side, need), used in zip(needs, split, strict=True):
                    nxt: list[tuple[Units, int, bool]] = []
                    for state, beer_left, held in options:
                        for after, drunk, ok in _take(state[side], need - used, beer_left):
                            changed = tuple(after if j == side else u for j, u in enumerate(state))
                            nxt.append((changed, beer_left - drunk, held and ok))
                    options = nxt
                spent = tuple(n - sum(split) * (j == kind_index) for j, n in enumerate(tactics))
                for after_units, beer_left, held in options:
                    rest = best(i + 1, after_units, beer_left, spent, left)
                    results.append((rest[0] - (not held), rest[1], rest[2] + (held and card.skull), rest[3]))
        return max(results)

    return best(
        0, tuple((c + s, k, 0) for c, s, k in deployment.sides), position.beer, tactics0, position.muster
    )


@SMALL
@given(positions(), st.data())
def test_resolution_matches_an_independent_reference(position: Position, data: st.DataObject) -> None:
    """D7–D28: for a random deployment and reveal, narrate's undefended, kept and Bravery are those of the
    best play found by a separate exhaustive search written from the contract; the solver's best expected
    undefended and kept match the reference's best deployment."""
    deployment: Deployment = data.draw(st.sampled_from(list(deployments(position))))
    faces: dict[int, str] = data.draw(st.sampled_from(reveals(position)))
    result = narrate(position, deployment, faces)
    score = _reference(position, deployment, faces)
    assert (result.undefended, result.kept, result.bravery) == (-score[0], score[1], score[2])
    every = reveals(position)
    totals = [
        tuple(sum(part) for part in zip(*(_reference(position, d, f) for f in every), strict=True))
        for d in deployments(position)
    ]
    expectation = solve(position).expectation
    n = len(every)
    undefended, kept, bravery, saved = max(totals)
    assert expectation.undefended * n == pytest.approx(-undefended)
    assert expectation.kept * n == pytest.approx(kept)
    assert expectation.bravery * n == pytest.approx(bravery)
    assert expectation.saved * n == pytest.approx(saved)


def test_catapults_and_reveals_of_one_shape_are_solved_apart_and_once() -> None:
    """D24, D6, D28: with a Catapult face down, the reveals differ only in the Catapult, so the solver
    solves the other cards once (one class) and the Catapults apart; its plan and expectation are still
    those of brute force over every deployment and every reveal."""
    catapult = next(card for card in deck().values() if card.type is T.CATAPULT)
    ladders = next(card for card in deck().values() if card.type is T.LADDERS)
    position = Position(
        round=2,
        values=(1, 2, 2, 2, 3),
        determination=2,
        row=(Slot(T.FINAL_ESCALADE, FINALS[0]), Slot(T.CATAPULT), Slot(T.LADDERS, ladders.id)),
        walls=(1, 1, 1, 1),
        tactics={Tactic.ROCKS: 1, Tactic.COVERS: 2},
        craftsmen=2,
        soldiers=0,
        knights=1,
        beer=1,
    )
    assert catapult.id not in {slot.card for slot in position.row}
    count = len(reveals(position))
    assert count == len(cards_of(T.CATAPULT)) > 1
    assert (
        len(_classes(position, [_attacks(position, f) for f in reveals(position)], {}, SideRelaxation())) == 1
    )
    solution = solve(position)
    values = [evaluate(position, deployment).value for deployment in deployments(position)]
    assert solution.expectation.value == max(values)
    assert solution.deployment == list(deployments(position))[values.index(max(values))]
    assert evaluate(position, solution.deployment) == solution.expectation
    assert solution.expectation.reveals == count
