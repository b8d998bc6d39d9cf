"""issue 5 "Ratings", "Leaderboard" and "Player profiles".

Every stored rating is checked against OpenSkill's own Plackett–Luce results, computed here from the rules
without the app's helpers: the winners first (R103: 13 VP, Skirmish 11, R117; Allegiance: the whole team
wins, R109), the rest by their VP at the end, equal VP sharing a place; Allegiance (R105, R106) rates the
teams; a player absent at the end (``ABSENT_AFTER_MISSES`` missed turns: they abandoned the game) is
placed last. Games with a bot seat and imported records are unrated; a game is rated exactly once, in the
transaction that ends it.

Real games are played through :func:`games.services.action_submit` with the engine's random-legal bot
seeded by the game seed and ``seq`` (not by the game's primary key), so each seed always gives the same
short game.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, connections, transaction
from django.test import Client
from django.utils import timezone
from openskill.models import PlackettLuce

from accounts.models import User
from games import engine, services
from games.engine.bot import choose
from games.engine.rng import Rng
from games.models import ActionRecord, Game, Prompt, Rating, RatingChange, Seat
from games.selectors import leaderboard, player_profile
from games.services import play, ratings
from tests.engine import fixtures

from .conftest import create_started_game, create_user, pass_masked, seat_users, state_of
from .factories import WITH_FRACTURE, before_battle, conflict_step, game_from_state

#: An independent model with OpenSkill's defaults (the issue: "Plackett–Luce", default parameters).
PL = PlackettLuce()

#: Allegiance teams of two by seat (R106: teammates sit opposite each other).
PAIRS = {4: [[0, 2], [1, 3]], 6: [[0, 3], [1, 4], [2, 5]]}

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


# --------------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------------


def finish_game(game: Game, rng_seed: int, *, limit: int = 3000) -> Game:
    """Play every decision of the human seats with the random-legal bot seeded by ``rng_seed`` and
    ``seq`` (independent of the game's primary key) until the game is over.

    Returns:
        The finished game, fresh from the database.
    """
    users = seat_users(game)
    for _ in range(limit):
        if game.status != Game.Status.ACTIVE:
            game.refresh_from_db()
            return game
        state = state_of(game)
        seat = next((p.seat for p in engine.pending(state) if p.seat in users and not p.auto), None)
        if seat is None:  # only masked server passes are due (issue 14): let their delays run out
            assert pass_masked(game) >= 1
            game.refresh_from_db()
            continue
        action = choose(state, seat, Rng(rng_seed * 1_000_003 + game.seq))
        assert action is not None
        game = services.action_submit(
            game_id=game.pk, user=users[seat], action=action, expected_seq=game.seq
        ).game
    raise AssertionError(f"game {game.pk} not finished after {limit} moves")


def played_to_the_end(players: int, seed: int, options: dict[str, Any] | None = None) -> engine.GameState:
    """A game played to its end by the engine alone (random-legal bot, seeded)."""
    state = engine.new_game({"players": players, "seed": seed, "options": options or {}})
    for n in range(5000):
        if state.winners:
            return state
        seat = engine.pending(state)[0].seat
        action = choose(state, seat, Rng(seed * 1_000_003 + n))
        assert action is not None
        state = engine.apply(state, seat, action).state
    raise AssertionError("no winner")


def record_of(players: int = 2, seed: int = 21, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A finished game record (docs/game-record.md) played by the engine alone; 2-player Skirmish
    (R117) seed 21 ends after 32 actions."""
    setup = {"players": players, "seed": seed, "options": {"skirmish": True} if options is None else options}
    state = engine.new_game(setup)
    actions: list[dict[str, Any]] = []
    while not state.winners:
        seat = engine.pending(state)[0].seat
        action = choose(state, seat, Rng(seed * 1_000_003 + len(actions)))
        assert action is not None
        actions.append({"seat": seat, "action": action.to_dict(), "source": "web"})
        state = engine.apply(state, seat, action).state
    # the canonical setup: it names its rules edition, as a medieval-mastery/2 record must (issue 31)
    canonical = engine.normalize_setup(setup)
    return {"format": engine.RECORD_FORMAT, "title": "Engine game", "setup": canonical, "actions": actions}


@pytest.fixture
def steady_bots(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Bots (and stand-ins for absent players) choose by ``seq`` only, not by the game's primary key, so a
    game with bots has the same length on every database."""

    def bot_action(
        state: engine.GameState, seat: int, _game_id: int, seq: int, _level: str = "normal"
    ) -> engine.Action:
        action = choose(state, seat, Rng(900_001 + seq))
        assert action is not None
        return action

    monkeypatch.setattr(play, "bot_action", bot_action)
    yield


def with_vp(
    players: int, vp: list[int], winners: list[int], options: dict[str, Any] | None = None
) -> engine.GameState:
    """A state whose territories give exactly ``vp`` (per seat) and whose ``winners`` are set: the map is
    cleared and territories are handed out (largest first) until each seat has its VP."""
    state = fixtures.edit(fixtures.game(players=players, seed=5, options=options))
    fixtures.clear_map(state)
    value = {}
    for t in fixtures.territories(state):
        fixtures.place(state, t, 0, 1)
        value[t] = engine.victory_points(state)[0]
        fixtures.place(state, t, -1, 0)
    free = sorted(value, key=lambda t: -value[t])
    for seat in sorted(range(players), key=lambda s: -vp[s]):
        need = vp[seat]
        for t in list(free):
            if 0 < value[t] <= need:
                fixtures.place(state, t, seat, 1)
                free.remove(t)
                need -= value[t]
    assert engine.victory_points(state) == vp, "test setup: VP not reachable"
    state.winners = list(winners)
    state.phase = engine.Phase.OVER
    return state


def competition_ranks(keys: list[Any]) -> list[int]:
    """Ranks ("1224"): 1 + the position of the first equal key in sorted order (lower key is better)."""
    ordered = sorted(keys)
    return [ordered.index(k) + 1 for k in keys]


def expected_ratings(
    state: engine.GameState,
    user_of: dict[int, int],
    absent: AbstractSet[int] = frozenset(),
    prior: dict[tuple[int, str], tuple[float, float]] | None = None,
) -> dict[tuple[int, str], tuple[int, float, float, float, float]]:
    """OpenSkill's result for a finished game, from the rules: ``(user, pool) -> (rank, mu_before,
    sigma_before, mu_after, sigma_after)`` for the pools "all" and the player count."""
    n = state.num_players
    allegiance = state.setup["options"].get("allegiance")
    teams = PAIRS[n] if allegiance == "pairs" else [[s] for s in range(n)]
    vp = engine.victory_points(state)
    keys = [
        (
            any(s in absent for s in team),  # an absent member puts the team last
            not any(s in state.winners for s in team),  # winners first
            -sum(vp[s] for s in team),  # then VP, more is better
        )
        for team in teams
    ]
    ranks = competition_ranks(keys)
    out = {}
    for pool in ("all", str(n)):
        before = {
            s: (prior or {}).get((user_of[s], pool), (PL.rating().mu, PL.rating().sigma))
            for team in teams
            for s in team
        }
        rated = PL.rate(
            [[PL.create_rating(list(before[s])) for s in team] for team in teams],
            ranks=[float(r) for r in ranks],
        )
        for team, rank, new_team in zip(teams, ranks, rated, strict=True):
            for s, new in zip(team, new_team, strict=True):
                out[(user_of[s], pool)] = (rank, *before[s], new.mu, new.sigma)
    return out


def assert_rated_as(
    game: Game, expected: dict[tuple[int, str], tuple[int, float, float, float, float]]
) -> None:
    """Every RatingChange of ``game`` and every current Rating row equal ``expected`` (Ratings: when the
    game is each player's latest rated game)."""
    changes = {(c.user_id, c.pool): c for c in RatingChange.objects.filter(game=game)}
    assert set(changes) == set(expected)
    for key, (rank, mu0, sigma0, mu, sigma) in expected.items():
        c = changes[key]
        assert c.rank == rank, key
        assert (c.mu_before, c.sigma_before) == pytest.approx((mu0, sigma0), rel=1e-9), key
        assert (c.mu_after, c.sigma_after) == pytest.approx((mu, sigma), rel=1e-9), key
        row = Rating.objects.get(user_id=key[0], pool=key[1])
        assert (row.mu, row.sigma) == pytest.approx((mu, sigma), rel=1e-9), key
        assert row.conservative == pytest.approx(mu - 3 * sigma, rel=1e-9), key


def finished_row(players: int, users: list[User], *, imported: bool = False, **extra: Any) -> Game:
    """A finished Game row with one user per seat (for :func:`games.services.ratings.rate_game` on a built
    state)."""
    game = Game.objects.create(
        title="Built",
        created_by=users[0],
        players=players,
        status=Game.Status.FINISHED,
        imported=imported,
        finished_at=NOW,
        **extra,
    )
    for n, user in enumerate(users):
        Seat.objects.create(game=game, number=n, user=user)
    return game


def rate_built(
    state: engine.GameState, *, absent: AbstractSet[int] = frozenset(), imported: bool = False
) -> tuple[Game, dict[int, int]]:
    """Rate ``state`` as a finished game of fresh users; seats in ``absent`` missed enough turns."""
    users = [create_user() for _ in range(state.num_players)]
    game = finished_row(state.num_players, users, imported=imported, winners=list(state.winners))
    for seat in Seat.objects.filter(game=game, number__in=absent):
        seat.missed_deadlines = settings.ABSENT_AFTER_MISSES
        seat.save(update_fields=["missed_deadlines"])
    seats = list(Seat.objects.filter(game=game).order_by("number"))
    ratings.rate_game(game, seats, state, NOW)
    return game, {s.number: s.user_id for s in seats if s.user_id is not None}


def all_ratings() -> list[tuple[Any, ...]]:
    return list(
        Rating.objects.order_by("user_id", "pool").values_list(
            "user_id", "pool", "mu", "sigma", "games", "wins"
        )
    )


# --------------------------------------------------------------------------------------------------------
# Ratings equal OpenSkill's own results
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("players", "seed", "options"),
    [(2, 21, {"skirmish": True}), (3, 28, {"skirmish": True}), (4, 16, {"allegiance": "pairs"})],
    ids=["2p", "3p", "4p-allegiance"],
)
def test_a_real_finished_game_is_rated_like_openskill(
    players: int, seed: int, options: dict[str, Any]
) -> None:
    """R103/R117 (winner), R109 (team victory): a game played to its end through the services stores,
    for every player and both pools, exactly the ratings OpenSkill's Plackett–Luce gives for the finishing
    order (winners, then VP); Allegiance teammates share their team's place."""
    game = finish_game(create_started_game(humans=players, seed=seed, options=options), seed)
    assert game.status == Game.Status.FINISHED
    state = state_of(game)
    user_of = {n: u.pk for n, u in seat_users(game).items()}
    expected = expected_ratings(state, user_of)
    assert_rated_as(game, expected)
    assert {pool for _u, pool in expected} == {"all", str(players)}
    for n in state.winners:  # the winners (a whole team under Allegiance) share the first place
        assert expected[(user_of[n], "all")][0] == 1
        assert Rating.objects.get(user_id=user_of[n], pool="all").wins == 1
    for row in Rating.objects.all():
        assert row.games == 1 and row.provisional
    if options.get("allegiance"):
        for a, b in PAIRS[players]:
            ca, cb = (RatingChange.objects.get(game=game, user_id=user_of[s], pool="all") for s in (a, b))
            assert ca.rank == cb.rank


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("players", "seed", "options"),
    [(4, 3, {}), (5, 3, {"skirmish": True}), (6, 2, {"skirmish": True}), (6, 1, {"allegiance": "pairs"})],
    ids=["4p", "5p", "6p", "6p-allegiance"],
)
def test_rate_game_of_played_out_states_matches_openskill(
    players: int, seed: int, options: dict[str, Any]
) -> None:
    """The larger tables (R1: up to 6 players; R105: Allegiance pairs of 6) rated from engine play-outs by
    ``rate_game`` (what the finishing write calls) give OpenSkill's results in both pools."""
    state = played_to_the_end(players, seed, options)
    game, user_of = rate_built(state)
    assert_rated_as(game, expected_ratings(state, user_of))


