"""Standing orders for response windows and pending orders for the rest of a turn (issue 30)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import User
from games import services
from games.messages import service_message
from games.models import Game
from games.notify.replies import line_failure
from games.web.common import HtmxHttpRequest, request_user
from games.web.forms import (
    PendingOrdersForm,
    StandingOrderForm,
)


@login_required
@require_http_methods(["GET", "POST"])
def orders(request: HtmxHttpRequest) -> HttpResponse:
    """Standing orders for response windows: the list, and a form to add one (POST). ``?game=ID``
    preselects a game. Invalid input re-renders the form with the reason (400)."""
    user = request_user(request)
    initial = {"game": request.GET.get("game", "")}
    form = StandingOrderForm(request.POST or None, games=_my_games(user), initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.standing_order_add(
                user=user,
                rule=form.cleaned_data["rule"],
                artefact=form.cleaned_data["artefact"],
                game_id=form.cleaned_data["game"],
            )
        except services.ServiceError as exc:
            form.add_error(None, service_message(exc))
        else:
            messages.success(request, _("Standing order saved. It answers the next response windows."))
            return redirect("games:orders")
    status = 400 if request.method == "POST" else 200
    later = PendingOrdersForm(games=_my_games(user, active=True), initial=initial)
    return _orders_page(request, user, form, later, status)


@login_required
@require_POST
def pending_write(request: HtmxHttpRequest) -> HttpResponse:
    """The rest of my turn, written on the orders page (issue 30, :func:`games.services.pending_write`):
    what my decision accepts now is played, the rest is kept as my pending orders. A refused line or
    invalid input re-renders the page with the reason (400 / the service's status); nothing after a
    refused line is applied or kept."""
    user = request_user(request)
    later = PendingOrdersForm(request.POST, games=_my_games(user, active=True))
    if not later.is_valid():
        return _orders_page(request, user, StandingOrderForm(games=_my_games(user)), later, 400)
    game_id = later.cleaned_data["game"]
    try:
        batch = services.pending_write(user=user, game_id=game_id, text=later.cleaned_data["lines"])
    except services.ServiceError as exc:
        later.add_error(None, service_message(exc))
        status = exc.status if exc.status != 404 else 400
        return _orders_page(request, user, StandingOrderForm(games=_my_games(user)), later, status)
    if batch.error is not None:
        later.add_error(None, line_failure(batch.error))
        return _orders_page(request, user, StandingOrderForm(games=_my_games(user)), later, 422)
    if batch.applied:
        applied = ", ".join(batch.applied)
        messages.success(request, _("Played now: %(moves)s.") % {"moves": applied})
    if batch.pending:
        kept = ", ".join(batch.pending)
        messages.success(request, _("Kept as your pending orders: %(moves)s.") % {"moves": kept})
    return redirect(f"{reverse('games:orders')}?game={game_id}")


def _my_games(user: User, active: bool = False) -> list[tuple[int, str]]:
    """``user``'s games not finished (``active``: only those in progress), newest first, as form
    choices ``(id, title)``."""
    rows = Game.objects.filter(seats__user=user).exclude(status=Game.Status.FINISHED)
    if active:
        rows = rows.filter(status=Game.Status.ACTIVE)
    return [(g.pk, g.title) for g in rows.order_by("-updated_at")]


def _orders_page(
    request: HtmxHttpRequest, user: User, form: StandingOrderForm, later: PendingOrdersForm, status: int
) -> HttpResponse:
    """The orders page: standing orders (``form`` adds one) and pending orders (``later`` writes the rest
    of a turn), answered with ``status``."""
    rows = user.standing_orders.select_related("game")
    names = {a: n for a, n in form.fields["artefact"].choices if a}  # type: ignore[attr-defined]
    listed = [(o, names.get(o.artefact, o.artefact)) for o in rows]
    kept: dict[int, tuple[Game, list[str]]] = {}  # issue 30: my own pending orders, by game
    for order in services.pending_list(user=user):
        kept.setdefault(order.game_id, (order.game, []))[1].append(order.text)
    context = {"form": form, "later": later, "orders": listed, "pending": list(kept.values())}
    return render(request, "games/orders.html", context, status=status)


@login_required
@require_POST
def pending_clear(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """Remove my pending orders in one game (issue 30; only my own: nothing else is touched)."""
    try:
        services.pending_clear(user=request_user(request), game_id=game_id)
    except services.NotFound as exc:
        raise Http404(service_message(exc)) from exc
    messages.success(request, _("Pending orders removed."))
    return redirect("games:orders")


@login_required
@require_POST
def order_delete(request: HtmxHttpRequest, order_id: int) -> HttpResponse:
    """Delete one of my standing orders (404 if it is not mine)."""
    try:
        services.standing_order_delete(user=request_user(request), order_id=order_id)
    except services.NotFound as exc:
        raise Http404(service_message(exc)) from exc
    messages.success(request, _("Standing order deleted."))
    return redirect("games:orders")
