"""issue 4 (second part): the notification outbox, digests, quiet hours, reminders, timeouts, vacations,
standing orders, email content, signed email links and unsubscribing.

Emails are captured with Django's locmem backend. Rows are queued inside the game write's transaction and
sent by the (eager) Celery task from a ``transaction.on_commit`` callback, so every write whose mail should go
out runs inside :class:`Writes` (pytest-django's ``django_capture_on_commit_callbacks(execute=True)``): a
write outside it leaves its rows pending, as if the broker had been unreachable. An email is matched to its
outbox row by its ``Message-ID`` (:func:`games.notify.content.message_id` of the row's dedupe key). Time is
controlled with time-machine (a stopped clock the tests move).
"""

from __future__ import annotations

import functools
import json
import re
import zoneinfo
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any, TypeVar

import pytest
import time_machine
from django.conf import settings as django_settings
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.db import transaction
from django.db.models import QuerySet
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games import engine, services, tasks
from games.engine import actions as A
from games.engine.bot import choose
from games.engine.rng import Rng
from games.models import ActionRecord, Game, Notification, Prompt, Seat, StandingOrder
from games.notify import content as notify_content
from games.notify import send as notify_send
from games.services import outbox
from games.standing import standing_answer, used_against
from tests.engine import fixtures as F

from .conftest import (
    Writes,
    as_apply_async,
    create_started_game,
    create_user,
    db_fingerprint,
    seat_users,
    state_of,
)
from .factories import before_battle, game_from_state

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SEOUL = zoneinfo.ZoneInfo("Asia/Seoul")
T = TypeVar("T")

#: Engine prompt kind -> notification kind, as issue 4 describes the emails: every step of a turn is "your
#: turn"; battles and windows have their own kinds; the remaining one-off choices are "a choice is yours".
EXPECTED_KIND = {
    "turn": "turn",
    "manoeuvre": "turn",
    "vitality": "turn",
    "conflict": "conflict",
    "support": "support",
    "response": "response",
}


# ----------------------------------------------------------------------------------------------------------
# Fixtures and helpers
# ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    """A stopped clock at START that the test moves with ``clock.shift(...)`` / ``clock.move_to(...)``."""
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@dataclass
class Received:
    """One sent email with its outbox row."""

    to: str
    kind: str
    row: Notification
    msg: EmailMultiAlternatives

    @property
    def text(self) -> str:
        return str(self.msg.body)

    @property
    def html(self) -> str:
        [(html, mimetype)] = self.msg.alternatives
        assert mimetype == "text/html"
        return str(html)


def received(
    messages: list[EmailMessage | EmailMultiAlternatives], rows: QuerySet[Notification] | None = None
) -> list[Received]:
    """Match every email to its outbox row (among ``rows``: all by default) by ``Message-ID``; an email
    without a row fails the test."""
    by_id = {
        n.message_id: n
        for n in (Notification.objects.all() if rows is None else rows).select_related("recipient")
        if n.message_id  # stored when the row was claimed for sending (issue 28)
    }
    out = []
    for msg in messages:
        assert isinstance(msg, EmailMultiAlternatives)
        row = by_id[msg.extra_headers["Message-ID"]]
        assert msg.to == [row.recipient.email]
        out.append(Received(row.recipient.email, row.kind, row, msg))
    return out


def pairs(messages: list[EmailMessage | EmailMultiAlternatives]) -> Counter[tuple[str, str]]:
    """``(recipient email, notification kind)`` of every email, counted."""
    return Counter((r.to, r.kind) for r in received(messages))


def rows_snapshot() -> list[dict[str, Any]]:
    """Every field of every outbox row."""
    return [dict(row) for row in Notification.objects.order_by("pk").values()]


def make_users(*names: str, **fields: Any) -> list[User]:
    """Fresh verified users with these display names and the same extra fields."""
    users = [create_user(display_name=name) for name in names]
    for user in users:
        for key, value in fields.items():
            setattr(user, key, value)
        user.save()
    return users


def submit(game: Game, user: User, payload: dict[str, Any]) -> Game:
    """One action on the page (source ``web``) by ``user``; returns the game after it."""
    return services.action_submit(
        game_id=game.pk, user=user, action=engine.parse_action(payload), expected_seq=game.seq
    ).game


def next_move(game: Game, users: dict[int, User], seat: int | None = None) -> tuple[int, engine.Action]:
    """The move a test plays for a human seat (the first human seat the game waits for when ``seat`` is
    ``None``): the engine's random-legal policy seeded from the game's seed and ``seq`` — not from the game
    id, as :func:`~tests.web.conftest.play_human_move` is — so a game plays the same on every database and
    in every test order."""
    state = state_of(game)
    if seat is None:
        seat = next(p.seat for p in engine.pending(state) if p.seat in users)
    assert game.setup is not None
    action = choose(state, seat, Rng(int(game.setup["seed"]) * 1_000_003 + game.seq))
    assert action is not None
    return seat, action


def play(game: Game, users: dict[int, User], seat: int | None = None) -> Game:
    """Play :func:`next_move` on the page (source ``web``); returns the game after it."""
    seat, action = next_move(game, users, seat)
    return submit(game, users[seat], action.to_dict())


def end_turn(game: Game) -> Game:
    """The active player ends their turn on the page (R30: nothing else is mandatory)."""
    active = state_of(game).active
    return submit(game, seat_users(game)[active], {"type": "end_turn"})


def link(msg: Received, label: str) -> str:
    """The path of the link labelled ``label`` in the text body (``"<label>: <url>"`` lines)."""
    found = re.search(rf"^{re.escape(label)}: (\S+)$", msg.text, re.M)
    assert found, f"no {label!r} link in:\n{msg.text}"
    url = found.group(1)
    assert url.startswith(django_settings.SITE_URL)
    return url.removeprefix(django_settings.SITE_URL.rstrip("/"))


def window_ahead(
    want: Callable[[engine.GameState, int], bool],
    fracture: tuple[int, ...] = (),
    options: dict[str, Any] | None = None,
) -> tuple[Game, int, engine.Action]:
    """A stored 3-human game one move before a response window: seat 0 (to move) attacks seat 1 with its
    Sceptre of Rage (R64) while seat 2 watches; the seats in ``fracture`` hold Fracture (R36). Returns the
    game, the seat to move and the move, after checking that ``want(state after the move, mover)`` holds.

    Stopping one move ahead lets a test set standing orders before the window opens.
    """
    hands = {seat: WITH_FRACTURE for seat in fracture}
    state, attack = before_battle(3, arts={0: ["sceptre_rage"]}, hands=hands, options=options)
    action = engine.parse_action(attack)
    after = engine.apply(state, 0, action).state
    assert after.window is not None and after.window.kind == "sceptre" and want(after, 0)
    return game_from_state(state, humans=3), 0, action


def fracture_in_hand(state: engine.GameState, seat: int) -> bool:
    """Whether ``seat`` holds its Fracture card (R36)."""
    return state.content.effect_index["fracture"] in state.players[seat].hand


# ----------------------------------------------------------------------------------------------------------
# 1. Who gets which email
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_game_start_emails_every_seated_human_once_and_the_first_player_their_turn(
    sent: list[EmailMessage], writes: Writes
) -> None:
    """Starting a 3-player game tells each seated human once that it started, and the first player (R25,
    chosen at random) that it is their turn; nothing else."""
    users = make_users("Anna", "Bob", "Cid")
    game = writes(lambda: create_started_game(humans=users, seed=21))
    first = seat_users(game)[state_of(game).active]
    expected = Counter({(u.email, "started"): 1 for u in users})
    expected[(first.email, "turn")] += 1
    assert pairs(sent) == expected
    start_mail = next(r for r in received(sent) if r.to == first.email and r.kind == "started")
    assert f"{first.name} goes first." in start_mail.text


