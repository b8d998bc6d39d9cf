"""Game webhooks (issue 32): delivery of the three forms to a local HTTP receiver, the JSON form's HMAC,
retries and pausing, the SSRF rules, who may add a hook, dedupe, and that no message names a hidden card."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import Settings as SettingsWrapper

from accounts.models import User
from games import engine
from games.engine.names import card_name
from games.models import Game, GameWebhook, Notification, WebhookDelivery
from games.notify import webhooks as sender
from games.services import BadPayload, Forbidden
from games.services import webhooks as hooks

from .conftest import PASSWORD, create_started_game, play_human_move, seat_users, state_of
from .factories import conflict_step, fracture_window, game_from_state
from .http_stub import Received, http_stub

pytestmark = pytest.mark.django_db


@dataclass
class Receiver:
    """A webhook's receiver (:func:`tests.web.http_stub.http_stub`) that records every POST and answers
    ``status``."""

    url: str = ""
    requests: list[Received] = field(default_factory=list)
    status: int = 204

    def take(self, request: Received) -> int:
        """Record ``request``; the status to answer."""
        self.requests.append(request)
        return self.status

    def json(self) -> list[dict[str, Any]]:
        """The bodies received, parsed."""
        return [json.loads(r.body) for r in self.requests]


@pytest.fixture
def receiver(settings: SettingsWrapper) -> Iterator[Receiver]:
    settings.WEBHOOKS_ALLOW_LOCALHOST = True
    box = Receiver()
    with http_stub(box.take) as origin:
        box.url = f"{origin}/hook"
        yield box


def creator_of(game: Game) -> User:
    """The game's creator."""
    return User.objects.get(pk=game.created_by_id)


def add(game: Game, kind: str, url: str) -> GameWebhook:
    """Add a hook as the game's creator."""
    return hooks.webhook_add(game_id=game.pk, user=creator_of(game), kind=kind, url=url)


def next_turn(game: Game) -> Game:
    """Play human moves until a new turn begins (or the game ends)."""
    users = seat_users(game)
    start = state_of(game).turn
    for _ in range(500):
        if game.status != Game.Status.ACTIVE or state_of(game).turn > start:
            return game
        game = play_human_move(game, users)
    raise AssertionError("no new turn")


def rendered(delivery: WebhookDelivery) -> str:
    """Every text the delivery's hook would post: the posted body as JSON text."""
    hook = GameWebhook.objects.select_related("created_by").get(pk=delivery.hook_id)
    return json.dumps(sender.body_for(hook, delivery), ensure_ascii=False)


# --------------------------------------------------------------------------------------------------------
# Delivery of the three forms, and the signature
# --------------------------------------------------------------------------------------------------------


