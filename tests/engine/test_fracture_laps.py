"""Fracture windows in turn or sealed, and no empty prompts (R37 as corrected by issue 14).

The rulebook, Order of battle, step 3: "Starting with the attacking player, and then proceeding once around
clockwise, each player in turn (including all players not involved in the battle) has the chance to play a
fracture card on one of the sceptres belonging to the players involved in the battle." The ``in_turn``
table option follows it exactly; ``sealed`` collects the answers at once with ranked targets. In both, a
seat with no Fracture to play has nothing to decide: its prompt is ``auto`` and the server answers "pass"
after a masking delay drawn from the table's ``fracture_mask`` range.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import ContentError, ErrorCode, legal_actions, new_game, pending, replay, view_for
from tests.engine.fixtures import assert_illegal
from tests.engine.test_artefacts_windows import PLAIN, WITH_FRACTURE, art, three_player_sceptres

IN_TURN = {"fracture_windows": "in_turn"}
SEALED = {"fracture_windows": "sealed"}


def _both_hold() -> dict[int, list[str]]:
    """The defender (seat 1) and the outside seat (seat 2) hold Fracture; the attacker does not."""
    return {0: PLAIN, 1: WITH_FRACTURE, 2: WITH_FRACTURE}


def test_r37_in_turn_lets_the_second_seat_react_to_the_first() -> None:
    """R37 (in turn: "each player in turn has the chance"): the same position played both ways. In turn,
    the defender (seat 1) fractures Rage at once; the outside seat (seat 2), asked after it, sees Rage
    destroyed and the defender's answer, so it is offered only Loyalty and may keep its Fracture. Sealed,
    both answer at once, seat 2 sees no answer and is still offered Rage, and two ranked answers on Rage
    spend one Fracture."""
    lap = three_player_sceptres(options=IN_TURN, hands=_both_hold())
    assert [p.seat for p in pending(lap.state)] == [0]  # the attacker's opportunity first
    assert_illegal(lap.state, 2, {"type": "respond", "fracture": []}, ErrorCode.NOT_YOUR_DECISION)
    lap.respond(0)
    assert [p.seat for p in pending(lap.state)] == [1]
    lap.respond(1, "sceptre_rage")
    assert art(lap.state, 0, "sceptre_rage")[0] is False  # played at once, before seat 2 decides
    window = view_for(lap.state, 2)["window"]
    assert window is not None and window["mode"] == "in_turn" and window["waiting_for"] == [2]
    assert window["answers"] == [{"seat": 0, "fracture": None}, {"seat": 1, "fracture": "sceptre_rage"}]
    options = [a.to_dict() for a in legal_actions(lap.state, 2)]
    assert options == [
        {"type": "respond", "fracture": []},
        {"type": "respond", "fracture": ["sceptre_loyalty"]},
    ]
    lap.respond(2)  # keeps its Fracture for later
    f = lap.state.content.effect_index["fracture"]
    assert f in lap.state.players[2].hand
    assert [e["artefact"] for e in lap.of("artefact_applied")] == ["sceptre_loyalty"]

    sealed = three_player_sceptres(options=SEALED, hands=_both_hold())
    assert [p.seat for p in pending(sealed.state)] == [0, 1, 2]
    sealed.respond(1, "sceptre_rage")
    window = view_for(sealed.state, 2)["window"]
    assert window is not None and window["mode"] == "sealed" and window["answers"] == []
    assert window["waiting_for"] == [0, 1, 2]  # who has answered stays hidden until the close
    assert {"type": "respond", "fracture": ["sceptre_rage"]} in [
        a.to_dict() for a in legal_actions(sealed.state, 2)
    ]
    sealed.respond(2, "sceptre_rage")
    sealed.respond(0)
    assert f in sealed.state.players[2].hand and f in sealed.state.players[1].discard


def test_r37_in_turn_refuses_a_second_target_and_a_destroyed_one() -> None:
    """R37 (in turn, one Fracture per opportunity): a ranked list is a sealed-window answer; in turn one
    target at most, and not one an earlier seat already destroyed."""
    lap = three_player_sceptres(options=IN_TURN, hands=_both_hold())
    lap.respond(0)
    assert_illegal(
        lap.state,
        1,
        {"type": "respond", "fracture": ["sceptre_rage", "sceptre_loyalty"]},
        ErrorCode.BAD_CHOICE,
    )
    lap.respond(1, "sceptre_rage")
    assert_illegal(
        lap.state, 2, {"type": "respond", "fracture": ["sceptre_rage"]}, ErrorCode.INVALID_FRACTURE_TARGET
    )


@pytest.mark.parametrize("mode", [IN_TURN, SEALED])
def test_no_empty_prompts_a_seat_without_fracture_is_answered_by_the_server(mode: dict[str, Any]) -> None:
    """Issue 14 "no empty prompts": the attacker holds no Fracture, so its prompt is ``auto`` (never shown
    or emailed; the server answers its timeout action, pass) in both modes; a holder's prompt is not."""
    play = three_player_sceptres(
        options={**mode, "fracture_mask": [60, 600]}, hands={0: PLAIN, 2: WITH_FRACTURE}
    )
    prompts = {p.seat: p for p in pending(play.state)}
    assert prompts[0].auto and 60 <= prompts[0].after <= 600
    assert prompts[0].timeout_action.to_dict() == {"type": "respond", "fracture": []}
    if mode is SEALED:
        assert prompts[1].auto and not prompts[2].auto and prompts[2].after == 0
        assert prompts[1].after == prompts[0].after  # one masking delay per sealed window
    play.respond(0)
    if mode is IN_TURN:
        (nxt,) = pending(play.state)
        assert nxt.seat == 1 and nxt.auto  # seat 1 holds none either
        play.respond(1)
        (nxt,) = pending(play.state)
        assert nxt.seat == 2 and not nxt.auto


def test_masking_delay_is_drawn_from_the_seed_and_replays_exactly() -> None:
    """Issue 14: the masking delay comes from the game's own seeded randomness, in the table's range, the
    same on every replay of the same record, and it never moves the game's random stream (no die or
    shuffle changes)."""
    options = {"fracture_mask": [60, 600]}
    play = three_player_sceptres(options=options)
    first = [p.after for p in pending(play.state)]
    again = three_player_sceptres(options=options)
    assert [p.after for p in pending(again.state)] == first and 60 <= first[0] <= 600
    plain = three_player_sceptres()
    assert play.state.rng_counter == plain.state.rng_counter
    assert [p.after for p in pending(plain.state)] == [0, 0, 0]  # no range set: at once
    replayed = replay(play.state.setup, [])
    assert replayed.setup["options"]["fracture_mask"] == [60, 600]


def test_fracture_options_are_checked() -> None:
    """Issue 14 (bad input): ``fracture_windows`` and ``fracture_mask`` are validated like every option."""
    for bad in (
        {"fracture_windows": "parallel"},
        {"fracture_mask": [10]},
        {"fracture_mask": [10, 5]},
        {"fracture_mask": [-1, 5]},
        {"fracture_mask": [0, True]},
        {"fracture_mask": "1-10"},
        {"fracture_mask": [0, 86_401]},
    ):
        with pytest.raises(ContentError):
            new_game({"players": 3, "seed": 1, "options": bad})
    setup = new_game(
        {"players": 3, "seed": 1, "options": {"fracture_windows": "sealed", "fracture_mask": [0, 0]}}
    ).setup
    assert "fracture_windows" not in setup["options"] and "fracture_mask" not in setup["options"]
