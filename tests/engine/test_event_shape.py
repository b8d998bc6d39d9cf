"""issue 31 §1: events are typed across the engine↔web boundary (``games.engine.Event``). The playout
invariants (tests/engine/harness.py) check every event of every checked game against the declared shape;
these tests show the check can fail and cover the events random play rarely reaches."""

from __future__ import annotations

from games.engine import EventType, pending, redact_event

from .event_shape import event_misfit
from .test_battle import battle


def test_a_declared_event_fits_and_a_stray_key_or_type_does_not() -> None:
    """R52: an ``advanced`` event as the engine emits it fits; an undeclared key, a wrong value type or a
    missing tag is reported."""
    good = {"type": EventType.ADVANCED, "turn": 1, "seat": 0, "pos": "t3", "knights": 2}
    assert event_misfit(good) is None
    assert "undeclared key 'colour'" in str(event_misfit({**good, "colour": "red"}))
    assert "knights='2'" in str(event_misfit({**good, "knights": "2"}))
    assert event_misfit({**good, "knights": True}) is not None  # a bool is not a number of knights
    assert event_misfit({"turn": 1}) is not None


def test_a_whole_battle_s_events_fit_before_and_after_redaction() -> None:
    """R63, R68, R70, R73, R95: a battle's events (its draw's private cards, the conflict cards chosen face
    down, the reveal with both cards, the result) fit ``Event``; redacted for each viewer they still fit,
    and the private fields reach their owner only."""
    play = battle(tile="forest", att=4, dfd=3, att_hand=["audacious_charge"])  # draws up to its hand (R63)
    if any(p.kind == "response" for p in pending(play.state)):
        play.respond()
    play.conflict("audacious_charge", "shield_wall")
    play.settle()
    kinds = {ev["type"] for ev in play.events}
    assert {EventType.DRAW, EventType.CONFLICT_CHOSEN, EventType.CONFLICT_REVEALED} <= kinds, kinds
    for ev in play.events:
        assert event_misfit(ev) is None, ev
        owners = {int(seat) for seat in ev.get("private", {})}
        for viewer in (0, 1, None):
            shown = redact_event(ev, viewer)
            assert event_misfit(dict(shown)) is None
            assert "private" not in shown
            if viewer in owners:
                assert set(ev["private"][str(viewer)]) <= set(shown)
