"""The game page's poll: ``/games/<id>/poll/?seq=N`` answers 204 while nothing changed, else every partial
out of band (with ``chat=V`` the chat panel's version too, issue 19).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from games.chat import chat_version
from games.models import Game
from games.selectors import (
    game_view,
    visible_seq,
)
from games.services.chat_ids import message_pk
from games.web.common import HtmxHttpRequest, load_game
from games.web.game_page import (
    chat_chunks,
    chat_context,
    chat_mixed,
    page_context,
    partials_html,
)
from games.web.presenters.chat import chat_newer


@login_required
@require_safe
def poll(request: HtmxHttpRequest, game_id: int) -> HttpResponse:
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
        if not chat_mixed(request):
            return HttpResponse(chunks) if chunks else HttpResponse(status=204)
    gv = game_view(game, request.user)
    context = page_context(request, gv, last_seen=seen) | talk_context
    skip = {"decision"} if request.GET.get("sig") == context["page"].decision["sig"] else set()
    body = partials_html(request, context, None, skip)
    return HttpResponse(body + chat_chunks(request, context, talk) if talk is not None else body)
