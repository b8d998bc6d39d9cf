"""Undo in the decision panel (issue 16): what the viewer can take back on their turn, or why nothing can
be, with the rule behind it. Reads the viewer's own records only (``GameView.takeback``): a step's words
come from its events redacted for the viewer, and a reason names only what every seat saw happen (a card
drawn, dice rolled, a window opened), never whose card or which."""

from __future__ import annotations

from typing import Any

from games import engine
from games.log import describe
from games.messages import barrier_text
from games.rulebook import rule_anchor
from games.selectors import GameView


def undo_model(gv: GameView, names: dict[int, str]) -> dict[str, Any] | None:
    """The undo part of the viewer's decision panel.

    Args:
        gv: the viewer's view; ``gv.takeback`` is read (one query) only on the viewer's own turn.
        names: seat number -> public name (for the step's words).

    Returns:
        ``None`` when it is not the viewer's turn; else ``{"steps": n, "last": …}`` (the newest step's
        first log line) when ``n >= 1`` steps can be taken back, or ``{"steps": 0, "reason", "rule",
        "anchor"}``.
    """
    takeback = gv.takeback
    if takeback is None or gv.view is None:
        return None
    if takeback.steps:
        places = {t["id"]: t["name"] for t in gv.view["map"] if "name" in t}
        newest = takeback.steps[0]
        lines = [describe(engine.redact_event(ev, gv.seat), names, places) for ev in newest.events]
        return {"steps": len(takeback.steps), "last": next((line for line in lines if line), "")}
    reason, rule = barrier_text(takeback.barrier)
    return {"steps": 0, "reason": reason, "rule": rule, "anchor": rule_anchor(rule)}
