"""HTMX pages (thin: parse, call a service or selector, render).

Every page works as a plain document with normal form posts and redirects; with htmx the game page swaps
its partials (``templates/games/detail.html``: header, board, players, hand, status, decision, log,
result) and polls ``/games/<id>/poll/?seq=N`` (204 while nothing changed; with ``chat=V`` the chat panel's
version too, issue 19). Everything shown comes from
:func:`games.selectors.game_view` — never from ``Game.state``.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.db import DatabaseError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, gettext_lazy, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from accounts.models import User
from games import services
from games.chat import chat_version
from games.components import optional_rules_on
from games.messages import illegal_message, service_message
from games.models import BOT_LEVEL_NAMES, Game
from games.notify import content as notify_content
from games.notify import links as notify_links
from games.notify.replies import line_failure
from games.selectors import (
    GameView,
    game_get,
    game_view,
    seat_of,
    visible_seq,
    visible_to,
)
from games.selectors import my_games as select_my_games
from games.services.chat import chat_mark_read
from games.services.chat_ids import message_pk
from games.web.forms import (
    GameCreateForm,
    PayloadError,
    PendingOrdersForm,
    StandingOrderForm,
    action_payload,
)
from games.web.invites import seat_rows
from games.web.presenters import page_model
from games.web.presenters.chat import PANEL_DEFAULTS, chat_newer, chat_panel
from games.web.presenters.confirm import confirmation, may_ask
from games.web.presenters.rules import rules_model

#: The partials of the game page, in page order; each is also served alone at /games/<id>/partial/<name>/.
PARTIALS = ("header", "decision", "status", "board", "hand", "players", "log", "result")
DETAIL_TEMPLATE = "games/detail.html"
CHAT_TEMPLATE = "games/_chat.html"
#: Session key: table talk shown in the game log too (interleaved) rather than apart (issue 19).
CHAT_MIXED = "chat_mixed"

log = logging.getLogger(__name__)


def request_user(request: HttpRequest) -> User:
    """The logged-in user of ``request`` (the views that call this require a login)."""
    user = request.user
    assert isinstance(user, User)
    return user


def _is_htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


def home(request: HttpRequest) -> HttpResponse:
    """The home page: what the site is, and for players the games that wait for them."""
    lists = select_my_games(request_user(request)) if request.user.is_authenticated else None
    return render(request, "home.html", {"lists": lists, "rules_url": reverse("games:rules")})


@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
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


def rules(request: HttpRequest) -> HttpResponse:
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
def tutorial(request: HttpRequest) -> HttpResponse:
    """Start a guided first game against a bot (issue 15) and open it."""
    game = services.tutorial_start(user=request_user(request))
    return redirect("games:detail", game_id=game.pk)


@login_required
@require_POST
def play_bot(request: HttpRequest) -> HttpResponse:
    """Start a real two-player game against a bot at once (offered when the guided game ends)."""
    user = request_user(request)
    game = services.game_create(user=user, title=_("A game against a bot"), players=2, time_control="daily")
    services.seats_fill_with_bots(game_id=game.pk, user=user)
    services.game_start(game_id=game.pk, user=user)
    return redirect("games:detail", game_id=game.pk)


@login_required
def my_games(request: HttpRequest) -> HttpResponse:
    """My games: waiting for me (with time left), others' turn, open lobbies, finished."""
    lists = select_my_games(request_user(request))
    empty = not (lists.waiting_for_me or lists.others_turn or lists.open_lobbies or lists.finished)
    return render(request, "games/my_games.html", {"lists": lists, "empty": empty, "now": timezone.now()})


@login_required
@require_http_methods(["GET", "POST"])
def game_new(request: HttpRequest) -> HttpResponse:
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


def load_game(request: HttpRequest, game_id: int, token: str | None = None) -> Game:
    """The game with its seats, or 404 — also for private games the user has no seat in (unless the
    invite ``token`` matches).

    Raises:
        Http404: no such game, or one the user may not see.
    """
    game = game_get(game_id)
    if game is None:
        raise Http404(_("No such game."))
    if not visible_to(game, request.user, token):
        raise Http404(_("No such game."))
    return game


