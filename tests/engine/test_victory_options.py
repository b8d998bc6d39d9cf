"""Victory (R103, R104, Q14) and the optional rules: Allegiance (R105–R111, Q15, Q16, Q28), Castle Siege
(R112–R115), Cut-throat (R116, Q12), Skirmish (R117) and Mayhem (R118–R120, Q18, Q27).

Positions are those of the default layouts (2p: seat 0's castle t12 touches t8 and t10, seat 1's castle t11
touches t7 and t9, the lake t0 touches t1–t6). Every territory used is given an explicit tile type with
``set_tile`` (Forest unless an ability matters); VP values are the layout's.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import (
    ContentError,
    ErrorCode,
    GameState,
    advance_targets,
    pending,
    supplied,
    victory_points,
)
from tests.engine.fixtures import (
    LAKE_CASTLE_LAYOUT,
    Driver,
    act,
    assert_illegal,
    castle_pos,
    clear_map,
    edit,
    game,
    hand_card,
    neighbours,
    payloads,
    place,
    set_artefacts,
    set_hand,
    set_tile,
    territories,
)


def plain(conflict: str) -> list[str]:
    """A five-card hand without support cards whose conflict cards are ``conflict`` and an Ambush."""
    return [conflict, "call_to_arms", "tactical_advance", "fracture", "ambush"]


def fresh(players: int = 2, options: dict[str, Any] | None = None, first: int = 0) -> GameState:
    """An editable game on turn 1 with an empty map, Forest everywhere, no artefacts, plain hands."""
    s = edit(game(players, seed=7, options=options, pin={"first_player": first}))
    clear_map(s)
    for t in territories(s):
        set_tile(s, t, "forest")
    for seat in range(players):
        set_artefacts(s, seat, [])
        set_hand(s, seat, plain("shield_wall"))
    s.dice_queue = []
    return s


def own(state: GameState, seat: int, positions: list[int], knights: int = 1) -> None:
    for pos in positions:
        place(state, pos, seat, knights)


def front(state: GameState, seat: int) -> int:
    """A territory next to ``seat``'s castle."""
    return min(n for n in neighbours(state, castle_pos(state, seat)) if state.board.kinds[n] == "territory")


class Play(Driver):
    """Drives a game through the public API and keeps every event."""

    def advance(self, to: int, knights: int) -> None:
        self.do(self.state.active, {"type": "advance", "to": f"t{to}", "knights": knights})


# ----------------------------------------------------------------------------------------------------------
# Victory (R103, R104, Q14)
# ----------------------------------------------------------------------------------------------------------

#: 2p: seat 0 holds t8 (1), t10 (1), t5 (3), t6 (3), t4 (2) = 10 VP, all supplied; t2 (3) and t3 (2) are
#: reachable through the lake.
TEN_VP = [8, 10, 5, 6, 4]


@pytest.mark.parametrize(("target", "wins"), [(2, True), (3, False)])
def test_r103_reaching_thirteen_vp_ends_the_game_at_once(target: int, wins: bool) -> None:
    """R103, R104, R14: conquering an empty territory that brings seat 0 to 13 VP ends the game at once
    with seat 0 the winner; 12 VP does not."""
    s = fresh()
    own(s, 0, TEN_VP)
    s.players[0].castle = 5
    assert victory_points(s)[0] == 10
    play = Play(s)
    play.advance(target, 2)
    st = play.state
    assert victory_points(st)[0] == (13 if wins else 12)
    assert st.winners == ([0] if wins else [])
    assert (st.phase == "over") is wins
    assert bool(play.of("game_over")) is wins
    if wins:
        assert pending(st) == []
        assert_illegal(st, 0, {"type": "end_turn"}, ErrorCode.GAME_OVER)
        assert_illegal(st, 1, {"type": "end_turn"}, ErrorCode.GAME_OVER)


def test_r104_q14_one_knight_into_empty_marshlands_never_wins() -> None:
    """R104, Q14, Q19: an advance of one knight into empty Marshlands is one step with its mandatory loss:
    the knight is lost, the Marshlands stay uncontrolled and 12 + 2 VP never counts."""
    s = fresh()
    own(s, 0, [*TEN_VP, 1])  # + t1 (2) = 12 VP
    set_tile(s, 3, "marshlands")
    s.players[0].castle = 5
    play = Play(s)
    play.advance(3, 1)
    st = play.state
    assert st.winners == [] and play.of("game_over") == []
    assert st.owner[3] == -1 and victory_points(st)[0] == 12


