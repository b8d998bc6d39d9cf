"""Reads of the tournaments (issue 34): an event's results and standings, its rounds with their tables,
the events list and a player's events. Nothing here writes.

Standings are worked out on every read from the games themselves (``Seat.final_rank`` and
``Seat.final_vp``, stored when a game ends), so they are up to date the moment a game ends: points per
table place (the event's ``points_by_rank``) plus bye points; ties broken by the Buchholz-like sum of the
opponents' points, then VP, then head to head (:func:`tournaments.seating.standings_order`).

In an Allegiance event (R105–R111) the unit is the team, keyed by its id as text. A finished Allegiance
game gives the winning team's members first place together (R109, ``games.services.play``) and every
other seat its own place by VP (equal VP share one); a team's place at its table is worked out from its
members' places: the team whose best member placed better is ahead, and teams whose best members share a
place share the team place (:func:`team_places`). The team scores the points of that team place, its VP
are its members' VP added up, and its opponents are the other teams at the table (a bot team counts
nothing).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from accounts.models import User
from games import engine
from games.engine.rules.core import teammates
from games.models import Game, Seat
from tournaments import seating
from tournaments.models import Entry, Event, Round, RoundBye, Table, TableSeat, Team

#: Players per team for each value of the Allegiance option (R105); an event without it seats players.
ALLEGIANCE_TEAM_SIZE: dict[str, int] = {"pairs": 2, "triples": 3}


def team_size(event: Event) -> int:
    """How many players make one of ``event``'s units: 2 or 3 in an Allegiance event (R105), else 1."""
    return ALLEGIANCE_TEAM_SIZE.get(str(event.options.get("allegiance")), 1)


def units_per_table(event: Event) -> int:
    """How many units (players, or teams in an Allegiance event) sit at one of ``event``'s tables."""
    return event.table_size // team_size(event)


@lru_cache(maxsize=8)
def _engine_teams(players: int, allegiance: str) -> tuple[tuple[int, ...], ...]:
    state = engine.new_game({"players": players, "seed": 0, "options": {"allegiance": allegiance}})
    groups: list[tuple[int, ...]] = []
    for seat in range(players):
        group = tuple(sorted([seat, *teammates(state, seat)]))
        if group not in groups:
            groups.append(group)
    return tuple(groups)


def engine_teams(players: int, allegiance: str) -> list[list[int]]:
    """The seats the engine makes teammates at a table of ``players`` under ``allegiance`` (``"pairs"`` or
    ``"triples"``), as the engine's own :func:`games.engine.rules.core.teammates` gives them (R106, R107):
    a list of teams, each its seats in order, the teams by their lowest seat. Read once per table shape.

    Raises:
        games.engine.ContentError: a shape the rules do not allow (R105).
    """
    return [list(group) for group in _engine_teams(players, allegiance)]


def team_places(best: Sequence[int]) -> list[int]:
    """Each team's place at its table from its best member's place (``best[i]``, lower is better): one
    more than the number of teams whose best member placed better, so teams level on it share a place.
    ``[1, 3]`` -> ``[1, 2]``; ``[3, 1, 4]`` -> ``[2, 1, 3]``; ``[2, 2]`` -> ``[1, 1]``."""
    return [1 + sum(1 for other in best if other < mine) for mine in best]


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
    """Work out ``event``'s results from its finished games and byes (see :class:`EventResults`); in an
    Allegiance event, per team (:func:`team_results`)."""
    if team_size(event) > 1:
        return team_results(event)
    players = [str(u) for u in Entry.objects.filter(event=event).values_list("user_id", flat=True)]
    results = EventResults(players=players)
    tables = list(Table.objects.filter(round__event=event).select_related("game", "round"))
    by_table: dict[int, list[str]] = defaultdict(list)
    for table_id, user_id in TableSeat.objects.filter(round__event=event, entry__isnull=False).values_list(
        "table_id", "entry__user_id"
    ):
        by_table[table_id].append(str(user_id))
    results.met = seating.meetings(by_table.values())
    finished = {t.game_id: t for t in tables if t.game.status == Game.Status.FINISHED}
    ranks: dict[int, list[tuple[str | None, int, int]]] = defaultdict(list)
    seats = Seat.objects.filter(game_id__in=finished, user__isnull=False, is_bot=False)
    for game_id, user_id, rank, final_vp in seats.values_list("game_id", "user_id", "final_rank", "final_vp"):
        ranks[game_id].append((str(user_id), rank if rank is not None else 99, final_vp or 0))
    bye_rows = RoundBye.objects.filter(round__event=event).values_list(
        "entry__user_id", "points", "round__number"
    )
    _sum_up(event, results, ranks, [(str(user_id), got) for user_id, got, _number in bye_rows])
    _last_round(results, tables, finished, ranks, lambda last: [str(u) for u, _g, n in bye_rows if n == last])
    return results


