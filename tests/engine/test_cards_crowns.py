"""Engine tests for resource cards, crowns and card handling (medieval-mastery.md R32–R42, R95–R102, with
rulings Q11, Q22, Q25, Q26, Q30, Q31, Q32).

Positions refer to the shipped 2-player layout: seat 0's castle t12 touches t8 and t10; t4 touches t8; seat
1's castle t11 touches t7 and t9; the lake t0 is surrounded by t1–t6. Tile types are set explicitly.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from games.engine import (
    ChoiceView,
    ErrorCode,
    EventType,
    GameState,
    IllegalAction,
    Transition,
    apply,
    current_phase,
    pending,
    redact_event,
    to_dict,
    view_for,
)
from tests.engine.fixtures import (
    CONFLICT_HAND,
    WEAK_HAND,
    act,
    card_index,
    castle_pos,
    cid,
    clear_map,
    edit,
    game,
    neighbours,
    place,
    set_artefacts,
    set_hand,
    set_tile,
    territories,
)

# --------------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------------


def board(seed: int = 1, players: int = 2, **kw: Any) -> GameState:
    """An editable game, empty map, every territory a Forest, seat 0 to move with 6 knights in its castle."""
    s = edit(game(players, seed=seed, **kw))
    if players == 2:
        assert castle_pos(s, 0) == 12 and sorted(neighbours(s, 12)) == [8, 10]
        assert 4 in neighbours(s, 8)
    clear_map(s)
    for t in territories(s):
        set_tile(s, t, "forest")
    s.players[0].castle = 6
    return s


def reject(s: GameState, seat: int, payload: dict[str, Any], code: ErrorCode) -> None:
    """Assert ``payload`` is refused with ``code`` and the input state is untouched."""
    before = to_dict(s)
    with pytest.raises(IllegalAction) as err:
        act(s, seat, payload)
    assert err.value.code == code, err.value
    assert to_dict(s) == before


def pass_windows(s: GameState) -> GameState:
    """Let every seat asked in the open response window(s) pass."""
    while s.window is not None:
        prompt = pending(s)[0]
        s = act(s, prompt.seat, {"type": "respond", "fracture": []}).state
    return s


def crown(s: GameState, payload: dict[str, Any] | None = None, seat: int = 0) -> GameState:
    """Use ``seat``'s crown and let the crown window pass."""
    return pass_windows(act(s, seat, {"type": "use_crown", **(payload or {})}).state)


def settle(t: Transition | GameState) -> GameState:
    """Answer every open prompt of a battle / response window / choice with its timeout action."""
    s = t.state if isinstance(t, Transition) else t
    guard = 0
    while s.battle is not None or s.window is not None or s.choice is not None:
        prompt = pending(s)[0]
        s = apply(s, prompt.seat, prompt.timeout_action).state
        guard += 1
        assert guard < 100
    return s


def battle_board(seed: int = 1) -> GameState:
    """Seat 0 (castle 6, t8 1 knight) next to seat 1's t4 (1 knight); artefacts reduced to crowns; both
    hands hold 5 conflict cards and no support card (so no draw and no support step)."""
    s = board(seed)
    place(s, 8, 0, 1)
    place(s, 4, 1, 1)
    set_artefacts(s, 0, ["crown_fury"])
    set_artefacts(s, 1, ["crown_insight"])
    set_hand(s, 0, CONFLICT_HAND)
    set_hand(s, 1, WEAK_HAND)
    return s


def idx(s: GameState, name: str, nth: int = 0) -> int:
    return card_index(s, name, nth)


def discard_of(s: GameState, seat: int) -> list[tuple[int, int]]:
    p = s.players[seat]
    return list(zip(p.discard, p.discard_turns, strict=True))


def all_cards(s: GameState, seat: int) -> list[int]:
    p = s.players[seat]
    return sorted(p.hand + p.deck + p.discard)


# --------------------------------------------------------------------------------------------------------
# Resource cards (R32–R38)
# --------------------------------------------------------------------------------------------------------


def test_call_to_arms_adds_two_knights_then_is_discarded() -> None:
    """R32, R34, R98, R101: Call to Arms places 2 knights in the castle; the card is revealed, resolved,
    then put on its owner's discard pile with the current turn."""
    s = board()
    set_hand(s, 0, ["call_to_arms", "shield_wall"])
    t = act(s, 0, {"type": "call_to_arms"})
    cta = idx(s, "call_to_arms")
    assert t.state.players[0].castle == 8
    assert cta not in t.state.players[0].hand
    assert discard_of(t.state, 0) == [(cta, s.turn)]
    types = [e["type"] for e in t.events]
    assert types.index(EventType.CARD_PLAYED) < types.index(EventType.KNIGHTS_GAINED)


def test_call_to_arms_only_in_own_free_window() -> None:
    """R34, R38: Call to Arms only by its owner on their own turn in a free window: not by another player,
    not during a manoeuvre, not during a battle, and only if held."""
    s = board()
    place(s, 8, 0, 2)
    set_hand(s, 0, ["shield_wall"])
    reject(s, 0, {"type": "call_to_arms"}, ErrorCode.CARD_NOT_IN_HAND)
    set_hand(s, 1, ["call_to_arms"])
    reject(s, 1, {"type": "call_to_arms"}, ErrorCode.NOT_YOUR_DECISION)
    set_hand(s, 0, ["call_to_arms"])
    m = act(s, 0, {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 1}]}).state
    reject(m, 0, {"type": "call_to_arms"}, ErrorCode.WRONG_PHASE)
    b = battle_board()
    set_hand(b, 0, ["call_to_arms", *CONFLICT_HAND])
    bt = act(b, 0, {"type": "advance", "to": "t4", "knights": 3}).state
    assert bt.battle is not None
    reject(bt, 0, {"type": "call_to_arms"}, ErrorCode.WRONG_PHASE)


