"""issue 4: the pages where a player sets up asynchronous play — notification settings (per kind, quiet
hours, vacation) on the profile, standing orders for response windows, and deadlines in "My games"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games.models import Prompt, StandingOrder

from .conftest import create_started_game, create_user, seat_users


def _login(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_notification_settings_are_saved_per_kind_with_quiet_hours() -> None:
    user = create_user()
    client = _login(user)
    page = client.get(reverse("accounts:profile"))
    assert page.status_code == 200 and b'id="notifications"' in page.content
    form = page.context["notify_form"]
    data = {name: "immediate" for name in form.kind_fields}
    data |= {"notify_started": "off", "notify_turn": "digest", "quiet_start": "22:00", "quiet_end": "07:30"}
    response = client.post(reverse("accounts:notifications"), data)
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.notify_mode("started") == "off"
    assert user.notify_mode("turn") == "digest"
    assert user.notify_mode("response") == "immediate"
    assert user.quiet_start is not None and user.quiet_end is not None
    assert (user.quiet_start.isoformat(), user.quiet_end.isoformat()) == ("22:00:00", "07:30:00")


@pytest.mark.django_db
def test_the_decision_email_setting_switches_between_full_play_by_email_and_short_emails() -> None:
    """issue 18: "full play by email" (the default) or today's short emails; a form without the field keeps
    the setting."""
    user = create_user()
    client = _login(user)
    page = client.get(reverse("accounts:profile"))
    assert b'name="email_play"' in page.content and user.email_play
    form = page.context["notify_form"]
    data = {name: "immediate" for name in form.kind_fields}
    assert client.post(reverse("accounts:notifications"), data | {"email_play": "short"}).status_code == 302
    user.refresh_from_db()
    assert user.email_play is False
    assert client.post(reverse("accounts:notifications"), data).status_code == 302
    user.refresh_from_db()
    assert user.email_play is False
    assert client.post(reverse("accounts:notifications"), data | {"email_play": "full"}).status_code == 302
    user.refresh_from_db()
    assert user.email_play is True


@pytest.mark.django_db
def test_invalid_notification_settings_change_nothing() -> None:
    user = create_user()
    client = _login(user)
    form = client.get(reverse("accounts:profile")).context["notify_form"]
    data = {name: "off" for name in form.kind_fields} | {"quiet_start": "22:00"}  # no end
    response = client.post(reverse("accounts:notifications"), data)
    assert response.status_code == 400 and "both ends" in response.content.decode()
    data = {name: "bogus" for name in form.kind_fields}
    assert client.post(reverse("accounts:notifications"), data).status_code == 400
    user.refresh_from_db()
    assert user.notify == {} and user.quiet_start is None


@pytest.mark.django_db
def test_setting_a_vacation_pauses_the_clock_of_an_open_decision() -> None:
    """The away period covers the deadline: the deadline moves back by the part of the period inside it."""
    game = create_started_game(humans=2, seed=5, time_control="daily")
    users = seat_users(game)
    [prompt] = Prompt.objects.filter(game=game)
    user = users[prompt.seat]
    client = _login(user)
    start = timezone.localtime(prompt.opened_at + timedelta(hours=2))
    end = start + timedelta(days=3)
    form = client.get(reverse("accounts:profile")).context["notify_form"]
    data = {name: "immediate" for name in form.kind_fields}
    data |= {"away_from": start.strftime("%Y-%m-%dT%H:%M"), "away_until": end.strftime("%Y-%m-%dT%H:%M")}
    assert client.post(reverse("accounts:notifications"), data).status_code == 302
    moved = Prompt.objects.get(pk=prompt.pk)
    assert moved.deadline_at - prompt.deadline_at == timedelta(days=3)


@pytest.mark.django_db
def test_standing_orders_can_be_added_listed_and_deleted_only_by_their_owner() -> None:
    game = create_started_game(humans=2, seed=5)
    users = seat_users(game)
    me, other = users[0], users[1]
    client = _login(me)
    url = reverse("games:orders")
    assert client.get(url).status_code == 200
    # A rule that names an artefact needs one: 400, nothing stored.
    bad = client.post(url, {"game": "", "rule": "fracture", "artefact": ""})
    assert bad.status_code == 400 and not StandingOrder.objects.exists()
    ok = client.post(url, {"game": str(game.pk), "rule": "fracture", "artefact": "orb_brutality"})
    assert ok.status_code == 302
    order = StandingOrder.objects.get()
    assert (order.user, order.game_id, order.rule, order.artefact) == (
        me,
        game.pk,
        "fracture",
        "orb_brutality",
    )
    listing = client.get(url).content.decode()
    assert "Orb of Brutality" in listing and game.title in listing
    # Someone else cannot delete it.
    assert _login(other).post(reverse("games:order_delete", args=[order.pk])).status_code == 404
    assert StandingOrder.objects.filter(pk=order.pk).exists()
    assert client.post(reverse("games:order_delete", args=[order.pk])).status_code == 302
    assert not StandingOrder.objects.exists()


@pytest.mark.django_db
def test_a_standing_order_for_a_game_i_am_not_seated_in_is_refused() -> None:
    game = create_started_game(humans=2, seed=5)
    stranger = create_user()
    response = _login(stranger).post(reverse("games:orders"), {"game": str(game.pk), "rule": "pass"})
    assert response.status_code == 400 and not StandingOrder.objects.exists()


@pytest.mark.django_db
def test_my_games_shows_whom_a_game_waits_for_and_the_time_left() -> None:
    game = create_started_game(humans=2, seed=5, time_control="daily")
    users = seat_users(game)
    [prompt] = Prompt.objects.filter(game=game)
    waiting_user = users[prompt.seat]
    other_user = next(u for s, u in users.items() if s != prompt.seat)
    mine = _login(waiting_user).get(reverse("games:my_games")).content.decode()
    assert "left" in mine
    theirs = _login(other_user).get(reverse("games:my_games")).content.decode()
    assert f"Waiting for {waiting_user.name}" in theirs and "left" in theirs
