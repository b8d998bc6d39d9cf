"""Resigning from the game page (issue 30): a confirmation page, then the write
(:func:`games.services.seat_resign`). The same resignation can be made by a ``resign`` reply to a game email
(:mod:`games.services.mail_commands`)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from games import services
from games.messages import service_message
from games.models import Game
from games.web.common import load_game, request_user


@login_required
@require_http_methods(["GET", "POST"])
def resign(request: HttpRequest, game_id: int) -> HttpResponse:
    """GET: the confirmation page (what resigning means: a bot plays the seat to the end, the ratings place
    the player last, and it cannot be taken back). POST: resign, then back to the game with a message; a
    refusal (not seated, the game is over, already resigned) is shown on the game page.

    Raises:
        Http404: no such game, one the user may not see, or (GET) one the user has no seat in that is not
            in progress.
    """
    game = load_game(request, game_id)
    user = request_user(request)
    if request.method == "POST":
        try:
            services.seat_resign(game_id=game.pk, user=user)
        except services.ServiceError as exc:
            messages.error(request, service_message(exc))
        else:
            messages.success(request, _("You have resigned. A bot plays your seat to the end."))
        return redirect("games:detail", game_id=game.pk)
    seat = next((s for s in game.seats.all() if s.user_id == user.pk), None)
    if seat is None or game.status != Game.Status.ACTIVE:
        raise Http404(_("No such game."))
    return render(request, "games/resign.html", {"game": game, "resigned": seat.resigned_at is not None})
