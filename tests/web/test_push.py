"""issue 32, Web Push: pushes ride on the email outbox and go through a local push-service stub.

The stub (:class:`PushService`, a threaded HTTP server on 127.0.0.1) checks each push as a real push service
would: the VAPID ``Authorization`` (RFC 8292 §2–§3: ``vapid t=<JWT>, k=<public key>``, an ES256 signature
that verifies with ``k``, ``aud`` the endpoint's origin, ``exp`` in the future and within 24 hours,
``sub`` a ``mailto:`` or ``https:`` contact), the headers of RFC 8030 §5 (``TTL``, ``Urgency``) and RFC 8291
(``Content-Encoding: aes128gcm``), and then the test decrypts the payload with the subscription's own
private key (made here, as a browser would) to read what the device would show.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import http_ece  # type: ignore[import-untyped]
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from django.core import mail
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from py_vapid import Vapid  # type: ignore[import-untyped]
from pytest_django import Settings

from accounts.models import PushSubscription, User
from accounts.push import endpoint_allowed
from games import engine, tasks
from games.management.commands.vapid_keys import vapid_pair
from games.models import Game, Notification, Prompt, PushDelivery, Seat
from games.notify import push as notify_push
from games.notify.send import digests_send, outbox_flush
from games.selectors import waiting_count
from games.services import chat
from games.services.outbox import queue_write
from mastery import pwa

from .conftest import LOCMEM, Writes, create_started_game, create_user, seat_users, state_of
from .factories import conflict_step, crown_look, fracture_window, game_from_state
from .http_stub import Received, http_stub
from .test_email_hidden_information import CARD_ID, LANGS, Recipient, db_positions

ROOT = Path(__file__).resolve().parents[2]


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# --------------------------------------------------------------------------------------------------------
# The push-service stub
# --------------------------------------------------------------------------------------------------------


@dataclass
class PushService:
    """A local push service: answers ``status[path]`` (201 by default) after checking the push; records
    every push it took in ``received`` and every check that failed in ``problems``."""

    public_key: str
    received: list[Received] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    status: dict[str, int] = field(default_factory=dict)
    origin: str = ""

    def take(self, request: Received) -> int:
        """Check one push: a bad one is recorded in ``problems`` (400), a good one in ``received`` when
        its status is 201; the status to answer."""
        problem = self.check(request.path, request.headers, request.body)
        if problem is not None:
            self.problems.append(f"{request.path}: {problem}")
            return 400
        status = self.status.get(request.path, 201)
        if status == 201:
            self.received.append(request)
        return status

    def check(self, path: str, headers: Mapping[str, str], body: bytes) -> str | None:
        """What is wrong with one push (``None``: nothing)."""
        auth = headers.get("authorization", "")
        m = re.fullmatch(r"vapid t=([A-Za-z0-9_\-.]+),\s*k=([A-Za-z0-9_\-]+)", auth)
        if m is None:
            return f"no VAPID authorization: {auth!r}"
        token, key = m.groups()
        if key != self.public_key:
            return "k is not the site's public key"
        head, claims_part, signature = token.split(".")
        header = json.loads(unb64url(head))
        if header.get("alg") != "ES256" or header.get("typ") != "JWT":
            return f"JWT header {header}"
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
        raw = unb64url(signature)
        if len(raw) != 64:
            return "the signature is not a raw ES256 one"
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            public.verify(der, f"{head}.{claims_part}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "the JWT's signature does not verify"
        claims = json.loads(unb64url(claims_part))
        if claims.get("aud") != self.origin:
            return f"aud {claims.get('aud')!r} is not {self.origin!r}"
        if not time.time() < int(claims.get("exp", 0)) <= time.time() + 86_400:
            return f"exp {claims.get('exp')} is not within the next 24 hours"
        if not str(claims.get("sub", "")).startswith(("mailto:", "https:")):
            return f"sub {claims.get('sub')!r}"
        if headers.get("content-encoding") != "aes128gcm":
            return f"Content-Encoding {headers.get('content-encoding')!r}"
        if not headers.get("ttl", "").isdigit():
            return f"TTL {headers.get('ttl')!r}"
        if headers.get("urgency") not in ("very-low", "low", "normal", "high"):
            return f"Urgency {headers.get('urgency')!r}"
        if not body or len(body) > 4096:
            return f"a body of {len(body)} bytes"
        return None


@pytest.fixture
def push_service() -> Iterator[PushService]:
    """The stub, serving on a free port of 127.0.0.1 for one test; the site's VAPID keys are made here."""
    service = PushService(public_key="")
    with http_stub(service.take) as origin:
        service.origin = origin
        yield service


