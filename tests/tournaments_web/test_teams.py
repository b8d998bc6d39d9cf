"""Allegiance (team) events (issue 34, rules R105–R111): creating one (pairs at tables of 4 or 6, triples at
6, never with Castle Siege), starting and joining teams, the full-team rule, withdrawals, teams completed by
bots at the start, teammates seated on the engine's teammate seats, team standings from finished games,
byes and elimination per team, the CSV and the event page."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import services as game_services
from games.engine.rules.core import teammates
from games.models import Game, Seat
from games.services import BadPayload, Conflict
from games.store import game_state
from tests.web.conftest import create_user
from tests.web.test_ratings import finish_game
from tournaments import selectors, services
from tournaments.models import Entry, Event, RoundBye, TableSeat, Team

from .helpers import end_game, make_event, players_of, round_games, sign_up, start
from .test_pages import client_for, form_data

PAIRS_4: dict[str, Any] = {
    "table_size": 4,
    "options": {"allegiance": "pairs"},
    "points_by_rank": {"1": 1, "2": 0},
}


def team_event(organiser: User | None = None, **changes: Any) -> Event:
    """An Allegiance event (pairs at tables of 4, one point for the winning team) with ``changes``."""
    return make_event(organiser, **{**PAIRS_4, **changes})


def sign_up_team(event: Event, name: str, count: int) -> list[User]:
    """``count`` fresh players: the first starts team ``name``, the others join it."""
    users = [create_user(display_name=f"{name}-{i + 1}") for i in range(count)]
    now = event.signup_opens
    services.entry_signup(event_id=event.pk, user=users[0], team_name=name, now=now)
    team = Team.objects.get(event=event, name=name)
    for user in users[1:]:
        services.entry_signup(event_id=event.pk, user=user, team_id=team.pk, now=now)
    return users


def seats_by_team(game: Game) -> dict[int | None, list[int]]:
    """The game's engine seats per team id (``None``: a bot team), from the event's table seats."""
    seats: dict[int | None, list[int]] = {}
    for seat in TableSeat.objects.filter(table__game=game).order_by("seat"):
        seats.setdefault(seat.team_id, []).append(seat.seat)
    return seats


def end_with_places(game: Game, places: dict[int, tuple[int, int]]) -> None:
    """End ``game`` with each engine seat's ``(place, VP)``, as ``games.services.play`` stores them."""
    for number, (place, vp) in places.items():
        Seat.objects.filter(game=game, number=number).update(final_rank=place, final_vp=vp)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=timezone.now())


def end_team_won(game: Game, winner: Team) -> None:
    """End a 4-player Allegiance ``game`` won by ``winner``: its members share first place (R109, 10 VP
    each), the other two place 3 and 4 (6 and 4 VP)."""
    seats = seats_by_team(game)
    losers = [n for team, numbers in seats.items() if team != winner.pk for n in numbers]
    places = {n: (1, 10) for n in seats[winner.pk]}
    places |= {losers[0]: (3, 6), losers[1]: (4, 4)}
    end_with_places(game, places)


