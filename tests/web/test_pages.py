"""The HTML side of the site: lobby, game page and its partials, the action endpoint, polling, accounts.

Docstrings here cite no rule numbers on purpose: the rules-coverage table counts engine tests only.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from allauth.account.models import EmailAddress
from django.conf import settings
from django.db import connection
from django.http import QueryDict
from django.template.loader import render_to_string
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import engine, services
from games.engine.actions import ACTION_TYPES
from games.engine.bot import choose
from games.engine.rng import Rng
from games.models import ActionRecord, Game
from games.selectors import game_get, game_view
from games.web.forms import decision_action
from games.web.game_page import PARTIALS
from games.web.presenters import page_model
from tests.web.conftest import pass_masked
from tests.web.factories import first_player, game_from_state

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}


def verified_user(email: str, name: str = "") -> User:
    """A verified user (allauth ``EmailAddress``); no password (tests log in with ``force_login``)."""
    user = User.objects.create_user(email, None, display_name=name)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def alice() -> User:
    return verified_user("alice@example.com", "Alice")


@pytest.fixture
def bob() -> User:
    return verified_user("bob@example.com", "Bob")


@pytest.fixture
def carol() -> User:
    return verified_user("carol@example.com", "Carol")


@pytest.fixture
def duel(alice: User, bob: User) -> Game:
    """A started 2-player game between Alice and Bob (no bots, so nothing moves by itself)."""
    game = services.game_create(user=alice, title="Duel", players=2, time_control="daily")
    services.seat_join(game_id=game.pk, user=bob)
    services.game_start(game_id=game.pk, user=alice, seed=11)
    game.refresh_from_db()
    return game


def active_user(game: Game) -> User:
    """The user whose turn it is (the human seat with legal actions)."""
    fresh = game_get(game.pk)
    assert fresh is not None
    for seat in fresh.seats.all():
        if seat.user is not None and game_view(fresh, seat.user, with_log=False).legal:
            return seat.user
    raise AssertionError("nobody may act")


def opponent_of(game: Game, user: User) -> User:
    fresh = game_get(game.pk)
    assert fresh is not None
    return next(s.user for s in fresh.seats.all() if s.user is not None and s.user.pk != user.pk)


def form_data(payload: dict[str, Any], seq: int, key: str = "", *, confirmed: bool = True) -> dict[str, Any]:
    """The decision form fields that post ``payload`` (the inverse of ``games.web.forms.decision_action``).
    ``confirmed``: as the confirmation step posts them (an act that cannot be taken back asks first, issue
    16; ``tests/web/test_table_ux.py`` tests that step)."""
    data: dict[str, Any] = {"type": payload["type"], "expected_seq": seq, "prompt_key": key}
    if confirmed:
        data["confirmed"] = "1"
    kind = payload["type"]
    if kind == "advance":
        data.update(to=payload["to"], knights=payload["knights"])
    elif kind == "redistribute":
        moves = payload["moves"]
        data.update(
            {
                "from": [m["from"] for m in moves],
                "to": [m["to"] for m in moves],
                "knights": [m["knights"] for m in moves],
            }
        )
    elif kind == "fracture":
        data["target"] = payload["target"]
    elif kind == "use_crown":
        if "artefact" in payload:
            data["corruption"] = f"{payload['player']}:{payload['artefact']}"
        elif "player" in payload:
            data["player"] = payload["player"]
        if "card" in payload:
            data["card"] = payload["card"]
    elif kind == "respond":
        data["fracture"] = payload["fracture"]
    elif kind in ("choose_conflict", "discard_choice"):
        data["card"] = payload["card"] or ""
    elif kind == "play_support":
        data["cards"] = payload["cards"]
    elif kind == "insight_order":
        data["order"] = payload["order"]
    elif kind == "prosperity_choice":
        data["discard"] = "true" if payload["discard"] else "false"
    elif kind == "fear_choice":
        data["use"] = "true" if payload["use"] else "false"
    return data


def hidden_card_ids(game: Game, viewer: int | None) -> set[str]:
    """Ids of cards the viewer must never see: other seats' hands and every deck."""
    fresh = Game.objects.get(pk=game.pk)
    state = services.game_state(fresh)
    hidden: set[str] = set()
    for p in state.players:
        for card in p.deck:
            hidden.add(engine.card_id(p.seat, card))
        if p.seat != viewer:
            for card in p.hand:
                hidden.add(engine.card_id(p.seat, card))
    return hidden


# ----------------------------------------------------------------------------------------------------------
# Home, lobby and "My games"
# ----------------------------------------------------------------------------------------------------------


