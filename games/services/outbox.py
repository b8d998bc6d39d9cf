"""Queuing notifications (architecture §3 "Notification outbox"): rows are written inside the transaction
of the game write that caused them, with a unique ``dedupe_key`` per recipient, game, prompt and kind, so a
write that is retried, or a sweep that runs twice, stores one row. Sending happens after commit
(:mod:`games.notify.send`, run by :func:`games.tasks.notifications_send`).

This module only touches models (no views, no email), so :mod:`games.services` can call it.
"""

from __future__ import annotations

import logging
import threading
import uuid
import weakref
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import transaction

from games import engine
from games.models import Game, Notification, Prompt, Seat
from games.services.published import TASKS

log = logging.getLogger(__name__)

#: Engine prompt kind -> notification kind. Every turn-level step shares one key per turn (one email per
#: turn); the remaining kinds (``may_discard``, ``insight_order``, ``prosperity``, ``fear``) are "choice".
PROMPT_NOTIFICATION: dict[str, str] = {
    **dict.fromkeys(engine.TURN_KINDS, Notification.Kind.TURN),
    engine.PromptKind.CONFLICT: Notification.Kind.CONFLICT,
    engine.PromptKind.SUPPORT: Notification.Kind.SUPPORT,
    engine.PromptKind.RESPONSE: Notification.Kind.RESPONSE,
}

#: Kinds that ask the recipient to decide something; they are dropped unsent once the decision is made.
DECISION_KINDS = frozenset(
    {
        Notification.Kind.TURN,
        Notification.Kind.CONFLICT,
        Notification.Kind.SUPPORT,
        Notification.Kind.RESPONSE,
        Notification.Kind.CHOICE,
        Notification.Kind.REMINDER,
    }
)


def dedupe_key(user_id: int, game_id: int | None, ref: str, kind: str) -> str:
    """The outbox's unique key: ``"<user>:<game>:<prompt key or event>:<kind>"``. It only keeps a write
    that is retried from queuing an email twice; it is never changed once written, and the email's
    ``Message-ID`` does not derive from it (issue 30: :func:`games.notify.content.message_id`)."""
    return f"{user_id}:{game_id}:{ref}:{kind}"


#: ``Notification.data`` key of a ``reply`` answer that told the player nothing waited for them while their
#: own turn was interrupted: the turn's prompt key (set by :mod:`games.services.inbox`). The turn's return
#: is then emailed anew (:func:`_turn_refs`).
TURN_RETURN = "turn_return"


def _turn_refs(game_id: int, asked: set[tuple[int, str]]) -> dict[tuple[int, str], str]:
    """The outbox reference of each turn-level email about to be queued, ``(user id, prompt key)`` ->
    ``ref``: the prompt key, so a turn is emailed once however often a window or a battle interrupts it
    (one email per turn, as on the site); but when the player was told by the answer to an emailed reply
    that nothing waited for them while that turn was interrupted (:data:`TURN_RETURN`), ``"<key>:reply.<id
    of the newest such answer>"``, so the turn's return gets an email (and a Reply-To) of its own, once per
    such answer, and a write that is retried still queues it once. One query, for the turn-level prompts
    of people only."""
    refs = {pair: pair[1] for pair in asked}
    if not asked:
        return refs
    promised = (
        Notification.objects.filter(
            game_id=game_id,
            kind=Notification.Kind.REPLY,
            recipient_id__in={user for user, _key in asked},
            **{f"data__{TURN_RETURN}__in": sorted({key for _user, key in asked})},
        )
        .order_by("pk")
        .values_list("pk", "recipient_id", f"data__{TURN_RETURN}")
    )
    for pk, user, key in promised:
        if (user, key) in refs:
            refs[(user, key)] = f"{key}:reply.{pk}"  # the newest wins (ordered by pk)
    return refs


def _row(
    user_id: int,
    game_id: int,
    seat: int,
    kind: str,
    ref: str,
    data: dict[str, object],
    now: datetime,
    prompt_key: str = "",
) -> Notification:
    """A pending outbox row for ``user_id``, due at ``now``, keyed by :func:`dedupe_key`."""
    return Notification(
        recipient_id=user_id,
        game_id=game_id,
        seat=seat,
        kind=kind,
        prompt_key=prompt_key,
        dedupe_key=dedupe_key(user_id, game_id, ref, kind),
        data=data,
        created_at=now,
        send_after=now,
    )


