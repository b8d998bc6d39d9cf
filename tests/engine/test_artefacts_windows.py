"""Artefacts in general (R89–R94) and the battle response windows (R36 c/d, R37, Q7).

Battles are built on the default layouts: the attacker (the active seat) advances from its castle into a
neighbouring territory held by the defender. Artefacts and hands are set exactly with the fixtures.
"""

from __future__ import annotations

from typing import Any

from games.engine import ErrorCode, GameState, legal_actions, pending, redact_event, view_for
from tests.engine.fixtures import (
    Driver,
    act,
    assert_illegal,
    castle_pos,
    clear_map,
    edit,
    game,
    neighbours,
    place,
    set_artefacts,
    set_hand,
    set_tile,
)

#: Five cards, no support cards, no Fracture; the conflict card is Audacious Charge (4).
PLAIN = ["audacious_charge", "call_to_arms", "tactical_advance", "probing_attack", "ambush"]
#: The same with Fracture instead of the Ambush.
WITH_FRACTURE = ["audacious_charge", "call_to_arms", "tactical_advance", "probing_attack", "fracture"]


def front(state: GameState, seat: int) -> int:
    """A territory next to ``seat``'s castle."""
    return min(n for n in neighbours(state, castle_pos(state, seat)) if state.board.kinds[n] == "territory")


def setup(
    players: int = 2,
    attacker: int = 0,
    defender: int = 1,
    arts: dict[int, list[str]] | None = None,
    hands: dict[int, list[str]] | None = None,
    att: int = 5,
    dfd: int = 2,
    options: dict[str, Any] | None = None,
) -> GameState:
    """``attacker`` is active on turn 1 with ``att`` castle knights; ``defender`` holds the territory next to
    the attacker's castle (Forest: no ability) with ``dfd`` knights. Every seat has exactly the artefacts
    of ``arts`` (none by default) and the hand of ``hands`` (``PLAIN`` by default)."""
    s = edit(game(players, seed=5, options=options, pin={"first_player": attacker}))
    clear_map(s)
    pos = front(s, attacker)
    set_tile(s, pos, "forest")
    place(s, pos, defender, dfd)
    s.players[attacker].castle = att
    for seat in range(players):
        set_artefacts(s, seat, [])
        set_hand(s, seat, (hands or {}).get(seat, PLAIN))
    for seat, ids in (arts or {}).items():
        set_artefacts(s, seat, ids)
    s.dice_queue = []
    return s


class Play(Driver):
    """Drives one game through the public API and keeps every event."""

    def advance(self, knights: int | None = None) -> None:
        s = self.state
        seat = s.active
        n = s.players[seat].castle if knights is None else knights
        self.do(seat, {"type": "advance", "to": f"t{front(s, seat)}", "knights": n})

    def respond(self, seat: int, *targets: str) -> None:
        self.do(seat, {"type": "respond", "fracture": list(targets)})


def art(state: GameState, seat: int, art_id: str) -> tuple[bool, int]:
    """``(face_up, destroyed_on)`` of ``seat``'s artefact ``art_id``."""
    a = state.players[seat].artefact(art_id)
    assert a is not None
    return a.face_up, a.destroyed_on


def fracture_card(state: GameState) -> int:
    return state.content.effect_index["fracture"]


# ----------------------------------------------------------------------------------------------------------
# R89–R92
# ----------------------------------------------------------------------------------------------------------


def test_r89_artefacts_belong_to_one_player_and_are_public() -> None:
    """R89: every artefact belongs to exactly one player and every viewer sees all of them with their
    face-up/face-down state."""
    s = game(3, seed=11)
    owned = [a.id for p in s.players for a in p.artefacts]
    assert len(owned) == len(set(owned)) == 9
    for viewer in (0, 1, 2, None):
        v = view_for(s, viewer)
        for p, pv in zip(s.players, v["players"], strict=True):
            assert [(a["id"], a["face_up"]) for a in pv["artefacts"]] == [
                (a.id, a.face_up) for a in p.artefacts
            ]


def test_r90_destroy_turns_face_down_and_records_turn() -> None:
    """R90, R36: Fracture destroys: the artefact is face down with ``destroyedOnTurn`` = T; the card goes to
    the discard pile after resolving."""
    s = setup(arts={0: [], 1: ["sceptre_loyalty"]}, hands={0: WITH_FRACTURE})
    t = act(s, 0, {"type": "fracture", "target": "sceptre_loyalty"})
    assert art(t.state, 1, "sceptre_loyalty") == (False, s.turn)
    p = t.state.players[0]
    assert fracture_card(s) in p.discard and fracture_card(s) not in p.hand
    assert [e["type"] for e in t.events if e["type"] == "artefact_destroyed"] == ["artefact_destroyed"]


