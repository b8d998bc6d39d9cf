"""Order of battle (R59–R88): territory abilities, draws, sceptres, conflict and support cards, the result,
orbs, losses and retreat, conquest abilities and clean-up.

Every battle here is built on the 2-player default layout: seat 0 attacks from its castle into a territory
next to that castle which seat 1 holds. Tile types are set explicitly (never the map's random draw), hands
are exact (five cards, so the step-2 draw adds nothing unless a test says otherwise) and die results are
pinned through ``dice_queue``.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import (
    ErrorCode,
    GameState,
    IllegalAction,
    legal_actions,
    pending,
    victory_points,
    view_for,
)
from tests.engine.fixtures import (
    Driver,
    act,
    assert_illegal,
    castle_pos,
    cid,
    clear_map,
    edit,
    game,
    hand_card,
    neighbours,
    place,
    set_artefacts,
    set_hand,
    set_tile,
)

ATT, DEF, OTHER = 0, 1, 2

#: Default hands: five cards (no step-2 draw), one conflict card each, no support cards.
ATT_HAND = ["audacious_charge", "call_to_arms", "tactical_advance", "fracture", "probing_attack"]
DEF_HAND = ["shield_wall", "call_to_arms", "tactical_advance", "fracture", "probing_attack"]


def plain(conflict: str) -> list[str]:
    """A five-card hand without support cards whose conflict cards are ``conflict`` and an Ambush."""
    return [conflict, "call_to_arms", "tactical_advance", "fracture", "ambush"]


def front(state: GameState, seat: int = ATT) -> int:
    """A territory position next to ``seat``'s castle (the battlefield of these tests)."""
    return min(n for n in neighbours(state, castle_pos(state, seat)) if state.board.kinds[n] == "territory")


def setup(
    tile: str = "forest",
    att: int = 4,
    dfd: int = 3,
    att_hand: list[str] | None = None,
    def_hand: list[str] | None = None,
    att_arts: tuple[str, ...] = (),
    def_arts: tuple[str, ...] = (),
    dice: tuple[int, ...] = (),
    players: int = 2,
    options: dict[str, Any] | None = None,
    att_deck_top: list[str] | None = None,
    def_deck_top: list[str] | None = None,
) -> GameState:
    """Seat 0 (active, turn 1) has ``att`` knights in its castle; seat 1 holds ``front`` with ``dfd``."""
    s = edit(game(players, seed=3, options=options))
    clear_map(s)
    pos = front(s)
    set_tile(s, pos, tile)
    place(s, pos, DEF, dfd)
    s.players[ATT].castle = att
    s.players[DEF].castle = 2
    set_hand(s, ATT, ATT_HAND if att_hand is None else att_hand, deck_top=att_deck_top)
    set_hand(s, DEF, DEF_HAND if def_hand is None else def_hand, deck_top=def_deck_top)
    for seat in range(players):
        set_artefacts(s, seat, [])
    set_artefacts(s, ATT, list(att_arts))
    set_artefacts(s, DEF, list(def_arts))
    s.dice_queue = list(dice)
    return s


def names(state: GameState, cards: list[int]) -> list[str]:
    """Content ids of card indices."""
    return [state.content.cards[c].id for c in cards]


class Play(Driver):
    """Drives one battle of seat 0 (``ATT``) against seat 1 (``DEF``) and keeps every event."""

    @property
    def pos(self) -> int:
        return front(self.state)

    def advance(self, knights: int) -> None:
        self.do(ATT, {"type": "advance", "to": f"t{self.pos}", "knights": knights})

    def respond(self, answers: dict[int, list[str]] | None = None) -> None:
        """Answer every open response prompt (pass unless ``answers`` says otherwise)."""
        for p in pending(self.state):
            assert p.kind == "response"
        for p in pending(self.state):
            self.do(p.seat, {"type": "respond", "fracture": (answers or {}).get(p.seat, [])})

    def conflict(self, att: str | None, dfd: str | None) -> None:
        """Seat 0 (``ATT``), then seat 1 (``DEF``), choose their conflict card (``None``: no prompt)."""
        for seat, name in ((ATT, att), (DEF, dfd)):
            if name is not None:
                self.do(seat, {"type": "choose_conflict", "card": hand_card(self.state, seat, name)})

    def support(self, seat: int, *cards: str) -> None:
        """``seat`` plays support ``cards`` (by name) or passes when none are given."""
        if cards:
            ids = []
            for name in cards:
                hand = [c for c in self.state.players[seat].hand if cid(seat, c) not in ids]
                ids.append(next(cid(seat, c) for c in hand if self.state.content.cards[c].id == name))
            self.do(seat, {"type": "play_support", "cards": ids})
        else:
            self.do(seat, {"type": "pass_support"})


def battle(**kw: Any) -> Play:
    """Set up (see :func:`setup`) and advance all of seat 0's castle knights."""
    knights = kw.pop("knights", None)
    play = Play(setup(**kw))
    play.advance(knights if knights is not None else play.state.players[ATT].castle)
    return play


def step1_scores(play: Play) -> list[int]:
    return next(e["scores"] for e in play.of("battle_step") if e["step"] == 1)


def step3_scores(play: Play) -> list[int]:
    return next(e["scores"] for e in play.of("battle_step") if e["step"] == 3)


# ----------------------------------------------------------------------------------------------------------
# Participants (R57, R59) and the knight part (R60)
# ----------------------------------------------------------------------------------------------------------


def test_r57_r59_only_attacker_and_defender_are_involved() -> None:
    """R57, R59: an advance into seat 1's territory starts a battle between seat 0 (attacker) and seat 1
    (defender); a third player is not involved: never asked for cards and its hand is untouched (R63)."""
    s = setup(players=3, att_hand=["audacious_charge"], def_hand=["shield_wall"])
    set_hand(s, OTHER, ["heroic_assault", "war_banner"])
    play = Play(s)
    play.advance(4)
    st = play.state
    assert st.battle is not None
    assert (st.battle.attacker, st.battle.defender, st.battle.pos) == (ATT, DEF, play.pos)
    assert st.battle.att_knights == 4
    assert st.owner[play.pos] == DEF and st.knights[play.pos] == 3  # defender's knights stay put
    assert sorted(p.seat for p in pending(st)) == [ATT, DEF]
    assert all(p.kind == "conflict" for p in pending(st))
    assert len(st.players[ATT].hand) >= 5 and len(st.players[DEF].hand) >= 5
    assert len(st.players[OTHER].hand) == 2
    assert [e["seat"] for e in play.of("draw")] == [ATT, DEF]


