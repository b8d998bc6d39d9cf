"""Template context for every page (``TEMPLATES[...]["OPTIONS"]["context_processors"]``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from django.utils import timezone


def away(request: HttpRequest) -> dict[str, Any]:
    """``away_until``: the end of the signed-in user's away period while it applies, else ``None``, so
    every page can say "You're on vacation until …" (issue 16)."""
    user = getattr(request, "user", None)
    until: datetime | None = None
    if user is not None and user.is_authenticated and user.away_at(timezone.now()):
        until = user.away_until
    return {"away_until": until}