# --------------------------------------------------------------------------------------------------------
# Creating an Allegiance event
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("size", "allegiance", "points"),
    [
        (4, "pairs", {"1": 1, "2": 0}),
        (6, "pairs", {"1": 2, "2": 1, "3": 0}),
        (6, "triples", {"1": 1, "2": 0}),
    ],
)
def test_an_allegiance_event_stores_the_option_as_the_engine_takes_it(
    size: int, allegiance: str, points: dict[str, int]
) -> None:
    """The option is stored as the engine's ``options["allegiance"]``; the default points go by team
    place (two or three teams at a table)."""
    event = make_event(table_size=size, options={"allegiance": allegiance}, points_by_rank=None)
    assert event.options == {"allegiance": allegiance}
    assert event.points_by_rank == points
    assert selectors.team_size(event) == {"pairs": 2, "triples": 3}[allegiance]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"table_size": 2, "options": {"allegiance": "pairs"}}, "allegiance"),
        ({"table_size": 3, "options": {"allegiance": "pairs"}}, "allegiance"),
        ({"table_size": 5, "options": {"allegiance": "pairs"}}, "allegiance"),
        ({"table_size": 4, "options": {"allegiance": "triples"}}, "allegiance"),
        ({"table_size": 4, "options": {"allegiance": "quads"}}, "allegiance"),
        ({"table_size": 4, "options": {"allegiance": "pairs", "castle_siege": True}}, "allegiance"),
        ({**PAIRS_4, "points_by_rank": {"1": 3, "2": 2, "3": 1, "4": 0}}, "points_by_rank"),
        ({**PAIRS_4, "format": Event.Format.ELIMINATION, "advance_k": 2}, "advance_k"),
    ],
)
def test_a_bad_allegiance_event_is_refused_and_nothing_is_stored(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(BadPayload) as refused:
        make_event(**changes)
    assert refused.value.params.get("field") == field
    assert not Event.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"allegiance": "pairs", "table_size": "3"}, "Teams of two play at tables of 4 or 6 players."),
        ({"allegiance": "pairs", "table_size": "5"}, "Teams of two play at tables of 4 or 6 players."),
        ({"allegiance": "triples", "table_size": "4"}, "Teams of three play at tables of 6 players."),
        ({"allegiance": "pairs", "castle_siege": "on"}, "Allegiance cannot be combined with Castle Siege."),
        ({"allegiance": "teams"}, "Select a valid choice."),
        (
            {"allegiance": "pairs", "points_by_rank": "3, 2, 1, 0"},
            "for each team&#x27;s place at the table (two or three teams)",
        ),
    ],
)
def test_the_form_refuses_a_bad_allegiance_with_a_clear_error(changes: dict[str, Any], message: str) -> None:
    response = client_for(create_user()).post(reverse("tournaments:new"), form_data(**changes))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Event.objects.exists()


@pytest.mark.django_db
def test_the_form_creates_an_allegiance_event_and_offers_no_teams_by_default() -> None:
    client = client_for(create_user())
    page = client.get(reverse("tournaments:new")).content.decode()
    assert 'name="allegiance"' in page and 'value="triples"' in page
    assert not re.search(r'<option value="(pairs|triples)"[^>]*selected', page)
    response = client.post(
        reverse("tournaments:new"),
        form_data(allegiance="triples", table_size="6", points_by_rank="", skirmish="on"),
    )
    assert response.status_code == 302
    event = Event.objects.get()
    assert event.options == {"allegiance": "triples", "skirmish": True}
    assert event.points_by_rank == {"1": 1, "2": 0}
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "Allegiance: teams of three" in page
    assert "completed by bots (normal level)" in page


# --------------------------------------------------------------------------------------------------------
# Teams: start, join, the full-team rule, withdraw
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_player_starts_a_team_and_another_joins_it_until_it_is_full() -> None:
    event = team_event()
    now = event.signup_opens
    anna, bert, cleo = create_user(), create_user(), create_user()
    entry = services.entry_signup(event_id=event.pk, user=anna, team_name="  Red Dragons ", now=now)
    team = Team.objects.get(event=event)
    assert team.name == "Red Dragons" and entry.team == team
    assert services.entry_signup(event_id=event.pk, user=bert, team_id=team.pk, now=now).team == team
    with pytest.raises(Conflict, match="that team is full"):
        services.entry_signup(event_id=event.pk, user=cleo, team_id=team.pk, now=now)
    with pytest.raises(Conflict, match="that team name is taken"):  # whatever its case
        services.entry_signup(event_id=event.pk, user=cleo, team_name="red dragons", now=now)
    assert not Entry.objects.filter(user=cleo).exists() and Team.objects.count() == 1
    [view] = selectors.teams_of(event)
    assert view.room == 0 and [e.user for e in view.members] == [anna, bert]


