"""Exactly-once email across faults (issue 28 §2): a row is claimed and stored with its message before the
SMTP call and marked sent after it, so a lost database connection never sends an email twice, and a
sending process killed right after the SMTP call leads to exactly one resend, with the same Message-ID
(games.notify.send)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any, ClassVar

import pytest
from django.core import mail
from django.core.mail.backends.locmem import EmailBackend as LocmemBackend
from django.db import connection
from django.utils import timezone
from pytest_django import Settings as SettingsWrapper

from games.models import Notification
from games.notify import send as notify_send

from .conftest import create_started_game
from .test_database_drops import terminate_backend

HERE = "tests.web.test_outbox_sending"


class Killed(BaseException):
    """The sending process ends here: nothing after it runs (no ``except Exception`` catches it)."""


class KilledAfterSmtp(LocmemBackend):
    """The SMTP server takes the message (locmem), then the process is killed before it hears more."""

    def send_messages(self, messages: Any) -> int:
        super().send_messages(messages)
        raise Killed


class ConnectionLostAfterSmtp(LocmemBackend):
    """The SMTP server takes the message, then the database ends the sender's connection (a failover)."""

    kills: ClassVar[int] = 0

    def send_messages(self, messages: Any) -> int:
        sent = super().send_messages(messages)
        if ConnectionLostAfterSmtp.kills:
            ConnectionLostAfterSmtp.kills -= 1
            terminate_backend()
        return sent


def _one_pending() -> Notification:
    """A started game's outbox with one due row, never sent (its turn email); the others count as sent
    (with ``transaction=True`` the commit has sent them already)."""
    game = create_started_game(humans=2, seed=5)
    rows = Notification.objects.filter(game=game)
    row = rows.get(kind=Notification.Kind.TURN)
    rows.exclude(pk=row.pk).update(status=Notification.Status.SENT)
    rows.filter(pk=row.pk).update(status=Notification.Status.PENDING, message_id="", claimed_at=None, data={})
    row.refresh_from_db()
    return row


def _ids(messages: list[Any]) -> list[str]:
    return [m.extra_headers["Message-ID"] for m in messages]


@pytest.mark.django_db
def test_a_sender_killed_right_after_the_smtp_call_leads_to_exactly_one_resend_with_the_same_message_id(
    settings: SettingsWrapper,
) -> None:
    """The first flush dies after the server took the email: the row stays ``sending`` with the email and
    its Message-ID stored. Before the lease ends nothing is sent; after it, one flush sends the stored
    copy again with the same Message-ID and marks it sent; later flushes send nothing."""
    row = _one_pending()
    mail.outbox = []
    settings.EMAIL_BACKEND = f"{HERE}.KilledAfterSmtp"
    with pytest.raises(Killed):
        notify_send.outbox_flush()
    row.refresh_from_db()
    assert row.status == Notification.Status.SENDING and row.message_id
    assert _ids(mail.outbox) == [row.message_id]

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert notify_send.outbox_flush() == 0  # the sender may still be alive: the lease holds
    later = timezone.now() + timedelta(seconds=settings.OUTBOX_SENDING_LEASE + 1)
    assert notify_send.outbox_flush(now=later) == 1
    assert _ids(mail.outbox) == [row.message_id, row.message_id]
    assert mail.outbox[1].subject == mail.outbox[0].subject and mail.outbox[1].body == mail.outbox[0].body
    row.refresh_from_db()
    assert row.status == Notification.Status.SENT and "mail" not in row.data
    assert notify_send.outbox_flush(now=later + timedelta(days=1)) == 0
    assert len(mail.outbox) == 2


@pytest.fixture
def on_postgres() -> Iterator[None]:
    if connection.vendor != "postgresql":
        pytest.skip("terminating a connection needs PostgreSQL")  # CI runs on PostgreSQL
    yield
    connection.close()


@pytest.mark.django_db(transaction=True)
def test_a_database_connection_lost_after_the_smtp_call_sends_no_second_copy(
    settings: SettingsWrapper, on_postgres: None
) -> None:
    """The database ends the sender's connection right after the server took the email (the drill's
    ``pg_terminate_backend``): the sender marks the row sent on a fresh connection, so no later flush,
    even long after the lease, sends it again."""
    row = _one_pending()
    mail.outbox = []
    ConnectionLostAfterSmtp.kills = 1
    settings.EMAIL_BACKEND = f"{HERE}.ConnectionLostAfterSmtp"
    assert notify_send.outbox_flush() == 1
    assert ConnectionLostAfterSmtp.kills == 0, "the connection was not terminated"
    row.refresh_from_db()
    assert row.status == Notification.Status.SENT and row.sent_at is not None
    later = timezone.now() + timedelta(seconds=settings.OUTBOX_SENDING_LEASE + 1)
    assert notify_send.outbox_flush(now=later) == 0
    assert _ids(mail.outbox) == [row.message_id]


@pytest.mark.django_db
def test_a_row_being_sent_is_not_taken_by_a_second_flush_within_the_lease(settings: SettingsWrapper) -> None:
    """A row claimed by a live sender (status ``sending``, claimed just now) is not sent by another flush;
    a mail-server failure gives a notification back as pending, with its Message-ID kept."""
    row = _one_pending()
    mail.outbox = []
    Notification.objects.filter(pk=row.pk).update(
        status=Notification.Status.SENDING, claimed_at=timezone.now(), message_id="<kept@example.com>"
    )
    assert notify_send.outbox_flush() == 0 and mail.outbox == []
    Notification.objects.filter(pk=row.pk).update(status=Notification.Status.PENDING)
    assert notify_send.outbox_flush() == 1
    assert _ids(mail.outbox) == ["<kept@example.com>"]
