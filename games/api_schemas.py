"""Request and response schemas of the JSON API (:mod:`games.api`): the pydantic models (ninja ``Schema``
subclasses) with their field types, limits and descriptions, the error body every refusal uses, the error
responses each endpoint may give, and the path and query parameter types with their validators.

The class names are the names of the schemas in the OpenAPI document (``/api/openapi.json``), so renaming
one changes the published API. The JSON they describe is documented in ``docs/api.md``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from annotated_types import Ge, Le
from ninja import Path, Query, Schema
from pydantic import BeforeValidator, ConfigDict, Field, StrictInt, WithJsonSchema

from games.engine import ActionType
from games.engine.action_schema import action_json_schema
from games.selectors import LOG_LENGTH

#: Largest id or sequence number accepted (a signed 64-bit integer, the database's ``bigint``).
MAX_INT = 2**63 - 1

ACTION_TYPES_DOC = """An action payload: a JSON object with a `type` tag and that type's fields
(`docs/game-record.md` §4). Types:

* free window (active player): `call_to_arms`, `tactical_advance`, `fracture` {`target`},
  `use_crown` {`player`?, `artefact`?, `card`?}, `end_turn`;
* manoeuvres: `redistribute` {`moves`: [{`from`, `to`, `knights`}]}, `advance` {`to`, `knights`},
  `decline_advance`, `finish_redistribution`;
* response windows: `respond` {`fracture`: [artefact ids, ranked]} (`[]` passes);
* battle: `choose_conflict` {`card`}, `play_support` {`cards`}, `pass_support`;
* choices: `discard_choice` {`card` or null}, `insight_order` {`order`}, `prosperity_choice` {`discard`},
  `fear_choice` {`use`}.

