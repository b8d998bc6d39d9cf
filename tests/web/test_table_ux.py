"""Issue 16 (table UX), the parts done so far: the log says what happened with numbers, never "retreats 0
knights", and names a timed-out move."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import User
from games import engine, services, tasks
from games.components import place_labels
from games.log import describe
from games.models import Game, Notification
from games.rulebook import battle_frames, opening_state
from games.selectors import GameView, game_view
from games.services import outbox
from games.web.presenters import status_model
from games.web.presenters.confirm import confirmation, may_ask

from .conftest import create_started_game, create_user, seat_users, state_of

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
NAMES = {0: "Alice", 1: "Bob"}
PLACES = {"t8": "Fort", "t4": "Ruins"}


def test_a_redistribution_is_logged_with_its_numbers_and_places() -> None:
    """R43: "Alice redistributes: 2 knights from their castle to Fort; 1 knight from Fort to Ruins.", in the
    reader's language, with the map's names for the places."""
    ev: engine.Event = {
        "type": engine.EventType.REDISTRIBUTED,
        "turn": 1,
        "seat": 0,
        "moves": [{"from": "castle", "to": "t8", "knights": 2}, {"from": "t8", "to": "t4", "knights": 1}],
    }
    with translation.override("en"):
        assert describe(ev, NAMES, PLACES) == (
            "Alice redistributes: 2 knights from their castle to Fort; 1 knight from Fort to Ruins."
        )
    with translation.override("sv"):
        swedish = describe(ev, NAMES, PLACES)
    assert "Ruiner" in swedish and "2" in swedish and "redistributes" not in swedish


def test_a_retreat_of_no_knights_is_not_logged() -> None:
    """R76: a loser with no knights left retreats nothing, and the log says nothing about it."""
    with translation.override("en"):
        assert describe({"type": engine.EventType.RETREAT, "turn": 1, "seat": 1, "knights": 0}, NAMES) == ""
        assert (
            describe({"type": engine.EventType.RETREAT, "turn": 1, "seat": 1, "knights": 2}, NAMES)
            == "Bob retreats 2 knights to their castle."
        )


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.mark.django_db
def test_a_timed_out_turn_is_named_in_the_log(clock: time_machine.Traveller) -> None:
    """When a deadline passes and the server makes the timeout move, every player's log says so."""
    game = create_started_game(humans=2, seed=5, time_control="live")
    active = state_of(game).active
    clock.shift(timedelta(hours=1, minutes=1))
    assert services.deadlines_sweep() == 1
    game.refresh_from_db()
    users = seat_users(game)
    name = users[active].display_name or str(users[active])
    for user in users.values():
        with translation.override("en"):
            entry = game_view(game, user).log[0]
        assert entry["lines"][0] == f"Time ran out for {name}: the timeout move was made for them."


@pytest.mark.django_db
def test_every_page_says_while_a_vacation_applies() -> None:
    """While the away period runs, every page says until when; before and after it, none does."""
    user = create_user("away@example.com", display_name="Away")
    client = Client()
    client.force_login(user)
    now = timezone.now()
    user.away_from, user.away_until = now + timedelta(days=1), now + timedelta(days=3)
    user.save()
    assert "on vacation until" not in client.get(reverse("home")).content.decode()
    user.away_from = now - timedelta(hours=1)
    user.save()
    for url in (reverse("home"), reverse("games:my_games"), reverse("games:rules")):
        page = client.get(url).content.decode()
        assert "on vacation until" in page and 'class="away-banner"' in page, url


@pytest.mark.django_db
def test_bots_can_be_added_one_seat_at_a_time_and_keep_their_names() -> None:
    """The creator adds one bot, keeping the other seats open for friends; bots keep the name the lobby
    showed ("Bot 1", "Bot 2", with their level since issue 17) in the game, whatever seats the start draws
    for them."""
    creator = create_user("creator@example.com", display_name="Creator")
    game = services.game_create(user=creator, title="Table", players=4)
    client = Client()
    client.force_login(creator)
    assert client.post(reverse("games:add_bot", args=[game.pk])).status_code == 302
    assert [(s.is_bot, s.name) for s in game.seats.order_by("number")] == [
        (False, "Creator"),
        (True, "Bot 1 (normal)"),
    ]
    lobby = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "Bot 1 (normal)" in lobby and "Add one bot" in lobby
    friend = create_user("friend@example.com", display_name="Friend")
    services.seat_join(game_id=game.pk, user=friend)
    services.seat_add_bot(game_id=game.pk, user=creator)
    with pytest.raises(services.Conflict):
        services.seat_add_bot(game_id=game.pk, user=creator)
    with pytest.raises(services.Forbidden):
        services.seat_add_bot(game_id=game.pk, user=friend)
    services.game_start(game_id=game.pk, user=creator, seed=3)
    names = sorted(s.name for s in Game.objects.get(pk=game.pk).seats.all())
    assert names == ["Bot 1 (normal)", "Bot 2 (normal)", "Creator", "Friend"]