@pytest.mark.django_db
def test_equal_vp_share_a_place() -> None:
    """R103: seat 0 won; seats 1 and 2 ended on 5 VP each and share the second place (ranks 1, 2, 2, 4),
    so their new ratings are equal."""
    state = with_vp(4, [13, 5, 5, 2], winners=[0])
    game, user_of = rate_built(state)
    ranks = [RatingChange.objects.get(game=game, user_id=user_of[s], pool="all").rank for s in range(4)]
    assert ranks == [1, 2, 2, 4]
    assert_rated_as(game, expected_ratings(state, user_of))
    one, two = (Rating.objects.get(user_id=user_of[s], pool="4") for s in (1, 2))
    assert (one.mu, one.sigma) == pytest.approx((two.mu, two.sigma))


@pytest.mark.django_db
def test_allegiance_teams_placed_by_team_vp_with_ties() -> None:
    """R109: team 0+3 won; teams 1+4 (4 + 6 VP) and 2+5 (7 + 3 VP) have equal totals and share a place,
    although their members' own VP differ."""
    state = with_vp(6, [11, 4, 7, 9, 6, 3], winners=[0, 3], options={"allegiance": "pairs"})
    game, user_of = rate_built(state)
    ranks = [RatingChange.objects.get(game=game, user_id=user_of[s], pool="6").rank for s in range(6)]
    assert ranks == [1, 2, 2, 1, 2, 2]
    assert_rated_as(game, expected_ratings(state, user_of))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("vp", "winners", "absent", "ranks"),
    [
        ([13, 10, 2], [0], {1}, [1, 3, 2]),  # second on VP, but abandoned: last
        ([13, 10, 2], [0], {0}, [3, 1, 2]),  # the "winner" (a bot stood in) abandoned: a loss
        ([13, 10, 2], [0], {1, 2}, [1, 2, 3]),  # two absent: both behind, by VP among themselves
    ],
    ids=["high-vp", "winner", "two-absent"],
)
def test_an_absent_player_is_placed_last(
    vp: list[int], winners: list[int], absent: set[int], ranks: list[int]
) -> None:
    """Issue 5: a game abandoned by a player (absent at the end) counts as a loss for that player, whatever
    their VP."""
    state = with_vp(3, vp, winners=winners)
    game, user_of = rate_built(state, absent=absent)
    got = [RatingChange.objects.get(game=game, user_id=user_of[s], pool="all").rank for s in range(3)]
    assert got == ranks
    assert_rated_as(game, expected_ratings(state, user_of, absent))


