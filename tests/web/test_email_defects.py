"""issue 30, "Defects": the four faults of play by email, a regression test each.

1. Every email sent has a ``Message-ID`` of its own: a whole game played by email replies, turns that come
   back after a rival's window or battle included, uses as many ids as emails, and no outbox key is ever
   renamed (a copy sent again still keeps its id: tests/web/test_notifications.py,
   tests/web/test_outbox_sending.py).
2. No mail loop: an auto-reply is known by its subject in the four languages; a mail that holds no move is
   answered at most once per address and game an hour; answers to one address stop at
   ``REPLY_ANSWERS_PER_DAY`` a day. The drill sends an auto-responder's mail 20 times: at most one answer.
3. A mail whose envelope sender is empty (``MAIL FROM:<>``, fed through the aiosmtpd receiver over SMTP
   and LMTP) is stored with ``Return-Path: <>`` and never answered.
4. A body in an unknown or wrongly declared charset is decoded with a fallback, and its moves are played.

Emails are captured with Django's locmem backend; each write and each received mail runs "as a request"
(:class:`~tests.web.conftest.Writes`), as in tests/web/test_email_play.py.
"""

from __future__ import annotations

import smtplib
import socket
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from email import policy
from email.message import EmailMessage as StdMessage
from email.utils import make_msgid

import pytest
import time_machine
from django.core.mail import EmailMultiAlternatives
from django.utils import timezone
from pytest_django import Settings

from accounts.models import User
from games import engine
from games.models import ActionRecord, Game, InboundMail, Notification
from games.notify.send import outbox_flush
from games.receiver import InboxController
from games.services import inbox
from mastery.mail_reading import decode_text, is_auto_subject, read_reply

from .conftest import Writes, create_started_game, human_move, seat_users, state_of
from .test_email_play import decision_email, deliver, my_turn, reply_to, to_user

#: Server passes for seats without Fracture at once (no masking delay to wait for), as in the integration
#: game played by email.
OPTIONS = {"fracture_windows": "sealed", "fracture_mask": [0, 0]}


def answers(sent: list[EmailMultiAlternatives], user: User) -> list[EmailMultiAlternatives]:
    """The result emails sent to ``user``: those that answer a mail (``In-Reply-To``)."""
    return [m for m in to_user(sent, user) if "In-Reply-To" in m.extra_headers]


# ---------------------------------------------------------------------------------------------------------
# 1. One Message-ID per email
# ---------------------------------------------------------------------------------------------------------


def _email_for(
    sent: list[EmailMultiAlternatives], user: User, key: str, used: set[int]
) -> EmailMultiAlternatives:
    """The newest email to ``user`` not yet answered whose reply address answers decision ``key``."""
    for msg in reversed(to_user(sent, user)):
        nid = inbox.token_notification_id([msg.extra_headers.get("Reply-To", "")])
        if nid is None or nid in used:
            continue
        if Notification.objects.filter(pk=nid, prompt_key=key).exists():
            used.add(nid)
            return msg
    raise AssertionError(f"no email asks {user.email} for decision {key}")


