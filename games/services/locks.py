"""Reading and locking a game for a write (``select_for_update`` through :mod:`games.store`), with the
services' errors for a missing or unstarted game."""

from __future__ import annotations

from games import engine
from games.models import Game, Seat
from games.services.errors import Conflict, NotFound
from games.store import NotStarted, game_lock
from games.store import game_state as stored_state


def game_state(game: Game) -> engine.GameState:
    """The engine state of a started game (:func:`games.store.game_state`, cached per process).

    Raises:
        Conflict: the game has not started.
    """
    try:
        return stored_state(game)
    except NotStarted as exc:
        raise Conflict("the game has not started") from exc


def lock_with_seats(game_id: int) -> tuple[Game, list[Seat]]:
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


def lock_game(game_id: int) -> Game:
    """Lock the game row (``select_for_update``, inside the caller's transaction) and return it.

    Raises:
        NotFound: no such game.
    """
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist as exc:
        raise NotFound("no such game", game_id=game_id) from exc
