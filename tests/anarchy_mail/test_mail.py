"""Castle Defence by email (issue 33): the platform's inbound router, a reply's round trip, its refusals,
the daily puzzle email (which never shows a hidden face), its once-a-day sending, and the opt-in."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

import pytest
from django.core import mail as django_mail
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from accounts.models import User
from anarchy import inbound, puzzles
from anarchy import mail as puzzle_mail
from anarchy.engine import AnarchyError, parse_deployment
from anarchy.messages import reason
from anarchy.models import DailyPuzzle, PuzzleAnswer, PuzzleMail, PuzzleMailing, PuzzleMailSent
from games.services.inbox import reply_address
from mastery import inbound as router
from tests.anarchy_web.conftest import ALL_TOP, FACES, HIDDEN_TEXT, SMALL, client_for, store
from tests.web.conftest import LOCMEM, create_user

pytestmark = pytest.mark.django_db

Deliver = Callable[..., bool]


@pytest.fixture(autouse=True)
def _locmem(settings: Settings) -> Iterator[None]:
    settings.EMAIL_BACKEND = LOCMEM
    django_mail.outbox = []
    yield


@pytest.fixture
def puzzle(db: None) -> DailyPuzzle:
    return store(puzzles.today())


@pytest.fixture
def alice(db: None) -> User:
    return create_user(display_name="Alice")


@pytest.fixture
def deliver(django_capture_on_commit_callbacks: Any) -> Deliver:
    """Receive a raw mail through the platform's router and run what it publishes after commit (the eager
    task processes it)."""

    def run(raw: bytes, rcpt: list[str] | None = None, mail_from: str | None = None) -> bool:
        with django_capture_on_commit_callbacks(execute=True):
            return router.store(raw, rcpt or [], "smtp", mail_from)

    return run


def reply(
    user: User,
    text: str,
    *,
    day: datetime.date | None = None,
    sender: str | None = None,
    to: str | None = None,
    message_id: str | None = None,
    headers: dict[str, str] | None = None,
) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender or user.email
    msg["To"] = to or inbound.puzzle_address(user.pk, day or puzzles.today())
    msg["Subject"] = "Re: [Castle Defence] The puzzle"
    msg["Message-ID"] = message_id or make_msgid(domain="mail.example")
    for name, value in (headers or {}).items():
        msg[name] = value
    msg.set_content(f"{text}\n\nOn Tue, 24 Nov 2026 at 06:00, Castle Defence wrote:\n> The puzzle\n> T:1C\n")
    return msg.as_bytes()


def answers_to(user: User) -> list[Any]:
    return [m for m in django_mail.outbox if m.to == [user.email]]


# -- The router --------------------------------------------------------------------------------------------


def test_the_router_knows_both_games_addresses_and_no_other(alice: User) -> None:
    puzzle_to = inbound.puzzle_address(alice.pk, puzzles.today())
    play_to = reply_address(12)
    assert router.route_for(puzzle_to) is inbound.ROUTE
    route = router.route_for(play_to)
    assert route is not None and route.name == "medieval-mastery"
    assert router.accepts(puzzle_to) and router.accepts(play_to)
    assert not router.accepts("someone@example.com")
    assert not router.accepts(puzzle_to.replace("puzzle+", "play+"))
    forged = puzzle_to[: puzzle_to.index("@") - 4] + "0000" + puzzle_to[puzzle_to.index("@") :]
    assert not router.accepts(forged)
    # the address survives an MTA that folds the case
    assert inbound.read_token(puzzle_to.upper()) == (alice.pk, puzzles.today())


def test_a_mail_to_no_game_without_a_fallback_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(router, "_fallback", [])
    raw = b"From: a@example.org\r\nTo: b@example.org\r\nSubject: hi\r\n\r\nT:1C\r\n"
    assert router.store(raw, ["b@example.org"], "smtp", None) is False
    assert not PuzzleMail.objects.exists()


# -- A reply's round trip ------------------------------------------------------------------------------------


def test_a_reply_answers_the_puzzle_and_is_answered_with_the_score(
    puzzle: DailyPuzzle, alice: User, deliver: Deliver
) -> None:
    raw = reply(alice, ALL_TOP)
    assert deliver(raw, [inbound.puzzle_address(alice.pk, puzzle.day)])
    answer = PuzzleAnswer.objects.get()
    assert answer.user == alice and answer.source == "email" and answer.deployment == ALL_TOP
    row = PuzzleMail.objects.get()
    assert row.status == PuzzleMail.Status.ANSWERED and row.user == alice and row.puzzle == puzzle
    (sent,) = answers_to(alice)
    body = str(sent.body)
    assert f"Loyalty: {answer.loyalty}" in body and f"Bravery: {answer.bravery}" in body
    assert f"Workers kept: {answer.kept}" in body
    assert "A23" in body  # the reveal, now that the puzzle is answered
    assert reverse("anarchy:daily") in body
    assert sent.extra_headers["Auto-Submitted"] == "auto-replied"
    message_id = row.message_id
    assert sent.extra_headers["In-Reply-To"] == f"<{message_id}>"
    assert sent.extra_headers["References"] == f"<{message_id}>"
    assert sent.alternatives and "A23" in str(sent.alternatives[0][0])


def test_a_second_copy_of_the_same_reply_is_not_processed_again(
    puzzle: DailyPuzzle, alice: User, deliver: Deliver
) -> None:
    raw = reply(alice, ALL_TOP, message_id="<same@mail.example>")
    assert deliver(raw) is True
    assert deliver(raw) is False
    assert PuzzleMail.objects.count() == 1 and PuzzleAnswer.objects.count() == 1
    assert len(answers_to(alice)) == 1
    assert puzzle_mail.reply_process(PuzzleMail.objects.get().pk) is False  # the task again: guarded
    assert len(answers_to(alice)) == 1


def test_a_reply_from_another_sender_is_refused_without_an_answer(
    puzzle: DailyPuzzle, alice: User, deliver: Deliver
) -> None:
    deliver(reply(alice, ALL_TOP, sender="mallory@example.org"))
    row = PuzzleMail.objects.get()
    assert row.status == PuzzleMail.Status.REFUSED and row.reason == "not_yours"
    assert not PuzzleAnswer.objects.exists() and django_mail.outbox == []


def test_the_sender_is_compared_without_case(puzzle: DailyPuzzle, alice: User, deliver: Deliver) -> None:
    deliver(reply(alice, ALL_TOP, sender=alice.email.upper()))
    assert PuzzleAnswer.objects.get().source == "email"


def test_a_line_that_cannot_be_read_is_answered_with_the_reason(
    puzzle: DailyPuzzle, alice: User, deliver: Deliver
) -> None:
    deliver(reply(alice, "T:9C"))
    assert not PuzzleAnswer.objects.exists()
    row = PuzzleMail.objects.get()
    assert row.status == PuzzleMail.Status.ANSWERED and row.reason.startswith("bad_line:")
    (sent,) = answers_to(alice)
    body = str(sent.body)
    assert "T:9C" in body and "T:2C1K R:1S B:2K" in body
    with pytest.raises(AnarchyError) as refused:
        parse_deployment("T:9C", SMALL)
    assert reason(refused.value) in body  # the engine's refusal, in the reader's words


def test_an_answered_puzzle_is_answered_with_the_result_and_nothing_changes(
    puzzle: DailyPuzzle, alice: User, deliver: Deliver
) -> None:
    first, _created = puzzles.answer_submit(puzzle, alice, parse_deployment(ALL_TOP, SMALL))
    deliver(reply(alice, "L:2C1S1K"))
    (answer,) = PuzzleAnswer.objects.all()
    assert answer.pk == first.pk and answer.deployment == ALL_TOP and answer.source == "web"
    row = PuzzleMail.objects.get()
    assert row.status == PuzzleMail.Status.ANSWERED and row.reason == "already"
    (sent,) = answers_to(alice)
    assert "already answered" in str(sent.body) and f"Loyalty: {answer.loyalty}" in str(sent.body)


def test_a_forged_token_is_refused_without_an_answer(
    puzzle: DailyPuzzle, alice: User, deliver: Deliver, settings: Settings
) -> None:
    good = inbound.puzzle_address(alice.pk, puzzle.day)
    forged = good.split("-")[0] + "-" + good.split("-")[1] + "-" + "0" * 20 + "@" + settings.REPLY_DOMAIN
    deliver(reply(alice, ALL_TOP, to=forged), [forged])
    row = PuzzleMail.objects.filter(recipient=forged).first()
    # no game accepts the forged address: it goes to the fallback (Medieval Mastery refuses it), never here
    assert row is None and not PuzzleAnswer.objects.exists()
    assert answers_to(alice) == []


def test_a_token_of_another_day_or_expired_is_refused_politely(
    puzzle: DailyPuzzle, alice: User, deliver: Deliver, settings: Settings
) -> None:
    yesterday = puzzle.day - datetime.timedelta(days=1)
    store(yesterday)
    deliver(reply(alice, ALL_TOP, day=yesterday))
    row = PuzzleMail.objects.get()
    assert row.status == PuzzleMail.Status.REFUSED and row.reason == "closed"
    assert not PuzzleAnswer.objects.exists()
    (sent,) = answers_to(alice)
    assert "closed" in str(sent.body)
    settings.REPLY_MAX_AGE = 0
    deliver(reply(alice, ALL_TOP))
    latest = PuzzleMail.objects.order_by("-pk").first()
    assert latest is not None and latest.reason == "expired" and not PuzzleAnswer.objects.exists()


def test_automatic_mail_and_bounces_are_never_answered(
    puzzle: DailyPuzzle, alice: User, deliver: Deliver
) -> None:
    deliver(reply(alice, ALL_TOP, headers={"Auto-Submitted": "auto-replied"}))
    deliver(reply(alice, ALL_TOP, headers={"Precedence": "bulk"}))
    deliver(reply(alice, ALL_TOP), mail_from="<>")
    assert list(PuzzleMail.objects.values_list("status", flat=True)) == ["ignored"] * 3
    assert not PuzzleAnswer.objects.exists() and django_mail.outbox == []


def test_an_html_only_reply_is_read(puzzle: DailyPuzzle, alice: User, deliver: Deliver) -> None:
    msg = EmailMessage()
    msg["From"] = alice.email
    msg["To"] = inbound.puzzle_address(alice.pk, puzzle.day)
    msg["Subject"] = "Re: the puzzle"
    msg["Message-ID"] = make_msgid(domain="mail.example")
    msg.set_content(f"<div>{ALL_TOP}</div><blockquote>T:1C</blockquote>", subtype="html")
    deliver(msg.as_bytes())
    assert PuzzleAnswer.objects.get().deployment == ALL_TOP


def test_medieval_mastery_replies_still_reach_their_inbox(alice: User, deliver: Deliver) -> None:
    from games.models import InboundMail

    to = reply_address(999_999)
    raw = reply(alice, "end", to=to)
    assert deliver(raw, [to])
    assert InboundMail.objects.get().recipient == to and not PuzzleMail.objects.exists()


# -- The daily puzzle email ---------------------------------------------------------------------------


def test_the_puzzle_email_never_shows_the_hidden_face(puzzle: DailyPuzzle, alice: User) -> None:
    message = puzzle_mail.puzzle_email(alice, puzzle)
    hidden = FACES[2]
    html = str(message.alternatives[0][0])
    parts = [message.subject, str(message.body), html, str(message.extra_headers), str(message.reply_to)]
    parts.append(message.message().as_string())
    for part in parts:
        assert hidden not in part and HIDDEN_TEXT not in part
    body = str(message.body)
    assert "Siege Tower" in body and "face down" in body  # the back's type only
    assert "A1" in body and "F1" in body  # the face-up cards
    assert "Practice values, not the published Scenario Cards" in body
    assert "T:2C1K R:1S B:2K" in body and reverse("anarchy:daily") in body
    assert message.reply_to == [inbound.puzzle_address(alice.pk, puzzle.day)]
    assert "/anarchy/daily/email/stop/" in body and "List-Unsubscribe" in message.extra_headers


def test_the_puzzle_email_is_in_the_players_language(puzzle: DailyPuzzle, alice: User) -> None:
    alice.language = "sv"
    alice.save(update_fields=["language"])
    message = puzzle_mail.puzzle_email(alice, puzzle)
    assert 'lang="sv"' in str(message.alternatives[0][0])


def test_the_daily_email_goes_once_per_player_and_day(puzzle: DailyPuzzle) -> None:
    on, answered, off, never = (create_user() for _ in range(4))
    for user in (on, answered):
        inbound.mailing_set(user, True)
    inbound.mailing_set(off, False)
    puzzles.answer_submit(puzzle, answered, parse_deployment(ALL_TOP, SMALL))
    assert puzzle_mail.mails_send() == 1
    assert [m.to for m in django_mail.outbox] == [[on.email]]
    assert puzzle_mail.mails_send() == 0
    call_command("puzzle_mail")
    assert len(django_mail.outbox) == 1
    assert PuzzleMailSent.objects.get().user == on
    assert never.pk not in PuzzleMailing.objects.values_list("user_id", flat=True)


def test_the_beat_schedule_sends_the_puzzle_daily() -> None:
    from mastery.celery import app

    entry = app.conf.beat_schedule["anarchy-puzzle-mail"]
    assert entry["task"] == "anarchy.tasks.puzzle_mails_send"


# -- The opt-in ---------------------------------------------------------------------------------------


def test_a_player_turns_the_daily_email_on_and_off(puzzle: DailyPuzzle, alice: User) -> None:
    client = client_for(alice)
    page = client.get(reverse("anarchy:daily"))
    assert "Email me the daily puzzle" in page.content.decode()
    url = reverse("anarchy:mail_optin")
    response = client.post(url, {"active": "1", "next": reverse("anarchy:index")})
    assert response.status_code == 302 and response["Location"] == reverse("anarchy:index")
    assert PuzzleMailing.objects.get(user=alice).active
    assert "Stop the daily email" in client.get(reverse("anarchy:index")).content.decode()
    response = client.post(url, {"active": "0", "next": "https://evil.example/"})
    assert response["Location"] == reverse("anarchy:daily")
    assert not PuzzleMailing.objects.get(user=alice).active


def test_the_opt_in_needs_a_signed_in_player_and_a_csrf_token(alice: User) -> None:
    url = reverse("anarchy:mail_optin")
    response = Client().post(url, {"active": "1"})
    assert response.status_code == 302 and "login" in response["Location"]
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    assert strict.post(url, {"active": "1"}).status_code == 403
    assert not PuzzleMailing.objects.exists()


def test_the_unsubscribe_link_turns_the_email_off(alice: User) -> None:
    inbound.mailing_set(alice, True)
    url = reverse("anarchy:mail_stop", args=[inbound.unsubscribe_token(alice.pk)])
    client = Client()
    assert client.get(url).status_code == 200 and PuzzleMailing.objects.get().active
    assert client.post(url).status_code == 200
    assert not PuzzleMailing.objects.get().active
    assert client.get(reverse("anarchy:mail_stop", args=["forged:token"])).status_code == 404
