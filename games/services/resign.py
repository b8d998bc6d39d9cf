"""Resigning (issue 30): a player leaves a game in progress for good, from the page (after a confirmation
page) or by a ``resign`` reply (after a confirmation reply, :mod:`games.services.mail_commands`).

The seat is not emptied: a stand-in bot (:data:`games.bots.STAND_IN`, the *normal* bot that keeps Fracture
and Tactical Advance, issue 17) plays it on to the end, through the same absence rules as a player who
missed ``ABSENT_AFTER_MISSES`` turns (:func:`games.bots.stand_ins`), and the ratings place the
player last (:func:`games.services.ratings.finishing_groups`). Unlike an absence, it cannot be taken back:
the player may no longer act in the game (:func:`games.services.play.action_submit`) nor say "I'm back"
(:func:`games.services.play.seat_return`).
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games.bots import stand_ins
from games.models import Game, Seat
from games.services.errors import Conflict, Forbidden, NotFound
from games.services.locks import game_state, lock_with_seats
from games.services.play import bots_run, move_store


def seat_resign(*, game_id: int, user: User, now: datetime | None = None) -> Seat:
    """Resign ``user`` from the game ``game_id``: mark their seat resigned and let the stand-in bot answer at
    once every decision the seat has open now (and whatever follows from it, as after any move), in one
    write under the game's lock.

    Args:
        game_id: the game. user: the player resigning. now: the time of resigning (default: now).

    Returns:
        The seat, resigned (``resigned_at`` set, ``missed_deadlines`` at least ``ABSENT_AFTER_MISSES``).

    Raises:
        NotFound (404: no such game, or a private one without a seat of the user), Forbidden (403: no seat
        here), Conflict (409: the game is not in progress, or the player has already resigned). Nothing is
        written when one is raised.
    """
    now = now or timezone.now()
    with transaction.atomic():
        game, seats = lock_with_seats(game_id)
        mine = next((s for s in seats if s.user_id == user.pk), None)
        if mine is None and game.private:
            raise NotFound("no such game", game_id=game_id)
        if game.status != Game.Status.ACTIVE:
            raise Conflict("this game is not in progress")
        if mine is None:
            raise Forbidden("you have no seat in this game")
        if mine.resigned_at is not None:
            raise Conflict("you have resigned from this game")
        mine.resigned_at = now
        mine.missed_deadlines = max(mine.missed_deadlines, settings.ABSENT_AFTER_MISSES)
        mine.save(update_fields=["resigned_at", "missed_deadlines"])
        state = game_state(game)
        applied = bots_run(game, state, stand_ins(seats), [], game.seq, seats)
        if applied.records:
            move_store(game, applied, seats, previous=state)
        return mine
