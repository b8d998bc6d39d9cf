"""What a seat knows (issue 17, R95): :func:`games.engine.ai.observe.observe` keeps only what the seat may
know, and :func:`~games.engine.ai.observe.sample` deals it back into full states the seat cannot tell
from the real one."""

from __future__ import annotations

import pytest

from games.engine import GameState, apply, card_id, legal_actions, pending, to_dict, view_for
from games.engine.ai.observe import HIDDEN, observe, sample
from games.engine.bot import random_step
from games.engine.kinds import PromptKind
from games.engine.rng import Rng
from games.engine.rules.core import in_turn
from games.engine.rules.crowns import order_candidates
from games.engine.state import NO_CARD, UNCHOSEN
from games.engine.view import private_view
from tests.engine.fixtures import act, card_index, cid, edit, game, set_artefacts, set_hand

#: Crowns whose uses hide something from the other seats: the Order card (R41, R101), the Insight and
#: Prosperity looks (R41).
CROWNS = ("crown_order", "crown_insight", "crown_prosperity")


def positions(
    players: int, seed: int, options: dict[str, object] | None = None, crowns: bool = False
) -> list[GameState]:
    """Every position of a random game (the engine's random bot), start to end or 600 actions; with
    ``crowns`` each seat starts with one of :data:`CROWNS`, so the game has their hidden parts."""
    state = game(players, seed=seed, options=options)
    if crowns:
        state = edit(state)
        for seat in range(players):
            set_artefacts(state, seat, [CROWNS[seat % len(CROWNS)]])
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


def _looked_at(state: GameState) -> set[int]:
    """Seats whose deck top a pending choice shows (Insight, Prosperity): their deck order is known to the
    looking seat, so the deck twins leave those decks alone."""
    ch = state.choice
    if ch is None or not ch.cards:
        return set()
    return {ch.target if ch.kind == PromptKind.PROSPERITY else ch.seat}


def _twin_hand(state: GameState, seat: int) -> GameState | None:
    """A rival's hand card swapped for a card of the same kind from the bottom of their deck (R95: others'
    hands are hidden; Fracture stays put, since prompts may name its holders)."""
    cards = state.content.cards
    for p in state.players:
        if p.seat == seat or p.seat in _looked_at(state) or not p.deck:
            continue
        low = p.deck[0]
        for i, c in enumerate(p.hand):
            if cards[c].kind == cards[low].kind and "fracture" not in (cards[c].id, cards[low].id):
                twin = edit(state)
                q = twin.players[p.seat]
                q.hand[i], q.deck[0] = low, c
                return twin
    return None


def _twin_deck_order(state: GameState, seat: int) -> GameState | None:
    """Every deck in another order, the seat's own too (R95: deck order is in no view)."""
    twin = edit(state)
    for p in twin.players:
        if p.seat not in _looked_at(state):
            p.deck.reverse()
    return twin if [p.deck for p in twin.players] != [p.deck for p in state.players] else None


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
    """A rival's Insight or Prosperity look: other cards on top of the deck looked at (R41)."""
    ch = state.choice
    if ch is None or ch.seat == seat or not ch.cards:
        return None
    twin = edit(state)
    if ch.kind == PromptKind.PROSPERITY:
        deck = twin.players[ch.target].deck
        if len(deck) < 2:
            return None
        deck[-1], deck[0] = deck[0], deck[-1]
        assert twin.choice is not None
        twin.choice.cards = [deck[-1]]
        return twin
    deck = twin.players[ch.seat].deck
    deck[:] = deck[-len(ch.cards) :] + deck[: -len(ch.cards)]  # other cards on top
    assert twin.choice is not None
    twin.choice.cards = deck[-len(ch.cards) :][::-1]
    return twin if twin.choice.cards != ch.cards else None


def _twin_order_card(state: GameState, seat: int) -> GameState | None:
    """A rival's Crown of Order use naming another of their eligible discards (R41, R101)."""
    w = state.window
    if w is None or w.opener == seat or "card" not in w.crown:
        return None
    other = next((c for c in order_candidates(state, w.opener) if c != w.crown["card"]), None)
    if other is None:
        return None
    twin = edit(state)
    assert twin.window is not None
    twin.window.crown["card"] = other
    return twin


def _twin_chance(state: GameState, seat: int) -> GameState:
    """Future chance and bookkeeping nobody sees: the seed, the chance counter, pinned dice, the count of
    actions applied."""
    twin = edit(state)
    twin.seed += 17
    twin.rng_counter += 3
    twin.dice_queue = [6, 1]
    twin.actions_applied += 5
    return twin


#: One twin generator per hidden field that view_for hides (R95, R37, R41, R68).
TWINS = {
    "hand": _twin_hand,
    "deck order": _twin_deck_order,
    "conflict card": _twin_conflict,
    "sealed answer": _twin_sealed_answer,
    "looked-at cards": _twin_look,
    "order card": _twin_order_card,
    "chance": _twin_chance,
}


