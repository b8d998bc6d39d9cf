"""Engine tests for redistribution, line of supply and advances (medieval-mastery.md R43–R58, with rulings
Q12, Q13, Q33, Q35).

Positions refer to the shipped 2-player layout (checked in :func:`board`): seat 0's castle t12 touches t8
and t10; seat 1's castle t11 touches t7 and t9; the lake t0 is surrounded by t1–t6; t8 touches t4, t5, t10;
t4 touches t3, t5, t8; t5 touches t4, t6, t8, t10; t6 touches t1, t5; t3 touches t2, t4; t1 touches t2, t6,
t7; t2 touches t1, t3, t7, t9. VP: t1, t3, t4 = 2; t2, t5, t6 = 3; t7–t10 = 1. Tile types are always set
explicitly (Forest unless a test needs another).
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import (
    ErrorCode,
    GameState,
    IllegalAction,
    advance_targets,
    apply,
    current_phase,
    pending,
    supplied,
    to_dict,
    victory_points,
)
from tests.engine.fixtures import (
    CONFLICT_HAND,
    LAKE_CASTLE_LAYOUT,
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


def _check_geometry(s: GameState) -> None:
    adj = {i: set(neighbours(s, i)) for i in range(s.board.size)}
    assert castle_pos(s, 0) == 12 and adj[12] == {8, 10}
    assert castle_pos(s, 1) == 11 and adj[11] == {7, 9}
    assert s.board.kinds[0] == "lake" and adj[0] == {1, 2, 3, 4, 5, 6}
    assert adj[8] == {4, 5, 10, 12} and adj[4] == {0, 3, 5, 8} and adj[5] == {0, 4, 6, 8, 10}
    assert adj[6] == {0, 1, 5} and adj[3] == {0, 2, 4} and adj[1] == {0, 2, 6, 7}
    assert adj[2] == {0, 1, 3, 7, 9} and adj[7] == {1, 2, 9, 11} and adj[9] == {2, 7, 11}
    assert [s.board.layout_vp[i] for i in range(1, 11)] == [2, 3, 2, 2, 3, 3, 1, 1, 1, 1]


def board(seed: int = 1, first: int = 0, **kw: Any) -> GameState:
    """Editable 2-player game: empty map, all Forest, both castles at 6 knights, ``first`` to move."""
    s = edit(game(2, seed=seed, pin={"first_player": first}, **kw))
    _check_geometry(s)
    clear_map(s)
    for t in territories(s):
        set_tile(s, t, "forest")
    s.players[0].castle = 6
    s.players[1].castle = 6
    return s


def lake_board(**options: Any) -> GameState:
    """The LAKE_CASTLE_LAYOUT fixture (seat 0's castle t4 on the lake t0): empty map, all Forest."""
    s = edit(game(2, seed=2, layout=LAKE_CASTLE_LAYOUT, options=options))
    assert castle_pos(s, 0) == 4 and set(neighbours(s, 4)) == {0, 3, 5}
    assert s.board.kinds[0] == "lake" and set(neighbours(s, 0)) == {1, 2, 3, 4, 5, 6}
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


def redist(*moves: tuple[str, str, int]) -> dict[str, Any]:
    return {"type": "redistribute", "moves": [{"from": a, "to": b, "knights": n} for a, b, n in moves]}


def adv(to: int, knights: int) -> dict[str, Any]:
    return {"type": "advance", "to": f"t{to}", "knights": knights}


def settle(s: GameState) -> GameState:
    """Answer every open prompt of a battle / window / choice with its timeout action."""
    guard = 0
    while s.battle is not None or s.window is not None or s.choice is not None:
        prompt = pending(s)[0]
        s = apply(s, prompt.seat, prompt.timeout_action).state
        guard += 1
        assert guard < 100
    return s


def total(s: GameState, seat: int) -> int:
    return s.players[seat].castle + sum(k for o, k in zip(s.owner, s.knights, strict=True) if o == seat)


# --------------------------------------------------------------------------------------------------------
# Redistribution (R43–R47)
# --------------------------------------------------------------------------------------------------------


def test_redistribution_needs_no_path() -> None:
    """R43: knights move between any eligible locations, not along paths: castle → t4 (not adjacent to the
    castle) and t4 → t10 (not adjacent to t4) in one redistribution."""
    s = board()
    place(s, 8, 0, 1)
    place(s, 4, 0, 3)
    place(s, 10, 0, 1)
    t = act(s, 0, redist(("castle", "t4", 2), ("t4", "t10", 4)))
    assert (t.state.players[0].castle, t.state.knights[4], t.state.knights[10]) == (4, 1, 5)
    assert total(t.state, 0) == total(s, 0)


def test_redistribution_only_among_own_locations() -> None:
    """R43, R13: only the player's own castle and controlled territories take part; uncontrolled or enemy
    territories and other castles are refused."""
    s = board()
    place(s, 8, 0, 3)
    place(s, 10, 1, 2)
    for where in ("t10", "t5", "t11", "t12"):
        reject(s, 0, redist(("t8", where, 1)), ErrorCode.NOT_YOUR_LOCATION)
        reject(s, 0, redist((where, "t8", 1)), ErrorCode.NOT_YOUR_LOCATION)


def test_redistribution_keeps_at_least_one_knight() -> None:
    """R45: every controlled territory keeps at least 1 knight: emptying one is refused, even when the
    knights go elsewhere; taking all but one is fine; the castle cannot go below 0."""
    s = board()
    s.players[0].castle = 1
    place(s, 8, 0, 3)
    place(s, 10, 0, 2)
    reject(s, 0, redist(("t8", "castle", 3)), ErrorCode.TERRITORY_ABANDONED)
    reject(s, 0, redist(("t10", "t8", 2)), ErrorCode.TERRITORY_ABANDONED)
    reject(s, 0, redist(("castle", "t8", 2)), ErrorCode.NOT_ENOUGH_KNIGHTS)
    t = act(s, 0, redist(("t8", "castle", 2), ("t10", "t8", 1)))
    assert (t.state.players[0].castle, t.state.knights[8], t.state.knights[10]) == (3, 2, 1)
    assert t.state.owner[8] == 0 and t.state.owner[10] == 0


def test_redistribution_respects_capacity() -> None:
    """R45, R12: no controlled territory may end above its capacity (Battlefield 4 in the default set)."""
    s = board()
    set_tile(s, 8, "battlefield")
    assert s.content.territory_types["battlefield"].capacity == 4
    place(s, 8, 0, 3)
    reject(s, 0, redist(("castle", "t8", 2)), ErrorCode.OVER_CAPACITY)
    assert act(s, 0, redist(("castle", "t8", 1))).state.knights[8] == 4


def test_unsupplied_territory_is_frozen() -> None:
    """R46, R50: a controlled territory without line of supply is frozen during redistribution: nothing
    may be taken out of it nor put into it."""
    s = board()
    place(s, 8, 0, 2)
    place(s, 9, 0, 3)  # touches only seat 1's castle and t2/t7: no supply for seat 0
    assert supplied(s, 0) == {8}
    reject(s, 0, redist(("t9", "castle", 1)), ErrorCode.LOCATION_UNSUPPLIED)
    reject(s, 0, redist(("castle", "t9", 1)), ErrorCode.LOCATION_UNSUPPLIED)
    reject(s, 0, redist(("t8", "t9", 1)), ErrorCode.LOCATION_UNSUPPLIED)
    assert act(s, 0, redist(("t8", "castle", 1))).state.players[0].castle == 7


def test_supply_is_fixed_for_the_whole_redistribution() -> None:
    """R46: supply is evaluated at the start of the redistribution and cannot change during it (moves
    never change control)."""
    s = board()
    place(s, 8, 0, 2)
    place(s, 4, 0, 1)
    place(s, 3, 0, 1)
    before = supplied(s, 0)
    t = act(s, 0, redist(("t8", "t3", 1), ("castle", "t4", 2)))
    assert supplied(t.state, 0) == before == {8, 4, 3}
    assert [t.state.owner[i] for i in (8, 4, 3)] == [0, 0, 0]


def _example(s: GameState) -> None:
    """Rulebook example under R47: 1-VP t8 with 4, 3-VP t5 with 2, 2-VP t4 with 4, castle 3."""
    s.players[0].castle = 3
    place(s, 8, 0, 4)
    place(s, 5, 0, 2)
    place(s, 4, 0, 4)


EXAMPLE_MOVES = redist(("t8", "castle", 3), ("t5", "castle", 1), ("castle", "t4", 1))


def test_rulebook_redistribution_example_is_legal() -> None:
    """R47, R43, R44, R45: the rulebook example: 3 knights out of a 1-VP territory and 1 out of a 3-VP
    territory (each keeps one), 3 of them into the castle (3 → 6) and the fourth into a 2-VP territory
    (4 → 5); the knights on the map are unchanged."""
    s = board()
    _example(s)
    assert [s.board.layout_vp[i] for i in (8, 5, 4)] == [1, 3, 2]
    assert supplied(s, 0) == {8, 5, 4}
    t = act(s, 0, EXAMPLE_MOVES)
    st = t.state
    assert (st.players[0].castle, st.knights[8], st.knights[5], st.knights[4]) == (6, 1, 1, 5)
    assert total(st, 0) == total(s, 0) == 13
    assert current_phase(st) == "manoeuvre"


def test_rulebook_redistribution_example_illegal_variants() -> None:
    """R47, R45, R46: the rulebook example is illegal if a source territory would drop to 0, if the 2-VP
    destination's capacity is below 5, or if a touched territory is unsupplied."""
    s = board()
    _example(s)
    reject(s, 0, redist(("t8", "castle", 4), ("castle", "t4", 1)), ErrorCode.TERRITORY_ABANDONED)
    reject(s, 0, redist(("t8", "castle", 3), ("t5", "castle", 2)), ErrorCode.TERRITORY_ABANDONED)
    small = edit(s)
    set_tile(small, 4, "battlefield")  # capacity 4 < 5
    reject(small, 0, EXAMPLE_MOVES, ErrorCode.OVER_CAPACITY)
    cut = board()
    cut.players[0].castle = 3
    place(cut, 9, 0, 4)  # the 1-VP source is now unsupplied
    place(cut, 10, 0, 1)
    place(cut, 5, 0, 2)
    place(cut, 4, 0, 4)
    assert 9 not in supplied(cut, 0) and {5, 4} <= supplied(cut, 0)
    reject(
        cut,
        0,
        redist(("t9", "castle", 3), ("t5", "castle", 1), ("castle", "t4", 1)),
        ErrorCode.LOCATION_UNSUPPLIED,
    )


def test_advance_uses_castle_knights_only() -> None:
    """R47, R52, R55: advances are made only with castle knights: without enough in the castle the advance
    is refused; redistributing knights back to the castle first makes it possible."""
    s = board()
    s.players[0].castle = 1
    place(s, 8, 0, 5)
    reject(s, 0, adv(10, 3), ErrorCode.NOT_ENOUGH_KNIGHTS)
    m = act(s, 0, redist(("t8", "castle", 2))).state
    t = act(m, 0, adv(10, 3))
    assert (t.state.owner[10], t.state.knights[10], t.state.players[0].castle) == (0, 3, 0)
    assert t.state.knights[8] == 3


# --------------------------------------------------------------------------------------------------------
# Line of supply (R48–R51, Q12)
# --------------------------------------------------------------------------------------------------------


def test_supply_through_own_territories_and_lakes() -> None:
    """R48, R11: a territory is supplied when adjacent to the castle or linked to it through a chain of
    own territories and lakes (any lake counts as everyone's)."""
    s = board()
    place(s, 8, 0, 1)  # adjacent to the castle
    place(s, 4, 0, 1)  # through t8
    place(s, 1, 0, 1)  # across the lake from t4
    place(s, 7, 0, 1)  # through t1
    assert supplied(s, 0) == {8, 4, 1, 7}
    place(s, 8, -1, 0)
    assert supplied(s, 0) == set()


def test_other_players_and_castles_carry_no_supply() -> None:
    """R48: other players' territories, uncontrolled territories and other castles never carry supply."""
    s = board()
    place(s, 10, 0, 1)
    place(s, 6, 0, 1)  # t6 touches t5 and the lake only
    assert supplied(s, 0) == {10}
    place(s, 5, 1, 1)
    assert supplied(s, 0) == {10}
    place(s, 5, 0, 1)
    assert supplied(s, 0) == {10, 5, 6}
    s2 = board()
    place(s2, 9, 0, 1)  # touches seat 1's castle t11, not seat 0's
    place(s2, 7, 0, 1)
    assert supplied(s2, 0) == set()
    assert supplied(s2, 1) == set()


def test_rulebook_supply_examples() -> None:
    """R51, R48, R50, R13, R14: (1) Red (seat 0) holds B = t8 next to its castle and A = t4 next to B only:
    A is supplied through B. (2) Yellow (seat 1) advances into B and conquers it: A loses supply (frozen,
    no launch tile, still worth its VP). (3) Yellow's B is supplied through a chain B – t5 – lake – t2 – t9
    – Yellow's castle."""
    s = board(first=1)
    place(s, 8, 0, 1)
    place(s, 4, 0, 2)
    assert 12 not in neighbours(s, 4)
    assert supplied(s, 0) == {8, 4}  # example 1
    for pos in (9, 2, 5):
        place(s, pos, 1, 1)
    assert 2 not in neighbours(s, 5)  # t5 reaches t2 only across the lake
    assert supplied(s, 1) == {9, 2, 5}
    set_artefacts(s, 0, ["crown_fury"])
    set_artefacts(s, 1, ["crown_insight"])
    set_hand(s, 1, CONFLICT_HAND)
    set_hand(s, 0, WEAK_HAND)
    bt = act(s, 1, adv(8, 5)).state
    bt = act(bt, 1, {"type": "choose_conflict", "card": cid(1, card_index(s, "heroic_assault"))}).state
    bt = act(bt, 0, {"type": "choose_conflict", "card": cid(0, card_index(s, "probing_attack"))}).state
    after = settle(bt)
    assert after.owner[8] == 1  # example 2: B conquered
    assert supplied(after, 0) == set()
    assert 8 in supplied(after, 1)  # example 3
    assert victory_points(after)[0] == after.board.layout_vp[4]
    red = act(after, 1, {"type": "end_turn"}).state
    assert red.active == 0
    reject(red, 0, redist(("t4", "castle", 1)), ErrorCode.LOCATION_UNSUPPLIED)
    assert 3 not in advance_targets(red, 0)
    reject(red, 0, adv(3, 1), ErrorCode.TARGET_NOT_REACHABLE)


def supply_example(cut_throat: bool = False) -> GameState:
    """The rulebook's supply example (2) (R51), seat 1 to move: seat 0 holds t8 (1 knight) and t4 behind
    it (2), seat 1 holds t9, t2 and t5; seat 1 has the strong conflict hand, seat 0 the weak one."""
    s = board(first=1, options={"cut_throat": True} if cut_throat else None)
    place(s, 8, 0, 1)
    place(s, 4, 0, 2)
    for pos in (9, 2, 5):
        place(s, pos, 1, 1)
    set_artefacts(s, 0, ["crown_fury"])
    set_artefacts(s, 1, ["crown_insight"])
    set_hand(s, 1, CONFLICT_HAND)
    set_hand(s, 0, WEAK_HAND)
    return s


def test_rulebook_supply_example_under_cut_throat() -> None:
    """R51, R116: in example (2) under Cut-throat, A's knights are removed at once when B falls."""
    s = supply_example(cut_throat=True)
    bt = act(s, 1, adv(8, 5)).state
    bt = act(bt, 1, {"type": "choose_conflict", "card": cid(1, card_index(s, "heroic_assault"))}).state
    bt = act(bt, 0, {"type": "choose_conflict", "card": cid(0, card_index(s, "probing_attack"))}).state
    after = settle(bt)
    assert after.owner[8] == 1
    assert after.owner[4] == -1 and after.knights[4] == 0


def test_disputed_territory_supplies_its_defender() -> None:
    """R49, Q12, R13: during a battle the disputed territory still counts as the defender's for supply
    (never the attacker's): the defender's territory behind it stays supplied."""
    s = supply_example()
    bt = act(s, 1, adv(8, 5)).state
    assert bt.battle is not None and bt.battle.pos == 8
    assert supplied(bt, 0) == {8, 4}
    assert 8 not in supplied(bt, 1)


def test_supply_recomputed_when_a_territory_empties() -> None:
    """R51, R86, Q19: supply is recomputed when a territory empties: one knight into an empty Marshlands
    leaves it uncontrolled, so a territory behind it stays without supply. (Seat 1, castle t11: t7 is
    supplied and touches the target t2, so the unsupplied t3 next to t2 does not close it, R53.)"""
    s = board(first=1)
    set_tile(s, 2, "marshlands")
    place(s, 7, 1, 1)
    place(s, 3, 1, 2)  # t3 touches t2 and the lake, which no supplied territory of seat 1 touches
    assert supplied(s, 1) == {7}
    t = act(s, 1, adv(2, 1))
    assert t.state.owner[2] == -1 and supplied(t.state, 1) == {7}
    t2 = act(s, 1, adv(2, 2))
    assert t2.state.owner[2] == 1 and supplied(t2.state, 1) == {7, 2, 3}


def test_unsupplied_territory_still_scores() -> None:
    """R50, R14: an unsupplied territory still counts for control and VP."""
    s = board()
    place(s, 6, 0, 1)
    assert supplied(s, 0) == set()
    assert victory_points(s)[0] == s.board.layout_vp[6] == 3


# --------------------------------------------------------------------------------------------------------
# Advance (R52–R58, Q33, Q35, Q13)
# --------------------------------------------------------------------------------------------------------


def test_advance_moves_castle_knights_into_target() -> None:
    """R52, R56, Q33: an advance moves N ≥ 1 knights from the castle into a territory the player does not
    control; into an uncontrolled territory it conquers it at once (no battle); N = 0 is refused; the
    castle may be emptied."""
    s = board()
    reject(s, 0, adv(8, 0), ErrorCode.BAD_KNIGHT_COUNT)
    t = act(s, 0, adv(8, 6))
    assert (t.state.owner[8], t.state.knights[8], t.state.players[0].castle) == (0, 6, 0)
    assert t.state.battle is None and current_phase(t.state) == "window"
    assert any(e["type"] == "conquered" for e in t.events)


def test_cannot_advance_into_own_territory() -> None:
    """R52: the target must be a territory the player does not control."""
    s = board()
    place(s, 8, 0, 2)
    reject(s, 0, adv(8, 1), ErrorCode.TARGET_OWN)


def test_lakes_and_castles_are_not_targets() -> None:
    """R54, R10, R11: a lake or a castle (without Castle Siege) is never a legal target."""
    s = board()
    place(s, 8, 0, 1)
    place(s, 4, 0, 1)
    place(s, 9, 0, 1)
    reject(s, 0, adv(0, 1), ErrorCode.TARGET_NOT_ENTERABLE)
    reject(s, 0, adv(11, 1), ErrorCode.TARGET_NOT_ENTERABLE)
    before = to_dict(s)
    with pytest.raises(IllegalAction) as err:
        act(s, 0, adv(12, 1))
    assert err.value.code in (ErrorCode.TARGET_NOT_ENTERABLE, ErrorCode.TARGET_OWN)
    assert to_dict(s) == before
    assert all(s.board.kinds[x] == "territory" for x in advance_targets(s, 0))


def test_advance_limited_by_capacity_and_castle() -> None:
    """R55: N ≤ the target's capacity (Cave 3) and N ≤ the knights in the castle."""
    s = board()
    s.players[0].castle = 4
    set_tile(s, 10, "cave")
    reject(s, 0, adv(10, 4), ErrorCode.OVER_CAPACITY)
    reject(s, 0, adv(8, 5), ErrorCode.NOT_ENOUGH_KNIGHTS)
    assert act(s, 0, adv(10, 3)).state.knights[10] == 3


def test_advance_conquest_applies_territory_ability() -> None:
    """R56, R86: advancing into an uncontrolled Village conquers it and its conquest ability places one
    knight in the conqueror's castle."""
    s = board()
    set_tile(s, 8, "village")
    t = act(s, 0, adv(8, 2))
    assert t.state.owner[8] == 0 and t.state.knights[8] == 2
    assert t.state.players[0].castle == 6 - 2 + 1


def test_advance_into_enemy_territory_starts_a_battle() -> None:
    """R57, R13: advancing into another player's territory starts a battle at once between the attacker and
    that territory's controller, each with their knights there; the territory stays the defender's."""
    s = board()
    place(s, 8, 0, 1)
    place(s, 4, 1, 3)
    set_artefacts(s, 0, ["crown_fury"])
    set_artefacts(s, 1, ["crown_insight"])
    set_hand(s, 0, CONFLICT_HAND)
    set_hand(s, 1, WEAK_HAND)
    t = act(s, 0, adv(4, 4))
    b = t.state.battle
    assert b is not None and (b.attacker, b.defender, b.pos, b.att_knights) == (0, 1, 4, 4)
    assert t.state.owner[4] == 1 and t.state.knights[4] == 3 and t.state.players[0].castle == 2
    assert current_phase(t.state) == "battle"


def test_advance_may_be_declined() -> None:
    """R58, R28: after a redistribution the player may decline the advance; nothing else changes."""
    s = board()
    place(s, 8, 0, 2)
    m = act(s, 0, redist(("castle", "t8", 2))).state
    t = act(m, 0, {"type": "decline_advance"})
    assert current_phase(t.state) == "window"
    assert t.state.owner == m.owner and t.state.knights == m.knights


def test_targets_adjacent_to_launch_tiles() -> None:
    """R53: launch tiles are the castle and supplied controlled territories; a territory adjacent to one
    is a target, one adjacent to none (and not lake-linked) is not."""
    s = board()
    assert advance_targets(s, 0) == [8, 10]
    place(s, 8, 0, 1)
    assert set(advance_targets(s, 0)) == {4, 5, 10}
    reject(s, 0, adv(3, 1), ErrorCode.TARGET_NOT_REACHABLE)
    assert act(s, 0, adv(4, 1)).state.owner[4] == 0


def test_targets_across_a_lake_from_supplied_territory() -> None:
    """R53, R11: a territory sharing a lake with a supplied controlled territory is a target (t1 across the
    lake from t4)."""
    s = board()
    place(s, 8, 0, 1)
    place(s, 4, 0, 1)
    assert 4 not in neighbours(s, 1)
    assert {1, 2, 3, 5, 6} <= set(advance_targets(s, 0))
    t = act(s, 0, adv(1, 2))
    assert t.state.owner[1] == 0 and t.state.knights[1] == 2


def test_q35_target_next_to_castle_and_unsupplied_territory() -> None:
    """R53 as corrected by issue 14 (Q35 case 1). The rulebook, LINE OF SUPPLY: "you cannot advance into
    any of the territories adjacent to that territory, unless the territory that you wish to advance to is
    also adjacent to another territory you control that has a line of supply" (SV "såvida inte det
    territorium du vill göra framryckningen till också ligger intill något av dina territorier som har en
    försörjningslinje", PL and KO alike). The castle is not a territory: a target next to the castle and
    next to an unsupplied territory of the player is closed, with its own error, until a supplied territory
    of the player touches it too."""
    s = board()
    place(s, 5, 0, 2)
    assert supplied(s, 0) == set()
    assert 5 in neighbours(s, 10) and 12 in neighbours(s, 10)  # t10 touches the castle (t12) and t5
    assert 10 not in advance_targets(s, 0)
    reject(s, 0, adv(10, 1), ErrorCode.TARGET_NEXT_TO_UNSUPPLIED)
    reject(s, 0, adv(8, 1), ErrorCode.TARGET_NEXT_TO_UNSUPPLIED)
    reject(s, 0, adv(6, 1), ErrorCode.TARGET_NOT_REACHABLE)
    reject(s, 0, adv(4, 1), ErrorCode.TARGET_NOT_REACHABLE)


def test_q35_rules_edition_1_keeps_the_launch_tile_reading() -> None:
    """Q35 as first read (``rules_edition: 1``, which games stored before issue 14 keep so their records
    replay): a target next to the castle is legal even next to an unsupplied territory of the player."""
    s = board(options={"rules_edition": 1})
    place(s, 5, 0, 2)
    assert 10 in advance_targets(s, 0)
    assert act(s, 0, adv(10, 1)).state.owner[10] == 0


def test_r53_a_supplied_neighbour_reopens_a_target_next_to_an_unsupplied_territory() -> None:
    """R53 ("unless the territory that you wish to advance to is also adjacent to another territory you
    control that has a line of supply"): seat 1 holds t9 (supplied, next to its castle t11) and t1 (no
    supply); t7 touches both, so it is a target; t2 too."""
    s = board(first=1)
    place(s, 9, 1, 1)
    place(s, 1, 1, 1)
    assert supplied(s, 1) == {9}
    assert {1, 9} <= set(neighbours(s, 7))
    assert {2, 7} <= set(advance_targets(s, 1))
    assert act(s, 1, adv(7, 1)).state.owner[7] == 1


def test_q35_target_across_lake_also_touching_unsupplied() -> None:
    """Q35, R53 (case 2): a target reached across a lake from a supplied territory is legal even if it also
    touches an unsupplied territory of the player."""
    s = board()
    place(s, 8, 0, 1)
    place(s, 4, 0, 1)
    place(s, 7, 0, 1)  # unsupplied
    assert supplied(s, 0) == {8, 4}
    assert 7 in neighbours(s, 1) and 1 in advance_targets(s, 0)
    assert act(s, 0, adv(1, 1)).state.owner[1] == 0


def test_q35_target_across_lake_only_from_unsupplied() -> None:
    """Q35, R53 (case 3): a target reached across a lake only from an unsupplied territory is not legal;
    once a supplied territory touches it, it is."""
    s = board()
    place(s, 8, 0, 1)
    place(s, 6, 0, 1)  # unsupplied, on the lake
    assert supplied(s, 0) == {8}
    assert 3 not in advance_targets(s, 0)
    reject(s, 0, adv(3, 1), ErrorCode.TARGET_NOT_REACHABLE)
    place(s, 4, 0, 1)  # now the lake is reached through t8–t4
    assert 3 in advance_targets(s, 0)
    assert act(s, 0, adv(3, 1)).state.owner[3] == 0


def test_q13_castle_on_lake_gets_no_lake_link_by_default() -> None:
    """Q13, R53: with the castle on a lake (LAKE_CASTLE_LAYOUT) the castle is no territory, so by default
    only territories adjacent to it are targets; territories across the lake are not."""
    s = lake_board()
    assert advance_targets(s, 0) == [3, 5]
    for far in (1, 2, 6):
        reject(s, 0, adv(far, 1), ErrorCode.TARGET_NOT_REACHABLE)
    assert act(s, 0, adv(3, 2)).state.owner[3] == 0


def test_q13_castle_lake_link_option() -> None:
    """Q13, R53: with the castle_lake_link option the castle also gets the lake link, so every territory on
    the lake becomes a target."""
    s = lake_board(castle_lake_link=True)
    assert advance_targets(s, 0) == [1, 2, 3, 5, 6]
    t = act(s, 0, adv(1, 2))
    assert t.state.owner[1] == 0 and t.state.knights[1] == 2


@pytest.mark.parametrize("link", [False, True])
def test_q13_supply_passes_castle_lake_territory(link: bool) -> None:
    """Q13, R48: supply passes castle – lake – territory whatever the flag; such a territory is then a
    launch territory whose own lake link makes the other lake territories targets."""
    s = lake_board(castle_lake_link=link)
    place(s, 1, 0, 2)
    assert supplied(s, 0) == {1}
    assert {2, 3, 5, 6, 7} <= set(advance_targets(s, 0))
    t = act(s, 0, redist(("castle", "t1", 1)))
    assert t.state.knights[1] == 3


def _allegiance_board() -> tuple[GameState, int, int]:
    """4 players in teams of two (seats 0+2 against 1+3): returns the state, a territory ``a`` next to
    seat 0's castle and a territory ``b`` next to ``a`` but to no castle and no lake."""
    s = edit(game(4, seed=1, options={"allegiance": "pairs"}))
    assert s.players[0].team == s.players[2].team != s.players[1].team
    clear_map(s)
    for t in territories(s):
        set_tile(s, t, "forest")
    s.players[0].castle = 6
    kinds, adj = s.board.kinds, s.board.adjacent
    castle = castle_pos(s, 0)
    for a in adj[castle]:
        for b in adj[a]:
            if kinds[b] == "territory" and all(kinds[n] == "territory" for n in adj[b]):
                return s, a, b
    raise AssertionError("layout has no suitable territories")


def test_teammate_territory_is_not_a_target() -> None:
    """R54, R108: a player may not advance into a territory controlled by a teammate."""
    s, a, _b = _allegiance_board()
    place(s, a, 2, 2)
    assert a not in advance_targets(s, 0)
    reject(s, 0, adv(a, 1), ErrorCode.TARGET_TEAMMATE)
    place(s, a, 1, 2)
    assert a in advance_targets(s, 0)


def test_teammate_territory_carries_no_supply() -> None:
    """R48, R111, Q15: under Allegiance a teammate's territory does not carry supply: a territory reached
    only through it is unsupplied; through one's own territory it is supplied."""
    s, a, b = _allegiance_board()
    place(s, a, 2, 2)
    place(s, b, 0, 2)
    assert supplied(s, 0) == set()
    reject(s, 0, redist((f"t{b}", "castle", 1)), ErrorCode.LOCATION_UNSUPPLIED)
    place(s, a, 0, 2)
    assert supplied(s, 0) == {a, b}