@pytest.fixture
def vapid(settings: Settings, push_service: PushService) -> PushService:
    """Fresh VAPID keys in the settings, known to the stub; email to Django's locmem outbox."""
    public, private = vapid_pair()
    settings.VAPID_PUBLIC_KEY = public
    settings.VAPID_PRIVATE_KEY = private
    settings.VAPID_SUBJECT = "mailto:ops@example.com"
    settings.EMAIL_BACKEND = LOCMEM
    push_service.public_key = public
    return push_service


@dataclass
class Device:
    """A browser's side of a subscription: its ECDH key pair and auth secret (RFC 8291 §3)."""

    subscription: PushSubscription
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes

    def read(self, body: bytes) -> dict[str, Any]:
        """Decrypt a push body (aes128gcm) as the browser would, and parse its JSON."""
        plain = http_ece.decrypt(
            body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm"
        )
        data: dict[str, Any] = json.loads(plain)
        return data


def subscribe(user: User, service: PushService, name: str) -> Device:
    """Subscribe ``user``'s device ``name`` with the stub as its push service."""
    key = ec.generate_private_key(ec.SECP256R1())
    auth = os.urandom(16)
    public = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    sub = PushSubscription.objects.create(
        user=user,
        endpoint=f"{service.origin}/push/{name}",
        p256dh=b64url(public),
        auth=b64url(auth),
        label=name,
    )
    return Device(sub, key, auth)


def pushes_to(service: PushService, device: Device) -> list[dict[str, Any]]:
    """The decrypted pushes the stub took for ``device``."""
    path = "/" + device.subscription.endpoint.split("/", 3)[3]
    return [device.read(r.body) for r in service.received if r.path == path]


def email_to(user: User, about: str = "") -> list[Any]:
    """The emails to ``user`` (whose subject contains ``about``)."""
    return [m for m in mail.outbox if m.to == [user.email] and about in m.subject]


# --------------------------------------------------------------------------------------------------------
# Sending
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_turn_is_pushed_with_the_emails_subject_and_a_link_to_the_decision(vapid: PushService) -> None:
    """The outbox sends the email, then the push goes to every device of the recipient (through the
    Celery tasks, eager here): VAPID-signed, aes128gcm, a TTL no longer than the deadline; it says whose
    turn and which game (the email's subject) and opens the game at ``#decision``."""
    alice, bob = create_user(display_name="Alice"), create_user(display_name="Bob")
    phones = {
        u.pk: [subscribe(u, vapid, f"{u.pk}-phone"), subscribe(u, vapid, f"{u.pk}-laptop")]
        for u in (alice, bob)
    }
    game = create_started_game(humans=[alice, bob], title="Castle table")
    mail.outbox = []
    tasks.notifications_send(game_id=game.pk)
    assert not vapid.problems, vapid.problems
    turn = Notification.objects.get(game=game, kind=Notification.Kind.TURN)
    user = turn.recipient
    [email] = email_to(user, "Your turn")
    for device in phones[user.pk]:
        [payload] = pushes_to(vapid, device)
        assert payload["title"] == email.subject.removeprefix("[Medieval Mastery] ")
        assert "Castle table" in payload["title"] and payload["title"].startswith("Your turn")
        assert payload["body"] in email.body
        assert payload["url"] == f"/games/{game.pk}/#decision"
        assert payload["tag"] == f"game-{game.pk}"
        assert payload["icon"].endswith("icons/icon-192.png")
        assert payload["badge"] == waiting_count(user) == 1
        device.subscription.refresh_from_db()
        assert device.subscription.last_success_at is not None
    other = bob if user == alice else alice
    assert all(pushes_to(vapid, d) == [] for d in phones[other.pk])  # nothing for them to decide
    [received, _] = vapid.received
    assert turn.seat is not None
    prompt = Prompt.objects.get(game=game, seat=turn.seat, key=turn.prompt_key)
    left = (prompt.deadline_at - timezone.now()).total_seconds()
    assert 0 < int(received.headers["ttl"]) <= min(left, 86_400) + 1
    assert received.headers["urgency"] == "high"
    assert set(PushDelivery.objects.values_list("status", flat=True)) == {PushDelivery.Status.SENT}
    # a second run sends nothing again
    assert notify_push.pushes_flush() == 0 and outbox_flush(game_id=game.pk) == 0
    assert len(vapid.received) == 2


