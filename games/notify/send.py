"""Sending the outbox (architecture §3 ``games/notify/``): quiet hours and away periods, one due row at a
time under ``SELECT … FOR UPDATE SKIP LOCKED``, and the daily digests.

Each email is sent in three steps (issue 28): the row is *claimed* (built, stored in the row with its
``Message-ID``, status ``sending``) in a committed transaction of its own; the message goes to the SMTP
server; the row is marked ``sent``, retried on a fresh database connection if the connection died. So
losing a database connection never sends a mail twice. Only a sending process killed between the SMTP
call and the mark leaves a row ``sending``; after :data:`settings.OUTBOX_SENDING_LEASE` seconds another
flush sends its stored copy once more, with the same ``Message-ID``, so mail clients fold the two
(docs/operations.md "Email delivery")."""

from __future__ import annotations

import logging
import smtplib
import socket
import time as clock
from datetime import datetime, time, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.db import InterfaceError, OperationalError, transaction
from django.db import connection as db_connection
from django.db.models import Q
from django.utils import timezone, translation

from accounts.models import User
from games.models import Notification, Prompt
from games.notify import account_mail
from games.notify import push as notify_push
from games.notify.chat_mail import chat_message_for
from games.notify.content import CHAT_KINDS, EmailContent, build_email, chat_digest, content_for, user_zone
from games.services.outbox import DECISION_KINDS

log = logging.getLogger(__name__)


def quiet_until(user: User, now: datetime) -> datetime | None:
    """The end of the user's quiet hours if ``now`` falls inside them (local wall-clock times in the user's
    time zone; a period may wrap past midnight), else ``None``."""
    start, end = user.quiet_start, user.quiet_end
    if start is None or end is None or start == end:
        return None
    local = now.astimezone(user_zone(user))
    t = local.time().replace(tzinfo=None)
    inside = start <= t < end if start < end else (t >= start or t < end)
    if not inside:
        return None
    day = local.date() if t < end else local.date() + timedelta(days=1)
    return datetime.combine(day, end, tzinfo=user_zone(user))


def delay_until(user: User, now: datetime) -> datetime | None:
    """When mail to ``user`` may go out if it is not urgent: the end of quiet hours or of an away period
    that covers ``now``, whichever is later; ``None`` if it may go now."""
    ends = []
    quiet = quiet_until(user, now)
    if quiet is not None:
        ends.append(quiet)
    if user.away_at(now) and user.away_until is not None:
        ends.append(user.away_until)
    return max(ends) if ends else None


def _skip(n: Notification, reason: str) -> None:
    n.status = Notification.Status.SKIPPED
    n.skip_reason = reason
    n.save(update_fields=["status", "skip_reason"])


#: How often a notification may fail to be built or sent before it is skipped (reason ``failed``).
SEND_ATTEMPTS = 8

#: The wait after a notification's first failure; it doubles with each further one (5 minutes, then 10,
#: 20, … about 10 hours over the eight tries).
RETRY_AFTER = timedelta(minutes=5)

#: Errors of the mail server itself (down, unreachable, gone mid-session): the flush stops and the next
#: sweep tries again; no row is blamed for them.
TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    smtplib.SMTPServerDisconnected,
    smtplib.SMTPConnectError,
    ConnectionError,
    TimeoutError,
    socket.gaierror,
)


def _failed(n: Notification, now: datetime, error: Exception) -> None:
    """Record one failure of locked row ``n`` (its own writes were rolled back): postpone it by
    :data:`RETRY_AFTER`, doubled per earlier failure, or skip it (``failed: <error>``) after
    :data:`SEND_ATTEMPTS` tries, so one bad row never holds the others back nor is tried every minute."""
    n.attempts += 1
    if n.attempts >= SEND_ATTEMPTS:
        n.status = Notification.Status.SKIPPED
        n.skip_reason = f"failed: {type(error).__name__}"[:40]
    else:
        n.status = Notification.Status.PENDING
        n.send_after = now + RETRY_AFTER * 2 ** (n.attempts - 1)
    n.save(update_fields=["attempts", "status", "skip_reason", "send_after"])
    log.warning("notification %s failed (try %s): %r", n.pk, n.attempts, error, exc_info=error)


def _open_prompt(n: Notification) -> Prompt | None:
    if n.game_id is None or n.seat is None:
        return None
    return Prompt.objects.filter(game_id=n.game_id, seat=n.seat, key=n.prompt_key).first()


