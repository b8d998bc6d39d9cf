"""Every write to a game (architecture §3): ``transaction.atomic()``, ``select_for_update()`` on the game
row, an ``expected_seq`` (or open prompt key) check, the engine as the only judge, then the new state,
its ``ActionRecord`` rows and the ``Prompt`` projection are stored together.

Functions are keyword-only and named ``<noun>_<verb>``. Errors are :class:`ServiceError` subclasses with
the HTTP status a view or the API should answer with; nothing is written when one is raised.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from games import engine
from games.engine.rng import Rng
from games.models import TIME_CONTROLS, ActionRecord, Game, Prompt, Seat, StandingOrder
from games.outbox import clock, deadline_for, queue_write, remind_at
from games.ratings import rate_game
from games.standing import standing_answer
from games.store import NotStarted, game_lock, move_save, record_apply
from games.store import game_state as stored_state

from .bots import bot_action

#: Prompt kinds that several seats answer at the same time; only these may be answered with a stale
#: ``expected_seq`` plus their still-open prompt key.
PARALLEL_KINDS = frozenset({"response", "conflict"})

#: At most this many bot actions are applied after one human action (a runaway guard; a full bot game is
#: ~300 actions, so whole turns of several bots fit easily).
MAX_BOT_ACTIONS = 2000


class ServiceError(Exception):
    """A refused write. ``status`` is the HTTP status to answer with; ``code`` a stable machine code."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message)
        self.message = message
        self.params = params


class NotFound(ServiceError):
    """No such game (404)."""

    status = 404
    code = "not_found"


class Forbidden(ServiceError):
    """The user may not do this here, e.g. act in someone else's seat (403)."""

    status = 403
    code = "forbidden"


class Conflict(ServiceError):
    """The game is not in a state that allows this (409), e.g. joining a started game."""

    status = 409
    code = "conflict"


class StaleState(Conflict):
    """``expected_seq`` is behind the game (409): the action was not applied; reload and retry."""

    code = "stale_state"


class BadPayload(ServiceError):
    """The action payload is malformed (400)."""

    status = 400
    code = "invalid_payload"


class Illegal(ServiceError):
    """The rules forbid the action now (422). ``params`` carries the engine's code and parameters."""

    status = 422
    code = "illegal_action"


@dataclass
class SubmitResult:
    """What :func:`action_submit` applied: the game row after the write and every record stored
    (the submitted action first, then any bot actions it triggered)."""

    game: Game
    records: list[ActionRecord] = field(default_factory=list)


def game_state(game: Game) -> engine.GameState:
    """The engine state of a started game (:func:`games.store.game_state`, cached per process).

    Raises:
        Conflict: the game has not started.
    """
    try:
        return stored_state(game)
    except NotStarted as exc:
        raise Conflict("the game has not started") from exc


# --------------------------------------------------------------------------------------------------------
# Lobby
# --------------------------------------------------------------------------------------------------------


def game_create(
    *,
    user: User,
    title: str,
    players: int,
    options: dict[str, Any] | None = None,
    time_control: str = "daily",
    turn_seconds: int | None = None,
    response_seconds: int | None = None,
    private: bool = False,
    content: str = "default",
    allow_vacation: bool = True,
) -> Game:
    """Open a lobby; the creator takes the first seat.

    Args:
        options: engine options (``games.engine.OPTION_DEFAULTS``); validated by the engine.
        time_control: a key of :data:`TIME_CONTROLS` or ``"custom"`` (then both second counts are needed).
        allow_vacation: whether a player's away period pauses their clocks in this game.

    Raises:
        BadPayload: options, player count, content or time control the rules do not allow.
    """
    try:
        engine.normalize_setup({"players": players, "seed": 0, "options": options or {}, "content": content})
    except engine.ContentError as exc:
        raise BadPayload(str(exc)) from exc
    if time_control in TIME_CONTROLS:
        _label, turn, response = TIME_CONTROLS[time_control]
    elif time_control == "custom" and turn_seconds and response_seconds:
        turn, response = turn_seconds, response_seconds
    else:
        raise BadPayload("unknown time control")
    if not 60 <= turn <= 30 * 86_400 or not 60 <= response <= 30 * 86_400:
        raise BadPayload("deadlines must be between one minute and 30 days")
    with transaction.atomic():
        game = Game.objects.create(
            title=title.strip()[:80] or "Medieval Mastery",
            created_by=user,
            players=players,
            options=dict(options or {}),
            content=content,
            time_control=time_control,
            turn_seconds=turn,
            response_seconds=response,
            private=private,
            allow_vacation=allow_vacation,
        )
        Seat.objects.create(game=game, number=0, user=user)
    return game