@pytest.mark.django_db
def test_an_allegiance_team_with_an_absent_member_is_placed_last() -> None:
    """R109 with an abandoning player: team 0+2 reached 20 VP, but seat 2 had abandoned the game, so
    their team is placed behind team 1+3."""
    state = with_vp(4, [12, 3, 8, 2], winners=[0, 2], options={"allegiance": "pairs"})
    game, user_of = rate_built(state, absent={2})
    got = [RatingChange.objects.get(game=game, user_id=user_of[s], pool="all").rank for s in range(4)]
    assert got == [2, 1, 2, 1]
    assert_rated_as(game, expected_ratings(state, user_of, {2}))


@pytest.mark.django_db
@pytest.mark.usefixtures("steady_bots")
def test_a_player_who_abandons_a_real_game_loses_it() -> None:
    """A player whose turns time out three times in a row (issue 4: absent, a bot plays their seat) is
    placed last when the game ends, whoever the stand-in bot made win."""
    game = create_started_game(humans=2, seed=4)
    users = seat_users(game)
    leaver = state_of(game).active
    stayer = 1 - leaver
    while game.status == Game.Status.ACTIVE:
        mine = Seat.objects.get(game=game, number=leaver)
        state = state_of(game)
        pending = engine.pending(state)
        if mine.missed_deadlines < settings.ABSENT_AFTER_MISSES and any(p.seat == leaver for p in pending):
            past = timezone.now() - timedelta(seconds=1)
            Prompt.objects.filter(game=game, seat=leaver).update(deadline_at=past)
            assert services.deadlines_sweep() >= 1
        elif not any(p.seat == stayer and not p.auto for p in pending):
            assert pass_masked(game) >= 1  # only masked server passes are due (issue 14)
        else:
            seat = next(p.seat for p in pending if p.seat == stayer and not p.auto)
            action = choose(state, seat, Rng(4_000_000 + game.seq))
            assert action is not None
            services.action_submit(game_id=game.pk, user=users[seat], action=action, expected_seq=game.seq)
        game.refresh_from_db()
    assert Seat.objects.get(game=game, number=leaver).missed_deadlines >= settings.ABSENT_AFTER_MISSES
    assert ActionRecord.objects.filter(game=game, seat=leaver, source="bot").exists()
    user_of = {n: u.pk for n, u in users.items()}
    assert RatingChange.objects.get(game=game, user_id=user_of[leaver], pool="all").rank == 2
    assert RatingChange.objects.get(game=game, user_id=user_of[stayer], pool="all").rank == 1
    assert_rated_as(game, expected_ratings(state_of(game), user_of, {leaver}))


