"""Helpers for building exact rule situations in engine tests.

Tests start from :func:`game` (a real, seeded ``new_game``) and then *edit* a private deep copy
(:func:`edit`) to set up a position: territories, hands, decks, artefacts. Actions go through the public
API (:func:`act`), so every rule is exercised the way a player would trigger it.
"""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

from games.engine import (
    TURN_KINDS,
    ErrorCode,
    Event,
    GameState,
    IllegalAction,
    Transition,
    apply,
    current_options,
    from_dict,
    legal_actions,
    new_game,
    parse_action,
    pending,
    to_dict,
)
from games.engine.state import Artefact

#: A hand of conflict cards only (R66): the strongest first.
CONFLICT_HAND = ["heroic_assault", "shield_wall", "shield_wall", "audacious_charge", "audacious_charge"]
#: A hand of weak conflict cards (R66).
WEAK_HAND = ["probing_attack", "ambush", "ambush", "shield_wall", "audacious_charge"]


def game(
    players: int = 2,
    seed: int = 1,
    options: dict[str, Any] | None = None,
    pin: dict[str, Any] | None = None,
    content: str | dict[str, Any] = "default",
    layout: dict[str, Any] | None = None,
) -> GameState:
    """Return a fresh game (first player pinned to seat 0 unless ``pin`` says otherwise) with the newest
    rules (:func:`games.engine.current_options`) unless ``options`` says otherwise."""
    pin = {"first_player": 0, **(pin or {})}
    options = {**current_options(), **(options or {})}
    setup: dict[str, Any] = {"players": players, "seed": seed, "options": options, "pin": pin}
    setup["content"] = content
    if layout is not None:
        setup["layout"] = layout
    return new_game(setup)


def edit(state: GameState) -> GameState:
    """Return an independent deep copy of ``state`` that a test may change freely."""
    return from_dict(to_dict(state))


def act(state: GameState, seat: int, payload: dict[str, Any]) -> Transition:
    """Parse ``payload`` and apply it for ``seat``."""
    return apply(state, seat, parse_action(payload))


def hand_card(state: GameState, seat: int, name: str) -> str:
    """The card id (``s<seat>c<index>``) of a card named ``name`` in ``seat``'s hand.

    Raises:
        AssertionError: no such card in that hand.
    """
    for c in state.players[seat].hand:
        if state.content.cards[c].id == name:
            return cid(seat, c)
    raise AssertionError(f"{name} not in hand of seat {seat}")


class Driver:
    """Drives one game through the public API (:func:`act`) and keeps every event it caused.

    Test modules subclass it with their own ways of advancing and answering.
    """

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[Event] = []

    def do(self, seat: int, payload: dict[str, Any]) -> None:
        """Apply ``payload`` for ``seat`` and keep its events."""
        t = act(self.state, seat, payload)
        self.state = t.state
        self.events += t.events

    def conflict(self, att: str | None, dfd: str | None) -> None:
        """The battle's attacker, then its defender, choose their conflict card by name (``None``: that
        player has no prompt)."""
        b = self.state.battle
        assert b is not None
        for seat, name in ((b.attacker, att), (b.defender, dfd)):
            if name is not None:
                self.do(seat, {"type": "choose_conflict", "card": hand_card(self.state, seat, name)})

    def settle(self) -> None:
        """Apply the first pending decision's timeout action (pass, lowest conflict, keep) until only the
        turn itself waits or the game has ended.

        Raises:
            AssertionError: still unsettled after 100 actions.
        """
        for _ in range(100):
            prompts = pending(self.state)
            if not prompts or prompts[0].kind in TURN_KINDS:
                return
            p = prompts[0]
            self.do(p.seat, p.timeout_action.to_dict())
        raise AssertionError("did not settle")

    def end_turn(self) -> None:
        """The active player ends the turn."""
        self.do(self.state.active, {"type": "end_turn"})

    def of(self, event_type: str) -> list[Event]:
        """The kept events of type ``event_type``, in order."""
        return [e for e in self.events if e["type"] == event_type]

    def types(self) -> list[str]:
        """The types of every kept event, in order."""
        return [e["type"] for e in self.events]

    def kinds(self) -> list[str]:
        """The kinds of the open prompts."""
        return [p.kind for p in pending(self.state)]


def assert_illegal(state: GameState, seat: int, payload: dict[str, Any], code: ErrorCode) -> None:
    """Assert that ``payload`` by ``seat`` is refused with ``code`` and leaves ``state`` unchanged."""
    before = to_dict(state)
    with pytest.raises(IllegalAction) as err:
        act(state, seat, payload)
    assert err.value.code == code
    assert to_dict(state) == before


