"""Table talk on the game page (issue 19): the chat panel's views. Thin, like the other pages: parse, call
:mod:`games.services.chat` (the one home of who may read and post what) or read through
:func:`games.web.presenters.chat.chat_panel`, render a partial of ``templates/games/_chat.html``.

Every view works with htmx (it answers the partials it changed; the rest of the panel out of band) and
without JavaScript (a normal form post, then a redirect to the game page, or the page itself with the
refusal and its status). Refusals are 4xx, never 500: 400 bad input (a message id or ``before`` cursor
that is not a public id the site gave out, :func:`games.services.chat_ids.message_pk`), 403 not allowed
(a spectator, a suspended chat), 404 no such game or message (a private game is 404 to strangers, as
everywhere), 429 too many messages (saying how long to wait).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from games.chat import read_mark_refusal
from games.messages import service_message
from games.models import Game
from games.selectors import game_view
from games.services import NotFound, ServiceError
from games.services.chat import chat_export_consent as export_consent
from games.services.chat import chat_mark_read as mark_read
from games.services.chat import chat_mute as mute_player
from games.services.chat import chat_post as post_message
from games.services.chat import chat_report as report_message
from games.services.chat_ids import message_pk
from games.web.common import HtmxHttpRequest, load_game, request_user
from games.web.forms import whole
from games.web.game_page import CHAT_MIXED, CHAT_TEMPLATE, DETAIL_TEMPLATE, chat_context, page_context
from games.web.presenters.chat import muted_seats


def _started(request: HtmxHttpRequest, game_id: int) -> Game:
    """The game (404 as :func:`games.web.common.load_game`), once it has started: a lobby has no chat."""
    game = load_game(request, game_id)
    if game.status == Game.Status.LOBBY:
        raise Http404(_("The game has not started."))
    return game


def _to_page(game: Game, **params: Any) -> HttpResponse:
    """A redirect to the game page's chat panel (``params``: the query, e.g. the channel shown)."""
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    url = reverse("games:detail", args=[game.pk]) + (f"?{query}" if query else "") + "#chat-panel"
    return redirect(url)


def _render(
    request: HtmxHttpRequest, context: dict[str, Any], main: str, *oob: str, status: int = 200
) -> HttpResponse:
    """``main`` (a partial of the chat template) followed by the ``oob`` partials out of band."""
    chunks = [render_to_string(f"{CHAT_TEMPLATE}#{main}", context | {"oob": False}, request=request)]
    chunks += [
        render_to_string(f"{CHAT_TEMPLATE}#{name}", context | {"oob": True}, request=request) for name in oob
    ]
    return HttpResponse("\n".join(chunks), status=status)


def _page(request: HtmxHttpRequest, game: Game, context: dict[str, Any], status: int) -> HttpResponse:
    """The whole game page with the chat ``context`` (a refusal without JavaScript), with ``status``."""
    gv = game_view(game, request.user)
    if gv.view is None:
        raise Http404(_("No such game."))
    return render(request, DETAIL_TEMPLATE, page_context(request, gv) | context, status=status)