# --------------------------------------------------------------------------------------------------------
# Unrated games
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.usefixtures("steady_bots")
def test_a_game_with_a_bot_seat_is_unrated() -> None:
    """Issue 5: bots and games with a bot seat are unrated — no Rating row, no RatingChange, and re-running
    the finishing task changes nothing."""
    game = finish_game(create_started_game(humans=1, bots=1, seed=21, options={"skirmish": True}), 21)
    assert game.status == Game.Status.FINISHED
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    assert ratings.rate_finished(game_id=game.pk) is False
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


@pytest.mark.django_db
def test_imported_games_are_unrated() -> None:
    """An imported record (docs/game-record.md) is a replay only: importing stores no rating, and even a
    game row marked imported whose seats are users is not rated."""
    record = record_of()
    state = engine.replay(record["setup"], record["actions"])
    assert state.winners
    imported = services.game_import(user=create_user(), record=record)
    assert imported.status == Game.Status.FINISHED and imported.imported
    assert ratings.rate_finished(game_id=imported.pk) is False
    game, _users = rate_built(state, imported=True)
    assert ratings.rate_game(game, list(game.seats.all()), state, NOW) is False
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


# --------------------------------------------------------------------------------------------------------
# Exactly once, in the transaction that ends the game; accumulation; provisional
# --------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_game_is_rated_exactly_once() -> None:
    """Re-running the finishing task (``rate_finished``), calling ``rate_game`` again or acting in the
    finished game changes no rating."""
    game = finish_game(create_started_game(humans=2, seed=21, options={"skirmish": True}), 21)
    before = (all_ratings(), list(RatingChange.objects.order_by("pk").values()))
    assert len(before[0]) == 4 and len(before[1]) == 4
    assert ratings.rate_finished(game_id=game.pk) is False
    seats = list(Seat.objects.filter(game=game).select_related("user").order_by("number"))
    assert ratings.rate_game(game, seats, state_of(game), timezone.now()) is False
    user = seat_users(game)[0]
    with pytest.raises(services.Conflict):
        services.action_submit(game_id=game.pk, user=user, action=engine.EndTurn(), expected_seq=game.seq)
    assert (all_ratings(), list(RatingChange.objects.order_by("pk").values())) == before