#: Prompt columns written when a row is reused for another prompt, and when a turn changes step.
_PROMPT_FIELDS = [
    "seat",
    "kind",
    "key",
    "deadline_class",
    "timeout_action",
    "opened_at",
    "deadline_at",
    "remind_at",
]


def _lock_with_seats(game_id: int) -> tuple[Game, list[Seat]]:
    """Lock the game row and read it with its seats and their users (:func:`games.store.game_lock`).

    Returns:
        The game and its seats ordered by number (each seat's ``game`` and ``user`` already loaded).

    Raises:
        NotFound: no such game.
    """
    found = game_lock(game_id)
    if found is None:
        raise NotFound("no such game", game_id=game_id)
    return found


def _lock(game_id: int) -> Game:
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist as exc:
        raise NotFound("no such game") from exc


def seat_join(*, game_id: int, user: User) -> Seat:
    """Take a free seat in an open lobby.

    Raises:
        NotFound, Conflict: not a lobby, full, or already seated.
    """
    with transaction.atomic():
        game = _lock(game_id)
        if game.status != Game.Status.LOBBY:
            raise Conflict("this game has already started")
        seats = list(game.seats.all())
        if any(s.user_id == user.pk for s in seats):
            raise Conflict("you already have a seat here")
        if len(seats) >= game.players:
            raise Conflict("this table is full")
        return Seat.objects.create(game=game, number=_free_number(seats), user=user)


def _free_number(seats: list[Seat]) -> int:
    taken = {s.number for s in seats}
    return next(n for n in range(len(seats) + 1) if n not in taken)


def seat_leave(*, game_id: int, user: User) -> None:
    """Leave a lobby before the start. The creator cannot leave (they cancel the game instead).

    Raises:
        NotFound, Conflict, Forbidden.
    """
    with transaction.atomic():
        game = _lock(game_id)
        if game.status != Game.Status.LOBBY:
            raise Conflict("you cannot leave a game that has started")
        if game.created_by_id == user.pk:
            raise Forbidden("the creator cannot leave; cancel the game instead")
        deleted, _ = Seat.objects.filter(game=game, user=user).delete()
        if not deleted:
            raise Conflict("you have no seat here")


def game_cancel(*, game_id: int, user: User) -> None:
    """Delete an unstarted lobby (creator only)."""
    with transaction.atomic():
        game = _lock(game_id)
        if game.created_by_id != user.pk:
            raise Forbidden("only the creator can cancel this game")
        if game.status != Game.Status.LOBBY:
            raise Conflict("a started game cannot be cancelled")
        game.delete()


def seats_fill_with_bots(*, game_id: int, user: User) -> int:
    """Fill every empty seat of a lobby with a bot (creator only); returns how many bots were added."""
    with transaction.atomic():
        game = _lock(game_id)
        if game.created_by_id != user.pk:
            raise Forbidden("only the creator can add bots")
        if game.status != Game.Status.LOBBY:
            raise Conflict("this game has already started")
        seats = list(game.seats.all())
        added = 0
        while len(seats) < game.players:
            seats.append(Seat.objects.create(game=game, number=_free_number(seats), is_bot=True))
            added += 1
        return added


