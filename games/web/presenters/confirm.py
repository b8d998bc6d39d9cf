"""Acts that can be neither undone nor taken back ask first (issue 16): ending the turn with a manoeuvre
unused, playing Tactical Advance, playing Fracture (in a free window or in a response window); and the
one-click traps of issue 29: attacking with fewer knights than the defender, destroying one's own artefact
with the Crown of Corruption, and using a crown to no effect (the Crown of Order with no card to return).
Web forms only: the JSON API and email links have their own explicit steps."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import engine
from games.components import content_of, place_labels
from games.engine import Phase
from games.web.presenters.common import artefact_owner, crown_of


def may_ask(action: engine.Action) -> bool:
    """Whether ``action`` is of a kind :func:`confirmation` can ask about at all (cheap: no view needed),
    so other submits skip reading the position a second time."""
    if isinstance(action, engine.Respond):
        return bool(action.fracture)
    return isinstance(
        action, (engine.EndTurn, engine.TacticalAdvance, engine.Fracture, engine.Advance, engine.UseCrown)
    )


def _weak_attack(view: engine.View, advance: engine.Advance) -> dict[str, str] | None:
    """ "Attack with 1 knight against 4?" for an advance that starts a battle (R57) with fewer knights than
    the defender has there (a castle under Castle Siege counts 8, R113); ``None`` otherwise."""
    tile = next((t for t in view["map"] if t["id"] == advance.to), None)
    knights = advance.knights
    if tile is None:
        return None
    if tile["kind"] == "castle":
        content = content_of(str(view["content"]["id"]))
        defending = content.n("siege_defender_knights") if content is not None else 0
        rival = tile.get("seat")
    else:
        defending, rival = int(tile.get("knights", 0)), tile.get("owner")
    if rival is None or rival == view["viewer"] or knights >= defending:
        return None
    place = place_labels(view).get(str(tile["id"]), (str(tile.get("name", "")), ""))[0]
    return {
        "question": ngettext(
            "Attack %(place)s with %(n)s knight against %(d)s? The battle starts at once and cannot be "
            "taken back.",
            "Attack %(place)s with %(n)s knights against %(d)s? The battle starts at once and cannot be "
            "taken back.",
            knights,
        )
        % {"place": place, "n": knights, "d": defending},
        "yes": _("Yes, attack"),
    }


def _crown_question(view: engine.View, use: engine.UseCrown) -> dict[str, str] | None:
    """The question before a crown use that hurts its user or does nothing (issue 29): destroying one's own
    artefact with the Crown of Corruption (R41), the Crown of Order with no card to return (R101)."""
    me = view["viewer"]
    if me is None:
        return None
    crown = crown_of(view["players"][me])
    if use.artefact and use.player == me:
        name = artefact_owner(view, use.artefact)[1]
        return {
            "question": _("Destroy your own %(artefact)s? It is turned face down and cannot be taken back.")
            % {"artefact": name},
            "yes": _("Yes, destroy my own artefact"),
        }
    if crown is not None and crown["ability"] == "order" and not use.card:
        return {
            "question": _(
                "This changes nothing now: no card was discarded on a previous turn. Use the %(crown)s "
                "anyway? It counts as your crown use this turn."
            )
            % {"crown": crown["name"]},
            "yes": _("Yes, use it anyway"),
        }
    return None


def confirmation(view: engine.View, action: engine.Action) -> dict[str, str] | None:
    """The question to ask before ``action`` is applied, or ``None`` when it needs none.

    Args:
        view: the viewer's view (names already in the reader's language).
        action: the action the form sent.

    Returns:
        ``{"question", "yes"}``: the sentence and the confirming button's label.
    """
    if isinstance(action, engine.EndTurn) and view["phase"] == Phase.WINDOW and view["manoeuvres_left"] > 0:
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
    if isinstance(action, engine.Advance):
        return _weak_attack(view, action)
    if isinstance(action, engine.UseCrown):
        return _crown_question(view, action)
    if isinstance(action, engine.TacticalAdvance):
        return {
            "question": _(
                "Play Tactical Advance? The card is spent even if you do not use the extra manoeuvre."
            ),
            "yes": _("Yes, play Tactical Advance"),
        }
    targets = [action.target] if isinstance(action, engine.Fracture) else []
    if isinstance(action, engine.Respond):
        targets = list(action.fracture)
    if targets:
        names = ", ".join(artefact_owner(view, t)[1] for t in targets)
        return {
            "question": _("Play your Fracture on %(targets)s? The card is spent and cannot be taken back.")
            % {"targets": names},
            "yes": _("Yes, play Fracture"),
        }
    return None
