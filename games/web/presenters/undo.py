"""Undo in the decision panel (issue 16): what the viewer can take back on their turn, or why nothing can
be, with the rule behind it. Reads the viewer's own records only (``GameView.takeback``): a step's words
come from its events redacted for the viewer, and a reason names only what every seat saw happen (a card
drawn, dice rolled, a window opened), never whose card or which."""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext as _

from games import engine
from games.components import place_labels
from games.log import describe
from games.messages import barrier_text
from games.rulebook import rule_anchor
from games.selectors import GameView
from games.web.presenters.shapes import UndoModel


def undo_model(gv: GameView, names: dict[int, str]) -> UndoModel | None:
    """The undo part of the viewer's decision panel.

    Args:
        gv: the viewer's view; ``gv.takeback`` is read (one query) only on the viewer's own turn.
        names: seat number -> public name (for the step's words).

    Returns:
        ``None`` when it is not the viewer's turn; else ``{"steps": n, "last": …}`` (the newest step's
        first log line) when ``n >= 1`` steps can be taken back (:class:`~.shapes.UndoSteps`), or
        ``{"steps": 0, "reason", "rule", "anchor"}`` (:class:`~.shapes.UndoBarrier`).
    """
    takeback = gv.takeback
    if takeback is None or gv.view is None:
        return None
    if takeback.steps:
        # the map's own names ("Forest (north-west)" when two share a name), never an id (issue 29)
        places = {pos: label for pos, (label, _short) in place_labels(gv.view).items()}
        newest = takeback.steps[0]
        events = [engine.redact_event(ev, gv.seat) for ev in newest.events]
        return {"steps": len(takeback.steps), "last": step_words(events, names, places)}
    reason, rule = barrier_text(takeback.barrier)
    return {"steps": 0, "reason": reason, "rule": rule, "anchor": rule_anchor(rule)}


#: The words of a step whose events the log leaves without a line (issue 29: "Takes back: (2 steps…)"
#: showed nothing for them): the event type -> its sentence, with ``%(who)s`` the acting seat's name.
_QUIET_STEPS: dict[str, Callable[[], str]] = {
    engine.EventType.ADVANCE_DECLINED: lambda: _("%(who)s ends the manoeuvre without an advance."),
    engine.EventType.REDISTRIBUTION_FINISHED: lambda: _(
        "%(who)s finishes the Crown of Vitality redistribution."
    ),
    engine.EventType.DISCARD_DECLINED: lambda: _("%(who)s keeps their hand (no discard)."),
}


def step_words(events: list[engine.Event], names: dict[int, str], places: dict[str, str]) -> str:
    """The words of one step that can be taken back, never empty (issue 29).

    Args:
        events: the step's events, already redacted for the viewer.
        names: seat number -> public name.
        places: position id -> tile name (the log's).

    Returns:
        The first log line of the step (:func:`games.log.describe`); for a step the log words with no line
        (a declined advance, R28; the end of a Vitality redistribution, R41; a declined discard, R102), a
        sentence of its own; else "your last step".
    """
    for ev in events:
        line = describe(ev, names, places)
        if line:
            return line
    for ev in events:
        quiet = _QUIET_STEPS.get(str(ev.get("type")))
        if quiet is not None:
            seat = ev.get("seat")
            return str(quiet()) % {"who": names.get(seat, "?") if isinstance(seat, int) else "?"}
    return _("your last step")
