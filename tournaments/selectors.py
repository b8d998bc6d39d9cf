"""Reads of the tournaments (issue 34): an event's results and standings, its rounds with their tables,
the events list and a player's events. Nothing here writes.

Standings are worked out on every read from the games themselves (``Seat.final_rank`` and
``Seat.final_vp``, stored when a game ends), so they are up to date the moment a game ends: points per
table place (the event's ``points_by_rank``) plus bye points; ties broken by the Buchholz-like sum of the
opponents' points, then VP, then head to head (:func:`tournaments.seating.standings_order`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.db.models import Count, Q, QuerySet

from accounts.models import User
from games.models import Game, Seat
from tournaments import seating
from tournaments.models import Entry, Event, Round, RoundBye, Table, TableSeat


@dataclass
class EventResults:
    """An event's results so far, keyed by player id (a user's id as text).

    ``order``: the standings, best first, every entry (withdrawn ones too). ``met``: pairs who sat at a
    table together, with how many times (:func:`tournaments.seating.meetings`). ``byes``: byes per
    player. ``last_round``: per table of the latest round whose games have all finished, the humans in
    finishing order (for elimination).
    """

    players: list[str]
    points: dict[str, float] = field(default_factory=dict)
    buchholz: dict[str, float] = field(default_factory=dict)
    vp: dict[str, float] = field(default_factory=dict)
    played: dict[str, int] = field(default_factory=dict)
    head_to_head: dict[str, dict[str, float]] = field(default_factory=dict)
    met: Counter[frozenset[str]] = field(default_factory=Counter)
    byes: dict[str, int] = field(default_factory=dict)
    last_round: list[list[str]] = field(default_factory=list)
    last_byes: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)

    def advancing(self, advance_k: int) -> list[str]:
        """Who moves on from the latest elimination round, in seed order (:func:`seating.advancing`)."""
        return seating.advancing(self.last_round, advance_k, self.last_byes)


def _place(event: Event, rank: int | None) -> float:
    return float(event.points_by_rank.get(str(rank), 0)) if rank is not None else 0.0


def event_results(event: Event) -> EventResults:
    """Work out ``event``'s results from its finished games and byes (see :class:`EventResults`)."""
    players = [str(u) for u in Entry.objects.filter(event=event).values_list("user_id", flat=True)]
    results = EventResults(players=players)
    points = {p: 0.0 for p in players}
    vp = {p: 0.0 for p in players}
    played = {p: 0 for p in players}
    opponents: dict[str, list[str]] = defaultdict(list)
    h2h: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    tables = list(Table.objects.filter(round__event=event).select_related("game", "round"))
    by_table: dict[int, list[str]] = defaultdict(list)
    for table_id, user_id in TableSeat.objects.filter(round__event=event, entry__isnull=False).values_list(
        "table_id", "entry__user_id"
    ):
        by_table[table_id].append(str(user_id))
    results.met = seating.meetings(by_table.values())
    finished = {t.game_id: t for t in tables if t.game.status == Game.Status.FINISHED}
    ranks: dict[int, list[tuple[str, int, int]]] = defaultdict(list)
    seats = Seat.objects.filter(game_id__in=finished, user__isnull=False, is_bot=False)
    for game_id, user_id, rank, final_vp in seats.values_list("game_id", "user_id", "final_rank", "final_vp"):
        ranks[game_id].append((str(user_id), rank if rank is not None else 99, final_vp or 0))
    for rows in ranks.values():
        for p, rank, got in rows:
            if p not in points:
                continue
            points[p] += _place(event, rank)
            vp[p] += got
            played[p] += 1
            for q, other, _vp in rows:
                if q != p:
                    opponents[p].append(q)
                    if rank < other:
                        h2h[p][q] += 1
    bye_rows = RoundBye.objects.filter(round__event=event).values_list(
        "entry__user_id", "points", "round__number"
    )
    for user_id, got, _number in bye_rows:
        p = str(user_id)
        points[p] = points.get(p, 0.0) + got
        results.byes[p] = results.byes.get(p, 0) + 1
    results.points, results.vp, results.played = points, vp, played
    results.head_to_head = {p: dict(row) for p, row in h2h.items()}
    results.buchholz = seating.buchholz_scores(points, opponents)
    results.order = seating.standings_order(points, results.buchholz, vp, results.head_to_head)
    last = max((t.round.number for t in tables), default=None)
    if last is not None:
        latest = sorted((t for t in tables if t.round.number == last), key=lambda t: t.number)
        if all(t.game_id in finished for t in latest):
            results.last_round = [
                [p for p, _r, _v in sorted(ranks[t.game_id], key=lambda row: (row[1], -row[2]))]
                for t in latest
            ]
            results.last_byes = [str(u) for u, _g, n in bye_rows if n == last]
    return results


