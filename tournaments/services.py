"""Every write of the tournaments (issue 34), each in one transaction.

- :func:`event_create` announces an event; :func:`entry_signup` / :func:`entry_withdraw` while sign-up is
  open (a player withdraws before the start; the organiser may withdraw a player at any time, later rounds
  skip them). In an Allegiance event (R105–R111) a player signs up by starting a team or joining one that
  has room, and a withdrawal before the start leaves the team (an empty team is deleted).
- :func:`event_open` and :func:`event_start` move an event along by the clock; :func:`round_next` seats
  the next round with :mod:`tournaments.seating` when every table of the previous one has finished, and
  :func:`event_finish` closes the event after its last round. :func:`events_sweep` (Celery beat, every
  minute) calls them; each is idempotent.

A round is created under ``SELECT … FOR UPDATE`` on the event row, in one transaction with all its tables
and games: a worker killed half-way rolls everything back, a second worker waits for the lock and then
finds the round made. The round's games are ordinary games, created, filled (bots at ``normal`` level for
bot seats) and started through :mod:`games.services`, so their players get the ordinary "game started" and
"your turn" emails (and pushes) through the outbox. They start with ``bots_after_commit``: no bot moves in
the round's transaction (the games' ``bots_play`` task plays them once it commits), so the event's lock is
held for the seating only.

In an Allegiance event the seating seats teams (team ids as the seating's players, tables of
``table_size // team size`` teams); at each table a team's members take the seats the engine makes
teammates (R106, R107: :func:`tournaments.selectors.engine_teams`, from the engine's ``teammates``), the
game keeps that seat order (``game_start(seat_order=…)``), and bots at ``normal`` level complete a team
short of members; a bot team (bye policy ``bot``) fills a table short of teams, or a team sits the round
out with the bye points (each member gets the bye row).

The round deadline does not decide a game by hand: a game still running at the deadline goes on under its
own clocks (missed turns, then a stand-in bot), and the next round starts once every table has finished.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import User
from games import engine
from games import services as game_services
from games.models import TIME_CONTROLS, Game, Seat
from games.services import BadPayload, Conflict, Forbidden, NotFound
from mastery.text import NUL
from tournaments import seating
from tournaments.models import Entry, Event, Round, RoundBye, Table, TableSeat, Team
from tournaments.selectors import (
    ALLEGIANCE_TEAM_SIZE,
    active_teams,
    engine_teams,
    event_results,
    team_size,
    units_per_table,
)

#: The optional rules an event may set that are on or off. Allegiance (``options["allegiance"]``:
#: ``"pairs"`` or ``"triples"``, as the engine takes it, R105) is set apart: it seats teams.
EVENT_OPTIONS: tuple[str, ...] = ("castle_siege", "cut_throat", "skirmish", "mayhem")
#: The longest team name.
TEAM_NAME_LENGTH = 40
#: Swiss: the most rounds an event may have.
MAX_ROUNDS = 20
#: The level of a bot that fills an empty seat.
BOT_LEVEL = "normal"
#: A custom time control's bounds, per turn and per response (seconds): those of
#: :func:`games.services.game_create`, checked here so that an event never starts a game it refuses.
CLOCK_SECONDS = (60, 30 * 86_400)


def default_points(table_size: int) -> dict[str, int]:
    """Points per place when the organiser gives none: ``table_size - 1`` for first place down to 0 (in
    an Allegiance event ``table_size`` is the number of teams at a table: 1 and 0 for two teams)."""
    return {str(place): table_size - place for place in range(1, table_size + 1)}


def spec_team_size(spec: EventSpec) -> int:
    """Players per team of the event ``spec`` describes: 2 or 3 with Allegiance (R105), else 1."""
    return ALLEGIANCE_TEAM_SIZE.get(str((spec.options or {}).get("allegiance")), 1)


@dataclass(frozen=True)
class EventSpec:
    """What :func:`event_create` needs: the event's format, rules and dates (see :class:`Event`)."""

    name: str
    format: str
    table_size: int
    starts_at: datetime
    signup_opens: datetime
    signup_closes: datetime
    rounds: int = 3
    advance_k: int = 1
    options: dict[str, Any] | None = None
    time_control: str = "daily"
    #: A custom time control (``time_control="custom"``): seconds per turn and per response.
    turn_seconds: int | None = None
    response_seconds: int | None = None
    rated: bool = False
    bye_policy: str = Event.ByePolicy.BOT
    bye_points: int = 0
    points_by_rank: dict[str, int] | None = None
    round_deadline_days: int = 14


