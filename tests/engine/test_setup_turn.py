"""Engine tests for components, board and control, knights and dice, setup and turn structure
(medieval-mastery.md R1–R31, with rulings Q1, Q2, Q20, Q23, Q24, Q33).

Positions refer to the shipped 2-player layout (geometry is checked by :func:`_check_2p_geometry`; tile
types are always set explicitly with ``set_tile``): seat 0's castle t12 touches t8 and t10, seat 1's castle
t11 touches t7 and t9, the lake t0 is surrounded by t1–t6.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from games.engine import (
    ContentError,
    ErrorCode,
    GameState,
    IllegalAction,
    Transition,
    apply,
    current_phase,
    dice_in_use,
    load_board,
    new_game,
    pending,
    to_dict,
    victory_points,
)
from games.engine.bot import choose
from games.engine.rng import Rng
from tests.engine.fixtures import (
    act,
    big_capacity_content,
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


def _check_2p_geometry(s: GameState) -> None:
    """The facts about the shipped 2-player layout these tests rely on."""
    assert castle_pos(s, 0) == 12 and castle_pos(s, 1) == 11
    assert sorted(neighbours(s, 12)) == [8, 10]
    assert sorted(neighbours(s, 11)) == [7, 9]
    assert s.board.kinds[0] == "lake" and sorted(neighbours(s, 0)) == [1, 2, 3, 4, 5, 6]
    assert 4 in neighbours(s, 8) and 5 in neighbours(s, 8) and 5 in neighbours(s, 10)


def board(seed: int = 1, players: int = 2, **kw: Any) -> GameState:
    """A fresh editable game with an empty map and every territory a plain Forest (no abilities)."""
    s = edit(game(players, seed=seed, **kw))
    if players == 2:
        _check_2p_geometry(s)
    clear_map(s)
    for t in territories(s):
        set_tile(s, t, "forest")
    return s


def reject(s: GameState, seat: int, payload: dict[str, Any], code: ErrorCode) -> IllegalAction:
    """Assert ``payload`` is refused with ``code`` and the input state is untouched."""
    before = to_dict(s)
    with pytest.raises(IllegalAction) as err:
        act(s, seat, payload)
    assert err.value.code == code, err.value
    assert to_dict(s) == before
    return err.value


def settle(t: Transition) -> GameState:
    """Answer every open prompt of a battle / response window / choice with its timeout action."""
    s = t.state
    guard = 0
    while s.battle is not None or s.window is not None or s.choice is not None:
        prompt = pending(s)[0]
        s = apply(s, prompt.seat, prompt.timeout_action).state
        guard += 1
        assert guard < 100
    return s


def total_knights(s: GameState, seat: int) -> int:
    return s.players[seat].castle + sum(k for o, k in zip(s.owner, s.knights, strict=True) if o == seat)


# --------------------------------------------------------------------------------------------------------
# 1. Components (R1–R8)
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 7])
def test_player_count_outside_two_to_six_is_refused(players: int) -> None:
    """R1: the game is for 2–6 players; other counts are refused at setup."""
    with pytest.raises(ContentError):
        new_game({"players": players, "seed": 1})


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_player_has_a_set_deck_and_castle(players: int) -> None:
    """R1, R2, R18, R22: every seat gets its own castle, an 18-card deck (hand + deck + discard) holding
    exactly one each of Authority, Call to Arms, Tactical Advance and Fracture, and 14 conflict/support
    cards."""
    s = game(players, seed=11)
    castles = set()
    for p in s.players:
        cards = sorted(p.deck + p.hand + p.discard)
        assert cards == list(range(18))
        kinds = Counter(s.content.cards[c].kind for c in cards)
        assert kinds["resource"] == 4
        assert kinds["conflict"] + kinds["support"] == 14
        resources = sorted(s.content.cards[c].id for c in cards if s.content.cards[c].kind == "resource")
        assert resources == ["authority", "call_to_arms", "fracture", "tactical_advance"]
        pos = castle_pos(s, p.seat)
        assert s.board.kinds[pos] == "castle"
        castles.add(pos)
    assert len(castles) == players


def test_conflict_and_support_card_values() -> None:
    """R3, R4: conflict cards are worth 2–5 or are Ambush (a d6); support cards are +1 or +2; Audacious
    Charge is a conflict card of value 4."""
    s = game(2, seed=1)
    for c in s.content.cards:
        if c.kind == "conflict":
            assert c.ambush or (c.value is not None and 2 <= c.value <= 5)
        elif c.kind == "support":
            assert c.value in (1, 2)
    charge = [c for c in s.content.cards if c.id == "audacious_charge"]
    assert charge and all(c.kind == "conflict" and c.value == 4 for c in charge)
    assert any(c.ambush for c in s.content.cards)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_artefacts_one_of_each_type_per_player(players: int) -> None:
    """R5, R20, R21: 18 artefacts (6 crowns, 6 sceptres, 6 orbs); each player is dealt one of each type,
    face up; no artefact is dealt twice and the undealt ones are out of the game."""
    s = game(players, seed=5)
    assert len(s.content.artefacts) == 18
    assert Counter(a.type for a in s.content.artefacts.values()) == {"crown": 6, "sceptre": 6, "orb": 6}
    dealt: list[str] = []
    for p in s.players:
        types = sorted(s.content.artefacts[a.id].type for a in p.artefacts)
        assert types == ["crown", "orb", "sceptre"]
        assert all(a.face_up for a in p.artefacts)
        dealt += [a.id for a in p.artefacts]
    assert len(dealt) == len(set(dealt)) == 3 * players


def test_artefact_deal_is_random() -> None:
    """R20: the three artefact piles are shuffled, so different seeds deal different artefacts."""
    deals = {tuple(a.id for p in game(2, seed=seed).players for a in p.artefacts) for seed in range(12)}
    assert len(deals) > 1


def test_territory_tiles_match_layout_values() -> None:
    """R6, R19, R21: 30 territory tiles with VP 1–3; every territory position gets a tile of its layout VP
    value (no more copies than exist), castles and lakes get none; unused tiles stay out of the game."""
    s = game(2, seed=7)
    assert sum(count for _t, _vp, count in s.content.tiles) == 30
    assert all(vp in (1, 2, 3) for _t, vp, _c in s.content.tiles)
    available = Counter({(t, vp): count for t, vp, count in s.content.tiles})
    used: Counter[tuple[str, int]] = Counter()
    for i, kind in enumerate(s.board.kinds):
        if kind == "territory":
            used[(s.tiles[i], s.board.layout_vp[i])] += 1
        else:
            assert s.tiles[i] == ""
    assert all(used[k] <= available[k] for k in used)
    assert sum(used.values()) == len(territories(s)) < 30


def test_map_fill_is_random_and_pinnable() -> None:
    """R19: tiles of a VP value are drawn at random (seeds differ); a pinned tile lands where pinned."""
    fills = {tuple(game(2, seed=seed).tiles) for seed in range(10)}
    assert len(fills) > 1
    s = game(2, seed=3, pin={"tiles": {"t2": "city"}})
    assert s.tiles[2] == "city"


def test_layouts_allow_three_games_from_one_box() -> None:
    """R8: the layouts fit the box: three 2-player games, two 3-player games, or a 2- and a 4-player
    game at once (3 lakes, 30 territories in the box)."""
    lakes = {n: load_board(n).kinds.count("lake") for n in range(2, 7)}
    terr = {n: load_board(n).kinds.count("territory") for n in range(2, 7)}
    assert 3 * lakes[2] <= 3 and 3 * terr[2] <= 30
    assert 2 * lakes[3] <= 3 and 2 * terr[3] <= 30
    assert lakes[2] + lakes[4] <= 3 and terr[2] + terr[4] <= 30
    assert all(lakes[n] <= 3 and terr[n] <= 30 for n in (5, 6))


# --------------------------------------------------------------------------------------------------------
# 2. Board and control (R9–R14)
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4, 6])
def test_adjacency_is_shared_hex_edge(players: int) -> None:
    """R9: two positions are adjacent exactly when their hexes share an edge (axial neighbours); adjacency
    is symmetric."""
    b = load_board(players)
    dirs = {(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)}
    for i, (q, r) in enumerate(b.coords):
        expected = {j for j, (q2, r2) in enumerate(b.coords) if (q2 - q, r2 - r) in dirs}
        assert set(b.adjacent[i]) == expected
        for j in b.adjacent[i]:
            assert i in b.adjacent[j]


def test_castle_has_unlimited_capacity_and_may_be_empty() -> None:
    """R10, Q33: a castle holds any number of knights (here 16, beyond a territory's 6) and may be emptied
    completely by an advance."""
    s = board()
    s.players[0].castle = 10
    place(s, 8, 0, 6)
    t = act(s, 0, {"type": "redistribute", "moves": [{"from": "t8", "to": "castle", "knights": 5}]})
    assert t.state.players[0].castle == 15 and t.state.knights[8] == 1
    s = board()
    s.players[0].castle = 4
    t = act(s, 0, {"type": "advance", "to": "t10", "knights": 4})
    assert t.state.players[0].castle == 0
    assert t.state.owner[10] == 0 and t.state.knights[10] == 4


def test_gained_knights_go_to_own_castle() -> None:
    """R10, R31, R34: knights a player gains (turn start, Call to Arms) are placed in their own castle."""
    s = board()
    s.players[0].castle = 2
    place(s, 8, 0, 3)
    set_hand(s, 0, ["call_to_arms"])
    t = act(s, 0, {"type": "call_to_arms"})
    assert t.state.players[0].castle == 4
    assert t.state.knights[8] == 3 and t.state.players[1].castle == s.players[1].castle


def test_capacity_limits_advance_and_redistribution() -> None:
    """R12, R45, R55: a territory's capacity is 6 unless its type says otherwise (Cave 3 in the default
    set); advancing or redistributing beyond it is refused, up to it is accepted."""
    s = board()
    s.players[0].castle = 10
    set_tile(s, 10, "cave")
    assert s.content.territory_types["cave"].capacity == 3
    reject(s, 0, {"type": "advance", "to": "t10", "knights": 4}, ErrorCode.OVER_CAPACITY)
    assert act(s, 0, {"type": "advance", "to": "t10", "knights": 3}).state.knights[10] == 3
    reject(s, 0, {"type": "advance", "to": "t8", "knights": 7}, ErrorCode.OVER_CAPACITY)
    assert act(s, 0, {"type": "advance", "to": "t8", "knights": 6}).state.knights[8] == 6
    place(s, 10, 0, 2)
    reject(
        s,
        0,
        {"type": "redistribute", "moves": [{"from": "castle", "to": "t10", "knights": 2}]},
        ErrorCode.OVER_CAPACITY,
    )
    t = act(s, 0, {"type": "redistribute", "moves": [{"from": "castle", "to": "t10", "knights": 1}]})
    assert t.state.knights[10] == 3


def test_capacity_is_per_player_in_a_battle() -> None:
    """R12, R57: capacity limits each player separately: 6 attackers may advance into a territory held
    by 6 defenders, and both sides then have 6 knights there."""
    s = board()
    s.players[0].castle = 6
    place(s, 8, 0, 1)
    place(s, 4, 1, 6)
    t = act(s, 0, {"type": "advance", "to": "t4", "knights": 6})
    b = t.state.battle
    assert b is not None and b.att_knights == 6 and b.defender == 1
    assert t.state.knights[4] == 6 and t.state.owner[4] == 1


def test_control_requires_being_sole_occupant() -> None:
    """R13: a player controls a territory holding their knights; an empty territory is uncontrolled and
    an enemy territory is not theirs to redistribute into."""
    s = board()
    s.players[0].castle = 5
    place(s, 8, 0, 2)
    place(s, 10, 1, 2)
    t = act(s, 0, {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 1}]})
    assert t.state.knights[8] == 3
    for target in ("t10", "t5"):
        reject(
            s,
            0,
            {"type": "redistribute", "moves": [{"from": "castle", "to": target, "knights": 1}]},
            ErrorCode.NOT_YOUR_LOCATION,
        )


def test_disputed_territory_scores_for_nobody() -> None:
    """R13, R14: a territory with knights of two players (battle running) is controlled by nobody and
    scores for nobody until the battle ends."""
    s = board()
    s.players[0].castle = 6
    place(s, 8, 0, 1)
    place(s, 4, 1, 3)
    set_artefacts(s, 0, ["crown_fury"])
    set_artefacts(s, 1, ["crown_insight"])
    set_hand(s, 0, ["heroic_assault", "shield_wall", "shield_wall", "ambush", "ambush"])
    set_hand(s, 1, ["probing_attack", "shield_wall", "audacious_charge", "ambush", "ambush"])
    assert victory_points(s)[1] == s.board.layout_vp[4]
    t = act(s, 0, {"type": "advance", "to": "t4", "knights": 6})
    assert t.state.battle is not None
    assert victory_points(t.state)[1] == 0 and victory_points(t.state)[0] == s.board.layout_vp[8]


def test_vp_is_sum_of_controlled_territories_even_unsupplied() -> None:
    """R14, R50: a player's VP is the sum of the VP values of the territories they control, including a
    territory without line of supply."""
    s = board()
    place(s, 8, 0, 1)
    place(s, 9, 0, 1)  # next to seat 1's castle: no line of supply for seat 0
    place(s, 7, 1, 1)
    vp = victory_points(s)
    assert vp[0] == s.board.layout_vp[8] + s.board.layout_vp[9]
    assert vp[1] == s.board.layout_vp[7]


# --------------------------------------------------------------------------------------------------------
# 3. Knights and dice (R15–R17, Q20)
# --------------------------------------------------------------------------------------------------------


def test_redistribution_conserves_knights() -> None:
    """R15, R44: the engine tracks knights per location; a redistribution leaves the total unchanged."""
    s = board()
    s.players[0].castle = 3
    place(s, 8, 0, 4)
    place(s, 5, 0, 2)
    moves = [
        {"from": "t8", "to": "castle", "knights": 3},
        {"from": "castle", "to": "t5", "knights": 2},
    ]
    t = act(s, 0, {"type": "redistribute", "moves": moves})
    assert (t.state.players[0].castle, t.state.knights[8], t.state.knights[5]) == (4, 1, 4)
    assert total_knights(t.state, 0) == total_knights(s, 0) == 9


def test_dice_in_use_counts_one_die_per_six_knights() -> None:
    """R16, Q20: dice in use = Σ ceil(knights / 6) over castle and territories; with the big-capacity
    FIXTURE content a Battlefield of 8 knights needs 2 dice."""
    s = board(content=big_capacity_content())
    set_tile(s, 8, "battlefield")
    assert s.content.territory_types["battlefield"].capacity == 8
    s.players[0].castle = 0
    place(s, 8, 0, 8)
    assert dice_in_use(s, 0) == 2
    place(s, 10, 0, 6)
    s.players[0].castle = 7
    assert dice_in_use(s, 0) == 2 + 1 + 2


def test_gains_beyond_ten_dice_are_lost() -> None:
    """R7, R16, R34, Q20: a player has 10 dice; knights gained by Call to Arms that would need an 11th die
    are lost (castle 6 + Battlefield 8 (2 dice) + 7 territories of 1 = 10 dice: both knights lost)."""
    s = board(content=big_capacity_content())
    set_tile(s, 8, "battlefield")
    place(s, 8, 0, 8)
    for pos in (1, 2, 3, 4, 5, 6, 10):
        place(s, pos, 0, 1)
    s.players[0].castle = 6
    assert dice_in_use(s, 0) == 10
    set_hand(s, 0, ["call_to_arms"])
    t = act(s, 0, {"type": "call_to_arms"})
    assert t.state.players[0].castle == 6
    assert dice_in_use(t.state, 0) == 10
    gained = [e for e in t.events if e["type"] == "knights_gained"]
    assert gained and gained[0]["knights"] == 0 and gained[0]["lost"] == 2


def test_gains_are_added_one_by_one_until_the_budget() -> None:
    """R16, R31, Q20: knights are added one by one; only those needing an 11th die are lost (castle 4 + 9
    territories = 10 dice: the turn's 3 knights bring the castle to 6, the third knight is lost)."""
    s = board(content=big_capacity_content())
    for pos in (1, 2, 3, 4, 5, 6, 7, 8, 9):
        place(s, pos, 1, 1)
    s.players[1].castle = 4
    assert dice_in_use(s, 1) == 10
    t = act(s, 0, {"type": "end_turn"})
    assert t.state.active == 1
    assert t.state.players[1].castle == 6
    assert dice_in_use(t.state, 1) == 10


def test_redistribution_above_ten_dice_is_illegal() -> None:
    """R16, R45, Q20: a redistribution that would end with 11 dice in use is illegal even though capacity
    allows it (Battlefield 6 → 7 needs a second die); with one die free it is legal."""
    s = board(content=big_capacity_content())
    set_tile(s, 8, "battlefield")
    place(s, 8, 0, 6)
    for pos in (1, 2, 3, 4, 5, 6, 9, 10):
        place(s, pos, 0, 1)
    s.players[0].castle = 6
    assert dice_in_use(s, 0) == 10
    move = {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 1}]}
    reject(s, 0, move, ErrorCode.DICE_BUDGET)
    place(s, 9, -1, 0)
    t = act(s, 0, move)
    assert t.state.knights[8] == 7 and dice_in_use(t.state, 0) == 10
    place(s, 8, 0, 7)
    s.players[0].castle = 5
    two = {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 2}]}
    reject(s, 0, two, ErrorCode.OVER_CAPACITY)
    assert act(s, 0, move).state.knights[8] == 8


