"""issue 3, JSON API (``games/api.py``, ``docs/api.md``): every endpoint and every status code with session
and token auth, per-viewer redaction checked by card identities, and "an illegal or stale action changes
nothing"."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory

from accounts.models import ApiToken, User
from games import engine, services
from games.engine.state import UNCHOSEN
from games.models import ActionRecord, Game
from tests.web.conftest import (
    create_started_game,
    create_user,
    pass_masked,
    play_human_move,
    play_until,
    seat_users,
    state_of,
)
from tests.web.factories import conflict_step, game_from_state

pytestmark = pytest.mark.django_db

ClientFor = Callable[[User], Client]


def session_client(user: User) -> Client:
    """A test client logged in with a Django session (CSRF not enforced, as Django's test client does)."""
    client = Client()
    client.force_login(user)
    return client


def token_client(user: User) -> Client:
    """A test client sending ``Authorization: Bearer <token>`` for a fresh API token of ``user``."""
    return Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(user)}")


@pytest.fixture(params=["session", "token"])
def client_for(request: pytest.FixtureRequest) -> ClientFor:
    """Each test using this runs twice: with session auth and with bearer-token auth."""
    return session_client if request.param == "session" else token_client


def post_action(client: Client, game_id: int | str, body: Any, **extra: Any) -> Any:
    """POST a JSON body (a str is sent as is) to the action endpoint."""
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post(f"/api/games/{game_id}/actions", data, content_type="application/json", **extra)


def fresh(game: Game) -> Game:
    """The game row as stored now."""
    return Game.objects.get(pk=game.pk)


def to_move(game: Game) -> list[int]:
    """Seats with an open prompt."""
    return sorted({p.seat for p in engine.pending(state_of(game))})


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    """The response is a JSON error ``{"error", "message", "params"}`` with this status and code."""
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    data = response.json()
    assert set(data) == {"error", "message", "params"}, data
    assert data["error"] == code, data
    assert isinstance(data["message"], str) and data["message"]
    return dict(data)


def secret_card_ids(game: Game, viewer: int | None) -> set[str]:
    """Card ids ``viewer`` must not see now: every deck (except the viewer's own Insight/Prosperity look),
    other seats' hands, and other seats' face-down conflict cards."""
    state = state_of(game)
    secret: set[str] = set()
    for p in state.players:
        secret |= {engine.card_id(p.seat, c) for c in p.deck}
        if p.seat != viewer:
            secret |= {engine.card_id(p.seat, c) for c in p.hand}
    b = state.battle
    if b is not None and not b.revealed:
        for seat, chosen in zip((b.attacker, b.defender), b.conflict, strict=True):
            if seat != viewer and chosen >= 0:
                secret.add(engine.card_id(seat, chosen))
    ch = state.choice
    if ch is not None and ch.seat == viewer:
        owner = ch.target if ch.kind == "prosperity" else ch.seat
        secret -= {engine.card_id(owner, c) for c in ch.cards}
    return secret


def public_card_ids(game: Game) -> set[str]:
    """Card ids every spectator has seen in the log (played, discarded, returned…): a card that was public
    once may later sit in a deck or hand, and its past mention reveals no deck order."""
    text = json.dumps(
        [
            {k: v for k, v in ev.items() if k != "private"}
            for r in ActionRecord.objects.filter(game=game)
            for ev in r.events
        ]
    )
    return set(CARD_ID.findall(text))


CARD_ID = re.compile(r"s\dc\d\d")


def assert_redacted(text: str, game: Game, viewer: int | None) -> None:
    """Redaction by card identity for one API response of ``viewer``.

    The ``view`` part (and any response without one) holds no secret card id at all; the whole response
    (including the log) holds none that was never public. No private event part and no RNG seed appear.
    """
    data = json.loads(text)
    secret = secret_card_ids(game, viewer)
    part = json.dumps(data["view"]) if isinstance(data, dict) and "view" in data else text
    leaked = sorted(set(CARD_ID.findall(part)) & secret)
    assert not leaked, f"seat {viewer} sees {leaked} in its view"
    leaked = sorted(set(CARD_ID.findall(text)) & (secret - public_card_ids(game)))
    assert not leaked, f"seat {viewer} sees {leaked}"
    assert '"private"' not in text and '"seed"' not in text and '"rng"' not in text