def test_tactical_advance_grants_a_manoeuvre() -> None:
    """R35, R38: Tactical Advance (own turn, free window) gives one more manoeuvre this turn; the other
    player cannot play theirs on this turn."""
    s = board()
    set_hand(s, 0, ["tactical_advance"])
    set_hand(s, 1, ["tactical_advance"])
    reject(s, 1, {"type": "tactical_advance"}, ErrorCode.NOT_YOUR_DECISION)
    t = act(s, 0, {"type": "tactical_advance"})
    assert t.state.manoeuvres_left == 2
    assert discard_of(t.state, 0) == [(idx(s, "tactical_advance"), s.turn)]
    s2 = act(t.state, 0, {"type": "advance", "to": "t8", "knights": 2}).state
    s3 = act(s2, 0, {"type": "advance", "to": "t10", "knights": 2}).state
    assert s3.owner[8] == 0 and s3.owner[10] == 0 and s3.manoeuvres_left == 0


def test_fracture_in_free_window_destroys_another_players_artefact() -> None:
    """R36, R90, Q22: in their own free window a player may Fracture any other player's face-up artefact:
    it is turned face down with the current turn recorded; Fracture then goes to the discard pile."""
    s = board()
    set_hand(s, 0, ["fracture"])
    set_artefacts(s, 1, ["crown_order", "sceptre_defiance", "orb_greed"])
    t = act(s, 0, {"type": "fracture", "target": "orb_greed"})
    art = t.state.players[1].artefact("orb_greed")
    assert art is not None and not art.face_up and art.destroyed_on == s.turn
    assert all(a.face_up for a in t.state.players[1].artefacts if a.id != "orb_greed")
    assert discard_of(t.state, 0) == [(idx(s, "fracture"), s.turn)]
    assert t.state.players[0].hand == []


def test_fracture_refusals() -> None:
    """R36, R38, R90: Fracture is refused on one's own artefact, on a face-down artefact, without the card,
    during a manoeuvre, and by a player whose turn it is not."""
    s = board()
    place(s, 8, 0, 2)
    set_artefacts(s, 0, ["crown_fury", "sceptre_rage"])
    set_artefacts(s, 1, ["crown_order", "sceptre_defiance"])
    set_hand(s, 0, ["shield_wall"])
    reject(s, 0, {"type": "fracture", "target": "sceptre_defiance"}, ErrorCode.NO_FRACTURE_IN_HAND)
    set_hand(s, 0, ["fracture"])
    reject(s, 0, {"type": "fracture", "target": "sceptre_rage"}, ErrorCode.INVALID_FRACTURE_TARGET)
    down = edit(s)
    art = down.players[1].artefact("sceptre_defiance")
    assert art is not None
    art.face_up, art.destroyed_on = False, 1
    reject(down, 0, {"type": "fracture", "target": "sceptre_defiance"}, ErrorCode.INVALID_FRACTURE_TARGET)
    set_hand(s, 1, ["fracture"])
    reject(s, 1, {"type": "fracture", "target": "sceptre_rage"}, ErrorCode.NOT_YOUR_DECISION)
    m = act(s, 0, {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 1}]}).state
    reject(m, 0, {"type": "fracture", "target": "sceptre_defiance"}, ErrorCode.WRONG_PHASE)


def test_preemptive_fracture_stops_a_sceptre_in_the_next_battle() -> None:
    """Q22, R36, R92: destroying the defender's Sceptre of Defiance in one's free window before advancing
    means it does not apply in the battle (no sceptre window, no random discard)."""
    s = battle_board()
    set_hand(s, 0, ["fracture", *CONFLICT_HAND])
    set_artefacts(s, 1, ["crown_insight", "sceptre_defiance"])
    s1 = act(s, 0, {"type": "fracture", "target": "sceptre_defiance"}).state
    t = act(s1, 0, {"type": "advance", "to": "t4", "knights": 3})
    assert t.state.window is None
    assert t.state.battle is not None and t.state.battle.stage == "conflict"
    assert sorted(t.state.players[0].hand) == sorted(s1.players[0].hand)
    assert not any(e["type"] == "artefact_applied" for e in t.events)


def test_fracture_not_playable_during_battle_outside_windows() -> None:
    """R36: outside the response windows Fracture cannot be played during a battle, even by the attacker
    on their own turn."""
    s = battle_board()
    set_hand(s, 0, ["fracture", *CONFLICT_HAND])
    set_artefacts(s, 1, ["crown_insight", "orb_greed"])
    t = act(s, 0, {"type": "advance", "to": "t4", "knights": 3})
    assert t.state.battle is not None and t.state.battle.stage == "conflict"
    reject(t.state, 0, {"type": "fracture", "target": "orb_greed"}, ErrorCode.WRONG_PHASE)