@dataclass(frozen=True)
class StandingRow:
    """One line of the standings."""

    place: int
    user_id: int
    name: str
    points: float
    buchholz: float
    vp: float
    played: int
    byes: int
    withdrawn: bool


def standings(event: Event, results: EventResults | None = None) -> list[StandingRow]:
    """The standings of ``event``, best first (withdrawn players keep their results and their place)."""
    results = results or event_results(event)
    entries = {str(e.user_id): e for e in Entry.objects.filter(event=event).select_related("user")}
    return [
        StandingRow(
            place=i,
            user_id=entries[p].user_id,
            name=entries[p].user.name,
            points=results.points[p],
            buchholz=results.buchholz[p],
            vp=results.vp[p],
            played=results.played[p],
            byes=results.byes.get(p, 0),
            withdrawn=entries[p].withdrawn,
        )
        for i, p in enumerate(results.order, start=1)
    ]


@dataclass(frozen=True)
class TableView:
    """A table on the event page: its number, game and who sits there (names in seat order, ``None`` for a
    bot seat). ``places``: once the game has finished, its result, ``(place, name)`` in finishing order
    (``None`` for a bot), so the round's result shows on the event page and not only in the standings;
    empty while it runs."""

    number: int
    game: Game
    players: list[str | None]
    places: list[tuple[int, str | None]] = field(default_factory=list)


@dataclass(frozen=True)
class RoundView:
    """A round on the event page."""

    round: Round
    tables: list[TableView]
    byes: list[str]
    finished: bool


def _places(game_ids: list[int]) -> dict[int, list[tuple[int, str | None]]]:
    """Per finished game of ``game_ids``: ``(place, name)`` in finishing order (``None`` for a bot)."""
    places: dict[int, list[tuple[int, str | None]]] = defaultdict(list)
    seats = Seat.objects.filter(game_id__in=game_ids, final_rank__isnull=False).select_related("user")
    for seat in seats.order_by("game_id", "final_rank", "number"):
        name = seat.user.name if seat.user is not None and not seat.is_bot else None
        places[seat.game_id].append((seat.final_rank or 0, name))
    return places


def event_rounds(event: Event) -> list[RoundView]:
    """The rounds of ``event``, latest first, with their tables (and each finished table's places, see
    :class:`TableView`) and byes."""
    rounds = list(event.round_set.order_by("-number"))
    tables = list(Table.objects.filter(round__event=event).select_related("game").order_by("number"))
    seats = TableSeat.objects.filter(round__event=event).select_related("entry__user").order_by("seat")
    by_table: dict[int, list[str | None]] = defaultdict(list)
    for seat in seats:
        by_table[seat.table_id].append(seat.entry.user.name if seat.entry else None)
    places = _places([t.game_id for t in tables if t.game.status == Game.Status.FINISHED])
    per_round: dict[int, list[TableView]] = defaultdict(list)
    for table in tables:
        per_round[table.round_id].append(
            TableView(table.number, table.game, by_table[table.pk], places.get(table.game_id, []))
        )
    byes: dict[int, list[str]] = defaultdict(list)
    for bye in RoundBye.objects.filter(round__event=event).select_related("entry__user"):
        byes[bye.round_id].append(bye.entry.user.name)
    return [
        RoundView(
            r,
            per_round[r.pk],
            byes[r.pk],
            all(t.game.status == Game.Status.FINISHED for t in per_round[r.pk]),
        )
        for r in rounds
    ]


def events_listed() -> dict[str, QuerySet[Event]]:
    """The events list: ``open`` (announced or open for sign-up), ``running`` and ``finished``."""
    base = Event.objects.select_related("organiser").annotate(
        players=Count("entries", filter=Q(entries__withdrawn=False))
    )
    return {
        "open": base.filter(status__in=(Event.Status.DRAFT, Event.Status.OPEN)).order_by("starts_at", "pk"),
        "running": base.filter(status=Event.Status.RUNNING).order_by("-starts_at", "pk"),
        "finished": base.filter(status=Event.Status.FINISHED).order_by("-finished_at", "-pk")[:50],
    }


def events_of(user: User) -> list[Entry]:
    """``user``'s entries, newest event first, for the profile's panel."""
    if not user.is_authenticated:
        return []
    return list(
        Entry.objects.filter(user=user).select_related("event").order_by("-event__starts_at", "-pk")[:20]
    )


def entry_of(event: Event, user: User) -> Entry | None:
    """``user``'s entry in ``event`` (withdrawn or not), or ``None``."""
    if not user.is_authenticated:
        return None
    return Entry.objects.filter(event=event, user=user).first()


def entries_of(event: Event) -> list[Entry]:
    """The entries of ``event`` in sign-up order."""
    return list(Entry.objects.filter(event=event).select_related("user"))
