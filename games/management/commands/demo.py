"""``manage.py demo``: create the demo login and a demo game in progress (idempotent)."""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.core.management.base import BaseCommand

from accounts.models import User
from games import services
from games.models import Game

DEMO_EMAIL = "demo@example.com"
DEMO_PASSWORD = "mastery-demo"


class Command(BaseCommand):
    """Create demo@example.com / mastery-demo (verified) and a 3-player game against two bots."""

    help = "Create the demo user and a demo game in progress (safe to run again)."

    def handle(self, *args: Any, **options: Any) -> None:
        """Create (or reuse) the demo login and a 3-player game against two bots (Django docs "Writing
        custom django-admin commands")."""
        user, created = User.objects.get_or_create(email=DEMO_EMAIL, defaults={"display_name": "Demo"})
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save()
        EmailAddress.objects.get_or_create(
            user=user, email=DEMO_EMAIL, defaults={"verified": True, "primary": True}
        )
        if not Game.objects.filter(created_by=user, title="Demo game").exists():
            game = services.game_create(
                user=user,
                title="Demo game",
                players=3,
                # Relaxed clock (a newcomer never sees "Decide within 0 minutes"); windows go round in turn
                # without a masking delay, so the bots never keep the demo player waiting (issue 16).
                options={"fracture_windows": "in_turn", "fracture_mask": [0, 0]},
                time_control="relaxed",
            )
            services.seats_fill_with_bots(game_id=game.pk, user=user)
            services.game_start(game_id=game.pk, user=user, seed=2026)
        self.stdout.write(f"Demo login: {DEMO_EMAIL} / {DEMO_PASSWORD}")