def test_r60_knight_part_is_current_knights_and_territory_counts_for_nobody() -> None:
    """R60, R13: the knight part of each score is the knights each side has in the disputed territory; while
    in dispute the territory scores for nobody."""
    play = battle(att=5, dfd=2)
    st = play.state
    assert step1_scores(play) == [5, 2]
    assert st.battle is not None
    assert victory_points(st)[DEF] == 0


# ----------------------------------------------------------------------------------------------------------
# Step 1: start-of-battle abilities (R62, R84, R85, R88)
# ----------------------------------------------------------------------------------------------------------


def test_r62_r84_grasslands_gives_attacker_plus_one() -> None:
    """R62, R84: Grasslands gives the attacker +1 at the start of the battle."""
    play = battle(tile="grasslands", att=4, dfd=3)
    assert step1_scores(play) == [5, 3]
    assert play.state.battle is not None and play.state.battle.mods[0] == [["grasslands", 1]]


@pytest.mark.parametrize("tile", ["fort", "city", "fortress"])
def test_r62_r84_fort_city_fortress_give_defender_plus_one(tile: str) -> None:
    """R62, R84: Fort, City and Fortress give the defender +1 at the start of the battle."""
    play = battle(tile=tile, att=4, dfd=3)
    assert step1_scores(play) == [4, 4]
    assert play.state.battle is not None and play.state.battle.mods == [[], [[tile, 1]]]


@pytest.mark.parametrize("tile", ["forest", "mountains", "homelands", "village", "marshlands", "cave"])
def test_r62_r87_r88_tiles_without_start_ability_change_nothing(tile: str) -> None:
    """R62, R87, R88: Forest (no ability), Mountains, Homelands and capacity tiles, and conquest-only tiles
    add nothing at the start of a battle and roll no die."""
    play = battle(tile=tile, att=3, dfd=2, dice=(1, 1))
    assert step1_scores(play) == [3, 2]
    assert play.state.dice_queue == [1, 1]
    assert play.of("arena") == []


def test_r85_arena_lower_roll_loses_a_knight_and_lowers_the_knight_part() -> None:
    """R85, R60: in the Arena each involved player rolls; the lower roll loses 1 knight there, which lowers
    that side's knight part; the battle goes on while both still have knights."""
    play = battle(tile="arena", att=4, dfd=3, dice=(2, 5))
    assert play.of("arena")[0]["rolls"] == [2, 5]
    st = play.state
    assert st.battle is not None and st.battle.att_knights == 3 and st.knights[play.pos] == 3
    assert step1_scores(play) == [3, 3]
    assert play.kinds() == ["conflict", "conflict"]


def test_r85_arena_tie_both_lose_a_knight() -> None:
    """R85: on an Arena tie both involved players lose 1 knight."""
    play = battle(tile="arena", att=4, dfd=3, dice=(4, 4))
    st = play.state
    assert st.battle is not None and st.battle.att_knights == 3 and st.knights[play.pos] == 2
    assert step1_scores(play) == [3, 2]


def test_r85_q4_arena_ends_battle_when_defender_emptied() -> None:
    """R85, R61, R81, Q4, Q6: the Arena empties the defender: the battle ends at once (no draw, no cards);
    the attacker controls the Arena without conquering it and no orb applies."""
    play = battle(
        tile="arena",
        att=3,
        dfd=1,
        dice=(6, 2),
        att_hand=["audacious_charge"],
        def_hand=["shield_wall"],
        att_arts=("orb_greed", "sceptre_rage"),
        def_arts=("orb_devotion", "sceptre_loyalty"),
    )
    st = play.state
    assert st.battle is None and st.phase == "window" and st.active == ATT
    assert st.owner[play.pos] == ATT and st.knights[play.pos] == 3
    assert play.of("draw") == [] and play.of("window_opened") == [] and play.of("conquered") == []
    assert play.of("artefact_applied") == []
    assert len(st.players[ATT].hand) == 1 and len(st.players[DEF].hand) == 1
    assert st.players[DEF].castle == 2  # no retreat, no Devotion


def test_r85_q4_arena_ends_battle_when_attacker_emptied_defender_keeps_control() -> None:
    """R85, R81, Q4, Q6: if only the defender's knights remain after the Arena roll, the battle ends and the
    defender simply keeps control."""
    play = battle(tile="arena", att=1, dfd=3, dice=(1, 6), att_hand=["audacious_charge"])
    st = play.state
    assert st.battle is None and st.phase == "window"
    assert st.owner[play.pos] == DEF and st.knights[play.pos] == 3
    assert st.players[ATT].castle == 0
    assert play.of("draw") == [] and len(st.players[ATT].hand) == 1


def test_q5_arena_tie_with_one_knight_each_leaves_territory_uncontrolled() -> None:
    """R85, R81, Q5: one knight each and an Arena tie: both are lost, the battle ends, the territory is
    uncontrolled and nobody conquers it."""
    play = battle(tile="arena", att=1, dfd=1, dice=(3, 3))
    st = play.state
    assert st.battle is None
    assert st.owner[play.pos] == -1 and st.knights[play.pos] == 0
    assert play.of("conquered") == []
    assert st.players[ATT].castle == 0 and st.players[DEF].castle == 2


# ----------------------------------------------------------------------------------------------------------
# Step 2: draw up to five (R63)
# ----------------------------------------------------------------------------------------------------------


def test_r63_each_involved_player_draws_up_to_five_never_discards_down() -> None:
    """R63, R100: a player with 2 cards draws 3; a player with 7 cards draws nothing and keeps 7."""
    play = battle(
        att_hand=["audacious_charge", "rallying_cry"],
        def_hand=[
            "shield_wall",
            "probing_attack",
            "ambush",
            "rallying_cry",
            "war_banner",
            "call_to_arms",
            "fracture",
        ],
    )
    st = play.state
    assert len(st.players[ATT].hand) == 5
    assert len(st.players[DEF].hand) == 7
    assert [(e["seat"], e["count"]) for e in play.of("draw")] == [(ATT, 3)]


def test_r63_r33_authority_drawn_in_battle_is_played_automatically() -> None:
    """R63, R33: the Authority card drawn in the battle draw is played at once: 2 more cards, then it goes to
    the discard pile; the player ends with 6 cards."""
    play = battle(
        att_hand=["audacious_charge", "rallying_cry", "call_to_arms", "fracture"],
        att_deck_top=["authority", "war_banner", "heroic_assault"],
    )
    st = play.state
    p = st.players[ATT]
    assert len(p.hand) == 6
    assert "authority" not in names(st, p.hand)
    assert names(st, p.discard) == ["authority"] and p.discard_turns == [st.turn]
    assert {"war_banner", "heroic_assault"} <= set(names(st, p.hand))


