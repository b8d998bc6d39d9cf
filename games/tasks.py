"""Celery tasks (architecture §3): thin, taking ids, idempotent. ``deadline_sweep`` runs every minute
under Celery beat (``CELERY_BEAT_SCHEDULE``) and in a thread of the development server."""

from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]  # celery ships no type hints
def deadline_sweep() -> int:
    """Apply the timeout action of every overdue prompt; returns how many were applied. Running it twice
    in a row applies nothing the second time (an applied prompt is closed)."""
    return services.deadlines_sweep()