@pytest.mark.django_db
def test_a_team_of_three_takes_three() -> None:
    event = make_event(table_size=6, options={"allegiance": "triples"}, points_by_rank=None)
    sign_up_team(event, "Trio", 3)
    team = Team.objects.get(event=event)
    with pytest.raises(Conflict, match="that team is full"):
        services.entry_signup(event_id=event.pk, user=create_user(), team_id=team.pk, now=event.signup_opens)
    assert Entry.objects.filter(team=team).count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("choice", "error"),
    [
        ({}, "choose a team to join or name a new team"),
        ({"team_name": "   "}, "choose a team to join or name a new team"),
        ({"team_name": "Blue", "team_id": 1}, "choose a team to join or name a new team"),
        ({"team_name": "x" * 41}, "a team name has 1 to 40 characters"),
        ({"team_name": "A\x00B"}, "a team name has 1 to 40 characters"),
        ({"team_id": 999_999}, "there is no such team in this event"),
    ],
)
def test_a_team_sign_up_needs_one_good_choice_and_changes_nothing_otherwise(
    choice: dict[str, Any], error: str
) -> None:
    event = team_event()
    with pytest.raises(BadPayload, match=error):
        services.entry_signup(event_id=event.pk, user=create_user(), now=event.signup_opens, **choice)
    assert not Entry.objects.exists() and not Team.objects.exists()


@pytest.mark.django_db
def test_a_team_of_another_event_cannot_be_joined_and_an_individual_event_has_no_teams() -> None:
    other = team_event(name="Other")
    sign_up_team(other, "Elsewhere", 1)
    event = team_event()
    with pytest.raises(BadPayload, match="no such team"):
        services.entry_signup(
            event_id=event.pk,
            user=create_user(),
            team_id=Team.objects.get(name="Elsewhere").pk,
            now=event.signup_opens,
        )
    single = make_event(name="Singles")
    with pytest.raises(BadPayload, match="this event has no teams"):
        services.entry_signup(
            event_id=single.pk, user=create_user(), team_name="Duo", now=single.signup_opens
        )
    assert not Entry.objects.filter(event__in=(event, single)).exists()


@pytest.mark.django_db
def test_withdrawing_leaves_the_team_and_an_empty_team_disappears() -> None:
    event = team_event()
    now = event.signup_opens
    anna, bert = sign_up_team(event, "Red", 2)
    team = Team.objects.get(event=event)
    services.entry_withdraw(event_id=event.pk, user=anna, now=now)
    assert Entry.objects.get(user=anna).team is None
    assert Team.objects.filter(pk=team.pk).exists()  # Bert is still on it
    services.entry_withdraw(event_id=event.pk, user=bert, now=now)
    assert not Team.objects.filter(pk=team.pk).exists()
    # signing up again means choosing a team again; the name is free once more
    services.entry_signup(event_id=event.pk, user=anna, team_name="Red", now=now)
    assert Entry.objects.get(user=anna).team == Team.objects.get(event=event, name="Red")


# --------------------------------------------------------------------------------------------------------
# Seating: teams at tables, teammates on the engine's teammate seats, bots completing a team
# --------------------------------------------------------------------------------------------------------


