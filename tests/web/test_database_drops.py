"""issue 28 §2: a dropped database connection gets a clean answer (``mastery/unavailable.py``).

The connection is really killed: ``pg_terminate_backend`` from a second connection ends the backend of the
connection the request uses, at a chosen moment (inside the submit's transaction, in the read's selector,
or between two requests so that a middleware meets it first). Asserted: the API answers 503 ``unavailable``
in its JSON shape with ``Retry-After``; a page answers 503 with a "try again" panel that keeps the posted
fields; a read runs once more on a fresh connection; a submit is never run again, and nothing is applied.

PostgreSQL only (skipped without it, except under CI, where that fails).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from accounts.models import ApiToken, User
from games import api as games_api
from games import services
from games.models import ActionRecord, Game
from games.selectors import game_view
from games.services import play
from games.web import common
from mastery.unavailable import RETRY_AFTER_SECONDS
from tests.integration.conftest import unavailable
from tests.web.conftest import create_user

pytestmark = pytest.mark.django_db(transaction=True)

HX_DECISION = {"HX-Request": "true", "HX-Target": "decision"}
#: What the 503 body must never show.
INTERNALS = ("OperationalError", "InterfaceError", "psycopg", "terminat", "Traceback", "administrator")
HIDDEN = re.compile(r'<input type="hidden" name="([^"]*)" value="([^"]*)">')


@pytest.fixture(autouse=True)
def postgres() -> Iterator[None]:
    """Skip without PostgreSQL; close whatever connection a test left broken before the database is
    emptied (the test client keeps Django from closing it after each request)."""
    if connection.vendor != "postgresql":
        unavailable("the database-drop tests need PostgreSQL (set DATABASE_URL)")
    yield
    connection.close()


def terminate_backend() -> None:
    """End the backend of this thread's database connection from a second connection, and wait until it is
    gone (``pg_terminate_backend`` with a timeout, PostgreSQL 14+)."""
    connection.ensure_connection()
    assert connection.connection is not None
    pid = connection.connection.info.backend_pid
    sd = connection.settings_dict
    with psycopg.connect(
        dbname=sd["NAME"],
        user=sd["USER"] or None,
        password=sd["PASSWORD"] or None,
        host=sd["HOST"] or None,
        port=str(sd["PORT"]) if sd["PORT"] else None,
        autocommit=True,
    ) as killer:
        row = killer.execute("SELECT pg_terminate_backend(%s, 10000)", [pid]).fetchone()
    assert row == (True,), f"backend {pid} did not end"


def kill_before(monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str, kills: set[int]) -> list[int]:
    """Wrap ``module.name`` so that its n-th call (n in ``kills``, counted from 1) first terminates the
    connection's backend, then goes on (and so meets the dead connection at its next query).

    Returns:
        The list of call numbers seen so far (its length: how many times the function ran).
    """
    original: Callable[..., Any] = getattr(module, name)
    calls: list[int] = []

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append(len(calls) + 1)
        if calls[-1] in kills:
            terminate_backend()
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls


@pytest.fixture
def duel() -> Game:
    """A started game between two people (no bots, so nothing moves by itself)."""
    alice, bob = create_user(display_name="Alice"), create_user(display_name="Bob")
    game = services.game_create(user=alice, title="Duel", players=2, time_control="daily")
    services.seat_join(game_id=game.pk, user=bob)
    services.game_start(game_id=game.pk, user=alice, seed=11)
    return Game.objects.get(pk=game.pk)


def mover(game: Game) -> User:
    """The player whose turn it is."""
    for seat in game.seats.select_related("user"):
        if seat.user is not None and game_view(game, seat.user, with_log=False).legal:
            return seat.user
    raise AssertionError("nobody may act")


def end_turn_form(game: Game, user: User) -> dict[str, str]:
    """The decision panel's "end turn" form as posted (confirmed, as the confirmation step sends it)."""
    key = str(game_view(game, user, with_log=False).my_prompts[0]["key"])
    return {"type": "end_turn", "expected_seq": str(game.seq), "prompt_key": key, "confirmed": "1"}


def logged_in(user: User, **kwargs: Any) -> Client:
    """A test client with a session of ``user``."""
    client = Client(**kwargs)
    client.force_login(user)
    return client


def unchanged(game: Game) -> None:
    """Nothing was applied: the game's seq and its records are as they were."""
    connection.close()  # the request's connection may be the broken one: assert on a fresh one
    assert Game.objects.get(pk=game.pk).seq == game.seq
    assert not ActionRecord.objects.filter(game=game, seq__gt=game.seq).exists()