def test_advance_above_ten_dice_is_illegal() -> None:
    """R16, R55, Q20: an advance that would end with 11 dice in use is illegal (castle 12 → 11 still needs
    2 dice plus one for the new territory); advancing 6 (castle 6 = 1 die) is legal."""
    s = board(content=big_capacity_content())
    for pos in (1, 2, 3, 4, 5, 6, 8, 10):
        place(s, pos, 0, 1)
    s.players[0].castle = 12
    assert dice_in_use(s, 0) == 10
    reject(s, 0, {"type": "advance", "to": "t9", "knights": 1}, ErrorCode.DICE_BUDGET)
    with pytest.raises(IllegalAction) as refused:  # the numbers, for the message (issue 31: no literal 10)
        act(s, 0, {"type": "advance", "to": "t9", "knights": 1})
    assert refused.value.params == {"dice": 11, "budget": 10, "rule": "R16"}
    t = act(s, 0, {"type": "advance", "to": "t9", "knights": 6})
    assert t.state.owner[9] == 0 and t.state.knights[9] == 6
    assert dice_in_use(t.state, 0) == 10


def test_lost_knights_leave_the_map() -> None:
    """R17: knights lost (here the Marshlands conquest loss) are removed from the map, not put in the
    castle, and their die returns to the reserve."""
    s = board()
    s.players[0].castle = 6
    set_tile(s, 10, "marshlands")
    t = act(s, 0, {"type": "advance", "to": "t10", "knights": 2})
    assert t.state.knights[10] == 1 and t.state.players[0].castle == 4
    assert total_knights(t.state, 0) == 5
    t = act(s, 0, {"type": "advance", "to": "t10", "knights": 1})
    assert t.state.owner[10] == -1 and t.state.knights[10] == 0
    assert dice_in_use(t.state, 0) == 1 and total_knights(t.state, 0) == 5