def _assert_teammates_seated(game: Game) -> None:
    """Every team's seats are exactly the seats the engine makes teammates, and each member's game seat
    is the table seat stored for them."""
    state = game_state(game)
    for team, numbers in seats_by_team(game).items():
        for number in numbers:
            assert sorted([number, *teammates(state, number)]) == numbers, team
    for seat in TableSeat.objects.filter(table__game=game, entry__isnull=False).select_related("entry"):
        assert seat.entry is not None
        assert Seat.objects.get(game=game, user_id=seat.entry.user_id).number == seat.seat
    people = list(Seat.objects.filter(game=game, user__isnull=False))
    team_of: dict[int | None, int | None] = {
        e.user_id: e.team_id for e in Entry.objects.filter(seats__table__game=game, team__isnull=False)
    }
    for person in people:  # from the game's own seats: people of one team are the engine's teammates
        mates = {p.number for p in people if p != person and team_of[p.user_id] == team_of[person.user_id]}
        assert mates <= set(teammates(state, person.number))
        others = {p.number for p in people if team_of[p.user_id] != team_of[person.user_id]}
        assert not others & set(teammates(state, person.number))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("size", "allegiance", "teams", "per_team"),
    [(4, "pairs", 2, 2), (6, "pairs", 3, 2), (6, "triples", 2, 3)],
)
def test_teammates_sit_on_the_engines_teammate_seats(
    size: int, allegiance: str, teams: int, per_team: int
) -> None:
    """Two tables' worth of full teams: each table seats whole teams, and in each game the members of a
    team are exactly each other's ``teammates`` (R106, R107)."""
    event = make_event(table_size=size, options={"allegiance": allegiance}, points_by_rank=None)
    members = {f"T{i}": sign_up_team(event, f"T{i}", per_team) for i in range(2 * teams)}
    start(event)
    games = round_games(event, 1)
    assert len(games) == 2
    seated: set[int | None] = set()
    for game in games:
        assert game.options["allegiance"] == allegiance
        by_team = seats_by_team(game)
        assert None not in by_team and len(by_team) == teams
        _assert_teammates_seated(game)
        for team_id in by_team:
            assert team_id is not None
            users = {u.pk for u in members[Team.objects.get(pk=team_id).name]}
            in_game = {s.user_id for s in Seat.objects.filter(game=game, user_id__in=users)}
            assert in_game == users  # the whole team at this table
            seated.add(team_id)
    assert len(seated) == 2 * teams


@pytest.mark.django_db
def test_a_team_short_of_members_is_completed_by_a_normal_bot_on_its_teammate_seat() -> None:
    event = team_event()
    sign_up_team(event, "Full", 2)
    (lonely,) = sign_up_team(event, "Lonely", 1)
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "room for 1 more player (a bot if nobody joins)" in page
    start(event)
    (game,) = round_games(event, 1)
    _assert_teammates_seated(game)
    team = Team.objects.get(name="Lonely")
    numbers = seats_by_team(game)[team.pk]
    seats = {s.number: s for s in Seat.objects.filter(game=game, number__in=numbers)}
    assert sorted(s.user_id for s in seats.values() if s.user_id) == [lonely.pk]
    (bot,) = [s for s in seats.values() if s.is_bot]
    assert bot.bot_level == "normal"
    assert TableSeat.objects.get(table__game=game, seat=bot.number).team == team
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "1 seat played by a bot" in page


@pytest.mark.django_db
def test_the_bot_policy_fills_a_table_short_of_teams_with_a_bot_team() -> None:
    event = team_event(bye_policy=Event.ByePolicy.BOT)
    for name in ("A", "B", "C"):
        sign_up_team(event, name, 2)
    start(event)
    games = round_games(event, 1)
    assert len(games) == 2
    with_bots = [g for g in games if None in seats_by_team(g)]
    assert len(with_bots) == 1
    (game,) = with_bots
    _assert_teammates_seated(game)
    bot_seats = seats_by_team(game)[None]
    assert Seat.objects.filter(game=game, number__in=bot_seats, is_bot=True, bot_level="normal").count() == 2


@pytest.mark.django_db
def test_the_bye_policy_sits_a_team_out_with_the_bye_points() -> None:
    event = team_event(bye_policy=Event.ByePolicy.BYE, bye_points=1)
    for name in ("A", "B", "C"):
        sign_up_team(event, name, 2)
    start(event)
    assert len(round_games(event, 1)) == 1
    byes = list(RoundBye.objects.filter(round__event=event).select_related("entry"))
    assert len(byes) == 2 and len({b.entry.team_id for b in byes}) == 1  # both members of one team
    rows = {r.team_id: r for r in selectors.standings(event)}
    (sitting_out,) = {b.entry.team_id for b in byes}
    assert rows[sitting_out].byes == 1 and rows[sitting_out].points == 1
    assert sum(r.byes for r in rows.values()) == 1


