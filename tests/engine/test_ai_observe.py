"""What a seat knows (issue 17, R95): :func:`games.engine.ai.observe.observe` keeps only what the seat may
know, and :func:`~games.engine.ai.observe.sample` deals it back into full states the seat cannot tell
from the real one."""

from __future__ import annotations

import pytest

from games.engine import GameState, apply, legal_actions, pending, to_dict, view_for
from games.engine.ai.observe import observe, sample
from games.engine.bot import random_step
from games.engine.rng import Rng
from games.engine.rules.core import in_turn
from tests.engine.fixtures import act, card_index, cid, edit, game, set_artefacts, set_hand


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


# --------------------------------------------------------------------------------------------------------
# Issue 31 §2: one home for what a seat may know. Twin states: two states that differ only in one hidden
# field, so the seat's view (view_for, the one definition of what it may see) is the same; its observation
# must be the same too, for every hidden field.
# --------------------------------------------------------------------------------------------------------


def _twin_conflict(state: GameState, seat: int) -> GameState | None:
    """A rival's face-down conflict card swapped for another conflict card of their hand (R68)."""
    b = state.battle
    if b is None or b.revealed:
        return None
    cards = state.content.cards
    for side, owner in enumerate((b.attacker, b.defender)):
        chosen = b.conflict[side]
        if owner == seat or chosen < 0:
            continue
        other = next((c for c in state.players[owner].hand if cards[c].kind == "conflict"), None)
        if other is None or cards[other].id == cards[chosen].id:
            continue
        twin = edit(state)
        p, tb = twin.players[owner], twin.battle
        assert tb is not None
        p.hand[p.hand.index(other)] = chosen
        tb.conflict[side] = other
        tb.table = [[owner, other] if entry == [owner, chosen] else entry for entry in tb.table]
        return twin
    return None


def _twin_sealed_answer(state: GameState, seat: int) -> GameState | None:
    """A rival's sealed answer to a response window changed (pass <-> Fracture on a target, R37)."""
    w = state.window
    if w is None or in_turn(state) or not w.targets:
        return None
    for i, (asked, answer) in enumerate(zip(w.asked, w.answers, strict=True)):
        if asked != seat and answer is not None:
            twin = edit(state)
            assert twin.window is not None
            twin.window.answers[i] = [] if answer else [w.targets[0]]
            return twin
    return None


def _twin_look(state: GameState, seat: int) -> GameState | None:
    """A rival's Insight look: other cards on top of their deck (R41)."""
    ch = state.choice
    if ch is None or ch.seat == seat or not ch.cards or ch.kind != "insight_order":
        return None
    twin = edit(state)
    deck = twin.players[ch.seat].deck
    deck[:] = deck[-len(ch.cards) :] + deck[: -len(ch.cards)]  # other cards on top
    assert twin.choice is not None
    twin.choice.cards = deck[-len(ch.cards) :][::-1]
    return twin if twin.choice.cards != ch.cards else None


def _twin_chance(state: GameState, seat: int) -> GameState:
    """Future chance and bookkeeping nobody sees: the seed, the chance counter, pinned dice, the count of
    actions applied."""
    twin = edit(state)
    twin.seed += 17
    twin.rng_counter += 3
    twin.dice_queue = [6, 1]
    twin.actions_applied += 5
    return twin


TWINS = {
    "conflict card": _twin_conflict,
    "sealed answer": _twin_sealed_answer,
    "insight look": _twin_look,
    "chance": _twin_chance,
}


@pytest.mark.parametrize(
    ("players", "options"), [(3, {"fracture_windows": "sealed"}), (2, {})], ids=["3p", "2p"]
)
def test_twins_with_the_same_view_have_the_same_observation(players: int, options: dict[str, object]) -> None:
    """For every position of two random games, every seat and every hidden field that the position has:
    the twin changes the state, not the seat's view, and not the seat's observation."""
    found: dict[str, int] = dict.fromkeys(TWINS, 0)
    for state in positions(players, seed=players + 20, options=options):
        for seat in range(players):
            for name, make in TWINS.items():
                twin = make(state, seat)
                if twin is None:
                    continue
                assert to_dict(twin) != to_dict(state), name
                assert view_for(twin, seat) == view_for(state, seat), name
                assert observe(twin, seat).key() == observe(state, seat).key(), name
                found[name] += 1
    # the games of these seeds reach each field (deterministic: a change of the engine that stops it fails
    # here, and the constructed twins below cover the rest)
    assert found["conflict card"] and found["chance"], found
    if players == 3:
        assert found["sealed answer"], found


def test_a_rivals_crown_of_order_card_is_not_in_the_observation() -> None:
    """R41, R101: while the Crown of Order window is open, view_for shows the use without the card it
    returns; twin states that differ in that card give the other seat the same observation (the bots'
    observation kept it), and its samples draw the card from the eligible discards."""
    s = edit(game(2, seed=4, options={"fracture_windows": "sealed"}))
    s.turn = 5
    set_artefacts(s, 0, ["crown_order"])
    set_hand(s, 1, ["fracture"])  # seat 1 can answer: the window opens
    p = s.players[0]
    old = [card_index(s, "war_banner"), card_index(s, "rallying_cry")]
    for c in old:
        p.deck.remove(c)
    p.discard, p.discard_turns = list(old), [3, 4]
    one = act(s, 0, {"type": "use_crown", "card": cid(0, old[0])}).state
    two = act(s, 0, {"type": "use_crown", "card": cid(0, old[1])}).state
    assert one.window is not None and one.window.crown["card"] != two.window.crown["card"]  # type: ignore[union-attr]
    assert view_for(one, 1) == view_for(two, 1)
    assert observe(one, 1).key() == observe(two, 1).key()
    assert observe(one, 0).key() != observe(two, 0).key()  # the opener knows its own choice
    rng = Rng(3)
    drawn = set()
    for _ in range(20):
        dealt = sample(observe(one, 1), rng)
        assert dealt.window is not None and view_for(dealt, 1) == view_for(one, 1)
        drawn.add(dealt.window.crown["card"])
    assert drawn == set(old)
