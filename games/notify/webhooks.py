"""Game webhooks, the posting side (issue 32): the bodies of the three kinds, the JSON form's signature,
and the sender that posts the due deliveries queued by :mod:`games.services.webhooks`.

Bodies (the text is in the hook creator's language, built from the queued event, which holds only what a
spectator sees: whose turn, the turn number, the winners and VP, the game's title and link):

* Discord (docs: discord.com/developers/docs/resources/webhook, "Execute Webhook"):
  ``{"content": "<text>", "allowed_mentions": {"parse": []}}`` (no ``@everyone`` or user pings, whatever a
  title or name says; ``content`` cut to Discord's 2000 characters).
* Slack (docs: api.slack.com/messaging/webhooks, and "Formatting text": ``&``, ``<``, ``>`` escaped):
  ``{"text": "<text>"}``.
* Signed JSON: the event itself plus ``text`` and ``delivery``:
  ``{"event": "turn", "game": {"id", "title", "url"}, "turn", "player": {"seat", "name"}, "text",
  "delivery"}`` or ``{"event": "finished", "game": …, "turn", "winners": [{"seat", "name", "vp"}],
  "scores": [...], "text", "delivery"}``.

Signature of the JSON form (HMAC, RFC 2104, with SHA-256): headers ``X-Mastery-Timestamp: <unix
seconds>`` and ``X-Mastery-Signature: sha256=<hex>``, where ``<hex>`` is
``HMAC-SHA256(key=secret.encode("utf-8"), msg=timestamp + "." + body)`` over the exact body bytes; the
hook's ``secret`` (shown to the table's creator) is the key as written (64 hex characters, used as text).
A receiver checks it with :func:`verify_signature` (constant-time; a timestamp older than 5 minutes is
refused, against replays). ``X-Mastery-Delivery`` is the delivery's id (the same on every retry), for
receivers that want to drop a repeat.

The sender resolves the host again at every post, refuses a private address then too, and connects to the
address it checked (TLS still checks the certificate against the host name): a DNS answer that changes
between the check and the connection (DNS rebinding) cannot reach the private network. Redirects are not
followed. Any answer but 2xx, a timeout (:data:`TIMEOUT`) or a refused address is a failure, retried with
backoff (:mod:`games.services.webhooks`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import socket
import ssl
import time
from http.client import HTTPConnection, HTTPException, HTTPSConnection
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import GameWebhook, WebhookDelivery
from games.notify.account_mail import message_data
from games.services import webhooks as hook_service
from games.services.errors import ServiceError

log = logging.getLogger(__name__)

#: Seconds to connect and to wait for the answer.
TIMEOUT = 5.0
#: How long a signature stays valid for :func:`verify_signature` by default, seconds.
TOLERANCE = 300
#: Discord's limit on ``content`` (characters).
DISCORD_MAX = 2000
TIMESTAMP_HEADER = "X-Mastery-Timestamp"
SIGNATURE_HEADER = "X-Mastery-Signature"


def user_agent() -> str:
    """The ``User-Agent`` of every post: ``MedievalMastery-Webhooks/1 (+<SITE_URL>)``."""
    return f"MedievalMastery-Webhooks/1 (+{settings.SITE_URL})"


def message_text(event: dict[str, Any]) -> str:
    """The sentence of a queued event in the active language, with the game's link: "It is Alice's turn
    in Friday table (turn 3): https://…" or "Friday table is over after 41 turns. Winner: Alice (12 VP).
    Scores: … https://…". Reads only the event's public fields."""
    game = event.get("game") or {}
    title, url = str(game.get("title", "")), str(game.get("url", ""))
    if event.get("event") == "finished":
        winners = event.get("winners") or []
        names = ", ".join(f"{w['name']} ({w['vp']} VP)" for w in winners)
        scores = ", ".join(f"{s['name']} {s['vp']} VP" for s in event.get("scores") or [])
        head = _("%(title)s is over after %(turn)d turns.") % {"title": title, "turn": int(event["turn"])}
        won = ngettext("Winner: %(names)s.", "Winners: %(names)s.", len(winners)) % {"names": names}
        return f"{head} {won} " + _("Scores: %(scores)s.") % {"scores": scores} + f" {url}"
    player = event.get("player") or {}
    return _("It is %(name)s's turn in %(title)s (turn %(turn)d): %(url)s") % {
        "name": player.get("name", ""),
        "title": title,
        "turn": int(event.get("turn", 0)),
        "url": url,
    }


