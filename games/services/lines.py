"""A player's lines of moves, applied in order (issue 18) and, for a whole turn, kept for later (issue 30):
the body of an emailed reply, of a reply's run of moves between commands, and of the orders page's "rest of
my turn" form.

Each line is a move in the notation (``docs/notation.md``) or a number of the email's list; it goes
through :func:`games.services.play.action_submit` like a move on the page, so the lock, the
``expected_seq`` check and the record are the same whichever door the line came through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

from django.db import transaction

from accounts.models import User
from games import engine
from games.models import ActionRecord, Game
from games.services import pending
from games.services.errors import NUL, BadPayload, Conflict, NotFound, ServiceError
from games.services.locks import game_state, lock_with_seats
from games.services.play import action_submit

#: At most this many lines are read from the orders page's form (as from one reply).
MAX_PAGE_LINES = 30


class LineError(TypedDict):
    """The line of a batch that failed (:attr:`Batch.error`; stored in the answer's ``error``): ``line``
    (its number in the batch, from 1), ``text`` (the line as written), ``message`` (the service's English
    message, or ``"no_such_number"``) and ``params`` (its JSON-safe parameters)."""

    line: int
    text: str
    message: str
    params: dict[str, object]


@dataclass
class Batch:
    """What applying a reply's lines did: ``applied`` (the lines applied, as notation), ``error`` (the
    failing line: ``{"line": n, "text", "message", "params"}``, or ``None``) and ``ignored`` (lines after
    the moves that name no move, read as a signature) and ``pending`` (issue 30: the lines kept as the
    seat's pending orders, as moves in the notation, because no decision of the seat accepted them yet) and
    ``unneeded`` (the lines after a move that ended the game: nothing is left to play them in)."""

    applied: list[str]
    error: LineError | None
    ignored: list[str]
    pending: list[str] = field(default_factory=list)
    unneeded: list[str] = field(default_factory=list)


def lines_apply(
    game_id: int,
    user: User,
    lines: list[str],
    moves: list[str],
    *,
    source: str,
    mail_id: int | None = None,
) -> Batch:
    """Apply ``lines`` in order for ``user``'s seat, each through :func:`action_submit` with ``source``
    (``email`` for a reply, ``web`` for the orders page) in its own savepoint. A number ``n`` means the
    ``n``-th of the email's numbered ``moves``. The first line that fails stops the batch; once a move has
    been applied, lines that name no move at all end the batch quietly as a signature.

    Returns:
        The :class:`Batch` (what was applied, kept, ignored, and the failing line).

    Issue 30, whole turns: during the seat's own turn, the first line that no open decision of the seat
    accepts yet (``end`` while the battle an advance opened asks for conflict cards first) and every move
    line after it are kept as the seat's pending orders (:func:`games.services.pending.queue`, under the game
    lock, replacing the orders it held), played as soon as a decision accepts them
    (:func:`games.services.play.bots_run`, with the same ``source``). ``mail_id``: the stored mail the lines
    come from (``None`` for the page).
    """
    applied: list[str] = []
    for n, line in enumerate(lines, start=1):
        text, error = _line_text(n, line, moves)
        if error is not None:
            return Batch(applied, error, [])
        if applied and not line.rstrip(".").isdigit() and not engine.names_a_move(line):
            return Batch(applied, None, lines[n - 1 :])
        game, seats = lock_with_seats(game_id)
        if applied and game.status != Game.Status.ACTIVE:  # a line won the game: the rest is not needed
            return Batch(applied, None, [], [], lines[n - 1 :])
        state = game_state(game)
        seat = next((s.number for s in seats if s.user_id == user.pk), None)
        try:
            if seat is None:
                raise engine.NotationError("you have no seat in this game", "a seat")
            if (
                game.status == Game.Status.ACTIVE
                and pending.can_queue(state, seat)
                and pending.reading(state, seat, text, user.language) is None
            ):
                return _queue(game, seat, user, n, lines, moves, state, applied, (source, mail_id))
            action = engine.parse_text(state, seat, text, user.language)
            action_submit(
                game_id=game_id,
                user=user,
                action=action,
                expected_seq=game.seq,
                source=source,
            )
        except engine.NotationError as exc:
            return Batch(applied, _error(n, line, exc.message, {"legal": list(exc.legal)}), [])
        except ServiceError as exc:
            return Batch(applied, _error(n, line, exc.message, _json_params(exc.params)), [])
        applied.append(text)
    return Batch(applied, None, [])


def _line_text(n: int, line: str, moves: list[str]) -> tuple[str, LineError | None]:
    """Line ``n`` as a move in the notation (a number read as the email's ``moves[n-1]``), or the error of a
    number the list does not have."""
    if not line.rstrip(".").isdigit():
        return line, None
    k = int(line.rstrip("."))
    if not 1 <= k <= len(moves):
        return line, _error(n, line, "no_such_number", {"count": len(moves)})
    return moves[k - 1], None


def _queue(
    game: Game,
    seat: int,
    user: User,
    n: int,
    lines: list[str],
    moves: list[str],
    state: engine.GameState,
    applied: list[str],
    origin: tuple[str, int | None],
) -> Batch:
    """Keep line ``n`` and the move lines after it (up to a signature) as ``seat``'s pending orders
    (``origin``: the door they came through and the mail they came in)."""
    texts: list[str] = []
    for m, line in enumerate(lines[n - 1 :], start=n):
        if not line.rstrip(".").isdigit() and not engine.names_a_move(line):
            ignored = lines[m - 1 :]
            break
        text, error = _line_text(m, line, moves)
        if error is not None:
            return Batch(applied, error, [])
        texts.append(text)
    else:
        ignored = []
    pending.queue(game, seat, user, texts, state, *origin)
    return Batch(applied, None, ignored, texts)


def _error(n: int, line: str, message: str, params: dict[str, object]) -> LineError:
    return {"line": n, "text": line, "message": message, "params": params}


def _json_params(params: Mapping[str, object]) -> dict[str, object]:
    """The JSON-safe part of a service error's parameters (stored in the result notification)."""
    return {k: v for k, v in params.items() if isinstance(v, str | int | float | bool | list | type(None))}


def pending_write(*, user: User, game_id: int, text: str) -> Batch:
    """The orders page's "rest of my turn" (issue 30): ``text``, one move per line in the notation in the
    player's language, is applied as a reply's lines would be (:func:`lines_apply`, source ``web``): what the
    seat's decisions accept now is played, the rest is kept as the seat's pending orders (replacing those
    it held) and played as soon as a decision accepts it.

    Returns:
        The :class:`Batch`; its ``error`` is the failing line (nothing after it was applied or kept).

    Raises:
        NotFound: no such game, or none where ``user`` has a seat (one answer, issue 12).
        Conflict: the game is over, it is not ``user``'s turn, or ``text`` holds no line.
        BadPayload: ``text`` holds a NUL character.
    """
    if NUL in text:
        raise BadPayload("orders cannot contain NUL characters")
    lines = [line.strip() for line in text.splitlines() if line.strip()][:MAX_PAGE_LINES]
    with transaction.atomic():
        game, seats = lock_with_seats(game_id)
        seat = next((s.number for s in seats if s.user_id == user.pk), None)
        if seat is None:
            raise NotFound("no such game", game_id=game_id)
        if game.status != Game.Status.ACTIVE:
            raise Conflict("this game is not in progress")
        if game_state(game).active != seat:
            raise Conflict("orders for later are written during your own turn")
        if not lines:
            raise Conflict("write at least one move, one per line")
        return lines_apply(game_id, user, lines, [], source=ActionRecord.Source.WEB)
