"""Who must decide now (:func:`pending`), what they may do (:func:`legal_actions`) and what they may not
(:func:`blocked`): all three read the one decision table :data:`DECISIONS`, keyed by the kind of decision
the state waits for (:func:`~games.engine.rules.core.decision_kind`; ``DECIDING_SEATS`` says who
decides; issue 31 §2).

Timeout policy (issue 2, documented in ``docs/game-record.md``): every prompt names the action applied if
its deadline passes — response window: pass; conflict choice: the lowest-value conflict card held (an
Ambush counts as its mean, 3.5); support alternation: pass; optional steps (decline an advance, finish the
Vitality redistribution, may-discard: keep, Insight: keep the order, Prosperity: leave the card, Fear /
Vigour: do not use); the turn itself: end it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from . import actions as A
from .blocking import battle_blocked, turn_blocked
from .errors import IllegalAction
from .kinds import Phase, PromptKind
from .rules.advance import advance_options
from .rules.battle import (
    conflict_options,
    fear_changes_nothing,
    fear_options,
    single_conflict_card,
    support_options,
)
from .rules.core import (
    DECIDING_SEATS,
    DecisionKind,
    check_seat,
    conflict_waiting,
    decision_kind,
    fracture_playable,
    in_turn,
    mask_seconds,
    option,
    window_waiting,
)
from .rules.crowns import crown_options, insight_options, prosperity_options
from .rules.redistribution import redistribution_options
from .rules.resources import discard_options, resource_options
from .rules.windows import fracture_options, respond_options
from .state import GameState


@dataclass(frozen=True, slots=True)
class Prompt:
    """A decision the game waits for.

    Attributes:
        seat: who decides (0..n-1).
        kind: ``turn``, ``manoeuvre``, ``vitality``, ``response`` (Fracture window), ``conflict``,
            ``support``, or a choice: ``may_discard``, ``insight_order``, ``prosperity``, ``fear``.
        deadline: ``turn`` for the active player's own decisions, ``response`` for everyone else's.
        timeout_action: the action applied when the deadline passes.
        key: stable id of this decision while it stays open, e.g. ``"12:response:3"``; every turn-level
            prompt of one turn shares ``"t<turn>:turn:<seat>"`` so the turn runs on one clock.
        detail: JSON-safe extra facts for forms and emails (e.g. window kind and targets).
        auto: the seat has nothing to decide: a response window with no Fracture it could play (issue 14),
            a conflict choice among copies of one card, or a Fear / Vigour choice with equal knight counts
            (issue 29). The server answers ``timeout_action`` for it after ``after`` seconds; it is never
            shown to the seat as a decision nor emailed. To everyone else it looks like any other prompt.
        after: the masking delay of an ``auto`` prompt, seconds (``fracture_mask``; 0 = at once).
    """

    seat: int
    kind: str
    deadline: str
    timeout_action: A.Action
    key: str
    detail: dict[str, object]
    auto: bool = False
    after: int = 0

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return {
            "seat": self.seat,
            "kind": self.kind,
            "deadline": self.deadline,
            "timeout_action": self.timeout_action.to_dict(),
            "key": self.key,
            "detail": dict(self.detail),
            "auto": self.auto,
            "after": self.after,
        }


def conflict_timeout(state: GameState, seat: int) -> A.Action:
    """Timeout action of a conflict choice: the lowest-value conflict card ``seat`` holds, an Ambush
    counting as its mean 3.5 (R68, timeout policy above); ties go to the lower card index."""
    cards = state.content.cards
    hand = [c for c in state.players[seat].hand if cards[c].kind == "conflict"]
    best = min(hand, key=lambda c: (7 if cards[c].ambush else 2 * int(cards[c].value or 0), c))
    return A.ChooseConflict(A.card_id(seat, best))


def _deadline(state: GameState, seat: int) -> str:
    return "turn" if seat == state.active else "response"


def _window_prompts(state: GameState) -> list[Prompt]:
    """One response prompt per seat the window waits for (R37): every asked seat that has not answered in
    a sealed window, the lap's current seat in an in-turn one. A seat with no Fracture to play gets an
    ``auto`` prompt that the server answers "pass" after the masking delay (one delay per sealed window,
    one per lap step in turn)."""
    w = state.window
    assert w is not None
    waiting = window_waiting(state)
    if not waiting:
        return []
    lap = in_turn(state)
    low, high = option(state, "fracture_mask")
    detail = {"window": w.kind, "opener": w.opener, "targets": list(w.targets)}  # shared: read-only
    out = []
    for seat in waiting:
        # nothing to decide without Fracture or without another player's face-up target (issue 14)
        auto = not fracture_playable(state, seat)
        after = 0
        if auto and high > low:
            after = mask_seconds(state, w.serial, w.asked.index(seat) if lap else 0)
        elif auto:
            after = low
        out.append(
            Prompt(
                seat,
                PromptKind.RESPONSE,
                "response",
                _PASS,
                f"{w.serial}:response:{seat}",
                detail,
                auto,
                after,
            )
        )
    return out


#: The timeout action of every response prompt: pass (R37).
_PASS = A.Respond(())


def _choice_prompts(state: GameState) -> list[Prompt]:
    """The pending choice's prompt (R41, R67, R102)."""
    ch = state.choice
    assert ch is not None
    timeout: A.Action
    if ch.kind == PromptKind.MAY_DISCARD:
        timeout = A.DiscardChoice(None)
    elif ch.kind == PromptKind.INSIGHT_ORDER:
        timeout = A.InsightOrder(tuple(A.card_id(ch.seat, c) for c in ch.cards))
    elif ch.kind == PromptKind.PROSPERITY:
        timeout = A.ProsperityChoice(False)
    else:
        timeout = A.FearChoice(False)
    key = f"{ch.serial}:{ch.kind}:{ch.seat}"
    # a Fear / Vigour choice with equal knight counts changes nothing: the server answers it (issue 29)
    auto = ch.kind == PromptKind.FEAR and fear_changes_nothing(state, ch.seat)
    return [Prompt(ch.seat, ch.kind, _deadline(state, ch.seat), timeout, key, {"source": ch.source}, auto)]


