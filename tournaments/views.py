"""The tournaments' pages (issue 34): the events list, a new event, an event's public page with its
rounds, tables and standings, sign-up and withdraw buttons (in an Allegiance event: start a team or join
one), the standings as CSV, and the page's live fragment (standings and rounds, with the status line and
the entries list swapped in out of band) that the page polls for until the event is over.

Views are thin: read the request, call a service (:mod:`tournaments.services`) or a selector
(:mod:`tournaments.selectors`), and render. A refused write comes back as a message on the event page.
"""

from __future__ import annotations

import csv
import re
from datetime import datetime

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts.models import User
from games.services import BadPayload, ServiceError
from games.web.common import HtmxHttpRequest, duration
from tournaments import selectors, services
from tournaments.forms import TIME_CONTROL_CHOICES, EventCreateForm
from tournaments.models import Entry, Event

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
    "this event has no teams": gettext_lazy("This event has no teams."),
    "choose a team to join or name a new team": gettext_lazy("Choose a team to join, or name a new team."),
    f"a team name has 1 to {services.TEAM_NAME_LENGTH} characters": format_lazy(
        gettext_lazy("A team name has 1 to {length} characters."), length=services.TEAM_NAME_LENGTH
    ),
    "that team name is taken": gettext_lazy("That team name is taken; choose another."),
    "there is no such team in this event": gettext_lazy("There is no such team in this event."),
    "that team is full": gettext_lazy("That team is full; choose another or start a new team."),
}

#: The Allegiance option's values in words (the event page's rules).
ALLEGIANCE_TEXTS = {
    "pairs": gettext_lazy("Allegiance: teams of two"),
    "triples": gettext_lazy("Allegiance: teams of three"),
}


#: How often an event's page asks for its standings, rounds, entries and status again (seconds), from the
#: announcement until the event is over. Games last days or hours, sign-up days: once a minute is plenty.
LIVE_POLL_SECONDS = 60
#: The events whose page polls: announced, open for sign-up and running (not finished or cancelled).
LIVE_STATUSES = (Event.Status.DRAFT, Event.Status.OPEN, Event.Status.RUNNING)


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


def status_line(event: Event, now: datetime) -> str:
    """Where ``event`` is, in one phrase that starts with its status ("Sign-up open until …", "Running:
    round 2 of 3", "Finished on …"), in the reader's language: the end of the event page's lead."""
    when = {
        "opens": date_format(timezone.localtime(event.signup_opens), "DATETIME_FORMAT"),
        "closes": date_format(timezone.localtime(event.signup_closes), "DATETIME_FORMAT"),
        "starts": date_format(timezone.localtime(event.starts_at), "DATETIME_FORMAT"),
    }
    if event.status in (Event.Status.DRAFT, Event.Status.OPEN):
        if now < event.signup_opens:
            return _("Announced: sign-up opens %(opens)s") % when
        if now < event.signup_closes:
            return _("Sign-up open until %(closes)s; the first round starts %(starts)s") % when
        return _("Sign-up closed; the first round starts %(starts)s") % when
    if event.status == Event.Status.RUNNING:
        last = event.round_set.order_by("-number").first()
        if last is None:
            return _("Running")
        numbers = {"n": last.number, "total": event.rounds}
        if event.format == Event.Format.ELIMINATION or not event.rounds:
            return _("Running: round %(n)s") % numbers
        return _("Running: round %(n)s of %(total)s") % numbers
    if event.status == Event.Status.FINISHED and event.finished_at is not None:
        return _("Finished on %(when)s") % {
            "when": date_format(timezone.localtime(event.finished_at), "DATETIME_FORMAT")
        }
    if event.status == Event.Status.CANCELLED:
        return _("Cancelled: too few players to seat a table")
    return str(event.get_status_display())


def _live_context(request: HttpRequest, event: Event) -> dict[str, object]:
    """What ``tournaments/_live.html`` shows and swaps in (see :func:`event_live`): the standings, rounds,
    status line and entries as they are now, and whether (and how often) the page polls."""
    user = request.user
    return {
        "event": event,
        "entry": selectors.entry_of(event, user) if isinstance(user, User) else None,
        "rounds": selectors.event_rounds(event),
        "standings": selectors.standings(event),
        "poll_seconds": LIVE_POLL_SECONDS,
        "polling": event.status in LIVE_STATUSES,
        "status_line": status_line(event, timezone.now()),
        "entries": selectors.entries_of(event),
        "teams": selectors.teams_of(event),
        "team_size": selectors.team_size(event),
        "is_organiser": isinstance(user, User) and user.pk == event.organiser_id,
    }


