"""The JSON Schema of action payloads (``docs/game-record.md`` §4): the union of the real action shapes,
tagged by ``"type"``. The API publishes it in its OpenAPI document so that clients and schema-driven
testers generate valid actions (issue 12). :func:`games.engine.actions.parse_action` stays the judge; a
test checks that the two agree on every type and field.
"""

from __future__ import annotations

import re
from typing import Any

from .actions import ACTION_TYPES, ARTEFACT_ID, CARD_ID, LOCATION_ID


def _pattern(regex: re.Pattern[str]) -> str:
    """The JSON Schema (ECMA-262) form of an id pattern :mod:`games.engine.actions` matches whole."""
    return f"^(?:{regex.pattern})$"


_CARD: dict[str, Any] = {"type": "string", "pattern": _pattern(CARD_ID), "description": "card id, e.g. s0c07"}
_LOCATION: dict[str, Any] = {
    "type": "string",
    "pattern": _pattern(LOCATION_ID),
    "description": "`castle` (your own) or a position id such as t12",
}
_ARTEFACT: dict[str, Any] = {
    "type": "string",
    "pattern": _pattern(ARTEFACT_ID),
    "description": "artefact id, e.g. orb_brutality",
}
#: Every integer field (``parse_action`` accepts -999,999..999,999; the rules judge the value).
_INT: dict[str, Any] = {"type": "integer", "minimum": -999_999, "maximum": 999_999}
_NULL: dict[str, Any] = {"type": "null"}


def _list(item: dict[str, Any], *, min_items: int = 0) -> dict[str, Any]:
    return {"type": "array", "items": item, "minItems": min_items, "maxItems": 32}


_MOVE: dict[str, Any] = {
    "type": "object",
    "properties": {"from": _LOCATION, "to": _LOCATION, "knights": _INT},
    "required": ["from", "to", "knights"],
    "additionalProperties": False,
}

#: Action type -> (its fields' schemas, the required ones). Types without fields are ``({}, ())``.
FIELDS: dict[str, tuple[dict[str, dict[str, Any]], tuple[str, ...]]] = {
    "call_to_arms": ({}, ()),
    "tactical_advance": ({}, ()),
    "fracture": ({"target": _ARTEFACT}, ("target",)),
    "use_crown": (
        {
            "player": {"anyOf": [_INT, _NULL]},
            "artefact": {"anyOf": [_ARTEFACT, _NULL]},
            "card": {"anyOf": [_CARD, _NULL]},
        },
        (),
    ),
    "redistribute": ({"moves": {"type": "array", "items": _MOVE, "minItems": 1, "maxItems": 64}}, ("moves",)),
    "advance": ({"to": _LOCATION, "knights": _INT}, ("to", "knights")),
    "decline_advance": ({}, ()),
    "finish_redistribution": ({}, ()),
    "end_turn": ({}, ()),
    "respond": ({"fracture": _list(_ARTEFACT)}, ()),
    "choose_conflict": ({"card": _CARD}, ("card",)),
    "play_support": ({"cards": _list(_CARD, min_items=1)}, ("cards",)),
    "pass_support": ({}, ()),
    "discard_choice": ({"card": {"anyOf": [_CARD, _NULL]}}, ()),
    "insight_order": ({"order": _list(_CARD)}, ()),
    "prosperity_choice": ({"discard": {"type": "boolean"}}, ("discard",)),
    "fear_choice": ({"use": {"type": "boolean"}}, ("use",)),
}


def action_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) of one action payload.

    Returns:
        ``{"oneOf": [<one object schema per action type>], "discriminator": {"propertyName": "type"}}``;
        each member requires ``type`` (a ``const``) and its type's required fields and forbids other
        properties. Source: :data:`games.engine.actions.ACTION_TYPES` and ``docs/game-record.md`` §4.
    """
    members = []
    for kind, cls in ACTION_TYPES.items():
        fields, required = FIELDS[kind]
        members.append(
            {
                "type": "object",
                "title": cls.__name__,
                "description": (cls.__doc__ or "").strip().splitlines()[0],
                "properties": {"type": {"type": "string", "const": kind}, **fields},
                "required": ["type", *required],
                "additionalProperties": False,
            }
        )
    return {"oneOf": members, "discriminator": {"propertyName": "type"}}
