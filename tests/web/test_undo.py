"""Undo (issue 16), through the services, the game page and the API: a player takes back their own steps
of the current turn back to the last new information; the records are kept and marked undone, replay and
``verify_game`` stay exact, and nobody else ever sees an undone step.

Positions: the guided first game's map and opening (``games.services.tutorial``): seat 0 to move at the
start of turn 6 with knights in its castle, the Forest (t1) and the Grasslands (t5); the Fort (t6) empty;
the rival's City (t2) a battle that opens a sceptre window (R64) and then draws (R63).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import engine, services
from games.models import ActionRecord, Game
from games.selectors import game_record, replay_seqs
from games.services import tutorial
from tests.engine.fixtures import castle_pos, neighbours
from tests.engine.test_undo import manoeuvre_position
from tests.web.conftest import create_user, db_fingerprint, seat_users, state_of
from tests.web.factories import Step, game_from_state
from tests.web.test_pages import form_data

pytestmark = pytest.mark.django_db

REDISTRIBUTE = {"type": "redistribute", "moves": [{"from": "t1", "to": "t5", "knights": 1}]}
ADVANCE_EMPTY = {"type": "advance", "to": "t6", "knights": 2}
ADVANCE_BATTLE = {"type": "advance", "to": "t2", "knights": 5}


def opening() -> tuple[engine.GameState, list[Step]]:
    """The guided game's position after its opening, with the steps that led there."""
    state = engine.new_game(engine.normalize_setup(tutorial.SETUP))
    log = []
    for seat, action in tutorial.OPENING:
        t = engine.apply(state, seat, action)
        log.append(Step(seat, action, t))
        state = t.state
    return state, log


def two_players() -> tuple[Game, User, User]:
    """The opening position as a game of two people: (game, seat 0's player, seat 1's player)."""
    state, log = opening()
    game = game_from_state(state, humans=2, log=log)
    users = seat_users(game)
    return game, users[0], users[1]


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def act(client: Client, game: Game, payload: dict[str, Any]) -> Game:
    game.refresh_from_db()
    response = client.post(reverse("games:act", args=[game.pk]), form_data(payload, game.seq))
    assert response.status_code == 302, response.content[:500]
    game.refresh_from_db()
    return game


def undo(client: Client, game: Game, steps: int = 1, *, seq: int | None = None, htmx: bool = False) -> Any:
    game.refresh_from_db()
    data = {"expected_seq": game.seq if seq is None else seq, "steps": steps}
    return client.post(
        reverse("games:undo", args=[game.pk]), data, headers={"HX-Request": "true"} if htmx else {}
    )


def test_two_steps_taken_back_leave_the_game_as_before_and_the_records_marked() -> None:
    """R43–R56: a redistribution and an advance into an empty territory are taken back one by one. The
    state is the one before them (hash and all), both records are kept and marked with the undo that took
    them back, the game's seq grew by one per undo, and ``verify_game`` replays it all exactly."""
    game, alice, _bob = two_players()
    before = state_of(game)
    seq0 = game.seq
    client = client_for(alice)
    game = act(client, game, REDISTRIBUTE)
    game = act(client, game, ADVANCE_EMPTY)
    assert state_of(game).owner[6] == 0

    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert 'id="undo-button"' in page and "2 steps of this turn can be taken back" in page

    assert undo(client, game).status_code == 302
    game.refresh_from_db()
    assert state_of(game).owner[6] == -1 and game.seq == seq0 + 3
    assert undo(client, game, htmx=True).status_code == 200
    game.refresh_from_db()
    assert engine.state_hash(state_of(game)) == engine.state_hash(before) == game.state_hash
    assert game.seq == seq0 + 4

    rows = list(ActionRecord.objects.filter(game=game, seq__gt=seq0).order_by("seq"))
    assert [(r.seq, r.payload["type"], r.takeback, r.undone_in) for r in rows] == [
        (seq0 + 1, "redistribute", True, seq0 + 4),
        (seq0 + 2, "advance", True, seq0 + 3),
    ]
    assert services.game_verify(game_id=game.pk)[0]

    # Play on from there: the next action takes the next seq, and verify stays exact.
    game = act(client, game, ADVANCE_EMPTY)
    assert game.seq == seq0 + 5 and services.game_verify(game_id=game.pk)[0]
    assert replay_seqs(game) == [*range(1, seq0 + 1), seq0 + 5]


def test_the_state_after_an_undo_plays_on_exactly_as_if_the_steps_were_never_made() -> None:
    """Replay stays exact: after taking a step back, the battle that follows draws and rolls the same as in
    a game where the step was never made (the undone step used no chance, R96)."""
    game, alice, _bob = two_players()
    direct, other, _ = two_players()
    client = client_for(alice)
    game = act(client, game, REDISTRIBUTE)
    assert undo(client, game).status_code == 302
    game = act(client, game, ADVANCE_BATTLE)
    direct = act(client_for(other), direct, ADVANCE_BATTLE)
    assert game.state_hash == direct.state_hash