# ----------------------------------------------------------------------------------------------------------
# Step 3: sceptres (R64–R67)
# ----------------------------------------------------------------------------------------------------------


def test_r64_sceptre_window_starts_with_attacker_and_lists_applying_sceptres() -> None:
    """R64, R37: a sceptre window opens with the attacker; its targets are the attacker's "when attacking"
    and the defender's "when defending" sceptres."""
    play = battle(att_arts=("sceptre_rage",), def_arts=("sceptre_loyalty",))
    w = play.state.window
    assert w is not None and w.kind == "sceptre" and w.opener == ATT
    assert w.targets == ["sceptre_rage", "sceptre_loyalty"]
    assert w.asked == [ATT, DEF]
    assert sorted(p.seat for p in pending(play.state)) == [ATT, DEF]


def test_r64_r65_wrong_trigger_sceptres_are_targets_but_do_not_apply() -> None:
    """R64 (rulebook step 3: "the chance to play a fracture card on one of the sceptres belonging to the
    players involved in the battle", issue 14), R65, R91: a "when defending" sceptre of the attacker and a
    "when attacking" sceptre of the defender are targets of the window, which opens, but do not apply."""
    play = battle(
        att_arts=("sceptre_loyalty", "sceptre_defiance"), def_arts=("sceptre_rage", "sceptre_influence")
    )
    w = play.state.window
    assert w is not None and w.kind == "sceptre"
    assert w.targets == ["sceptre_loyalty", "sceptre_defiance", "sceptre_rage", "sceptre_influence"]
    assert w.asked == [ATT, DEF]
    play.respond()
    st = play.state
    assert play.of("artefact_applied") == []
    assert step3_scores(play) == [4, 3]
    assert len(st.players[ATT].hand) == 5 and len(st.players[DEF].hand) == 5
    assert play.kinds() == ["conflict", "conflict"]


def test_r64_rules_edition_1_skips_a_window_with_nothing_about_to_apply() -> None:
    """R64 as read before issue 14 (``rules_edition: 1``, kept for stored games): only sceptres about to
    apply were targets, so with none the window was skipped."""
    play = battle(
        att_arts=("sceptre_loyalty", "sceptre_defiance"),
        def_arts=("sceptre_rage", "sceptre_influence"),
        options={"rules_edition": 1},
    )
    assert play.of("window_opened") == [] and play.of("artefact_applied") == []
    assert play.kinds() == ["conflict", "conflict"]


def test_r64_r37_an_outside_player_may_fracture_a_sceptre_that_would_not_apply() -> None:
    """R64, R37 (issue 14): in a 3-player game the defender's Sceptre of Rage ("when attacking") will not
    apply, yet it belongs to a player in the battle, so the player outside the battle may fracture it.
    Before issue 14 no window opened and the Fracture was refused with ``invalid_fracture_target``."""
    s = setup(players=3, def_arts=("sceptre_rage",))
    set_hand(s, OTHER, ["fracture", "call_to_arms", "tactical_advance", "ambush", "probing_attack"])
    play = Play(s)
    play.advance(4)
    w = play.state.window
    assert w is not None and w.targets == ["sceptre_rage"] and w.asked == [ATT, OTHER]
    play.respond({OTHER: ["sceptre_rage"]})
    art = play.state.players[DEF].artefact("sceptre_rage")
    assert art is not None and not art.face_up
    assert [e["seat"] for e in play.of("card_played")] == [OTHER]
    assert play.of("artefact_applied") == []


def test_r65_q10_attacker_sceptre_applies_before_defender_sceptre() -> None:
    """R65, R66, Q10: after the window, the attacker's sceptre applies first, then the defender's; Rage and
    Loyalty each add +1 to their owner's score."""
    play = battle(att_arts=("sceptre_rage",), def_arts=("sceptre_loyalty",))
    play.respond()
    assert [e["artefact"] for e in play.of("artefact_applied")] == ["sceptre_rage", "sceptre_loyalty"]
    assert step3_scores(play) == [5, 4]


def test_r66_influence_rival_discards_one_random_card() -> None:
    """R66, R102, R101: Influence makes the defender discard one random card, recorded with the current
    turn; the attacker's hand is untouched."""
    play = battle(att_arts=("sceptre_influence",))
    play.respond()
    st = play.state
    assert len(st.players[DEF].hand) == 4 and len(st.players[ATT].hand) == 5
    d = st.players[DEF]
    assert len(d.discard) == 1 and d.discard_turns == [st.turn]
    assert [(e["seat"], e["reason"]) for e in play.of("discard")] == [(DEF, "influence")]


def test_r66_defiance_rival_discards_one_random_card() -> None:
    """R66, R102: Defiance makes the attacker discard one random card."""
    play = battle(def_arts=("sceptre_defiance",))
    play.respond()
    st = play.state
    assert len(st.players[ATT].hand) == 4 and len(st.players[DEF].hand) == 5
    assert [(e["seat"], e["reason"]) for e in play.of("discard")] == [(ATT, "defiance")]


def test_r66_q32_influence_on_empty_hand_has_no_effect_and_zero_conflict() -> None:
    """R66, Q32, R68: the defender has no cards anywhere: Influence does nothing (no error) and the defender
    fights with a conflict value of 0."""
    s = setup(att_arts=("sceptre_influence",), def_hand=[])
    s.players[DEF].deck = []
    play = Play(s)
    play.advance(4)
    play.respond()
    assert play.of("discard") == []
    assert play.kinds() == ["conflict"] and pending(play.state)[0].seat == ATT
    play.conflict("audacious_charge", None)
    rev = play.of("conflict_revealed")[0]
    assert rev["values"] == [4, 0] and isinstance(rev["cards"], list) and rev["cards"][1] is None
    assert rev["scores"] == [8, 3]


def test_r67_q3_fear_is_optional_and_uses_rivals_real_count() -> None:
    """R67, Q3: Fear asks its owner; if used, the attacker's knight part becomes the defender's knight count;
    the attacker's dice are unchanged."""
    play = battle(att=2, dfd=5, att_arts=("sceptre_fear",))
    play.respond()
    assert pending(play.state)[0].kind == "fear" and pending(play.state)[0].seat == ATT
    play.do(ATT, {"type": "fear_choice", "use": True})
    st = play.state
    assert st.battle is not None and st.battle.att_knights == 2
    assert step3_scores(play) == [5, 5]


def test_r67_q3_fear_declined_keeps_real_knights() -> None:
    """R67, Q3: declining Fear keeps the real knight part."""
    play = battle(att=2, dfd=5, att_arts=("sceptre_fear",))
    play.respond()
    play.do(ATT, {"type": "fear_choice", "use": False})
    assert step3_scores(play) == [2, 5]


