"""Activate the logged-in user's time zone for every request (Django docs "Time zones")."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone


class UserTimezoneMiddleware:
    """Show dates in the user's profile time zone; UTC for anonymous visitors."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        tz = getattr(user, "time_zone", None) if user is not None and user.is_authenticated else None
        try:
            timezone.activate(zoneinfo.ZoneInfo(tz or "UTC"))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            timezone.activate(zoneinfo.ZoneInfo("UTC"))
        return self.get_response(request)
