"""Typed errors of the rules engine.

Every refusal carries a stable machine code (:class:`ErrorCode`) and JSON-safe parameters; human wording
(translated) lives outside the engine and is keyed by the code.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Stable codes of :class:`IllegalAction`. Values never change once published (clients key on them)."""

    GAME_OVER = "game_over"
    NOT_YOUR_DECISION = "not_your_decision"
    WRONG_PHASE = "wrong_phase"
    ALREADY_ANSWERED = "already_answered"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    CARD_WRONG_KIND = "card_wrong_kind"
    NO_FRACTURE_IN_HAND = "no_fracture_in_hand"
    INVALID_FRACTURE_TARGET = "invalid_fracture_target"
    CROWN_UNAVAILABLE = "crown_unavailable"
    CROWN_ALREADY_USED = "crown_already_used"
    CROWN_BAD_CHOICE = "crown_bad_choice"
    NO_MANOEUVRE_LEFT = "no_manoeuvre_left"
    UNKNOWN_LOCATION = "unknown_location"
    NOT_YOUR_LOCATION = "not_your_location"
    LOCATION_UNSUPPLIED = "location_unsupplied"
    TERRITORY_ABANDONED = "territory_abandoned"
    OVER_CAPACITY = "over_capacity"
    NOT_ENOUGH_KNIGHTS = "not_enough_knights"
    DICE_BUDGET = "dice_budget"
    BAD_KNIGHT_COUNT = "bad_knight_count"
    TARGET_NOT_REACHABLE = "target_not_reachable"
    TARGET_NEXT_TO_UNSUPPLIED = "target_next_to_unsupplied"
    TARGET_NOT_ENTERABLE = "target_not_enterable"
    TARGET_OWN = "target_own"
    TARGET_TEAMMATE = "target_teammate"
    MUST_PLAY_CONFLICT = "must_play_conflict"
    SUPPORT_FORBIDDEN = "support_forbidden"
    BAD_ORDER = "bad_order"
    BAD_CHOICE = "bad_choice"
    # Why a whole family of moves is unavailable now (:func:`games.engine.blocked`, issue 31 §2):
    NO_ADVANCE_TARGET = "no_advance_target"  # R53: nothing within reach to advance into
    NO_TERRITORY = "no_territory"  # R43: no territory controlled, so nothing to redistribute among
    NO_CROWN_TARGET = "no_crown_target"  # R41, Q31: the crown has no face-up artefact to act on
    NO_FRACTURE_TARGET = "no_fracture_target"  # R36: no other player has a face-up artefact
    NO_CONFLICT_CARD = "no_conflict_card"  # R68: no conflict card in hand, the battle counts a 0


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class InvalidActionPayload(EngineError):
    """A payload is not a well-formed action (wrong type tag, missing or mistyped field).

    Args:
        message: English description for logs and API clients.
        field: the offending field name, or ``None`` for the payload as a whole.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_dict(self) -> dict[str, str | None]:
        """Return ``{"error": "invalid_payload", "message": str, "field": str | None}``."""
        return {"error": "invalid_payload", "message": self.message, "field": self.field}


class InvalidSeat(EngineError):
    """A seat argument is not a seat of this game: not an ``int`` (booleans, floats and strings are refused,
    never coerced) or out of ``0..players-1`` (``None``, the spectator, only where a viewer is accepted).

    Args:
        seat: the value given (kept for logs; ``repr`` of it is in the message).
        players: the game's player count.
    """

    def __init__(self, seat: object, players: int) -> None:
        self.message = f"seat must be an integer from 0 to {players - 1}, not {seat!r}"
        super().__init__(self.message)
        self.seat = seat
        self.players = players

    def to_dict(self) -> dict[str, str]:
        """Return ``{"error": "invalid_seat", "message": str}``."""
        return {"error": "invalid_seat", "message": self.message}


class IllegalAction(EngineError):
    """A well-formed action that the rules forbid in this state. The state is left unchanged.

    Args:
        code: the stable :class:`ErrorCode`.
        **params: JSON-safe details (ints and strings) for the translated message, e.g. ``rule="R46"``.
    """

    def __init__(self, code: ErrorCode, **params: int | str | None) -> None:
        super().__init__(f"{code.value} {params}" if params else code.value)
        self.code = code
        self.params = params

    def to_dict(self) -> dict[str, object]:
        """Return ``{"error": code, "params": {...}}`` (JSON-safe)."""
        return {"error": self.code.value, "params": dict(self.params)}


class ContentError(EngineError):
    """A content set, layout or setup is invalid (e.g. a layout breaking ruling Q2)."""
