"""The hints of the guided first game (issue 15): one line per step of the newcomer's guided turn, read from
the position itself (so a wrong but legal move is followed by the hint for where the game now stands, with a
note saying what the move changed, and an illegal one is refused with its reason and rule as everywhere),
with the control to use.

Steps are the rulebook's nine turn steps as the page's turn overview lists them (R26,
:data:`games.web.presenters.panels.TURN_STEPS`; issue 29: one numbering, so the hint's "step 4 of 9" is the
overview's highlighted item): 1 knights placed (automatic), 2 a resource card, 3 the crown, 4 the
redistribution, 5 the advance, 6 the battle (Fracture window, conflict card, support cards, orb window),
9 the end of the turn and its restore step (R93: the Orb of Brutality, fractured on the rival's last turn,
turns face up again). Steps 7 and 8 (more resource cards and crowns after the manoeuvre) are optional and
the guided turn has nothing left for them.

The rival is named as the page names it ("Bot 1 (easy)"), never by its colour (issue 29).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.utils.translation import gettext as _

from games import engine
from games.engine import ActionType, CardKind, Phase
from games.selectors import LogEntry
from games.services import GUIDED_TURN
from games.services.tutorial import FRACTURED_IN_OPENING
from games.web.presenters.common import LegalActions, actions_by_type, artefact_owner, crown_of
from games.web.presenters.panels import TURN_STEPS
from games.web.presenters.shapes import Hint, StepItem

#: How many steps the hints count: the turn overview's (R26).
STEPS = len(TURN_STEPS)

#: The turn step of the end of the guided turn: "Restore artefacts" (R93).
END_STEP = 9

#: The newcomer's seat.
SEAT = 0

#: The bot's seat.
RIVAL = 1

_ACT = re.compile(r'form\[data-act="([a-z_]+)"\]')
_FORMS = {"#redistribute-form": ActionType.REDISTRIBUTE, "#advance-form": ActionType.ADVANCE}


def _hint(
    step: int, text: str, target: str = "", fill: dict[str, str | int] | None = None, note: str = ""
) -> Hint:
    """A hint: ``step`` of :data:`STEPS`, the sentence, the CSS selector of the control (``target``), the
    action type that control sends (``act``, ``""`` for none), the form values it suggests (``fill``, field
    name -> value) and a ``note`` on what an earlier move changed (``""`` for none); ``name`` is the turn
    overview's name of the step."""
    found = _ACT.fullmatch(target)
    act = found.group(1) if found else str(_FORMS.get(target, ""))
    return {
        "step": step,
        "of": STEPS,
        "name": str(TURN_STEPS[step - 1]),
        "text": text,
        "target": target,
        "act": act,
        "fill": fill or {},
        "note": note,
        "done": False,
        "battle": False,
        "won": False,
        "restored": [],
        "collapsed": False,
    }


def _me(view: engine.View) -> engine.PlayerView:
    return view["players"][SEAT]


def _spent(view: engine.View, card: str) -> bool:
    """Is ``card`` (a content id) on the newcomer's discard pile?"""
    return any(c.get("card") == card for c in _me(view)["discard"])


def _fought(view: engine.View) -> bool:
    """Has the newcomer fought the guided turn's battle? A conflict card on the discard pile says so (R80)."""
    return any(c.get("kind") == CardKind.CONFLICT for c in _me(view)["discard"])


def _city_taken(view: engine.View) -> bool:
    city = next((t for t in view["map"] if t.get("tile") == "city"), None)
    return city is not None and city.get("owner") == SEAT


def _to_restore(view: engine.View) -> list[str]:
    """The names of the newcomer's face-down artefacts that the restore step of this turn turns face up:
    destroyed on an earlier turn (R93, R94)."""
    return [
        a["name"]
        for a in _me(view)["artefacts"]
        if not a["face_up"] and a["destroyed_on"] is not None and a["destroyed_on"] < view["turn"]
    ]


def _respond_targets(groups: LegalActions) -> list[str]:
    """The artefacts a legal ``respond`` could fracture now (empty: only a pass)."""
    return sorted({t for a in groups.of(engine.Respond) for t in a.fracture})


