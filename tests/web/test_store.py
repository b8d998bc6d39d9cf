"""The state store (``games/store.py``, issue 13 "The ORM only") and the stock authentication backends:
a game is read and locked with its seats in a bounded number of queries, the locking read has every column,
the lighter read defers the large JSON columns, a move is stored with its records and snapshots, API
tokens find active users only, and logging in through the site's form serves pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken, User
from games import engine, store
from games.models import ActionRecord, Game, Notification
from tests.web.conftest import PASSWORD, model_fields

pytestmark = pytest.mark.django_db


def test_game_load_fills_seats_and_users_and_defers_the_state(
    start_game: Callable[..., Game], django_assert_num_queries: Any
) -> None:
    game = start_game(humans=3, seed=5)
    with django_assert_num_queries(2):  # the game, then its seats joined with their users
        light = store.game_load(game.pk)
        assert light is not None
        assert [s.number for s in light.seats.all()] == [0, 1, 2]
        names = [s.user.email for s in light.seats.all() if s.user is not None]
        assert all(s.game is light for s in light.seats.all())
    orm_seats = list(game.seats.select_related("user").order_by("number"))
    assert names == [s.user.email for s in orm_seats if s.user is not None]
    expected = Game.objects.get(pk=game.pk).state
    with django_assert_num_queries(1):  # the deferred state is loaded on access
        assert light.state == expected
    assert store.game_load(10**9) is None


def test_the_locking_read_has_every_column(start_game: Callable[..., Game]) -> None:
    game = start_game(humans=2, seed=9)
    with transaction.atomic():
        found = store.game_lock(game.pk)
        assert found is not None
        locked, seats = found
        assert [s.number for s in seats] == [0, 1]
    assert model_fields(locked) == model_fields(Game.objects.get(pk=game.pk))
    with transaction.atomic():
        assert store.game_lock(10**9) is None


def test_game_state_is_parsed_once_per_hash(start_game: Callable[..., Game]) -> None:
    game = start_game(humans=2, seed=9)
    first = store.game_state(game)
    assert store.game_state(Game.objects.get(pk=game.pk)) is first
    assert engine.state_hash(first) == game.state_hash
    with pytest.raises(store.NotStarted):
        store.game_state(Game(title="lobby", players=2))


def test_a_move_is_saved_with_its_records_and_snapshots(start_game: Callable[..., Game]) -> None:
    game = start_game(humans=2, seed=9)
    state = store.game_state(game)
    seat = engine.pending(state)[0].seat
    action = engine.legal_actions(state, seat)[0]
    t = engine.apply(state, seat, action)
    record = ActionRecord(
        game=game, seq=game.seq + 1, seat=seat, source="api", payload=action.to_dict(),
        events=t.events, state_hash=engine.state_hash(t.state),
    )  # fmt: skip
    with transaction.atomic():
        store.move_save(game, t.state, [record], [(game.seq + 1, t.state)], ["seq", "state", "state_hash"])
    fresh = Game.objects.get(pk=game.pk)
    assert (fresh.seq, fresh.state_hash) == (record.seq, record.state_hash)
    assert engine.from_dict(fresh.state) == t.state
    assert fresh.snapshots.get(seq=record.seq).state_hash == record.state_hash
    assert store.record_apply(state, ActionRecord.objects.get(game=game, seq=record.seq)) == t.state


def test_the_outbox_skips_duplicate_rows(user: User, start_game: Callable[..., Game]) -> None:
    game = start_game(humans=2, seed=3)
    before = Notification.objects.count()

    def row(kind: str) -> Notification:
        now = timezone.now()
        key = f"{user.pk}:{game.pk}:x:{kind}"
        return Notification(
            recipient=user, game=game, kind=kind, dedupe_key=key, created_at=now, send_after=now
        )

    Notification.objects.bulk_create([row("turn")], ignore_conflicts=True)
    Notification.objects.bulk_create([row("turn"), row("reminder")], ignore_conflicts=True)
    assert Notification.objects.count() == before + 2


def test_token_lookup_finds_active_users_only(user: User) -> None:
    token = ApiToken.issue(user)
    found = ApiToken.user_for(token)
    assert found is not None and model_fields(found) == model_fields(User.objects.get(pk=user.pk))
    assert ApiToken.user_for(token + "x") is None
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert ApiToken.user_for(token) is None


def test_site_login_serves_pages_and_a_deactivated_user_is_logged_out(user: User) -> None:
    c = Client()
    response = c.post(reverse("account_login"), {"login": user.email, "password": PASSWORD})
    assert response.status_code == 302
    assert c.session["_auth_user_backend"] in settings.AUTHENTICATION_BACKENDS
    page = c.get(reverse("games:my_games"))
    assert page.status_code == 200 and page.wsgi_request.user.pk == user.pk
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert c.get(reverse("games:my_games")).status_code == 302
