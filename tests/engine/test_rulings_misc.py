"""Rulings with no other natural home: Q21 (a fractured crown) and Q34 (Homelands' printed VP)."""

from __future__ import annotations

import pytest

from games.engine import ErrorCode, IllegalAction, victory_points

from .fixtures import act, castle_pos, edit, game, set_artefacts, set_hand


def test_crown_fractured_in_its_window_stays_down_until_the_end_of_the_owners_next_turn() -> None:
    """Q21, R40, R93: a crown fractured in its crown window is destroyed with no effect; it cannot be used
    again that turn, stays face down through the owner's next turn and is restored at its end."""
    s = edit(game(2, seed=5))
    set_artefacts(s, 0, ["crown_vitality"])
    set_artefacts(s, 1, ["crown_fury"])
    set_hand(s, 1, ["fracture", "shield_wall"])
    s = act(s, 0, {"type": "use_crown"}).state
    s = act(s, 1, {"type": "respond", "fracture": ["crown_vitality"]}).state
    crown = s.players[0].artefact("crown_vitality")
    assert crown is not None and not crown.face_up and s.phase == "window"  # negated: no Vitality phase
    with pytest.raises(IllegalAction) as exc:
        act(s, 0, {"type": "use_crown"})
    assert exc.value.code is ErrorCode.CROWN_UNAVAILABLE
    s = act(s, 0, {"type": "end_turn"}).state  # end of the turn it was destroyed: stays down (R93)
    s = act(s, 1, {"type": "end_turn"}).state
    crown = s.players[0].artefact("crown_vitality")
    assert crown is not None and not crown.face_up  # throughout the owner's next turn
    s = act(s, 0, {"type": "end_turn"}).state
    crown = s.players[0].artefact("crown_vitality")
    assert crown is not None and crown.face_up


@pytest.mark.parametrize("skirmish", [False, True])
def test_homelands_score_their_printed_value(skirmish: bool) -> None:
    """Q34, R14, R117: a controlled Homelands scores its printed VP value (1 in the default set), and 0
    under Skirmish."""
    s = game(2, seed=3, options={"skirmish": skirmish})
    castle = castle_pos(s, 0)
    homelands = [n for n in s.board.adjacent[castle] if s.tiles[n] == "homelands" and s.owner[n] == 0]
    others = [i for i, o in enumerate(s.owner) if o == 0 and i not in homelands]
    if not homelands:  # make one: put a Homelands on a VP-1 position next to the castle
        s = edit(s)
        pos = next(n for n in s.board.adjacent[castle] if s.board.kinds[n] == "territory")
        tiles = list(s.tiles)
        tiles[pos] = "homelands"
        s.tiles = tiles
        s.owner[pos], s.knights[pos] = 0, 2
        homelands = [pos]
    expected = 0 if skirmish else sum(s.board.layout_vp[h] for h in homelands)
    expected += sum(s.board.layout_vp[i] for i in others)
    assert victory_points(s)[0] == expected
    assert expected > 0 or skirmish