def game_start(*, game_id: int, user: User | None, seed: int | None = None) -> Game:
    """Start a full lobby: random seat order and first player via the engine's seeded RNG, then the
    engine's setup (R18–R25). Bots to move act at once.

    Args:
        user: the creator (``None`` for system use such as the demo command).
        seed: the game seed (random when ``None``).

    Raises:
        Forbidden: not the creator. Conflict: not a full lobby.
    """
    with transaction.atomic():
        game = _lock(game_id)
        if user is not None and game.created_by_id != user.pk:
            raise Forbidden("only the creator can start the game")
        if game.status != Game.Status.LOBBY:
            raise Conflict("this game has already started")
        seats = list(game.seats.select_related("user"))
        if len(seats) != game.players:
            raise Conflict("every seat must be filled (invite players or add bots)")
        seed = secrets.randbits(62) if seed is None else seed
        order = list(range(len(seats)))
        Rng(seed ^ 0x5EA7).shuffle(order)  # random seat order (clockwise = turn order, R25)
        for seat in seats:  # two passes keep the (game, number) constraint satisfied
            seat.number = 100 + seat.number
            seat.save(update_fields=["number"])
        for new_number, seat in zip(order, seats, strict=True):
            seat.number = new_number
            seat.save(update_fields=["number"])
        setup = {"players": game.players, "seed": seed, "options": game.options, "content": game.content}
        state = engine.new_game(setup)
        game.setup = engine.normalize_setup(setup)
        game.status = Game.Status.ACTIVE
        game.started_at = timezone.now()
        applied = _run_bots(game, state, _stand_ins(seats), [], 0, seats)
        _store(game, applied, list(seats))
    return game


# --------------------------------------------------------------------------------------------------------
# Actions
# --------------------------------------------------------------------------------------------------------


@dataclass
class _Applied:
    state: engine.GameState
    records: list[ActionRecord]
    snapshots: list[tuple[int, engine.GameState]] = field(default_factory=list)


def _snapshot_due(seq: int) -> bool:
    return seq % settings.SNAPSHOT_EVERY == 0


def _record(
    game: Game, seq: int, seat: int | None, source: str, action: engine.Action, t: engine.Transition
) -> ActionRecord:
    return ActionRecord(
        game=game,
        seq=seq,
        seat=seat,
        source=source,
        payload=action.to_dict(),
        events=t.events,
        state_hash=engine.state_hash(t.state),
    )


def _run_bots(
    game: Game,
    state: engine.GameState,
    bot_seats: set[int],
    records: list[ActionRecord],
    seq: int,
    seats: list[Seat] | None = None,
) -> _Applied:
    """Let bot seats answer every prompt addressed to them, and standing orders answer response windows
    (source ``standing``), until a human must decide (or the game ends). ``records``/``seq`` describe what
    the caller already applied (its state is ``state``); ``seats`` enables standing orders."""
    snapshots = [(seq, state)] if records and _snapshot_due(seq) else []
    orders: dict[int, list[tuple[bool, str, str]]] | None = None
    declined: set[str] = set()  # prompt keys whose standing answer the engine refused: the player decides
    for _ in range(MAX_BOT_ACTIONS):
        chosen: tuple[int, engine.Action, str] | None = None
        for prompt in engine.pending(state):
            if prompt.seat in bot_seats:
                action = bot_action(state, prompt.seat, game.pk, seq)
                chosen = (prompt.seat, action, ActionRecord.Source.BOT)
                break
            if prompt.kind == "response" and seats is not None and prompt.key not in declined:
                if orders is None:
                    orders = _standing_orders(game, seats)
                answer = standing_answer(state, prompt.seat, orders.get(prompt.seat, ()))
                if answer is not None:
                    chosen = (prompt.seat, answer, ActionRecord.Source.STANDING)
                    declined.add(prompt.key)
                    break
        if chosen is None:
            break
        seat, action, source = chosen
        try:
            t = engine.apply(state, seat, action)
        except engine.IllegalAction:
            if source == ActionRecord.Source.BOT:
                raise
            continue  # the standing order does not fit this window: leave it to the player
        seq += 1
        records.append(_record(game, seq, seat, source, action, t))
        state = t.state
        if _snapshot_due(seq):
            snapshots.append((seq, state))
    return _Applied(state, records, snapshots)


