"""Play: one action through the engine for a seat (page, API, email link, timeout or bot), the bots and
standing orders it sets off, and storing the result with its records, prompts and outbox rows."""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from games import engine
from games.bots import bot_action, stand_ins
from games.models import ActionRecord, Game, PendingOrder, Prompt, Seat, StandingOrder
from games.services import pending as pending_orders
from games.services.errors import BadPayload, Conflict, Forbidden, Illegal, NotFound, StaleState
from games.services.locks import game_state, lock_with_seats
from games.services.outbox import queue_write
from games.services.projection import prompts_sync
from games.services.published import TASKS
from games.services.ratings import rate_game
from games.services.webhooks import webhooks_queue
from games.standing import standing_answer
from games.store import move_save

log = logging.getLogger(__name__)

#: Prompt kinds that several seats answer at the same time; only these may be answered with a stale
#: ``expected_seq`` plus their still-open prompt key.
PARALLEL_KINDS = frozenset({engine.PromptKind.RESPONSE, engine.PromptKind.CONFLICT})


#: Bot levels that think too long to play inside a request (issue 17: *hard* takes up to a second a
#: decision): :func:`bots_run` leaves their prompts open and :func:`move_store` has the ``bots_play`` task
#: play them after the write commits (eagerly in-process on the embedded default).
DEFERRED_LEVELS = frozenset({"hard"})
#: At most this many bot actions are applied after one human action (a runaway guard; a full bot game is
#: ~300 actions, so whole turns of several bots fit easily).
MAX_BOT_ACTIONS = 2000


@dataclass
class SubmitResult:
    """What :func:`action_submit` applied: the game row after the write and every record stored
    (the submitted action first, then any bot actions it triggered)."""

    game: Game
    records: list[ActionRecord] = field(default_factory=list)


@dataclass
class Applied:
    """What a write applied before it is stored: the final ``state``, the new ``records`` in ``seq`` order,
    and the ``(seq, state)`` pairs to keep as snapshots (every ``SNAPSHOT_EVERY`` actions)."""

    state: engine.GameState
    records: list[ActionRecord]
    snapshots: list[tuple[int, engine.GameState]] = field(default_factory=list)


def snapshot_due(seq: int) -> bool:
    """Whether the state after action ``seq`` is kept as a snapshot (every ``SNAPSHOT_EVERY`` actions)."""
    return seq % settings.SNAPSHOT_EVERY == 0


#: The sources whose steps their player may take back (issue 16): a person acting, on a page, through the
#: API or by email. Bots, stand-ins, standing orders, the server and timeouts never undo.
TAKEBACK_SOURCES = frozenset({ActionRecord.Source.WEB, ActionRecord.Source.API, ActionRecord.Source.EMAIL})


def record_for(
    game: Game,
    seq: int,
    seat: int | None,
    source: str,
    action: engine.Action,
    before: engine.GameState,
    t: engine.Transition,
) -> ActionRecord:
    """The (unsaved) record of ``action`` by ``seat`` (``None``: a system action) as action ``seq`` of
    ``game``, from ``source`` (web, api, email, timeout, bot, standing), with the transition's events, the
    hash of the state after it, and whether its player may take it back (``engine.undo_barrier`` applied
    to ``before``, the state it was applied to; only for :data:`TAKEBACK_SOURCES`)."""
    barrier = engine.undo_barrier(before, before.active if seat is None else seat, action, t)
    return ActionRecord(
        game=game,
        seq=seq,
        seat=seat,
        source=source,
        payload=action.to_dict(),
        events=t.events,
        state_hash=engine.state_hash(t.state),
        takeback=barrier is None and source in TAKEBACK_SOURCES,
        barrier=barrier or "",
    )