def assert_unavailable_json(response: Any) -> None:
    """A 503 in the API's error shape with Retry-After, showing nothing of the error."""
    assert response.status_code == 503, response.content
    assert response["Content-Type"].startswith("application/json")
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS) and int(response["Retry-After"]) > 0
    body = response.json()
    assert set(body) == {"error", "message", "params"} and body["error"] == "unavailable"
    assert body["params"] == {} and body["message"]
    assert not any(word in response.content.decode() for word in INTERNALS)


def assert_unavailable_page(response: Any) -> str:
    """A 503 HTML "try again" answer with Retry-After, showing nothing of the error; its text."""
    assert response.status_code == 503, response.content
    assert response["Content-Type"].startswith("text/html")
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert response["Cache-Control"] == "no-store" and response["X-Frame-Options"] == "DENY"
    text: str = response.content.decode()
    assert 'id="try-again"' in text
    assert not any(word in text for word in INTERNALS)
    return text


def kept(text: str) -> list[tuple[str, str]]:
    """The hidden fields of the "try again" form, CSRF token left out."""
    return [(n, html.unescape(v)) for n, v in HIDDEN.findall(text) if n != "csrfmiddlewaretoken"]


# --------------------------------------------------------------------------------------------------------
# The API
# --------------------------------------------------------------------------------------------------------


def test_api_submit_during_a_drop_is_503_json_and_applies_nothing(
    duel: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection dies inside the submit's transaction (before the move is stored): 503 ``unavailable``
    with Retry-After, the submit ran once (no blind retry), and no record was written. Resending the same
    body with the same ``expected_seq`` then applies it, once."""
    user = mover(duel)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(user)}")
    form = end_turn_form(duel, user)
    body = {"expected_seq": duel.seq, "action": {"type": "end_turn"}, "prompt_key": form["prompt_key"]}
    stores = kill_before(monkeypatch, play, "move_store", {1})
    url = f"/api/games/{duel.pk}/actions"

    response = client.post(url, json.dumps(body), content_type="application/json")

    assert_unavailable_json(response)
    assert stores == [1]
    unchanged(duel)
    again = client.post(url, json.dumps(body), content_type="application/json")
    assert again.status_code == 200 and again.json()["seq"] == duel.seq + 1
    stale = client.post(url, json.dumps(body), content_type="application/json")
    assert stale.status_code == 409 and stale.json()["error"] == "stale_state"
    assert ActionRecord.objects.filter(game=duel, seq__gt=duel.seq, seat__isnull=False).count() == 1


def test_api_read_runs_once_more_after_one_drop(duel: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    """A GET whose connection dies in its selector runs again on a fresh connection and answers 200."""
    user = mover(duel)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(user)}")
    reads = kill_before(monkeypatch, games_api, "game_get", {1})

    response = client.get(f"/api/games/{duel.pk}")

    assert response.status_code == 200, response.content
    assert response.json()["seq"] == duel.seq
    assert reads == [1, 2]


def test_api_read_with_a_drop_on_both_runs_is_503_json(duel: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read that loses its connection on the second run too is answered 503 JSON; there is no third run."""
    user = mover(duel)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(user)}")
    reads = kill_before(monkeypatch, games_api, "game_get", {1, 2})

    response = client.get(f"/api/games/{duel.pk}/legal")

    assert_unavailable_json(response)
    assert reads == [1, 2]


def test_api_drop_met_by_a_middleware(duel: Game) -> None:
    """The connection dies between two requests, so the session's user is what meets it (in a middleware,
    before the endpoint): a GET runs again and answers 200; a POST is 503 JSON and applies nothing."""
    user = mover(duel)
    # Django's 500 handler also sends got_request_exception, which the test client would raise
    client = logged_in(user, raise_request_exception=False)
    terminate_backend()

    read = client.get(f"/api/games/{duel.pk}")

    assert read.status_code == 200 and read.json()["seq"] == duel.seq
    form = end_turn_form(duel, user)
    body = {"expected_seq": duel.seq, "action": {"type": "end_turn"}, "prompt_key": form["prompt_key"]}
    terminate_backend()
    response = client.post(f"/api/games/{duel.pk}/actions", json.dumps(body), content_type="application/json")
    assert_unavailable_json(response)
    unchanged(duel)