@pytest.mark.django_db
def test_rate_finished_rates_an_unrated_finished_game_once() -> None:
    """The finishing task is a backfill too: a finished game whose ratings are missing is rated once by
    ``rate_finished``, the same way the finishing write would have; a second run changes nothing."""
    game = finish_game(create_started_game(humans=2, seed=21, options={"skirmish": True}), 21)
    expected = {(c.user_id, c.pool): (c.mu_after, c.sigma_after) for c in RatingChange.objects.all()}
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    assert ratings.rate_finished(game_id=game.pk) is True
    got = {(c.user_id, c.pool): (c.mu_after, c.sigma_after) for c in RatingChange.objects.all()}
    assert got == expected
    snapshot = all_ratings()
    assert ratings.rate_finished(game_id=game.pk) is False
    assert all_ratings() == snapshot
    active = create_started_game(humans=2, seed=3)
    assert ratings.rate_finished(game_id=active.pk) is False


@pytest.mark.django_db
def test_ratings_are_written_in_the_transaction_that_ends_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """If rating fails, the finishing move is not stored either (same transaction); once rating works the
    same move finishes and rates the game."""
    real = ratings.rate_game

    def broken(*args: Any, **kwargs: Any) -> bool:
        real(*args, **kwargs)
        raise RuntimeError("rating failed")

    monkeypatch.setattr("games.services.play.rate_game", broken)
    game = create_started_game(humans=2, seed=21, options={"skirmish": True})
    with pytest.raises(RuntimeError):
        finish_game(game, 21)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and not game.winners
    assert ActionRecord.objects.filter(game=game).count() == game.seq
    assert not Rating.objects.exists() and not RatingChange.objects.exists()
    monkeypatch.setattr("games.services.play.rate_game", real)
    game = finish_game(game, 21)
    assert game.status == Game.Status.FINISHED
    assert RatingChange.objects.filter(game=game).count() == 4


@pytest.mark.django_db
def test_a_second_rated_game_accumulates(client: Client) -> None:
    """Two rated games of the same players: each Rating has 2 games, the history 2 entries per pool, the
    second game starts from the first one's result and ends where OpenSkill says; the profile shows both
    games and a two-point rating chart ending at the current conservative rating."""
    first = finish_game(create_started_game(humans=2, seed=21, options={"skirmish": True}), 21)
    players = list(seat_users(first).values())
    after_first = {(c.user_id, c.pool): (c.mu_after, c.sigma_after) for c in RatingChange.objects.all()}
    second = finish_game(create_started_game(humans=players, seed=10, options={"skirmish": True}), 10)
    user_of = {n: u.pk for n, u in seat_users(second).items()}
    assert_rated_as(second, expected_ratings(state_of(second), user_of, prior=after_first))
    for user in players:
        for pool in ("all", "2"):
            row = Rating.objects.get(user=user, pool=pool)
            history = list(RatingChange.objects.filter(user=user, pool=pool).order_by("created_at", "pk"))
            assert row.games == 2 and len(history) == 2
            assert [c.game_id for c in history] == [first.pk, second.pk]
            assert row.wins == sum(c.rank == 1 for c in history)
            assert (history[1].mu_before, history[1].sigma_before) == (
                history[0].mu_after,
                history[0].sigma_after,
            )
        profile = player_profile(user, None)
        assert profile.played == 2 and len(profile.history) == 2
        current = Rating.objects.get(user=user, pool="all").conservative
        assert profile.history[-1][1] == pytest.approx(current)
        assert len(chart_points(client.get(f"/players/{user.pk}/").content.decode())) == 2


