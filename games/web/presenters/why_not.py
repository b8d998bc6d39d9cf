""" "Why can't I?" (issue 15): beside the decision panel, the moves of the turn that the viewer cannot make
right now, each with the reason and the rule that says so (linked to ``/rules/``).

The engine decides what is blocked and why (:func:`games.engine.blocked`, issue 31 §2: the refusals of
the same checks :func:`games.engine.apply` runs); this module only words them for the viewer, reading the
viewer's own view for names. So a reason never restates a rule and never reveals what the seat may not
know (another player's hand, a deck order).
"""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games import engine
from games.engine import ActionType, ErrorCode
from games.messages import illegal_message, illegal_rule
from games.rulebook import rule_anchor
from games.web.presenters.common import actions_by_type, crown_of


def _entry(text: str, rule: str) -> dict[str, str]:
    return {"text": text, "rule": rule, "anchor": rule_anchor(rule)}


def _no_room(_crown: str) -> str:
    """Every one-knight redistribution would empty a territory (R45) or overfill one (R12)."""
    return _(
        "No redistribution: every move would leave a territory empty or over its capacity; you can still "
        "advance."
    )


#: The words of a blocked move, by its family and the engine's code: ``(crown name) -> sentence``. A pair
#: missing here is worded "<family>: <the engine's message>" (:func:`_generic`).
_WORDS: dict[tuple[ActionType, ErrorCode], Callable[[str], str]] = {
    (ActionType.ADVANCE, ErrorCode.NO_MANOEUVRE_LEFT): lambda _crown: _(
        "No advance: you have no manoeuvre left this turn (Tactical Advance gives one more)."
    ),
    (ActionType.ADVANCE, ErrorCode.NOT_ENOUGH_KNIGHTS): lambda _crown: _(
        "No advance: your castle has no knights; redistribute some there first."
    ),
    (ActionType.ADVANCE, ErrorCode.NO_ADVANCE_TARGET): lambda _crown: _(
        "No advance: no territory is within reach of your castle or your supplied territories."
    ),
    (ActionType.REDISTRIBUTE, ErrorCode.NO_TERRITORY): lambda _crown: _(
        "No redistribution: you control no territory yet, so your knights can only advance."
    ),
    (ActionType.REDISTRIBUTE, ErrorCode.LOCATION_UNSUPPLIED): lambda _crown: _(
        "No redistribution: none of your territories has a line of supply, so all are frozen."
    ),
    (ActionType.REDISTRIBUTE, ErrorCode.TERRITORY_ABANDONED): _no_room,
    (ActionType.REDISTRIBUTE, ErrorCode.OVER_CAPACITY): _no_room,
    (ActionType.USE_CROWN, ErrorCode.CROWN_UNAVAILABLE): lambda crown: (
        _("%(crown)s: face down (destroyed) until it is restored at the end of a turn of yours.")
        % {"crown": crown}
    ),
    (ActionType.USE_CROWN, ErrorCode.CROWN_ALREADY_USED): lambda crown: (
        _("%(crown)s: already used this turn.") % {"crown": crown}
    ),
    (ActionType.USE_CROWN, ErrorCode.NO_CROWN_TARGET): lambda crown: (
        _("%(crown)s: no other face-up artefact to act on.") % {"crown": crown}
    ),
    (ActionType.FRACTURE, ErrorCode.NO_FRACTURE_TARGET): lambda _crown: _(
        "Fracture: no other player has a face-up artefact."
    ),
    (ActionType.CHOOSE_CONFLICT, ErrorCode.NO_CONFLICT_CARD): lambda _crown: _(
        "No conflict card in your hand: you count as having played a 0."
    ),
    (ActionType.PLAY_SUPPORT, ErrorCode.SUPPORT_FORBIDDEN): lambda _crown: _(
        "No support cards: nobody may play any in a battle for the Mountains."
    ),
}

#: The moves a manoeuvre under way holds back until its advance or decline (R28): one line for them all.
_AFTER_THE_MANOEUVRE = frozenset(
    {ActionType.USE_CROWN, ActionType.FRACTURE, ActionType.CALL_TO_ARMS, ActionType.TACTICAL_ADVANCE}
    | {ActionType.END_TURN}
)

