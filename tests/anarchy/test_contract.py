"""The Castle Defence rules contract, one or more tests per rule D1–D30 (docs/anarchy/castle-defence.md;
issue 33 "How we will know": a test per contract rule, each citing it).

Every test builds the position it needs directly and asserts behaviour through the public API of
``anarchy.engine`` (``narrate`` for a resolution, ``solve``/``evaluate``/``reveals`` for the solver). The
helper :func:`given` is the strength a side's Workers gave (Knights 2 each when spent, 1 when laid down;
Craftsmen and Soldiers 1, plus their Beer), so the tests do not depend on which of two equally good Workers
the engine picks.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from anarchy.engine import (
    CORNERS,
    LETTERS,
    SIDES,
    AnarchyError,
    AttackType,
    Damage,
    Deployment,
    InvalidDeployment,
    InvalidPosition,
    NotationError,
    Position,
    RecordError,
    Resolution,
    Slot,
    Step,
    Tactic,
    cards_of,
    daily_puzzle,
    deck,
    describe,
    evaluate,
    narrate,
    parse_deployment,
    position_from_record,
    position_to_record,
    practice_values,
    reveals,
    solve,
    write_deployment,
)

T = AttackType
#: Round 1–2 practice values: A = D = 2, B = C = 1, E = 3 (docs/anarchy/practice-values.md).
V1 = (2, 1, 1, 2, 3)
NOBODY = (0, 0, 0)


def up(card_id: str) -> Slot:
    """A face-up slot of ``card_id``."""
    return Slot(deck()[card_id].type, card_id)


def pos(
    *row: str | Slot,
    values: tuple[int, ...] = V1,
    determination: int = 1,
    food: int | None = None,
    **rest: Any,
) -> Position:
    """A position whose round is the row's length − 1 and whose Food pays the round (unless given)."""
    slots = tuple(up(item) if isinstance(item, str) else item for item in row)
    round_ = len(slots) - 1
    return Position(
        round=round_,
        values=values,
        determination=determination,
        row=slots,
        food=round_ if food is None else food,
        **rest,
    )


def on(
    top: tuple[int, int, int] = NOBODY,
    right: tuple[int, int, int] = NOBODY,
    bottom: tuple[int, int, int] = NOBODY,
    left: tuple[int, int, int] = NOBODY,
) -> Deployment:
    """A deployment: ``(craftsmen, soldiers, knights)`` per side."""
    return Deployment((top, right, bottom, left))


def given(damage: Damage) -> int:
    """The strength the Workers of one side gave against one card (D11–D13)."""
    return 2 * damage.knights + damage.knights_down + damage.laid + damage.men + damage.beer


def step_of(resolution: Resolution, card_id: str) -> Step:
    """The step that resolved ``card_id``."""
    (step,) = [s for s in resolution.steps if s.card.id == card_id]
    return step


def side_of(step: Step, side: str) -> Any:
    """The :class:`SideStep` of ``side`` in ``step``."""
    (found,) = [s for s in step.sides if s.side == side]
    return found


def refused(error_class: type[AnarchyError], code: str, build: Any) -> None:
    """``build()`` raises ``error_class`` with ``code``."""
    with pytest.raises(error_class) as caught:
        build()
    assert caught.value.code == code
    assert isinstance(caught.value, ValueError)
    assert str(caught.value)


# --- The rulebook's Full Example of Round 5 (seed ll. 852–873) -------------------------------------------


def full_example() -> Position:
    """The Full Example's board: Round 5, A = D = 4, B = C = 3, E = 5, Determination 3, 4 Food for 5; the
    2nd and 4th Attack Card spaces (A23, A25) face down (D4's practice spaces)."""
    return Position(
        round=5,
        values=(4, 3, 3, 4, 5),
        determination=3,
        food=4,
        row=(up("F5"), up("A11"), Slot(T.SIEGE_TOWER), up("A22"), Slot(T.BATTERING_RAM), up("A33")),
        walls=(2, 3, 2, 2),
        moat=4,
        gate=1,
        tactics={Tactic.ROCKS: 2, Tactic.HOT_OIL: 1, Tactic.COVERS: 4},
        craftsmen=1,
        soldiers=1,
        knights=2,
        beer=1,
        muster=1,
    )


FULL_EXAMPLE_DEPLOYMENT = on(bottom=(0, 1, 2), left=(1, 0, 0))
FULL_EXAMPLE_FACES = {2: "A23", 4: "A25"}


def test_full_example_of_round_5() -> None:
    """D1–D27 (the book's Full Example, seed ll. 860–873): every card is defended, Bravery 2, Loyalty 3,
    Discontent 1 (the unpaid Food), step by step as the book tells it."""
    result = narrate(full_example(), FULL_EXAMPLE_DEPLOYMENT, FULL_EXAMPLE_FACES)
    assert [s.card.id for s in result.steps] == ["A33", "A25", "A22", "A23", "A11", "F5"]
    assert all(s.defended for s in result.steps)
    arrows, ram, tower, strong_tower, trebuchet, final = result.steps
    # 1. Arrows left, right, bottom at 3: the right Wall absorbs 3, left and bottom are 1 short each.
    assert [(s.side, s.strength, s.fortified) for s in arrows.sides] == [
        ("right", 3, 3),
        ("bottom", 3, 2),
        ("left", 3, 2),
    ]
    assert [given(s.damage) for s in arrows.sides] == [0, 1, 1]
    assert sum(s.beer for s in arrows.sides) == 1  # the Beer given to the Soldier
    # 2. Battering Ram, bottom, 4: Gate 1, 1 Hot Oil, 2 from a Knight.
    (bottom,) = ram.sides
    assert (bottom.strength, bottom.fortified, bottom.tactics, given(bottom.damage)) == (4, 1, 1, 2)
    # 3. Siege Tower on the left at 4: the Moat holds it in full.
    assert [(s.side, s.strength, s.fortified, given(s.damage)) for s in tower.sides] == [("left", 4, 4, 0)]
    # 4. Strong Siege Tower on the right at 5: Moat 4, and the Muster Token moves a Worker there.
    assert len(strong_tower.moves) == 1 and SIDES[strong_tower.moves[0].target] == "right"
    assert [(s.side, s.strength, s.fortified, given(s.damage)) for s in strong_tower.sides] == [
        ("right", 5, 4, 1)
    ]
    assert strong_tower.bravery == 1
    # 5. The Trebuchet at 4: all 4 Covers.
    assert (trebuchet.sides, trebuchet.castle, trebuchet.covers, trebuchet.bravery) == ((), 4, 4, 1)
    # 6. Final Escalade top and bottom at 4: Walls 2 each, 2 Rocks at the top, the last Knight at the bottom.
    assert [(s.side, s.strength, s.fortified, s.tactics, given(s.damage)) for s in final.sides] == [
        ("top", 4, 2, 2, 0),
        ("bottom", 4, 2, 0, 2),
    ]
    assert (result.undefended, result.bravery, result.loyalty) == (0, 2, 3)
    assert (result.discontent, result.food_discontent) == (1, 1)
    assert (result.kept, result.serfs) == (0, 0)