def _detail(request: HttpRequest, event: Event, *, status: int = 200, team_name: str = "") -> HttpResponse:
    """The event page (see :func:`event_detail`), with ``status`` (a refused sign-up's 4xx) and the team
    name the player typed."""
    points = sorted(((int(k), v) for k, v in event.points_by_rank.items()), key=lambda kv: kv[0])
    live = _live_context(request, event)
    options = [
        str(EventCreateForm.base_fields[k].label) for k, v in event.options.items() if v and k != "allegiance"
    ]
    allegiance = event.options.get("allegiance")
    if allegiance in ALLEGIANCE_TEXTS:
        options.insert(0, str(ALLEGIANCE_TEXTS[allegiance]))
    teams = live["teams"]
    entry = live["entry"]
    assert isinstance(teams, list) and (entry is None or isinstance(entry, Entry))
    context = {
        **live,
        "your_team": next((t for t in teams if entry is not None and entry.team_id == t.team.pk), None),
        "open_teams": [t for t in teams if t.room > 0],
        "team_name": team_name,
        "team_name_length": services.TEAM_NAME_LENGTH,
        "points": points,
        "options": options,
        "time_control": _time_control(event),
        "signup_open": services.signup_is_open(event, timezone.now()),
    }
    return render(request, "tournaments/detail.html", context, status=status)


@require_safe
def event_detail(request: HttpRequest, event_id: int) -> HttpResponse:
    """An event's public page: format, rules, points by place, status, entries (or teams), rounds and
    standings (all but the rules refresh by themselves until the event is over, from :func:`event_live`)."""
    event = get_object_or_404(Event.objects.select_related("organiser"), pk=event_id)
    return _detail(request, event)


@require_safe
def event_live(request: HtmxHttpRequest, event_id: int) -> HttpResponse:
    """The event page's live parts alone (``tournaments/_live.html``), as they are now: the standings and
    rounds (the polled element itself), and out of band the status line and the entries (or teams) list.
    The page polls for it (htmx, every :data:`LIVE_POLL_SECONDS`) while the event is announced, open for
    sign-up or running; the fragment of a finished or cancelled event does not poll again, so the page
    stops asking once the event is over. The sign-up forms are not part of it (a refresh never clears what
    a player is typing). A request that is not htmx's (someone opening the address) goes to the event's
    page."""
    event = get_object_or_404(Event, pk=event_id)
    if not request.htmx:
        return redirect("tournaments:detail", event_id=event.pk)
    return render(request, "tournaments/_live.html", {**_live_context(request, event), "oob": True})


@login_required
@require_POST
def event_signup(request: HttpRequest, event_id: int) -> HttpResponse:
    """Sign the user up (POST). In an Allegiance event the form gives ``team`` (the id of a team to join)
    or ``team_name`` (a new team). A refused sign-up changes nothing and answers with the event page, its
    reason as a message and the refusal's status (400 bad input, 409 closed, taken or full)."""
    assert isinstance(request.user, User)
    event = get_object_or_404(Event.objects.select_related("organiser"), pk=event_id)
    team_raw = request.POST.get("team", "").strip()
    team_name = request.POST.get("team_name", "")
    try:
        if team_raw and not re.fullmatch(r"[0-9]{1,9}", team_raw):
            raise BadPayload("there is no such team in this event")
        services.entry_signup(
            event_id=event_id,
            user=request.user,
            team_id=int(team_raw) if team_raw else None,
            team_name=team_name or None,
        )
    except ServiceError as exc:
        _refused(request, exc)
        event.refresh_from_db()
        return _detail(request, event, status=exc.status, team_name=team_name[: services.TEAM_NAME_LENGTH])
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


def _cell(text: str) -> str:
    """A name made safe for a spreadsheet: one that starts like a formula is quoted."""
    return text if not text.startswith(("=", "+", "-", "@")) else "'" + text


@require_safe
def standings_csv(request: HttpRequest, event_id: int) -> HttpResponse:
    """The standings as CSV: place, player, points, Buchholz, VP, games, byes, withdrawn; in an Allegiance
    event place, team, members (``; `` between names), points, Buchholz, VP, games, byes, withdrawn."""
    event = get_object_or_404(Event, pk=event_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="event-{event.pk}-standings.csv"'
    writer = csv.writer(response)
    teams = selectors.team_size(event) > 1
    head = ["place", "team", "members"] if teams else ["place", "player"]
    writer.writerow([*head, "points", "buchholz", "vp", "games", "byes", "withdrawn"])
    for row in selectors.standings(event):
        who = [_cell(row.name), "; ".join(_cell(m) for m in row.members)] if teams else [_cell(row.name)]
        writer.writerow(
            [
                row.place,
                *who,
                _number(row.points),
                _number(row.buchholz),
                _number(row.vp),
                row.played,
                row.byes,
                "yes" if row.withdrawn else "no",
            ]
        )
    return response
