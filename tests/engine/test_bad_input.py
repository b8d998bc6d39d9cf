"""issue 14 "Bad input: a typed error, never a crash": seats, setups, pins, ids and records that are not
well formed raise the engine's typed errors (:class:`games.engine.EngineError` subclasses) and change
nothing, whatever the input. The hypothesis tests feed arbitrary JSON (2,000 examples each in CI)."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    RECORD_FORMAT,
    ContentError,
    EngineError,
    GameState,
    InvalidActionPayload,
    InvalidSeat,
    ReplayError,
    apply,
    legal_actions,
    names_a_move,
    new_game,
    parse_action,
    read_record,
    redact_event,
    replay,
    to_dict,
    to_text,
    verb_of,
    view_for,
)
from games.engine.actions import ChooseConflict, DiscardChoice, EndTurn, PlaySupport

FUZZ = settings(
    max_examples=2000,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Any JSON value (what a request, an email or a file can hand the engine).
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def state() -> GameState:
    return new_game({"players": 3, "seed": 11})


# --------------------------------------------------------------------------------------------------------
# Seats
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [-1, 3, 99, None, "0", 1.0, True, False, [0]])
def test_apply_refuses_a_seat_that_is_not_an_int_in_range(state: GameState, seat: Any) -> None:
    before = to_dict(state)
    with pytest.raises(InvalidSeat):
        apply(state, seat, EndTurn())
    assert to_dict(state) == before  # changes nothing


@pytest.mark.parametrize("seat", [-1, 3, None, "1", 1.0, True])
def test_legal_actions_refuses_a_bad_seat(state: GameState, seat: Any) -> None:
    with pytest.raises(InvalidSeat):
        legal_actions(state, seat)


@pytest.mark.parametrize("viewer", [-1, 3, "0", 0.0, True])
def test_view_for_refuses_a_bad_viewer_but_takes_the_spectator(state: GameState, viewer: Any) -> None:
    with pytest.raises(InvalidSeat):
        view_for(state, viewer)
    assert view_for(state, None)["viewer"] is None


# --------------------------------------------------------------------------------------------------------
# Setups and pins
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "setup",
    [
        {"players": 1e300, "seed": 1},
        {"players": 1, "seed": 1},
        {"players": 7, "seed": 1},
        {"players": True, "seed": 1},
        {"players": "3", "seed": 1},
        {"players": 2, "seed": 1, "pin": {"artefacts": {"x": 1}}},
        {"players": 2, "seed": 1, "pin": {"decks": {"a": []}}},
        {"players": 2, "seed": 1, "pin": {"decks": [5]}},
        {"players": 2, "seed": 1, "pin": {"decks": [[], [], []]}},
        {"players": 2, "seed": 1, "pin": {"tyles": {"t5": "city"}}},
        {"players": 2, "seed": 1, "pin": {"tiles": ["t5"]}},
        {"players": 2, "seed": 1, "pin": {"dice": [0]}},
        {"players": 2, "seed": 1, "pin": {"dice": [True]}},
        {"players": 2, "seed": 1, "pin": {"first_player": 2}},
        {"players": 2, "seed": 1, "pin": {"first_player": True}},
        {"players": 2, "seed": 1, "optoins": {"mayhem": True}},
        {"players": 2, "seed": 1, "pin": {"tiles": {"t٨": "city"}}},
        # issue 31 §6: a null seat in a per-seat pin (TypeError while dealing), content that is bytes
        {"players": 2, "pin": {"decks": [None]}},
        {"players": 2, "pin": {"artefacts": [[], None]}},
        {"players": 2, "content": b"t1"},
        {"players": 2, "content": 7},
    ],
)
def test_a_malformed_setup_is_a_content_error(setup: dict[str, Any]) -> None:
    """Each of these crashed with TypeError, KeyError or OSError, or (a misspelt key) set up another game."""
    with pytest.raises(ContentError):
        new_game(setup)


def test_a_valid_pin_keeps_the_setup_and_its_hash() -> None:
    setup = {"players": 2, "seed": 5, "pin": {"first_player": 1, "dice": [6, 1], "artefacts": None}}
    state = new_game(setup)
    assert state.setup["pin"] == setup["pin"]
    assert state.active == 1


# --------------------------------------------------------------------------------------------------------
# Ids
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "advance", "to": "t٨", "knights": 1},  # an Arabic-Indic digit
        {"type": "advance", "to": "t8\n", "knights": 1},
        {"type": "choose_conflict", "card": "s0c01\n"},
        {"type": "choose_conflict", "card": "s0c0١"},
        {"type": "fracture", "target": "orb_brütality"},
        {"type": "respond", "fracture": ["crown_fury\n"]},
    ],
)
def test_ids_are_ascii_and_whole(payload: dict[str, Any]) -> None:
    with pytest.raises(InvalidActionPayload):
        parse_action(payload)


# --------------------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "record",
    [
        None,
        [],
        {"setup": {"players": 2, "seed": 1}, "actions": []},
        {"format": "medieval-mastery/2", "setup": {"players": 2, "seed": 1}, "actions": []},
        {"format": RECORD_FORMAT, "setup": [], "actions": []},
        {"format": RECORD_FORMAT, "setup": {"players": 2, "seed": 1}, "actions": {}},
    ],
)
def test_a_record_needs_its_format_a_setup_and_an_action_list(record: Any) -> None:
    with pytest.raises(ContentError):
        read_record(record)


def test_replay_names_the_entry_with_a_bad_seat() -> None:
    with pytest.raises(ReplayError) as caught:
        replay({"players": 2, "seed": 1}, [{"seat": 5, "action": {"type": "end_turn"}}])
    assert caught.value.index == 0 and caught.value.code == "invalid_seat"


# --------------------------------------------------------------------------------------------------------
# Arbitrary JSON: only typed errors
# --------------------------------------------------------------------------------------------------------


@FUZZ
@given(payload=JSON)
def test_parse_action_raises_only_typed_errors(payload: Any) -> None:
    with contextlib.suppress(InvalidActionPayload):
        parse_action(payload)


@FUZZ
@given(payload=JSON, seat=JSON)
def test_apply_raises_only_typed_errors_and_changes_nothing(
    state: GameState, payload: Any, seat: Any
) -> None:
    before = to_dict(state)
    with contextlib.suppress(EngineError):
        apply(state, seat, parse_action(payload))
    assert to_dict(state) == before


@FUZZ
@given(setup=JSON, extra=st.dictionaries(st.sampled_from(["players", "seed", "pin", "options"]), JSON))
def test_new_game_raises_only_typed_errors(setup: Any, extra: dict[str, Any]) -> None:
    for candidate in (setup, {"players": 2, "seed": 1, **extra}):
        with contextlib.suppress(EngineError):
            new_game(copy.deepcopy(candidate))


@FUZZ
@given(actions=st.lists(JSON, max_size=3), record=JSON)
def test_replay_raises_only_typed_errors(actions: list[Any], record: Any) -> None:
    with contextlib.suppress(EngineError):
        replay({"players": 2, "seed": 3}, actions)
    with contextlib.suppress(EngineError):
        replay(*read_record(record))


# --------------------------------------------------------------------------------------------------------
# Issue 31 §6: the last untyped errors
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [ChooseConflict(card="s7c01"), PlaySupport(cards=("s9c02",)), DiscardChoice(card="s5c00")],
)
def test_to_text_of_a_card_of_a_seat_outside_the_game_is_an_invalid_seat(
    state: GameState, action: Any
) -> None:
    """It raised IndexError (the card id's seat indexed the players)."""
    with pytest.raises(InvalidSeat):
        to_text(state, action)


@pytest.mark.parametrize("action", [{"type": "end_turn"}, None, "end", EndTurn])
def test_to_text_of_something_that_is_no_action_is_an_invalid_payload(state: GameState, action: Any) -> None:
    """It raised KeyError (the writers' table is keyed by the action's class)."""
    with pytest.raises(InvalidActionPayload):
        to_text(state, action)


@pytest.mark.parametrize("actions", [None, 5, "end_turn", b"x", {"seat": 0}])
def test_replay_of_actions_that_are_no_list_is_a_replay_error(actions: Any) -> None:
    """``replay(setup, None)`` raised TypeError."""
    setup = new_game({"players": 2, "seed": 3}).setup
    with pytest.raises(ReplayError) as caught:
        replay(setup, actions)
    assert caught.value.index == 0 and caught.value.code == "invalid_payload"


@pytest.mark.parametrize("pair", [(0,), (0, EndTurn(), 1), ("0", EndTurn()), (True, EndTurn()), (0, "end")])
def test_replay_of_a_pair_that_is_not_seat_and_action_is_a_replay_error(pair: tuple[Any, ...]) -> None:
    """Tuples of the wrong length raised ValueError while unpacking."""
    setup = new_game({"players": 2, "seed": 3}).setup
    with pytest.raises(ReplayError) as caught:
        replay(setup, [pair])
    assert caught.value.index == 0 and caught.value.code == "invalid_payload"


@pytest.mark.parametrize("text", [None, 3, b"end", ["end"]])
def test_names_a_move_and_verb_of_refuse_what_is_not_text(text: Any) -> None:
    """``names_a_move(None)`` raised AttributeError."""
    with pytest.raises(InvalidActionPayload):
        names_a_move(text)
    with pytest.raises(InvalidActionPayload):
        verb_of(text)


@pytest.mark.parametrize("event", [None, [], "advanced", 3])
def test_redact_event_refuses_what_is_not_an_event(event: Any) -> None:
    """``redact_event(None, 0)`` raised AttributeError."""
    with pytest.raises(InvalidActionPayload):
        redact_event(event, 0)