def vacation_pause(
    away_from: datetime | None, away_until: datetime | None, opened: datetime, deadline: datetime
) -> timedelta:
    """How long a clock that runs from ``opened`` to ``deadline`` pauses for an away period (issue 4
    "vacation"): the part of the away period after ``opened``, if the period starts before the deadline.

    Returns:
        A non-negative :class:`~datetime.timedelta` (zero without an away period).
    """
    if away_from is None or away_until is None or away_until <= opened or away_from >= deadline:
        return timedelta(0)
    return away_until - max(away_from, opened)


def clock(game: Game, deadline_class: str) -> timedelta:
    """The game's clock for a prompt's deadline class: ``turn_seconds`` for ``"turn"``, else
    ``response_seconds``."""
    return timedelta(seconds=game.turn_seconds if deadline_class == "turn" else game.response_seconds)


#: The longest any clock may run, vacation pauses included (issue 12: deadlines clamp, never overflow).
#: Longer than the longest time control (720 hours) plus the longest away period (two years at most).
MAX_CLOCK = timedelta(days=800)


def deadline_for(game: Game, seat: Seat | None, deadline_class: str, opened: datetime) -> datetime:
    """The deadline of a prompt opened at ``opened``: the game's :func:`clock`, paused for the seat's
    away period if the game allows vacations, and never more than :data:`MAX_CLOCK` after ``opened``.

    Returns:
        An aware datetime between ``opened`` and ``opened + MAX_CLOCK``; never raises ``OverflowError``.
    """
    run = min(clock(game, deadline_class), MAX_CLOCK)
    user = seat.user if seat is not None and seat.user_id is not None else None
    if user is not None and game.allow_vacation:
        run += min(vacation_pause(user.away_from, user.away_until, opened, opened + run), MAX_CLOCK)
    return opened + min(run, MAX_CLOCK)


def remind_at(opened: datetime, deadline: datetime) -> datetime:
    """When the reminder is due: after ``REMINDER_FRACTION`` (75 %) of the time to the deadline."""
    return opened + (deadline - opened) * settings.REMINDER_FRACTION


def queue_write(
    *,
    game: Game,
    seats: list[Seat],
    opened: Iterable[engine.Prompt],
    actor: int | None,
    now: datetime,
    started: bool = False,
    finished: bool = False,
    timed_out: tuple[engine.Prompt, bool] | None = None,
    stand_ins: Collection[int] = (),
) -> int:
    """Queue the notifications a game write causes (inside the write's transaction) and send them after
    commit.

    Args:
        opened: prompts the write opened; each human seat gets one email per prompt, except ``actor`` (the
            seat whose player just acted on a page: they are looking at the game), bot-played seats and
            ``auto`` prompts (nothing to decide, issue 14).
        timed_out: the prompt whose timeout action was applied and whether the seat is now absent.
        started / finished: the game started or ended with this write (everyone seated is told).

    Returns:
        How many rows were offered (duplicates by dedupe key are skipped by the database); 0 for a guided
        first game (``Game.tutorial``, issue 15), whose player is on the page.
    """
    if game.tutorial:
        return 0
    users = {s.number: s.user_id for s in seats if s.user_id is not None and not s.is_bot}
    rows: list[Notification] = []

    def add(seat: int, kind: str, ref: str, data: Mapping[str, object], prompt_key: str = "") -> None:
        user_id = users.get(seat)
        if user_id is None:
            return
        rows.append(_row(user_id, game.pk, seat, kind, ref, {"seq": game.seq, **data}, now, prompt_key))

    if started:
        for seat in users:
            add(seat, Notification.Kind.STARTED, "start", {})
    # auto prompts: nothing to decide (issue 14)
    asked = [p for p in opened if p.seat != actor and p.seat not in stand_ins and not p.auto]
    turns = {
        (users[p.seat], p.key)
        for p in asked
        if p.seat in users and PROMPT_NOTIFICATION.get(p.kind) == Notification.Kind.TURN
    }
    refs = _turn_refs(game.pk, turns)
    for p in asked:
        kind = PROMPT_NOTIFICATION.get(p.kind, Notification.Kind.CHOICE)
        ref = refs.get((users[p.seat], p.key), p.key) if p.seat in users else p.key
        add(p.seat, kind, ref, {"prompt_kind": p.kind, "detail": dict(p.detail)}, p.key)
    if timed_out is not None and not timed_out[0].auto:  # the server's own pass is no missed deadline
        prompt, absent = timed_out
        add(
            prompt.seat,
            Notification.Kind.TIMEOUT,
            prompt.key,
            {"prompt_kind": prompt.kind, "action": prompt.timeout_action.to_dict(), "absent": absent},
        )
    if finished:
        for seat in users:
            add(seat, Notification.Kind.FINISHED, "end", {})
    if rows:
        Notification.objects.bulk_create(rows, ignore_conflicts=True)
        send_after_commit(game.pk)
    return len(rows)


