"""issue 5 "Replays", "Export / import" and the finished-games archive.

Replays rebuild any step of a finished game from snapshots and records (checked against the engine's own
``replay`` of the record), show it as a spectator saw it — no card of any hand, checked by card identity
as in ``test_hidden_information.py`` (R95, R68) — except that a player of the game sees their own hand of
that step. A finished game exports as a game record (docs/game-record.md) that replays and imports to
the same final state; a bad record is refused with a message and stores nothing.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from accounts.models import User
from games import engine
from games.models import ActionRecord, Game, Rating, RatingChange, Seat, Snapshot
from games.selectors import replay_view, state_at
from games.web.history import IMPORT_MAX_BYTES

from .conftest import create_started_game, create_user, seat_users
from .test_hidden_information import CARD_ID, _secrets
from .test_ratings import finish_game, record_of

#: A 3-player Skirmish game (R117) that ends after 51 actions with battles in it (see ``finish_game``).
PLAYERS, SEED, OPTIONS = 3, 15, {"skirmish": True}


@pytest.fixture
def finished(settings: Any, db: None) -> Game:
    """A finished 3-player game of humans, with a snapshot every 5 actions."""
    settings.SNAPSHOT_EVERY = 5
    game = finish_game(create_started_game(humans=PLAYERS, seed=SEED, options=OPTIONS), SEED)
    assert game.status == Game.Status.FINISHED and game.seq > 20
    return game


def entries(game: Game) -> list[dict[str, Any]]:
    """The game's records as record entries (``{"seat", "action"}``), in order."""
    rows = ActionRecord.objects.filter(game=game).order_by("seq").values_list("seat", "payload")
    return [{"seat": seat, "action": payload} for seat, payload in rows]


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def stored_rows() -> tuple[int, ...]:
    return (
        Game.objects.count(),
        Seat.objects.count(),
        ActionRecord.objects.count(),
        Snapshot.objects.count(),
        RatingChange.objects.count(),
    )