def test_full_example_solver_agrees() -> None:
    """D28 (the Full Example): the book's deployment is a best one for the revealed row; the solver finds a
    deployment at least as good on expectation over the 30 reveals (5 Siege Towers × 6 Battering Rams)."""
    position = full_example()
    assert len(reveals(position)) == 30
    solution = solve(position)
    assert solution.expectation.value >= evaluate(position, FULL_EXAMPLE_DEPLOYMENT).value
    assert solution.expectation.reveals == 30


# --- The phase -----------------------------------------------------------------------------------------


def test_d1_steps_in_order() -> None:
    """D1: Food is paid first (its Discontent apart), the cards are resolved right to left with Bravery at
    once for each Strong Attack, then Loyalty, Discontent, and Serfs from the Workers kept."""
    # Round 2: F6 (top, right at 2) held by the Walls; A5 (Strong Ladders, top at 3) held by a Knight and the
    # top Wall; A4 (Ladders, left at 2) with nobody on the left: undefended.
    position = pos("F6", "A4", "A5", walls=(2, 2, 1, 1), determination=2, food=1, knights=1, craftsmen=1)
    result = narrate(position, on(top=(0, 0, 1), bottom=(1, 0, 0)), {})
    assert [s.row_index for s in result.steps] == [2, 1, 0]
    assert [s.defended for s in result.steps] == [True, False, True]
    assert [s.bravery for s in result.steps] == [1, 0, 0]
    assert result.food_discontent == 1
    assert (result.undefended, result.bravery, result.loyalty) == (1, 1, 1)
    assert result.discontent == (2 - 1) + 1
    assert (result.kept, result.serfs) == (1 + 1, 0)


def test_d2_pay_food() -> None:
    """D2: 1 Discontent per Food not paid; none when the Food covers the round."""
    for food, owed in ((0, 3), (1, 2), (2, 1), (3, 0), (7, 0)):
        position = pos("F5", "A1", "A2", "A3", walls=(2, 2, 2, 2), food=food, determination=2)
        result = narrate(position, on(), {})
        assert result.food_discontent == owed
        assert result.undefended == 0
        assert result.discontent == owed  # nothing else: Loyalty took the whole Determination


def test_d3_everyone_deployed_strengths() -> None:
    """D3: Craftsmen and Soldiers have strength 1, Knights 2; any number may stand on one side."""
    position = pos("F6", "A1", walls=(2, 2, 2, 2), craftsmen=2, soldiers=1, knights=3)
    result = narrate(position, on(left=(2, 1, 3)), {})
    assert result.undefended == 0
    assert result.kept == 2 + 1 + 2 * 3


def test_d3_deployment_must_place_everyone() -> None:
    """D3: a deployment that leaves a Worker out, or places one too many, is refused (typed error)."""
    position = pos("F6", "A1", walls=(2, 2, 2, 2), craftsmen=1, soldiers=1, knights=1)
    refused(InvalidDeployment, "not_all_deployed", lambda: narrate(position, on(top=(1, 1, 0)), {}))
    refused(InvalidDeployment, "not_all_deployed", lambda: evaluate(position, on(top=(1, 1, 2))))
    refused(InvalidDeployment, "not_all_deployed", lambda: on(top=(0, 1, 1), left=(0, 1, 0)).check(position))
    refused(InvalidDeployment, "bad_deployment", lambda: Deployment(((1, 0, 0),)))
    refused(InvalidDeployment, "bad_deployment", lambda: Deployment.of([(1, 0)] * 4))
    on(top=(1, 0, 0), right=(0, 1, 0), bottom=(0, 0, 1)).check(position)  # exactly everyone: accepted


def test_d3_notation_round_trip_and_refusals() -> None:
    """D3: the short notation places exactly the position's Workers, or is refused with a typed error."""
    position = pos("F6", "A1", walls=(2, 2, 2, 2), craftsmen=2, soldiers=1, knights=2)
    deployment = parse_deployment("T:2C1K r:1s  Bottom=1K", position)
    assert deployment == on(top=(2, 0, 1), right=(0, 1, 0), bottom=(0, 0, 1))
    assert write_deployment(deployment) == "T:2C1K R:1S B:1K"
    assert parse_deployment(write_deployment(deployment), position) == deployment
    assert write_deployment(on()) == "-"
    refused(InvalidDeployment, "not_all_deployed", lambda: parse_deployment("T:2C1K", position))
    refused(NotationError, "unreadable", lambda: parse_deployment("X:2C", position))
    refused(NotationError, "side_twice", lambda: parse_deployment("T:2C T:1S2K", position))
    refused(NotationError, "empty", lambda: parse_deployment("   ", position))
    refused(NotationError, "too_long", lambda: parse_deployment("T:1C " * 100, position))


def test_d3_workers_stay_without_muster() -> None:
    """D3: once deployed a Worker moves only by a Muster Token: with none, the Knight on the top cannot
    answer the left, which falls."""
    position = pos("F6", "A4", walls=(2, 2, 1, 1), knights=1)
    result = narrate(position, on(top=(0, 0, 1)), {})
    assert all(s.moves == () for s in result.steps)
    assert result.undefended == 1 and result.kept == 2


def test_d4_row_accepted_shapes() -> None:
    """D4: round r holds the Final Escalade face up on the left and r Attack Cards; any Attack Card space
    may be face down."""
    for round_ in range(1, 6):
        attacks = [f"A{n}" for n in (1, 13, 19, 25, 31)][:round_]
        position = pos("F1", *attacks)
        assert position.round == round_ and len(position.row) == round_ + 1
    position = pos("F1", Slot(T.LADDERS), "A13", Slot(T.CATAPULT))
    assert position.face_down() == (1, 3)


def test_d4_row_refusals() -> None:
    """D4: a bad round, a row of the wrong length, a Final Escalade not left-most (or twice, or face down),
    a card of the wrong type for its back, an unknown card and a repeated card are refused."""
    row = (up("F1"), up("A1"))
    refused(InvalidPosition, "bad_round", lambda: Position(round=0, values=V1, determination=1, row=row))
    refused(InvalidPosition, "bad_round", lambda: Position(round=6, values=V1, determination=1, row=row))
    text_round: Any = "1"
    refused(
        InvalidPosition, "bad_round", lambda: Position(round=text_round, values=V1, determination=1, row=row)
    )
    refused(InvalidPosition, "bad_row", lambda: Position(round=2, values=V1, determination=1, row=row))
    three = (up("F1"), up("A1"), up("A2"), up("A3"))
    refused(InvalidPosition, "bad_row", lambda: Position(round=2, values=V1, determination=1, row=three))
    refused(InvalidPosition, "bad_row", lambda: pos("A1", "F1"))
    refused(InvalidPosition, "bad_row", lambda: pos("F1", "F2"))
    refused(InvalidPosition, "bad_row", lambda: pos(Slot(T.FINAL_ESCALADE), "A1"))
    refused(InvalidPosition, "bad_row", lambda: pos("F1", Slot(T.LADDERS, "A13")))
    refused(InvalidPosition, "unknown_card", lambda: pos("F1", Slot(T.LADDERS, "A99")))
    refused(InvalidPosition, "repeated_card", lambda: pos("F1", "A1", "A1"))