def test_undo_is_refused_once_a_card_was_drawn_and_nothing_changes() -> None:
    """R57, R63: an advance into a rival's territory starts a battle whose first draw comes at once. From
    then on nothing can be taken back: the page says why (a card was drawn, with its rule) and a posted
    undo is refused with 409 and the reason, changing nothing."""
    state = manoeuvre_position()
    enemy = neighbours(state, castle_pos(state, 0))[1]
    game = game_from_state(state, humans=1, bots=[1], seq=3)
    alice = seat_users(game)[0]
    client = client_for(alice)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert 'id="undo-button"' not in page and "Nothing to undo: there is nothing to undo yet." in page
    game = act(client, game, {"type": "advance", "to": f"t{enemy}", "knights": 2})
    advance = game.actions.get(payload__type="advance")
    assert any(ev["type"] == engine.EventType.DRAW for ev in advance.events)
    assert not advance.takeback and advance.barrier == engine.Barrier.CARD_DRAWN

    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert 'id="undo-button"' not in page
    assert "Nothing to undo: a card has been drawn since your last step." in page
    fingerprint = db_fingerprint(game.pk)
    response = undo(client, game, htmx=True)
    assert response.status_code == 409
    assert "a card has been drawn since your last step" in response.content.decode()
    assert db_fingerprint(game.pk) == fingerprint


def test_bad_undo_requests_get_a_clear_4xx_and_change_nothing() -> None:
    """Bad input changes nothing: a stale ``expected_seq`` (a second click) is 409, more steps than can be
    taken back is 409 naming how many can, a malformed number is 400, another seat or a stranger cannot
    undo seat 0's step, and an undo at the start of a turn has nothing to take back."""
    game, alice, bob = two_players()
    client = client_for(alice)
    assert undo(client, game).status_code == 409  # the turn has only just begun
    game = act(client, game, REDISTRIBUTE)
    fingerprint = db_fingerprint(game.pk)
    response = undo(client, game, 2, htmx=True)
    assert response.status_code == 409 and "Only 1 step can be taken back now." in response.content.decode()
    assert client.post(reverse("games:undo", args=[game.pk]), {"expected_seq": "x"}).status_code == 400
    assert undo(client_for(bob), game).status_code == 409  # bob has no step of his own to take back
    assert undo(client_for(create_user()), game).status_code == 403
    assert db_fingerprint(game.pk) == fingerprint

    seq = game.seq
    assert undo(client, game, seq=seq).status_code == 302
    assert undo(client, game, seq=seq).status_code == 409  # the same click again: applied once only
    game.refresh_from_db()
    assert game.seq == seq + 1
    assert ActionRecord.objects.filter(game=game, undone_in__isnull=False).count() == 1


def test_nobody_else_sees_an_undone_step() -> None:
    """Hidden information: the log (page and API), the export and the replay steps leave an undone step
    out for every seat, the undoer included; only its record in the database keeps it."""
    game, alice, bob = two_players()
    client = client_for(alice)
    game = act(client, game, REDISTRIBUTE)
    game = act(client, game, ADVANCE_EMPTY)
    bob_client = client_for(bob)
    steps = [f'<li data-seq="{seq}"' for seq in (game.seq - 1, game.seq)]
    seen = bob_client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert all(step in seen for step in steps)  # in the log while they stand
    assert undo(client, game).status_code == 302
    assert undo(client, game).status_code == 302
    game.refresh_from_db()
    assert sorted(_undone(game)) == [game.seq - 3, game.seq - 2]

    for who in (bob_client, client):
        page = who.get(reverse("games:detail", args=[game.pk])).content.decode()
        assert not any(step in page for step in steps)
        api = json.loads(who.get(f"/api/games/{game.pk}").content)
        assert {entry["seq"] for entry in api["log"]}.isdisjoint(_undone(game))
    record = game_record(game)
    assert len(record["actions"]) == len(tutorial.OPENING)
    assert replay_seqs(game) == list(range(1, len(tutorial.OPENING) + 1))


def _undone(game: Game) -> list[int]:
    return list(game.actions.filter(undone_in__isnull=False).values_list("seq", flat=True))


def test_the_api_takes_steps_back_the_same_way() -> None:
    """``POST /api/games/{id}/undo``: the same service, the same refusals (409 ``undo_refused`` with the
    barrier), ``steps`` to take back more than one; unknown fields are 400."""
    game, alice, _bob = two_players()
    client = client_for(alice)
    game = act(client, game, REDISTRIBUTE)
    game = act(client, game, ADVANCE_EMPTY)
    url = f"/api/games/{game.pk}/undo"

    def post(body: dict[str, Any]) -> Any:
        return client.post(url, json.dumps(body), content_type="application/json")

    assert post({"expected_seq": game.seq, "steps": 1, "extra": 1}).status_code == 400
    refused = post({"expected_seq": game.seq, "steps": 3})
    assert refused.status_code == 409 and json.loads(refused.content)["error"] == "undo_refused"
    done = post({"expected_seq": game.seq, "steps": 2})
    assert done.status_code == 200
    body = json.loads(done.content)
    assert body["seq"] == game.seq + 1 and body["undone"] == [game.seq, game.seq - 1]
    again = post({"expected_seq": body["seq"], "steps": 1})
    assert again.status_code == 409 and json.loads(again.content)["params"]["barrier"] == "turn_over"
