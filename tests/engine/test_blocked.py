"""``blocked(state, seat)`` (issue 31 §2): the moves of the seat's current decision that are not available
now, each as the refusal ``apply`` gives such a move (same checks) or a ``NO_*`` code where no attempt
exists. Positions are built directly (R28, R36, R39, R41, R43–R46, R52–R53, R55, R68, R71, R93), then a
property over random play: a family is in ``legal_actions`` exactly when ``blocked`` does not report it,
and ``blocked`` reads nothing the seat may not see (R95)."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import (
    ErrorCode,
    GameState,
    IllegalAction,
    Phase,
    apply,
    blocked,
    current_options,
    from_dict,
    legal_actions,
    new_game,
    pending,
    to_dict,
)
from games.engine.bot import choose
from games.engine.rng import Rng
from games.engine.rules.crowns import crown_of
from games.engine.state import NO_CARD
from tests.engine.fixtures import (
    act,
    castle_pos,
    clear_map,
    edit,
    game,
    hand_card,
    place,
    set_artefacts,
    set_hand,
    set_tile,
    territories,
)
from tests.engine.test_battle import SUPPORT_ATT, SUPPORT_DEF, battle


def board(hand: list[str] | None = None, arts: list[str] | None = None) -> GameState:
    """Seat 0's free window, turn 1: seat 0 holds t10 (3 knights, supplied by its castle t12, 6 knights),
    seat 1 holds t9; seat 0's ``hand`` (default: no resource card) and artefacts ``arts`` (default: the
    Crown of Fury); seat 1 has the Sceptre of Rage."""
    s = edit(game(2, seed=1))
    assert castle_pos(s, 0) == 12 and s.phase == Phase.WINDOW and s.active == 0
    clear_map(s)
    for t in territories(s):
        set_tile(s, t, "forest")
    place(s, 10, 0, 3)
    place(s, 9, 1, 3)
    s.players[0].castle = 6
    set_hand(s, 0, hand if hand is not None else ["probing_attack", "shield_wall"])
    set_artefacts(s, 0, arts if arts is not None else ["crown_fury"])
    set_artefacts(s, 1, ["sceptre_rage"])
    return s


def reasons(state: GameState, seat: int = 0) -> dict[str, IllegalAction]:
    """``blocked`` by family (the ``action`` parameter)."""
    out = {str(err.params["action"]): err for err in blocked(state, seat)}
    assert len(out) == len(blocked(state, seat))
    return out


def families(state: GameState, seat: int) -> set[str]:
    """The action types in ``legal_actions(state, seat)``."""
    return {str(a.to_dict()["type"]) for a in legal_actions(state, seat)}


def refusal(state: GameState, seat: int, payload: dict[str, Any]) -> dict[str, object]:
    """What ``apply`` refuses ``payload`` with, as ``to_dict``."""
    with pytest.raises(IllegalAction) as err:
        act(state, seat, payload)
    return err.value.to_dict()


def same_as_apply(err: IllegalAction, state: GameState, seat: int, payload: dict[str, Any]) -> None:
    """``err`` is the refusal ``apply`` gives ``payload``, plus the family it blocks."""
    expected = refusal(state, seat, payload)
    assert err.to_dict() == {
        "error": expected["error"],
        "params": {**expected["params"], "action": payload["type"]},  # type: ignore[dict-item]
    }


# -- Nothing blocked ---------------------------------------------------------------------------------------


def test_blocked_is_empty_when_every_move_of_the_free_window_is_available() -> None:
    """R27–R28, R36, R39: a free window with a manoeuvre, castle knights, a target, a supplied territory, a
    face-up crown and Fracture with a target: nothing is blocked, and every family is legal."""
    s = board(hand=["fracture", "call_to_arms", "tactical_advance"])
    assert blocked(s, 0) == []
    assert {"advance", "redistribute", "use_crown", "fracture", "call_to_arms", "end_turn"} <= families(s, 0)


def test_blocked_is_empty_for_a_seat_with_no_decision_and_outside_the_turn_and_battles() -> None:
    """R27: the other seat, in someone else's free window, is told nothing (its moves are not its now)."""
    s = board()
    assert blocked(s, 1) == []


