"""Celery tasks of the tournaments (issue 34): the sweep that moves events along by the clock."""

from __future__ import annotations

from celery import shared_task

from tournaments import services


@shared_task  # type: ignore[untyped-decorator]  # celery ships no type hints
def events_sweep() -> int:
    """Open sign-ups, start events at their start time, seat next rounds and finish events (Celery beat,
    every minute). Idempotent: a second run at the same time changes nothing. Returns how many steps did
    something."""
    return services.events_sweep()