# --------------------------------------------------------------------------------------------------------
# GET /api/games/{id}
# --------------------------------------------------------------------------------------------------------


def test_game_view_for_a_seat(client_for: ClientFor) -> None:
    """200 with the caller's seat, the engine view for that seat, prompts, waiting list and log."""
    game = create_started_game(humans=2, seed=7)
    users = seat_users(game)
    active = to_move(game)[0]
    other = 1 - active
    data = client_for(users[active]).get(f"/api/games/{game.pk}").json()
    assert set(data) == {
        "id",
        "title",
        "status",
        "seq",
        "players",
        "seat",
        "view",
        "prompts",
        "waiting_for",
        "log",
    }
    assert data["id"] == game.pk and data["status"] == "active" and data["seq"] == game.seq
    assert data["seat"] == active
    assert data["view"]["viewer"] == active
    assert [p["seat"] for p in data["players"]] == [0, 1]
    assert data["prompts"] and all(p["deadline_at"] for p in data["prompts"])
    assert {p["key"] for p in data["prompts"]} <= {p.key for p in engine.pending(state_of(game))}
    assert data["waiting_for"] == []
    assert len(data["log"]) <= 40
    # the other player: no prompt, waits for the active player
    data = client_for(users[other]).get(f"/api/games/{game.pk}").json()
    assert data["seat"] == other and data["prompts"] == []
    assert data["waiting_for"] == [users[active].name]


def test_game_view_for_a_spectator_and_a_lobby(client_for: ClientFor) -> None:
    """A user without a seat gets the spectator view; before the start ``view`` is null."""
    game = create_started_game(humans=2, seed=7)
    outsider = create_user()
    response = client_for(outsider).get(f"/api/games/{game.pk}")
    assert response.status_code == 200
    data = response.json()
    assert data["seat"] is None and data["view"]["viewer"] is None and data["prompts"] == []
    assert all("hand" not in p for p in data["view"]["players"])
    assert_redacted(response.content.decode(), game, None)
    lobby = services.game_create(user=outsider, title="Lobby", players=3)
    data = client_for(outsider).get(f"/api/games/{lobby.pk}").json()
    assert data["status"] == "lobby" and data["view"] is None and data["seat"] == 0 and data["log"] == []


def test_game_view_hides_other_hands_and_decks(client_for: ClientFor) -> None:
    """Redaction by card identity: seat A's JSON holds A's hand but none of B's hand card ids and no deck
    card id of anybody; the log's private fields are merged only for their owner."""
    game = create_started_game(humans=2, seed=7)
    users = seat_users(game)
    clients = {seat: client_for(user) for seat, user in users.items()}
    spectator = client_for(create_user())
    private_seen = False
    while game.seq < 60 and game.status == Game.Status.ACTIVE:  # check after every action
        private_seen = (
            private_seen or ActionRecord.objects.filter(game=game, events__icontains="private").exists()
        )
        for seat, client in clients.items():
            text = client.get(f"/api/games/{game.pk}").content.decode()
            assert_redacted(text, game, seat)
            own = [engine.card_id(seat, c) for c in state_of(game).players[seat].hand]
            assert all(f'"{cid}"' in text for cid in own)  # the check can see card ids at all
            if game.seq % 10 == 0:
                assert_redacted(client.get(f"/api/games/{game.pk}/legal").content.decode(), game, seat)
        assert_redacted(spectator.get(f"/api/games/{game.pk}").content.decode(), game, None)
        game = play_human_move(game, users)
    assert private_seen, "no private event (draw, face-down card) was played: the log check proved nothing"