def test_api_other_server_error_keeps_the_json_shape(duel: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    """Any other unexpected error under /api/ is a 500 in the API's error shape, not Django's HTML page
    (``handler500``), and shows nothing of the error."""
    client = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(mover(duel))}", raise_request_exception=False)

    def broken(game_id: int) -> Game | None:
        raise RuntimeError("internal detail")

    monkeypatch.setattr(games_api, "game_get", broken)
    response = client.get(f"/api/games/{duel.pk}")

    assert response.status_code == 500 and response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["error"] == "server_error" and set(body) == {"error", "message", "params"}
    assert "internal detail" not in response.content.decode()


# --------------------------------------------------------------------------------------------------------
# The pages
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("headers", [HX_DECISION, {}], ids=["htmx", "plain"])
def test_page_submit_during_a_drop_keeps_the_form(
    duel: Game, monkeypatch: pytest.MonkeyPatch, headers: dict[str, str]
) -> None:
    """A move sent from the decision panel whose connection dies inside the submit: 503 with a "try again"
    panel whose form posts the same fields (``expected_seq`` included) to the same URL; nothing applied,
    the submit ran once. With htmx the answer is the decision panel itself, marked for game.js to swap in.
    Sending the kept form applies the move once."""
    user = mover(duel)
    client = logged_in(user)
    form = end_turn_form(duel, user)
    stores = kill_before(monkeypatch, play, "move_store", {1})
    url = reverse("games:act", args=[duel.pk])

    response = client.post(url, form, headers=headers)

    text = assert_unavailable_page(response)
    assert stores == [1]
    unchanged(duel)
    assert sorted(kept(text)) == sorted(form.items())
    assert f'action="{url}"' in text and "Try again" in text
    if headers:
        assert text.lstrip().startswith('<section id="decision"') and f'hx-post="{url}"' in text
        assert response["X-Try-Again"] == "form"
    else:
        assert text.startswith("<!DOCTYPE html>") or "<!DOCTYPE html>" in text
    again = client.post(url, dict(kept(text)), headers=headers)
    assert again.status_code in (200, 302), again.content
    assert Game.objects.get(pk=duel.pk).seq == duel.seq + 1


def test_page_submit_drop_met_by_a_middleware_keeps_the_form(duel: Game) -> None:
    """The connection dies before the request, so the session's user meets it in a middleware: the plain
    form POST is answered 503 with the fields kept, and nothing is applied."""
    user = mover(duel)
    client = logged_in(user, raise_request_exception=False)
    form = end_turn_form(duel, user)
    terminate_backend()

    response = client.post(reverse("games:act", args=[duel.pk]), form)

    text = assert_unavailable_page(response)
    assert sorted(kept(text)) == sorted(form.items())
    unchanged(duel)


def test_page_read_runs_once_more_after_one_drop(duel: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    """The game page whose connection dies in its selector runs again on a fresh connection: 200."""
    user = mover(duel)
    client = logged_in(user)
    reads = kill_before(monkeypatch, common, "game_get", {1})

    response = client.get(reverse("games:detail", args=[duel.pk]))

    assert response.status_code == 200
    assert 'id="decision"' in response.content.decode()
    assert reads == [1, 2]


def test_page_read_drop_met_by_a_middleware_runs_once_more(duel: Game) -> None:
    """The connection dies between requests, so a middleware meets it first: the page still answers 200."""
    client = logged_in(mover(duel), raise_request_exception=False)
    terminate_backend()

    response = client.get(reverse("games:detail", args=[duel.pk]))

    assert response.status_code == 200


def test_page_read_with_a_drop_on_both_runs_is_a_try_again_page(
    duel: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page read that loses its connection twice is a simple 503 "try again" page linking to itself."""
    client = logged_in(mover(duel))
    reads = kill_before(monkeypatch, common, "game_get", {1, 2})
    url = reverse("games:detail", args=[duel.pk])

    response = client.get(url)

    text = assert_unavailable_page(response)
    assert reads == [1, 2]
    assert f'href="{url}"' in text and "<form" not in text


def test_a_cross_site_post_gets_no_form_back(duel: Game) -> None:
    """A POST that fails the CSRF check gets the "try again" text but no form: a lost connection must not
    turn a forged request into a ready-to-send form with a valid token."""
    user = mover(duel)
    client = logged_in(user, enforce_csrf_checks=True, raise_request_exception=False)
    form = end_turn_form(duel, user)
    terminate_backend()

    response = client.post(reverse("games:act", args=[duel.pk]), form)

    assert response.status_code == 503
    text = response.content.decode()
    assert "<form" not in text and not kept(text)
    unchanged(duel)