def test_r67_q3_vigour_reads_the_rivals_count_after_arena_losses() -> None:
    """R67, Q3, R60: Vigour gives the defender the attacker's *current* knights (after an Arena loss); losses
    are still taken from the defender's real knights."""
    play = battle(
        tile="arena",
        att=5,
        dfd=2,
        dice=(1, 6),
        def_arts=("sceptre_vigour",),
        att_hand=["probing_attack"],
        def_hand=["heroic_assault"],
    )
    play.respond()
    play.do(DEF, {"type": "fear_choice", "use": True})
    assert step3_scores(play) == [4, 4]
    play.conflict("probing_attack", "heroic_assault")
    play.settle()
    res = play.of("battle_result")[0]
    assert res["scores"][1] == 9 and res["winner"] == DEF and res["margin"] == 3
    st = play.state
    assert st.owner[play.pos] == DEF and st.knights[play.pos] == 2  # real knights, winner loses none


def test_r67_r76_fear_losses_come_from_real_knights() -> None:
    """R67, R76: an attacker fighting with Fear's substitute count who loses takes the losses from its real
    knights only (capped at what it has there)."""
    play = battle(
        att=2, dfd=5, att_arts=("sceptre_fear",), att_hand=["probing_attack"], def_hand=["heroic_assault"]
    )
    play.respond()
    play.do(ATT, {"type": "fear_choice", "use": True})
    play.conflict("probing_attack", "heroic_assault")
    play.settle()
    assert play.of("battle_result")[0]["scores"] == [7, 10]
    lost = [e for e in play.of("knights_lost") if e["reason"] == "battle"]
    assert lost[0]["seat"] == ATT and lost[0]["knights"] == 2
    assert play.state.players[ATT].castle == 0


def test_q3_fear_and_vigour_both_use_real_counts() -> None:
    """Q3, R67: when both involved players use Fear/Vigour, each takes the rival's real knight count."""
    play = battle(att=2, dfd=5, att_arts=("sceptre_fear",), def_arts=("sceptre_vigour",))
    play.respond()
    play.do(ATT, {"type": "fear_choice", "use": True})
    play.do(DEF, {"type": "fear_choice", "use": True})
    assert step3_scores(play) == [5, 2]


# ----------------------------------------------------------------------------------------------------------
# Step 4: conflict cards (R68, Q9)
# ----------------------------------------------------------------------------------------------------------


def test_r68_conflict_cards_are_face_down_until_both_chose() -> None:
    """R68: the defender may choose first; the choice stays secret (no value, not revealed) until the
    attacker has chosen too; then both are revealed and added to the scores."""
    play = battle(att=4, dfd=3)
    card = hand_card(play.state, DEF, "shield_wall")
    play.conflict(None, "shield_wall")
    st = play.state
    assert st.battle is not None and not st.battle.revealed
    assert play.of("conflict_revealed") == []
    ev = play.of("conflict_chosen")[0]
    assert "card" not in ev and ev["private"] == {str(DEF): {"card": card}}
    assert [p.seat for p in pending(st)] == [ATT]
    attacker_sees, defender_sees = view_for(st, ATT)["battle"], view_for(st, DEF)["battle"]
    assert attacker_sees is not None and defender_sees is not None
    assert attacker_sees["defender"]["conflict"] == {"chosen": True}
    own = defender_sees["defender"]["conflict"].get("card")
    assert own is not None and own["id"] == card
    play.conflict("audacious_charge", None)
    rev = play.of("conflict_revealed")[0]
    assert rev["values"] == [4, 3] and rev["scores"] == [8, 6]
    assert play.state.battle is None or play.state.battle.revealed


def test_r68_q9_conflict_card_is_mandatory_when_held() -> None:
    """R68, Q9: a player holding a conflict card must play one: only conflict cards are offered, a support
    card is refused, passing is not possible, and the timeout plays the lowest conflict card."""
    play = battle(att_hand=["heroic_assault", "probing_attack", "war_banner", "call_to_arms", "fracture"])
    st = play.state
    offered = {a.to_dict()["card"] for a in legal_actions(st, ATT)}
    assert offered == {hand_card(st, ATT, "heroic_assault"), hand_card(st, ATT, "probing_attack")}
    prompt = next(p for p in pending(st) if p.seat == ATT)
    assert prompt.timeout_action.to_dict() == {
        "type": "choose_conflict",
        "card": hand_card(st, ATT, "probing_attack"),
    }
    assert_illegal(
        st,
        ATT,
        {"type": "choose_conflict", "card": hand_card(st, ATT, "war_banner")},
        ErrorCode.CARD_WRONG_KIND,
    )
    assert_illegal(st, ATT, {"type": "pass_support"}, ErrorCode.WRONG_PHASE)


def test_r68_conflict_choice_only_by_involved_players_once() -> None:
    """R68, R59: an uninvolved player cannot choose a conflict card; an involved player chooses only once."""
    s = setup(players=3)
    set_hand(s, OTHER, ["heroic_assault"])
    play = Play(s)
    play.advance(4)
    assert_illegal(
        play.state, OTHER, {"type": "choose_conflict", "card": cid(OTHER, 9)}, ErrorCode.NOT_YOUR_DECISION
    )
    play.conflict("audacious_charge", None)
    card = hand_card(play.state, ATT, "call_to_arms")
    assert_illegal(play.state, ATT, {"type": "choose_conflict", "card": card}, ErrorCode.ALREADY_ANSWERED)


def test_r68_player_without_conflict_card_counts_zero() -> None:
    """R68: a player who holds no conflict card is not asked and counts a conflict value of 0."""
    play = battle(
        att=4, dfd=3, def_hand=["war_banner", "rallying_cry", "call_to_arms", "fracture", "tactical_advance"]
    )
    assert [p.seat for p in pending(play.state)] == [ATT]
    play.conflict("audacious_charge", None)
    rev = play.of("conflict_revealed")[0]
    assert (
        rev["values"] == [4, 0] and isinstance(rev["cards"], list) and rev["cards"] == [rev["cards"][0], None]
    )


def test_r68_r3_ambush_value_is_one_d6_per_card() -> None:
    """R68, R3: each revealed Ambush is valued by its own d6 roll (attacker's card first)."""
    play = battle(
        att_hand=["ambush", "call_to_arms", "tactical_advance", "fracture", "authority"],
        def_hand=["ambush", "call_to_arms", "tactical_advance", "fracture", "authority"],
        dice=(6, 2, 5),
    )
    play.conflict("ambush", "ambush")
    rev = play.of("conflict_revealed")[0]
    assert rev["values"] == [6, 2]
    assert rev["scores"] == [10, 5]
    assert play.state.dice_queue == [5]


