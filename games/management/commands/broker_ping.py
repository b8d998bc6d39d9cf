"""``manage.py broker_ping``: exit 0 when the Celery broker answers, 1 otherwise: the health check of
Celery beat in docker/compose.yaml (issue 28). The worker's own check is ``celery inspect ping``, which
also needs the worker to answer through the broker."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from mastery.celery import app


class Command(BaseCommand):
    """Connect to the broker once, within ``--timeout`` seconds."""

    help = "Exit 0 if the Celery broker (REDIS_URL) answers, 1 otherwise."

    def add_arguments(self, parser: CommandParser) -> None:
        """``--url`` (default: the configured broker) and ``--timeout`` in seconds (default 5)."""
        parser.add_argument("--url", default=None, help="broker URL (default: CELERY_BROKER_URL)")
        parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait (default 5)")

    def handle(self, *args: Any, **options: Any) -> None:
        """Open and close one broker connection (kombu's ``Connection.ensure_connection``, one try).

        Raises:
            CommandError: the broker did not answer (exit status 1).
        """
        with app.connection_for_write(options["url"]) as conn:
            try:
                conn.ensure_connection(max_retries=1, timeout=options["timeout"])
            except Exception as exc:  # kombu raises its OperationalError, or the transport's own error
                raise CommandError(f"the broker does not answer: {exc}") from exc
        self.stdout.write("broker ok")
