"""The bot levels (issue 17): they decide from what their seat may know and nothing else (R95), the same
way for the same seed, and play whole games of every size and option mix without an illegal action."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import GameState, apply, legal_actions, pending, state_hash
from games.engine.ai.arena import arena, play_game
from games.engine.ai.levels import LEVELS, decide, quick_score
from games.engine.ai.observe import observe
from games.engine.bot import random_step
from games.engine.rng import Rng
from tests.engine.fixtures import castle_pos, edit, game, neighbours, place, set_hand

#: Hard's playouts in these tests (its default budget is for the site; here the tests stay quick).
BUDGET = 6


def decisions_with_hidden_cards(players: int, seed: int) -> list[tuple[GameState, int]]:
    """Positions of a random game where a seat decides while another seat holds cards in hand."""
    state = game(players, seed=seed)
    rng = Rng(seed)
    out = []
    for n in range(400):
        prompts = pending(state)
        if not prompts:
            break
        seat = prompts[0].seat
        if n % 9 == 0 and any(p.hand for p in state.players if p.seat != seat):
            out.append((state, seat))
        step = random_step(state, rng)
        assert step is not None
        state = apply(state, *step).state
    return out


def hide_differently(state: GameState, seat: int) -> GameState:
    """The same game with every other seat's hand swapped with its deck's top cards, every deck reversed
    and another seed for chance: nothing ``seat`` may see has changed."""
    other = edit(state)
    for p in other.players:
        if p.seat != seat:
            k = min(len(p.hand), len(p.deck))
            p.hand[:k], p.deck[:k] = p.deck[:k], p.hand[:k]
        p.deck.reverse()
    other.seed += 17
    return other


@pytest.mark.parametrize("level", LEVELS)
def test_no_level_peeks_at_what_its_seat_cannot_see(level: str) -> None:
    """No peeking (R95): two states that differ only in other seats' hidden cards, deck orders and future
    chance give the same decision at every level (same seed); the decision is legal in both."""
    checked = 0
    for state, seat in decisions_with_hidden_cards(3, seed=4)[:12]:
        twin = hide_differently(state, seat)
        assert state_hash(twin) != state_hash(state)
        first = decide(observe(state, seat), level, 99, budget=BUDGET)
        second = decide(observe(twin, seat), level, 99, budget=BUDGET)
        assert first == second
        assert first in legal_actions(state, seat) and first in legal_actions(twin, seat)
        checked += 1
    assert checked >= 8


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_gives_the_same_decision(level: str) -> None:
    """Seeded and deterministic: the same observation and seed decide the same, every time."""
    for state, seat in decisions_with_hidden_cards(2, seed=8)[:6]:
        obs = observe(state, seat)
        assert len({decide(obs, level, 5, budget=BUDGET) for _ in range(3)}) == 1


GAMES: list[tuple[int, dict[str, Any]]] = [
    (2, {}),
    (3, {"fracture_windows": "in_turn"}),
    (4, {"allegiance": "pairs", "fracture_windows": "sealed"}),
    (4, {"castle_siege": True, "cut_throat": True}),
    (5, {"mayhem": True, "fracture_prompts": "holders"}),
    (6, {"allegiance": "triples", "skirmish": True}),
]


@pytest.mark.parametrize(
    ("players", "options"), GAMES, ids=[f"{n}p-{'-'.join(o) or 'plain'}" for n, o in GAMES]
)
def test_the_levels_play_whole_games_without_an_illegal_action(players: int, options: dict[str, Any]) -> None:
    """Each level plays whole games of 2–6 players under every optional rule: every decision is legal
    (``apply`` would raise otherwise) and the game ends with a winner."""
    lineup = [("hard", "normal", "easy")[i % 3] for i in range(players)]
    state, history = play_game(lineup, seed=players * 10 + len(options), options=options, budget=BUDGET)
    assert state.winners, f"no winner after {len(history)} actions"
    assert {lineup[seat] for seat, _ in history} == set(lineup)


def test_every_level_beats_the_random_bot_in_a_short_match() -> None:
    """A sanity check of strength (the real figures are benchmarks, ``make bench-bots``): in six
    seat-swapped 2-player games each level wins at least five against the random bot."""
    for level in LEVELS:
        report = arena([level, "random"], [2], 6, seed=3, budget=BUDGET)
        assert report.tallies[2][level].wins >= 5, report.lines()


def test_a_winning_advance_scores_above_a_losing_one() -> None:
    """The rules of thumb (R57–R60): sending more knights than the defence beats sending fewer, and an
    empty territory is worth taking."""
    s = edit(game(2))
    own, enemy = neighbours(s, castle_pos(s, 0))
    place(s, enemy, 1, 3)
    set_hand(s, 0, ["war_banner", "rallying_cry", "heroic_assault"])
    moves = {
        (a.to_dict()["to"], a.to_dict()["knights"]): a for a in legal_actions(s, 0) if a.TYPE == "advance"
    }
    strong = moves[(f"t{enemy}", max(k for t, k in moves if t == f"t{enemy}"))]
    weak = moves[(f"t{enemy}", 1)]
    assert quick_score(s, 0, strong) > quick_score(s, 0, weak)
    assert quick_score(s, 0, moves[(f"t{own}", 2)]) > 0