def queue_lobby(*, game: Game, seat: Seat, taken: int, now: datetime) -> int:
    """Tell a table's creator that ``seat`` was taken by another player (``joined``) and, when that was the
    last seat, that the table is full (``full``; issue 16). Inside the join's transaction; sent after
    commit. Bots and the creator's own seat send nothing.

    Returns:
        How many rows were offered.
    """
    if seat.user_id is None or seat.user_id == game.created_by_id or game.tutorial:
        return 0
    name = str(seat.user) if seat.user is not None else "?"
    data = {"who": name, "taken": taken, "players": game.players, "auto": game.auto_start}
    rows = [_row(game.created_by_id, game.pk, 0, Notification.Kind.JOINED, f"seat-{seat.pk}", data, now)]
    if taken >= game.players:
        rows.append(_row(game.created_by_id, game.pk, 0, Notification.Kind.FULL, "full", data, now))
    Notification.objects.bulk_create(rows, ignore_conflicts=True)
    send_after_commit(game.pk)
    return len(rows)


def queue_chat(*, game: Game, message_id: int, readers: list[tuple[int, int, bool]], now: datetime) -> int:
    """Queue the emails of a new chat message (issue 19), inside the post's transaction: one row per
    reader ``(user id, seat, personal)``, kind ``message`` for a private message or a mention of them
    (``personal``), else ``chat`` (each kind follows the reader's own email preference, digest included).
    Sent after commit.

    Returns:
        How many rows were offered.
    """
    if game.tutorial or not readers:
        return 0
    rows = [
        _row(
            user_id,
            game.pk,
            seat,
            Notification.Kind.MESSAGE if personal else Notification.Kind.CHAT,
            f"chat.{message_id}",
            {"message": message_id},
            now,
        )
        for user_id, seat, personal in readers
    ]
    Notification.objects.bulk_create(rows, ignore_conflicts=True)
    send_after_commit(game.pk)
    return len(rows)


class _Sends:
    """The games whose ``notifications_send`` one transaction asked for: shared by that transaction's
    :class:`_SendLater` callbacks, so the first to run publishes each game's task and the others skip it.
    ``closed`` once the transaction committed (its callbacks run); a later transaction gets new ones."""

    def __init__(self) -> None:
        self.closed = False
        self.published: set[int] = set()


class _SendLater:
    """One ask for a game's ``notifications_send``, registered with ``transaction.on_commit``."""

    def __init__(self, game_id: int, sends: _Sends) -> None:
        self.game_id = game_id
        self.sends = sends

    def __call__(self) -> None:
        self.sends.closed = True
        if self.game_id in self.sends.published:
            return
        self.sends.published.add(self.game_id)
        enqueue_send(self.game_id)


#: Per thread: a weak reference to the :class:`_Sends` of the transaction under way.
_current = threading.local()


def send_after_commit(game_id: int) -> None:
    """Publish one ``notifications_send`` for ``game_id`` when the current transaction commits (at once
    outside a transaction), however many writes of the transaction ask for it (issue 31: a reply asked
    twice, for its game's notifications and for its own answer).

    Each ask registers a callback with ``transaction.on_commit`` (Django's public API), so a savepoint that
    rolls back takes only its own asks with it; the callbacks of one transaction share one :class:`_Sends`,
    and the first of them to run for a game publishes its task. That record is held only by the callbacks
    (this module keeps a weak reference), so it is gone once the transaction has committed or rolled back,
    and the next transaction starts a new one."""
    ref = getattr(_current, "sends", None)
    sends = ref() if ref is not None else None
    if sends is None or sends.closed:
        sends = _Sends()
        _current.sends = weakref.ref(sends)
    transaction.on_commit(_SendLater(game_id, sends))