def test_face_down_conflict_card_is_hidden() -> None:
    """During the conflict step, the card one side placed face down is invisible to the other side and to
    spectators, but shown to its owner."""
    game = game_from_state(conflict_step(attacker_chose=True))
    users = seat_users(game)
    b = state_of(game).battle
    assert b is not None and b.stage == "conflict" and not b.revealed
    assert b.conflict[0] != UNCHOSEN and b.conflict[1] == UNCHOSEN
    chosen = engine.card_id(b.attacker, b.conflict[0])
    assert chosen in secret_card_ids(game, b.defender) and chosen in secret_card_ids(game, None)
    for seat, user in users.items():
        text = token_client(user).get(f"/api/games/{game.pk}").content.decode()
        assert_redacted(text, game, seat)
    text = token_client(create_user()).get(f"/api/games/{game.pk}").content.decode()
    assert_redacted(text, game, None)
    mine = token_client(users[b.attacker]).get(f"/api/games/{game.pk}").content.decode()
    assert f'"{chosen}"' in mine


# --------------------------------------------------------------------------------------------------------
# GET /api/games/{id}/legal
# --------------------------------------------------------------------------------------------------------


def test_legal_actions(client_for: ClientFor) -> None:
    """The caller's legal payloads equal the engine's; a spectator and a waiting seat get none."""
    game = create_started_game(humans=2, seed=7)
    users = seat_users(game)
    active = to_move(game)[0]
    data = client_for(users[active]).get(f"/api/games/{game.pk}/legal").json()
    expected = [a.to_dict() for a in engine.legal_actions(state_of(game), active)]
    assert data == {"seq": game.seq, "seat": active, "actions": expected} and expected
    data = client_for(users[1 - active]).get(f"/api/games/{game.pk}/legal").json()
    assert data["seat"] == 1 - active and data["actions"] == []
    data = client_for(create_user()).get(f"/api/games/{game.pk}/legal").json()
    assert data == {"seq": game.seq, "seat": None, "actions": []}


# --------------------------------------------------------------------------------------------------------
# POST /api/games/{id}/actions
# --------------------------------------------------------------------------------------------------------


def test_submit_applies_and_redacts_bot_records(client_for: ClientFor) -> None:
    """200: the action is stored (source ``api``); bot records show only seq, seat, source and type."""
    game = create_started_game(humans=1, bots=2, seed=11)
    user = seat_users(game)
    (seat,) = user
    client = client_for(user[seat])
    saw_bot = False
    for _ in range(40):
        legal = client.get(f"/api/games/{game.pk}/legal").json()
        if not legal["actions"]:
            if pass_masked(game):  # the game waited for the server's masked passes (issue 14)
                game = fresh(game)
                continue
            break
        action = next((a for a in legal["actions"] if a["type"] == "end_turn"), legal["actions"][0])
        response = post_action(client, game.pk, {"expected_seq": legal["seq"], "action": action})
        assert response.status_code == 200, response.content
        data = response.json()
        game = fresh(game)
        assert data["seq"] == game.seq
        first = data["applied"][0]
        assert first == {"seq": legal["seq"] + 1, "seat": seat, "source": "api", "type": action["type"]} | {
            "action": action
        }
        assert ActionRecord.objects.get(game=game, seq=first["seq"]).source == "api"
        assert [r["seq"] for r in data["applied"]] == list(range(legal["seq"] + 1, game.seq + 1))
        for record in data["applied"][1:]:
            if record["seat"] != seat:
                saw_bot = True
                assert set(record) == {"seq", "seat", "source", "type"}
                # another seat's window answer never tells how it was given (issue 14)
                assert record["source"] == ("window" if record["type"] == "respond" else "bot")
        if saw_bot:
            break
    assert saw_bot, "no bot acted after 40 human actions"


