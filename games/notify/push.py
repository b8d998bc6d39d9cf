"""Web Push of the outbox (issue 32; architecture §3 ``games/notify/``).

A push rides on the email: when :func:`games.notify.send.outbox_flush` has sent an outbox row of a kind in
:data:`PUSH_KINDS`, :func:`deliveries_queue` makes one :class:`~games.models.PushDelivery` per device of
the recipient (:class:`~accounts.models.PushSubscription`). So quiet hours, away periods, digests (a row
held for the digest is never sent by email, hence never pushed), per-kind "off" settings and dedupe are
exactly the email's. :func:`pushes_flush` (the Celery task ``games.tasks.pushes_send``, and the minute's
outbox sweep) sends the due ones with pywebpush: VAPID (RFC 8292), ``aes128gcm`` encryption (RFC 8291),
``TTL`` and ``Urgency`` headers (RFC 8030 §5.2, §5.3). A failed push is tried again after
:data:`PUSH_RETRY_AFTER`, doubled per failure, :data:`PUSH_ATTEMPTS` times at most; a push service that
answers 404 or 410 says the subscription is gone (RFC 8030 §7.3), and it is deleted.

The payload (:func:`payload_for`) is built from the recipient's own email content
(:func:`games.notify.content.content_for`, i.e. their ``GameView``): the title is the email's subject, the
body its headline, the URL the email's first link as a path on this site. It carries nothing the email
does not.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta
from typing import Any, TypedDict
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.templatetags.static import static
from django.urls import reverse
from django.utils import timezone, translation
from pywebpush import webpush  # type: ignore[import-untyped]

from accounts.models import PushSubscription, User
from games.models import Notification, Prompt, PushDelivery
from games.notify.content import CHAT_KINDS, content_for, user_zone
from games.selectors import waiting_count
from games.services.outbox import DECISION_KINDS
from mastery.text import single_line

log = logging.getLogger(__name__)

#: The outbox kinds that are also pushed: the decisions (turn, conflict, support, response, choice and
#: their reminders), a deadline passed, the game over, and the table talk addressed to the reader.
PUSH_KINDS = DECISION_KINDS | {
    Notification.Kind.TIMEOUT,
    Notification.Kind.FINISHED,
    *CHAT_KINDS,
}

#: Tries of one push before it is given up (status ``failed``).
PUSH_ATTEMPTS = 5
#: The wait after a push's first failure; it doubles with each further one (1, 2, 4, 8 minutes).
PUSH_RETRY_AFTER = timedelta(minutes=1)
#: Seconds one request to a push service may take.
PUSH_TIMEOUT = 10.0
#: Longest title and body of a notification, in characters (a push payload holds at most 4 kB, RFC 8291 §4).
TITLE_MAX = 120
BODY_MAX = 160


class Payload(TypedDict):
    """What the service worker (``templates/pwa/sw.js``) shows: ``title`` and ``body`` (one line each),
    ``url`` (a path on this site, with its fragment: ``/games/7/#decision``), ``tag`` (one notification
    per game on the device: a newer push replaces it), ``icon`` (a path) and ``badge`` (how many games
    wait for the recipient, for the Badging API)."""

    title: str
    body: str
    url: str
    tag: str
    icon: str
    badge: int


def enabled() -> bool:
    """Whether this site can push: both VAPID keys are set (``settings.VAPID_PUBLIC_KEY`` and
    ``settings.VAPID_PRIVATE_KEY``)."""
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY)


def deliveries_queue(n: Notification, now: datetime | None = None) -> int:
    """Make the pushes of outbox row ``n``, just sent by email: one pending ``PushDelivery`` per device of
    its recipient, if ``n.kind`` is in :data:`PUSH_KINDS` and the site has VAPID keys. Queuing twice makes
    no second row (the pair notification-subscription is unique). Never raises: a push must never stop
    the mail; a failure is logged.

    Returns:
        How many deliveries were made.
    """
    if n.kind not in PUSH_KINDS or not enabled():
        return 0
    now = now or timezone.now()
    try:
        subscriptions = list(
            PushSubscription.objects.filter(user_id=n.recipient_id).values_list("pk", flat=True)
        )
        if not subscriptions:
            return 0
        rows = [PushDelivery(notification=n, subscription_id=pk, next_try_at=now) for pk in subscriptions]
        with transaction.atomic():
            PushDelivery.objects.bulk_create(rows, ignore_conflicts=True)
        return len(rows)
    except Exception:
        log.exception("could not queue the pushes of notification %s", n.pk)
        return 0


def pushes_due(now: datetime | None = None) -> bool:
    """Whether any push is due (pending, its ``next_try_at`` passed): one indexed query."""
    now = now or timezone.now()
    return PushDelivery.objects.filter(status=PushDelivery.Status.PENDING, next_try_at__lte=now).exists()


def _open_prompt(n: Notification) -> Prompt | None:
    if n.game_id is None or n.seat is None:
        return None
    return Prompt.objects.filter(game_id=n.game_id, seat=n.seat, key=n.prompt_key).first()


def _path(url: str) -> str:
    """``url``'s path, query and fragment: the service worker opens it on its own origin."""
    parts = urlsplit(url)
    return (
        parts.path
        + (f"?{parts.query}" if parts.query else "")
        + (f"#{parts.fragment}" if parts.fragment else "")
    )


