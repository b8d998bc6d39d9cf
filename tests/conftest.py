"""Shared pytest configuration: ``--soak`` turns the random-playout soak on (``make soak``);
``MASTERY_REQUIRE_POSTGRES=1`` (set by CI) makes the suite fail unless it runs on PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--soak`` (long random-playout run)."""
    parser.addoption("--soak", action="store_true", default=False, help="run the long playout soak")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile translation catalogues whose ``.mo`` is missing or older than the ``.po`` (``make messages``
    does it before ``make test``; this covers a bare ``pytest``)."""
    from tools.i18n import compile_stale

    compile_stale()


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
def _default_language() -> Iterator[None]:
    """Start and end every test in the default language: a request through the test client leaves the
    language it activated (the user's, the browser's) active in the thread, which would leak into the next
    test's ``gettext``."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Empty the per-process cache before each test: SQLite reuses primary keys after a rolled-back test,
    so a panel cached for "game 1" must not survive into the next test's game 1."""
    from django.core.cache import cache

    cache.clear()