def _conflict_prompts(state: GameState) -> list[Prompt]:
    """Conflict-card prompts of both sides still to choose (R68)."""
    b = state.battle
    assert b is not None
    return [
        Prompt(
            seat,
            PromptKind.CONFLICT,
            _deadline(state, seat),
            conflict_timeout(state, seat),
            f"{b.serial}:conflict:{seat}",
            {},
            single_conflict_card(state, seat),
            _conflict_mask(state, b.serial, side) if single_conflict_card(state, seat) else 0,
        )
        for side, seat in conflict_waiting(state)
    ]


def _support_prompts(state: GameState) -> list[Prompt]:
    """The current support turn's prompt (R70)."""
    b = state.battle
    assert b is not None
    seat = b.support_order[b.support_turn]
    key = f"{b.serial}:support:{seat}:{b.support_passes}:{len(b.table)}"
    return [Prompt(seat, PromptKind.SUPPORT, _deadline(state, seat), A.PassSupport(), key, {})]


def _conflict_mask(state: GameState, serial: int, side: int) -> int:
    """The delay, in seconds, before the server places a seat's only conflict card (issue 29): the table's
    masking delay (``fracture_mask``), so the rival cannot tell from the timing that it had one card to
    choose; 0 at a table that chose speed over secrecy (``fracture_prompts = "holders"``). Bots' seats
    and tables with one person skip the delay in the service layer (``masking_watched``)."""
    if option(state, "fracture_prompts") == "holders":
        return 0
    low, high = option(state, "fracture_mask")
    return mask_seconds(state, serial, 1 + side) if high > low else int(low)


def _turn_prompts(state: GameState) -> list[Prompt]:
    """The active seat's prompt for its own turn (R27–R28, R41). One key per turn for every turn-level
    prompt, so a turn has one clock however many steps it takes (the timeout action follows the current
    step: decline the advance, finish Vitality, end the turn)."""
    seat = state.active
    key = f"t{state.turn}:turn:{seat}"
    if state.phase == Phase.MANOEUVRE:
        return [Prompt(seat, PromptKind.MANOEUVRE, "turn", A.DeclineAdvance(), key, {})]
    if state.phase == Phase.VITALITY:
        return [Prompt(seat, PromptKind.VITALITY, "turn", A.FinishRedistribution(), key, {})]
    return [Prompt(seat, PromptKind.TURN, "turn", A.EndTurn(), key, {})]


#: Legal-action generators of the pending choices, by choice kind (R41, R67, R102).
_CHOICE_OPTIONS: dict[str, Callable[[GameState, int], list[A.Action]]] = {
    PromptKind.MAY_DISCARD: discard_options,
    PromptKind.INSIGHT_ORDER: insight_options,
    PromptKind.PROSPERITY: prosperity_options,
    PromptKind.FEAR: fear_options,
}


def _turn_options(state: GameState, seat: int) -> list[A.Action]:
    """The active seat's options outside battles, windows and choices (R27–R28, R41)."""
    if state.phase == Phase.VITALITY:
        return [A.FinishRedistribution(), *redistribution_options(state, seat)]
    if state.phase == Phase.MANOEUVRE:
        return [A.DeclineAdvance(), *advance_options(state, seat), *redistribution_options(state, seat)]
    out: list[A.Action] = [A.EndTurn()]
    out.extend(resource_options(state, seat))
    out.extend(fracture_options(state, seat))
    out.extend(crown_options(state, seat))
    if state.manoeuvres_left > 0:
        out.extend(advance_options(state, seat))
        out.extend(redistribution_options(state, seat))
    return out


def _choice_options(state: GameState, seat: int) -> list[A.Action]:
    """Answers to the pending choice (R41, R67, R102)."""
    ch = state.choice
    assert ch is not None
    return _CHOICE_OPTIONS.get(ch.kind, fear_options)(state, seat)


def _nothing(state: GameState) -> list[Prompt]:
    """No prompt: the game is over (R103) or a battle runs an automatic step."""
    return []


