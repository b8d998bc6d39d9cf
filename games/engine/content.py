"""Content sets (cards, artefacts, territory types, tiles, numbers) and map layouts, loaded from data files.

The rules code reads every component fact and every fixed number from a :class:`Content` (``content.md``
§6 and ``medieval-mastery.md`` §19) and every map fact from a :class:`Board`; no number from those tables
appears in rules code. Named sets live in ``games/engine/data/``; setups may also pass inline dicts of the
same shape (used by test fixtures, e.g. a capacity above 6 or a castle on a lake).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from .errors import ContentError

_AXIAL_DIRS: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))


@dataclass(frozen=True, slots=True)
class CardDef:
    """One card of a player deck (every deck holds the same list, R1).

    ``index`` is the card's position 0..17 in the expanded deck list; ``value`` is the conflict value
    (2..5), the support value (1..2), or ``None`` for resource cards and Ambush (``ambush=True``: value is
    one d6 roll, R3).
    """

    index: int
    id: str
    name: str
    kind: str  # "conflict" | "support" | "resource"
    value: int | None
    ambush: bool
    effect: str | None  # resource cards: "authority" | "call_to_arms" | "tactical_advance" | "fracture"


@dataclass(frozen=True, slots=True)
class ArtefactDef:
    """One of the 18 artefacts (R5, content.md §1): ``type`` crown/sceptre/orb, ``trigger`` own_turn,
    attacking, defending, win or lose, ``ability`` its lowercase name (e.g. ``"brutality"``)."""

    id: str
    name: str
    type: str
    ability: str
    trigger: str
    affects: str


@dataclass(frozen=True, slots=True)
class TerritoryType:
    """A territory type (content.md §2): capacity in knights, start-of-battle ability
    (``None``, ``attacker_bonus``, ``defender_bonus``, ``arena``), conquest abilities
    (``place_knight``, ``lose_knight``, ``may_discard``), Mountains' ``no_support``, ``homelands``."""

    id: str
    name: str
    capacity: int
    start_of_battle: str | None
    on_conquest: tuple[str, ...]
    no_support: bool
    homelands: bool


@dataclass(frozen=True)
class Content:
    """A complete, validated content set. Build with :func:`load_content`."""

    id: str
    name: str
    provenance: str
    numbers: dict[str, Any]
    cards: tuple[CardDef, ...]
    artefacts: dict[str, ArtefactDef]
    territory_types: dict[str, TerritoryType]
    tiles: tuple[tuple[str, int, int], ...]  # (type id, vp, count)
    castles: tuple[dict[str, str], ...]
    effect_index: dict[str, int] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    def n(self, key: str) -> int:
        """Return the fixed number ``key`` of ``numbers`` (e.g. ``"knights_per_turn"`` → 3 knights)."""
        return int(self.numbers[key])

    def artefacts_of(self, kind: str) -> list[str]:
        """Return the ids of all artefacts of ``kind`` (crown/sceptre/orb) in data order."""
        return [a.id for a in self.artefacts.values() if a.type == kind]


@dataclass(frozen=True)
class Board:
    """Geometry of a map layout (R9, R11, R19): positions in fill order, adjacency and lake links.

    Positions are indexed 0..N-1 in the layout's fill order and named ``t<index>`` in actions and views.
    ``kinds[i]`` is ``castle`` / ``lake`` / ``territory``; ``layout_vp[i]`` is the VP value printed for a
    territory position; ``castle_of_seat[s]`` is the position index of seat ``s``'s castle.
    """

    key: str
    players: int
    provenance: str
    coords: tuple[tuple[int, int], ...]
    kinds: tuple[str, ...]
    layout_vp: tuple[int, ...]
    castle_of_seat: tuple[int, ...]
    adjacent: tuple[tuple[int, ...], ...]
    lake_links: tuple[tuple[int, ...], ...]  # per position: territories sharing a lake with it
    lake_castles: tuple[tuple[int, ...], ...]  # per territory: castles on a lake with it (R112)
    raw: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def size(self) -> int:
        """Number of positions (castles and lakes included)."""
        return len(self.kinds)

    def pos_id(self, index: int) -> str:
        """Return the public id ``t<index>`` of a position."""
        return f"t{index}"

    def parse_pos(self, pos_id: str) -> int | None:
        """Return the index of the position named ``pos_id`` or ``None`` if no such position exists."""
        digits = pos_id[1:]
        if not pos_id.startswith("t") or not digits.isascii() or not digits.isdigit() or len(digits) > 3:
            return None
        i = int(pos_id[1:])
        return i if 0 <= i < self.size else None


_CONTENT_CACHE: dict[str, Content] = {}
_BOARD_CACHE: dict[str, Board] = {}


#: Player counts with a shipped map layout (``data/layouts/<n>p.json``, R1: 2–6 players).
SHIPPED_LAYOUTS = frozenset(range(2, 7))

#: Largest magnitude of any integer read from a setup, layout or content set (a signed 64-bit integer).
MAX_SETUP_INT = 2**63 - 1