def _sum_up(
    event: Event,
    results: EventResults,
    ranks: Mapping[int, Sequence[tuple[str | None, int, int]]],
    byes: Sequence[tuple[str, float]],
) -> None:
    """Add up the finished tables and the byes of ``results.players`` (players, or teams) and store the
    totals in ``results`` with the tie-breaks (Buchholz-like sum of opponents' points, then VP, then head to
    head) and the order they give (:func:`seating.standings_order`). ``ranks``: per finished game, each
    unit's ``(id or None for a bot, place, VP)``, scored by the place (:func:`_place`), the others at the
    table its opponents, those it placed above its head-to-head wins; ``byes``: ``(id, points)`` per bye."""
    points = {u: 0.0 for u in results.players}
    vp = {u: 0.0 for u in results.players}
    played = {u: 0 for u in results.players}
    opponents: dict[str, list[str]] = defaultdict(list)
    h2h: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for rows in ranks.values():
        for unit, place, got in rows:
            if unit is None or unit not in points:
                continue
            points[unit] += _place(event, place)
            vp[unit] += got
            played[unit] += 1
            for other, other_place, _vp in rows:
                if other is not None and other != unit:
                    opponents[unit].append(other)
                    if place < other_place:
                        h2h[unit][other] += 1
    for unit, bye in byes:
        points[unit] = points.get(unit, 0.0) + bye
        results.byes[unit] = results.byes.get(unit, 0) + 1
    results.points, results.vp, results.played = points, vp, played
    results.head_to_head = {p: dict(row) for p, row in h2h.items()}
    results.buchholz = seating.buchholz_scores(points, opponents)
    results.order = seating.standings_order(points, results.buchholz, vp, results.head_to_head)


def _last_round(
    results: EventResults,
    tables: list[Table],
    finished: Mapping[int, object],
    ranks: Mapping[int, Sequence[tuple[str | None, int, int]]],
    byes: Callable[[int], list[str]],
) -> None:
    """When every table of the latest round has finished: its tables' finishing orders (by rank, then VP)
    and its byes (``byes(round number)``) in ``results``, which elimination reads."""
    last = max((t.round.number for t in tables), default=None)
    if last is None:
        return
    latest = sorted((t for t in tables if t.round.number == last), key=lambda t: t.number)
    if all(t.game_id in finished for t in latest):
        results.last_round = [
            [p for p, _r, _v in sorted(ranks.get(t.game_id, []), key=lambda row: (row[1], -row[2])) if p]
            for t in latest
        ]
        results.last_byes = byes(last)


