"""issue 32, "A calendar of deadlines": the per-user secret iCalendar feed (RFC 5545) at
``/calendar/<token>.ics`` and the profile section that creates, replaces and turns off its address.

Every feed is read back with the icalendar library's own parser (``icalendar.Calendar.from_ical``), and its
events are compared with the Prompt rows the user's own game pages show as their decisions: never another
seat's decision, never an ``auto`` prompt the server answers (issue 14), no email address."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from icalendar import Calendar

from accounts.calendar import decision_url, event_uid
from accounts.models import User
from games.models import Game, Prompt
from tests.engine import fixtures as F

from .conftest import create_started_game, create_user, play_human_move, seat_users
from .factories import WITH_FRACTURE, before_battle, conflict_step, game_from_state

pytestmark = pytest.mark.django_db


def _login(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _address(user: User) -> str:
    """Give ``user`` a calendar address through the profile's button; returns the feed's path."""
    response = _login(user).post(reverse("accounts:calendar_new"))
    assert response.status_code == 302 and response["Location"].endswith("#calendar")
    user.refresh_from_db()
    assert user.calendar_token
    return reverse("calendar_feed", args=[user.calendar_token])


def _feed(path: str) -> Calendar:
    """Fetch a feed anonymously and parse it with icalendar's reader (RFC 5545)."""
    response = Client().get(path)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["Cache-Control"].startswith("private")
    return Calendar.from_ical(response.content)


def _events(cal: Calendar) -> dict[str, Any]:
    """The calendar's events by UID."""
    return {str(e["UID"]): e for e in cal.walk("VEVENT")}


def _decisions(game: Game, seat: int) -> list[Prompt]:
    """The seat's open decisions as its game page shows them: its Prompt rows without the auto ones."""
    return list(Prompt.objects.filter(game=game, seat=seat, auto_at__isnull=True).select_related("game"))


def _utc(value: datetime) -> datetime:
    """A deadline as the feed writes it: UTC, to the second."""
    return value.astimezone(UTC).replace(microsecond=0)


def test_the_feed_has_one_event_per_open_decision_of_the_user_and_nothing_else() -> None:
    """issue 32, RFC 5545 §3.6.1: one VEVENT per open decision, with a stable UID, what to decide in which
    game, a short event ending at the deadline (UTC), the game's decision panel, the game's seq; the other
    player's feed lists only their own decisions; no email address anywhere."""
    game = create_started_game(humans=2, seed=7, title="Calendar table")
    users = seat_users(game)
    feeds = {seat: _feed(_address(user)) for seat, user in users.items()}
    total = 0
    for seat, cal in feeds.items():
        assert str(cal["VERSION"]) == "2.0" and str(cal["PRODID"]).startswith("-//")
        assert str(cal["X-WR-CALNAME"]).endswith("your deadlines")
        assert cal["REFRESH-INTERVAL"].to_ical() == b"PT15M"
        assert cal["X-PUBLISHED-TTL"].to_ical() == b"PT15M"
        events = _events(cal)
        mine = _decisions(game, seat)
        assert sorted(events) == sorted(event_uid(p) for p in mine)
        for prompt in mine:
            event = events[event_uid(prompt)]
            assert event["DTEND"].dt == _utc(prompt.deadline_at)
            assert event["DTSTART"].dt < event["DTEND"].dt
            assert str(event["URL"]) == decision_url(game.pk)
            assert str(event["URL"]).endswith(f"/games/{game.pk}/#decision")
            assert decision_url(game.pk) in str(event["DESCRIPTION"])
            assert int(event["SEQUENCE"]) == game.seq
            if prompt.kind == "turn":
                assert str(event["SUMMARY"]) == "Your turn in “Calendar table”"
        total += len(events)
        text = cal.to_ical().decode()
        assert all(u.email not in text for u in users.values())
    assert total == Prompt.objects.filter(game=game, auto_at__isnull=True).count() >= 1


def test_the_feed_follows_the_game_a_decision_made_leaves_it_and_a_new_one_appears() -> None:
    """issue 32 "updated as games move": after moves, the decision made is gone from its player's feed and
    the decisions opened since are in their players' feeds, under new UIDs."""
    game = create_started_game(humans=2, seed=7)
    users = seat_users(game)
    paths = {seat: _address(user) for seat, user in users.items()}
    before = {uid for path in paths.values() for uid in _events(_feed(path))}
    first = Prompt.objects.filter(game=game, auto_at__isnull=True).first()
    assert first is not None and event_uid(first) in before
    for _ in range(200):
        if not Prompt.objects.filter(game=game, seat=first.seat, key=first.key).exists():
            break
        game = play_human_move(game, users)
    assert game.status == Game.Status.ACTIVE
    after = {seat: _events(_feed(path)) for seat, path in paths.items()}
    assert event_uid(first) not in after[first.seat]
    for seat in users:
        assert sorted(after[seat]) == sorted(event_uid(p) for p in _decisions(game, seat))
        assert all(int(e["SEQUENCE"]) == game.seq for e in after[seat].values())
    assert {uid for events in after.values() for uid in events} - before, "no new decision appeared"


