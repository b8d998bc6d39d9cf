"""What the presenters share: seat colours, patterns and initials, card labels, the viewer's legal actions
grouped by type."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from games import engine
from games.web.presenters.shapes import SeatStyle

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

#: Pattern of seat n (drawn in the seat colour over its tint). Small shapes only, never stripes: stripes
#: across a tile are the "no line of supply" hatch (issue 29).
SEAT_PATTERNS = ("dots", "checks", "diamonds", "rings", "crosses", "triangles")


def seat_style(view: engine.View | None, seat: int) -> SeatStyle:
    """Colour, tint, pattern id and initial of ``seat`` (the initial is its castle's, unique per seat).

    Args:
        view: a ``view_for`` dict (``None`` before the game starts: red, initial ``"?"``).
        seat: the seat number (0..n-1).

    Returns:
        A :class:`~.shapes.SeatStyle`; colours are ``#rrggbb`` strings.
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


def artefact_owner(view: engine.View, art_id: str) -> tuple[int | None, str]:
    """``(owner seat, name)`` of artefact ``art_id`` in ``view`` (``(None, art_id)`` when nobody holds it)."""
    for player in view["players"]:
        for art in player["artefacts"]:
            if art["id"] == art_id:
                return player["seat"], art["name"]
    return None, art_id


def crown_of(player: engine.PlayerView) -> engine.ArtefactView | None:
    """The crown ``player`` holds (face up or down), ``None`` without one."""
    return next((a for a in player["artefacts"] if a["type"] == engine.ArtefactType.CROWN), None)


ActionT = TypeVar("ActionT", bound=engine.Action)


class LegalActions:
    """The viewer's legal actions (``GameView.legal``: engine actions, issue 31 §1) grouped by action type.

    ``ActionType.ADVANCE in legal`` says whether a type has any; ``legal.of(engine.Advance)`` gives that
    type's actions, typed, in the engine's order.
    """

    __slots__ = ("_groups",)

    def __init__(self, legal: Iterable[engine.Action]) -> None:
        groups: dict[str, list[engine.Action]] = {}
        for action in legal:
            groups.setdefault(action.TYPE, []).append(action)
        self._groups = groups

    def __contains__(self, action_type: object) -> bool:
        return action_type in self._groups

    def of(self, cls: type[ActionT]) -> list[ActionT]:
        """The legal actions of class ``cls`` (e.g. :class:`games.engine.Advance`); ``[]`` for none."""
        return [a for a in self._groups.get(cls.TYPE, ()) if isinstance(a, cls)]


def actions_by_type(legal: Iterable[engine.Action]) -> LegalActions:
    """The legal actions grouped by their type (:class:`LegalActions`)."""
    return LegalActions(legal)


def card_label(card: engine.CardView) -> str:
    """The label of a card: "War Banner (+2)", "Ambush (d6)", "Shield Wall (3)" or "Fracture"."""
    value = card["value"]
    if value is None:
        return card["name"]
    if card["kind"] == engine.CardKind.SUPPORT:
        return f"{card['name']} (+{value})"
    return f"{card['name']} ({value})"