def test_authority_draw_reshuffle_cannot_bring_itself_back() -> None:
    """R32, R33, Q30, R99: Authority drawn in the battle draw is played at once; its 2-card draw reshuffles
    the discard pile without Authority (still resolving), which is discarded only afterwards; the player
    ends above the target of 5."""
    s = battle_board()
    auth = idx(s, "authority")
    p = s.players[0]
    hand = [idx(s, "heroic_assault"), idx(s, "shield_wall"), idx(s, "shield_wall", 1), idx(s, "ambush")]
    p.hand = hand
    p.deck = [auth]
    p.discard = [c for c in range(18) if c not in hand and c != auth]
    p.discard_turns = [0] * len(p.discard)
    t = act(s, 0, {"type": "advance", "to": "t4", "knights": 3})
    q = t.state.players[0]
    assert auth not in q.hand and auth not in q.deck
    assert q.discard == [auth] and q.discard_turns == [s.turn]
    assert len(q.hand) == 6
    assert all_cards(t.state, 0) == list(range(18))
    assert any(e["type"] == "reshuffle" and e["seat"] == 0 for e in t.events)


def test_authority_counts_towards_the_draw_target() -> None:
    """R33, R63, R100: drawing up to 5 counts Authority while drawing; after it is played (2 more cards)
    the hand holds 6."""
    s = battle_board()
    set_hand(s, 0, CONFLICT_HAND[:4], deck_top=["authority", "war_banner", "rallying_cry", "ambush"])
    t = act(s, 0, {"type": "advance", "to": "t4", "knights": 3})
    q = t.state.players[0]
    names = Counter(s.content.cards[c].id for c in q.hand)
    assert len(q.hand) == 6 and names["war_banner"] == 1 and names["rallying_cry"] == 1
    assert names["ambush"] == 0
    assert q.discard == [idx(s, "authority")]


def test_crown_window_goes_clockwise_from_the_crown_user() -> None:
    """R37, R40: the crown window asks every other player once, clockwise from the crown user (the user's
    own opportunity is always a pass), including players without Fracture; when several Fracture the
    crown the first clockwise plays and the later one keeps their card."""
    s = board(players=3)
    set_artefacts(s, 0, ["crown_fury"])
    set_hand(s, 0, ["shield_wall"])
    set_hand(s, 1, ["fracture"])
    set_hand(s, 2, ["fracture"])
    w = act(s, 0, {"type": "use_crown"}).state
    assert w.window is not None and w.window.kind == "crown"
    assert w.window.asked == [1, 2] and w.window.targets == ["crown_fury"]
    w2 = act(w, 2, {"type": "respond", "fracture": ["crown_fury"]}).state
    done = act(w2, 1, {"type": "respond", "fracture": ["crown_fury"]}).state
    fracture = idx(s, "fracture")
    assert fracture not in done.players[1].hand and fracture in done.players[1].discard
    assert fracture in done.players[2].hand and done.players[2].discard == []
    art = done.players[0].artefact("crown_fury")
    assert art is not None and not art.face_up and art.destroyed_on == s.turn
    assert done.choice is None and done.players[0].hand == s.players[0].hand
    s_empty = edit(s)
    set_hand(s_empty, 2, [])
    w3 = act(s_empty, 0, {"type": "use_crown"}).state
    assert w3.window is not None and w3.window.asked == [1, 2]
    four = edit(game(4, seed=2, pin={"first_player": 2}))
    set_artefacts(four, 2, ["crown_fury"])
    w4 = act(four, 2, {"type": "use_crown"}).state
    assert w4.window is not None and w4.window.asked == [3, 0, 1]


def test_crown_window_target_is_that_crown_only() -> None:
    """R36, R37: in the crown window the only legal Fracture target is the announced crown."""
    s = board()
    set_artefacts(s, 0, ["crown_fury", "sceptre_rage"])
    set_hand(s, 0, ["shield_wall"])
    set_hand(s, 1, ["fracture"])
    w = act(s, 0, {"type": "use_crown"}).state
    reject(w, 1, {"type": "respond", "fracture": ["sceptre_rage"]}, ErrorCode.INVALID_FRACTURE_TARGET)
    reject(w, 0, {"type": "respond", "fracture": []}, ErrorCode.NOT_YOUR_DECISION)


def test_no_hand_limit() -> None:
    """R38: there is no hand limit: a player may end the turn holding 12 cards and keeps them all."""
    s = board()
    names = [*CONFLICT_HAND, "probing_attack", "ambush", "ambush", "rallying_cry", "war_banner", "war_banner"]
    names.append("rallying_cry")
    set_hand(s, 0, names)
    t = act(s, 0, {"type": "end_turn"})
    assert len(t.state.players[0].hand) == 12 and t.state.players[0].discard == []


# --------------------------------------------------------------------------------------------------------
# Crowns (R39–R42)
# --------------------------------------------------------------------------------------------------------


def test_crown_once_per_turn_and_only_in_own_free_window() -> None:
    """R39: a crown is used at most once per own turn, only in a free window (not during a redistribution
    or a battle), never on another player's turn, never when face down."""
    s = board()
    place(s, 8, 0, 2)
    set_artefacts(s, 0, ["crown_fury"])
    set_artefacts(s, 1, ["crown_insight"])
    set_hand(s, 0, [])
    used = crown(s)
    assert used.crown_used
    reject(used, 0, {"type": "use_crown"}, ErrorCode.CROWN_ALREADY_USED)
    reject(s, 1, {"type": "use_crown"}, ErrorCode.NOT_YOUR_DECISION)
    m = act(s, 0, {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 1}]}).state
    reject(m, 0, {"type": "use_crown"}, ErrorCode.WRONG_PHASE)
    down = edit(s)
    art = down.players[0].artefact("crown_fury")
    assert art is not None
    art.face_up, art.destroyed_on = False, 1
    reject(down, 0, {"type": "use_crown"}, ErrorCode.CROWN_UNAVAILABLE)
    b = battle_board()
    bt = act(b, 0, {"type": "advance", "to": "t4", "knights": 3}).state
    assert bt.battle is not None
    reject(bt, 0, {"type": "use_crown"}, ErrorCode.WRONG_PHASE)


