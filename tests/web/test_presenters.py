"""issue 13 "Presenters that fail loudly": a presenter's exception reaches the request instead of an empty
panel (and nothing broken is cached), and the panels' cache key covers everything they show: a renamed
player is shown at once, in every language and time zone."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games.web import presenters

from .conftest import create_started_game, seat_users

pytestmark = pytest.mark.django_db


def _client(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_presenter_error_propagates_and_is_not_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    game = create_started_game(humans=2, seed=3)
    client = _client(seat_users(game)[0])

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise IndexError("a presenter bug")

    monkeypatch.setattr(presenters, "board_model", broken)
    with pytest.raises(IndexError, match="a presenter bug"):
        client.get(f"/games/{game.pk}/")
    monkeypatch.undo()
    page = client.get(f"/games/{game.pk}/")
    assert page.status_code == 200
    assert page.content.decode().count('class="hex') > 10  # the map, not an empty cached panel


@pytest.mark.parametrize(
    ("language", "zone"), [("en", "UTC"), ("sv", "Europe/Stockholm"), ("ko", "Asia/Seoul")]
)
def test_a_renamed_player_is_shown_at_once(language: str, zone: str) -> None:
    game = create_started_game(humans=2, seed=3)
    users = seat_users(game)
    viewer, other = users[0], users[1]
    User.objects.filter(pk=viewer.pk).update(language=language, time_zone=zone)
    other.display_name = "Before Rename"
    other.save(update_fields=["display_name"])
    client = _client(viewer)
    assert "Before Rename" in client.get(f"/games/{game.pk}/").content.decode()
    other.display_name = "After Rename"
    other.save(update_fields=["display_name"])
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert "After Rename" in html and "Before Rename" not in html


@pytest.mark.django_db
def test_the_end_of_the_game_changes_the_decision_panels_signature_and_the_poll_sends_it() -> None:
    """The poll swaps the decision panel only when its signature changes. A player who has nothing to
    decide and waits for nobody when the last move is made must still see "The game is over." (the full
    game in the browser kept "Nothing to decide right now" under "Game over"): the winners are part of it."""
    import copy

    from django.utils import timezone

    from games.selectors import game_view
    from games.web.presenters.decision import decision_model

    from .test_ratings import finish_game

    game = finish_game(create_started_game(humans=3, seed=15, options={"skirmish": True}), 15)
    user = seat_users(game)[0]
    gv = game_view(game, user)
    assert gv.view is not None and gv.view["winners"] and not gv.legal and not gv.my_prompts
    over = decision_model(gv, gv.names, timezone.now())
    running = copy.copy(gv)
    running.view = {**gv.view, "winners": []}  # the same panel inputs, one move earlier
    before = decision_model(running, running.names, timezone.now())
    assert before["sig"] != over["sig"]
    client = Client()
    client.force_login(user)
    query: dict[str, str | int] = {"seq": game.seq - 1, "sig": before["sig"]}
    polled = client.get(f"/games/{game.pk}/poll/", query)
    assert polled.status_code == 200
    assert "The game is over." in polled.content.decode()
