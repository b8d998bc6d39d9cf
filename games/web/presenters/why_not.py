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
    """Why the viewer's crown cannot be used in this free window (R39, R41, R93). Every face-up crown not
    yet used this turn can be (the Crown of Order with no card to return too, R101), except Corruption
    with no artefact to target (Q31)."""
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
    return _entry(_("%(crown)s: no other face-up artefact to act on.") % {"crown": name}, "R41")


def _crown_idle(me: engine.PlayerView, uses: list[dict[str, Any]]) -> list[dict[str, str]]:
    """A crown the viewer may use but to no effect: the Crown of Order with no card discarded on a previous
    turn (R41, R101)."""
    crown = crown_of(me)
    if crown is None or crown["ability"] != "order" or any(u.get("card") for u in uses):
        return []
    return [
        _entry(
            _("%(crown)s: no card discarded on a previous turn, so using it now does nothing.")
            % {"crown": crown["name"]},
            "R101",
        )
    ]


def _redistribution_reason(view: engine.View, seat: int) -> dict[str, str]:
    """Why the viewer cannot start a manoeuvre with a redistribution (R43, R45, R46)."""
    mine = [t for t in view["map"] if t.get("owner") == seat and t["kind"] == "territory"]
    if not mine:
        return _entry(
            _("No redistribution: you control no territory yet, so your knights can only advance."), "R43"
        )
    if not any(t.get("supplied") for t in mine):
        return _entry(
            _("No redistribution: none of your territories has a line of supply, so all are frozen."), "R46"
        )
    return _entry(
        _(
            "No redistribution: every move would leave a territory empty or over its capacity; you can still "
            "advance."
        ),
        "R45",
    )


def _battle_reasons(view: engine.View, seat: int) -> list[dict[str, str]]:
    """What the viewer, fighting in the battle, cannot play in it: no support cards in the Mountains (R71),
    no conflict card in hand (R68)."""
    battle = view["battle"]
    if battle is None or seat not in (battle["attacker"]["seat"], battle["defender"]["seat"]):
        return []
    hand = view["players"][seat].get("hand", [])
    out = []
    if battle["step"] <= 4 and not any(c["kind"] == engine.CardKind.CONFLICT for c in hand):
        out.append(_entry(_("No conflict card in your hand: you count as having played a 0."), "R68"))
    supports = any(c["kind"] == engine.CardKind.SUPPORT for c in hand)
    if battle["no_support"] and battle["step"] <= 5 and supports:  # R71, as the engine decides it
        out.append(_entry(_("No support cards: nobody may play any in a battle for the Mountains."), "R71"))
    return out


def why_not(view: engine.View, legal: list[dict[str, Any]], seat: int | None) -> list[dict[str, str]]:
    """The moves of the viewer's turn that are not available now, with reasons.

    Args:
        view: the viewer's view.
        legal: the viewer's legal action payloads.
        seat: the viewer's seat (``None``: a spectator, who gets nothing).

    Returns:
        ``[{"text", "rule" ("R28"), "anchor" (of /rules/)}]``; empty when it is neither the viewer's own
        free window or manoeuvre nor a battle the viewer fights in.
    """
    if seat is None:
        return []
    if view["battle"] is not None:
        return _battle_reasons(view, seat)
    if view["active"] != seat or view["phase"] not in (Phase.WINDOW, Phase.MANOEUVRE):
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
    if view["manoeuvres_left"] > 0 and ActionType.REDISTRIBUTE not in groups:
        out.append(_redistribution_reason(view, seat))
    if ActionType.USE_CROWN not in groups:
        reason = _crown_reason(view, me)
        if reason is not None:
            out.append(reason)
    else:
        out.extend(_crown_idle(me, groups[ActionType.USE_CROWN]))
    effects = {str(c.get("card")) for c in me.get("hand", []) if c["kind"] == engine.CardKind.RESOURCE}
    if "fracture" in effects and ActionType.FRACTURE not in groups:
        out.append(_entry(_("Fracture: no other player has a face-up artefact."), "R36"))
    return out