def test_fractured_crown_has_no_effect_and_is_destroyed() -> None:
    """R40, R36, R90, R93: a crown fractured in its crown window is destroyed and has no effect (Corruption
    does not destroy its target); destroyed on its owner's turn it stays face down through the owner's
    next turn and comes back at its end."""
    s = board()
    set_artefacts(s, 0, ["crown_corruption"])
    set_artefacts(s, 1, ["crown_order", "orb_greed"])
    set_hand(s, 1, ["fracture"])
    w = act(s, 0, {"type": "use_crown", "player": 1, "artefact": "orb_greed"}).state
    assert w.window is not None and w.window.asked == [1]
    done = act(w, 1, {"type": "respond", "fracture": ["crown_corruption"]}).state
    corr = done.players[0].artefact("crown_corruption")
    orb = done.players[1].artefact("orb_greed")
    assert corr is not None and not corr.face_up and corr.destroyed_on == s.turn
    assert orb is not None and orb.face_up
    assert discard_of(done, 1) == [(idx(s, "fracture"), s.turn)]
    reject(done, 0, {"type": "use_crown", "player": 1, "artefact": "orb_greed"}, ErrorCode.CROWN_UNAVAILABLE)
    nxt = act(act(done, 0, {"type": "end_turn"}).state, 1, {"type": "end_turn"}).state
    assert nxt.active == 0
    corr = nxt.players[0].artefact("crown_corruption")
    assert corr is not None and not corr.face_up
    reject(nxt, 0, {"type": "use_crown", "player": 1, "artefact": "orb_greed"}, ErrorCode.CROWN_UNAVAILABLE)
    back = act(nxt, 0, {"type": "end_turn"}).state
    corr = back.players[0].artefact("crown_corruption")
    assert corr is not None and corr.face_up


def test_crown_effect_waits_for_the_window() -> None:
    """R40: the crown use is announced, the crown window runs, and only then does the effect resolve."""
    s = board()
    set_artefacts(s, 0, ["crown_corruption"])
    set_artefacts(s, 1, ["crown_order", "orb_greed"])
    set_hand(s, 1, ["shield_wall"])
    w = act(s, 0, {"type": "use_crown", "player": 1, "artefact": "orb_greed"}).state
    orb = w.players[1].artefact("orb_greed")
    assert current_phase(w) == "response" and orb is not None and orb.face_up
    done = act(w, 1, {"type": "respond", "fracture": []}).state
    orb = done.players[1].artefact("orb_greed")
    assert orb is not None and not orb.face_up and orb.destroyed_on == s.turn


def test_corruption_on_another_player_and_on_oneself() -> None:
    """R41, Q31: Corruption destroys one face-up artefact of the chosen player, who may be the user
    themself; a face-down artefact is not a legal choice."""
    s = board()
    set_artefacts(s, 0, ["crown_corruption", "sceptre_rage"])
    set_artefacts(s, 1, ["crown_order", "sceptre_defiance"])
    own = crown(s, {"player": 0, "artefact": "sceptre_rage"})
    art = own.players[0].artefact("sceptre_rage")
    assert art is not None and not art.face_up and art.destroyed_on == s.turn
    down = edit(s)
    d = down.players[1].artefact("sceptre_defiance")
    assert d is not None
    d.face_up, d.destroyed_on = False, 1
    reject(
        down,
        0,
        {"type": "use_crown", "player": 1, "artefact": "sceptre_defiance"},
        ErrorCode.CROWN_BAD_CHOICE,
    )
    reject(
        s, 0, {"type": "use_crown", "player": 0, "artefact": "sceptre_defiance"}, ErrorCode.CROWN_BAD_CHOICE
    )


def test_fury_discards_a_chosen_card_or_nothing() -> None:
    """R41, R102, Q32: Fury lets the user discard any one card of their choice, or decline; with an empty
    hand it has no effect and no error."""
    s = board()
    set_artefacts(s, 0, ["crown_fury"])
    set_hand(s, 0, ["shield_wall", "war_banner"])
    c = crown(s)
    assert c.choice is not None and c.choice.kind == "may_discard" and c.choice.seat == 0
    banner = idx(s, "war_banner")
    done = act(c, 0, {"type": "discard_choice", "card": cid(0, banner)}).state
    assert done.players[0].hand == [idx(s, "shield_wall")]
    assert discard_of(done, 0) == [(banner, s.turn)]
    kept = act(c, 0, {"type": "discard_choice", "card": None}).state
    assert sorted(kept.players[0].hand) == sorted(s.players[0].hand) and kept.players[0].discard == []
    set_hand(s, 0, [])
    empty = crown(s)
    assert empty.choice is None and current_phase(empty) == "window" and empty.crown_used


