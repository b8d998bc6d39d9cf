"""The tournaments' pages (issue 34): the events list, a new event, an event's public page with its
rounds, tables and standings, sign-up and withdraw buttons, the standings as CSV, and the page's live
fragment (standings and rounds) that a running event's page polls for.

Views are thin: read the request, call a service (:mod:`tournaments.services`) or a selector
(:mod:`tournaments.selectors`), and render. A refused write comes back as a message on the event page.
"""

from __future__ import annotations

import csv

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts.models import User
from games.services import ServiceError
from games.web.common import HtmxHttpRequest, duration
from tournaments import selectors, services
from tournaments.forms import TIME_CONTROL_CHOICES, EventCreateForm
from tournaments.models import Event

#: The messages of refused writes, in the reader's language (the services' own messages are English).
REFUSALS = {
    "sign-up for this event is closed": gettext_lazy("Sign-up for this event is closed."),
    "you are already signed up": gettext_lazy("You are already signed up."),
    "this event has started; ask the organiser to withdraw you": gettext_lazy(
        "This event has started; ask the organiser to withdraw you."
    ),
    "only the organiser can withdraw another player": gettext_lazy(
        "Only the organiser can withdraw another player."
    ),
    "this event is over": gettext_lazy("This event is over."),
    "already withdrawn": gettext_lazy("This entry is already withdrawn."),
    "no such entry": gettext_lazy("There is no such entry."),
}


#: How often a running event's page asks for its standings and rounds again (seconds). Games last days
#: or hours, and a round waits for its slowest table: once a minute is plenty, and cheap.
LIVE_POLL_SECONDS = 60


def _refused(request: HttpRequest, exc: ServiceError) -> None:
    text = str(exc)
    messages.error(request, str(REFUSALS.get(text, text)))


@require_safe
def event_list(request: HttpRequest) -> HttpResponse:
    """Events open for sign-up (or announced), running and finished."""
    return render(request, "tournaments/list.html", {"groups": selectors.events_listed()})


@login_required
@require_http_methods(["GET", "POST"])
def event_new(request: HttpRequest) -> HttpResponse:
    """The new-event form; a valid one creates the event and shows its page."""
    assert isinstance(request.user, User)
    form = EventCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            event = services.event_create(user=request.user, spec=form.spec())
        except ServiceError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("Your event is announced."))
            return redirect("tournaments:detail", event_id=event.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "tournaments/new.html", {"form": form}, status=status)


def _time_control(event: Event) -> str:
    """The event's time control in words: a preset's label, or a custom clock's turn and response."""
    if event.time_control == "custom" and event.turn_seconds and event.response_seconds:
        return _("%(turn)s per turn, %(response)s per response") % {
            "turn": duration(event.turn_seconds),
            "response": duration(event.response_seconds),
        }
    return str(dict(TIME_CONTROL_CHOICES).get(event.time_control, event.time_control))


def _live_context(event: Event) -> dict[str, object]:
    """What ``tournaments/_live.html`` shows: the standings and rounds as they are now, and the poll."""
    return {
        "event": event,
        "rounds": selectors.event_rounds(event),
        "standings": selectors.standings(event),
        "poll_seconds": LIVE_POLL_SECONDS,
    }


@require_safe
def event_detail(request: HttpRequest, event_id: int) -> HttpResponse:
    """An event's public page: format, rules, points by place, entries, rounds and standings (the last two
    refresh by themselves while the event runs, from :func:`event_live`)."""
    event = get_object_or_404(Event.objects.select_related("organiser"), pk=event_id)
    user = request.user
    entry = selectors.entry_of(event, user) if isinstance(user, User) else None
    points = sorted(((int(k), v) for k, v in event.points_by_rank.items()), key=lambda kv: kv[0])
    context = {
        **_live_context(event),
        "entry": entry,
        "entries": selectors.entries_of(event),
        "points": points,
        "options": [str(EventCreateForm.base_fields[k].label) for k, v in event.options.items() if v],
        "time_control": _time_control(event),
        "signup_open": services.signup_is_open(event, timezone.now()),
        "is_organiser": isinstance(user, User) and user.pk == event.organiser_id,
    }
    return render(request, "tournaments/detail.html", context)


@require_safe
def event_live(request: HtmxHttpRequest, event_id: int) -> HttpResponse:
    """The event page's standings and rounds alone (``tournaments/_live.html``), as they are now: what a
    running event's page polls for (htmx, every :data:`LIVE_POLL_SECONDS`). The fragment of an event that
    is no longer running does not poll again, so the page stops asking once the event is over. A request
    that is not htmx's (someone opening the address) goes to the event's page."""
    event = get_object_or_404(Event, pk=event_id)
    if not request.htmx:
        return redirect("tournaments:detail", event_id=event.pk)
    return render(request, "tournaments/_live.html", _live_context(event))


@login_required
@require_POST
def event_signup(request: HttpRequest, event_id: int) -> HttpResponse:
    """Sign the user up (POST)."""
    assert isinstance(request.user, User)
    get_object_or_404(Event, pk=event_id)
    try:
        services.entry_signup(event_id=event_id, user=request.user)
    except ServiceError as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("You are signed up."))
    return redirect("tournaments:detail", event_id=event_id)


@login_required
@require_POST
def event_withdraw(request: HttpRequest, event_id: int) -> HttpResponse:
    """Withdraw the user's own entry (POST, before the start)."""
    assert isinstance(request.user, User)
    get_object_or_404(Event, pk=event_id)
    try:
        services.entry_withdraw(event_id=event_id, user=request.user)
    except ServiceError as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("You have withdrawn from this event."))
    return redirect("tournaments:detail", event_id=event_id)


@login_required
@require_POST
def player_withdraw(request: HttpRequest, event_id: int, user_id: int) -> HttpResponse:
    """The organiser withdraws a player (POST); later rounds skip them."""
    assert isinstance(request.user, User)
    get_object_or_404(Event, pk=event_id)
    player = get_object_or_404(User, pk=user_id)
    try:
        services.entry_withdraw(event_id=event_id, user=request.user, player=player)
    except ServiceError as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("The player is withdrawn."))
    return redirect("tournaments:detail", event_id=event_id)


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


@require_safe
def standings_csv(request: HttpRequest, event_id: int) -> HttpResponse:
    """The standings as CSV: place, player, points, Buchholz, VP, games, byes, withdrawn."""
    event = get_object_or_404(Event, pk=event_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="event-{event.pk}-standings.csv"'
    writer = csv.writer(response)
    writer.writerow(["place", "player", "points", "buchholz", "vp", "games", "byes", "withdrawn"])
    for row in selectors.standings(event):
        name = row.name if not row.name.startswith(("=", "+", "-", "@")) else "'" + row.name
        writer.writerow(
            [
                row.place,
                name,
                _number(row.points),
                _number(row.buchholz),
                _number(row.vp),
                row.played,
                row.byes,
                "yes" if row.withdrawn else "no",
            ]
        )
    return response