`GET /api/games/{game_id}/legal` lists complete legal payloads for the caller."""


# --------------------------------------------------------------------------------------------------------
# Validators
# --------------------------------------------------------------------------------------------------------


def _whole_number(value: object) -> object:
    """JSON has one number type, so ``5.0`` is the integer 5 (as JSON Schema's ``integer`` says); ``1.5``,
    ``true`` and ``"5"`` stay refused by ``StrictInt``."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_INT:
        return int(value)
    return value


def _digits_only(value: object) -> object:
    """Path ids are written in plain decimal digits: pydantic's lax mode would read ``" 1"``, ``"+1"`` or
    ``"1_0"`` as numbers, and ``/api/games/%201`` must not be game 1 (issue 12).

    Raises:
        ValueError: a string that is not 1 to 19 ASCII digits.
    """
    if isinstance(value, str) and not (value.isascii() and value.isdigit() and len(value) <= 19):
        raise ValueError("must be written in decimal digits only")
    return value


# --------------------------------------------------------------------------------------------------------
# Schemas
# --------------------------------------------------------------------------------------------------------


class ErrorOut(Schema):
    """Every error response: a stable machine ``error`` code, an English ``message`` and ``params``."""

    error: str = Field(description="stable machine code, e.g. `stale_state`, `illegal_action`")
    message: str
    params: dict[str, object] = Field(
        description="details: `seq` (409 stale), `engine_code` and the rule's parameters (422), "
        "`field` (400 payload), `errors` (400 request validation)"
    )


class PlayerOut(Schema):
    """A seat at the table (public)."""

    seat: int = Field(description="seat number (clockwise turn order once started)")
    name: str = Field(description="display name; a bot's shows its level, e.g. `Bot 1 (hard)`")
    bot: bool
    level: str | None = Field(default=None, description="a bot's level: `easy`, `normal` or `hard`")


class PromptOut(Schema):
    """A decision the game waits for from the caller."""

    kind: str = Field(description="turn, manoeuvre, vitality, response, conflict, support, may_discard, …")
    key: str = Field(description="stable prompt key; send it as `prompt_key` to answer out of turn")
    deadline: str = Field(description="deadline class: `turn` or `response`")
    deadline_at: datetime | None = Field(description="when the timeout action is applied (ISO 8601)")
    detail: dict[str, object] = Field(description="extra facts, e.g. window kind and targets")


class LogEntryOut(Schema):
    """One recorded action as the caller may see it: redacted engine events and their wording."""

    seq: int
    at: datetime
    seat: int | None = Field(
        description="the acting seat (null for system actions and for another seat's answer to a sealed "
        "response window, which stays anonymous)"
    )
    events: list[dict[str, object]] = Field(description="engine events redacted for the caller")
    lines: list[str] = Field(description="the events in words")


class GameOut(Schema):
    """A game as the caller sees it."""

    id: int
    title: str
    status: Literal["lobby", "active", "finished"]
    seq: int = Field(
        description="the game's version: grows by one with every recorded action and every undo; send it "
        "back as `expected_seq`"
    )
    players: list[PlayerOut]
    seat: int | None = Field(description="the caller's seat, null for a spectator")
    view: dict[str, object] | None = Field(
        description="the engine's view for the caller's seat (spectator view without a seat); null before "
        "the start. Only the caller's own hand appears; other hands are counts."
    )
    prompts: list[PromptOut] = Field(description="the caller's open decisions")
    waiting_for: list[str] = Field(description="names of the other players the game waits for")
    log: list[LogEntryOut] = Field(description=f"newest first, at most {LOG_LENGTH} actions")


class LegalOut(Schema):
    """The caller's legal actions."""

    seq: int
    seat: int | None
    actions: list[dict[str, object]] = Field(
        description="complete legal action payloads (empty for spectators and games not in progress)"
    )


class ActionIn(Schema):
    """Submit one action for the caller's seat."""

    model_config = ConfigDict(extra="forbid")

    expected_seq: Annotated[StrictInt, Ge(0), Le(MAX_INT), BeforeValidator(_whole_number)] = Field(
        description="the game's `seq` you acted on; a different value is refused with 409 unless "
        "`prompt_key` names a decision still open for you"
    )
    action: Annotated[dict[str, object], WithJsonSchema(action_json_schema())] = Field(
        description=ACTION_TYPES_DOC,
        examples=[
            {"type": ActionType.END_TURN.value},
            {"type": ActionType.ADVANCE.value, "to": "t5", "knights": 6},
        ],
    )
    prompt_key: Annotated[str, Field(min_length=1, max_length=80)] | None = Field(
        default=None, description="key of the open prompt answered (out-of-turn answers)"
    )


class UndoIn(Schema):
    """Take back your last steps of the turn (issue 16)."""

    model_config = ConfigDict(extra="forbid")

    expected_seq: Annotated[StrictInt, Ge(0), Le(MAX_INT), BeforeValidator(_whole_number)] = Field(
        description="the game's `seq` you acted on; a different value is refused with 409"
    )
    steps: Annotated[StrictInt, Ge(1), Le(100), BeforeValidator(_whole_number)] = Field(
        default=1, description="how many of your steps to take back, newest first"
    )


class UndoOut(Schema):
    """The result of an undo."""

    seq: int = Field(description="the game's new `seq` (an undo uses up one)")
    undone: list[int] = Field(description="the `seq` of each step taken back, newest first")


class ChatIn(Schema):
    """A chat message to post (issue 19)."""

    model_config = ConfigDict(extra="forbid")

    channel: str = Field(
        pattern=r"^(table|team|p[0-9])$",
        description="`table`, `team` (Allegiance) or `p<seat>` (private, with that seat); one you do not "
        "have is refused with 404",
    )
    text: str = Field(
        max_length=2000, pattern=r"\S", description="plain text, 1 to 2,000 characters, not only spaces"
    )


#: What a chat message's public id looks like (issue 28): 16 lower-case hex digits.
CHAT_ID_PATTERN = r"^[0-9a-f]{16}$"


class ChatReadIn(Schema):
    """Mark a channel read up to a message (issue 31 §4: reading the chat is a GET and writes nothing)."""

    model_config = ConfigDict(extra="forbid")

    channel: str = Field(
        pattern=r"^(table|team|p[0-9])$", description="one of your channels (`table`, `team`, `p<seat>`)"
    )
    last: str = Field(
        pattern=CHAT_ID_PATTERN, description="the `id` of the newest message you have read in that channel"
    )


class ChatReadOut(Schema):
    """The channel's read mark after the call (marks never go backwards)."""

    channel: str
    last: str


_CHAT_ID_DOC = (
    "an opaque message id (16 lower-case hex digits): the same for the same message, but neither its order "
    "nor its difference to another id means anything"
)


class ChatMessageOut(Schema):
    """One chat message as the caller may read it (times in UTC, ISO 8601)."""

    id: str = Field(pattern=CHAT_ID_PATTERN, description=_CHAT_ID_DOC)
    channel: str = Field(description="the channel key as the caller names it")
    author: str
    seat: int = Field(description="the author's seat")
    text: str = Field(description="plain text; never HTML")
    at: datetime
    mine: bool
    mentions_me: bool = Field(description="the text mentions `@<your name>`")


class ChatChannelOut(Schema):
    """One of the caller's chat channels."""

    key: str
    label: str
    unread: int = Field(description="messages by others not yet read")
    post: bool = Field(description="whether the caller may post here")


class ChatOut(Schema):
    """A page of one chat channel, oldest first, with the caller's channels."""

    channels: list[ChatChannelOut]
    channel: str
    messages: list[ChatMessageOut]
    older: str | None = Field(
        pattern=CHAT_ID_PATTERN,
        description="the id of the oldest message shown: pass it as `before` for the previous page; null: no "
        "older messages",
    )
    version: str = Field(
        pattern=CHAT_ID_PATTERN,
        description="the id of the newest message the caller may read in any of their channels (when they "
        "have none, an id that names no message): compare it for equality only",
    )


class AppliedOut(Schema):
    """One stored record. ``action`` is given only for the caller's own records."""

    seq: int
    seat: int | None = Field(
        description="the seat that acted; null for another seat's answer to a sealed response window, "
        "which stays anonymous until the close as in the log (it would tell who holds Fracture)"
    )
    source: str = Field(
        description="web, email, api, timeout, bot, standing or server; another seat's answer to a response "
        "window shows `window` (how it was answered would tell who holds Fracture)"
    )
    type: str = Field(description="the action type")
    action: dict[str, object] | None = Field(default=None, description="the payload (own records only)")


class SubmitOut(Schema):
    """The result of a submitted action."""

    seq: int = Field(description="the game's new `seq`")
    applied: list[AppliedOut] = Field(description="your action, then the bot actions it triggered")


class MyGameOut(Schema):
    """One of the caller's games."""

    id: int
    title: str
    status: Literal["lobby", "active", "finished"]
    seq: int
    seat: int = Field(description="the caller's seat")
    waiting_for_me: bool
    deadline_at: datetime | None = Field(description="the caller's earliest deadline, when waited for")


class MyGamesOut(Schema):
    """The caller's games: those waiting for them first, then others' turn, lobbies, finished."""

    games: list[MyGameOut]


#: Every endpoint may answer these; 503 `unavailable` when the database connection is lost (issue 28).
ERRORS: dict[int, type[Schema]] = {400: ErrorOut, 401: ErrorOut, 503: ErrorOut}
GAME_ERRORS: dict[int, type[Schema]] = {**ERRORS, 404: ErrorOut}


# --------------------------------------------------------------------------------------------------------
# Path and query parameters
# --------------------------------------------------------------------------------------------------------


#: A game id in the URL: decimal digits only, 1 to ``MAX_INT``.
GameId = Annotated[
    Annotated[int, BeforeValidator(_digits_only)], Path(ge=1, le=MAX_INT, description="the game's id")
]


#: A ``before`` cursor: a message id from ``GET /games/{game_id}/chat`` (issue 28), decoded on the server;
#: one not of an id's form is 400, one of its form that the site did not make is 404 "no such message".
ChatCursor = Annotated[str, Query(pattern=CHAT_ID_PATTERN, description="a message's `id`, or `older`")]