def test_insight_reorders_the_top_four() -> None:
    """R41, R97, D18: Insight looks at the top 4 cards of the user's deck and puts them back in any order;
    the discard pile is untouched when the deck has 4 or more cards."""
    s = board()
    set_artefacts(s, 0, ["crown_insight"])
    top = ["heroic_assault", "war_banner", "ambush", "probing_attack", "shield_wall"]
    set_hand(s, 0, [], deck_top=top)
    s.players[0].discard, s.players[0].discard_turns = [], []
    c = crown(s)
    assert c.choice is not None and c.choice.kind == "insight_order"
    seen = c.choice.cards
    assert [s.content.cards[x].id for x in seen] == top[:4]
    new_order = [seen[2], seen[0], seen[3], seen[1]]
    done = act(c, 0, {"type": "insight_order", "order": [cid(0, x) for x in new_order]}).state
    assert done.players[0].deck[-4:][::-1] == new_order
    assert sorted(done.players[0].deck) == sorted(s.players[0].deck)
    reject(c, 0, {"type": "insight_order", "order": [cid(0, x) for x in seen[:3]]}, ErrorCode.BAD_ORDER)


def test_insight_with_short_deck_puts_shuffled_discard_under_the_deck() -> None:
    """R41: with fewer than 4 cards in the deck, Insight first shuffles the discard pile and puts it UNDER
    the remaining deck, so the old deck cards are still the top ones; then the top 4 are seen."""
    s = board()
    set_artefacts(s, 0, ["crown_insight"])
    p = s.players[0]
    a, b = idx(s, "heroic_assault"), idx(s, "war_banner")
    rest = [c for c in range(18) if c not in (a, b)]
    p.hand = rest[:10]
    p.deck = [a, b]  # b on top
    p.discard = rest[10:]
    p.discard_turns = [0] * len(p.discard)
    c = crown(s)
    assert c.choice is not None and c.choice.kind == "insight_order"
    assert c.choice.cards[:2] == [b, a]
    assert set(c.choice.cards[2:]) <= set(rest[10:]) and len(c.choice.cards) == 4
    q = c.players[0]
    assert q.deck[-2:] == [a, b] and sorted(q.deck[:-2]) == sorted(rest[10:])
    assert q.discard == [] and q.discard_turns == []


def test_insight_with_fewer_than_four_cards_in_all_sees_them_all() -> None:
    """R41: if deck and discard together hold fewer than 4 cards, Insight looks at all of them."""
    s = board()
    set_artefacts(s, 0, ["crown_insight"])
    p = s.players[0]
    a, b, c3 = idx(s, "heroic_assault"), idx(s, "war_banner"), idx(s, "ambush")
    p.hand = [x for x in range(18) if x not in (a, b, c3)]
    p.deck = [a]
    p.discard, p.discard_turns = [b, c3], [0, 0]
    c = crown(s)
    assert c.choice is not None and c.choice.cards[0] == a and sorted(c.choice.cards) == sorted([a, b, c3])


def test_order_only_returns_cards_discarded_on_a_previous_turn() -> None:
    """R41, R101, Q11: Order shuffles into the deck one card discarded on a previous turn; a card discarded
    this turn (Call to Arms just played) is refused."""
    s = board()
    s.turn = 5
    set_artefacts(s, 0, ["crown_order"])
    set_hand(s, 0, ["call_to_arms"])
    old = idx(s, "war_banner")
    s.players[0].deck.remove(old)
    s.players[0].discard, s.players[0].discard_turns = [old], [4]
    s1 = act(s, 0, {"type": "call_to_arms"}).state
    cta = idx(s, "call_to_arms")
    assert discard_of(s1, 0) == [(old, 4), (cta, 5)]
    reject(s1, 0, {"type": "use_crown", "card": cid(0, cta)}, ErrorCode.CROWN_BAD_CHOICE)
    done = crown(s1, {"card": cid(0, old)})
    q = done.players[0]
    assert discard_of(done, 0) == [(cta, 5)]
    assert old in q.deck and len(q.deck) == len(s1.players[0].deck) + 1


def test_order_shuffles_the_whole_deck() -> None:
    """R41: the returned card is shuffled into the deck (it does not always land on top)."""
    positions = set()
    for seed in range(8):
        s = board(seed=seed)
        s.turn = 3
        set_artefacts(s, 0, ["crown_order"])
        set_hand(s, 0, [])
        old = idx(s, "war_banner")
        s.players[0].deck.remove(old)
        s.players[0].discard, s.players[0].discard_turns = [old], [2]
        done = crown(s, {"card": cid(0, old)})
        positions.add(done.players[0].deck.index(old))
    assert len(positions) > 1


def test_order_with_no_eligible_card_has_no_effect() -> None:
    """R41, R101: with no card discarded on a previous turn, Order has no effect (the use is still made)."""
    s = board()
    set_artefacts(s, 0, ["crown_order"])
    set_hand(s, 0, ["call_to_arms"])
    s1 = act(s, 0, {"type": "call_to_arms"}).state
    done = crown(s1)
    assert done.crown_used and done.players[0].discard == s1.players[0].discard
    assert done.players[0].deck == s1.players[0].deck


def test_order_card_from_battle_cleanup_this_turn_is_not_eligible() -> None:
    """Q11, R80, R101: a conflict card discarded at battle clean-up this turn carries this turn's number
    and cannot be returned by Order this turn; one discarded on an earlier turn can."""
    s = battle_board()
    set_artefacts(s, 0, ["crown_order"])
    old = idx(s, "war_banner")
    s.players[0].deck.remove(old)
    s.players[0].discard, s.players[0].discard_turns = [old], [0]
    bt = act(s, 0, {"type": "advance", "to": "t4", "knights": 3}).state
    heroic = idx(s, "heroic_assault")
    bt = act(bt, 0, {"type": "choose_conflict", "card": cid(0, heroic)}).state
    bt = act(bt, 1, {"type": "choose_conflict", "card": cid(1, idx(s, "probing_attack"))}).state
    after = settle(bt)
    assert (heroic, s.turn) in discard_of(after, 0)
    reject(after, 0, {"type": "use_crown", "card": cid(0, heroic)}, ErrorCode.CROWN_BAD_CHOICE)
    done = crown(after, {"card": cid(0, old)})
    assert old in done.players[0].deck


