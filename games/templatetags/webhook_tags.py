"""The game page's webhooks panel (issue 32): ``{% load webhook_tags %}{% webhooks_panel %}`` renders
``games/_webhooks.html`` for the game's creator only (nothing for anyone else)."""

from __future__ import annotations

from typing import Any

from django import template

from games.models import GameWebhook
from games.services.webhooks import allow_localhost, hooks_of

register = template.Library()


@register.inclusion_tag("games/_webhooks.html", takes_context=True)
def webhooks_panel(
    context: template.Context, error: str = "", kind: str = "", url: str = "", lazy: bool = False
) -> dict[str, Any]:
    """The panel's context from the page's ``game``, ``user`` and ``csrf_token``: ``hooks`` (a list of
    ``(hook, last_error)``, or ``None`` when the viewer did not create the game), the kinds, and a refused
    form's ``error``, ``kind`` and ``url`` (shown again). ``lazy`` (the game page): no query, only a link to
    the webhooks page that htmx loads in place, for the creator."""
    game = context.get("game")
    user = context.get("user")
    if lazy:  # no query: whether the viewer created the game is on the row
        pk = getattr(user, "pk", None)
        mine = game is not None and pk is not None and pk == game.created_by_id
        return {"game": game, "lazy": mine}
    hooks = hooks_of(game, user) if game is not None else None
    return {
        "game": game,
        "lazy": False,
        "hooks": hooks,
        "kinds": GameWebhook.Kind.choices,
        "csrf_token": context.get("csrf_token"),
        "error": error,
        "kind": kind,
        "url": url,
        "localhost": allow_localhost(),
    }
