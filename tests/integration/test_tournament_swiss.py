"""Issue 34 end to end: a 12-player, 3-round Swiss event of 4-player tables with a bot in every seat, run
by the clock on PostgreSQL with real Celery workers and a real Celery beat, to its final standings.

Nothing but the clock moves the event once its entries are in: beat's ``tournaments-sweep``
(``TOURNAMENTS_SWEEP_INTERVAL``, 1 s here instead of a minute) starts it at ``starts_at``, seats each next
round when every game of the last one has ended, and finishes it after round 3. The workers' own catch-up
runs of the sweep are over before the event exists, so every step here is a beat tick's.

Bots in every seat: the games app plays an entrant's seat by a *stand-in* bot (issue 17: normal level,
keeping the player's Fracture and Tactical Advance) once the player has missed ``ABSENT_AFTER_MISSES`` turns
in a row; the workers run with ``ABSENT_AFTER_MISSES=0``, so every entrant is a stand-in from the first
move. The round's transaction only seats the tables and starts the games (``game_start`` with
``bots_after_commit``): once it commits, each game's ``bots_play`` task plays it to its end, so the event's
row lock is held for the seating only. The test checks it with PostgreSQL's ``xmin`` (the transaction that
wrote a row): no bot move was written by the transaction that made its round. The tournament code is the
production code: no flag of its own makes the seats bots.

Two workers take the beat ticks, so sweeps run side by side and wait for each other on the event's row
lock; beat ticks many times while a round is being played. The test checks that each round was made once
(3 rounds of 3 tables of 4, every entrant seated once a round, 9 games in all), that each round was seated
from the final results of the rounds before it (the standings and the pairs who met, worked out here from
the games' stored places and given to :func:`tournaments.seating.swiss_round`, every round with the
fewest meetings of one pair and then the fewest repeated pairs of all 5,775 seatings), and that the final
standings match the games: points by place, Buchholz, VP and head to head, in tie-break order.

Run alone: ``DATABASE_URL=postgres://$(whoami)@127.0.0.1:5432/mastery MASTERY_ENV=test
.venv/bin/python -m pytest -p no:xdist tests/integration/test_tournament_swiss.py``.
"""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from itertools import combinations, pairwise
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from games import services as game_services
from games.models import ActionRecord, Game, Seat
from tests.web.conftest import create_user
from tournaments import seating, selectors, services
from tournaments.models import Entry, Event, Round, RoundBye, Table, TableSeat

from .harness import EmailStack, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PLAYERS = 12
TABLE_SIZE = 4
ROUNDS = 3
POINTS = {"1": 3, "2": 2, "3": 1, "4": 0}
#: Seconds between beat's tournaments sweeps here (production: 60).
SWEEP_PERIOD = "1"
#: The most the whole event may take before the test gives up: 9 games of four stand-ins (normal bots), 4–9 s
#: each here, one after the other (about 40–80 s in all on 2 cores), with room for a loaded machine. Not an
#: assertion on speed.
EVENT_TIMEOUT = 300.0

SWEEP_DONE = re.compile(r"Task tournaments\.tasks\.events_sweep\[[^]]+\] succeeded")
SWEEP_FAILED = re.compile(r"Task tournaments\.tasks\.events_sweep\[[^]]+\] raised unexpected")
BEAT_SENT = "Scheduler: Sending due task tournaments-sweep"

Pair = frozenset[str]


def sweeps_done(stack: EmailStack) -> int:
    """How many ``events_sweep`` runs the workers have finished (their log)."""
    text = stack.log_text()
    if SWEEP_FAILED.search(text):
        raise AssertionError("an events_sweep failed in the worker (see the log)")
    return len(SWEEP_DONE.findall(text))