@login_required
@require_safe
def chat(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """One channel of the chat panel (``?channel=``: ``table``, ``team``, ``p<seat>``; an unknown one
    shows the first the reader has), marked read. With ``before=<id>`` (a message's public id, htmx): the
    page of older messages to put above those shown; a ``before`` that is no public id is 400. Without
    htmx: a redirect to the game page showing the same."""
    game = _started(request, game_id)
    raw = request.GET.get("before")
    before = message_pk(raw)
    if raw is not None and before is None:
        return HttpResponse(_("The request is malformed."), status=400, content_type="text/plain")
    if not request.htmx:
        return _to_page(game, channel=request.GET.get("channel", ""), before=raw)
    context = chat_context(request, game, None, before)
    if before is not None:
        return _render(request, context, "chatpage")
    extra = ("chatchannel", "chattoggle") if context["chat"].post else ("chattoggle",)
    return _render(request, context, "chat", *extra)


@login_required
@require_POST
def chat_send(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """Post ``text`` to ``channel`` (:func:`games.services.chat.chat_post`). htmx: an empty form, the panel
    with the new message out of band; without htmx: a redirect to the channel on the game page. A refusal
    shows the form again with the text and the reason (``role="alert"``) and the refusal's status."""
    game = _started(request, game_id)
    key = request.POST.get("channel", "")
    text = request.POST.get("text", "")
    try:
        post_message(game_id=game.pk, user=request_user(request), channel=key, text=text)
    except NotFound as exc:
        raise Http404(service_message(exc)) from exc
    except ServiceError as exc:
        context = chat_context(request, game, key) | {"chat_error": service_message(exc), "chat_text": text}
        if not request.htmx:
            return _page(request, game, context, exc.status)
        return _render(request, context, "chatform" if context["chat"].post else "chat", status=exc.status)
    if not request.htmx:
        return _to_page(game, channel=key)
    return _render(request, chat_context(request, game, key), "chatform", "chat", "chattoggle")


@login_required
@require_POST
def chat_read(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """Mark ``channel`` read up to message ``last`` (a public id) for the user (issue 31 §4: the panel's
    GETs write nothing; the panel posts this when it shows unread messages). htmx: 204; without htmx: back
    to the channel on the game page. A ``last`` that is no public id, or one newer than anything the reader
    may read there, is 400; a channel the reader does not have is 404. Marks never go backwards."""
    game = _started(request, game_id)
    key = request.POST.get("channel", "")
    last = message_pk(request.POST.get("last"))
    if last is None:
        return HttpResponse(_("The request is malformed."), status=400, content_type="text/plain")
    refusal = read_mark_refusal(game, request.user, key, last)
    if refusal == "channel":
        raise Http404(_("You cannot read that chat channel."))
    if refusal:
        return HttpResponse(_("The request is malformed."), status=400, content_type="text/plain")
    mark_read(user=request_user(request), game=game, channel=key, last_id=last)
    if not request.htmx:
        return _to_page(game, channel=key)
    return HttpResponse(status=204)


@login_required
@require_POST
def chat_mute(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """Mute (``mute=1``, the default) or unmute (``mute=0``) the player of ``seat`` for the user only
    (:func:`games.services.chat.chat_mute`): their messages disappear from every channel. Only a seated
    player mutes (403 for a spectator, issue 28); an empty or unknown seat is 404. htmx: the panel again
    with a notice (and a button to undo); without htmx: a redirect with the notice."""
    game = _started(request, game_id)
    seat = whole(request.POST.get("seat"))
    other = next((s for s in game.seats.all() if s.number == seat and s.user_id is not None), None)
    if other is None or other.user_id is None:
        raise Http404(service_message(NotFound("no such user")))
    mute = request.POST.get("mute", "1") != "0"
    try:
        mute_player(game_id=game.pk, user=request_user(request), other_id=other.user_id, mute=mute)
    except NotFound as exc:
        raise Http404(service_message(exc)) from exc
    except ServiceError as exc:
        return HttpResponse(service_message(exc), status=exc.status, content_type="text/plain")
    if mute:
        notice = _("You muted %(name)s: their messages are hidden from you.") % {"name": other.name}
    else:
        notice = _("You see the messages of %(name)s again.") % {"name": other.name}
    if not request.htmx:
        messages.success(request, notice)
        return _to_page(game, channel=request.POST.get("channel", ""))
    context = chat_context(request, game, request.POST.get("channel", ""))
    context |= {"chat_notice": notice, "chat_unmute": (other.number, other.name) if mute else None}
    return _render(request, context, "chat", "chattoggle")


@login_required
@require_POST
def chat_report(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """Report a message the user can read to the staff, with a ``reason`` (the Django admin lists
    reports): ``message`` is its public id (400 when it is none the site gave out). htmx: a thank-you in
    place of the message's menu; without htmx: a redirect with it."""
    game = _started(request, game_id)
    message_id = message_pk(request.POST.get("message"))
    if message_id is None:
        return HttpResponse(_("Say which message to report."), status=400, content_type="text/plain")
    try:
        report_message(
            game_id=game.pk,
            user=request_user(request),
            message_id=message_id,
            reason=request.POST.get("reason", ""),
        )
    except NotFound as exc:
        raise Http404(service_message(exc)) from exc
    except ServiceError as exc:  # a reason holding NUL: 400, saying why
        return HttpResponse(service_message(exc), status=exc.status, content_type="text/plain")
    thanks = _("Thank you: the staff will look at this message.")
    if not request.htmx:
        messages.success(request, thanks)
        return _to_page(game)
    return render(request, f"{CHAT_TEMPLATE}#chatreported", {"thanks": thanks})


@login_required
@require_safe
def chat_muted(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """The chat settings of one game: the players the user has muted, each with a button to unmute, and
    whether they agree that the table talk goes into the game's exported record (and how many agree)."""
    game = load_game(request, game_id)
    user = request_user(request)
    rows = muted_seats(game, user)
    people = [s for s in game.seats.all() if s.user_id is not None]
    mine = next((s for s in people if s.user_id == user.pk), None)
    context = {
        "game": game,
        "rows": rows,
        "seat": mine,
        "agreed": sum(1 for s in people if s.chat_in_export),
        "people": len(people),
    }
    return render(request, "games/chat_muted.html", context)


@login_required
@require_POST
def chat_export(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """Agree (``consent=1``) or no longer agree (``consent=0``) that the game's table talk goes into its
    exported record (:func:`games.services.chat.chat_export_consent`; only when every player agrees)."""
    game = load_game(request, game_id)
    try:
        export_consent(
            game_id=game.pk, user=request_user(request), consent=request.POST.get("consent") == "1"
        )
    except ServiceError as exc:
        raise Http404(service_message(exc)) from exc
    messages.success(request, _("Your choice for the game record is saved."))
    return redirect("games:chat_muted", game_id=game.pk)


@login_required
@require_POST
def chat_layout(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """Show the table talk in the game log too, interleaved by time (``mixed=1``), or apart only
    (``mixed=0``); remembered in the session for every game."""
    game = load_game(request, game_id)
    request.session[CHAT_MIXED] = request.POST.get("mixed") == "1"
    return redirect(reverse("games:detail", args=[game.pk]) + "#chat-panel")
