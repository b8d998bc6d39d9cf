"""The tournaments' pages (issue 34): the events list, the new-event form (bad input is a form error,
never a 500), an event's public page, the sign-up and withdraw buttons, the standings CSV, the profile's
"Your events" panel and the nav link."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from tests.web.conftest import create_user
from tournaments import selectors, services
from tournaments.models import Entry, Event

from .helpers import end_game, make_event, players_of, round_games, sign_up, start

_FORMAT = "%Y-%m-%dT%H:%M"


def client_for(user: User) -> Client:
    """A client logged in as ``user``."""
    client = Client()
    client.force_login(user)
    return client


def form_data(**changes: Any) -> dict[str, Any]:
    """A valid new-event form, with ``changes``."""
    now = timezone.now()
    data = {
        "name": "Autumn Swiss",
        "format": "swiss",
        "table_size": "4",
        "rounds": "3",
        "advance_k": "1",
        "time_control": "daily",
        "points_by_rank": "3, 2, 1, 0",
        "bye_policy": "bot",
        "bye_points": "0",
        "signup_opens": (now + timedelta(hours=1)).strftime(_FORMAT),
        "signup_closes": (now + timedelta(days=3)).strftime(_FORMAT),
        "starts_at": (now + timedelta(days=4)).strftime(_FORMAT),
        "round_deadline_days": "14",
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


@pytest.mark.django_db
def test_the_list_shows_empty_states_then_events_by_status() -> None:
    page = Client().get(reverse("tournaments:list")).content.decode()
    assert "No event is open for sign-up right now." in page
    assert "No event is running." in page and "No event has finished yet." in page
    event = make_event(name="Winter Cup")
    sign_up(event, 2)
    page = Client().get(reverse("tournaments:list")).content.decode()
    assert "Winter Cup" in page and reverse("tournaments:detail", args=[event.pk]) in page
    assert "No event is open for sign-up right now." not in page


@pytest.mark.django_db
def test_the_new_event_form_needs_a_login_and_has_no_preselected_format() -> None:
    response = Client().get(reverse("tournaments:new"))
    assert response.status_code == 302 and "login" in response["Location"]
    page = client_for(create_user()).get(reverse("tournaments:new")).content.decode()
    assert 'name="format"' in page
    assert not re.search(r'name="format"[^>]*checked', page)
    assert not re.search(r'name="bye_policy"[^>]*checked', page)
    assert not re.search(r'name="rated"[^>]*checked', page)


@pytest.mark.django_db
def test_a_valid_form_announces_the_event() -> None:
    organiser = create_user()
    response = client_for(organiser).post(reverse("tournaments:new"), form_data(skirmish="on"))
    assert response.status_code == 302
    event = Event.objects.get()
    assert response["Location"] == reverse("tournaments:detail", args=[event.pk])
    assert event.organiser == organiser and event.status == Event.Status.DRAFT
    assert event.options == {"skirmish": True}
    assert event.points_by_rank == {"1": 3, "2": 2, "3": 1, "4": 0}


@pytest.mark.django_db
def test_the_organiser_may_choose_a_custom_clock_as_for_a_new_game() -> None:
    """The custom time control takes the new-game form's hours (a preset ignores them); the event stores
    the seconds and its page shows the clock in words."""
    client = client_for(create_user())
    page = client.get(reverse("tournaments:new")).content.decode()
    assert 'value="custom"' in page and 'name="turn_hours"' in page and 'name="response_hours"' in page
    response = client.post(
        reverse("tournaments:new"), form_data(time_control="custom", turn_hours="2", response_hours="0.5")
    )
    assert response.status_code == 302
    event = Event.objects.get()
    assert (event.time_control, event.turn_seconds, event.response_seconds) == ("custom", 7200, 1800)
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "2 hours per turn, 30 minutes per response" in page
    client.post(reverse("tournaments:new"), form_data(name="Preset", turn_hours="2", response_hours="1"))
    preset = Event.objects.get(name="Preset")
    assert (preset.time_control, preset.turn_seconds, preset.response_seconds) == ("daily", None, None)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "changes",
    [
        {"name": ""},
        {"format": None},
        {"format": "ladder"},
        {"table_size": "9"},
        {"table_size": "x"},
        {"rounds": "0"},
        {"rounds": "-3"},
        {"format": "elimination", "advance_k": "4"},
        {"points_by_rank": "1, 2, 3, 4"},
        {"points_by_rank": "three"},
        {"points_by_rank": "3, 2, 1, 0, 0, 0, 0"},
        {"bye_policy": None},
        {"bye_points": "-1"},
        {"time_control": "blitz"},
        {"time_control": "custom"},
        {"time_control": "custom", "turn_hours": "2"},
        {"time_control": "custom", "turn_hours": "2", "response_hours": "0.01"},
        {"time_control": "custom", "turn_hours": "721", "response_hours": "1"},
        {"starts_at": "yesterday"},
        {"signup_closes": "2001-01-01T00:00"},
        {
            "starts_at": "2001-01-01T00:00",
            "signup_opens": "2000-01-01T00:00",
            "signup_closes": "2000-06-01T00:00",
        },
        {"round_deadline_days": "0"},
        {"name": "x" * 200},
    ],
)
def test_bad_input_is_a_form_error_never_a_500(changes: dict[str, Any]) -> None:
    response = client_for(create_user()).post(reverse("tournaments:new"), form_data(**changes))
    assert response.status_code == 400
    assert 'class="error"' in response.content.decode()
    assert not Event.objects.exists()


@pytest.mark.django_db
def test_the_public_page_shows_rules_points_entries_rounds_and_standings() -> None:
    event = make_event(name="Harvest Swiss", options={"mayhem": True})
    anon = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "Harvest Swiss" in anon and "Nobody has signed up yet." in anon
    assert "No round has been played yet." in anon and "Mayhem" in anon
    assert "Place 1: 3 points" in anon and "Place 4: 0 points" in anon
    assert "Log in to sign up" in anon
    players = sign_up(event, 4)
    start(event)
    (game,) = round_games(event, 1)
    end_game(game, players_of(game))
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert reverse("games:detail", args=[game.pk]) in page
    assert "Round 1" in page
    assert all(p.name in page for p in players)
    assert reverse("tournaments:standings_csv", args=[event.pk]) in page
    assert Client().get(reverse("tournaments:detail", args=[999_999])).status_code == 404


@pytest.mark.django_db
def test_a_finished_table_shows_its_places_and_a_running_one_its_seats() -> None:
    """The rounds' reads give each finished table its result in finishing order (a bot as ``None``); the
    page shows it, while a running table lists its players in seat order."""
    event = make_event(table_size=3, rounds=2, points_by_rank={"1": 2, "2": 1, "3": 0})
    sign_up(event, 5)  # tables of 3 and 2 humans and a bot
    start(event)
    full, with_bot = round_games(event, 1)
    full_order = players_of(full)[::-1]
    end_game(full, full_order)
    (first,) = selectors.event_rounds(event)
    table_full, table_bot = first.tables
    assert table_full.places == [(place, p.name) for place, p in enumerate(full_order, start=1)]
    assert table_bot.places == [] and table_bot.players[-1] is None and len(table_bot.players) == 3
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "1. " + full_order[0].name + ", 2. " + full_order[1].name + ", 3. " + full_order[2].name in page
    bot_order = players_of(with_bot)
    end_game(with_bot, bot_order)  # the humans first, then the bot
    (first,) = selectors.event_rounds(event)
    assert first.finished
    assert first.tables[1].places == [(1, bot_order[0].name), (2, bot_order[1].name), (3, None)]
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert f"1. {bot_order[0].name}, 2. {bot_order[1].name}, 3. bot" in page


@pytest.mark.django_db
def test_sign_up_and_withdraw_buttons() -> None:
    event = make_event()
    player = create_user()
    client = client_for(player)
    page = client.get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert reverse("tournaments:signup", args=[event.pk]) in page
    response = client.post(reverse("tournaments:signup", args=[event.pk]))
    assert response.status_code == 302
    assert Entry.objects.filter(event=event, user=player, withdrawn=False).exists()
    page = client.get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "You are signed up." in page and reverse("tournaments:withdraw", args=[event.pk]) in page
    again = client.post(reverse("tournaments:signup", args=[event.pk]), follow=True).content.decode()
    assert "You are already signed up." in again
    client.post(reverse("tournaments:withdraw", args=[event.pk]))
    assert Entry.objects.get(event=event, user=player).withdrawn
    assert client.get(reverse("tournaments:signup", args=[event.pk])).status_code == 405
    assert Client().post(reverse("tournaments:signup", args=[event.pk])).status_code == 302  # to the login


@pytest.mark.django_db
def test_sign_up_after_the_window_is_refused_with_a_message() -> None:
    event = make_event()
    Event.objects.filter(pk=event.pk).update(
        signup_opens=timezone.now() - timedelta(days=2), signup_closes=timezone.now() - timedelta(days=1)
    )
    page = client_for(create_user()).post(reverse("tournaments:signup", args=[event.pk]), follow=True)
    assert "Sign-up for this event is closed." in page.content.decode()
    assert not Entry.objects.filter(event=event).exists()


@pytest.mark.django_db
def test_the_organiser_withdraws_a_player_during_the_event_and_others_may_not() -> None:
    organiser = create_user()
    event = make_event(organiser)
    players = sign_up(event, 4)
    start(event)
    url = reverse("tournaments:player_withdraw", args=[event.pk, players[0].pk])
    page = client_for(players[1]).post(url, follow=True).content.decode()
    assert "Only the organiser can withdraw another player." in page
    assert not Entry.objects.get(event=event, user=players[0]).withdrawn
    assert url in client_for(organiser).get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    client_for(organiser).post(url)
    assert Entry.objects.get(event=event, user=players[0]).withdrawn


@pytest.mark.django_db
def test_the_standings_csv_lists_every_player_in_order() -> None:
    event = make_event(table_size=2, rounds=1, points_by_rank={"1": 1, "2": 0})
    sign_up(event, 4)
    start(event)
    for game in round_games(event, 1):
        end_game(game, players_of(game))
    response = Client().get(reverse("tournaments:standings_csv", args=[event.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["place", "player", "points", "buchholz", "vp", "games", "byes", "withdrawn"]
    expected = selectors.standings(event)
    assert [r[1] for r in rows[1:]] == [s.name for s in expected]
    assert [r[2] for r in rows[1:]] == ["1", "1", "0", "0"]


@pytest.mark.django_db
def test_a_formula_like_name_is_quoted_in_the_csv() -> None:
    event = make_event()
    player = create_user(display_name="=HYPERLINK(1)")
    Entry.objects.create(event=event, user=player)
    body = Client().get(reverse("tournaments:standings_csv", args=[event.pk])).content.decode()
    assert "'=HYPERLINK(1)" in body


@pytest.mark.django_db
def test_the_profile_shows_your_events_and_the_nav_links_to_events() -> None:
    player = create_user()
    page = client_for(player).get(reverse("accounts:profile")).content.decode()
    assert "Your events" in page and "You have not entered an event yet." in page
    assert f'href="{reverse("tournaments:list")}"' in page
    event = make_event(name="Midsummer Swiss")
    Entry.objects.create(event=event, user=player)
    page = client_for(player).get(reverse("accounts:profile")).content.decode()
    assert "Midsummer Swiss" in page and reverse("tournaments:detail", args=[event.pk]) in page
    assert (
        f'href="{reverse("tournaments:list")}"' in Client().get(reverse("tournaments:list")).content.decode()
    )


@pytest.mark.django_db
def test_pages_have_no_inline_script_or_style() -> None:
    event = make_event()
    sign_up(event, 2)
    user = create_user()
    for url in (
        reverse("tournaments:list"),
        reverse("tournaments:new"),
        reverse("tournaments:detail", args=[event.pk]),
    ):
        page = client_for(user).get(url).content.decode()
        assert "<script>" not in page and " style=" not in page and "onclick" not in page


@pytest.mark.django_db
def test_a_running_events_standings_refresh_by_themselves_and_stop_when_it_is_over() -> None:
    """While the event runs (and already during sign-up, see the entries test below), its page polls
    ``tournaments:live`` (htmx), which answers with the standings and rounds, as they are now; once the
    event is over neither the page nor the fragment polls."""
    event = make_event(rounds=2)
    sign_up(event, 4)
    live = reverse("tournaments:live", args=[event.pk])
    start(event)
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert f'hx-get="{live}" hx-trigger="every 60s" hx-swap="outerHTML"' in page
    (game,) = round_games(event, 1)
    order = players_of(game)
    fragment = Client().get(live, headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    body = fragment.content.decode()
    assert body.lstrip().startswith('<div id="live"') and "<html" not in body
    assert f'hx-get="{live}"' in body and "<td>0</td><td>0</td><td>0</td>" in body  # no points yet
    end_game(game, order)
    body = Client().get(live, headers={"HX-Request": "true"}).content.decode()
    assert f"<tr><td>1</td><td>{order[0].name}</td><td>3</td>" in body
    assert f"<tr><td>4</td><td>{order[3].name}</td><td>0</td>" in body
    assert f"1. {order[0].name}, 2. {order[1].name}" in body and "Round 1 — finished" in body
    assert services.round_next(event_id=event.pk) is not None  # round 2 shows up in the fragment
    assert "Round 2" in Client().get(live, headers={"HX-Request": "true"}).content.decode()
    (final,) = round_games(event, 2)
    end_game(final, players_of(final))
    assert services.round_next(event_id=event.pk) is None
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "hx-get" not in page and 'id="live"' in page
    body = Client().get(live, headers={"HX-Request": "true"}).content.decode()
    assert "hx-get" not in body and "Round 2" in body
    opened = Client().get(live)  # not htmx: the event's page
    assert opened.status_code == 302 and opened["Location"] == reverse("tournaments:detail", args=[event.pk])
    assert (
        Client().get(reverse("tournaments:live", args=[999_999]), headers={"HX-Request": "true"}).status_code
        == 404
    )