def tables_of(event: Event, number: int) -> list[list[str]]:
    """Round ``number``'s tables in table order, each its entrants' user ids (as text) in seat order."""
    seats = TableSeat.objects.filter(round__event=event, round__number=number).order_by(
        "table__number", "seat"
    )
    tables: dict[int, list[str]] = defaultdict(list)
    for table_number, user_id in seats.values_list("table__number", "entry__user_id"):
        assert user_id is not None, "a bot seat: 12 players fill 3 tables of 4"
        tables[table_number].append(str(user_id))
    return [tables[n] for n in sorted(tables)]


def games_of(event: Event, number: int) -> list[Game]:
    """Round ``number``'s games in table order."""
    tables = Table.objects.filter(round__event=event, round__number=number).select_related("game")
    return [t.game for t in tables.order_by("number")]


class Results:
    """An event's results worked out here from the games' stored places (``Seat.final_rank``/``final_vp``),
    independently of :mod:`tournaments.selectors`: points by place, VP, opponents, head to head."""

    def __init__(self, players: Sequence[str]) -> None:
        self.points: dict[str, float] = {p: 0.0 for p in players}  # in entry order (the last tie-break)
        self.vp: dict[str, float] = {p: 0.0 for p in players}
        self.played: Counter[str] = Counter()
        self.opponents: dict[str, list[str]] = defaultdict(list)
        self.head_to_head: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.met: Counter[Pair] = Counter()  # pair -> times met

    def add(self, game: Game) -> None:
        """Count one finished game."""
        rows = [
            (str(s.user_id), s.final_rank, s.final_vp)
            for s in Seat.objects.filter(game=game).order_by("number")
        ]
        for p, rank, vp in rows:
            assert rank is not None and vp is not None, f"game {game.pk} ended without places"
            self.points[p] += POINTS.get(str(rank), 0)
            self.vp[p] += vp
            self.played[p] += 1
            for q, other, _vp in rows:
                if q != p:
                    self.opponents[p].append(q)
                    if rank < (other or 99):
                        self.head_to_head[p][q] += 1
        self.met.update(seating.pairs_met([[p for p, _r, _v in rows]]))

    def buchholz(self) -> dict[str, float]:
        return {p: sum(self.points[q] for q in self.opponents[p]) for p in self.points}

    def order(self) -> list[str]:
        """The standings, best first, by the documented tie rule (docs/tournaments.md)."""
        return seating.standings_order(self.points, self.buchholz(), self.vp, self.head_to_head)


def partitions(players: Sequence[str], size: int) -> Iterator[list[list[str]]]:
    """Every way to split ``players`` into tables of ``size`` (5,775 for 12 players at tables of 4)."""
    if not players:
        yield []
        return
    first, rest = players[0], list(players[1:])
    for others in combinations(rest, size - 1):
        left = [p for p in rest if p not in others]
        for more in partitions(left, size):
            yield [[first, *others], *more]


def worst_and_repeats(tables: Sequence[Sequence[str]], met: Counter[Pair]) -> tuple[int, int]:
    """The most times a pair at ``tables`` had already met, and how many pairs there had met."""
    times = [met[frozenset(pair)] for t in tables for pair in combinations(t, 2) if met[frozenset(pair)]]
    return max(times, default=0), len(times)