def test_malformed_requests_are_400_and_change_nothing(client_for: ClientFor) -> None:
    """Bad JSON, wrong types, unknown fields, negative or huge numbers, a malformed action: 400."""
    game = create_started_game(humans=2, seed=7)
    users = seat_users(game)
    client = client_for(users[to_move(game)[0]])
    seq, digest = game.seq, game.state_hash
    bodies: list[Any] = [
        "{",
        "[]",
        "null",
        "42",
        {},
        {"action": {"type": "end_turn"}},
        {"expected_seq": "x", "action": {"type": "end_turn"}},
        {"expected_seq": 1.5, "action": {"type": "end_turn"}},
        {"expected_seq": True, "action": {"type": "end_turn"}},
        {"expected_seq": -1, "action": {"type": "end_turn"}},
        {"expected_seq": 2**70, "action": {"type": "end_turn"}},
        {"expected_seq": seq, "action": ["end_turn"]},
        {"expected_seq": seq, "action": {"type": "end_turn"}, "extra": 1},
        {"expected_seq": seq, "action": {"type": "end_turn"}, "prompt_key": ""},
        {"expected_seq": seq, "action": {"type": "end_turn"}, "prompt_key": "k" * 500},
    ]
    for body in bodies:
        data = assert_error(
            post_action(client, game.pk, body), 400, "invalid_request" if body != "{" else "bad_request"
        )
    for action in ({"type": "teleport"}, {}, {"type": "advance", "to": "t1"}, {"type": "end_turn", "x": 1}):
        data = assert_error(
            post_action(client, game.pk, {"expected_seq": seq, "action": action}), 400, "invalid_payload"
        )
    assert "field" in data["params"]
    for path in ("0", "-1", "abc", str(2**63), "9" * 40, "1.5"):
        assert_error(client.get(f"/api/games/{path}"), 400, "invalid_request")
        assert_error(client.get(f"/api/games/{path}/legal"), 400, "invalid_request")
        assert_error(
            post_action(client, path, {"expected_seq": 0, "action": {"type": "end_turn"}}),
            400,
            "invalid_request",
        )
    huge = json.dumps({"expected_seq": seq, "action": {"type": "end_turn", "x": "a" * (3 * 2**20)}})
    assert_error(post_action(client, game.pk, huge), 413, "request_too_large")
    game = fresh(game)
    assert (game.seq, game.state_hash) == (seq, digest)


def test_unauthenticated_is_401() -> None:
    """No credentials, an unknown token, a token of an inactive user, a non-bearer scheme: 401."""
    game = create_started_game(humans=1, bots=1, seed=3)
    user = next(iter(seat_users(game).values()))
    inactive = create_user()
    inactive_token = ApiToken.issue(inactive)
    inactive.is_active = False
    inactive.save()
    clients = [
        Client(),
        Client(HTTP_AUTHORIZATION="Bearer not-a-token"),
        Client(HTTP_AUTHORIZATION="Bearer "),
        Client(HTTP_AUTHORIZATION=f"Bearer {inactive_token}"),
        Client(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(user)}"),
        Client(HTTP_AUTHORIZATION="Bearer " + "x" * 5000),
    ]
    for client in clients:
        for url in (f"/api/games/{game.pk}", f"/api/games/{game.pk}/legal", "/api/me/games"):
            response = client.get(url)
            assert_error(response, 401, "unauthenticated")
            assert response["WWW-Authenticate"] == "Bearer"
        assert_error(
            post_action(client, game.pk, {"expected_seq": game.seq, "action": {}}), 401, "unauthenticated"
        )
    assert fresh(game).seq == game.seq


def test_acting_without_a_seat_is_403(client_for: ClientFor) -> None:
    """A user with no seat in the game cannot act in it (403), and nothing changes."""
    game = create_started_game(humans=2, seed=7)
    response = post_action(
        client_for(create_user()), game.pk, {"expected_seq": game.seq, "action": {"type": "end_turn"}}
    )
    assert_error(response, 403, "forbidden")
    assert fresh(game).state_hash == game.state_hash


