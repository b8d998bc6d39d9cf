"""The tournaments' services (issue 34): creation checks, sign-up windows, rounds created once, a Swiss
event played to its end, standings and their tie-breaks, byes and bots, elimination, the sweep task and the
ordinary game-start emails of a round's games."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import services as game_services
from games.bots import STAND_IN, stand_ins
from games.models import Game, Notification, Rating, RatingChange, Seat
from games.services import BadPayload, Conflict, Forbidden
from tests.web.conftest import create_user
from tests.web.test_ratings import finish_game
from tournaments import seating, selectors, services, tasks
from tournaments.models import Entry, Event, Round, RoundBye, TableSeat

from .helpers import end_game, make_event, players_of, round_games, sign_up, start

# --------------------------------------------------------------------------------------------------------
# Creating an event
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"table_size": 7}, "table_size"),
        ({"table_size": 1}, "table_size"),
        ({"format": "ladder"}, "format"),
        ({"rounds": 0}, "rounds"),
        ({"format": Event.Format.ELIMINATION, "advance_k": 4}, "advance_k"),
        ({"points_by_rank": {"1": 0, "2": 3}}, "points_by_rank"),
        ({"points_by_rank": {"1": 3, "9": 1}}, "points_by_rank"),
        ({"time_control": "blitz"}, "time_control"),
        ({"time_control": "custom"}, "time_control"),
        ({"time_control": "custom", "turn_seconds": 3600, "response_seconds": 59}, "time_control"),
        ({"time_control": "custom", "turn_seconds": 31 * 86_400, "response_seconds": 600}, "time_control"),
        ({"options": {"teleport": True}}, "options"),
        ({"name": "  "}, "name"),
    ],
)
def test_a_bad_event_is_refused_and_nothing_is_stored(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(BadPayload) as refused:
        make_event(**changes)
    assert refused.value.params.get("field") == field
    assert not Event.objects.exists()


@pytest.mark.django_db
def test_dates_must_be_in_order_and_the_start_in_the_future() -> None:
    now = timezone.now()
    with pytest.raises(BadPayload):
        make_event(now=now, signup_closes=now + timedelta(days=3), starts_at=now + timedelta(days=2))
    with pytest.raises(BadPayload):
        make_event(
            now=now,
            signup_opens=now - timedelta(days=3),
            signup_closes=now - timedelta(days=2),
            starts_at=now - timedelta(days=1),
        )


@pytest.mark.django_db
def test_an_event_opens_by_the_clock_and_gets_default_points() -> None:
    now = timezone.now()
    event = make_event(now=now, signup_opens=now + timedelta(hours=1), points_by_rank=None)
    assert event.status == Event.Status.DRAFT
    assert event.points_by_rank == {"1": 3, "2": 2, "3": 1, "4": 0}
    assert services.events_sweep(now=now) == 0
    assert services.events_sweep(now=now + timedelta(hours=1)) == 1
    event.refresh_from_db()
    assert event.status == Event.Status.OPEN


# --------------------------------------------------------------------------------------------------------
# Sign-up and withdrawal
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_sign_up_only_while_the_window_is_open() -> None:
    now = timezone.now()
    event = make_event(now=now, signup_opens=now + timedelta(hours=1), signup_closes=now + timedelta(hours=5))
    player = create_user()
    with pytest.raises(Conflict):  # not open yet
        services.entry_signup(event_id=event.pk, user=player, now=now)
    services.entry_signup(event_id=event.pk, user=player, now=now + timedelta(hours=2))
    with pytest.raises(Conflict):  # twice
        services.entry_signup(event_id=event.pk, user=player, now=now + timedelta(hours=2))
    with pytest.raises(Conflict):  # closed
        services.entry_signup(event_id=event.pk, user=create_user(), now=now + timedelta(hours=5))
    assert Entry.objects.filter(event=event).count() == 1


@pytest.mark.django_db
def test_withdraw_before_the_start_then_sign_up_again() -> None:
    event = make_event()
    (player,) = sign_up(event, 1)
    services.entry_withdraw(event_id=event.pk, user=player, now=event.signup_opens)
    assert Entry.objects.get(event=event, user=player).withdrawn
    services.entry_signup(event_id=event.pk, user=player, now=event.signup_opens)
    assert not Entry.objects.get(event=event, user=player).withdrawn


@pytest.mark.django_db
def test_after_the_start_only_the_organiser_withdraws_and_later_rounds_skip_the_player() -> None:
    organiser = create_user()
    event = make_event(organiser, table_size=4, rounds=2)
    players = sign_up(event, 4)
    start(event)
    with pytest.raises(Conflict):
        services.entry_withdraw(event_id=event.pk, user=players[0])
    with pytest.raises(Forbidden):
        services.entry_withdraw(event_id=event.pk, user=players[1], player=players[0])
    services.entry_withdraw(event_id=event.pk, user=organiser, player=players[0])
    for game in round_games(event, 1):
        end_game(game, players_of(game))
    rnd = services.round_next(event_id=event.pk)
    assert rnd is not None and rnd.number == 2
    seated = set(
        TableSeat.objects.filter(round=rnd, entry__isnull=False).values_list("entry__user_id", flat=True)
    )
    assert players[0].pk not in seated
    assert len(seated) == 3
    assert Seat.objects.filter(game__event_table__round=rnd, is_bot=True, bot_level="normal").count() == 1


@pytest.mark.django_db
def test_the_organisers_withdrawal_resigns_the_players_running_game() -> None:
    """Withdrawn during a round, a player resigns from that round's game (the games app's resignation: a
    stand-in plays the seat on), in the withdrawal's write; the other players' seats are untouched, and a
    finished game of an earlier round is not resigned."""
    organiser = create_user()
    event = make_event(organiser, table_size=2, rounds=2, points_by_rank={"1": 1, "2": 0})
    players = sign_up(event, 4)
    start(event)
    for game in round_games(event, 1):
        end_game(game, players_of(game))
    assert services.round_next(event_id=event.pk) is not None
    leaving = players[0]
    (game,) = [g for g in round_games(event, 2) if leaving in players_of(g)]
    at = timezone.now()
    services.entry_withdraw(event_id=event.pk, user=organiser, player=leaving, now=at)
    seat = Seat.objects.get(game=game, user=leaving)
    assert seat.resigned_at == at
    assert stand_ins(list(Seat.objects.filter(game=game)))[seat.number] == STAND_IN
    assert not Seat.objects.filter(user__in=players[1:], resigned_at__isnull=False).exists()
    (earlier,) = [g for g in round_games(event, 1) if leaving in players_of(g)]
    assert Seat.objects.get(game=earlier, user=leaving).resigned_at is None
    with pytest.raises(game_services.Conflict):  # resigned: they may no longer act in that game
        game_services.seat_resign(game_id=game.pk, user=leaving)
    assert Entry.objects.get(event=event, user=leaving).withdrawn


@pytest.mark.django_db
def test_a_withdrawal_whose_game_ended_meanwhile_resigns_nothing() -> None:
    organiser = create_user()
    event = make_event(organiser, table_size=2, rounds=2, points_by_rank={"1": 1, "2": 0})
    players = sign_up(event, 2)
    start(event)
    (game,) = round_games(event, 1)
    end_game(game, players_of(game))
    services.entry_withdraw(event_id=event.pk, user=organiser, player=players[0])
    assert not Seat.objects.filter(game=game, resigned_at__isnull=False).exists()
    assert Entry.objects.get(event=event, user=players[0]).withdrawn


# --------------------------------------------------------------------------------------------------------
# Rounds are created once
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_round_creation_twice_creates_one_round_and_seats_nobody_twice() -> None:
    event = make_event()
    sign_up(event, 8)
    first = services.event_start(event_id=event.pk, now=event.starts_at)
    assert first is not None
    assert services.event_start(event_id=event.pk, now=event.starts_at) is None
    assert services.round_next(event_id=event.pk) is None  # round 1's games are running
    assert services.events_sweep(now=event.starts_at) == 0
    assert Round.objects.filter(event=event).count() == 1
    seats = list(
        TableSeat.objects.filter(round=first, entry__isnull=False).values_list("entry_id", flat=True)
    )
    assert len(seats) == len(set(seats)) == 8
    assert Game.objects.filter(event_table__round=first, status=Game.Status.ACTIVE).count() == 2
    for game in round_games(event, 1):
        end_game(game, players_of(game))
    second = services.round_next(event_id=event.pk)
    assert second is not None and second.number == 2
    assert services.round_next(event_id=event.pk) is None
    assert Round.objects.filter(event=event).count() == 2
    assert Game.objects.filter(event_table__round__event=event).count() == 4


@pytest.mark.django_db
def test_the_database_refuses_a_second_round_of_a_number_or_a_second_seat_in_a_round() -> None:
    event = make_event()
    sign_up(event, 4)
    start(event)
    rnd = Round.objects.get(event=event)
    with pytest.raises(IntegrityError), transaction.atomic():
        Round.objects.create(event=event, number=1, created_at=rnd.created_at, deadline=rnd.deadline)
    seat = TableSeat.objects.filter(round=rnd, entry__isnull=False).first()
    assert seat is not None
    with pytest.raises(IntegrityError), transaction.atomic():
        TableSeat.objects.create(round=rnd, table=seat.table, entry=seat.entry, seat=9)


# --------------------------------------------------------------------------------------------------------
# A Swiss event to its end
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_small_swiss_is_played_to_the_end_with_real_games() -> None:
    """8 players, tables of 4, 2 rounds of Skirmish games played move by move to their end; the sweep seats
    round 2 (nobody meets a round-1 opponent again when avoidable: here 2 of each table's 4 must), then
    finishes the event; standings follow the games' own places."""
    event = make_event(options={"skirmish": True}, time_control="live")
    sign_up(event, 8)
    assert services.events_sweep(now=event.starts_at) == 1
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    for seed, game in enumerate(round_games(event, 1), start=1):
        assert finish_game(game, seed).status == Game.Status.FINISHED
    assert services.events_sweep() == 1
    round_two = round_games(event, 2)
    assert len(round_two) == 2
    round_one_pairs = set().union(*(_pairs(g) for g in round_games(event, 1)))
    repeats = sum(len(_pairs(g) & round_one_pairs) for g in round_two)
    assert repeats == 4  # 8 players, two tables of 4 twice: each round-2 table has 2 pairs from round 1
    for seed, game in enumerate(round_two, start=3):
        assert finish_game(game, seed).status == Game.Status.FINISHED
    assert services.events_sweep() == 1  # the step: the event finishes (no third round)
    assert services.events_sweep() == 0
    assert Round.objects.filter(event=event).count() == 2
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    rows = selectors.standings(event)
    assert len(rows) == 8
    results = selectors.event_results(event)
    assert all(results.played[p] == 2 for p in results.players)
    expected: dict[int, float] = {}
    for game in Game.objects.filter(event_table__round__event=event):
        for seat in Seat.objects.filter(game=game, user__isnull=False):
            assert seat.user_id is not None
            expected[seat.user_id] = (
                expected.get(seat.user_id, 0) + event.points_by_rank[str(seat.final_rank)]
            )
    assert {r.user_id: r.points for r in rows} == expected
    assert [r.points for r in rows] == sorted((r.points for r in rows), reverse=True)


def _pairs(game: Game) -> set[frozenset[int]]:
    users = [u.pk for u in players_of(game)]
    return {frozenset((a, b)) for a in users for b in users if a < b}


@pytest.mark.django_db
def test_standings_tie_breaks_buchholz_then_vp_then_head_to_head() -> None:
    """Two tables of 2 in round 1: A beats B, C beats D. Points 1 for a win. A and C tie on points and on
    Buchholz (0 each); A has more VP. Then a head-to-head case: equal points, Buchholz and VP."""
    event = make_event(table_size=2, rounds=1, points_by_rank={"1": 1, "2": 0})
    a, b, c, d = sign_up(event, 4)
    start(event)
    games = round_games(event, 1)
    by_players = {frozenset(u.pk for u in players_of(g)): g for g in games}
    assert set(by_players) == {frozenset((a.pk, b.pk)), frozenset((c.pk, d.pk))}
    end_game(by_players[frozenset((a.pk, b.pk))], [a, b])
    end_game(by_players[frozenset((c.pk, d.pk))], [c, d])
    Seat.objects.filter(user=a).update(final_vp=11)
    rows = selectors.standings(event)
    assert [r.user_id for r in rows] == [a.pk, c.pk, b.pk, d.pk]
    assert [r.points for r in rows] == [1, 1, 0, 0]
    assert [r.buchholz for r in rows] == [0, 0, 1, 1]  # B and D each met a winner
    assert rows[0].vp == 11 and rows[1].vp == 10

    # head to head: the same VP for A and C; then only head to head tells them apart (C met A and lost)
    Seat.objects.filter(user=a).update(final_vp=10)
    results = selectors.event_results(event)
    results.head_to_head = {str(c.pk): {str(a.pk): 1.0}}
    order = seating.standings_order(results.points, results.buchholz, results.vp, results.head_to_head)
    assert order[:2] == [str(c.pk), str(a.pk)]


@pytest.mark.django_db
def test_buchholz_ranks_the_player_whose_opponents_scored_more_higher() -> None:
    """Round 1 of 4-player tables, then round 2: equal points, different opponents' points."""
    event = make_event(table_size=2, rounds=2, points_by_rank={"1": 1, "2": 0})
    players = sign_up(event, 4)
    start(event)
    for game in round_games(event, 1):
        end_game(game, players_of(game))  # lower user id wins
    services.round_next(event_id=event.pk)
    for game in round_games(event, 2):
        end_game(game, players_of(game)[::-1])  # higher user id wins
    services.round_next(event_id=event.pk)
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    rows = selectors.standings(event)
    by_points = sorted(rows, key=lambda r: (-r.points, -r.buchholz, -r.vp))
    assert [r.user_id for r in rows][:1] == [by_points[0].user_id]
    for better, worse in itertools.pairwise(rows):
        assert (better.points, better.buchholz) >= (worse.points, worse.buchholz)
    assert {r.user_id for r in rows} == {p.pk for p in players}


# --------------------------------------------------------------------------------------------------------
# Byes and bots
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_bot_policy_fills_short_tables_with_normal_bots() -> None:
    event = make_event(bye_policy=Event.ByePolicy.BOT)
    sign_up(event, 6)
    start(event)
    games = round_games(event, 1)
    assert len(games) == 2
    bots = Seat.objects.filter(game__in=games, is_bot=True)
    assert bots.count() == 2 and set(bots.values_list("bot_level", flat=True)) == {"normal"}
    assert TableSeat.objects.filter(table__game__in=games, entry__isnull=True).count() == 2


@pytest.mark.django_db
def test_bye_policy_sits_players_out_with_the_bye_points() -> None:
    event = make_event(bye_policy=Event.ByePolicy.BYE, bye_points=2)
    players = sign_up(event, 6)
    start(event)
    assert len(round_games(event, 1)) == 1
    byes = list(RoundBye.objects.filter(round__event=event))
    assert len(byes) == 2 and {b.points for b in byes} == {2}
    rows = {r.user_id: r for r in selectors.standings(event)}
    assert sum(r.byes for r in rows.values()) == 2
    assert all(rows[b.entry.user_id].points == 2 for b in byes)
    assert len(players) == 6


@pytest.mark.django_db
def test_too_few_players_cancel_the_event_at_its_start() -> None:
    event = make_event(bye_policy=Event.ByePolicy.BYE)
    sign_up(event, 3)
    assert services.event_start(event_id=event.pk, now=event.starts_at) is None
    event.refresh_from_db()
    assert event.status == Event.Status.CANCELLED
    assert not Round.objects.filter(event=event).exists()


# --------------------------------------------------------------------------------------------------------
# Elimination and round robin
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_elimination_the_top_two_of_each_table_meet_at_the_final_table() -> None:
    event = make_event(format=Event.Format.ELIMINATION, advance_k=2)
    sign_up(event, 8)
    start(event)
    winners = []
    for game in round_games(event, 1):
        order = players_of(game)
        end_game(game, order)
        winners += order[:2]
    final = services.round_next(event_id=event.pk)
    assert final is not None and final.number == 2
    (game,) = round_games(event, 2)
    assert {u.pk for u in players_of(game)} == {u.pk for u in winners}
    end_game(game, players_of(game))
    assert services.round_next(event_id=event.pk) is None
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED


@pytest.mark.django_db
def test_round_robin_fixes_its_schedule_at_the_start() -> None:
    event = make_event(format=Event.Format.ROUND_ROBIN, table_size=2, points_by_rank={"1": 1, "2": 0})
    players = sign_up(event, 4)
    start(event)
    event.refresh_from_db()
    assert event.rounds == 3 and len(event.schedule) == 3
    met: set[frozenset[int]] = set()
    for number in (1, 2, 3):
        games = round_games(event, number)
        assert len(games) == 2
        for game in games:
            met |= _pairs(game)
            end_game(game, players_of(game))
        services.round_next(event_id=event.pk)
    assert len(met) == 6  # every pair of the 4 players met once
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    assert len(players) == 4


# --------------------------------------------------------------------------------------------------------
# The sweep task and the ordinary emails
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_sweep_task_starts_an_event_whose_time_has_come() -> None:
    event = make_event()
    sign_up(event, 4)
    Event.objects.filter(pk=event.pk).update(
        signup_opens=timezone.now() - timedelta(days=2),
        signup_closes=timezone.now() - timedelta(days=1),
        starts_at=timezone.now() - timedelta(minutes=1),
    )
    assert tasks.events_sweep.delay().get() == 1
    assert tasks.events_sweep.delay().get() == 0
    assert Round.objects.filter(event=event).count() == 1


@pytest.mark.django_db
def test_a_player_seated_in_round_two_gets_the_ordinary_game_started_notification() -> None:
    """The round's games are ordinary games: the outbox has the normal "game started" row for each player
    (no email system of the tournaments' own); the lobby's "joined" / "table full" rows are not kept."""
    event = make_event()
    sign_up(event, 4)
    start(event)
    for game in round_games(event, 1):
        end_game(game, players_of(game))
    services.round_next(event_id=event.pk)
    (game,) = round_games(event, 2)
    for player in players_of(game):
        assert Notification.objects.filter(
            recipient=player, game=game, kind=Notification.Kind.STARTED
        ).exists()
    assert not Notification.objects.filter(
        game=game, kind__in=(Notification.Kind.JOINED, Notification.Kind.FULL)
    ).exists()


@pytest.mark.django_db
def test_a_worker_killed_half_way_leaves_nothing_and_the_next_sweep_seats_the_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Round creation dies after the first table's game started (a killed worker): its transaction rolls
    back, so no round, table, seat or game is left; the next run seats everyone exactly once."""
    event = make_event()
    sign_up(event, 8)
    real_start = game_services.game_start
    calls: list[int] = []

    def dying_start(
        *, game_id: int, user: object, seed: int | None = None, bots_after_commit: bool = False
    ) -> Game:
        calls.append(game_id)
        if len(calls) == 2:
            raise SystemExit("worker killed")
        started: Game = real_start(game_id=game_id, user=None, bots_after_commit=bots_after_commit)
        return started

    games_before = Game.objects.count()
    monkeypatch.setattr(game_services, "game_start", dying_start)
    with pytest.raises(SystemExit):
        services.event_start(event_id=event.pk, now=event.starts_at)
    assert not Round.objects.filter(event=event).exists()
    assert not TableSeat.objects.exists() and Game.objects.count() == games_before
    event.refresh_from_db()
    assert event.status == Event.Status.OPEN
    monkeypatch.setattr(game_services, "game_start", real_start)
    assert services.events_sweep(now=event.starts_at) == 1
    seats = list(
        TableSeat.objects.filter(round__event=event, entry__isnull=False).values_list("entry_id", flat=True)
    )
    assert len(seats) == len(set(seats)) == 8


@pytest.mark.django_db
def test_the_sweep_stores_the_times_read_after_each_event_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sweep chooses the due events by its own clock reading, but a step that waited for the event's
    lock (another worker seating a round) stores the time it got the lock: round 1's and round 2's
    ``created_at`` and deadline, round 1's ``finished_at`` and the event's ``finished_at``."""
    event = make_event(rounds=2, round_deadline_days=3)
    sign_up(event, 4)
    wait = timedelta(minutes=7)  # how long each step waits for the event's row lock here
    real_lock = services._lock
    with time_machine.travel(event.starts_at, tick=False) as clock:

        def slow_lock(event_id: int) -> Event:
            locked = real_lock(event_id)
            clock.shift(wait)
            return locked

        monkeypatch.setattr(services, "_lock", slow_lock)
        assert services.events_sweep() == 1  # due at starts_at; round 1 seated once the lock is held
        first = Round.objects.get(event=event, number=1)
        assert first.created_at == event.starts_at + wait
        assert first.deadline == first.created_at + timedelta(days=3)
        for game in round_games(event, 1):
            end_game(game, players_of(game))
        swept_at = timezone.now()
        assert services.events_sweep() == 1
        first.refresh_from_db()
        second = Round.objects.get(event=event, number=2)
        assert first.finished_at == second.created_at == swept_at + wait
        assert second.deadline == swept_at + wait + timedelta(days=3)
        for game in round_games(event, 2):
            end_game(game, players_of(game))
        swept_at = timezone.now()
        assert services.events_sweep() == 1
    event.refresh_from_db()
    second.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    assert event.finished_at == second.finished_at == swept_at + wait


@pytest.mark.django_db
def test_a_time_given_to_a_step_is_the_time_it_stores() -> None:
    event = make_event(rounds=1)
    sign_up(event, 4)
    at = event.starts_at + timedelta(hours=5)
    first = services.event_start(event_id=event.pk, now=at)
    assert first is not None and first.created_at == at
    for game in round_games(event, 1):
        end_game(game, players_of(game))
    assert services.round_next(event_id=event.pk, now=at + timedelta(days=1)) is None  # the last round
    event.refresh_from_db()
    first.refresh_from_db()
    assert event.finished_at == first.finished_at == at + timedelta(days=1)


# --------------------------------------------------------------------------------------------------------
# Rated and unrated events
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("rated", [True, False])
def test_an_events_games_are_rated_only_when_the_event_is(rated: bool) -> None:
    """A table of a rated event changes its players' ratings when its game ends; an unrated event's game
    (``Game.unrated``) changes none, though every seat is a human."""
    event = make_event(
        format=Event.Format.ROUND_ROBIN,
        table_size=2,
        options={"skirmish": True},
        rated=rated,
        points_by_rank=None,
    )
    players = sign_up(event, 2)
    start(event)
    (game,) = round_games(event, 1)
    assert game.unrated is not rated
    assert finish_game(game, 7).status == Game.Status.FINISHED
    assert RatingChange.objects.filter(game=game).exists() is rated
    assert Rating.objects.filter(user__in=players).exists() is rated


@pytest.mark.django_db
def test_a_custom_clock_is_given_to_every_table() -> None:
    """An event with a custom time control starts each table's game with its seconds per turn and
    response; a preset event stores no seconds and its games take the preset's."""
    event = make_event(time_control="custom", turn_seconds=7200, response_seconds=1800)
    assert (event.turn_seconds, event.response_seconds) == (7200, 1800)
    sign_up(event, 8)
    start(event)
    games = round_games(event, 1)
    assert len(games) == 2
    assert {(g.time_control, g.turn_seconds, g.response_seconds) for g in games} == {("custom", 7200, 1800)}
    preset = make_event(time_control="relaxed", turn_seconds=7200, response_seconds=1800)
    assert (preset.turn_seconds, preset.response_seconds) == (None, None)
    sign_up(preset, 4)
    start(preset)
    (game,) = round_games(preset, 1)
    assert (game.time_control, game.turn_seconds, game.response_seconds) == ("relaxed", 259_200, 43_200)