# --------------------------------------------------------------------------------------------------------
# 4. Setup (R18–R25, Q1, Q2)
# --------------------------------------------------------------------------------------------------------


def test_castles_assigned_in_seat_order() -> None:
    """R18, R19: each seat's castle is the layout's castle position for that seat."""
    for n in (2, 3, 4, 5, 6):
        s = game(n, seed=2)
        for seat in range(n):
            pos = castle_pos(s, seat)
            assert s.board.raw["positions"][pos]["kind"] == "castle"
            assert s.board.raw["positions"][pos]["seat"] == seat


def test_starting_knights_without_homelands() -> None:
    """R23: with no Homelands next to the castle all 6 starting knights are in the castle."""
    s = game(2, seed=4, pin={"tiles": {"t7": "forest", "t9": "village"}})
    assert s.players[1].castle == 6
    assert s.owner[7] == -1 and s.owner[9] == -1


def test_starting_knights_with_one_homelands() -> None:
    """R23: with one adjacent Homelands the split is 3 in the castle and 3 in the Homelands, which the
    player controls (and scores) from the start."""
    s = game(2, seed=4, pin={"tiles": {"t7": "homelands", "t9": "village"}})
    assert s.players[1].castle == 3
    assert (s.owner[7], s.knights[7]) == (1, 3)
    assert victory_points(s)[1] == s.board.layout_vp[7]


