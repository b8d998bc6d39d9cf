"""The errors of the services: each carries the HTTP status a view or the API answers with and a stable
machine code; nothing is written when one is raised (architecture §3)."""

from __future__ import annotations

from typing import Any

# NUL, the one character PostgreSQL's text and jsonb columns cannot store (U+0000): free text holding it is
# refused with :class:`BadPayload` (or, in received mail, removed) before it reaches a column or a lookup.
from mastery.text import NUL as NUL  # re-exported: it lives in mastery.text, shared with the mail reader


class ServiceError(Exception):
    """A refused write. ``status`` is the HTTP status to answer with; ``code`` a stable machine code."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message)
        self.message = message
        self.params = params


class NotFound(ServiceError):
    """No such game (404)."""

    status = 404
    code = "not_found"


class Forbidden(ServiceError):
    """The user may not do this here, e.g. act in someone else's seat (403)."""

    status = 403
    code = "forbidden"


class Conflict(ServiceError):
    """The game is not in a state that allows this (409), e.g. joining a started game."""

    status = 409
    code = "conflict"


class StaleState(Conflict):
    """``expected_seq`` is behind the game (409): the action was not applied; reload and retry."""

    code = "stale_state"


class BadPayload(ServiceError):
    """The action payload is malformed (400)."""

    status = 400
    code = "invalid_payload"


class Illegal(ServiceError):
    """The rules forbid the action now (422). ``params`` carries the engine's code and parameters."""

    status = 422
    code = "illegal_action"