def _claim(n: Notification, message: EmailMessage) -> EmailMessage:
    """Mark locked row ``n`` as being sent, storing ``message`` and its ``Message-ID`` in it (in the
    caller's transaction, committed before the SMTP call). Returns ``message``."""
    stored = n.data if n.kind == Notification.Kind.ACCOUNT else account_mail.message_data(message, n.kind)
    if n.kind != Notification.Kind.ACCOUNT:
        n.data = {**n.data, "mail": stored}
    n.message_id = str(stored["message_id"])
    n.status = Notification.Status.SENDING
    n.claimed_at = timezone.now()
    n.save(update_fields=["data", "message_id", "status", "claimed_at"])
    return message


def _stored(n: Notification) -> EmailMessage | None:
    """The message a row claimed earlier stored (``None`` if it holds none)."""
    data = n.data if n.kind == Notification.Kind.ACCOUNT else n.data.get("mail")
    try:
        return account_mail.message_from(data) if isinstance(data, dict) else None
    except KeyError:
        return None


def _prepare(n: Notification, now: datetime) -> EmailMessage | None:
    """Claim one locked due row and return the message to send, or move the row on (skip, digest,
    postpone) and return ``None``. A row left ``sending`` by a killed sender returns its stored copy."""
    if n.status == Notification.Status.SENDING:
        message = _stored(n)
        if message is not None:
            log.warning("notification %s was left being sent; sending it again as %s", n.pk, n.message_id)
            n.claimed_at = timezone.now()  # this flush holds it now
            n.save(update_fields=["claimed_at"])
            return message
    if n.kind == Notification.Kind.ACCOUNT:
        # allauth's transactional email (issue 28): sent as rendered, to its own To address, whatever the
        # user's preferences, quiet hours or away period; its bodies (one-time links) are not kept
        return _claim(n, account_mail.message_from(n.data))
    user = n.recipient
    if not user.is_active or not user.email:
        _skip(n, "no address")
        return None
    if n.kind == Notification.Kind.DIGEST:  # a digest is sent by digests_send; one left pending is empty
        _skip(n, "empty digest")
        return None
    mode = user.notify_mode(n.kind)
    if mode == "off":
        _skip(n, "off")
        return None
    if n.kind in CHAT_KINDS and chat_message_for(n, user) is None:
        _skip(n, "hidden")  # hidden by staff, or its author muted since it was queued
        return None
    prompt = None
    if n.kind == Notification.Kind.REPLY and n.prompt_key:
        prompt = _open_prompt(n)  # the next decision the result email asks for, if still open
    if n.kind in DECISION_KINDS:
        prompt = _open_prompt(n)
        if prompt is None:
            _skip(n, "decided")  # the decision was made (or timed out) before the mail went out
            return None
    if mode == "digest":
        n.status = Notification.Status.DIGEST
        n.save(update_fields=["status"])
        return None
    # quiet hours and away periods hold mail back, except the answer to the player's own emailed moves:
    # they have just written, so they are not asleep (issue 18)
    later = None if n.kind == Notification.Kind.REPLY else delay_until(user, now)
    if later is not None and not (prompt is not None and prompt.deadline_at <= later):
        n.send_after = later  # quiet hours or away: non-urgent mail waits
        n.save(update_fields=["send_after"])
        return None
    return _claim(n, build_email(n, user, now, prompt))  # data: the numbered moves the email showed


#: Tries to mark a sent row ``sent``, each on a fresh database connection after the first.
MARK_TRIES = 5


def _sent_data(n: Notification) -> dict[str, Any]:
    """What a sent row keeps of its data: not the stored message (an account email keeps its summary)."""
    if n.kind == Notification.Kind.ACCOUNT:
        return account_mail.sent_data(n.data)
    return {k: v for k, v in n.data.items() if k != "mail"}


