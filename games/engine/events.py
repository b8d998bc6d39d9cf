"""The shape of an event: what an action's transition reports (``Transition.events``), stored with its
record (``docs/game-record.md``), redacted per viewer by :func:`games.engine.redact_event` (R95, R97) and
put in words by ``games.log``.

Every event has a ``type`` (:class:`~games.engine.kinds.EventType`) and the ``turn`` it happened on; the
other keys depend on the type (the comment on each ``EventType`` member says which rule it reports). Seats
are seat numbers, ``pos`` a position id (``"t3"``, ``"castle"`` for a castle in dispute), ``card`` a card id
(``"s0c07"``), ``artefact`` / ``crown`` an artefact id, ``knights`` a number of knights, ``vp`` victory
points. Fields only one seat may see sit under ``private`` (seat number as a string -> those fields) until
:func:`games.engine.redact_event` merges them for that seat.
"""

from __future__ import annotations

from typing import Any, Required, TypedDict

from .kinds import EventType


class PrivateFields(TypedDict, total=False):
    """The fields of an event only one seat may see (R95): the ``cards`` it drew (R96), the conflict
    ``card`` it chose face down (R68), or that ``seat`` answered a sealed window (issue 14)."""

    cards: list[str]
    card: str
    seat: int


#: One part of a redistribution (R43): ``knights`` from location ``from`` to location ``to`` ("from" is a
#: keyword, hence the functional form).
MovePart = TypedDict("MovePart", {"from": str, "to": str, "knights": int})


class EventFields(TypedDict, total=False):
    """The keys of an event besides its ``type`` and ``turn`` (see :class:`Event`): what the engine's
    ``emit(event_type, **fields)`` takes, so mypy checks every emitted key and value type."""

    seat: int
    players: int
    options: dict[str, Any]
    content: str
    castle: int
    homelands: list[int]
    knights: int
    lost: int
    reason: str
    card: str
    name: str
    target: str | int | None
    count: int
    cards: int | list[str] | list[str | None]
    under: bool
    kind: str
    opener: int
    targets: list[str]
    asked: list[int]
    survivors: list[str]
    crown: str
    ability: str
    player: int | None
    artefact: str
    owner: int
    by: int
    moves: list[MovePart]
    pos: str
    tile: str
    attacker: int
    defender: int
    step: int
    scores: list[int]
    values: list[int]
    rolls: list[int]
    attacker_lost: bool
    defender_lost: bool
    winner: int
    margin: int
    used: bool
    winners: list[int]
    vp: list[int]


class Event(EventFields, total=False):
    """One event (see the module docstring). The keys by type are those the engine's ``emit`` calls give
    (``games/engine/rules/``); a key shared by several types has the union of their value types:

    - ``cards``: how many cards (``reshuffle``, ``insight_done``), the card ids played or drawn
      (``support_played``, a ``draw``'s private part), or both conflict cards (``conflict_revealed``,
      ``None`` for no card, R68);
    - ``target``: the artefact a Fracture targets (``card_played``), the seat a Crown of Prosperity looked
      at (``prosperity_kept``), or a crown use's artefact (``crown_announced``, ``None`` if none).
    """

    type: Required[EventType]
    turn: Required[int]
    private: dict[str, PrivateFields]
