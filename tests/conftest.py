"""Shared pytest configuration: ``--soak`` turns the random-playout soak on (``make soak``)."""

from __future__ import annotations

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
