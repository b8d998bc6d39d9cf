"""Fixtures of the integration tests: :func:`stack` gives a running SMTP sink and a private Redis queue this
process publishes to; the test starts (and may kill) Celery workers on it. Skipped when PostgreSQL or
Redis is not reachable, except under CI (``CI`` set), where that is a failure."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import EmailStack, database_url, email_stack, redis_problem, redis_url


def unavailable(reason: str) -> None:
    """Skip the test, or fail it under CI (which must run the integration tests)."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the integration tests must run)")
    pytest.skip(reason)


@pytest.fixture
def stack(transactional_db: None, tmp_path: Path) -> Iterator[EmailStack]:
    """SMTP sink + Redis queue + this process publishing to it (see :func:`.harness.email_stack`).

    It depends on ``transactional_db``, so it is torn down (workers stopped) before pytest-django empties
    the database. The workers' log is printed at teardown: pytest shows it when the test failed."""
    from django.db import connection

    if connection.vendor != "postgresql":
        unavailable("the worker integration tests need PostgreSQL (set DATABASE_URL)")
    problem = redis_problem(redis_url())
    if problem is not None:
        unavailable(problem)
    with email_stack(database_url(connection.settings_dict), tmp_path / "worker.log") as s:
        try:
            yield s
        finally:
            s.stop_workers()
            print(f"--- Celery worker log ({s.log_path}) ---\n{s.log_text()}")
            print(f"--- SMTP sink: {len(s.sink.messages)} message(s) ---\n{s.sink.summary()}")
