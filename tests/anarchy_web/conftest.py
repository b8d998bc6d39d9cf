"""Fixtures of the Anarchy's web tests: a small position stored as today's puzzle (with one face-down card
whose face the tests know), and users with a verified email (``tests.web.conftest.create_user``)."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client

from accounts.models import User
from anarchy import puzzles
from anarchy.engine import AttackType, Position, Slot, Tactic
from anarchy.models import DailyPuzzle
from tests.web.conftest import create_user

#: Round 2: the Final Escalade F1 (top A, left A), Ladders A1 (top A) face up, and a face-down Siege Tower.
SMALL = Position(
    round=2,
    values=(3, 2, 2, 3, 4),
    determination=2,
    food=2,
    walls=(1, 1, 1, 1),
    towers=(0, 0, 0, 0),
    moat=0,
    gate=1,
    tactics={Tactic.ROCKS: 1},
    craftsmen=2,
    soldiers=1,
    knights=1,
    beer=1,
    muster=0,
    row=(Slot(AttackType.FINAL_ESCALADE, "F1"), Slot(AttackType.LADDERS, "A1"), Slot(AttackType.SIEGE_TOWER)),
)
#: The hidden face of SMALL's third card: A23, a Strong Siege Tower on the right side (letter E).
FACES = {2: "A23"}
#: How the page would write A23's attack if it ever showed it.
HIDDEN_TEXT = "Right E = 4"
#: A deployment of every Worker of SMALL.
ALL_TOP = "T:2C1S1K"


def client_for(user: User) -> Client:
    """A test client logged in as ``user``."""
    client = Client()
    client.force_login(user)
    return client


def store(
    day: datetime.date, position: Position = SMALL, faces: dict[int, str] | None = None, solved: bool = True
) -> DailyPuzzle:
    """Store ``position`` as the puzzle of ``day``; with ``solved``, also run the solver's task body, as a
    worker would after the commit (a test's transaction never commits)."""
    puzzle = puzzles.puzzle_store(day, position, dict(FACES if faces is None else faces))
    if solved:
        puzzles.puzzle_solve(puzzle.pk)
        puzzle.refresh_from_db()
    return puzzle


@pytest.fixture
def puzzle(db: None) -> DailyPuzzle:
    """SMALL as today's puzzle."""
    return store(puzzles.today())


@pytest.fixture
def alice(db: None) -> User:
    """A verified player."""
    return create_user(display_name="Alice")


@pytest.fixture
def bob(db: None) -> User:
    """A second verified player."""
    return create_user(display_name="Bob")
