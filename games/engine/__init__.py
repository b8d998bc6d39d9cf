"""Medieval Mastery rules engine: pure Python, no I/O, no clock, no global randomness.

Public API (architecture §2)::

    state = new_game(setup)                       # R18–R25
    action = parse_action({"type": "advance", "to": "t12", "knights": 4})
    transition = apply(state, seat, action)       # -> Transition(state, events)
    pending(state) -> list[Prompt]                # who must decide now, with timeout actions
    legal_actions(state, seat) -> list[Action]
    view_for(state, viewer) -> View / redact_event(event, viewer)   # typed views: view_types
    replay(setup, actions) -> state
    to_dict(state) / from_dict(data) / state_hash(state)
    undo_barrier(before, seat, action, transition) -> Barrier | None   # may a step be taken back
    to_text(state, action, lang) / parse_text(state, seat, text, lang)   # the move notation
    territory_name / artefact_name / card_name(content, id, lang)        # component names, 4 languages
"""

from .actions import Action, card_id, parse_action
from .content import Board, Content, load_board, load_content
from .errors import ContentError, EngineError, ErrorCode, IllegalAction, InvalidActionPayload, InvalidSeat
from .kinds import (
    TURN_KINDS,
    ActionType,
    ArtefactType,
    Barrier,
    CardKind,
    EventType,
    Phase,
    PromptKind,
    Stage,
)
from .names import artefact_name, card_name, territory_name
from .notation import LANGS as NOTATION_LANGS
from .notation import (
    NotationError,
    legal_forms,
    move_menu,
    names_a_move,
    parse_text,
    place_names,
    to_text,
    verb_of,
)
from .prompts import Prompt, legal_actions, pending
from .record import RECORD_FORMAT, RECORD_FORMAT_1, ReplayError, make_record, read_record, replay
from .rules import (
    ADDED_OPTIONS,
    LEGACY_EDITION,
    OPTION_DEFAULTS,
    OPTION_FLAGS,
    OPTIONAL_RULES,
    RULES_EDITION,
    Transition,
    advance_targets,
    apply,
    current_options,
    current_phase,
    dice_in_use,
    holds_fracture,
    new_game,
    normalize_setup,
    supplied,
    victory_points,
)
from .state import GameState, canonical_json, from_dict, state_hash, to_dict
from .undo import undo_barrier
from .view import public_summary, redact_event, view_for
from .view_types import (
    ArtefactView,
    BattleSideView,
    BattleView,
    CardView,
    ChoiceView,
    ConflictView,
    ContentView,
    ControlView,
    DiscardedCardView,
    PlayerView,
    PromptView,
    PublicSummary,
    ScorePart,
    TableCardView,
    TileView,
    VictoryView,
    View,
    WindowView,
)

__all__ = [
    "ADDED_OPTIONS",
    "LEGACY_EDITION",
    "NOTATION_LANGS",
    "OPTIONAL_RULES",
    "OPTION_DEFAULTS",
    "OPTION_FLAGS",
    "RECORD_FORMAT",
    "RECORD_FORMAT_1",
    "RULES_EDITION",
    "TURN_KINDS",
    "Action",
    "ActionType",
    "ArtefactType",
    "ArtefactView",
    "Barrier",
    "BattleSideView",
    "BattleView",
    "Board",
    "CardKind",
    "CardView",
    "ChoiceView",
    "ConflictView",
    "Content",
    "ContentError",
    "ContentView",
    "ControlView",
    "DiscardedCardView",
    "EngineError",
    "ErrorCode",
    "EventType",
    "GameState",
    "IllegalAction",
    "InvalidActionPayload",
    "InvalidSeat",
    "NotationError",
    "Phase",
    "PlayerView",
    "Prompt",
    "PromptKind",
    "PromptView",
    "PublicSummary",
    "ReplayError",
    "ScorePart",
    "Stage",
    "TableCardView",
    "TileView",
    "Transition",
    "VictoryView",
    "View",
    "WindowView",
    "advance_targets",
    "apply",
    "artefact_name",
    "canonical_json",
    "card_id",
    "card_name",
    "current_options",
    "current_phase",
    "dice_in_use",
    "from_dict",
    "holds_fracture",
    "legal_actions",
    "legal_forms",
    "load_board",
    "load_content",
    "make_record",
    "move_menu",
    "names_a_move",
    "new_game",
    "normalize_setup",
    "parse_action",
    "parse_text",
    "pending",
    "place_names",
    "public_summary",
    "read_record",
    "redact_event",
    "replay",
    "state_hash",
    "supplied",
    "territory_name",
    "to_dict",
    "to_text",
    "undo_barrier",
    "verb_of",
    "victory_points",
    "view_for",
]
