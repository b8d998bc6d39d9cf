"""The game page's webhooks (issue 32), for the table's creator: the page that lists them and adds one
(GET/POST ``games:webhooks``), and removing or resuming one (POST). The writes are
:mod:`games.services.webhooks`; the panel itself is ``templates/games/_webhooks.html`` (also on the game
page). Plain forms, no JavaScript needed; a refused form is shown again with its error and the service
error's status (400, 403, 404, 409), never a 500."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games.messages import service_message
from games.models import Game
from games.services import ServiceError
from games.services import webhooks as hook_service
from games.web.common import load_game, request_user

TEMPLATE = "games/webhooks.html"
#: The panel alone, which htmx puts in the game page.
PANEL_TEMPLATE = "games/webhooks_panel.html"


def _back(game: Game) -> HttpResponse:
    """Back to the game page's webhooks panel (Post/Redirect/Get)."""
    return redirect(reverse("games:detail", args=[game.pk]) + "#webhooks")


@login_required
@require_http_methods(["GET", "POST"])
def webhooks(request: HttpRequest, game_id: int) -> HttpResponse:
    """GET: the webhooks page (403 for anyone but the game's creator; the panel alone for htmx). POST
    (``kind``, ``url``): add a hook, then back to the game page; a refused one shows this page again with the
    error and the form as sent (400 bad URL or kind, 403 not the creator, 409 game over or too many hooks).

    Raises:
        Http404: no such game, or one the user may not see.
    """
    game = load_game(request, game_id)
    user = request_user(request)
    context = {"game": game, "error": "", "kind": "", "url": ""}
    if request.method == "POST":
        kind, url = request.POST.get("kind", ""), request.POST.get("url", "")
        try:
            hook_service.webhook_add(game_id=game.pk, user=user, kind=kind, url=url)
        except ServiceError as exc:
            context |= {"error": service_message(exc), "kind": kind, "url": url[:500]}
            return render(request, TEMPLATE, context, status=exc.status)
        messages.success(request, _("The webhook was added."))
        return _back(game)
    if game.created_by_id != user.pk:
        context["error"] = _("Only the table's creator can change its webhooks.")
        return render(request, TEMPLATE, context, status=403)
    if request.headers.get("HX-Request"):  # the game page loads the panel in place
        return render(request, PANEL_TEMPLATE, context)
    return render(request, TEMPLATE, context)


def _change(request: HttpRequest, game_id: int, hook_id: int, *, resume: bool) -> HttpResponse:
    """Remove or resume a hook; a refusal answers its status with the webhooks page."""
    game = load_game(request, game_id)
    user = request_user(request)
    try:
        if resume:
            hook_service.webhook_resume(game_id=game.pk, hook_id=hook_id, user=user)
        else:
            hook_service.webhook_remove(game_id=game.pk, hook_id=hook_id, user=user)
    except ServiceError as exc:
        context = {"game": game, "error": service_message(exc), "kind": "", "url": ""}
        return render(request, TEMPLATE, context, status=exc.status)
    messages.success(request, _("The webhook was resumed.") if resume else _("The webhook was removed."))
    return _back(game)


@login_required
@require_POST
def webhook_remove(request: HttpRequest, game_id: int, hook_id: int) -> HttpResponse:
    """Delete a hook (the game's creator only), then back to the game page.

    Raises:
        Http404: no such game, or one the user may not see.
    """
    return _change(request, game_id, hook_id, resume=False)


@login_required
@require_POST
def webhook_resume(request: HttpRequest, game_id: int, hook_id: int) -> HttpResponse:
    """Resume a paused hook (the game's creator only), then back to the game page.

    Raises:
        Http404: no such game, or one the user may not see.
    """
    return _change(request, game_id, hook_id, resume=True)
