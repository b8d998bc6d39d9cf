"""Undo (issue 16): a player takes back their own steps of the current turn, back to the last point where
new information appeared (Board Game Arena's policy; the engine classifies each step,
:func:`games.engine.undo_barrier`).

The records of the undone steps are kept and marked undone (``ActionRecord.undone_in``: the game ``seq`` the
undo used up). The state is rebuilt from the steps that still count, so replays and ``verify_game`` stay
exact, and the log, replays and exports leave undone steps out for everyone, so nobody else ever sees
their details.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction

from accounts.models import User
from games import engine
from games.models import ActionRecord, Game, Snapshot
from games.services.errors import Conflict, Forbidden, NotFound, StaleState
from games.services.locks import game_state, lock_with_seats
from games.services.play import Applied, move_store
from games.store import state_after

#: The most steps one look back finds (a turn's takeable steps are far fewer: each manoeuvre has a
#: redistribution and an advance, and a card that gives another manoeuvre is itself a barrier).
LOOK_BACK = 24

#: The columns :func:`takeback_run` reads.
RUN_FIELDS = ("seq", "seat", "source", "events", "takeback", "barrier")


class UndoRefused(Conflict):
    """Nothing (or not that much) can be taken back now (409). ``params["barrier"]`` names the new
    information in the way (an :class:`games.engine.Barrier` value, or ``""`` when there is no step)."""

    code = "undo_refused"


@dataclass
class Takeback:
    """What ``seat`` could take back now: ``steps`` newest first, and ``barrier``, the new information that
    stops a look further back (an :class:`games.engine.Barrier` value; ``""`` at the start of the game or for
    records that do not say)."""

    steps: list[ActionRecord] = field(default_factory=list)
    barrier: str = ""


def takeback_run(records: Iterable[ActionRecord], seat: int) -> Takeback:
    """The trailing run of ``seat``'s own steps that can be taken back, and what stops a look further back.

    Args:
        records: the game's counted records (not undone), newest first.
        seat: the seat asking.

    Returns:
        A :class:`Takeback`: the steps, and the most telling barrier (in :class:`games.engine.Barrier`'s
        order: a card drawn first) among the records after them, back to and including the seat's own
        latest record or the start of the turn, whichever comes first. Another seat's record with nothing
        telling of its own counts as an ``answer``.
    """
    run = Takeback()
    found: list[str] = []
    for record in records:
        if not found and record.seat == seat and record.takeback:
            run.steps.append(record)
            continue
        barrier = record.barrier
        if record.seat != seat and barrier in ("", engine.Barrier.ANSWER):
            barrier = engine.Barrier.ANSWER
        found.append(barrier)
        if record.seat == seat or barrier == engine.Barrier.TURN_OVER:
            break
    order = list(engine.Barrier)
    known = [b for b in found if b in order]
    run.barrier = min(known, key=lambda b: order.index(engine.Barrier(b))) if known else ""
    return run


def takeback_for(game: Game, seat: int) -> Takeback:
    """:func:`takeback_run` over ``game``'s stored records (one query)."""
    records = (
        ActionRecord.objects.filter(game=game, undone_in__isnull=True)
        .order_by("-seq")
        .only(*RUN_FIELDS)[:LOOK_BACK]
    )
    return takeback_run(records, seat)


@dataclass
class UndoResult:
    """What :func:`action_undo` took back: the game row after the write and the undone records, newest
    first."""

    game: Game
    undone: list[ActionRecord]


def action_undo(*, game_id: int, user: User, expected_seq: int | None, steps: int = 1) -> UndoResult:
    """Take back the user's last ``steps`` steps of the current turn (issue 16).

    Args:
        expected_seq: the ``seq`` the client saw (a repeated click finds the game moved on: 409, nothing
            is undone twice).
        steps: how many steps (1 or more), newest first.

    Returns:
        The game after the undo and the records now marked undone. The game's ``seq`` grows by one.

    Raises:
        NotFound (404), Forbidden (403: no seat here), Conflict (409: not in progress), StaleState (409),
        UndoRefused (409: fewer steps can be taken back; ``params["barrier"]`` says why). Nothing is
        written when one is raised.
    """
    with transaction.atomic():
        game, seats = lock_with_seats(game_id)
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is None and game.private:
            raise NotFound("no such game", game_id=game_id)
        if game.status != Game.Status.ACTIVE:
            raise Conflict("this game is not in progress")
        if mine is None:
            raise Forbidden("you have no seat in this game")
        if expected_seq != game.seq:
            raise StaleState("the game has moved on; reload and try again", seq=game.seq)
        run = takeback_for(game, mine.number)
        if steps < 1 or steps > len(run.steps):
            raise UndoRefused(
                "there is nothing more to undo", barrier=run.barrier, steps=len(run.steps), asked=steps
            )
        undone = run.steps[:steps]
        first = undone[-1].seq
        current = game_state(game)
        state = state_after(game, first - 1)
        ActionRecord.objects.filter(pk__in=[r.pk for r in undone]).update(undone_in=game.seq + 1)
        Snapshot.objects.filter(game=game, seq__gte=first).delete()
        game.seq += 1
        move_store(game, Applied(state, [], []), seats, previous=current, actor=mine.number)
        for record in undone:
            record.undone_in = game.seq
    return UndoResult(game, undone)
