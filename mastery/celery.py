"""The Celery application (docs.celeryq.dev "First steps with Django").

Production: a worker (``celery -A mastery worker``) and beat (``celery -A mastery beat``) on Redis
(``REDIS_URL``). Embedded default (no ``REDIS_URL``): tasks run eagerly in-process, and the development
server runs the deadline sweep in a thread (``games.apps``). How the worker survives a broker outage and
catches up: :mod:`mastery.worker` (the ``worker_consumer`` setting) and :mod:`mastery.broker`.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.schedules import crontab

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mastery.settings")

app = Celery("mastery")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect  # type: ignore[untyped-decorator]  # celery ships no type hints
def _daily_schedule(sender: Celery, **kwargs: Any) -> None:
    """Add the daily entries to beat's schedule (Celery docs "Periodic Tasks"): Castle Defence's puzzle
    email at 06:00 (``CELERY_TIMEZONE``), to the players who asked for it (issue 33)."""
    sender.add_periodic_task(
        crontab(hour=6, minute=0),
        sender.signature("anarchy.tasks.puzzle_mails_send"),
        name="anarchy-puzzle-mail",
    )
