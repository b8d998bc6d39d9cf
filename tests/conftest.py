"""Shared pytest configuration: ``--soak`` turns the random-playout soak on (``make soak``);
``MASTERY_REQUIRE_POSTGRES=1`` (set by CI) makes the suite fail unless it runs on PostgreSQL."""

from __future__ import annotations

import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--soak`` (long random-playout run)."""
    parser.addoption("--soak", action="store_true", default=False, help="run the long playout soak")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``soak``-marked tests unless ``--soak`` is given."""
    if config.getoption("--soak"):
        return
    skip = pytest.mark.skip(reason="soak run: use `make soak`")
    for item in items:
        if "soak" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _require_postgres(django_db_setup: None) -> None:
    """With ``MASTERY_REQUIRE_POSTGRES=1`` the test database must be PostgreSQL (CI sets it)."""
    if os.environ.get("MASTERY_REQUIRE_POSTGRES") == "1":
        from django.db import connection

        assert connection.vendor == "postgresql", "PostgreSQL is required (set DATABASE_URL)"


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Empty the per-process cache before each test: SQLite reuses primary keys after a rolled-back test,
    so a panel cached for "game 1" must not survive into the next test's game 1."""
    from django.core.cache import cache

    cache.clear()
