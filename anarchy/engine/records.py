"""The record format of a Castle Defence position (docs/anarchy/record.md): JSON-safe dictionaries with a
format name and version, read back exactly; what the CLI's files and the site's puzzles store."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cards import CORNERS, LETTERS, SIDES, AttackType, Tactic
from .errors import AnarchyError, RecordError
from .position import Position, Slot

FORMAT = "anarchy/castle-defence"
VERSION = 1


def position_to_record(position: Position) -> dict[str, Any]:
    """``position`` as a version-1 record: ``{"format", "version", "position": {...}}``."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "position": {
            "round": position.round,
            "values": dict(zip(LETTERS, position.values, strict=True)),
            "determination": position.determination,
            "food": position.food,
            "walls": dict(zip(SIDES, position.walls, strict=True)),
            "towers": dict(zip(CORNERS, position.towers, strict=True)),
            "gate": position.gate,
            "moat": position.moat,
            "tactics": {str(t): position.tactic(t) for t in Tactic},
            "craftsmen": position.craftsmen,
            "soldiers": position.soldiers,
            "knights": position.knights,
            "beer": position.beer,
            "muster": position.muster,
            "row": [{"back": str(slot.back), "card": slot.card} for slot in position.row],
        },
    }


def position_from_record(record: Mapping[str, Any]) -> Position:
    """The position a record holds. Raises :class:`RecordError` for anything that is not a version-1
    Castle Defence record, and :class:`InvalidPosition` for a record whose position breaks the contract."""
    if not isinstance(record, Mapping) or record.get("format") != FORMAT:
        raise RecordError("not_a_record", f"Not a Castle Defence record (format {FORMAT!r}).")
    if record.get("version") != VERSION:
        raise RecordError("bad_version", f"Unknown record version {record.get('version')!r}.")
    raw = record.get("position")
    if not isinstance(raw, Mapping):
        raise RecordError("no_position", "The record has no position.")
    try:
        return Position(
            round=raw["round"],
            values=tuple(raw["values"][letter] for letter in LETTERS),
            determination=raw["determination"],
            food=raw.get("food", raw["round"]),
            walls=tuple(raw.get("walls", {}).get(side, 0) for side in SIDES),
            towers=tuple(raw.get("towers", {}).get(corner, 0) for corner in CORNERS),
            gate=raw.get("gate", 0),
            moat=raw.get("moat", 0),
            tactics={Tactic(name): count for name, count in raw.get("tactics", {}).items()},
            craftsmen=raw.get("craftsmen", 0),
            soldiers=raw.get("soldiers", 0),
            knights=raw.get("knights", 0),
            beer=raw.get("beer", 0),
            muster=raw.get("muster", 0),
            row=tuple(Slot(AttackType(slot["back"]), slot.get("card")) for slot in raw["row"]),
        )
    except AnarchyError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise RecordError("bad_position", f"The record's position cannot be read: {error!r}.") from error
