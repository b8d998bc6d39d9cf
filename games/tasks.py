"""Celery tasks (architecture §3): thin, taking ids, idempotent, ``acks_late`` (a task a killed worker had
taken is delivered again). Celery beat runs ``deadline_sweep`` and ``outbox_sweep`` every minute
(``CELERY_BEAT_SCHEDULE``); the development server runs them in a thread instead."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.utils import timezone

from games import services
from games.models import Notification
from games.notify import account_mail
from games.notify import push as notify_push
from games.notify import send as notify_send
from games.notify import webhooks as notify_webhooks
from games.services import inbox, outbox, ratings
from games.services.published import TASKS

log = logging.getLogger(__name__)


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]  # celery ships no type hints
def deadline_sweep() -> int:
    """Apply the timeout action of every overdue prompt and queue the 75 % reminders; returns how many
    timeouts were applied. Running it twice in a row applies and queues nothing the second time (an
    applied prompt is closed; a queued reminder clears ``remind_at``).

    One game that fails (its timeout, or its slow bots) is logged and left for the next run; the other
    games' timeouts, the reminders and the other games' bots still run.
    """
    now = timezone.now()
    applied = services.deadlines_sweep(now=now)  # guards each prompt itself
    outbox.reminders_queue(now=now)
    for game_id in services.bots_waiting(now=now):  # a slow bot whose task was lost (issue 17)
        try:
            applied += services.bots_play(game_id=game_id)
        except Exception:  # one game's fault must not stop the other games' bots
            log.exception("could not play the waiting bots of game %s", game_id)
    return applied


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def notifications_send(game_id: int | None = None, game_ids: list[int] | None = None) -> int:
    """Send the due notifications of one game (``game_id``), of several (``game_ids``: tasks queued by
    versions before issue 13 batched games) or of every game (neither), queued after a write commits.

    Returns:
        How many emails went out; a second run sends none (each row is sent once).
    """
    if game_ids:
        sent = sum(notify_send.outbox_flush(game_id=g) for g in game_ids)
    else:
        sent = notify_send.outbox_flush(game_id=game_id)
    _pushes_publish()
    return sent


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def pushes_send() -> int:
    """Send the due Web Pushes (issue 32: made when their outbox rows went out by email; retried with
    backoff, an expired subscription deleted: :func:`games.notify.push.pushes_flush`).

    Returns:
        How many pushes the push services took; a second run sends none.
    """
    return notify_push.pushes_flush()


def _pushes_publish() -> None:
    """Publish ``pushes_send`` if a push is due (after the emails that made them were sent). Never raises:
    the outbox sweep sends pushes a lost publish left behind."""
    try:
        if notify_push.pushes_due():
            pushes_send.delay()
    except Exception:
        log.warning("could not publish pushes_send; the outbox sweep will send the pushes")


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def account_mail_send(message: dict[str, Any] | None = None) -> int:
    """Send the due account emails (allauth's, queued by the request that caused them; issue 28) and
    ``message``, an account email without an outbox row (to an address that has no account).

    Returns:
        How many emails went out; a second run sends no row twice (a redelivered ``message`` is sent
        again).
    """
    sent = notify_send.outbox_flush(kind=Notification.Kind.ACCOUNT)
    if message is not None:
        sent += account_mail.send_now(message)
    return sent


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def outbox_sweep() -> int:
    """Every minute: process received mails still pending, send every due notification (those postponed by
    quiet hours or away periods, and any a lost task or an unreachable broker left behind), the daily
    digests and the due Web Pushes (issue 32: retries, and those a lost publish left). Returns emails sent.

    A mail whose processing fails is logged and left pending (its transaction rolled back, nothing of it
    applied); the other mails, the notifications and the digests still go out.
    """
    now = timezone.now()
    for mail_id in inbox.mails_pending():  # mails whose task was lost (broker down, worker killed)
        try:
            inbox.mail_process(mail_id=mail_id)
        except Exception:  # one bad mail must not stop everyone's notifications
            log.exception("could not process inbound mail %s; it stays pending", mail_id)
    sent = notify_send.outbox_flush(now=now) + notify_send.digests_send(now=now)
    try:
        notify_push.pushes_flush(now=now)  # issue 32: pushes due again after a failure, or left behind
    except Exception:
        log.exception("could not send the due pushes")
    return sent


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def bots_play(game_id: int) -> int:
    """Play the decisions of slow (*hard*) bots the game waits for, after the write that asked them
    (issue 17). Returns the moves applied; a second run applies none."""
    return services.bots_play(game_id=game_id)


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def inbound_process(mail_id: int) -> str:
    """Process one received mail (issue 18): check who may act, apply the reply's lines through the play
    service (source ``email``) and queue the one result email. Returns the mail's status; a second run
    changes nothing (a processed mail is no longer pending)."""
    return str(inbox.mail_process(mail_id=mail_id).status)


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def webhooks_send() -> int:
    """Post the due webhook deliveries (issue 32): published after a write that queued some, and by beat
    every minute for the retries (``CELERY_BEAT_SCHEDULE``). Returns the posts that succeeded; a second
    run posts nothing twice (a sent delivery is no longer due)."""
    return notify_webhooks.deliveries_send()


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def game_rate(game_id: int) -> bool:
    """Rate a finished game if it has not been rated (games are rated in the transaction that ends them;
    this re-runnable task is for backfills and repairs). Returns whether ratings changed; a second run
    changes nothing (issue 5)."""
    return ratings.rate_finished(game_id=game_id)


# The services publish these by reference (issue 31 §4): every process imports this module (AppConfig.ready).
TASKS.notifications_send = notifications_send
TASKS.account_mail_send = account_mail_send
TASKS.inbound_process = inbound_process
TASKS.bots_play = bots_play
TASKS.webhooks_send = webhooks_send
