"""Enumerations shared by the engine and its callers (architecture §2 "Actions").

All are :class:`enum.StrEnum`, so a member equals, hashes, formats and serialises to JSON exactly like
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


#: The prompt kinds of the active player's own turn (R27, R28, R41): every turn-level prompt of one turn
#: shares one key (:func:`games.engine.pending`), so the site runs the turn on one clock and the email
#: judges a whole turn's lines by it (issue 31: the one list; services and undo read it).
TURN_KINDS: frozenset[PromptKind] = frozenset({PromptKind.TURN, PromptKind.MANOEUVRE, PromptKind.VITALITY})


class EventType(StrEnum):
    """The ``"type"`` tag of every event an action's transition reports (``Transition.events``; worded for
    players by ``games.log``, redacted per viewer by ``redact_event``, R95)."""

    SETUP = "setup"  # the game is set up (R18–R25)
    FIRST_PLAYER = "first_player"  # the first player is drawn (R25)
    STARTING_KNIGHTS = "starting_knights"  # each castle gets its starting knights (R23, R118)
    TURN_STARTED = "turn_started"  # a turn begins (R26)
    KNIGHTS_GAINED = "knights_gained"  # knights added to a castle (R31, R34)
    TURN_ENDED = "turn_ended"  # a turn ends; destroyed artefacts turn face up (R93)
    CARD_PLAYED = "card_played"  # a resource card is played (R32–R36)
    DRAW = "draw"  # cards are drawn (R96, R63; which cards is private to the drawer, R95)
    DISCARD = "discard"  # a card is discarded (R98, R102)
    DISCARD_DECLINED = "discard_declined"  # a player may discard and keeps their hand (R102)
    RESHUFFLE = "reshuffle"  # a discard pile is shuffled into its deck (R99)
    CARD_RETURNED = "card_returned"  # Crown of Order returns a discarded card to its deck (R41, R101)
    WINDOW_OPENED = "window_opened"  # a response window opens (R37)
    WINDOW_ANSWERED = "window_answered"  # a seat answers a response window (R37); sealed: seat private
    WINDOW_CLOSED = "window_closed"  # a response window closes (R37)
    CROWN_ANNOUNCED = "crown_announced"  # a crown's use is announced (R39, R40)
    CROWN_NEGATED = "crown_negated"  # a Fracture cancels a crown's use (R36, R40)
    CROWN_APPLIED = "crown_applied"  # a crown takes effect (R41)
    INSIGHT_DONE = "insight_done"  # Crown of Insight: the cards go back in the chosen order (R41, R97)
    PROSPERITY_KEPT = "prosperity_kept"  # Crown of Prosperity: the card stays on top or is discarded (R41)
    ARTEFACT_APPLIED = "artefact_applied"  # a sceptre or orb takes effect in a battle (R65, R75)
    ARTEFACT_DESTROYED = "artefact_destroyed"  # a Fracture destroys an artefact (R36, R90)
    ARTEFACT_RESTORED = "artefact_restored"  # a destroyed artefact turns face up again (R93)
    REDISTRIBUTED = "redistributed"  # knights are redistributed (R43–R47)
    REDISTRIBUTION_FINISHED = "redistribution_finished"  # a Crown of Vitality redistribution ends (R41)
    ADVANCED = "advanced"  # knights advance (R52–R57)
    ADVANCE_DECLINED = "advance_declined"  # a manoeuvre ends without its advance (R28, R58)
    CONQUERED = "conquered"  # a territory changes control (R56, R78)
    BATTLE_STARTED = "battle_started"  # a battle begins (R57, R59)
    BATTLE_STEP = "battle_step"  # the order of battle moves to its next step (R61)
    ARENA = "arena"  # the Arena's dice (R85)
    CONFLICT_CHOSEN = "conflict_chosen"  # a conflict card is chosen face down (R68; the card is private)
    CONFLICT_REVEALED = "conflict_revealed"  # both conflict cards are revealed (R68)
    SUPPORT_PLAYED = "support_played"  # support cards are played (R70)
    SUPPORT_PASSED = "support_passed"  # a seat passes in the support step (R70)
    BATTLE_RESULT = "battle_result"  # the battle's winner and margin (R73)
    MAYHEM = "mayhem"  # the Mayhem roll (R119)
    MAYHEM_FLIP = "mayhem_flip"  # Mayhem flips the result (R119)
    KNIGHTS_LOST = "knights_lost"  # knights are lost (R17, R76)
    RETREAT = "retreat"  # the loser's knights retreat (R76)
    BATTLE_ENDED = "battle_ended"  # the battle is over (R80)
    CUT_THROAT = "cut_throat"  # Cut-throat removes the knights of a territory without a line of supply (R116)
    CASTLE_CONQUERED = "castle_conquered"  # a castle is conquered, which wins the game (Castle Siege, R114)
    GAME_OVER = "game_over"  # the game is won (R103, R109)
    FEAR_CHOICE = "fear_choice"  # Sceptre of Fear / Vigour used or not (R67, Q3)


class Barrier(StrEnum):
    """Why a recorded step cannot be taken back (issue 16, Board Game Arena's undo policy): the new
    information it brought, most telling first (:func:`games.engine.undo_barrier`)."""

    CARD_DRAWN = "card_drawn"  # a card was drawn or a deck reshuffled (R96, R99)
    DICE_ROLLED = "dice_rolled"  # a die was rolled or chance decided something (R85, R119)
    CARD_REVEALED = "card_revealed"  # a card was played, revealed or looked at (R32, R68, R70, R41)
    WINDOW_OPENED = "window_opened"  # a response window or a battle began (R37, R57)
    TURN_OVER = "turn_over"  # a turn ended or began, or the game ended (R26, R93, R103)
    ANSWER = "answer"  # an answer to another player's window, battle or choice, not a step of one's own turn


class Phase(StrEnum):
    """What a game waits for (``current_phase``, the view's ``phase``; R27–R28)."""

    WINDOW = "window"  # the active player's free window (R27)
    MANOEUVRE = "manoeuvre"  # a manoeuvre between its redistribution and its advance (R28)
    VITALITY = "vitality"  # a Crown of Vitality redistribution (R41)
    RESPONSE = "response"  # a response window is open (R37)
    CHOICE = "choice"  # a player's choice is pending (R41, R67, R102)
    BATTLE = "battle"  # a battle is under way (R61)
    OVER = "over"  # the game is won (R103)


class Stage(StrEnum):
    """A battle's next step in the order of battle (R61; ``Battle.stage``, the view's ``stage``): the
    engine's finer stages of the rulebook's nine steps (``BattleView.step``)."""

    START = "start"  # step 1: the territory's start-of-battle ability (R62)
    DRAW = "draw"  # step 2: both draw (R63)
    SCEPTRE_WINDOW = "sceptre_window"  # step 3: the window on the sceptres (R64)
    SCEPTRES = "sceptres"  # step 3: the sceptres that survived apply (R65–R67)
    CONFLICT = "conflict"  # step 4: conflict cards face down (R68)
    SUPPORT_START = "support_start"  # step 5 begins: who supports first (R69)
    SUPPORT = "support"  # step 5: support cards in turn (R69–R72)
    RESULT = "result"  # step 6: the combat scores and the result (R73)
    MAYHEM = "mayhem"  # Mayhem's roll for the winner's knights (R119)
    ORB_WINDOW = "orb_window"  # step 7: the window on the orbs (R74)
    ORBS = "orbs"  # step 7: the orbs that survived apply (R75–R77)
    LOSSES = "losses"  # step 8: losses (R78–R79)
    CONQUEST = "conquest"  # step 8: the winner takes the territory (R80)
    CLEANUP = "cleanup"  # step 9: cards discarded, the battle ends (R81)


class CardKind(StrEnum):
    """The three kinds of card (R32, R68–R70; ``CardView.kind``)."""

    CONFLICT = "conflict"
    SUPPORT = "support"
    RESOURCE = "resource"


class ArtefactType(StrEnum):
    """The three types of artefact (R38–R42); a response window's ``kind`` is the type of what opened it."""

    CROWN = "crown"
    SCEPTRE = "sceptre"
    ORB = "orb"