def test_d5_face_down_shows_only_its_back() -> None:
    """D5: a face-down slot holds no card, only its back's type; it is resolved only with a face given,
    which must be of that type; records keep it face down."""
    position = pos("F6", Slot(T.SIEGE_TOWER), walls=(2, 2, 2, 2), moat=1, knights=1)
    assert position.row[1].face_down and position.row[1].card is None
    deployment = on(top=(0, 0, 1))
    refused(InvalidPosition, "bad_face", lambda: narrate(position, deployment, {}))
    refused(InvalidPosition, "bad_face", lambda: narrate(position, deployment, {1: "A1"}))
    refused(InvalidPosition, "bad_face", lambda: narrate(position, deployment, {1: "A99"}))
    result = narrate(position, deployment, {1: "A19"})  # the Siege Tower on the top, at 2: Moat 1, Knight 1
    assert result.undefended == 0 and result.kept == 1
    record = position_to_record(position)
    assert record["position"]["row"][1] == {"back": "siege_tower", "card": None}
    assert position_from_record(record) == position


def test_d5_records_round_trip_and_refusals() -> None:
    """D5: a record holds the position as seen (faces only of face-up cards) and reads back equal; a
    record that is not one is refused with a typed error."""
    position = full_example()
    record = position_to_record(position)
    assert record["format"] == "anarchy/castle-defence" and record["version"] == 1
    assert "A23" not in str(record) and "A25" not in str(record)
    assert position_from_record(record) == position
    refused(RecordError, "not_a_record", lambda: position_from_record({"format": "other"}))
    refused(RecordError, "bad_version", lambda: position_from_record({**record, "version": 2}))
    refused(RecordError, "no_position", lambda: position_from_record({**record, "position": None}))
    refused(RecordError, "bad_position", lambda: position_from_record({**record, "position": {"round": 5}}))
    broken = {**record, "position": {**record["position"], "round": 9}}
    refused(InvalidPosition, "bad_round", lambda: position_from_record(broken))


def test_d6_reveals_one_face_down_ladders() -> None:
    """D6: one face-down Ladders with one Ladders face up can be any of the 5 other Ladders, equally."""
    position = pos("F1", "A1", Slot(T.LADDERS))
    faces = reveals(position)
    assert len(faces) == 5
    assert sorted(f[2] for f in faces) == ["A2", "A3", "A4", "A5", "A6"]


def test_d6_reveals_two_of_a_type_are_distinct_ordered_pairs() -> None:
    """D6: two face-down cards of one type are every ordered pair of different cards of that type."""
    position = pos("F1", "A1", Slot(T.SIEGE_TOWER), "A13", Slot(T.SIEGE_TOWER))
    faces = reveals(position)
    towers = [c.id for c in cards_of(T.SIEGE_TOWER)]
    assert len(towers) == 6
    assert len(faces) == 6 * 5
    assert {(f[2], f[4]) for f in faces} == {(a, b) for a in towers for b in towers if a != b}
    # one of them face up: it is no face of the others
    position = pos("F1", "A19", Slot(T.SIEGE_TOWER), "A13", Slot(T.SIEGE_TOWER))
    assert len(reveals(position)) == 5 * 4
    assert all("A19" not in f.values() for f in reveals(position))


def test_d6_reveals_of_different_types_and_none() -> None:
    """D6: face-down cards of different types combine freely; with none face down there is one reveal."""
    position = pos("F1", Slot(T.CATAPULT), "A13", Slot(T.ARROWS))
    assert len(reveals(position)) == len(cards_of(T.CATAPULT)) * len(cards_of(T.ARROWS)) == 36
    assert reveals(pos("F1", "A1")) == [{}]
    # the expectation is the mean over the reveals of each reveal's resolution
    position = pos("F6", Slot(T.LADDERS), walls=(1, 1, 1, 1), knights=1)
    deployment = on(top=(0, 0, 1))
    results = [narrate(position, deployment, f) for f in reveals(position)]
    expectation = evaluate(position, deployment)
    assert expectation.reveals == len(results) == 6
    assert expectation.undefended == pytest.approx(sum(r.undefended for r in results) / 6)
    assert expectation.kept == pytest.approx(sum(r.kept for r in results) / 6)
    assert expectation.bravery == pytest.approx(sum(r.bravery for r in results) / 6)


def test_d7_right_to_left_final_escalade_last() -> None:
    """D7: the cards are resolved from the right-most to the left-most; the Final Escalade is last; every
    card is resolved, defended or not."""
    position = pos("F2", "A1", "A13", "A19", "A25", "A31")
    result = narrate(position, on(), {})
    assert [s.row_index for s in result.steps] == [5, 4, 3, 2, 1, 0]
    assert [s.card.id for s in result.steps] == ["A31", "A25", "A19", "A13", "A1", "F2"]
    assert result.steps[-1].card.type is T.FINAL_ESCALADE
    assert result.undefended == 6


def test_d7_order_decides_who_gets_the_worker() -> None:
    """D7: one Craftsman on the left and two cards 1 short there: the right-most one takes him (Workers
    cannot step aside, D11), so the order of the row decides which card is defended."""
    kwargs: dict[str, Any] = {"walls": (2, 2, 1, 1), "moat": 2, "craftsmen": 1}
    # A24: Strong Siege Tower left at 3 (Moat 2); A4: Ladders left at 2 (Wall 1)
    strong_first = narrate(pos("F6", "A4", "A24", **kwargs), on(left=(1, 0, 0)), {})
    assert [(s.card.id, s.defended) for s in strong_first.steps] == [
        ("A24", True),
        ("A4", False),
        ("F6", True),
    ]
    assert strong_first.bravery == 1
    ladders_first = narrate(pos("F6", "A24", "A4", **kwargs), on(left=(1, 0, 0)), {})
    assert [(s.card.id, s.defended) for s in ladders_first.steps] == [
        ("A4", True),
        ("A24", False),
        ("F6", True),
    ]
    assert ladders_first.bravery == 0


def test_d8_strength_by_letter() -> None:
    """D8: each attacked side's strength is the round's value of the card's letter for it; a Catapult's is
    the value of its one letter for the entire Castle."""
    # A33: Arrows right C, bottom B, left C; A7: Catapult C.
    for values in ((1, 2, 3, 4, 5), (5, 4, 3, 2, 1), (0, 0, 7, 0, 0)):
        a, b, c, _d, _e = values
        result = narrate(pos("F3", "A7", "A33", values=values), on(), {})
        arrows, catapult, final = result.steps
        assert [(s.side, s.strength) for s in arrows.sides] == [("right", c), ("bottom", b), ("left", c)]
        assert catapult.castle == c and catapult.sides == ()
        assert [(s.side, s.strength) for s in final.sides] == [("right", a), ("bottom", a)]


# --- Defences ------------------------------------------------------------------------------------------