def test_home_for_visitors_and_players(client: Client, alice: User) -> None:
    """The home page invites visitors to sign up and shows players their navigation."""
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert reverse("account_signup") in response.content.decode()
    page = client_for(alice).get(reverse("home")).content.decode()
    assert reverse("games:my_games") in page and reverse("games:new") in page
    assert 'hx-headers=\'{"X-CSRFToken": "' in page


def test_lobby_flow_create_join_fill_start(alice: User, bob: User) -> None:
    """Create a table, a second user joins, the creator fills the empty seat with a bot and starts."""
    a, b = client_for(alice), client_for(bob)
    response = a.post(
        reverse("games:new"),
        {"title": "Friday", "players": 3, "fracture_prompts": "holders", "time_control": "live"},
    )
    assert response.status_code == 302
    game = Game.objects.get(title="Friday")
    assert game.options["fracture_prompts"] == "holders" and game.turn_seconds == 3600
    assert response["Location"] == reverse("games:detail", args=[game.pk])
    lobby = b.get(reverse("games:detail", args=[game.pk]))
    assert lobby.status_code == 200 and "Join this table" in lobby.content.decode()
    assert b.post(reverse("games:join", args=[game.pk])).status_code == 302
    assert game.seats.count() == 2
    assert b.post(reverse("games:start", args=[game.pk])).status_code == 302  # not the creator: refused
    game.refresh_from_db()
    assert game.status == Game.Status.LOBBY
    a.post(reverse("games:fill_bots", args=[game.pk]))
    assert game.seats.filter(is_bot=True).count() == 1
    polled = b.get(
        reverse("games:detail", args=[game.pk]), headers={"HX-Request": "true", "HX-Target": "lobby"}
    )
    assert polled.status_code == 200 and "HX-Redirect" not in polled  # the lobby refreshes itself
    a.post(reverse("games:start", args=[game.pk]))
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    polled = b.get(
        reverse("games:detail", args=[game.pk]), headers={"HX-Request": "true", "HX-Target": "lobby"}
    )
    assert polled["HX-Redirect"] == reverse("games:detail", args=[game.pk])  # started: open the game page
    for client in (a, b):
        page = client.get(reverse("games:detail", args=[game.pk]))
        assert page.status_code == 200 and 'id="board"' in page.content.decode()


def test_create_form_reports_forbidden_option_combinations(alice: User) -> None:
    """Allegiance with three players is refused with the engine's reason; nothing is created."""
    response = client_for(alice).post(
        reverse("games:new"),
        {
            "title": "Teams",
            "players": 3,
            "allegiance": "on",
            "teams": "pairs",
            "fracture_prompts": "all",
            "time_control": "daily",
        },
    )
    assert response.status_code == 400
    assert "4 or 6 players" in response.content.decode()
    assert not Game.objects.exists()


def test_custom_time_control_and_private_invite(alice: User, bob: User, carol: User) -> None:
    """A private table is invisible without its invite link; the link lets a logged-in user join."""
    a = client_for(alice)
    a.post(
        reverse("games:new"),
        {
            "title": "Secret",
            "players": 4,
            "fracture_prompts": "all",
            "time_control": "custom",
            "turn_hours": "2",
            "response_hours": "0.5",
            "private": "on",
        },
    )
    game = Game.objects.get(title="Secret")
    assert (game.turn_seconds, game.response_seconds, game.private) == (7200, 1800, True)
    invite = reverse("games:invite", args=[game.pk, game.invite_token])
    assert invite in a.get(reverse("games:detail", args=[game.pk])).content.decode()
    c = client_for(carol)
    assert c.get(reverse("games:detail", args=[game.pk])).status_code == 404
    assert c.post(reverse("games:join", args=[game.pk])).status_code == 404
    assert c.get(reverse("games:invite", args=[game.pk, "wrong"])).status_code == 404
    assert c.get(invite).status_code == 200
    assert c.post(invite).status_code == 302
    assert game.seats.filter(user=carol).exists()
    assert c.get(reverse("games:detail", args=[game.pk])).status_code == 200
    # leaving and cancelling
    assert c.post(reverse("games:leave", args=[game.pk])).status_code == 302
    assert not game.seats.filter(user=carol).exists()
    b = client_for(bob)
    assert b.post(reverse("games:cancel", args=[game.pk])).status_code == 404  # private, no seat
    a.post(reverse("games:cancel", args=[game.pk]))
    assert not Game.objects.filter(pk=game.pk).exists()


