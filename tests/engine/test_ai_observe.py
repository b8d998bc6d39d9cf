"""What a seat knows (issue 17, R95): :func:`games.engine.ai.observe.observe` keeps only what the seat may
know, and :func:`~games.engine.ai.observe.sample` deals it back into full states the seat cannot tell
from the real one."""

from __future__ import annotations

import pytest

from games.engine import GameState, apply, legal_actions, pending, view_for
from games.engine.ai.observe import observe, sample
from games.engine.bot import random_step
from games.engine.rng import Rng
from tests.engine.fixtures import edit, game


def positions(players: int, seed: int, options: dict[str, object] | None = None) -> list[GameState]:
    """Every position of a random game (the engine's random bot), start to end or 600 actions."""
    state = game(players, seed=seed, options=options)
    rng = Rng(seed)
    out = [state]
    for _ in range(600):
        step = random_step(state, rng)
        if step is None:
            break
        state = apply(state, *step).state
        out.append(state)
    return out


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {}),
        (3, {"fracture_windows": "in_turn"}),
        (4, {"fracture_windows": "sealed", "allegiance": "pairs"}),
    ],
    ids=["2p", "3p-in-turn", "4p-sealed-allegiance"],
)
def test_a_sampled_state_looks_the_same_to_the_seat(players: int, options: dict[str, object]) -> None:
    """R95: every seat's view of a sample of its observation equals its view of the real state, its legal
    actions are the same, and every seat that must decide can play on from the sample."""
    rng = Rng(7)
    checked = 0
    for state in positions(players, seed=players, options=options)[::7]:
        for seat in range(players):
            dealt = sample(observe(state, seat), rng)
            assert view_for(dealt, seat) == view_for(state, seat)
            assert legal_actions(dealt, seat) == legal_actions(state, seat)
            for prompt in pending(dealt):
                moves = legal_actions(dealt, prompt.seat)
                assert moves, f"seat {prompt.seat} asked without a move"
                apply(dealt, prompt.seat, moves[rng.below(len(moves))])
            checked += 1
    assert checked > 30


def test_what_a_seat_cannot_see_does_not_change_its_observation() -> None:
    """No peeking: moving a card between another player's hand and deck, or reordering any deck, changes
    the state but not the observation of the seat that cannot see it."""
    for state in positions(3, seed=11)[5::40]:
        other = edit(state)
        p = other.players[1]
        if p.hand and p.deck:
            p.hand[0], p.deck[0] = p.deck[0], p.hand[0]
        for q in other.players:
            q.deck.reverse()
        other.seed += 1
        assert observe(other, 0).key() == observe(state, 0).key()
        if state.players[1].hand and state.players[1].deck and p.hand != state.players[1].hand:
            assert observe(other, 1).key() != observe(state, 1).key()  # seat 1 sees its own hand
