"""The game page (thin: parse, call a selector, render). It works as a plain document; with htmx it swaps its
partials (``templates/games/detail.html``: header, board, players, hand, status, decision, log, result).
Everything shown comes from :func:`games.selectors.game_view`, never from ``Game.state``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe
from django_htmx.http import HttpResponseClientRedirect

from games.models import Game
from games.selectors import (
    GameView,
    game_get,
    game_view,
)
from games.services.chat_ids import message_pk
from games.web.common import HtmxHttpRequest, load_game
from games.web.lobby import lobby_page
from games.web.presenters import page_model
from games.web.presenters.chat import PANEL_DEFAULTS, chat_panel

#: The partials of the game page, in page order; each is also served alone at /games/<id>/partial/<name>/.
PARTIALS = ("header", "decision", "status", "board", "hand", "players", "log", "result")


DETAIL_TEMPLATE = "games/detail.html"


CHAT_TEMPLATE = "games/_chat.html"


#: Session key: table talk shown in the game log too (interleaved) rather than apart (issue 19).
CHAT_MIXED = "chat_mixed"


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
def game_detail(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
    """The lobby of an open table, or the game page of a running or finished game."""
    game = load_game(request, game_id)
    if game.status == Game.Status.LOBBY:
        return lobby_page(request, game)
    if request.htmx and request.htmx.target == "lobby":
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
    table), from the message with key ``before`` on (a decoded cursor, :func:`message_pk`). Nothing is
    written: when the panel shows unread messages it carries a small form that marks them read by POST
    (``games:chat_read``, sent by htmx when it loads; a button without JavaScript), issue 31 §4."""
    panel = chat_panel(
        game, request.user, key or request.GET.get("channel", "table"), before, mixed=chat_mixed(request)
    )
    return {"chat": panel, "log_chat": panel.log_key, "game": game, "chat_before": before} | PANEL_DEFAULTS


def after_write(request: HttpRequest, game: Game) -> HttpResponse:
    """The answer to an htmx write of the game page (a move, an undo): the new decision panel with every
    other partial out of band, marked new since ``game.seq`` (the position the request was made on)."""
    fresh = game_get(game.pk)
    assert fresh is not None
    context = page_context(request, game_view(fresh, request.user), last_seen=game.seq) | talk_context(
        request, fresh
    )
    return HttpResponse(partials_html(request, context, "decision"))


def chat_mixed(request: HttpRequest) -> bool:
    """Whether the reader chose to see the table talk interleaved in the game log (session, issue 19)."""
    return bool(request.session.get(CHAT_MIXED, False))


def talk_context(request: HttpRequest, game: Game) -> dict[str, Any]:
    """The chat context when the log interleaves the table talk (its partial is redrawn), else nothing."""
    return chat_context(request, game) if chat_mixed(request) else {}


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


def partials_html(
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
