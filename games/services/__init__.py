"""Every write to a game (architecture §3), one module per capability: :mod:`~games.services.lobby`,
:mod:`~games.services.play`, :mod:`~games.services.undo` (taking steps back),
:mod:`~games.services.projection` (prompts and deadlines), :mod:`~games.services.history` (verifying and
importing records), :mod:`~games.services.orders` (standing orders), :mod:`~games.services.ratings` and
:mod:`~games.services.outbox` (notification rows).

Each write runs in ``transaction.atomic()`` with the game row locked (``select_for_update``), checks
``expected_seq`` (or an open prompt key), lets the engine judge, then stores the new state, its
``ActionRecord`` rows, the Prompt projection and the outbox rows together. Functions are keyword-only and
named ``<noun>_<verb>``. Errors are :class:`ServiceError` subclasses with the HTTP status to answer with;
nothing is written when one is raised. This package re-exports the public names, so callers write
``from games import services`` and ``services.action_submit(...)``.
"""

from games.services.bot_turns import bots_play, bots_waiting
from games.services.errors import BadPayload, Conflict, Forbidden, Illegal, NotFound, ServiceError, StaleState
from games.services.history import IMPORT_MAX_ACTIONS, game_import, game_verify
from games.services.lines import pending_write
from games.services.lobby import (
    game_cancel,
    game_create,
    game_start,
    invitation_address,
    seat_add_bot,
    seat_join,
    seat_leave,
    seats_fill_with_bots,
    window_defaults,
)
from games.services.locks import game_state
from games.services.orders import standing_order_add, standing_order_delete
from games.services.pending import pending_clear, pending_list
from games.services.play import (
    MAX_BOT_ACTIONS,
    PARALLEL_KINDS,
    SubmitResult,
    action_submit,
    deadlines_sweep,
    payload_action,
    prompt_answer,
    prompt_expire,
    seat_return,
)
from games.services.projection import vacation_apply
from games.services.resign import seat_resign
from games.services.tutorial import GUIDED_TURN, tutorial_start
from games.services.undo import Takeback, UndoRefused, UndoResult, action_undo, takeback_for

__all__ = [
    "GUIDED_TURN",
    "IMPORT_MAX_ACTIONS",
    "MAX_BOT_ACTIONS",
    "PARALLEL_KINDS",
    "BadPayload",
    "Conflict",
    "Forbidden",
    "Illegal",
    "NotFound",
    "ServiceError",
    "StaleState",
    "SubmitResult",
    "Takeback",
    "UndoRefused",
    "UndoResult",
    "action_submit",
    "action_undo",
    "bots_play",
    "bots_waiting",
    "deadlines_sweep",
    "game_cancel",
    "game_create",
    "game_import",
    "game_start",
    "game_state",
    "game_verify",
    "invitation_address",
    "payload_action",
    "pending_clear",
    "pending_list",
    "pending_write",
    "prompt_answer",
    "prompt_expire",
    "seat_add_bot",
    "seat_join",
    "seat_leave",
    "seat_resign",
    "seat_return",
    "seats_fill_with_bots",
    "standing_order_add",
    "standing_order_delete",
    "takeback_for",
    "tutorial_start",
    "vacation_apply",
    "window_defaults",
]
