"""The hints of the guided first game (issue 15): one line per step of the newcomer's guided turn, read from
the position itself (so a wrong but legal move is simply followed by the hint for where the game now
stands, and an illegal one is refused with its reason and rule as everywhere), with the control to use.

Steps (the rulebook's turn, R26): 1 knights placed (automatic), 2 a resource card, 3 the crown, 4 the
redistribution, 5 the advance, 6 the battle (Fracture window, conflict card, support cards, orb window),
7 end of the turn and the restore step.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games import engine
from games.engine import ActionType, Phase
from games.services import GUIDED_TURN
from games.web.presenters.common import actions_by_type, crown_of

#: How many steps the guided turn has.
STEPS = 7

#: The newcomer's seat.
SEAT = 0


def _hint(step: int, text: str, target: str = "", fill: dict[str, Any] | None = None) -> dict[str, Any]:
    """A hint: ``step`` of :data:`STEPS`, the sentence, the CSS selector of the control (``target``) and
    the form values it suggests (``fill``, field name -> value)."""
    return {"step": step, "of": STEPS, "text": text, "target": target, "fill": fill or {}, "done": False}


def _battle_hint(view: engine.View, groups: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Step 6: the part of the battle the newcomer is in (R64–R81)."""
    window = view["window"]
    if ActionType.RESPOND in groups and window is not None and window["kind"] == "sceptre":
        return _hint(
            6,
            _(
                "Battle step 3, a Fracture window: Blue's Sceptre of Defiance would make you discard a "
                "random card. Choose it and press “Play Fracture”."
            ),
            'form[data-act="respond"]',
            {"fracture": "sceptre_defiance"},
        )
    if ActionType.RESPOND in groups:
        return _hint(
            6,
            _("Battle step 7, the orb window: you have no Fracture left, so press “Pass”."),
            'form[data-act="respond"]',
        )
    if ActionType.CHOOSE_CONFLICT in groups:
        return _hint(
            6,
            _(
                "Battle step 4: choose Heroic Assault (5), your strongest conflict card, and press “Place "
                "face down”."
            ),
            'form[data-act="choose_conflict"]',
        )
    if ActionType.PLAY_SUPPORT in groups or ActionType.PASS_SUPPORT in groups:
        return _hint(
            6,
            _("Battle step 5: tick support cards and press “Play support” to raise your score, or “Pass”."),
            'form[data-act="play_support"]'
            if ActionType.PLAY_SUPPORT in groups
            else 'form[data-act="pass_support"]',
        )
    return _hint(6, _("The battle goes on: Blue is deciding. The page updates by itself."))


def _window_hint(view: engine.View, groups: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Steps 2–5 and 7 in the free window of the guided turn."""
    me = view["players"][SEAT]
    city = next((t for t in view["map"] if t.get("tile") == "city"), None)
    if ActionType.CALL_TO_ARMS in groups:
        return _hint(
            2,
            _(
                "Your 3 knights for this turn are already in your castle (step 1). Step 2: play a resource "
                "card. Press “Play Call to Arms (+2 knights)”."
            ),
            'form[data-act="call_to_arms"]',
        )
    if ActionType.USE_CROWN in groups and not view["crown_used"]:
        return _hint(
            3,
            _(
                "Step 3: use your crown. The Crown of Vitality gives you an extra redistribution outside "
                "your manoeuvre: press “Use the Crown of Vitality”."
            ),
            'form[data-act="use_crown"]',
        )
    if view["manoeuvres_left"] > 0 and ActionType.REDISTRIBUTE in groups:
        return _hint(
            4,
            _(
                "Step 4: redistribute. Move 2 knights from your castle to the Grasslands and press “Move "
                "knights”. This starts your manoeuvre."
            ),
            "#redistribute-form",
            {"from": "castle", "to": "t5", "knights": 2},
        )
    if (city is not None and city.get("owner") == SEAT) or view["manoeuvres_left"] == 0:
        crown = crown_of(me)
        name = crown["name"] if crown is not None else ""
        return _hint(
            7,
            _(
                "Step 7: end your turn. At its end your destroyed artefacts come back face up (restore, "
                "step 9); you used the %(crown)s, and it is ready again next turn. Press “End my turn”."
            )
            % {"crown": name},
            'form[data-act="end_turn"]',
        )
    return _hint(
        5,
        _("Your manoeuvre is waiting: advance now, or end your turn."),
        'form[data-act="end_turn"]',
    )


def tutorial_model(view: engine.View, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """The hint for where the guided first game stands, for the newcomer (seat 0).

    Returns:
        ``{"step", "of", "text", "target" (CSS selector of the control, may be ""), "fill" (suggested form
        values), "done"}``; ``done`` is true once the guided turn has ended.
    """
    if view["turn"] > GUIDED_TURN or view["phase"] == Phase.OVER:
        return {**_hint(STEPS, _("You have played a whole turn.")), "done": True}
    groups = actions_by_type(legal)
    phase = view["phase"]
    if phase == Phase.VITALITY:
        forest = next((t for t in view["map"] if t.get("tile") == "forest"), None)
        if forest is not None and forest["knights"] < 6 and ActionType.REDISTRIBUTE in groups:
            return _hint(
                3,
                _("Crown of Vitality: move 2 knights from your castle to the Forest, press “Move knights”."),
                "#redistribute-form",
                {"from": "castle", "to": "t1", "knights": 2},
            )
        return _hint(
            3,
            _("Press “Finish the redistribution” to end the Vitality redistribution."),
            'form[data-act="finish_redistribution"]',
        )
    if phase == Phase.MANOEUVRE:
        return _hint(
            5,
            _(
                "Step 5: advance. Choose the City and 6 knights and press “Advance”. The City is Blue's, so "
                "a battle starts."
            ),
            "#advance-form",
            {"to": "t2", "knights": 6},
        )
    if phase in (Phase.BATTLE, Phase.RESPONSE, Phase.CHOICE) and view["battle"] is not None:
        return _battle_hint(view, groups)
    if phase == Phase.RESPONSE:
        return _hint(3, _("Blue may answer your crown with a Fracture. The page updates by itself."))
    if phase == Phase.CHOICE:
        return _hint(6, _("Make the choice shown in the decision panel."), "#decision")
    return _window_hint(view, groups)