def test_starting_knights_with_two_homelands() -> None:
    """R23, Q1: with two adjacent Homelands the 6 knights are split 2/2/2."""
    s = game(2, seed=4, pin={"tiles": {"t7": "homelands", "t9": "homelands"}})
    assert s.players[1].castle == 2
    assert (s.owner[7], s.knights[7]) == (1, 2)
    assert (s.owner[9], s.knights[9]) == (1, 2)
    assert victory_points(s)[1] == s.board.layout_vp[7] + s.board.layout_vp[9]


def test_first_player_castle_gets_turn_knights_on_top_of_start() -> None:
    """R23, R31: the first player also places 3 knights at the start of the first turn (2/2/2 start → 5
    in the castle)."""
    s = game(2, seed=4, pin={"tiles": {"t8": "homelands", "t10": "homelands"}})
    assert s.players[0].castle == 2 + 3
    assert s.knights[8] == 2 and s.knights[10] == 2


def test_mayhem_adds_six_castle_knights() -> None:
    """R23, R118: under Mayhem each castle receives 6 more knights at setup."""
    s = game(2, seed=4, options={"mayhem": True}, pin={"tiles": {"t7": "homelands", "t9": "forest"}})
    assert s.players[1].castle == 3 + 6 and s.knights[7] == 3