def test_turn_and_game_over_reach_each_kind_and_the_json_form_verifies(receiver: Receiver) -> None:
    game = create_started_game(humans=1, bots=1, seed=21)
    made = {kind: add(game, kind, receiver.url + f"/{kind}") for kind in ("discord", "slack", "json")}
    game = next_turn(game)
    turn_rows = WebhookDelivery.objects.filter(dedupe_key__contains=":turn:")
    assert turn_rows.count() >= 3
    assert sender.deliveries_send() == turn_rows.count()
    by_path = {r.path: r for r in receiver.requests}
    assert {"/hook/discord", "/hook/slack", "/hook/json"} <= set(by_path)
    url = settings.SITE_URL.rstrip("/") + reverse("games:detail", args=[game.pk])
    discord = json.loads(by_path["/hook/discord"].body)
    assert discord["allowed_mentions"] == {"parse": []}
    assert "turn in Test game" in discord["content"] and url in discord["content"]
    assert "turn in Test game" in json.loads(by_path["/hook/slack"].body)["text"]
    signed = by_path["/hook/json"]
    event = json.loads(signed.body)
    assert event["event"] == "turn" and event["game"] == {"id": game.pk, "title": "Test game", "url": url}
    assert signed.headers["User-Agent"].startswith("MedievalMastery-Webhooks/")
    stamp, signature = signed.headers["X-Mastery-Timestamp"], signed.headers["X-Mastery-Signature"]
    secret = made["json"].secret
    assert signature.startswith("sha256=")
    assert sender.verify_signature(secret, stamp, signed.body, signature)
    assert not sender.verify_signature(secret, stamp, signed.body + b" ", signature)  # tampered body
    assert not sender.verify_signature(secret, stamp, signed.body, signature, now=int(stamp) + 301)  # old
    assert not sender.verify_signature("0" * 64, stamp, signed.body, signature)  # another key
    assert not sender.verify_signature(secret, str(int(stamp) + 1), signed.body, signature)
    assert not sender.verify_signature(secret, "soon", signed.body, signature)
    for row in WebhookDelivery.objects.all():
        assert row.status == WebhookDelivery.Status.SENT and row.sent_at is not None

    # to the end: one result per hook
    users = seat_users(game)
    for _ in range(3000):
        if game.status != Game.Status.ACTIVE:
            break
        game = play_human_move(game, users)
    assert game.status == Game.Status.FINISHED
    WebhookDelivery.objects.filter(
        status=WebhookDelivery.Status.PENDING, dedupe_key__contains=":turn:"
    ).delete()
    receiver.requests.clear()
    assert sender.deliveries_send() == 3
    final = {r.path: json.loads(r.body) for r in receiver.requests}
    winner = game.seats.get(number=game.winners[0]).name
    assert final["/hook/json"]["event"] == "finished"
    assert [w["name"] for w in final["/hook/json"]["winners"]] == [
        game.seats.get(number=n).name for n in game.winners
    ]
    assert "is over" in final["/hook/discord"]["content"] and winner in final["/hook/discord"]["content"]
    assert "VP" in final["/hook/slack"]["text"] and url in final["/hook/slack"]["text"]
    sig = next(r for r in receiver.requests if r.path == "/hook/json")
    assert sender.verify_signature(
        made["json"].secret, sig.headers["X-Mastery-Timestamp"], sig.body, sig.headers["X-Mastery-Signature"]
    )


def test_the_message_is_in_the_creators_language(receiver: Receiver) -> None:
    game = create_started_game(humans=2, seed=4)
    creator = creator_of(game)
    creator.language = "sv"
    creator.save(update_fields=["language"])
    add(game, "slack", receiver.url)
    next_turn(game)
    row = WebhookDelivery.objects.get()
    hook = GameWebhook.objects.select_related("created_by").get()
    assert hook.created_by.language == "sv"
    assert sender.body_for(hook, row)["text"]  # rendered under the creator's language (translations aside)


def test_a_turn_posts_once(receiver: Receiver) -> None:
    game = create_started_game(humans=2, seed=4)
    add(game, "json", receiver.url)
    game = next_turn(game)
    state = state_of(game)
    opened = [p for p in engine.pending(state) if p.key == f"t{state.turn}:turn:{p.seat}"]
    assert opened
    rows = WebhookDelivery.objects.count()
    assert rows == 1
    queued = hooks.webhooks_queue(
        game=game,
        state=state,
        seats=list(game.seats.all()),
        opened=opened,
        finished=False,
        now=timezone.now(),
    )
    assert queued == 1 and WebhookDelivery.objects.count() == 1  # the same key: not stored twice
    assert sender.deliveries_send() == 1
    assert sender.deliveries_send() == 0
    assert len(receiver.requests) == 1


def test_no_row_without_hooks() -> None:
    game = create_started_game(humans=2, seed=4)
    next_turn(game)
    assert not WebhookDelivery.objects.exists()


# --------------------------------------------------------------------------------------------------------
# Retries, backoff, pause
# --------------------------------------------------------------------------------------------------------


def _due_now(row: WebhookDelivery) -> None:
    """Let the retry time pass."""
    WebhookDelivery.objects.filter(pk=row.pk).update(next_try_at=timezone.now() - timedelta(seconds=1))


