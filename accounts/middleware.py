"""Per-user middleware: the logged-in user's language and time zone win for every request (Django docs
"Translation: How Django discovers language preference" and "Time zones")."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation


class UserLanguageMiddleware:
    """Activate the profile language (``User.language``) of a logged-in user.

    Must come after ``AuthenticationMiddleware``. ``LocaleMiddleware`` (earlier in the list) has already
    chosen a language from the language cookie or the browser's ``Accept-Language``; for a logged-in user
    the profile wins. ``LocaleMiddleware`` then labels the response with the language that was active
    (``Content-Language``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.codes = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request: HttpRequest) -> HttpResponse:
        """Activate the user's language, then answer the request."""
        user = getattr(request, "user", None)
        language = getattr(user, "language", None) if user is not None and user.is_authenticated else None
        if language in self.codes:
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)


class UserTimezoneMiddleware:
    """Show dates in the user's profile time zone; UTC for anonymous visitors."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        """Activate the user's time zone (UTC for anonymous visitors or an unknown zone), then answer."""
        user = getattr(request, "user", None)
        tz = getattr(user, "time_zone", None) if user is not None and user.is_authenticated else None
        try:
            timezone.activate(zoneinfo.ZoneInfo(tz or "UTC"))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            timezone.activate(zoneinfo.ZoneInfo("UTC"))
        return self.get_response(request)
