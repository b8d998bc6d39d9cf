"""The engine's typed errors: everything it raises on bad input is one of these."""

from __future__ import annotations


class AnarchyError(ValueError):
    """Base of the Castle Defence engine's errors: bad input, refused with a reason and nothing changed.

    ``code`` is a stable machine word (``"bad_round"``, ``"unknown_card"``, …); ``str(error)`` is the
    English reason.
    """

    def __init__(self, code: str, message: str) -> None:
        """``code``: a stable word for the refusal; ``message``: the English reason."""
        super().__init__(message)
        self.code = code


class InvalidPosition(AnarchyError):
    """A position that breaks the contract (docs/anarchy/castle-defence.md): a bad round, a negative count,
    a row that is not the round's, an unknown or repeated card."""


class InvalidDeployment(AnarchyError):
    """A deployment that does not place exactly the position's Craftsmen, Soldiers and Knights (D3)."""


class NotationError(AnarchyError):
    """A deployment written in the short notation (docs/anarchy/notation.md) that cannot be read."""


class RecordError(AnarchyError):
    """A record (JSON) that is not a Castle Defence record of a known format version."""