def test_order_card_discarded_on_other_players_turn_is_eligible() -> None:
    """R101, Q11: discard turns are tracked across turns: Call to Arms played on turn 1 is eligible for
    Order on the owner's next turn (turn 3)."""
    s = board()
    set_artefacts(s, 0, ["crown_order"])
    set_hand(s, 0, ["call_to_arms"])
    cta = idx(s, "call_to_arms")
    s1 = act(s, 0, {"type": "call_to_arms"}).state
    s3 = act(act(s1, 0, {"type": "end_turn"}).state, 1, {"type": "end_turn"}).state
    assert s3.turn == 3 and s3.active == 0
    assert (cta, 1) in discard_of(s3, 0)
    done = crown(s3, {"card": cid(0, cta)})
    assert cta in done.players[0].deck and cta not in done.players[0].discard


def test_prosperity_keep_or_discard_the_top_card() -> None:
    """R41, R97, R98, R101: Prosperity looks at the chosen player's top card; the user leaves it on top or
    puts it on that player's discard pile (with the current turn, although it is not their turn)."""
    s = board()
    set_artefacts(s, 0, ["crown_prosperity"])
    set_hand(s, 1, [], deck_top=["heroic_assault"])
    top = idx(s, "heroic_assault")
    c = crown(s, {"player": 1})
    assert c.choice is not None and c.choice.kind == "prosperity" and c.choice.seat == 0
    assert c.choice.cards == [top]
    kept = act(c, 0, {"type": "prosperity_choice", "discard": False}).state
    assert kept.players[1].deck == s.players[1].deck and kept.players[1].discard == []
    gone = act(c, 0, {"type": "prosperity_choice", "discard": True}).state
    assert gone.players[1].deck == s.players[1].deck[:-1]
    assert discard_of(gone, 1) == [(top, s.turn)]
    assert gone.players[0].discard == s.players[0].discard


def test_prosperity_on_oneself() -> None:
    """Q31, R41: Prosperity may target the user themself."""
    s = board()
    set_artefacts(s, 0, ["crown_prosperity"])
    set_hand(s, 0, [], deck_top=["war_banner"])
    c = crown(s, {"player": 0})
    assert c.choice is not None and c.choice.target == 0 and c.choice.cards == [idx(s, "war_banner")]
    gone = act(c, 0, {"type": "prosperity_choice", "discard": True}).state
    assert discard_of(gone, 0) == [(idx(s, "war_banner"), s.turn)]


def test_prosperity_on_empty_deck_reshuffles_first() -> None:
    """Q26, R41, R99, R101: if the affected deck is empty, that player's discard pile is reshuffled into a
    new deck first (clearing the discard turns), then its top card is looked at."""
    s = board()
    set_artefacts(s, 0, ["crown_prosperity"])
    p = s.players[1]
    p.hand = list(range(12))
    p.deck = []
    p.discard, p.discard_turns = list(range(12, 18)), [1] * 6
    c = crown(s, {"player": 1})
    q = c.players[1]
    assert q.discard == [] and q.discard_turns == [] and sorted(q.deck) == list(range(12, 18))
    assert c.choice is not None and c.choice.cards == [q.deck[-1]]


def test_prosperity_with_no_cards_does_nothing() -> None:
    """Q26, Q32: Prosperity on a player whose deck and discard pile are both empty has no effect and no
    error."""
    s = board()
    set_artefacts(s, 0, ["crown_prosperity"])
    p = s.players[1]
    p.hand, p.deck, p.discard, p.discard_turns = list(range(18)), [], [], []
    c = crown(s, {"player": 1})
    assert c.choice is None and current_phase(c) == "window" and c.crown_used
    assert c.players[1].hand == list(range(18))


def test_vitality_gives_an_extra_redistribution_without_advance() -> None:
    """R41, R29, Q25: Vitality is an extra redistribution (not an advance, not a manoeuvre); it may come
    before the first manoeuvre, giving two redistributions before the first advance."""
    s = board()
    place(s, 8, 0, 3)
    set_artefacts(s, 0, ["crown_vitality"])
    v = crown(s)
    assert current_phase(v) == "vitality"
    reject(v, 0, {"type": "advance", "to": "t10", "knights": 1}, ErrorCode.WRONG_PHASE)
    v2 = act(v, 0, {"type": "redistribute", "moves": [{"from": "t8", "to": "castle", "knights": 2}]}).state
    assert v2.players[0].castle == 8 and v2.knights[8] == 1
    w = act(v2, 0, {"type": "finish_redistribution"}).state
    assert current_phase(w) == "window" and w.manoeuvres_left == 1
    m = act(w, 0, {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 1}]}).state
    assert current_phase(m) == "manoeuvre"
    a = act(m, 0, {"type": "advance", "to": "t10", "knights": 6}).state
    assert (a.owner[10], a.knights[10], a.players[0].castle) == (0, 6, 1)


