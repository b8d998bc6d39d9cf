"""The games app's template context for every page (``context_processors`` in the settings)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from django.http import HttpRequest

from games.selectors import waiting_count


def your_turn(request: HttpRequest) -> dict[str, Any]:
    """``your_turn``: how many of the signed-in user's games wait for their decision (issue 29, the header's
    counter, like lichess's correspondence counter; :func:`games.selectors.waiting_count`).

    The value is a callable, which the template calls when it first reads it: one query on a page whose
    header shows the counter, none for a partial (an htmx panel) and none for an anonymous visitor
    (``None``).
    """

    @cache
    def count() -> int | None:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        return waiting_count(user)

    counter: Callable[[], int | None] = count
    return {"your_turn": counter}