def test_d9_walls_own_side_and_never_wear_down() -> None:
    """D9: a Wall defends its own side, absorbs as much as it can, and is whole again for the next card."""
    # A4 Ladders left at 2, then F2 (bottom, left) at 2: the left Wall 2 absorbs both; the bottom Wall 1
    # absorbs 1 of F2's 2.
    result = narrate(pos("F2", "A4", walls=(1, 1, 1, 2)), on(), {})
    ladders, final = result.steps
    assert [(s.side, s.fortified) for s in ladders.sides] == [("left", 2)]
    assert [(s.side, s.strength, s.fortified) for s in final.sides] == [("bottom", 2, 1), ("left", 2, 2)]
    assert (ladders.defended, final.defended) == (True, False)
    # a Wall higher than the attack absorbs only the attack's strength
    (side,) = narrate(pos("F2", "A4", walls=(2, 2, 3, 3)), on(), {}).steps[0].sides
    assert side.fortified == 2


def test_d9_towers_on_corners() -> None:
    """D9: a Tower stands on a corner and defends both sides it adjoins: a side gets the two Towers at its
    ends (corners top-left, top-right, bottom-right, bottom-left)."""
    assert CORNERS == ("top-left", "top-right", "bottom-right", "bottom-left")
    values = (4, 4, 4, 4, 4)
    # A13: Ballista top C, bottom B; A15: Ballista right C, left B.
    for towers, top, right, bottom, left in (
        ((1, 0, 0, 0), 1, 0, 0, 1),
        ((0, 2, 0, 0), 2, 2, 0, 0),
        ((0, 0, 1, 0), 0, 1, 1, 0),
        ((0, 0, 0, 2), 0, 0, 2, 2),
        ((1, 2, 1, 2), 3, 3, 3, 3),
    ):
        result = narrate(pos("F1", "A13", "A15", values=values, walls=(4, 4, 4, 4), towers=towers), on(), {})
        fortified = {s.side: s.fortified for step in result.steps[:2] for s in step.sides}
        assert fortified == {"top": top, "right": right, "bottom": bottom, "left": left}, towers


def test_d9_gate_bottom_and_moat_every_side() -> None:
    """D9: the Gate defends the bottom side; the one Moat defends every side against a Siege Tower."""
    # A19–A22: Siege Towers top, right, bottom, left at A = 2; Moat 1
    for card, side in (("A19", "top"), ("A20", "right"), ("A21", "bottom"), ("A22", "left")):
        step = narrate(pos("F1", card, walls=(3, 3, 3, 3), moat=1), on(), {}).steps[0]
        assert [(s.side, s.strength, s.fortified) for s in step.sides] == [(side, 2, 1)]
    # A25: Battering Ram bottom at 2: only the Gate's 1 counts (not the Walls, Towers or Moat)
    step = narrate(pos("F1", "A25", walls=(3, 3, 3, 3), gate=1, moat=3, towers=(2, 2, 2, 2)), on(), {}).steps[
        0
    ]
    assert [(s.side, s.strength, s.fortified) for s in step.sides] == [("bottom", 2, 1)]


def test_d9_refused_fortifications() -> None:
    """D9: a Tower above level 2, or adjacent Walls differing by more than 1, is refused."""
    refused(InvalidPosition, "bad_tower", lambda: pos("F1", "A1", towers=(0, 3, 0, 0)))
    refused(InvalidPosition, "bad_walls", lambda: pos("F1", "A1", walls=(0, 2, 2, 1)))
    refused(InvalidPosition, "bad_walls", lambda: pos("F1", "A1", walls=(2, 1, 1, 0)))  # left and top wrap
    pos("F1", "A1", walls=(2, 1, 0, 1), towers=(2, 2, 2, 2))  # within 1 all round: accepted


def test_d10_tactic_kept_when_it_cannot_make_the_card_hold() -> None:
    """D10: Tactics are optional: 1 Rock cannot hold a Ladders 3 short, so the best play keeps it."""
    # A6: Strong Ladders bottom E = 3; no Wall there, nobody deployed. F6 (top, right) at 1: Walls 1.
    position = pos("F6", "A6", values=(1, 1, 1, 1, 3), walls=(1, 1, 0, 0), tactics={Tactic.ROCKS: 1})
    result = narrate(position, on(), {})
    (side,) = result.steps[0].sides
    assert (side.strength, side.fortified, side.tactics, side.held) == (3, 0, 0, False)
    assert result.undefended == 1
    assert evaluate(position, on()).saved == 1  # the Rock is left prepared


def test_d10_tactics_used_when_they_hold() -> None:
    """D10: each Tactic used gives 1 defence and is spent: 3 Rocks hold the same Ladders; Rocks spent on
    the side of a two-side card that needs them."""
    position = pos("F6", "A6", values=(1, 1, 1, 1, 3), walls=(1, 1, 0, 0), tactics={Tactic.ROCKS: 3})
    result = narrate(position, on(), {})
    (side,) = result.steps[0].sides
    assert (side.fortified, side.tactics, side.held) == (0, 3, True)
    assert result.undefended == 0 and result.bravery == 1
    assert evaluate(position, on()).saved == 0
    # F5 (top, bottom) at 2: the top Wall 2 holds the top, 2 Rocks go to the bottom
    position = pos("F5", "A1", walls=(2, 1, 0, 1), tactics={Tactic.ROCKS: 2})
    final = narrate(position, on(), {}).steps[-1]
    assert [(s.side, s.fortified, s.tactics, s.held) for s in final.sides] == [
        ("top", 2, 0, True),
        ("bottom", 0, 2, True),
    ]


def test_d10_tactic_saved_for_a_later_card() -> None:
    """D10: a Tactic may be saved for a later card: 1 Rock is not spent on a hopeless Ladders but on the
    Final Escalade after it."""
    # A6 (bottom at 3) first: hopeless; then F6 (top, right at 2): Walls 1, Knight on the right, Rock at
    # the top
    position = pos("F6", "A6", walls=(1, 1, 0, 0), knights=1, tactics={Tactic.ROCKS: 1})
    result = narrate(position, on(right=(0, 0, 1)), {})
    hopeless, final = result.steps
    assert [s.tactics for s in hopeless.sides] == [0] and not hopeless.defended
    assert [(s.side, s.tactics) for s in final.sides] == [("top", 1), ("right", 0)] and final.defended


def test_d11_workers_spent_even_in_a_lost_defence() -> None:
    """D11: a side whose need is greater than its Workers' strength: the card is undefended AND the Workers
    there are gone (the strength kept drops)."""
    # A6: Strong Ladders bottom at 3, no Wall: 2 Workers there cannot hold it.
    position = pos("F6", "A6", values=(1, 1, 1, 1, 3), walls=(1, 1, 0, 0), craftsmen=1, soldiers=1, knights=1)
    there = narrate(position, on(bottom=(1, 1, 0), left=(0, 0, 1)), {})
    ladders = there.steps[0]
    (side,) = ladders.sides
    assert not ladders.defended and not side.held
    assert side.damage.men == 2 and given(side.damage) == 2
    assert (there.undefended, there.kept) == (1, 2)  # only the Knight on the left is kept
    elsewhere = narrate(position, on(left=(1, 1, 1)), {})
    assert (elsewhere.undefended, elsewhere.kept) == (1, 4)


