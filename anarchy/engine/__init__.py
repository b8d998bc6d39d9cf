"""The Anarchy's Castle Defence: the pure rules engine and solver (issue 33).

No framework imports (an import-linter contract). Rules are numbered in docs/anarchy/castle-defence.md
(D1–D30); every public function cites them. Errors raised on bad input are :class:`AnarchyError`\\ s.
"""

from .cards import CORNERS, LETTERS, SIDES, AttackType, Card, Fortification, Tactic, cards_of, deck
from .errors import AnarchyError, InvalidDeployment, InvalidPosition, NotationError, RecordError
from .narrate import Resolution, SideStep, Step, describe, narrate
from .notation import parse_deployment, write_deployment
from .position import Deployment, Position, Slot, row_cards
from .practice import Puzzle, daily_puzzle, practice_values
from .records import position_from_record, position_to_record
from .resolve import Damage, Move
from .solver import Expectation, Solution, evaluate, reveals, solve

__all__ = [
    "CORNERS",
    "LETTERS",
    "SIDES",
    "AnarchyError",
    "AttackType",
    "Card",
    "Damage",
    "Deployment",
    "Expectation",
    "Fortification",
    "InvalidDeployment",
    "InvalidPosition",
    "Move",
    "NotationError",
    "Position",
    "Puzzle",
    "RecordError",
    "Resolution",
    "SideStep",
    "Slot",
    "Solution",
    "Step",
    "Tactic",
    "cards_of",
    "daily_puzzle",
    "deck",
    "describe",
    "evaluate",
    "narrate",
    "parse_deployment",
    "position_from_record",
    "position_to_record",
    "practice_values",
    "reveals",
    "row_cards",
    "solve",
    "write_deployment",
]