def payload_for(n: Notification, user: User, now: datetime, prompt: Prompt | None) -> Payload:
    """The push of outbox row ``n`` for its recipient ``user``, in their language and time zone, from the
    same content as the email (:func:`games.notify.content.content_for`, built from the recipient's own
    ``GameView``): the title is the email's subject ("Your turn in “Table”": whose turn, which game), the
    body its headline on one line, the URL the email's main link (the game at ``#decision`` for a
    decision; the chat or the result for the others) as a path.

    Args:
        n: an outbox row about a game (``n.game_id`` set), of a kind in :data:`PUSH_KINDS`.
        user: its recipient. now: the current time. prompt: the open decision a decision row is about.
    """
    assert n.game_id is not None
    with translation.override(user.language), timezone.override(user_zone(user)):
        content = content_for(n, user, now, prompt)
    decision = reverse("games:detail", args=[n.game_id]) + "#decision"
    if n.kind in DECISION_KINDS or n.kind == Notification.Kind.TIMEOUT or not content.links:
        url = decision
    else:
        url = _path(content.links[0][1])
    body = content.headline
    if n.kind in CHAT_KINDS and content.details:  # "Anna wrote (table):" and the message's first line
        body = f"{body} {content.details[0]}"
    return Payload(
        title=single_line(content.subject)[:TITLE_MAX],
        body=single_line(body)[:BODY_MAX],
        url=url,
        tag=f"game-{n.game_id}",
        icon=static("icons/icon-192.png"),
        badge=waiting_count(user),
    )


def _ttl(prompt: Prompt | None, now: datetime) -> int:
    """The push's ``TTL`` in seconds (RFC 8030 §5.2): ``settings.PUSH_TTL``, and never past the decision's
    deadline (at least 60 s)."""
    ttl = int(settings.PUSH_TTL)
    if prompt is not None:
        ttl = min(ttl, max(60, int((prompt.deadline_at - now).total_seconds())))
    return ttl