def _standing_orders(game: Game, seats: list[Seat]) -> dict[int, list[tuple[bool, str, str]]]:
    """Standing orders of the seated humans: seat -> ``(for_this_game, rule, artefact)`` (one query)."""
    by_user = {s.user_id: s.number for s in seats if s.user_id is not None and not s.is_bot}
    out: dict[int, list[tuple[bool, str, str]]] = {}
    if not by_user:
        return out
    rows = StandingOrder.objects.filter(Q(game=game) | Q(game__isnull=True), user_id__in=list(by_user))
    for order in rows.values_list("user_id", "game_id", "rule", "artefact"):
        user_id, game_id, rule, artefact = order
        out.setdefault(by_user[user_id], []).append((game_id is not None, rule, artefact))
    return out


def action_submit(
    *,
    game_id: int,
    user: User | None,
    payload: Any,
    expected_seq: int | None,
    prompt_key: str | None = None,
    seat: int | None = None,
    source: str = ActionRecord.Source.WEB,
) -> SubmitResult:
    """Apply one action for the user's seat (or ``seat`` for system sources such as timeouts).

    Args:
        expected_seq: the ``seq`` the client saw; a different value is a :class:`StaleState` unless
            ``prompt_key`` names a prompt still open for this seat (out-of-turn answers, e.g. both conflict
            cards chosen at once).
        payload: the action JSON (``docs/game-record.md``).

    Returns:
        The stored records: the action, then any bot actions it triggered.

    Raises:
        NotFound (404), Forbidden (403: no seat here), StaleState / Conflict (409), BadPayload (400),
        Illegal (422). Nothing is written when one is raised.
    """
    try:
        action = engine.parse_action(payload)
    except engine.InvalidActionPayload as exc:
        raise BadPayload(exc.message, field=exc.field) from exc
    with transaction.atomic():
        game, seats = _lock_with_seats(game_id)
        mine = next((s for s in seats if user is not None and s.user_id == user.pk), None)
        if seat is None and mine is None and game.private:
            raise NotFound("no such game", game_id=game_id)  # a private game stays unseen (issue 12)
        if game.status != Game.Status.ACTIVE:
            raise Conflict("this game is not in progress")
        if seat is None:
            if mine is None:
                raise Forbidden("you have no seat in this game")
            seat = mine.number
        state = game_state(game)
        if expected_seq != game.seq:
            # Only decisions several seats answer at once may bypass expected_seq (architecture §3): a
            # turn-level key stays open for the whole turn, so honouring it would let a repeated turn
            # action apply twice.
            open_keys = {p.key for p in engine.pending(state) if p.seat == seat and p.kind in PARALLEL_KINDS}
            if prompt_key is None or prompt_key not in open_keys:
                raise StaleState("the game has moved on; reload and try again", seq=game.seq)
        try:
            t = engine.apply(state, seat, action)
        except engine.IllegalAction as exc:
            raise Illegal(exc.code.value, engine_code=exc.code.value, **exc.params) from exc
        records = [_record(game, game.seq + 1, seat, source, action, t)]
        if source != ActionRecord.Source.TIMEOUT:
            _reset_misses(seats, seat)  # the player acted: the run of missed deadlines is over
        applied = _run_bots(game, t.state, _stand_ins(seats), records, game.seq + 1, seats)
        present = seat if source in (ActionRecord.Source.WEB, ActionRecord.Source.API) else None
        _store(game, applied, seats, previous=state, actor=present)
    return SubmitResult(game, applied.records)


def _stand_ins(seats: list[Seat]) -> set[int]:
    """Seats a bot plays: bot seats and absent players (``ABSENT_AFTER_MISSES`` missed turns in a row)."""
    return {s.number for s in seats if s.is_bot or s.missed_deadlines >= settings.ABSENT_AFTER_MISSES}


def _reset_misses(seats: list[Seat], number: int) -> None:
    for s in seats:
        if s.number == number and s.missed_deadlines:
            s.missed_deadlines = 0
            s.save(update_fields=["missed_deadlines"])


