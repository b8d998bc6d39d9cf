"""Issue 29 §2: a prompt whose answers all lead to the same battle is the server's to answer (``auto``), so
a person is never asked it: a Fear / Vigour choice with equal knight counts (R67, Q3) and a conflict-card
choice among copies of one card (R68). The rival cannot tell the difference from the timing: a single-card
conflict choice waits for the table's masking delay (``fracture_mask``) unless the table chose speed
(``fracture_prompts = "holders"``)."""

from __future__ import annotations

from games.engine import Prompt, legal_actions, pending, view_for
from games.engine.actions import parse_card_id
from tests.engine.test_battle import ATT, DEF, Play, battle, setup

SINGLE = ["shield_wall", "call_to_arms", "tactical_advance", "fracture", "war_banner"]
TWINS = ["shield_wall", "shield_wall", "tactical_advance", "fracture", "war_banner"]
TWO_KINDS = ["shield_wall", "heroic_assault", "tactical_advance", "fracture", "war_banner"]


def _prompt(play: Play, seat: int) -> Prompt:
    return next(p for p in pending(play.state) if p.seat == seat)


def test_r67_vigour_with_equal_counts_is_answered_by_the_server() -> None:
    """R67, Q3: Fear with the rival's knight count equal to the owner's changes nothing, so the prompt is
    ``auto`` (no delay: knight counts are public), its server answer is "do not use", and the owner's own
    view does not list it."""
    play = battle(att=4, dfd=4, att_arts=("sceptre_fear",))
    play.respond()  # the sceptre window (R64)
    prompt = _prompt(play, ATT)
    assert prompt.kind == "fear"
    assert prompt.auto and prompt.after == 0
    assert prompt.timeout_action.to_dict() == {"type": "fear_choice", "use": False}
    assert all(p["seat"] != ATT for p in view_for(play.state, ATT)["prompts"])
    # the rival sees the prompt like any other (it must not learn the owner has nothing to decide sooner)
    assert any(p["seat"] == ATT for p in view_for(play.state, DEF)["prompts"])


def test_r67_fear_that_changes_the_count_still_asks() -> None:
    """R67, Q3: with different counts the choice matters, so the owner is asked (not ``auto``)."""
    play = battle(att=2, dfd=5, att_arts=("sceptre_fear",))
    play.respond()
    prompt = _prompt(play, ATT)
    assert prompt.kind == "fear" and not prompt.auto


def test_r68_one_conflict_card_kind_is_answered_by_the_server_after_the_mask() -> None:
    """R68: holding one conflict card (or only copies of one), every choice gives the same battle: the
    prompt is ``auto``, its answer is that card, and it waits for a masking delay within the table's
    ``fracture_mask`` so the rival cannot read a one-card hand from the timing."""
    for hand in (SINGLE, TWINS):
        play = battle(att=4, dfd=3, att_hand=hand, options={"fracture_mask": [60, 600]})
        prompt = _prompt(play, ATT)
        assert prompt.kind == "conflict" and prompt.auto
        assert 60 <= prompt.after <= 600
        card = prompt.timeout_action.to_dict()["card"]
        parsed = parse_card_id(str(card))
        assert parsed is not None and play.state.content.cards[parsed[1]].id == "shield_wall"
        # the seat may still choose it itself (legal), but its own view shows no decision
        assert legal_actions(play.state, ATT)
        assert all(p["seat"] != ATT for p in view_for(play.state, ATT)["prompts"])


def test_r68_two_conflict_card_kinds_ask() -> None:
    """R68: two different conflict cards are a real choice: asked, not ``auto``."""
    play = battle(att=4, dfd=3, att_hand=TWO_KINDS)
    assert not _prompt(play, ATT).auto


def test_r68_single_card_is_placed_at_once_where_the_table_chose_speed() -> None:
    """R68, issue 14: at a table whose Fracture prompts go to holders only (speed over secrecy), the only
    conflict card is placed without a delay."""
    s = setup(
        att=4, dfd=3, att_hand=SINGLE, options={"fracture_prompts": "holders", "fracture_mask": [60, 600]}
    )
    play = Play(s)
    play.advance(4)
    prompt = _prompt(play, ATT)
    assert prompt.auto and prompt.after == 0
