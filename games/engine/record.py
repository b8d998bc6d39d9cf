"""Game records (``docs/game-record.md``): a setup plus an ordered list of seat actions, and replay.

A record is ``{"format": "medieval-mastery/2", "setup": {...}, "actions": [{"seat": 0, "action": {...},
"source": "web"}, ...]}``; ``source`` is informative (``timeout`` marks system-applied timeouts). Replay
never reads a clock: a timeout is an ordinary recorded action.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .actions import Action, parse_action
from .errors import ContentError, EngineError, IllegalAction, InvalidActionPayload, InvalidSeat
from .rules import LEGACY_EDITION, apply, new_game
from .state import GameState

#: The format records are written in: the setup names its ``rules_edition`` (issue 31).
RECORD_FORMAT = "medieval-mastery/2"
#: The first format: a setup that names no edition is read as :data:`LEGACY_EDITION` (games stored before
#: issue 14 named none; later ones name it either way).
RECORD_FORMAT_1 = "medieval-mastery/1"


class ReplayError(EngineError):
    """Replaying a record failed at action ``index`` (0-based) with ``error`` (an :class:`IllegalAction`,
    an :class:`InvalidActionPayload` or an :class:`InvalidSeat`)."""

    def __init__(
        self,
        index: int,
        error: IllegalAction | InvalidActionPayload | InvalidSeat,
        before: GameState | None = None,
    ) -> None:
        super().__init__(f"action {index}: {error}")
        self.index = index
        self.error = error
        #: The state before the failing action (for the referee summary), when known.
        self.before = before

    @property
    def code(self) -> str:
        """The failing action's error code (``invalid_payload`` for a malformed action, ``invalid_seat``
        for a seat outside the game)."""
        if isinstance(self.error, IllegalAction):
            return self.error.code.value
        return "invalid_seat" if isinstance(self.error, InvalidSeat) else "invalid_payload"


def _entry(item: Any) -> tuple[int, Action]:
    if (
        not isinstance(item, dict)
        or not isinstance(item.get("seat"), int)
        or isinstance(item.get("seat"), bool)
    ):
        raise InvalidActionPayload("a record entry is {'seat': int, 'action': {...}}")
    return item["seat"], parse_action(item.get("action"))


def _pair(item: tuple[Any, ...]) -> tuple[int, Action]:
    """A ``(seat, Action)`` pair of a replay's actions."""
    if len(item) != 2 or not isinstance(item[0], int) or isinstance(item[0], bool):
        raise InvalidActionPayload("a replayed pair is (seat, Action)")
    if not isinstance(item[1], Action):
        raise InvalidActionPayload("a replayed pair is (seat, Action)", "action")
    return item[0], item[1]


def replay(setup: dict[str, Any], actions: Iterable[Any]) -> GameState:
    """Rebuild a game from its setup and recorded actions.

    Args:
        setup: the record's setup (see :func:`games.engine.new_game`).
        actions: entries ``{"seat": int, "action": {...}}`` or ``(seat, Action)`` pairs, in order.

    Returns:
        The final state (equal to the live state of the same game).

    Raises:
        ReplayError: ``actions`` is not a list of entries, or an entry is malformed or illegal (``index``
            says which).
        ContentError: the setup is invalid.
    """
    state = new_game(setup)
    if isinstance(actions, str | bytes | dict) or not isinstance(actions, Iterable):
        raise ReplayError(0, InvalidActionPayload("a record's actions are a list of entries"), state)
    for index, item in enumerate(actions):
        try:
            seat, action = _pair(item) if isinstance(item, tuple) else _entry(item)
            state = apply(state, seat, action).state
        except (IllegalAction, InvalidActionPayload, InvalidSeat) as exc:
            raise ReplayError(index, exc, state) from exc
    return state


def read_record(record: Any) -> tuple[dict[str, Any], list[Any]]:
    """Check a record's envelope (``docs/game-record.md`` §1): an object whose ``format`` is
    :data:`RECORD_FORMAT` or :data:`RECORD_FORMAT_1`, with a ``setup`` object and an ``actions`` list.

    The rules edition is read by the format (issue 31): a ``medieval-mastery/2`` setup must name its
    ``options.rules_edition``; a ``medieval-mastery/1`` setup that names none is read as
    :data:`LEGACY_EDITION` (the reading the games it was written for were played with).

    Returns:
        ``(setup, actions)``, for :func:`replay` (which checks each of them); the setup names its edition.

    Raises:
        ContentError: not an object, a missing or other ``format``, a missing setup or action list, or a
            ``medieval-mastery/2`` setup that names no edition.
    """
    if not isinstance(record, dict):
        raise ContentError("a record must be an object")
    setup, actions = record.get("setup"), record.get("actions")
    if not isinstance(setup, dict) or not isinstance(actions, list):
        raise ContentError("a record needs a 'setup' object and an 'actions' list")
    form = record.get("format")
    if form not in (RECORD_FORMAT, RECORD_FORMAT_1):
        raise ContentError(f"record format must be {RECORD_FORMAT!r}, not {form!r}")
    options = setup.get("options") or {}
    if not isinstance(options, dict):
        raise ContentError("options must be an object")
    if "rules_edition" not in options:
        if form == RECORD_FORMAT:
            raise ContentError(f"a {RECORD_FORMAT} setup names its options.rules_edition")
        setup = {**setup, "options": {**options, "rules_edition": LEGACY_EDITION}}
    return setup, actions


def make_record(setup: dict[str, Any], actions: Iterable[tuple[int, Action]]) -> dict[str, Any]:
    """Return a JSON-safe record for ``setup`` and ``(seat, action)`` pairs."""
    return {
        "format": RECORD_FORMAT,
        "setup": setup,
        "actions": [{"seat": seat, "action": action.to_dict()} for seat, action in actions],
    }