def test_my_games_lists_in_order(alice: User, bob: User, carol: User) -> None:
    """My games: waiting for me first, then others' turn, open tables, finished — with an empty state."""
    assert "No games yet" in client_for(carol).get(reverse("games:my_games")).content.decode()
    # Alice moves first in both games (pinned); in "First" she ends her turn, so it waits for Bob.
    other = game_from_state(first_player(2, 0), users={0: alice, 1: bob}, title="First")
    waiting = game_from_state(first_player(2, 0, seed=2), users={0: alice, 1: bob}, title="Second").title
    services.action_submit(game_id=other.pk, user=alice, action=engine.EndTurn(), expected_seq=other.seq)
    assert active_user(other).pk == bob.pk
    assert active_user(Game.objects.get(title=waiting)).pk == alice.pk
    services.game_create(user=alice, title="Lobby", players=3)
    done = services.game_create(user=alice, title="Done", players=2)
    Game.objects.filter(pk=done.pk).update(status=Game.Status.FINISHED)
    page = client_for(alice).get(reverse("games:my_games")).content.decode()
    positions = [page.index(f">{t}</a>") for t in (waiting, other.title, "Lobby", "Done")]
    assert positions == sorted(positions)
    assert "left" in page  # time left for the game waiting for me


# ----------------------------------------------------------------------------------------------------------
# The game page and its partials
# ----------------------------------------------------------------------------------------------------------


def test_game_page_for_each_seat_and_a_spectator(duel: Game, alice: User, bob: User, carol: User) -> None:
    """Every seat sees its own hand; the spectator sees none; no hidden card id leaks to anyone."""
    fresh = game_get(duel.pk)
    assert fresh is not None
    seats = {s.user_id: s.number for s in fresh.seats.all()}
    for user in (alice, bob, carol):
        viewer = seats.get(user.pk)
        response = client_for(user).get(reverse("games:detail", args=[duel.pk]))
        assert response.status_code == 200
        page = response.content.decode()
        assert "<html" in page and 'id="board"' in page and 'id="players"' in page
        for card in hidden_card_ids(duel, viewer):
            assert card not in page, f"{card} leaked to seat {viewer}"
        if viewer is None:
            assert "You are watching" in page
            assert "Your hand" not in page
        else:
            assert "Your hand" in page
            gv = game_view(fresh, user)
            assert gv.view is not None
            for held in gv.view["players"][viewer]["hand"]:
                assert held["name"] in page


def test_board_svg_labels_every_tile(duel: Game, alice: User) -> None:
    """Every map position is a focusable SVG group with a text label; castles show their seat's initial."""
    fresh = game_get(duel.pk)
    assert fresh is not None
    gv = game_view(fresh, alice, with_log=False)
    assert gv.view is not None
    page = client_for(alice).get(reverse("games:partial", args=[duel.pk, "board"])).content.decode()
    assert page.count('class="tile ') == len(gv.view["map"])
    assert page.count('tabindex="0"') == len(gv.view["map"])
    assert page.count("<title>") == len(gv.view["map"])
    for tile in gv.view["map"]:
        assert f'data-pos="{tile["id"]}"' in page
    for player in gv.view["players"]:
        assert f"Castle {player['castle']}" in page


def test_active_player_sees_advance_targets_and_forms(duel: Game) -> None:
    """The active player gets a form for every kind of legal action, and the legal targets are marked."""
    user = active_user(duel)
    fresh = game_get(duel.pk)
    assert fresh is not None
    gv = game_view(fresh, user)
    page = client_for(user).get(reverse("games:detail", args=[duel.pk])).content.decode()
    for kind in {a.TYPE for a in gv.legal}:
        assert f'name="type" value="{kind}"' in page
    targets = {a.to for a in gv.legal if isinstance(a, engine.Advance)}
    assert targets
    for target in targets:
        assert re.search(rf'class="tile [^"]*\btarget\b[^"]*" id="tile-{target}"', page)
    assert f'name="prompt_key" value="{gv.my_prompts[0]["key"]}"' in page
    other = client_for(opponent_of(duel, user)).get(reverse("games:detail", args=[duel.pk])).content.decode()
    assert "Waiting for" in other and user.name in other and "left" in other
    assert 'name="type" value="end_turn"' not in other


@pytest.mark.parametrize("name", PARTIALS)
def test_each_partial_renders_alone(duel: Game, alice: User, name: str) -> None:
    """Each partial is served alone (htmx) without the page around it."""
    response = client_for(alice).get(reverse("games:partial", args=[duel.pk, name]), headers=HX)
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body
    assert "hx-swap-oob" not in body