@pytest.mark.django_db
def test_a_team_round_robin_meets_every_other_team_once() -> None:
    """Four teams of two at 4-player tables (two teams a table): the circle method over teams, three
    rounds, every pair of teams at one table once, teammates always on teammate seats."""
    event = team_event(format=Event.Format.ROUND_ROBIN)
    for name in "ABCD":
        sign_up_team(event, name, 2)
    start(event)
    event.refresh_from_db()
    assert event.rounds == 3
    met: list[frozenset[int | None]] = []
    for number in (1, 2, 3):
        for game in round_games(event, number):
            _assert_teammates_seated(game)
            met.append(frozenset(seats_by_team(game)))
            end_team_won(game, Team.objects.get(pk=min(t for t in seats_by_team(game) if t)))
        services.round_next(event_id=event.pk)
    assert len(met) == len(set(met)) == 6 and all(None not in pair for pair in met)
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED


@pytest.mark.django_db
def test_game_start_refuses_a_seat_order_that_is_not_an_order_of_the_seats() -> None:
    """``games.services.game_start(seat_order=…)``, which team tables use, takes only an order of every
    seat; a bad one changes nothing."""
    users = [create_user() for _ in range(4)]
    game = game_services.game_create(user=users[0], title="t", players=4, options={"allegiance": "pairs"})
    for user in users[1:]:
        game_services.seat_join(game_id=game.pk, user=user, announce=False)
    with pytest.raises(ValueError, match="seat_order"):
        game_services.game_start(game_id=game.pk, user=users[0], seat_order=[0, 0, 1, 2])
    game.refresh_from_db()
    assert game.status == Game.Status.LOBBY
    started = game_services.game_start(game_id=game.pk, user=users[0], seat_order=[3, 1, 0, 2])
    assert [Seat.objects.get(game=started, user=u).number for u in users] == [3, 1, 0, 2]
    state = game_state(started)
    assert teammates(state, 3) == [1] and teammates(state, 0) == [2]


# --------------------------------------------------------------------------------------------------------
# Team standings, elimination, real games
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_team_standings_score_the_team_place_with_buchholz_and_team_vp() -> None:
    """Four teams of two, one round: A beats B, C beats D. Winners score 1 (team place 1), losers 0; a
    team's VP are its members' added up; Buchholz is the opponent team's points."""
    event = team_event(rounds=1)
    for name in "ABCD":
        sign_up_team(event, name, 2)
    start(event)
    teams = {t.name: t for t in Team.objects.filter(event=event)}
    games = round_games(event, 1)
    pairs = {frozenset(t for t in seats_by_team(g) if t): g for g in games}
    assert set(pairs) == {
        frozenset((teams["A"].pk, teams["B"].pk)),
        frozenset((teams["C"].pk, teams["D"].pk)),
    }
    end_team_won(pairs[frozenset((teams["A"].pk, teams["B"].pk))], teams["A"])
    end_team_won(pairs[frozenset((teams["C"].pk, teams["D"].pk))], teams["C"])
    a_game = pairs[frozenset((teams["A"].pk, teams["B"].pk))]
    Seat.objects.filter(game=a_game, number=seats_by_team(a_game)[teams["A"].pk][0]).update(final_vp=13)
    rows = selectors.standings(event)
    assert [r.name for r in rows] == ["A", "C", "B", "D"]
    assert [r.points for r in rows] == [1, 1, 0, 0]
    assert [r.buchholz for r in rows] == [0, 0, 1, 1]
    assert [r.vp for r in rows] == [23, 20, 10, 10]
    assert rows[0].members == tuple(e.user.name for e in Entry.objects.filter(team=teams["A"]).order_by("pk"))
    assert all(r.user_id is None and r.team_id == teams[r.name].pk for r in rows)