def duration(seconds: int) -> str:
    """A time-control length in words: "10 minutes", "4 hours", "3 days"."""
    if seconds >= 86_400 and seconds % 86_400 == 0:
        days = seconds // 86_400
        return ngettext("%(n)s day", "%(n)s days", days) % {"n": days}
    if seconds >= 3600 and seconds % 3600 == 0:
        hours = seconds // 3600
        return ngettext("%(n)s hour", "%(n)s hours", hours) % {"n": hours}
    minutes = max(1, round(seconds / 60))
    return ngettext("%(n)s minute", "%(n)s minutes", minutes) % {"n": minutes}


def _lobby(request: HttpRequest, game: Game, token: str | None = None, status: int = 200) -> HttpResponse:
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


def _names_digest(gv: GameView) -> str:
    """A short digest of the seats' public names, for the panels' cache key."""
    names = "\x1f".join(f"{number}={name}" for number, name in sorted(gv.names.items()))
    return hashlib.blake2s(names.encode(), digest_size=8).hexdigest()


def page_context(request: HttpRequest, gv: GameView, **extra: Any) -> dict[str, Any]:
    """The template context of a game page for ``gv``: the page model (:func:`page_model`), the panels'
    cache key, the seq, the viewer's time zone, plus ``extra``."""
    now = timezone.now()
    page = page_model(gv, now)
    seat = "spectator" if gv.seat is None else gv.seat
    tz = timezone.get_current_timezone_name()
    return {
        # {% cache %} key of the panels: everything they show changes only with the position (game, seq),
        # the viewer's seat, the language, the time zone and the players' names (docs.djangoproject.com
        # "Template fragment caching"); a renamed player is shown at once.
        "panel_key": f"{gv.game.pk}.{gv.game.seq}.{seat}.{get_language()}.{tz}.{_names_digest(gv)}",
        "log_minute": int(now.timestamp() // 60),
        "absent": any(
            s.number == gv.seat
            and s.missed_deadlines >= settings.ABSENT_AFTER_MISSES
            and s.resigned_at is None
            for s in gv.seats
        ),
        # issue 30: resigned (a bot plays the seat for good); a seated player of a game in progress may resign
        "resigned": any(s.number == gv.seat and s.resigned_at is not None for s in gv.seats),
        "game": gv.game,
        "gv": gv,
        "view": gv.view,
        "page": page,
        "seq": gv.game.seq,
        "poll_seconds": settings.GAME_POLL_FINISHED_SECONDS if page.finished else settings.GAME_POLL_SECONDS,
        "oob": False,
        "last_seen": None,  # the seq the poller had seen (set by ``poll``): new log entries are marked
        "chat": None,  # the chat panel (``chat_context``, issue 19) and what it adds to the log's cache key
        "log_chat": "",
        **extra,
    }


@login_required
@require_safe
def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    """The lobby of an open table, or the game page of a running or finished game."""
    game = load_game(request, game_id)
    if game.status == Game.Status.LOBBY:
        return _lobby(request, game)
    if _is_htmx(request) and request.htmx.target == "lobby":  # type: ignore[attr-defined]
        return HttpResponseClientRedirect(reverse("games:detail", args=[game.pk]))  # the game has started
    gv = game_view(game, request.user)
    if gv.view is None:
        raise Http404(_("No such game."))
    # a malformed ``before`` shows the newest messages, as an unknown ``channel`` shows the first channel
    before = message_pk(request.GET.get("before"))
    context = page_context(request, gv) | chat_context(request, game, None, before)
    return render(request, DETAIL_TEMPLATE, context)


def chat_context(
    request: HttpRequest, game: Game, key: str | None = None, before: int | None = None
) -> dict[str, Any]:
    """The chat panel's context (issue 19): channel ``key`` (default: the ``channel`` parameter, else the
    table), from the message with key ``before`` on (a decoded cursor, :func:`message_pk`), marked read
    when it shows unread messages."""
    panel = chat_panel(
        game, request.user, key or request.GET.get("channel", "table"), before, mixed=_mixed(request)
    )
    if panel.mark is not None:
        chat_mark_read(user=request_user(request), game=game, channel=panel.key, last_id=panel.mark)
    return {"chat": panel, "log_chat": panel.log_key, "game": game, "chat_before": before} | PANEL_DEFAULTS


def _mixed(request: HttpRequest) -> bool:
    return bool(request.session.get(CHAT_MIXED, False))


def _talk(request: HttpRequest, game: Game) -> dict[str, Any]:
    """The chat context when the log interleaves the table talk (its partial is redrawn), else nothing."""
    return chat_context(request, game) if _mixed(request) else {}


def chat_chunks(request: HttpRequest, context: dict[str, Any], seen: int | None = None) -> str:
    """The chat panel out of band for a poll (or a write) whose page had chat version ``seen`` (the key its
    public id names) of the channel and channel keys the ``channel`` and ``keys`` parameters name: nothing
    when nothing changed, the new lines appended when only messages came, else the whole panel."""
    panel = context["chat"]
    same = request.GET.get("channel") == panel.key and request.GET.get("keys") == panel.keys
    if same and seen == panel.newest:
        return ""
    names = ("chatnews", "chattoggle") if same and seen is not None else ("chat", "chattoggle")
    fresh = context | {"oob": True, "chat_news": panel.after(seen or 0)}
    return "\n".join(render_to_string(f"{CHAT_TEMPLATE}#{name}", fresh, request=request) for name in names)


@login_required
@require_safe
def partial(request: HttpRequest, game_id: int, name: str) -> HttpResponse:
    """One partial of the game page (for htmx, or to link to one panel)."""
    if name not in PARTIALS:
        raise Http404(_("No such panel."))
    game = load_game(request, game_id)
    if game.status == Game.Status.LOBBY:
        raise Http404(_("The game has not started."))
    # the decision panel reads the log for "Since your last move" (issue 29)
    gv = game_view(game, request.user, with_log=name in ("log", "decision"))
    if gv.view is None:
        raise Http404(_("No such game."))
    return render(request, f"{DETAIL_TEMPLATE}#{name}", page_context(request, gv))


def _partials(
    request: HttpRequest, context: dict[str, Any], main: str | None, skip: set[str] | None = None
) -> str:
    """Render ``main`` as the swap target followed by every other partial (and the poller) out of band."""
    chunks = []
    if main is not None:
        chunks.append(
            render_to_string(f"{DETAIL_TEMPLATE}#{main}", context | {"oob": False}, request=request)
        )
    for name in (*PARTIALS, "poller"):
        if name == main or (skip and name in skip):
            continue
        chunks.append(render_to_string(f"{DETAIL_TEMPLATE}#{name}", context | {"oob": True}, request=request))
    return "\n".join(chunks)


@login_required
@require_safe
def poll(request: HttpRequest, game_id: int) -> HttpResponse:
    """Cheap refresh: 204 when ``seq`` is unchanged (one query), else every partial out of band.

    ``sig`` (the decision panel's signature) keeps the decision form the player may be filling in when
    their choices did not change. The chat panel's state comes along (issue 19: ``chat``, its version, the
    public id of the newest message the page shows, issue 28; ``channel`` and ``keys``): one more query
    while no message is newer, else the reader's version; new messages come out of band
    (:func:`chat_chunks`), alone when the game did not move. A ``chat`` that is no public id is 400.
    """
    current = visible_seq(game_id, request.user)  # visibility first: 404 alike whatever the parameters
    if current is None:
        raise Http404(_("No such game."))
    try:
        seen = int(request.GET.get("seq", ""))
    except ValueError:
        return HttpResponse(_("seq must be a whole number."), status=400, content_type="text/plain")
    talk = message_pk(request.GET.get("chat"))  # the chat version the page shows (issues 19, 28)
    if talk is None and "chat" in request.GET:  # malformed or forged: no id the site gave out
        return HttpResponse(_("The request is malformed."), status=400, content_type="text/plain")
    # one query: any newer message at all (a reader with no channel has nothing to wait for)
    talked = talk is not None and request.GET.get("keys") != "" and chat_newer(game_id, talk)
    if current == seen and not talked:
        return HttpResponse(status=204)
    game = load_game(request, game_id)
    if game.status == Game.Status.LOBBY or (current == seen and chat_version(game, request.user) == talk):
        return HttpResponse(status=204)  # nothing new the reader may read
    talk_context = chat_context(request, game) if talk is not None else {}
    if current == seen:  # only the chat changed: its lines (and the log when it interleaves them)
        chunks = chat_chunks(request, talk_context, talk)
        if not _mixed(request):
            return HttpResponse(chunks) if chunks else HttpResponse(status=204)
    gv = game_view(game, request.user)
    context = page_context(request, gv, last_seen=seen) | talk_context
    skip = {"decision"} if request.GET.get("sig") == context["page"].decision["sig"] else set()
    body = _partials(request, context, None, skip)
    return HttpResponse(body + chat_chunks(request, context, talk) if talk is not None else body)


@login_required
@require_POST
def act(request: HttpRequest, game_id: int) -> HttpResponseBase:
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
        payload, expected_seq, prompt_key = action_payload(request.POST)
    except PayloadError as exc:
        return _refused(request, game, 400, str(exc))
    if request.POST.get("confirmed") != "1":
        asked = _ask_first(request, game, payload)
        if asked is not None:
            return asked
    try:
        services.action_submit(
            game_id=game.pk,
            user=request_user(request),
            payload=payload,
            expected_seq=expected_seq,
            prompt_key=prompt_key,
            source="web",
        )
    except services.StaleState:
        return _refused(request, game_id, 409, _("The game has moved on. Here is the current position."))
    except services.Illegal as exc:
        reason = illegal_message(exc.params, exc.message)
        if not _is_htmx(request):
            messages.error(request, reason)
            return redirect("games:detail", game_id=game.pk)
        return _refused(request, game, 422, reason)
    except services.ServiceError as exc:
        return _refused(request, game_id, exc.status, service_message(exc))
    if not _is_htmx(request):
        return redirect("games:detail", game_id=game.pk)
    fresh = game_get(game.pk)
    assert fresh is not None
    context = page_context(request, game_view(fresh, request.user), last_seen=game.seq) | _talk(
        request, fresh
    )
    return HttpResponse(_partials(request, context, "decision"))


@login_required
@require_POST
def undo(request: HttpRequest, game_id: int) -> HttpResponseBase:
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
        return _refused(request, game, 400, _("expected_seq and steps must be whole numbers."))
    try:
        services.action_undo(
            game_id=game.pk, user=request_user(request), expected_seq=expected_seq, steps=steps
        )
    except services.StaleState:
        return _refused(request, game_id, 409, _("The game has moved on. Here is the current position."))
    except services.ServiceError as exc:
        return _refused(request, game_id, exc.status, service_message(exc))
    if not _is_htmx(request):
        messages.success(
            request, ngettext("Step taken back.", "%(n)d steps taken back.", steps) % {"n": steps}
        )
        return redirect("games:detail", game_id=game.pk)
    fresh = game_get(game.pk)
    assert fresh is not None
    context = page_context(request, game_view(fresh, request.user), last_seen=game.seq) | _talk(
        request, fresh
    )
    return HttpResponse(_partials(request, context, "decision"))


def _ask_first(request: HttpRequest, game: Game, payload: dict[str, Any]) -> HttpResponse | None:
    """The decision panel asking to confirm an act that cannot be taken back (issue 16), with a form that
    posts the same fields again plus ``confirmed=1``; ``None`` when the act needs no confirmation. Nothing
    is applied. Works without JavaScript (the whole page) and with htmx (the panel)."""
    if not may_ask(payload):  # most submits: no second read of the position
        return None
    gv = game_view(game, request.user, with_log=False)
    if gv.view is None or gv.seat is None:
        return None
    context = page_context(request, gv)
    question = confirmation(context["page"].view, payload)
    if question is None:
        return None
    fields = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in ("csrfmiddlewaretoken", "confirmed")
        for value in values
    ]
    context["confirm"] = {**question, "fields": fields, "act": str(payload.get("type", ""))}
    if _is_htmx(request):
        return render(request, f"{DETAIL_TEMPLATE}#decision", context)
    return render(request, DETAIL_TEMPLATE, context | chat_context(request, game))