def test_a_12_player_3_round_swiss_of_bots_is_run_by_beat_and_the_worker_to_its_final_standings(
    stack: EmailStack, tmp_path: Path
) -> None:
    began = time.monotonic()
    for _ in range(2):  # every entrant's seat is a stand-in bot from the first move
        stack.start_worker(ABSENT_AFTER_MISSES="0")
    # the workers' catch-up sweeps (one each) are over before the event exists: from here on only beat
    # queues the tournaments sweep
    wait_until(lambda: sweeps_done(stack) >= 2, 30, "the workers' catch-up events sweeps")

    organiser = create_user(display_name="Organiser")
    players = [create_user(display_name=f"Swiss {i + 1:02}") for i in range(PLAYERS)]
    now = timezone.now()
    event = services.event_create(
        user=organiser,
        spec=services.EventSpec(
            name="Bots' Swiss",
            format=Event.Format.SWISS,
            table_size=TABLE_SIZE,
            rounds=ROUNDS,
            signup_opens=now - timedelta(hours=1),
            signup_closes=now + timedelta(seconds=1),
            starts_at=now + timedelta(seconds=1),
            time_control="live",  # the shortest time control there is (nobody waits for it here)
            points_by_rank=POINTS,
        ),
        now=now,
    )
    for user in players:
        services.entry_signup(event_id=event.pk, user=user, now=now)
    assert Event.objects.get(pk=event.pk).status == Event.Status.OPEN

    stack.start_beat(tmp_path, TOURNAMENTS_SWEEP_INTERVAL=SWEEP_PERIOD)

    def finished() -> bool:
        sweeps_done(stack)  # fail at once on a failed sweep
        status = Event.objects.values_list("status", flat=True).get(pk=event.pk)
        assert status != Event.Status.CANCELLED, "the event was cancelled"
        return status == Event.Status.FINISHED

    wait_until(finished, EVENT_TIMEOUT, "beat and the workers to play the event to its end", interval=0.5)
    played_in = time.monotonic() - began
    # beat goes on ticking (and the ticks queued while a round was being played are taken): nothing changes
    after = sweeps_done(stack)
    wait_until(lambda: sweeps_done(stack) >= after + 3, 30, "three more events sweeps after the finish")

    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED and event.finished_at is not None
    assert stack.log_text().count(BEAT_SENT) >= 3, "beat queued the sweeps"
    entries = list(Entry.objects.filter(event=event).order_by("pk"))
    ids = [str(e.user_id) for e in entries]
    assert sorted(ids) == sorted(str(u.pk) for u in players)

    # -- each round made once: 3 rounds of 3 tables of 4, every entrant seated exactly once a round --
    rounds = list(Round.objects.filter(event=event).order_by("number"))
    assert [r.number for r in rounds] == [1, 2, 3]
    assert Table.objects.filter(round__event=event).count() == ROUNDS * PLAYERS // TABLE_SIZE
    assert TableSeat.objects.filter(round__event=event).count() == ROUNDS * PLAYERS
    assert not RoundBye.objects.filter(round__event=event).exists()
    assert Game.objects.filter(title__startswith=event.name).count() == ROUNDS * PLAYERS // TABLE_SIZE, (
        "no game of a rolled-back round"
    )
    for rnd in rounds:
        tables = tables_of(event, rnd.number)
        assert [len(t) for t in tables] == [TABLE_SIZE] * 3
        assert sorted(p for t in tables for p in t) == sorted(ids), f"round {rnd.number}: seated once each"
        assert list(rnd.tables.values_list("number", flat=True)) == [1, 2, 3]
        assert rnd.finished_at is not None

    # -- every game played to its end by bots, each seat its entrant's, the log replaying to its hashes --
    last_end: datetime | None = None
    report = []
    for rnd in rounds:
        games = games_of(event, rnd.number)
        for game, table in zip(games, tables_of(event, rnd.number), strict=True):
            assert game.status == Game.Status.FINISHED and game.finished_at is not None
            assert game.winners
            assert game.time_control == "live" and game.players == TABLE_SIZE
            seats = list(Seat.objects.filter(game=game))
            assert sorted(str(s.user_id) for s in seats) == sorted(table)
            assert not any(s.is_bot for s in seats), "the entrants' own seats, played by stand-ins"
            assert all(s.final_rank is not None and s.final_vp is not None for s in seats)
            sources = Counter(ActionRecord.objects.filter(game=game).values_list("source", flat=True))
            assert set(sources) <= {ActionRecord.Source.BOT, ActionRecord.Source.SERVER}, sources
            bot_seats = set(
                ActionRecord.objects.filter(game=game, source=ActionRecord.Source.BOT).values_list(
                    "seat", flat=True
                )
            )
            assert bot_seats == set(range(TABLE_SIZE)), "a bot played every seat"
            ok, message = game_services.game_verify(game_id=game.pk)
            assert ok, message
        # the round's transaction committed before any bot moved: no bot move shares its transaction
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT xmin::text FROM {Round._meta.db_table} WHERE id = %s", [rnd.pk])
            (round_xid,) = cursor.fetchone()
            cursor.execute(
                f"SELECT DISTINCT xmin::text FROM {ActionRecord._meta.db_table} "
                "WHERE game_id = ANY(%s) AND source = %s",
                [[g.pk for g in games], ActionRecord.Source.BOT],
            )
            move_xids = {row[0] for row in cursor.fetchall()}
        assert move_xids and round_xid not in move_xids, f"round {rnd.number}: bots moved in its transaction"
        if last_end is not None:  # a round is seated only once every game of the one before has ended
            assert min(g.created_at for g in games) >= last_end
        last_end = max(g.finished_at for g in games if g.finished_at is not None)
        report.append(
            f"round {rnd.number}: {sum(g.seq for g in games)} actions in "
            f"{(last_end - min(g.created_at for g in games)).total_seconds():.1f} s"
        )

    # -- each round seated from the final results of the rounds before it --
    results = Results(ids)
    for rnd in rounds:
        expected = seating.swiss_round(results.order(), TABLE_SIZE, results.met)
        tables = tables_of(event, rnd.number)
        assert tables == expected.tables, f"round {rnd.number} was not seated from the results before it"
        # The seating's promise (docs/tournaments.md): no pair meets k + 1 times while a seating exists where
        # none does, and of those seatings one with the fewest repeated pairs; checked here against all
        # 5,775 ways to seat 12 players at three tables of 4 (in round 2 the fewest is always (1, 3): each
        # new table of 4 has two players from one table of round 1, twice).
        fewest = min(worst_and_repeats(p, results.met) for p in partitions(ids, TABLE_SIZE))
        got = worst_and_repeats(tables, results.met)
        assert got == (expected.worst, expected.repeats)
        assert got == fewest, (
            f"round {rnd.number}: (most meetings before, repeated pairs) {got}, not {fewest}"
        )
        if rnd.number == 2:
            assert got == (1, 3)
        report.append(f"round {rnd.number}: {got[1]} repeated pair(s), fewest possible {fewest[1]}")
        for game in games_of(event, rnd.number):
            results.add(game)
    meetings = Counter(
        frozenset(pair) for r in rounds for t in tables_of(event, r.number) for pair in combinations(t, 2)
    )
    report.append(f"most meetings of one pair: {max(meetings.values())}")

    # -- final standings: 12 rows, the games' points, in tie-break order --
    rows = selectors.standings(event)
    assert [r.place for r in rows] == list(range(1, PLAYERS + 1))
    assert [str(r.user_id) for r in rows] == results.order()
    buchholz = results.buchholz()
    for row in rows:
        p = str(row.user_id)
        assert (row.played, row.byes, row.withdrawn) == (ROUNDS, 0, False)
        assert row.points == results.points[p]
        assert row.vp == results.vp[p]
        assert row.buchholz == buchholz[p]
    for better, worse in pairwise(rows):
        assert (better.points, better.buchholz, better.vp) >= (worse.points, worse.buchholz, worse.vp)
    # players level on points, Buchholz and VP: ordered by head to head among them
    level: dict[tuple[float, float, float], list[str]] = defaultdict(list)
    for row in rows:
        level[(row.points, row.buchholz, row.vp)].append(str(row.user_id))
    for group in level.values():
        mini = [sum(results.head_to_head[p][q] for q in group if q != p) for p in group]
        assert mini == sorted(mini, reverse=True)
    # every game's places are the places' points: 3 + 2 + 1 + 0 a table unless players tied on VP
    assert sum(r.points for r in rows) == sum(
        POINTS.get(str(rank), 0)
        for rank in Seat.objects.filter(game__event_table__round__event=event).values_list(
            "final_rank", flat=True
        )
    )
    print(f"12-player Swiss of bots: {played_in:.1f} s to the finish (wall clock); " + "; ".join(report))