def test_r90_face_down_artefact_is_not_a_legal_target() -> None:
    """R90, R36: destroying an already face-down artefact is not a legal target choice."""
    s = setup(arts={1: ["sceptre_loyalty", "orb_greed"]}, hands={0: WITH_FRACTURE})
    a = s.players[1].artefact("sceptre_loyalty")
    assert a is not None
    a.face_up, a.destroyed_on = False, 1
    offered = [x.to_dict() for x in legal_actions(s, 0)]
    assert {"type": "fracture", "target": "orb_greed"} in offered
    assert {"type": "fracture", "target": "sceptre_loyalty"} not in offered
    assert_illegal(s, 0, {"type": "fracture", "target": "sceptre_loyalty"}, ErrorCode.INVALID_FRACTURE_TARGET)


def test_r90_r91_face_down_sceptre_and_orb_are_not_applied() -> None:
    """R90, R91: a face-down sceptre or orb is neither offered as a target nor applied."""
    s = setup(arts={0: ["sceptre_rage", "orb_brutality"]})
    for a in s.players[0].artefacts:
        a.face_up, a.destroyed_on = False, 1
    play = Play(s)
    play.advance()
    play.conflict("audacious_charge", "probing_attack")
    play.settle()
    assert play.of("window_opened") == [] and play.of("artefact_applied") == []
    res = play.of("battle_result")[0]
    assert res["scores"] == [9, 4] and res["margin"] == 5
    assert [e["reason"] for e in play.of("knights_lost")] == ["battle"]


def test_r91_sceptres_and_orbs_apply_automatically() -> None:
    """R91, R37: sceptres and orbs apply without their owner deciding anything: the owner, whose only targets
    would be its own artefacts, is not even asked in the window."""
    s = setup(arts={0: ["sceptre_rage", "orb_brutality"]})
    play = Play(s)
    play.advance()
    w = play.state.window
    assert w is not None and w.kind == "sceptre" and w.asked == [1]
    play.respond(1)
    assert [e["artefact"] for e in play.of("artefact_applied")] == ["sceptre_rage"]
    play.settle()
    assert [e["artefact"] for e in play.of("artefact_applied")] == ["sceptre_rage", "orb_brutality"]
    assert [e["reason"] for e in play.of("knights_lost")] == ["brutality", "battle"]
    # sealed window: the answerer's seat is private to it (issue 14)
    assert all(
        redact_event(e, 1)["seat"] == 1 and "seat" not in redact_event(e, 0)
        for e in play.of("window_answered")
    )


def test_r92_uninvolved_players_artefacts_never_apply() -> None:
    """R92, R59: artefacts of a player not involved in the battle never apply and are never targets."""
    s = setup(
        players=3,
        arts={2: ["sceptre_rage", "sceptre_loyalty", "orb_brutality", "orb_devotion", "orb_resurgence"]},
        hands={2: ["war_banner"]},
    )
    play = Play(s)
    play.advance()
    play.conflict("audacious_charge", "probing_attack")
    play.settle()
    assert play.of("window_opened") == [] and play.of("artefact_applied") == []
    assert play.of("battle_result")[0]["scores"] == [9, 4]
    st = play.state
    assert st.players[2].castle == s.players[2].castle and len(st.players[2].hand) == 1


# ----------------------------------------------------------------------------------------------------------
# R93, R94: restoring
# ----------------------------------------------------------------------------------------------------------


def test_r93_r94_destroyed_on_another_players_turn_returns_at_end_of_owners_next_turn() -> None:
    """R93, R94: destroyed on seat 0's turn, seat 1's artefact is not restored by seat 0's step 9, stays
    down during seat 1's next turn and returns at its end."""
    s = setup(arts={1: ["orb_greed"]}, hands={0: WITH_FRACTURE})
    play = Play(s)
    play.do(0, {"type": "fracture", "target": "orb_greed"})
    assert art(play.state, 1, "orb_greed") == (False, 1)
    play.end_turn()
    st = play.state
    assert (st.turn, st.active) == (2, 1)
    assert art(st, 1, "orb_greed") == (False, 1)
    assert play.of("artefact_restored") == []
    play.end_turn()
    assert art(play.state, 1, "orb_greed") == (True, 0)
    assert [(e["artefact"], e["owner"], e["turn"]) for e in play.of("artefact_restored")] == [
        ("orb_greed", 1, 2)
    ]