@pytest.mark.django_db
@pytest.mark.parametrize("status", [404, 410])
def test_an_expired_subscription_is_deleted(vapid: PushService, status: int) -> None:
    """RFC 8030 §7.3: a push service that answers 404 or 410 has dropped the subscription: the site deletes
    it (and its pending pushes); the other devices still get theirs."""
    user = create_user()
    gone, kept = subscribe(user, vapid, "gone"), subscribe(user, vapid, "kept")
    vapid.status["/push/gone"] = status
    game = create_started_game(humans=[user], bots=1)
    tasks.notifications_send(game_id=game.pk)
    assert not vapid.problems
    assert not PushSubscription.objects.filter(pk=gone.subscription.pk).exists()
    assert not PushDelivery.objects.filter(subscription_id=gone.subscription.pk).exists()
    assert len(pushes_to(vapid, kept)) == 1


@pytest.mark.django_db
def test_a_failing_push_service_is_tried_again_with_backoff_then_given_up(vapid: PushService) -> None:
    """A 5xx (or an unreachable service) is retried after 1, 2, 4, 8 minutes, then the push is given up; the
    subscription stays."""
    user = create_user()
    device = subscribe(user, vapid, "flaky")
    vapid.status["/push/flaky"] = 503
    game = create_started_game(humans=[user], bots=1)
    tasks.notifications_send(game_id=game.pk)
    [d] = PushDelivery.objects.all()
    assert (d.status, d.attempts) == (PushDelivery.Status.PENDING, 1) and d.last_error.startswith("503")
    now = d.next_try_at
    assert notify_push.pushes_flush(now=now - timedelta(seconds=1)) == 0  # not due yet
    waits = []
    for _ in range(notify_push.PUSH_ATTEMPTS - 1):
        d.refresh_from_db()
        now = d.next_try_at
        assert notify_push.pushes_flush(now=now) == 0
        d.refresh_from_db()
        waits.append(d.next_try_at - now)
    assert d.status == PushDelivery.Status.FAILED and d.attempts == notify_push.PUSH_ATTEMPTS
    assert waits[:3] == [timedelta(minutes=2), timedelta(minutes=4), timedelta(minutes=8)]
    assert PushSubscription.objects.filter(pk=device.subscription.pk).exists()
    assert vapid.received == [] and not vapid.problems