@pytest.mark.django_db
def test_losing_teams_are_placed_by_their_best_member_and_share_a_place_when_level() -> None:
    """Three teams of two at a table of 6: the winners share first place (R109), the others' places come
    from their best member: B (3rd and 6th) is second, C (4th and 5th) third; points 2, 1, 0."""
    event = make_event(table_size=6, options={"allegiance": "pairs"}, points_by_rank=None, rounds=1)
    for name in "ABC":
        sign_up_team(event, name, 2)
    start(event)
    (game,) = round_games(event, 1)
    teams = {t.name: t.pk for t in Team.objects.filter(event=event)}
    seats = seats_by_team(game)
    a, b, c = seats[teams["A"]], seats[teams["B"]], seats[teams["C"]]
    end_with_places(
        game, {a[0]: (1, 12), a[1]: (1, 9), b[0]: (3, 8), b[1]: (6, 1), c[0]: (4, 5), c[1]: (5, 4)}
    )
    rows = selectors.standings(event)
    assert [(r.name, r.points, r.vp) for r in rows] == [("A", 2, 21), ("B", 1, 9), ("C", 0, 9)]
    assert selectors.team_places([3, 3, 1]) == [2, 2, 1]
    (rnd,) = selectors.event_rounds(event)
    assert [(t.place, t.name) for t in rnd.tables[0].teams] == [(1, "A"), (2, "B"), (3, "C")]


@pytest.mark.django_db
def test_team_elimination_the_winning_teams_meet_at_the_final_table() -> None:
    event = team_event(format=Event.Format.ELIMINATION, advance_k=1)
    for name in "ABCD":
        sign_up_team(event, name, 2)
    start(event)
    winners = []
    for game in round_games(event, 1):
        team = Team.objects.get(pk=min(t for t in seats_by_team(game) if t))
        end_team_won(game, team)
        winners.append(team.pk)
    final = services.round_next(event_id=event.pk)
    assert final is not None and final.number == 2
    (game,) = round_games(event, 2)
    assert set(seats_by_team(game)) == set(winners)
    _assert_teammates_seated(game)
    end_team_won(game, Team.objects.get(pk=winners[0]))
    assert services.round_next(event_id=event.pk) is None
    event.refresh_from_db()
    assert event.status == Event.Status.FINISHED
    assert selectors.standings(event)[0].team_id == winners[0]


@pytest.mark.django_db
def test_a_real_allegiance_game_gives_the_winning_team_first_place() -> None:
    """A 4-player Allegiance game played move by move to its end: the team that won (R109) is first in
    the team standings with the point of team place 1, its members having shared first place."""
    event = team_event(rounds=1, time_control="live")
    sign_up_team(event, "North", 2)
    sign_up_team(event, "South", 2)
    start(event)
    (game,) = round_games(event, 1)
    game = finish_game(game, 11)
    assert game.status == Game.Status.FINISHED
    firsts = set(Seat.objects.filter(game=game, final_rank=1).values_list("number", flat=True))
    by_team = seats_by_team(game)
    (winner,) = [team for team, numbers in by_team.items() if set(numbers) == firsts]
    rows = selectors.standings(event)
    assert rows[0].team_id == winner and rows[0].points == 1 and rows[1].points == 0


# --------------------------------------------------------------------------------------------------------
# Pages: the event page, sign-up forms, the CSV, the organiser's withdrawal
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_event_page_shows_teams_and_members_and_offers_start_or_join_without_a_preselection() -> None:
    event = team_event()
    anna, bert = sign_up_team(event, "Red", 2)
    (cleo,) = sign_up_team(event, "Blue", 1)
    page = client_for(anna).get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "2 teams" in page and "Red" in page and "Blue" in page
    assert anna.name in page and bert.name in page and cleo.name in page
    assert "(your team)" in page
    newcomer = client_for(create_user()).get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert 'name="team_name"' in newcomer and 'name="team"' in newcomer
    blue = Team.objects.get(name="Blue")
    red = Team.objects.get(name="Red")
    assert f'value="{blue.pk}"' in newcomer and f'value="{red.pk}"' not in newcomer  # Red is full
    assert not re.search(r'name="team"[^>]*checked', newcomer)
    assert "(your team)" not in newcomer
    assert "<script>" not in newcomer and " style=" not in newcomer and "onclick" not in newcomer


