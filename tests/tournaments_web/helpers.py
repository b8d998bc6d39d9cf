"""Helpers of the tournaments' web tests: events made through the services at a chosen moment, players
signed up, and games ended with chosen places (or played to their end)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.models import Game, Seat
from tests.web.conftest import create_user
from tournaments import services
from tournaments.models import Event, Table


def make_event(organiser: User | None = None, *, now: datetime | None = None, **changes: Any) -> Event:
    """An event announced at ``now`` (default: now) with sign-up open from ``now`` for a day and the start
    a day later; ``changes`` override the :class:`services.EventSpec` fields."""
    now = now or timezone.now()
    fields: dict[str, Any] = {
        "name": "Spring Swiss",
        "format": Event.Format.SWISS,
        "table_size": 4,
        "rounds": 2,
        "signup_opens": now,
        "signup_closes": now + timedelta(days=1),
        "starts_at": now + timedelta(days=1),
        "points_by_rank": {"1": 3, "2": 2, "3": 1, "4": 0},
    }
    fields.update(changes)
    return services.event_create(user=organiser or create_user(), spec=services.EventSpec(**fields), now=now)


def sign_up(event: Event, count: int, *, now: datetime | None = None) -> list[User]:
    """``count`` fresh players signed up for ``event`` (named P1, P2, … in sign-up order)."""
    now = now or event.signup_opens
    users = [create_user(display_name=f"P{i + 1}-{event.pk}") for i in range(count)]
    for user in users:
        services.entry_signup(event_id=event.pk, user=user, now=now)
    return users


def start(event: Event) -> None:
    """Start ``event`` at its start time (round 1 seated)."""
    assert services.event_start(event_id=event.pk, now=event.starts_at) is not None


def round_games(event: Event, number: int) -> list[Game]:
    """The games of round ``number`` of ``event``, in table order."""
    return [
        t.game for t in Table.objects.filter(round__event=event, round__number=number).select_related("game")
    ]


def end_game(game: Game, order: list[User]) -> None:
    """End ``game`` as if played out, with the humans placed in ``order`` (first place first, VP 10, 8, …)
    and any bots after them: what ``games.services.play`` stores when a game ends (``final_rank``,
    ``final_vp``, status ``finished``)."""
    seats = list(Seat.objects.filter(game=game))
    ranked = [next(s for s in seats if s.user_id == u.pk) for u in order]
    ranked += [s for s in seats if s not in ranked]
    for place, seat in enumerate(ranked, start=1):
        seat.final_rank, seat.final_vp = place, max(0, 12 - 2 * place)
    Seat.objects.bulk_update(ranked, ["final_rank", "final_vp"])
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, finished_at=timezone.now())


def players_of(game: Game) -> list[User]:
    """The human players of ``game``, by their user id."""
    seats = Seat.objects.filter(game=game, user__isnull=False).select_related("user").order_by("user_id")
    return [s.user for s in seats if s.user is not None]