@pytest.mark.django_db
def test_ending_a_turn_on_the_page_emails_the_next_player_only(
    sent: list[EmailMessage], writes: Writes, client: Client
) -> None:
    """The active player ends their turn on the game page: turns pass clockwise (R25), so exactly one email
    goes out, "your turn" to the next seat; the player who acted is looking at the page and gets nothing."""
    game = writes(lambda: create_started_game(humans=3, seed=21))
    users = seat_users(game)
    state = state_of(game)
    active, nxt = state.active, (state.active + 1) % 3
    sent.clear()
    client.force_login(users[active])
    response = writes(
        lambda: client.post(
            f"/games/{game.pk}/act/", {"type": "end_turn", "expected_seq": game.seq, "confirmed": "1"}
        )
    )
    assert response.status_code == 302
    [only] = received(sent)
    assert (only.to, only.kind) == (users[nxt].email, "turn")
    assert f"It is your turn in “Test game” (turn {state.turn + 1})." in only.text


@pytest.mark.django_db
def test_every_move_emails_exactly_the_newly_asked_seats_except_the_mover(
    sent: list[EmailMessage], writes: Writes
) -> None:
    """Move by move through a 3-human game: the emails a move causes are exactly one per decision it newly
    opened (a prompt key that was not open before), to that seat's player, of the matching kind — except
    decisions of the player who just moved on the page, who gets no email about their own move, and
    decisions already emailed: a turn keeps its key while a response window or battle interrupts it, so
    when it comes back after the window there is no second "your turn" (one email per turn). Response
    windows (R37: every other player with a Fracture to play is asked; the server passes for the others,
    issue 14), battles (conflict cards, support) and turns are all covered before the test stops (seed 5
    reaches them all)."""
    game = writes(lambda: create_started_game(humans=3, seed=5))
    users = seat_users(game)
    email_of = {seat: u.email for seat, u in users.items()}
    emailed = {(p.seat, p.key, EXPECTED_KIND.get(p.kind, "choice")) for p in engine.pending(state_of(game))}
    seen: Counter[str] = Counter()
    reopened = 0
    for _ in range(400):
        before = engine.pending(state_of(game))
        mover, _action = next_move(game, users)
        sent.clear()
        game = writes(functools.partial(play, game, users, seat=mover))
        after = engine.pending(state_of(game))
        was_open = {(p.seat, p.key) for p in before}
        new = {
            (p.seat, p.key, EXPECTED_KIND.get(p.kind, "choice"))
            for p in after
            if (p.seat, p.key) not in was_open and p.seat != mover and not p.auto  # auto: no decision
        }
        reopened += len(new & emailed)
        expected = Counter((email_of[seat], kind) for seat, _key, kind in new - emailed)
        emailed |= new
        got = pairs(sent)
        assert got == expected, (game.seq, before, after)
        assert email_of[mover] not in {to for to, _kind in got}
        seen.update(kind for _to, kind in got.elements())
        if game.status != Game.Status.ACTIVE or (
            {"turn", "response", "conflict", "support"} <= set(seen) and reopened
        ):
            break
    assert {"turn", "response", "conflict", "support"} <= set(seen)
    assert reopened  # a turn came back after a window without a second email


@pytest.mark.django_db
def test_game_over_emails_every_seated_human_once(sent: list[EmailMessage], writes: Writes) -> None:
    """A 3-player game played to its end (R103): each player gets exactly one "game over" email, the last
    email of the game, naming the winner and their own final place and VP, with links to the result and
    the replay."""
    game = writes(lambda: create_started_game(humans=3, seed=2))
    users = seat_users(game)
    for _ in range(2000):
        if game.status != Game.Status.ACTIVE:
            break
        game = writes(functools.partial(play, game, users))
    assert game.status == Game.Status.FINISHED
    over = [r for r in received(sent) if r.kind == "finished"]
    assert Counter(r.to for r in over) == Counter(u.email for u in users.values())
    seats = {s.number: s for s in Seat.objects.filter(game=game).select_related("user")}
    winners = ", ".join(seats[w].name for w in game.winners)
    for r in over:
        mine = next(s for s in seats.values() if s.user is not None and s.user.email == r.to)
        assert f"is over. Winner: {winners}." in r.text
        assert f"You finished in place {mine.final_rank} with {mine.final_vp} VP." in r.text
        # issue 16: the game-over email links to the result and to the replay
        assert f"/games/{game.pk}/#result" in r.text and f"/games/{game.pk}/replay/" in r.text
    assert over == received(sent)[-3:]  # nothing follows the end


# ----------------------------------------------------------------------------------------------------------
# 2. + 3. Idempotency; decisions made before their email
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_running_the_send_task_and_both_sweeps_twice_changes_nothing_the_second_time(
    sent: list[EmailMessage], writes: Writes, clock: time_machine.Traveller
) -> None:
    """``notifications_send``, ``outbox_sweep`` and ``deadline_sweep`` are run twice in a row at four moments
    that give them work (rows left pending, a digest, a 75 % reminder, a timeout, mail postponed by quiet
    hours): each first run changes rows or sends mail, each second run changes no row and sends nothing."""
    anna, bob, cid = make_users("Anna", "Bob", "Cid")
    anna.quiet_start, anna.quiet_end = time(11), time(14)  # UTC: START (12:00) is inside
    bob.notify = {"started": "digest"}  # UTC: after DIGEST_HOUR at START
    anna.save()
    bob.save()
    game = create_started_game(humans=[anna, bob, cid], seed=5, time_control="live")  # nothing sent yet

    def run_all() -> None:
        writes(lambda: tasks.notifications_send(game.pk))
        writes(tasks.outbox_sweep)
        writes(tasks.deadline_sweep)

    def twice(work_done: Callable[[], bool]) -> None:
        before = rows_snapshot()
        sent.clear()
        run_all()
        assert rows_snapshot() != before or sent
        assert work_done()
        first = rows_snapshot()
        sent.clear()
        run_all()
        assert rows_snapshot() == first
        assert sent == []

    twice(lambda: Notification.objects.filter(kind="digest", status="sent").count() == 1)
    clock.shift(timedelta(minutes=46))  # past 75 % of the 1-hour turn
    twice(lambda: Notification.objects.filter(kind="reminder", status="sent").count() == 1)
    clock.shift(timedelta(minutes=15))  # past the turn deadline
    twice(lambda: Notification.objects.filter(kind="timeout").count() == 1)
    clock.move_to(START.replace(hour=14))  # Anna's quiet hours are over
    twice(lambda: not Notification.objects.filter(recipient=anna, status="pending").exists())


@pytest.mark.django_db
def test_a_decision_made_before_its_email_goes_out_is_skipped_not_sent(
    sent: list[EmailMessage], writes: Writes
) -> None:
    """The first player's "your turn" row is still pending (the send task has not run) when they end the
    turn on the page: the send task then skips it as ``decided`` and sends the rest."""
    game = create_started_game(humans=3, seed=5)  # rows pending: nothing sent yet
    users = seat_users(game)
    first = state_of(game).active
    row = Notification.objects.get(game=game, seat=first, kind="turn")
    game = end_turn(game)
    assert tasks.notifications_send(game.pk) == 4  # three "started", the next player's turn
    row.refresh_from_db()
    assert (row.status, row.skip_reason, row.sent_at) == ("skipped", "decided", None)
    assert row.message_id == ""  # never claimed, so never given a Message-ID
    nxt = (first + 1) % 3
    assert Counter(pairs(sent)) == Counter(
        {**{(u.email, "started"): 1 for u in users.values()}, (users[nxt].email, "turn"): 1}
    )