def enqueue_send(game_id: int | None) -> None:
    """Publish one ``notifications_send`` task for ``game_id`` (``None``: every game). Called after commit
    (``transaction.on_commit``), so a worker never looks for rows that are not there yet.

    The task is held by reference (:data:`games.services.published.TASKS`, issue 31), so an eager app (the
    embedded default) runs it here. Never raises: if the broker is down, or the process dies first, the
    rows stay pending and the minute's outbox sweep sends them; the failure is logged.
    """
    try:
        TASKS.notifications_send.delay(game_id=game_id)
    except Exception:
        log.warning("could not enqueue notifications of game %s; the outbox sweep will send them", game_id)


def queue_account_mail(
    *, user_id: int | None, message: dict[str, object], now: datetime
) -> Notification | None:
    """Queue one of allauth's account emails, already rendered (:mod:`games.notify.account_mail`), to be
    sent after commit, so that the request never waits for the mail server and every sign-up does the
    same work whether or not the address has an account (issue 28).

    Args:
        user_id: whose address it is. With a user, the email is an outbox row of kind ``account`` (no
            game), which the minute's outbox sweep sends if the task is lost. Without one (a password
            reset asked for an address that has no account: allauth's "unknown account" email), there is
            no row to keep: the message travels in the task itself and is lost if the task is.
        message: the stored message (``games.notify.account_mail.message_data``).

    Returns:
        The pending row, or ``None`` without a user.
    """
    if user_id is None:
        transaction.on_commit(partial(enqueue_account_send, message))
        return None
    row = Notification.objects.create(
        recipient_id=user_id,
        kind=Notification.Kind.ACCOUNT,
        dedupe_key=dedupe_key(user_id, None, f"mail.{uuid.uuid4().hex}", Notification.Kind.ACCOUNT),
        data=message,
        created_at=now,
        send_after=now,
    )
    transaction.on_commit(partial(enqueue_account_send, None))
    return row


def enqueue_account_send(message: dict[str, object] | None) -> None:
    """Publish one ``account_mail_send`` task: it sends the due account rows, and ``message`` (an email
    without a row) if given. Called after commit; never raises (like :func:`enqueue_send`: rows left
    pending go with the outbox sweep; a lost ``message`` is logged)."""
    try:
        TASKS.account_mail_send.delay(message=message)
    except Exception:
        if message is None:
            log.warning("could not enqueue account emails; the outbox sweep will send them")
        else:
            log.warning("could not enqueue an account email to an address without an account; it is lost")


def reminders_queue(*, now: datetime) -> int:
    """Queue a reminder for every open prompt past 75 % of its time (``Prompt.remind_at``), once.

    Returns:
        How many reminders were queued (a second run queues none: ``remind_at`` is cleared).
    """
    due = list(
        Prompt.objects.filter(remind_at__lte=now, game__status=Game.Status.ACTIVE)
        .select_related("game")
        .order_by("remind_at")[:500]
    )
    if not due:
        return 0
    seats = {
        (s.game_id, s.number): s
        for s in Seat.objects.filter(game_id__in={p.game_id for p in due}, user__isnull=False)
    }
    rows = []
    for p in due:
        seat = seats.get((p.game_id, p.seat))
        if seat is None or seat.user_id is None or seat.missed_deadlines >= settings.ABSENT_AFTER_MISSES:
            continue
        data = {"seq": p.game.seq, "prompt_kind": p.kind}
        kind = Notification.Kind.REMINDER
        rows.append(_row(seat.user_id, p.game_id, p.seat, kind, p.key, data, now, p.key))
    with transaction.atomic():
        Notification.objects.bulk_create(rows, ignore_conflicts=True)
        Prompt.objects.filter(pk__in=[p.pk for p in due]).update(remind_at=None)
    for game_id in sorted({r.game_id for r in rows if r.game_id is not None}):
        enqueue_send(game_id)
    return len(rows)