def seat_return(*, game_id: int, user: User) -> Seat:
    """ "I'm back": an absent player takes their seat back from the bot (the miss count restarts).

    Raises:
        NotFound, Forbidden (no seat), Conflict (the game is not in progress).
    """
    with transaction.atomic():
        game, seats = _lock_with_seats(game_id)
        if game.status != Game.Status.ACTIVE:
            raise Conflict("this game is not in progress")
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is None:
            raise Forbidden("you have no seat in this game")
        mine.missed_deadlines = 0
        mine.save(update_fields=["missed_deadlines"])
        return mine


def prompt_answer(
    *, game_id: int, seat: int, key: str, payload: dict[str, Any], source: str = ActionRecord.Source.EMAIL
) -> SubmitResult:
    """Apply ``payload`` for ``seat`` if the prompt ``key`` is still open for that seat (an answer from a
    signed email link: it names its prompt instead of a ``seq``).

    Raises:
        NotFound (404), Conflict (409: the game is over or the prompt is no longer open), BadPayload (400),
        Illegal (422). Nothing is written when one is raised.
    """
    with transaction.atomic():
        game, _seats = _lock_with_seats(game_id)
        if game.status != Game.Status.ACTIVE:
            raise Conflict("this game is not in progress")
        state = game_state(game)
        if not any(p.seat == seat and p.key == key for p in engine.pending(state)):
            raise Conflict("this decision has already been made", seq=game.seq)
        return action_submit(
            game_id=game_id, user=None, payload=payload, expected_seq=game.seq, seat=seat, source=source
        )


def vacation_apply(*, user: User) -> int:
    """Recompute the deadlines of the user's open prompts after their away period changed: each clock
    pauses for the part of the away period inside it, in games that allow vacations (issue 4).

    Returns:
        How many prompts got a new deadline.
    """
    changed = 0
    seats = Seat.objects.filter(
        user=user, game__status=Game.Status.ACTIVE, game__allow_vacation=True
    ).select_related("game", "user")
    for seat in seats:
        with transaction.atomic():
            _lock(seat.game_id)
            for prompt in Prompt.objects.filter(game_id=seat.game_id, seat=seat.number):
                deadline = deadline_for(seat.game, seat, prompt.deadline_class, prompt.opened_at)
                if deadline != prompt.deadline_at:
                    prompt.deadline_at = deadline
                    if prompt.remind_at is not None:
                        prompt.remind_at = remind_at(prompt.opened_at, deadline)
                    prompt.save(update_fields=["deadline_at", "remind_at"])
                    changed += 1
    return changed


def prompt_expire(*, game_id: int, seat: int, key: str, now: datetime | None = None) -> bool:
    """Apply the engine's timeout action of an overdue prompt, as a system action with source
    ``timeout`` (so replay stays exact). A missed turn counts towards absence.

    Returns:
        ``True`` if an action was applied; ``False`` if the prompt is no longer open or not yet due
        (running it twice changes nothing the second time).
    """
    now = now or timezone.now()
    with transaction.atomic():
        game, seats = _lock_with_seats(game_id)
        if game.status != Game.Status.ACTIVE:
            return False
        row = Prompt.objects.filter(game=game, seat=seat, key=key).first()
        if row is None or row.deadline_at > now:
            return False
        state = game_state(game)
        prompt = next((p for p in engine.pending(state) if p.seat == seat and p.key == key), None)
        if prompt is None:
            return False
        t = engine.apply(state, seat, prompt.timeout_action)
        records = [_record(game, game.seq + 1, seat, ActionRecord.Source.TIMEOUT, prompt.timeout_action, t)]
        mine = next((s for s in seats if s.number == seat), None)
        if prompt.kind == "turn" and mine is not None and not mine.is_bot:
            # the turn itself was missed (its optional steps do not count)
            mine.missed_deadlines += 1
            mine.save(update_fields=["missed_deadlines"])
        absent = mine is not None and mine.missed_deadlines >= settings.ABSENT_AFTER_MISSES
        applied = _run_bots(game, t.state, _stand_ins(seats), records, game.seq + 1, seats)
        _store(game, applied, seats, previous=state, timed_out=(prompt, absent))
    return True