def test_r104_q14_two_knights_into_marshlands_win() -> None:
    """R104, Q14: with two knights the conqueror keeps one in the Marshlands and wins at that step."""
    s = fresh()
    own(s, 0, [*TEN_VP, 1])
    set_tile(s, 3, "marshlands")
    s.players[0].castle = 5
    play = Play(s)
    play.advance(3, 2)
    assert play.state.winners == [0] and play.state.knights[3] == 1


def test_r103_nothing_further_is_resolved_after_the_win() -> None:
    """R103, Q14: a winning conquest of Ruins ends the game before its optional discard is offered."""
    s = fresh()
    own(s, 0, TEN_VP)
    set_tile(s, 2, "ruins")
    s.players[0].castle = 5
    play = Play(s)
    play.advance(2, 2)
    st = play.state
    assert st.winners == [0] and st.choice is None and pending(st) == []


def battle_for_thirteen(tile: str = "forest", att: int = 4, greed: bool = True) -> Play:
    """Seat 0 (11 VP: ``TEN_VP`` minus t4 plus t2) attacks seat 1's t3 (2 VP) defended by 1 knight."""
    s = fresh()
    own(s, 0, [8, 10, 5, 6, 2])
    assert victory_points(s)[0] == 11
    set_tile(s, 3, tile)
    place(s, 3, 1, 1)
    s.players[0].castle = att
    set_hand(s, 0, plain("heroic_assault"))
    set_hand(s, 1, plain("probing_attack"))
    if greed:
        set_artefacts(s, 0, ["orb_greed"])
    play = Play(s)
    play.advance(3, att)
    play.conflict("heroic_assault", "probing_attack")
    return play


def test_q14_victory_comes_with_the_step_nine_conquest_not_earlier() -> None:
    """Q14, R104: while the battle runs (orb window, step 7) the won territory counts for nobody and the game
    goes on; the attacker wins at the step-9 conquest, after losses and retreat."""
    play = battle_for_thirteen()
    st = play.state
    assert st.window is not None and st.window.kind == "orb"
    assert st.winners == [] and victory_points(st)[0] == 11 and victory_points(st)[1] == 0
    play.do(1, {"type": "respond", "fracture": []})
    st = play.state
    assert st.winners == [0] and st.battle is None
    t = play.types()
    assert t.index("knights_lost") < t.index("conquered") < t.index("game_over")
    assert t.count("game_over") == 1
    # The cards played in the battle are still accounted for (discarded).
    assert len(st.players[0].discard) == 1 and len(st.players[1].discard) == 1


def test_q14_q19_battle_conquest_of_marshlands_by_one_knight_does_not_win() -> None:
    """Q14, Q19, R104: winning a battle over Marshlands with a single knight loses it at the conquest: the
    territory becomes uncontrolled and the attacker does not reach the threshold."""
    play = battle_for_thirteen(tile="marshlands", att=1, greed=False)
    st = play.state
    assert st.winners == [] and st.battle is None
    assert st.owner[3] == -1 and victory_points(st)[0] == 11


# ----------------------------------------------------------------------------------------------------------
# Skirmish (R117)
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("skirmish", "homelands", "wins"), [(True, False, True), (False, False, False), (True, True, False)]
)
def test_r117_skirmish_threshold_eleven_and_homelands_worth_zero(
    skirmish: bool, homelands: bool, wins: bool
) -> None:
    """R117, R103: under Skirmish 11 VP wins (not in the basic game), and a Homelands counts 0 VP."""
    s = fresh(options={"skirmish": skirmish})
    own(s, 0, [8, 10, 5, 6])  # 8 VP
    if homelands:
        set_tile(s, 8, "homelands")
        assert victory_points(s)[0] == 7
    else:
        assert victory_points(s)[0] == 8
    s.players[0].castle = 5
    play = Play(s)
    play.advance(2, 2)  # + 3
    assert play.state.winners == ([0] if wins else [])


# ----------------------------------------------------------------------------------------------------------
# Allegiance (R105–R111, Q15, Q16, Q28)
# ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {"allegiance": "pairs"}),
        (3, {"allegiance": "pairs"}),
        (5, {"allegiance": "pairs"}),
        (4, {"allegiance": "triples"}),
        (4, {"allegiance": "pairs", "castle_siege": True}),
        (6, {"allegiance": "triples", "castle_siege": True}),
    ],
)
def test_r105_q28_allegiance_needs_four_or_six_and_no_castle_siege(
    players: int, options: dict[str, Any]
) -> None:
    """R105, Q28, R115: Allegiance is refused for 2, 3 or 5 players, teams of three need 6 players, and
    Allegiance cannot be combined with Castle Siege."""
    with pytest.raises(ContentError):
        game(players, options=options)