def test_d11_player_chooses_who_takes_the_damage() -> None:
    """D11: which of a side's Workers take the damage is the player's choice: the best play spends the
    Craftsman rather than lay the Knight down when the Knight's 2 are needed later."""
    # A4: Ladders left at 2, Wall 1 (need 1); then F2 (bottom, left at 2): left Wall 1 again (need 1) and
    # bottom Wall 0 (need 2). A Craftsman and a Knight on the left, muster 1.
    position = pos("F2", "A4", walls=(1, 1, 0, 1), craftsmen=2, knights=1, muster=1)
    result = narrate(position, on(left=(2, 0, 1)), {})
    assert result.undefended == 0
    first = result.steps[0]
    assert first.sides[0].damage.men == 1 and first.sides[0].damage.knights_down == 0
    assert result.kept == 0


def test_d12_knight_giving_one_survives_laid_down() -> None:
    """D12: a Knight that gives only 1 of its 2 strength survives laid down, with strength 1 after."""
    # A4: Ladders left at 2, left Wall 1: need 1.
    position = pos("F6", "A4", walls=(2, 2, 1, 1), knights=1)
    result = narrate(position, on(left=(0, 0, 1)), {})
    (side,) = result.steps[0].sides
    assert side.damage == Damage(knights_down=1)
    assert describe(side.damage) == "1 Knight laid down"
    assert (result.undefended, result.kept) == (0, 1)
    # a second card 1 short on the left (A22, Siege Tower left at 2, Moat 1) spends the laid-down Knight
    position = pos("F6", "A4", "A22", walls=(2, 2, 1, 1), moat=1, knights=1)
    result = narrate(position, on(left=(0, 0, 1)), {})
    tower, ladders, _final = result.steps
    assert tower.sides[0].damage == Damage(knights_down=1)
    assert ladders.sides[0].damage == Damage(laid=1)
    assert (result.undefended, result.kept) == (0, 0)


def test_d13_beer_never_to_knights() -> None:
    """D13: Beer is never given to a Knight: a lone Knight cannot hold 3 however much Beer there is."""
    # A24: Strong Siege Tower left at E = 3; no Moat.
    position = pos("F6", "A24", walls=(2, 2, 1, 1), knights=1, beer=2)
    result = narrate(position, on(left=(0, 0, 1)), {})
    (side,) = result.steps[0].sides
    assert not side.held and side.beer == 0 and side.damage.knights == 1
    assert (result.undefended, result.kept) == (1, 0)
    assert evaluate(position, on(left=(0, 0, 1))).saved == 2


def test_d13_one_beer_per_craftsman_or_soldier() -> None:
    """D13: each Craftsman or Soldier drinks at most 1 Beer: one Craftsman with 2 Beer cannot hold 3; two
    hold it, each drinking 1, and the one left with 1 strength is laid down."""
    alone = pos("F6", "A24", walls=(2, 2, 1, 1), craftsmen=1, beer=2)
    result = narrate(alone, on(left=(1, 0, 0)), {})
    assert result.undefended == 1 and result.steps[0].sides[0].beer == 0
    pair = pos("F6", "A24", walls=(2, 2, 1, 1), craftsmen=1, soldiers=1, beer=2)
    result = narrate(pair, on(left=(1, 1, 0)), {})
    (side,) = result.steps[0].sides
    assert side.held and side.beer == 2 and given(side.damage) == 3
    assert side.damage == Damage(men=1, men_down=1, beer=2)
    assert (result.undefended, result.kept) == (0, 1)
    assert evaluate(pair, on(left=(1, 1, 0))).saved == 0
    one_beer = Position(**{**_fields(pair), "beer": 1})
    result = narrate(one_beer, on(left=(1, 1, 0)), {})
    assert result.steps[0].sides[0].beer == 1 and (result.undefended, result.kept) == (0, 0)


def test_d13_beer_drinker_survives_laid_down() -> None:
    """D13: a Craftsman given Beer who survives with 1 strength left is laid down, as a Knight, and counts
    1 when kept (D27)."""
    # A22: Siege Tower left at 2, Moat 1: need 1. A Soldier with Beer gives 1 and keeps 1.
    position = pos("F6", "A22", walls=(2, 2, 1, 1), moat=1, soldiers=1, beer=1)
    result = narrate(position, on(left=(0, 1, 0)), {})
    (side,) = result.steps[0].sides
    assert side.damage == Damage(men_down=1, beer=1)
    assert (result.undefended, result.kept) == (0, 1)


def test_d14_muster_move_holds_a_card() -> None:
    """D14: a Muster Token moves 1 Worker (a laid-down one too) before a card: the narration shows the
    move; with no token the same card is undefended."""
    # A4: Ladders left at 2 (Wall 1, need 1); then F6 top at 2 (Wall 1, need 1), right at 2 (Wall 2).
    # One Knight on the left: laid down by A4, then moved to the top for F6.
    position = pos("F6", "A4", walls=(1, 2, 1, 1), knights=1, muster=1)
    result = narrate(position, on(left=(0, 0, 1)), {})
    ladders, final = result.steps
    assert ladders.moves == () and ladders.defended
    assert [(SIDES[m.target], m.kind) for m in final.moves] == [("top", 2)]
    assert final.move_words[0].startswith("laid-down Worker from ")
    assert final.move_words[0].endswith(" to top")
    assert final.defended and result.undefended == 0
    without = Position(**{**_fields(position), "muster": 0})
    result = narrate(without, on(left=(0, 0, 1)), {})
    assert [s.defended for s in result.steps] == [True, False]
    assert result.undefended == 1
    assert solve(without).expectation.undefended == 1 and solve(position).expectation.undefended == 0


def test_d14_narrated_move_starts_where_the_worker_stands() -> None:
    """D14: a Muster Token moves a Worker "from its current side": the narration names the side the Worker
    stands on (the left, where A4 laid the Knight down), not another side."""
    position = pos("F6", "A4", walls=(1, 2, 1, 1), knights=1, muster=1)
    final = narrate(position, on(left=(0, 0, 1)), {}).steps[1]
    assert [(SIDES[m.source], SIDES[m.target], m.kind) for m in final.moves] == [("left", "top", 2)]
    assert final.move_words == ("laid-down Worker from left to top",)


def test_d14_each_token_once_and_at_most_three() -> None:
    """D14: each Muster Token moves one Worker once a round; a player has at most 3."""
    # Two Knights on the top; A4 (left, need 1), A2 (right at 2, Wall 0: need 2), F6 (top need 1, right
    # need 2 again): one token cannot bring everyone where they are needed.
    kwargs: dict[str, Any] = {"walls": (1, 0, 0, 1), "knights": 2}
    one = narrate(pos("F6", "A2", "A4", muster=1, **kwargs), on(top=(0, 0, 2)), {})
    assert sum(len(s.moves) for s in one.steps) <= 1
    three = narrate(pos("F6", "A2", "A4", muster=3, **kwargs), on(top=(0, 0, 2)), {})
    assert sum(len(s.moves) for s in three.steps) <= 3
    assert three.undefended < one.undefended
    refused(InvalidPosition, "bad_muster", lambda: pos("F6", "A4", muster=4))


def _fields(position: Position) -> dict[str, Any]:
    """The constructor arguments of ``position``."""
    return {name: getattr(position, name) for name in Position.__dataclass_fields__}


