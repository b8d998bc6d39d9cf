"""App config; starts the embedded deadline sweeper inside the development server."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time

from django.apps import AppConfig

log = logging.getLogger(__name__)


class GamesConfig(AppConfig):
    """Games app: models, services, views and the rules engine (games.engine)."""

    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the Celery tasks (so the outbox's publish by name finds ``notifications_send`` in every
        process, and an eager app runs it in-process), and on the embedded default (``runserver`` without
        ``REDIS_URL``) sweep deadlines in a daemon thread of the serving process, so deadlines fire
        without a Celery beat (architecture §4). Django loads the models before ``ready``, hence the imports
        here (Django docs "Applications: AppConfig.ready")."""
        from django.conf import settings

        import games.tasks  # noqa: F401  (registers the tasks with the Celery app)

        serving = "runserver" in sys.argv and (
            os.environ.get("RUN_MAIN") == "true" or "--noreload" in sys.argv
        )
        if serving and not settings.REDIS_URL and settings.DEADLINE_SWEEP_SECONDS > 0:
            threading.Thread(
                target=_sweep_forever, args=(settings.DEADLINE_SWEEP_SECONDS,), daemon=True
            ).start()


def _sweep_forever(every: int) -> None:
    """Run the deadline and outbox sweeps (:mod:`games.tasks`) every ``every`` seconds, until exit."""
    from django.db import close_old_connections

    from games import tasks

    while True:
        time.sleep(every)
        try:
            applied = tasks.deadline_sweep()
            if applied:
                log.info("deadline sweep applied %d timeout action(s)", applied)
            tasks.outbox_sweep()
        except Exception:  # keep the sweeper alive; the next run retries
            log.exception("deadline sweep failed")
        finally:
            close_old_connections()
