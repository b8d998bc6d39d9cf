"""Actions: small typed dataclasses tagged by ``"type"`` in JSON (architecture §2 "Actions").

Locations are ``"castle"`` (the actor's own castle) or a position id ``"t<index>"``; cards are card ids
``"s<seat>c<index>"`` (see :func:`card_id`); artefacts are content ids such as ``"sceptre_rage"``.
:func:`parse_action` turns a JSON payload into an action or raises :class:`InvalidActionPayload`;
``action.to_dict()`` is its inverse.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import InvalidActionPayload
from .events import MovePart
from .kinds import ActionType

# The id patterns are matched whole (``fullmatch``) and ASCII only, so ``"t٨"`` (an Arabic-Indic digit) and
# ``"s0c01\n"`` (``$`` would match before the newline) are refused (issue 14); the API's JSON Schema is
# built from them (games.engine.action_schema).
#: A card id: seat and index (``"s0c07"``).
CARD_ID = re.compile(r"s([0-9])c([0-9]{2})", re.ASCII)
#: A location of a move: ``castle`` or a position id (``"t12"``).
LOCATION_ID = re.compile(r"castle|t[0-9]{1,3}", re.ASCII)
#: An artefact id of a content set (``"orb_brutality"``).
ARTEFACT_ID = re.compile(r"[a-z][a-z0-9_]{0,47}", re.ASCII)


def card_id(seat: int, index: int) -> str:
    """Return the public id of card ``index`` (0..17) of ``seat``'s deck: ``card_id(2, 7) == "s2c07"``."""
    return f"s{seat}c{index:02d}"


def parse_card_id(value: str) -> tuple[int, int] | None:
    """Return ``(seat, index)`` for a well-formed card id, else ``None``."""
    m = CARD_ID.fullmatch(value)
    return (int(m.group(1)), int(m.group(2))) if m else None


@dataclass(frozen=True, slots=True)
class Action:
    """Base class; ``TYPE`` is the JSON tag."""

    TYPE: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON payload of this action (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE}


@dataclass(frozen=True, slots=True)
class CallToArms(Action):
    """Play Call to Arms: +2 knights in the castle (R34). Free window only."""

    TYPE: ClassVar[str] = ActionType.CALL_TO_ARMS


@dataclass(frozen=True, slots=True)
class TacticalAdvance(Action):
    """Play Tactical Advance: one more manoeuvre this turn (R35, Q24). Free window only."""

    TYPE: ClassVar[str] = ActionType.TACTICAL_ADVANCE


@dataclass(frozen=True, slots=True)
class Fracture(Action):
    """Play Fracture in one's own free window on another player's face-up artefact (R36 a, Q22)."""

    TYPE: ClassVar[str] = ActionType.FRACTURE
    target: str

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE, "target": self.target}


@dataclass(frozen=True, slots=True)
class UseCrown(Action):
    """Announce a crown use (R39–R41). ``player`` for Corruption/Prosperity (any seat, Q31), ``artefact``
    for Corruption, ``card`` for Order (a card of one's discard pile discarded on a previous turn)."""

    TYPE: ClassVar[str] = ActionType.USE_CROWN
    player: int | None = None
    artefact: str | None = None
    card: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        d: dict[str, Any] = {"type": self.TYPE}
        if self.player is not None:
            d["player"] = self.player
        if self.artefact is not None:
            d["artefact"] = self.artefact
        if self.card is not None:
            d["card"] = self.card
        return d


@dataclass(frozen=True, slots=True)
class Move:
    """One part of a redistribution: ``knights`` (≥ 1) from location ``src`` to location ``dst``."""

    src: str
    dst: str
    knights: int

    def to_dict(self) -> MovePart:
        """JSON form ``{"from", "to", "knights"}``."""
        return {"from": self.src, "to": self.dst, "knights": self.knights}


@dataclass(frozen=True, slots=True)
class Redistribute(Action):
    """Redistribute knights (R43–R47): all ``moves`` are applied together and only the result is checked.
    Starts a manoeuvre from a free window; may be repeated before the manoeuvre's advance."""

    TYPE: ClassVar[str] = ActionType.REDISTRIBUTE
    moves: tuple[Move, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE, "moves": [m.to_dict() for m in self.moves]}


@dataclass(frozen=True, slots=True)
class Advance(Action):
    """Advance ``knights`` from the castle into territory ``to`` (R52–R57, Castle Siege R112)."""

    TYPE: ClassVar[str] = ActionType.ADVANCE
    to: str
    knights: int

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE, "to": self.to, "knights": self.knights}


@dataclass(frozen=True, slots=True)
class DeclineAdvance(Action):
    """End the current manoeuvre without advancing (R28, R58)."""

    TYPE: ClassVar[str] = ActionType.DECLINE_ADVANCE