def team_results(event: Event) -> EventResults:
    """Work out an Allegiance event's results per team (keys: team ids as text) from its finished games
    and byes: each team's place at its table by :func:`team_places` (from the seats' stored places), the
    points of that place, the members' VP added up, the other teams at the table as opponents and for
    head to head; a bye once per team and round. ``last_round`` has, per table, the teams in team-place
    order (VP breaking a shared place); a bot team is left out everywhere."""
    units = [str(pk) for pk in Team.objects.filter(event=event).order_by("pk").values_list("pk", flat=True)]
    results = EventResults(players=units)
    tables = list(Table.objects.filter(round__event=event).select_related("game", "round"))
    team_at: dict[int, dict[int, str]] = defaultdict(dict)  # game id -> engine seat -> team id
    for game_id, number, team_id in TableSeat.objects.filter(
        round__event=event, team__isnull=False
    ).values_list("table__game_id", "seat", "team_id"):
        team_at[game_id][number] = str(team_id)
    results.met = seating.meetings(sorted(set(t.values())) for t in team_at.values())
    finished = {t.game_id: t for t in tables if t.game.status == Game.Status.FINISHED}
    groups = engine_teams(event.table_size, str(event.options.get("allegiance")))
    placed: dict[int, dict[int, tuple[int, int]]] = defaultdict(dict)  # game -> seat -> (rank, vp)
    for game_id, number, rank, got in Seat.objects.filter(game_id__in=finished).values_list(
        "game_id", "number", "final_rank", "final_vp"
    ):
        placed[game_id][number] = (rank if rank is not None else 99, got or 0)
    ranks: dict[int, list[tuple[str | None, int, int]]] = {}
    for game_id, seats in placed.items():
        best = [min(seats.get(n, (99, 0))[0] for n in group) for group in groups]
        rows = [
            (
                next((team_at[game_id][n] for n in group if n in team_at[game_id]), None),
                place,
                sum(seats.get(n, (99, 0))[1] for n in group),
            )
            for group, place in zip(groups, team_places(best), strict=True)
        ]
        ranks[game_id] = rows
    byes: dict[tuple[str, int], int] = {}
    for team_id, number, got in RoundBye.objects.filter(
        round__event=event, entry__team__isnull=False
    ).values_list("entry__team_id", "round__number", "points"):
        byes[(str(team_id), number)] = got
    _sum_up(event, results, ranks, [(unit, got) for (unit, _number), got in byes.items()])
    _last_round(
        results,
        tables,
        finished,
        ranks,
        lambda last: sorted({u for u, n in byes if n == last}, key=units.index),
    )
    return results


@dataclass(frozen=True)
class StandingRow:
    """One line of the standings: a player's, or in an Allegiance event a team's (``user_id`` empty,
    ``team_id`` and ``members``, the members' names in sign-up order, set; ``withdrawn`` when every
    member is)."""

    place: int
    user_id: int | None
    name: str
    points: float
    buchholz: float
    vp: float
    played: int
    byes: int
    withdrawn: bool
    team_id: int | None = None
    members: tuple[str, ...] = ()


def standings(event: Event, results: EventResults | None = None) -> list[StandingRow]:
    """The standings of ``event``, best first (withdrawn players keep their results and their place); in
    an Allegiance event one row per team."""
    results = results or event_results(event)
    if team_size(event) > 1:
        teams = {str(t.pk): t for t in Team.objects.filter(event=event).prefetch_related("members__user")}
        rows = []
        for i, unit in enumerate(results.order, start=1):
            team = teams[unit]
            members = sorted(team.members.all(), key=lambda e: e.pk)
            rows.append(
                StandingRow(
                    place=i,
                    user_id=None,
                    name=team.name,
                    points=results.points[unit],
                    buchholz=results.buchholz[unit],
                    vp=results.vp[unit],
                    played=results.played[unit],
                    byes=results.byes.get(unit, 0),
                    withdrawn=all(e.withdrawn for e in members),
                    team_id=team.pk,
                    members=tuple(e.user.name for e in members),
                )
            )
        return rows
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
    #: Allegiance events: the teams at the table (:class:`TeamAtTable`), in team-place order once the
    #: game has finished, else in seat order; empty in other events.
    teams: list[TeamAtTable] = field(default_factory=list)


@dataclass(frozen=True)
class TeamAtTable:
    """A team at a table of an Allegiance event: its name (``None`` for a bot team), its seats' names in
    seat order (``None`` for a bot), and its team place once the game has finished."""

    name: str | None
    members: list[str | None]
    place: int | None = None


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
    teams_at = _teams_at(event, tables) if team_size(event) > 1 else {}
    per_round: dict[int, list[TableView]] = defaultdict(list)
    for table in tables:
        per_round[table.round_id].append(
            TableView(
                table.number,
                table.game,
                by_table[table.pk],
                places.get(table.game_id, []),
                teams_at.get(table.pk, []),
            )
        )
    byes: dict[int, list[str]] = defaultdict(list)
    for bye in RoundBye.objects.filter(round__event=event).select_related("entry__user", "entry__team"):
        name = bye.entry.team.name if bye.entry.team is not None else bye.entry.user.name
        if name not in byes[bye.round_id]:
            byes[bye.round_id].append(name)
    return [
        RoundView(
            r,
            per_round[r.pk],
            byes[r.pk],
            all(t.game.status == Game.Status.FINISHED for t in per_round[r.pk]),
        )
        for r in rounds
    ]