def _mark_sent(n: Notification, *rows: int) -> bool:
    """Mark claimed row ``n`` (and the digest items ``rows``) sent after the SMTP server took the message.

    A database connection lost meanwhile (a failover, a restart) is replaced and the mark tried again, up
    to :data:`MARK_TRIES` times one second apart: a lost transaction must not send the email twice.
    Returns whether the mark was written; if not, the row stays ``sending`` and is sent once more after
    the lease."""
    for attempt in range(MARK_TRIES):
        try:
            sent_at = timezone.now()
            with transaction.atomic():
                Notification.objects.filter(pk=n.pk, status=Notification.Status.SENDING).update(
                    status=Notification.Status.SENT, sent_at=sent_at, data=_sent_data(n)
                )
                if rows:
                    Notification.objects.filter(pk__in=rows).update(sent_at=sent_at)
            return True
        except (OperationalError, InterfaceError) as error:
            log.warning("could not mark notification %s sent (try %s): %r", n.pk, attempt + 1, error)
            if db_connection.in_atomic_block:
                break  # inside a caller's transaction a new connection cannot help
            db_connection.close()  # the next query opens a fresh connection
            clock.sleep(1.0)
    log.error("notification %s stays 'sending': it will be sent again as %s", n.pk, n.message_id)
    return False


def _release(n: Notification) -> None:
    """Give back claimed row ``n`` after the mail server failed (not the row's fault): a notification is
    due again (built anew, with the same ``Message-ID``); a digest, whose items are already taken, stays
    ``sending`` with its stored copy and is due to the next flush at once."""
    rows = Notification.objects.filter(pk=n.pk)
    if n.kind == Notification.Kind.DIGEST:
        rows.update(claimed_at=timezone.now() - timedelta(seconds=settings.OUTBOX_SENDING_LEASE))
    else:
        rows.update(status=Notification.Status.PENDING)


def _due(now: datetime) -> Q:
    """Rows to send: pending and due, or left ``sending`` longer than the lease (their sender died)."""
    lease = timedelta(seconds=settings.OUTBOX_SENDING_LEASE)
    return Q(status=Notification.Status.PENDING, send_after__lte=now) | Q(
        status=Notification.Status.SENDING, claimed_at__lte=now - lease
    )


def outbox_flush(
    *, game_id: int | None = None, kind: str | None = None, now: datetime | None = None, limit: int = 500
) -> int:
    """Send every due notification (of one game or one kind, or all), one row at a time: each is claimed
    under ``SKIP LOCKED`` in a committed transaction of its own, so concurrent workers never send the same
    row, then sent, then marked sent (the module's docstring). Running it twice sends nothing the second
    time.

    A row that fails to be built or sent is postponed, then skipped (:func:`_failed`), and the flush goes
    on with the next; if the mail server itself fails (:data:`TRANSPORT_ERRORS`) the flush stops and
    leaves the rows for the next sweep.

    Args:
        game_id: only this game's rows. kind: only rows of this kind.
        now: the time due rows are compared with (default: now); a row ``sending`` longer than
            ``OUTBOX_SENDING_LEASE`` seconds before it is sent again.
        limit: most rows handled in one call.
    Returns:
        How many emails were sent.
    """
    now = now or timezone.now()
    sent = 0
    connection = get_connection()
    try:
        for _ in range(limit):
            with transaction.atomic():
                rows = Notification.objects.select_for_update(skip_locked=True, of=("self",)).filter(
                    _due(now)
                )
                if game_id is not None:
                    rows = rows.filter(game_id=game_id)
                if kind is not None:
                    rows = rows.filter(kind=kind)
                n = rows.select_related("recipient").order_by("send_after", "pk").first()
                if n is None:
                    break
                try:
                    with transaction.atomic():  # a savepoint: the row's own writes go if it fails
                        message = _prepare(n, now)
                except Exception as error:  # one row's problem must not stop everyone's mail
                    _failed(n, now, error)
                    continue
            if message is None:
                continue
            try:
                connection.send_messages([message])
            except TRANSPORT_ERRORS as error:
                log.warning("the mail server failed; the outbox waits for the next sweep: %r", error)
                _release(n)
                break
            except Exception as error:
                _failed(n, now, error)
                continue
            if _mark_sent(n):
                notify_push.deliveries_queue(n, now)  # issue 32: its pushes, sent by tasks.pushes_send
            sent += 1
    finally:
        connection.close()
    return sent


