"""Taking back steps (issue 16): :func:`games.engine.undo_barrier` says which steps of a player's own turn
(R27–R29, R41, R43–R58) brought no new information and which new information stops an undo: a card drawn
(R63, R96), chance (R85), a card revealed (R32), a window or battle opened (R37, R57), the turn changing
(R93), another player's answer.
"""

from __future__ import annotations

from typing import Any

from games.engine import (
    Barrier,
    GameState,
    PromptKind,
    apply,
    parse_action,
    pending,
    undo_barrier,
)
from games.engine.bot import random_step
from games.engine.rng import Rng
from games.engine.undo import STEP_TYPES
from tests.engine.fixtures import castle_pos, edit, game, neighbours, place, set_artefacts, set_hand


def barrier(state: GameState, seat: int, payload: dict[str, Any]) -> tuple[Barrier | None, GameState]:
    """Apply ``payload`` and classify it: ``(barrier, state after)``."""
    action = parse_action(payload)
    t = apply(state, seat, action)
    return undo_barrier(state, seat, action, t), t.state


def manoeuvre_position() -> GameState:
    """Seat 0's first turn (free window, R27): 2 knights of seat 0 on a territory next to its castle,
    seat 1 holding a territory next to that one (a battle target), Call to Arms and Fracture in seat 0's
    hand, and seat 1's Sceptre of Defiance (so a battle opens a sceptre window, R64)."""
    s = edit(game(2))
    own, enemy = neighbours(s, castle_pos(s, 0))
    place(s, own, 0, 2)
    place(s, enemy, 1, 2)
    set_hand(s, 0, ["call_to_arms", "fracture", "war_banner"])
    set_artefacts(s, 1, ["crown_order", "sceptre_defiance", "orb_preparation"])
    return s


def tid(pos: int) -> str:
    return f"t{pos}"


def test_redistribution_and_advance_into_an_empty_territory_can_be_taken_back() -> None:
    """R43–R47 and R52–R56: a redistribution and an advance that conquers an empty territory reveal
    nothing, so both are steps that can be taken back."""
    s = manoeuvre_position()
    own = neighbours(s, castle_pos(s, 0))[0]
    b1, s1 = barrier(
        s, 0, {"type": "redistribute", "moves": [{"from": tid(own), "to": "castle", "knights": 1}]}
    )
    assert b1 is None and s1.rng_counter == s.rng_counter
    assert [p.kind for p in pending(s1)] == [PromptKind.MANOEUVRE]
    empty = next(p for p in neighbours(s1, own) if s1.board.kinds[p] == "territory" and s1.owner[p] == -1)
    b2, s2 = barrier(s1, 0, {"type": "advance", "to": tid(empty), "knights": 1})
    assert b2 is None and s2.owner[empty] == 0


def test_each_kind_of_new_information_is_a_barrier() -> None:
    """Resource cards reveal a card (R32, R34); an advance into a rival's territory starts a battle whose
    first draw comes at once (R57, R63); a crown opens its window (R40) and the other seats' answers are
    theirs, not steps of one's own turn (R37); ending the turn hands the game on (R93)."""
    s = manoeuvre_position()
    enemy = neighbours(s, castle_pos(s, 0))[1]
    assert barrier(s, 0, {"type": "call_to_arms"})[0] == Barrier.CARD_REVEALED
    assert barrier(s, 0, {"type": "end_turn"})[0] == Barrier.TURN_OVER
    drawn, battle = barrier(s, 0, {"type": "advance", "to": tid(enemy), "knights": 2})
    assert drawn == Barrier.CARD_DRAWN and battle.battle is not None
    opened, window = barrier(s, 0, {"type": "use_crown"})
    assert opened == Barrier.WINDOW_OPENED and window.window is not None
    answers = [p for p in pending(window) if p.kind == PromptKind.RESPONSE]
    assert [p.seat for p in answers] == [1]
    answered, vitality = barrier(window, 1, {"type": "respond", "fracture": []})
    assert answered == Barrier.ANSWER and [p.kind for p in pending(vitality)] == [PromptKind.VITALITY]
    # The Crown of Vitality's redistribution (R41) is a step of seat 0's own turn again.
    own = neighbours(s, castle_pos(s, 0))[0]
    move = {"type": "redistribute", "moves": [{"from": tid(own), "to": "castle", "knights": 1}]}
    assert barrier(vitality, 0, move)[0] is None


def test_random_play_steps_that_can_be_taken_back_reveal_nothing() -> None:
    """Over whole random games: every step :func:`undo_barrier` lets a player take back is a turn step of
    the acting seat (STEP_TYPES), uses no chance, moves no card and leaves nobody else to decide; and every
    resource card, crown, window answer and end of turn is a barrier."""
    safe = barriers = 0
    for seed in (1, 2, 3):
        s = game(3, seed=seed)
        rng = Rng(seed)
        for _ in range(400):
            step = random_step(s, rng)
            if step is None:
                break
            seat, action = step
            t = apply(s, seat, action)
            b = undo_barrier(s, seat, action, t)
            if b is None:
                safe += 1
                assert action.TYPE in STEP_TYPES and s.active == seat == t.state.active
                assert t.state.rng_counter == s.rng_counter and t.state.turn == s.turn
                for before, after in zip(s.players, t.state.players, strict=True):
                    assert (before.hand, before.deck, before.discard) == (
                        after.hand,
                        after.deck,
                        after.discard,
                    )
                assert all(p.seat == seat for p in pending(t.state))
            else:
                barriers += 1
            s = t.state
    assert safe > 20 and barriers > 20
