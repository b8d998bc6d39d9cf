"""A game with its seats and their users in one pre-built statement (:mod:`mastery.rowsql`), for the two
hottest reads: the game page (:func:`games.selectors.game_get`) and the row lock every write takes
(``games.services._lock_with_seats``)."""

from __future__ import annotations

from typing import Any

from django.db import connections

from accounts.models import users_table
from games.models import Game, Seat
from mastery.rowsql import Table

#: Every column of the game (a write needs the state when its parsed copy is not cached).
GAMES = Table(Game)
#: The game without its two large JSON columns, loaded on access as with ``QuerySet.defer``.
GAMES_LIGHT = Table(Game, defer=("state", "setup"))
SEATS = Table(Seat)
USERS = users_table()

_SQL: dict[tuple[bool, bool], str] = {}


def game_with_seats(game_id: int, *, lock: bool) -> tuple[Game, list[Seat]] | None:
    """Read a game and its seats (ordered by number, each with ``game`` and ``user`` loaded) in one
    statement; ``game.seats.all()`` then needs no query (the prefetch cache is filled).

    Args:
        lock: lock the game row (``SELECT … FOR UPDATE OF`` the game; inside a transaction) and read every
            column; otherwise ``state`` and ``setup`` are deferred.

    Returns:
        ``(game, seats)``, or ``None`` when there is no such game.
    """
    games = GAMES if lock else GAMES_LIGHT
    db = connections[games.using]
    for_update = lock and bool(db.features.has_select_for_update_of)
    sql = _SQL.get((lock, for_update))
    if sql is None:
        sql = (
            f"SELECT {games.columns('g')}, {SEATS.columns('s')}, {USERS.columns('u')} "
            f"FROM {games.name} g LEFT JOIN {SEATS.name} s ON s.game_id = g.id "
            f"LEFT JOIN {USERS.name} u ON u.id = s.user_id "
            "WHERE g.id = %s ORDER BY s.number"
        )
        if for_update:
            sql += " FOR UPDATE OF g"
        _SQL[(lock, for_update)] = sql
    rows = games.fetch(sql, [game_id])
    if not rows:
        return None
    game = games.load(rows[0], connection=db)
    seats: list[Seat] = []
    seat_at, user_at = games.width, games.width + SEATS.width
    for row in rows:
        if row[seat_at] is None:
            break  # a game without seats (LEFT JOIN)
        seat = SEATS.load(row, seat_at, db)
        seat.game = game
        seat.user = USERS.load(row, user_at, db) if row[user_at] is not None else None
        seats.append(seat)
    _prefetched(game, "seats", seats)
    return game, seats


def _prefetched(obj: Any, name: str, rows: list[Any]) -> None:
    """Fill the prefetch cache of ``obj.<name>`` as ``prefetch_related`` does (``prefetch_one_level`` in
    django/db/models/query.py), so ``obj.<name>.all()`` returns ``rows`` without a query."""
    queryset = getattr(obj, name).all()
    queryset._result_cache = rows
    queryset._prefetch_done = True
    obj.__dict__.setdefault("_prefetched_objects_cache", {})[name] = queryset