def digests_send(*, now: datetime | None = None) -> int:
    """Send each user's daily digest once per local day, after ``DIGEST_HOUR`` in their time zone: every
    notification they chose to receive as a digest that still makes sense (decisions not yet made). A user
    who turned the digest itself off (its ``List-Unsubscribe`` link) gets none: the waiting items are
    skipped (reason ``off``).

    Returns:
        How many digests were sent (a second run the same day sends none).
    """
    now = now or timezone.now()
    sent = 0
    user_ids = (
        Notification.objects.filter(status=Notification.Status.DIGEST)
        .values_list("recipient_id", flat=True)
        .distinct()
    )
    connection = get_connection()
    try:
        for user in User.objects.filter(pk__in=list(user_ids)):
            try:
                sent += _digest_send(user, now, connection)
            except TRANSPORT_ERRORS as error:
                log.warning("the mail server failed; the digests wait for the next sweep: %r", error)
                break
            except Exception:  # one user's digest must not stop the others'; tried again next sweep
                log.exception("could not send the digest of user %s", user.pk)
    finally:
        connection.close()
    return sent


def _digest_send(user: User, now: datetime, connection: BaseEmailBackend) -> bool:
    """Send ``user``'s digest of today (their local day) if it is due and not yet sent; returns whether it
    went out. Claimed, sent and marked like a notification (the module's docstring): the digest row is
    stored ``sending`` with its items before the SMTP call.

    Raises:
        TRANSPORT_ERRORS: the mail server failed (the digest stays claimed and is sent by the next flush).
    """
    local = now.astimezone(user_zone(user))
    if local.time() < time(settings.DIGEST_HOUR):
        return False
    key = f"{user.pk}:-:digest:{local.date().isoformat()}"
    with transaction.atomic():
        if Notification.objects.filter(dedupe_key=key).exists():
            return False
        keep = _digest_items(user)
        if not keep:
            return False
        with translation.override(user.language), timezone.override(user_zone(user)):
            contents = _digest_contents(keep, user, now)
        item_pks = [item.pk for item, _prompt in keep]
        items = Notification.objects.filter(pk__in=item_pks)
        if not contents:  # only chat messages hidden since: nothing to say, and nothing to keep for later
            items.update(status=Notification.Status.SKIPPED, skip_reason="hidden")
            return False
        digest = Notification.objects.create(
            recipient=user,
            kind=Notification.Kind.DIGEST,
            dedupe_key=key,
            created_at=now,
            send_after=now,
            data={"items": len(keep)},
        )
        message = _claim(digest, build_email(digest, user, now, None, items=contents))
        items.update(status=Notification.Status.SENT, digest=digest)
    try:
        connection.send_messages([message])
    except TRANSPORT_ERRORS:
        _release(digest)
        raise
    _mark_sent(digest, *item_pks)
    return True


def _digest_contents(
    keep: list[tuple[Notification, Prompt | None]], user: User, now: datetime
) -> list[EmailContent]:
    """The digest's entries: one per notification, except that a game's chat messages make one entry
    together (issue 19), where the first of them stood. A game's "Since your last move" (issue 30) is told
    once, in its first entry that has it."""
    chats: dict[int | None, list[Notification]] = {}
    for item, _prompt in keep:
        if item.kind in CHAT_KINDS:
            chats.setdefault(item.game_id, []).append(item)
    out: list[EmailContent] = []
    since_told: set[int | None] = set()
    for item, prompt in keep:
        if item.kind not in CHAT_KINDS:
            entry = content_for(item, user, now, prompt)
            if item.game_id in since_told:
                entry.since, entry.since_more = [], ""
            elif entry.since:
                since_told.add(item.game_id)
            out.append(entry)
        elif chats.get(item.game_id) and chats[item.game_id][0] is item:
            gathered = chat_digest(chats[item.game_id], user)
            if gathered is not None:
                out.append(gathered)
    return out


def _digest_items(user: User) -> list[tuple[Notification, Prompt | None]]:
    """Lock ``user``'s waiting digest items and keep those still worth sending, each with its open prompt;
    the others are skipped (``off``: digests turned off; ``decided``: the decision was made)."""
    items = list(
        Notification.objects.select_for_update(skip_locked=True, of=("self",))
        .filter(recipient=user, status=Notification.Status.DIGEST)
        .order_by("created_at", "pk")
    )
    keep: list[tuple[Notification, Prompt | None]] = []
    for item in items:
        prompt = _open_prompt(item) if item.kind in DECISION_KINDS else None
        if user.notify_mode(Notification.Kind.DIGEST) == "off":
            _skip(item, "off")  # the digest's own List-Unsubscribe turned digests off
        elif item.kind in DECISION_KINDS and prompt is None:
            _skip(item, "decided")
        else:
            keep.append((item, prompt))
    return keep
