"""The map of the game page (:func:`board_model`): per position its hex geometry, label, owner style,
supply, dispute and whether the viewer may pick it now."""

from __future__ import annotations

import math

from django.utils.translation import gettext as _

from games import engine
from games.components import place_labels
from games.web.presenters.common import LegalActions, actions_by_type, seat_style
from games.web.presenters.shapes import BoardModel, TileModel

#: Hex circumradius in SVG units (pointy-top axial layout: x = √3·(q + r/2), y = 1.5·r).
HEX_SIZE = 46

#: A territory's knight capacity unless its tile says otherwise (only other capacities are shown).
DEFAULT_CAPACITY = 6

#: The widest a tile's name may be drawn, in SVG units (issue 29): two tiles side by side have their
#: centres √3·HEX_SIZE ≈ 79.7 units apart, so two names of at most this width never touch. A longer name is
#: squeezed to it (SVG ``textLength``); game.js measures the real text and squeezes only what needs it.
LABEL_WIDTH = 74

#: Font size of a tile's name in SVG units (site.css ``.tile .t-name``), for :func:`label_fit`.
LABEL_FONT = 10.5


def label_fit(text: str, font: float = LABEL_FONT, limit: float = LABEL_WIDTH) -> int | None:
    """The width (SVG units) to squeeze a map label to, or ``None`` when it fits as it is (issue 29: names
    such as "Battlefield NW" ran into the next tile's name).

    The estimate is of a bold sans-serif face, rather wide (DejaVu Sans Bold), so a name said to fit does fit
    without JavaScript; with it, game.js measures each label in the browser's own font and keeps the squeeze
    only where it is needed.

    Args:
        text: the label.
        font: its font size in SVG units.
        limit: the widest it may be, in SVG units.
    """
    em = 0.0
    for ch in text:
        if ch == " ":
            em += 0.35
        elif ord(ch) > 0x2E7F:  # CJK, Hangul and the like: a full em each
            em += 1.0
        elif ch.isupper() or ch.isdigit():
            em += 0.76
        elif ch in "ijlt.,'’":
            em += 0.38
        else:
            em += 0.68
    return round(limit) if em * font > limit else None


def _hex_points(x: float, y: float, size: float) -> str:
    pts = []
    for i in range(6):
        angle = math.radians(60 * i - 30)
        pts.append(f"{x + size * math.cos(angle):.1f},{y + size * math.sin(angle):.1f}")
    return " ".join(pts)


def _centre(pos: engine.TileView) -> tuple[float, float]:
    """The SVG centre of a map position from its axial ``q``, ``r``."""
    q, r = int(pos["q"]), int(pos["r"])
    return HEX_SIZE * math.sqrt(3) * (q + r / 2), HEX_SIZE * 1.5 * r


def _viewbox(centres: list[tuple[float, float]]) -> tuple[str, float]:
    """The SVG ``viewBox`` around every hex (``"0 0 100 100"``-like when the map is empty) and its width."""
    xs = [x for x, _y in centres]
    ys = [y for _x, y in centres]
    pad = HEX_SIZE + 4
    width = (max(xs) - min(xs)) + 2 * pad if xs else 100
    height = (max(ys) - min(ys)) + 2 * pad if ys else 100
    box = f"{(min(xs) if xs else 0) - pad:.1f} {(min(ys) if ys else 0) - pad:.1f} {width:.1f} {height:.1f}"
    return box, width


def _redistribution_locations(legal: LegalActions) -> set[str]:
    """Every location (``"castle"`` or a position id) a legal redistribution moves knights from or to."""
    return {end for a in legal.of(engine.Redistribute) for m in a.moves for end in (m.src, m.dst)}


def board_model(
    view: engine.View,
    names: dict[int, str],
    legal: list[engine.Action] | None = None,
    seat: int | None = None,
    prefix: str = "",
    interactive: bool = True,
    roving: bool = False,
) -> BoardModel:
    """The SVG map: per position its geometry, labels, owner style, supply, dispute and whether the viewer
    may pick it now (advance target or redistribution location). The game page and the diagrams of the
    rules reference both draw with it (one map renderer, issue 15).

    Args:
        view: a ``view_for`` view, its components named by :func:`games.components.localized_view` (a
            territory's ``text`` is its abilities).
        names: seat number -> public name.
        legal: the viewer's legal actions (none: nothing is pickable).
        seat: the viewer's seat (``None``: a spectator).
        prefix: put before the SVG's element ids, so several maps can share a page (``"d1-"``).
        interactive: whether tiles take keyboard focus (``False`` for a decorative icon).
        roving: one Tab stop for the whole map, the arrow keys moving between its tiles (WAI-ARIA's roving
            tabindex; the diagrams of ``/rules/``, so a page of many maps is not dozens of Tab stops).

    Returns:
        A :class:`~.shapes.BoardModel`: ``tiles`` (a :class:`~.shapes.TileModel` per position),
        ``viewbox``, ``seats`` (:func:`seat_style` per seat), ``choosing``, ``prefix``, ``interactive``,
        ``roving`` and ``width`` (coordinates and width in SVG units).
    """
    groups = actions_by_type(legal or [])
    targets = {a.to for a in groups.of(engine.Advance)}
    picks = _Picks(targets, _redistribution_locations(groups), seat)
    places = place_labels(view, lakes=True)
    tiles = [_tile(view, pos, names, picks, places) for pos in view["map"]]
    viewbox, width = _viewbox([_centre(pos) for pos in view["map"]])
    return {
        "tiles": tiles,
        "viewbox": viewbox,
        # the map's own width in SVG units: a phone shows it at least 1.15 px per unit, so its 10.5-unit
        # labels stay at 12 CSS px or more, and pans sideways (issue 16)
        "width": round(width),
        "seats": [seat_style(view, p["seat"]) for p in view["players"]],
        "choosing": bool(picks.targets or picks.redistribution),
        "prefix": prefix,
        "interactive": interactive,
        "roving": roving,
    }