def deadlines_sweep(*, now: datetime | None = None, limit: int = 1000) -> int:
    """Apply the timeout action of every overdue prompt (Celery beat runs this every minute).

    Deadlines live in the database, so a sweep finds them whatever happened to earlier tasks. A prompt
    that opens already overdue (a turn whose first step timed out) is handled in the same sweep.

    Returns:
        How many timeout actions were applied.
    """
    now = now or timezone.now()
    applied = 0
    for _ in range(limit):
        due = list(
            Prompt.objects.filter(deadline_at__lte=now, game__status=Game.Status.ACTIVE)
            .order_by("deadline_at")
            .values_list("game_id", "seat", "key")[:50]
        )
        progress = 0
        for game_id, seat, key in due:
            progress += prompt_expire(game_id=game_id, seat=seat, key=key, now=now)
        applied += progress
        if not progress:
            break
    return applied


#: The Game columns a write may change (the lobby settings never change once the game has started).
_WRITTEN_FIELDS = [
    "seq",
    "state",
    "state_hash",
    "status",
    "started_at",
    "finished_at",
    "winners",
    "setup",
    "turn_key",
    "turn_remaining",
    "updated_at",
]
#: The columns a move can change once the game has started (``setup`` and ``started_at`` are fixed).
_MOVE_FIELDS = [f for f in _WRITTEN_FIELDS if f not in ("setup", "started_at")]


def _store(
    game: Game,
    applied: _Applied,
    seats: list[Seat],
    previous: engine.GameState | None = None,
    actor: int | None = None,
    timed_out: tuple[engine.Prompt, bool] | None = None,
) -> None:
    """Persist the new state, the records, snapshots and the prompt projection, and queue the
    notifications (inside the caller's transaction). ``previous`` is the state the stored Prompt rows were
    projected from (``None`` when there are none yet: the game starts); ``actor`` the seat whose player
    acted on a page (not emailed about what they see); ``timed_out`` the prompt a timeout answered."""
    now = timezone.now()
    state = applied.state
    if state.winners:
        game.status = Game.Status.FINISHED
        game.finished_at = now
        game.winners = list(state.winners)
        _final_places(state, seats)
    opened = _sync_prompts(game, state, now, previous, seats)  # may pause or resume the turn clock
    fields = _WRITTEN_FIELDS if previous is None else _MOVE_FIELDS
    move_save(game, state, applied.records, applied.snapshots, fields)
    if state.winners:
        rate_game(game, seats, state, now)  # same transaction, exactly once (issue 5)
    queue_write(
        game=game,
        seats=seats,
        opened=opened,
        actor=actor,
        now=now,
        started=previous is None,
        finished=bool(state.winners) and (previous is None or not previous.winners),
        timed_out=timed_out,
        stand_ins=_stand_ins(seats),
    )


def _final_places(state: engine.GameState, seats: list[Seat]) -> None:
    """Store each seat's final VP and place: winners share first place (R109: a whole Allegiance team
    wins), then the rest by VP; equal VP share a place."""
    vp = engine.victory_points(state)
    place = {
        n: (n not in state.winners, 0 if n in state.winners else -vp[n]) for n in range(state.num_players)
    }
    for seat in seats:
        seat.final_vp = vp[seat.number]
        seat.final_rank = 1 + sum(1 for other in place.values() if other < place[seat.number])
    Seat.objects.bulk_update(seats, ["final_vp", "final_rank"])


