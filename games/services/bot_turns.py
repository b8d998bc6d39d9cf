"""Slow bots' turns after the write that asked them (issue 17): a *hard* bot thinks for up to a second a
decision, so it never thinks inside a person's request. :func:`games.services.play.move_store` enqueues the
``bots_play`` task when such a bot must decide; the task thinks with no lock held, then applies the move
through the same path as every bot move (record source ``bot``, :func:`~games.services.play.bots_run` for
the fast bots and server passes that follow, :func:`~games.services.play.move_store`), and goes on while a
slow bot is to move. The same seed (game id and ``seq``) gives the same move as playing it inline would.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from games import engine
from games.bots import bot_action, stand_ins
from games.models import ActionRecord, Game, Prompt, Seat
from games.services.locks import game_state, lock_with_seats
from games.services.play import (
    MAX_BOT_ACTIONS,
    bots_run,
    deferred_bot_prompt,
    move_store,
    record_for,
)
from games.store import game_load

#: A slow bot's decision still open after this long is played by the deadline sweep (its task was lost).
STALLED_AFTER = timedelta(minutes=1)


def bots_play(*, game_id: int, limit: int = MAX_BOT_ACTIONS) -> int:
    """Play every decision of slow bots (:data:`~games.services.play.DEFERRED_LEVELS`) the game waits for,
    one write each, and any other bot's (or stand-in's) open decision left to it (``game_start`` with
    ``bots_after_commit``; the fast bots that follow are played in the same write, as always); returns how
    many such moves were applied (0: none was waiting, so running it twice changes nothing the second
    time). A move thought out for a position that changed meanwhile (a person answered in parallel) is
    thought out again."""
    played = 0
    for _ in range(limit):
        game = game_load(game_id)
        if game is None or game.status != Game.Status.ACTIVE:
            break
        state = game_state(game)
        waiting = deferred_bot_prompt(state, list(game.seats.all()), levels=None)
        if waiting is None:
            break
        prompt, level = waiting
        seq = game.seq
        action = bot_action(state, prompt.seat, game.pk, seq, level)  # the thinking, with no lock held
        with transaction.atomic():
            game, seats = lock_with_seats(game_id)
            if game.seq != seq:
                continue  # the game moved on meanwhile: think again
            t = engine.apply(state, prompt.seat, action)
            records = [record_for(game, seq + 1, prompt.seat, ActionRecord.Source.BOT, action, state, t)]
            applied = bots_run(game, t.state, stand_ins(seats), records, seq + 1, seats)
            move_store(game, applied, seats, previous=state, bots_later=False)
        played += 1
    return played


def bots_waiting(*, now: datetime | None = None) -> list[int]:
    """Ids of games in progress where a bot's decision has been open longer than :data:`STALLED_AFTER`
    (its task was lost: broker down, worker killed). Only a slow bot's (or, in a game started with
    ``bots_after_commit``, any bot's) decision is ever left open for the task. The deadline sweep plays
    them."""
    now = now or timezone.now()
    slow_seat = Seat.objects.filter(game=OuterRef("game"), number=OuterRef("seat"), is_bot=True)
    rows = Prompt.objects.filter(
        Exists(slow_seat),
        game__status=Game.Status.ACTIVE,
        auto_at__isnull=True,
        opened_at__lt=now - STALLED_AFTER,
    )
    return sorted(set(rows.values_list("game_id", flat=True)))