# ----------------------------------------------------------------------------------------------------------
# Step 5: support cards (R69–R71, Q8)
# ----------------------------------------------------------------------------------------------------------

SUPPORT_ATT = ["probing_attack", "rallying_cry", "war_banner", "war_banner", "call_to_arms"]
SUPPORT_DEF = ["heroic_assault", "rallying_cry", "rallying_cry", "war_banner", "call_to_arms"]


def support_battle(att: int = 4, dfd: int = 3) -> Play:
    """Conflict 2 (attacker) against 5 (defender); both still hold support cards."""
    play = battle(att=att, dfd=dfd, att_hand=SUPPORT_ATT, def_hand=SUPPORT_DEF)
    play.conflict("probing_attack", "heroic_assault")
    return play


def test_r69_lower_score_starts_support() -> None:
    """R69, Q8: the involved player with the lower combat score acts first in step 5."""
    play = support_battle()  # 4+2 = 6 against 3+5 = 8
    assert play.of("conflict_revealed")[0]["scores"] == [6, 8]
    assert [(p.seat, p.kind) for p in pending(play.state)] == [(ATT, "support")]
    play2 = support_battle(att=6, dfd=1)  # 8 against 6
    assert [(p.seat, p.kind) for p in pending(play2.state)] == [(DEF, "support")]


def test_r69_attacker_starts_support_on_a_tie() -> None:
    """R69, Q8: on equal scores the attacker acts first."""
    play = support_battle(att=6, dfd=3)  # 8 against 8
    assert play.of("conflict_revealed")[0]["scores"] == [8, 8]
    assert [(p.seat, p.kind) for p in pending(play.state)] == [(ATT, "support")]


def test_r70_several_support_cards_in_one_turn_then_alternate() -> None:
    """R70, Q8: a player may play several support cards in one turn (each adds its value), then the other
    player acts; the step ends after two consecutive passes."""
    play = support_battle()  # 6 vs 8, attacker first
    play.support(ATT, "war_banner", "rallying_cry")
    ev = play.of("support_played")[-1]
    assert ev["values"] == [2, 1] and ev["scores"] == [9, 8]
    assert [p.seat for p in pending(play.state)] == [DEF]
    play.support(DEF, "war_banner")
    assert play.of("support_played")[-1]["scores"] == [9, 10]
    play.support(ATT)
    assert [p.seat for p in pending(play.state)] == [DEF]  # one pass does not end the step
    play.support(DEF)
    assert play.of("battle_result")[0]["scores"] == [9, 10]


def test_r70_q8_passing_does_not_lock_a_player_out() -> None:
    """R70, Q8: a player who passed may play again after the other player played."""
    play = support_battle()
    play.support(ATT)
    play.support(DEF, "rallying_cry")
    assert [p.seat for p in pending(play.state)] == [ATT]
    play.support(ATT, "war_banner", "war_banner")
    play.support(DEF)
    play.support(ATT)
    res = play.of("battle_result")[0]
    assert res["scores"] == [10, 9] and res["winner"] == ATT and res["margin"] == 1


def test_r70_support_out_of_turn_or_wrong_kind_is_refused() -> None:
    """R70: only the player whose support turn it is may play, and only support cards."""
    play = support_battle()
    st = play.state
    assert_illegal(
        st,
        DEF,
        {"type": "play_support", "cards": [hand_card(st, DEF, "war_banner")]},
        ErrorCode.NOT_YOUR_DECISION,
    )
    assert_illegal(st, DEF, {"type": "pass_support"}, ErrorCode.NOT_YOUR_DECISION)
    assert_illegal(
        st,
        ATT,
        {"type": "play_support", "cards": [hand_card(st, ATT, "call_to_arms")]},
        ErrorCode.CARD_WRONG_KIND,
    )


def test_r70_player_without_support_cards_passes_automatically() -> None:
    """R70: a player with no support card is never prompted; the other plays until passing once."""
    play = battle(
        att=4, dfd=3, def_hand=["heroic_assault", "war_banner", "rallying_cry", "call_to_arms", "fracture"]
    )
    play.conflict("audacious_charge", "heroic_assault")  # 8 vs 8: attacker would start but has no support
    assert [(p.seat, p.kind) for p in pending(play.state)] == [(DEF, "support")]
    play.support(DEF, "war_banner")
    assert [(p.seat, p.kind) for p in pending(play.state)] == [(DEF, "support")]
    play.support(DEF)
    assert play.of("battle_result")[0]["scores"] == [8, 10]


def test_r70_no_support_cards_at_all_skips_the_step() -> None:
    """R70: when neither player holds a support card, step 5 asks nobody and the result follows."""
    play = battle(att=4, dfd=3)
    play.conflict("audacious_charge", "shield_wall")
    assert play.of("battle_result")[0]["scores"] == [8, 6]
    assert play.state.battle is None or play.state.battle.stage != "support"


def test_r71_r87_mountains_forbid_support_cards() -> None:
    """R71, R87: in a battle over Mountains no support card is played; step 5 is skipped and the support
    cards stay in hand."""
    play = battle(tile="mountains", att=4, dfd=3, att_hand=SUPPORT_ATT, def_hand=SUPPORT_DEF)
    play.conflict("probing_attack", "heroic_assault")
    assert play.of("support_played") == []
    assert "support" not in play.kinds()
    res = play.of("battle_result")[0]
    assert res["scores"] == [6, 8]
    st = play.state
    assert names(st, st.players[ATT].hand).count("war_banner") == 2


def test_r71_a_support_card_over_mountains_is_refused_with_support_forbidden() -> None:
    """R71 ("Mountains: no support cards may be played in a battle in this territory"), issue 14: a support
    card sent in a battle over Mountains is refused with ``support_forbidden`` citing R71, never with
    ``wrong_phase``, and changes nothing."""
    play = battle(tile="mountains", att=4, dfd=3, att_hand=SUPPORT_ATT, def_hand=SUPPORT_DEF)
    assert play.state.battle is not None and play.state.battle.stage == "conflict"
    banner = hand_card(play.state, ATT, "war_banner")
    assert_illegal(play.state, ATT, {"type": "play_support", "cards": [banner]}, ErrorCode.SUPPORT_FORBIDDEN)
    with pytest.raises(IllegalAction) as err:
        act(play.state, DEF, {"type": "play_support", "cards": [hand_card(play.state, DEF, "war_banner")]})
    assert err.value.params["rule"] == "R71"


# ----------------------------------------------------------------------------------------------------------
# Step 6: result (R73)
# ----------------------------------------------------------------------------------------------------------