def test_vitality_after_the_manoeuvre() -> None:
    """Q25, R41: Vitality may also be used after the manoeuvre, to bring knights back to the castle."""
    s = board()
    place(s, 8, 0, 3)
    set_artefacts(s, 0, ["crown_vitality"])
    a = act(s, 0, {"type": "advance", "to": "t10", "knights": 5}).state
    v = crown(a)
    assert current_phase(v) == "vitality"
    v2 = act(v, 0, {"type": "redistribute", "moves": [{"from": "t10", "to": "castle", "knights": 4}]}).state
    assert v2.players[0].castle == 5 and v2.knights[10] == 1


def test_vitality_obeys_redistribution_rules() -> None:
    """R41, R45, R46: the Vitality redistribution may not abandon a territory nor touch an unsupplied one."""
    s = board()
    place(s, 8, 0, 3)
    place(s, 9, 0, 2)  # next to seat 1's castle: unsupplied for seat 0
    set_artefacts(s, 0, ["crown_vitality"])
    v = crown(s)
    reject(
        v,
        0,
        {"type": "redistribute", "moves": [{"from": "t8", "to": "castle", "knights": 3}]},
        ErrorCode.TERRITORY_ABANDONED,
    )
    reject(
        v,
        0,
        {"type": "redistribute", "moves": [{"from": "t9", "to": "castle", "knights": 1}]},
        ErrorCode.LOCATION_UNSUPPLIED,
    )


def test_crown_destroyed_on_another_turn_is_restored_at_end_of_owners_turn() -> None:
    """R42, R93, R94: a crown destroyed on another player's turn stays unusable during its owner's next
    turn and is restored only in step 9, after the last crown window, so it cannot be used that turn."""
    s = board()
    set_artefacts(s, 0, ["crown_fury"])
    set_artefacts(s, 1, ["crown_insight"])
    set_hand(s, 1, ["fracture"])
    s2 = act(s, 0, {"type": "end_turn"}).state
    s2 = act(s2, 1, {"type": "fracture", "target": "crown_fury"}).state
    s3 = act(s2, 1, {"type": "end_turn"}).state
    assert s3.active == 0 and s3.turn == 3
    reject(s3, 0, {"type": "use_crown"}, ErrorCode.CROWN_UNAVAILABLE)
    s4 = act(s3, 0, {"type": "end_turn"}).state
    art = s4.players[0].artefact("crown_fury")
    assert art is not None and art.face_up
    reject(s4, 0, {"type": "use_crown"}, ErrorCode.NOT_YOUR_DECISION)


# --------------------------------------------------------------------------------------------------------
# Cards: drawing, exhaustion, discarding (R95–R102)
# --------------------------------------------------------------------------------------------------------


def test_hands_and_decks_are_secret_discards_public() -> None:
    """R95: another seat's view shows hand and deck sizes and the face-up discard pile (with turns), never
    the cards of the hand or the deck order."""
    s = board()
    set_hand(s, 0, ["heroic_assault", "call_to_arms"])
    s = act(s, 0, {"type": "call_to_arms"}).state
    view = view_for(s, 1)
    me = view["players"][0]
    assert "hand" not in me and me["hand_size"] == 1 and me["deck_size"] == 16
    assert [d["id"] for d in me["discard"]] == [cid(0, idx(s, "call_to_arms"))]
    assert me["discard"][0]["turn"] == s.turn
    text = json.dumps(view)
    secret = {cid(0, c) for c in s.players[0].hand + s.players[0].deck}
    assert not any(c in text for c in secret)
    own = view_for(s, 0)["players"][0]
    assert [h["id"] for h in own["hand"]] == [cid(0, idx(s, "heroic_assault"))]


def test_battle_draw_takes_the_top_card() -> None:
    """R96, R63: a draw takes the top card of the player's own deck into hand."""
    s = battle_board()
    set_hand(s, 0, CONFLICT_HAND[:4], deck_top=["war_banner"])
    top = s.players[0].deck[-1]
    assert s.content.cards[top].id == "war_banner"
    t = act(s, 0, {"type": "advance", "to": "t4", "knights": 3})
    assert top in t.state.players[0].hand and t.state.players[0].deck == s.players[0].deck[:-1]
    draws = [e for e in t.events if e["type"] == "draw" and e["seat"] == 0]
    assert draws and "cards" not in redact_event(draws[0], 1)
    assert redact_event(draws[0], 0)["cards"] == [cid(0, top)]


def test_looks_are_private_to_the_looker() -> None:
    """R97: the cards seen with Insight or Prosperity are shown to the looking player only."""
    s = board()
    set_artefacts(s, 0, ["crown_insight"])
    c = crown(s)
    assert "cards" in _choice(c, 0)
    assert "cards" not in _choice(c, 1)
    s = board()
    set_artefacts(s, 0, ["crown_prosperity"])
    c = crown(s, {"player": 1})
    seen = _choice(c, 0)["cards"]
    assert [x["id"] for x in seen] == [cid(1, c.players[1].deck[-1])]
    assert "cards" not in _choice(c, 1)
    assert "cards" not in _choice(c, None)


def _choice(state: GameState, viewer: int | None) -> ChoiceView:
    """The pending choice as ``viewer`` sees it (the test's position has one)."""
    choice = view_for(state, viewer)["choice"]
    assert choice is not None
    return choice