@pytest.mark.parametrize("players", [3, 6])
def test_every_place_has_a_name_of_its_own_and_never_an_id(players: int) -> None:
    """Issue 16: forms and the map name places as the map does; a name that appears more than once says
    where the tile lies ("Forest (north-west)", on the map "Forest NW"), so every label is unique, and no
    label shows an internal id such as t12."""
    state = engine.new_game({"players": players, "seed": 4, "options": engine.current_options()})
    view = engine.view_for(state, 0)
    with translation.override("en"):
        labels = place_labels(view)
    territories = [t for t in view["map"] if t["kind"] == "territory"]
    assert set(labels) == {t["id"] for t in territories}
    longs = [label for label, _short in labels.values()]
    shorts = [short for _label, short in labels.values()]
    assert len(set(longs)) == len(longs) and len(set(shorts)) == len(shorts)
    counts = {str(t["name"]): sum(1 for u in territories if u["name"] == t["name"]) for t in territories}
    assert any(n > 1 for n in counts.values()), "the seed should give a map with a repeated name"
    for tile in territories:
        label, short = labels[tile["id"]]
        assert not re.search(r"\bt[0-9]+\b", label + short)
        if counts[str(tile["name"])] == 1:
            assert label == short == tile["name"]
        else:
            compass = "(north|south)(-(east|west))?|east|west"
            assert re.fullmatch(rf"{tile['name']} \(({compass})( [0-9])?\)", label), label


@pytest.mark.django_db
def test_move_forms_start_empty_and_an_empty_or_same_place_move_is_refused_with_a_reason() -> None:
    """The advance and redistribution forms start on "— choose —"; a form sent without a choice, or moving
    knights to where they are, gets a 400 with a reason and changes nothing; labels carry no ids."""
    game = create_started_game(humans=2, seed=5)
    users = seat_users(game)
    active = state_of(game).active
    client = Client()
    client.force_login(users[active])
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    advance = re.search(r'<select name="to" id="advance-to" required>(.*?)</select>', page, re.S)
    assert advance is not None and re.match(r'<option value="" selected>', advance.group(1))
    assert not re.search(r">[^<]*\bt[0-9]+\b[^<]*</option>", advance.group(1))
    seq = game.seq
    for data, reason in (
        ({"type": "advance", "to": "", "knights": "1"}, "Choose the territory to advance into."),
        (
            {"type": "redistribute", "from": "castle", "to": "castle", "knights": "1"},
            "Choose two different places: the knights must go somewhere else.",
        ),
    ):
        response = client.post(
            reverse("games:act", args=[game.pk]), {**data, "expected_seq": seq, "prompt_key": ""}
        )
        assert response.status_code == 400, data
        assert reason in response.content.decode()
    assert Game.objects.get(pk=game.pk).seq == seq