def test_session_post_needs_csrf_token_bearer_does_not() -> None:
    """Session POSTs are CSRF-checked (403 without the token, 200 with it); bearer POSTs are not."""
    game = create_started_game(humans=2, seed=7)
    users = seat_users(game)
    user = users[to_move(game)[0]]
    legal = token_client(user).get(f"/api/games/{game.pk}/legal").json()
    body = {"expected_seq": legal["seq"], "action": legal["actions"][0]}
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert_error(post_action(client, game.pk, body), 403, "forbidden")
    assert fresh(game).seq == game.seq
    request = RequestFactory().get("/")
    token = get_token(request)
    client.cookies[settings.CSRF_COOKIE_NAME] = request.META["CSRF_COOKIE"]
    assert post_action(client, game.pk, body, HTTP_X_CSRFTOKEN=token).status_code == 200
    game = fresh(game)
    bearer = Client(
        enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(users[to_move(game)[0]])}"
    )
    legal = bearer.get(f"/api/games/{game.pk}/legal").json()
    response = post_action(bearer, game.pk, {"expected_seq": legal["seq"], "action": legal["actions"][0]})
    assert response.status_code == 200, response.content


def test_unknown_game_is_404(client_for: ClientFor) -> None:
    """Every game endpoint answers 404 for an id that does not exist."""
    client = client_for(create_user())
    missing = (Game.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000
    for url in (f"/api/games/{missing}", f"/api/games/{missing}/legal", f"/api/games/{2**63 - 1}"):
        assert_error(client.get(url), 404, "not_found")
    assert_error(
        post_action(client, missing, {"expected_seq": 0, "action": {"type": "end_turn"}}), 404, "not_found"
    )


def test_stale_expected_seq_is_409_and_changes_nothing(client_for: ClientFor) -> None:
    """A stale ``expected_seq`` is 409 ``stale_state`` carrying the current seq; the state is untouched."""
    game = create_started_game(humans=2, seed=7)
    users = seat_users(game)
    seat = to_move(game)[0]
    client = client_for(users[seat])
    action = next(a.to_dict() for a in engine.legal_actions(state_of(game), seat))
    count = ActionRecord.objects.filter(game=game).count()
    for stale in (game.seq + 1, game.seq + 1000, 2**63 - 1):
        data = assert_error(
            post_action(client, game.pk, {"expected_seq": stale, "action": action}), 409, "stale_state"
        )
        assert data["params"]["seq"] == game.seq
    after = fresh(game)
    assert (after.seq, after.state_hash) == (game.seq, game.state_hash)
    assert ActionRecord.objects.filter(game=game).count() == count


def test_game_not_in_progress_is_409(client_for: ClientFor) -> None:
    """Acting in a lobby (not started) is 409 ``conflict``."""
    user = create_user()
    lobby = services.game_create(user=user, title="Lobby", players=2)
    response = post_action(client_for(user), lobby.pk, {"expected_seq": 0, "action": {"type": "end_turn"}})
    assert_error(response, 409, "conflict")


def test_illegal_action_is_422_and_changes_nothing(client_for: ClientFor) -> None:
    """A well-formed action the rules forbid is 422 ``illegal_action`` with the engine's code; the seq,
    state hash and log are unchanged."""
    game = create_started_game(humans=2, seed=7)
    users = seat_users(game)
    active = to_move(game)[0]
    count = ActionRecord.objects.filter(game=game).count()
    # the waiting seat tries to end the active player's turn
    response = post_action(
        client_for(users[1 - active]), game.pk, {"expected_seq": game.seq, "action": {"type": "end_turn"}}
    )
    data = assert_error(response, 422, "illegal_action")
    assert data["params"]["engine_code"] == engine.ErrorCode.NOT_YOUR_DECISION.value
    # the active player advances with far too many knights
    response = post_action(
        client_for(users[active]),
        game.pk,
        {"expected_seq": game.seq, "action": {"type": "advance", "to": "t0", "knights": 999}},
    )
    data = assert_error(response, 422, "illegal_action")
    assert data["params"]["engine_code"] in {code.value for code in engine.ErrorCode}
    after = fresh(game)
    assert (after.seq, after.state_hash) == (game.seq, game.state_hash)
    assert ActionRecord.objects.filter(game=game).count() == count


def test_out_of_turn_answer_with_prompt_key() -> None:
    """Both conflict cards are chosen at once: the second chooser may send the seq it saw plus the open
    ``prompt_key`` and is not refused as stale; without the key the same request is 409."""
    game = game_from_state(conflict_step())
    users = seat_users(game)
    prompts = {p.seat: p for p in engine.pending(state_of(game)) if p.kind == "conflict"}
    assert len(prompts) == 2
    first, second = sorted(prompts)
    seen = game.seq
    clients = {seat: token_client(users[seat]) for seat in prompts}
    legal = {seat: clients[seat].get(f"/api/games/{game.pk}/legal").json()["actions"] for seat in prompts}
    response = post_action(clients[first], game.pk, {"expected_seq": seen, "action": legal[first][0]})
    assert response.status_code == 200, response.content
    body = {"expected_seq": seen, "action": legal[second][0]}
    assert_error(post_action(clients[second], game.pk, body), 409, "stale_state")
    response = post_action(clients[second], game.pk, body | {"prompt_key": prompts[second].key})
    assert response.status_code == 200, response.content


# --------------------------------------------------------------------------------------------------------
# GET /api/me/games
# --------------------------------------------------------------------------------------------------------


def test_my_games(client_for: ClientFor) -> None:
    """The caller's games with their seat and whether they wait for the caller; games waiting for the
    caller come first; public lobbies the caller is not in are not listed."""
    anna, bob = create_user(display_name="Anna"), create_user(display_name="Bob")
    game = create_started_game(humans=[anna, bob], seed=7)
    users = seat_users(game)
    anna_seat = next(s for s, u in users.items() if u == anna)
    waiting_for_anna = anna_seat in to_move(game)
    lobby = services.game_create(user=anna, title="Anna's lobby", players=3)
    services.game_create(user=bob, title="Bob's public lobby", players=3)
    data = client_for(anna).get("/api/me/games").json()
    by_id = {g["id"]: g for g in data["games"]}
    assert set(by_id) == {game.pk, lobby.pk}
    assert by_id[game.pk] | {"deadline_at": None} == {
        "id": game.pk,
        "title": game.title,
        "status": "active",
        "seq": game.seq,
        "seat": anna_seat,
        "waiting_for_me": waiting_for_anna,
        "deadline_at": None,
    }
    assert (by_id[game.pk]["deadline_at"] is not None) == waiting_for_anna
    assert by_id[lobby.pk]["status"] == "lobby" and by_id[lobby.pk]["seat"] == 0
    flags = [g["waiting_for_me"] for g in data["games"]]
    assert flags == sorted(flags, reverse=True)


def test_game_view_query_count_does_not_grow(django_assert_max_num_queries: Any) -> None:
    """The API view issues a bounded number of queries, whatever the log length."""
    game = create_started_game(humans=2, seed=7)
    users = seat_users(game)
    client = token_client(users[0])
    client.get(f"/api/games/{game.pk}")  # warm caches
    with django_assert_max_num_queries(8):
        assert client.get(f"/api/games/{game.pk}").status_code == 200
    game = play_until(game, lambda g: g.seq >= 60, limit=500)
    with django_assert_max_num_queries(8):
        assert client.get(f"/api/games/{game.pk}").status_code == 200


# --------------------------------------------------------------------------------------------------------
# Fuzzing the action endpoint with near-valid payloads (reaches the engine, unlike random JSON)
# --------------------------------------------------------------------------------------------------------

ACTION_TYPES = [
    "call_to_arms",
    "tactical_advance",
    "fracture",
    "use_crown",
    "redistribute",
    "advance",
    "decline_advance",
    "finish_redistribution",
    "end_turn",
    "respond",
    "choose_conflict",
    "play_support",
    "pass_support",
    "discard_choice",
    "insight_order",
    "prosperity_choice",
    "fear_choice",
]
FIELDS = ["target", "player", "artefact", "card", "moves", "to", "knights", "fracture", "cards", "order"]
FIELDS += ["discard", "use", "from"]


def near_valid_action(rng: random.Random, state: engine.GameState) -> dict[str, Any]:
    """A payload with a real type tag and up to three fields drawn from real ids and edge values."""
    ids = [f"t{i}" for i in range(len(state.board.kinds) + 2)] + ["castle", "t-1", "t999999", "s0c1", ""]
    ids += [engine.card_id(s, c) for s in range(state.num_players + 1) for c in (0, 5, 17, 18)]
    ids += list(state.content.artefacts)
    ints = [-(2**70), -1, 0, 1, 2, 3, 5, 6, 50, 999_999, 10**6, 2**63]

    def leaf() -> Any:
        return rng.choice(
            [None, True, False, rng.choice(ints), rng.choice(ids), "x" * rng.randrange(70), 1.5]
        )

    def value() -> Any:
        kind = rng.randrange(4)
        if kind == 0:
            return leaf()
        if kind == 1:
            return rng.sample(ids, rng.randrange(4))
        if kind == 2:
            return [
                {"from": rng.choice(ids), "to": rng.choice(ids), "knights": rng.choice(ints)}
                for _ in range(rng.randrange(4))
            ]
        return [leaf() for _ in range(rng.randrange(3))]

    fields = {rng.choice(FIELDS): value() for _ in range(rng.randrange(4))}
    return {"type": rng.choice(ACTION_TYPES), **fields}


def test_fuzzed_actions_never_5xx() -> None:
    """300 near-valid actions (real types, real and absurd ids and counts) mixed with legal moves, sent with
    the current ``expected_seq``, some with a ``prompt_key``, over several games against bots: every answer
    is 200/400/409/422, a refused one changes nothing, and every game still replays (``game_verify``)."""
    rng = random.Random(3)
    statuses: set[int] = set()
    games: list[Game] = []
    client = Client()
    for _ in range(300):
        if not games or fresh(games[-1]).status != Game.Status.ACTIVE:
            games.append(create_started_game(humans=1, bots=rng.choice([1, 2, 3]), seed=len(games) + 21))
            client = token_client(next(iter(seat_users(games[-1]).values())))
        current = fresh(games[-1])
        legal = client.get(f"/api/games/{current.pk}/legal").json()["actions"]
        if legal and rng.random() < 0.3:
            action = rng.choice(legal)
        else:
            action = near_valid_action(rng, state_of(current))
        body: dict[str, Any] = {"expected_seq": current.seq, "action": action}
        if rng.random() < 0.3:
            body["prompt_key"] = rng.choice([p.key for p in engine.pending(state_of(current))] + ["nope"])
        response = post_action(client, current.pk, body)
        statuses.add(response.status_code)
        assert response.status_code in (200, 400, 409, 422), (body, response.content)
        if response.status_code != 200:
            after = fresh(current)
            assert (after.seq, after.state_hash) == (current.seq, current.state_hash)
    assert {200, 400, 422} <= statuses
    for game in games:
        ok, message = services.game_verify(game_id=game.pk)
        assert ok, message


@pytest.mark.django_db
def test_private_game_is_404_for_non_members_in_the_api(client: Any) -> None:
    """A private game is visible only to its seated players: the API answers 404 to anyone else, like the
    pages do."""
    from accounts.models import ApiToken
    from games import services
    from tests.web.conftest import create_user

    owner = create_user("owner-private@example.com")
    outsider = create_user("outsider-private@example.com")
    game = services.game_create(user=owner, title="Secret", players=2, private=True)
    services.seats_fill_with_bots(game_id=game.pk, user=owner)
    services.game_start(game_id=game.pk, user=owner, seed=3)
    outsider_auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(outsider)}"}
    owner_auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(owner)}"}
    for path in (f"/api/games/{game.pk}", f"/api/games/{game.pk}/legal"):
        assert client.get(path, **outsider_auth).status_code == 404
        assert client.get(path, **owner_auth).status_code == 200