@pytest.mark.django_db
def test_quiet_hours_hold_the_push_with_the_email(vapid: PushService) -> None:
    """A row that quiet hours hold back is neither emailed nor pushed; when they end, both go."""
    user = create_user()
    device = subscribe(user, vapid, "quiet")
    now = timezone.now()
    user.quiet_start = (now - timedelta(hours=1)).time().replace(microsecond=0)
    user.quiet_end = (now + timedelta(hours=2)).time().replace(microsecond=0)
    user.save(update_fields=["quiet_start", "quiet_end"])
    game = create_started_game(humans=[user], bots=1, time_control="relaxed")
    mail.outbox = []
    n = Notification.objects.get(game=game, recipient=user, kind=Notification.Kind.TURN)
    now = max(now, n.send_after) + timedelta(seconds=1)  # due, inside the quiet hours
    outbox_flush(game_id=game.pk, now=now)
    notify_push.pushes_flush(now=now)
    n.refresh_from_db()
    assert n.status == Notification.Status.PENDING and n.send_after > now + timedelta(hours=1)
    assert (
        email_to(user, "Your turn") == []
        and pushes_to(vapid, device) == []
        and not PushDelivery.objects.exists()
    )
    later = n.send_after + timedelta(seconds=1)
    assert outbox_flush(game_id=game.pk, now=later) == 2  # "has started" and "your turn"
    assert notify_push.pushes_flush(now=later) == 1
    assert len(email_to(user, "Your turn")) == 1 and len(pushes_to(vapid, device)) == 1


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["digest", "off"])
def test_digest_and_off_rows_are_never_pushed(vapid: PushService, mode: str) -> None:
    """A row held for the daily digest (or turned off) is not sent by email, so it is never pushed; nor is
    the digest itself."""
    user = create_user()
    device = subscribe(user, vapid, "digest")
    user.notify = {"turn": mode, "digest": "immediate"}
    user.save(update_fields=["notify"])
    game = create_started_game(humans=[user], bots=1)
    tasks.notifications_send(game_id=game.pk)
    n = Notification.objects.get(game=game, recipient=user, kind=Notification.Kind.TURN)
    assert n.status == (Notification.Status.DIGEST if mode == "digest" else Notification.Status.SKIPPED)
    later = timezone.now() + timedelta(days=1, hours=12)
    tasks.outbox_sweep()
    digests_send(now=later)
    notify_push.pushes_flush(now=later)
    assert not PushDelivery.objects.exists() and pushes_to(vapid, device) == []


@pytest.mark.django_db
def test_a_decision_made_before_its_push_is_not_pushed(vapid: PushService) -> None:
    """A push waiting for a retry whose decision was made meanwhile is dropped, not sent late."""
    user = create_user()
    device = subscribe(user, vapid, "late")
    vapid.status["/push/late"] = 500
    game = create_started_game(humans=[user], bots=1)
    tasks.notifications_send(game_id=game.pk)
    vapid.status.clear()
    Prompt.objects.filter(game=game).delete()
    [d] = PushDelivery.objects.all()
    notify_push.pushes_flush(now=d.next_try_at)
    d.refresh_from_db()
    assert (d.status, d.last_error) == (PushDelivery.Status.FAILED, "decided")
    assert pushes_to(vapid, device) == []


@pytest.mark.django_db
def test_no_keys_no_pushes(vapid: PushService, settings: Settings) -> None:
    """Without VAPID keys the site pushes nothing (and the email goes as before)."""
    settings.VAPID_PRIVATE_KEY = ""
    user = create_user()
    subscribe(user, vapid, "nokeys")
    game = create_started_game(humans=[user], bots=1)
    mail.outbox = []
    tasks.notifications_send(game_id=game.pk)
    assert (
        len(email_to(user, "Your turn")) == 1 and not PushDelivery.objects.exists() and vapid.received == []
    )


@pytest.mark.django_db
def test_a_private_message_is_pushed_to_its_reader_only(vapid: PushService, writes: Writes) -> None:
    """Chat follows the email: a private message (sent at once by default) is pushed to its reader, with
    the message's first line, and opens the conversation; nobody else's device hears of it."""
    game = writes(lambda: create_started_game(humans=3, seed=4))
    users = seat_users(game)
    devices = {seat: subscribe(u, vapid, f"chat{seat}") for seat, u in users.items()}
    vapid.received.clear()
    writes(
        lambda: chat.chat_post(game_id=game.pk, user=users[0], channel="p1", text="Fort at dawn\nsecond line")
    )
    [payload] = pushes_to(vapid, devices[1])
    [email] = email_to(users[1], "Private message")
    assert payload["title"] == email.subject.removeprefix("[Medieval Mastery] ")
    assert payload["body"].endswith("Fort at dawn") and "second line" not in payload["body"]
    assert payload["url"].startswith(f"/games/{game.pk}/?chat=") and payload["url"].endswith("#chat")
    assert pushes_to(vapid, devices[0]) == [] and pushes_to(vapid, devices[2]) == []
    assert not vapid.problems