# --------------------------------------------------------------------------------------------------------
# Replays: the state at every step
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_state_at_equals_the_engine_replay_of_the_first_n_records(finished: Game) -> None:
    """Step 0 is the setup (R18–R25); step N is the engine's replay of the first N records, also right
    before, at and after each snapshot (every 5 actions here) and at the end."""
    game = finished
    assert game.setup is not None
    assert list(Snapshot.objects.filter(game=game).order_by("seq").values_list("seq", flat=True)) == list(
        range(5, game.seq + 1, 5)
    )
    log = entries(game)
    hashes = dict(ActionRecord.objects.filter(game=game).values_list("seq", "state_hash"))
    assert engine.to_dict(state_at(game, 0)) == engine.to_dict(engine.new_game(game.setup))
    for step in sorted({1, 4, 5, 6, 9, 10, 11, 15, game.seq // 2, game.seq - 1, game.seq}):
        expected = engine.replay(game.setup, log[:step])
        got = state_at(game, step)
        assert engine.to_dict(got) == engine.to_dict(expected), step
        assert engine.state_hash(got) == hashes[step], step
    assert engine.state_hash(state_at(game, game.seq)) == game.state_hash
    for bad in (-1, game.seq + 1):
        with pytest.raises(ValueError):
            state_at(game, bad)
    # A step served from the cache is still the right one after the snapshots are gone.
    Snapshot.objects.filter(game=game).delete()
    assert engine.state_hash(state_at(game, 12)) == hashes[12]


@pytest.mark.django_db
def test_replay_page_shows_each_step_as_a_spectator_saw_it(finished: Game) -> None:
    """The replay page at step N shows the spectator's view of the state after N actions — board, scores
    (VP, R14) and turn; step 0 is the setup; the result panel appears at the last step only."""
    game = finished
    assert game.setup is not None
    client = logged_in(create_user())
    log = entries(game)
    for step in (0, 1, 5, 13, game.seq):
        response = client.get(f"/games/{game.pk}/replay/?step={step}")
        assert response.status_code == 200
        state = engine.replay(game.setup, log[:step])
        view = response.context["view"]
        assert view == engine.view_for(state, None), step
        assert [p["vp"] for p in view["players"]] == engine.victory_points(state)
        html = response.content.decode()
        assert f"Step {step} of {game.seq}" in html
        assert ("Game over" in html) == (step == game.seq), step
        assert [entry["seq"] for entry in response.context["gv"].log] == list(range(step, 0, -1))[:40]


@pytest.mark.django_db
def test_replay_navigation_links_keyboard_controls_and_clamped_steps(finished: Game) -> None:
    """First / previous / next / last link to the right steps (clamped at both ends); the arrow keys and
    Home/End are wired to those links by the site script; any ``step`` out of range or unreadable is
    clamped (below 0: the setup; past the end or garbage: the end) — never a 500."""
    game = finished
    client = Client(raise_request_exception=False)
    client.force_login(create_user())

    def links(step: int) -> dict[str, str]:
        html = client.get(f"/games/{game.pk}/replay/?step={step}").content.decode()
        return dict(re.findall(r'data-step="(\w+)" href="\?step=(\d+)"', html))

    last = str(game.seq)
    assert links(7) == {"first": "0", "prev": "6", "next": "8", "last": last}
    assert links(0) == {"first": "0", "prev": "0", "next": "1", "last": last}
    assert links(game.seq) == {"first": "0", "prev": str(game.seq - 1), "next": last, "last": last}
    script = (Path(__file__).resolve().parents[2] / "static" / "js" / "game.js").read_text("utf-8")
    assert 'ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"' in script
    assert 'getElementById("replay-nav")' in script
    end = game.seq
    clamped = [("-3", 0), ("99999", end), ("abc", end), ("", end), ("1.5", end), ("9" * 5000, end)]
    for raw, step in [*clamped, ("-" + "9" * 30, 0)]:
        response = client.get(f"/games/{game.pk}/replay/", {"step": raw})
        assert response.status_code == 200, raw[:10]
        assert response.context["step"] == step, raw[:10]
        assert f"Step {step} of {game.seq}" in response.content.decode()


@pytest.mark.django_db
def test_only_finished_games_visible_to_the_viewer_have_a_replay_and_a_record(client: Client) -> None:
    """An active game has no replay and no record (404: its past hands are still secret); a private
    finished game is 404 for a stranger; anonymous visitors are sent to log in."""
    active = create_started_game(humans=2, seed=3)
    stranger = create_user()
    client.force_login(seat_users(active)[0])
    assert client.get(f"/games/{active.pk}/replay/?step=0").status_code == 404
    assert client.get(f"/games/{active.pk}/record.json").status_code == 404
    lobby = Game.objects.create(title="Lobby", created_by=stranger, players=2)
    assert client.get(f"/games/{lobby.pk}/replay/").status_code == 404
    private = finish_game(create_started_game(humans=2, seed=21, options={"skirmish": True}), 21)
    Game.objects.filter(pk=private.pk).update(private=True)
    client.force_login(stranger)
    assert client.get(f"/games/{private.pk}/replay/").status_code == 404
    assert client.get(f"/games/{private.pk}/record.json").status_code == 404
    client.force_login(seat_users(private)[1])
    assert client.get(f"/games/{private.pk}/replay/").status_code == 200
    assert client.get(f"/games/{private.pk}/record.json").status_code == 200
    client.logout()
    assert client.get(f"/games/{private.pk}/replay/").status_code == 302


# --------------------------------------------------------------------------------------------------------
# Replays: hidden information
# --------------------------------------------------------------------------------------------------------


def _hand_names(html: str) -> list[str] | None:
    """Card names listed in the page's hand panel (``None`` when the panel says hands are secret)."""
    match = re.search(r'<section id="hand".*?</section>', html, re.S)
    assert match, "no hand panel"
    section = match.group(0)
    if "Hands are secret" in section:
        assert 'class="card-name"' not in section
        return None
    return sorted(re.findall(r'<span class="card-name">([^<]*)</span>', section))


@pytest.mark.django_db
def test_replay_shows_no_hand_to_a_spectator_and_a_player_only_their_own(finished: Game) -> None:
    """R95, R68: at every step of the replay a spectator's page (its view data, log and HTML) holds no card
    id of any hand, deck or face-down conflict card; a player of the game sees their own hand of that
    step (ids in the view, names in the hand panel) and nobody else's."""
    game = finished
    users = seat_users(game)
    clients: dict[int | None, Client] = {seat: logged_in(user) for seat, user in users.items()}
    clients[None] = logged_in(create_user())
    records = list(ActionRecord.objects.filter(game=game).order_by("seq"))
    assert game.setup is not None
    state = engine.new_game(game.setup)
    public: set[str] = set()  # card ids some public event has shown by this step (the log may name them)
    for step in range(game.seq + 1):
        if step:
            record = records[step - 1]
            seat = record.seat if record.seat is not None else state.active
            state = engine.apply(state, seat, engine.parse_action(record.payload)).state
            for ev in record.events:
                public |= set(CARD_ID.findall(json.dumps(engine.redact_event(ev, None))))
        later = {viewer: _secrets(state, viewer) - public for viewer in clients}
        # Every step: the spectator's page, and one player's page in turn; the other players' view data.
        for viewer, client in clients.items():
            hidden = _secrets(state, viewer)
            if viewer is None or step % PLAYERS == viewer:
                response = client.get(f"/games/{game.pk}/replay/?step={step}")
                view, log = response.context["view"], response.context["gv"].log
                html = response.content.decode()
                assert not set(CARD_ID.findall(html)) & later[viewer], (viewer, step)
                names = _hand_names(html)
                if viewer is None:
                    assert names is None, step
                else:
                    hand = state.players[viewer].hand
                    assert names == sorted(state.content.cards[c].name for c in hand), (viewer, step)
            else:
                gv = replay_view(game, users[viewer], step)
                view, log = gv.view, gv.log
            view_ids = set(CARD_ID.findall(json.dumps(view)))
            assert not view_ids & hidden, (viewer, step, sorted(view_ids & hidden))
            log_ids = set(CARD_ID.findall(json.dumps(log, default=str)))
            assert not log_ids & later[viewer], (viewer, step)
            if viewer is not None:
                assert {engine.card_id(viewer, c) for c in state.players[viewer].hand} <= view_ids


# --------------------------------------------------------------------------------------------------------
# Export and import
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_exported_record_replays_and_imports_to_the_same_game(finished: Game) -> None:
    """The downloaded record replays with ``engine.replay`` to the game's final state hash; importing it
    (file upload or pasted JSON) creates an unrated imported game whose replay shows, step by step, what
    the original's replay shows a spectator."""
    game = finished
    player = seat_users(game)[0]
    client = logged_in(player)
    response = client.get(f"/games/{game.pk}/record.json")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    record = json.loads(response.content)
    assert record["format"] == engine.RECORD_FORMAT
    final = engine.replay(record["setup"], record["actions"])
    assert engine.state_hash(final) == game.state_hash
    # each action carries its move notation (issue 14), which reads back to the same action in its position
    state = engine.new_game(record["setup"])
    for entry in record["actions"]:
        action = engine.parse_action(entry["action"])
        seat = state.active if entry["seat"] is None else entry["seat"]
        assert engine.parse_text(state, seat, entry["text"]) == action, entry
        state = engine.apply(state, seat, action).state
    assert final.winners == game.winners == record["winners"]
    names = [s.name for s in Seat.objects.filter(game=game).select_related("user").order_by("number")]
    assert record["players"] == names
    ratings_before = list(Rating.objects.order_by("pk").values())

    upload = SimpleUploadedFile("game.json", response.content, content_type="application/json")
    imported_response = client.post("/games/import/", {"file": upload})
    imported = Game.objects.get(imported=True)
    assert imported_response.status_code == 302
    assert imported_response["Location"] == f"/games/{imported.pk}/replay/?step=0"
    assert imported.status == Game.Status.FINISHED
    assert (imported.state_hash, imported.seq, imported.winners) == (game.state_hash, game.seq, game.winners)
    assert imported.created_by == player and imported.title == game.title
    assert [s.guest_name for s in imported.seats.order_by("number")] == names
    assert not RatingChange.objects.filter(game=imported).exists()
    assert list(Rating.objects.order_by("pk").values()) == ratings_before
    spectator = AnonymousUser()
    for step in (0, 7, game.seq):
        page = client.get(f"/games/{imported.pk}/replay/?step={step}")
        assert page.status_code == 200
        assert page.context["view"] == replay_view(game, spectator, step).view, step
    assert client.get(f"/games/{imported.pk}/record.json").json()["actions"] == record["actions"]

    pasted = client.post("/games/import/", {"text": response.content.decode()})
    assert pasted.status_code == 302
    assert Game.objects.filter(imported=True, state_hash=game.state_hash).count() == 2


def _bad_records() -> dict[str, tuple[str, str]]:
    """Bad import bodies: name -> (pasted text, expected message)."""
    good = record_of()
    illegal = json.loads(json.dumps(good))
    illegal["actions"][3]["seat"] = 1 - illegal["actions"][3]["seat"]
    malformed = json.loads(json.dumps(good))
    malformed["actions"][2]["action"] = {"type": "fly"}
    unfinished = json.loads(json.dumps(good))
    unfinished["actions"].pop()
    bad_setup = json.loads(json.dumps(good))
    bad_setup["setup"]["players"] = 9
    seatless = json.loads(json.dumps(good))
    seatless["actions"][0]["seat"] = True
    no_edition = json.loads(json.dumps(good))  # issue 31: a format-2 setup names its rules edition
    del no_edition["setup"]["options"]["rules_edition"]
    return {
        "not-json": ("{not json", "This is not JSON."),
        "empty": ("   ", "Choose a record file or paste its JSON."),
        "not-a-record": ("[1, 2, 3]", "not a game record"),
        "no-setup": (json.dumps({"actions": []}), "not a game record"),
        "no-actions": (json.dumps({"setup": good["setup"]}), "a list of at most"),
        "other-format": (json.dumps({**good, "format": "chess/1"}), "its format must be medieval-mastery/2"),
        "bad-setup": (json.dumps(bad_setup), "the setup is not valid"),
        "no-edition": (json.dumps(no_edition), "the setup is not valid"),
        "illegal-action": (json.dumps(illegal), "action 3 does not apply"),
        "malformed-action": (json.dumps(malformed), "action 2 does not apply"),
        "seat-not-int": (json.dumps(seatless), "action 0 does not apply"),
        "unfinished": (json.dumps(unfinished), "only finished games can be imported"),
        "too-many-actions": (json.dumps({"setup": good["setup"], "actions": [{}] * 20_001}), "at most 20000"),
    }


@pytest.mark.django_db
@pytest.mark.parametrize("case", list(_bad_records()))
def test_a_bad_record_is_refused_with_a_message_and_stores_nothing(case: str) -> None:
    """docs/game-record.md: a record that is not JSON, not a record, has an invalid setup, an action that
    does not apply or no winner is refused (400) with the reason, and no game is stored."""
    text, message = _bad_records()[case]
    client = logged_in(create_user())
    before = stored_rows()
    response = client.post("/games/import/", {"text": text})
    assert response.status_code == 400
    error = re.search(
        r'<p class="error" role="alert" id="import-error">(.*?)</p>', response.content.decode(), re.S
    )
    assert error and message.lower() in error.group(1).replace("&#x27;", "'").lower()
    assert stored_rows() == before


@pytest.mark.django_db
def test_a_too_large_record_is_refused() -> None:
    """A record file over the size limit is refused (400) before it is read as JSON; nothing is stored."""
    record = record_of()
    record["padding"] = "x" * IMPORT_MAX_BYTES
    body = json.dumps(record).encode()
    assert len(body) > IMPORT_MAX_BYTES
    client = logged_in(create_user())
    before = stored_rows()
    response = client.post("/games/import/", {"file": SimpleUploadedFile("big.json", body)})
    assert response.status_code == 400
    assert "This record is too large." in response.content.decode()
    assert stored_rows() == before
    record.pop("padding")
    ok = client.post("/games/import/", {"file": SimpleUploadedFile("ok.json", json.dumps(record).encode())})
    assert ok.status_code == 302  # the same record without the padding imports


@pytest.mark.django_db
def test_a_deeply_nested_document_is_refused_not_a_server_error() -> None:
    """A small but deeply nested JSON document is a bad record (400), not a crash."""
    client = Client(raise_request_exception=False)
    client.force_login(create_user())
    before = stored_rows()
    response = client.post("/games/import/", {"text": "[" * 100_000})
    assert response.status_code == 400
    assert stored_rows() == before


@pytest.mark.django_db
def test_a_record_with_nul_characters_does_not_crash_the_import() -> None:
    """A NUL character in the record's title or player names is refused or dropped, never a 500."""
    record = record_of()
    record["title"] = "Nul\x00title"
    record["players"] = ["A\x00", "B"]
    client = Client(raise_request_exception=False)
    client.force_login(create_user())
    response = client.post("/games/import/", {"text": json.dumps(record)})
    assert response.status_code in (302, 400)


@pytest.mark.django_db
def test_import_needs_a_login_and_shows_the_form(client: Client) -> None:
    assert client.get("/games/import/").status_code == 302
    client.force_login(create_user())
    page = client.get("/games/import/")
    assert page.status_code == 200 and 'name="file"' in page.content.decode()


# --------------------------------------------------------------------------------------------------------
# Archive
# --------------------------------------------------------------------------------------------------------

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def archived(
    title: str,
    users: list[User],
    *,
    options: dict[str, Any] | None = None,
    private: bool = False,
    rated: bool = False,
    minutes: int = 0,
    status: str = Game.Status.FINISHED,
) -> Game:
    """A finished game row (seats in order, seat 0 won), finished ``minutes`` after T0."""
    game = Game.objects.create(
        title=title,
        created_by=users[0],
        players=len(users),
        options=options or {},
        private=private,
        status=status,
        winners=[0],
        finished_at=T0 + timedelta(minutes=minutes),
    )
    for n, user in enumerate(users):
        Seat.objects.create(game=game, number=n, user=user)
    if rated:
        for user in users:
            RatingChange.objects.create(
                game=game, user=user, pool="all", rank=1, mu_before=25, sigma_before=8, mu_after=26,
                sigma_after=7, created_at=T0,
            )  # fmt: skip
    return game


def listed(client: Client, query: str = "") -> list[str]:
    """Titles in the archive table, in order."""
    response = client.get(f"/games/archive/{query}")
    assert response.status_code == 200
    return re.findall(r'<td><a href="/games/\d+/replay/">([^<]*)</a></td>', response.content.decode())


@pytest.mark.django_db
def test_archive_filters(client: Client) -> None:
    """Filters: player count, a player's name (part of the display name, never the email: issue 12),
    an optional rule (Allegiance R105, Mayhem R118, …), rated only; only finished games are listed."""
    ann = create_user("ann@example.com", display_name="Annabel")
    bob = create_user("bob@example.com", display_name="Bob")
    cy = create_user("cyd@example.com", display_name="Cy")
    dee = create_user("dee@example.com", display_name="Dee")
    archived("Duel", [ann, bob], minutes=1, rated=True)
    archived("Trio", [bob, cy, dee], minutes=2, options={"mayhem": True})
    archived("Teams", [ann, bob, cy, dee], minutes=3, options={"allegiance": "pairs"}, rated=True)
    archived("Plain four", [bob, cy, dee, ann], minutes=4, options={"allegiance": None, "mayhem": False})
    archived("Still running", [ann, bob], status=Game.Status.ACTIVE)
    assert listed(client) == ["Plain four", "Teams", "Trio", "Duel"]
    assert listed(client, "?players=3") == ["Trio"]
    assert listed(client, "?players=4") == ["Plain four", "Teams"]
    assert listed(client, "?players=x") == ["Plain four", "Teams", "Trio", "Duel"]
    assert listed(client, "?player=nab") == ["Plain four", "Teams", "Duel"]
    assert listed(client, "?player=cy") == ["Plain four", "Teams", "Trio"]
    assert listed(client, "?player=cyd") == []  # the start of Cy's email address finds nothing
    assert listed(client, "?player=nobody") == []
    assert listed(client, "?option=mayhem") == ["Trio"]
    assert listed(client, "?option=allegiance") == ["Teams"]
    assert listed(client, "?option=bogus") == ["Plain four", "Teams", "Trio", "Duel"]
    assert listed(client, "?rated=1") == ["Teams", "Duel"]
    assert listed(client, "?rated=1&players=2&player=bob") == ["Duel"]


@pytest.mark.django_db
def test_archive_hides_private_games_from_strangers(client: Client) -> None:
    """A private finished game is listed only for its players."""
    ann, bob, stranger = create_user(display_name="Ann"), create_user(), create_user()
    archived("Public", [ann, bob], minutes=1)
    archived("Private", [ann, bob], minutes=2, private=True)
    assert listed(client) == ["Public"]
    client.force_login(stranger)
    assert listed(client) == ["Public"]
    assert listed(client, "?player=Ann") == ["Public"]
    client.force_login(bob)
    assert listed(client) == ["Private", "Public"]


@pytest.mark.django_db
def test_archive_pagination(client: Client) -> None:
    """25 games a page, newest first; the pager keeps the filters; a page past the end shows the last."""
    ann, bob = create_user(), create_user()
    for i in range(30):
        archived(f"Game {i:02d}", [ann, bob], minutes=i)
    archived("Three", [ann, bob, create_user()], minutes=99)
    first = listed(client, "?players=2")
    assert first == [f"Game {i:02d}" for i in range(29, 4, -1)]
    html = client.get("/games/archive/?players=2").content.decode()
    assert "Page 1 of 2" in html and "players=2&amp;page=2" in html
    assert listed(client, "?players=2&page=2") == [f"Game {i:02d}" for i in range(4, -1, -1)]
    assert listed(client, "?players=2&page=99") == listed(client, "?players=2&page=2")
    assert listed(client, "?players=2&page=abc") == first
