"""The one decision table (issue 31 §2): :func:`games.engine.rules.core.decision_kind` classifies a state
once (``DECIDING_SEATS`` says who decides for each kind) and :data:`games.engine.prompts.DECISIONS` is the
one home of how each kind's prompts, legal actions and blocked moves are built. ``deciding_seats``, the
seats of ``pending`` and the seats with legal actions must therefore always agree (R27, R37, R41, R68,
R70)."""

from __future__ import annotations

from games.engine import legal_actions, pending
from games.engine.prompts import DECISIONS
from games.engine.rules.core import DECIDING_SEATS, DecisionKind, deciding_seats, decision_kind
from tests.engine.test_blocked import STATES


def test_the_decision_table_has_one_row_per_kind_of_decision() -> None:
    """Every kind :func:`decision_kind` can return has its row in :data:`DECISIONS`, the one table that
    ``pending``, ``legal_actions`` and ``blocked`` dispatch through."""
    assert set(DECISIONS) == set(DecisionKind)


def test_deciding_seats_pending_and_legal_actions_agree_over_random_play() -> None:
    """Over random play: the seats :func:`deciding_seats` names are exactly the seats of ``pending``'s
    prompts and exactly the seats with a non-empty ``legal_actions``; and random play meets every kind of
    decision but the game's end."""
    kinds = set()
    for s in STATES:
        kind = decision_kind(s)
        kinds.add(kind)
        seats = deciding_seats(s)
        assert seats == DECIDING_SEATS[kind](s) == sorted(seats)
        assert sorted({p.seat for p in pending(s)}) == seats
        assert [seat for seat in range(s.num_players) if legal_actions(s, seat)] == seats
        assert (kind == DecisionKind.NONE) == (seats == [])
    assert kinds >= {DecisionKind.TURN, DecisionKind.RESPONSE, DecisionKind.CONFLICT, DecisionKind.CHOICE}