@pytest.mark.django_db
def test_the_pages_sign_up_starts_and_joins_teams_and_refuses_bad_choices_with_4xx() -> None:
    event = team_event()
    url = reverse("tournaments:signup", args=[event.pk])
    anna, bert, cleo = create_user(), create_user(), create_user()
    assert client_for(anna).post(url, {"team_name": "Red"}).status_code == 302
    red = Team.objects.get(event=event, name="Red")
    assert client_for(bert).post(url, {"team": str(red.pk)}).status_code == 302
    assert Entry.objects.get(user=bert).team == red
    full = client_for(cleo).post(url, {"team": str(red.pk)})
    assert full.status_code == 409 and "That team is full" in full.content.decode()
    taken = client_for(cleo).post(url, {"team_name": "RED"})
    assert taken.status_code == 409 and "That team name is taken" in taken.content.decode()
    assert 'value="RED"' in taken.content.decode()  # what they typed stays
    for data in ({}, {"team": "abc"}, {"team": "9" * 30}, {"team": str(red.pk), "team_name": "Both"}):
        response = client_for(cleo).post(url, data)
        assert response.status_code == 400, data
        assert 'class="error"' in response.content.decode() or "team" in response.content.decode()
    assert not Entry.objects.filter(user=cleo).exists()
    assert list(Team.objects.filter(event=event)) == [red]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "A team name has 1 to 40 characters."),
        ("sv", "Ett lagnamn har 1 till 40 tecken."),
        ("pl", "Nazwa drużyny ma od 1 do 40 znaków."),
        ("ko", "팀 이름은 1~40자입니다."),
    ],
)
def test_a_too_long_team_name_is_refused_in_the_readers_language_with_the_real_limit(
    language: str, text: str
) -> None:
    event = team_event()
    url = reverse("tournaments:signup", args=[event.pk])
    user = create_user()
    User.objects.filter(pk=user.pk).update(language=language)  # a signed-in player reads their profile's
    response = client_for(user).post(url, {"team_name": "x" * (services.TEAM_NAME_LENGTH + 1)})
    assert response.status_code == 400
    assert text in response.content.decode()
    assert not Entry.objects.exists() and not Team.objects.exists()


