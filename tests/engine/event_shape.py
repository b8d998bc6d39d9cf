"""A checker that an event has the shape :class:`games.engine.Event` declares (issue 31 §1: typed events
across the boundary), used by the playout invariants after every action."""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, Union, get_args, get_origin, get_type_hints

from games.engine import Event, EventType, MovePart, PrivateFields

EVENT_FIELDS = get_type_hints(Event)
PRIVATE_FIELDS = get_type_hints(PrivateFields)
MOVE_FIELDS = get_type_hints(MovePart)


def fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` fits the type ``hint`` (the hints :class:`games.engine.Event` uses: unions,
    ``list[...]``, ``dict[str, ...]``, the TypedDicts it names, ``Any`` and plain classes)."""
    if hint is Any:
        return True
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return any(fits(value, arg) for arg in get_args(hint))
    if origin is list:
        (item,) = get_args(hint)
        return isinstance(value, list) and all(fits(x, item) for x in value)
    if origin is dict:
        key, item = get_args(hint)
        return isinstance(value, dict) and all(fits(k, key) and fits(v, item) for k, v in value.items())
    if hint is type(None):
        return value is None
    if hint is PrivateFields:
        return _fits_fields(value, PRIVATE_FIELDS)
    if hint is MovePart:
        return _fits_fields(value, MOVE_FIELDS) and set(value) == set(MOVE_FIELDS)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _fits_fields(value: Any, fields: dict[str, Any]) -> bool:
    return isinstance(value, dict) and all(k in fields and fits(v, fields[k]) for k, v in value.items())


def event_misfit(event: Mapping[str, Any]) -> str | None:
    """What in ``event`` the declared :class:`~games.engine.Event` does not allow, or ``None``."""
    if not isinstance(event.get("type"), EventType) or not isinstance(event.get("turn"), int):
        return f"no EventType type / int turn: {event}"
    for key, value in event.items():
        if key not in EVENT_FIELDS:
            return f"{event['type']}: undeclared key {key!r}"
        if not fits(value, EVENT_FIELDS[key]):
            return f"{event['type']}: {key}={value!r} is not {EVENT_FIELDS[key]}"
    return None