#: The decision-form fields a refused move gives back to its form (issue 29: a refused move keeps what the
#: player filled in).
KEPT_FIELDS = ("card", "cards", "to", "knights", "from", "target", "corruption", "player")


def _kept(request: HttpRequest, status: int) -> dict[str, Any]:
    """What the refused form held, for the template to fill in again: ``{"type": action type, field:
    [values]}`` (empty for a stale position, 409, whose forms are new)."""
    if request.method != "POST" or status == 409:
        return {}
    return {"type": request.POST.get("type", ""), **{f: request.POST.getlist(f) for f in KEPT_FIELDS}}


def _refused(request: HttpRequest, game: Game | int, status: int, message: str) -> HttpResponse:
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
    if _is_htmx(request):
        if status == 409:
            return HttpResponse(_partials(request, context, "decision"), status=status)
        return render(request, f"{DETAIL_TEMPLATE}#decision", context, status=status)
    return render(request, DETAIL_TEMPLATE, context | chat_context(request, game), status=status)


# ------------------------------------------------------------------------------------------------------
# Lobby actions (POST only; each redirects back to the table with a message)
# ------------------------------------------------------------------------------------------------------


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


def _lobby_run(request: HttpRequest, game: Game, spec: LobbyAction) -> HttpResponse:
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
def lobby_action(request: HttpRequest, game_id: int, action: str) -> HttpResponse:
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
def invite(request: HttpRequest, game_id: int, token: str) -> HttpResponse:
    """The invite link of a private table: GET shows the table with a join button; POST joins."""
    game = load_game(request, game_id, token)
    if request.method == "POST":
        return _lobby_run(request, game, LOBBY_ACTIONS["join"])
    if game.status != Game.Status.LOBBY:
        if _is_htmx(request):
            return HttpResponseClientRedirect(reverse("games:detail", args=[game.pk]))
        return redirect("games:detail", game_id=game.pk)
    return _lobby(request, game, token=token)