def test_unknown_partial_and_game_are_404(duel: Game, alice: User) -> None:
    """Unknown panels and games answer 404."""
    client = client_for(alice)
    assert client.get(reverse("games:partial", args=[duel.pk, "secrets"])).status_code == 404
    assert client.get(reverse("games:detail", args=[duel.pk + 1000])).status_code == 404
    assert client.get(reverse("games:poll", args=[duel.pk + 1000]) + "?seq=0").status_code == 404


def test_pages_need_login(client: Client, duel: Game) -> None:
    """Anonymous visitors are sent to the login page."""
    response = client.get(reverse("games:detail", args=[duel.pk]))
    assert response.status_code == 302 and reverse("account_login") in response["Location"]


def test_game_page_query_budget(alice: User, bob: User, duel: Game) -> None:
    """At most 8 queries for the game page plus 2 for its chat panel (issue 19: the newest message with the
    unread counts, and the channel's page; ``tests/web/test_chat_page.py`` checks they do not grow with the
    messages), the same for 2 players and for 6 players with a long log (each measured for a viewer in
    the same role: whose turn it is, or not); on the player's own turn exactly one more than otherwise,
    which reads what they could undo (issue 16)."""
    big = services.game_create(user=alice, title="Big", players=6)
    services.seats_fill_with_bots(game_id=big.pk, user=alice, level="random")
    services.game_start(game_id=big.pk, user=alice, seed=5)
    big.refresh_from_db()

    def queries(game: Game, user: User) -> int:
        client = client_for(user)
        client.get(reverse("games:detail", args=[game.pk]))  # warm caches (content, state)
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(reverse("games:detail", args=[game.pk])).status_code == 200
        return len(ctx.captured_queries)

    mover = active_user(duel)
    waiting = opponent_of(duel, mover)
    # Seats are dealt at the start and the bots' seeds depend on the database's ids: whether it is Alice's
    # turn in the big game is read from her seat there, never assumed to be seat 0.
    alices_seat = big.seats.get(user=alice).number
    alices_turn = services.game_state(big).active == alices_seat
    counts = [queries(duel, mover if alices_turn else waiting), queries(big, alice)]
    assert max(counts) <= 8 + 2, counts
    assert counts[0] == counts[1], counts
    assert queries(duel, mover) == queries(duel, waiting) + 1


