"""The state store (architecture §3 ``games/store.py``): the only code that turns a game's rows into an
engine state and back. Reads and locks a game with its seats, keeps parsed states in a per-process cache,
writes the state, records and snapshots of a move, and replays stored records.

It uses the ORM's public API only (``select_for_update``, ``prefetch_related``, ``bulk_create``,
``save(update_fields=…)``); psycopg's server-side prepared statements (``DB_PREPARE_THRESHOLD``) make the
repeated statements cheap. Nothing here knows about HTTP statuses or users: callers (the services) turn a
missing game into their own errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from django.db.models import Prefetch

from games import engine
from games.models import ActionRecord, Game, Seat, Snapshot

#: Parsed states by game id, with the ``state_hash`` they were parsed for. The engine never mutates a
#: state, so one parsed state can be shared by every request of a process.
_STATE_CACHE: dict[int, tuple[str, engine.GameState]] = {}

#: Most games whose parsed state a process keeps (the cache is emptied when it would grow past this).
STATE_CACHE_SIZE = 2000


class NotStarted(Exception):
    """The game has no engine state yet (still a lobby)."""


def _seats() -> Prefetch[str]:
    return Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("number"))


def game_load(game_id: int) -> Game | None:
    """A game with its seats (ordered by number) and their users prefetched, or ``None``.

    The two large JSON columns (``state`` and ``setup``) are deferred: :func:`game_state` reads the state
    only when its parsed copy is not cached. Two queries.
    """
    return Game.objects.defer("state", "setup").prefetch_related(_seats()).filter(pk=game_id).first()


def game_lock(game_id: int) -> tuple[Game, list[Seat]] | None:
    """Lock the game row (``SELECT … FOR UPDATE OF`` the game only, inside the caller's transaction) and read
    it with every column, its seats (ordered by number) and their users in one query; ``None`` when there
    is no such game. Every game has a seat from its creation (the creator's), so the seats carry the game.

    Returns:
        ``(game, seats)``; each seat's ``game`` is the returned game.
    """
    # Sorted here rather than by ``ORDER BY``: compiling the ordering costs the ORM more CPU than sorting
    # at most six seats (docs/performance.md, issue 13).
    seats = sorted(
        Seat.objects.select_related("game", "user")
        .select_for_update(of=("game",))
        .filter(game_id=game_id)
        .order_by(),
        key=attrgetter("number"),
    )
    if not seats:
        return None
    game = seats[0].game
    for seat in seats:
        seat.game = game
    return game, seats


def game_state(game: Game) -> engine.GameState:
    """The engine state of a started game, parsed once per ``state_hash`` and process.

    Raises:
        NotStarted: the game has no state yet.
    """
    if not game.state_hash:
        raise NotStarted(game.pk)
    cached = _STATE_CACHE.get(game.pk)
    if cached is not None and cached[0] == game.state_hash:
        return cached[1]
    state = engine.from_dict(game.state)  # one extra query when ``state`` was deferred
    remember(game, state)
    return state


def remember(game: Game, state: engine.GameState) -> None:
    """Cache ``state`` as the parsed form of ``game`` at its current ``state_hash``."""
    if len(_STATE_CACHE) >= STATE_CACHE_SIZE:
        _STATE_CACHE.clear()
    _STATE_CACHE[game.pk] = (game.state_hash, state)


def move_save(
    game: Game,
    state: engine.GameState,
    records: Sequence[ActionRecord],
    snapshots: Sequence[tuple[int, engine.GameState]],
    fields: Sequence[str],
) -> None:
    """Store a move: its records, snapshots and the game row's ``fields`` (``state``, ``seq`` and
    ``state_hash`` are set here from ``state`` and ``records``), inside the caller's transaction.

    Args:
        records: the new records, in ``seq`` order (their ``state_hash`` is the state after each).
        snapshots: ``(seq, state)`` pairs to keep as snapshots (every ``SNAPSHOT_EVERY`` actions).
        fields: the game columns to write (besides those named above, whatever the caller changed).
    """
    if records:
        ActionRecord.objects.bulk_create(records)
        game.seq = records[-1].seq
    game.state = engine.to_dict(state)
    # The last record already carries the hash of the final state: serialise the state once less.
    game.state_hash = records[-1].state_hash if records else engine.state_hash(state)
    if snapshots:
        Snapshot.objects.bulk_create(
            Snapshot(game=game, seq=seq, state=engine.to_dict(s), state_hash=engine.state_hash(s))
            for seq, s in snapshots
        )
    game.save(update_fields=list(fields))
    remember(game, state)


def record_apply(state: engine.GameState, record: ActionRecord) -> engine.GameState:
    """The state after a stored record (a system record without a seat acts for the active seat).

    Raises:
        engine.IllegalAction, engine.InvalidActionPayload: the record no longer applies.
    """
    seat = record.seat if record.seat is not None else state.active
    return engine.apply(state, seat, engine.parse_action(record.payload)).state


def state_after(game: Game, seq: int) -> engine.GameState:
    """The state after the counted records up to ``seq`` (0 = the setup): the nearest snapshot at or
    before ``seq``, then the records after it that were not taken back (``undone_in`` unset, issue 16).
    Snapshots of undone records are deleted with the undo, so every snapshot left counts.

    Raises:
        engine.IllegalAction, engine.InvalidActionPayload: a stored record no longer applies.
    """
    assert game.setup is not None
    snap = Snapshot.objects.filter(game=game, seq__lte=seq).order_by("-seq").first()
    if snap is not None:
        state, start = engine.from_dict(snap.state), snap.seq
    else:
        state, start = engine.new_game(game.setup), 0
    records = ActionRecord.objects.filter(game=game, seq__gt=start, seq__lte=seq, undone_in__isnull=True)
    for record in records.order_by("seq").only("seat", "payload"):
        state = record_apply(state, record)
    return state
