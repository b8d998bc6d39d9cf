"""Reads (architecture §3): a game as one viewer may see it, and "My games".

Everything shown to a user comes from ``engine.view_for(state, seat)`` and ``engine.redact_event`` —
never from the raw state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property, partial
from typing import NotRequired, TypedDict

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from accounts.models import User
from games import engine
from games.actions_ui import DEADLINE_CLOSERS
from games.components import place_labels, place_name
from games.log import describe
from games.models import (
    RATING_POOLS,
    ActionRecord,
    ChatMessage,
    Game,
    Prompt,
    Rating,
    RatingChange,
    Seat,
)
from games.services.undo import Takeback, takeback_for
from games.store import game_load, game_state, state_after

LOG_LENGTH = 40

#: The sources of a record that the seat's player made themselves (not made for them while away).
OWN_SOURCES = frozenset({ActionRecord.Source.WEB, ActionRecord.Source.EMAIL, ActionRecord.Source.API})


#: Who looks at a game: a user, ``AnonymousUser`` (``request.user`` of a visitor) or ``None`` (nobody
#: logged in, as some callers say it).
Viewer = AbstractBaseUser | AnonymousUser | None


class LogEntry(TypedDict):
    """One record of a game's log as one viewer may see it (:attr:`GameView.log`): its ``seq``, when it was
    made (``at``), the acting ``seat`` (:func:`seat_shown`: ``None`` for a system action or another seat's
    sealed window answer), its ``events`` redacted for the viewer, its ``lines`` (the events in words) and
    whether it is ``mine`` (the viewer's own move, made by them: :data:`OWN_SOURCES`)."""

    seq: int
    at: datetime
    seat: int | None
    events: list[engine.Event]
    lines: list[str]
    mine: bool


@dataclass
class GameView:
    """Everything a page or API response about one game may show to one viewer.

    ``view`` is the engine's per-viewer view (``None`` before the start); ``seat`` the viewer's seat
    number or ``None`` (spectator); ``legal`` the viewer's legal engine actions (typed, issue 31 §1);
    ``log`` the newest records, newest first, each ``{seq, at, seat, events (redacted for the viewer),
    lines (in words)}``, read by ``log_loader`` on first access (the game page's log panel is usually
    cached HTML, so most page views never read it); ``mine`` marks the viewer's own moves
    (:data:`OWN_SOURCES`).
    """

    game: Game
    seats: list[Seat]
    seat: int | None
    view: engine.View | None
    legal: list[engine.Action] = field(default_factory=list)
    #: the viewer's moves of this decision that are not available, with the engine's reasons
    #: (:func:`games.engine.blocked`, worded by "Why can't I…?")
    blocked: list[engine.IllegalAction] = field(default_factory=list)
    #: the viewer's open prompts to decide, in the engine's JSON form (``engine.Prompt.to_dict``)
    my_prompts: list[dict[str, object]] = field(default_factory=list)
    #: kinds of the viewer's own ``auto`` prompts, which the server answers for it (issue 29: "your only
    #: conflict card is placed for you")
    auto_kinds: list[str] = field(default_factory=list)
    waiting_for: list[str] = field(default_factory=list)
    deadlines: dict[int, datetime] = field(default_factory=dict)
    log_loader: Callable[[], list[LogEntry]] | None = field(default=None, repr=False)
    takeback_loader: Callable[[], Takeback] | None = field(default=None, repr=False)

    @cached_property
    def log(self) -> list[LogEntry]:
        """The log entries (see the class docstring); empty when the view was built without a log."""
        return [] if self.log_loader is None else self.log_loader()

    @cached_property
    def takeback(self) -> Takeback | None:
        """What the viewer could undo now (issue 16), read on first access; ``None`` unless it is the
        viewer's turn in a game in progress."""
        return None if self.takeback_loader is None else self.takeback_loader()

    @property
    def names(self) -> dict[int, str]:
        """Seat number -> public name."""
        return {s.number: s.name for s in self.seats}


def game_get(game_id: int) -> Game | None:
    """The game with its seats and their users (:func:`games.store.game_load`), or ``None``. The large
    ``state`` and ``setup`` columns are deferred: :func:`games.store.game_state` reads the state only on a
    cache miss."""
    return game_load(game_id)


def visible_games(viewer: Viewer, *, via: str = "") -> Q:
    """The one home of who may look at which game (issue 12), as a filter: public games are open to everyone
    (spectators included), a private game only to its seated players, an imported record (issue 5: guest
    seats, an uploader's own title and names) only to whoever imported it.

    Args:
        viewer: a user or ``AnonymousUser``.
        via: the lookup prefix from the filtered model to its game (``"game__"`` for seats), or ``""`` to
            filter games.

    Returns:
        A ``Q`` for ``QuerySet.filter``. :func:`visible_to` is the same rule on a loaded game, plus the
        invite token a private table's link carries.
    """
    visible = Q(**{f"{via}private": False, f"{via}imported": False})
    if getattr(viewer, "is_authenticated", False):
        visible |= Q(**{f"{via}seats__user": viewer})
        visible |= Q(**{f"{via}imported": True, f"{via}created_by": viewer})
    return visible


def visible_to(game: Game, user: Viewer, invite_token: str | None = None) -> bool:
    """Whether ``user`` may look at ``game``: :func:`visible_games` evaluated on a loaded game (its seats are
    prefetched, so no query), or the holder of a private table's invite token."""
    if game.imported:
        return user is not None and user.is_authenticated and game.created_by_id == user.pk
    return not game.private or seat_of(game, user) is not None or invite_token == game.invite_token


def visible_seq(game_id: int, user: Viewer) -> int | None:
    """The ``seq`` of the game if ``user`` may look at it (:func:`visible_to` without an invite token), in
    one query; ``None`` both when there is no such game and when it is private and ``user`` has no seat in
    it, so a caller cannot tell the two apart (issue 12)."""
    return Game.objects.filter(visible_games(user), pk=game_id).values_list("seq", flat=True).first()


def seat_of(game: Game, user: Viewer) -> int | None:
    """The seat number of ``user`` in ``game`` (``None`` for spectators and anonymous users)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for seat in game.seats.all():
        if seat.user_id == user.pk:
            return seat.number
    return None


def game_view(game: Game, user: Viewer, *, with_log: bool = True) -> GameView:
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
        # an auto prompt is the server's to answer, not a decision of the seat: no form, no pass button
        # (issue 14: no empty prompts)
        mine = [p for p in prompts if p.seat == seat]
        nothing_to_decide = bool(mine) and all(p.auto for p in mine)
        result.legal = [] if nothing_to_decide else engine.legal_actions(state, seat)
        result.blocked = [] if nothing_to_decide else engine.blocked(state, seat)
        result.my_prompts = [p.to_dict() for p in mine if not p.auto]
        result.auto_kinds = [p.kind for p in mine if p.auto]
        if state.active == seat and game.status == Game.Status.ACTIVE and not state.winners:
            result.takeback_loader = partial(takeback_for, game, seat)
    result.waiting_for = [names[p["seat"]] for p in view["prompts"] if p["seat"] != seat]
    result.deadlines = {
        p.seat: p.deadline_at for p in Prompt.objects.filter(game=game).only("seat", "deadline_at")
    }
    if with_log:
        places = _places(view)  # read now: the page localizes the view's names later
        result.log_loader = lambda: _log(game, seat, names, places)
    return result


def _places(view: engine.View) -> dict[str, str]:
    """Position id -> the place's name for the log's words, in the active language and as the map names
    it (:func:`games.components.place_labels`: "Forest (north-west)" when two share a name, so the log and
    the forms never disagree); a castle keeps its own name."""
    labels = {pos: label for pos, (label, _short) in place_labels(view, name_of=place_name).items()}
    return {t["id"]: labels.get(t["id"], t["name"]) for t in view["map"] if "name" in t}


def _log(
    game: Game, seat: int | None, names: dict[int, str], places: dict[str, str], upto: int | None = None
) -> list[LogEntry]:
    """The newest :data:`LOG_LENGTH` records (up to ``upto``, default all), redacted for ``seat`` and put in
    words. Cached per game, seq, seat and language: it only changes when the game moves on."""
    upto = game.seq if upto is None else upto
    key = f"log:{game.pk}:{upto}:{seat}:{get_language()}"
    cached: list[LogEntry] | None = cache.get(key)
    if cached is not None:
        return cached
    records = (
        ActionRecord.objects.filter(game=game, seq__lte=upto, undone_in__isnull=True)
        .order_by("-seq")
        .only("seq", "seat", "events", "created_at", "source", "payload")
    )
    log: list[LogEntry] = []
    for record in records[:LOG_LENGTH]:
        events = [engine.redact_event(ev, seat) for ev in record.events]
        lines = [describe(ev, names, places) for ev in events]
        if _timed_out(record) and record.seat is not None:
            lines.insert(0, _timeout_line(names.get(record.seat, "?")))
        log.append(
            {
                "seq": record.seq,
                "at": record.created_at,
                "seat": seat_shown(record.seat, events),
                "events": events,
                "lines": [line for line in lines if line],
                # the viewer's own move, made by them (issue 29: "since your last move"); not a timeout move,
                # a bot standing in, a standing order or the server's pass made for their seat
                "mine": seat is not None and record.seat == seat and record.source in OWN_SOURCES,
            }
        )
    cache.set(key, log, 900)
    return log


def seat_shown(seat: int | None, events: list[engine.Event]) -> int | None:
    """The seat a record is shown with, from its ``events`` as :func:`games.engine.redact_event` gave them
    to the viewer: ``None`` for another seat's answer to a sealed window, which the engine keeps anonymous
    until the close, so the order of the answers tells nobody who held Fracture (issue 14, R37, R95). The
    log and the API's submit answer both use it."""
    anonymous = any(ev["type"] == engine.EventType.WINDOW_ANSWERED and "seat" not in ev for ev in events)
    return None if anonymous else seat


def _timed_out(record: ActionRecord) -> bool:
    """Whether ``record`` is a deadline's timeout move the log may name as one (issue 16). Not for window
    answers: only a Fracture holder can time out in a window (the server passes for the others), so saying
    so would tell who held the card (issue 14)."""
    return (
        record.source == ActionRecord.Source.TIMEOUT
        and record.payload.get("type") != engine.ActionType.RESPOND
    )


def _timeout_line(who: str) -> str:
    return _("Time ran out for %(who)s: the timeout move was made for them.") % {"who": who}


@dataclass
class MyGames:
    """ "My games" lists, in the order the UI shows them (ui.md "Lists that matter first")."""

    waiting_for_me: list[tuple[Game, datetime | None]]
    others_turn: list[Game]
    open_lobbies: list[Game]
    finished: list[Game]
    #: game id -> (names of the players the game waits for, their soonest deadline)
    others_due: dict[int, tuple[list[str], datetime]] = field(default_factory=dict)


#: How "My games" names the seats a response window waits for (issue 14: never by name).
WINDOW_ANSWERS = gettext_lazy("the answers to a Fracture window")


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
            if p.auto_at is not None:
                continue  # nothing for me to decide: the server answers it (issue 14)
            current = due.get(p.game_id)
            due[p.game_id] = p.deadline_at if current is None else min(current, p.deadline_at)
        else:
            who, when = others_due.get(p.game_id, ([], p.deadline_at))
            # who still has to answer a response window is not named: in a sealed window the order of the
            # answers would tell who held Fracture (issue 14)
            response = p.kind == engine.PromptKind.RESPONSE
            name = str(WINDOW_ANSWERS) if response else names[p.game_id].get(p.seat, "?")
            others_due[p.game_id] = ([*who, name] if name not in who else who, min(when, p.deadline_at))
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


def waiting_count(user: User) -> int:
    """How many of ``user``'s games wait for their decision (issue 29, the header's "your turn" counter): the
    games in progress with a prompt of the user's own seat that is theirs to decide (the server answers an
    ``auto_at`` one, issue 14), as :func:`my_games` counts them "Waiting for you", in one query."""
    return (
        Prompt.objects.filter(
            game__status=Game.Status.ACTIVE,
            auto_at__isnull=True,
            game__seats__user=user,
            game__seats__number=F("seat"),
        )
        .values("game_id")
        .distinct()
        .count()
    )


# --------------------------------------------------------------------------------------------------------
# History: replays, records, ratings, profiles, the archive (issue 5)
# --------------------------------------------------------------------------------------------------------


def state_at(game: Game, step: int) -> engine.GameState:
    """The state after the first ``step`` actions of a started game (0 = the setup), rebuilt from the
    nearest snapshot at or before ``step`` and the records after it.

    Raises:
        ValueError: ``step`` outside ``0..game.seq``.
    """
    if not 0 <= step <= game.seq or game.setup is None:
        raise ValueError("no such step")
    key = f"state-at:{game.pk}:{game.state_hash}:{step}"
    cached: engine.GameState | None = cache.get(key)
    if cached is not None:
        return cached
    state = state_after(game, step)
    cache.set(key, state, 900)
    return state


def replay_seqs(game: Game) -> list[int]:
    """The ``seq`` of every action of ``game`` that stands (not undone, issue 16), in order: a replay's
    step ``k`` is the state after ``replay_seqs(game)[k - 1]``."""
    return list(game.actions.filter(undone_in__isnull=True).order_by("seq").values_list("seq", flat=True))


def replay_view(game: Game, user: Viewer, step: int) -> GameView:
    """The :class:`GameView` of a finished game after the action ``seq == step`` (0: the setup), as a
    spectator saw it; a player of the game sees their own hand of that moment (the game is over, so
    nothing of theirs is secret from them any more). Nothing is offered to decide.

    Raises:
        ValueError: the game is not finished, or ``step`` is outside ``0..game.seq``.
    """
    if game.status != Game.Status.FINISHED:
        raise ValueError("only finished games can be replayed")
    seats = list(game.seats.all())
    seat = seat_of(game, user)
    state = state_at(game, step)
    view = engine.view_for(state, seat)
    names = {s.number: s.name for s in seats}
    result = GameView(game=game, seats=seats, seat=seat, view=view)
    result.log = _log(game, seat, names, _places(view), upto=step)
    return result


class RecordAction(TypedDict):
    """One action of a game record (``docs/game-record.md``): the acting ``seat`` (``None``: the active
    seat), the ``action`` payload (JSON), its ``source`` and its move notation ``text`` in the reader's
    language (informative; absent after a record that stops replaying)."""

    seat: int | None
    action: dict[str, object]
    source: str
    text: NotRequired[str]


class RecordChat(TypedDict):
    """One table chat message of a game record: the author's ``seat``, when it was posted (``at``, ISO
    8601), the game's ``seq`` it came ``after`` and its ``text``."""

    seat: int
    at: str
    after: int
    text: str


class GameRecord(TypedDict):
    """A game record (``docs/game-record.md``): its ``format``, the game's ``title``, the ``players``' names
    by seat, the ``winners``' seats, the ``setup``, the ``actions`` in order and, when every player agreed
    (issue 19), the table ``chat``."""

    format: str
    title: str
    players: list[str]
    winners: list[int]
    setup: dict[str, object]
    actions: list[RecordAction]
    chat: NotRequired[list[RecordChat]]


def game_record(game: Game) -> GameRecord:
    """A started game as a game record (``docs/game-record.md``): setup, every action with its seat and
    source and its move notation in the reader's language (``text``, ``docs/notation.md``; informative,
    replay ignores it), plus the players' names and the result."""
    assert game.setup is not None
    actions: list[RecordAction] = [
        {"seat": seat, "action": payload, "source": source}
        for seat, payload, source in game.actions.filter(undone_in__isnull=True)
        .order_by("seq")
        .values_list("seat", "payload", "source")
    ]
    lang = (get_language() or "en")[:2]
    _add_notation(game.setup, actions, lang if lang in engine.NOTATION_LANGS else "en")
    record: GameRecord = {
        "format": engine.RECORD_FORMAT,
        "title": game.title,
        "players": [s.name for s in game.seats.all()],
        "winners": list(game.winners),
        "setup": game.setup,
        "actions": actions,
    }
    people = [s for s in game.seats.all() if s.user_id is not None]
    if people and all(s.chat_in_export for s in people):  # issue 19: only when every player agreed
        record["chat"] = [
            {"seat": seat, "at": at.isoformat(), "after": after, "text": text}
            for seat, at, after, text in ChatMessage.objects.filter(
                game=game, channel=ChatMessage.Channel.TABLE, hidden=False
            )
            .order_by("id")
            .values_list("author_seat", "created_at", "game_seq", "text")
        ]
    return record


def _add_notation(setup: dict[str, object], actions: list[RecordAction], lang: str) -> None:
    """Give each record entry its ``text`` (the move notation of its action in the position it met) by
    replaying the game; a record that stops replaying (never for a stored game) keeps the texts so far."""
    state = engine.new_game(setup)
    for entry in actions:
        try:
            action = engine.parse_action(entry["action"])
            seat = state.active if entry["seat"] is None else int(entry["seat"])
            entry["text"] = engine.to_text(state, action, lang)
            state = engine.apply(state, seat, action).state
        except engine.EngineError:
            return


@dataclass
class LeaderRow:
    """One leaderboard line: place, user, conservative rating, games, wins, provisional."""

    place: int
    user: User
    rating: float
    games: int
    wins: int
    provisional: bool


def leaderboard(pool: str = "all", limit: int = 100) -> list[LeaderRow]:
    """Players by conservative rating (``mu - 3 sigma``) in ``pool``; established players (not
    provisional) first, then provisional ones, each by rating; ties share a place."""
    rows = list(
        Rating.objects.filter(pool=pool, games__gt=0, user__is_active=True)
        .select_related("user")
        .order_by("-conservative", "pk")
    )
    rows.sort(key=lambda r: (r.provisional, -r.conservative))
    out: list[LeaderRow] = []
    for i, r in enumerate(rows[:limit]):
        same = out and out[-1].rating == round(r.conservative, 1) and out[-1].provisional == r.provisional
        place = out[-1].place if same else i + 1
        out.append(LeaderRow(place, r.user, round(r.conservative, 1), r.games, r.wins, r.provisional))
    return out


#: The deadline closers a public profile's reliability counts: every :data:`DEADLINE_CLOSERS` action but a
#: response window's answer. Only a seat holding Fracture is asked to answer a window (the server passes for
#: the others, issue 14), so its answer, its timeout or its bot's answer would tell who held Fracture (R95).
PUBLIC_CLOSERS: tuple[str, ...] = tuple(t for t in DEADLINE_CLOSERS if t != engine.ActionType.RESPOND)


@dataclass
class PlayerProfile:
    """A player's public profile: ratings per pool, rating history (``(date, conservative)``), games
    played and won, current games the viewer may see, and reliability in the games the viewer may see:
    ``decisions`` (deadlines met: a :data:`PUBLIC_CLOSERS` action by the player) against ``missed`` (closed
    by a timeout, or by a bot standing in while the player was absent)."""

    user: User
    ratings: list[Rating]
    history: list[tuple[datetime, float]]
    played: int
    won: int
    current: list[Game]
    finished: list[Game]
    decisions: int
    missed: int

    @property
    def reliability(self) -> float | None:
        """Decisions made in time / all decisions (``None`` before the first one)."""
        total = self.decisions + self.missed
        return None if total == 0 else self.decisions / total


def player_profile(user: User, viewer: Viewer) -> PlayerProfile:
    """Build :class:`PlayerProfile`. Private games appear, and count in the reliability, only to a viewer
    seated in them; guided first games (``Game.tutorial``, issue 15) count in neither the games played and
    won nor the decisions. Response window answers never count (:data:`PUBLIC_CLOSERS`)."""
    ratings = sorted(Rating.objects.filter(user=user), key=lambda r: RATING_POOLS.index(r.pool))
    history = [
        (c.created_at, c.conservative_after)
        for c in RatingChange.objects.filter(user=user, pool="all").order_by("created_at", "pk")
    ]
    seats = Seat.objects.filter(user=user).select_related("game")
    visible = visible_games(viewer, via="game__")
    games = [s.game for s in seats.filter(visible).distinct().order_by("-game__updated_at")[:200]]
    finished_seats = Seat.objects.filter(user=user, game__status=Game.Status.FINISHED, game__tutorial=False)
    mine = Seat.objects.filter(user=user, game_id=OuterRef("game_id"), number=OuterRef("seat"))
    # Only games the viewer may see (like the games listed), and no window answers: see PUBLIC_CLOSERS.
    shown = Game.objects.filter(visible_games(viewer), tutorial=False).values("pk")
    closers = ActionRecord.objects.filter(Exists(mine), game__in=shown, payload__type__in=PUBLIC_CLOSERS)
    counts = closers.aggregate(
        met=Count("pk", filter=Q(source__in=["web", "email", "api", "standing"])),
        # a timeout, or a bot standing in for the absent player
        missed=Count("pk", filter=Q(source__in=["timeout", "bot"])),
    )
    return PlayerProfile(
        user=user,
        ratings=ratings,
        history=history,
        played=finished_seats.count(),
        won=finished_seats.filter(final_rank=1).count(),
        current=[g for g in games if g.status == Game.Status.ACTIVE],
        finished=[g for g in games if g.status == Game.Status.FINISHED][:20],
        decisions=counts["met"] or 0,
        missed=counts["missed"] or 0,
    )


def archive(
    *, viewer: Viewer, players: int | None = None, player: str = "", option: str = "", rated: bool = False
) -> QuerySet[Game]:
    """Finished games, newest first, filtered by player count, part of a player's display name (or an
    imported seat's name; never an email address, issue 12), an optional rule, or rated only; private
    games only for their players."""
    games = Game.objects.filter(status=Game.Status.FINISHED)
    # Imported games show only to whoever imported them (visible_games); guided first games never.
    games = games.filter(visible_games(viewer) & Q(tutorial=False))
    if players:
        games = games.filter(players=players)
    if player:
        games = games.filter(
            Q(seats__user__display_name__icontains=player) | Q(seats__guest_name__icontains=player)
        )
    if option in engine.OPTION_FLAGS:
        games = games.filter(**{f"options__{option}": True})
    elif option == "allegiance":
        games = games.exclude(options__allegiance=None).filter(options__has_key="allegiance")
    if rated:
        games = games.filter(rating_changes__isnull=False)
    return games.distinct().order_by("-finished_at", "-pk").prefetch_related("seats__user")