@pytest.mark.django_db
def test_provisional_until_ten_rated_games() -> None:
    """Issue 5: the rating is "provisional" until the player has 10 rated games."""
    assert settings.PROVISIONAL_GAMES == 10
    user = create_user()
    row = Rating.objects.create(user=user, pool="all", mu=25, sigma=8, conservative=1, games=0)
    for games, provisional in [(0, True), (1, True), (9, True), (10, False), (11, False)]:
        row.games = games
        row.save()
        assert Rating.objects.get(pk=row.pk).provisional is provisional, games


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks (set DATABASE_URL)")
@pytest.mark.django_db(transaction=True)
def test_two_games_of_new_players_finishing_at_once_both_rate() -> None:
    """Two games with the same new players end at the same time: the second waits for the first (no
    duplicate-row error) and rates from the first's result, so each player ends with 2 games."""
    users = [create_user(), create_user()]
    states = [with_vp(2, [13, 4], winners=[0]), with_vp(2, [3, 13], winners=[1])]
    games = [finished_row(2, users, winners=list(s.winners)) for s in states]
    first_rated, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def rate(i: int, hold: bool) -> None:
        try:
            with transaction.atomic():
                seats = list(Seat.objects.filter(game=games[i]).order_by("number"))
                assert ratings.rate_game(games[i], seats, states[i], NOW)
                if hold:
                    first_rated.set()
                    assert release.wait(20)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    one = threading.Thread(target=rate, args=(0, True))
    one.start()
    assert first_rated.wait(20)
    two = threading.Thread(target=rate, args=(1, False))
    two.start()
    two.join(0.5)  # the second game now waits for the first one's rows
    release.set()
    one.join(20)
    two.join(20)
    assert not errors, errors
    for user in users:
        for pool in ("all", "2"):
            assert Rating.objects.get(user=user, pool=pool).games == 2
    assert RatingChange.objects.count() == 8


# --------------------------------------------------------------------------------------------------------
# Leaderboard
# --------------------------------------------------------------------------------------------------------


def rating_row(name: str, conservative: float, games: int, pool: str = "all", wins: int = 0) -> User:
    user = create_user(display_name=name)
    sigma = 2.0
    Rating.objects.create(
        user=user,
        pool=pool,
        mu=conservative + 3 * sigma,
        sigma=sigma,
        conservative=conservative,
        games=games,
        wins=wins,
    )
    return user


def table_rows(html: str) -> list[tuple[str, str, str, bool]]:
    """Leaderboard table rows: (place, name, rating cell text, provisional class)."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = []
    for attrs, cells in re.findall(r"<tr([^>]*)>(.*?)</tr>", body, re.S):
        tds = re.findall(r"<td>(.*?)</td>", cells, re.S)
        name = re.sub(r"<[^>]+>", "", tds[1]).strip()
        rows.append((tds[0].strip(), name, re.sub(r"<[^>]+>", "", tds[2]).strip(), "provisional" in attrs))
    return rows


@pytest.mark.django_db
def test_leaderboard_established_first_by_conservative_rating_ties_share(client: Client) -> None:
    """Established players (10+ games) come before provisional ones, each by conservative rating
    (μ − 3σ), highest first; equal ratings share a place; players without games are not listed; the
    provisional mark shows only on provisional rows."""
    rating_row("Ada", 20.0, 12)
    rating_row("Bea", 10.0, 15)
    rating_row("Cid", 10.0, 10)
    rating_row("Dot", 30.0, 3)  # highest rating, but provisional
    rating_row("Eve", 5.0, 9)
    rating_row("Fay", 50.0, 0)  # no rated game
    rows = leaderboard("all")
    assert [(r.place, r.user.name, r.provisional) for r in rows] == [
        (1, "Ada", False),
        (2, "Bea", False),
        (2, "Cid", False),
        (4, "Dot", True),
        (5, "Eve", True),
    ]
    html = client.get("/leaderboard/").content.decode()
    got = table_rows(html)
    assert [(place, name, prov) for place, name, _r, prov in got] == [
        ("1", "Ada", False),
        ("2", "Bea", False),
        ("2", "Cid", False),
        ("4", "Dot", True),
        ("5", "Eve", True),
    ]
    assert [r.split()[0] for _p, _n, r, _v in got] == ["20.0", "10.0", "10.0", "30.0", "5.0"]
    assert all(("?" in r) == prov for _p, _n, r, prov in got)


@pytest.mark.django_db
def test_leaderboard_by_player_count_and_invalid_pool_falls_back(client: Client) -> None:
    """``?players=N`` shows the N-player pool only; an unknown pool shows the overall board."""
    rating_row("Ada", 20.0, 12, pool="all")
    rating_row("Tri", 15.0, 11, pool="3")
    rating_row("Qua", 12.0, 11, pool="4")

    def names(html: str) -> list[str]:
        return [n for _p, n, _r, _v in table_rows(html)]

    three = client.get("/leaderboard/?players=3")
    assert three.status_code == 200 and three.context["pool"] == "3"
    assert names(three.content.decode()) == ["Tri"]
    assert 'aria-current="page"' in three.content.decode().split("?players=3", 1)[1].split("</a>", 1)[0]
    assert names(client.get("/leaderboard/?players=4").content.decode()) == ["Qua"]
    assert "No rated games yet" in client.get("/leaderboard/?players=6").content.decode()
    for bad in ("9", "abc", "", "all", "1"):
        response = client.get(f"/leaderboard/?players={bad}")
        assert response.status_code == 200 and response.context["pool"] == "all", bad
        assert names(response.content.decode()) == ["Ada"], bad


# --------------------------------------------------------------------------------------------------------
# Player profiles
# --------------------------------------------------------------------------------------------------------


def chart_points(html: str) -> list[str]:
    match = re.search(r'<polyline points="([^"]*)"', html)
    return match.group(1).split() if match else []


@pytest.mark.django_db
def test_profile_shows_games_played_won_ratings_and_history_chart(client: Client) -> None:
    """After a rated game the profile shows games played and won, the provisional ratings of both pools and
    a rating-history chart with one point per rated game (see also the two-game test)."""
    first = finish_game(create_started_game(humans=2, seed=21, options={"skirmish": True}), 21)
    users = seat_users(first)
    winner, loser = users[first.winners[0]], users[1 - first.winners[0]]
    html = client.get(f"/players/{winner.pk}/").content.decode()
    assert "1 game played" in html and "1 game won" in html
    assert html.count(">provisional</abbr>") == 2  # "all" and "2"
    assert len(chart_points(html)) == 1
    conservative = Rating.objects.get(user=winner, pool="all").conservative
    assert f"<td>{round(conservative, 1)}</td>" in html  # the history table gives the same value
    lost = client.get(f"/players/{loser.pk}/").content.decode()
    assert "1 game played" in lost and "0 games won" in lost
    assert client.get("/players/999999/").status_code == 404


@pytest.mark.django_db
def test_profile_counts_a_team_victory_for_every_teammate() -> None:
    """R109: all members of the winning team win — each one's profile counts the game as won."""
    game = finish_game(create_started_game(humans=4, seed=16, options={"allegiance": "pairs"}), 16)
    vp = engine.victory_points(state_of(game))
    assert vp[game.winners[0]] != vp[game.winners[1]]  # the case that matters
    users = seat_users(game)
    for n in game.winners:
        assert player_profile(users[n], None).won == 1, n


