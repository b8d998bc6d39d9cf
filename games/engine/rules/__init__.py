"""The rules of Medieval Mastery (``medieval-mastery.md`` R1–R120 with rulings Q1–Q35), one module per
part of the rulebook:

- :mod:`.core`: the transaction :class:`Tx`, :class:`Transition`, table options, shared small facts;
- :mod:`.quantities`: the dice budget (R16), capacity (R12) and line of supply (R48–R49), each computed
  once;
- :mod:`.setup` (R18–R25), :mod:`.turn` (R26–R31, R93);
- :mod:`.resources`: cards, draw, discard, knights gained; Call to Arms, Tactical Advance (R32–R35, R98–R102);
- :mod:`.windows`: response windows and Fracture (R36–R37); :mod:`.crowns` (R39–R42);
- :mod:`.redistribution` (R43–R47); :mod:`.advance` (R50–R58); :mod:`.conquest` (R56, R78, R86);
- :mod:`.battle`: the order of battle as a table of named steps (R59–R85);
- :mod:`.victory`: victory and the optional rules' scoring (R103–R120);
- :mod:`.dispatch`: :func:`apply`, the one entry point for change.

Each action family keeps its check, its legal-action generator (``*_options``, used by
:func:`games.engine.prompts.legal_actions`) and its handler (``h_*``, used by :func:`apply`) in one module.
Component facts and numbers come from the state's :class:`~games.engine.content.Content` and
:class:`~games.engine.content.Board`.
"""

from .advance import advance_targets, check_advance
from .battle import combat_score, knight_part
from .core import (
    ADDED_OPTIONS,
    LEGACY_EDITION,
    OPTION_DEFAULTS,
    OPTION_FLAGS,
    OPTIONAL_RULES,
    RULES_EDITION,
    Transition,
    Tx,
    check_seat,
    current_options,
    current_phase,
    holds_fracture,
    option,
    teammates,
)
from .dispatch import apply
from .quantities import capacity, dice_budget, dice_in_use, supplied
from .redistribution import check_redistribution
from .setup import new_game, normalize_setup
from .victory import territory_vp, victory_points

__all__ = [
    "ADDED_OPTIONS",
    "LEGACY_EDITION",
    "OPTIONAL_RULES",
    "OPTION_DEFAULTS",
    "OPTION_FLAGS",
    "RULES_EDITION",
    "Transition",
    "Tx",
    "advance_targets",
    "apply",
    "capacity",
    "check_advance",
    "check_redistribution",
    "check_seat",
    "combat_score",
    "current_options",
    "current_phase",
    "dice_budget",
    "dice_in_use",
    "holds_fracture",
    "knight_part",
    "new_game",
    "normalize_setup",
    "option",
    "supplied",
    "teammates",
    "territory_vp",
    "victory_points",
]
