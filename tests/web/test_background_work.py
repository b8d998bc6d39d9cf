"""The background work (outbox, digests, deadline sweep, slow bots) survives a poison item: one failing
row, user or game never blocks the others, and a failure is recorded and retried with a backoff rather than
tried first in every sweep forever (session 9 review; architecture §3)."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

import pytest
import time_machine
from django.core import mail
from django.core.mail.backends.locmem import EmailBackend as LocmemBackend
from django.utils import timezone
from pytest_django import Settings as SettingsWrapper

from games import engine, services
from games.models import ChatMessage, Game, Notification, Prompt, Seat
from games.notify import send as notify_send
from games.services import chat
from games.tasks import deadline_sweep, outbox_sweep

from .conftest import create_started_game, create_user, seat_users, state_of

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
BAD = "bounces@example.com"


class RefusingBackend(LocmemBackend):
    """The locmem backend, except that the SMTP server refuses one recipient (as smtplib would raise)."""

    calls: ClassVar[list[str]] = []

    def send_messages(self, messages: Any) -> int:
        for m in messages:
            RefusingBackend.calls.append(m.to[0])
            if BAD in m.to:
                raise smtplib.SMTPRecipientsRefused({BAD: (550, b"5.1.1 no such mailbox")})
        return super().send_messages(messages)


@pytest.fixture
def refusing(settings: SettingsWrapper) -> list[Any]:
    settings.EMAIL_BACKEND = "tests.web.test_background_work.RefusingBackend"
    RefusingBackend.calls = []
    mail.outbox = []
    return mail.outbox


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def _mails_to(outbox: list[Any], email: str) -> list[Any]:
    return [m for m in outbox if email in m.to]


# --------------------------------------------------------------------------------------------------------
# outbox_flush / digests_send: one failing row or user
# --------------------------------------------------------------------------------------------------------


def test_one_refused_recipient_does_not_block_everyone_elses_mail(refusing: list[Any]) -> None:
    """Game A's player has an address the SMTP server refuses; game B's player is fine. Their rows are all
    pending (the tasks were lost). The minute's outbox sweep must still send B's mails, and must not raise."""
    bad = create_user(BAD)
    good = create_user()
    create_started_game(humans=[bad], bots=1, seed=3)  # older rows: flushed first
    create_started_game(humans=[good], bots=1, seed=3)
    assert Notification.objects.filter(recipient=good, status="pending").exists()
    outbox_sweep()
    assert _mails_to(refusing, good.email), "one refused recipient stopped every other email"


def test_a_failing_row_is_recorded_and_not_retried_every_minute_forever(refusing: list[Any]) -> None:
    """After repeated failures the poison row should be marked (failed / skipped with a reason, or with a
    backoff), not stay ``pending`` and be retried first in every flush forever."""
    bad = create_user(BAD)
    create_started_game(humans=[bad], bots=1, seed=3)
    for _ in range(5):
        notify_send.outbox_flush()
    tries = RefusingBackend.calls.count(BAD)
    row = Notification.objects.filter(recipient=bad).order_by("send_after", "pk").first()
    assert row is not None
    assert row.status != Notification.Status.PENDING or row.send_after > timezone.now() or tries <= 3, (
        f"row still pending and due after {tries} failed attempts, with no failure recorded"
    )


def test_a_failing_row_waits_longer_after_each_try_and_is_skipped_after_the_last(
    refusing: list[Any], clock: time_machine.Traveller
) -> None:
    """Each failure postpones the row by ``RETRY_AFTER`` doubled per earlier failure (5, 10, 20 … minutes);
    after ``SEND_ATTEMPTS`` tries it is skipped as ``failed: <error>`` and tried no more."""
    bad = create_user(BAD)
    create_started_game(humans=[bad], bots=1, seed=3)
    rows = Notification.objects.filter(recipient=bad)
    first = rows.order_by("pk").first()
    assert first is not None
    for attempt in range(1, notify_send.SEND_ATTEMPTS + 1):
        notify_send.outbox_flush()
        first.refresh_from_db()
        assert first.attempts == attempt
        if attempt < notify_send.SEND_ATTEMPTS:
            assert first.status == Notification.Status.PENDING
            assert first.send_after == timezone.now() + notify_send.RETRY_AFTER * 2 ** (attempt - 1)
            clock.move_to(first.send_after)
    assert (first.status, first.skip_reason) == (Notification.Status.SKIPPED, "failed: SMTPRecipientsRefused")
    tries = RefusingBackend.calls.count(BAD)
    clock.shift(timedelta(days=2))
    notify_send.outbox_flush()
    assert RefusingBackend.calls.count(BAD) == tries  # nothing of theirs is tried again
    assert not rows.filter(status=Notification.Status.PENDING).exists()
    first.refresh_from_db()
    assert first.attempts == notify_send.SEND_ATTEMPTS  # skipped rows are never tried again


def test_a_mail_server_that_is_down_stops_the_flush_without_blaming_a_row(
    settings: SettingsWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transport error (the server is down or hangs up) is nobody's row: the flush stops at once, the
    rows stay pending as they were (no try counted), and the next sweep sends them."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    user = create_user()
    create_started_game(humans=[user], bots=1, seed=3)
    pending = Notification.objects.filter(recipient=user, status="pending")
    before = pending.count()
    assert before
    calls: list[int] = []

    def down(self: Any, messages: Any) -> int:
        calls.append(len(messages))
        raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")

    monkeypatch.setattr(LocmemBackend, "send_messages", down)
    assert notify_send.outbox_flush() == 0
    assert len(calls) == 1  # stopped at the first failure
    assert pending.count() == before and not pending.filter(attempts__gt=0).exists()
    monkeypatch.undo()
    mail.outbox = []
    assert notify_send.outbox_flush() == before


def test_one_users_failing_digest_does_not_stop_the_other_users_digests(
    refusing: list[Any], clock: time_machine.Traveller
) -> None:
    """Two users take their "started" emails as a digest; the first user's digest is refused by SMTP. The
    second user's digest must still go out."""
    bad = create_user(BAD)
    good = create_user()
    for u in (bad, good):
        u.notify = {"started": "digest", "turn": "digest"}
        u.save(update_fields=["notify"])
    create_started_game(humans=[bad, good], seed=5)
    notify_send.outbox_flush()  # rows move to "digest"
    assert Notification.objects.filter(recipient=good, status="digest").exists()
    clock.shift(timedelta(hours=8))  # 20:00 UTC: past DIGEST_HOUR for both (UTC)
    notify_send.digests_send()
    assert _mails_to(refusing, good.email), "one user's failing digest stopped every later user's digest"