@pytest.mark.django_db
def test_profile_reliability_counts_decisions_in_time_and_missed_deadlines(client: Client) -> None:
    """Reliability (share of deadlines met): decisions a player made in time count as met, a deadline the
    sweep had to answer (source ``timeout``) as missed; other players' moves and window answers do not
    count."""
    game = create_started_game(humans=2, seed=5)
    users = seat_users(game)
    first = state_of(game).active
    second = 1 - first
    # The first player plays their turn; then the second player's turn times out.
    while state_of(game).active == first and game.status == Game.Status.ACTIVE:
        state = state_of(game)
        seat = engine.pending(state)[0].seat
        action = choose(state, seat, Rng(77 + game.seq))
        assert action is not None
        game = services.action_submit(
            game_id=game.pk, user=users[seat], action=action, expected_seq=game.seq
        ).game
    Prompt.objects.filter(game=game, seat=second).update(deadline_at=timezone.now() - timedelta(seconds=1))
    assert services.deadlines_sweep() == 1
    # One decision per deadline: the turn counts once (its end_turn), not once per advance.
    # Not ``respond``: only a Fracture holder answers a window (issue 14), so the profile leaves it out.
    closers: tuple[str, ...] = ("end_turn", "choose_conflict", "play_support", "pass_support")
    closers += ("discard_choice", "insight_order", "prosperity_choice", "fear_choice")
    web = {
        s: ActionRecord.objects.filter(game=game, seat=s, source="web", payload__type__in=closers).count()
        for s in (first, second)
    }
    assert web[first] > 0
    p1, p2 = (player_profile(users[s], None) for s in (first, second))
    assert (p1.decisions, p1.missed, p1.reliability) == (web[first], 0, 1.0)
    assert (p2.decisions, p2.missed) == (web[second], 1)
    assert p2.reliability == pytest.approx(web[second] / (web[second] + 1))
    html = client.get(f"/players/{users[second].pk}/").content.decode()
    share = round(100 * web[second] / (web[second] + 1))
    assert f"{web[second]} decisions in time, 1 deadlines missed ({share} %)" in html
    assert "(100 %)" in client.get(f"/players/{users[first].pk}/").content.decode()
    assert "no decisions yet" in client.get(f"/players/{create_user().pk}/").content.decode()


