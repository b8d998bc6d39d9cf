"""Ratings (architecture §3 services, issue 5): OpenSkill's Plackett–Luce model
(openskill.readthedocs.io, ``openskill.models.PlackettLuce`` with its default parameters), updated by
finishing order when a rated game ends, inside the transaction that ends it, exactly once.

Finishing order: the winners first (R3: the first to reach the victory VP at the end of a turn; Allegiance
teams win together, R105), then the others by their VP at the end; equal VP share a place (OpenSkill's
``ranks`` with ties). A player absent at the end (a bot was standing in after ``ABSENT_AFTER_MISSES``
missed turns, i.e. the player abandoned the game, or the player resigned, issue 30) is placed last,
whatever the VP. Allegiance games rate teams: each team is one OpenSkill team, placed by winning, then by
the team's VP total; a team with an absent member is placed last. Games with a bot seat, imported records
and games created unrated (``Game.unrated``: an unrated tournament's tables, issue 34) are unrated.

Every rated game updates two pools: ``"all"`` and the pool of its player count (``"2"`` … ``"6"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.db import transaction
from openskill.models import PlackettLuce

from games import engine
from games.models import Game, Rating, RatingChange, Seat
from games.store import game_lock, game_state

#: The model every rating uses (OpenSkill defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300).
MODEL = PlackettLuce()


def is_rated(game: Game, seats: Sequence[Seat]) -> bool:
    """Whether ``game`` counts for ratings: not imported, not made unrated (an unrated event's game, issue
    34), every seat a user (no bot seat)."""
    return (
        not game.imported
        and not game.unrated
        and bool(seats)
        and all(s.user_id is not None and not s.is_bot for s in seats)
    )


def finishing_groups(state: engine.GameState, seats: Sequence[Seat]) -> tuple[list[list[int]], list[int]]:
    """The OpenSkill teams (lists of user ids) and their ranks (1 = best, ties share a rank) of a finished
    game, as described in the module docstring.

    Returns:
        ``(teams, ranks)``, in seat order (Allegiance: in order of the teams' lowest seat).
    """
    vp = engine.victory_points(state)
    by_number = {s.number: s for s in seats}
    absent = {
        s.number
        for s in seats
        if s.missed_deadlines >= settings.ABSENT_AFTER_MISSES or s.resigned_at is not None  # issue 30
    }
    groups: dict[int, list[int]] = {}
    for p in state.players:
        team = p.team if p.team >= 0 else 100 + p.seat
        groups.setdefault(team, []).append(p.seat)
    keys = []
    for members in groups.values():
        won = any(m in state.winners for m in members)
        left = any(m in absent for m in members)
        keys.append((left, not won, -sum(vp[m] for m in members)))
    ranks = [1 + sum(1 for other in keys if other < key) for key in keys]
    teams = [
        [uid for m in members if (uid := by_number[m].user_id) is not None] for members in groups.values()
    ]
    return teams, ranks


def rate_game(game: Game, seats: Sequence[Seat], state: engine.GameState, now: datetime) -> bool:
    """Update the ratings of a finished game's players (call inside the transaction that ends the game).

    Returns:
        ``True`` if ratings changed; ``False`` for an unrated game or one already rated (a second call
        changes nothing: ``RatingChange`` is unique per game, user and pool).
    """
    if not state.winners or not is_rated(game, seats):
        return False
    if RatingChange.objects.filter(game=game).exists():
        return False
    teams, ranks = finishing_groups(state, seats)
    users = sorted(u for team in teams for u in team)
    rank_of = {u: rank for team, rank in zip(teams, ranks, strict=True) for u in team}
    changes = []
    fresh = MODEL.rating()
    for pool in ("all", str(game.players)):
        # New players' rows first, tolerating a concurrently finishing game that creates the same rows (the
        # insert waits for that game's transaction, then does nothing); then every row is locked, both in
        # user-id order, so two finishing games neither fail nor deadlock.
        existing = set(Rating.objects.filter(user_id__in=users, pool=pool).values_list("user_id", flat=True))
        missing = [u for u in users if u not in existing]
        if missing:
            Rating.objects.bulk_create(
                [
                    Rating(user_id=u, pool=pool, mu=fresh.mu, sigma=fresh.sigma, conservative=fresh.ordinal())
                    for u in missing
                ],
                ignore_conflicts=True,
            )
        rows = {
            r.user_id: r
            for r in Rating.objects.select_for_update()
            .filter(user_id__in=users, pool=pool)
            .order_by("user_id")
        }
        before = [[MODEL.create_rating([rows[u].mu, rows[u].sigma]) for u in team] for team in teams]
        after = MODEL.rate(before, ranks=list(ranks))
        for team, new_team in zip(teams, after, strict=True):
            for user_id, new in zip(team, new_team, strict=True):
                row = rows[user_id]
                changes.append(
                    RatingChange(
                        game=game,
                        user_id=user_id,
                        pool=pool,
                        rank=rank_of[user_id],
                        mu_before=row.mu,
                        sigma_before=row.sigma,
                        mu_after=new.mu,
                        sigma_after=new.sigma,
                        created_at=now,
                    )
                )
                row.mu, row.sigma, row.conservative = new.mu, new.sigma, new.ordinal()
                row.games += 1
                row.wins += rank_of[user_id] == 1
                row.save(update_fields=["mu", "sigma", "conservative", "games", "wins", "updated_at"])
    RatingChange.objects.bulk_create(changes)
    return True


def rate_finished(*, game_id: int) -> bool:
    """Rate a finished game if it has not been rated yet (for a re-run finishing task or a backfill); under
    the game's row lock. Returns whether ratings changed (``False`` also for a game that no longer exists)."""
    with transaction.atomic():
        found = game_lock(game_id)
        if found is None:
            return False
        game, seats = found
        if game.status != Game.Status.FINISHED or not game.state_hash:
            return False
        return rate_game(game, seats, game_state(game), game.finished_at or game.updated_at)
