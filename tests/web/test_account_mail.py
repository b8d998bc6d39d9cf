"""Account emails go through the outbox (issue 28): a sign-up does the same work in the request whether or
not its address has an account, and the email goes after the response.

Behaviour only, no timing: what the request does (hashes, outbox rows, emails sent, answer) is compared
between a new address and one that has an account; speed belongs in benchmarks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import time, timedelta
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth import hashers
from django.contrib.messages import get_messages
from django.core import mail
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone
from pytest_django import DjangoCaptureOnCommitCallbacks

from accounts.forms import NotificationForm
from accounts.models import User
from games import tasks
from games.models import Notification
from games.notify import account_mail
from tests.web.conftest import create_user

pytestmark = pytest.mark.django_db

#: Django's SMTP backend: the sign-up requests run with it, and ``smtplib`` faked, to see they never connect.
SMTP = "django.core.mail.backends.smtp.EmailBackend"

#: The password every sign-up here submits.
NEW_PASSWORD = "a-long-Castle-password-42"


@contextmanager
def hashes_counted() -> Iterator[list[str]]:
    """Count the calls of the default password hasher's ``encode`` (the slow key stretching), whoever makes
    them; the list holds one algorithm name per call."""
    hasher_class = type(hashers.get_hasher())
    original = hasher_class.encode
    calls: list[str] = []

    def encode(self: hashers.BasePasswordHasher, *args: Any, **kwargs: Any) -> str:
        calls.append(str(self.algorithm))
        return original(self, *args, **kwargs)

    with mock.patch.object(hasher_class, "encode", encode):
        yield calls


def account_rows() -> list[Notification]:
    """The outbox's account emails, oldest first."""
    return list(Notification.objects.filter(kind=Notification.Kind.ACCOUNT).order_by("pk"))