@pytest.mark.parametrize(
    ("players", "seed", "options", "crowns"),
    [
        (3, 23, {"fracture_windows": "sealed"}, False),
        (2, 22, {}, False),
        (3, 25, {"fracture_windows": "sealed"}, True),
    ],
    ids=["3p", "2p", "3p-crowns"],
)
def test_twins_with_the_same_view_have_the_same_observation(
    players: int, seed: int, options: dict[str, object], crowns: bool
) -> None:
    """For every position of random games, every seat and every hidden field that the position has: the
    twin changes the state, not the seat's view, and not the seat's observation."""
    found: dict[str, int] = dict.fromkeys(TWINS, 0)
    for state in positions(players, seed=seed, options=options, crowns=crowns):
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
    assert found["hand"] and found["deck order"] and found["conflict card"] and found["chance"], found
    if players == 3:
        assert found["sealed answer"], found
    if crowns:  # the crowns' hidden parts too: every hidden field has met its twin
        assert all(found.values()), found


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


def _kept_is_shown(state: GameState, seat: int, seen: dict[str, int]) -> None:
    """Every hidden piece ``observe(state, seat)`` keeps is one ``view_for(state, seat)`` shows, but for the
    seat's own decisions the view does not repeat back (its sealed answer R37, its crown use's Order card
    R41, its own "no card" R68); everything in no view is zeroed. ``seen`` counts the cases met."""
    obs = observe(state, seat)
    view = view_for(state, seat)
    pub = obs.public
    for p, pv in zip(pub.players, view["players"], strict=True):  # hands (R95)
        assert obs.hand_sizes[p.seat] == pv["hand_size"]
        assert [card_id(p.seat, c) for c in p.hand] == [c["id"] for c in pv.get("hand", [])]
        assert p.deck == sorted(p.deck)  # deck order: in no view
    if pub.battle is not None:  # conflict cards (R68)
        vb = view["battle"]
        assert vb is not None
        for side, vs in enumerate((vb["attacker"], vb["defender"])):
            chosen, shown = pub.battle.conflict[side], vs["conflict"]
            assert (chosen != UNCHOSEN) == shown["chosen"]
            if chosen == HIDDEN:
                assert "card" not in shown and vs["seat"] != seat
                seen["hidden conflict card"] += 1
            elif chosen == NO_CARD and "card" not in shown:
                assert vs["seat"] == seat  # its own "no card": it chose it
            elif chosen >= 0:
                card = shown.get("card")
                assert card is not None and card["id"] == card_id(vs["seat"], chosen)
    w, vw = pub.window, view["window"]
    if w is not None:  # window answers (R37), the Order card (R41)
        assert vw is not None
        listed = {a["seat"] for a in vw["answers"]}
        for asked, answer in zip(w.asked, w.answers, strict=True):
            if answer is not None and asked not in listed:
                assert asked == seat and vw["answered"] and vw["mode"] == "sealed"  # its own sealed answer
                seen["own sealed answer"] += 1
        if "card" in w.crown:
            assert w.opener == seat and "card" not in vw.get("crown", {})  # its own crown use's card
            seen["own order card"] += 1
    ch, vc = pub.choice, view["choice"]
    if ch is not None and ch.cards:  # looked-at cards (R41)
        assert vc is not None
        owner = ch.target if ch.kind == PromptKind.PROSPERITY else ch.seat
        assert [card_id(owner, c) for c in ch.cards] == [c["id"] for c in vc.get("cards", [])]
        assert list(obs.known_tops[owner]) == list(ch.cards)
        seen["own look"] += 1
    else:
        assert not any(obs.known_tops)  # no look of its own: no known deck top
    # in no view, hidden from everybody
    assert (pub.seed, pub.rng_counter, pub.dice_queue, pub.actions_applied) == (0, 0, [], 0)
    assert pub.setup["seed"] == 0 and "pin" not in pub.setup


@pytest.mark.parametrize(
    ("players", "seed", "options"),
    [(3, 25, {"fracture_windows": "sealed"}), (4, 26, {"fracture_windows": "in_turn"}), (2, 27, {})],
    ids=["3p-sealed", "4p-in-turn", "2p"],
)
def test_what_observe_keeps_is_what_view_for_shows(
    players: int, seed: int, options: dict[str, object]
) -> None:
    """view_for is the source of what a seat may know (issue 31 §2): for every position of a random game
    with crowns and every seat, each hidden piece the observation keeps is shown by view_for."""
    seen = dict.fromkeys(("hidden conflict card", "own sealed answer", "own order card", "own look"), 0)
    for state in positions(players, seed=seed, options=options, crowns=True):
        for seat in range(players):
            _kept_is_shown(state, seat, seen)
    assert seen["hidden conflict card"] and seen["own look"] and seen["own order card"], seen
    if options.get("fracture_windows") == "sealed":
        assert seen["own sealed answer"], seen


def test_private_view_is_the_viewer_part_of_view_for() -> None:
    """observe reads ``private_view``: the hands, battle, window and choice of view_for's answer, for every
    seat and the spectator."""
    for state in positions(3, seed=25, options={"fracture_windows": "sealed"}, crowns=True)[::3]:
        for viewer in (None, 0, 1, 2):
            part, whole = private_view(state, viewer), view_for(state, viewer)
            assert part["hands"] == [pv.get("hand") for pv in whole["players"]]
            assert (part["battle"], part["window"], part["choice"]) == (
                whole["battle"],
                whole["window"],
                whole["choice"],
            )