# -- Advance (R28, R52–R53, R55) ----------------------------------------------------------------------------


def test_r28_no_manoeuvre_left_blocks_advance_and_redistribution() -> None:
    s = board()
    s.manoeuvres_left = 0
    found = reasons(s)
    assert found["advance"].code == ErrorCode.NO_MANOEUVRE_LEFT and found["advance"].params["rule"] == "R28"
    same_as_apply(found["advance"], s, 0, {"type": "advance", "to": "t8", "knights": 1})
    same_as_apply(
        found["redistribute"],
        s,
        0,
        {"type": "redistribute", "moves": [{"from": "castle", "to": "t10", "knights": 1}]},
    )
    assert "advance" not in families(s, 0) and "redistribute" not in families(s, 0)


def test_r52_r55_an_empty_castle_blocks_the_advance() -> None:
    s = board()
    s.players[0].castle = 0
    found = reasons(s)
    assert found["advance"].code == ErrorCode.NOT_ENOUGH_KNIGHTS
    same_as_apply(found["advance"], s, 0, {"type": "advance", "to": "t8", "knights": 1})


def test_r53_nothing_within_reach_blocks_the_advance() -> None:
    """R53: seat 0 controls every territory: nothing to advance into (``no_advance_target``)."""
    s = board()
    for t in territories(s):
        place(s, t, 0, 1)
    found = reasons(s)
    assert found["advance"].code == ErrorCode.NO_ADVANCE_TARGET and found["advance"].params["rule"] == "R53"
    assert "advance" not in families(s, 0)
    # R16: eleven locations of knights need more dice than the budget allows for any one-knight move
    assert found["redistribute"].code == ErrorCode.DICE_BUDGET
    assert found["redistribute"].params["rule"] == "R16"


# -- Redistribution (R43, R45, R46) -------------------------------------------------------------------------


def test_r43_no_territory_blocks_redistribution() -> None:
    s = board()
    place(s, 10, 0, 0)
    found = reasons(s)
    assert found["redistribute"].code == ErrorCode.NO_TERRITORY
    assert found["redistribute"].params["rule"] == "R43"
    assert "advance" not in found and "advance" in families(s, 0)


def test_r46_no_supplied_territory_blocks_redistribution() -> None:
    """R46: seat 0's only territory, t7, touches no territory of its own nor its castle: it is frozen."""
    s = board()
    place(s, 10, 0, 0)
    place(s, 7, 0, 2)
    found = reasons(s)
    assert found["redistribute"].code == ErrorCode.LOCATION_UNSUPPLIED
    same_as_apply(
        found["redistribute"],
        s,
        0,
        {"type": "redistribute", "moves": [{"from": "castle", "to": "t7", "knights": 1}]},
    )


def test_r45_every_move_leaving_a_territory_empty_blocks_redistribution() -> None:
    """R45: an empty castle and a single knight in the only territory: no move keeps both legal."""
    s = board()
    s.players[0].castle = 0
    place(s, 10, 0, 1)
    found = reasons(s)
    assert found["redistribute"].code == ErrorCode.TERRITORY_ABANDONED
    same_as_apply(
        found["redistribute"],
        s,
        0,
        {"type": "redistribute", "moves": [{"from": "t10", "to": "castle", "knights": 1}]},
    )


# -- Crown (R39, R41, R93) ----------------------------------------------------------------------------------


def test_r93_a_face_down_crown_is_blocked() -> None:
    s = board()
    crown = crown_of(s, 0)
    assert crown is not None
    crown.face_up = False
    found = reasons(s)
    assert found["use_crown"].code == ErrorCode.CROWN_UNAVAILABLE
    same_as_apply(found["use_crown"], s, 0, {"type": "use_crown"})


def test_r39_a_crown_used_this_turn_is_blocked() -> None:
    s = board()
    s.crown_used = True
    found = reasons(s)
    assert found["use_crown"].code == ErrorCode.CROWN_ALREADY_USED
    same_as_apply(found["use_crown"], s, 0, {"type": "use_crown"})