def teams(state: GameState) -> list[int]:
    return [p.team for p in state.players]


def test_r106_teams_of_two_sit_opposite() -> None:
    """R106, Q29: teams of two sit opposite: 4 players 0+2 and 1+3; 6 players 0+3, 1+4, 2+5."""
    t4 = teams(game(4, options={"allegiance": "pairs"}))
    assert t4[0] == t4[2] and t4[1] == t4[3] and t4[0] != t4[1]
    t6 = teams(game(6, options={"allegiance": "pairs"}))
    assert t6[0] == t6[3] and t6[1] == t6[4] and t6[2] == t6[5]
    assert len({t6[0], t6[1], t6[2]}) == 3
    assert teams(game(4)) == [-1, -1, -1, -1]


def test_r107_teams_of_three_alternate() -> None:
    """R107: teams of three alternate around the table: 0, 2, 4 against 1, 3, 5."""
    t = teams(game(6, options={"allegiance": "triples"}))
    assert t[0] == t[2] == t[4] and t[1] == t[3] == t[5] and t[0] != t[1]


def test_r108_no_advance_into_a_teammates_territory() -> None:
    """R108, R54: a player may not advance into a territory its teammate controls; an opponent's next to it
    is a legal target."""
    s = fresh(4, {"allegiance": "pairs"})
    mate, foe = front(s, 0), next(n for n in neighbours(s, castle_pos(s, 0)) if n != front(s, 0))
    place(s, mate, 2, 2)
    place(s, foe, 1, 2)
    s.players[0].castle = 4
    assert mate not in advance_targets(s, 0) and foe in advance_targets(s, 0)
    assert not any(p.get("to") == f"t{mate}" for p in payloads(s, 0))
    assert_illegal(s, 0, {"type": "advance", "to": f"t{mate}", "knights": 2}, ErrorCode.TARGET_TEAMMATE)


def test_r111_q15_supply_does_not_run_through_a_teammates_territory() -> None:
    """R111, Q15, R48: a territory linked to its owner's castle only through a teammate's territory has no
    line of supply."""
    s = fresh(4, {"allegiance": "pairs"})
    gate, behind = 15, 8  # 4p layout: t15 touches seat 0's castle, t8 touches t15 but no castle or lake
    assert castle_pos(s, 0) in neighbours(s, gate) and behind in neighbours(s, gate)
    place(s, gate, 2, 2)
    place(s, behind, 0, 2)
    assert behind not in supplied(s, 0)
    place(s, gate, 0, 2)
    assert behind in supplied(s, 0)


def allegiance_win_state(
    players: int, options: dict[str, Any], mine: list[int], mates: dict[int, list[int]]
) -> Play:
    s = fresh(players, options)
    own(s, 0, mine)
    for seat, pos in mates.items():
        own(s, seat, pos)
    s.players[0].castle = 4
    return Play(s)


def test_r109_q15_team_of_two_wins_together_at_twenty() -> None:
    """R109, Q15: in a 4-player Allegiance game seat 0 (8 VP after the conquest) and teammate seat 2
    (12 VP) reach 20 together: both win."""
    play = allegiance_win_state(4, {"allegiance": "pairs"}, [6, 7, 19], {2: [0, 1, 4, 5]})
    play.advance(front(play.state, 0), 1)
    assert play.state.winners == [0, 2]


def test_r109_q15_individual_thirteen_does_not_win_under_allegiance() -> None:
    """R109, Q15: 13 VP of one player alone does not win an Allegiance game (team total 13 < 20)."""
    play = allegiance_win_state(4, {"allegiance": "pairs"}, [0, 1, 5, 8, 19], {})  # 12 VP, all supplied
    play.advance(front(play.state, 0), 1)
    st = play.state
    assert victory_points(st)[0] == 13 and st.winners == []