def push_send(subscription: PushSubscription, payload: Payload, *, ttl: int, urgency: str = "normal") -> int:
    """Encrypt ``payload`` (JSON, UTF-8) for ``subscription`` (RFC 8291, ``aes128gcm``) and POST it to its
    push service with a VAPID ``Authorization`` (RFC 8292: ``vapid t=<ES256 JWT>, k=<public key>``, the
    JWT's ``aud`` the endpoint's origin, ``exp`` 12 hours on, ``sub`` ``settings.VAPID_SUBJECT``), ``TTL``
    and ``Urgency`` (RFC 8030 §5.2, §5.3), through pywebpush's ``webpush``.

    Returns:
        The push service's HTTP status (201 when it took the push).
    Raises:
        WebPushException: the push service answered with an error status (its ``response`` holds it).
        requests.RequestException: the push service could not be reached.
    """
    response = webpush(
        subscription_info={
            "endpoint": subscription.endpoint,
            "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
        },
        data=json.dumps(payload, ensure_ascii=False),
        vapid_private_key=settings.VAPID_PRIVATE_KEY,
        vapid_claims={"sub": settings.VAPID_SUBJECT},
        content_encoding="aes128gcm",
        ttl=ttl,
        headers={"Urgency": urgency},
        timeout=PUSH_TIMEOUT,
    )
    return int(response.status_code)


def _status_of(error: Exception) -> int | None:
    response: Any = getattr(error, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


def _give_up_or_retry(d: PushDelivery, now: datetime, error: str) -> None:
    d.attempts += 1
    d.last_error = error[:200]
    if d.attempts >= PUSH_ATTEMPTS:
        d.status = PushDelivery.Status.FAILED
    else:
        d.next_try_at = now + PUSH_RETRY_AFTER * 2 ** (d.attempts - 1)
    d.save(update_fields=["attempts", "last_error", "status", "next_try_at"])


def _deliver(d: PushDelivery, now: datetime) -> bool:
    """Send locked delivery ``d`` and record the outcome; returns whether the push service took it."""
    n = d.notification
    subscription = d.subscription
    prompt = _open_prompt(n) if n.kind in DECISION_KINDS else None
    if n.kind in DECISION_KINDS and prompt is None:  # decided (or timed out) since the email went out
        d.status = PushDelivery.Status.FAILED
        d.last_error = "decided"
        d.save(update_fields=["status", "last_error"])
        return False
    try:
        with transaction.atomic():  # a savepoint: a failed build leaves the row's transaction usable
            payload = payload_for(n, n.recipient, now, prompt)
        urgency = "high" if n.kind in DECISION_KINDS else "normal"
        push_send(subscription, payload, ttl=_ttl(prompt, now), urgency=urgency)
    except Exception as error:  # one device's problem must not stop the other pushes
        status = _status_of(error)
        if status in (404, 410):  # the subscription expired or was withdrawn (RFC 8030 §7.3)
            log.info("push subscription %s is gone (%s); deleting it", subscription.pk, status)
            subscription.delete()  # and its deliveries with it
            return False
        log.warning("push %s failed (try %s): %r", d.pk, d.attempts + 1, error)
        _give_up_or_retry(d, now, f"{status or type(error).__name__}: {error}")
        return False
    d.status = PushDelivery.Status.SENT
    d.attempts += 1
    d.sent_at = timezone.now()
    d.save(update_fields=["status", "attempts", "sent_at"])
    PushSubscription.objects.filter(pk=subscription.pk).update(last_success_at=d.sent_at)
    return True


def pushes_flush(*, now: datetime | None = None, limit: int = 500) -> int:
    """Send every due push, one at a time, each locked (``SELECT … FOR UPDATE SKIP LOCKED``) in a
    transaction of its own, so concurrent workers never send the same one. Running it twice sends nothing
    the second time. A push that fails is tried again later (:data:`PUSH_RETRY_AFTER`, doubled per try),
    up to :data:`PUSH_ATTEMPTS` times; a 404 or 410 deletes the subscription.

    Args:
        now: the time due rows are compared with (default: now). limit: most pushes handled in one call.
    Returns:
        How many pushes the push services took.
    """
    now = now or timezone.now()
    sent = 0
    if not enabled():
        return 0
    for _ in range(limit):
        with transaction.atomic():
            d = (
                PushDelivery.objects.select_for_update(skip_locked=True, of=("self",))
                .filter(status=PushDelivery.Status.PENDING, next_try_at__lte=now)
                .select_related("notification__recipient", "subscription")
                .order_by("next_try_at", "pk")
                .first()
            )
            if d is None:
                break
            sent += _deliver(d, now)
    return sent
