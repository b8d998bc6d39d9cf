"""Prepare the web load test (benchmarks/web_load.sh): users, sessions, API tokens and started games.

Writes a JSON file with, per game, its id, the two seats' API tokens (by seat number) and a session cookie
of seat 0's user. Run against the benchmark database (``DATABASE_URL``), after ``migrate``.
"""

from __future__ import annotations

import json
import os
import sys

import django


def main() -> None:
    """Create ``games`` all-human 2-player games (and one 6-player game per 4) and print nothing."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mastery.settings")
    django.setup()
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.models import ApiToken, User
    from games import services

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 32
    out = sys.argv[2] if len(sys.argv) > 2 else "var/bench/games.json"
    games = []
    for g in range(count):
        players = 6 if g % 4 == 3 else 2
        users = [
            User.objects.create_user(
                f"bench{g}-{i}@example.com", "bench-password-123", display_name=f"B{g}.{i}"
            )
            for i in range(players)
        ]
        game = services.game_create(user=users[0], title=f"Bench {g}", players=players, time_control="daily")
        for user in users[1:]:
            services.seat_join(game_id=game.pk, user=user)
        game = services.game_start(game_id=game.pk, user=users[0], seed=1000 + g)
        tokens = {}
        for seat in game.seats.all():
            assert seat.user is not None
            tokens[seat.number] = ApiToken.issue(seat.user, "bench")
        session = SessionStore()
        session["_auth_user_id"] = str(users[0].pk)
        session["_auth_user_backend"] = settings.AUTHENTICATION_BACKENDS[0]
        session["_auth_user_hash"] = users[0].get_session_auth_hash()
        session.create()
        active = game.state["active"] if game.state else 0
        games.append(
            {
                "id": game.pk,
                "players": players,
                "seq": game.seq,
                "active": active,
                "tokens": tokens,
                "session": session.session_key,
            }
        )
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(games, fh)


if __name__ == "__main__":
    main()