def spec_errors(spec: EventSpec, now: datetime) -> dict[str, str]:
    """What is wrong with ``spec``: field name -> message (empty when it is a valid event)."""
    errors: dict[str, str] = {}
    if not spec.name.strip():
        errors["name"] = "an event needs a name"
    if spec.format not in Event.Format.values:
        errors["format"] = "unknown format"
    if not 2 <= spec.table_size <= 6:
        errors["table_size"] = "tables seat 2 to 6 players"
    if spec.format == Event.Format.SWISS and not 1 <= spec.rounds <= MAX_ROUNDS:
        errors["rounds"] = f"a Swiss event has 1 to {MAX_ROUNDS} rounds"
    allegiance = (spec.options or {}).get("allegiance")
    if allegiance is not None and allegiance not in ALLEGIANCE_TEAM_SIZE:
        errors["allegiance"] = "Allegiance is played in pairs or triples (R105)"
    elif allegiance == "pairs" and spec.table_size not in (4, 6):
        errors["allegiance"] = "teams of two play at tables of 4 or 6 players (R105)"
    elif allegiance == "triples" and spec.table_size != 6:
        errors["allegiance"] = "teams of three play at tables of 6 players (R105)"
    elif allegiance and (spec.options or {}).get("castle_siege"):
        errors["allegiance"] = "Allegiance cannot be combined with Castle Siege (R105)"
    units = max(1, spec.table_size // spec_team_size(spec)) if "allegiance" not in errors else spec.table_size
    if spec.format == Event.Format.ELIMINATION and not 1 <= spec.advance_k < units:
        errors["advance_k"] = "between 1 and one less than the table size advance from each table"
    if spec.time_control == "custom":
        low, high = CLOCK_SECONDS
        seconds = (spec.turn_seconds, spec.response_seconds)
        if not all(isinstance(n, int) and low <= n <= high for n in seconds):
            errors["time_control"] = "a custom time control needs one minute to 30 days per turn and response"
    elif spec.time_control not in TIME_CONTROLS:
        errors["time_control"] = "unknown time control"
    if spec.bye_policy not in Event.ByePolicy.values:
        errors["bye_policy"] = "unknown bye policy"
    if not 0 <= spec.bye_points <= 100:
        errors["bye_points"] = "bye points are 0 to 100"
    if not 1 <= spec.round_deadline_days <= 90:
        errors["round_deadline_days"] = "a round lasts 1 to 90 days"
    if not spec.signup_opens < spec.signup_closes <= spec.starts_at:
        errors["signup_closes"] = "sign-up opens, then closes, no later than the start"
    if spec.starts_at <= now:
        errors["starts_at"] = "the start must be in the future"
    points = spec.points_by_rank
    if points is not None:
        places = [str(p) for p in range(1, max(2, min(units, 6)) + 1)]
        values = [points.get(p) for p in places]
        if set(points) - set(places) or any(not isinstance(v, int) or not 0 <= v <= 100 for v in values):
            errors["points_by_rank"] = "one number from 0 to 100 for each place at the table"
        elif any(a < b for a, b in itertools.pairwise(values) if a is not None and b is not None):
            errors["points_by_rank"] = "a better place never scores fewer points"
    unknown = set(spec.options or {}) - {*EVENT_OPTIONS, "allegiance"}
    if unknown:
        errors["options"] = f"unknown optional rules: {', '.join(sorted(unknown))}"
    elif 2 <= spec.table_size <= 6 and "allegiance" not in errors:
        setup = {"players": spec.table_size, "seed": 0, "options": dict(spec.options or {})}
        try:
            engine.normalize_setup(setup)
        except engine.ContentError as exc:
            errors["options"] = str(exc)
    return errors


def event_create(*, user: User, spec: EventSpec, now: datetime | None = None) -> Event:
    """Announce an event organised by ``user``: open for sign-up at once when ``signup_opens`` has come.

    Raises:
        BadPayload: ``spec`` is not a valid event (the first problem, with its field).
    """
    now = now or timezone.now()
    errors = spec_errors(spec, now)
    if errors:
        field, message = next(iter(errors.items()))
        raise BadPayload(message, field=field)
    with transaction.atomic():
        return Event.objects.create(
            name=spec.name.strip()[:80],
            organiser=user,
            format=spec.format,
            table_size=spec.table_size,
            rounds=spec.rounds if spec.format == Event.Format.SWISS else 0,
            advance_k=spec.advance_k if spec.format == Event.Format.ELIMINATION else 1,
            options={k: (v if k == "allegiance" else bool(v)) for k, v in (spec.options or {}).items() if v},
            time_control=spec.time_control,
            turn_seconds=spec.turn_seconds if spec.time_control == "custom" else None,
            response_seconds=spec.response_seconds if spec.time_control == "custom" else None,
            rated=spec.rated,
            bye_policy=spec.bye_policy,
            bye_points=spec.bye_points,
            points_by_rank=spec.points_by_rank or default_points(spec.table_size // spec_team_size(spec)),
            signup_opens=spec.signup_opens,
            signup_closes=spec.signup_closes,
            starts_at=spec.starts_at,
            round_deadline_days=spec.round_deadline_days,
            status=Event.Status.OPEN if spec.signup_opens <= now else Event.Status.DRAFT,
        )


def _lock(event_id: int) -> Event:
    try:
        return Event.objects.select_for_update().get(pk=event_id)
    except Event.DoesNotExist:
        raise NotFound("no such event") from None


def signup_is_open(event: Event, now: datetime) -> bool:
    """Whether players may sign up for (and withdraw from) ``event`` at ``now``."""
    return (
        event.status in (Event.Status.DRAFT, Event.Status.OPEN)
        and event.signup_opens <= now < event.signup_closes
    )


def entry_signup(
    *,
    event_id: int,
    user: User,
    now: datetime | None = None,
    team_id: int | None = None,
    team_name: str | None = None,
) -> Entry:
    """Sign ``user`` up for the event (again, after a withdrawal) while its sign-up is open.

    In an Allegiance event (R105) the player gives exactly one of ``team_name`` (start a new team of that
    name: 1 to :data:`TEAM_NAME_LENGTH` characters, unique in the event whatever its case) or ``team_id``
    (join a team of this event that has room: fewer members than the team size, 2 for pairs, 3 for
    triples). In other events both must be empty.

    Returns:
        The entry (its ``team`` set in an Allegiance event).

    Raises:
        NotFound (no such event); Conflict (sign-up closed, already signed up, the name is taken, the team
        is full); BadPayload (no team chosen or both, a bad name, a team not of this event, a team in an
        event without teams). Nothing is written when one is raised.
    """
    with transaction.atomic():
        event = _lock(event_id)
        now = now or timezone.now()
        if not signup_is_open(event, now):
            raise Conflict("sign-up for this event is closed")
        entry = Entry.objects.filter(event=event, user=user).first()
        if entry is not None and not entry.withdrawn:
            raise Conflict("you are already signed up")
        team = _team_to_join(event, team_id, team_name)
        if entry is None:
            return Entry.objects.create(event=event, user=user, team=team)
        entry.withdrawn, entry.withdrawn_at, entry.team = False, None, team
        entry.save(update_fields=["withdrawn", "withdrawn_at", "team"])
        return entry


def _team_to_join(event: Event, team_id: int | None, team_name: str | None) -> Team | None:
    """The team a sign-up joins (a new one for ``team_name``), inside the sign-up's transaction; ``None``
    in an event without teams. Raises as :func:`entry_signup` says."""
    size = team_size(event)
    name = (team_name or "").strip()
    if size == 1:
        if team_id is not None or name:
            raise BadPayload("this event has no teams")
        return None
    if (team_id is None) == (not name):
        raise BadPayload("choose a team to join or name a new team")
    if name:
        if len(name) > TEAM_NAME_LENGTH or NUL in name:
            raise BadPayload(f"a team name has 1 to {TEAM_NAME_LENGTH} characters", field="team_name")
        if Team.objects.filter(event=event, name__iexact=name).exists():
            raise Conflict("that team name is taken", field="team_name")
        return Team.objects.create(event=event, name=name)
    assert team_id is not None
    team = Team.objects.filter(event=event, pk=team_id).first()
    if team is None:
        raise BadPayload("there is no such team in this event", field="team")
    if Entry.objects.filter(team=team, withdrawn=False).count() >= size:
        raise Conflict("that team is full", field="team")
    return team


def entry_withdraw(
    *, event_id: int, user: User, player: User | None = None, now: datetime | None = None
) -> Entry:
    """Withdraw ``player`` (default: ``user`` themselves) from the event.

    A player withdraws themselves before the start; the organiser may withdraw anyone until the event is
    over. In an Allegiance event a withdrawal before the start leaves the team, and a team left without
    members is deleted; after the start the entry stays on its team and a bot plays its seat.
    The player resigns from their running game of the event, in the same transaction
    (:func:`games.services.seat_resign`: a stand-in bot plays the seat on to the end, and the ratings
    place them last); later rounds skip the entry. Its results so far stay in the standings, and the
    resigned game counts with the place the stand-in reaches.

    Returns:
        The entry, withdrawn.

    Raises:
        NotFound (no such event or entry), Forbidden (someone else's entry, not the organiser), Conflict
        (the event has started, for a player; over, for the organiser; already withdrawn).
    """
    player = player or user
    with transaction.atomic():
        event = _lock(event_id)
        now = now or timezone.now()
        organiser = event.organiser_id == user.pk
        if player.pk != user.pk and not organiser:
            raise Forbidden("only the organiser can withdraw another player")
        if organiser and player.pk != user.pk:
            if event.status in (Event.Status.FINISHED, Event.Status.CANCELLED):
                raise Conflict("this event is over")
        elif event.status not in (Event.Status.DRAFT, Event.Status.OPEN):
            raise Conflict("this event has started; ask the organiser to withdraw you")
        entry = Entry.objects.filter(event=event, user=player).first()
        if entry is None:
            raise NotFound("no such entry")
        if entry.withdrawn:
            raise Conflict("already withdrawn")
        entry.withdrawn, entry.withdrawn_at = True, now
        team = entry.team
        if event.status in (Event.Status.DRAFT, Event.Status.OPEN) and team is not None:
            entry.team = None  # before the start a withdrawal leaves the team; after it, the team stays
        entry.save(update_fields=["withdrawn", "withdrawn_at", "team"])
        if entry.team is None and team is not None and not Entry.objects.filter(team=team).exists():
            team.delete()
        running = Seat.objects.filter(
            game__event_table__round__event=event,
            game__status=Game.Status.ACTIVE,
            user=player,
            resigned_at__isnull=True,
        )
        for game_id in running.values_list("game_id", flat=True):
            try:
                with transaction.atomic():
                    game_services.seat_resign(game_id=game_id, user=player, now=now)
            except Conflict:  # the game ended meanwhile (or they resigned themselves): nothing to resign
                pass
        return entry


def event_open(*, event_id: int, now: datetime | None = None) -> bool:
    """Open an announced event for sign-up once ``signup_opens`` has come. Returns whether it opened.

    ``now`` (default: the clock, read once the event's row is locked) is the moment it is checked against.
    """
    with transaction.atomic():
        event = _lock(event_id)
        now = now or timezone.now()
        if event.status != Event.Status.DRAFT or event.signup_opens > now:
            return False
        event.status = Event.Status.OPEN
        event.save(update_fields=["status"])
        return True


def event_start(*, event_id: int, now: datetime | None = None) -> Round | None:
    """Start the event at ``starts_at``: fix a round robin's schedule and seat round 1. An event whose
    entries cannot make one table is cancelled. Returns round 1, or ``None`` (not due, already started,
    or cancelled).

    ``now`` (default: the clock, read once the event's row is locked, so the times stored are those of
    the writes even after waiting for the lock) is the start checked against, round 1's ``created_at`` and
    deadline, or the cancelled event's ``finished_at``."""
    with transaction.atomic():
        event = _lock(event_id)
        now = now or timezone.now()
        if event.status not in (Event.Status.DRAFT, Event.Status.OPEN) or event.starts_at > now:
            return None
        players = _active_ids(event)
        try:
            if event.format == Event.Format.ROUND_ROBIN:
                event.schedule = seating.round_robin(players, units_per_table(event))
                event.rounds = len(event.schedule)
            first = _seating(event, 1, players)
        except seating.SeatingError:
            event.status = Event.Status.CANCELLED
            event.finished_at = now
            event.save(update_fields=["status", "finished_at"])
            return None
        event.status = Event.Status.RUNNING
        event.save(update_fields=["status", "schedule", "rounds"])
        return _round_create(event, 1, first, now)


def _active_ids(event: Event) -> list[str]:
    """The units still in ``event``: players' user ids, or in an Allegiance event the ids of the teams
    with a member still in (all as text), in sign-up order."""
    if team_size(event) > 1:
        return active_teams(event)
    return [str(u) for u in event.entries.filter(withdrawn=False).values_list("user_id", flat=True)]


def _seating(event: Event, number: int, active: list[str]) -> seating.Seating:
    """The seating of round ``number`` of ``event`` among the ``active`` units (user ids, or in an
    Allegiance event team ids, as text) at tables of :func:`units_per_table` units."""
    policy = seating.Bye(event.bye_policy)
    size = units_per_table(event)
    if event.format == Event.Format.ROUND_ROBIN:
        keep = set(active)
        planned = event.schedule[number - 1]
        tables = [[p for p in table if p in keep] for table in planned]
        seated = {p for t in tables for p in t}
        byes = [p for p in active if p not in seated]
        humans = [t for t in tables if len(t) >= 2]
        byes += [p for t in tables if len(t) < 2 for p in t]  # a table emptied by withdrawals
        return seating.Seating(humans, byes, [size - len(t) for t in humans], 0)
    results = event_results(event)
    if event.format == Event.Format.SWISS:
        order = [p for p in results.order if p in set(active)]
        try:
            return seating.swiss_round(order, size, results.met, results.byes, bye_policy=policy)
        except seating.SeatingError as exc:
            if exc.code != "too_few_players" or policy is not seating.Bye.BOT:
                raise
            # bots never make a table of one human (3 players at tables of 2): the odd one out has a bye
            return seating.swiss_round(order, size, results.met, results.byes, bye_policy=seating.Bye.BYE)
    # elimination: everyone in round 1 (entry order as seeds), then who advanced from the last round
    players = active if number == 1 else [p for p in results.advancing(event.advance_k) if p in set(active)]
    if len(players) <= size:  # the final table
        if len(players) < 2:
            raise seating.SeatingError("too_few_players", "the event has its winner")
        return seating.Seating([players], [], [size - len(players)], 0)
    return seating.elimination_round(players, size, event.advance_k, bye_policy=policy)


def _is_last(event: Event, number: int, plan: seating.Seating) -> bool:
    if event.format == Event.Format.ELIMINATION:
        return len(plan.tables) == 1 and not plan.byes
    return number >= event.rounds


def _round_create(event: Event, number: int, plan: seating.Seating, now: datetime) -> Round:
    """Store round ``number`` with its tables, games (filled with bots where the seating says) and byes,
    and start the games (inside the caller's transaction, with the event row locked). No bot moves here:
    the games start with ``bots_after_commit``, so their bots are played by the ``bots_play`` task after
    the commit, not while the event's lock is held. In an Allegiance event the plan's units are teams:
    see :func:`_team_seats`."""
    rnd = Round.objects.create(
        event=event, number=number, created_at=now, deadline=now + timedelta(days=event.round_deadline_days)
    )
    teams = team_size(event) > 1
    entries = {str(e.user_id): e for e in event.entries.select_related("user")}
    for index, units in enumerate(plan.tables, start=1):
        if teams:
            seats = _team_seats(event, units)
        else:
            seats = [(entries[p], None) for p in units]
            seats += [(None, None)] * (event.table_size - len(units))
        _table_create(event, rnd, index, seats, fixed=teams)
    if teams:
        bye_entries = list(
            Entry.objects.filter(team_id__in=[int(u) for u in plan.byes], withdrawn=False).order_by("pk")
        )
    else:
        bye_entries = [entries[p] for p in plan.byes]
    RoundBye.objects.bulk_create([RoundBye(round=rnd, entry=e, points=event.bye_points) for e in bye_entries])
    return rnd


#: A table's seats in order: the entry sitting there (``None`` for a bot) and the team it plays for.
_Seats = list[tuple[Entry | None, Team | None]]


def _team_seats(event: Event, units: list[str]) -> _Seats:
    """The seats of one table of an Allegiance event, by engine seat: the ``units`` (team ids, best first)
    take the engine's teams in order (:func:`tournaments.selectors.engine_teams`, from ``teammates``:
    R106, R107), each member (sign-up order, members still in) on the next seat of their team, a bot on
    the seats left over; the engine teams beyond ``units`` are bot teams (team ``None``)."""
    groups = engine_teams(event.table_size, str(event.options["allegiance"]))
    teams = {str(t.pk): t for t in Team.objects.filter(pk__in=[int(u) for u in units])}
    members: dict[int, list[Entry]] = {t.pk: [] for t in teams.values()}
    for entry in Entry.objects.filter(team__in=teams.values(), withdrawn=False).select_related("user"):
        if entry.team_id is not None:
            members[entry.team_id].append(entry)
    seats: _Seats = [(None, None)] * event.table_size
    for group, unit in zip(groups, units, strict=False):
        team = teams[unit]
        people = sorted(members[team.pk], key=lambda e: e.pk)
        for k, engine_seat in enumerate(group):
            seats[engine_seat] = (people[k] if k < len(people) else None, team)
    return seats


def _table_create(event: Event, rnd: Round, index: int, seats: _Seats, *, fixed: bool) -> None:
    """Create, fill and start table ``index`` of ``rnd`` with ``seats`` (see :data:`_Seats`): the first
    person creates the game, the others join it, bots (``normal``) take the rest. With ``fixed`` the game
    keeps ``seats``' order as its seat numbers (``game_start(seat_order=…)``) instead of drawing one."""
    people = [(i, e) for i, (e, _t) in enumerate(seats) if e is not None]
    bots = [i for i, (e, _t) in enumerate(seats) if e is None]
    users = [e.user for _i, e in people]
    game = game_services.game_create(
        user=users[0],
        title=f"{event.name}: round {rnd.number}, table {index}"[:80],
        players=event.table_size,
        options=dict(event.options),
        time_control=event.time_control,
        turn_seconds=event.turn_seconds,
        response_seconds=event.response_seconds,
        rated=event.rated,
    )
    for user in users[1:]:  # no "someone joined" emails: the event seated this table
        game_services.seat_join(game_id=game.pk, user=user, announce=False)
    for _ in bots:
        game_services.seat_add_bot(game_id=game.pk, user=users[0], level=BOT_LEVEL)
    table = Table.objects.create(round=rnd, game=game, number=index)
    TableSeat.objects.bulk_create(
        [TableSeat(round=rnd, table=table, entry=e, team=t, seat=i) for i, (e, t) in enumerate(seats)]
    )
    if fixed:  # lobby order: the people, then the bots; each keeps its place in ``seats``
        order = [i for i, _e in people] + bots
        game_services.game_start(game_id=game.pk, user=None, bots_after_commit=True, seat_order=order)
    else:
        game_services.game_start(game_id=game.pk, user=None, bots_after_commit=True)


def round_done(rnd: Round) -> bool:
    """Whether every game of ``rnd`` has finished."""
    return not Game.objects.filter(event_table__round=rnd).exclude(status=Game.Status.FINISHED).exists()


def round_next(*, event_id: int, now: datetime | None = None) -> Round | None:
    """Seat the next round of a running event once every table of the current round has finished, or
    finish the event after its last round. Idempotent: calling it twice (or from two workers at once)
    creates one round.

    ``now`` (default: the clock, read once the event's row is locked) is stored as the last round's
    ``finished_at``, the new round's ``created_at`` (its deadline counts from it) or the event's
    ``finished_at``.

    Returns:
        The new round, or ``None`` (not due, the event finished, or it is not running).
    """
    try:
        with transaction.atomic():
            event = _lock(event_id)
            now = now or timezone.now()
            if event.status != Event.Status.RUNNING:
                return None
            last = event.round_set.order_by("-number").first()
            if last is None:
                return None  # round 1 is event_start's
            if not round_done(last):
                return None
            if last.finished_at is None:
                last.finished_at = now
                last.save(update_fields=["finished_at"])
            if _last_round_played(event, last):
                _finish(event, now)
                return None
            try:
                plan = _seating(event, last.number + 1, _active_ids(event))
            except seating.SeatingError:
                _finish(event, now)
                return None
            return _round_create(event, last.number + 1, plan, now)
    except IntegrityError:  # a round made meanwhile by a writer that did not take the lock
        return None


def _last_round_played(event: Event, last: Round) -> bool:
    if event.format != Event.Format.ELIMINATION:
        return last.number >= event.rounds
    tables = last.tables.count()
    return tables <= 1 and not last.byes.exists()


def _finish(event: Event, now: datetime) -> None:
    event.status = Event.Status.FINISHED
    event.finished_at = now
    event.save(update_fields=["status", "finished_at"])


def event_finish(*, event_id: int, now: datetime | None = None) -> bool:
    """Finish a running event whose last round has been played (every game over). Returns whether it
    finished now; :func:`round_next` calls the same step after the last round. ``now`` (default: the
    clock, read once the event's row is locked) is stored as ``finished_at``."""
    with transaction.atomic():
        event = _lock(event_id)
        now = now or timezone.now()
        last = event.round_set.order_by("-number").first()
        if event.status != Event.Status.RUNNING or last is None or not round_done(last):
            return False
        if not _last_round_played(event, last):
            return False
        _finish(event, now)
        return True


def events_sweep(*, now: datetime | None = None) -> int:
    """What the clock makes due (Celery beat, every minute): open sign-ups, start events, seat next rounds,
    finish events. Each step is idempotent. Returns how many steps did something.

    ``now``: the moment to sweep at (tests); by default the clock, read once to choose the events that are
    due, while each step reads the clock again once it holds its event's lock (a step may wait for another
    worker's round, so the sweep's own time would be stale for the times it stores).
    """
    due_at = now or timezone.now()
    done = 0
    for pk in Event.objects.filter(status=Event.Status.DRAFT, signup_opens__lte=due_at).values_list(
        "pk", flat=True
    ):
        done += event_open(event_id=pk, now=now)
    due = Event.objects.filter(status__in=(Event.Status.DRAFT, Event.Status.OPEN), starts_at__lte=due_at)
    for pk in due.values_list("pk", flat=True):
        done += event_start(event_id=pk, now=now) is not None
    for pk in Event.objects.filter(status=Event.Status.RUNNING).values_list("pk", flat=True):
        made = round_next(event_id=pk, now=now)  # a round, or the event finished after its last one
        done += made is not None or not Event.objects.filter(pk=pk, status=Event.Status.RUNNING).exists()
    return done


__all__ = [
    "BOT_LEVEL",
    "CLOCK_SECONDS",
    "EVENT_OPTIONS",
    "MAX_ROUNDS",
    "TEAM_NAME_LENGTH",
    "EventSpec",
    "default_points",
    "entry_signup",
    "entry_withdraw",
    "event_create",
    "event_finish",
    "event_open",
    "event_start",
    "events_sweep",
    "round_done",
    "round_next",
    "signup_is_open",
    "spec_errors",
    "spec_team_size",
]
