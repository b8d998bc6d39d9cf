"""The platform's home page (issue 33): the site holds two games, Medieval Mastery and The Anarchy's Castle
Defence, and its home presents both. Medieval Mastery's part is what its home showed before (the games
waiting for a player, sign-up, how it works); Castle Defence's part links to the daily puzzle and the
planner."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from games.selectors import my_games as select_my_games
from games.web.common import request_user


def home(request: HttpRequest) -> HttpResponse:
    """The home page: the two games, and for players the Medieval Mastery games that wait for them."""
    lists = select_my_games(request_user(request)) if request.user.is_authenticated else None
    return render(request, "home.html", {"lists": lists, "rules_url": reverse("games:rules")})
