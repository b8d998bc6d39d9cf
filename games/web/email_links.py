"""The signed single-use links of the emails (issue 4 "Act from the email")."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from games import services
from games.messages import service_message
from games.notify import content as notify_content
from games.notify import links as notify_links
from games.web.common import HtmxHttpRequest

_LINK_ERRORS: dict[str, tuple[int, Any]] = {
    "invalid": (400, gettext_lazy("This link is not valid. Open the game to decide there.")),
    "expired": (410, gettext_lazy("This link has expired. Open the game to decide there.")),
    "used": (410, gettext_lazy("This link has already been used; it acts only once.")),
}


@require_http_methods(["GET", "POST"])
def email_link(request: HtmxHttpRequest, token: str) -> HttpResponse:
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