@dataclass(frozen=True, slots=True)
class FinishRedistribution(Action):
    """End the Crown of Vitality redistribution (R41)."""

    TYPE: ClassVar[str] = ActionType.FINISH_REDISTRIBUTION


@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    """End the turn from a free window (Q23); step 9 restores artefacts (R93)."""

    TYPE: ClassVar[str] = ActionType.END_TURN


@dataclass(frozen=True, slots=True)
class Respond(Action):
    """Answer a response window (R37): a ranked list of Fracture targets ("fracture X; if X is already
    destroyed, Y; otherwise keep my card"); the empty list passes."""

    TYPE: ClassVar[str] = ActionType.RESPOND
    fracture: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE, "fracture": list(self.fracture)}


@dataclass(frozen=True, slots=True)
class ChooseConflict(Action):
    """Place a conflict card face down (battle step 4, R68)."""

    TYPE: ClassVar[str] = ActionType.CHOOSE_CONFLICT
    card: str

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE, "card": self.card}


@dataclass(frozen=True, slots=True)
class PlaySupport(Action):
    """Play one or more support cards on one's support turn (battle step 5, R70, R110)."""

    TYPE: ClassVar[str] = ActionType.PLAY_SUPPORT
    cards: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE, "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class PassSupport(Action):
    """Pass one's support turn (R70)."""

    TYPE: ClassVar[str] = ActionType.PASS_SUPPORT


@dataclass(frozen=True, slots=True)
class DiscardChoice(Action):
    """Answer a "may discard any 1 card" choice (R102): a card of one's hand, or ``None`` to decline."""

    TYPE: ClassVar[str] = ActionType.DISCARD_CHOICE
    card: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE, "card": self.card}


@dataclass(frozen=True, slots=True)
class InsightOrder(Action):
    """Put the cards seen with the Crown of Insight back, ``order`` listing them top first (R41, D18)."""

    TYPE: ClassVar[str] = ActionType.INSIGHT_ORDER
    order: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE, "order": list(self.order)}


@dataclass(frozen=True, slots=True)
class ProsperityChoice(Action):
    """Crown of Prosperity: ``discard`` the looked-at top card, or leave it on top (R41)."""

    TYPE: ClassVar[str] = ActionType.PROSPERITY_CHOICE
    discard: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE, "discard": self.discard}