def bounded_int(value: Any, low: int, high: int, what: str) -> int:
    """Read a whole number from untrusted data (setups, records, inline layouts).

    Args:
        value: an ``int`` (not a ``bool``), or a float with an integral value; strings are refused.
        low, high: the inclusive range allowed.
        what: the name used in the error message.

    Returns:
        The value as an ``int``.

    Raises:
        ContentError: not a whole number (``NaN``, ``Infinity``, a fraction, text) or outside
            ``low..high``. Never ``OverflowError`` or ``ValueError`` (issue 12).
    """
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_SETUP_INT:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ContentError(f"{what} must be a whole number")
    if not low <= value <= high:
        raise ContentError(f"{what} must be between {low} and {high}")
    return value


def _read_data(name: str) -> dict[str, Any]:
    path = resources.files("games.engine").joinpath("data", name)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ContentError(f"no data file {name!r}") from exc
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ContentError(f"{name}: top level must be an object")
    return data


def _key_of(data: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


CONTENT_SETS = ("default", "abbey")


def load_content(spec: str | dict[str, Any] = "default") -> Content:
    """Load and validate a content set.

    Args:
        spec: a shipped set name (``"default"``, ``"abbey"`` — the Q17 SV/PL reading) or an inline dict
            with the same shape as ``data/content-default.json``.

    Returns:
        The cached :class:`Content`.

    Raises:
        ContentError: unknown name, or the data breaks R1/R2/R5 (18 cards with the 4 resources, 18
            artefacts, 6 per type).
    """
    if isinstance(spec, str):
        if spec not in _CONTENT_CACHE:
            if spec not in CONTENT_SETS:
                raise ContentError(f"unknown content set {spec!r}")
            _CONTENT_CACHE[spec] = _build_content(_read_data(f"content-{spec}.json"))
        return _CONTENT_CACHE[spec]
    key = "inline:" + _key_of(spec)
    if key not in _CONTENT_CACHE:
        _CONTENT_CACHE[key] = _build_content(spec)
    return _CONTENT_CACHE[key]


def _parse_cards(data: dict[str, Any]) -> list[CardDef]:
    """The deck's cards in data order, ``copies`` expanded; an Ambush's value is ``"d6"`` (R3)."""
    cards: list[CardDef] = []
    for entry in data["deck"]:
        value = entry.get("value")
        ambush = value == "d6"
        for _ in range(int(entry.get("copies", 1))):
            cards.append(
                CardDef(
                    index=len(cards),
                    id=str(entry["id"]),
                    name=str(entry["name"]),
                    kind=str(entry["kind"]),
                    value=None if (ambush or value is None) else int(value),
                    ambush=ambush,
                    effect=entry.get("effect"),
                )
            )
    return cards


def _parse_artefacts(data: dict[str, Any]) -> dict[str, ArtefactDef]:
    """Artefacts by id (R5)."""
    return {
        str(a["id"]): ArtefactDef(
            id=str(a["id"]),
            name=str(a["name"]),
            type=str(a["type"]),
            ability=str(a["ability"]),
            trigger=str(a["trigger"]),
            affects=str(a.get("affects", "you")),
        )
        for a in data["artefacts"]
    }


def _parse_territory_types(data: dict[str, Any], numbers: dict[str, Any]) -> dict[str, TerritoryType]:
    """Territory types by id; capacity defaults to ``numbers["default_capacity"]`` (R12)."""
    return {
        str(t["id"]): TerritoryType(
            id=str(t["id"]),
            name=str(t["name"]),
            capacity=int(t.get("capacity", numbers["default_capacity"])),
            start_of_battle=t.get("start_of_battle"),
            on_conquest=tuple(t.get("on_conquest", [])),
            no_support=bool(t.get("no_support", False)),
            homelands=bool(t.get("homelands", False)),
        )
        for t in data["territory_types"]
    }


def _check_content(
    cards: list[CardDef],
    artefacts: dict[str, ArtefactDef],
    types: dict[str, TerritoryType],
    tiles: tuple[tuple[str, int, int], ...],
) -> dict[str, int]:
    """Check the deck (R2), artefacts (R5) and tiles; return the resource cards' effect index."""
    effects = {c.effect: c.index for c in cards if c.kind == "resource" and c.effect}
    if len(cards) != 18 or sorted(effects) != ["authority", "call_to_arms", "fracture", "tactical_advance"]:
        raise ContentError("a deck must hold 18 cards including one of each resource card (R2)")
    if sum(1 for c in cards if c.kind == "resource") != 4:
        raise ContentError("a deck holds exactly 4 resource cards (R2)")
    for kind in ("crown", "sceptre", "orb"):
        if sum(1 for a in artefacts.values() if a.type == kind) < 1:
            raise ContentError(f"no {kind} artefacts (R5)")
    for tile_type, _vp, _count in tiles:
        if tile_type not in types:
            raise ContentError(f"tile of unknown type {tile_type!r}")
    return effects


def _build_content(data: dict[str, Any]) -> Content:
    try:
        cards = _parse_cards(data)
        artefacts = _parse_artefacts(data)
        numbers = dict(data["numbers"])
        types = _parse_territory_types(data, numbers)
        tiles = tuple((str(t["type"]), int(t["vp"]), int(t["count"])) for t in data["tiles"])
        castles = tuple(dict(c) for c in data["castles"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ContentError(f"malformed content set: {exc!r}") from exc
    effects = _check_content(cards, artefacts, types, tiles)
    return Content(
        id=str(data.get("id", "inline")),
        name=str(data.get("name", "")),
        provenance=str(data.get("provenance", "")),
        numbers=numbers,
        cards=tuple(cards),
        artefacts=artefacts,
        territory_types=types,
        tiles=tiles,
        castles=castles,
        effect_index=effects,
        raw=data,
    )


def load_board(spec: int | dict[str, Any], max_homelands: int = 2) -> Board:
    """Load a map layout and compute its geometry.

    Args:
        spec: a player count 2..6 (the shipped layout ``data/layouts/<n>p.json``) or an inline layout dict
            (``{"players": n, "positions": [{"q", "r", "kind", "vp"?, "seat"?}, ...]}``, fill order).
        max_homelands: most territory positions allowed to touch one castle (R23).

    Returns:
        The cached :class:`Board`.

    Raises:
        ContentError: unknown player count, malformed layout, or a layout breaking ruling Q2 (a territory
            touching two castles or a castle touching more than ``max_homelands`` territories).
    """
    if isinstance(spec, int):
        if spec not in SHIPPED_LAYOUTS:  # checked before the number is ever formatted into a path
            raise ContentError("no shipped layout for this player count (R1: 2 to 6 players)")
        key = f"{spec}p"
        if key not in _BOARD_CACHE:
            _BOARD_CACHE[key] = _build_board(_read_data(f"layouts/{spec}p.json"), key, max_homelands)
        return _BOARD_CACHE[key]
    key = "inline:" + _key_of(spec)
    if key not in _BOARD_CACHE:
        _BOARD_CACHE[key] = _build_board(spec, key, max_homelands)
    return _BOARD_CACHE[key]


def _build_board(data: dict[str, Any], key: str, max_homelands: int) -> Board:
    try:
        players = bounded_int(data["players"], 1, 64, "layout players")
        positions = list(data["positions"])
        coords = tuple(
            (bounded_int(p["q"], -999, 999, "q"), bounded_int(p["r"], -999, 999, "r")) for p in positions
        )
        kinds = tuple(str(p["kind"]) for p in positions)
        layout_vp = tuple(
            bounded_int(p.get("vp", 0), 0, 99, "vp") if p["kind"] == "territory" else 0 for p in positions
        )
        seats = {
            bounded_int(p["seat"], 0, 63, "seat"): i for i, p in enumerate(positions) if p["kind"] == "castle"
        }
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ContentError(f"malformed layout: {exc!r}") from exc
    if sorted(seats) != list(range(players)) or len(set(coords)) != len(coords):
        raise ContentError("layout must have one castle per seat 0..n-1 and distinct coordinates")
    if any(k not in ("castle", "lake", "territory") for k in kinds):
        raise ContentError("unknown position kind in layout")
    index = {c: i for i, c in enumerate(coords)}
    adjacent = tuple(
        tuple(sorted(index[(q + dq, r + dr)] for dq, dr in _AXIAL_DIRS if (q + dq, r + dr) in index))
        for q, r in coords
    )
    links: list[set[int]] = [set() for _ in coords]
    castles_across: list[set[int]] = [set() for _ in coords]
    for lake, kind in enumerate(kinds):
        if kind != "lake":
            continue
        shore = [n for n in adjacent[lake] if kinds[n] in ("territory", "castle")]
        for a in shore:
            links[a].update(b for b in shore if b != a and kinds[b] == "territory")
            if kinds[a] == "territory":  # a castle on the lake is reached across it under Castle Siege (R112)
                castles_across[a].update(b for b in shore if kinds[b] == "castle")
    # Ruling Q2: no territory touches two castles; at most `max_homelands` territories touch a castle.
    for c in seats.values():
        if sum(1 for n in adjacent[c] if kinds[n] == "territory") > max_homelands:
            raise ContentError(f"castle at t{c} touches more than {max_homelands} territories (Q2)")
    for i, kind in enumerate(kinds):
        if kind == "territory" and sum(1 for n in adjacent[i] if kinds[n] == "castle") > 1:
            raise ContentError(f"territory t{i} touches two castles (Q2)")
    return Board(
        key=key,
        players=players,
        provenance=str(data.get("provenance", "")),
        coords=coords,
        kinds=kinds,
        layout_vp=layout_vp,
        castle_of_seat=tuple(seats[s] for s in range(players)),
        adjacent=adjacent,
        lake_links=tuple(tuple(sorted(s)) for s in links),
        lake_castles=tuple(tuple(sorted(s)) for s in castles_across),
        raw=data,
    )
