"""The shared core of the rules: the transaction :class:`Tx`, :class:`Transition`, table options and the
small facts every rule module reads (phase, turn checks, teams, artefact ownership).

Internals: :class:`Tx` is a copy-on-write transaction over a state. Handlers validate an action *before*
changing anything (so an :class:`IllegalAction` leaves no trace), then mutate the transaction's private
copy; :func:`games.engine.rules.dispatch.run` then advances the automatic steps until the game waits for a
decision again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Unpack

from .. import actions as A
from ..content import Content
from ..errors import ErrorCode, IllegalAction, InvalidSeat
from ..events import Event, EventFields, PrivateFields
from ..kinds import EventType, Phase, Stage
from ..rng import Rng, mix64
from ..state import UNCHOSEN, Battle, Choice, GameState, Player, Window

#: The rulebook's five optional rules (R105–R120), in its order: the one list the setup, the CLI, the
#: forms, the lobby, the archive's filter and the rules page read (issue 31). Each is a key of
#: :data:`OPTION_DEFAULTS`; ``allegiance`` is ``None`` or a team size, the others are flags.
OPTIONAL_RULES: tuple[str, ...] = ("allegiance", "castle_siege", "cut_throat", "skirmish", "mayhem")

#: The options that are true or false: the optional rules but Allegiance, and ruling Q13's flag.
OPTION_FLAGS: tuple[str, ...] = (*OPTIONAL_RULES[1:], "castle_lake_link")

OPTION_DEFAULTS: dict[str, Any] = {
    "allegiance": None,  # None | "pairs" | "triples" (R105–R107)
    "castle_siege": False,  # R112–R115
    "cut_throat": False,  # R116
    "skirmish": False,  # R117
    "mayhem": False,  # R118–R120
    "fracture_prompts": "all",  # "all" seats with a legal target, or only "holders" of Fracture
    "castle_lake_link": False,  # Q13 flag: castles get the lake link for advances
}

#: Options added after the first stored games, with the meaning of their absence (the behaviour before
#: they existed). A setup keeps such an option only when it differs from that meaning, so the setups,
#: states and hashes of older games stay byte for byte what they were, and their records replay exactly.
#: ``fracture_windows``: ``"sealed"`` (every asked seat answers at once with ranked targets, resolved
#: clockwise at the close) or ``"in_turn"`` (the rulebook's lap: one seat at a time, clockwise from the
#: opener, each fracturing at once and seeing the answers before it; R37 as corrected by issue 14).
#: ``fracture_mask``: ``[low, high]`` seconds; a seat without a Fracture to play is answered "pass" by the
#: server after a delay drawn in that range from the game's seed (:func:`mask_seconds`), so the pace of
#: a window does not tell who holds Fracture. ``[0, 0]``: at once.
ADDED_OPTIONS: dict[str, Any] = {
    "fracture_windows": "sealed",
    "fracture_mask": [0, 0],
}

#: Longest masking delay a table may set (seconds): one day.
MAX_FRACTURE_MASK = 86_400

#: The newest ``rules_edition``: the engine's reading of the rulebook, 1 (before issue 14) or 2 (issue 14:
#: R53's sentence on unsupplied territories, R64/R74 window targets, R112 castles across a lake, Q7, Q35).
#: A setup that names none gets this one (issue 31: a library user or the CLI gets the current rules), and
#: every canonical setup names its edition (:func:`games.engine.normalize_setup`).
RULES_EDITION = 2

#: The edition of games stored before issue 14: a record of format ``medieval-mastery/1`` whose setup names
#: no edition is read with it (:func:`games.engine.read_record`), and migration 0024 wrote it into the
#: stored games that named none.
LEGACY_EDITION = 1


def current_options() -> dict[str, Any]:
    """The added options a new table gets (newest rules): ``{"rules_edition": RULES_EDITION}``; merge the
    table's own choices over it before :func:`games.engine.normalize_setup`."""
    return {"rules_edition": RULES_EDITION}


@dataclass(frozen=True, slots=True)
class Transition:
    """Result of :func:`games.engine.apply`: the new ``state`` and the ``events`` it produced (unredacted;
    use :func:`games.engine.view.redact_event` before showing one to a viewer)."""

    state: GameState
    events: list[Event]