def test_retries_back_off_then_the_hook_pauses_and_its_creator_is_told(receiver: Receiver) -> None:
    receiver.status = 500
    game = create_started_game(humans=2, seed=4)
    hook = add(game, "discord", receiver.url)
    next_turn(game)
    row = WebhookDelivery.objects.get()
    delays = []
    for attempt in range(1, hooks.PAUSE_AFTER + 1):
        before = timezone.now()
        assert sender.deliveries_send() == 0
        row.refresh_from_db()
        hook.refresh_from_db()
        assert row.attempts == attempt and row.last_error == "HTTP 500"
        assert hook.failures == attempt
        delays.append(round((row.next_try_at - before).total_seconds() / 60))
        assert sender.deliveries_send() == 0  # not due yet: nothing posted
        assert len(receiver.requests) == attempt
        _due_now(row)
    assert delays[:7] == [1, 2, 4, 8, 16, 32, 60]
    hook.refresh_from_db()
    row.refresh_from_db()
    assert hook.paused_at is not None and row.status == WebhookDelivery.Status.FAILED
    mail = Notification.objects.get(recipient=creator_of(game), kind=Notification.Kind.ACCOUNT)
    assert "paused" in mail.data["subject"].lower() and "Test game" in mail.data["subject"]
    assert "127.0.0.1" in mail.data["body"] and str(game.pk) in mail.data["body"]
    # paused: new turns are not queued; resuming starts again
    next_turn(Game.objects.get(pk=game.pk))
    assert WebhookDelivery.objects.count() == 1
    hooks.webhook_resume(game_id=game.pk, hook_id=hook.pk, user=creator_of(game))
    hook.refresh_from_db()
    assert hook.paused_at is None and hook.failures == 0


def test_a_success_resets_the_failure_count(receiver: Receiver) -> None:
    receiver.status = 503
    game = create_started_game(humans=2, seed=4)
    hook = add(game, "slack", receiver.url)
    next_turn(game)
    row = WebhookDelivery.objects.get()
    for _ in range(3):
        sender.deliveries_send()
        _due_now(row)
    hook.refresh_from_db()
    assert hook.failures == 3
    receiver.status = 200
    assert sender.deliveries_send() == 1
    hook.refresh_from_db()
    row.refresh_from_db()
    assert hook.failures == 0 and row.status == WebhookDelivery.Status.SENT and row.attempts == 4


def test_an_unreachable_receiver_is_a_failure_not_a_crash(settings: SettingsWrapper) -> None:
    settings.WEBHOOKS_ALLOW_LOCALHOST = True
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    game = create_started_game(humans=2, seed=4)
    add(game, "json", f"http://127.0.0.1:{port}/")
    next_turn(game)
    assert sender.deliveries_send() == 0
    row = WebhookDelivery.objects.get()
    assert row.attempts == 1 and row.last_error and row.status == WebhookDelivery.Status.PENDING


# --------------------------------------------------------------------------------------------------------
# SSRF
# --------------------------------------------------------------------------------------------------------