def _digest_of_hidden_chat(settings: SettingsWrapper, clock: time_machine.Traveller) -> dict[int, Any]:
    """A 3-player game whose third player takes table talk in the daily digest; its only message is
    hidden by the staff before the digest hour, and the digests run. Returns the seat users."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    mail.outbox = []
    game = create_started_game(humans=3, seed=4)
    users = seat_users(game)
    message = chat.chat_post(game_id=game.pk, user=users[0], channel="table", text="rude words")
    notify_send.outbox_flush()
    assert Notification.objects.filter(recipient=users[2], kind="chat", status="digest").exists()
    ChatMessage.objects.filter(pk=message.pk).update(hidden=True)
    clock.shift(timedelta(hours=8))
    notify_send.digests_send()
    return users


def test_a_digest_of_only_hidden_chat_leaves_no_pending_row_that_poisons_the_outbox(
    settings: SettingsWrapper, clock: time_machine.Traveller
) -> None:
    """A user's only digest items are table-talk messages the staff hid since: no digest is sent, no
    digest row is left pending (a pending row without a game once failed every later flush), and the
    items are skipped rather than kept for the next day."""
    users = _digest_of_hidden_chat(settings, clock)
    stray = Notification.objects.filter(recipient=users[2], kind="digest", status="pending")
    assert not stray.exists(), "an empty digest row was left pending"
    assert not Notification.objects.filter(recipient=users[2], kind="chat", status="digest").exists()


def test_an_empty_digest_row_does_not_crash_the_next_outbox_flush(
    settings: SettingsWrapper, clock: time_machine.Traveller
) -> None:
    """Same as above, seen from the outbox: after the empty digest, a new game's mail must still go out."""
    _digest_of_hidden_chat(settings, clock)
    clock.shift(timedelta(minutes=1))
    newcomer = create_user()
    create_started_game(humans=[newcomer], bots=1, seed=3)
    mail.outbox = []
    outbox_sweep()  # an empty digest row left pending once made content_for fail here
    assert _mails_to(mail.outbox, newcomer.email)