class _Picks:
    """Where the viewer (``seat``) may click now: advance ``targets`` and ``redistribution`` locations."""

    def __init__(self, targets: set[str], redistribution: set[str], seat: int | None) -> None:
        self.targets = targets
        self.redistribution = redistribution
        self.seat = seat


def _tile(
    view: engine.View,
    pos: engine.TileView,
    names: dict[int, str],
    picks: _Picks,
    places: dict[str, tuple[str, str]],
) -> TileModel:
    """The map entry of one position (a lake, a castle or a territory)."""
    x, y = _centre(pos)
    tile: TileModel = {
        "id": pos["id"],
        "kind": pos["kind"],
        "x": round(x, 1),
        "y": round(y, 1),
        "points": _hex_points(x, y, HEX_SIZE - 1.5),
        "inner": _hex_points(x, y, HEX_SIZE - 6),
        "target": pos["id"] in picks.targets,
        "pickable": False,
        "disputed": bool(pos.get("disputed")),
        "full_name": "",
    }
    if pos["kind"] == "lake":
        tile["label"] = _("%(lake)s: cannot be entered; links the territories around it.") % {
            "lake": places.get(pos["id"], ("",))[0]  # "Lake", or "Lake (north-west)" (issue 29: no id)
        }
    elif pos["kind"] == "castle":
        _castle(tile, view, pos, names, picks)
    else:
        _territory(tile, view, pos, names, picks, places.get(pos["id"], (str(pos.get("name", "")),) * 2))
    battle = view["battle"]
    if tile["disputed"] and battle is not None:
        attacker = battle["attacker"]
        tile["attacker"] = {
            "style": seat_style(view, attacker["seat"]),
            "knights": attacker["knights"],
        }
    _place_badges(tile, x)
    if tile.get("name"):
        tile["name_fit"] = label_fit(str(tile["name"]))
    return tile


def _place_badges(tile: TileModel, x: float) -> None:
    """Where the knight badges sit (issue 29): the holder's centred; in a battle the attacker's beside it in
    the same row (left: holder, right: attacker), so neither covers the capacity line under them. Adds
    ``badge_x``/``badge_left`` (the holder's text centre and box) and the attacker's ``x``/``left``."""
    attacker = tile.get("attacker")
    held = tile.get("style") is not None
    centre = x - 19 if attacker and held else x
    tile["badge_x"], tile["badge_left"] = round(centre, 1), round(centre - 17, 1)
    if attacker:
        centre = x + 20 if held else x
        attacker["x"], attacker["left"] = round(centre, 1), round(centre - 19, 1)


def _castle(
    tile: TileModel, view: engine.View, pos: engine.TileView, names: dict[int, str], picks: _Picks
) -> None:
    seat = pos["seat"]
    tile["name"] = pos["name"]
    tile["seat"] = seat
    tile["style"] = seat_style(view, seat)
    tile["knights"] = pos["knights"]
    tile["pickable"] = seat == picks.seat and "castle" in picks.redistribution
    tile["loc"] = "castle" if seat == picks.seat else pos["id"]
    tile["label"] = _("Castle %(name)s of %(who)s: %(n)s knights") % {
        "name": pos["name"],
        "who": names.get(seat, "?"),
        "n": pos["knights"],
    }


def _territory(
    tile: TileModel,
    view: engine.View,
    pos: engine.TileView,
    names: dict[int, str],
    picks: _Picks,
    place: tuple[str, str],
) -> None:
    owner = pos.get("owner")
    capacity = int(pos.get("capacity") or DEFAULT_CAPACITY)
    tile["name"] = place[1]
    tile["full_name"] = place[0]
    tile["tile"] = pos["tile"]
    tile["vp"] = pos["vp"]
    tile["pips"] = range(int(pos["vp"] or 0))
    tile["capacity"] = capacity if capacity != DEFAULT_CAPACITY else None
    tile["owner"] = owner
    tile["style"] = seat_style(view, owner) if owner is not None else None
    tile["knights"] = pos["knights"]
    tile["unsupplied"] = owner is not None and not pos.get("supplied")
    tile["pickable"] = pos["id"] in picks.redistribution or pos["id"] in picks.targets
    tile["loc"] = pos["id"]
    tile["text"] = str(pos.get("text", ""))
    tile["type_name"] = str(pos["name"])
    tile["label"] = _territory_label(tile, pos, capacity, names)


def _territory_label(tile: TileModel, pos: engine.TileView, capacity: int, names: dict[int, str]) -> str:
    """The screen-reader label of a territory: name, VP, capacity, owner, supply, dispute, target, text."""
    owner = pos.get("owner")
    parts = [tile["full_name"], _("%(vp)s VP") % {"vp": pos["vp"]}]
    if capacity != DEFAULT_CAPACITY:
        parts.append(_("capacity %(n)s") % {"n": capacity})
    if owner is None:
        parts.append(_("uncontrolled"))
    else:
        parts.append(_("%(who)s, %(n)s knights") % {"who": names.get(int(owner), "?"), "n": pos["knights"]})
        if tile["unsupplied"]:
            parts.append(_("no line of supply"))
    if tile["disputed"]:
        parts.append(_("in dispute"))
    if tile["target"]:
        parts.append(_("you may advance here"))
    if tile["text"]:
        parts.append(tile["text"])
    return "; ".join(str(p) for p in parts)