def sign_up(
    capture: Callable[..., Any], email: str, client: Client | None = None
) -> tuple[dict[str, Any], list[Callable[[], Any]], list[Notification]]:
    """Post the sign-up form for ``email`` (from ``client``, else a new browser) with its on-commit
    callbacks held back (the work "after the response") and the SMTP backend on a fake ``smtplib``, and
    say what the request itself did.

    Returns:
        What the request did (answer, messages shown, hashes, rows queued, emails sent), the held-back
        callbacks, and the new outbox rows.
    """
    before = {n.pk for n in account_rows()}
    client = client or Client()
    with (
        override_settings(EMAIL_BACKEND=SMTP),
        mock.patch("smtplib.SMTP") as smtp,
        mock.patch("smtplib.SMTP_SSL") as smtp_ssl,
        hashes_counted() as hashed,
        capture(execute=False) as callbacks,
    ):
        response = client.post(
            reverse("account_signup"),
            {"email": email, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
        )
    rows = [n for n in account_rows() if n.pk not in before]
    done = {
        "status": response.status_code,
        "location": response.get("Location"),
        "messages": [str(m).replace(email, "<address>") for m in get_messages(response.wsgi_request)],
        "hashes": len(hashed),
        "rows": [(n.kind, n.status, n.game_id) for n in rows],
        "callbacks": len(callbacks),
        "sent in the request": len(mail.outbox),
        "SMTP connections": smtp.call_count + smtp_ssl.call_count,
    }
    return done, list(callbacks), rows


def test_sign_up_does_the_same_work_for_a_new_and_an_existing_address(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    """Both sign-ups hash the password once, queue one account email and send none in the request, and
    answer alike; after the response the new address gets its confirmation (whose link confirms and logs
    in) and the existing one the "account already exists" email, each to its own address."""
    existing = create_user("taken@example.com")
    mail.outbox = []
    browser = Client()
    new_done, new_after, [new_row] = sign_up(django_capture_on_commit_callbacks, "fresh@example.com", browser)
    old_done, old_after, [old_row] = sign_up(django_capture_on_commit_callbacks, "taken@example.com")
    assert new_done == old_done
    assert new_done["hashes"] == 1 and new_done["sent in the request"] == new_done["SMTP connections"] == 0
    assert new_done["rows"] == [(Notification.Kind.ACCOUNT, Notification.Status.PENDING, None)]
    assert new_done["location"] == reverse("account_email_verification_sent")
    newcomer = User.objects.get(email="fresh@example.com")
    assert new_row.recipient_id == newcomer.pk and old_row.recipient_id == existing.pk
    assert User.objects.filter(email="taken@example.com").count() == 1

    for callback in [*new_after, *old_after]:  # after the response: the task, eager here
        callback()
    confirmation = next(m for m in mail.outbox if m.to == ["fresh@example.com"])
    exists = next(m for m in mail.outbox if m.to == ["taken@example.com"])
    assert len(mail.outbox) == 2
    assert "already exists" in str(exists.body) and "confirm-email" not in str(exists.body)
    link = re.search(r"https?://\S+(/accounts/confirm-email/[^\s/]+/)", str(confirmation.body))
    assert link is not None
    browser.post(link.group(1))  # confirmed where it signed up: logged in (LOGIN_ON_EMAIL_CONFIRMATION)
    assert browser.get("/").wsgi_request.user == newcomer
    for row in (new_row, old_row):
        row.refresh_from_db()
        assert row.status == Notification.Status.SENT
        assert "body" not in row.data and "alternatives" not in row.data  # the one-time links are gone
    assert confirmation.extra_headers["Message-ID"] == new_row.data["message_id"]


def test_an_account_email_whose_task_is_lost_goes_with_the_outbox_sweep(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    """The row is written in the request; if its task never runs (broker down, worker killed), the
    minute's outbox sweep sends it."""
    mail.outbox = []
    _done, _lost, [row] = sign_up(django_capture_on_commit_callbacks, "swept@example.com")
    assert mail.outbox == []
    tasks.outbox_sweep()
    [message] = mail.outbox
    assert message.to == ["swept@example.com"] and "confirm-email" in str(message.body)
    row.refresh_from_db()
    assert row.status == Notification.Status.SENT


def test_account_emails_ignore_preferences_quiet_hours_and_absence(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    """An account email is transactional: it goes at once even to a user who turned every kind off (or to
    the digest), is in their quiet hours and away; it has no unsubscribe link, and the notification
    settings offer no choice for it."""
    user = create_user("asleep@example.com")
    now = timezone.now()
    user.notify = {kind.value: "off" for kind in Notification.Kind} | {"turn": "digest"}
    user.quiet_start, user.quiet_end = time(0, 0), time(23, 59)
    user.away_from, user.away_until = now - timedelta(hours=1), now + timedelta(days=3)
    user.save()
    mail.outbox = []
    with django_capture_on_commit_callbacks(execute=True):
        Client().post(reverse("account_reset_password"), {"email": "asleep@example.com"})
    [message] = mail.outbox
    assert message.to == ["asleep@example.com"] and "List-Unsubscribe" not in message.extra_headers
    [row] = account_rows()
    assert row.status == Notification.Status.SENT and row.recipient_id == user.pk
    assert "notify_account" not in NotificationForm(user=user).fields


def test_password_reset_arrives_after_the_response(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    """A password reset is queued in the request and arrives after it, with a link that opens the form
    for the new password."""
    user = create_user("forgetful@example.com")
    mail.outbox = []
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = Client().post(reverse("account_reset_password"), {"email": "forgetful@example.com"})
    assert response.status_code == 302 and mail.outbox == []
    [row] = account_rows()
    assert row.recipient_id == user.pk and row.status == Notification.Status.PENDING
    for callback in callbacks:
        callback()
    [message] = mail.outbox
    assert message.to == ["forgetful@example.com"]
    link = re.search(r"https?://\S+(/accounts/password/reset/key/\S+/)", str(message.body))
    assert link is not None
    client = Client()
    form_page = client.get(link.group(1), follow=True)
    assert form_page.status_code == 200 and 'name="password1"' in form_page.content.decode()


def test_a_reset_for_an_address_without_account_is_sent_after_the_response_without_a_row(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    """allauth's "unknown account" email has nobody to keep an outbox row for: it travels in the task, and
    the request sends nothing either."""
    mail.outbox = []
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = Client().post(reverse("account_reset_password"), {"email": "nobody@example.com"})
    assert response.status_code == 302 and mail.outbox == [] and account_rows() == []
    for callback in callbacks:
        callback()
    [message] = mail.outbox
    assert message.to == ["nobody@example.com"] and "do not have any record" in str(message.body)


def test_a_stored_message_is_rebuilt_as_rendered() -> None:
    """Subject, addresses, headers, text and HTML survive the outbox's JSON; the ``Message-ID`` is fixed
    when stored, so a copy sent again is folded by mail clients; once sent, only the bodies are dropped."""
    msg = mail.EmailMultiAlternatives(
        "Subject", "text", "Site <noreply@example.com>", ["a@example.com"], headers={"X-Test": "1"}
    )
    msg.attach_alternative("<p>html</p>", "text/html")
    data = account_mail.message_data(msg, "account/email/test")
    first, again = account_mail.message_from(data), account_mail.message_from(data)
    assert first.message()["Message-ID"] == again.message()["Message-ID"] == data["message_id"]
    assert (first.subject, first.body, first.from_email) == (msg.subject, "text", msg.from_email)
    assert first.to == msg.to
    assert first.alternatives == msg.alternatives and first.extra_headers["X-Test"] == "1"
    assert account_mail.sent_data(data) == {
        "template": "account/email/test",
        "subject": "Subject",
        "to": ["a@example.com"],
        "message_id": data["message_id"],
    }