def _no_options(state: GameState, seat: int) -> list[A.Action]:
    """No legal action: nobody decides."""
    return []


@dataclass(frozen=True, slots=True)
class Decider:
    """A row of the decision table :data:`DECISIONS`: how one kind of decision is put to its seats.

    Attributes:
        prompts: ``(state) -> list[Prompt]``, the prompts of the seats deciding (:func:`pending`).
        options: ``(state, seat) -> list[Action]``, the legal actions of a deciding seat
            (:func:`legal_actions`; only called for a seat of :func:`~games.engine.rules.core.decision_kind`).
        blocked: ``(state, seat) -> list[IllegalAction]``, the moves ``seat`` cannot make now, with the
            refusal that says why (:func:`blocked`).
    """

    prompts: Callable[[GameState], list[Prompt]]
    options: Callable[[GameState, int], list[A.Action]]
    blocked: Callable[[GameState, int], list[IllegalAction]]


#: The one decision table (issue 31 §2): for each kind of decision the state waits for
#: (:func:`~games.engine.rules.core.decision_kind`; who decides is ``DECIDING_SEATS``), how its prompts,
#: legal actions and blocked moves are built. :func:`pending`, :func:`legal_actions` and :func:`blocked`
#: dispatch through it; :func:`~games.engine.rules.core.deciding_seats` reads the same classification.
DECISIONS: dict[DecisionKind, Decider] = {
    DecisionKind.NONE: Decider(_nothing, _no_options, battle_blocked),
    DecisionKind.RESPONSE: Decider(_window_prompts, respond_options, battle_blocked),  # R37
    DecisionKind.CHOICE: Decider(_choice_prompts, _choice_options, battle_blocked),  # R41, R67, R102
    DecisionKind.CONFLICT: Decider(_conflict_prompts, conflict_options, battle_blocked),  # R68
    DecisionKind.SUPPORT: Decider(_support_prompts, support_options, battle_blocked),  # R69–R71
    DecisionKind.TURN: Decider(_turn_prompts, _turn_options, turn_blocked),  # R27–R28, R41
}


#: Kinds whose option generators answer ``[]`` themselves for a seat that is not asked (the window's, the
#: conflict cards' and the support step's: R37, R68, R70), so :func:`legal_actions` skips working out the
#: deciding seats a second time for them (random play asks on every ply; ``test_decision_table`` checks
#: that the seats with options are always :func:`deciding_seats`).
_SEAT_CHECKING = frozenset({DecisionKind.RESPONSE, DecisionKind.CONFLICT, DecisionKind.SUPPORT})


def pending(state: GameState) -> list[Prompt]:
    """Return every decision the game is waiting for (several at once for windows and conflict cards).

    Returns:
        Prompts sorted by seat; empty when the game is over (R103).
    """
    return DECISIONS[decision_kind(state)].prompts(state)


def legal_actions(state: GameState, seat: int) -> list[A.Action]:
    """Return a finite list of complete actions ``seat`` may take now, enough to reach every legal outcome.

    Each family's generator lives next to its check and handler in :mod:`games.engine.rules`.
    Redistribution is offered as single-knight moves (repeatable before the advance); Fracture answers as
    single targets or a pass; support plays as every distinct multiset of values.

    Returns:
        ``[]`` when the seat has no decision to make.

    Raises:
        InvalidSeat: ``seat`` is not a seat of this game.
    """
    check_seat(state, seat)
    kind = decision_kind(state)
    if kind not in _SEAT_CHECKING and seat not in DECIDING_SEATS[kind](state):
        return []
    return DECISIONS[kind].options(state, seat)


def blocked(state: GameState, seat: int) -> list[IllegalAction]:
    """The moves ``seat`` cannot make in its current decision, each with the refusal that says why: the
    error :func:`games.engine.apply` raises for such a move, from the same checks, or a ``NO_*`` code where
    no attempt exists to check (:mod:`games.engine.blocking`). It reads only what ``seat``'s own view
    shows (the map, artefacts, turn counters, its own hand), so it reveals nothing hidden (R95).

    In the seat's own free window or manoeuvre (R27–R28): no advance (R28, R52–R53, R55, R16), no
    redistribution (R28, R43, R45–R46), no crown use (R39, R41, R93, Q31), no Fracture while holding it
    (R36), no resource card or end of turn during a manoeuvre (R28). In a battle the seat fights in: no
    conflict card in hand (R68), no support in the Mountains (R71). Elsewhere: ``[]``.

    Args:
        state: the game state.
        seat: the seat asking (0..n-1).

    Returns:
        ``[IllegalAction]``: ``code`` the reason, ``params`` its details (``rule``, e.g. ``"R53"``) and
        ``action``, the :class:`~games.engine.kinds.ActionType` of the blocked family. A family is in
        ``legal_actions(state, seat)`` exactly when it is not reported here.

    Raises:
        InvalidSeat: ``seat`` is not a seat of this game.
    """
    check_seat(state, seat)
    return DECISIONS[decision_kind(state)].blocked(state, seat)