def fake_dns(monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]]) -> None:
    """Make ``socket.getaddrinfo`` answer ``answers`` for those host names (others: not found)."""

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "not found")
        out = []
        for ip in answers[host]:
            family = socket.AF_INET6 if ":" in ip else socket.AF_INET
            addr: tuple[Any, ...] = (ip, port, 0, 0) if family == socket.AF_INET6 else (ip, port)
            out.append((family, socket.SOCK_STREAM, 6, "", addr))
        return out

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/x",  # plain http
        "ftp://hooks.example.com/x",
        "https://10.0.0.1/x",
        "https://172.16.5.4/x",
        "https://192.168.1.1/x",
        "https://127.0.0.2/x",  # loopback other than the dev allowance
        "https://169.254.169.254/latest/meta-data",  # link-local (cloud metadata)
        "https://100.64.0.1/x",  # shared address space
        "https://0.0.0.0/x",
        "https://224.0.0.1/x",  # multicast
        "https://240.0.0.1/x",  # reserved
        "https://[::1]/x",
        "https://[fd00::1]/x",  # IPv6 unique local
        "https://[fe80::1]/x",  # IPv6 link-local
        "https://[::ffff:10.0.0.1]/x",  # IPv4-mapped private
        "https://[::]/x",
        "https://private.example/x",  # resolves to a private address
        "https://mixed.example/x",  # one public, one private address
        "https://nowhere.example/x",  # does not resolve
        "https://user:pw@public.example/x",
        "https:///x",
        "not a url",
        "",
    ],
)
def test_private_and_non_https_addresses_are_refused(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_dns(
        monkeypatch,
        {
            "private.example": ["10.1.2.3"],
            "mixed.example": ["93.184.216.34", "fd12::7"],
            "public.example": ["93.184.216.34"],
        },
    )
    game = create_started_game(humans=1, bots=1, seed=2)
    with pytest.raises(BadPayload) as refused:
        add(game, "json", url)
    assert refused.value.status == 400
    assert not GameWebhook.objects.exists()


def test_public_https_is_accepted_and_rebinding_is_refused_at_send_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake_dns(monkeypatch, {"public.example": ["93.184.216.34", "2606:2800:220:1::1"]})
    game = create_started_game(humans=2, seed=4)
    hook = add(game, "json", "https://public.example/hook")
    assert hook.url == "https://public.example/hook"
    next_turn(game)
    fake_dns(monkeypatch, {"public.example": ["127.0.0.1"]})  # the answer changes after the check
    assert sender.deliveries_send() == 0
    row = WebhookDelivery.objects.get()
    assert row.last_error.startswith("refused") and row.status == WebhookDelivery.Status.PENDING


def test_http_localhost_only_when_allowed(settings: SettingsWrapper) -> None:
    game = create_started_game(humans=1, bots=1, seed=2)
    settings.WEBHOOKS_ALLOW_LOCALHOST = True
    assert add(game, "slack", "http://127.0.0.1:9/x").pk
    with pytest.raises(BadPayload):
        add(game, "slack", "http://localhost:9/x")  # the name is not the allowance
    settings.WEBHOOKS_ALLOW_LOCALHOST = False
    for url in ("http://127.0.0.1:9/x", "https://127.0.0.1/x"):
        with pytest.raises(BadPayload):
            add(game, "slack", url)


# --------------------------------------------------------------------------------------------------------
# Who may, and the page
# --------------------------------------------------------------------------------------------------------


def logged_in(user: User) -> Client:
    client = Client()
    assert client.login(email=user.email, password=PASSWORD)
    return client


def test_only_the_creator_may_add_remove_or_resume(receiver: Receiver) -> None:
    game = create_started_game(humans=2, seed=4)
    other = next(u for u in seat_users(game).values() if u.pk != game.created_by_id)
    with pytest.raises(Forbidden):
        hooks.webhook_add(game_id=game.pk, user=other, kind="json", url=receiver.url)
    hook = add(game, "json", receiver.url)
    with pytest.raises(Forbidden):
        hooks.webhook_remove(game_id=game.pk, hook_id=hook.pk, user=other)
    with pytest.raises(Forbidden):
        hooks.webhook_resume(game_id=game.pk, hook_id=hook.pk, user=other)
    with pytest.raises(BadPayload):
        add(game, "telegram", receiver.url)
    assert GameWebhook.objects.count() == 1


def test_the_panel_adds_lists_resumes_and_removes_without_javascript(receiver: Receiver) -> None:
    game = create_started_game(humans=2, seed=4)
    creator = creator_of(game)
    other = next(u for u in seat_users(game).values() if u.pk != creator.pk)
    page = reverse("games:detail", args=[game.pk])
    owner = logged_in(creator)
    html = owner.get(page).content.decode()
    assert 'id="webhooks"' in html and reverse("games:webhooks", args=[game.pk]) in html
    assert 'id="webhooks"' not in logged_in(other).get(page).content.decode()

    bad = owner.post(reverse("games:webhooks", args=[game.pk]), {"kind": "json", "url": "http://10.0.0.1/"})
    assert bad.status_code == 400 and 'role="alert"' in bad.content.decode()
    assert owner.post(reverse("games:webhooks", args=[game.pk]), {"kind": "x", "url": "y"}).status_code == 400
    assert owner.post(reverse("games:webhooks", args=[game.pk]), {}).status_code == 400
    ok = owner.post(reverse("games:webhooks", args=[game.pk]), {"kind": "json", "url": receiver.url})
    assert ok.status_code == 302 and ok["Location"].endswith(page + "#webhooks")
    hook = GameWebhook.objects.get()
    listing = reverse("games:webhooks", args=[game.pk])
    html = owner.get(listing).content.decode()
    assert receiver.url in html and hook.secret in html and "active" in html
    panel = owner.get(listing, headers={"HX-Request": "true"}).content.decode()  # htmx: the panel alone
    assert panel.lstrip().startswith('<section id="webhooks"') and receiver.url in panel
    assert receiver.url not in owner.get(page).content.decode()  # the game page loads it, no query

    stranger = logged_in(other)
    assert stranger.get(reverse("games:webhooks", args=[game.pk])).status_code == 403
    assert (
        stranger.post(
            reverse("games:webhooks", args=[game.pk]), {"kind": "json", "url": receiver.url}
        ).status_code
        == 403
    )
    resume = reverse("games:webhook_resume", args=[game.pk, hook.pk])
    remove = reverse("games:webhook_remove", args=[game.pk, hook.pk])
    assert stranger.post(remove).status_code == 403
    assert owner.get(remove).status_code == 405

    GameWebhook.objects.filter(pk=hook.pk).update(paused_at=timezone.now(), failures=8)
    html = owner.get(listing).content.decode()
    assert "paused after 8 failures" in html and resume in html
    assert owner.post(resume).status_code == 302
    assert GameWebhook.objects.get().paused_at is None
    assert owner.post(remove).status_code == 302
    assert not GameWebhook.objects.exists()
    assert owner.post(remove).status_code == 404
    assert owner.post(reverse("games:webhook_remove", args=[10**9, 1])).status_code == 404


def test_csrf_is_required() -> None:
    game = create_started_game(humans=1, bots=1, seed=2)
    client = Client(enforce_csrf_checks=True)
    assert client.login(email=creator_of(game).email, password=PASSWORD)
    answer = client.post(reverse("games:webhooks", args=[game.pk]), {"kind": "json", "url": "https://x/"})
    assert answer.status_code == 403
    assert not GameWebhook.objects.exists()


# --------------------------------------------------------------------------------------------------------
# Hidden information
# --------------------------------------------------------------------------------------------------------


def all_card_words(state: engine.GameState) -> set[str]:
    """Every card's id and name in every language of the site, lower case."""
    words: set[str] = set()
    for card in state.content.cards:
        words.add(card.id.lower())
        words.add(card.name.lower())
        for lang, _name in settings.LANGUAGES:
            words.add(card_name(state.content, card.id, lang).lower())
    return words


@pytest.mark.parametrize("make", [fracture_window, conflict_step], ids=["sealed_window", "battle"])
def test_no_message_names_a_card_or_a_sealed_answer(
    make: Callable[[], engine.GameState], receiver: Receiver
) -> None:
    state = make()
    game = game_from_state(state, title="Quiet table")
    creator = creator_of(game)
    for kind in ("discord", "slack", "json"):
        hooks.webhook_add(game_id=game.pk, user=creator, kind=kind, url=receiver.url + f"/{kind}")
    words = all_card_words(state)
    users = seat_users(game)
    start = state.turn
    for _ in range(400):  # through the window or battle, to the next player's turn
        if game.status != Game.Status.ACTIVE or state_of(game).turn > start + 1:
            break
        game = play_human_move(game, users)
    rows = list(WebhookDelivery.objects.all())
    assert rows, "a new turn was posted"
    sender.deliveries_send()
    texts = [rendered(r) for r in rows] + [json.dumps(r.body) for r in rows]
    texts += [r.body.decode("utf-8") for r in receiver.requests]
    assert receiver.requests
    for text in texts:
        low = text.lower()
        found = sorted(w for w in words if w and w in low)
        assert not found, (found, text)
        assert '"hand"' not in text and '"cards"' not in text


def test_a_json_event_holds_only_public_fields(receiver: Receiver) -> None:
    game = create_started_game(humans=2, seed=4)
    add(game, "json", receiver.url)
    next_turn(game)
    before = int(time.time())
    sender.deliveries_send()
    after = int(time.time())
    (event,) = receiver.json()
    assert set(event) == {"event", "game", "turn", "player", "text", "delivery"}
    assert set(event["player"]) == {"seat", "name"}
    # the timestamp is the moment of the post (what a receiver's replay window is measured from)
    assert before <= int(receiver.requests[0].headers["X-Mastery-Timestamp"]) <= after