def bots_run(
    game: Game,
    state: engine.GameState,
    bot_seats: Mapping[int, str],
    records: list[ActionRecord],
    seq: int,
    seats: list[Seat] | None = None,
    defer: frozenset[str] = DEFERRED_LEVELS,
) -> Applied:
    """Let bot seats answer every prompt addressed to them, a person's pending orders answer the decisions
    that accept them (issue 30, :func:`games.services.pending.next_action`; the order's source, played rows
    deleted here), standing orders answer response windows (source ``standing``) and the server pass for
    seats with nothing to decide whose masking delay is 0 (source ``server``), until a human must decide or
    a delay runs (or the game ends). ``records``/``seq`` describe what the caller already applied (its
    state is ``state``); ``seats`` enables standing and pending orders. ``bot_seats`` maps each seat a bot
    plays to its level (:func:`stand_ins`); bots of a level in ``defer`` are left to the ``bots_play`` task
    (:data:`DEFERRED_LEVELS`)."""
    snapshots = [(seq, state)] if records and snapshot_due(seq) else []
    orders: dict[int, list[tuple[bool, str, str]]] | None = None
    kept: dict[int, list[PendingOrder]] | None = None  # pending orders (issue 30), read once
    declined: set[str] = set()  # prompt keys whose standing answer the engine refused: the player decides
    for _ in range(MAX_BOT_ACTIONS):
        chosen: tuple[int, engine.Action, str] | None = None
        from_orders = consumes = False
        for prompt in engine.pending(state):
            if prompt.auto:
                # Nothing to decide: the server passes, after the masking delay (the sweep) only where a
                # person could read the timing (issue 14, issue 29: masking_watched).
                if prompt.after == 0 or not masking_watched(prompt.seat, bot_seats, seats):
                    chosen = (prompt.seat, prompt.timeout_action, ActionRecord.Source.SERVER)
                    break
                continue
            if prompt.seat in bot_seats:
                if bot_seats[prompt.seat] in defer:
                    continue  # a slow bot: played after commit (move_store enqueues it)
                action = bot_action(state, prompt.seat, game.pk, seq, bot_seats[prompt.seat])
                chosen = (prompt.seat, action, ActionRecord.Source.BOT)
                break
            if seats is not None:
                kept = pending_orders.orders_of(game, seats) if kept is None else kept
                if kept.get(prompt.seat):
                    step = pending_orders.next_action(state, prompt.seat, kept[prompt.seat], prompt)
                    if step is not None:
                        chosen = (prompt.seat, step[0], kept[prompt.seat][0].source)
                        from_orders, consumes = True, step[1]
                        break
            if prompt.kind == engine.PromptKind.RESPONSE and seats is not None and prompt.key not in declined:
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
        except engine.IllegalAction as exc:
            if source == ActionRecord.Source.BOT:
                raise
            if from_orders and consumes and kept is not None:  # impossible now: dropped with those after it
                pending_orders.drop(kept[seat], len(kept[seat]), exc.code.value, prompt.key)
            continue  # the standing order does not fit this window: leave it to the player
        if from_orders and consumes and kept is not None:
            pending_orders.played(t.state, seat, kept[seat], action)
        seq += 1
        records.append(record_for(game, seq, seat, source, action, state, t))
        state = t.state
        if snapshot_due(seq):
            snapshots.append((seq, state))
    return Applied(state, records, snapshots)


def masking_watched(seat: int, bot_seats: Mapping[int, str], seats: list[Seat] | None) -> bool:
    """Whether the server's pass for ``seat`` (which holds no Fracture) must wait out the table's masking
    delay (``fracture_mask``; issue 14) instead of being made at once (issue 29).

    The delay hides from people whether a seat holds Fracture. A bot seat (a bot, or a stand-in for an
    absent player) answers at once whether or not it holds Fracture, so its timing tells nothing: it never
    waits. A person's seat waits only while another person sits at the table to read its timing; with no
    other person there, nobody waits for a delay that hides nothing.

    Args:
        seat: the seat the server passes for. bot_seats: seat -> level of the seats bots play
            (:func:`stand_ins`). seats: the table's seats, or ``None`` when unknown (then it waits).
    Returns:
        ``True`` if the pass waits for the masking delay.
    """
    if seat in bot_seats:
        return False
    if seats is None:
        return True
    return any(s.number != seat and s.user_id is not None and not s.is_bot for s in seats)


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


def payload_action(payload: object) -> engine.Action:
    """Parse an action's JSON payload (``docs/game-record.md``) into an engine action: the one parse of the
    doors that receive JSON, the API's body and a decision form's fields (issue 31 §1; email lines parse
    their own words with :func:`games.engine.parse_text`).

    Raises:
        BadPayload (400): not an action (``field`` names the first bad field).
    """
    try:
        return engine.parse_action(payload)
    except engine.InvalidActionPayload as exc:
        raise BadPayload(exc.message, field=exc.field) from exc