def _battle_hint(view: engine.View, groups: LegalActions, rival: str) -> Hint:
    """Step 6: the part of the battle the newcomer is in (R64–R81); ``rival`` is the bot's name."""
    window = view["window"]
    targets = _respond_targets(groups)
    if ActionType.RESPOND in groups and window is not None and window["kind"] == "sceptre":
        if "sceptre_defiance" in targets:
            return _hint(
                6,
                _(
                    "Battle step 3, a Fracture window: the Sceptre of Defiance of %(rival)s would make you "
                    "discard a random card. Choose it and press “Play Fracture”."
                )
                % {"rival": rival},
                'form[data-act="respond"]',
                {"fracture": "sceptre_defiance"},
            )
        return _hint(6, _("Battle step 3, a Fracture window: press “Pass”."), 'form[data-act="respond"]')
    if ActionType.RESPOND in groups:
        if targets:
            names = ", ".join(artefact_owner(view, t)[1] for t in targets)
            return _hint(
                6,
                _(
                    "Battle step 7, the orb window: a Fracture on %(orbs)s would stop it; keep your card and "
                    "press “Pass”, or play it."
                )
                % {"orbs": names},
                'form[data-act="respond"]',
            )
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
    return _hint(
        6, _("The battle goes on: %(rival)s is deciding. The page updates by itself.") % {"rival": rival}
    )


def _before_battle_note(view: engine.View, rival: str) -> str:
    """What the newcomer should know before the battle: the orb that the rival fractured, or a Fracture
    already spent (then the rival's Sceptre of Defiance will apply, R64–R66)."""
    if _spent(view, "fracture"):
        return _(
            "You have already played your Fracture, so in the battle nothing stops the Sceptre of Defiance "
            "of %(rival)s."
        ) % {"rival": rival}
    down = _to_restore(view)
    if down:
        return _(
            "%(rival)s fractured your %(artefacts)s on their last turn: it lies face down on your panel and "
            "does nothing until the restore step at the end of this turn."
        ) % {"rival": rival, "artefacts": ", ".join(down)}
    return ""


def _end_hint(view: engine.View, rival: str) -> Hint:
    """Step 9: the end of the turn and what its restore step will turn face up (R93), with a note when the
    turn had no battle or the battle was lost."""
    crown = crown_of(_me(view))
    restore = _to_restore(view)
    if restore:
        text = _(
            "Step 9: end your turn. Its last step restores artefacts destroyed on an earlier turn: your "
            "%(artefacts)s will turn face up. Press “End my turn”."
        ) % {"artefacts": ", ".join(restore)}
    else:
        text = _(
            "Step 9: end your turn. Its last step restores artefacts destroyed on an earlier turn; you used "
            "the %(crown)s, and it is ready again next turn. Press “End my turn”."
        ) % {"crown": crown["name"] if crown is not None else ""}
    note = ""
    if not _fought(view):
        note = _(
            "No battle this turn: you did not advance into a territory %(rival)s holds. To see a battle, "
            "start the guided game again and advance into the City."
        ) % {"rival": rival}
    elif not _city_taken(view):
        note = _("%(rival)s kept the City: a battle is won only by the higher combat score (R73).") % {
            "rival": rival
        }
    return _hint(END_STEP, text, 'form[data-act="end_turn"]', note=note)


def _window_hint(view: engine.View, groups: LegalActions, rival: str) -> Hint:
    """Steps 2–5 and 9 in the free window of the guided turn."""
    if _city_taken(view) or view["manoeuvres_left"] == 0:  # the manoeuvre is spent: the end comes next
        return _end_hint(view, rival)
    note = "" if _fought(view) else _before_battle_note(view, rival)
    if ActionType.CALL_TO_ARMS in groups:
        return _hint(
            2,
            _(
                "Your 3 knights for this turn are already in your castle (step 1). Step 2: play a resource "
                "card. Press “Play Call to Arms (+2 knights)”."
            ),
            'form[data-act="call_to_arms"]',
            note=note,
        )
    if ActionType.USE_CROWN in groups and not view["crown_used"]:
        return _hint(
            3,
            _(
                "Step 3: use your crown. The Crown of Vitality gives you an extra redistribution outside "
                "your manoeuvre: press “Use the Crown of Vitality”."
            ),
            'form[data-act="use_crown"]',
            note=note,
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
            note=note,
        )
    return _hint(
        5,
        _("Your manoeuvre is waiting: advance now, or end your turn."),
        'form[data-act="end_turn"]',
        note=note,
    )