def test_r93_r94_destroyed_on_owners_own_turn_stays_down_through_next_own_turn() -> None:
    """R93, R94, R36: seat 1 fractures attacker seat 0's Rage in the sceptre window of seat 0's turn: it is
    not restored at the end of that turn, stays down all through seat 0's next turn (no +1 there) and
    returns at the end of it."""
    s = setup(arts={0: ["sceptre_rage"]}, hands={1: WITH_FRACTURE})
    play = Play(s)
    play.advance(3)
    play.respond(1, "sceptre_rage")
    assert art(play.state, 0, "sceptre_rage") == (False, 1)
    play.settle()
    play.end_turn()  # end of turn 1: destroyed this turn, not restored
    assert art(play.state, 0, "sceptre_rage") == (False, 1)
    play.end_turn()  # turn 2 (seat 1)
    st = play.state
    assert (st.turn, st.active) == (3, 0)
    assert art(st, 0, "sceptre_rage") == (False, 1)
    # Seat 0 attacks again on turn 3: the face-down Rage does not apply.
    st = edit(st)
    pos = front(st, 0)
    clear_map(st)
    place(st, pos, 1, 2)
    st.players[0].castle = 3
    set_hand(st, 0, PLAIN)
    set_hand(st, 1, PLAIN)
    play.state = st
    play.events = []
    play.advance(3)
    assert play.of("window_opened") == []
    play.settle()
    assert play.of("artefact_applied") == []
    assert art(play.state, 0, "sceptre_rage") == (False, 1)
    play.end_turn()  # end of turn 3: restored
    assert art(play.state, 0, "sceptre_rage") == (True, 0)


def test_r93_only_the_active_players_artefacts_are_restored() -> None:
    """R93: step 9 restores only the active player's own artefacts destroyed on a previous turn; another
    player's artefact destroyed just as long ago stays face down."""
    s = setup(arts={0: ["crown_fury"], 1: ["crown_order"]})
    s.turn = 3  # seat 0 is active on turn 3; both crowns were destroyed on turn 1
    for seat, aid in ((0, "crown_fury"), (1, "crown_order")):
        a = s.players[seat].artefact(aid)
        assert a is not None
        a.face_up, a.destroyed_on = False, 1
    t = act(s, 0, {"type": "end_turn"})
    assert art(t.state, 0, "crown_fury") == (True, 0)
    assert art(t.state, 1, "crown_order") == (False, 1)


# ----------------------------------------------------------------------------------------------------------
# Response windows (R36 c/d, R37, Q7)
# ----------------------------------------------------------------------------------------------------------


def three_player_sceptres(
    options: dict[str, Any] | None = None, hands: dict[int, list[str]] | None = None, attacker: int = 0
) -> Play:
    """3 players: ``attacker`` (Rage) attacks the next seat (Loyalty); the third seat is uninvolved."""
    defender = (attacker + 1) % 3
    s = setup(
        players=3,
        attacker=attacker,
        defender=defender,
        arts={attacker: ["sceptre_rage"], defender: ["sceptre_loyalty"]},
        hands=hands,
        options=options,
    )
    play = Play(s)
    play.advance()
    return play


def test_r37_q7_window_asks_every_player_in_parallel_including_uninvolved() -> None:
    """R37, Q7, R64: the sceptre window asks every player with a legal target at once, involved or not,
    each whether or not holding Fracture (default ``fracture_prompts="all"``)."""
    play = three_player_sceptres()
    w = play.state.window
    assert w is not None and w.asked == [0, 1, 2]
    prompts = pending(play.state)
    assert [(p.seat, p.kind) for p in prompts] == [(0, "response"), (1, "response"), (2, "response")]
    assert all(p.timeout_action.to_dict() == {"type": "respond", "fracture": []} for p in prompts)


def test_r37_window_order_is_clockwise_from_the_attacker() -> None:
    """R37, R64, Q7: the window starts with the attacker and goes clockwise (attacker seat 1 → 1, 2, 0)."""
    play = three_player_sceptres(attacker=1)
    w = play.state.window
    assert w is not None and w.opener == 1 and w.asked == [1, 2, 0]


