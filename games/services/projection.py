"""The prompt projection: ``engine.pending()`` kept as Prompt rows with their deadlines (turn clocks pause
and resume, away periods pause clocks in games that allow vacations)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q

from accounts.models import User
from games import engine
from games.models import Game, Prompt, Seat
from games.services.locks import lock_game
from games.services.outbox import clock, deadline_for, remind_at

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
    "auto_at",
]


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
            lock_game(seat.game_id)
            for prompt in Prompt.objects.filter(game_id=seat.game_id, seat=seat.number):
                deadline = deadline_for(seat.game, seat, prompt.deadline_class, prompt.opened_at)
                if deadline != prompt.deadline_at:
                    prompt.deadline_at = deadline
                    if prompt.remind_at is not None:
                        prompt.remind_at = remind_at(prompt.opened_at, deadline)
                    prompt.save(update_fields=["deadline_at", "remind_at"])
                    changed += 1
    return changed


def prompts_sync(
    game: Game,
    state: engine.GameState,
    now: datetime,
    previous: engine.GameState | None,
    seats: list[Seat],
) -> list[engine.Prompt]:
    """Project ``engine.pending()`` into Prompt rows, keeping the opening time (and so the deadline) of
    prompts still open. Prompt rows are only ever written here, under the game's row lock, from the
    state they describe, so the rows that exist are exactly ``pending(previous)``: no need to read them.

    Args:
        game: the locked game row; its ``turn_key`` and ``turn_remaining`` (seconds) are updated in memory
            when a turn's clock pauses or resumes (the caller saves the row).
        state: the state after the write.
        now: the time of the write (aware datetime).
        previous: the state before the write (``None`` for a new game).
        seats: the game's seats (deadlines depend on their away periods).

    Returns:
        The prompts this write opened (for notifications).
    """
    wanted = {(p.seat, p.key): p for p in engine.pending(state)}
    existing = {} if previous is None else {(p.seat, p.key): p for p in engine.pending(previous)}
    stale = [k for k in existing if k not in wanted]
    interrupted = _interrupted_turn(state, previous, existing, stale)
    if interrupted is not None:
        # The turn is interrupted (a response window, battle or choice): pause its clock.
        left = (
            Prompt.objects.filter(game=game, seat=interrupted.seat, key=interrupted.key)
            .values_list("deadline_at", flat=True)
            .first()
        )
        if left is not None:
            game.turn_key, game.turn_remaining = interrupted.key, max(0.0, (left - now).total_seconds())
    # A turn keeps its key (and its clock) while its step changes: update kind and timeout in place.
    for k, old in existing.items():
        p = wanted.get(k)
        if p is not None and (old.kind, old.timeout_action) != (p.kind, p.timeout_action):
            Prompt.objects.filter(game=game, seat=p.seat, key=p.key).update(
                kind=p.kind, deadline_class=p.deadline, timeout_action=p.timeout_action.to_dict()
            )
    opened = [p for k, p in wanted.items() if k not in existing]
    by_number = {s.number: s for s in seats}
    _rows_replace(game, stale, [_prompt_row(game, p, by_number.get(p.seat), now) for p in opened])
    return opened


def _interrupted_turn(
    state: engine.GameState,
    previous: engine.GameState | None,
    existing: dict[tuple[int, str], engine.Prompt],
    stale: list[tuple[int, str]],
) -> engine.Prompt | None:
    """The previous state's turn prompt when this write closed it but the turn goes on (same turn, same
    active seat, no winner): a response window, battle or choice interrupts it. ``None`` otherwise."""
    if previous is None or state.winners or (previous.turn, previous.active) != (state.turn, state.active):
        return None
    turn = next((p for p in existing.values() if p.kind in engine.TURN_KINDS), None)
    if turn is None or (turn.seat, turn.key) not in stale:
        return None
    return turn


def _prompt_row(game: Game, p: engine.Prompt, seat: Seat | None, now: datetime) -> Prompt:
    """The (unsaved) row of a prompt opened ``now``; a turn prompt resumes its paused clock."""
    deadline = deadline_for(game, seat, p.deadline, now)
    if p.kind in engine.TURN_KINDS:
        if p.key == game.turn_key and game.turn_remaining is not None:
            deadline = now + timedelta(seconds=game.turn_remaining)  # the turn resumes: its clock too
        game.turn_key, game.turn_remaining = p.key, None
    # A resumed turn counts as opened earlier by the time it had used, so opened + clock = deadline.
    opened_at = min(now, deadline - clock(game, p.deadline))
    return Prompt(
        game=game,
        seat=p.seat,
        kind=p.kind,
        key=p.key,
        deadline_class=p.deadline,
        timeout_action=p.timeout_action.to_dict(),
        opened_at=opened_at,
        deadline_at=deadline,
        # nothing to decide: no reminder; the server answers after the masking delay (issue 14)
        remind_at=None if p.auto else remind_at(opened_at, deadline),
        auto_at=now + timedelta(seconds=p.after) if p.auto else None,
    )


def _rows_replace(game: Game, stale: list[tuple[int, str]], new: list[Prompt]) -> None:
    """Delete the rows of the ``stale`` (seat, key) prompts and insert ``new``.

    The common write hands one prompt over to the next (one turn to the next): the closed prompt's row is
    reused (one UPDATE). Otherwise the closed rows go in one DELETE and the opened in one INSERT, so the
    statements per write stay the same whatever the number of players.
    """
    if len(stale) == len(new) == 1:
        (seat, key), row = stale[0], new[0]
        fields = {name: getattr(row, name) for name in _PROMPT_FIELDS}
        Prompt.objects.filter(game=game, seat=seat, key=key).update(**fields)
        return
    if stale:
        gone = Q()
        for seat, key in stale:
            gone |= Q(seat=seat, key=key)
        Prompt.objects.filter(gone, game=game).delete()
    if new:
        Prompt.objects.bulk_create(new)