def _done(view: engine.View, rival: str, moved_on: bool) -> Hint:
    """The guided turn is over: what it held (a battle won or lost, or none) and what the restore step
    turned face up; ``collapsed`` once the newcomer has ``moved_on`` (made a move since), so the banner
    folds away above the live prompts of the game that goes on (issue 29)."""
    fought, won = _fought(view), _city_taken(view)
    if not fought:
        text = _("Your turn is over, but it had no battle: start the guided game again to try one.")
    elif won:
        text = _("You have played a whole turn and taken the City.")
    else:
        text = _("You have played a whole turn; %(rival)s kept the City this time.") % {"rival": rival}
    restored = [a["name"] for a in _me(view)["artefacts"] if a["id"] in FRACTURED_IN_OPENING and a["face_up"]]
    note = (
        _(
            "The restore step at the end of your turn turned your %(artefacts)s face up again (R93): see "
            "your panel."
        )
        % {"artefacts": ", ".join(restored)}
        if restored
        else ""
    )
    return {
        **_hint(END_STEP, text, note=note),
        "done": True,
        "battle": fought,
        "won": won,
        "restored": restored,
        "collapsed": moved_on,
    }


def moved_on_since_guided_turn(view: engine.View, log: list[LogEntry]) -> bool:
    """Whether the newcomer has made a move since the guided turn ended (R26: the next turn started).

    Args:
        view: the newcomer's view.
        log: the newcomer's log entries, newest first (``GameView.log``: ``seq``, ``seat``, ``events``);
            empty when the page was built without it.

    Returns:
        True when a move of the newcomer's own (``mine``) follows the entry that started the turn after
        the guided one; without that entry in the log (it scrolled out, or no log was read), whether the
        game is past the newcomer's next turn.
    """
    if view["turn"] <= GUIDED_TURN:
        return False
    started = next(
        (
            entry["seq"]
            for entry in log
            if any(
                ev.get("type") == engine.EventType.TURN_STARTED and ev.get("turn") == GUIDED_TURN + 1
                for ev in entry["events"]
            )
        ),
        None,
    )
    if started is None:
        return view["turn"] > GUIDED_TURN + 2
    # the newcomer's own moves only (``mine``: page, email, API): the server's pass for them in a window or
    # its placing of their only kind of conflict card while the bot plays is no move of theirs (issue 29)
    return any(entry["seq"] > started and entry["seat"] == SEAT and entry.get("mine") for entry in log)


def tutorial_model(
    view: engine.View,
    legal: list[engine.Action],
    names: dict[int, str] | None = None,
    read_log: Callable[[], list[LogEntry]] | None = None,
) -> Hint:
    """The hint for where the guided first game stands, for the newcomer (seat 0).

    Args:
        view: the newcomer's view (named, :func:`games.components.localized_view`).
        legal: the newcomer's legal actions.
        names: seat number -> the name the page shows ("Bot 1 (easy)"); the hints name the rival so.
        read_log: gives the newcomer's log entries (``GameView.log``); called only once the guided turn
            is over.

    Returns:
        A :class:`~.shapes.Hint`:
        ``{"step" (the turn overview's step, 1–9, R26), "of" (9), "name" (that step's name in the
        overview), "text", "target" (CSS selector of the control, may be ""), "act" (the action type that
        control sends, or ""), "fill" (suggested form values), "note" (what an earlier move changed, or
        ""), "done", "battle" and "won" (once done: was the City attacked, and taken), "restored" (once
        done: the artefact names the restore step turned face up, R93), "collapsed" (once done and the
        newcomer has moved on)}``; ``done`` is true once the guided turn has ended.
    """
    rival = (names or {}).get(RIVAL) or _("your rival")
    if view["turn"] > GUIDED_TURN or view["phase"] == Phase.OVER:
        return _done(view, rival, moved_on_since_guided_turn(view, read_log() if read_log else []))
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
                "Step 5: advance. Choose the City and 6 knights and press “Advance”. The City belongs to "
                "%(rival)s, so a battle starts."
            )
            % {"rival": rival},
            "#advance-form",
            {"to": "t2", "knights": 6},
            note=_before_battle_note(view, rival),
        )
    if phase in (Phase.BATTLE, Phase.RESPONSE, Phase.CHOICE) and view["battle"] is not None:
        return _battle_hint(view, groups, rival)
    if phase == Phase.RESPONSE:
        return _hint(
            3,
            _("%(rival)s may answer your crown with a Fracture. The page updates by itself.")
            % {"rival": rival},
        )
    if phase == Phase.CHOICE:
        return _hint(6, _("Make the choice shown in the decision panel."), "#decision")
    return _window_hint(view, groups, rival)


def overview_steps(steps: list[StepItem], hint: Hint | None) -> list[StepItem]:
    """The turn overview's steps (``status_model``'s ``steps``) as the guided game's newcomer sees them:
    while the guided turn runs, the highlighted item is the hint's step, so the two never disagree
    (issue 29: "Step 4 of 7" beside a highlighted "Play resource cards"); otherwise ``steps`` unchanged."""
    if hint is None or hint["done"]:
        return steps
    return [{**step, "current": step["n"] == hint["step"]} for step in steps]
