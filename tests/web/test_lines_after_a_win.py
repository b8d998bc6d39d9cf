"""A reply (or the orders page) whose move wins the game and that goes on with "end": the win is applied,
the lines after it are reported as not needed (``Batch.unneeded``), not as a failing line (the integration
test of issue 30 found such a whole turn marked "stopped: this game is not in progress")."""

from __future__ import annotations

import pytest
from django.db import transaction

from games import engine
from games.engine.rules.victory import victory_points
from games.models import Game
from games.services.lines import lines_apply
from tests.engine import fixtures as F

from .conftest import seat_users
from .factories import game_from_state


def one_step_from_winning() -> tuple[engine.GameState, str]:
    """Seat 0 to move, holding territories one step short of the target (11 VP under Skirmish, R103,
    R117; none of them next to the target, so its line of supply does not matter, R53) and with an empty
    territory next to its castle: advancing one knight there wins at once."""
    s = F.edit(F.game(2, seed=3, options={"skirmish": True}))
    F.clear_map(s)
    castle = F.castle_pos(s, 0)
    target = min(n for n in F.neighbours(s, castle) if s.board.kinds[n] == "territory")
    F.set_tile(s, target, "forest")
    need = 11 - s.board.layout_vp[target]  # Skirmish: 11 VP wins (R117)
    for pos in F.territories(s):
        near = F.neighbours(s, target) + F.neighbours(s, F.castle_pos(s, 1))  # R53: none next to the target
        if pos == target or pos in near or victory_points(s)[0] >= need:
            continue
        if victory_points(s)[0] + s.board.layout_vp[pos] <= need:
            F.set_tile(s, pos, "forest")
            F.place(s, pos, 0, 1)
    assert victory_points(s)[0] == need, "the layout gives seat 0 exactly one VP step short"
    s.players[0].castle = 3
    return s, f"advance t{target} 1"


@pytest.mark.django_db
def test_lines_after_the_winning_move_are_not_needed_rather_than_failing() -> None:
    state, win = one_step_from_winning()
    game = game_from_state(state)
    user = seat_users(game)[0]
    with transaction.atomic():
        batch = lines_apply(game.pk, user, [win, "end"], [], source="email")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.winners == [0]
    assert batch.error is None and batch.applied == [win] and batch.unneeded == ["end"]
