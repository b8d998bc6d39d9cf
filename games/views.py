"""HTMX pages (thin: parse, call a service or selector, render)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .selectors import my_games as select_my_games


@login_required
def my_games(request: HttpRequest) -> HttpResponse:
    """My games: waiting for me, others' turn, open lobbies, finished."""
    return render(request, "games/my_games.html", {"lists": select_my_games(request.user)})  # type: ignore[arg-type]