def test_a_battle_lists_each_players_own_conflict_card_decision() -> None:
    """issue 32: a battle asks both seats for a conflict card; each feed holds its own decision only."""
    game = game_from_state(conflict_step(), title="Field")
    users = seat_users(game)
    for seat, user in users.items():
        events = _events(_feed(_address(user)))
        (prompt,) = _decisions(game, seat)
        assert list(events) == [event_uid(prompt)]
        assert str(events[event_uid(prompt)]["SUMMARY"]) == "Battle in “Field”: choose your conflict card"


def test_a_sealed_window_shows_only_the_fracture_holder_a_decision() -> None:
    """issue 32 with issue 14 (R37, R95): in a sealed response window the seat without Fracture has an
    ``auto`` prompt the server answers after the masking delay; it is not a decision of theirs, so their
    feed is empty, as their game page shows no decision. The Fracture holder's feed has their own window
    decision, and nobody's feed holds another seat's."""
    s, attack = before_battle(
        3,
        arts={0: ["sceptre_rage"]},
        hands={1: WITH_FRACTURE},
        options={"fracture_windows": "sealed", "fracture_mask": [60, 600]},
    )
    s = F.act(s, 0, attack).state
    assert s.window is not None and s.window.asked == [1, 2]
    game = game_from_state(s, title="Sealed")
    users = seat_users(game)
    assert Prompt.objects.filter(game=game, seat=2, auto_at__isnull=False).exists()
    feeds = {seat: _events(_feed(_address(user))) for seat, user in users.items()}
    assert feeds[2] == {}
    (holder,) = _decisions(game, 1)
    assert list(feeds[1]) == [event_uid(holder)]
    assert str(feeds[1][event_uid(holder)]["SUMMARY"]) == "Response window in “Sealed”: play Fracture?"
    others = {event_uid(p) for p in Prompt.objects.filter(game=game).exclude(seat=0)}
    assert not others & set(feeds[0])


def test_a_new_address_revokes_the_old_one_and_turning_it_off_revokes_it() -> None:
    """issue 32: the "New address" button makes the old address a 404 at once and the new one works;
    "Turn the calendar off" leaves no working address."""
    user = create_user()
    old = _address(user)
    assert Client().get(old).status_code == 200
    new = _address(user)
    assert new != old
    assert Client().get(old).status_code == 404
    assert Client().get(new).status_code == 200
    assert _login(user).post(reverse("accounts:calendar_off")).status_code == 302
    user.refresh_from_db()
    assert user.calendar_token is None
    assert Client().get(new).status_code == 404


def test_an_unknown_token_is_a_404_without_a_hint() -> None:
    """issue 32: a wrong, empty or inactive account's token is a plain 404, not a calendar."""
    user = create_user()
    path = _address(user)
    for bad in (
        reverse("calendar_feed", args=[secrets.token_urlsafe(32)]),
        "/calendar/.ics",
        "/calendar/None.ics",
    ):
        response = Client().get(bad)
        assert response.status_code == 404
        assert not response["Content-Type"].startswith("text/calendar")
    User.objects.filter(pk=user.pk).update(is_active=False)
    response = Client().get(path)
    assert response.status_code == 404 and b"VCALENDAR" not in response.content


def test_the_buttons_need_a_login_csrf_and_post() -> None:
    """issue 32: creating or replacing the address is a POST of a logged-in user with a CSRF token."""
    user = create_user()
    for name in ("accounts:calendar_new", "accounts:calendar_off"):
        anonymous = Client().post(reverse(name))
        assert anonymous.status_code == 302 and "login" in anonymous["Location"]
        assert _login(user).get(reverse(name)).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(reverse("accounts:calendar_new")).status_code == 403
    user.refresh_from_db()
    assert user.calendar_token is None


def test_the_profile_shows_the_calendar_section() -> None:
    """issue 32: without an address the profile offers "Create my calendar address"; with one it shows the
    webcal and https addresses, the warning, and the "New address" button."""
    user = create_user()
    client = _login(user)
    page = client.get(reverse("accounts:profile")).content.decode()
    assert 'id="calendar"' in page and "Add your deadlines to your calendar" in page
    assert "Create my calendar address" in page and "webcal://" not in page
    path = _address(user)
    page = client.get(reverse("accounts:profile")).content.decode()
    https = settings.SITE_URL.rstrip("/") + path
    assert f'value="{https}"' in page
    assert f'value="webcal://{https.split("://", 1)[1]}"' in page
    assert "Anyone who has this address" in page
    assert "New address" in page and "Create my calendar address" not in page