#: The rule a face-down crown cites (R93: restored at the end of its owner's turn), not the engine's R39.
_CROWN_RULES = {ErrorCode.CROWN_UNAVAILABLE: "R93"}


def _family_name(family: ActionType, crown: str) -> str:
    """The name of a blocked move's family as the page says it ("No advance", the crown's own name…)."""
    names = {
        ActionType.ADVANCE: pgettext("blocked move", "No advance"),
        ActionType.REDISTRIBUTE: pgettext("blocked move", "No redistribution"),
        ActionType.USE_CROWN: crown,
        ActionType.FRACTURE: pgettext("blocked move", "Fracture"),
        ActionType.CALL_TO_ARMS: pgettext("blocked move", "Call to Arms"),
        ActionType.TACTICAL_ADVANCE: pgettext("blocked move", "Tactical Advance"),
        ActionType.END_TURN: pgettext("blocked move", "End turn"),
        ActionType.CHOOSE_CONFLICT: pgettext("blocked move", "Conflict card"),
        ActionType.PLAY_SUPPORT: pgettext("blocked move", "Support cards"),
    }
    return names.get(family, str(family))


def _generic(family: str, err: engine.IllegalAction) -> str:
    """ "<family>: <the engine's sentence>" for a blocked move without words of its own."""
    params = {"engine_code": err.code.value, **err.params}
    return f"{family}: {illegal_message(params)}"


def _crown_idle(me: engine.PlayerView, uses: list[engine.UseCrown]) -> list[dict[str, str]]:
    """A crown the viewer may use but to no effect: the Crown of Order with no card discarded on a previous
    turn (R41, R101). Not a blocked move (using it is legal), so the engine does not list it."""
    crown = crown_of(me)
    if crown is None or crown["ability"] != "order" or any(u.card for u in uses):
        return []
    return [
        _entry(
            _("%(crown)s: no card discarded on a previous turn, so using it now does nothing.")
            % {"crown": crown["name"]},
            "R101",
        )
    ]


def why_not(
    view: engine.View, blocked: list[engine.IllegalAction], legal: list[engine.Action], seat: int | None
) -> list[dict[str, str]]:
    """The moves of the viewer's turn that are not available now, with reasons.

    Args:
        view: the viewer's view (names already in the reader's language).
        blocked: ``engine.blocked(state, seat)``: the refusals, in the engine's order.
        legal: the viewer's legal actions (for the Crown of Order's idle use, R101).
        seat: the viewer's seat (``None``: a spectator, who gets nothing).

    Returns:
        ``[{"text", "rule" ("R28"), "anchor" (of /rules/)}]``; empty when nothing is blocked.
    """
    if seat is None:
        return []
    me = view["players"][seat]
    crown = crown_of(me)
    crown_name = crown["name"] if crown is not None else _("your crown")
    out: list[dict[str, str]] = []
    held_back = False
    for err in blocked:
        family = ActionType(str(err.params.get("action", "")))
        if err.code == ErrorCode.WRONG_PHASE and family in _AFTER_THE_MANOEUVRE:
            if not held_back:
                out.append(
                    _entry(
                        _("Cards, crown and End turn: finish this manoeuvre first (advance or decline)."),
                        "R28",
                    )
                )
            held_back = True
            continue
        if family == ActionType.REDISTRIBUTE and err.code == ErrorCode.NO_MANOEUVRE_LEFT:
            continue  # said once, with the advance (R28)
        words = _WORDS.get((family, err.code))
        params = {"engine_code": err.code.value, **err.params}
        rule = _CROWN_RULES.get(err.code) or illegal_rule(params)
        text = words(crown_name) if words is not None else _generic(_family_name(family, crown_name), err)
        out.append(_entry(text, rule))
    uses = actions_by_type(legal).of(engine.UseCrown)
    if uses and not any(e.params.get("action") == ActionType.USE_CROWN for e in blocked):
        out.extend(_crown_idle(me, uses))
    return out