class Tx:
    """A copy-on-write transaction: ``s`` is a shallow copy of the input state; :meth:`p`, :meth:`b`,
    :meth:`w` copy a player / the battle / the window the first time they are changed.

    Args:
        state: the state to change; never mutated itself.
    """

    __slots__ = ("_battle", "_copied", "_window", "c", "events", "rng", "s")

    def __init__(self, state: GameState) -> None:
        self.s = state.shallow()
        self.c: Content = state.content
        self._copied: set[int] = set()
        self._battle = False
        self._window = False
        self.events: list[Event] = []
        self.rng = Rng(state.seed, state.rng_counter)

    def p(self, seat: int) -> Player:
        """Return a private, mutable copy of player ``seat``."""
        if seat not in self._copied:
            self.s.players[seat] = self.s.players[seat].copy()
            self._copied.add(seat)
        return self.s.players[seat]

    def b(self) -> Battle:
        """Return a private, mutable copy of the running battle."""
        assert self.s.battle is not None
        if not self._battle:
            self.s.battle = self.s.battle.copy()
            self._battle = True
        return self.s.battle

    def w(self) -> Window:
        """Return a private, mutable copy of the open response window."""
        assert self.s.window is not None
        if not self._window:
            self.s.window = self.s.window.copy()
            self._window = True
        return self.s.window

    def new_battle(self, battle: Battle) -> None:
        """Install a freshly built battle (already private)."""
        self.s.battle = battle
        self._battle = True

    def new_window(self, window: Window) -> None:
        """Install a freshly built response window (already private)."""
        self.s.window = window
        self._window = True

    def emit(
        self,
        event_type: EventType,
        /,
        private: dict[int, PrivateFields] | None = None,
        **data: Unpack[EventFields],
    ) -> None:
        """Record an event. ``private`` maps a seat to fields only that seat may see (R95, R97)."""
        # the keys and types are checked at each call (Unpack); mypy cannot merge a TypedDict's ** into a
        # larger one, and a cast here costs a call on every event of random play
        ev: Event = {"type": event_type, "turn": self.s.turn, **data}  # type: ignore[typeddict-item]
        if private:
            ev["private"] = {str(k): v for k, v in private.items()}
        self.events.append(ev)

    def next_serial(self) -> int:
        """Return a new decision serial (used to key prompts)."""
        self.s.serial += 1
        return self.s.serial

    def d6(self) -> int:
        """Roll one die: a pinned result if any remain (setup ``pin.dice``), else the seeded RNG (R7)."""
        if self.s.dice_queue:
            return self.s.dice_queue.pop(0)
        return self.rng.d6()

    def finish(self) -> Transition:
        """Close the transaction: store the RNG counter and return the transition."""
        self.s.rng_counter = self.rng.counter
        return Transition(self.s, self.events)


def check_seat(state: GameState, seat: object, *, spectator: bool = False) -> int | None:
    """The one check of a seat argument (``apply``, ``legal_actions``, ``view_for``): an ``int`` from 0 to
    ``players - 1``, or ``None`` (the spectator) where ``spectator`` allows it.

    Returns:
        ``seat``, typed.

    Raises:
        InvalidSeat: anything else (``True``, ``1.0``, ``"0"``, ``-1``, ``players``).
    """
    if type(seat) is int and 0 <= seat < state.num_players:  # bool is a subclass of int: refused here
        return seat
    if seat is None and spectator:
        return None
    raise InvalidSeat(seat, state.num_players)