def test_warm_game_page_builds_the_log_only_when_its_panel_is_not_cached(
    alice: User, duel: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log panel is cached HTML (per position, viewer and minute), so a warm page view neither reads
    nor unpickles the log (``GameView.log`` is lazy); the log is still shown, and a new position builds it
    again."""
    from games import selectors
    from tests.web.conftest import play_human_move, seat_users

    built: list[int] = []
    real_log = selectors._log

    def counting_log(*args: Any, **kwargs: Any) -> list[selectors.LogEntry]:
        built.append(1)
        return real_log(*args, **kwargs)

    monkeypatch.setattr(selectors, "_log", counting_log)
    users = seat_users(duel)
    game = play_human_move(duel, users)
    client = client_for(alice)
    url = reverse("games:detail", args=[duel.pk])

    def builds() -> tuple[int, str]:
        built.clear()
        response = client.get(url)
        assert response.status_code == 200
        return len(built), response.content.decode()

    # the log panel's cache key holds the minute (relative times): both views fall in the same one
    fixed = timezone.now().replace(second=30)
    monkeypatch.setattr(timezone, "now", lambda: fixed)
    first, _ = builds()
    warm, body = builds()
    assert (first, warm) == (1, 0)
    assert 'class="log-list"' in body  # the cached panel still lists the log
    assert play_human_move(game, users).seq == game.seq + 1
    assert builds()[0] == 1


# ----------------------------------------------------------------------------------------------------------
# The action endpoint
# ----------------------------------------------------------------------------------------------------------


def test_legal_action_applies_with_htmx(duel: Game) -> None:
    """A legal action is applied once (seq + 1) and htmx gets the refreshed partials."""
    user = active_user(duel)
    gv = game_view(duel, user)
    response = client_for(user).post(
        reverse("games:act", args=[duel.pk]),
        form_data({"type": "end_turn"}, duel.seq, str(gv.my_prompts[0]["key"])),
        headers=HX,
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert 'id="decision"' in body and 'hx-swap-oob="true"' in body and 'id="poller"' in body
    record = ActionRecord.objects.get(game=duel, seq=duel.seq + 1)
    assert record.payload == {"type": "end_turn"} and record.source == "web"
    assert Game.objects.get(pk=duel.pk).seq == duel.seq + 1


def test_legal_action_without_javascript_redirects(duel: Game) -> None:
    """Without htmx a successful action redirects back to the game page."""
    user = active_user(duel)
    response = client_for(user).post(
        reverse("games:act", args=[duel.pk]), form_data({"type": "end_turn"}, duel.seq)
    )
    assert response.status_code == 302 and response["Location"] == reverse("games:detail", args=[duel.pk])
    assert Game.objects.get(pk=duel.pk).seq == duel.seq + 1


def test_illegal_action_is_refused_with_the_rule(duel: Game) -> None:
    """An advance into a lake is refused: 422 with the rule in plain words; nothing changes."""
    user = active_user(duel)
    before = Game.objects.get(pk=duel.pk)
    lake = next(t["id"] for t in game_view(duel, user).view["map"] if t["kind"] == "lake")  # type: ignore[index]
    client = client_for(user)
    response = client.post(
        reverse("games:act", args=[duel.pk]),
        form_data({"type": "advance", "to": lake, "knights": 1}, duel.seq),
        headers=HX,
    )
    assert response.status_code == 422
    body = response.content.decode()
    assert "Lakes and castles cannot be advanced into" in body and "R54" in body
    assert 'id="decision"' in body and 'role="alert"' in body
    after = Game.objects.get(pk=duel.pk)
    assert (after.seq, after.state_hash) == (before.seq, before.state_hash)
    # without JavaScript: redirect back with the same message
    response = client.post(
        reverse("games:act", args=[duel.pk]),
        form_data({"type": "advance", "to": lake, "knights": 1}, duel.seq),
    )
    assert response.status_code == 302
    assert "R54" in client.get(response["Location"]).content.decode()
    assert Game.objects.get(pk=duel.pk).state_hash == before.state_hash


def test_not_your_decision_is_422(duel: Game) -> None:
    """Ending the turn when it is not yours is refused and explained."""
    user = opponent_of(duel, active_user(duel))
    response = client_for(user).post(
        reverse("games:act", args=[duel.pk]), form_data({"type": "end_turn"}, duel.seq), headers=HX
    )
    assert response.status_code == 422
    assert "not your decision" in response.content.decode()
    assert Game.objects.get(pk=duel.pk).seq == duel.seq


def test_stale_expected_seq_is_409(duel: Game) -> None:
    """A form made for an older position is refused with 409 and the refreshed partials."""
    user = active_user(duel)
    response = client_for(user).post(
        reverse("games:act", args=[duel.pk]), form_data({"type": "end_turn"}, duel.seq + 7), headers=HX
    )
    assert response.status_code == 409
    body = response.content.decode()
    assert "The game has moved on" in body and 'hx-swap-oob="true"' in body
    assert Game.objects.get(pk=duel.pk).seq == duel.seq
    page = client_for(user).post(
        reverse("games:act", args=[duel.pk]), form_data({"type": "end_turn"}, duel.seq + 7)
    )
    assert page.status_code == 409 and "<html" in page.content.decode()


def test_acting_without_a_seat_is_403(duel: Game, carol: User) -> None:
    """A user without a seat in the game cannot act in anyone's seat."""
    response = client_for(carol).post(
        reverse("games:act", args=[duel.pk]), form_data({"type": "end_turn"}, duel.seq), headers=HX
    )
    assert response.status_code == 403
    assert Game.objects.get(pk=duel.pk).seq == duel.seq


@pytest.mark.parametrize(
    "data",
    [
        {"expected_seq": 0},  # no type
        {"type": "end_turn"},  # no expected_seq
        {"type": "end_turn", "expected_seq": "soon"},
        {"type": "advance", "to": "t3", "knights": "many", "expected_seq": 0},
        {"type": "teleport", "expected_seq": 0},
        {"type": "advance", "to": "Paris", "knights": 1, "expected_seq": 0},
        {"type": "prosperity_choice", "discard": "maybe", "expected_seq": 0},
        {"type": "redistribute", "from": ["castle", "t1"], "to": ["t2"], "knights": ["1"], "expected_seq": 0},
    ],
)
def test_malformed_action_is_400(duel: Game, data: dict[str, Any]) -> None:
    """Malformed input answers 400 with a message, with or without htmx, and changes nothing."""
    user = active_user(duel)
    client = client_for(user)
    for extra in (HX, {}):
        response = client.post(reverse("games:act", args=[duel.pk]), data, headers=extra)
        assert response.status_code == 400
        assert 'role="alert"' in response.content.decode()
    assert Game.objects.get(pk=duel.pk).seq == duel.seq


def test_act_needs_post(duel: Game, alice: User) -> None:
    """The action endpoint only accepts POST."""
    assert client_for(alice).get(reverse("games:act", args=[duel.pk])).status_code == 405


# ----------------------------------------------------------------------------------------------------------
# Polling
# ----------------------------------------------------------------------------------------------------------


def test_poll_is_204_and_cheap_when_unchanged(duel: Game, alice: User) -> None:
    """Polling with the current seq answers 204 with a single query on the game table."""
    client = client_for(alice)
    url = reverse("games:poll", args=[duel.pk])
    client.get(url + f"?seq={duel.seq}")
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url + f"?seq={duel.seq}")
    assert response.status_code == 204
    game_queries = [q for q in ctx.captured_queries if "games_game" in q["sql"]]
    assert len(game_queries) == 1
    assert len(ctx.captured_queries) <= 3  # the session and user lookups of the auth middleware, then seq
    assert client.get(url + "?seq=x").status_code == 400