@pytest.mark.django_db
def test_the_team_standings_csv_lists_teams_and_members() -> None:
    event = team_event(rounds=1)
    red = sign_up_team(event, "Red", 2)
    sign_up_team(event, "=Blue", 2)
    start(event)
    (game,) = round_games(event, 1)
    end_team_won(game, Team.objects.get(name="Red"))
    response = Client().get(reverse("tournaments:standings_csv", args=[event.pk]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["place", "team", "members", "points", "buchholz", "vp", "games", "byes", "withdrawn"]
    assert rows[1][:4] == ["1", "Red", f"{red[0].name}; {red[1].name}", "1"]
    assert rows[2][1] == "'=Blue" and rows[2][3] == "0"
    assert len(rows) == 3


@pytest.mark.django_db
def test_the_standings_and_rounds_show_teams() -> None:
    event = team_event(rounds=1)
    red = sign_up_team(event, "Red", 2)
    sign_up_team(event, "Blue", 1)
    start(event)
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "<strong>Red</strong>" in page and "<strong>Blue</strong>" in page
    assert f"{red[0].name}, {red[1].name}" in page
    (game,) = round_games(event, 1)
    end_team_won(game, Team.objects.get(name="Blue"))
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "1. <strong>Blue</strong>" in page and "2. <strong>Red</strong>" in page
    assert f'<span class="members">({red[0].name}, {red[1].name})</span>' in page


@pytest.mark.django_db
def test_an_organisers_withdrawal_after_the_start_keeps_the_team_and_a_bot_takes_the_seat() -> None:
    organiser = create_user()
    event = team_event(organiser, rounds=2)
    anna, _bert = sign_up_team(event, "Red", 2)
    sign_up_team(event, "Blue", 2)
    start(event)
    services.entry_withdraw(event_id=event.pk, user=organiser, player=anna)
    red = Team.objects.get(name="Red")
    assert Entry.objects.get(user=anna).team == red
    (game,) = round_games(event, 1)
    end_team_won(game, red)
    assert services.round_next(event_id=event.pk) is not None
    (second,) = round_games(event, 2)
    _assert_teammates_seated(second)
    numbers = seats_by_team(second)[red.pk]
    assert Seat.objects.filter(game=second, number__in=numbers, is_bot=True).count() == 1
    assert not Seat.objects.filter(game=second, user=anna).exists()


# --------------------------------------------------------------------------------------------------------
# Task B: the entries panel and the status line refresh too, from sign-up to the end
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("teams", [False, True])
def test_the_live_fragment_brings_a_newcomers_sign_up_and_the_status_line(teams: bool) -> None:
    """While sign-up is open the page already polls; the fragment carries the entries list and the status
    line out of band, so a sign-up made after the page was loaded shows up for everyone."""
    now = timezone.now()
    event = team_event(now=now) if teams else make_event(now=now)
    live = reverse("tournaments:live", args=[event.pk])
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert f'hx-get="{live}" hx-trigger="every 60s" hx-swap="outerHTML"' in page
    assert 'id="event-status"' in page and "Sign-up open until" in page
    newcomer = create_user(display_name="Newcomer Nell")
    body = Client().get(live, headers={"HX-Request": "true"}).content.decode()
    assert "Newcomer Nell" not in body
    if teams:
        services.entry_signup(event_id=event.pk, user=newcomer, team_name="Nell's Knights", now=now)
    else:
        services.entry_signup(event_id=event.pk, user=newcomer, now=now)
    body = Client().get(live, headers={"HX-Request": "true"}).content.decode()
    entries = body[body.index('<div id="entries-list" hx-swap-oob="true">') :]
    assert "Newcomer Nell" in entries
    assert ("Nell&#x27;s Knights" in entries) is teams
    assert '<span class="status" id="event-status" hx-swap-oob="true">Sign-up open until' in body
    assert 'name="team_name"' not in body and "csrfmiddlewaretoken" not in body  # forms stay put


@pytest.mark.django_db
def test_the_status_line_follows_the_rounds_and_a_finished_event_stops_polling() -> None:
    event = make_event(table_size=2, rounds=2, points_by_rank={"1": 1, "2": 0})
    sign_up(event, 2)
    start(event)
    live = reverse("tournaments:live", args=[event.pk])
    body = Client().get(live, headers={"HX-Request": "true"}).content.decode()
    assert "Running: round 1 of 2" in body and f'hx-get="{live}"' in body
    (game,) = round_games(event, 1)
    end_game(game, players_of(game))
    services.round_next(event_id=event.pk)
    assert "Running: round 2 of 2" in Client().get(live, headers={"HX-Request": "true"}).content.decode()
    (game,) = round_games(event, 2)
    end_game(game, players_of(game))
    services.round_next(event_id=event.pk)
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "hx-get" not in page and "hx-trigger" not in page and "Finished on" in page
    body = Client().get(live, headers={"HX-Request": "true"}).content.decode()
    assert "hx-get" not in body and "Finished on" in body


@pytest.mark.django_db
def test_a_cancelled_event_does_not_poll() -> None:
    event = make_event(bye_policy=Event.ByePolicy.BYE)
    assert services.event_start(event_id=event.pk, now=event.starts_at) is None
    page = Client().get(reverse("tournaments:detail", args=[event.pk])).content.decode()
    assert "hx-get" not in page and "Cancelled" in page


@pytest.mark.django_db
def test_the_profile_shows_the_players_team_in_an_allegiance_event() -> None:
    event = team_event(name="Allegiance Cup")
    anna, _ = sign_up_team(event, "Red", 2)
    sign_up_team(event, "Blue", 2)
    page = client_for(anna).get(reverse("accounts:profile")).content.decode()
    panel = page[page.index('id="your-events"') :]
    panel = panel[: panel.index("</section>")]
    assert "Allegiance Cup" in panel
    assert 'Team: <strong class="team">Red</strong>' in panel and "Blue" not in panel
    solo = make_event(name="Solo Swiss")
    Entry.objects.create(event=solo, user=anna)
    page = client_for(anna).get(reverse("accounts:profile")).content.decode()
    solo_line = re.search(r"<li>.*?Solo Swiss.*?</li>", page, re.S)
    assert solo_line is not None and "Team:" not in solo_line.group(0)