def test_q28_skirmish_with_allegiance_keeps_team_threshold() -> None:
    """Q28, R117, R109: Skirmish + Allegiance keeps the team threshold of 20 (11 VP alone does not win)."""
    play = allegiance_win_state(4, {"allegiance": "pairs", "skirmish": True}, [0, 1, 4, 19], {})
    play.advance(front(play.state, 0), 1)
    assert victory_points(play.state)[0] == 11 and play.state.winners == []
    play = allegiance_win_state(4, {"allegiance": "pairs", "skirmish": True}, [6, 7, 19], {2: [0, 1, 4, 5]})
    play.advance(front(play.state, 0), 1)
    assert play.state.winners == [0, 2]


@pytest.mark.parametrize(("extra", "wins"), [([12], True), ([], False)])
def test_r109_team_of_three_needs_thirty(extra: list[int], wins: bool) -> None:
    """R109: a team of three wins with 30 VP together (all three members), not with 28."""
    play = allegiance_win_state(6, {"allegiance": "triples"}, extra, {2: [0, 1, 2, 6, 7], 4: [8, 9, 10, 11]})
    play.advance(front(play.state, 0), 1)
    assert play.state.winners == ([0, 2, 4] if wins else [])


def team_battle(players: int, att: int, dfd: int) -> Play:
    """Seat 0 attacks seat 1 next to its castle; everyone holds support cards."""
    s = fresh(players, {"allegiance": "pairs"})
    pos = front(s, 0)
    place(s, pos, 1, dfd)
    s.players[0].castle = att
    set_hand(s, 0, ["probing_attack", "war_banner", "call_to_arms"])
    set_hand(s, 1, ["heroic_assault", "rallying_cry", "call_to_arms"])
    for seat in range(2, players):
        set_hand(s, seat, ["war_banner", "rallying_cry"])
    play = Play(s)
    play.advance(pos, att)
    play.conflict("probing_attack", "heroic_assault")
    return play


def test_r110_q16_team_support_order_from_lower_score_clockwise() -> None:
    """R110, R72, Q16: teammates join step 5: the lower-score involved player (here the defender) starts,
    then clockwise through the involved players and their teammates; each teammate's card adds to its own
    team's involved player and goes to the teammate's own discard pile; a full lap of passes ends it."""
    play = team_battle(4, att=6, dfd=1)  # 8 against 6
    st = play.state
    assert st.battle is not None and st.battle.support_order == [1, 2, 3, 0]
    assert [p.seat for p in pending(st)] == [1]
    play.do(1, {"type": "pass_support"})
    play.do(2, {"type": "play_support", "cards": [hand_card(play.state, 2, "war_banner")]})
    play.do(3, {"type": "play_support", "cards": [hand_card(play.state, 3, "rallying_cry")]})
    assert play.of("support_played")[-1]["scores"] == [10, 7]
    for seat in (0, 1, 2, 3):
        assert [p.seat for p in pending(play.state)] == [seat]
        play.do(seat, {"type": "pass_support"})
    res = play.of("battle_result")[0]
    assert res["scores"] == [10, 7] and res["winner"] == 0
    st = play.state
    names = st.content.cards
    assert [names[c].id for c in st.players[2].discard] == ["war_banner"]
    assert [names[c].id for c in st.players[3].discard] == ["rallying_cry"]


def test_q16_team_support_skips_uninvolved_team() -> None:
    """Q16, R110: with three teams of two, the third team takes no part; on a tie the attacker starts."""
    play = team_battle(6, att=5, dfd=2)  # 7 against 7
    st = play.state
    assert st.battle is not None
    assert st.battle.support_order == [0, 1, 3, 4]


# ----------------------------------------------------------------------------------------------------------
# Castle Siege (R112–R115)
# ----------------------------------------------------------------------------------------------------------

#: 2p: seat 0 holds t8, t4, t2, t9: t9 touches seat 1's castle t11 and is supplied (t8 – t4 – lake – t2 – t9).
SIEGE_CHAIN = [8, 4, 2, 9]


def siege(
    castle_siege: bool = True,
    chain: list[int] | None = None,
    att: int = 7,
    defenders: int = 2,
    mayhem: bool = False,
) -> GameState:
    """Seat 0 holds ``SIEGE_CHAIN`` with ``att`` castle knights; seat 1's castle holds ``defenders``."""
    s = fresh(options={"castle_siege": castle_siege, "mayhem": mayhem})
    own(s, 0, SIEGE_CHAIN if chain is None else chain)
    s.players[0].castle = att
    s.players[1].castle = defenders
    return s