def _sync_prompts(
    game: Game,
    state: engine.GameState,
    now: Any,
    previous: engine.GameState | None,
    seats: list[Seat],
) -> list[engine.Prompt]:
    """Project ``engine.pending()`` into Prompt rows, keeping the opening time (and so the deadline) of
    prompts still open. Prompt rows are only ever written here, under the game's row lock, from the
    state they describe, so the rows that exist are exactly ``pending(previous)``: no need to read them.

    Returns:
        The prompts this write opened (for notifications).
    """
    wanted = {(p.seat, p.key): p for p in engine.pending(state)}
    existing = {} if previous is None else {(p.seat, p.key): p for p in engine.pending(previous)}
    stale = [k for k in existing if k not in wanted]
    current_turn = f"t{state.turn}:turn:{state.active}"
    if (state.active, current_turn) in stale and not state.winners:
        # The turn is interrupted (a response window, battle or choice): pause its clock.
        left = (
            Prompt.objects.filter(game=game, seat=state.active, key=current_turn)
            .values_list("deadline_at", flat=True)
            .first()
        )
        if left is not None:
            game.turn_key, game.turn_remaining = current_turn, max(0.0, (left - now).total_seconds())
    # A turn keeps its key (and its clock) while its step changes: update kind and timeout in place.
    for k, old in existing.items():
        p = wanted.get(k)
        if p is not None and (old.kind, old.timeout_action) != (p.kind, p.timeout_action):
            Prompt.objects.filter(game=game, seat=p.seat, key=p.key).update(
                kind=p.kind, deadline_class=p.deadline, timeout_action=p.timeout_action.to_dict()
            )
    by_number = {s.number: s for s in seats}
    opened = [p for k, p in wanted.items() if k not in existing]
    new = []
    for p in opened:
        deadline = deadline_for(game, by_number.get(p.seat), p.deadline, now)
        if p.key.startswith("t") and ":turn:" in p.key:
            if p.key == game.turn_key and game.turn_remaining is not None:
                deadline = now + timedelta(seconds=game.turn_remaining)  # the turn resumes: its clock too
            game.turn_key, game.turn_remaining = p.key, None
        # A resumed turn counts as opened earlier by the time it had used, so opened + clock = deadline.
        opened_at = min(now, deadline - clock(game, p.deadline))
        new.append(
            Prompt(
                game=game,
                seat=p.seat,
                kind=p.kind,
                key=p.key,
                deadline_class=p.deadline,
                timeout_action=p.timeout_action.to_dict(),
                opened_at=opened_at,
                deadline_at=deadline,
                remind_at=remind_at(opened_at, deadline),
            )
        )
    # The common write hands one prompt over to the next (one turn to the next): the closed prompt's row is
    # reused (one UPDATE). Otherwise the closed rows go in one DELETE and the opened in one INSERT, so the
    # statements per write stay the same whatever the number of players.
    if len(stale) == len(new) == 1:
        (seat, key), row = stale[0], new[0]
        fields = {name: getattr(row, name) for name in _PROMPT_FIELDS}
        Prompt.objects.filter(game=game, seat=seat, key=key).update(**fields)
        return opened
    if stale:
        gone = Q()
        for seat, key in stale:
            gone |= Q(seat=seat, key=key)
        Prompt.objects.filter(gone, game=game).delete()
    if new:
        Prompt.objects.bulk_create(new)
    return opened


def game_verify(*, game_id: int) -> tuple[bool, str]:
    """Replay a game from its setup and records, checking every stored hash (``manage.py verify_game``).

    Returns:
        ``(ok, message)``; the message names the first mismatch.
    """
    try:
        game = Game.objects.get(pk=game_id)
    except Game.DoesNotExist:
        return False, "no such game"
    if game.setup is None:
        return True, "not started: nothing to verify"
    state = engine.new_game(game.setup)
    expected = 1
    for record in game.actions.order_by("seq").iterator():
        if record.seq != expected:
            return False, f"gap in the log: expected seq {expected}, found {record.seq}"
        try:
            state = record_apply(state, record)
        except (engine.IllegalAction, engine.InvalidActionPayload) as exc:
            return False, f"action {record.seq} no longer applies: {exc}"
        if engine.state_hash(state) != record.state_hash:
            return False, f"hash mismatch after action {record.seq}"
        expected += 1
    if game.seq != expected - 1:
        return False, f"game.seq is {game.seq} but the log has {expected - 1} actions"
    if engine.state_hash(state) != game.state_hash or engine.to_dict(state) != game.state:
        return False, "the stored state differs from the replayed state"
    return True, f"ok: {game.seq} actions replayed, hash {game.state_hash[:12]}"


