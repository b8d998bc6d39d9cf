"""Reads (architecture §3): a game as one viewer may see it, and "My games".

Everything shown to a user comes from ``engine.view_for(state, seat)`` and ``engine.redact_event`` —
never from the raw state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Prefetch, QuerySet
from django.utils.translation import get_language

from accounts.models import User
from games import engine
from games.log import describe
from games.models import ActionRecord, Game, Prompt, Seat
from games.services import game_state

LOG_LENGTH = 40


@dataclass
class GameView:
    """Everything a page or API response about one game may show to one viewer.

    ``view`` is the engine's per-viewer view (``None`` before the start); ``seat`` the viewer's seat
    number or ``None`` (spectator); ``legal`` the viewer's legal actions as payloads; ``log`` the newest
    records, newest first, each ``{seq, at, seat, events (redacted for the viewer), lines (in words)}``.
    """

    game: Game
    seats: list[Seat]
    seat: int | None
    view: dict[str, Any] | None
    legal: list[dict[str, Any]] = field(default_factory=list)
    my_prompts: list[dict[str, Any]] = field(default_factory=list)
    waiting_for: list[str] = field(default_factory=list)
    deadlines: dict[int, datetime] = field(default_factory=dict)
    log: list[dict[str, Any]] = field(default_factory=list)

    @property
    def names(self) -> dict[int, str]:
        """Seat number -> public name."""
        return {s.number: s.name for s in self.seats}


def game_get(game_id: int) -> Game | None:
    """The game with its seats and their users (2 queries), or ``None``. The large ``state`` and ``setup``
    columns are deferred: :func:`games.services.game_state` reads the state only on a cache miss."""
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("number"))
    return Game.objects.defer("state", "setup").prefetch_related(seats).filter(pk=game_id).first()


def visible_to(game: Game, user: User | Any, invite_token: str | None = None) -> bool:
    """Whether ``user`` may look at ``game``: public games are open to everyone (spectators included);
    a private game only to its seated players or a holder of its invite token."""
    return not game.private or seat_of(game, user) is not None or invite_token == game.invite_token


def seat_of(game: Game, user: User | Any) -> int | None:
    """The seat number of ``user`` in ``game`` (``None`` for spectators and anonymous users)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for seat in game.seats.all():
        if seat.user_id == user.pk:
            return seat.number
    return None


def game_view(game: Game, user: User | Any, *, with_log: bool = True) -> GameView:
    """Build the viewer's :class:`GameView` (a bounded number of queries whatever the log length)."""
    seats = list(game.seats.all())
    seat = seat_of(game, user)
    if not game.state_hash:  # not started (``state`` itself is deferred: see game_get)
        return GameView(game=game, seats=seats, seat=seat, view=None)
    state = game_state(game)
    names = {s.number: s.name for s in seats}
    view = engine.view_for(state, seat)
    prompts = engine.pending(state)
    result = GameView(game=game, seats=seats, seat=seat, view=view)
    if seat is not None:
        result.legal = [a.to_dict() for a in engine.legal_actions(state, seat)]
        result.my_prompts = [p.to_dict() for p in prompts if p.seat == seat]
    result.waiting_for = [names[p.seat] for p in prompts if p.seat != seat]
    result.deadlines = {
        p.seat: p.deadline_at for p in Prompt.objects.filter(game=game).only("seat", "deadline_at")
    }
    if with_log:
        result.log = _log(game, seat, names, view)
    return result


def _log(game: Game, seat: int | None, names: dict[int, str], view: dict[str, Any]) -> list[dict[str, Any]]:
    """The newest :data:`LOG_LENGTH` records, redacted for ``seat`` and put in words. Cached per game, seq,
    seat and language: it only changes when the game moves on."""
    key = f"log:{game.pk}:{game.seq}:{seat}:{get_language()}"
    cached: list[dict[str, Any]] | None = cache.get(key)
    if cached is not None:
        return cached
    places = {t["id"]: t["name"] for t in view["map"] if "name" in t}
    records = (
        ActionRecord.objects.filter(game=game).order_by("-seq").only("seq", "seat", "events", "created_at")
    )
    log = []
    for record in records[:LOG_LENGTH]:
        events = [engine.redact_event(ev, seat) for ev in record.events]
        lines = [describe(ev, names, places) for ev in events]
        log.append(
            {
                "seq": record.seq,
                "at": record.created_at,
                "seat": record.seat,
                "events": events,
                "lines": [line for line in lines if line],
            }
        )
    cache.set(key, log, 900)
    return log


@dataclass
class MyGames:
    """ "My games" lists, in the order the UI shows them (ui.md "Lists that matter first")."""

    waiting_for_me: list[tuple[Game, datetime | None]]
    others_turn: list[Game]
    open_lobbies: list[Game]
    finished: list[Game]
    #: game id -> (names of the players the game waits for, their soonest deadline)
    others_due: dict[int, tuple[list[str], datetime]] = field(default_factory=dict)


def my_games(user: User) -> MyGames:
    """Games of ``user``: waiting for me (soonest deadline first), others' turn, my open lobbies and the
    public ones I could join, finished."""
    mine: QuerySet[Game] = (
        Game.objects.filter(seats__user=user)
        .prefetch_related("seats__user")
        .distinct()
        .order_by("-updated_at")
    )
    games = list(mine[:200])
    my_seat = {g.pk: next(s.number for s in g.seats.all() if s.user_id == user.pk) for g in games}
    due: dict[int, datetime] = {}
    others_due: dict[int, tuple[list[str], datetime]] = {}
    names = {g.pk: {s.number: s.name for s in g.seats.all()} for g in games}
    for p in Prompt.objects.filter(game__in=[g for g in games if g.status == Game.Status.ACTIVE]):
        if my_seat.get(p.game_id) == p.seat:
            current = due.get(p.game_id)
            due[p.game_id] = p.deadline_at if current is None else min(current, p.deadline_at)
        else:
            who, when = others_due.get(p.game_id, ([], p.deadline_at))
            others_due[p.game_id] = ([*who, names[p.game_id].get(p.seat, "?")], min(when, p.deadline_at))
    waiting = sorted(
        ((g, due.get(g.pk)) for g in games if g.pk in due),
        key=lambda item: item[1] or datetime.max.astimezone(),
    )
    others = [g for g in games if g.status == Game.Status.ACTIVE and g.pk not in due]
    lobbies = [g for g in games if g.status == Game.Status.LOBBY]
    joined = {g.pk for g in lobbies}
    public = (
        Game.objects.filter(status=Game.Status.LOBBY, private=False)
        .exclude(pk__in=joined)
        .prefetch_related("seats__user")
        .order_by("-created_at")[:50]
    )
    lobbies += list(public)
    finished = [g for g in games if g.status == Game.Status.FINISHED]
    return MyGames(waiting, others, lobbies, finished, others_due)
