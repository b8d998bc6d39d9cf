"""issue 18: the three doors a reply comes in by — the LMTP/SMTP receiver (``manage.py mail_receive``),
provider webhooks through django-anymail's ``inbound`` signal (secret checked), and ``manage.py mail_reply``
on the embedded default — all store the mail and let the task apply it through the same service.
"""

from __future__ import annotations

import json
import smtplib
import socket
import threading
from base64 import b64encode
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.core.management import call_command
from django.db import connection
from django.test import Client
from pytest_django import Settings

from games.models import ActionRecord, Game, InboundMail
from games.receiver import InboxController, store_raw

from .conftest import LOCMEM, create_started_game, seat_users, state_of
from .test_email_play import decision_email, reply_to

pytestmark = pytest.mark.django_db(transaction=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def sent(settings: Settings) -> list[EmailMultiAlternatives]:
    settings.EMAIL_BACKEND = LOCMEM
    mail.outbox = []
    return mail.outbox  # type: ignore[return-value]


@pytest.fixture(params=["smtp", "lmtp"])
def receiver(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    port = free_port()
    controller = InboxController(host="127.0.0.1", port=port, lmtp=request.param == "lmtp")
    controller.start()
    yield request.param, port
    controller.stop()


def client_for(protocol: str, port: int) -> smtplib.SMTP:
    return smtplib.LMTP("127.0.0.1", port) if protocol == "lmtp" else smtplib.SMTP("127.0.0.1", port)


def the_turn(sent: list[EmailMultiAlternatives]) -> tuple[Game, int, EmailMultiAlternatives]:
    game = create_started_game(humans=2, seed=21)
    seat = state_of(game).active
    return game, seat, decision_email(sent, seat_users(game)[seat])


def test_the_receiver_stores_a_reply_and_the_task_applies_it(
    receiver: tuple[str, int], sent: list[EmailMultiAlternatives]
) -> None:
    protocol, port = receiver
    game, seat, msg = the_turn(sent)
    raw = reply_to(msg, "end")
    with client_for(protocol, port) as client:
        refused = client.sendmail(msg.to[0], [msg.extra_headers["Reply-To"]], raw)
    assert refused == {}
    row = InboundMail.objects.get()
    assert row.via == protocol and row.status == InboundMail.Status.APPLIED
    last = ActionRecord.objects.filter(game=game).order_by("-seq").first()
    assert last is not None and ActionRecord.objects.filter(game=game, source="email", seat=seat).exists()


def test_the_receiver_refuses_unknown_mailboxes_and_mail_over_1_mb(
    receiver: tuple[str, int], sent: list[EmailMultiAlternatives], settings: Settings
) -> None:
    protocol, port = receiver
    _game, _seat, msg = the_turn(sent)
    with client_for(protocol, port) as client, pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        client.sendmail(msg.to[0], ["someone@127.0.0.1"], reply_to(msg, "end"))
    assert b"No such mailbox" in refused.value.recipients["someone@127.0.0.1"][1]
    big = reply_to(msg, "end\n" + "x" * (settings.INBOUND_MAX_BYTES + 100))
    with client_for(protocol, port) as client, pytest.raises(smtplib.SMTPException) as too_large:
        client.sendmail(msg.to[0], [msg.extra_headers["Reply-To"]], big)
    assert "552" in str(too_large.value)
    assert not InboundMail.objects.exists()


def test_a_provider_webhook_with_the_secret_stores_and_applies_the_reply(
    sent: list[EmailMultiAlternatives], client: Client, settings: Settings
) -> None:
    game, seat, msg = the_turn(sent)
    raw = reply_to(msg, "end").decode()
    body = json.dumps({"RawEmail": raw, "OriginalRecipient": msg.extra_headers["Reply-To"]})
    url = "/anymail/postmark/inbound/"
    wrong = "Basic " + b64encode(b"dev:wrong").decode()
    response = client.post(url, body, content_type="application/json", HTTP_AUTHORIZATION=wrong)
    assert response.status_code == 400 and not InboundMail.objects.exists()
    right = "Basic " + b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
    response = client.post(url, body, content_type="application/json", HTTP_AUTHORIZATION=right)
    assert response.status_code == 200
    row = InboundMail.objects.get()
    assert row.via == "webhook" and row.status == InboundMail.Status.APPLIED
    assert ActionRecord.objects.filter(game=game, source="email", seat=seat).exists()


def test_mail_reply_answers_an_email_written_to_var_mail(
    tmp_path: Path, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = tmp_path
    game = create_started_game(humans=2, seed=21)
    seat = state_of(game).active
    user = seat_users(game)[seat]
    files = sorted(tmp_path.iterdir())
    mine = [f for f in files if f"To: {user.email}" in f.read_text() and "Reply-To: play+" in f.read_text()]
    assert mine, "the decision email was written to the mail folder"
    seq = Game.objects.get(pk=game.pk).seq
    call_command("mail_reply", str(mine[-1]), "end", to=user.email)
    assert "Replied to play+" in capsys.readouterr().out
    assert Game.objects.get(pk=game.pk).seq > seq
    row = InboundMail.objects.get()
    assert row.via == "cli" and row.status == InboundMail.Status.APPLIED
    answers = [f for f in sorted(tmp_path.iterdir()) if f not in files and "Re: " in f.read_text()]
    assert answers, "the result email was written to the mail folder"


def _other_backends() -> int:
    """Sessions connected to this test database besides this thread's own."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_stat_activity is PostgreSQL's")
def test_a_receiver_thread_closes_its_database_connection_after_each_mail(
    sent: list[EmailMultiAlternatives],
) -> None:
    """The receiver stores mail in executor threads that may end at any time: each closes its connection
    when the mail is stored, instead of leaving it for the garbage collector (a database still in use
    when the test run drops it)."""
    game, seat, msg = the_turn(sent)
    before = _other_backends()
    result: list[bool] = []
    worker = threading.Thread(
        target=lambda: result.append(store_raw(reply_to(msg, "end"), [msg.extra_headers["Reply-To"]], "smtp"))
    )
    worker.start()
    worker.join(timeout=30)
    assert result == [True]
    assert ActionRecord.objects.filter(game=game, source="email", seat=seat).exists()
    assert _other_backends() == before
