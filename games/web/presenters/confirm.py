"""Acts that can be neither undone nor taken back ask first (issue 16): ending the turn with a manoeuvre
unused, playing Tactical Advance, playing Fracture (in a free window or in a response window). Web forms
only: the JSON API and email links have their own explicit steps."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import engine
from games.engine import ActionType, Phase
from games.web.presenters.common import artefact_owner


def may_ask(payload: dict[str, Any]) -> bool:
    """Whether ``payload`` is of a kind :func:`confirmation` can ask about at all (cheap: no view needed),
    so other submits skip reading the position a second time."""
    kind = payload.get("type")
    if kind == ActionType.RESPOND:
        return bool(payload.get("fracture"))
    return kind in (ActionType.END_TURN, ActionType.TACTICAL_ADVANCE, ActionType.FRACTURE)


def confirmation(view: engine.View, payload: dict[str, Any]) -> dict[str, str] | None:
    """The question to ask before ``payload`` is sent, or ``None`` when it needs none.

    Args:
        view: the viewer's view (names already in the reader's language).
        payload: the action the form would send.

    Returns:
        ``{"question", "yes"}``: the sentence and the confirming button's label.
    """
    kind = payload.get("type")
    if kind == ActionType.END_TURN and view["phase"] == Phase.WINDOW and view["manoeuvres_left"] > 0:
        n = view["manoeuvres_left"]
        return {
            "question": ngettext(
                "End your turn with %(n)s manoeuvre unused? It lapses and cannot be taken back.",
                "End your turn with %(n)s manoeuvres unused? They lapse and cannot be taken back.",
                n,
            )
            % {"n": n},
            "yes": _("Yes, end my turn"),
        }
    if kind == ActionType.TACTICAL_ADVANCE:
        return {
            "question": _(
                "Play Tactical Advance? The card is spent even if you do not use the extra manoeuvre."
            ),
            "yes": _("Yes, play Tactical Advance"),
        }
    targets = [str(payload["target"])] if kind == ActionType.FRACTURE else []
    if kind == ActionType.RESPOND:
        targets = [str(t) for t in payload.get("fracture") or []]
    if targets:
        names = ", ".join(artefact_owner(view, t)[1] for t in targets)
        return {
            "question": _("Play your Fracture on %(targets)s? The card is spent and cannot be taken back.")
            % {"targets": names},
            "yes": _("Yes, play Fracture"),
        }
    return None