# --- Outcome of a card ---------------------------------------------------------------------------------


def test_d15_defended_only_in_full_on_every_side() -> None:
    """D15: a card is defended only if every side it attacks holds in full; one side short is enough to
    leave it undefended."""
    # F5 (top, bottom) at 2: the top Wall 2 holds, the bottom Wall 1 is 1 short.
    result = narrate(pos("F5", "A1", walls=(2, 2, 1, 2)), on(), {})
    final = result.steps[-1]
    assert [(s.side, s.held) for s in final.sides] == [("top", True), ("bottom", False)]
    assert not final.defended and result.undefended == 1
    # one Rock covers the 1 short: now defended
    result = narrate(pos("F5", "A1", walls=(2, 2, 1, 2), tactics={Tactic.ROCKS: 1}), on(), {})
    assert result.steps[-1].defended and result.undefended == 0


def test_d16_strong_attack_defended_gives_bravery() -> None:
    """D16: defending a Strong Attack (skull) gives 1 Bravery at once; a normal one, or a Strong Attack
    not defended, gives none."""
    # A5: Strong Ladders top at 3; A1: Ladders top at 2.
    assert deck()["A5"].skull and not deck()["A1"].skull
    strong = narrate(pos("F4", "A5", walls=(3, 2, 2, 2)), on(), {})
    assert [s.bravery for s in strong.steps] == [1, 0] and strong.bravery == 1
    lost = narrate(pos("F4", "A5", walls=(2, 2, 2, 2)), on(), {})
    assert lost.steps[0].bravery == 0 and lost.bravery == 0 and lost.undefended == 1
    normal = narrate(pos("F4", "A1", walls=(3, 2, 2, 2)), on(), {})
    assert normal.bravery == 0 and normal.undefended == 0
    # two Strong Attacks defended: 2 Bravery; a Trebuchet (A11) held by Covers counts too
    both = narrate(pos("F4", "A5", "A11", walls=(3, 2, 2, 2), tactics={Tactic.COVERS: 2}), on(), {})
    assert [s.bravery for s in both.steps] == [1, 1, 0] and both.bravery == 2


def test_d17_undefended_stays_and_spends_its_workers() -> None:
    """D17: a card not defended in full counts as undefended, and the Workers it needed are spent."""
    # A2: Ladders right at 2, no Wall; a Craftsman there gives 1 and is spent; the card still counts.
    position = pos("F3", "A2", walls=(1, 0, 1, 1), values=(2, 1, 1, 1, 1), craftsmen=1, knights=1)
    result = narrate(position, on(right=(1, 0, 0), left=(0, 0, 1)), {})
    ladders = result.steps[0]
    assert not ladders.defended and ladders.sides[0].damage.men == 1
    # F3 (right, bottom at 2): right Wall 0 and nobody left there; bottom Wall 1 and nobody there
    assert result.undefended == 2 and result.kept == 2
    assert result.loyalty == 0  # Determination 1 − 2, to a minimum of 0


# --- Attack Card types ---------------------------------------------------------------------------------


def test_d18_ladders_walls_rocks_workers() -> None:
    """D18: Ladders attack 1 side; Walls, Rocks and Workers defend; Towers, Gate and Moat do not."""
    for card in cards_of(T.LADDERS):
        assert len(card.sides) == 1 and card.castle == ""
    # A3: Ladders bottom at 2.
    other_forts: dict[str, Any] = {"towers": (2, 2, 2, 2), "gate": 2, "moat": 3, "walls": (1, 1, 0, 1)}
    (side,) = narrate(pos("F5", "A3", values=(1, 1, 1, 1, 1), **other_forts), on(), {}).steps[0].sides
    assert (side.side, side.fortified, side.held) == ("bottom", 0, False)
    # A6: Strong Ladders bottom at E = 2 on a bottom Wall 0: 1 Rock and a Knight laid down (F1 at 1: Walls)
    held = narrate(
        pos("F1", "A6", values=(1, 1, 1, 1, 2), walls=(1, 1, 0, 1), tactics={Tactic.ROCKS: 1}, knights=1),
        on(bottom=(0, 0, 1)),
        {},
    )
    (side,) = held.steps[0].sides
    assert (side.fortified, side.tactics, given(side.damage), side.held) == (0, 1, 1, True)
    assert held.steps[0].defended
    # other Tactics do not serve
    others = {t: 3 for t in Tactic if t is not Tactic.ROCKS}
    result = narrate(pos("F1", "A3", walls=(2, 1, 0, 1), tactics=others), on(), {})
    assert result.steps[0].sides[0].tactics == 0 and not result.steps[0].defended


def test_d19_final_escalade_two_sides_same_strength() -> None:
    """D19: a Final Escalade attacks 2 different sides with one letter, as Ladders: Walls, Rocks, Workers."""
    for card in cards_of(T.FINAL_ESCALADE):
        assert len(card.sides) == 2 and card.sides[0][0] != card.sides[1][0]
        assert card.sides[0][1] == card.sides[1][1] and not card.skull
    # F5 (top, bottom) at 3: top Wall 1 + 2 Rocks; bottom Wall 2 + Knight laid down. Moat, Gate, Towers: no.
    position = pos(
        "F5",
        "A13",
        values=(3, 1, 1, 1, 1),
        walls=(1, 1, 2, 2),
        tactics={Tactic.ROCKS: 2},
        knights=1,
        gate=3,
        moat=3,
        towers=(2, 2, 2, 2),
    )
    final = narrate(position, on(bottom=(0, 0, 1)), {}).steps[-1]
    assert [(s.side, s.strength, s.fortified, s.tactics, given(s.damage)) for s in final.sides] == [
        ("top", 3, 1, 2, 0),
        ("bottom", 3, 2, 0, 1),
    ]
    assert final.defended


def test_d20_arrows_three_sides_walls_and_workers_only() -> None:
    """D20: Arrows attack 3 sides, the middle one at least as strong as the other two (on the book's and
    the practice values); Walls and Workers defend, no Tactic does."""
    for round_ in range(1, 6):
        values = practice_values(round_)[0]
        for card in cards_of(T.ARROWS):
            sides = [s for s, _ in card.sides]
            assert len(sides) == 3
            (middle,) = [s for s in sides if (s - 1) % 4 in sides and (s + 1) % 4 in sides]
            strengths = dict(card.strengths(values))
            assert all(strengths[middle] >= strengths[s] for s in sides), card.id
    # A31: top C, right B (middle), bottom C at 1: Walls 1 on top and right; the bottom is 1 short.
    every = {t: 3 for t in Tactic}
    result = narrate(pos("F6", "A31", values=(1, 1, 1, 1, 1), walls=(1, 1, 0, 0), tactics=every), on(), {})
    arrows = result.steps[0]
    assert [(s.side, s.fortified, s.tactics) for s in arrows.sides] == [
        ("top", 1, 0),
        ("right", 1, 0),
        ("bottom", 0, 0),
    ]
    assert not arrows.defended
    held = narrate(
        pos("F6", "A31", values=(1, 1, 1, 1, 1), walls=(1, 1, 0, 0), soldiers=1), on(bottom=(0, 1, 0)), {}
    )
    assert held.steps[0].defended


