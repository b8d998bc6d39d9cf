"""An open table (the lobby): its page, its POST actions (join, leave, bots, start, cancel, "I'm back") and a
private table's invite link.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from games import services
from games.components import optional_rules_on
from games.messages import service_message
from games.models import BOT_LEVEL_NAMES, Game
from games.selectors import (
    seat_of,
)
from games.web.common import HtmxHttpRequest, duration, load_game, request_user
from games.web.invites import seat_rows


def lobby_page(request: HttpRequest, game: Game, token: str | None = None, status: int = 200) -> HttpResponse:
    """The lobby of an open table: its seats (with who is invited, issue 29), options, time control, the
    invite link for its seated players of a private table, answered with ``status``."""
    user = request_user(request)
    seats = list(game.seats.all())
    seat = seat_of(game, user)
    invite = None
    if game.private and seat is not None:
        invite = request.build_absolute_uri(reverse("games:invite", args=[game.pk, game.invite_token]))
    rows = seat_rows(game, seats, user)  # with who is invited (issue 29)
    context = {
        "game": game,
        "rows": rows,
        "seated": seat is not None,
        "creator": game.created_by_id == user.pk,
        "full": len(seats) >= game.players,
        "invite": invite,
        "token": token,
        "options": game.options,
        "rules_on": optional_rules_on(game.options),
        "turn_time": duration(game.turn_seconds),
        "response_time": duration(game.response_seconds),
        "bot_levels": list(BOT_LEVEL_NAMES.items()),
    }
    return render(request, "games/lobby.html", context, status=status)


@dataclass(frozen=True)
class LobbyAction:
    """A lobby POST (``games/urls.py`` names it): the service it calls and what the player sees after.

    Attributes:
        service: the name of a :mod:`games.services` function taking keyword-only ``game_id`` and ``user``
            (looked up at call time).
        done: the success message.
        away: after it the table is no longer the user's, so the redirect goes to "My games".
        token: the action takes the invite token of a private table from the form (joining).
        level: the action takes a bot level from the form (``level``: easy, normal or hard; issue 17).
    """

    service: str
    done: Any
    away: bool = False
    token: bool = False
    level: bool = False


#: Every lobby action by its URL name (each redirects back to the table with a message).
LOBBY_ACTIONS: dict[str, LobbyAction] = {
    "join": LobbyAction("seat_join", gettext_lazy("You joined the table."), token=True),
    "leave": LobbyAction("seat_leave", gettext_lazy("You left the table."), away=True),
    "fill_bots": LobbyAction("seats_fill_with_bots", gettext_lazy("Bots took the empty seats."), level=True),
    "add_bot": LobbyAction("seat_add_bot", gettext_lazy("A bot took a seat."), level=True),
    "start": LobbyAction("game_start", gettext_lazy("The game has started.")),
    "cancel": LobbyAction("game_cancel", gettext_lazy("The table was cancelled."), away=True),
    "back": LobbyAction("seat_return", gettext_lazy("Welcome back: your seat is yours again.")),
}


def _lobby_run(request: HtmxHttpRequest, game: Game, spec: LobbyAction) -> HttpResponse:
    """Run ``spec``'s service for the user; show its refusal, or ``spec.done``, on the table (or, with
    ``spec.away``, on "My games")."""
    extra: dict[str, str] = {}
    if spec.level:
        extra["level"] = request.POST.get("level", "normal")
        if extra["level"] not in BOT_LEVEL_NAMES:
            messages.error(request, _("Choose a bot level: easy, normal or hard."))
            return redirect("games:detail", game_id=game.pk)
    try:
        getattr(services, spec.service)(game_id=game.pk, user=request_user(request), **extra)
    except services.ServiceError as exc:
        messages.error(request, service_message(exc))
        return redirect("games:detail", game_id=game.pk)
    messages.success(request, str(spec.done))
    return redirect("games:my_games") if spec.away else redirect("games:detail", game_id=game.pk)


@login_required
@require_POST
def lobby_action(request: HtmxHttpRequest, game_id: int, action: str) -> HttpResponse:
    """POST one of :data:`LOBBY_ACTIONS`: join a free seat (a private table needs its invite token), leave
    before the start, fill the empty seats with bots, start or cancel the table (creator only), or "I'm
    back" (take the seat back from the bot that played it while the player was absent).

    Raises:
        Http404: no such game, or a private game the user may not see (``action`` comes from the URLconf).
    """
    spec = LOBBY_ACTIONS[action]
    game = load_game(request, game_id, request.POST.get("token") if spec.token else None)
    return _lobby_run(request, game, spec)


@login_required
@require_http_methods(["GET", "POST"])
def invite(request: HtmxHttpRequest, game_id: int, token: str) -> HttpResponse:
    """The invite link of a private table: GET shows the table with a join button; POST joins."""
    game = load_game(request, game_id, token)
    if request.method == "POST":
        return _lobby_run(request, game, LOBBY_ACTIONS["join"])
    if game.status != Game.Status.LOBBY:
        if request.htmx:
            return HttpResponseClientRedirect(reverse("games:detail", args=[game.pk]))
        return redirect("games:detail", game_id=game.pk)
    return lobby_page(request, game, token=token)
