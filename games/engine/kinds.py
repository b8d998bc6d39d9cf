"""Enumerations shared by the engine and its callers (architecture §2 "Actions").

Both are :class:`enum.StrEnum`, so a member equals, hashes, formats and serialises to JSON exactly like
its string value: ``ActionType.END_TURN == "end_turn"`` and ``json.dumps(PromptKind.TURN) == '"turn"'``.
Callers (the Django side) import these instead of spelling the strings.
"""

from __future__ import annotations

from enum import StrEnum


class ActionType(StrEnum):
    """The ``"type"`` tag of every action's JSON payload (``docs/game-record.md``, R27–R102)."""

    CALL_TO_ARMS = "call_to_arms"  # R34
    TACTICAL_ADVANCE = "tactical_advance"  # R35
    FRACTURE = "fracture"  # R36
    USE_CROWN = "use_crown"  # R39–R41
    REDISTRIBUTE = "redistribute"  # R43–R47
    ADVANCE = "advance"  # R52–R57
    DECLINE_ADVANCE = "decline_advance"  # R28, R58
    FINISH_REDISTRIBUTION = "finish_redistribution"  # R41 (Vitality)
    END_TURN = "end_turn"  # Q23, R93
    RESPOND = "respond"  # R37
    CHOOSE_CONFLICT = "choose_conflict"  # R68
    PLAY_SUPPORT = "play_support"  # R70
    PASS_SUPPORT = "pass_support"  # R70
    DISCARD_CHOICE = "discard_choice"  # R102
    INSIGHT_ORDER = "insight_order"  # R41
    PROSPERITY_CHOICE = "prosperity_choice"  # R41
    FEAR_CHOICE = "fear_choice"  # R67, Q3


class PromptKind(StrEnum):
    """What a :class:`~games.engine.prompts.Prompt` asks for; the four choice kinds are also the ``kind``
    of a pending :class:`~games.engine.state.Choice` in the state."""

    TURN = "turn"  # the active player's free window (R27)
    MANOEUVRE = "manoeuvre"  # after a manoeuvre's redistribution, before its advance (R28)
    VITALITY = "vitality"  # Crown of Vitality redistribution (R41)
    RESPONSE = "response"  # a Fracture response window (R37)
    CONFLICT = "conflict"  # battle step 4 (R68)
    SUPPORT = "support"  # battle step 5 (R69–R72)
    MAY_DISCARD = "may_discard"  # optional discard (R102)
    INSIGHT_ORDER = "insight_order"  # Crown of Insight (R41)
    PROSPERITY = "prosperity"  # Crown of Prosperity (R41)
    FEAR = "fear"  # Sceptre of Fear / Vigour (R67, Q3)