def test_d21_ballista_opposite_sides_towers_bolts_workers() -> None:
    """D21: a Ballista attacks 2 opposite sides; Towers, Bolts and Workers defend; Walls do not."""
    for card in cards_of(T.BALLISTA):
        (a, _), (b, _) = card.sides
        assert (b - a) % 4 == 2
    # A13: top C = 2, bottom B = 2. Towers top-left and top-right 1: the top gets 2, the bottom 0.
    position = pos(
        "F1",
        "A13",
        values=(2, 2, 2, 2, 2),
        walls=(3, 3, 3, 3),
        towers=(1, 1, 0, 0),
        tactics={Tactic.BOLTS: 1, Tactic.ROCKS: 3},
        knights=1,
    )
    ballista = narrate(position, on(bottom=(0, 0, 0), left=(0, 0, 1)), {}).steps[0]
    assert [(s.side, s.fortified) for s in ballista.sides] == [("top", 2), ("bottom", 0)]
    assert not ballista.defended  # the bottom has 1 Bolt for 2
    ballista = narrate(position, on(bottom=(0, 0, 1)), {}).steps[0]
    assert [(s.side, s.fortified, s.tactics, given(s.damage)) for s in ballista.sides] == [
        ("top", 2, 0, 0),
        ("bottom", 0, 1, 1),
    ]
    assert ballista.defended


def test_d22_battering_ram_bottom_gate_hot_oil_workers() -> None:
    """D22: a Battering Ram always attacks the bottom; the Gate, Hot Oil and Workers defend it."""
    for card in cards_of(T.BATTERING_RAM):
        assert [s for s, _ in card.sides] == [SIDES.index("bottom")]
    # A25: bottom D = 4: Gate 1, 1 Hot Oil, a Knight 2. Walls and Rocks do not serve.
    position = pos(
        "F1",
        "A25",
        values=(1, 1, 1, 4, 1),
        walls=(3, 3, 3, 3),
        gate=1,
        tactics={Tactic.HOT_OIL: 1, Tactic.ROCKS: 3},
        knights=1,
    )
    ram = narrate(position, on(bottom=(0, 0, 1)), {}).steps[0]
    assert [(s.side, s.strength, s.fortified, s.tactics, given(s.damage)) for s in ram.sides] == [
        ("bottom", 4, 1, 1, 2)
    ]
    assert ram.defended
    no_oil = Position(**{**_fields(position), "tactics": {Tactic.ROCKS: 3}})
    assert not narrate(no_oil, on(bottom=(0, 0, 1)), {}).steps[0].defended


def test_d23_siege_tower_moat_logs_workers() -> None:
    """D23: a Siege Tower attacks 1 side; the Moat, Logs and Workers defend it; Walls do not."""
    for card in cards_of(T.SIEGE_TOWER):
        assert len(card.sides) == 1
    # A23: Strong Siege Tower right at E = 5: Moat 2, 1 Log, a Soldier with Beer (2).
    position = pos(
        "F1",
        "A23",
        values=(1, 1, 1, 1, 5),
        walls=(3, 3, 3, 3),
        moat=2,
        tactics={Tactic.LOGS: 1, Tactic.ROCKS: 3},
        soldiers=1,
        beer=1,
    )
    tower = narrate(position, on(right=(0, 1, 0)), {}).steps[0]
    assert [(s.side, s.strength, s.fortified, s.tactics, given(s.damage), s.beer) for s in tower.sides] == [
        ("right", 5, 2, 1, 2, 1)
    ]
    assert tower.defended and tower.bravery == 1


def test_d24_catapult_only_covers() -> None:
    """D24: a Catapult or Trebuchet attacks the entire Castle; only Covers defend it, never a Fortification
    or a Worker, and the Workers are not touched."""
    for card in cards_of(T.CATAPULT):
        assert card.sides == () and card.castle in LETTERS
    # A7: Catapult C = 2; everything else in place, one Cover short.
    rich: dict[str, Any] = {
        "values": (1, 1, 2, 1, 1),
        "walls": (3, 3, 3, 3),
        "towers": (2, 2, 2, 2),
        "gate": 3,
        "moat": 3,
        "knights": 4,
        "beer": 2,
    }
    deployment = on((0, 0, 1), (0, 0, 1), (0, 0, 1), (0, 0, 1))
    others = {t: 3 for t in Tactic if t is not Tactic.COVERS}
    short = narrate(pos("F1", "A7", tactics={**others, Tactic.COVERS: 1}, **rich), deployment, {})
    catapult = short.steps[0]
    assert (catapult.sides, catapult.castle, catapult.covers, catapult.defended) == ((), 2, 0, False)
    assert short.kept == 8  # no Worker took any of it
    held = narrate(pos("F1", "A7", tactics={Tactic.COVERS: 2}, **rich), deployment, {})
    assert (held.steps[0].covers, held.steps[0].defended, held.undefended) == (2, True, 0)


# --- After the cards -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("determination", "undefended", "loyalty"),
    [(1, 0, 1), (2, 1, 1), (2, 2, 0), (2, 3, 0), (3, 1, 2), (3, 3, 0), (5, 3, 2), (0, 1, 0)],
)
def test_d25_d26_loyalty_and_discontent(determination: int, undefended: int, loyalty: int) -> None:
    """D25, D26: Loyalty = Determination − undefended cards, at least 0; Discontent = Determination −
    Loyalty (plus the Food's, D2), so the two add up to the Determination."""
    # Round 2, F6 (top, right), A3 (bottom), A4 (left), all at 2: each held only by Walls of 2 on its
    # sides; nobody deployed. The Walls decide how many fall.
    walls = {0: (2, 2, 2, 2), 1: (2, 2, 2, 1), 2: (2, 2, 1, 1)}.get(undefended, (1, 1, 1, 1))
    position = pos("F6", "A3", "A4", walls=walls, determination=determination)
    result = narrate(position, on(), {})
    assert result.undefended == undefended
    assert result.loyalty == loyalty
    assert result.discontent == determination - loyalty
    assert result.loyalty + result.discontent == determination
    hungry = narrate(Position(**{**_fields(position), "food": 0}), on(), {})
    assert (hungry.loyalty, hungry.discontent) == (loyalty, determination - loyalty + 2)


@pytest.mark.parametrize(
    ("deployment", "kept", "serfs"),
    [
        (on(top=(2, 0, 0)), 2, 0),
        (on(top=(1, 0, 1)), 3, 1),
        (on(top=(1, 1, 2), left=(0, 0, 0)), 6, 2),
        (on(top=(2, 1, 2)), 7, 2),
        (on(left=(0, 0, 2)), 3, 1),  # one Knight laid down by A4: 2 + 1
        (on(left=(0, 0, 1), top=(0, 0, 1)), 3, 1),  # the same Knight laid down, the other whole
        (on(left=(1, 0, 2)), 4, 1),  # the Craftsman spent for A4, or a Knight laid down: 4 either way
    ],
)
def test_d27_serfs_per_three_strength(deployment: Deployment, kept: int, serfs: int) -> None:
    """D27: surviving Workers give 1 Serf per 3 strength, rounded down: Craftsmen and Soldiers 1, Knights 2,
    a laid-down Knight 1."""
    c, s, k = (sum(side[i] for side in deployment.sides) for i in range(3))
    # A4: Ladders left at 2, left Wall 1: whoever stands on the left gives 1.
    position = pos("F6", "A4", walls=(2, 2, 1, 1), craftsmen=c, soldiers=s, knights=k)
    result = narrate(position, deployment, {})
    assert result.undefended == (0 if deployment.sides[3] != NOBODY else 1)
    assert (result.kept, result.serfs) == (kept, serfs)
    assert result.serfs == result.kept // 3