# ----------------------------------------------------------------------------------------------------------
# 4. Preferences: off, digest
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_kind_turned_off_is_skipped_and_never_sent(sent: list[EmailMessage], writes: Writes) -> None:
    """Everyone turned "your turn" emails off: the first player's turn row is skipped (``off``); the
    "started" emails, still on, go out."""
    users = make_users("Anna", "Bob", "Cid", notify={"turn": "off"})
    game = writes(lambda: create_started_game(humans=users, seed=5))
    row = Notification.objects.get(game=game, kind="turn")
    assert (row.status, row.skip_reason) == ("skipped", "off")
    assert pairs(sent) == Counter({(u.email, "started"): 1 for u in users})


@pytest.mark.django_db
def test_digest_once_per_local_day_after_the_digest_hour_without_decided_items(
    sent: list[EmailMessage], writes: Writes, clock: time_machine.Traveller
) -> None:
    """Anna (Seoul, UTC+9) and Bob (New York, UTC-5) take "started" and "your turn" as a daily digest. At
    START (12:00 UTC) it is 21:00 in Seoul and 07:00 in New York, so only Anna's digest is due
    (``DIGEST_HOUR`` = 8 local): one email with her items; turns she already ended are dropped. A second run
    the same local day sends nothing, even with a new item; Bob's comes at 13:00 UTC (08:00 his time); Anna's
    next one after 08:00 Seoul time the next day (23:00 UTC)."""
    assert django_settings.DIGEST_HOUR == 8
    digest_mode = {"started": "digest", "turn": "digest"}
    anna, bob = make_users("Anna", "Bob", notify=digest_mode)
    anna.time_zone, bob.time_zone = "Asia/Seoul", "America/New_York"
    anna.save()
    bob.save()
    (cid,) = make_users("Cid")
    game = writes(lambda: create_started_game(humans=[anna, bob, cid], seed=5))
    for _ in range(3):  # every seat ends one turn; the fourth turn (the first player's again) is open
        game = writes(functools.partial(end_turn, game))
    assert {(r.to, r.kind) for r in received(sent)} <= {(cid.email, "started"), (cid.email, "turn")}
    seat_of = {u.pk: s for s, u in seat_users(game).items()}
    active = state_of(game).active

    def expected_items(user: User) -> int:
        return 1 + (seat_of[user.pk] == active)  # "started", and the open turn if it is theirs

    sent.clear()
    for hour in (0, 0.5):  # 21:00 and 21:30 in Seoul: one digest, then none
        clock.move_to(START + timedelta(hours=hour))
        writes(lambda: notify_send.digests_send(now=timezone.now()))
    [digest] = received(sent)
    assert (digest.to, digest.kind, digest.row.data) == (
        anna.email,
        "digest",
        {"items": expected_items(anna)},
    )
    assert digest.text.count("\n== ") == expected_items(anna)
    assert "== “Test game” has started ==" in digest.text
    items = Notification.objects.filter(recipient=anna).exclude(kind="digest")
    assert {(n.kind, n.status, n.skip_reason) for n in items} <= {
        ("started", "sent", ""),
        ("turn", "sent", ""),
        ("turn", "skipped", "decided"),
    }
    assert items.filter(digest=digest.row).count() == expected_items(anna)
    assert items.filter(status="skipped").count() == 1  # the turn she ended

    game = writes(functools.partial(end_turn, game))
    while state_of(game).active != seat_of[anna.pk]:  # a new turn of Anna's arrives after her digest
        game = writes(functools.partial(end_turn, game))
    active = state_of(game).active
    assert Notification.objects.filter(recipient=anna, status="digest").exists()
    sent.clear()
    clock.move_to(START + timedelta(hours=1))  # 08:00 New York, 22:00 Seoul: Bob's first; Anna's waits
    assert notify_send.digests_send(now=timezone.now()) == 1
    assert [(r.to, r.row.data["items"]) for r in received(sent)] == [(bob.email, expected_items(bob))]

    sent.clear()
    clock.move_to(datetime(2026, 3, 1, 22, 59, tzinfo=UTC))  # 07:59 in Seoul
    assert notify_send.digests_send(now=timezone.now()) == 0
    clock.move_to(datetime(2026, 3, 1, 23, 0, tzinfo=UTC))  # 08:00 in Seoul, the next local day
    assert notify_send.digests_send(now=timezone.now()) == 1
    assert [r.to for r in received(sent)] == [anna.email]


# ----------------------------------------------------------------------------------------------------------
# 5. Quiet hours
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(("time_control", "turn_is_urgent"), [("daily", False), ("live", True)])
def test_quiet_hours_postpone_mail_unless_the_deadline_comes_first(
    sent: list[EmailMessage],
    writes: Writes,
    clock: time_machine.Traveller,
    time_control: str,
    turn_is_urgent: bool,
) -> None:
    """Everyone lives in Seoul with quiet hours 22:00–07:00. The game starts at 23:00 Seoul time (14:00
    UTC): "started" is never urgent and waits for 07:00 Seoul (22:00 UTC); the first turn waits too on the
    daily clock (deadline in 24 hours), but goes at once on the live clock (deadline in 1 hour, before the
    quiet hours end). The outbox sweep sends the postponed mail when the quiet hours end, not before."""
    clock.move_to(datetime(2026, 3, 1, 14, 0, tzinfo=UTC))
    users = make_users("Anna", "Bob", "Cid", time_zone="Asia/Seoul", quiet_start=time(22), quiet_end=time(7))
    game = writes(lambda: create_started_game(humans=users, seed=5, time_control=time_control))
    quiet_end = datetime(2026, 3, 2, 7, 0, tzinfo=SEOUL)
    assert quiet_end == datetime(2026, 3, 1, 22, 0, tzinfo=UTC)
    first = seat_users(game)[state_of(game).active]
    assert pairs(sent) == (Counter({(first.email, "turn"): 1}) if turn_is_urgent else Counter())
    waiting = Notification.objects.filter(game=game, status="pending")
    assert {n.send_after for n in waiting} == {quiet_end}
    assert waiting.count() == 3 + (not turn_is_urgent)

    sent.clear()
    clock.move_to(quiet_end - timedelta(minutes=1))
    assert writes(tasks.outbox_sweep) == 0
    clock.move_to(quiet_end)
    writes(tasks.outbox_sweep)
    later = Counter({(u.email, "started"): 1 for u in users})
    if not turn_is_urgent:
        later[(first.email, "turn")] += 1
    assert pairs(sent) == later


# ----------------------------------------------------------------------------------------------------------
# 6. + 7. Reminders and timeouts
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_one_reminder_after_75_percent_of_the_time(
    sent: list[EmailMessage], writes: Writes, clock: time_machine.Traveller
) -> None:
    """Live clock, 1-hour turns: no reminder before 45 minutes; at 45 minutes exactly one, to the player the
    game waits for, saying how long is left; sweeping again queues none."""
    game = writes(lambda: create_started_game(humans=2, seed=5, time_control="live"))
    users = seat_users(game)
    active = state_of(game).active
    sent.clear()
    clock.shift(timedelta(minutes=44, seconds=59))
    writes(tasks.deadline_sweep)
    assert not Notification.objects.filter(kind="reminder").exists() and sent == []
    clock.shift(timedelta(seconds=1))
    writes(tasks.deadline_sweep)
    [reminder] = received(sent)
    assert (reminder.to, reminder.kind) == (users[active].email, "reminder")
    assert "15\xa0minutes left" in reminder.text
    assert link(reminder, "End my turn").startswith("/e/")
    sent.clear()
    writes(tasks.deadline_sweep)
    assert Notification.objects.filter(kind="reminder").count() == 1 and sent == []
    assert Prompt.objects.get(game=game, seat=active).remind_at is None  # queued once: cleared
    assert outbox.reminders_queue(now=timezone.now()) == 0