_LINK_ERRORS: dict[str, tuple[int, Any]] = {
    "invalid": (400, gettext_lazy("This link is not valid. Open the game to decide there.")),
    "expired": (410, gettext_lazy("This link has expired. Open the game to decide there.")),
    "used": (410, gettext_lazy("This link has already been used; it acts only once.")),
}


@require_http_methods(["GET", "POST"])
def email_link(request: HttpRequest, token: str) -> HttpResponse:
    """A signed single-use link from an email (issue 4 "Act from the email"). GET only shows what the
    link would do, with a confirmation button (mail scanners prefetch links), or at once that the decision
    has passed (410); the POST acts, without a login but only for the one answer the link names. An invalid
    (400), expired or used (410) link says so and does nothing; a decision already made or refused by the
    rules is shown and changes nothing."""
    try:
        n, action = notify_links.link_load(token)
    except notify_links.LinkError as exc:
        status, text = _LINK_ERRORS[exc.reason]
        return render(request, "games/email_link.html", {"error": text}, status=status)
    assert n.game is not None
    context: dict[str, Any] = {"game": n.game, "label": notify_content.link_label(action), "token": token}
    if request.method == "GET" and not notify_links.link_still_open(n, action):
        gone = service_message(services.Conflict("this decision has already been made"))
        return render(request, "games/email_link.html", {"error": gone, **context}, status=410)
    if request.method == "POST":
        try:
            notify_links.link_act(token)
        except notify_links.LinkError as exc:
            status, text = _LINK_ERRORS[exc.reason]
            return render(request, "games/email_link.html", {"error": text, **context}, status=status)
        except services.ServiceError as exc:
            reason = service_message(exc)
            return render(request, "games/email_link.html", {"error": reason, **context}, status=exc.status)
        return render(request, "games/email_link.html", {"done": True, **context})
    return render(request, "games/email_link.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def orders(request: HttpRequest) -> HttpResponse:
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
def pending_write(request: HttpRequest) -> HttpResponse:
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
    request: HttpRequest, user: User, form: StandingOrderForm, later: PendingOrdersForm, status: int
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
def pending_clear(request: HttpRequest, game_id: int) -> HttpResponse:
    """Remove my pending orders in one game (issue 30; only my own: nothing else is touched)."""
    try:
        services.pending_clear(user=request_user(request), game_id=game_id)
    except services.NotFound as exc:
        raise Http404(service_message(exc)) from exc
    messages.success(request, _("Pending orders removed."))
    return redirect("games:orders")


@login_required
@require_POST
def order_delete(request: HttpRequest, order_id: int) -> HttpResponse:
    """Delete one of my standing orders (404 if it is not mine)."""
    try:
        services.standing_order_delete(user=request_user(request), order_id=order_id)
    except services.NotFound as exc:
        raise Http404(service_message(exc)) from exc
    messages.success(request, _("Standing order deleted."))
    return redirect("games:orders")
