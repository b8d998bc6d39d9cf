"""Hard-rule checks for the Medieval Mastery map layouts (test helper).

Adapted from ``shared/rules/layouts/validate.py`` (the stdlib validator that
ships with the reconstructed layouts). The fairness-report printing and the
symmetry search are dropped; the hard checks, the movement graph and the
per-seat fairness metrics are kept.

Every ``check_*`` function returns a list of human-readable error strings;
an empty list means the layout passes that check. ``validate`` runs them all.

Geometry conventions (as in ``layouts/README.md``):

* Axial coordinates ``(q, r)`` of pointy-top hexes; the six neighbours of a
  hex are at ``(+1, 0) (-1, 0) (0, +1) (0, -1) (+1, -1) (-1, +1)``.
* Screen position ``x = sqrt(3) * (q + r / 2)``, ``y = 1.5 * r`` with ``y``
  pointing down; "clockwise" is clockwise on screen.
* The *centroid* is the mean screen position of all positions, castles
  included.

Rule references: R19 (centre-outwards fill order), R23 and RULING Q2 (at most
two Homelands per castle, none shared), R11/R53 (lakes link their shores),
R25 (seat order = turn order, clockwise), content.md §4.2 and §6.4 (counts
and layout rules).
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------

Hex = tuple[int, int]
Point = tuple[float, float]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))

KINDS: tuple[str, ...] = ("castle", "lake", "territory")

#: Required positions per player count (content.md §6.4):
#: players -> (castles, lakes, {vp: territory positions}).
EXPECTED_COUNTS: dict[int, tuple[int, int, dict[int, int]]] = {
    2: (2, 1, {1: 4, 2: 3, 3: 3}),
    3: (3, 1, {1: 6, 2: 4, 3: 4}),
    4: (4, 2, {1: 8, 2: 6, 3: 6}),
    5: (5, 2, {1: 10, 2: 8, 3: 7}),
    6: (6, 3, {1: 12, 2: 9, 3: 9}),
}

#: Distances and angles are rounded to this many decimals before comparison,
#: so that floating-point noise cannot reorder equal values.
ROUND_DIGITS = 6

#: Tolerance for comparisons of averaged (floating-point) quantities.
EPSILON = 1e-9


# --------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """One hex of a layout: a castle (with a seat), a lake or a territory."""

    q: int
    r: int
    kind: str
    seat: int | None = None
    vp: int | None = None

    @property
    def hex(self) -> Hex:
        """The axial coordinate pair ``(q, r)``."""
        return (self.q, self.r)


@dataclass
class Layout:
    """A map layout for one player count, as stored in ``<n>p.json``."""

    name: str
    players: int
    provenance: str
    positions: list[Position]
    by_hex: dict[Hex, Position] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.by_hex = {p.hex: p for p in self.positions}

    @property
    def castles(self) -> list[Position]:
        """Castle positions sorted by seat."""
        found = [p for p in self.positions if p.kind == "castle"]
        return sorted(found, key=lambda p: (p.seat is None, p.seat or 0))

    @property
    def lakes(self) -> list[Position]:
        """Lake positions in file order."""
        return [p for p in self.positions if p.kind == "lake"]

    @property
    def territories(self) -> list[Position]:
        """Territory positions in file order."""
        return [p for p in self.positions if p.kind == "territory"]

    def territories_of(self, vp: int) -> list[Position]:
        """Territory positions of one VP value."""
        return [p for p in self.territories if p.vp == vp]

    def neighbours(self, h: Hex) -> list[Position]:
        """The map positions that share an edge with hex ``h``."""
        return [self.by_hex[n] for n in hex_neighbours(h) if n in self.by_hex]

    def on_edge(self, h: Hex) -> bool:
        """True if hex ``h`` has at least one neighbour outside the map."""
        return any(n not in self.by_hex for n in hex_neighbours(h))

    def centroid(self) -> Point:
        """Mean screen position of all positions (castles included)."""
        points = [to_screen(p.hex) for p in self.positions]
        return (sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points))


# --------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------


def load_layout(path: Path) -> tuple[Layout | None, list[str]]:
    """Read and parse a layout file; see ``parse_layout``."""
    try:
        data: object = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        return None, [f"cannot read JSON: {exc}"]
    layout, errors = parse_layout(data, path.name)
    if layout is not None and path.name != f"{layout.players}p.json":
        errors.append(f"file for {layout.players} players should be named {layout.players}p.json")
    return layout, errors


def parse_layout(data: object, name: str = "<layout>") -> tuple[Layout | None, list[str]]:
    """Turn decoded JSON into a ``Layout``.

    Returns ``(layout, errors)``; ``layout`` is ``None`` when the data are so
    malformed that no rule check makes sense. Format errors (bad entries,
    duplicate coordinates, missing provenance) are reported in ``errors``.
    """
    if not isinstance(data, dict):
        return None, ["top level must be a JSON object"]
    errors: list[str] = []
    players = data.get("players")
    if not _is_int(players) or players not in EXPECTED_COUNTS:
        return None, [f"'players' must be an integer 2..6, got {players!r}"]
    provenance = data.get("provenance")
    if not isinstance(provenance, str) or not provenance:
        errors.append("'provenance' must be a non-empty string")
        provenance = ""
    raw_positions = data.get("positions")
    if not isinstance(raw_positions, list) or not raw_positions:
        return None, [*errors, "'positions' must be a non-empty list"]

    positions: list[Position] = []
    for index, raw in enumerate(raw_positions):
        position, problem = _parse_position(raw)
        if problem:
            errors.append(f"positions[{index}]: {problem}")
        if position is not None:
            positions.append(position)

    seen: set[Hex] = set()
    for p in positions:
        if p.hex in seen:
            errors.append(f"duplicate coordinate {p.hex}")
        seen.add(p.hex)
    return Layout(name, players, provenance, positions), errors


def _is_int(value: object) -> TypeGuard[int]:
    """True for a JSON integer (``bool`` is not accepted)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _parse_position(raw: object) -> tuple[Position | None, str | None]:
    """Turn one JSON entry into a ``Position`` (or explain what is wrong)."""
    if not isinstance(raw, dict):
        return None, "entry must be an object"
    q, r, kind = raw.get("q"), raw.get("r"), raw.get("kind")
    if not _is_int(q) or not _is_int(r):
        return None, "'q' and 'r' must be integers"
    if not isinstance(kind, str) or kind not in KINDS:
        return None, f"unknown kind {kind!r}"
    extra_keys = {"castle": {"seat"}, "lake": set(), "territory": {"vp"}}[kind]
    extra = set(raw) - {"q", "r", "kind"} - extra_keys
    if extra:
        return None, f"unexpected keys {sorted(extra)} for a {kind}"
    if kind == "castle":
        seat = raw.get("seat")
        if not _is_int(seat):
            return None, "a castle needs an integer 'seat'"
        return Position(q, r, kind, seat=seat), None
    if kind == "territory":
        vp = raw.get("vp")
        if not _is_int(vp) or vp not in (1, 2, 3):
            return None, "a territory needs 'vp' equal to 1, 2 or 3"
        return Position(q, r, kind, vp=vp), None
    return Position(q, r, kind), None