def test_q7_ranked_answers_resolve_clockwise_one_fracture_per_target() -> None:
    """R37, Q7: answers are collected in parallel but resolved clockwise from the attacker; the defender
    (earlier in the lap) destroys Rage, so the uninvolved seat's first choice is already down and its
    second choice, Loyalty, is destroyed instead. Neither sceptre applies."""
    play = three_player_sceptres(hands={1: WITH_FRACTURE, 2: WITH_FRACTURE})
    play.respond(2, "sceptre_rage", "sceptre_loyalty")  # answers out of order
    play.respond(1, "sceptre_rage")
    play.respond(0)
    st = play.state
    assert art(st, 0, "sceptre_rage")[0] is False and art(st, 1, "sceptre_loyalty")[0] is False
    assert [(e["by"], e["artefact"]) for e in play.of("artefact_destroyed")] == [
        (1, "sceptre_rage"),
        (2, "sceptre_loyalty"),
    ]
    assert play.of("artefact_applied") == []
    f = st.content.effect_index["fracture"]
    assert f in st.players[1].discard and f in st.players[2].discard


def test_q7_two_players_ranking_the_same_target_spend_only_one_fracture() -> None:
    """R37, Q7: two players rank only the same target: the first clockwise from the attacker spends its
    Fracture, the second keeps it."""
    play = three_player_sceptres(hands={1: WITH_FRACTURE, 2: WITH_FRACTURE})
    play.respond(2, "sceptre_rage")
    play.respond(0)
    play.respond(1, "sceptre_rage")
    st = play.state
    f = st.content.effect_index["fracture"]
    assert f in st.players[1].discard and f not in st.players[1].hand
    assert f in st.players[2].hand and f not in st.players[2].discard
    assert len(play.of("artefact_destroyed")) == 1
    assert [e["artefact"] for e in play.of("artefact_applied")] == ["sceptre_loyalty"]


def test_r37_q7_uninvolved_player_can_fracture_and_negate() -> None:
    """R37, Q7, R36: a player not in the battle fractures the attacker's Rage: Rage is negated (no +1),
    destroyed, and the Fracture goes to the fracturing player's discard with the current turn."""
    play = three_player_sceptres(hands={2: WITH_FRACTURE})
    play.respond(0)
    play.respond(1)
    play.respond(2, "sceptre_rage")
    st = play.state
    assert art(st, 0, "sceptre_rage") == (False, 1)
    assert [e["artefact"] for e in play.of("artefact_applied")] == ["sceptre_loyalty"]
    steps = [e["scores"] for e in play.of("battle_step") if e["step"] == 3]
    assert steps == [[5, 3]]
    p2 = st.players[2]
    assert p2.discard == [st.content.effect_index["fracture"]] and p2.discard_turns == [st.turn]


def test_r37_fracture_prompts_holders_asks_only_fracture_holders() -> None:
    """R37, Q7: with ``fracture_prompts="holders"`` only seats holding Fracture are asked."""
    play = three_player_sceptres(options={"fracture_prompts": "holders"}, hands={2: WITH_FRACTURE})
    w = play.state.window
    assert w is not None and w.asked == [2]
    assert [p.seat for p in pending(play.state)] == [2]
    assert_illegal(play.state, 1, {"type": "respond", "fracture": []}, ErrorCode.NOT_YOUR_DECISION)


def test_r37_fracture_prompts_holders_nobody_holds_window_resolves_at_once() -> None:
    """R37, R65: with ``fracture_prompts="holders"`` and no Fracture held, nobody is asked and the sceptres
    apply straight away."""
    play = three_player_sceptres(options={"fracture_prompts": "holders"})
    assert play.state.window is None
    assert [e["artefact"] for e in play.of("artefact_applied")] == ["sceptre_rage", "sceptre_loyalty"]
    assert [p.kind for p in pending(play.state)] == ["conflict", "conflict"]


def test_r37_respond_with_fracture_requires_holding_it() -> None:
    """R37, R38: a seat asked without holding Fracture may only pass."""
    play = three_player_sceptres()
    st = play.state
    assert len(legal_actions(st, 2)) == 1
    assert legal_actions(st, 2)[0].to_dict() == {"type": "respond", "fracture": []}
    assert_illegal(st, 2, {"type": "respond", "fracture": ["sceptre_rage"]}, ErrorCode.NO_FRACTURE_IN_HAND)