def standing_order_add(
    *, user: User, rule: str, artefact: str = "", game_id: int | None = None
) -> StandingOrder:
    """Store a standing order for response windows (for one game the user is seated in, or all games).
    It applies from the next window that opens.

    Raises:
        BadPayload: unknown rule, or a rule that names an artefact without one. Forbidden: no seat in
        ``game_id``.
    """
    if rule not in StandingOrder.Rule.values:
        raise BadPayload("unknown standing order")
    if rule != StandingOrder.Rule.PASS and not artefact:
        raise BadPayload("this order names an artefact")
    if game_id is not None and not Seat.objects.filter(game_id=game_id, user=user).exists():
        raise Forbidden("you have no seat in this game")
    return StandingOrder.objects.create(
        user=user, game_id=game_id, rule=rule, artefact="" if rule == StandingOrder.Rule.PASS else artefact
    )


def standing_order_delete(*, user: User, order_id: int) -> None:
    """Delete one of the user's standing orders. Raises NotFound when it is not theirs."""
    deleted, _rows = StandingOrder.objects.filter(pk=order_id, user=user).delete()
    if not deleted:
        raise NotFound("no such standing order")


#: Limits of an imported game record (bytes of JSON are checked by the view).
IMPORT_MAX_ACTIONS = 20_000


def game_import(*, user: User, record: Any) -> Game:
    """Store a finished game record (``docs/game-record.md``) as an imported, unrated game that can be
    replayed like any finished game. Seats take the record's ``players`` names (else "Player N").

    Raises:
        BadPayload (400): not a record, an unknown setup, an action that does not apply (the message names
        its index), too many actions, or a game that is not finished.
    """
    if not isinstance(record, dict) or not isinstance(record.get("setup"), dict):
        raise BadPayload("not a game record: it needs a setup and actions")
    if "\\u0000" in json.dumps(record):
        raise BadPayload("a record cannot contain NUL characters")
    actions = record.get("actions")
    if not isinstance(actions, list) or len(actions) > IMPORT_MAX_ACTIONS:
        raise BadPayload(f"a record needs a list of at most {IMPORT_MAX_ACTIONS} actions")
    try:
        setup = engine.normalize_setup(record["setup"])
        state = engine.new_game(setup)
    except (engine.ContentError, KeyError, TypeError, ValueError) as exc:
        raise BadPayload(f"the setup is not valid: {exc}") from exc
    raw_names = record.get("players")
    names: list[Any] = raw_names if isinstance(raw_names, list) else []
    raw_title = record.get("title")
    title = raw_title if isinstance(raw_title, str) else ""
    sources = set(ActionRecord.Source.values)
    with transaction.atomic():
        game = Game.objects.create(
            title=(title.strip() or "Imported game")[:80],
            created_by=user,
            players=state.num_players,
            options=dict(setup["options"]),
            content=setup["content"][:20] if isinstance(setup.get("content"), str) else "custom",
            time_control="relaxed",
            imported=True,
            status=Game.Status.ACTIVE,
            setup=setup,
            started_at=timezone.now(),
        )
        seats = [
            Seat.objects.create(
                game=game,
                number=n,
                guest_name=(str(names[n]) if n < len(names) else f"Player {n + 1}")[:40],
            )
            for n in range(state.num_players)
        ]
        records: list[ActionRecord] = []
        snapshots: list[tuple[int, engine.GameState]] = []
        for index, entry in enumerate(actions):
            try:
                if not isinstance(entry, dict) or type(entry.get("seat")) is not int:
                    raise BadPayload("an action needs a seat")
                action = engine.parse_action(entry.get("action"))
                t = engine.apply(state, entry["seat"], action)
            except (engine.IllegalAction, engine.InvalidActionPayload, BadPayload) as exc:
                raise BadPayload(f"action {index} does not apply: {exc}", index=index) from exc
            source = entry.get("source") if entry.get("source") in sources else ActionRecord.Source.WEB
            records.append(_record(game, index + 1, entry["seat"], str(source), action, t))
            state = t.state
            if _snapshot_due(index + 1):
                snapshots.append((index + 1, state))
        if not state.winners:
            raise BadPayload("only finished games can be imported (this record has no winner)")
        _store(game, _Applied(state, records, snapshots), seats)
    return game
