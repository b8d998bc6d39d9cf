"""The engine's public API contract (issue 2 "API"): payload parsing, typed errors, canonical
serialisation and hashing, prompts with timeout actions, per-viewer redaction of events."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.engine import (
    ActionType,
    ContentError,
    ErrorCode,
    Event,
    IllegalAction,
    InvalidActionPayload,
    PromptKind,
    apply,
    canonical_json,
    from_dict,
    legal_actions,
    new_game,
    parse_action,
    pending,
    redact_event,
    state_hash,
    to_dict,
    view_for,
)
from games.engine.actions import ACTION_TYPES

from .fixtures import act, cid, edit, game, set_hand


@pytest.mark.parametrize(
    "payload",
    [
        None,
        [],
        "end_turn",
        {},
        {"type": "fly"},
        {"type": "advance", "to": "t1"},
        {"type": "advance", "to": "t1", "knights": "3"},
        {"type": "advance", "to": "t1", "knights": True},
        {"type": "advance", "to": "nowhere", "knights": 1},
        {"type": "advance", "to": "t1", "knights": 1, "extra": 1},
        {"type": "redistribute", "moves": []},
        {"type": "redistribute", "moves": [{"from": "castle", "to": "t1"}]},
        {"type": "choose_conflict", "card": "c07"},
        {"type": "play_support", "cards": []},
        {"type": "respond", "fracture": "orb_greed"},
        {"type": "prosperity_choice", "discard": 1},
        {"type": "end_turn", "now": True},
    ],
)
def test_malformed_payloads_raise_invalid_action_payload(payload: Any) -> None:
    """Architecture §2: parse_action raises InvalidActionPayload for malformed input, never anything else."""
    with pytest.raises(InvalidActionPayload) as exc:
        parse_action(payload)
    assert exc.value.to_dict()["error"] == "invalid_payload"


def test_every_action_type_round_trips_through_json() -> None:
    """parse_action(a.to_dict()) == a for one example of every action type."""
    examples: list[dict[str, Any]] = [
        {"type": "call_to_arms"},
        {"type": "tactical_advance"},
        {"type": "fracture", "target": "orb_greed"},
        {"type": "use_crown", "player": 1, "artefact": "orb_greed"},
        {"type": "use_crown", "card": "s0c05"},
        {"type": "redistribute", "moves": [{"from": "castle", "to": "t3", "knights": 2}]},
        {"type": "advance", "to": "t12", "knights": 4},
        {"type": "decline_advance"},
        {"type": "finish_redistribution"},
        {"type": "end_turn"},
        {"type": "respond", "fracture": ["orb_greed", "sceptre_rage"]},
        {"type": "choose_conflict", "card": "s1c07"},
        {"type": "play_support", "cards": ["s1c14", "s1c15"]},
        {"type": "pass_support"},
        {"type": "discard_choice", "card": None},
        {"type": "insight_order", "order": ["s0c01", "s0c02"]},
        {"type": "prosperity_choice", "discard": True},
        {"type": "fear_choice", "use": False},
    ]
    assert {e["type"] for e in examples} == set(ACTION_TYPES)
    for payload in examples:
        action = parse_action(payload)
        assert parse_action(json.loads(json.dumps(action.to_dict()))) == action


def test_apply_never_mutates_its_input_even_when_refusing() -> None:
    """Architecture §2: apply leaves the caller's state as it was, for legal and illegal actions alike."""
    s = game(4, seed=9)
    before = canonical_json(to_dict(s))
    for action in legal_actions(s, s.active)[:40]:
        apply(s, s.active, action)
    with pytest.raises(IllegalAction) as exc:
        act(s, (s.active + 1) % 4, {"type": "end_turn"})
    assert exc.value.code is ErrorCode.NOT_YOUR_DECISION
    assert canonical_json(to_dict(s)) == before


def test_canonical_json_round_trip_and_hash() -> None:
    """Architecture §2: to_dict/from_dict round-trip exactly; the hash is SHA-256 of the canonical JSON."""
    import hashlib

    s = game(6, seed=4, options={"mayhem": True})
    data = to_dict(s)
    text = canonical_json(data)
    assert json.loads(text) == data
    assert from_dict(json.loads(text)) == s
    assert state_hash(s) == hashlib.sha256(text.encode()).hexdigest()
    assert data["schema"] == 1
    assert "float" not in {type(v).__name__ for v in _leaves(data)}


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        assert all(isinstance(k, str) for k in value)
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def test_same_seed_same_game_different_seed_different_game() -> None:
    """R25, architecture "Randomness": the setup seed fixes every random draw."""
    a = new_game({"players": 4, "seed": 123})
    b = new_game({"players": 4, "seed": 123})
    c = new_game({"players": 4, "seed": 124})
    assert state_hash(a) == state_hash(b)
    assert state_hash(a) != state_hash(c)