def _layout(positions: list[dict[str, Any]]) -> dict[str, Any]:
    return {"players": 2, "provenance": "fixture", "positions": positions}


def test_layout_with_territory_touching_two_castles_is_rejected() -> None:
    """Q2, R23: a layout where one territory touches two castles is rejected when loaded."""
    layout = _layout(
        [
            {"q": 0, "r": 0, "kind": "territory", "vp": 1},
            {"q": -1, "r": 0, "kind": "castle", "seat": 0},
            {"q": 1, "r": 0, "kind": "castle", "seat": 1},
            {"q": 0, "r": 1, "kind": "territory", "vp": 2},
        ]
    )
    with pytest.raises(ContentError):
        game(2, seed=1, layout=layout)
    layout["positions"][2] = {"q": 2, "r": 0, "kind": "castle", "seat": 1}  # control: now valid
    assert game(2, seed=1, layout=layout).board.size == 4


def test_layout_with_three_territories_at_a_castle_is_rejected() -> None:
    """Q2, R23: a castle touching more than two territory positions (possible third Homelands) is
    rejected when the layout is loaded."""
    layout = _layout(
        [
            {"q": 0, "r": 0, "kind": "castle", "seat": 0},
            {"q": 1, "r": 0, "kind": "territory", "vp": 1},
            {"q": 0, "r": 1, "kind": "territory", "vp": 1},
            {"q": -1, "r": 1, "kind": "territory", "vp": 1},
            {"q": 4, "r": 0, "kind": "castle", "seat": 1},
            {"q": 3, "r": 0, "kind": "territory", "vp": 2},
        ]
    )
    with pytest.raises(ContentError):
        game(2, seed=1, layout=layout)
    del layout["positions"][3]  # control: two territories at the castle are fine
    assert game(2, seed=1, layout=layout).board.size == 5