@dataclass(frozen=True, slots=True)
class FearChoice(Action):
    """Sceptre of Fear / Vigour: ``use`` the rival's knight count as one's knight part, or not (R67, Q3)."""

    TYPE: ClassVar[str] = ActionType.FEAR_CHOICE
    use: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON payload (inverse of :func:`parse_action`)."""
        return {"type": self.TYPE, "use": self.use}


ACTION_TYPES: dict[str, type[Action]] = {
    cls.TYPE: cls
    for cls in (
        CallToArms,
        TacticalAdvance,
        Fracture,
        UseCrown,
        Redistribute,
        Advance,
        DeclineAdvance,
        FinishRedistribution,
        EndTurn,
        Respond,
        ChooseConflict,
        PlaySupport,
        PassSupport,
        DiscardChoice,
        InsightOrder,
        ProsperityChoice,
        FearChoice,
    )
}


def _str(payload: dict[str, Any], key: str, pattern: re.Pattern[str] | None = None) -> str:
    value = payload.get(key)
    if not isinstance(value, str) or not value or len(value) > 64:
        raise InvalidActionPayload(f"{key!r} must be a non-empty string", key)
    if pattern is not None and not pattern.fullmatch(value):
        raise InvalidActionPayload(f"{key!r} is malformed: {value!r}", key)
    return value


def _int(payload: dict[str, Any], key: str, optional: bool = False) -> int | None:
    value = payload.get(key)
    if value is None and optional:
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 10**6:
        value = int(value)  # JSON has one number type: 3.0 is the integer 3 (JSON Schema "integer")
    if not isinstance(value, int) or isinstance(value, bool) or not -(10**6) < value < 10**6:
        raise InvalidActionPayload(f"{key!r} must be an integer", key)
    return value


def _str_list(payload: dict[str, Any], key: str, pattern: re.Pattern[str] | None = None) -> tuple[str, ...]:
    value = payload.get(key, [])
    if not isinstance(value, list) or len(value) > 32:
        raise InvalidActionPayload(f"{key!r} must be a list of strings", key)
    out: list[str] = []
    for item in value:
        if not isinstance(item, str) or not item or len(item) > 64:
            raise InvalidActionPayload(f"{key!r} must be a list of strings", key)
        if pattern is not None and not pattern.fullmatch(item):
            raise InvalidActionPayload(f"{key!r} holds a malformed id: {item!r}", key)
        out.append(item)
    return tuple(out)


def _bool(payload: dict[str, Any], key: str) -> bool:
    value = payload.get(key)
    if not isinstance(value, bool):
        raise InvalidActionPayload(f"{key!r} must be true or false", key)
    return value


def _use_crown(payload: dict[str, Any]) -> Action:
    artefact = payload.get("artefact")
    card = payload.get("card")
    return UseCrown(
        player=_int(payload, "player", optional=True),
        artefact=None if artefact is None else _str(payload, "artefact", ARTEFACT_ID),
        card=None if card is None else _str(payload, "card", CARD_ID),
    )


def _redistribute(payload: dict[str, Any]) -> Action:
    raw = payload.get("moves")
    if not isinstance(raw, list) or not raw or len(raw) > 64:
        raise InvalidActionPayload("'moves' must be a non-empty list", "moves")
    moves: list[Move] = []
    for m in raw:
        if not isinstance(m, dict) or set(m) != {"from", "to", "knights"}:
            raise InvalidActionPayload("each move is {'from', 'to', 'knights'}", "moves")
        n = _int(m, "knights")
        assert n is not None
        moves.append(Move(_str(m, "from", LOCATION_ID), _str(m, "to", LOCATION_ID), n))
    return Redistribute(tuple(moves))


def _advance(payload: dict[str, Any]) -> Action:
    n = _int(payload, "knights")
    assert n is not None
    return Advance(_str(payload, "to", LOCATION_ID), n)


def _play_support(payload: dict[str, Any]) -> Action:
    cards = _str_list(payload, "cards", CARD_ID)
    if not cards:
        raise InvalidActionPayload("'cards' must name at least one card", "cards")
    return PlaySupport(cards)


#: Parsers of the action types that carry fields; the others have none.
_PARSERS: dict[str, Callable[[dict[str, Any]], Action]] = {
    ActionType.FRACTURE: lambda p: Fracture(_str(p, "target", ARTEFACT_ID)),
    ActionType.USE_CROWN: _use_crown,
    ActionType.REDISTRIBUTE: _redistribute,
    ActionType.ADVANCE: _advance,
    ActionType.RESPOND: lambda p: Respond(_str_list(p, "fracture", ARTEFACT_ID)),
    ActionType.CHOOSE_CONFLICT: lambda p: ChooseConflict(_str(p, "card", CARD_ID)),
    ActionType.PLAY_SUPPORT: _play_support,
    ActionType.DISCARD_CHOICE: lambda p: DiscardChoice(
        None if p.get("card") is None else _str(p, "card", CARD_ID)
    ),
    ActionType.INSIGHT_ORDER: lambda p: InsightOrder(_str_list(p, "order", CARD_ID)),
    ActionType.PROSPERITY_CHOICE: lambda p: ProsperityChoice(_bool(p, "discard")),
    ActionType.FEAR_CHOICE: lambda p: FearChoice(_bool(p, "use")),
}


def parse_action(payload: Any) -> Action:
    """Parse a JSON payload into an :class:`Action`.

    Args:
        payload: a dict with a ``"type"`` tag and that type's fields (see ``docs/game-record.md``).

    Returns:
        The typed action. Unknown extra keys are rejected.

    Raises:
        InvalidActionPayload: not a dict, unknown type, missing/mistyped/extra field.
    """
    if not isinstance(payload, dict):
        raise InvalidActionPayload("an action must be a JSON object")
    kind = payload.get("type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        known = ", ".join(sorted(ACTION_TYPES))
        what = "an action needs a 'type'" if kind is None else f"unknown action type {kind!r}"
        raise InvalidActionPayload(f"{what}; the types are: {known}", "type")
    allowed = _FIELDS[kind]
    extra = set(payload) - allowed - {"type"}
    if extra:
        raise InvalidActionPayload(f"unexpected field(s) {sorted(extra)!r} for {kind}", sorted(extra)[0])
    parser = _PARSERS.get(kind)
    return ACTION_TYPES[kind]() if parser is None else parser(payload)


_FIELDS: dict[str, set[str]] = {
    ActionType.CALL_TO_ARMS: set(),
    ActionType.TACTICAL_ADVANCE: set(),
    ActionType.FRACTURE: {"target"},
    ActionType.USE_CROWN: {"player", "artefact", "card"},
    ActionType.REDISTRIBUTE: {"moves"},
    ActionType.ADVANCE: {"to", "knights"},
    ActionType.DECLINE_ADVANCE: set(),
    ActionType.FINISH_REDISTRIBUTION: set(),
    ActionType.END_TURN: set(),
    ActionType.RESPOND: {"fracture"},
    ActionType.CHOOSE_CONFLICT: {"card"},
    ActionType.PLAY_SUPPORT: {"cards"},
    ActionType.PASS_SUPPORT: set(),
    ActionType.DISCARD_CHOICE: {"card"},
    ActionType.INSIGHT_ORDER: {"order"},
    ActionType.PROSPERITY_CHOICE: {"discard"},
    ActionType.FEAR_CHOICE: {"use"},
}