def test_bad_setups_raise_content_error() -> None:
    """R1, R105: setups outside the rules are refused with ContentError."""
    for setup in (
        {"players": 7, "seed": 1},
        {"players": 1, "seed": 1},
        {"players": 3, "seed": 1, "options": {"allegiance": "pairs"}},
        {"players": 4, "seed": 1, "options": {"allegiance": "pairs", "castle_siege": True}},
        {"players": 4, "seed": 1, "options": {"teleport": True}},
        {"players": 4, "seed": 1, "content": "nonexistent"},
        {"players": 2, "seed": 1, "pin": {"decks": [["excalibur"]]}},
    ):
        with pytest.raises(ContentError):
            new_game(setup)


def test_prompt_timeouts_are_the_documented_defaults() -> None:
    """Timeout policy: the turn prompt ends the turn; a response window passes; a conflict choice plays the
    lowest-value conflict card held."""
    s = game(2, seed=2)
    [prompt] = pending(s)
    assert (prompt.seat, prompt.kind, prompt.deadline) == (0, "turn", "turn")
    assert prompt.timeout_action.to_dict() == {"type": "end_turn"}
    s = edit(s)
    hand = set_hand(s, 1, ["heroic_assault", "probing_attack", "ambush", "war_banner"])
    from games.engine.prompts import conflict_timeout

    assert conflict_timeout(s, 1).to_dict() == {"type": "choose_conflict", "card": cid(1, hand[1])}


def test_events_are_redacted_per_viewer() -> None:
    """R95–R96: a draw event shows the drawn cards to their owner only; others see the count."""
    from games.engine.bot import choose
    from games.engine.rng import Rng

    s = game(3, seed=8)
    rng = Rng(8)
    draws: list[Event] = []
    while not draws:
        seat = pending(s)[0].seat
        action = choose(s, seat, rng)
        assert action is not None
        t = apply(s, seat, action)
        draws = [e for e in t.events if e["type"] == "draw"]
        s = t.state
    for ev in draws:
        owner = ev["seat"]
        mine = redact_event(ev, owner)
        assert isinstance(mine["cards"], list) and len(mine["cards"]) == ev["count"] and "private" not in mine
        for viewer in (None, *(v for v in range(3) if v != owner)):
            theirs = redact_event(ev, viewer)
            assert "cards" not in theirs and "private" not in theirs
            assert theirs["count"] == ev["count"]


def test_view_shows_own_hand_only() -> None:
    """R95: each seat's view has its own hand; other seats and spectators see hand sizes only."""
    s = game(4, seed=3)
    for viewer in (None, 0, 1, 2, 3):
        v = view_for(s, viewer)
        for p in v["players"]:
            assert ("hand" in p) == (p["seat"] == viewer)
            assert p["hand_size"] == len(s.players[p["seat"]].hand)
            assert p["deck_size"] == len(s.players[p["seat"]].deck)
        assert "seed" not in json.dumps(v)


def test_action_and_prompt_kind_enums_match_the_json_strings() -> None:
    """ActionType names every action tag and PromptKind every prompt kind; members equal, hash and
    serialise exactly like their strings, so JSON and string comparisons are unchanged."""
    assert set(ACTION_TYPES) == {t.value for t in ActionType}
    for tag, cls in ACTION_TYPES.items():
        assert tag == cls.TYPE and json.dumps(cls.TYPE) == json.dumps(str(tag))
    end_turn: str = ActionType.END_TURN
    lookup: dict[str, int] = {ActionType.END_TURN: 1}
    assert end_turn == "end_turn" and lookup["end_turn"] == 1
    assert parse_action({"type": "end_turn"}).to_dict() == {"type": ActionType.END_TURN}
    s = game(3, seed=4)
    [prompt] = pending(s)
    assert prompt.kind == PromptKind.TURN
    assert canonical_json(prompt.to_dict()) == canonical_json({**prompt.to_dict(), "kind": "turn"})
    assert {k.value for k in PromptKind} >= {
        "turn",
        "manoeuvre",
        "vitality",
        "response",
        "conflict",
        "support",
    }