def test_opening_hand_is_five_cards() -> None:
    """R24: each player draws 5 cards (6 when Authority came in: it is played, 2 drawn, then discarded)."""
    for seed in range(8):
        s = game(3, seed=seed)
        for p in s.players:
            authority = s.content.effect_index["authority"]
            if authority in p.discard:
                assert len(p.hand) == 6 and p.discard == [authority]
            else:
                assert len(p.hand) == 5 and p.discard == []
            assert authority not in p.hand


def test_authority_in_opening_draw_is_played_at_once() -> None:
    """R24, R33: Authority drawn in the setup draw (first or last of the five) is played automatically:
    2 more cards, then it goes to the discard pile; it never stays in hand."""
    first_five = ["shield_wall", "ambush", "rallying_cry", "war_banner", "authority"]
    authority_first = game(2, seed=9, pin={"decks": [["authority"]]})
    authority_last = game(2, seed=9, pin={"decks": [[], [*first_five, "heroic_assault"]]})
    for s, seat in ((authority_first, 0), (authority_last, 1)):
        p = s.players[seat]
        authority = s.content.effect_index["authority"]
        assert authority not in p.hand
        assert p.discard == [authority]
        assert len(p.hand) == 6 and len(p.deck) == 11
    content = authority_last.content
    hand = Counter(content.cards[c].id for c in authority_last.players[1].hand)
    expected = Counter([*first_five[:4], "heroic_assault"])
    assert all(hand[k] >= v for k, v in expected.items())


def test_setup_shuffles_each_deck() -> None:
    """R22: each deck is shuffled, so different seeds give different deck orders."""
    orders = {tuple(game(2, seed=seed).players[1].deck) for seed in range(6)}
    assert len(orders) > 1


def test_first_player_is_random() -> None:
    """R25: without a pin the first player is chosen at random (different seeds pick different seats)."""
    firsts = {new_game({"players": 3, "seed": seed}).active for seed in range(30)}
    assert firsts == {0, 1, 2}


def test_turns_pass_clockwise() -> None:
    """R25, R27: turns pass clockwise (increasing seat modulo the player count) from the first player."""
    s = game(3, seed=1, pin={"first_player": 1})
    seen = [s.active]
    for _ in range(4):
        s = act(s, s.active, {"type": "end_turn"}).state
        seen.append(s.active)
    assert seen == [1, 2, 0, 1, 2]


# --------------------------------------------------------------------------------------------------------
# 5. Turn structure (R26–R31, Q23, Q24)
# --------------------------------------------------------------------------------------------------------


