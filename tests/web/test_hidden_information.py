"""issue 3 "Hidden information": for seeded random games at many points, every page, partial, poll
response and API response for every seat and for a spectator contains no card of another seat's hand,
no card of any deck (so no deck order) and no face-down conflict choice — checked by the cards'
identities (card ids), not by guessing at text. R95, R68."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from accounts.models import ApiToken, User
from games import engine
from games.models import Game
from games.web.game_page import PARTIALS

from .conftest import create_started_game, create_user, play_human_move, seat_users, state_of
from .factories import (
    WITH_FRACTURE,
    before_battle,
    conflict_step,
    crown_look,
    fracture_window,
    game_from_state,
)

CARD_ID = re.compile(r"s\dc\d\d")


def _secrets(state: engine.GameState, viewer: int | None) -> set[str]:
    """Card ids the viewer may not know: other seats' hands, every deck, others' face-down conflict card."""
    hidden: set[str] = set()
    for p in state.players:
        hidden |= {engine.card_id(p.seat, c) for c in p.deck}  # nobody sees a deck's contents or order
        if p.seat != viewer:
            hidden |= {engine.card_id(p.seat, c) for c in p.hand}
    b = state.battle
    if b is not None and not b.revealed:
        hidden |= {engine.card_id(seat, c) for seat, c in b.table if seat != viewer}
    ch = state.choice
    if ch is not None and ch.seat == viewer:  # the viewer's own Insight/Prosperity look (R97)
        owner = ch.target if ch.kind == "prosperity" else ch.seat
        hidden -= {engine.card_id(owner, c) for c in ch.cards}
    return hidden


def _ever_public(game: Game) -> set[str]:
    """Card ids that some public event showed (a discard, a played card, a revealed conflict card). The
    log may repeat them later even if the card has since been reshuffled into a deck: that says where the
    card *was*, not where it is."""
    seen: set[str] = set()
    for events in game.actions.values_list("events", flat=True):
        for ev in events:
            seen |= set(CARD_ID.findall(json.dumps(engine.redact_event(ev, None))))
    return seen


def _responses(client: Client, game: Game, token: str | None) -> dict[str, str]:
    """Every page, partial, poll and API response about ``game`` for the client's user. The API's log is
    returned separately (``api:log``) from the rest of its view (``api:view``)."""
    base = f"/games/{game.pk}/"
    out = {"page": client.get(base).content.decode()}
    for name in PARTIALS:
        out[f"partial:{name}"] = client.get(f"{base}partial/{name}/").content.decode()
    out["poll"] = client.get(f"{base}poll/?seq={max(game.seq - 1, 0)}").content.decode()
    headers: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    data = client.get(f"/api/games/{game.pk}", **headers).json()
    out["api:log"] = json.dumps(data.pop("log"))
    out["api:view"] = json.dumps(data)
    out["api:legal"] = client.get(f"/api/games/{game.pk}/legal", **headers).content.decode()
    return out


def _clients(game: Game) -> dict[int | None, tuple[Client, str]]:
    """A logged-in client and an API token for every seat of ``game`` and for a spectator (key ``None``)."""
    clients: dict[int | None, tuple[Client, str]] = {}
    for seat, user in [*seat_users(game).items(), (None, create_user())]:
        client = Client()
        client.force_login(user)
        clients[seat] = (client, ApiToken.issue(user))
    return clients


def _assert_nothing_leaks(game: Game, clients: dict[int | None, tuple[Client, str]]) -> dict[int | None, str]:
    """No response about ``game`` shows any viewer a card id it may not know. Returns every viewer's
    responses joined, for the caller's checks of what a viewer does see."""
    state = state_of(game)
    public = _ever_public(game)
    seen: dict[int | None, str] = {}
    for viewer, (client, token) in clients.items():
        hidden = _secrets(state, viewer)
        responses = _responses(client, game, token)
        for name, text in responses.items():
            secret = hidden - public if name == "api:log" else hidden
            leaked = set(CARD_ID.findall(text)) & secret
            assert not leaked, f"seat {viewer} sees {sorted(leaked)} in {name} at seq {game.seq}"
        seen[viewer] = "\n".join(responses.values())
    return seen


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [11, 29])
def test_no_response_shows_another_seats_secret_cards(seed: int) -> None:
    """R95, R68, R97: at many points of a seeded 3-player game (all seats human, so every seat has a
    viewer), no response for any seat or a spectator contains a card id the viewer may not know."""
    game = create_started_game(humans=3, seed=seed, options={"mayhem": True})
    users = seat_users(game)
    spectator: User = create_user()
    clients: dict[int | None, tuple[Client, str]] = {}
    for seat, user in [*users.items(), (None, spectator)]:
        client = Client()
        client.force_login(user)
        clients[seat] = (client, ApiToken.issue(user))
    checked = 0
    for step in range(160):
        if game.status != Game.Status.ACTIVE:
            break
        if step % 8 == 0 or (state_of(game).battle is not None and step % 2 == 0):
            state = state_of(game)
            public = _ever_public(game)
            for viewer, (client, token) in clients.items():
                hidden = _secrets(state, viewer)
                for name, text in _responses(client, game, token).items():
                    secret = hidden - public if name == "api:log" else hidden
                    leaked = set(CARD_ID.findall(text)) & secret
                    assert not leaked, f"seat {viewer} sees {sorted(leaked)} in {name} at seq {game.seq}"
                    checked += 1
        game = play_human_move(game, users)
    assert checked > 300


