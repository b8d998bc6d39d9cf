"""``not_your_decision`` names whom the game waits for as the refused seat may know it (R27, R37, R95,
issue 14): in a sealed window every asked seat other than the viewer until the close, exactly as
``view_for(state, viewer)["prompts"]``, so the error tells nobody who has answered (who holds Fracture)."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import ErrorCode, GameState, IllegalAction, view_for
from games.engine.rules.core import deciding_seats, deciding_seats_seen_by
from tests.engine.fixtures import act
from tests.engine.test_artefacts_windows import PLAIN, WITH_FRACTURE, Play, setup


def _sceptres(players: int, options: dict[str, Any] | None = None) -> Play:
    """Seat 0 (Rage) attacks seat 1 (Loyalty); seats 1 and 3 hold Fracture, seats 0 and 2 do not."""
    hands = {seat: WITH_FRACTURE if seat % 2 else PLAIN for seat in range(players)}
    s = setup(
        players=players, arts={0: ["sceptre_rage"], 1: ["sceptre_loyalty"]}, hands=hands, options=options
    )
    play = Play(s)
    play.advance()
    assert play.state.window is not None
    return play


def _shown(state: GameState, viewer: int) -> list[int]:
    """The seats ``viewer``'s view lists as waited for."""
    return sorted(p["seat"] for p in view_for(state, viewer)["prompts"])


def _waiting_in_error(state: GameState, seat: int, payload: dict[str, Any]) -> list[int] | None:
    """The seats the ``not_your_decision`` refusal of ``payload`` names, or ``None`` for another outcome."""
    try:
        act(state, seat, payload)
    except IllegalAction as err:
        if err.code is not ErrorCode.NOT_YOUR_DECISION:
            return None
        return [int(x) for x in str(err.params["waiting"]).split(",") if x]
    return None


def _answer_all(play: Play, states: list[GameState] | None = None) -> None:
    """Pass for the first asked seat still to answer (in turn: the lap's seat) until the window closes."""
    while play.state.window is not None:
        w = play.state.window
        play.respond(next(s for s, a in zip(w.asked, w.answers, strict=True) if a is None))
        if states is not None:
            states.append(play.state)


def _window_states(players: int, options: dict[str, Any] | None = None) -> list[GameState]:
    """The window as opened, then after each asked seat's pass, until it closes (and the state after)."""
    play = _sceptres(players, options)
    states = [play.state]
    _answer_all(play, states)
    return states


@pytest.mark.parametrize("players", [3, 4])
def test_r37_waiting_seen_by_a_seat_in_a_sealed_window_is_the_seats_its_view_prompts(players: int) -> None:
    """issue 14, R37, R95: for every seat, through a sealed window's answers and after it, the waiting seats
    it may know are the seats of its view's prompts."""
    for state in _window_states(players):
        for viewer in range(players):
            assert deciding_seats_seen_by(state, viewer) == _shown(state, viewer)


@pytest.mark.parametrize("players", [3, 4])
def test_r37_waiting_in_an_in_turn_window_is_the_laps_current_seat(players: int) -> None:
    """R37: an in-turn lap is public, as at the table: every seat is told the lap's current seat."""
    for state in _window_states(players, {"fracture_windows": "in_turn"}):
        for viewer in range(players):
            assert deciding_seats_seen_by(state, viewer) == deciding_seats(state)


@pytest.mark.parametrize("players", [3, 4])
def test_r37_not_your_decision_in_a_sealed_window_names_every_asked_seat_until_the_close(
    players: int,
) -> None:
    """issue 14, R95: a seat refused during a sealed window is told the seats its view lists, answered or
    not; never only the seats that have not answered yet (they would be the Fracture holders)."""
    checked = 0
    for state in _window_states(players)[:-1]:
        w = state.window
        assert w is not None
        for seat in range(players):
            waiting = _waiting_in_error(state, seat, {"type": "end_turn"})
            if waiting is None:
                continue  # the opener's own end_turn is a wrong phase, not someone else's decision
            assert waiting == _shown(state, seat)
            assert {s for s in w.asked if s != seat} <= set(waiting)
            checked += 1
    assert checked


def test_r37_not_your_decision_of_an_unasked_seat_hides_who_has_answered() -> None:
    """issue 14, R95: with ``fracture_prompts="holders"`` only seats 1 and 3 (Fracture) are asked; after
    seat 3 answers, seat 2's refused answer still names both, as its view does."""
    play = _sceptres(4, {"fracture_prompts": "holders"})
    w = play.state.window
    assert w is not None and w.asked == [1, 3]
    play.respond(3)
    waiting = _waiting_in_error(play.state, 2, {"type": "respond", "fracture": []})
    assert waiting == _shown(play.state, 2) == [1, 3]


def test_r27_not_your_decision_outside_a_window_names_the_deciding_seat() -> None:
    """R27: out of a window the error names the seats to move, as before."""
    play = _sceptres(3)
    _answer_all(play)
    state = play.state
    assert state.window is None
    checked = 0
    for seat in range(3):
        waiting = _waiting_in_error(state, seat, {"type": "end_turn"})
        if waiting is not None:
            assert waiting == deciding_seats(state) == _shown(state, seat)
            checked += 1
    assert checked