def test_poll_returns_partials_when_the_game_moved(duel: Game) -> None:
    """After a move the poll returns every partial out of band, with the new seq in the poller."""
    user = active_user(duel)
    watcher = client_for(opponent_of(duel, user))
    services.action_submit(game_id=duel.pk, user=user, action=engine.EndTurn(), expected_seq=duel.seq)
    response = watcher.get(reverse("games:poll", args=[duel.pk]) + f"?seq={duel.seq}", headers=HX)
    assert response.status_code == 200
    body = response.content.decode()
    for name in ("decision", "board", "players", "hand", "status", "log", "poller"):
        assert re.search(rf'id="{name}"[^>]*hx-swap-oob="true"', body) or re.search(
            rf'hx-swap-oob="true"[^>]*id="{name}"', body
        ), name
    assert f"seq={duel.seq + 1}" in body
    assert 'class="fresh"' in body


def test_poll_keeps_an_unchanged_decision_form(duel: Game) -> None:
    """When the viewer's choices did not change the decision panel is left alone (the form being filled)."""
    user = active_user(duel)
    other = opponent_of(duel, user)
    fresh = game_get(duel.pk)
    assert fresh is not None
    page = client_for(other).get(reverse("games:detail", args=[duel.pk])).content.decode()
    sig = re.search(r'data-sig="([0-9a-f]+)"', page)
    assert sig is not None
    Game.objects.filter(pk=duel.pk).update(seq=duel.seq + 1)  # pretend an unseen change
    body = (
        client_for(other)
        .get(reverse("games:poll", args=[duel.pk]) + f"?seq={duel.seq}&sig={sig.group(1)}", headers=HX)
        .content.decode()
    )
    assert 'id="decision"' not in body and 'id="board"' in body


# ----------------------------------------------------------------------------------------------------------
# Playing through the pages, and the result
# ----------------------------------------------------------------------------------------------------------


def test_play_many_decisions_through_the_forms(alice: User) -> None:
    """Alice plays against two bots through the decision forms only: every decision the engine asks of her
    is offered as a form, posting it applies exactly that action, and a game played to its end shows the
    result."""
    client = client_for(alice)
    seen: set[str] = set()
    finished = 0
    seed = 3
    game = None
    for step in range(250):
        if game is None:
            game = services.game_create(user=alice, title=f"Solo {seed}", players=3)
            services.seats_fill_with_bots(game_id=game.pk, user=alice)
            services.game_start(game_id=game.pk, user=alice, seed=seed)
            seed += 1
        fresh = game_get(game.pk)
        assert fresh is not None
        if fresh.status != Game.Status.ACTIVE:
            page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
            assert "Game over" in page
            finished += 1
            game = None
            if step > 100:
                break
            continue
        gv = game_view(fresh, alice, with_log=False)
        if not gv.legal:  # nothing for Alice: a bot, or the server's masked passes (issue 14)
            assert pass_masked(fresh) >= 1, "the game waits for a bot"
            continue
        action = choose(services.game_state(fresh), gv.seat, Rng(step))  # type: ignore[arg-type]
        assert action is not None
        payload = action.to_dict()
        page = client.get(reverse("games:partial", args=[game.pk, "decision"]), headers=HX).content.decode()
        assert f'name="type" value="{payload["type"]}"' in page, payload
        seen.add(payload["type"])
        response = client.post(
            reverse("games:act", args=[game.pk]),
            form_data(payload, fresh.seq, str(gv.my_prompts[0]["key"]) if gv.my_prompts else ""),
            headers=HX,
        )
        assert response.status_code == 200, (payload, response.content.decode()[:500])
        record = ActionRecord.objects.get(game=game, seq=fresh.seq + 1)
        assert record.payload == payload
    assert "end_turn" in seen and len(seen) >= 5, seen