def test_r73_higher_score_wins_by_the_difference() -> None:
    """R73: the higher combat score wins by the difference."""
    play = battle(att=5, dfd=2)
    play.conflict("audacious_charge", "shield_wall")
    res = play.of("battle_result")[0]
    assert res["scores"] == [9, 5] and res["winner"] == ATT and res["margin"] == 4


def test_r73_tie_goes_to_defender_by_one() -> None:
    """R73: equal scores: the defender wins by 1, so the attacker loses 1 knight and retreats the rest."""
    play = battle(att=4, dfd=5)
    play.conflict("audacious_charge", "shield_wall")
    res = play.of("battle_result")[0]
    assert res["scores"] == [8, 8] and res["winner"] == DEF and res["margin"] == 1
    st = play.state
    assert st.players[ATT].castle == 3
    assert st.owner[play.pos] == DEF and st.knights[play.pos] == 5


# ----------------------------------------------------------------------------------------------------------
# Step 7: orbs (R74, R75)
# ----------------------------------------------------------------------------------------------------------


def test_r74_orb_window_from_attacker_offers_every_orb_of_the_battle_players() -> None:
    """R74 (rulebook step 7: "one of the orbs belonging to the players involved in the battle", issue 14),
    R37: the orb window opens with the attacker; its targets are every face-up orb of both players; only the
    winner's "win" orb and the loser's "lose" orb then apply."""
    play = battle(
        att=5, dfd=2, att_arts=("orb_greed", "orb_devotion"), def_arts=("orb_preparation", "orb_cleansing")
    )
    play.conflict("audacious_charge", "shield_wall")
    w = play.state.window
    assert w is not None and w.kind == "orb" and w.opener == ATT
    assert w.targets == ["orb_greed", "orb_devotion", "orb_preparation", "orb_cleansing"]
    assert w.asked == [ATT, DEF]
    play.respond()
    assert [e["artefact"] for e in play.of("artefact_applied")] == ["orb_greed", "orb_cleansing"]


def test_r74_orb_window_opens_on_an_orb_that_will_not_apply() -> None:
    """R74 (issue 14): the losing defender's Greed ("when you win") will not apply, but it is a face-up orb
    of a player in the battle, so the window opens and the attacker may fracture it; without any face-up
    orb of the two players the window is skipped."""
    play = battle(att=5, dfd=2, def_arts=("orb_greed",))
    play.conflict("audacious_charge", "shield_wall")
    w = play.state.window
    assert w is not None and w.targets == ["orb_greed"] and w.asked == [ATT]
    play.respond({ATT: ["orb_greed"]})
    art = play.state.players[DEF].artefact("orb_greed")
    assert art is not None and not art.face_up
    assert play.of("artefact_applied") == [] and len(play.state.players[DEF].hand) == 4
    bare = battle(att=5, dfd=2)
    bare.conflict("audacious_charge", "shield_wall")
    assert bare.of("window_opened") == []


def test_r75_r76_brutality_applies_before_margin_losses() -> None:
    """R75, R76, R60: Brutality takes 1 knight from the loser before the margin losses; the margin stays the
    one frozen at the result; the rest retreat."""
    play = battle(
        att=6,
        dfd=5,
        att_arts=("orb_brutality",),
        att_hand=plain("probing_attack"),
        def_hand=plain("probing_attack"),
    )
    play.conflict("probing_attack", "probing_attack")
    assert play.of("battle_result")[0]["margin"] == 1
    play.respond()
    lost = [(e["reason"], e["knights"]) for e in play.of("knights_lost")]
    assert lost == [("brutality", 1), ("battle", 1)]
    t = play.types()
    assert t.index("artefact_applied") < t.index("retreat")
    assert play.of("retreat")[0]["knights"] == 3
    st = play.state
    assert st.players[DEF].castle == 2 + 3
    assert st.owner[play.pos] == ATT and st.knights[play.pos] == 6


def test_r75_q10_attacker_orb_applies_before_defender_orb() -> None:
    """R75, Q10: the attacker's orb is applied before the defender's."""
    play = battle(att=5, dfd=2, att_arts=("orb_greed",), def_arts=("orb_devotion",))
    play.conflict("audacious_charge", "shield_wall")
    play.respond()
    assert [e["artefact"] for e in play.of("artefact_applied")] == ["orb_greed", "orb_devotion"]


def test_r75_greed_winner_draws_to_six() -> None:
    """R75, R100: Greed: the winner draws until holding 6 cards."""
    play = battle(att=5, dfd=2, att_arts=("orb_greed",))
    play.conflict("audacious_charge", "shield_wall")
    play.respond()
    assert len(play.state.players[ATT].hand) == 6


def test_r75_r33_greed_counts_authority_then_plays_it() -> None:
    """R75, R33, R100: Greed draws to 6 counting an Authority drawn on the way; Authority is then played
    (2 more cards) and discarded, leaving 7 cards."""
    play = battle(
        att=5,
        dfd=2,
        att_arts=("orb_greed",),
        att_deck_top=["war_banner", "authority", "heroic_assault", "ambush"],
    )
    play.conflict("audacious_charge", "shield_wall")
    play.respond()
    st = play.state
    p = st.players[ATT]
    assert len(p.hand) == 7 and "authority" not in names(st, p.hand)
    assert names(st, p.discard)[0] == "authority"
    assert {"war_banner", "heroic_assault", "ambush"} <= set(names(st, p.hand))


@pytest.mark.parametrize("discard", [True, False])
def test_r75_preparation_winner_may_discard(discard: bool) -> None:
    """R75, R102: Preparation: the winner may discard one card of their choice, or decline."""
    play = battle(att=2, dfd=5, def_arts=("orb_preparation",))
    play.conflict("audacious_charge", "shield_wall")
    play.respond()
    prompt = pending(play.state)[0]
    assert (prompt.seat, prompt.kind) == (DEF, "may_discard")
    card = hand_card(play.state, DEF, "fracture") if discard else None
    play.do(DEF, {"type": "discard_choice", "card": card})
    play.settle()
    st = play.state
    d = st.players[DEF]
    assert ("fracture" in names(st, d.discard)) is discard
    assert len(d.hand) == (3 if discard else 4)


@pytest.mark.parametrize("discard", [True, False])
def test_r75_cleansing_loser_may_discard(discard: bool) -> None:
    """R75, R102: Cleansing: the loser may discard one card of their choice, or decline."""
    play = battle(att=5, dfd=2, def_arts=("orb_cleansing",))
    play.conflict("audacious_charge", "shield_wall")
    play.respond()
    prompt = pending(play.state)[0]
    assert (prompt.seat, prompt.kind) == (DEF, "may_discard")
    card = hand_card(play.state, DEF, "call_to_arms") if discard else None
    play.do(DEF, {"type": "discard_choice", "card": card})
    st = play.state
    assert ("call_to_arms" in names(st, st.players[DEF].discard)) is discard