def test_r37_q7_illegal_targets_and_second_answers_are_refused() -> None:
    """R37, Q7, R36: a player can never target its own artefact, nor an artefact that is not about to apply
    (a crown, a sceptre of an uninvolved player); each player answers exactly once."""
    s = setup(
        players=3,
        arts={0: ["sceptre_rage", "crown_fury"], 1: ["sceptre_loyalty"], 2: ["sceptre_vigour"]},
        hands={0: WITH_FRACTURE, 1: WITH_FRACTURE, 2: WITH_FRACTURE},
    )
    play = Play(s)
    play.advance()
    st = play.state
    assert st.window is not None and st.window.targets == ["sceptre_rage", "sceptre_loyalty"]
    code = ErrorCode.INVALID_FRACTURE_TARGET
    assert_illegal(st, 0, {"type": "respond", "fracture": ["sceptre_rage"]}, code)
    assert_illegal(st, 1, {"type": "respond", "fracture": ["crown_fury"]}, code)
    assert_illegal(st, 1, {"type": "respond", "fracture": ["sceptre_vigour"]}, code)
    assert_illegal(
        st, 1, {"type": "respond", "fracture": ["sceptre_rage", "sceptre_rage"]}, ErrorCode.BAD_CHOICE
    )
    play.respond(2)
    assert_illegal(
        play.state, 2, {"type": "respond", "fracture": ["sceptre_rage"]}, ErrorCode.ALREADY_ANSWERED
    )


def test_r36_fracture_outside_windows_is_refused_during_a_battle() -> None:
    """R36: during a battle Fracture is only possible in its windows: not as a free play by the attacker in
    the conflict step, nor by another player on the attacker's turn."""
    s = setup(arts={0: ["orb_greed"], 1: ["orb_devotion"]}, hands={0: WITH_FRACTURE, 1: WITH_FRACTURE})
    play = Play(s)
    play.advance()
    st = play.state
    assert st.battle is not None and st.battle.stage == "conflict"
    assert_illegal(st, 0, {"type": "fracture", "target": "orb_devotion"}, ErrorCode.WRONG_PHASE)
    assert_illegal(st, 1, {"type": "fracture", "target": "orb_greed"}, ErrorCode.NOT_YOUR_DECISION)


def test_r37_orb_window_uninvolved_player_negates_brutality() -> None:
    """R37, R74, Q7: in the orb window an uninvolved player's Fracture negates the winner's Brutality (no
    extra loss) and destroys it."""
    s = setup(
        players=3, arts={0: ["orb_brutality"], 1: ["orb_devotion"]}, hands={2: WITH_FRACTURE}, att=5, dfd=4
    )
    play = Play(s)
    play.advance()
    play.conflict("audacious_charge", "probing_attack")
    st = play.state
    w = st.window
    assert w is not None and w.kind == "orb" and w.opener == 0
    assert w.targets == ["orb_brutality", "orb_devotion"] and w.asked == [0, 1, 2]
    play.respond(0)
    play.respond(2, "orb_brutality")
    play.respond(1)
    st = play.state
    assert art(st, 0, "orb_brutality") == (False, 1)
    assert [e["artefact"] for e in play.of("artefact_applied")] == ["orb_devotion"]
    assert [e["reason"] for e in play.of("knights_lost")] == ["battle"]


def test_q7_window_skipped_when_no_artefact_is_about_to_apply() -> None:
    """Q7, R64, R74: with no sceptre or orb about to apply, no window is opened and nobody is asked, even
    though Fracture holders and other artefacts exist."""
    s = setup(
        players=3, arts={0: ["crown_fury"], 2: ["sceptre_rage"]}, hands={1: WITH_FRACTURE, 2: WITH_FRACTURE}
    )
    play = Play(s)
    play.advance()
    play.settle()
    assert play.of("window_opened") == []


def test_r36_r64_fractured_fear_is_negated_before_its_choice() -> None:
    """R36, R64, R67: a Fear sceptre fractured in the sceptre window is negated: its owner is never asked
    whether to use it and fights with its real knights."""
    s = setup(arts={0: ["sceptre_fear"]}, hands={1: WITH_FRACTURE}, att=2, dfd=5)
    play = Play(s)
    play.advance()
    play.respond(1, "sceptre_fear")
    st = play.state
    assert [p.kind for p in pending(st)] == ["conflict", "conflict"]
    assert play.of("artefact_applied") == [] and art(st, 0, "sceptre_fear") == (False, 1)
    assert next(e["scores"] for e in play.of("battle_step") if e["step"] == 3) == [2, 5]