def test_result_panel_for_a_finished_game(duel: Game, alice: User, bob: User) -> None:
    """A finished game shows the winner and each seat's place and VP."""
    Game.objects.filter(pk=duel.pk).update(status=Game.Status.FINISHED, winners=[0])
    for seat in duel.seats.all():
        seat.final_rank = 1 if seat.number == 0 else 2
        seat.final_vp = 13 if seat.number == 0 else 6
        seat.save()
    winner = duel.seats.get(number=0).name
    page = client_for(alice).get(reverse("games:detail", args=[duel.pk])).content.decode()
    assert "Game over" in page and f"Winner: {winner}" in page and "13" in page
    # a finished game polls only slowly, for its table talk (issue 19)
    assert f'hx-trigger="every {settings.GAME_POLL_SECONDS}s"' not in page
    assert f'hx-trigger="every {settings.GAME_POLL_FINISHED_SECONDS}s"' in page
    assert (
        "Game over"
        in client_for(bob).get(reverse("games:partial", args=[duel.pk, "result"])).content.decode()
    )


def _all_kinds_view(duel: Game, user: User) -> Any:
    """The user's real view of ``duel`` with a legal list holding every kind of action (for rendering)."""
    fresh = game_get(duel.pk)
    assert fresh is not None
    gv = game_view(fresh, user)
    assert gv.view is not None and gv.seat is not None
    me = gv.seat
    hand = [c["id"] for c in gv.view["players"][me]["hand"]]
    other = 1 - me
    art = gv.view["players"][other]["artefacts"][0]["id"]
    gv.legal = [
        engine.parse_action(payload)
        for payload in (
            {"type": "end_turn"},
            {"type": "call_to_arms"},
            {"type": "tactical_advance"},
            {"type": "fracture", "target": art},
            {"type": "use_crown", "player": other, "artefact": art},
            {"type": "redistribute", "moves": [{"from": "castle", "to": "t1", "knights": 1}]},
            {"type": "advance", "to": "t2", "knights": 2},
            {"type": "decline_advance"},
            {"type": "finish_redistribution"},
            {"type": "respond", "fracture": []},
            {"type": "respond", "fracture": [art]},
            {"type": "choose_conflict", "card": hand[0]},
            {"type": "play_support", "cards": [hand[1]]},
            {"type": "pass_support"},
            {"type": "discard_choice", "card": None},
            {"type": "discard_choice", "card": hand[2]},
            {"type": "insight_order", "order": hand[:2]},
            {"type": "prosperity_choice", "discard": False},
            {"type": "fear_choice", "use": True},
        )
    ]
    gv.view["choice"] = {
        "seat": me,
        "kind": "insight_order",
        "source": "crown_insight",
        "cards": gv.view["players"][me]["hand"][:2],
    }
    gv.view["window"] = {
        "kind": "crown",
        "opener": other,
        "targets": [art],
        "waiting_for": [me],
        "answered": False,
        "mode": "sealed",
        "answers": [],
    }
    return gv


def test_decision_panel_has_a_form_for_every_kind(duel: Game) -> None:
    """Every action type the engine knows gets its own form in the decision panel."""
    user = active_user(duel)
    gv = _all_kinds_view(duel, user)
    html = render_to_string(
        "games/detail.html#decision",
        {"game": duel, "gv": gv, "view": gv.view, "page": page_model(gv, timezone.now()), "seq": duel.seq},
    )
    for kind in ACTION_TYPES:
        assert f'name="type" value="{kind}"' in html, kind
    assert 'name="corruption"' in html and 'name="order"' in html and 'name="fracture"' in html