def test_r41_q31_corruption_without_another_face_up_artefact_is_blocked() -> None:
    s = board(arts=["crown_corruption"])
    set_artefacts(s, 1, [])
    found = reasons(s)
    assert found["use_crown"].code == ErrorCode.NO_CROWN_TARGET
    assert found["use_crown"].params["ability"] == "corruption"
    assert "use_crown" not in families(s, 0)
    set_artefacts(s, 1, ["sceptre_rage"])
    assert "use_crown" not in reasons(s) and "use_crown" in families(s, 0)


def test_r20_no_crown_no_crown_reason() -> None:
    s = board(arts=[])
    assert "use_crown" not in reasons(s)


# -- Fracture (R36) -----------------------------------------------------------------------------------------


def test_r36_fracture_without_a_target_is_blocked_and_without_the_card_not_reported() -> None:
    s = board(hand=["fracture"])
    set_artefacts(s, 1, [])
    found = reasons(s)
    assert found["fracture"].code == ErrorCode.NO_FRACTURE_TARGET
    assert found["fracture"].params["rule"] == "R36"
    assert "fracture" not in families(s, 0)
    assert "fracture" not in reasons(board(hand=["probing_attack"]))


# -- During a manoeuvre (R28) -------------------------------------------------------------------------------


def test_r28_during_a_manoeuvre_cards_crown_and_end_turn_wait_for_the_advance() -> None:
    s = board(hand=["fracture", "call_to_arms"])
    s = act(s, 0, {"type": "redistribute", "moves": [{"from": "castle", "to": "t10", "knights": 1}]}).state
    assert s.phase == Phase.MANOEUVRE
    found = reasons(s)
    assert set(found) == {"use_crown", "fracture", "call_to_arms", "end_turn"}
    for family in found.values():
        assert family.code == ErrorCode.WRONG_PHASE and family.params["phase"] == Phase.MANOEUVRE
    same_as_apply(found["end_turn"], s, 0, {"type": "end_turn"})
    same_as_apply(found["use_crown"], s, 0, {"type": "use_crown"})
    same_as_apply(found["call_to_arms"], s, 0, {"type": "call_to_arms"})
    assert {"advance", "redistribute", "decline_advance"} <= families(s, 0)


# -- Battle (R68, R71) --------------------------------------------------------------------------------------


def test_r68_a_side_without_a_conflict_card_is_told_so() -> None:
    hand = ["call_to_arms", "tactical_advance", "fracture", "rallying_cry", "war_banner"]
    play = battle(def_hand=hand)
    s = play.state
    assert s.battle is not None and s.battle.stage == "conflict" and s.battle.conflict[1] == NO_CARD
    found = reasons(s, 1)
    assert found["choose_conflict"].code == ErrorCode.NO_CONFLICT_CARD
    assert found["choose_conflict"].params["rule"] == "R68"
    assert legal_actions(s, 1) == []
    assert "choose_conflict" not in reasons(s, 0) and "choose_conflict" in families(s, 0)


def test_r71_support_in_the_mountains_is_blocked_for_both_sides() -> None:
    play = battle(tile="mountains", att=4, dfd=3, att_hand=SUPPORT_ATT, def_hand=SUPPORT_DEF)
    s = play.state
    for seat in (0, 1):
        found = reasons(s, seat)
        assert found["play_support"].code == ErrorCode.SUPPORT_FORBIDDEN
        banner = hand_card(s, seat, "war_banner")
        same_as_apply(found["play_support"], s, seat, {"type": "play_support", "cards": [banner]})


def test_support_outside_the_mountains_is_not_blocked() -> None:
    play = battle(tile="forest", att=4, dfd=3, att_hand=SUPPORT_ATT, def_hand=SUPPORT_DEF)
    assert "play_support" not in reasons(play.state, 0)


# -- Properties over random play ----------------------------------------------------------------------------

_COMBOS: list[tuple[int, dict[str, Any]]] = [
    (2, {}),
    (3, {"fracture_windows": "in_turn"}),
    (4, {"castle_siege": True, "mayhem": True}),
    (2, {"rules_edition": 1}),
    (4, {"allegiance": "pairs"}),
]