def test_r75_devotion_loser_gains_a_knight() -> None:
    """R75: Devotion: the loser places 1 knight in their castle (before its retreat)."""
    play = battle(att=5, dfd=2, def_arts=("orb_devotion",))
    play.conflict("audacious_charge", "shield_wall")
    play.respond()
    gained = [e for e in play.of("knights_gained") if e["reason"] == "devotion"]
    assert gained == [gained[0]] and gained[0]["seat"] == DEF and gained[0]["knights"] == 1
    assert play.state.players[DEF].castle == 3  # 2 + 1 Devotion; both knights lost to the margin 4


def test_r75_resurgence_loser_draws_to_six() -> None:
    """R75, R100: Resurgence: the loser draws until holding 6 cards."""
    play = battle(att=5, dfd=2, def_arts=("orb_resurgence",))
    play.conflict("audacious_charge", "shield_wall")
    play.respond()
    assert len(play.state.players[DEF].hand) == 6
    assert len(play.state.players[ATT].hand) == 4


def test_r75_win_orb_of_loser_and_lose_orb_of_winner_do_not_apply() -> None:
    """R75, R91: orbs apply only on their trigger: the winner's Devotion and the loser's Brutality do not."""
    play = battle(att=2, dfd=5, att_arts=("orb_brutality",), def_arts=("orb_devotion",))
    play.conflict("audacious_charge", "shield_wall")
    play.respond()
    assert play.of("artefact_applied") == []
    assert play.state.knights[play.pos] == 5 and play.state.players[DEF].castle == 2


# ----------------------------------------------------------------------------------------------------------
# Step 8: losses and retreat (R76, R77)
# ----------------------------------------------------------------------------------------------------------


def test_r76_r77_defender_loses_margin_and_retreats_rest_winner_loses_nothing() -> None:
    """R76, R77: the losing defender loses the margin in the territory and retreats the rest to its castle;
    the winning attacker keeps all its knights."""
    play = battle(att=5, dfd=4, att_hand=plain("shield_wall"), def_hand=plain("probing_attack"))
    play.conflict("shield_wall", "probing_attack")
    assert play.of("battle_result")[0]["margin"] == 2
    st = play.state
    assert [(e["seat"], e["knights"]) for e in play.of("knights_lost")] == [(DEF, 2)]
    assert play.of("retreat") == [{**play.of("retreat")[0], "seat": DEF, "knights": 2}]
    assert st.players[DEF].castle == 4
    assert st.owner[play.pos] == ATT and st.knights[play.pos] == 5


def test_r76_losses_capped_at_knights_in_territory() -> None:
    """R76: losses never exceed the loser's knights in the territory and never come from elsewhere."""
    play = battle(att=6, dfd=1, att_hand=plain("heroic_assault"), def_hand=plain("probing_attack"))
    play.conflict("heroic_assault", "probing_attack")
    assert play.of("battle_result")[0]["margin"] == 8
    assert [(e["seat"], e["knights"]) for e in play.of("knights_lost")] == [(DEF, 1)]
    assert play.state.players[DEF].castle == 2


def test_r76_losing_attacker_loses_margin_and_retreats_defender_keeps_territory() -> None:
    """R76, R77, R79: a losing attacker loses the margin and retreats the rest to its castle; the defender
    keeps control with all its knights."""
    play = battle(att=4, dfd=4, att_hand=plain("probing_attack"), def_hand=plain("shield_wall"))
    play.conflict("probing_attack", "shield_wall")
    st = play.state
    assert play.of("battle_result")[0] == {**play.of("battle_result")[0], "winner": DEF, "margin": 1}
    assert st.players[ATT].castle == 3
    assert st.owner[play.pos] == DEF and st.knights[play.pos] == 4


# ----------------------------------------------------------------------------------------------------------
# Step 9: conquest abilities (R78, R79, R86) and clean-up (R80)
# ----------------------------------------------------------------------------------------------------------


def win(tile: str, att: int = 5, dfd: int = 2, **kw: Any) -> Play:
    play = battle(tile=tile, att=att, dfd=dfd, **kw)
    play.conflict("audacious_charge", "shield_wall")
    return play


@pytest.mark.parametrize("tile", ["village", "city", "shrine"])
def test_r78_r86_r82_village_city_shrine_give_the_conqueror_a_knight(tile: str) -> None:
    """R78, R86, R82, R83: winning as attacker conquers the territory and the conqueror (not the defender)
    places 1 extra knight in its castle, automatically."""
    play = win(tile)
    st = play.state
    assert st.battle is None and st.owner[play.pos] == ATT and st.knights[play.pos] == 5
    assert st.players[ATT].castle == 1
    assert play.of("conquered")[0]["seat"] == ATT
    assert st.players[DEF].castle == 2  # defender's knights were all lost (margin ≥ 2)
    assert pending(st)[0].kind == "turn"


def test_r78_r86_marshlands_conqueror_loses_a_knight() -> None:
    """R78, R86, R83: conquering Marshlands costs the conqueror 1 knight there."""
    play = win("marshlands")
    st = play.state
    assert st.owner[play.pos] == ATT and st.knights[play.pos] == 4
    assert [e["reason"] for e in play.of("knights_lost")][-1] == "marshlands"


def test_q19_marshlands_conquered_by_one_knight_becomes_uncontrolled() -> None:
    """Q19, R86: the conqueror of Marshlands with a single knight loses it and the Marshlands become
    uncontrolled."""
    play = battle(
        tile="marshlands", att=1, dfd=1, att_hand=plain("heroic_assault"), def_hand=plain("probing_attack")
    )
    play.conflict("heroic_assault", "probing_attack")
    st = play.state
    assert play.of("conquered")[0]["seat"] == ATT
    assert st.owner[play.pos] == -1 and st.knights[play.pos] == 0
    assert st.battle is None and st.phase == "window"


def test_q19_r86_advance_of_one_knight_into_empty_marshlands() -> None:
    """Q19, R86: advancing one knight into uncontrolled Marshlands conquers it and loses the knight at
    once: the territory stays uncontrolled."""
    s = setup(tile="marshlands", dfd=0)
    play = Play(s)
    play.advance(1)
    st = play.state
    assert play.of("conquered") and st.owner[play.pos] == -1 and st.knights[play.pos] == 0
    assert st.players[ATT].castle == 3


