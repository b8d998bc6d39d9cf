"""``manage.py verify_game ID``: replay a game from its records and check every hash."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.services import game_verify


class Command(BaseCommand):
    """Replay a stored game from its setup and ActionRecords; fail on the first hash mismatch."""

    help = "Replay a game from its action records and check every stored state hash."

    def add_arguments(self, parser: CommandParser) -> None:
        """One argument: the game's id."""
        parser.add_argument("game_id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        """Replay the game; ``CommandError`` names the first mismatch."""
        ok, message = game_verify(game_id=options["game_id"])
        if not ok:
            raise CommandError(message)
        self.stdout.write(self.style.SUCCESS(message))