# --------------------------------------------------------------------------------------------------------
# deadline sweep and slow bots: one broken game
# --------------------------------------------------------------------------------------------------------


def _break_state(game: Game) -> None:
    """The stored state can no longer be loaded (e.g. a record of an older engine format)."""
    Game.objects.filter(pk=game.pk).update(state={"format": "unknown"}, state_hash="broken")


def test_one_game_whose_timeout_raises_does_not_stop_the_sweep_for_the_others(
    clock: time_machine.Traveller,
) -> None:
    """Two live games are overdue; the state of the first (earliest deadline) cannot be loaded. The sweep
    must still time out the second game's turn (and go on to reminders and bots)."""
    broken = create_started_game(humans=2, seed=5, time_control="live")
    clock.shift(timedelta(minutes=1))
    fine = create_started_game(humans=2, seed=5, time_control="live")
    seq = fine.seq
    _break_state(broken)
    clock.shift(timedelta(hours=2))
    deadline_sweep()
    fine.refresh_from_db()
    assert fine.seq > seq, "one broken game stopped every other game's timeouts"


def test_one_broken_game_does_not_stop_reminders_for_the_others(clock: time_machine.Traveller) -> None:
    """``deadline_sweep`` queues reminders only after ``deadlines_sweep`` returns: a raising timeout means no
    game gets its 75 % reminder either."""
    broken = create_started_game(humans=2, seed=5, time_control="live")
    _break_state(broken)
    clock.shift(timedelta(hours=1, minutes=1))  # the broken game is overdue
    fine = create_started_game(humans=2, seed=5, time_control="live")
    clock.shift(timedelta(minutes=50))  # past 75 % of the fine game's hour, not its deadline
    deadline_sweep()
    assert Notification.objects.filter(game=fine, kind="reminder").exists()


def _hard_bot_waiting() -> Game:
    """A started 1 human + 1 hard bot game where the hard bot's decision is open (its task was lost)."""
    for seed in range(1, 40):
        game = create_started_game(humans=1, bots=1, seed=seed, bot_level="hard")
        bot = Seat.objects.get(game=game, is_bot=True).number
        if any(p.seat == bot for p in engine.pending(state_of(game))):
            return game
    raise AssertionError("no seed lets the hard bot move first")


def test_one_broken_game_does_not_stop_the_lost_slow_bots_of_the_others(
    clock: time_machine.Traveller,
) -> None:
    """Two games wait for a hard bot whose ``bots_play`` task was lost; the first cannot be loaded. The
    minute sweep must still play the second game's bot."""
    broken = _hard_bot_waiting()
    fine = _hard_bot_waiting()
    assert broken.pk < fine.pk
    seq = fine.seq
    _break_state(broken)
    clock.shift(timedelta(minutes=2))
    assert fine.pk in services.bots_waiting()
    deadline_sweep()
    fine.refresh_from_db()
    assert fine.seq > seq, "one broken game stopped the slow bots of every other game"


def test_a_broken_game_does_not_stay_at_the_head_of_every_sweep(clock: time_machine.Traveller) -> None:
    """A prompt whose timeout keeps failing is retried first by every minute's sweep (ordered by deadline);
    nothing records the failure or moves it aside."""
    broken = create_started_game(humans=2, seed=5, time_control="live")
    _break_state(broken)
    clock.shift(timedelta(hours=2))
    failures = 0
    for _ in range(3):
        try:
            services.deadlines_sweep()
        except Exception:
            failures += 1
        clock.shift(timedelta(minutes=1))
    assert failures == 0, f"the sweep raised {failures} times in a row on the same game"
    assert Prompt.objects.filter(game=broken).exists()