def card_index(state: GameState, name: str, nth: int = 0) -> int:
    """Index (0..17) of the ``nth`` card with content id ``name`` (e.g. ``"war_banner"``)."""
    matches = [c.index for c in state.content.cards if c.id == name]
    return matches[nth]


def cid(seat: int, index: int) -> str:
    """Card id string of card ``index`` of ``seat``."""
    return f"s{seat}c{index:02d}"


def set_hand(state: GameState, seat: int, names: list[str], deck_top: list[str] | None = None) -> list[int]:
    """Give ``seat`` exactly the named cards in hand (content ids, repeats allowed), put the rest into the
    deck (with ``deck_top`` drawn first, in order), empty the discard pile. Returns the hand indices."""
    p = state.players[seat]
    pool = list(range(len(state.content.cards)))
    hand: list[int] = []
    for name in names:
        idx = next(i for i in pool if state.content.cards[i].id == name)
        pool.remove(idx)
        hand.append(idx)
    top: list[int] = []
    for name in deck_top or []:
        idx = next(i for i in pool if state.content.cards[i].id == name)
        pool.remove(idx)
        top.append(idx)
    p.hand = hand
    p.deck = pool + top[::-1]
    p.discard, p.discard_turns = [], []
    return hand


def set_artefacts(state: GameState, seat: int, ids: list[str]) -> None:
    """Give ``seat`` exactly these artefacts (face up); takes them away from whoever held them."""
    for other in state.players:
        other.artefacts = [a for a in other.artefacts if a.id not in ids]
    state.players[seat].artefacts = [Artefact(i) for i in ids]


def clear_map(state: GameState) -> None:
    """Remove every knight from every territory (castles keep theirs)."""
    for i in range(len(state.owner)):
        state.owner[i] = -1
        state.knights[i] = 0


def place(state: GameState, pos: int, seat: int, knights: int) -> None:
    """Put ``knights`` of ``seat`` in territory ``pos`` (``seat=-1``/``knights=0`` empties it)."""
    state.owner[pos] = seat if knights > 0 else -1
    state.knights[pos] = knights


def set_tile(state: GameState, pos: int, tile: str) -> None:
    """Change the tile type of territory ``pos`` (a test-only edit; VP stays the layout's)."""
    tiles = list(state.tiles)
    tiles[pos] = tile
    state.tiles = tiles


def territories(state: GameState) -> list[int]:
    """Indices of all territory positions."""
    return [i for i, k in enumerate(state.board.kinds) if k == "territory"]


def neighbours(state: GameState, pos: int) -> list[int]:
    """Adjacent position indices of ``pos``."""
    return list(state.board.adjacent[pos])


def castle_pos(state: GameState, seat: int) -> int:
    """Position index of ``seat``'s castle."""
    return state.board.castle_of_seat[seat]


def payloads(state: GameState, seat: int) -> list[dict[str, Any]]:
    """``legal_actions`` as JSON payloads (handy for membership asserts)."""
    return [a.to_dict() for a in legal_actions(state, seat)]


def default_content() -> dict[str, Any]:
    """A deep copy of the shipped default content set as a dict (to derive fixture content)."""
    text = resources.files("games.engine").joinpath("data", "content-default.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return copy.deepcopy(data)


def big_capacity_content(capacity: int = 8) -> dict[str, Any]:
    """FIXTURE content (not official): Battlefield holds ``capacity`` knights, so one territory can need two
    dice (R16, Q20)."""
    data = default_content()
    data["id"] = "fixture-big-capacity"
    for t in data["territory_types"]:
        if t["id"] == "battlefield":
            t["capacity"] = capacity
    return data


#: FIXTURE layout (not official): 2 players; seat 0's castle (t4) sits on the lake's shore (t0) and touches
#: territories t3 and t5; seat 1's castle (t9) touches t6 and t8 (Q13).
LAKE_CASTLE_LAYOUT: dict[str, Any] = {
    "players": 2,
    "provenance": "fixture",
    "positions": [
        {"q": 0, "r": 0, "kind": "lake"},
        {"q": 1, "r": -1, "kind": "territory", "vp": 2},
        {"q": 1, "r": 0, "kind": "territory", "vp": 3},
        {"q": 0, "r": 1, "kind": "territory", "vp": 2},
        {"q": -1, "r": 1, "kind": "castle", "seat": 0},
        {"q": -1, "r": 0, "kind": "territory", "vp": 3},
        {"q": 0, "r": -1, "kind": "territory", "vp": 3},
        {"q": 2, "r": -1, "kind": "territory", "vp": 1},
        {"q": 2, "r": 0, "kind": "territory", "vp": 1},
        {"q": 3, "r": -1, "kind": "castle", "seat": 1},
    ],
}
