"""A player's move from the game page: submit it (with a confirmation first for what cannot be taken back),
or show why it was refused.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import engine, services
from games.messages import illegal_message, service_message
from games.models import Game
from games.selectors import (
    game_get,
    game_view,
)
from games.web.common import HtmxHttpRequest, load_game, request_user
from games.web.forms import (
    PayloadError,
    decision_action,
)
from games.web.game_page import (
    DETAIL_TEMPLATE,
    after_write,
    chat_context,
    page_context,
    partials_html,
)
from games.web.presenters.confirm import confirmation, may_ask


@login_required
@require_POST
def act(request: HtmxHttpRequest, game_id: int) -> HttpResponseBase:
    """Submit one action for the user's seat (``services.action_submit``).

    Answers: success → the refreshed partials (htmx) or a redirect to the game page; malformed → 400;
    not your seat → 403; stale ``expected_seq`` → 409 with the refreshed page; illegal → 422 with the
    decision form and the rule that stopped the move (htmx), or a redirect with that message.
    """
    game = load_game(request, game_id)
    if game.status == Game.Status.LOBBY:
        messages.error(request, _("The game has not started yet."))
        return redirect("games:detail", game_id=game.pk)
    try:
        action, expected_seq, prompt_key = decision_action(request.POST)
    except PayloadError as exc:
        return refused(request, game, 400, str(exc))
    except services.BadPayload as exc:
        return refused(request, game, 400, service_message(exc))
    if request.POST.get("confirmed") != "1":
        asked = _ask_first(request, game, action)
        if asked is not None:
            return asked
    try:
        services.action_submit(
            game_id=game.pk,
            user=request_user(request),
            action=action,
            expected_seq=expected_seq,
            prompt_key=prompt_key,
            source="web",
        )
    except services.StaleState:
        return refused(request, game_id, 409, _("The game has moved on. Here is the current position."))
    except services.Illegal as exc:
        reason = illegal_message(exc.params, exc.message)
        if not request.htmx:
            messages.error(request, reason)
            return redirect("games:detail", game_id=game.pk)
        return refused(request, game, 422, reason)
    except services.ServiceError as exc:
        return refused(request, game_id, exc.status, service_message(exc))
    if not request.htmx:
        return redirect("games:detail", game_id=game.pk)
    return after_write(request, game)


def _ask_first(request: HtmxHttpRequest, game: Game, action: engine.Action) -> HttpResponse | None:
    """The decision panel asking to confirm an act that cannot be taken back (issue 16), with a form that
    posts the same fields again plus ``confirmed=1``; ``None`` when the act needs no confirmation. Nothing
    is applied. Works without JavaScript (the whole page) and with htmx (the panel)."""
    if not may_ask(action):  # most submits: no second read of the position
        return None
    gv = game_view(game, request.user, with_log=False)
    if gv.view is None or gv.seat is None:
        return None
    context = page_context(request, gv)
    question = confirmation(context["page"].view, action)
    if question is None:
        return None
    fields = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in ("csrfmiddlewaretoken", "confirmed")
        for value in values
    ]
    context["confirm"] = {**question, "fields": fields, "act": action.TYPE}
    if request.htmx:
        return render(request, f"{DETAIL_TEMPLATE}#decision", context)
    return render(request, DETAIL_TEMPLATE, context | chat_context(request, game))


#: The decision-form fields a refused move gives back to its form (issue 29: a refused move keeps what the
#: player filled in).
KEPT_FIELDS = ("card", "cards", "to", "knights", "from", "target", "corruption", "player")


def _kept(request: HtmxHttpRequest, status: int) -> dict[str, str | list[str]]:
    """What the refused form held, for the template to fill in again: ``{"type": action type, field:
    [values]}`` (empty for a stale position, 409, whose forms are new)."""
    if request.method != "POST" or status == 409:
        return {}
    return {"type": request.POST.get("type", ""), **{f: request.POST.getlist(f) for f in KEPT_FIELDS}}


def refused(request: HtmxHttpRequest, game: Game | int, status: int, message: str) -> HttpResponse:
    """Answer a refused action: the decision partial with the reason (htmx; the other partials out of band
    when the position changed), or the whole game page with the reason and the same status."""
    if isinstance(game, int):
        fresh = game_get(game)
        if fresh is None:
            raise Http404(_("No such game."))
        game = fresh
    gv = game_view(game, request.user)
    if gv.view is None:
        raise Http404(_("No such game."))
    context = page_context(request, gv, error=message, error_status=status, kept=_kept(request, status))
    if request.htmx:
        if status == 409:
            return HttpResponse(partials_html(request, context, "decision"), status=status)
        return render(request, f"{DETAIL_TEMPLATE}#decision", context, status=status)
    return render(request, DETAIL_TEMPLATE, context | chat_context(request, game), status=status)