@pytest.mark.django_db
def test_the_check_catches_a_leak() -> None:
    """The detector itself works: the raw state JSON, which holds every hand, is flagged."""
    game = create_started_game(humans=2, seed=3)
    state = state_of(game)
    hidden = _secrets(state, 0)
    assert set(CARD_ID.findall(json.dumps([engine.card_id(1, c) for c in state.players[1].hand]))) <= hidden
    assert hidden & {engine.card_id(1, c) for c in state.players[1].hand}


@pytest.mark.django_db
def test_a_face_down_conflict_card_is_seen_by_its_owner_only() -> None:
    """R68: the attacker has put its conflict card face down, the defender has not chosen yet. Nobody but
    the attacker sees that card, on any page, partial or API response."""
    game = game_from_state(conflict_step(attacker_chose=True))
    state = state_of(game)
    assert state.battle is not None and not state.battle.revealed
    card = engine.card_id(0, state.battle.conflict[0])
    assert all(card in _secrets(state, viewer) for viewer in (1, None))
    seen = _assert_nothing_leaks(game, _clients(game))
    assert card in seen[0]


@pytest.mark.django_db
def test_an_open_fracture_window_shows_no_hand() -> None:
    """R37, R95: while the sceptre window asks seats 1 (holding Fracture) and 2, nobody else learns who holds
    Fracture: no other seat's hand card appears for any viewer; each asked seat sees its own hand."""
    game = game_from_state(fracture_window())
    state = state_of(game)
    fracture = engine.card_id(1, state.content.effect_index["fracture"])
    assert fracture in {engine.card_id(1, c) for c in state.players[1].hand}
    assert all(fracture in _secrets(state, viewer) for viewer in (0, 2, None))
    seen = _assert_nothing_leaks(game, _clients(game))
    for seat in (0, 1, 2):
        assert all(engine.card_id(seat, c) in seen[seat] for c in state.players[seat].hand)


@pytest.mark.django_db
@pytest.mark.parametrize("crown", ["insight", "prosperity"])
def test_a_crown_look_is_seen_by_the_looker_only(crown: str) -> None:
    """R41, R97: seat 0 looks at the top four cards of its own deck (Insight) or the top card of seat 1's
    deck (Prosperity). Seat 0 sees those cards; no other seat (not even the deck's owner) nor a spectator
    does."""
    game = game_from_state(crown_look(crown, players=3))
    state = state_of(game)
    assert state.choice is not None
    owner = 0 if crown == "insight" else 1
    looked = {engine.card_id(owner, c) for c in state.choice.cards}
    assert looked and all(looked <= _secrets(state, viewer) for viewer in (1, 2, None))
    seen = _assert_nothing_leaks(game, _clients(game))
    assert all(card in seen[0] for card in looked)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["sealed", "in_turn"])
def test_the_api_submit_answer_names_a_window_answer_exactly_as_the_log(mode: str) -> None:
    """issue 14, R37, R95: ``POST /api/games/{id}/actions`` lists the records it applied with the seat the
    caller's log shows: another seat's answer to a sealed window without its seat (``null``, source
    ``window``, no payload), an in-turn lap's answer (public, as at the table) and the caller's own record
    with it. Seat 2 is a person without Fracture: the server's pass for it waits for the mask (issue 29),
    so only the bot in seat 1 answers inside the request."""
    s, attack = before_battle(
        3,
        arts={0: ["sceptre_rage"]},
        hands={1: WITH_FRACTURE},
        options={"fracture_mask": [60, 600], "fracture_windows": mode},
    )
    game = game_from_state(s, bots=[1])
    attacker = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(seat_users(game)[0])}")
    body = json.dumps({"expected_seq": game.seq, "action": attack})
    response = attacker.post(f"/api/games/{game.pk}/actions", body, content_type="application/json")
    assert response.status_code == 200, response.content
    applied = response.json()["applied"]
    log = {e["seq"]: e["seat"] for e in attacker.get(f"/api/games/{game.pk}").json()["log"]}
    assert [a["seat"] for a in applied] == [log[a["seq"]] for a in applied]
    assert applied[0]["seat"] == 0 and "action" in applied[0]
    answers = [a for a in applied if a["type"] == "respond"]
    assert answers and all(a["source"] == "window" and "action" not in a for a in answers)
    assert {a["seat"] for a in answers} == ({None} if mode == "sealed" else {1})