def random_states(count: int = 200) -> list[GameState]:
    """``count`` states reached by seeded random play (bots' ``choose``), every third action, over several
    tables and option sets."""
    out: list[GameState] = []
    seed = 0
    while len(out) < count:
        players, options = _COMBOS[seed % len(_COMBOS)]
        s = new_game({"players": players, "seed": seed, "options": {**current_options(), **options}})
        rng = Rng(1000 + seed)
        for step in range(240):
            prompts = pending(s)
            if not prompts or len(out) >= count:
                break
            if step % 3 == 0:
                out.append(s)
            seat = prompts[rng.below(len(prompts))].seat
            action = choose(s, seat, rng)
            assert action is not None
            s = apply(s, seat, action).state
        seed += 1
    return out


STATES = random_states()


def _answered_for(state: GameState, seat: int) -> set[str]:
    """The families ``blocked`` answers for in ``state`` for ``seat``: those of the turn in the seat's own
    free window / manoeuvre (crown, Fracture and resource cards only when held), the conflict card while
    the battle's step 4 waits for it, and support cards on its own support turn or in the Mountains."""
    b = state.battle
    if state.winners:
        return set()
    if b is None and state.window is None and state.choice is None:
        if seat != state.active or state.phase not in (Phase.WINDOW, Phase.MANOEUVRE):
            return set()
        turn = {"advance", "redistribute", "end_turn"}
        hand = {state.content.cards[c].effect for c in state.players[seat].hand}
        turn |= {"fracture", "call_to_arms", "tactical_advance"} & hand
        return turn | ({"use_crown"} if crown_of(state, seat) is not None else set())
    if b is None or b.side(seat) < 0 or state.window is not None or state.choice is not None:
        return set()
    out: set[str] = set()
    if b.stage == "conflict" and b.conflict[b.side(seat)] < 0:
        out.add("choose_conflict")
    if b.stage == "support" and b.support_order[b.support_turn] == seat:
        out.add("play_support")
    return out


def test_states_cover_every_kind_of_decision() -> None:
    kinds = {p.kind for s in STATES for p in pending(s)}
    assert {"turn", "manoeuvre", "response", "conflict"} <= kinds
    assert any(blocked(s, seat) for s in STATES for seat in range(s.num_players))


def test_a_family_is_legal_exactly_when_blocked_does_not_report_it() -> None:
    """issue 31 §2: over random play, for each family ``blocked`` answers for, the family is in
    ``legal_actions`` iff ``blocked`` reports no reason for it; and it reports no family outside them
    except the battle reasons that come before step 4 / 5 (R68, R71)."""
    checked = reported = 0
    for s in STATES:
        for seat in range(s.num_players):
            legal = families(s, seat)
            found = reasons(s, seat)
            for family in _answered_for(s, seat):
                assert (family in legal) != (family in found), (family, legal, found)
                checked += 1
                reported += family in found
            assert set(found) - _answered_for(s, seat) <= {"choose_conflict", "play_support"}
    assert checked > 300 and reported > 30


def _twin(state: GameState, seat: int, rng: Rng) -> GameState:
    """``state`` with everything ``seat`` may not see changed: the other seats' hands swapped with cards of
    their decks (sizes kept), every deck shuffled."""
    twin = from_dict(to_dict(state))
    for p in twin.players:
        pool = p.deck + ([] if p.seat == seat else p.hand)
        rng.shuffle(pool)
        if p.seat != seat:
            p.hand, pool = pool[: len(p.hand)], pool[len(p.hand) :]
        p.deck = pool
    return twin


def test_blocked_reveals_nothing_hidden() -> None:
    """R95: ``blocked`` depends only on what the seat's view shows: twin states that differ in other seats'
    hands and every deck order give it the same answer."""
    rng = Rng(31)
    for s in STATES[::2]:
        for seat in range(s.num_players):
            twin = _twin(s, seat, rng)
            assert [e.to_dict() for e in blocked(twin, seat)] == [e.to_dict() for e in blocked(s, seat)]