@pytest.mark.parametrize(
    ("payload", "fields"),
    [
        ({"type": "end_turn"}, {}),
        ({"type": "advance", "to": "t3", "knights": 2}, {"to": "t3", "knights": "2"}),
        ({"type": "fracture", "target": "orb_greed"}, {"target": "orb_greed"}),
        ({"type": "use_crown", "player": 1, "artefact": "orb_greed"}, {"corruption": "1:orb_greed"}),
        ({"type": "use_crown", "player": 0}, {"player": "0"}),
        ({"type": "use_crown", "card": "s0c04"}, {"card": "s0c04"}),
        ({"type": "use_crown"}, {}),
        (
            {"type": "redistribute", "moves": [{"from": "castle", "to": "t1", "knights": 2}]},
            {"from": ["castle", ""], "to": ["t1", ""], "knights": ["2", ""]},
        ),
        (
            {"type": "respond", "fracture": ["crown_fury", "orb_greed"]},
            {"fracture": ["crown_fury", "", "orb_greed"]},
        ),
        ({"type": "respond", "fracture": []}, {}),
        ({"type": "choose_conflict", "card": "s1c05"}, {"card": "s1c05"}),
        ({"type": "play_support", "cards": ["s1c13", "s1c15"]}, {"cards": ["s1c13", "s1c15"]}),
        ({"type": "discard_choice", "card": None}, {"card": ""}),
        ({"type": "discard_choice", "card": "s1c02"}, {"card": "s1c02"}),
        ({"type": "insight_order", "order": ["s0c09", "s0c01"]}, {"order": ["s0c09", "s0c01"]}),
        ({"type": "prosperity_choice", "discard": True}, {"discard": "true"}),
        ({"type": "fear_choice", "use": False}, {"use": "false"}),
    ],
)
def test_form_fields_become_engine_payloads(payload: dict[str, Any], fields: dict[str, Any]) -> None:
    """Posted decision fields turn into exactly the engine action of that payload (issue 31 §1: parsed once,
    at the form)."""
    post = QueryDict(mutable=True)
    post.update({"type": payload["type"], "expected_seq": "4", "prompt_key": "t1:turn:0"})
    for name, value in fields.items():
        post.setlist(name, value if isinstance(value, list) else [value])
    built, seq, key = decision_action(post)
    assert (built, seq, key) == (engine.parse_action(payload), 4, "t1:turn:0")
    assert built.to_dict() == payload


# ----------------------------------------------------------------------------------------------------------
# Accounts
# ----------------------------------------------------------------------------------------------------------


def test_account_pages_use_the_site_layout(client: Client) -> None:
    """Login, sign-up and password reset pages render inside the site's base layout."""
    for name in ("account_login", "account_signup", "account_reset_password", "account_reset_password_done"):
        response = client.get(reverse(name))
        assert response.status_code == 200, name
        assert 'class="site-header"' in response.content.decode(), name


def test_sign_up_log_in_and_out(client: Client) -> None:
    """Signing up asks for verification; a verified user logs in through the form and logs out."""
    response = client.post(
        reverse("account_signup"),
        {
            "email": "dora@example.com",
            "password1": "a-long-pass-9876",
            "password2": "a-long-pass-9876",
            "display_name": "Dora",
        },
    )
    assert response.status_code == 302
    assert "Check your email" in client.get(response["Location"]).content.decode()
    EmailAddress.objects.filter(email="dora@example.com").update(verified=True)
    response = client.post(
        reverse("account_login"), {"login": "dora@example.com", "password": "a-long-pass-9876"}
    )
    assert response.status_code == 302 and response["Location"] == reverse("games:my_games")
    assert "Dora" in client.get(reverse("home")).content.decode()
    response = client.post(reverse("account_logout"))
    assert response.status_code == 302 and response["Location"] == reverse("home")


def test_profile_and_api_token(alice: User) -> None:
    """The profile saves the display name and time zone; a new API token is shown once."""
    client = client_for(alice)
    assert client.get(reverse("accounts:profile")).status_code == 200
    response = client.post(
        reverse("accounts:profile"),
        {"display_name": "Alicia", "language": "en", "time_zone": "Europe/Stockholm"},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert (alice.display_name, alice.time_zone) == ("Alicia", "Europe/Stockholm")
    page = client.post(reverse("accounts:token_create")).content.decode()
    assert "it will not be shown again" in page
    token = re.search(r'<p class="token">([^<]+)</p>', page)
    assert token is not None and len(token.group(1)) > 20
    assert token.group(1) not in client.get(reverse("accounts:profile")).content.decode()


def test_the_board_is_marked_choosing_exactly_when_the_map_offers_a_pick(duel: Game) -> None:
    """The map section's "choosing" class (set without building the map: ``page.board_choosing``) agrees
    with the map model at every point of a game, and the page builds the map model only when asked."""
    from tests.web.conftest import play_human_move, seat_users

    users = seat_users(duel)
    game = duel
    seen = set()
    for _ in range(60):
        fresh = game_get(game.pk)
        assert fresh is not None
        for user in users.values():
            page = page_model(game_view(fresh, user, with_log=False), timezone.now())
            assert "board" not in vars(page)  # lazy: nothing built yet
            seen.add(page.board_choosing)
            assert page.board_choosing == page.board["choosing"]
        if game.status != Game.Status.ACTIVE:
            break
        game = play_human_move(game, users)
    assert seen == {True, False}
