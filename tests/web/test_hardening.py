"""issue 12: no input of one player may break another player's game. One regression test per fault the
black-box client found (five server errors, a private-game probe, an email probe, unclear answers)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import jsonschema
import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import ApiToken, User
from games import engine, services
from games.engine.action_schema import action_json_schema
from games.engine.bot import choose
from games.engine.rng import Rng
from games.messages import service_message
from games.models import Game, Prompt
from games.services import chat as chat_service
from games.services.chat_ids import public_id
from games.services.outbox import MAX_CLOCK, deadline_for

from .conftest import create_private_game, create_started_game, create_user, seat_users

pytestmark = pytest.mark.django_db


def _login(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _settings_post(client: Client, **fields: str) -> Any:
    form = client.get(reverse("accounts:profile")).context["notify_form"]
    data = {name: "immediate" for name in form.kind_fields} | fields
    return client.post(reverse("accounts:notifications"), data)


def _vacation_game() -> tuple[Game, User, User, Prompt]:
    """A started two-player game allowing vacations; the seat it waits for, the other seat, the prompt."""
    game = create_started_game(humans=2, seed=5)
    assert game.allow_vacation
    users = seat_users(game)
    [prompt] = Prompt.objects.filter(game=game)
    return game, users[prompt.seat], users[1 - prompt.seat], prompt


def _user_row(user: User) -> tuple[Any, ...]:
    return tuple(
        User.objects.filter(pk=user.pk).values_list("away_from", "away_until", "notify", "time_zone")[0]
    )


# ---------------------------------------------------------------------------------------------------------
# 1. An away period ending in year 9999
# ---------------------------------------------------------------------------------------------------------


def test_an_away_period_ending_in_year_9999_is_refused_and_the_game_goes_on() -> None:
    game, waited, other, prompt = _vacation_game()
    client = _login(waited)
    before = _user_row(waited)
    hour_ago = timezone.localtime(timezone.now() - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")
    response = _settings_post(client, away_from=hour_ago, away_until="9999-12-31T00:00")
    assert response.status_code == 400
    assert "at most a year from now" in response.content.decode()
    assert _user_row(waited) == before  # nothing saved
    assert Prompt.objects.get(pk=prompt.pk).deadline_at == prompt.deadline_at
    # the game still answers everyone
    for user in (waited, other):
        assert _login(user).get(reverse("games:detail", args=[game.pk])).status_code == 200


def test_an_away_period_within_a_year_is_saved() -> None:
    _game, waited, _other, prompt = _vacation_game()
    start = timezone.localtime(timezone.now() - timedelta(hours=1))
    end = start + timedelta(days=300)
    response = _settings_post(
        _login(waited),
        away_from=start.strftime("%Y-%m-%dT%H:%M"),
        away_until=end.strftime("%Y-%m-%dT%H:%M"),
    )
    assert response.status_code == 302
    waited.refresh_from_db()
    assert waited.away_until is not None and waited.away_until > timezone.now() + timedelta(days=299)
    assert Prompt.objects.get(pk=prompt.pk).deadline_at > prompt.deadline_at


def test_an_away_period_starting_long_ago_is_refused() -> None:
    user = create_user()
    response = _settings_post(_login(user), away_from="2001-01-01T00:00", away_until="2001-01-02T00:00")
    assert response.status_code == 400 and "more than a year ago" in response.content.decode()
    user.refresh_from_db()
    assert user.away_from is None and user.away_until is None


def test_the_model_validates_the_away_period_too() -> None:
    user = create_user()
    user.away_from = timezone.now()
    user.away_until = timezone.now() + timedelta(days=800)
    with pytest.raises(ValidationError) as info:
        user.full_clean()
    assert "away_until" in info.value.message_dict


def test_the_database_refuses_an_unreadable_away_period() -> None:
    """The check constraint keeps every stored timestamp readable, whatever code writes it."""
    user = create_user()
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.filter(pk=user.pk).update(
            away_from=datetime(9999, 1, 1, tzinfo=UTC), away_until=datetime(9999, 12, 31, tzinfo=UTC)
        )
    user.refresh_from_db()
    assert user.away_until is None


def test_deadlines_clamp_instead_of_overflowing() -> None:
    """Even an away period that was never validated cannot overflow a deadline (``MAX_CLOCK``)."""
    game, waited, _other, prompt = _vacation_game()
    waited.away_from = prompt.opened_at - timedelta(hours=1)
    waited.away_until = datetime.max.replace(tzinfo=UTC)
    seat = game.seats.get(user=waited)
    seat.user = waited
    deadline = deadline_for(game, seat, prompt.deadline_class, prompt.opened_at)
    assert prompt.opened_at < deadline <= prompt.opened_at + MAX_CLOCK


# ---------------------------------------------------------------------------------------------------------
# 2. A time zone plus an extreme date
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("zone", "start", "end"),
    [
        ("Etc/GMT+12", "9999-12-31T00:00", "9999-12-31T23:59"),
        ("Etc/GMT-14", "0001-01-01T00:00", "0001-01-02T00:00"),
    ],
)
def test_extreme_dates_in_a_far_time_zone_are_refused_and_lock_nobody_out(
    zone: str, start: str, end: str
) -> None:
    game, waited, other, _prompt = _vacation_game()
    waited.time_zone = zone
    waited.save(update_fields=["time_zone"])
    client = _login(waited)
    before = _user_row(waited)
    assert _settings_post(client, away_from=start, away_until=end).status_code == 400
    assert _user_row(waited) == before
    # the user's own pages and API, their profile, the game page and API, and a co-player's "My games"
    token = ApiToken.issue(other)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get(reverse("accounts:profile")).status_code == 200
    assert client.get(reverse("games:my_games")).status_code == 200
    assert client.get(reverse("games:player", args=[waited.pk])).status_code == 200
    assert _login(other).get(reverse("games:detail", args=[game.pk])).status_code == 200
    assert _login(other).get(reverse("games:my_games")).status_code == 200
    assert api.get(f"/api/games/{game.pk}").status_code == 200
    assert api.get("/api/me/games").status_code == 200


# ---------------------------------------------------------------------------------------------------------
# 3. The archive: a NUL byte, and no search by email address
# ---------------------------------------------------------------------------------------------------------


def test_archive_with_a_nul_byte_is_no_server_error() -> None:
    for client in (Client(), _login(create_user())):
        response = client.get("/games/archive/?player=%00")
        assert response.status_code == 200
        assert "was ignored" in response.content.decode()
        assert (
            client.get("/games/archive/?players=99999999999999999999999&option=%00&rated=%00").status_code
            == 200
        )


def test_archive_search_never_matches_an_email_address() -> None:
    ann = create_user("secret.address@example.com", display_name="Ann")
    game = create_started_game(humans=[ann, create_user(display_name="Bo")], title="Done")
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=timezone.now())
    page = Client().get("/games/archive/?player=Ann").content.decode()
    assert "Done" in page
    for probe in ("secret", "secret.address", "secret.address@example.com", "example.com"):
        assert "Done" not in Client().get(f"/games/archive/?player={probe}").content.decode(), probe


# ---------------------------------------------------------------------------------------------------------
# 4 and 5. Importing a record with non-finite or huge numbers
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"setup":{"players":Infinity,"seed":1},"actions":[]}',
        '{"setup":{"players":3,"seed":Infinity},"actions":[]}',
        '{"setup":{"players":3,"seed":NaN},"actions":[]}',
        '{"setup":{"players":1e308,"seed":1},"actions":[]}',
        '{"setup":{"players":' + "9" * 4000 + ',"seed":1},"actions":[]}',
        '{"setup":{"players":3,"seed":' + "9" * 4000 + '},"actions":[]}',
        '{"setup":{"players":-3,"seed":1},"actions":[]}',
        '{"setup":{"players":true,"seed":1},"actions":[]}',
        '{"setup":{"players":3.5,"seed":1},"actions":[]}',
        '{"setup":{"players":"../../../etc/passwd","seed":1},"actions":[]}',
        '{"setup":{"players":3,"seed":1,"content":"../default"},"actions":[]}',
    ],
)
def test_import_with_bad_numbers_is_a_clear_400(text: str) -> None:
    client = _login(create_user())
    count = Game.objects.count()
    response = client.post(reverse("games:import"), {"text": text})
    assert response.status_code == 400
    assert 'id="import-error"' in response.content.decode()
    assert Game.objects.count() == count


def test_the_engine_never_formats_a_request_number_into_a_path() -> None:
    """Only the shipped player counts name a layout file; anything else is a typed ``ContentError``."""
    for players in (1, 7, 10**4000, -2):
        with pytest.raises(engine.ContentError):
            engine.load_board(players)
    for bad in (float("inf"), float("nan"), 1e308, 10**4000, True, "3"):
        with pytest.raises(engine.ContentError):
            engine.normalize_setup({"players": bad, "seed": 1})
        with pytest.raises(engine.ContentError):
            engine.normalize_setup({"players": 3, "seed": bad})
    assert engine.normalize_setup({"players": 3.0, "seed": 7})["players"] == 3


# ---------------------------------------------------------------------------------------------------------
# Privacy: the poll endpoint
# ---------------------------------------------------------------------------------------------------------


def test_poll_answers_404_alike_for_a_private_game_whatever_the_seq() -> None:
    game = create_private_game()
    missing = Game.objects.order_by("-pk").values_list("pk", flat=True)[0] + 1000
    client = _login(create_user())
    for seq in (str(game.seq), str(game.seq + 1), "0", "x", ""):
        seen = client.get(f"/games/{game.pk}/poll/?seq={seq}")
        absent = client.get(f"/games/{missing}/poll/?seq={seq}")
        assert seen.status_code == absent.status_code == 404, seq
        assert seen.content == absent.content
    owner = game.created_by
    assert _login(owner).get(f"/games/{game.pk}/poll/?seq={game.seq}").status_code == 204


# ---------------------------------------------------------------------------------------------------------
# Clear answers from the API
# ---------------------------------------------------------------------------------------------------------


def _post_action(client: Client, game_id: int | str, body: dict[str, Any], **extra: Any) -> Any:
    return client.post(
        f"/api/games/{game_id}/actions", json.dumps(body), content_type="application/json", **extra
    )


def test_a_422_message_is_the_translated_sentence_the_page_shows() -> None:
    game = create_started_game(humans=2, seed=7)
    users = seat_users(game)
    waiting = next(
        seat for seat in users if not any(p.seat == seat for p in Prompt.objects.filter(game=game))
    )
    api = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(users[waiting])}")
    body = {"expected_seq": game.seq, "action": {"type": "end_turn"}}
    for language in ("en", "sv"):
        response = _post_action(api, game.pk, body, HTTP_ACCEPT_LANGUAGE=language)
        data = response.json()
        assert response.status_code == 422 and data["error"] == "illegal_action"
        code = data["params"]["engine_code"]
        assert code == engine.ErrorCode.NOT_YOUR_DECISION.value
        with translation.override(language):
            expected = service_message(services.Illegal(code, **data["params"]))
        assert data["message"] == expected and data["message"] != code
    english = _post_action(api, game.pk, body, HTTP_ACCEPT_LANGUAGE="en").json()["message"]
    swedish = _post_action(api, game.pk, body, HTTP_ACCEPT_LANGUAGE="sv").json()["message"]
    assert english != swedish


def test_a_missing_action_type_names_the_types_that_exist() -> None:
    game = create_started_game(humans=2, seed=7)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(seat_users(game)[0])}")
    data = _post_action(api, game.pk, {"expected_seq": game.seq, "action": {"knights": 3}}).json()
    assert data["error"] == "invalid_payload" and data["params"]["field"] == "type"
    assert "None" not in data["message"]
    assert "end_turn" in data["message"] and "advance" in data["message"]


@pytest.mark.parametrize("spelling", ["%20{}", "+{}", "{}%20", "{}.0", "0{}", "%EF%BC%91{}"])
def test_game_ids_in_api_paths_are_plain_digits(spelling: str) -> None:
    """``/api/games/%201`` is refused (400), not read as game 1; a leading zero is still plain digits."""
    game = create_started_game(humans=2, seed=7)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(seat_users(game)[0])}")
    path_id = spelling.format(game.pk)
    for path in (f"/api/games/{path_id}", f"/api/games/{path_id}/legal"):
        response = api.get(path)
        if spelling == "0{}":
            assert response.status_code == 200, path
            continue
        assert response.status_code == 400, path
        assert response.json()["error"] == "invalid_request"


def test_the_api_refuses_non_finite_numbers_in_a_body() -> None:
    game = create_started_game(humans=2, seed=7)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(seat_users(game)[0])}")
    action = '{"type": "advance", "to": "t1", "knights": Infinity}'
    text = f'{{"expected_seq": {game.seq}, "action": {action}}}'
    response = api.post(f"/api/games/{game.pk}/actions", text, content_type="application/json")
    assert response.status_code == 400 and response.json()["error"] == "bad_request"


def test_openapi_describes_action_as_the_union_of_action_shapes() -> None:
    doc = Client().get("/api/openapi.json").json()
    action = doc["components"]["schemas"]["ActionIn"]["properties"]["action"]
    members = action["oneOf"]
    assert action["discriminator"] == {"propertyName": "type"}
    assert {m["properties"]["type"]["const"] for m in members} == set(engine.actions.ACTION_TYPES)
    validator = jsonschema.Draft202012Validator(action)
    assert not validator.is_valid({})
    assert not validator.is_valid({"type": "end_turn", "extra": 1})
    assert not validator.is_valid({"type": "advance", "to": "t1"})
    assert validator.is_valid({"type": "advance", "to": "t1", "knights": 3})


def test_the_action_schema_and_parse_action_agree() -> None:
    """Every legal action of a few seeded games validates against the schema and parses; every member's
    extra or missing field is refused by both."""
    validator = jsonschema.Draft202012Validator(action_json_schema())

    seen: set[str] = set()
    for seed in (1, 2, 3):
        state = engine.new_game({"players": 3, "seed": seed, "options": {"mayhem": True}})
        rng = Rng(seed)
        for _ in range(300):
            prompts = engine.pending(state)
            if not prompts:
                break
            seat = prompts[0].seat
            for legal in engine.legal_actions(state, seat):
                payload = legal.to_dict()
                assert validator.is_valid(payload), payload
                seen.add(payload["type"])
            action = choose(state, seat, rng)
            assert action is not None
            state = engine.apply(state, seat, action).state
    assert {"advance", "end_turn", "respond"} <= seen
    for member in action_json_schema()["oneOf"]:
        kind = member["properties"]["type"]["const"]
        with pytest.raises(engine.InvalidActionPayload):
            engine.parse_action({"type": kind, "surplus": 1})
        assert not validator.is_valid({"type": kind, "surplus": 1})
        for field in member["required"]:
            if field == "type":
                continue
            with pytest.raises(engine.InvalidActionPayload):
                engine.parse_action({"type": kind})
            assert not validator.is_valid({"type": kind})


# ---------------------------------------------------------------------------------------------------------
# NUL characters (session 9 review): PostgreSQL's text and jsonb columns cannot store U+0000, and the
# database refuses it even in a lookup. Free text holding one is a 4xx that writes nothing.
# ---------------------------------------------------------------------------------------------------------


def _raising_client(user: User) -> Client:
    client = Client(raise_request_exception=False)  # a server error is answered 500, as in production
    client.force_login(user)
    return client


def test_a_chat_message_with_a_nul_character_is_refused_on_the_page_and_by_the_api() -> None:
    from games.models import ChatMessage

    game = create_started_game(humans=2, seed=21)
    users = seat_users(game)
    page = _raising_client(users[0]).post(
        f"/games/{game.pk}/chat/post/", {"channel": "table", "text": "hi\x00"}
    )
    assert 400 <= page.status_code < 500, page.status_code
    body = json.dumps({"channel": "table", "text": "a\u0000b"})
    api = _raising_client(users[0]).post(f"/api/games/{game.pk}/chat", body, content_type="application/json")
    assert api.status_code == 400, (api.status_code, api.content[:120])
    assert api.json()["error"] == "invalid_payload" and "NUL" in api.json()["message"]
    assert not ChatMessage.objects.filter(game=game).exists()


def test_a_chat_report_with_a_nul_character_in_its_reason_is_refused() -> None:
    from games.models import ChatReport

    game = create_started_game(humans=2, seed=21)
    users = seat_users(game)
    message = chat_service.chat_post(game_id=game.pk, user=users[1], channel="table", text="hello")
    response = _raising_client(users[0]).post(
        f"/games/{game.pk}/chat/report/", {"message": public_id(message.pk), "reason": "rude\x00"}
    )
    assert 400 <= response.status_code < 500 or response.status_code == 302, response.status_code
    assert not ChatReport.objects.filter(message=message).exists()


@pytest.mark.parametrize("who", ["bob\x00", "bob\x00@example.com"])
def test_an_invitation_to_a_name_or_address_with_a_nul_character_is_refused(who: str) -> None:
    owner = create_user()
    lobby = services.game_create(user=owner, title="Lobby", players=3)
    response = _raising_client(owner).post(f"/games/{lobby.pk}/invite/", {"who": who})
    assert response.status_code < 500, response.status_code
    assert Game.objects.get(pk=lobby.pk).invitations_sent == 0
    with pytest.raises(services.ServiceError):
        services.invitation_address(game_id=lobby.pk, user=owner, who=who)