def test_r112_reachable_castle_is_a_target_only_under_castle_siege() -> None:
    """R112, R10, R54: an enemy castle next to a supplied territory is a legal target under Castle Siege;
    without the option it cannot be entered."""
    s = siege()
    enemy = castle_pos(s, 1)
    assert 9 in supplied(s, 0) and enemy in advance_targets(s, 0)
    assert castle_pos(s, 0) not in advance_targets(s, 0)
    basic = siege(castle_siege=False)
    assert enemy not in advance_targets(basic, 0)
    assert_illegal(
        basic, 0, {"type": "advance", "to": f"t{enemy}", "knights": 3}, ErrorCode.TARGET_NOT_ENTERABLE
    )


def test_r112_unreachable_castle_and_more_than_six_knights_are_refused() -> None:
    """R112: a castle no launch tile touches is not reachable; at most 6 knights may advance into a castle."""
    far = siege(chain=[8])
    enemy = castle_pos(far, 1)
    assert_illegal(
        far, 0, {"type": "advance", "to": f"t{enemy}", "knights": 3}, ErrorCode.TARGET_NOT_REACHABLE
    )
    s = siege(att=7)
    assert_illegal(s, 0, {"type": "advance", "to": f"t{enemy}", "knights": 7}, ErrorCode.OVER_CAPACITY)
    assert {"type": "advance", "to": f"t{enemy}", "knights": 6} in payloads(s, 0)


def test_r112_castle_on_a_lake_shore_is_reached_across_the_lake() -> None:
    """R112 ("A castle is a legal target if it is reachable under R53 (adjacent to a launch tile, or via a
    lake link from a launch territory)"), R11: on LAKE_CASTLE_LAYOUT seat 0's castle t4 borders the lake
    t0. Seat 1 holds t8 (next to its castle t9) and t2 (supplied through t8, on the lake): under Castle
    Siege t4 is a target across the lake, and the advance starts a castle battle. Without the lake link
    (seat 1 holding only t8) it is not reachable."""
    s = edit(
        game(2, seed=2, layout=LAKE_CASTLE_LAYOUT, options={"castle_siege": True}, pin={"first_player": 1})
    )
    clear_map(s)
    own(s, 1, [8, 2])
    s.players[1].castle = 6
    assert castle_pos(s, 0) == 4 and 4 not in neighbours(s, 2) and 4 in neighbours(s, 0)
    assert supplied(s, 1) == {8, 2}
    assert 4 in advance_targets(s, 1)
    t = act(s, 1, {"type": "advance", "to": "t4", "knights": 3})
    b = t.state.battle
    assert b is not None and b.castle and (b.attacker, b.defender, b.pos) == (1, 0, 4)
    near = edit(s)
    near.owner[2], near.knights[2] = -1, 0
    assert 4 not in advance_targets(near, 1)
    assert_illegal(near, 1, {"type": "advance", "to": "t4", "knights": 3}, ErrorCode.TARGET_NOT_REACHABLE)
    old = edit(s)
    old.setup = {**s.setup, "options": {**s.setup["options"], "rules_edition": 1}}
    assert 4 not in advance_targets(old, 1)  # edition 1 (stored games): lake links joined territories only


@pytest.mark.parametrize("defenders", [0, 3])
def test_r113_castle_defender_counts_eight_knights(defenders: int) -> None:
    """R113: the castle defender's knight part is 8 whatever its real knights there (even 0)."""
    play = Play(siege(defenders=defenders))
    play.advance(castle_pos(play.state, 1), 5)
    step1 = next(e["scores"] for e in play.of("battle_step") if e["step"] == 1)
    assert step1 == [5, 8]


def test_r114_attacker_winning_the_castle_wins_the_game() -> None:
    """R114: the attacker who wins a castle battle conquers the castle in step 9 and wins at once."""
    s = siege()
    set_hand(s, 0, plain("heroic_assault"))
    set_hand(s, 1, plain("probing_attack"))
    play = Play(s)
    play.advance(castle_pos(s, 1), 6)
    play.conflict("heroic_assault", "probing_attack")
    st = play.state
    assert play.of("battle_result")[0]["scores"] == [11, 10]
    assert st.winners == [0] and st.phase == "over"
    assert play.of("castle_conquered") and pending(st) == []


