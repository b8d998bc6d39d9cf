"""The facts behind the rules reference (``/rules/``, issue 15): its sections with their anchors and the
rule numbers each covers, the link from a rule number to its section, and the positions its diagrams and
the worked battle example show, built by the real engine (``new_game`` with pins, ``apply``), so what the
page shows is what the game does.

The worked example is the rulebook's battle (``medieval-mastery.md`` §18): 6 attacking knights with the
Sceptre of Rage and the Orb of Brutality take a City from 5 defenders whose Sceptre of Defiance is
fractured; 14 to 12. It is played here from a fixed setup as a short game and shown one step at a time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from games import engine
from games.services import tutorial


@dataclass(frozen=True)
class Section:
    """One section of the rules reference: its ``anchor`` (``/rules/#advance``), ``title`` and the rule
    numbers it explains (``first``..``last`` of the rules contract, inclusive)."""

    anchor: str
    title: Promise
    first: int
    last: int


#: The sections in page order. Every rule number R1..R120 belongs to exactly one (tested).
SECTIONS: tuple[Section, ...] = (
    Section("components", gettext_lazy("The components"), 1, 8),
    Section("map", gettext_lazy("The map"), 9, 11),
    Section("capacity", gettext_lazy("Capacity"), 12, 12),
    Section("control", gettext_lazy("Control"), 13, 13),
    Section("victory", gettext_lazy("Victory points and winning"), 14, 14),
    Section("dice", gettext_lazy("Knights and dice"), 15, 17),
    Section("setup", gettext_lazy("Setting up"), 18, 25),
    Section("turn", gettext_lazy("A turn"), 26, 31),
    Section("resource-cards", gettext_lazy("Resource cards"), 32, 38),
    Section("crowns", gettext_lazy("Crowns"), 39, 42),
    Section("redistribution", gettext_lazy("Redistribution"), 43, 47),
    Section("line-of-supply", gettext_lazy("Line of supply and lakes"), 48, 51),
    Section("advance", gettext_lazy("Advance"), 52, 58),
    Section("battle", gettext_lazy("Battle, step by step"), 59, 83),
    Section("territories", gettext_lazy("Territories"), 84, 88),
    Section("artefacts", gettext_lazy("Artefacts"), 89, 94),
    Section("cards", gettext_lazy("Drawing and discarding"), 95, 102),
    Section("end", gettext_lazy("The end of the game"), 103, 104),
    Section("optional-rules", gettext_lazy("Optional rules"), 105, 120),
)

_RULE = re.compile(r"([RQ])([0-9]{1,3})")

#: The rulings (Q1–Q35) that the site's messages cite, by the section that explains them.
RULINGS = {"Q9": "battle", "Q33": "advance"}


def rule_anchor(rule: str) -> str:
    """The anchor of the section that explains ``rule`` (``"R46"``, ``"Q33"``, or ``"R46–R51"``: its first
    number): ``"R46"`` -> ``"redistribution"``. ``""`` for no rule or a number the page does not cover."""
    found = _RULE.search(rule or "")
    if found is None:
        return ""
    if found.group(1) == "Q":
        return RULINGS.get(found.group(0), "")
    number = int(found.group(2))
    return next((s.anchor for s in SECTIONS if s.first <= number <= s.last), "")


def link_rules(text: str) -> list[tuple[str, str]]:
    """Split ``text`` into ``(part, anchor)`` pieces where each rule number (``R46``, ``Q33``) that the
    rules reference explains is its own piece with its anchor (``""`` for plain text), so a page can link
    "— R46" to ``/rules/#redistribution``."""
    out: list[tuple[str, str]] = []
    last = 0
    for found in _RULE.finditer(text):
        anchor = rule_anchor(found.group(0))
        if not anchor:
            continue
        out.append((text[last : found.start()], ""))
        out.append((found.group(0), anchor))
        last = found.end()
    out.append((text[last:], ""))
    return [piece for piece in out if piece[0]]


# -- Positions for the diagrams and the worked example -----------------------------------------------------

#: The example is played on the guided first game's map and setup (pinned tiles, artefacts, the top five
#: cards of each deck, blue first): the same position teaches the turn and shows the rulebook's battle.
SETUP = tutorial.SETUP

#: The moves before the battle: the defender takes the City with 5 knights, the attacker the Forest.
OPENING: tuple[tuple[int, engine.Action], ...] = (
    (1, engine.Advance(to="t2", knights=5)),
    (1, engine.EndTurn()),
    (0, engine.Advance(to="t1", knights=6)),
    (0, engine.EndTurn()),
    (1, engine.EndTurn()),
)


@dataclass(frozen=True)
class Step:
    """One step of the worked example: the ``moves`` (seat, engine action) that make it, what the
    rulebook calls it (``caption``) and the rules it shows."""

    caption: Promise
    rules: str
    moves: tuple[tuple[int, engine.Action], ...]


#: The battle of §18, one step per rulebook stage.
BATTLE: tuple[Step, ...] = (
    Step(
        gettext_lazy(
            "Advance: 6 knights leave the attacker's castle for the City; battle steps 1 and 2 follow."
        ),
        "R57, R61–R63, R84",
        ((0, engine.Advance(to="t2", knights=6)),),
    ),
    Step(
        gettext_lazy(
            "Step 3: in the sceptre window the attacker plays Fracture on the Sceptre of Defiance; the "
            "Sceptre of Rage applies."
        ),
        "R36, R37, R64–R66",
        (
            (0, engine.Respond(fracture=("sceptre_defiance",))),
            (1, engine.Respond()),
        ),
    ),
    Step(
        gettext_lazy("Step 4: both choose a conflict card face down; they are revealed together (5 and 3)."),
        "R67, R68",
        (
            (0, engine.ChooseConflict(card="s0c09")),
            (1, engine.ChooseConflict(card="s1c05")),
        ),
    ),
    Step(
        gettext_lazy(
            "Step 5: the lower score plays support first: +1 and +2 for the defender, +2 for the attacker."
        ),
        "R69–R72",
        (
            (1, engine.PlaySupport(cards=("s1c12", "s1c15"))),
            (0, engine.PlaySupport(cards=("s0c15",))),
        ),
    ),
    Step(
        gettext_lazy("Step 6: everyone has passed; 14 beats 12, the attacker wins by 2."),
        "R73",
        ((0, engine.PassSupport()),),
    ),
    Step(
        gettext_lazy(
            "Steps 7 to 9: nobody fractures an orb; Brutality costs the defender 1 knight, the margin 2 "
            "more, the last 2 retreat; the attacker conquers the City and gains 1 knight."
        ),
        "R74–R81",
        ((0, engine.Respond()), (1, engine.Respond())),
    ),
)


def _play(
    state: engine.GameState, moves: tuple[tuple[int, engine.Action], ...]
) -> tuple[engine.GameState, list[engine.Event]]:
    events: list[engine.Event] = []
    for seat, action in moves:
        transition = engine.apply(state, seat, action)
        state = transition.state
        events.extend(transition.events)
    return state, events


@cache
def opening_state() -> engine.GameState:
    """The example's position just before the battle (the attacker, seat 0, to move)."""
    state, _events = _play(engine.new_game(SETUP), OPENING)
    return state


@cache
def setup_state() -> engine.GameState:
    """The example's position after setup (R18–R25)."""
    return engine.new_game(SETUP)


def battle_frames() -> list[tuple[Step, engine.GameState, list[engine.Event]]]:
    """The worked example, one entry per :data:`BATTLE` step: the step, the position after it and the
    events it produced (all public: the view and redaction decide what a page shows).

    Raises:
        engine.EngineError: only if a rules change made the example illegal (a test plays it).
    """
    state = opening_state()
    out = []
    for step in BATTLE:
        state, events = _play(state, step.moves)
        out.append((step, state, events))
    return out


def supply_state() -> engine.GameState:
    """A position for the line-of-supply diagram (R48): red (seat 0) holds the Grasslands, cut off from
    its castle because blue (seat 1) holds the Forest and the City, and the lake leads only to blue's Fort;
    blue's Fort touches blue's castle. Built from the setup with the public ``to_dict``/``from_dict``."""
    data = engine.to_dict(setup_state())
    for pos, owner, knights in ((1, 1, 2), (2, 1, 5), (5, 0, 3), (6, 1, 2)):
        data["owner"][pos] = owner
        data["knights"][pos] = knights
    return engine.from_dict(data)