@pytest.mark.django_db
def test_a_game_played_by_email_gives_every_email_its_own_message_id(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """Three players answer every decision by replying to the email that asks for it, the move chosen by
    the bot the tests play with and written in the notation, until the game is over. A turn interrupted
    by a rival's window or battle comes back in a "your turn" email of its own (same prompt key, its own
    Reply-To). Every email of the game has a distinct Message-ID, equal to the one stored in its outbox
    row, and no outbox row's key ever changed."""
    game = writes(lambda: create_started_game(humans=3, seed=358, options=OPTIONS, title="By email"))
    users = seat_users(game)
    used: set[int] = set()
    keys: dict[int, str] = {}  # outbox row -> dedupe key, as first seen
    replies = 0
    for _ in range(600):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        state = state_of(game)
        prompt = next(p for p in engine.pending(state) if not p.auto)
        msg = _email_for(sent, users[prompt.seat], prompt.key, used)
        action = human_move(state, prompt.seat, game)
        row = deliver(writes, reply_to(msg, engine.to_text(state, action, "en")))
        assert row.status == InboundMail.Status.APPLIED, (row.status, row.reason, row.lines)
        replies += 1
        for pk, key in Notification.objects.filter(game=game).values_list("pk", "dedupe_key"):
            assert keys.setdefault(pk, key) == key, "an outbox key was renamed"
    else:
        pytest.fail("the game did not end")
    assert game.status == Game.Status.FINISHED
    assert set(ActionRecord.objects.filter(game=game).values_list("source", flat=True)) <= {"email", "server"}

    ids = Counter(m.extra_headers["Message-ID"] for m in sent)
    assert len(sent) > replies and ids.most_common(1)[0][1] == 1, ids.most_common(3)
    stored = dict(
        Notification.objects.filter(game=game).exclude(message_id="").values_list("message_id", "pk")
    )
    assert set(ids) == set(stored)
    # turns came back after a rival's move, each time in an email of its own with the same prompt key
    turns = Counter(
        Notification.objects.filter(
            game=game, kind=Notification.Kind.TURN, status=Notification.Status.SENT
        ).values_list("recipient_id", "prompt_key")
    )
    assert max(turns.values()) >= 2, "a turn came back in an email of its own"


@pytest.mark.django_db
def test_a_row_sent_again_after_a_mail_server_failure_keeps_its_message_id(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """A row claimed and given back (the mail server failed) is built anew with the id it was given when
    first claimed; another row gets another id."""
    game, _users, _seat, msg = my_turn(writes, sent)
    rows = Notification.objects.filter(game=game).exclude(message_id="")
    first = rows.get(message_id=msg.extra_headers["Message-ID"])
    Notification.objects.filter(pk=first.pk).update(status=Notification.Status.PENDING)
    sent.clear()
    writes(lambda: outbox_flush(game_id=game.pk))
    assert [m.extra_headers["Message-ID"] for m in sent] == [first.message_id]
    assert len(set(rows.values_list("message_id", flat=True))) == rows.count()


# ---------------------------------------------------------------------------------------------------------
# 2. No mail loop
# ---------------------------------------------------------------------------------------------------------

#: Auto-reply subjects as servers that send no RFC 3834 header write them (the original subject after).
AUTO_SUBJECTS = [
    "Out of Office: {s}",
    "Out of Office AutoReply: {s}",
    "Automatic reply: {s}",
    "Auto-Reply: {s}",
    "Autosvar: {s}",
    "Automatiskt svar: {s}",
    "Frånvaro: {s}",
    "Franvaro: {s}",
    "Automatyczna odpowiedź: {s}",
    "Odpowiedź automatyczna: {s}",
    "Poza biurem: {s}",
    "자동 회신: {s}",
    "자동 응답: {s}",
    "부재중: {s}",
    "RE: Automatic reply: {s}",
    "AW: Abwesenheitsnotiz: {s}",
    "Undeliverable: {s}",
]


@pytest.mark.parametrize("subject", AUTO_SUBJECTS)
def test_auto_reply_subjects_are_known_in_every_language(subject: str) -> None:
    assert is_auto_subject(subject.format(s="Re: [Medieval Mastery] Your turn in “Test game”"))


@pytest.mark.parametrize(
    "subject",
    [
        "Re: [Medieval Mastery] Your turn in “Test game”",
        "Re: [Medieval Mastery] Your turn in “Out of Office league”",  # a table's title may say anything
        "SV: [Medieval Mastery] Din tur i “Frånvaro”",
        "Odp: Twoja tura",
        "회신: 당신의 차례",
        "Outstanding move",
        "",
    ],
)
def test_a_players_subject_is_no_auto_reply(subject: str) -> None:
    assert not is_auto_subject(subject)


def auto_reply(original: EmailMultiAlternatives, prefix: str = "Out of Office: ") -> bytes:
    """An auto-responder's reply to ``original`` as some servers send it: no ``Auto-Submitted``, no
    ``X-Autoreply``, no ``Precedence``, a fresh Message-ID; the subject is ``prefix`` before "Re: <the
    original subject>" (so it grows with each round), and the body says the person is away, above the
    quoted original."""
    reply = StdMessage()
    reply["From"] = original.to[0]
    reply["To"] = original.extra_headers["Reply-To"]
    reply["Subject"] = f"{prefix}Re: {original.subject}"
    reply["Message-ID"] = make_msgid(domain="client.example")
    reply["In-Reply-To"] = original.extra_headers["Message-ID"]
    quoted = "\n".join("> " + line for line in original.body.splitlines())
    away = "I am out of the office until Monday and will answer your email when I am back."
    reply.set_content(f"{away}\n\nOn Tue, 24 Nov 2026 at 10:00, Medieval Mastery wrote:\n{quoted}\n")
    return reply.as_bytes(policy=policy.SMTP)


@pytest.mark.django_db
def test_the_drill_an_out_of_office_reply_sent_20_times_is_never_answered(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """The issue's drill: an "Out of Office:" reply with no auto headers, sent 20 times (each time to the
    newest email the player got, with a fresh Message-ID): at most one answer goes out (here none: its
    subject gives it away)."""
    game, users, seat, msg = my_turn(writes, sent)
    user = users[seat]
    sent.clear()
    for _ in range(20):
        latest = decision_email(sent, user) if answers(sent, user) else msg
        row = deliver(writes, auto_reply(latest))
        assert row.status == InboundMail.Status.IGNORED and row.reason == "automatic"
    assert len(answers(sent, user)) <= 1
    assert not ActionRecord.objects.filter(game=game, source="email").exists()


@pytest.mark.django_db
def test_the_drill_an_auto_responder_with_a_plain_subject_is_answered_once(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """The same drill with an auto-responder that keeps the plain "Re:" subject (nothing marks it as
    automatic): its mail holds no move, so it is answered once, and the 19 mails after it in the hour are
    not (their answers are stored skipped, unsent). Each time it answers the newest email it got."""
    _game, users, seat, msg = my_turn(writes, sent)
    user = users[seat]
    sent.clear()
    rows = []
    for _ in range(20):
        mine = [m for m in to_user(sent, user) if "Reply-To" in m.extra_headers]
        rows.append(deliver(writes, auto_reply(mine[-1] if mine else msg, prefix="")))
    assert len(answers(sent, user)) == 1
    assert {(r.status, r.applied) for r in rows} == {(InboundMail.Status.STOPPED, 0)}  # "I am out…" fails
    replies = Notification.objects.filter(recipient=user, kind=Notification.Kind.REPLY)
    skipped = replies.filter(skip_reason=inbox.LIMIT_HOUR)
    assert skipped.count() == 19 and not skipped.exclude(status=Notification.Status.SKIPPED).exists()


@pytest.mark.django_db
def test_a_mail_without_a_move_is_answered_again_after_an_hour_and_in_another_game(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """Once per address and game an hour: an hour later the same player is answered again, and a mail
    without a move about another game is answered at once."""
    game, users, seat, msg = my_turn(writes, sent)
    user = users[seat]
    writes(lambda: create_started_game(humans=[user], bots=1, seed=21))  # the bot plays: the player is asked
    other_msg = decision_email(sent, user)
    assert other_msg is not msg
    sent.clear()
    deliver(writes, reply_to(msg, "Thanks!"))
    deliver(writes, reply_to(msg, "Thanks again!"))
    assert len(answers(sent, user)) == 1
    deliver(writes, reply_to(other_msg, "Hello"))
    assert len(answers(sent, user)) == 2
    with time_machine.travel(timezone.now() + timedelta(minutes=61), tick=False):
        deliver(writes, reply_to(msg, "Thanks once more!"))
    assert len(answers(sent, user)) == 3
    assert Game.objects.get(pk=game.pk).seq == game.seq


@pytest.mark.django_db
def test_a_mistyped_move_is_answered_every_time(sent: list[EmailMultiAlternatives], writes: Writes) -> None:
    """A line that begins with a move's word is play: its error is answered each time, whatever the
    hour's limit on mails without a move."""
    _game, users, seat, msg = my_turn(writes, sent)
    sent.clear()
    for n in range(3):
        row = deliver(writes, reply_to(msg, f"advance Atlantis {n + 2}"))
        assert row.status == InboundMail.Status.STOPPED
    assert len(answers(sent, users[seat])) == 3


@pytest.mark.django_db
def test_answers_to_one_address_stop_at_the_days_limit(
    sent: list[EmailMultiAlternatives], writes: Writes, settings: Settings
) -> None:
    """``REPLY_ANSWERS_PER_DAY`` answers to one address in 24 hours, then none (stored skipped); a day
    later they go out again."""
    settings.REPLY_ANSWERS_PER_DAY = 3
    _game, users, seat, msg = my_turn(writes, sent)
    user = users[seat]
    sent.clear()
    for n in range(5):  # each holds a move that fails: each would be answered
        deliver(writes, reply_to(msg, f"advance Atlantis {n + 2}"))
    assert len(answers(sent, user)) == 3
    replies = Notification.objects.filter(recipient=user, kind=Notification.Kind.REPLY)
    held = replies.filter(skip_reason=inbox.LIMIT_DAY)
    assert held.count() == 2
    with time_machine.travel(timezone.now() + timedelta(hours=25), tick=False):
        deliver(writes, reply_to(msg, "advance Atlantis 9"))
    assert len(answers(sent, user)) == 4


# ---------------------------------------------------------------------------------------------------------
# 3. The null envelope sender, through the aiosmtpd receiver
# ---------------------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(params=["smtp", "lmtp"])
def receiver(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    port = free_port()
    controller = InboxController(host="127.0.0.1", port=port, lmtp=request.param == "lmtp")
    controller.start()
    yield request.param, port
    controller.stop()


def client_for(protocol: str, port: int) -> smtplib.SMTP:
    return smtplib.LMTP("127.0.0.1", port) if protocol == "lmtp" else smtplib.SMTP("127.0.0.1", port)


@pytest.mark.django_db(transaction=True)
def test_mail_from_the_null_sender_is_stored_and_never_answered(
    receiver: tuple[str, int], sent: list[EmailMultiAlternatives]
) -> None:
    """``MAIL FROM:<>`` (RFC 5321 §4.5.5: bounces and auto-replies): the receiver keeps the envelope sender
    as ``Return-Path: <>`` at the top of the stored mail, which is ``ignored`` without being processed:
    nothing is played and nothing answers it, though its body is a valid move from the player's address.
    The same reply with the player's envelope sender is played, and its ``Return-Path`` names them."""
    protocol, port = receiver
    game = create_started_game(humans=2, seed=21)
    seat = state_of(game).active
    user = seat_users(game)[seat]
    msg = decision_email(sent, user)
    sent.clear()
    with client_for(protocol, port) as client:
        assert client.sendmail("", [msg.extra_headers["Reply-To"]], reply_to(msg, "end")) == {}
    row = InboundMail.objects.get()
    assert (row.status, row.reason, row.via) == (InboundMail.Status.IGNORED, "null_sender", protocol)
    assert bytes(row.raw).startswith(b"Return-Path: <>\r\n")
    assert read_reply(bytes(row.raw)).automatic
    assert not ActionRecord.objects.filter(game=game, source="email").exists() and sent == []

    with client_for(protocol, port) as client:
        assert client.sendmail(user.email, [msg.extra_headers["Reply-To"]], reply_to(msg, "end")) == {}
    row = InboundMail.objects.exclude(pk=row.pk).get()
    assert row.status == InboundMail.Status.APPLIED
    assert bytes(row.raw).startswith(f"Return-Path: <{user.email}>\r\n".encode())
    assert len(answers(sent, user)) == 1


@pytest.mark.parametrize("mail_from", ["", "<>", " <> "])
@pytest.mark.django_db
def test_every_spelling_of_the_null_sender_is_ignored(
    mail_from: str, writes: Writes, sent: list[EmailMultiAlternatives]
) -> None:
    """``""`` and ``"<>"`` are the null reverse-path, as a receiver or a provider may give it; ``None``
    (a receiver that does not know the envelope, e.g. ``manage.py mail_reply``) is not."""
    _game, users, seat, msg = my_turn(writes, sent)
    sent.clear()
    row = writes(lambda: inbox.mail_store(raw=reply_to(msg, "end"), mail_from=mail_from))[0]
    assert InboundMail.objects.get(pk=row.pk).status == InboundMail.Status.IGNORED and sent == []
    row = writes(lambda: inbox.mail_store(raw=reply_to(msg, "end"), mail_from=None))[0]
    assert InboundMail.objects.get(pk=row.pk).status == InboundMail.Status.APPLIED
    assert len(answers(sent, users[seat])) == 1


# ---------------------------------------------------------------------------------------------------------
# 4. Unknown and wrong charsets
# ---------------------------------------------------------------------------------------------------------


def reply_bytes(original: EmailMultiAlternatives, body: bytes, charset: str) -> bytes:
    """A reply to ``original`` whose text part is ``body`` as is (8bit, CRLF line ends), labelled
    ``charset``."""
    head = StdMessage()
    head["From"] = original.to[0]
    head["To"] = original.extra_headers["Reply-To"]
    head["Subject"] = "Re: " + original.subject
    head["Message-ID"] = make_msgid(domain="client.example")
    head["In-Reply-To"] = original.extra_headers["Message-ID"]
    head["MIME-Version"] = "1.0"
    head["Content-Type"] = f"text/plain; charset={charset}"
    head["Content-Transfer-Encoding"] = "8bit"
    headers = head.as_bytes(policy=policy.SMTP).rstrip(b"\r\n") + b"\r\n\r\n"
    return headers + body.replace(b"\n", b"\r\n")


@pytest.mark.parametrize(
    ("language", "text", "encoding", "declared"),
    [
        ("en", "end\n\nCheers, Åsa\n", "latin-1", "unknown-8bit"),  # sendmail's label for unlabelled 8-bit
        ("ko", "종료\n\n감사합니다\n", "utf-8", "x-bogus"),
        ("ko", "종료\n", "euc-kr", "us-ascii"),  # says ASCII, is EUC-KR
        ("sv", "avsluta\n\nHälsningar\n", "latin-1", "us-ascii"),  # says ASCII, is Latin-1
        ("pl", "koniec\n\nDzięki, Paweł\n", "iso-8859-2", "utf-8"),  # says UTF-8, is ISO 8859-2
        ("sv", "avsluta\n\nHälsningar\n", "utf-8", "iso-8859-1"),  # says Latin-1, is UTF-8
    ],
)
@pytest.mark.django_db
def test_a_reply_in_an_unknown_or_wrong_charset_is_played(
    language: str, text: str, encoding: str, declared: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """The issue's fault: "We found no moves" for a body whose charset Python does not know. Now it is
    decoded with a fallback and its move is played; the player's own words come back as written."""
    game, users, seat, msg = my_turn(writes, sent)
    user = users[seat]
    User.objects.filter(pk=user.pk).update(language=language)
    seq = game.seq
    row = deliver(writes, reply_bytes(msg, text.encode(encoding), declared))
    assert row.status == InboundMail.Status.APPLIED, (row.reason, row.lines)
    assert row.lines[0] == text.split("\n")[0]
    assert Game.objects.get(pk=game.pk).seq > seq


@pytest.mark.parametrize(
    ("payload", "declared", "language", "expected", "guessed"),
    [
        (b"end", None, "", "end", False),
        ("Fästning".encode(), "utf-8", "", "Fästning", False),
        ("Fästning".encode("latin-1"), "iso-8859-1", "sv", "Fästning", False),
        ("Fästning".encode(), "iso-8859-1", "sv", "Fästning", True),
        ("Fästning".encode("latin-1"), "us-ascii", "sv", "Fästning", True),
        ("Fästning".encode("latin-1"), "no-such-charset", "sv", "Fästning", True),
        ("Góry".encode("iso-8859-2"), "no-such-charset", "pl", "Góry", True),
        ("숲으로 진군".encode("euc-kr"), "us-ascii", "ko", "숲으로 진군", True),
        ("숲으로 진군".encode("euc-kr"), "euc-kr", "", "숲으로 진군", False),
    ],
)
def test_decode_text_falls_back(
    payload: bytes, declared: str | None, language: str, expected: str, guessed: bool
) -> None:
    assert decode_text(payload, declared, language) == (expected, guessed)