def test_r114_defender_win_attacker_loses_margin_castle_knights_unaffected() -> None:
    """R114, R76: when the castle defender wins, the attacker loses the margin and retreats the rest; the
    castle's real knights are unaffected."""
    s = siege(defenders=2)
    set_hand(s, 0, plain("probing_attack"))
    set_hand(s, 1, plain("shield_wall"))
    play = Play(s)
    play.advance(castle_pos(s, 1), 5)
    play.conflict("probing_attack", "shield_wall")
    st = play.state
    res = play.of("battle_result")[0]
    assert res["scores"] == [7, 11] and res["winner"] == 1 and res["margin"] == 4
    assert st.players[0].castle == 2 + 1  # 7 - 5 advanced, 1 retreats
    assert st.players[1].castle == 2
    assert st.winners == [] and st.battle is None


def test_r115_vp_victory_still_applies_with_castle_siege() -> None:
    """R115, R103: under Castle Siege a player still wins by reaching 13 VP."""
    s = fresh(options={"castle_siege": True})
    own(s, 0, TEN_VP)
    s.players[0].castle = 5
    play = Play(s)
    play.advance(2, 2)
    assert play.state.winners == [0]


# ----------------------------------------------------------------------------------------------------------
# Cut-throat (R116, Q12)
# ----------------------------------------------------------------------------------------------------------


def cut_throat_battle(att_conflict: str, def_conflict: str, att: int = 5) -> Play:
    """Seat 0 (t10, t5) attacks seat 1's t2; seat 1 also holds t9 (next to its castle) and t4, t3, t8,
    which are supplied only through t2 and the lake."""
    s = fresh(options={"cut_throat": True})
    own(s, 0, [10, 5])
    own(s, 1, [9, 4, 3, 8], knights=2)
    place(s, 2, 1, 1)
    assert {9, 2, 4, 3, 8} <= supplied(s, 1)
    s.players[0].castle = att
    s.players[1].castle = 1
    set_hand(s, 0, plain(att_conflict))
    set_hand(s, 1, plain(def_conflict))
    play = Play(s)
    play.advance(2, att)
    assert play.state.owner[4] == 1 and 4 in supplied(play.state, 1)  # Q12: still the defender's
    play.conflict(att_conflict, def_conflict)
    return play


def test_r116_q12_cut_off_territories_removed_after_the_battle_to_the_reserve() -> None:
    """R116, Q12, R17: after the attacker conquers t2, seat 1's territories that lost supply (t4, t3, t8)
    are all removed in the same pass; their knights leave the map, not to the castle; t9 stays."""
    play = cut_throat_battle("heroic_assault", "probing_attack")
    st = play.state
    assert st.owner[2] == 0
    assert [st.owner[p] for p in (4, 3, 8)] == [-1, -1, -1] and [st.knights[p] for p in (4, 3, 8)] == [
        0,
        0,
        0,
    ]
    assert st.owner[9] == 1 and st.knights[9] == 2
    assert st.players[1].castle == 1
    cuts = play.of("cut_throat")
    assert sorted(e["pos"] for e in cuts) == ["t3", "t4", "t8"] and all(e["knights"] == 2 for e in cuts)
    t = play.types()
    assert t.index("conquered") < t.index("cut_throat")
    assert st.owner[10] == 0 and st.owner[5] == 0


def test_r116_q12_defender_win_removes_nothing() -> None:
    """R116, Q12: while the battle runs and after the defender wins, the defender keeps every territory."""
    play = cut_throat_battle("probing_attack", "heroic_assault", att=3)
    st = play.state
    assert play.of("cut_throat") == []
    assert all(st.owner[p] == 1 for p in (9, 2, 4, 3, 8))


# ----------------------------------------------------------------------------------------------------------
# Mayhem (R118–R120, Q18, Q27)
# ----------------------------------------------------------------------------------------------------------


def test_r118_mayhem_adds_six_knights_to_each_castle_at_setup() -> None:
    """R118, R23: under Mayhem every castle receives 6 extra knights at setup."""
    basic = game(3, seed=4)
    mayhem = game(3, seed=4, options={"mayhem": True})
    assert [p.castle for p in mayhem.players] == [p.castle + 6 for p in basic.players]
    assert mayhem.knights == basic.knights


def mayhem_battle(
    att: int,
    dfd: int,
    dice: list[int],
    att_conflict: str = "heroic_assault",
    def_conflict: str = "probing_attack",
    tile: str = "forest",
    att_arts: list[str] | None = None,
    def_arts: list[str] | None = None,
) -> Play:
    s = fresh(options={"mayhem": True})
    pos = front(s, 0)
    set_tile(s, pos, tile)
    place(s, pos, 1, dfd)
    s.players[0].castle = att
    s.players[1].castle = 2
    set_hand(s, 0, plain(att_conflict))
    set_hand(s, 1, plain(def_conflict))
    set_artefacts(s, 0, att_arts or [])
    set_artefacts(s, 1, def_arts or [])
    s.dice_queue = list(dice)
    play = Play(s)
    play.advance(pos, att)
    return play