@pytest.mark.django_db
def test_no_reminder_once_the_decision_is_made(
    sent: list[EmailMessage],
    writes: Writes,
    clock: time_machine.Traveller,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A turn ended before 75 % gets no reminder (the next turn's clock started later). A reminder queued
    while the broker was unreachable (so it stayed pending) is skipped as ``decided`` when the player acts
    before the outbox sweep gets to it."""
    game = writes(lambda: create_started_game(humans=2, seed=5, time_control="live"))
    clock.shift(timedelta(minutes=30))
    game = writes(functools.partial(end_turn, game))  # turn 2 opens at 0:30; its 75 % is at 1:15
    clock.shift(timedelta(minutes=16))  # 0:46: turn 1 would have been reminded now
    sent.clear()
    writes(tasks.deadline_sweep)
    assert not Notification.objects.filter(kind="reminder").exists() and sent == []

    def broker_down(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("redis is down")

    monkeypatch.setattr(tasks.notifications_send, "apply_async", as_apply_async(broker_down))
    clock.shift(timedelta(minutes=30))  # 1:16: turn 2 is past 75 %
    writes(tasks.deadline_sweep)
    [row] = Notification.objects.filter(kind="reminder")
    assert row.status == "pending" and sent == []
    assert "outbox sweep will send them" in caplog.text
    game = writes(functools.partial(end_turn, Game.objects.get(pk=game.pk)))
    monkeypatch.undo()
    writes(tasks.outbox_sweep)
    row.refresh_from_db()
    assert (row.status, row.skip_reason) == ("skipped", "decided")
    assert [r.kind for r in received(sent)] == ["turn"]  # the other player's new turn


@pytest.mark.django_db
def test_timeout_email_and_the_im_back_link_after_three_missed_turns(
    sent: list[EmailMessage], writes: Writes, clock: time_machine.Traveller
) -> None:
    """Each missed turn deadline (the sweep ends the turn) sends the sleeper one "deadline passed" email
    (and the other player "your turn"). The third miss in a row makes the seat absent, so that email carries
    a signed "I'm back" link: posting it (no login) gives the seat back."""
    game = writes(lambda: create_started_game(humans=2, seed=5, time_control="live"))
    users = seat_users(game)
    sleeper = state_of(game).active
    waker = 1 - sleeper
    for missed in (1, 2, 3):
        sent.clear()
        clock.shift(timedelta(hours=1, minutes=1))
        assert writes(tasks.deadline_sweep) == 1
        got = received(sent)
        assert Counter((r.to, r.kind) for r in got) == Counter(
            {(users[sleeper].email, "timeout"): 1, (users[waker].email, "turn"): 1}
        )
        timeout = next(r for r in got if r.kind == "timeout")
        assert "your turn was ended." in timeout.text
        assert ("I'm back — take my seat again" in timeout.text) == (missed == 3)
        assert Seat.objects.get(game=game, number=sleeper).missed_deadlines == missed
        game = writes(functools.partial(end_turn, Game.objects.get(pk=game.pk)))
    back = link(timeout, "I'm back — take my seat again")
    response = Client().post(back)
    assert response.status_code == 200 and "link-done" in response.content.decode()
    assert Seat.objects.get(game=game, number=sleeper).missed_deadlines == 0
    assert Client().post(back).status_code == 410  # single use


# ----------------------------------------------------------------------------------------------------------
# 8. Vacations
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("allow_vacation", [True, False])
def test_an_away_period_pauses_the_clock_only_where_vacations_are_allowed(
    clock: time_machine.Traveller, allow_vacation: bool
) -> None:
    """Daily clock: the first player's turn opened at START with its deadline 24 hours later. They go away
    from hour 20 to hour 48. Where vacations are allowed the clock pauses for the away period inside the
    turn (hours 20–48: 28 hours), so the deadline moves to hour 52 and the sweep does not time them out
    meanwhile; where they are not, nothing changes and the turn times out at hour 24."""
    game = create_started_game(humans=2, seed=5)
    Game.objects.filter(pk=game.pk).update(allow_vacation=allow_vacation)
    users = seat_users(game)
    active = state_of(game).active
    user = users[active]
    user.away_from, user.away_until = START + timedelta(hours=20), START + timedelta(hours=48)
    user.save()
    changed = services.vacation_apply(user=user)
    prompt = Prompt.objects.get(game=game, seat=active)
    if allow_vacation:
        assert changed == 1
        assert prompt.deadline_at == START + timedelta(hours=52)
        assert prompt.remind_at == START + timedelta(hours=39)  # 75 % of the 52 hours
    else:
        assert changed == 0
        assert prompt.deadline_at == START + timedelta(hours=24)
    clock.move_to(START + timedelta(hours=24, minutes=1))
    assert services.deadlines_sweep() == (0 if allow_vacation else 1)
    if allow_vacation:
        clock.move_to(START + timedelta(hours=51, minutes=59))
        assert services.deadlines_sweep() == 0
        clock.move_to(START + timedelta(hours=52))
        assert services.deadlines_sweep() == 1
    assert ActionRecord.objects.filter(game=game, source="timeout").count() == 1


@pytest.mark.django_db
def test_a_prompt_opened_during_an_away_period_gets_the_paused_deadline(
    sent: list[EmailMessage], writes: Writes, clock: time_machine.Traveller
) -> None:
    """The second player is away from hour 1 to hour 72. Their turn opens at hour 2, inside the away
    period: its 24-hour clock starts when they are back, so the deadline is hour 96, and the "your turn"
    email (not urgent: the deadline is after their return) waits for hour 72."""
    game = writes(lambda: create_started_game(humans=2, seed=5))
    users = seat_users(game)
    nxt = 1 - state_of(game).active
    away = users[nxt]
    away.away_from, away.away_until = START + timedelta(hours=1), START + timedelta(hours=72)
    away.save()
    clock.move_to(START + timedelta(hours=2))
    sent.clear()
    game = writes(functools.partial(end_turn, game))
    prompt = Prompt.objects.get(game=game, seat=nxt)
    assert prompt.opened_at == START + timedelta(hours=2)
    assert prompt.deadline_at == START + timedelta(hours=96)
    row = Notification.objects.get(game=game, seat=nxt, kind="turn")
    assert (row.status, row.send_after) == ("pending", START + timedelta(hours=72)) and sent == []
    clock.move_to(START + timedelta(hours=72))
    writes(tasks.outbox_sweep)
    assert pairs(sent) == Counter({(away.email, "turn"): 1})


# ----------------------------------------------------------------------------------------------------------
# 9. Standing orders
# ----------------------------------------------------------------------------------------------------------

PLAIN = ["audacious_charge", "call_to_arms", "tactical_advance", "probing_attack", "ambush"]
WITH_FRACTURE = ["audacious_charge", "call_to_arms", "tactical_advance", "probing_attack", "fracture"]


def battle(arts: dict[int, list[str]], hands: dict[int, list[str]] | None = None) -> engine.GameState:
    """3 players: seat 0 (active) advances 5 knights from its castle into the Forest next to it, held by
    seat 1 with 2 knights; seat 2 watches. Artefacts and hands exactly as given (``PLAIN`` hands)."""
    s = F.edit(F.game(3, seed=5))
    F.clear_map(s)
    pos = min(n for n in F.neighbours(s, F.castle_pos(s, 0)) if s.board.kinds[n] == "territory")
    F.set_tile(s, pos, "forest")
    F.place(s, pos, 1, 2)
    s.players[0].castle = 5
    for seat in range(3):
        F.set_artefacts(s, seat, [])
        F.set_hand(s, seat, (hands or {}).get(seat, PLAIN))
    for seat, ids in arts.items():
        F.set_artefacts(s, seat, ids)
    s.dice_queue = []
    return F.act(s, 0, {"type": "advance", "to": f"t{pos}", "knights": 5}).state


def orb_window(s: engine.GameState) -> engine.GameState:
    """Answer everything with its timeout action until the orb window (R74) is open."""
    for _ in range(50):
        if s.window is not None and s.window.kind == "orb":
            return s
        p = engine.pending(s)[0]
        s = engine.apply(s, p.seat, p.timeout_action).state
    raise AssertionError("no orb window")


PASS = A.Respond(())


def test_used_against_follows_r64_r74_and_r41() -> None:
    """An artefact is used against a seat when someone else owns it and it applies to that seat: the
    attacker's sceptre against the defender (R64) and its "when you win" orb against the loser (R74), not
    against the player outside the battle (R92); a crown against the player it names (R40, R41)."""
    s = battle({0: ["sceptre_rage", "orb_brutality"]})
    assert s.window is not None and (s.window.kind, s.window.asked) == ("sceptre", [1, 2])
    assert [used_against(s, seat) for seat in range(3)] == [set(), {"sceptre_rage"}, set()]
    orb = orb_window(s)
    assert orb.window is not None and orb.window.targets == ["orb_brutality"]
    assert [used_against(orb, seat) for seat in range(3)] == [set(), {"orb_brutality"}, set()]
    c = F.edit(F.game(3, seed=5))
    F.set_artefacts(c, 0, ["crown_corruption"])
    F.set_artefacts(c, 2, ["orb_greed"])
    crown = F.act(c, 0, {"type": "use_crown", "player": 2, "artefact": "orb_greed"}).state
    assert crown.window is not None and crown.window.kind == "crown"
    assert [used_against(crown, seat) for seat in range(3)] == [set(), set(), {"crown_corruption"}]
    assert used_against(F.game(3, seed=5), 1) == set()


def test_standing_answer_rules() -> None:
    """The rules of a standing order on the sceptre window of :func:`battle` (seat 1 defends against the
    attacker's Sceptre of Rage; seat 2 is not in the battle)."""
    s = battle({0: ["sceptre_rage", "orb_brutality"]}, hands={1: WITH_FRACTURE, 2: WITH_FRACTURE})
    no_fracture = battle({0: ["sceptre_rage", "orb_brutality"]})
    glob, here = False, True
    # no orders, or none that speaks about this window: the player decides
    assert standing_answer(s, 1, []) is None
    assert standing_answer(s, 2, [(glob, "fracture", "sceptre_rage")]) is None
    # always pass
    assert standing_answer(s, 1, [(glob, "pass", "")]) == PASS
    # pass unless X is used against me
    assert standing_answer(s, 1, [(glob, "pass_unless", "sceptre_rage")]) is None
    assert standing_answer(s, 2, [(glob, "pass_unless", "sceptre_rage")]) == PASS
    assert standing_answer(s, 1, [(glob, "pass_unless", "orb_brutality")]) == PASS  # not used now
    # several pass_unless orders act together, whatever their order
    two = [(glob, "pass_unless", "orb_brutality"), (glob, "pass_unless", "sceptre_rage")]
    assert standing_answer(s, 1, two) is None
    assert standing_answer(s, 1, two[::-1]) is None
    # fracture X: only when X applies against me, and only with Fracture in hand (else pass, R36)
    answer = standing_answer(s, 1, [(glob, "fracture", "sceptre_rage"), (glob, "pass", "")])
    assert answer == A.Respond(("sceptre_rage",))
    assert standing_answer(no_fracture, 1, [(glob, "fracture", "sceptre_rage")]) == PASS
    assert standing_answer(s, 1, [(glob, "pass", ""), (glob, "fracture", "sceptre_rage")]) == answer
    # the order for this game beats the global ones
    assert standing_answer(s, 1, [(glob, "fracture", "sceptre_rage"), (here, "pass", "")]) == PASS
    assert standing_answer(s, 1, [(glob, "pass", ""), (here, "pass_unless", "sceptre_rage")]) is None
    assert standing_answer(s, 1, [(glob, "pass_unless", "sceptre_rage"), (here, "pass", "")]) == PASS
    # a game order that says nothing about this window leaves it to the global ones
    assert standing_answer(s, 1, [(here, "fracture", "orb_brutality"), (glob, "pass", "")]) == PASS
    # no window: nothing to answer
    assert standing_answer(F.game(3, seed=5), 1, [(glob, "pass", "")]) is None
    # the answers are legal: the engine applies them
    destroyed = engine.apply(s, 1, answer).state
    engine.apply(destroyed, 2, PASS)
    for seat in (1, 2):
        engine.apply(no_fracture, seat, PASS)


def _against_someone_else(state: engine.GameState, mover: int) -> bool:
    """Some artefact is used against an asked seat other than the mover, and some asked seat has nothing
    used against it."""
    w = state.window
    assert w is not None
    hits = [bool(used_against(state, seat)) for seat in w.asked]
    return any(hit and seat != mover for seat, hit in zip(w.asked, hits, strict=True)) and not all(hits)


@pytest.mark.django_db
def test_standing_orders_answer_a_window_unless_the_named_artefact_is_used_against_the_player(
    sent: list[EmailMessage], writes: Writes
) -> None:
    """In a played 3-human game a window opens where an artefact X is used against seat V but not against
    the others asked. Everyone has a global "always pass"; V also has, for this game, "pass unless X is used
    against me". The others' answers are stored at once as records of source ``standing``; V's global pass
    is overridden by the game's order, so V decides: V alone gets the "response window" email, and answers
    it with its signed "pass" link (source ``email``), which closes the window."""
    game, mover, action = window_ahead(_against_someone_else, fracture=(0, 1, 2))  # all have a decision
    after = engine.apply(state_of(game), mover, action).state
    assert after.window is not None
    victim = next(seat for seat in after.window.asked if used_against(after, seat) and seat != mover)
    artefact = sorted(used_against(after, victim))[0]
    others = [seat for seat in after.window.asked if seat != victim]
    users = seat_users(game)
    for user in users.values():
        StandingOrder.objects.create(user=user, rule="pass")
    StandingOrder.objects.create(user=users[victim], game=game, rule="pass_unless", artefact=artefact)
    seq = game.seq
    sent.clear()
    game = writes(functools.partial(submit, game, users[mover], action.to_dict()))
    records = ActionRecord.objects.filter(game=game, seq__gt=seq + 1).order_by("seq")
    assert [(r.seat, r.source, r.payload) for r in records] == [
        (seat, "standing", {"type": "respond", "fracture": []})
        for seat in others  # in window order
    ]
    state = state_of(game)
    [waiting] = engine.pending(state)
    assert (waiting.seat, waiting.kind) == (victim, "response")
    response_mails = [r for r in received(sent) if r.kind == "response"]
    assert [r.to for r in response_mails] == [users[victim].email]
    url = link(response_mails[0], "Pass this response window")
    assert Client().post(url).status_code == 200
    answer = ActionRecord.objects.get(game=game, source="email")
    assert (answer.seat, answer.payload) == (victim, {"type": "respond", "fracture": []})
    game.refresh_from_db()
    assert waiting.key not in {p.key for p in engine.pending(state_of(game))}


@pytest.mark.django_db
@pytest.mark.parametrize("fracture_prompts", ["all", "holders"])
def test_the_response_window_email_says_who_is_asked(
    sent: list[EmailMessage], writes: Writes, fracture_prompts: str
) -> None:
    """A response window email names who uses which artefact and asks whether to play Fracture (R36, R37).
    Only a seat with a Fracture to play gets it in either mode (issue 14: no empty prompts; the server
    passes for seat 2, which holds none). Where the table is secret (``"all"``) it says that nobody else
    learns from the window whether the reader holds Fracture; with ``"holders"`` (not secret) it does not
    claim that."""

    def someone_else_asked(state: engine.GameState, mover: int) -> bool:
        assert state.window is not None
        return any(seat != mover for seat in state.window.asked)

    game, mover, action = window_ahead(
        someone_else_asked, fracture=(1,), options={"fracture_prompts": fracture_prompts}
    )
    users = seat_users(game)
    sent.clear()
    game = writes(functools.partial(submit, game, users[mover], action.to_dict()))
    state = state_of(game)
    assert state.window is not None
    # seat 1 holds Fracture, seat 2 does not: "holders" asks seat 1 alone
    assert state.window.asked == ([1] if fracture_prompts == "holders" else [1, 2])
    mails = [r for r in received(sent) if r.kind == "response"]
    assert {r.row.seat for r in mails} == {1}  # seat 2 has nothing to decide: no email
    targets = ", ".join(
        f"{kind.capitalize()} of {ability.capitalize()}"
        for kind, _sep, ability in (t.partition("_") for t in state.window.targets)
    )
    opener = Seat.objects.get(game=game, number=state.window.opener).name
    for r in mails:
        assert r.row.seat is not None
        if fracture_prompts == "holders":
            assert fracture_in_hand(state, r.row.seat)
        assert f"{opener} uses {targets}. Do you play Fracture on it?" in r.text
        secret = "Nobody else learns from this window whether you hold Fracture." in r.text
        assert secret == (fracture_prompts == "all")


def _against_a_fracture_holder(state: engine.GameState, mover: int) -> bool:
    w = state.window
    assert w is not None
    return any(used_against(state, seat) and fracture_in_hand(state, seat) for seat in w.asked)


def _against_a_seat_without_fracture(state: engine.GameState, mover: int) -> bool:
    w = state.window
    assert w is not None
    return any(used_against(state, seat) and not fracture_in_hand(state, seat) for seat in w.asked)


@pytest.mark.django_db
@pytest.mark.parametrize("holds", [True, False])
def test_a_fracture_order_fractures_only_with_fracture_in_hand(holds: bool) -> None:
    """Seat V has, for this game, "fracture X whenever it is used against me" (and a global "pass unless X",
    which the game's order beats). When X is used against V the order answers at once (source
    ``standing``): with Fracture in hand it fractures X, which ends up destroyed once the window is over
    (R36, R37, R90); without Fracture V has nothing to decide and the server passes for it (issue 14)."""
    want = _against_a_fracture_holder if holds else _against_a_seat_without_fracture
    game, mover, action = window_ahead(want, fracture=(1,) if holds else ())
    after = engine.apply(state_of(game), mover, action).state
    assert after.window is not None
    victim = next(
        seat
        for seat in after.window.asked
        if used_against(after, seat) and fracture_in_hand(after, seat) == holds
    )
    artefact = sorted(used_against(after, victim))[0]
    owner = next(p.seat for p in after.players if p.artefact(artefact) is not None)
    users = seat_users(game)
    StandingOrder.objects.create(user=users[victim], game=game, rule="fracture", artefact=artefact)
    StandingOrder.objects.create(user=users[victim], rule="pass_unless", artefact=artefact)
    seq = game.seq
    game = submit(game, users[mover], action.to_dict())
    # without Fracture the seat has nothing to decide: the server passes for it, not the order (issue 14)
    source = "standing" if holds else "server"
    answered = ActionRecord.objects.filter(game=game, seq__gt=seq, source=source, seat=victim)
    expected = {"type": "respond", "fracture": [artefact] if holds else []}
    assert [(r.seat, r.payload) for r in answered] == [(victim, expected)]
    assert holds or not ActionRecord.objects.filter(game=game, seq__gt=seq, source="standing").exists()
    for _ in range(10):  # the others pass
        state = state_of(game)
        waiting = [p for p in engine.pending(state) if p.kind == "response"]
        if not waiting:
            break
        game = services.prompt_answer(
            game_id=game.pk,
            seat=waiting[0].seat,
            key=waiting[0].key,
            action=engine.Respond(),
        ).game
    art = state_of(game).players[owner].artefact(artefact)
    assert art is not None and art.face_up is not holds


# ----------------------------------------------------------------------------------------------------------
# 10. Email content: hidden information, links, headers
# ----------------------------------------------------------------------------------------------------------

_CARD_ID = re.compile(r"\bs\dc\d\d\b")
_URL = re.compile(r"https?://[^\s\"'<>]+")
#: Fixed wording that names a card whatever anyone holds: the question every seat is asked in a response
#: window (R37), and the log line that announces the window.
_FIXED_WORDING = ("play Fracture?", "Do you play Fracture on it?", "Fracture window for")


def _redealt(state: engine.GameState, keep: int) -> tuple[engine.GameState, int]:
    """A copy of ``state`` in which every seat but ``keep`` holds different cards: each hand card is swapped
    with a card of the same kind but another name from that seat's deck (the same kind keeps every engine
    rule about hands valid, e.g. the conflict-card timeout), and a face-down conflict card of another seat
    with another conflict card. Everything ``keep`` may know is unchanged. Returns the copy and how many
    cards were swapped."""
    alt = engine.from_dict(engine.to_dict(state))
    cards = alt.content.cards
    frozen = set(alt.choice.cards) if alt.choice is not None else set()
    swapped = 0

    def other_name(seat_deck: list[int], card: int) -> int | None:
        return next(
            (
                d
                for d in seat_deck
                if d not in frozen
                and cards[d].kind == cards[card].kind
                and cards[d].name != cards[card].name
                and cards[d].id != "authority"
            ),
            None,
        )

    for p in alt.players:
        if p.seat == keep:
            continue
        for i, card in enumerate(list(p.hand)):
            swap = other_name(p.deck, card)
            if swap is not None:
                p.deck[p.deck.index(swap)] = card
                p.hand[i] = swap
                swapped += 1
    b = alt.battle
    if b is not None and not b.revealed:
        for side, seat in enumerate((b.attacker, b.defender)):
            card = b.conflict[side]
            if seat != keep and card >= 0:  # chosen face down (not UNCHOSEN, not NO_CARD)
                swap = other_name(alt.players[seat].deck, card)
                if swap is not None:
                    deck = alt.players[seat].deck
                    deck[deck.index(swap)] = card
                    b.conflict[side] = swap
                    swapped += 1
    return alt, swapped


def _hidden_from(state: engine.GameState, viewer: int, public_names: set[str]) -> tuple[set[str], set[str]]:
    """``(card ids, card names)`` hidden from ``viewer``: ids of the other seats' hand and deck cards, of
    their face-down conflict card and of the viewer's own deck, unless the viewer's view shows them (an
    Insight look); names of cards in other hands that the viewer cannot account for (not in their own hand,
    in no discard pile, not on the battle table, never named in public events)."""
    cards = state.content.cards
    view = engine.view_for(state, viewer)
    visible = {c["name"] for c in view["players"][viewer]["hand"]}
    visible |= {c["name"] for p in view["players"] for c in p["discard"]}
    b = view["battle"]
    if b is not None:
        visible |= {c["name"] for c in b["table"]}
        shown = (s["conflict"].get("card") for s in (b["attacker"], b["defender"]))
        visible |= {card["name"] for card in shown if card is not None}
    if view["choice"] is not None:  # an Insight or Prosperity look: the cards the viewer looked at
        visible |= {c.name for c in cards if c.name in json.dumps(view["choice"])}
    visible |= public_names
    ids: set[str] = set()
    names: set[str] = set()
    for p in state.players:
        ids |= {engine.card_id(p.seat, c) for c in p.deck}
        if p.seat != viewer:
            ids |= {engine.card_id(p.seat, c) for c in p.hand}
            names |= {cards[c].name for c in p.hand} - visible
    if state.battle is not None and not state.battle.revealed:
        for side, seat in enumerate((state.battle.attacker, state.battle.defender)):
            if seat != viewer and state.battle.conflict[side] >= 0:
                ids.add(engine.card_id(seat, state.battle.conflict[side]))
    return ids - set(_CARD_ID.findall(json.dumps(view))), names


class EmailChecker:
    """Checks every email of a played game as it is sent (see
    :func:`test_emails_reveal_no_hidden_cards_and_every_link_works`)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.users = seat_users(game)
        self.clients: dict[int, Client] = {}
        self.anonymous = Client()
        self.opened: set[tuple[str, str]] = set()
        self.kinds: Counter[str] = Counter()
        self.recipients: set[str] = set()
        self.swapped = 0
        self.names_checked = 0
        self.message_ids: dict[str, str] = {}
        self.public_names: set[str] = set()
        self.public_seq = 0

    def client_for(self, user: User) -> Client:
        if user.pk not in self.clients:
            self.clients[user.pk] = Client()
            self.clients[user.pk].force_login(user)
        return self.clients[user.pk]

    def check(self, messages: list[EmailMessage | EmailMultiAlternatives]) -> None:
        game = Game.objects.get(pk=self.game.pk)
        state = state_of(game)
        names = {c.name for c in state.content.cards}
        for events in ActionRecord.objects.filter(game=game, seq__gt=self.public_seq).values_list(
            "events", flat=True
        ):
            for ev in events:
                public = json.dumps(engine.redact_event(ev, None))  # what every spectator saw
                self.public_names |= {name for name in names if name in public}
        self.public_seq = game.seq
        for r in received(messages, Notification.objects.filter(sent_at=timezone.now())):  # sent just now
            self.kinds[r.kind] += 1
            self.recipients.add(r.to)
            assert r.row.seat is not None
            self._hidden(r, state, self.public_names)
            self._same_with_other_hands(r, state)
            self._headers(r)
            self._links(r)

    def _hidden(self, r: Received, state: engine.GameState, public_names: set[str]) -> None:
        assert r.row.seat is not None
        ids, names = _hidden_from(state, r.row.seat, public_names)
        for body in (r.text, r.html):
            assert not set(_CARD_ID.findall(body)) & ids
            for phrase in _FIXED_WORDING:
                body = body.replace(phrase, "")
            assert not {name for name in names if name in body}, (names, body)
        self.names_checked += len(names)

    def _same_with_other_hands(self, r: Received, state: engine.GameState) -> None:
        """The same email, built again after the other seats' hidden cards were re-dealt, is identical."""
        assert r.row.seat is not None
        alt, swapped = _redealt(state, r.row.seat)
        self.swapped += swapped
        prompt = None
        if r.kind in outbox.DECISION_KINDS:
            prompt = Prompt.objects.get(game_id=self.game.pk, seat=r.row.seat, key=r.row.prompt_key)
        point = transaction.savepoint()
        try:
            Game.objects.filter(pk=self.game.pk).update(
                state=engine.to_dict(alt), state_hash=engine.state_hash(alt)
            )
            again = notify_content.build_email(r.row, r.row.recipient, timezone.now(), prompt)
        finally:
            transaction.savepoint_rollback(point)
        assert again.body == r.text
        assert again.alternatives[0][0] == r.html

    def _headers(self, r: Received) -> None:
        headers = r.msg.extra_headers
        assert headers["Message-ID"] == r.row.message_id
        assert self.message_ids.setdefault(headers["Message-ID"], r.row.dedupe_key) == r.row.dedupe_key
        unsubscribe = link(r, "Stop these emails")
        assert headers["List-Unsubscribe"] == f"<{django_settings.SITE_URL}{unsubscribe}>"
        assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    def _links(self, r: Received) -> None:
        text_urls = set(_URL.findall(r.text))
        assert set(re.findall(r'href="([^"]+)"', r.html)) == text_urls
        user = r.row.recipient
        for url in text_urls:
            assert url.startswith(django_settings.SITE_URL)
            path = url.removeprefix(django_settings.SITE_URL).split("#")[0]
            if (r.to, path) in self.opened:
                continue
            self.opened.add((r.to, path))
            if path.startswith(("/e/", "/unsubscribe/")):
                response = self.anonymous.get(path)  # no login needed
            else:
                assert path in (
                    f"/games/{self.game.pk}/",
                    f"/games/{self.game.pk}/replay/",
                    "/accounts/profile/",
                ), path
                response = self.client_for(user).get(path)
            assert response.status_code == 200, (path, response.status_code)


@pytest.mark.django_db
@pytest.mark.parametrize(("humans", "seed"), [(3, 5), (2, 7)])
def test_emails_reveal_no_hidden_cards_and_every_link_works(
    sent: list[EmailMessage], writes: Writes, clock: time_machine.Traveller, humans: int, seed: int
) -> None:
    """Every email of a game played to its end (live clock, the clock moved on every few moves so that
    reminders and timeouts happen too; seeds whose games reach every kind of email) is checked as it is
    sent, against the state it was built from:

    - Hidden information (R95, R97). Every deck holds the same 18 cards, so card *names* collide between
      seats: "War Banner" in an opponent's hand may also be in my hand or on a discard pile. So the checks
      are: (1) no card id (``s1c07``) of another seat's hand or face-down conflict card, or of any deck,
      appears; (2) no name of a card in another hand that the recipient cannot account for (own hand,
      discard piles, battle table, public events) appears, apart from fixed wording that names Fracture for
      everyone alike (the window's question "play Fracture?", the log's "Fracture window for …"); (3) the
      strongest one, which needs no names: the email built again after re-dealing every other seat's hidden
      cards (other names, same kinds) must be byte for byte the same, so nothing in it depends on what the
      others hold.
    - Every link of the text body (the same as the HTML's) answers a GET with 200: the signed links and
      the unsubscribe link without a login, the game page and the settings page for the recipient.
    - Headers: ``Message-ID`` is derived from the row's dedupe key; ``List-Unsubscribe`` (the body's "stop
      these emails" link) and ``List-Unsubscribe-Post`` (RFC 8058); an HTML alternative.
    """
    game = writes(lambda: create_started_game(humans=humans, seed=seed, time_control="live", lobby_mail=True))
    checker = EmailChecker(game)
    checker.check(sent)
    users = seat_users(game)
    for move in range(1, 2000):
        if game.status != Game.Status.ACTIVE:
            break
        sent.clear()
        if move % 9 == 0:  # response deadlines (10 min) pass, turns get their 75 % reminder
            clock.shift(timedelta(minutes=50))
            writes(tasks.deadline_sweep)
        else:
            writes(functools.partial(play, Game.objects.get(pk=game.pk), users))
        checker.check(sent)
        game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.FINISHED
    # digests are tested on their own; "reply" answers a reply by email (tests/web/test_email_play.py); the
    # chat's kinds come from chat messages (tests/web/test_chat_email.py); "account" is allauth's
    # (tests/web/test_account_mail.py)
    untested_here = {"digest", "reply", "chat", "message", "account"}
    assert set(checker.kinds) == {k.value for k in Notification.Kind} - untested_here, checker.kinds
    assert checker.recipients == {u.email for u in users.values()}
    assert checker.swapped > 0 and checker.names_checked > 0


@pytest.mark.django_db
def test_a_row_sent_twice_keeps_its_message_id(sent: list[EmailMessage], writes: Writes) -> None:
    """The one duplicate the outbox allows (a worker dies after SMTP accepted the mail, before its commit:
    the row is still pending and goes again) carries the same ``Message-ID``, so mail clients keep one."""
    game = writes(lambda: create_started_game(humans=2, seed=5))
    row = Notification.objects.filter(game=game, kind="turn").get()
    Notification.objects.filter(pk=row.pk).update(status="pending", sent_at=None)
    writes(lambda: tasks.notifications_send(game.pk))
    twice = [m for m in received(sent) if m.row.pk == row.pk]
    assert len(twice) == 2
    row.refresh_from_db()
    assert row.message_id and {m.msg.extra_headers["Message-ID"] for m in twice} == {row.message_id}


# ----------------------------------------------------------------------------------------------------------
# 11. Signed links
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_signed_link_acts_once_on_post_only_without_login(sent: list[EmailMessage], writes: Writes) -> None:
    """The first player's "your turn" email has an "End my turn" link. Opened (GET, as a mail scanner's
    prefetch would) it only shows a confirmation and changes nothing; the POST ends the turn once, as
    that seat, logged with source ``email``; posting it again says "used" (410) and changes nothing."""
    game = writes(lambda: create_started_game(humans=3, seed=5))
    users = seat_users(game)
    active = state_of(game).active
    [turn_mail] = [r for r in received(sent) if r.kind == "turn"]
    assert turn_mail.to == users[active].email
    url = link(turn_mail, "End my turn")
    anonymous = Client()
    before = db_fingerprint(game.pk)
    page = anonymous.get(url)
    assert page.status_code == 200 and 'id="link-confirm"' in page.content.decode()
    assert db_fingerprint(game.pk) == before
    assert Notification.objects.get(pk=turn_mail.row.pk).link_used_at is None
    sent.clear()
    done = writes(lambda: anonymous.post(url))
    assert done.status_code == 200 and 'id="link-done"' in done.content.decode()
    game.refresh_from_db()
    last = ActionRecord.objects.get(game=game, seq=game.seq)
    assert (last.seat, last.source, last.payload) == (active, "email", {"type": "end_turn"})
    assert state_of(game).active == (active + 1) % 3
    assert pairs(sent) == Counter({(users[(active + 1) % 3].email, "turn"): 1})
    after = db_fingerprint(game.pk)
    for again in (anonymous.post(url), anonymous.get(url)):
        assert again.status_code == 410 and "already been used" in again.content.decode()
    assert db_fingerprint(game.pk) == after


@pytest.mark.django_db
def test_expired_tampered_and_decided_links_do_nothing(
    sent: list[EmailMessage], writes: Writes, clock: time_machine.Traveller
) -> None:
    """A tampered token is refused (400); a link for a decision already made on the page says so (409 on
    POST; 410 at once on GET, with no confirmation form) and stays unused; a link older than
    ``EMAIL_LINK_MAX_AGE`` has expired (410). None of them changes the game."""
    game = writes(lambda: create_started_game(humans=3, seed=5))
    [first_mail] = [r for r in received(sent) if r.kind == "turn"]
    url = link(first_mail, "End my turn")
    anonymous = Client()
    before = db_fingerprint(game.pk)
    token = url.split("/")[2]
    tampered = f"/e/{token[:-2]}{'AB' if token[-2:] != 'AB' else 'CD'}/"
    assert anonymous.get(tampered).status_code == 400
    assert anonymous.post(tampered).status_code == 400
    assert db_fingerprint(game.pk) == before

    sent.clear()
    game = writes(functools.partial(end_turn, game))  # the first player ends the turn on the page
    [second_mail] = [r for r in received(sent) if r.kind == "turn"]
    decided = db_fingerprint(game.pk)
    response = anonymous.post(url)
    assert response.status_code == 409 and "already been made" in response.content.decode()
    # issue 16: opening the link says so at once, without a confirmation page first
    opened = anonymous.get(url)
    assert opened.status_code == 410 and "already been made" in opened.content.decode()
    assert "<form" not in opened.content.decode().split("<main", 1)[1].split("</main>", 1)[0]
    assert db_fingerprint(game.pk) == decided
    assert Notification.objects.get(pk=first_mail.row.pk).link_used_at is None

    second = link(second_mail, "End my turn")
    clock.shift(timedelta(seconds=django_settings.EMAIL_LINK_MAX_AGE + 1))
    for response in (anonymous.get(second), anonymous.post(second)):
        assert response.status_code == 410 and "expired" in response.content.decode()
    assert db_fingerprint(game.pk) == decided


# ----------------------------------------------------------------------------------------------------------
# 12. Unsubscribe
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_unsubscribe_asks_on_get_and_turns_the_kind_off_on_post(
    sent: list[EmailMessage], writes: Writes
) -> None:
    """The ``List-Unsubscribe`` link of a "your turn" email: a GET only asks; a mail client's RFC 8058
    one-click POST (``List-Unsubscribe=One-Click``, no CSRF token, no login) turns "your turn" emails off,
    and the next one is skipped. The confirmation form of the page does the same for "game started". A
    tampered token is refused."""
    game = writes(lambda: create_started_game(humans=2, seed=5))
    [turn_mail] = [r for r in received(sent) if r.kind == "turn"]
    user = turn_mail.row.recipient
    url = turn_mail.msg.extra_headers["List-Unsubscribe"].strip("<>").removeprefix(django_settings.SITE_URL)
    page = Client().get(url)
    assert page.status_code == 200 and 'id="unsubscribe-confirm"' in page.content.decode()
    user.refresh_from_db()
    assert user.notify == {}
    assert Client().post(url[:-3] + "xx/").status_code == 400
    one_click = Client(enforce_csrf_checks=True).post(
        url, data="List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert one_click.status_code == 200 and 'id="unsubscribed"' in one_click.content.decode()
    user.refresh_from_db()
    assert user.notify == {"turn": "off"}
    [started_mail] = [r for r in received(sent) if r.kind == "started" and r.to == user.email]
    browser = Client(enforce_csrf_checks=True)
    form = browser.get(link(started_mail, "Stop these emails")).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token is not None
    confirmed = browser.post(link(started_mail, "Stop these emails"), {"csrfmiddlewaretoken": token.group(1)})
    assert confirmed.status_code == 200 and 'id="unsubscribed"' in confirmed.content.decode()
    user.refresh_from_db()
    assert user.notify == {"turn": "off", "started": "off"}
    sent.clear()
    for _ in range(2):  # the other player's turn, then this player's again
        game = writes(functools.partial(end_turn, game))
    row = Notification.objects.filter(recipient=user, kind="turn").latest("pk")
    assert (row.status, row.skip_reason) == ("skipped", "off")
    assert all(r.to != user.email for r in received(sent))


@pytest.mark.django_db
def test_unsubscribing_from_the_digest_stops_the_digest(
    sent: list[EmailMessage], writes: Writes, clock: time_machine.Traveller
) -> None:
    """The digest email's own "stop these emails" link turns the daily digest off: the next day no digest
    goes out and the waiting items are skipped (``off``)."""
    (anna,) = make_users("Anna", notify={"started": "digest", "turn": "digest"})
    game = writes(lambda: create_started_game(humans=[anna, create_user()], seed=5))
    sent.clear()
    assert notify_send.digests_send(now=timezone.now()) == 1
    [digest] = received(sent)
    url = digest.msg.extra_headers["List-Unsubscribe"].strip("<>").removeprefix(django_settings.SITE_URL)
    Client(enforce_csrf_checks=True).post(
        url, data="List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    anna.refresh_from_db()
    assert anna.notify_mode("digest") == "off"
    for _ in range(2):
        game = writes(functools.partial(end_turn, game))
    waiting = Notification.objects.filter(recipient=anna, status="digest")
    assert waiting.exists()
    clock.shift(timedelta(days=1))
    sent.clear()
    assert notify_send.digests_send(now=timezone.now()) == 0
    assert sent == []
    assert not waiting.exists()
    skipped = Notification.objects.filter(recipient=anna, status="skipped")
    assert set(skipped.values_list("skip_reason", flat=True)) == {"off"}
