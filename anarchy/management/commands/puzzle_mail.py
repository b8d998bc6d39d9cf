"""``manage.py puzzle_mail``: email today's Castle Defence puzzle now to the players who asked for it (once
per player and day: running it again sends nothing new). For the embedded default, which runs no Celery
beat; production's beat runs ``anarchy.tasks.puzzle_mails_send`` daily. ``--pending`` also processes the
stored replies still waiting (a broker that was down when they came)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from anarchy import inbound, mail


class Command(BaseCommand):
    """Send today's puzzle email."""

    help = "Email today's Castle Defence puzzle to the players who asked for it (once per day)."

    def add_arguments(self, parser: CommandParser) -> None:
        """``--pending``: also process the puzzle replies still waiting."""
        parser.add_argument("--pending", action="store_true", help="also process replies still pending")

    def handle(self, *args: Any, **options: Any) -> None:
        """Send, and say how many went."""
        if options["pending"]:
            pending = inbound.mails_pending()
            for mail_id in pending:
                mail.reply_process(mail_id)
            self.stdout.write(f"processed {len(pending)} pending repl{'y' if len(pending) == 1 else 'ies'}")
        sent = mail.mails_send()
        self.stdout.write(f"sent {sent} puzzle email{'' if sent == 1 else 's'}")