def test_r119_winner_rolls_per_knight_and_loses_one_per_one() -> None:
    """R119, Q18: the winner rolls one die per own knight in the territory and loses a knight per 1 (at the
    start of step 7, before the orb window); the loser then loses the margin as usual."""
    play = mayhem_battle(4, 2, [1, 3, 1, 5, 6, 6], def_arts=["orb_devotion"])
    pos = front(play.state, 0)
    play.conflict("heroic_assault", "probing_attack")
    ev = play.of("mayhem")[0]
    assert ev["seat"] == 0 and ev["rolls"] == [1, 3, 1, 5] and ev["lost"] == 2
    t = play.types()
    assert t.index("mayhem") < t.index("window_opened")
    play.settle()
    st = play.state
    assert st.owner[pos] == 0 and st.knights[pos] == 2
    assert [e["reason"] for e in play.of("knights_lost")] == ["mayhem", "battle"]
    assert st.dice_queue == [6, 6]


def test_r119_flip_attacker_to_defender_skips_step_eight_orbs_follow_flip() -> None:
    """R119, Q18: the winning attacker loses every knight to the roll: the result flips; the defender now
    wins and keeps its knights (step 8 skipped, no margin loss, no retreat); orbs follow the flipped result;
    the new winner does not roll."""
    play = mayhem_battle(
        2,
        3,
        [1, 1, 1, 1, 1],
        att_arts=["orb_greed", "orb_devotion"],
        def_arts=["orb_brutality", "orb_cleansing"],
    )
    pos = front(play.state, 0)
    play.conflict("heroic_assault", "probing_attack")  # 7 against 5
    assert play.of("battle_result")[0]["winner"] == 0
    assert play.of("mayhem_flip")[0]["winner"] == 1
    w = play.state.window
    # R74 (issue 14): every face-up orb of both players is a target; the flipped result decides which apply.
    assert w is not None and w.targets == ["orb_greed", "orb_devotion", "orb_brutality", "orb_cleansing"]
    play.settle()
    st = play.state
    assert st.owner[pos] == 1 and st.knights[pos] == 3
    assert play.of("retreat") == [] and play.of("conquered") == []
    assert [e["artefact"] for e in play.of("artefact_applied")] == ["orb_devotion", "orb_brutality"]
    assert st.players[0].castle == 1  # Devotion; no knight came back
    assert len(play.of("mayhem")) == 1 and st.dice_queue == [1, 1, 1]


def test_r119_flip_defender_to_attacker_conquers_with_all_knights() -> None:
    """R119, Q18, R78: a defender who wins (here on a tie) also rolls; losing its last knight flips the
    result: the attacker wins, loses nothing (step 8 skipped) and conquers, applying the conquest ability."""
    play = mayhem_battle(
        3, 2, [1, 1, 1, 1, 1], att_conflict="probing_attack", def_conflict="shield_wall", tile="village"
    )
    pos = front(play.state, 0)
    play.conflict("probing_attack", "shield_wall")  # 5 against 5: defender wins by 1
    res = play.of("battle_result")[0]
    assert res["winner"] == 1 and res["margin"] == 1
    assert play.of("mayhem")[0]["seat"] == 1 and play.of("mayhem")[0]["rolls"] == [1, 1]
    play.settle()
    st = play.state
    assert st.owner[pos] == 0 and st.knights[pos] == 3
    assert play.of("conquered")[0]["seat"] == 0 and st.players[0].castle == 1
    assert st.players[1].castle == 2 and play.of("retreat") == []
    assert st.dice_queue == [1, 1, 1]


def test_q18_mayhem_rolls_real_knights_not_fears_count() -> None:
    """Q18, R67: an attacker fighting with Fear's substitute count rolls only for its real knights."""
    play = mayhem_battle(2, 5, [2, 3, 1, 1, 1], att_arts=["sceptre_fear"])
    play.do(1, {"type": "respond", "fracture": []})
    play.do(0, {"type": "fear_choice", "use": True})
    play.conflict("heroic_assault", "probing_attack")  # 10 against 7
    assert play.of("mayhem")[0]["rolls"] == [2, 3]
    assert play.state.dice_queue == [1, 1, 1]


