"""The calendar of deadlines (issue 32): a per-user secret iCalendar feed (RFC 5545, with RFC 7986's
``REFRESH-INTERVAL``) at ``/calendar/<token>.ics``, one event per open decision of the user, and the two
profile buttons that create or replace its secret address and turn it off.

Anyone holding the address can read the feed without logging in, so it holds only what the user's own game
pages show them as *their* decision: the :class:`games.models.Prompt` rows of the seats they hold in games
in progress, without the ``auto`` prompts the server answers itself (issue 14: in a sealed response window
a seat without Fracture has nothing to decide, and its prompt is never shown to it), never another seat's
decisions, no card and no email address.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import F
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe
from icalendar import Calendar, Event, vDuration

from accounts.models import User
from games.models import Game, Prompt
from games.notify.links import absolute_url
from games.services.outbox import PROMPT_NOTIFICATION

#: Bytes of randomness in a feed's secret (``secrets.token_urlsafe``: 43 URL-safe characters, well under
#: ``User.calendar_token``'s 64).
TOKEN_BYTES = 32

#: How often a calendar app should fetch the feed again (RFC 7986 ``REFRESH-INTERVAL`` and the older
#: ``X-PUBLISHED-TTL``), and how long a cache may keep it (``Cache-Control: max-age``, seconds).
REFRESH = timedelta(minutes=15)
CACHE_SECONDS = 300

#: The length of a decision's event: it ends at the deadline and starts this much before it (or when the
#: decision opened, if later), so it shows as a short block at the deadline.
EVENT_LENGTH = timedelta(minutes=15)


def _summary(prompt_kind: str, title: str) -> str:
    """An event's title for an engine prompt kind, in the active language: the subject of the decision email
    of that kind (``games.notify.content``, by ``games.services.outbox.PROMPT_NOTIFICATION``), so its
    translations serve here too; the engine's other choice kinds are "A choice is yours"."""
    kind = PROMPT_NOTIFICATION.get(prompt_kind, "choice")
    words = {
        "turn": _("Your turn in “%(title)s”"),
        "conflict": _("Battle in “%(title)s”: choose your conflict card"),
        "support": _("Your move in the support step in “%(title)s”"),
        "response": _("Response window in “%(title)s”: play Fracture?"),
        "choice": _("A choice is yours in “%(title)s”"),
    }
    return words.get(kind, words["choice"]) % {"title": title}


def open_decisions(user: User) -> list[Prompt]:
    """The decisions that wait for ``user``, soonest deadline first: the Prompt rows of the seats they hold
    (and have not resigned) in games in progress, without the ``auto`` ones the server answers (issue 14),
    as "My games" counts them "Waiting for you" (:func:`games.selectors.waiting_count`). Guided tutorial
    games (issue 15) are left out, as they are from the emails.

    Returns:
        Prompt rows with their ``game`` loaded; ``deadline_at`` is an aware UTC datetime.
    """
    rows = Prompt.objects.filter(
        game__status=Game.Status.ACTIVE,
        game__tutorial=False,
        auto_at__isnull=True,
        # one filter() call: the three conditions hold for the same seat row
        game__seats__user=user,
        game__seats__number=F("seat"),
        game__seats__resigned_at__isnull=True,
    )
    return list(rows.select_related("game").order_by("deadline_at", "game_id", "seat", "key"))


def event_uid(prompt: Prompt) -> str:
    """The event's ``UID`` (RFC 5545 §3.8.4.7): stable for one decision (game id, seat, the engine's
    prompt key), so a calendar app updates the event when its deadline moves instead of adding another,
    e.g. ``mm-12-1-t4:turn:1@mastery.example.org``."""
    host = urlsplit(settings.SITE_URL).hostname or "localhost"
    return f"mm-{prompt.game_id}-{prompt.seat}-{prompt.key}@{host}"


def decision_url(game_id: int) -> str:
    """The absolute URL of a game's decision panel (``https://…/games/12/#decision``, from ``SITE_URL``)."""
    return absolute_url(reverse("games:detail", args=[game_id]) + "#decision")


