"""Shared by the page views (issue 31 §3: views.py split by concern): the logged-in user, the typed HTMX
request (django-htmx's ``HtmxHttpRequest`` pattern) and loading a game the viewer may see.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django_htmx.middleware import HtmxDetails

from accounts.models import User
from games.models import Game
from games.selectors import (
    game_get,
    visible_to,
)


class HtmxHttpRequest(HttpRequest):
    """An ``HttpRequest`` with the ``htmx`` attribute django-htmx's middleware sets (``HtmxDetails``: true
    for a request htmx made; ``target``, ``trigger``… its headers). Views annotate their request with it
    instead of reading the attribute with ``getattr`` (django-htmx docs, "Tips: Make type hints work")."""

    htmx: HtmxDetails


def request_user(request: HttpRequest) -> User:
    """The logged-in user of ``request`` (the views that call this require a login)."""
    user = request.user
    assert isinstance(user, User)
    return user


def load_game(request: HttpRequest, game_id: int, token: str | None = None) -> Game:
    """The game with its seats, or 404 — also for private games the user has no seat in (unless the
    invite ``token`` matches).

    Raises:
        Http404: no such game, or one the user may not see.
    """
    game = game_get(game_id)
    if game is None:
        raise Http404(_("No such game."))
    if not visible_to(game, request.user, token):
        raise Http404(_("No such game."))
    return game


def duration(seconds: int) -> str:
    """A time-control length in words: "10 minutes", "4 hours", "3 days"."""
    if seconds >= 86_400 and seconds % 86_400 == 0:
        days = seconds // 86_400
        return ngettext("%(n)s day", "%(n)s days", days) % {"n": days}
    if seconds >= 3600 and seconds % 3600 == 0:
        hours = seconds // 3600
        return ngettext("%(n)s hour", "%(n)s hours", hours) % {"n": hours}
    minutes = max(1, round(seconds / 60))
    return ngettext("%(n)s minute", "%(n)s minutes", minutes) % {"n": minutes}