def action_submit(
    *,
    game_id: int,
    user: User | None,
    action: engine.Action,
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
        action: the engine action, parsed at the edge it came through (a form, the API's schema, an email
            line or link): the service never sees a payload (issue 31 §1).

    Returns:
        The stored records: the action, then any bot actions it triggered.

    Raises:
        NotFound (404), Forbidden (403: no seat here), StaleState / Conflict (409), Illegal (422).
        Nothing is written when one is raised.
    """
    with transaction.atomic():
        game, seats = lock_with_seats(game_id)
        mine = next((s for s in seats if user is not None and s.user_id == user.pk), None)
        if seat is None and mine is None and game.private:
            raise NotFound("no such game", game_id=game_id)  # a private game stays unseen (issue 12)
        if game.status != Game.Status.ACTIVE:
            raise Conflict("this game is not in progress")
        if seat is None:
            if mine is None:
                raise Forbidden("you have no seat in this game")
            seat = mine.number
        if any(s.number == seat and s.resigned_at is not None for s in seats):
            raise Forbidden("you have resigned from this game")  # issue 30: a stand-in plays it for good
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
        records = [record_for(game, game.seq + 1, seat, source, action, state, t)]
        if source != ActionRecord.Source.TIMEOUT:
            _reset_misses(seats, seat)  # the player acted: the run of missed deadlines is over
        applied = bots_run(game, t.state, stand_ins(seats), records, game.seq + 1, seats)
        present = seat if source in (ActionRecord.Source.WEB, ActionRecord.Source.API) else None
        move_store(game, applied, seats, previous=state, actor=present)
    return SubmitResult(game, applied.records)


def _reset_misses(seats: list[Seat], number: int) -> None:
    for s in seats:
        if s.number == number and s.missed_deadlines:
            s.missed_deadlines = 0
            s.save(update_fields=["missed_deadlines"])


def seat_return(*, game_id: int, user: User) -> Seat:
    """ "I'm back": an absent player takes their seat back from the bot (the miss count restarts).

    Raises:
        NotFound, Forbidden (no seat), Conflict (the game is not in progress, or the player resigned:
        issue 30).
    """
    with transaction.atomic():
        game, seats = lock_with_seats(game_id)
        if game.status != Game.Status.ACTIVE:
            raise Conflict("this game is not in progress")
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is None:
            raise Forbidden("you have no seat in this game")
        if mine.resigned_at is not None:
            raise Conflict("you have resigned from this game")  # issue 30: resigning is for good
        mine.missed_deadlines = 0
        mine.save(update_fields=["missed_deadlines"])
        return mine


def prompt_answer(
    *, game_id: int, seat: int, key: str, action: engine.Action, source: str = ActionRecord.Source.EMAIL
) -> SubmitResult:
    """Apply ``action`` for ``seat`` if the prompt ``key`` is still open for that seat (an answer from a
    signed email link: it names its prompt instead of a ``seq``).

    Raises:
        NotFound (404), Conflict (409: the game is over or the prompt is no longer open), Illegal (422).
        Nothing is written when one is raised.
    """
    with transaction.atomic():
        game, _seats = lock_with_seats(game_id)
        if game.status != Game.Status.ACTIVE:
            raise Conflict("this game is not in progress")
        state = game_state(game)
        if not any(p.seat == seat and p.key == key for p in engine.pending(state)):
            raise Conflict("this decision has already been made", seq=game.seq)
        return action_submit(
            game_id=game_id, user=None, action=action, expected_seq=game.seq, seat=seat, source=source
        )


def prompt_expire(*, game_id: int, seat: int, key: str, now: datetime | None = None) -> bool:
    """Apply the engine's timeout action of an overdue prompt, as a system action with source
    ``timeout`` (so replay stays exact). A missed turn counts towards absence.

    Returns:
        ``True`` if an action was applied; ``False`` if the prompt is no longer open or not yet due
        (running it twice changes nothing the second time).
    """
    now = now or timezone.now()
    with transaction.atomic():
        game, seats = lock_with_seats(game_id)
        if game.status != Game.Status.ACTIVE:
            return False
        row = Prompt.objects.filter(game=game, seat=seat, key=key).first()
        if row is None or (row.deadline_at > now and (row.auto_at is None or row.auto_at > now)):
            return False
        state = game_state(game)
        prompt = next((p for p in engine.pending(state) if p.seat == seat and p.key == key), None)
        if prompt is None:
            return False
        t = engine.apply(state, seat, prompt.timeout_action)
        source = ActionRecord.Source.SERVER if prompt.auto else ActionRecord.Source.TIMEOUT
        records = [record_for(game, game.seq + 1, seat, source, prompt.timeout_action, state, t)]
        mine = next((s for s in seats if s.number == seat), None)
        if prompt.kind == engine.PromptKind.TURN and mine is not None and not mine.is_bot:
            # the turn itself was missed (its optional steps do not count)
            mine.missed_deadlines += 1
            mine.save(update_fields=["missed_deadlines"])
        absent = mine is not None and mine.missed_deadlines >= settings.ABSENT_AFTER_MISSES
        applied = bots_run(game, t.state, stand_ins(seats), records, game.seq + 1, seats)
        move_store(game, applied, seats, previous=state, timed_out=(prompt, absent))
    return True


def deadlines_sweep(*, now: datetime | None = None, limit: int = 1000) -> int:
    """Apply the timeout action of every overdue prompt (Celery beat runs this every minute).

    Deadlines live in the database, so a sweep finds them whatever happened to earlier tasks. A prompt
    that opens already overdue (a turn whose first step timed out) is handled in the same sweep. A prompt
    whose timeout fails (its game's state cannot be read or the engine refuses the stored timeout action)
    is logged and left for the next sweep; this sweep goes on without it, so one broken game never holds
    back the other games' deadlines.

    Returns:
        How many timeout actions were applied.
    """
    now = now or timezone.now()
    applied = 0
    failed: set[int] = set()
    for _ in range(limit):
        due = list(
            Prompt.objects.filter(
                Q(deadline_at__lte=now) | Q(auto_at__lte=now), game__status=Game.Status.ACTIVE
            )
            .exclude(pk__in=failed)
            .order_by("deadline_at")
            .values_list("pk", "game_id", "seat", "key")[:50]
        )
        progress = 0
        for pk, game_id, seat, key in due:
            try:
                progress += prompt_expire(game_id=game_id, seat=seat, key=key, now=now)
            except Exception:  # one game's fault must not stop every other game's clock
                log.exception("could not apply the timeout of prompt %s (game %s)", key, game_id)
                failed.add(pk)
        applied += progress
        if not progress and not failed.intersection(pk for pk, *_rest in due):
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


def move_store(
    game: Game,
    applied: Applied,
    seats: list[Seat],
    previous: engine.GameState | None = None,
    actor: int | None = None,
    timed_out: tuple[engine.Prompt, bool] | None = None,
    bots_later: bool = True,
) -> None:
    """Persist the new state, the records, snapshots and the prompt projection, and queue the
    notifications (inside the caller's transaction). ``previous`` is the state the stored Prompt rows were
    projected from (``None`` when there are none yet: the game starts); ``actor`` the seat whose player
    acted on a page (not emailed about what they see); ``timed_out`` the prompt a timeout answered. When a
    bot of a :data:`DEFERRED_LEVELS` level must decide, the ``bots_play`` task is enqueued after commit
    (unless ``bots_later`` is false: the caller is that task)."""
    now = timezone.now()
    state = applied.state
    if state.winners:
        game.status = Game.Status.FINISHED
        game.finished_at = now
        game.winners = list(state.winners)
        _final_places(state, seats)
    opened = prompts_sync(game, state, now, previous, seats)  # may pause or resume the turn clock
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
        stand_ins=stand_ins(seats),
    )
    webhooks_queue(  # issue 32: a new turn or the result, to the table's webhooks
        game=game,
        state=state,
        seats=seats,
        opened=opened,
        finished=bool(state.winners) and (previous is None or not previous.winners),
        now=now,
    )
    if bots_later and deferred_bot_prompt(state, seats) is not None:
        transaction.on_commit(partial(enqueue_bots, game.pk))


def deferred_bot_prompt(
    state: engine.GameState, seats: list[Seat], levels: Collection[str] | None = DEFERRED_LEVELS
) -> tuple[engine.Prompt, str] | None:
    """The first open decision of a bot (or stand-in) whose level is in ``levels`` (default: the deferred
    :data:`DEFERRED_LEVELS`; ``None``: any level), with the level; ``None`` when there is none or the game
    is over."""
    if state.winners:
        return None
    played_by = stand_ins(seats)
    for prompt in engine.pending(state):
        level = played_by.get(prompt.seat)
        if not prompt.auto and level is not None and (levels is None or level in levels):
            return prompt, str(level)
    return None


def enqueue_bots(game_id: int) -> None:
    """Publish one ``bots_play`` task (:data:`games.services.published.TASKS`) for ``game_id`` (after
    commit). Never raises: if the broker is down the deadline sweep finds the waiting bot
    (:func:`games.services.bot_turns.bots_waiting`)."""
    try:
        TASKS.bots_play.delay(game_id=game_id)
    except Exception:
        log.warning("could not enqueue the bots of game %s; the sweep will play them", game_id)


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