def feed_calendar(decisions: Iterable[Prompt], *, now: datetime) -> Calendar:
    """The iCalendar object (RFC 5545) of a user's open decisions, worded in the active language.

    Args:
        decisions: the user's open decisions (:func:`open_decisions`), their ``game`` loaded.
        now: the time of the request (aware); only the calendar's own stamp uses it.

    Returns:
        A ``VCALENDAR`` with one ``VEVENT`` per decision: ``UID`` (:func:`event_uid`), ``SUMMARY`` (what to
        decide, in which game), ``DTSTART``/``DTEND`` in UTC (a short event ending at the deadline),
        ``URL`` and ``DESCRIPTION`` with the game's decision panel, ``DTSTAMP`` and ``LAST-MODIFIED`` (the
        game's last write) and ``SEQUENCE`` (the game's ``seq``: the count of its recorded actions).
    """
    cal = Calendar()
    cal.add("prodid", f"-//{settings.SITE_NAME}//Calendar of deadlines//EN")
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    name = _("%(site)s: your deadlines") % {"site": settings.SITE_NAME}
    cal.add("name", name)  # RFC 7986
    cal.add("x-wr-calname", name)
    cal.add("x-wr-caldesc", _("The deadlines of the decisions your games wait for."))
    cal.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})  # RFC 7986
    cal.add("x-published-ttl", vDuration(REFRESH))  # an X- property: its type is not known otherwise
    for prompt in decisions:
        game = prompt.game
        end = prompt.deadline_at.astimezone(UTC)
        start = min(max(prompt.opened_at.astimezone(UTC), end - EVENT_LENGTH), end - timedelta(minutes=1))
        summary = _summary(prompt.kind, game.title)
        url = decision_url(game.pk)
        changed = (game.updated_at or now).astimezone(UTC)
        event = Event()
        event.add("uid", event_uid(prompt))
        event.add("dtstamp", changed)
        event.add("last-modified", changed)
        event.add("sequence", game.seq)
        event.add("summary", summary)
        event.add("dtstart", start)
        event.add("dtend", end)
        event.add("url", url)
        event.add("description", _("Decide before the deadline: %(url)s") % {"url": url})
        event.add("status", "CONFIRMED")
        event.add("transp", "TRANSPARENT")  # a deadline does not make the player busy
        cal.add_component(event)
    return cal


@require_safe
def feed(request: HttpRequest, token: str) -> HttpResponse:
    """``GET /calendar/<token>.ics``: the user's calendar of deadlines (``text/calendar``, UTF-8), without
    login; the secret in the address is the only key. An unknown token (or a turned-off feed, or an
    inactive account) is a plain 404 that says nothing about why. ``Cache-Control: private`` for
    :data:`CACHE_SECONDS`, so no shared cache keeps one user's decisions."""
    user = User.objects.filter(calendar_token=token, is_active=True).first() if token else None
    if user is None or not user.calendar_token:
        raise Http404
    with translation.override(user.language):
        body = feed_calendar(open_decisions(user), now=timezone.now()).to_ical()
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Cache-Control"] = f"private, max-age={CACHE_SECONDS}"
    response["Content-Disposition"] = 'inline; filename="deadlines.ics"'
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    return response


def token_new() -> str:
    """A fresh feed secret: ``secrets.token_urlsafe`` of :data:`TOKEN_BYTES` bytes (43 characters)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


@login_required
@require_POST
def calendar_new(request: HttpRequest) -> HttpResponse:
    """``POST``: give the user a calendar address, or a new one in place of the old, which stops working at
    once (the "New address" button). Redirects to the profile's calendar section."""
    user = request.user
    assert isinstance(user, User)
    replaced = bool(user.calendar_token)
    user.calendar_token = token_new()
    user.save(update_fields=["calendar_token"])
    if replaced:
        messages.success(request, _("Your calendar has a new address. The old one no longer works."))
    else:
        messages.success(request, _("Your calendar address is ready."))
    return redirect(reverse("accounts:profile") + "#calendar")


@login_required
@require_POST
def calendar_off(request: HttpRequest) -> HttpResponse:
    """``POST``: turn the calendar feed off (its address stops working). Redirects to the profile."""
    user = request.user
    assert isinstance(user, User)
    if user.calendar_token:
        user.calendar_token = None
        user.save(update_fields=["calendar_token"])
        messages.success(request, _("Your calendar address no longer works."))
    return redirect(reverse("accounts:profile") + "#calendar")
