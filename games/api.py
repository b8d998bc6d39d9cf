"""JSON API under ``/api/`` (django-ninja); the OpenAPI schema is served at ``/api/openapi.json``.

Thin, like the pages (architecture §1): parse the request, call :mod:`games.selectors` or
:mod:`games.services`, render. Everything a response shows comes from the caller's
:class:`games.selectors.GameView` (the engine's ``view_for``) and from events redacted with
``engine.redact_event`` — never from ``Game.state``. Documented in ``docs/api.md``; the request and
response schemas are in :mod:`games.api_schemas`.

Status codes: 200 success; 400 malformed request (bad JSON, wrong types, unknown fields, out-of-range
numbers, malformed action payload); 401 not authenticated; 403 not your seat / CSRF failure; 404 unknown
game; 409 stale ``expected_seq`` or game not in progress; 413 body too large; 422 an action the rules
forbid; 503 the database connection was lost (``Retry-After``; issue 28). Every error body is
``{"error": code, "message": text, "params": {...}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from datetime import datetime
from typing import Any, cast

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from ninja import NinjaAPI, Status
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser
from ninja.security import HttpBearer
from ninja.security import SessionAuth as NinjaSessionAuth

from accounts.models import ApiToken, User
from games.api_schemas import (
    ERRORS,
    GAME_ERRORS,
    ActionIn,
    ChatCursor,
    ChatIn,
    ChatMessageOut,
    ChatOut,
    ChatReadIn,
    ChatReadOut,
    ErrorOut,
    GameId,
    GameOut,
    LegalOut,
    MyGamesOut,
    SubmitOut,
    UndoIn,
    UndoOut,
)
from games.chat import ChatLine, chat_view, read_mark_refusal
from games.engine import ActionType, redact_event
from games.messages import illegal_rule, service_message
from games.models import ActionRecord, Game
from games.rulebook import rule_anchor
from games.selectors import game_get, game_view, my_games, seat_shown, visible_to
from games.services import Illegal, NotFound, ServiceError, action_submit, action_undo, chat, payload_action
from games.services.chat_ids import message_pk, public_id
from games.web.forms import json_loads_strict
from mastery.unavailable import RETRY_AFTER_SECONDS, note_lost, unavailable_body

#: Longest bearer token looked up (issued tokens are 43 characters).
MAX_TOKEN_LENGTH = 200


# --------------------------------------------------------------------------------------------------------
# Authentication
# --------------------------------------------------------------------------------------------------------


class TokenAuth(HttpBearer):
    """``Authorization: Bearer <token>`` checked against :class:`accounts.models.ApiToken` (only the
    SHA-256 digest is stored). Bearer requests need no CSRF token: browsers never send them on their own."""

    def authenticate(self, request: HttpRequest, token: str) -> User | None:
        """Return the token's (active) user, or ``None`` so the next auth method is tried.

        Args:
            token: the text after ``Bearer``.
        """
        if not token or len(token) > MAX_TOKEN_LENGTH:
            return None
        return ApiToken.user_for(token)


class SessionAuth(NinjaSessionAuth):
    """Django session login (ninja's ``django_auth``) with its CSRF check kept for unsafe methods.

    The CSRF check runs only when a session user is present, so a request with no credentials at all is a
    clean 401 rather than a CSRF 403; a logged-in session without a valid CSRF token is still refused (403).
    """

    def __call__(self, request: HttpRequest) -> AbstractBaseUser | AnonymousUser | None:
        """Return the session user, or ``None`` when nobody is logged in.

        Raises:
            ninja.errors.HttpError: 403 when the CSRF check fails for a logged-in unsafe request.
        """
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        return super().__call__(request)


class StrictJsonParser(Parser):
    """ninja's JSON body parser without Python's non-standard ``NaN`` / ``Infinity`` (issue 12); a body
    that does not parse is ninja's 400 ``bad_request``."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        """The request body as JSON (ninja docs "Custom request parsers").

        The return type is ninja's own (``Parser.parse_body`` returns ``DictStrAny``). The body is not
        checked to be an object here, as ninja's parser does not check it: a body of another JSON type goes
        on to the request's schema, which refuses it (400 ``invalid_request``), hence the ``cast``.

        Raises:
            ValueError: not strict JSON.
        """
        return cast(dict[str, Any], json_loads_strict(request.body))


token_auth = TokenAuth()
session_auth = SessionAuth(csrf=True)

api = NinjaAPI(
    title="Medieval Mastery API",
    version="1",
    description=(
        "Play Medieval Mastery over HTTP: read a game as your seat sees it, list your legal actions, submit "
        "an action with `expected_seq`. Authenticate with a session cookie (plus the CSRF token on POST) or "
        "`Authorization: Bearer <token>`. Errors are `{error, message, params}`: 400 malformed, 401 not "
        "authenticated, 403 not your seat, 404 unknown game, 409 stale `expected_seq` or game not in "
        "progress, 422 illegal move, 503 `unavailable` (the database connection was lost: retry after "
        "`Retry-After` seconds). See docs/api.md."
    ),
    urls_namespace="api",
    openapi_url="/openapi.json",
    auth=[token_auth, session_auth],
    parser=StrictJsonParser(),
)


# --------------------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------------------


def _error(
    request: HttpRequest, status: int, code: str, message: str, params: Mapping[str, object] | None = None
) -> HttpResponse:
    body = {"error": code, "message": message, "params": dict(params or {})}
    return api.create_response(request, body, status=status)


@api.exception_handler(ServiceError)
def service_error(request: HttpRequest, exc: ServiceError) -> HttpResponse:
    """A refused write or read (:mod:`games.services`): its own status and stable code, the translated
    sentence the page shows for it (:func:`games.messages.service_message`) and its params (an illegal
    move's stable engine code is ``params.engine_code``, and ``params.rule_url`` the section of the rules
    reference that explains the refusing rule, issue 15)."""
    params = dict(exc.params)
    if isinstance(exc, Illegal):
        anchor = rule_anchor(illegal_rule(params))
        if anchor:
            params["rule_url"] = f"{reverse('games:rules')}#{anchor}"
    return _error(request, exc.status, exc.code, service_message(exc), params)


@api.exception_handler(ValidationError)
def validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    """Request validation failed (wrong types, unknown fields, out-of-range numbers): 400, not ninja's 422,
    so that 422 always means "the rules forbid this move". Only location, message and type are echoed."""
    errors = [
        {
            "loc": [str(part) for part in e.get("loc", ())],
            "msg": str(e.get("msg", "")),
            "type": str(e.get("type", "")),
        }
        for e in exc.errors
    ]
    return _error(request, 400, "invalid_request", _("The request is malformed."), {"errors": errors})


_HTTP_CODES = {400: "bad_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found"}


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    """ninja's own refusals: unparsable body (400), missing credentials (401), CSRF failure (403)."""
    if isinstance(exc, AuthenticationError):
        response = _error(
            request,
            401,
            "unauthenticated",
            _("Authentication required: log in or send Authorization: Bearer <token>."),
        )
        response["WWW-Authenticate"] = "Bearer"
        return response
    return _error(request, exc.status_code, _HTTP_CODES.get(exc.status_code, "http_error"), str(exc))


@api.exception_handler(SuspiciousOperation)
def suspicious(request: HttpRequest, exc: SuspiciousOperation) -> HttpResponse:
    """A body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413) or another request Django refuses as suspicious
    (400), answered as JSON rather than Django's HTML page."""
    if isinstance(exc, RequestDataTooBig):
        return _error(request, 413, "request_too_large", _("The request body is too large."))
    return _error(request, 400, "bad_request", _("The request is malformed."))


@api.exception_handler(Http404)
def not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    """Anything raising ``Http404`` inside the API."""
    return _error(request, 404, "not_found", _("Not found."))


@api.exception_handler(OperationalError)
@api.exception_handler(InterfaceError)
def database_unavailable(request: HttpRequest, exc: DatabaseError) -> HttpResponse:
    """A lost database connection inside an endpoint or an auth check (issue 28): 503 ``unavailable`` with
    ``Retry-After``, nothing of the error shown (django-ninja docs "Handling errors"). The request is marked
    so that :class:`mastery.unavailable.DatabaseUnavailableMiddleware` runs a GET once more on a fresh
    connection; a POST is not run again (its ``expected_seq`` makes the client's retry safe). One raised in
    a middleware before the endpoint gets the same body from ``handler500``."""
    note_lost(request, exc)
    body = unavailable_body()
    response = _error(request, 503, body["error"], body["message"])
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


# --------------------------------------------------------------------------------------------------------
# Endpoints
# --------------------------------------------------------------------------------------------------------


def _user(request: HttpRequest) -> User:
    return cast(User, request.auth)  # type: ignore[attr-defined]


def _game(request: HttpRequest, game_id: int) -> Game:
    """The game, or 404 when it does not exist or is private and the caller has no seat in it."""
    game = game_get(game_id)
    if game is None or not visible_to(game, _user(request)):
        raise NotFound("no such game", game_id=game_id)
    return game


@api.get(
    "/games/{game_id}",
    response={200: GameOut, **GAME_ERRORS},
    operation_id="game_view",
    summary="A game as you see it",
    tags=["games"],
)
def game_detail(request: HttpRequest, game_id: GameId) -> dict[str, object]:
    """The game as the caller sees it: the engine's view for the caller's seat (spectator view without a
    seat), the caller's open prompts, whom the game waits for and the redacted log, newest first.

    Raises:
        NotFound: 404, no such game.
    """
    game = _game(request, game_id)
    gv = game_view(game, _user(request))
    deadline = gv.deadlines.get(gv.seat) if gv.seat is not None else None
    return {
        "id": game.pk,
        "title": game.title,
        "status": game.status,
        "seq": game.seq,
        "players": [
            {"seat": s.number, "name": s.name, "bot": s.is_bot, "level": s.level if s.is_bot else None}
            for s in gv.seats
        ],
        "seat": gv.seat,
        "view": gv.view,
        "prompts": [
            {
                "kind": p["kind"],
                "key": p["key"],
                "deadline": p["deadline"],
                "deadline_at": deadline,
                "detail": p.get("detail", {}),
            }
            for p in gv.my_prompts
        ],
        "waiting_for": gv.waiting_for,
        "log": gv.log,
    }


@api.get(
    "/games/{game_id}/legal",
    response={200: LegalOut, **GAME_ERRORS},
    operation_id="game_legal",
    summary="Your legal actions",
    tags=["games"],
)
def game_legal(request: HttpRequest, game_id: GameId) -> dict[str, object]:
    """The caller's legal actions as complete payloads (empty for spectators and games not in progress).

    Raises:
        NotFound: 404, no such game.
    """
    game = _game(request, game_id)
    gv = game_view(game, _user(request), with_log=False)
    actions = gv.legal if game.status == Game.Status.ACTIVE else []
    return {"seq": game.seq, "seat": gv.seat, "actions": [a.to_dict() for a in actions]}


@api.post(
    "/games/{game_id}/actions",
    response={200: SubmitOut, **GAME_ERRORS, 403: ErrorOut, 409: ErrorOut, 422: ErrorOut},
    operation_id="action_submit",
    summary="Submit an action",
    tags=["games"],
    exclude_unset=True,
)
def action_post(request: HttpRequest, game_id: GameId, body: ActionIn) -> dict[str, object]:
    """Apply one action for the caller's seat, then any bot moves it triggers.

    Raises:
        BadPayload: 400, malformed action. NotFound: 404. Forbidden: 403, no seat in this game.
        StaleState: 409, ``expected_seq`` is not the game's ``seq`` (``params.seq`` is the current one).
        Conflict: 409, the game is not in progress. Illegal: 422, the rules forbid the action.
    """
    result = action_submit(
        game_id=game_id,
        user=_user(request),
        action=payload_action(body.action),
        expected_seq=body.expected_seq,
        prompt_key=body.prompt_key,
        source=ActionRecord.Source.API,
    )
    mine = result.records[0].seat if result.records else None
    applied: list[dict[str, object]] = []
    for record in result.records:
        kind = str(record.payload.get("type", ""))
        entry: dict[str, object] = {
            "seq": record.seq,
            "seat": seat_shown(record.seat, [redact_event(ev, mine) for ev in record.events]),
            "source": _public_source(record, mine, kind),
            "type": kind,
        }
        if record.seat is not None and record.seat == mine:
            entry["action"] = record.payload
        applied.append(entry)
    return {"seq": result.game.seq, "applied": applied}


@api.post(
    "/games/{game_id}/undo",
    response={200: UndoOut, **GAME_ERRORS, 403: ErrorOut, 409: ErrorOut},
    operation_id="action_undo",
    summary="Undo your last steps",
    tags=["games"],
)
def undo_post(request: HttpRequest, game_id: GameId, body: UndoIn) -> dict[str, object]:
    """Take back the caller's own steps of the current turn, back to the last new information (a card
    drawn, a die rolled, a card revealed, a window opened, another player's answer; issue 16). The undone
    records are kept, marked undone, and left out of the log and exports.

    Raises:
        NotFound: 404. Forbidden: 403, no seat in this game. StaleState: 409, ``expected_seq`` is not the
        game's ``seq``. UndoRefused: 409 ``undo_refused``, fewer steps can be taken back
        (``params.steps``; ``params.barrier`` names the new information in the way).
    """
    result = action_undo(
        game_id=game_id, user=_user(request), expected_seq=body.expected_seq, steps=body.steps
    )
    return {"seq": result.game.seq, "undone": [r.seq for r in result.undone]}


def _line(line: ChatLine) -> dict[str, object]:
    # the schema keeps its own fields only; the key never leaves the server (issue 28)
    return {**asdict(line), "id": public_id(line.id), "channel": line.key}


@api.get(
    "/games/{game_id}/chat",
    response={200: ChatOut, **GAME_ERRORS},
    operation_id="chat_read",
    summary="Read the chat",
    tags=["chat"],
)
def chat_get(
    request: HttpRequest, game_id: GameId, channel: str = "table", before: ChatCursor | None = None
) -> dict[str, object]:
    """The newest messages of one of the caller's chat channels (``table``, ``team``, ``p<seat>``), 50 at
    a time (``before``: the page before the message with that id), with the caller's channels and unread
    counts. Reading writes nothing: ``POST …/chat/read`` marks a channel read (issue 31 §4). Spectators
    read the table once the game is over (or during it if the table allows); private messages only their
    two players (issue 19). Message ids are opaque (:mod:`games.services.chat_ids`, issue 28): they count
    nothing.

    Raises:
        NotFound: 404, no such game, or a ``before`` of the id's form that no key of the site made ("no
        such message"). ValidationError: 400 ``invalid_request``, a ``before`` not of an id's form.
    """
    game = _game(request, game_id)
    user = _user(request)
    key = None if before is None else message_pk(before)
    if before is not None and key is None:
        raise NotFound("no such message")
    view = chat_view(game, user, channel, key)
    return {
        "channels": [
            {"key": c.key, "label": c.label, "unread": 0 if c.key == view.key else c.unread, "post": c.post}
            for c in view.channels
        ],
        "channel": view.key,
        "messages": [_line(line) for line in view.lines],
        "older": None if view.older is None else public_id(view.older),
        "version": public_id(view.version),
    }


@api.post(
    "/games/{game_id}/chat",
    response={201: ChatMessageOut, **GAME_ERRORS, 403: ErrorOut, 409: ErrorOut, 429: ErrorOut},
    operation_id="chat_post",
    summary="Post a chat message",
    tags=["chat"],
)
def chat_post(request: HttpRequest, game_id: GameId, body: ChatIn) -> Status[dict[str, object]]:
    """Post plain text to one of the caller's channels.

    Raises:
        BadPayload: 400, empty or over 2,000 characters, or not one of the caller's channels. NotFound:
        404. Forbidden: 403, no seat in this game, or chat suspended. Conflict: 409, the game has not
        started (issue 19). RateLimited: 429, more than 10 messages a minute or 200 a day (``params.wait``:
        seconds to wait).
    """
    user = _user(request)
    message = chat.chat_post(game_id=game_id, user=user, channel=body.channel, text=body.text)
    line = ChatLine(
        message.pk,
        body.channel,
        str(user),
        message.author_seat,
        message.text,
        message.created_at,
        True,
        False,
    )
    return Status(201, _line(line))


@api.post(
    "/games/{game_id}/chat/read",
    response={200: ChatReadOut, **GAME_ERRORS},
    operation_id="chat_mark_read",
    summary="Mark a chat channel read",
    tags=["chat"],
)
def chat_read_mark(request: HttpRequest, game_id: GameId, body: ChatReadIn) -> dict[str, object]:
    """Mark one of the caller's channels read up to message ``last`` (the unread counts of ``GET …/chat``
    then leave it out). Marks never go backwards.

    Raises:
        NotFound: 404, no such game, not one of the caller's channels, or a ``last`` that no key of the
        site made or that is newer than anything the caller may read there. ValidationError: 400
        ``invalid_request``, a body of the wrong form.
    """
    game = _game(request, game_id)
    user = _user(request)
    last = message_pk(body.last)
    refusal = read_mark_refusal(game, user, body.channel, 0 if last is None else last)
    if refusal == "channel":
        raise NotFound("no such chat channel")
    if refusal or last is None:
        raise NotFound("no such message")
    chat.chat_mark_read(user=user, game=game, channel=body.channel, last_id=last)
    return {"channel": body.channel, "last": body.last}


def _public_source(record: ActionRecord, mine: int | None, kind: str) -> str:
    """The source of a record as the submitter may see it: their own as stored; another seat's answer to
    a response window as ``window``, because ``server`` (no Fracture to play), ``standing`` or ``timeout``
    would tell what that seat holds (issue 14)."""
    if record.seat != mine and kind == ActionType.RESPOND:
        return "window"
    return str(record.source)


@api.get(
    "/me/games",
    response={200: MyGamesOut, **ERRORS},
    operation_id="my_games",
    summary="Your games",
    tags=["me"],
)
def me_games(request: HttpRequest) -> dict[str, object]:
    """The caller's games: those waiting for them (soonest deadline first), then others' turn, then open
    lobbies they sit in, then finished games."""
    user = _user(request)
    lists = my_games(user)
    waiting = {game.pk for game, _deadline in lists.waiting_for_me}
    ordered: list[tuple[Game, datetime | None]] = list(lists.waiting_for_me)
    ordered += [(g, None) for g in (*lists.others_turn, *lists.open_lobbies, *lists.finished)]
    games = []
    for game, deadline in ordered:
        seat = next((s.number for s in game.seats.all() if s.user_id == user.pk), None)
        if seat is None:  # a public lobby the caller could join: not one of their games
            continue
        games.append(
            {
                "id": game.pk,
                "title": game.title,
                "status": game.status,
                "seq": game.seq,
                "seat": seat,
                "waiting_for_me": game.pk in waiting,
                "deadline_at": deadline,
            }
        )
    return {"games": games}
