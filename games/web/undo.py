"""Taking back one's own steps from the game page (issue 16)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseBase
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from games import services
from games.messages import service_message
from games.web.actions import refused
from games.web.common import HtmxHttpRequest, load_game, request_user
from games.web.game_page import after_write


@login_required
@require_POST
def undo(request: HtmxHttpRequest, game_id: int) -> HttpResponseBase:
    """Take back the user's last step of the turn (``services.action_undo``, issue 16); ``steps`` (default
    1) takes back more at once.

    Answers: success → the refreshed partials (htmx) or a redirect to the game page with what was taken
    back; malformed → 400; not your seat → 403; stale ``expected_seq`` → 409 with the refreshed page;
    nothing (more) to undo → 409 with the reason.
    """
    game = load_game(request, game_id)
    try:
        expected_seq = int(request.POST.get("expected_seq", ""))
        steps = int(request.POST.get("steps", "1"))
    except ValueError:
        return refused(request, game, 400, _("expected_seq and steps must be whole numbers."))
    try:
        services.action_undo(
            game_id=game.pk, user=request_user(request), expected_seq=expected_seq, steps=steps
        )
    except services.StaleState:
        return refused(request, game_id, 409, _("The game has moved on. Here is the current position."))
    except services.ServiceError as exc:
        return refused(request, game_id, exc.status, service_message(exc))
    if not request.htmx:
        messages.success(
            request, ngettext("Step taken back.", "%(n)d steps taken back.", steps) % {"n": steps}
        )
        return redirect("games:detail", game_id=game.pk)
    return after_write(request, game)
