"""What the presenters share: seat colours, patterns and initials, card labels, the viewer's legal actions
grouped by type."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from games import engine

#: Content colour name -> (fill, light tint). Chosen to stay distinct under the common colour-vision
#: deficiencies (Okabe–Ito based); every seat also gets a pattern and an initial, so colour is never the
#: only signal (ui.md).
SEAT_COLOURS: dict[str, tuple[str, str]] = {
    "red": ("#b8430f", "#f3d2bf"),
    "blue": ("#1f5f99", "#c8dcef"),
    "yellow": ("#b07d00", "#f4e2a8"),
    "green": ("#0b7a5a", "#bfe3d4"),
    "purple": ("#8e4a87", "#e6cde2"),
    "black": ("#2b2b2b", "#cfcac0"),
}

#: Pattern of seat n (drawn in the seat colour over its tint).
SEAT_PATTERNS = ("diagonal", "dots", "horizontal", "crosshatch", "vertical", "checks")


def seat_style(view: engine.View | None, seat: int) -> dict[str, Any]:
    """Colour, tint, pattern id and initial of ``seat`` (the initial is its castle's, unique per seat).

    Args:
        view: a ``view_for`` dict (``None`` before the game starts: red, initial ``"?"``).
        seat: the seat number (0..n-1).

    Returns:
        ``{"seat", "colour", "tint", "colour_name", "pattern", "pattern_id", "initial", "castle"}``; colours
        are ``#rrggbb`` strings.
    """
    colour = "red"
    castle = "?"
    if view is not None and 0 <= seat < len(view["players"]):
        colour = view["players"][seat]["colour"]
        castle = view["players"][seat]["castle"]
    fill, tint = SEAT_COLOURS.get(colour, ("#555555", "#dddddd"))
    return {
        "seat": seat,
        "colour": fill,
        "tint": tint,
        "colour_name": colour,
        "pattern": SEAT_PATTERNS[seat % len(SEAT_PATTERNS)],
        "pattern_id": f"pat-s{seat}",
        "initial": castle[:1].upper(),
        "castle": castle,
    }


def actions_by_type(legal: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The legal action payloads grouped by their ``"type"`` (a type without actions has no key; look up
    with an :class:`~games.engine.ActionType`, which equals its string)."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for action in legal:
        groups[str(action["type"])].append(action)
    return dict(groups)


def card_label(card: engine.CardView) -> str:
    """The label of a card: "War Banner (+2)", "Ambush (d6)", "Shield Wall (3)" or "Fracture"."""
    value = card["value"]
    if value is None:
        return card["name"]
    if card["kind"] == engine.CardKind.SUPPORT:
        return f"{card['name']} (+{value})"
    return f"{card['name']} ({value})"