def test_battle_draw_reshuffles_an_empty_deck() -> None:
    """R99, R101: drawing from an empty deck first shuffles the whole discard pile into a new deck (the
    discard turn records are cleared), then the draw continues."""
    s = battle_board()
    p = s.players[0]
    keep = [idx(s, "heroic_assault"), idx(s, "shield_wall"), idx(s, "shield_wall", 1)]
    p.hand = keep
    p.deck = []
    p.discard = [c for c in range(18) if c not in keep]
    p.discard_turns = [0] * 15
    t = act(s, 0, {"type": "advance", "to": "t4", "knights": 3})
    q = t.state.players[0]
    assert any(e["type"] == "reshuffle" and e["seat"] == 0 for e in t.events)
    assert len(q.hand) >= 5 and set(keep) <= set(q.hand)
    assert q.discard in ([], [idx(s, "authority")])
    assert len(q.discard_turns) == len(q.discard)
    assert all_cards(t.state, 0) == list(range(18))


def test_draw_stops_when_deck_and_discard_are_empty() -> None:
    """R99: if deck and discard pile are both empty the draw simply stops (crafted position)."""
    s = battle_board()
    p = s.players[0]
    p.hand = [idx(s, "heroic_assault"), idx(s, "shield_wall")]
    p.deck, p.discard, p.discard_turns = [], [], []
    t = act(s, 0, {"type": "advance", "to": "t4", "knights": 3})
    assert t.state.battle is not None
    assert sorted(t.state.players[0].hand) == sorted(p.hand)


def test_reshuffle_leaves_cards_on_the_table() -> None:
    """R99, R75: cards still on the table in an ongoing battle are not shuffled: Orb of Greed reshuffles
    only the discard pile, and the played conflict card reaches the discard pile at clean-up."""
    s = battle_board()
    set_artefacts(s, 0, ["crown_fury", "orb_greed"])
    p = s.players[0]
    hand = [idx(s, n, k) for n, k in (("heroic_assault", 0), ("shield_wall", 0), ("shield_wall", 1))]
    hand += [idx(s, "audacious_charge"), idx(s, "audacious_charge", 1)]
    p.hand = hand
    p.deck = []
    p.discard = [c for c in range(18) if c not in hand]
    p.discard_turns = [0] * len(p.discard)
    heroic = hand[0]
    bt = act(s, 0, {"type": "advance", "to": "t4", "knights": 5}).state
    bt = act(bt, 0, {"type": "choose_conflict", "card": cid(0, heroic)}).state
    bt = act(bt, 1, {"type": "choose_conflict", "card": cid(1, idx(s, "probing_attack"))}).state
    after = settle(bt)
    q = after.players[0]
    assert after.owner[4] == 0
    assert heroic not in q.deck and heroic not in q.hand
    assert (heroic, s.turn) in discard_of(after, 0)
    assert len(q.hand) >= 6
    assert all_cards(after, 0) == list(range(18))


def test_draw_to_target_draws_nothing_when_hand_is_full() -> None:
    """R100, R63: drawing up to 5 draws nothing when the hand already holds 5 or more (7 here); nobody
    discards down."""
    s = battle_board()
    set_hand(s, 0, [*CONFLICT_HAND, "war_banner", "rallying_cry"])
    t = act(s, 0, {"type": "advance", "to": "t4", "knights": 3})
    assert len(t.state.players[0].hand) == 7 and t.state.players[0].deck == s.players[0].deck


def test_random_discard_is_uniform() -> None:
    """R102, R66: a random discard (Sceptre of Influence) picks each card of the hand with equal chance."""
    counts: Counter[int] = Counter()
    trials = 100
    for seed in range(trials):
        s = battle_board(seed=1)
        s.seed = 1000 + seed
        set_artefacts(s, 0, ["crown_fury", "sceptre_influence"])
        t = act(s, 0, {"type": "advance", "to": "t4", "knights": 3})
        st = pass_windows(t.state)
        discarded = st.players[1].discard
        assert len(discarded) == 1 and len(st.players[1].hand) == 4
        assert st.players[1].discard_turns == [s.turn]
        counts[discarded[0]] += 1
    assert set(counts) == set(s.players[1].hand)
    assert all(8 <= n <= 35 for n in counts.values()), counts


def test_random_discard_from_empty_hand_does_nothing() -> None:
    """Q32, R66, R102: a random discard against an empty hand has no effect and raises no error (crafted:
    the defender has no cards anywhere)."""
    s = battle_board()
    set_artefacts(s, 0, ["crown_fury", "sceptre_influence"])
    q = s.players[1]
    q.hand, q.deck, q.discard, q.discard_turns = [], [], [], []
    t = act(s, 0, {"type": "advance", "to": "t4", "knights": 3})
    st = pass_windows(t.state)
    assert st.battle is not None and st.players[1].discard == [] and st.players[1].hand == []


def test_nothing_else_during_the_vitality_redistribution() -> None:
    """R29, R34, R35, R36, R39: the Vitality redistribution is a redistribution: no resource card, Fracture,
    second crown use or end of turn may be inserted until it is finished."""
    s = board()
    place(s, 8, 0, 3)
    set_artefacts(s, 0, ["crown_vitality"])
    set_artefacts(s, 1, ["crown_insight", "orb_greed"])
    set_hand(s, 0, ["call_to_arms", "tactical_advance", "fracture"])
    v = crown(s)
    assert current_phase(v) == "vitality"
    for payload in (
        {"type": "call_to_arms"},
        {"type": "tactical_advance"},
        {"type": "fracture", "target": "orb_greed"},
        {"type": "use_crown"},
        {"type": "end_turn"},
    ):
        reject(v, 0, payload, ErrorCode.WRONG_PHASE)
    w = act(v, 0, {"type": "finish_redistribution"}).state
    assert act(w, 0, {"type": "call_to_arms"}).state.players[0].castle == 8