def test_turn_counter_and_first_window() -> None:
    """R26, R27: T is 1 on the first turn and increases by 1 at the start of every turn; a turn starts in
    a free window."""
    s = game(2, seed=1)
    assert s.turn == 1 and current_phase(s) == "window" and s.active == 0
    s = act(s, 0, {"type": "end_turn"}).state
    assert s.turn == 2 and s.active == 1 and current_phase(s) == "window"
    s = act(s, 1, {"type": "end_turn"}).state
    assert s.turn == 3 and s.active == 0


def test_three_knights_placed_every_turn() -> None:
    """R31: at the start of every turn, including the first, the active player adds 3 knights to their
    castle; nobody else gains."""
    s = game(2, seed=4, pin={"tiles": {"t7": "forest", "t9": "forest", "t8": "village", "t10": "village"}})
    assert s.players[0].castle == 9 and s.players[1].castle == 6
    s = act(s, 0, {"type": "end_turn"}).state
    assert s.players[1].castle == 9 and s.players[0].castle == 9


def test_nothing_is_mandatory() -> None:
    """R30, R58: a player may end the turn at once, without playing cards, using a crown or advancing."""
    s = game(2, seed=3)
    t = act(s, 0, {"type": "end_turn"})
    assert t.state.active == 1
    assert t.state.players[0].hand == s.players[0].hand


def test_one_manoeuvre_per_turn() -> None:
    """R28: one manoeuvre per turn: after an advance a second advance or redistribution is refused."""
    s = board()
    s.players[0].castle = 6
    t = act(s, 0, {"type": "advance", "to": "t8", "knights": 2})
    assert t.state.manoeuvres_left == 0 and current_phase(t.state) == "window"
    reject(t.state, 0, {"type": "advance", "to": "t10", "knights": 1}, ErrorCode.NO_MANOEUVRE_LEFT)
    reject(
        t.state,
        0,
        {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 1}]},
        ErrorCode.NO_MANOEUVRE_LEFT,
    )


def test_declined_advance_ends_the_manoeuvre() -> None:
    """R28, R29, R58: redistribution starts a manoeuvre; declining the advance ends it, after which no
    further redistribution is allowed (it only comes as the first part of a manoeuvre)."""
    s = board()
    s.players[0].castle = 6
    place(s, 8, 0, 2)
    t = act(s, 0, {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 1}]})
    assert current_phase(t.state) == "manoeuvre"
    t = act(t.state, 0, {"type": "decline_advance"})
    assert current_phase(t.state) == "window" and t.state.manoeuvres_left == 0
    reject(
        t.state,
        0,
        {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 1}]},
        ErrorCode.NO_MANOEUVRE_LEFT,
    )
    reject(t.state, 0, {"type": "advance", "to": "t10", "knights": 1}, ErrorCode.NO_MANOEUVRE_LEFT)


def test_manoeuvre_cannot_be_split() -> None:
    """R28, R34–R36, R39, Q23: between a manoeuvre's redistribution and its advance no resource card, crown
    use, Fracture or end of turn may be inserted."""
    s = board()
    s.players[0].castle = 6
    place(s, 8, 0, 2)
    set_hand(s, 0, ["call_to_arms", "tactical_advance", "fracture"])
    set_artefacts(s, 0, ["crown_fury"])
    set_artefacts(s, 1, ["orb_greed"])
    m = act(s, 0, {"type": "redistribute", "moves": [{"from": "castle", "to": "t8", "knights": 1}]}).state
    assert current_phase(m) == "manoeuvre"
    for payload in (
        {"type": "call_to_arms"},
        {"type": "tactical_advance"},
        {"type": "fracture", "target": "orb_greed"},
        {"type": "use_crown"},
        {"type": "end_turn"},
    ):
        reject(m, 0, payload, ErrorCode.WRONG_PHASE)
    t = act(m, 0, {"type": "advance", "to": "t10", "knights": 2})
    assert t.state.owner[10] == 0