# --- Our rulings for the planner and the daily puzzle ------------------------------------------------


def test_d28_fewest_undefended_first() -> None:
    """D28: the solver ranks fewest expected undefended cards first, even above strength kept."""
    # A4 (left, need 1) with 1 Knight: defending it costs 1 strength; leaving it costs a card.
    position = pos("F6", "A4", walls=(2, 2, 1, 1), knights=1)
    defend, keep = evaluate(position, on(left=(0, 0, 1))), evaluate(position, on(top=(0, 0, 1)))
    assert (defend.undefended, defend.kept, keep.undefended, keep.kept) == (0, 1, 1, 2)
    assert defend.value > keep.value
    assert solve(position).deployment == on(left=(0, 0, 1))


def test_d28_then_most_strength_kept() -> None:
    """D28: of two deployments with equal undefended cards, the one keeping more strength wins."""
    # A6: Strong Ladders bottom at 3, no Wall, 2 Soldiers cannot hold it: standing there loses them.
    position = pos("F6", "A6", values=(1, 1, 1, 1, 3), walls=(1, 1, 0, 0), soldiers=2)
    there, away = evaluate(position, on(bottom=(0, 2, 0))), evaluate(position, on(top=(0, 2, 0)))
    assert there.undefended == away.undefended == 1
    assert (there.kept, away.kept) == (0, 2)
    assert away.value > there.value
    best = solve(position)
    assert best.expectation.undefended == 1 and best.expectation.kept == 2
    assert best.deployment.sides[2] == NOBODY


def test_d28_then_most_bravery() -> None:
    """D28: with undefended cards and strength kept equal, more Bravery wins: one Knight defends the Strong
    Attack rather than the normal one."""
    # values A = 0 (F1 harmless), D = 2, E = 2. A25: Ram bottom at 2; A5: Strong Ladders top at 2.
    position = pos("F1", "A25", "A5", values=(0, 1, 1, 2, 2), determination=2, knights=1)
    strong, normal = evaluate(position, on(top=(0, 0, 1))), evaluate(position, on(bottom=(0, 0, 1)))
    assert (strong.undefended, strong.kept, strong.bravery) == (1, 0, 1)
    assert (normal.undefended, normal.kept, normal.bravery) == (1, 0, 0)
    assert strong.value > normal.value
    assert solve(position).deployment == on(top=(0, 0, 1))


def test_d28_then_tactics_and_beer_left() -> None:
    """D28: Tactics and Beer left unused count last: they are kept when nothing needs them, but a Rock is
    spent rather than lay a Knight down, since strength kept ranks above them."""
    # F6 at 2 held by Walls 2: nothing to spend; every Tactic and Beer is kept.
    position = pos("F6", "A1", walls=(2, 2, 2, 2), tactics={Tactic.ROCKS: 2, Tactic.COVERS: 1}, beer=1)
    result = narrate(position, on(), {})
    assert all(s.tactics == 0 for step in result.steps for s in step.sides)
    assert evaluate(position, on()).saved == 4
    # A4 (left, need 1): a Rock spent keeps the Knight whole (kept 2) — strength ranks above Tactics.
    position = pos("F6", "A4", walls=(2, 2, 1, 1), knights=1, tactics={Tactic.ROCKS: 1})
    result = narrate(position, on(left=(0, 0, 1)), {})
    assert result.steps[0].sides[0].tactics == 1 and result.kept == 2
    assert evaluate(position, on(left=(0, 0, 1))).saved == 0


def test_d28_solver_never_beaten_here() -> None:
    """D28: the solver's deployment is at least as good as every other on a small position with a
    face-down card."""
    from anarchy.engine.solver import deployments

    position = pos(
        "F2",
        Slot(T.LADDERS),
        "A13",
        walls=(1, 1, 1, 1),
        towers=(1, 0, 1, 0),
        knights=1,
        soldiers=2,
        beer=1,
        muster=1,
        tactics={Tactic.BOLTS: 1},
    )
    best = solve(position)
    values = [evaluate(position, d).value for d in deployments(position)]
    assert best.expectation.value == max(values)
    assert best.expectation == evaluate(position, best.deployment)


def test_d29_determination_per_round() -> None:
    """D29: the practice Determination is 1, 2, 2, 3, 3 for rounds 1–5; another round is refused."""
    assert [practice_values(r)[1] for r in range(1, 6)] == [1, 2, 2, 3, 3]
    refused(InvalidPosition, "bad_round", lambda: practice_values(0))
    refused(InvalidPosition, "bad_round", lambda: practice_values(6))


def test_d30_practice_values_table() -> None:
    """D30: the practice letter values of practice-values.md: B = C = x, A = D = x + 1, E = x + 2 with
    x = ⌈round / 2⌉; round 3 is the book's Easy Classic card, round 5 the Full Example's."""
    assert [practice_values(r)[0] for r in range(1, 6)] == [
        (2, 1, 1, 2, 3),
        (2, 1, 1, 2, 3),
        (3, 2, 2, 3, 4),
        (3, 2, 2, 3, 4),
        (4, 3, 3, 4, 5),
    ]
    assert practice_values(5)[0] == full_example().values


def test_d30_daily_puzzle_is_deterministic_and_hides_faces() -> None:
    """D30 (with D4, D5): the daily puzzle is the same for the same date; its position uses the practice
    values, puts the 2nd and 4th Attack Card spaces face down without a face, and its hidden faces are of
    the backs' types."""
    day = datetime.date(2025, 3, 14)
    first, again = daily_puzzle(day), daily_puzzle(day)
    assert first == again
    assert position_to_record(first.position) == position_to_record(again.position)
    rounds = set()
    for offset in range(20):
        puzzle = daily_puzzle(day + datetime.timedelta(days=offset))
        position = puzzle.position
        rounds.add(position.round)
        assert (position.values, position.determination) == practice_values(position.round)
        assert position.face_down() == tuple(i for i in (2, 4) if i <= position.round)
        assert set(puzzle.faces) == set(position.face_down())
        for index, card_id in puzzle.faces.items():
            assert position.row[index].card is None
            assert deck()[card_id].type is position.row[index].back
        assert puzzle.faces in reveals(position)
        everyone = on(top=(position.craftsmen, position.soldiers, position.knights))
        assert len(narrate(position, everyone, puzzle.faces).steps) == position.round + 1
    assert len({daily_puzzle(day + datetime.timedelta(days=n)).position.row for n in range(5)}) > 1
    assert rounds <= {3, 4, 5}