def ceil_div(a: int, b: int) -> int:
    """Return ceil(a / b) for ints (``b > 0``)."""
    return -(-a // b)


def option(state: GameState, name: str) -> Any:
    """Return the value of setup option ``name`` (see :data:`OPTION_DEFAULTS`, R105–R120; an absent
    :data:`ADDED_OPTIONS` key has its legacy meaning)."""
    try:
        return state.setup["options"][name]
    except KeyError:
        return ADDED_OPTIONS[name]


def edition(state: GameState) -> int:
    """The game's ``rules_edition`` option (1 or 2): every canonical setup names it (:data:`RULES_EDITION`;
    stored games that named none were given 1 by migration ``0024_rules_edition``)."""
    return int(state.setup["options"]["rules_edition"])


def current_phase(state: GameState) -> Phase:
    """Return what the game waits for: ``over``, ``response`` (a response window), ``choice``,
    ``battle``, or the turn phase ``window`` / ``manoeuvre`` / ``vitality`` (R27–R28)."""
    if state.winners:
        return Phase.OVER
    if state.window is not None:
        return Phase.RESPONSE
    if state.choice is not None:
        return Phase.CHOICE
    if state.battle is not None:
        return Phase.BATTLE
    return Phase(state.phase)


def in_turn(state: GameState) -> bool:
    """Whether response windows go round one seat at a time (``fracture_windows = "in_turn"``, R37)."""
    return bool(option(state, "fracture_windows") == "in_turn")


def window_waiting(state: GameState) -> list[int]:
    """The seats an open response window still waits for, in asking order (R37): every asked seat that has
    not answered in a sealed window; in an in-turn window only the first of them (the lap's current seat).
    ``[]`` without a window."""
    w = state.window
    if w is None:
        return []
    waiting = [seat for seat, answer in zip(w.asked, w.answers, strict=True) if answer is None]
    return waiting[:1] if in_turn(state) else waiting


def mask_seconds(state: GameState, serial: int, step: int) -> int:
    """The masking delay (seconds) after which the server answers "pass" for a seat with no Fracture to
    play: drawn uniformly from the table's ``fracture_mask`` range by a stream of its own, keyed by the
    game's seed, the window's ``serial`` and the lap ``step`` (0 for a sealed window, the seat's place in
    the lap for an in-turn window). It never advances the game's own random stream, so it changes no die
    or shuffle, and replays reproduce it exactly."""
    low, high = option(state, "fracture_mask")
    if high <= low:
        return int(low)
    return int(low) + Rng(mix64(state.seed, _MASK_STREAM), serial * 64 + step).below(int(high) - int(low) + 1)


#: The counter of the masking stream's own seed (``mix64(seed, _MASK_STREAM)``): "MASK".
_MASK_STREAM = 0x4D41534B


def conflict_waiting(state: GameState) -> list[tuple[int, int]]:
    """``(side, seat)`` of each battle side still to choose its conflict card (R68), by seat."""
    b = state.battle
    if b is None or b.stage != Stage.CONFLICT:
        return []
    return sorted(
        ((side, seat) for side, seat in enumerate((b.attacker, b.defender)) if b.conflict[side] == UNCHOSEN),
        key=lambda pair: pair[1],
    )


class DecisionKind(StrEnum):
    """The kind of decision the game waits for now (:func:`decision_kind`): the key of :data:`DECIDING_SEATS`
    and of the decision table :data:`games.engine.prompts.DECISIONS`, which says how each kind's prompts,
    legal actions and blocked moves are built (issue 31 §2)."""

    NONE = "none"  # the game is over (R103), or a battle runs an automatic step
    RESPONSE = "response"  # a response window (R37)
    CHOICE = "choice"  # a pending choice (R41, R67, R102)
    CONFLICT = "conflict"  # battle step 4: the conflict cards (R68)
    SUPPORT = "support"  # battle step 5: the support alternation (R69–R70)
    TURN = "turn"  # the active player's own turn: free window, manoeuvre, Vitality (R27–R28, R41)


def decision_kind(state: GameState) -> DecisionKind:
    """The kind of decision ``state`` waits for (R27, R37, R41, R68, R70): the one branch on "game over /
    window / choice / battle step / turn". :func:`games.engine.pending`, :func:`games.engine.legal_actions`
    and :func:`games.engine.blocked` dispatch on it through the decision table
    (:data:`games.engine.prompts.DECISIONS`), and :data:`DECIDING_SEATS` says who decides for each kind. It
    allocates nothing: random play asks it twice a ply."""
    if state.winners:
        return DecisionKind.NONE
    if state.window is not None:
        return DecisionKind.RESPONSE
    if state.choice is not None:
        return DecisionKind.CHOICE
    b = state.battle
    if b is None:
        return DecisionKind.TURN
    if b.stage == Stage.CONFLICT:
        return DecisionKind.CONFLICT
    if b.stage == Stage.SUPPORT:
        return DecisionKind.SUPPORT
    return DecisionKind.NONE


def _choice_seat(state: GameState) -> list[int]:
    assert state.choice is not None
    return [state.choice.seat]


def _support_seat(state: GameState) -> list[int]:
    b = state.battle
    assert b is not None
    return [b.support_order[b.support_turn]]


#: Who decides, by decision kind (R27, R37, R41, R68, R70): the seats, sorted.
DECIDING_SEATS: dict[DecisionKind, Callable[[GameState], list[int]]] = {
    DecisionKind.NONE: lambda _state: [],
    DecisionKind.RESPONSE: lambda state: sorted(window_waiting(state)),
    DecisionKind.CHOICE: _choice_seat,
    DecisionKind.CONFLICT: lambda state: [seat for _side, seat in conflict_waiting(state)],
    DecisionKind.SUPPORT: _support_seat,
    DecisionKind.TURN: lambda state: [state.active],
}


def deciding_seats(state: GameState) -> list[int]:
    """Every seat the game waits for now, by seat: the one home of "who decides" (:func:`decision_kind`,
    :data:`DECIDING_SEATS`), the seats of :func:`games.engine.pending`'s prompts and of a non-empty
    :func:`games.engine.legal_actions` (R27, R37, R41, R68, R70)."""
    return DECIDING_SEATS[decision_kind(state)](state)


def deciding_seats_seen_by(state: GameState, viewer: int | None) -> list[int]:
    """The seats the game waits for as ``viewer`` (``None``: a spectator) may know them, by seat (R37, R95,
    issue 14), the one home of that rule for the views' prompts and the errors:
    :func:`deciding_seats`, except in a sealed window, where they are the seats of
    ``view_for(state, viewer)["prompts"]``: every asked seat other than ``viewer`` until the close, answered
    or not (so nobody learns from the order of the answers who holds Fracture), and ``viewer`` itself while
    its own answer is still a decision (:func:`fracture_playable`; otherwise the server passes for it)."""
    seats = deciding_seats(state)
    w = state.window
    if w is None or in_turn(state):
        return seats  # no window, or an in-turn lap: public, as at the table
    seen = {seat for seat in w.asked if seat != viewer}
    if viewer is not None and viewer in seats and fracture_playable(state, viewer):
        seen.add(viewer)
    return sorted(seen)


def open_targets(state: GameState, seat: int) -> list[str]:
    """Targets of the open window ``seat`` could fracture now: another player's, still face up (R37)."""
    w = state.window
    assert w is not None
    return [t for t in w.targets if artefact_owner(state, t) != seat and face_up(state, t)]


def holds_fracture(state: GameState, seat: int) -> bool:
    """Whether ``seat`` holds the Fracture card (R32, R36, R37): the one test the windows, the prompts and
    the site's standing orders use (issue 31 §2)."""
    return state.content.effect_index["fracture"] in state.players[seat].hand


def fracture_playable(state: GameState, seat: int) -> bool:
    """Whether ``seat`` could Fracture a target of the open window: it holds Fracture and another player's
    target is still face up (R37). An asked seat without that has nothing to decide: the server passes for
    it (issue 14)."""
    return state.window is not None and holds_fracture(state, seat) and bool(open_targets(state, seat))


def not_your_decision(state: GameState, actor: int) -> IllegalAction:
    """``NOT_YOUR_DECISION`` for ``actor`` (R27, R37), naming whose decisions are pending as ``actor`` may
    know them (``waiting``: seats, comma-separated, :func:`deciding_seats_seen_by`): in a sealed window
    every asked seat, so the error tells no more than the view of who still has to answer (R95, issue 14)."""
    waiting = deciding_seats_seen_by(state, actor)
    return IllegalAction(ErrorCode.NOT_YOUR_DECISION, waiting=",".join(map(str, waiting)))


def wrong_phase(state: GameState, *expected: str) -> IllegalAction:
    """``WRONG_PHASE``, naming the phase (and the battle step, in a battle) and what was ``expected``."""
    b = state.battle
    return IllegalAction(
        ErrorCode.WRONG_PHASE,
        phase=current_phase(state),
        step=b.stage if b is not None else None,
        expected=",".join(expected) or None,
    )


def check_manoeuvre(state: GameState) -> None:
    """Check that a manoeuvre may start now: in the free window one must be left this turn (R28); the
    manoeuvre under way (its advance after a redistribution) needs none.

    Raises:
        IllegalAction: ``NO_MANOEUVRE_LEFT``.
    """
    if state.phase == Phase.WINDOW and state.manoeuvres_left < 1:
        raise IllegalAction(ErrorCode.NO_MANOEUVRE_LEFT, rule="R28")


def require_turn(state: GameState, actor: int, *phases: Phase) -> None:
    """Check that ``actor`` is the active seat and the game is in one of ``phases`` (R27).

    Raises:
        IllegalAction: ``NOT_YOUR_DECISION`` or ``WRONG_PHASE``.
    """
    if actor != state.active:
        raise not_your_decision(state, actor)
    if current_phase(state) not in phases:
        raise wrong_phase(state, *phases)


def hand_card(state: GameState, seat: int, cid: str) -> int:
    """Return the deck index of card id ``cid`` (``"s<seat>c<index>"``) if it is in ``seat``'s hand (R95).

    Raises:
        IllegalAction: ``CARD_NOT_IN_HAND`` (malformed id, another seat's card, or not in hand).
    """
    parsed = A.parse_card_id(cid)
    if parsed is None or parsed[0] != seat or parsed[1] not in state.players[seat].hand:
        raise IllegalAction(ErrorCode.CARD_NOT_IN_HAND, card=cid)
    return parsed[1]


def choice_for(state: GameState, actor: int, kind: str) -> Choice:
    """Return the pending choice of ``kind`` if ``actor`` must make it (R41, R67, R102).

    Raises:
        IllegalAction: ``WRONG_PHASE`` (no such choice open) or ``NOT_YOUR_DECISION``.
    """
    ch = state.choice
    if ch is None or state.window is not None or ch.kind != kind:
        raise wrong_phase(state, Phase.CHOICE)
    if ch.seat != actor:
        raise not_your_decision(state, actor)
    return ch


def resume(tx: Tx, ch: Choice) -> None:
    """Close the answered choice ``ch``; back in the free window a new decision serial starts."""
    tx.s.choice = None
    if ch.resume == "window" and tx.s.battle is None:
        tx.next_serial()


def teammates(state: GameState, seat: int) -> list[int]:
    """Other seats on ``seat``'s Allegiance team (empty outside Allegiance) (R105–R108)."""
    team = state.players[seat].team
    if team < 0:
        return []
    return [p.seat for p in state.players if p.team == team and p.seat != seat]


def artefact_owner(state: GameState, art_id: str) -> int:
    """Seat holding artefact ``art_id`` (R20), or -1 if nobody does (unknown id)."""
    for p in state.players:
        if p.artefact(art_id) is not None:
            return p.seat
    return -1


def face_up(state: GameState, art_id: str) -> bool:
    """Whether artefact ``art_id`` is held and face up, i.e. not destroyed (R90)."""
    owner = artefact_owner(state, art_id)
    art = state.players[owner].artefact(art_id) if owner >= 0 else None
    return art is not None and art.face_up


def destroy_artefact(tx: Tx, art_id: str, by: int, reason: str) -> None:
    """R90: turn artefact ``art_id`` face down and record the turn (restored at its owner's step 9, R93)."""
    for p in tx.s.players:
        if p.artefact(art_id) is not None:
            art = tx.p(p.seat).artefact(art_id)
            assert art is not None
            art.face_up = False
            art.destroyed_on = tx.s.turn
            tx.emit(EventType.ARTEFACT_DESTROYED, artefact=art_id, owner=p.seat, by=by, reason=reason)
            return