# --------------------------------------------------------------------------------------------------------
# Hidden information
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_pushes_name_no_card_beyond_the_recipients_view(vapid: PushService) -> None:
    """R95, R97, R68 for pushes: in battles (face-down conflict cards), Fracture windows, a crown's look and
    positions of random games, every seat's push (title and body, in its language) names only cards its
    own view shows, no card id, and only what its email said: the title is the email's subject, the body a
    line of the email."""
    states = [conflict_step(), conflict_step(attacker_chose=True), fracture_window(), crown_look("insight")]
    states += [state for state, _steps in db_positions(len(states) + 16)[len(states) :]]
    pushed = 0
    for i, state in enumerate(states):
        game = game_from_state(state)
        seats = list(Seat.objects.filter(game=game).select_related("user"))
        devices: dict[int, Device] = {}
        for s in seats:
            assert s.user is not None
            s.user.language = LANGS[(i + s.number) % len(LANGS)]
            s.user.save(update_fields=["language"])
            devices[s.number] = subscribe(s.user, vapid, f"g{game.pk}s{s.number}")
        opened = engine.pending(state_of(game))
        queue_write(game=game, seats=seats, opened=opened, actor=None, now=timezone.now())
        mail.outbox = []
        outbox_flush(game_id=game.pk)
        notify_push.pushes_flush()
        for s in seats:
            assert s.user is not None
            payloads = pushes_to(vapid, devices[s.number])
            emails = email_to(s.user)
            assert len(payloads) == len(emails)
            r = Recipient(state_of(game), s.number)
            for payload, email in zip(payloads, emails, strict=True):
                where = f"push to seat {s.number} of game {game.pk}"
                assert payload["title"] == email.subject.removeprefix("[Medieval Mastery] ")
                assert payload["body"] in " ".join(email.body.split())
                assert not CARD_ID.search(json.dumps(payload)), where
                r.check([payload["title"], payload["body"]], s.user.language, where)
                pushed += 1
    assert not vapid.problems
    assert pushed >= len(states)


# --------------------------------------------------------------------------------------------------------
# Subscribing and unsubscribing
# --------------------------------------------------------------------------------------------------------


def subscription_json(endpoint: str = "https://push.example.com/send/abc") -> dict[str, Any]:
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    point = key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return {
        "endpoint": endpoint,
        "expirationTime": None,
        "keys": {"p256dh": b64url(point), "auth": b64url(os.urandom(16))},
    }


@pytest.mark.django_db
def test_subscribe_and_remove_a_device(client: Client, settings: Settings) -> None:
    """The profile's button posts the subscription's JSON; the device is listed with a Remove button, which
    deletes it. One row per endpoint: subscribing again updates it."""
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = vapid_pair()
    user = create_user()
    client.force_login(user)
    url = "/accounts/profile/push/subscribe/"
    ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
    body = subscription_json()
    response = client.post(url, json.dumps(body), content_type="application/json", headers={"User-Agent": ua})
    assert response.status_code == 201, response.content
    assert client.post(url, json.dumps(body), content_type="application/json").status_code == 201
    [sub] = PushSubscription.objects.filter(user=user)
    assert sub.endpoint == body["endpoint"] and sub.p256dh == body["keys"]["p256dh"]
    page = client.get("/accounts/profile/").content.decode()
    assert 'id="push"' in page and f'name="id" value="{sub.pk}"' in page
    key_url = "/accounts/profile/push/key/"
    assert client.get(key_url).json() == {"publicKey": settings.VAPID_PUBLIC_KEY, "known": False}
    assert client.get(key_url, {"endpoint": body["endpoint"]}).json()["known"] is True
    # someone else's device is not theirs to remove
    other = create_user()
    client.force_login(other)
    assert client.post("/accounts/profile/push/unsubscribe/", {"id": sub.pk}).status_code == 302
    assert PushSubscription.objects.filter(pk=sub.pk).exists()
    client.force_login(user)
    response = client.post("/accounts/profile/push/unsubscribe/", {"id": sub.pk})
    assert response.status_code == 302 and response["Location"].endswith("/accounts/profile/#push")
    assert not PushSubscription.objects.exists()
    # "Turn off on this device" names the endpoint
    client.post(url, json.dumps(body), content_type="application/json")
    response = client.post(
        "/accounts/profile/push/unsubscribe/",
        json.dumps({"endpoint": body["endpoint"]}),
        content_type="application/json",
    )
    assert response.status_code == 204 and not PushSubscription.objects.exists()


