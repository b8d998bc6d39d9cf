""" "Why can't I?" (issue 15): beside the decision panel, the moves of the turn that the viewer cannot make
right now, each with the reason and the rule that says so (linked to ``/rules/``).

Reads only the viewer's own view and legal actions, so a reason never reveals what the seat may not know
(another player's hand, a deck order).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games import engine
from games.engine import ActionType, Phase
from games.rulebook import rule_anchor
from games.web.presenters.common import actions_by_type, crown_of


def _entry(text: str, rule: str) -> dict[str, str]:
    return {"text": text, "rule": rule, "anchor": rule_anchor(rule)}


def _advance_reason(view: engine.View, me: engine.PlayerView) -> dict[str, str]:
    """Why no advance is possible on the viewer's own turn (R28, R52, R53)."""
    if view["phase"] == Phase.WINDOW and view["manoeuvres_left"] <= 0:
        return _entry(
            _("No advance: you have no manoeuvre left this turn (Tactical Advance gives one more)."), "R28"
        )
    if me["castle_knights"] <= 0:
        return _entry(_("No advance: your castle has no knights; redistribute some there first."), "R52")
    return _entry(
        _("No advance: no territory is within reach of your castle or your supplied territories."), "R53"
    )


def _crown_reason(view: engine.View, me: engine.PlayerView) -> dict[str, str] | None:
    """Why the viewer's crown cannot be used in this free window (R39, R41, R93)."""
    crown = crown_of(me)
    if crown is None:
        return None
    name = crown["name"]
    if not crown["face_up"]:
        return _entry(
            _("%(crown)s: face down (destroyed) until it is restored at the end of a turn of yours.")
            % {"crown": name},
            "R93",
        )
    if view["crown_used"]:
        return _entry(_("%(crown)s: already used this turn.") % {"crown": name}, "R39")
    if crown["ability"] == "order":
        return _entry(
            _("%(crown)s: no card in your discard pile was discarded on a previous turn.") % {"crown": name},
            "R41",
        )
    return _entry(_("%(crown)s: there is nothing it could act on right now.") % {"crown": name}, "R41")


def why_not(view: engine.View, legal: list[dict[str, Any]], seat: int | None) -> list[dict[str, str]]:
    """The moves of the viewer's turn that are not available now, with reasons.

    Args:
        view: the viewer's view.
        legal: the viewer's legal action payloads.
        seat: the viewer's seat (``None``: a spectator, who gets nothing).

    Returns:
        ``[{"text", "rule" ("R28"), "anchor" (of /rules/)}]``; empty when it is not the viewer's own free
        window or manoeuvre.
    """
    if seat is None or view["active"] != seat or view["phase"] not in (Phase.WINDOW, Phase.MANOEUVRE):
        return []
    me = view["players"][seat]
    groups = actions_by_type(legal)
    out: list[dict[str, str]] = []
    if ActionType.ADVANCE not in groups:
        out.append(_advance_reason(view, me))
    if view["phase"] == Phase.MANOEUVRE:
        out.append(
            _entry(_("Cards, crown and End turn: finish this manoeuvre first (advance or decline)."), "R28")
        )
        return out
    if ActionType.USE_CROWN not in groups:
        reason = _crown_reason(view, me)
        if reason is not None:
            out.append(reason)
    effects = {str(c.get("card")) for c in me.get("hand", []) if c["kind"] == engine.CardKind.RESOURCE}
    if "fracture" in effects and ActionType.FRACTURE not in groups:
        out.append(_entry(_("Fracture: no other player has a face-up artefact."), "R36"))
    if "call_to_arms" in effects and ActionType.CALL_TO_ARMS not in groups:
        out.append(_entry(_("Call to Arms: it cannot be played right now."), "R34"))
    if "tactical_advance" in effects and ActionType.TACTICAL_ADVANCE not in groups:
        out.append(_entry(_("Tactical Advance: it cannot be played right now."), "R35"))
    return out