@pytest.mark.parametrize("tile", ["ruins", "abbey", "fortress"])
def test_r78_r86_ruins_abbey_fortress_conqueror_may_discard(tile: str) -> None:
    """R78, R86, R102: on conquering Ruins, Abbey or Fortress the conqueror may discard any 1 card."""
    att = 5 if tile != "fortress" else 6
    play = win(tile, att=att)
    prompt = pending(play.state)[0]
    assert (prompt.seat, prompt.kind) == (ATT, "may_discard")
    assert play.state.owner[play.pos] == ATT
    card = hand_card(play.state, ATT, "tactical_advance")
    play.do(ATT, {"type": "discard_choice", "card": card})
    st = play.state
    assert "tactical_advance" in names(st, st.players[ATT].discard)
    assert st.battle is None and pending(st)[0].kind == "turn"


def test_r86_may_discard_can_be_declined() -> None:
    """R86, R102: the conquest discard is optional: declining keeps the hand."""
    play = win("ruins")
    hand = list(play.state.players[ATT].hand)
    play.do(ATT, {"type": "discard_choice", "card": None})
    assert play.state.players[ATT].hand == hand
    assert play.of("discard_declined")


@pytest.mark.parametrize("tile", ["village", "fortress", "marshlands"])
def test_r79_defender_win_applies_no_territory_ability(tile: str) -> None:
    """R79: when the defender wins it keeps control without conquering: no conquest ability applies."""
    play = battle(tile=tile, att=2, dfd=4)
    play.conflict("audacious_charge", "shield_wall")
    st = play.state
    assert play.of("conquered") == []
    assert st.owner[play.pos] == DEF and st.knights[play.pos] == 4
    assert st.players[DEF].castle == 2
    assert pending(st)[0].kind == "turn"


def test_r87_homelands_have_no_battle_or_conquest_effect() -> None:
    """R87: a Homelands territory has no start-of-battle or conquest effect."""
    play = win("homelands")
    st = play.state
    assert step1_scores(play) == [5, 2]
    assert st.owner[play.pos] == ATT and st.knights[play.pos] == 5 and st.players[ATT].castle == 0
    assert pending(st)[0].kind == "turn"


def test_r87_cave_capacity_limits_the_advance() -> None:
    """R87, R12: Cave has its own capacity (3 in the default content): advancing 4 into it is refused."""
    s = setup(tile="cave", att=6, dfd=2)
    assert_illegal(s, ATT, {"type": "advance", "to": f"t{front(s)}", "knights": 4}, ErrorCode.OVER_CAPACITY)


def test_r80_cleanup_discards_played_cards_with_current_turn_and_turn_continues() -> None:
    """R80, R101: every conflict and support card played goes to its owner's discard pile marked with the
    current turn; the dispute ends and the attacker continues in a free window."""
    play = support_battle()
    play.support(ATT, "war_banner")
    play.support(DEF, "rallying_cry")
    play.support(ATT)
    play.support(DEF)
    st = play.state
    assert st.battle is None and st.phase == "window" and st.active == ATT
    a, d = st.players[ATT], st.players[DEF]
    assert sorted(names(st, a.discard)) == ["probing_attack", "war_banner"]
    assert sorted(names(st, d.discard)) == ["heroic_assault", "rallying_cry"]
    assert a.discard_turns == [st.turn, st.turn] and d.discard_turns == [st.turn, st.turn]
    assert play.of("battle_ended")
    assert {"type": "end_turn"} in [p.timeout_action.to_dict() for p in pending(st)]


def test_r83_mandatory_abilities_need_no_decision() -> None:
    """R83, R30: mandatory abilities (City +1, Village knight, Rage) are applied by the engine itself: no
    prompt is ever raised for them and none can be forgotten."""
    play = battle(tile="city", att=6, dfd=2, att_arts=("sceptre_rage",))
    play.respond()
    assert step3_scores(play) == [7, 3]
    play.conflict("audacious_charge", "shield_wall")
    kinds_seen = [p.kind for p in pending(play.state)]
    assert kinds_seen == ["turn"]
    assert play.state.players[ATT].castle == 1


# ----------------------------------------------------------------------------------------------------------
# The rulebook's worked example (§18)
# ----------------------------------------------------------------------------------------------------------


def test_worked_example_city_battle() -> None:
    """R62, R64, R65, R66, R68, R69, R70, R73, R74, R75, R76, R78, R80, R90: the rulebook's battle example
    (§18): 6 attackers with Rage and Brutality take a City from 5 defenders with Defiance (fractured) and
    Preparation; 14 to 12; the defender loses 1 + 2 and retreats 2; the conqueror gains 1 knight."""
    play = battle(
        tile="city",
        att=6,
        dfd=5,
        att_hand=["fracture", "heroic_assault", "war_banner", "rallying_cry", "call_to_arms"],
        def_hand=["shield_wall", "rallying_cry", "war_banner", "call_to_arms", "tactical_advance"],
        att_arts=("sceptre_rage", "orb_brutality"),
        def_arts=("sceptre_defiance", "orb_preparation"),
    )
    assert step1_scores(play) == [6, 6]
    play.respond({ATT: ["sceptre_defiance"]})
    st = play.state
    d_art = st.players[DEF].artefact("sceptre_defiance")
    assert d_art is not None and not d_art.face_up and d_art.destroyed_on == st.turn
    assert play.of("discard") == []  # Defiance negated
    assert step3_scores(play) == [7, 6]
    play.conflict("heroic_assault", "shield_wall")
    assert play.of("conflict_revealed")[0]["scores"] == [12, 9]
    assert pending(play.state)[0].seat == DEF
    play.support(DEF, "rallying_cry", "war_banner")
    play.support(ATT, "war_banner")
    assert [p.seat for p in pending(play.state)] == [ATT]  # the defender, out of support cards, passed
    play.support(ATT)
    res = play.of("battle_result")[0]
    assert res["scores"] == [14, 12] and res["winner"] == ATT and res["margin"] == 2
    w = play.state.window
    assert w is not None and w.targets == ["orb_brutality", "orb_preparation"] and w.asked == [ATT, DEF]
    play.respond()
    st = play.state
    assert [(e["reason"], e["knights"]) for e in play.of("knights_lost")] == [("brutality", 1), ("battle", 2)]
    assert st.players[DEF].castle == 2 + 2
    assert st.owner[play.pos] == ATT and st.knights[play.pos] == 6
    assert st.players[ATT].castle == 1
    assert sorted(names(st, st.players[ATT].discard)) == ["fracture", "heroic_assault", "war_banner"]
    assert sorted(names(st, st.players[DEF].discard)) == ["rallying_cry", "shield_wall", "war_banner"]
    assert st.battle is None and st.phase == "window"