@pytest.mark.django_db
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "no-js"])
def test_ending_a_turn_with_a_manoeuvre_unused_asks_first(htmx: bool) -> None:
    """Issue 16: "End my turn" with the manoeuvre unused shows a question and changes nothing; its "Yes"
    form posts the same fields with ``confirmed`` and ends the turn; "No" goes back. Without JavaScript
    the whole page carries the question."""
    game = create_started_game(humans=2, seed=5)
    users = seat_users(game)
    client = Client()
    client.force_login(users[state_of(game).active])
    headers = {"HX-Request": "true"} if htmx else {}
    url = reverse("games:act", args=[game.pk])
    asked = client.post(
        url, {"type": "end_turn", "expected_seq": game.seq, "prompt_key": ""}, headers=headers
    )
    body = asked.content.decode()
    assert asked.status_code == 200
    assert "End your turn with 1 manoeuvre unused?" in body and 'name="confirmed" value="1"' in body
    assert ("<html" in body) is not htmx
    assert 'id="confirm-no"' in body
    assert Game.objects.get(pk=game.pk).seq == game.seq
    fields = dict(re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">', body))
    assert fields["type"] == "end_turn" and fields["expected_seq"] == str(game.seq)
    done = client.post(url, fields, headers=headers)
    assert done.status_code == (200 if htmx else 302)
    assert Game.objects.get(pk=game.pk).seq == game.seq + 1


def test_tactical_advance_and_fracture_ask_first_and_a_used_manoeuvre_does_not() -> None:
    """Playing Tactical Advance or Fracture (in a free window or a response window) asks first; ending the
    turn after the manoeuvre was used does not."""
    state = engine.new_game({"players": 2, "seed": 4, "options": engine.current_options()})
    view = engine.view_for(state, state.active)
    with translation.override("en"):
        assert confirmation(view, engine.TacticalAdvance()) is not None
        art = view["players"][1 - state.active]["artefacts"][0]
        asked = confirmation(view, engine.Fracture(target=art["id"]))
        assert asked is not None and art["name"] in asked["question"]
        assert confirmation(view, engine.Respond(fracture=(art["id"],))) is not None
        assert confirmation(view, engine.Respond()) is None
        assert confirmation(view, engine.CallToArms()) is None
        used = dict(view, manoeuvres_left=0)
        assert confirmation(used, engine.EndTurn()) is None  # type: ignore[arg-type]
    # the cheap pre-check lets every other submit skip the second read, and never hides a question
    asking: list[engine.Action] = [
        engine.TacticalAdvance(),
        engine.EndTurn(),
        engine.Respond(fracture=("x",)),
    ]
    # an advance may start a battle with fewer knights than the defender (issue 29): it is read
    asking.append(engine.Advance(to="t1", knights=1))
    quiet: list[engine.Action] = [engine.CallToArms(), engine.Redistribute(moves=()), engine.Respond()]
    assert all(may_ask(p) for p in asking) and not any(may_ask(p) for p in quiet)


def test_the_turn_overview_marks_exactly_the_current_step() -> None:
    """R26: one step is current: 2 in the free window with a manoeuvre left, 6 in a battle, 7 after it."""

    def current(state: engine.GameState) -> list[int]:
        gv = GameView(game=None, seats=[], seat=0, view=engine.view_for(state, 0))  # type: ignore[arg-type]
        return [s["n"] for s in status_model(gv, NAMES)["steps"] if s["current"]]

    assert current(opening_state()) == [2]
    assert current(battle_frames()[0][1]) == [6]
    assert current(battle_frames()[-1][1]) == [7]


@pytest.mark.django_db
def test_a_full_table_starts_by_itself_when_it_asks_to() -> None:
    """Issue 16: "Start by itself when every seat is taken" is on by default in the new-game form; such a
    table starts when the last seat is taken (a player or bots); a table without it waits for its
    creator."""
    creator = create_user("creator@example.com", display_name="Creator")
    client = Client()
    client.force_login(creator)
    form = client.get(reverse("games:new")).content.decode()
    assert re.search(r'<input type="checkbox" name="auto_start"[^>]* checked', form)
    created = client.post(
        reverse("games:new"),
        {
            "title": "Auto",
            "players": "3",
            "time_control": "daily",
            "fracture_prompts": "all",
            "auto_start": "on",
        },
    )
    assert created.status_code == 302
    game = Game.objects.get(title="Auto")
    assert game.auto_start
    assert (
        "The game starts by itself when every seat is taken."
        in client.get(created["Location"]).content.decode()
    )
    services.seat_join(game_id=game.pk, user=create_user("two@example.com"))
    assert Game.objects.get(pk=game.pk).status == Game.Status.LOBBY
    services.seat_add_bot(game_id=game.pk, user=creator)
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE  # the last seat started it
    waiting = services.game_create(user=creator, title="Manual", players=2)
    services.seats_fill_with_bots(game_id=waiting.pk, user=creator)
    assert Game.objects.get(pk=waiting.pk).status == Game.Status.LOBBY
    bots = services.game_create(user=creator, title="Bots", players=3, auto_start=True)
    services.seats_fill_with_bots(game_id=bots.pk, user=creator)
    assert Game.objects.get(pk=bots.pk).status == Game.Status.ACTIVE


@pytest.mark.django_db
def test_the_invite_link_has_a_copy_button() -> None:
    """Issue 16: a private table's lobby shows its invite link with a "Copy the link" button."""
    creator = create_user("creator@example.com", display_name="Creator")
    game = services.game_create(user=creator, title="Secret", players=2, private=True)
    client = Client()
    client.force_login(creator)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert 'id="copy-invite" data-copy="#invite-link"' in page and "Copy the link" in page


@pytest.mark.django_db
def test_the_creator_is_emailed_when_someone_joins_and_when_the_table_is_full(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Issue 16: each player who takes a seat sends the creator one email, and the last one a second,
    "the table is full" (saying whether it started by itself); bots and the creator's own seat send none."""
    creator = create_user("creator@example.com", display_name="Creator")
    game = services.game_create(user=creator, title="Friends", players=3, auto_start=True)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_join(game_id=game.pk, user=create_user("bea@example.com", display_name="Bea"))
    [joined] = mail.outbox
    assert joined.to == ["creator@example.com"]
    assert "Bea joined “Friends”" in joined.subject and "2 of 3 seats are taken." in str(joined.body)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_join(game_id=game.pk, user=create_user("cy@example.com", display_name="Cy"))
    subjects = sorted(m.subject for m in mail.outbox if m.to == ["creator@example.com"])
    assert any("Cy joined" in s for s in subjects) and any("“Friends” is full" in s for s in subjects)
    full = next(m for m in mail.outbox if "is full" in m.subject)
    assert "The game has started by itself." in str(full.body)
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    mail.outbox.clear()
    table = services.game_create(user=creator, title="Bots only", players=3)
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_add_bot(game_id=table.pk, user=creator)
        services.seats_fill_with_bots(game_id=table.pk, user=creator)
    assert not [m for m in mail.outbox if "Bots only" in m.subject]


@pytest.mark.django_db
def test_sign_up_keeps_the_browsers_time_zone_and_the_profile_list_is_searchable() -> None:
    """Issue 16: the sign-up form carries the browser's time zone (a hidden field the page fills); a known
    zone is stored, anything else keeps UTC; the profile offers the zones as suggestions to a text field
    (searchable by any part) and still refuses an unknown one."""
    client = Client()
    for email, zone, stored in (
        ("seoul@example.com", "Asia/Seoul", "Asia/Seoul"),
        ("nowhere@example.com", "Mars/Olympus", "UTC"),
    ):
        response = client.post(
            reverse("account_signup"),
            {
                "email": email,
                "password1": "a-long-Castle-password-42",
                "password2": "a-long-Castle-password-42",
                "time_zone": zone,
            },
        )
        assert response.status_code == 302
        assert User.objects.get(email=email).time_zone == stored
    assert "data-detect-time-zone" in Client().get(reverse("account_signup")).content.decode()
    user = User.objects.get(email="seoul@example.com")
    client = Client()
    client.force_login(user)
    page = client.get(reverse("accounts:profile")).content.decode()
    assert 'list="time-zones"' in page and '<option value="Europe/Stockholm">' in page
    refused = client.post(
        reverse("accounts:profile"), {"display_name": "S", "language": "en", "time_zone": "Mars/Olympus"}
    )
    assert refused.status_code == 400 or "Mars/Olympus" not in User.objects.get(pk=user.pk).time_zone
    assert User.objects.get(pk=user.pk).time_zone == "Asia/Seoul"


@pytest.mark.django_db
def test_inviting_by_email_or_display_name_never_tells_who_has_an_account(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Issue 16: the creator invites by email address or display name; an address gets the same email and
    the same answer whether or not it has an account; an unknown display name is refused with a reason;
    only the creator may invite, and only while seats are free."""
    creator = create_user("creator@example.com", display_name="Creator")
    create_user("member@example.com", display_name="Member")
    game = services.game_create(user=creator, title="Invites", players=3, private=True)
    client = Client()
    client.force_login(creator)
    url = reverse("games:invite_player", args=[game.pk])
    answers = []
    for who in ("member@example.com", "stranger@example.com"):
        mail.outbox.clear()
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(url, {"who": who}, follow=True)
        [message] = mail.outbox
        assert message.to == [who] and "Creator invites you" in message.subject
        assert f"/games/{game.pk}/join/{game.invite_token}/" in str(message.body)
        answers.append(response.content.decode().replace(who, "ADDRESS"))
    assert (
        answers[0].count("Invitation sent to ADDRESS.")
        == answers[1].count("Invitation sent to ADDRESS.")
        == 1
    )
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, {"who": "member"})
    assert [m.to for m in mail.outbox] == [["member@example.com"]]
    refused = client.post(url, {"who": "Nobody Here"}, follow=True).content.decode()
    assert "No player has that display name." in refused
    public = services.game_create(user=creator, title="Public", players=2)
    other = Client()
    other.force_login(create_user("other@example.com"))
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        page = other.post(
            reverse("games:invite_player", args=[public.pk]), {"who": "x@example.com"}, follow=True
        )
    assert "Only the creator" in page.content.decode() and mail.outbox == []


@pytest.mark.django_db
def test_an_invitation_goes_through_the_outbox_and_survives_a_lost_task(
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31 §4: the invitation is an outbox row (kind ``account``, the inviter's, addressed as rendered
    to the invitee), so a lost task does not lose it: the minute's sweep sends it, once."""
    creator = create_user("host@example.com", display_name="Host")
    game = services.game_create(user=creator, title="Outbox", players=3)
    client = Client()
    client.force_login(creator)
    monkeypatch.setattr(outbox, "enqueue_account_send", lambda _message: None)  # the task is lost
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("games:invite_player", args=[game.pk]), {"who": "friend@example.com"})
    assert mail.outbox == []
    row = Notification.objects.get(kind=Notification.Kind.ACCOUNT, recipient=creator)
    assert row.status == Notification.Status.PENDING and row.data["to"] == ["friend@example.com"]
    tasks.outbox_sweep()
    tasks.outbox_sweep()
    [message] = mail.outbox
    assert message.to == ["friend@example.com"] and "Host invites you" in message.subject
    assert Notification.objects.get(pk=row.pk).status == Notification.Status.SENT