def _teams_at(event: Event, tables: list[Table]) -> dict[int, list[TeamAtTable]]:
    """Per table of an Allegiance event: its teams (see :class:`TeamAtTable`)."""
    groups = engine_teams(event.table_size, str(event.options.get("allegiance")))
    seats: dict[int, dict[int, TableSeat]] = defaultdict(dict)
    for seat in TableSeat.objects.filter(round__event=event).select_related("entry__user", "team"):
        seats[seat.table_id][seat.seat] = seat
    finished = [t.game_id for t in tables if t.game.status == Game.Status.FINISHED]
    best: dict[int, dict[int, int]] = defaultdict(dict)
    for game_id, number, rank in Seat.objects.filter(game_id__in=finished).values_list(
        "game_id", "number", "final_rank"
    ):
        best[game_id][number] = rank if rank is not None else 99
    out: dict[int, list[TeamAtTable]] = {}
    for table in tables:
        at = seats[table.pk]
        names = [
            next((_team_name(at[n]) for n in group if n in at and _team_name(at[n])), None)
            for group in groups
        ]
        members = [[_member_name(at[n]) if n in at else None for n in group] for group in groups]
        if table.game_id in best:
            ranks = best[table.game_id]
            places = team_places([min(ranks.get(n, 99) for n in group) for group in groups])
            teams = [TeamAtTable(n, m, p) for n, m, p in zip(names, members, places, strict=True)]
            out[table.pk] = sorted(teams, key=lambda t: t.place or 0)
        else:
            out[table.pk] = [TeamAtTable(n, m) for n, m in zip(names, members, strict=True)]
    return out


def _team_name(seat: TableSeat) -> str | None:
    return seat.team.name if seat.team is not None else None


def _member_name(seat: TableSeat) -> str | None:
    return seat.entry.user.name if seat.entry is not None else None


@dataclass(frozen=True)
class TeamView:
    """A team on the event page: the team, its members (sign-up order; after the start also those the
    organiser withdrew), and how many more players it takes (0 when full)."""

    team: Team
    members: list[Entry]
    room: int


def teams_of(event: Event) -> list[TeamView]:
    """The teams of an Allegiance event in the order they were started (empty for other events)."""
    size = team_size(event)
    if size == 1:
        return []
    teams = Team.objects.filter(event=event).prefetch_related("members__user").order_by("pk")
    views = []
    for team in teams:
        members = sorted(team.members.all(), key=lambda e: e.pk)
        views.append(TeamView(team, members, max(0, size - sum(1 for e in members if not e.withdrawn))))
    return views


def active_teams(event: Event) -> list[str]:
    """The ids (as text) of the teams of ``event`` with at least one member still in, oldest first."""
    live = Entry.objects.filter(team=OuterRef("pk"), withdrawn=False)
    teams = Team.objects.filter(event=event).filter(Exists(live)).order_by("pk")
    return [str(pk) for pk in teams.values_list("pk", flat=True)]


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
    """``user``'s entries, newest event first, for the profile's panel (with their team, in an Allegiance
    event)."""
    if not user.is_authenticated:
        return []
    return list(
        Entry.objects.filter(user=user)
        .select_related("event", "team")
        .order_by("-event__starts_at", "-pk")[:20]
    )


def entry_of(event: Event, user: User) -> Entry | None:
    """``user``'s entry in ``event`` (withdrawn or not), or ``None``."""
    if not user.is_authenticated:
        return None
    return Entry.objects.filter(event=event, user=user).first()


def entries_of(event: Event) -> list[Entry]:
    """The entries of ``event`` in sign-up order."""
    return list(Entry.objects.filter(event=event).select_related("user", "team"))