# --------------------------------------------------------------------------
# Hex geometry
# --------------------------------------------------------------------------


def hex_neighbours(h: Hex) -> list[Hex]:
    """The six axial neighbours of ``h``."""
    q, r = h
    return [(q + dq, r + dr) for dq, dr in DIRECTIONS]


def hex_distance(a: Hex, b: Hex) -> int:
    """Number of hex steps between ``a`` and ``b`` on an empty grid."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def to_screen(h: Hex) -> Point:
    """Screen position of a hex centre (unit = distance centre to corner)."""
    q, r = h
    return (math.sqrt(3) * (q + r / 2), 1.5 * r)


def clockwise_angle(point: Point, centre: Point) -> float:
    """Angle of ``point`` around ``centre`` in degrees, clockwise on screen,
    starting at north (12 o'clock) = 0."""
    dx, dy = point[0] - centre[0], point[1] - centre[1]
    if abs(dx) < EPSILON and abs(dy) < EPSILON:
        return 0.0
    angle = round(math.degrees(math.atan2(dx, -dy)) % 360.0, ROUND_DIGITS)
    return angle % 360.0  # rounding may turn 359.9999999 into 360.0


def fill_order_key(position: Position, centre: Point) -> tuple[float, float]:
    """Sort key of the centre-outwards fill order (R19): distance from the
    centroid, then clockwise angle from north."""
    x, y = to_screen(position.hex)
    distance = round(math.hypot(x - centre[0], y - centre[1]), ROUND_DIGITS)
    return (distance, clockwise_angle((x, y), centre))


def fill_order(layout: Layout) -> list[Position]:
    """The layout's positions sorted into centre-outwards fill order (R19)."""
    centre = layout.centroid()
    return sorted(layout.positions, key=lambda p: fill_order_key(p, centre))


# --------------------------------------------------------------------------
# Movement graph and fairness metrics (soft; not part of ``validate``)
# --------------------------------------------------------------------------


def movement_graph(layout: Layout) -> dict[Hex, set[Hex]]:
    """Adjacency between castles and territories for the advance rule.

    Two non-lake positions are linked if they share an edge, or if they both
    border the same lake (R11, R53, RULING Q13 for castles).
    """
    graph: dict[Hex, set[Hex]] = {p.hex: set() for p in layout.positions if p.kind != "lake"}
    for h, linked in graph.items():
        linked.update(n.hex for n in layout.neighbours(h) if n.kind != "lake")
    for lake in layout.lakes:
        shore = [n.hex for n in layout.neighbours(lake.hex) if n.kind != "lake"]
        for a in shore:
            graph[a].update(b for b in shore if b != a)
    return graph


def distances_from(layout: Layout, graph: dict[Hex, set[Hex]], start: Hex) -> dict[Hex, int]:
    """Breadth-first step counts from ``start``; other castles are dead ends
    (they can be reached but never passed through)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        if h != start and layout.by_hex[h].kind == "castle":
            continue
        for n in graph[h]:
            if n not in dist:
                dist[n] = dist[h] + 1
                queue.append(n)
    return dist


#: The fairness metrics: key -> description.
METRICS: dict[str, str] = {
    "d_vp2": "steps castle -> nearest VP2",
    "d_vp3": "steps castle -> nearest VP3",
    "vp_within_2": "VP within 2 steps",
    "vp_within_3": "VP within 3 steps",
    "voronoi_count": "Voronoi share (positions)",
    "voronoi_vp": "Voronoi share (VP)",
}


def seat_metrics(layout: Layout) -> dict[int, dict[str, float]]:
    """Fairness metrics per seat (see ``METRICS``).

    The Voronoi share of a seat is the set of territories strictly closer (in
    movement-graph steps) to its castle than to any other castle.
    """
    graph = movement_graph(layout)
    castles = [c for c in layout.castles if c.seat is not None]
    dist: dict[int, dict[Hex, int]] = {}
    for c in castles:
        assert c.seat is not None
        dist[c.seat] = distances_from(layout, graph, c.hex)
    territories = layout.territories
    result: dict[int, dict[str, float]] = {}
    for seat, d in dist.items():
        steps = {t.hex: float(d.get(t.hex, math.inf)) for t in territories}
        nearest = {
            vp: min((steps[t.hex] for t in territories if t.vp == vp), default=math.inf) for vp in (2, 3)
        }
        share = [
            t
            for t in territories
            if all(steps[t.hex] < other.get(t.hex, math.inf) for s, other in dist.items() if s != seat)
        ]
        result[seat] = {
            "d_vp2": nearest[2],
            "d_vp3": nearest[3],
            "vp_within_2": sum(t.vp or 0 for t in territories if steps[t.hex] <= 2),
            "vp_within_3": sum(t.vp or 0 for t in territories if steps[t.hex] <= 3),
            "voronoi_count": len(share),
            "voronoi_vp": sum(t.vp or 0 for t in share),
        }
    return result


def spread(values: Iterable[float]) -> float:
    """max/min ratio of a metric across seats (1.0 = perfectly even)."""
    found = list(values)
    low, high = min(found), max(found)
    if low == high:
        return 1.0
    return math.inf if low <= 0 else high / low


# --------------------------------------------------------------------------
# Hard-rule checks
# --------------------------------------------------------------------------


def check_counts(layout: Layout) -> list[str]:
    """Numbers of castles, lakes and territories of each VP value (content.md §6.4)."""
    castles, lakes, vp_counts = EXPECTED_COUNTS[layout.players]
    errors: list[str] = []
    if len(layout.castles) != castles:
        errors.append(f"{len(layout.castles)} castles, expected {castles}")
    if len(layout.lakes) != lakes:
        errors.append(f"{len(layout.lakes)} lakes, expected {lakes}")
    for vp, expected in vp_counts.items():
        found = len(layout.territories_of(vp))
        if found != expected:
            errors.append(f"{found} VP {vp} territories, expected {expected}")
    return errors


def check_shape(layout: Layout) -> list[str]:
    """One connected map without holes."""
    errors: list[str] = []
    hexes = set(layout.by_hex)
    if not hexes:
        return ["map has no positions"]
    start = next(iter(hexes))
    reached = {start}
    queue = deque([start])
    while queue:
        for n in hex_neighbours(queue.popleft()):
            if n in hexes and n not in reached:
                reached.add(n)
                queue.append(n)
    if reached != hexes:
        errors.append(f"map is not connected: {sorted(hexes - reached)} cannot be reached")

    # A hole is an empty hex that cannot reach the area around the map.
    qs = [q for q, _ in hexes]
    rs = [r for _, r in hexes]
    q_lo, q_hi, r_lo, r_hi = min(qs) - 1, max(qs) + 1, min(rs) - 1, max(rs) + 1
    box = {(q, r) for q in range(q_lo, q_hi + 1) for r in range(r_lo, r_hi + 1)}
    empty = box - hexes
    outside = {h for h in empty if h[0] in (q_lo, q_hi) or h[1] in (r_lo, r_hi)}
    queue = deque(outside)
    while queue:
        for n in hex_neighbours(queue.popleft()):
            if n in empty and n not in outside:
                outside.add(n)
                queue.append(n)
    holes = sorted(empty - outside)
    if holes:
        errors.append(f"map has holes at {holes}")
    return errors


def check_castles(layout: Layout) -> list[str]:
    """Castle rules (content.md §6.4, R23, RULING Q2): on the edge, exactly two
    neighbours, both VP 1 territories; no lake or castle next to a castle; no
    VP 1 territory touching two castles."""
    errors: list[str] = []
    for c in layout.castles:
        where = f"castle of seat {c.seat} at {c.hex}"
        around = layout.neighbours(c.hex)
        if not layout.on_edge(c.hex):
            errors.append(f"{where} is not on the map's edge")
        if any(n.kind == "castle" for n in around):
            errors.append(f"{where} touches another castle")
        if any(n.kind == "lake" for n in around):
            errors.append(f"{where} touches a lake")
        lands = [n for n in around if n.kind == "territory"]
        if len(lands) != 2:
            errors.append(f"{where} touches {len(lands)} territory position(s), expected exactly 2")
        if any(n.vp != 1 for n in lands):
            errors.append(f"{where} touches a territory that is not VP 1")
    for t in layout.territories_of(1):
        owners = [n for n in layout.neighbours(t.hex) if n.kind == "castle"]
        if len(owners) > 1:
            errors.append(f"VP 1 territory at {t.hex} touches {len(owners)} castles")
    return errors


def check_lakes(layout: Layout) -> list[str]:
    """Lakes lie inside the map (all six neighbours are map positions, none of
    them a castle) and each touches at least three territories."""
    errors: list[str] = []
    for lake in layout.lakes:
        around = layout.neighbours(lake.hex)
        if len(around) < 6:
            errors.append(f"lake at {lake.hex} is on the map's edge")
        lands = sum(1 for n in around if n.kind == "territory")
        if lands < 3:
            errors.append(f"lake at {lake.hex} touches only {lands} territories")
    return errors


def castle_depth(layout: Layout, h: Hex) -> int:
    """Straight-line hex steps from ``h`` to the nearest castle (0 without castles)."""
    return min((hex_distance(h, c.hex) for c in layout.castles), default=0)


def check_layering(layout: Layout) -> list[str]:
    """VP 1 outside, VP 2 further in, VP 3 in the middle (content.md §4.1, §6.4).

    "Depth" is the straight-line hex distance to the nearest castle. The rule
    is formalised as:

    * every VP 1 territory is on the map's edge and on no lake shore;
    * no VP 2 or VP 3 territory touches a castle (depth >= 2);
    * no VP 2 territory is more than one step deeper than the shallowest VP 3;
    * mean depth grows VP 1 < VP 2 <= VP 3, and mean distance to the centroid
      shrinks VP 1 > VP 2 >= VP 3;
    * from every castle the nearest VP 3 territory is at least as far as the
      nearest VP 2 territory.
    """
    errors: list[str] = []
    for t in layout.territories_of(1):
        if not layout.on_edge(t.hex):
            errors.append(f"VP 1 territory at {t.hex} is not on the edge")
        if any(n.kind == "lake" for n in layout.neighbours(t.hex)):
            errors.append(f"VP 1 territory at {t.hex} touches a lake")
    groups = {vp: layout.territories_of(vp) for vp in (1, 2, 3)}
    if not all(groups.values()) or not layout.castles:
        return errors  # missing pieces are reported by check_counts
    depth = {vp: [castle_depth(layout, t.hex) for t in group] for vp, group in groups.items()}
    for t in groups[2] + groups[3]:
        if castle_depth(layout, t.hex) < 2:
            errors.append(f"VP {t.vp} territory at {t.hex} touches a castle")
    if max(depth[2]) > min(depth[3]) + 1:
        errors.append(
            f"a VP 2 territory lies {max(depth[2])} steps from the nearest castle, more than one step "
            f"deeper than the shallowest VP 3 territory ({min(depth[3])} steps)"
        )

    centre = layout.centroid()
    mean_depth = {vp: sum(d) / len(d) for vp, d in depth.items()}
    mean_radius = {
        vp: sum(math.dist(to_screen(t.hex), centre) for t in group) / len(group)
        for vp, group in groups.items()
    }
    if not mean_depth[1] < mean_depth[2] <= mean_depth[3] + EPSILON:
        found = ", ".join(f"{mean_depth[v]:.2f}" for v in (1, 2, 3))
        errors.append(f"mean distance to the nearest castle must grow VP1 < VP2 <= VP3, got {found}")
    if not mean_radius[1] > mean_radius[2] >= mean_radius[3] - EPSILON:
        found = ", ".join(f"{mean_radius[v]:.2f}" for v in (1, 2, 3))
        errors.append(f"mean distance to the centroid must shrink VP1 > VP2 >= VP3, got {found}")
    for c in layout.castles:
        near2 = min(hex_distance(c.hex, t.hex) for t in groups[2])
        near3 = min(hex_distance(c.hex, t.hex) for t in groups[3])
        if near3 < near2:
            errors.append(
                f"seat {c.seat}: a VP 3 territory ({near3} steps) is nearer than every VP 2 one "
                f"({near2} steps)"
            )
    return errors


def check_seats(layout: Layout) -> list[str]:
    """Seats 0..n-1 appear once each and run clockwise around the map (R25)."""
    seats = sorted(c.seat if c.seat is not None else -1 for c in layout.castles)
    if seats != list(range(layout.players)):
        return [f"castle seats are {seats}, expected 0..{layout.players - 1}"]
    centre = layout.centroid()
    by_angle = sorted(layout.castles, key=lambda c: clockwise_angle(to_screen(c.hex), centre))
    order = [c.seat for c in by_angle]
    start = order.index(0)
    order = order[start:] + order[:start]
    if order != list(range(layout.players)):
        return [f"seats do not run clockwise: clockwise order is {order}"]
    return []


def check_fill_order(layout: Layout) -> list[str]:
    """Positions are listed centre-outwards (R19): by distance from the
    centroid, then clockwise from north."""
    expected = fill_order(layout)
    for index, (found, wanted) in enumerate(zip(layout.positions, expected, strict=True)):
        if found != wanted:
            return [
                f"positions are not in centre-outwards order: entry {index} is {found.hex}, "
                f"expected {wanted.hex}"
            ]
    return []


CHECKS: tuple[Callable[[Layout], list[str]], ...] = (
    check_counts,
    check_shape,
    check_castles,
    check_lakes,
    check_layering,
    check_seats,
    check_fill_order,
)


def validate(layout: Layout) -> list[str]:
    """All hard-rule violations of one layout (empty list = valid)."""
    errors: list[str] = []
    for check in CHECKS:
        errors.extend(check(layout))
    return errors