def test_r119_nobody_left_after_the_roll_leaves_territory_uncontrolled() -> None:
    """R119, R81, Q18: if after the roll neither player has knights in the territory, the battle ends at once
    (no orbs, no conquest) and the territory is uncontrolled. (Position built by editing: the defender's
    last knight is removed from the disputed territory before the conflict cards are revealed.)"""
    play = mayhem_battle(2, 1, [1, 1], def_arts=["orb_devotion"])
    pos = front(play.state, 0)
    st = edit(play.state)
    st.knights[pos] = 0  # the defender keeps the dispute but has no real knight left there
    play.state = st
    play.conflict("heroic_assault", "probing_attack")
    st = play.state
    assert st.battle is None and st.owner[pos] == -1 and st.knights[pos] == 0
    assert play.of("conquered") == [] and play.of("artefact_applied") == [] and play.of("window_opened") == []
    assert len(st.players[0].discard) == 1 and len(st.players[1].discard) == 1


def test_q27_castle_defender_with_no_knights_rolls_nothing() -> None:
    """Q27, R120, R113: a castle defender who wins with 0 real knights has nothing to roll and nothing
    flips; the attacker takes normal losses."""
    s = siege(defenders=0, mayhem=True)
    set_hand(s, 0, plain("probing_attack"))
    set_hand(s, 1, plain("shield_wall"))
    s.dice_queue = [1, 1, 1]
    play = Play(s)
    play.advance(castle_pos(s, 1), 5)
    play.conflict("probing_attack", "shield_wall")
    st = play.state
    assert play.of("mayhem")[0]["rolls"] == [] and play.of("mayhem_flip") == []
    assert st.dice_queue == [1, 1, 1] and st.winners == []
    assert st.players[0].castle == 2 + 1


@pytest.mark.parametrize(("dice", "flips"), [([1, 1], True), ([1, 2], False)])
def test_q27_r120_castle_defender_rolls_real_castle_knights(dice: list[int], flips: bool) -> None:
    """Q27, R120, R114: a winning castle defender rolls for its real castle knights; the result flips only
    if its last knight there is lost, and then the attacker conquers the castle and wins the game."""
    s = siege(defenders=2, mayhem=True)
    set_hand(s, 0, plain("probing_attack"))
    set_hand(s, 1, plain("shield_wall"))
    s.dice_queue = list(dice)
    play = Play(s)
    play.advance(castle_pos(s, 1), 5)
    play.conflict("probing_attack", "shield_wall")
    st = play.state
    assert play.of("mayhem")[0]["seat"] == 1 and play.of("mayhem")[0]["rolls"] == dice
    if flips:
        assert st.winners == [0] and play.of("castle_conquered")
    else:
        assert st.winners == [] and st.players[1].castle == 1
        assert st.players[0].castle == 2 + 1


def test_r114_r119_castle_attacker_flipped_by_mayhem_does_not_win() -> None:
    """R114, R119: the attacker wins the castle battle but loses every knight to its Mayhem roll: the result
    flips to the defender, nobody conquers the castle and the game goes on."""
    s = siege(defenders=2, mayhem=True)
    set_hand(s, 0, plain("heroic_assault"))
    set_hand(s, 1, plain("probing_attack"))
    s.dice_queue = [1, 1, 1, 1, 1, 1]
    play = Play(s)
    play.advance(castle_pos(s, 1), 6)
    play.conflict("heroic_assault", "probing_attack")  # 11 against 10
    st = play.state
    assert play.of("battle_result")[0]["winner"] == 0 and play.of("mayhem_flip")[0]["winner"] == 1
    assert st.winners == [] and play.of("castle_conquered") == []
    assert st.players[1].castle == 2 and st.players[0].castle == 1
    assert st.battle is None and st.dice_queue == []


def test_q6_r104_arena_control_without_conquest_still_counts_for_victory() -> None:
    """Q6, R104, R14: the Arena roll empties the defender; the attacker controls the Arena without conquering
    it, and that control is checked for victory at once (10 + 3 VP)."""
    s = fresh()
    own(s, 0, [8, 10, 6, 4, 1, 7])
    assert victory_points(s)[0] == 10
    set_tile(s, 5, "arena")
    place(s, 5, 1, 1)
    s.players[0].castle = 3
    s.dice_queue = [6, 2]
    play = Play(s)
    play.advance(5, 3)
    st = play.state
    assert play.of("conquered") == []
    assert st.owner[5] == 0 and st.winners == [0]