@pytest.mark.django_db
def test_subscribing_needs_a_login_and_a_csrf_token(settings: Settings) -> None:
    anonymous = Client()
    url = "/accounts/profile/push/subscribe/"
    assert (
        anonymous.post(url, json.dumps(subscription_json()), content_type="application/json").status_code
        == 403
    )
    response = anonymous.post("/accounts/profile/push/unsubscribe/", {"id": "1"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert anonymous.get(url).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(create_user())
    assert (
        strict.post(url, json.dumps(subscription_json()), content_type="application/json").status_code == 403
    )
    assert not PushSubscription.objects.exists()


def _bad_bodies() -> list[tuple[str, bytes]]:
    good = subscription_json()
    short = {**good, "keys": {**good["keys"], "auth": b64url(b"x" * 15)}}
    compressed = {**good, "keys": {**good["keys"], "p256dh": b64url(b"\x02" + b"x" * 64)}}
    return [
        ("not JSON", b"{nope"),
        ("not UTF-8", b"\xff\xfe"),
        ("a list", b"[]"),
        ("no keys", json.dumps({"endpoint": good["endpoint"]}).encode()),
        ("keys not an object", json.dumps({**good, "keys": "x"}).encode()),
        ("endpoint not a string", json.dumps({**good, "endpoint": 7}).encode()),
        ("bad base64", json.dumps({**good, "keys": {"p256dh": "!!!", "auth": "%%"}}).encode()),
        ("short auth", json.dumps(short).encode()),
        ("compressed point", json.dumps(compressed).encode()),
        ("ftp endpoint", json.dumps({**good, "endpoint": "ftp://push.example.com/x"}).encode()),
        ("private address", json.dumps({**good, "endpoint": "https://10.0.0.5/push"}).encode()),
        ("link-local", json.dumps({**good, "endpoint": "https://169.254.169.254/latest"}).encode()),
        ("credentials", json.dumps({**good, "endpoint": "https://u:p@push.example.com/x"}).encode()),
        ("too long", json.dumps({**good, "endpoint": "https://push.example.com/" + "a" * 5000}).encode()),
        ("empty", b""),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "body"), _bad_bodies(), ids=[n for n, _b in _bad_bodies()])
def test_a_malformed_subscription_is_a_400_never_a_500(client: Client, name: str, body: bytes) -> None:
    client.force_login(create_user())
    response = client.post("/accounts/profile/push/subscribe/", body, content_type="application/json")
    assert response.status_code == 400, (name, response.content)
    assert "error" in response.json() and not PushSubscription.objects.exists()


@pytest.mark.django_db
def test_malformed_unsubscribes_are_400s(client: Client) -> None:
    client.force_login(create_user())
    url = "/accounts/profile/push/unsubscribe/"
    assert client.post(url, b"{", content_type="application/json").status_code == 400
    assert client.post(url, b"[1]", content_type="application/json").status_code == 400
    assert client.post(url, {"id": "x"}).status_code == 400
    assert client.post(url, {}).status_code == 400


def test_endpoints_the_site_may_post_to(settings: Settings) -> None:
    """Only https to public hosts (and http://127.0.0.1 outside production): the site POSTs there."""
    assert endpoint_allowed("https://fcm.googleapis.com/fcm/send/abc")
    assert endpoint_allowed("http://127.0.0.1:8123/push/x")
    for bad in (
        "https://192.168.1.2/x",
        "https://[fd00::1]:9/x",
        "https://db.internal/x",
        "https://x:99999/",
        "http://push.example.com/x",
    ):
        assert not endpoint_allowed(bad), bad
    settings.PRODUCTION = True
    assert not endpoint_allowed("http://127.0.0.1:8123/push/x")
    assert not endpoint_allowed("https://localhost/push/x")


# --------------------------------------------------------------------------------------------------------
# The installable app, the keys
# --------------------------------------------------------------------------------------------------------


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.mark.django_db
def test_service_worker_manifest_and_offline_page(client: Client) -> None:
    """``/sw.js`` at the root (scope "/"), the manifest (JSON, standalone, theme colour of the site's
    header, PNG icons of the sizes it says, one maskable) linked from every page, and the offline page."""
    response = client.get("/sw.js")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/javascript")
    assert "no-cache" in response["Cache-Control"]
    text = response.content.decode()
    for needle in (
        "showNotification",
        "notificationclick",
        "setAppBadge",
        "clients.openWindow",
        '"offline": "/offline/"',
    ):
        assert needle in text, needle
    response = client.get("/manifest.webmanifest")
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert (
        manifest["display"] == "standalone"
        and manifest["scope"] == "/"
        and manifest["start_url"] == "/games/"
    )
    assert manifest["theme_color"] == pwa.THEME_COLOR == "#2b2118"
    assert "--ink: #2b2118" in (ROOT / "static/css/site.css").read_text()
    purposes = set()
    for icon in manifest["icons"]:
        path = ROOT / "static" / icon["src"].removeprefix("/static/")
        width, height = _png_size(path)
        assert icon["sizes"] == f"{width}x{height}" and icon["type"] == "image/png"
        purposes.add((width, icon["purpose"]))
    assert {(192, "any"), (512, "any"), (512, "maskable")} <= purposes
    page = client.get("/rules/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page and "js/pwa.js" in page
    offline = client.get("/offline/")
    assert offline.status_code == 200 and b"offline" in offline.content


def test_vapid_keys_command_writes_a_usable_pair(tmp_path: Path, settings: Settings) -> None:
    """``manage.py vapid_keys --write`` stores a pair pywebpush can sign with, keeps it on a second run,
    and the development settings read it when the environment has no keys; without --write it prints
    the settings lines."""
    settings.VAPID_KEYS_FILE = tmp_path / "vapid.json"
    call_command("vapid_keys", "--write", stdout=StringIO())
    keys = json.loads(settings.VAPID_KEYS_FILE.read_text())
    call_command("vapid_keys", "--write", stdout=StringIO())
    assert json.loads(settings.VAPID_KEYS_FILE.read_text()) == keys
    signer = Vapid.from_string(private_key=keys["VAPID_PRIVATE_KEY"])
    public = signer.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    assert b64url(public) == keys["VAPID_PUBLIC_KEY"]
    out = StringIO()
    call_command("vapid_keys", stdout=out)
    assert re.search(r"^VAPID_PUBLIC_KEY=[A-Za-z0-9_-]{87}$", out.getvalue(), re.M)
    assert re.search(r"^VAPID_PRIVATE_KEY=[A-Za-z0-9_-]{43}$", out.getvalue(), re.M)
    code = "import django; django.setup(); from django.conf import settings as s; print(s.VAPID_PUBLIC_KEY)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VAPID_", "DATABASE_URL", "MASTERY_ENV"))}
    env.update(MASTERY_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="mastery.settings")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.stdout.strip() == keys["VAPID_PUBLIC_KEY"], result.stderr


@pytest.mark.django_db
def test_a_game_over_push_opens_the_result(vapid: PushService) -> None:
    """Kinds beyond the decisions keep the email's main link: the game over opens the result."""
    user = create_user()
    device = subscribe(user, vapid, "over")
    game = create_started_game(humans=[user], bots=1)
    Notification.objects.filter(game=game).delete()
    n = Notification.objects.create(
        recipient=user,
        game=game,
        seat=0,
        kind=Notification.Kind.FINISHED,
        dedupe_key=f"{user.pk}:{game.pk}:end",
        created_at=timezone.now(),
        send_after=timezone.now(),
    )
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    outbox_flush(game_id=game.pk)
    notify_push.pushes_flush()
    n.refresh_from_db()
    assert n.status == Notification.Status.SENT
    [payload] = pushes_to(vapid, device)
    assert payload["url"] == f"/games/{game.pk}/#result" and payload["title"].endswith("is over")
