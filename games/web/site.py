"""The site's own pages: health check, rules reference, new game, my games, the guided game and a
game against a bot.
"""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.db import DatabaseError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from games import services
from games.messages import service_message
from games.models import Game
from games.selectors import my_games as select_my_games
from games.web.common import HtmxHttpRequest, request_user
from games.web.forms import (
    GameCreateForm,
)
from games.web.presenters.rules import rules_model

log = logging.getLogger(__name__)


@require_safe
def healthz(request: HtmxHttpRequest) -> HttpResponse:
    """Liveness for a load balancer or a monitor (issue 16): the database answers a query and the cache
    stores and returns a value. 200 ``{"status": "ok", "database": "ok", "cache": "ok"}``, else 503 with
    ``"error"`` for the part that failed (no details: the page is public)."""
    checks: dict[str, str] = {}
    try:
        Game.objects.exists()
        checks["database"] = "ok"
    except DatabaseError:
        log.exception("healthz: the database does not answer")
        checks["database"] = "error"
    try:
        cache.set("healthz", "ok", 10)
        checks["cache"] = "ok" if cache.get("healthz") == "ok" else "error"
    except Exception:  # any cache backend's failure counts as down (ConnectionError, redis errors, …)
        log.exception("healthz: the cache does not answer")
        checks["cache"] = "error"
    healthy = all(v == "ok" for v in checks.values())
    response = JsonResponse(
        {"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503
    )
    response["Cache-Control"] = "no-store"
    return response


def rules(request: HtmxHttpRequest) -> HttpResponse:
    """The rules reference (issue 15): every rule in our words with anchors, the components generated from
    the content set (``?content=abbey``; default ``default``; an unknown set is a 404), diagrams and the
    worked battle example drawn by the game's map renderer."""
    try:
        model = rules_model(request.GET.get("content") or "default")
    except KeyError:
        raise Http404(_("No such content set.")) from None
    return render(request, "rules/rules.html", {"m": model, "vp": model["numbers"]["victory_vp"]})


@login_required
@require_POST
def tutorial(request: HtmxHttpRequest) -> HttpResponse:
    """Start a guided first game against a bot (issue 15) and open it."""
    game = services.tutorial_start(user=request_user(request))
    return redirect("games:detail", game_id=game.pk)


@login_required
@require_POST
def play_bot(request: HtmxHttpRequest) -> HttpResponse:
    """Start a real two-player game against a bot at once (offered when the guided game ends)."""
    user = request_user(request)
    game = services.game_create(user=user, title=_("A game against a bot"), players=2, time_control="daily")
    services.seats_fill_with_bots(game_id=game.pk, user=user)
    services.game_start(game_id=game.pk, user=user)
    return redirect("games:detail", game_id=game.pk)


@login_required
def my_games(request: HtmxHttpRequest) -> HttpResponse:
    """My games: waiting for me (with time left), others' turn, open lobbies, finished."""
    lists = select_my_games(request_user(request))
    empty = not (lists.waiting_for_me or lists.others_turn or lists.open_lobbies or lists.finished)
    return render(request, "games/my_games.html", {"lists": lists, "empty": empty, "now": timezone.now()})


@login_required
@require_http_methods(["GET", "POST"])
def game_new(request: HtmxHttpRequest) -> HttpResponse:
    """Create a game (GET shows the form; POST opens the lobby with the creator in the first seat)."""
    form = GameCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        turn, response = form.seconds()
        try:
            game = services.game_create(
                user=request_user(request),
                title=form.cleaned_data["title"] or _("Medieval Mastery"),
                players=form.cleaned_data["players"],
                options=form.options(),
                time_control=form.cleaned_data["time_control"],
                turn_seconds=turn,
                response_seconds=response,
                private=form.cleaned_data["private"],
                allow_vacation=form.cleaned_data["allow_vacation"],
                auto_start=form.cleaned_data["auto_start"],
                chat_spectators=form.cleaned_data["chat_spectators"],
            )
        except services.ServiceError as exc:
            form.add_error(None, service_message(exc))
        else:
            messages.success(request, _("Your table is open. Invite players or fill the seats with bots."))
            return redirect("games:detail", game_id=game.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "games/new.html", {"form": form}, status=status)