def test_free_window_actions_interleave() -> None:
    """R27, Q23: in a free window resource plays and the crown use may come in any order, before or after a
    manoeuvre, and the turn may be ended from any free window."""
    s = board(options={"fracture_prompts": "holders"})
    s.players[0].castle = 3
    set_hand(s, 0, ["call_to_arms", "tactical_advance", "shield_wall"])
    set_artefacts(s, 0, ["crown_fury"])
    set_hand(s, 1, ["shield_wall"])
    s1 = act(s, 0, {"type": "tactical_advance"}).state
    s2 = act(s1, 0, {"type": "advance", "to": "t8", "knights": 3}).state
    s3 = act(s2, 0, {"type": "call_to_arms"}).state
    assert s3.players[0].castle == 2 and s3.manoeuvres_left == 1
    s4 = act(s3, 0, {"type": "use_crown"}).state
    s5 = act(s4, 0, {"type": "discard_choice", "card": cid(0, s4.players[0].hand[0])}).state
    assert current_phase(s5) == "window" and s5.crown_used
    s6 = act(s5, 0, {"type": "advance", "to": "t10", "knights": 2}).state
    assert s6.owner[10] == 0 and s6.manoeuvres_left == 0
    assert act(s6, 0, {"type": "end_turn"}).state.active == 1


def test_tactical_advance_before_or_after_first_manoeuvre() -> None:
    """R35, Q24: Tactical Advance gives one more manoeuvre whether played before the first manoeuvre or
    after it."""
    s = board()
    s.players[0].castle = 6
    set_hand(s, 0, ["tactical_advance"])
    before = act(s, 0, {"type": "tactical_advance"}).state
    assert before.manoeuvres_left == 2
    s1 = act(s, 0, {"type": "advance", "to": "t8", "knights": 2}).state
    assert s1.manoeuvres_left == 0
    s2 = act(s1, 0, {"type": "tactical_advance"}).state
    assert s2.manoeuvres_left == 1
    s3 = act(s2, 0, {"type": "advance", "to": "t10", "knights": 2}).state
    assert s3.owner[10] == 0 and s3.manoeuvres_left == 0


def test_unused_manoeuvres_lapse() -> None:
    """R28: manoeuvres not used lapse when the turn ends; the next turn again has exactly one."""
    s = board()
    set_hand(s, 0, ["tactical_advance"])
    s = act(s, 0, {"type": "tactical_advance"}).state
    assert s.manoeuvres_left == 2
    s = act(s, 0, {"type": "end_turn"}).state
    assert s.manoeuvres_left == 1
    s = act(s, 1, {"type": "end_turn"}).state
    assert s.active == 0 and s.manoeuvres_left == 1


def test_second_tactical_advance_after_reshuffle_grants_another_manoeuvre() -> None:
    """Q24, R99: a Tactical Advance reshuffled and drawn again in the same turn (battle draw) can be played
    again and grants one more manoeuvre."""
    base = board()
    base.players[0].castle = 6
    place(base, 8, 0, 1)
    place(base, 4, 1, 1)
    set_artefacts(base, 0, ["crown_fury"])
    set_artefacts(base, 1, ["crown_insight"])
    set_hand(base, 1, ["probing_attack", "shield_wall", "shield_wall", "audacious_charge", "ambush"])
    ta = base.content.effect_index["tactical_advance"]
    p = base.players[0]
    p.hand = [ta, next(i for i, c in enumerate(base.content.cards) if c.id == "heroic_assault")]
    p.discard = [c for c in range(18) if c not in p.hand]
    p.discard_turns = [0] * len(p.discard)
    p.deck = []
    found = None
    for seed in range(60):
        s = edit(base)
        s.seed = seed
        s1 = act(s, 0, {"type": "tactical_advance"}).state
        assert s1.manoeuvres_left == 2
        t = act(s1, 0, {"type": "advance", "to": "t4", "knights": 5})
        if ta in t.state.players[0].hand:
            found = t
            break
    assert found is not None, "no seed drew the reshuffled Tactical Advance"
    after = settle(found)
    assert current_phase(after) == "window" and after.manoeuvres_left == 1
    again = act(after, 0, {"type": "tactical_advance"}).state
    assert again.manoeuvres_left == 2


def test_random_playout_keeps_turn_bookkeeping() -> None:
    """R27, R31: across a random playout every new turn has T one higher, a fresh single manoeuvre and the
    next seat clockwise as the active player."""
    s = game(3, seed=21)
    rng = Rng(5)
    for _ in range(150):
        prompts = pending(s)
        if not prompts:
            break
        seat = prompts[rng.below(len(prompts))].seat
        action = choose(s, seat, rng)
        assert action is not None
        after = apply(s, seat, action).state
        if after.turn != s.turn and not after.winners:
            assert after.turn == s.turn + 1
            assert after.active == (s.active + 1) % 3
            assert after.manoeuvres_left == 1 and not after.crown_used
        s = after
