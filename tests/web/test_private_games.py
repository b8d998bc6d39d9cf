"""issue 12: no endpoint reveals whether a private game exists to someone without a seat in it. Every URL
pattern that takes a game id (pages, partials, the poll, the API) is requested for a private game and for
an id no game has, with several parameters, as a stranger and anonymously; the answers must be the same
(status, body, redirect and the messages left for the next page, once the id itself is masked)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.models import ApiToken
from games import services
from games.models import Game

from .conftest import create_private_game, create_user

pytestmark = pytest.mark.django_db

#: Values tried for the other path parameters and for the query string.
NAMES = ("header", "decision", "log", "nope")
TOKENS = ("x", "0" * 43)
QUERIES = ("", "?seq=0", "?seq=1", "?seq=x", "?step=1", "?step=-5", "?sig=abc", "?seq=99999999999999999999")
API_BODIES: tuple[dict[str, Any], ...] = (
    {},
    {"expected_seq": 0, "action": {"type": "end_turn"}},
    {"expected_seq": 1, "action": {"type": "advance", "to": "t1", "knights": 2}},
    {"expected_seq": 0, "action": {"type": "respond", "fracture": []}, "prompt_key": "t1:turn:0"},
)


def _routes(patterns: list[Any], prefix: str = "") -> Iterator[str]:
    """Every route (as a string) under ``patterns``, with its include prefixes."""
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern)


def game_routes() -> list[str]:
    """The routes that take a game id."""
    found = sorted({r for r in _routes(get_resolver().url_patterns) if "game_id" in r})
    assert len(found) >= 16, found  # the pages, partials, poll, replay, record and the API
    return found


def _paths(route: str, game_id: int, seq: int) -> Iterator[str]:
    route = route.lstrip("^").rstrip("$")
    route = re.sub(r"<(int:)?game_id>", str(game_id), route)
    names = NAMES if "<str:name>" in route else ("",)
    tokens = TOKENS if "<str:token>" in route else ("",)
    for name, token in itertools.product(names, tokens):
        path = "/" + route.replace("<str:name>", name).replace("<str:token>", token)
        for query in (*QUERIES, f"?seq={seq}", f"?seq={seq}&sig=x"):
            yield path + query


def _mask(text: str, game_id: int) -> str:
    """``text`` with the game id masked where it names the game (paths and the API's ``game_id``)."""
    return re.sub(rf'(games/|games%2F|"game_id": ){game_id}(?![0-9])', r"\1ID", text)


def _answer(client: Client, method: str, path: str, game_id: int) -> tuple[int, str, str, list[str]]:
    """The answer to ``method`` on ``path``, masked: the last status, the bodies, the redirect and the
    messages the request left for the next page (a redirect's "There is no such game." is one, issue 28).
    The messages earlier requests left (in the default storage's cookie) are dropped first."""
    client.cookies.pop("messages", None)
    if method == "GET":
        response = client.get(path)
        answers = [response]
    elif path.startswith("/api/"):
        answers = [
            client.post(path, json.dumps(body), content_type="application/json") for body in API_BODIES
        ]
        response = answers[-1]
    else:
        answers = [client.post(path, {"type": "end_turn", "expected_seq": "0", "token": "x"})]
        response = answers[0]
    body = b"".join(getattr(a, "content", b"") for a in answers).decode(errors="replace")
    masked = _mask(body, game_id)
    location = _mask(response.get("Location", ""), game_id)
    notes = [_mask(str(m), game_id) for a in answers for m in get_messages(a.wsgi_request)]
    return tuple(a.status_code for a in answers)[-1], masked, location, notes


@pytest.fixture
def private_game() -> Game:
    return create_private_game(players=3, title="Secret table")


def _clients() -> dict[str, Client]:
    stranger = create_user()
    session = Client()
    session.force_login(stranger)
    return {
        "anonymous": Client(),
        "session": session,
        "token": Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(create_user())}"),
    }


@pytest.mark.parametrize("status", ["active", "lobby", "finished"])
def test_no_endpoint_tells_a_private_game_from_a_missing_one(private_game: Game, status: str) -> None:
    game = private_game
    if status == "lobby":
        owner = game.created_by
        game = services.game_create(user=owner, title="Secret lobby", players=2, private=True)
    elif status == "finished":
        Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    game.refresh_from_db()
    missing = Game.objects.order_by("-pk").values_list("pk", flat=True)[0] + 7
    before = Game.objects.filter(pk=game.pk).values_list("seq", "state_hash", "status")[0]
    checked = 0
    for name, client in _clients().items():
        for route in game_routes():
            for path in _paths(route, game.pk, game.seq):
                for method in ("GET", "POST"):
                    seen = _answer(client, method, path, game.pk)
                    absent = _answer(client, method, path.replace(f"/{game.pk}", f"/{missing}", 1), missing)
                    assert seen[0] < 500, (name, method, path, seen[0])
                    assert seen == absent, (name, method, path, seen[0], absent[0])
                    checked += 1
    assert checked > 500
    assert Game.objects.filter(pk=game.pk).values_list("seq", "state_hash", "status")[0] == before


def _invite_answer(client: Client, game_id: int) -> tuple[int, str, list[str]]:
    client.cookies.pop("messages", None)
    response = client.post(f"/games/{game_id}/invite/", {"who": "friend@example.org"})
    notes = [_mask(str(m), game_id) for m in get_messages(response.wsgi_request)]
    return response.status_code, _mask(response.get("Location", ""), game_id), notes


def test_inviting_to_a_private_table_as_a_stranger_answers_like_a_missing_game() -> None:
    """issue 28 §4: the invite form told "Only the creator…" for a private table and "There is no such
    game." for a missing id. A stranger gets the second for both, and for someone else's imported record
    (which only its importer sees); a seated player who is not the creator can see the table, so they are
    still told why. Nothing is sent or counted."""
    owner = create_user()
    lobby = services.game_create(user=owner, title="Secret lobby", players=3, private=True)
    member = create_user()
    services.seat_join(game_id=lobby.pk, user=member)
    record = create_private_game()
    Game.objects.filter(pk=record.pk).update(private=False, imported=True)  # someone else's import
    missing = Game.objects.order_by("-pk").values_list("pk", flat=True)[0] + 7
    stranger = Client()
    stranger.force_login(create_user())
    absent = _invite_answer(stranger, missing)
    assert absent == (302, "/games/ID/", ["There is no such game."])
    assert _invite_answer(stranger, lobby.pk) == absent
    assert _invite_answer(stranger, record.pk) == absent
    seated = Client()
    seated.force_login(member)
    assert _invite_answer(seated, lobby.pk)[2] == ["Only the creator of the table can invite players."]
    assert Game.objects.get(pk=lobby.pk).invitations_sent == 0