def slack_escape(text: str) -> str:
    """Escape Slack's control characters (``&``, ``<``, ``>``), so a title cannot ping ``<!channel>``."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def body_for(hook: GameWebhook, delivery: WebhookDelivery) -> dict[str, Any]:
    """The JSON object posted to ``hook`` for ``delivery`` (module docstring: the three forms), its text in
    the hook creator's language."""
    event = dict(delivery.body)
    with translation.override(hook.created_by.language or settings.LANGUAGE_CODE):
        text = message_text(event)
    if hook.kind == GameWebhook.Kind.DISCORD:
        return {"content": text[:DISCORD_MAX], "allowed_mentions": {"parse": []}}
    if hook.kind == GameWebhook.Kind.SLACK:
        return {"text": slack_escape(text)}
    return event | {"text": text, "delivery": delivery.pk}


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The ``X-Mastery-Signature`` value: ``"sha256=" + hex(HMAC-SHA256(secret, timestamp + "." + body))``
    (RFC 2104 with SHA-256; the key is ``secret`` as UTF-8 text, the timestamp decimal unix seconds)."""
    mac = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify_signature(
    secret: str,
    timestamp: str,
    body: bytes,
    signature: str,
    *,
    tolerance: int = TOLERANCE,
    now: float | None = None,
) -> bool:
    """Check a signed JSON post, as its receiver does.

    Args:
        secret: the hook's secret (shown to the table's creator on the game page).
        timestamp: the ``X-Mastery-Timestamp`` header (unix seconds, decimal).
        body: the request body exactly as received (bytes, before any JSON parsing).
        signature: the ``X-Mastery-Signature`` header (``sha256=<hex>``).
        tolerance: the largest accepted distance between ``timestamp`` and ``now``, seconds.
        now: the receiver's clock (unix seconds; default ``time.time()``).

    Returns:
        Whether the signature matches (compared in constant time, ``hmac.compare_digest``) and the
        timestamp is fresh; ``False`` for a malformed header.
    """
    try:
        sent = int(timestamp)
    except (TypeError, ValueError):
        return False
    if abs((time.time() if now is None else now) - sent) > tolerance:
        return False
    return hmac.compare_digest(sign(secret, str(sent), body).encode(), signature.strip().encode())


def request_for(hook: GameWebhook, delivery: WebhookDelivery, now: float) -> tuple[bytes, dict[str, str]]:
    """The body bytes (UTF-8 JSON) and headers of one post; the JSON form is signed at ``now`` (unix
    seconds)."""
    body = json.dumps(body_for(hook, delivery), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    headers = {"Content-Type": "application/json", "User-Agent": user_agent()}
    if hook.kind == GameWebhook.Kind.JSON:
        stamp = str(int(now))
        headers |= {
            TIMESTAMP_HEADER: stamp,
            SIGNATURE_HEADER: sign(hook.secret, stamp, body),
            "X-Mastery-Event": str(delivery.body.get("event", "")),
            "X-Mastery-Delivery": str(delivery.pk),
        }
    return body, headers


def post(url: str, body: bytes, headers: dict[str, str], *, timeout: float = TIMEOUT) -> int:
    """POST ``body`` to ``url`` and return the HTTP status, connecting only to an address checked now.

    Raises:
        games.services.webhooks.AddressRefused: the URL or its current addresses are not allowed.
        OSError, http.client.HTTPException: the connection or the answer failed (``TimeoutError`` after
            ``timeout`` seconds).
    """
    target = hook_service.url_check(url)  # resolves again: DNS rebinding
    address = target.addresses[0]
    conn: HTTPConnection
    if target.scheme == "https":
        conn = HTTPSConnection(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        conn = HTTPConnection(target.host, target.port, timeout=timeout)

    def pinned(_addr: tuple[str, int], timeout: float, source: Any = None) -> socket.socket:
        return socket.create_connection((address, target.port), timeout, source)

    conn._create_connection = pinned  # type: ignore[attr-defined]  # http.client's hook for the socket
    try:
        conn.request("POST", target.path, body=body, headers=headers)
        response = conn.getresponse()
        response.read(65536)
        return int(response.status)
    finally:
        conn.close()


def pause_notice(hook: GameWebhook) -> dict[str, object]:
    """The email to a paused hook's creator (outbox data, ``account_mail.message_data``), in their
    language: which table, which address (its host only), why, and that the game page resumes it."""
    user = hook.created_by
    host = hook_service.url_check(hook.url, resolve=False).host if hook.url else ""
    with translation.override(user.language or settings.LANGUAGE_CODE):
        subject = _("Webhook paused: %(title)s") % {"title": hook.game.title}
        body = _(
            "The %(kind)s webhook of your game “%(title)s” (to %(host)s) failed %(n)d times in a row, so it "
            "has been paused. Check the address, then resume it on the game page: %(url)s"
        ) % {
            "kind": hook.get_kind_display(),
            "title": hook.game.title,
            "host": host,
            "n": hook.failures,
            "url": hook_service.game_url(hook.game),
        }
    msg = EmailMessage(subject=subject, body=body, from_email=settings.DEFAULT_FROM_EMAIL, to=[user.email])
    return message_data(msg, "games/webhook_paused")


def deliver(delivery_id: int, *, now: float | None = None) -> bool:
    """Claim one due delivery, post it and record the outcome (sent; or failed, retried with backoff, the
    hook paused after 8 failures in a row). Returns whether it was posted with a 2xx answer."""
    moment = timezone.now()
    row = hook_service.delivery_claim(delivery_id=delivery_id, now=moment)
    if row is None:
        return False
    error = ""
    try:
        body, headers = request_for(row.hook, row, time.time() if now is None else now)
        status = post(row.hook.url, body, headers)
        if not 200 <= status < 300:
            error = f"HTTP {status}"
    except ServiceError as exc:
        error = f"refused: {exc.message}"
    except TimeoutError:
        error = "timeout"
    except (OSError, HTTPException, ValueError) as exc:
        error = f"{type(exc).__name__}: {exc}"
    if not error:
        hook_service.delivery_sent(delivery_id=row.pk, now=timezone.now())
        return True
    log.info("webhook delivery %s failed (attempt %d): %s", row.pk, row.attempts, error)
    hook_service.delivery_failed(delivery_id=row.pk, error=error, now=timezone.now(), notice=pause_notice)
    return False


def deliveries_send(*, limit: int = 100) -> int:
    """Post every due delivery (at most ``limit``, oldest first). One failing delivery never stops the
    others. Returns how many were posted with a 2xx answer."""
    sent = 0
    for delivery_id in hook_service.deliveries_due(now=timezone.now(), limit=limit):
        try:
            sent += deliver(delivery_id)
        except Exception:  # a bug in one delivery must not stop the rest; it is retried later
            log.exception("webhook delivery %s could not be processed", delivery_id)
    return sent