def _battle_decide(game: Game, seat: int, card: str) -> Game:
    """Seat ``seat`` puts its conflict card ``card`` face down from the game page (source ``web``)."""
    state = state_of(game)
    payload = {"type": "choose_conflict", "card": fixtures.cid(seat, fixtures.card_index(state, card))}
    user = seat_users(game)[seat]
    return services.action_submit(
        game_id=game.pk, user=user, action=engine.parse_action(payload), expected_seq=game.seq
    ).game


@pytest.mark.django_db
def test_profile_reliability_counts_battle_decisions_but_not_a_sealed_windows_answers(client: Client) -> None:
    """issue 14, R95: a window's answer, made in time or by the sweep, tells that its seat held Fracture
    (the server passes for the others), so the reliability counts neither; the battle's conflict cards
    (one decision each for attacker and defender) still count as decisions in time."""
    s, attack = before_battle(
        3, arts={0: ["sceptre_rage"]}, hands={1: WITH_FRACTURE}, options={"fracture_mask": [60, 600]}
    )
    s = fixtures.act(s, 0, attack).state
    assert s.window is not None and s.window.asked == [1, 2]
    game = game_from_state(s)
    users = seat_users(game)
    # Seat 1 (holding Fracture) lets the window run out; the server passes for seat 2 after the mask.
    assert pass_masked(game) == 1
    Prompt.objects.filter(game=game, seat=1).update(deadline_at=timezone.now() - timedelta(seconds=1))
    assert services.deadlines_sweep() == 1
    answers = ActionRecord.objects.filter(game=game, payload__type="respond")
    assert sorted(answers.values_list("seat", "source")) == [(1, "timeout"), (2, "server")]
    game.refresh_from_db()
    state = state_of(game)
    assert state.window is None and sorted(p.seat for p in engine.pending(state)) == [0, 1]
    game = _battle_decide(game, 0, "audacious_charge")
    game = _battle_decide(game, 1, "probing_attack")
    shown = {n: player_profile(users[n], users[0]) for n in (0, 1, 2)}
    assert {n: (p.decisions, p.missed) for n, p in shown.items()} == {0: (1, 0), 1: (1, 0), 2: (0, 0)}
    client.force_login(users[0])
    html = client.get(f"/players/{users[1].pk}/").content.decode()
    assert "1 decisions in time, 0 deadlines missed (100 %)" in html
    assert "no decisions yet" in client.get(f"/players/{users[2].pk}/").content.decode()


@pytest.mark.django_db
def test_profile_reliability_counts_a_private_game_only_for_its_players(client: Client) -> None:
    """Like the games listed, a private game's decisions count in the reliability only for a viewer seated
    in it: a stranger learns nothing of the player's activity there."""
    game = game_from_state(conflict_step(), private=True)
    users = seat_users(game)
    _battle_decide(game, 0, "audacious_charge")
    stranger = create_user()
    assert player_profile(users[0], users[1]).decisions == 1
    assert player_profile(users[0], users[0]).decisions == 1
    assert player_profile(users[0], stranger).decisions == 0
    assert player_profile(users[0], None).decisions == 0
    url = f"/players/{users[0].pk}/"
    assert "no decisions yet" in client.get(url).content.decode()
    client.force_login(users[1])
    assert "1 decisions in time" in client.get(url).content.decode()


@pytest.mark.django_db
def test_profile_lists_private_games_only_to_their_players(client: Client) -> None:
    """A player's current and finished games: a stranger (or anonymous visitor) sees the public ones
    only; a fellow player of a private game sees it too."""
    owner, mate, stranger = create_user(), create_user(), create_user()
    titles = {
        ("Open table", False, Game.Status.ACTIVE),
        ("Hidden table", True, Game.Status.ACTIVE),
        ("Open finished", False, Game.Status.FINISHED),
        ("Hidden finished", True, Game.Status.FINISHED),
    }
    for title, private, status in titles:
        game = Game.objects.create(
            title=title, created_by=owner, players=2, private=private, status=status, finished_at=NOW
        )
        Seat.objects.create(game=game, number=0, user=owner)
        Seat.objects.create(game=game, number=1, user=mate)
    url = f"/players/{owner.pk}/"
    anonymous = client.get(url).content.decode()
    client.force_login(stranger)
    seen_by_stranger = client.get(url).content.decode()
    for html in (anonymous, seen_by_stranger):
        assert "Open table" in html and "Open finished" in html
        assert "Hidden table" not in html and "Hidden finished" not in html
    client.force_login(mate)
    seen_by_mate = client.get(url).content.decode()
    assert all(t in seen_by_mate for t in ("Open table", "Hidden table", "Open finished", "Hidden finished"))
    profile = player_profile(owner, stranger)
    assert [g.title for g in profile.current] == ["Open table"]
    assert [g.title for g in profile.finished] == ["Open finished"]
