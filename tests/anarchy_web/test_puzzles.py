"""The daily puzzle's service (issue 33): one answer per player and day, the streak, the leaderboard, and
the solver's best computed once."""

from __future__ import annotations

import datetime
import threading
from typing import Any
from unittest import mock

import pytest
import time_machine

from accounts.models import User
from anarchy import puzzles, tasks
from anarchy.engine import Deployment, InvalidDeployment, parse_deployment
from anarchy.models import DailyPuzzle, PuzzleAnswer
from tests.anarchy_web.conftest import ALL_TOP, FACES, SMALL, store

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 3, 10)


def answer(user: User, day: datetime.date, text: str = ALL_TOP) -> PuzzleAnswer:
    puzzle = DailyPuzzle.objects.get(day=day) if DailyPuzzle.objects.filter(day=day).exists() else store(day)
    return puzzles.answer_submit(puzzle, user, parse_deployment(text, SMALL))[0]


def test_a_puzzle_is_made_once_per_day_from_the_engine() -> None:
    first = puzzles.puzzle_for(DAY)
    again = puzzles.puzzle_for(DAY)
    assert first.pk == again.pk and DailyPuzzle.objects.count() == 1
    position = puzzles.puzzle_position(first)
    # the stored record has no face for the face-down cards; the faces are kept apart
    assert all(position.row[i].card is None for i in puzzles.puzzle_faces(first))
    assert set(puzzles.puzzle_faces(first)) == set(position.face_down())
    assert first.best is None


def test_one_answer_per_player_and_day(alice: User) -> None:
    puzzle = store(DAY)
    first, created = puzzles.answer_submit(puzzle, alice, parse_deployment(ALL_TOP, SMALL))
    assert created and first.deployment == ALL_TOP and first.source == "web"
    second, created = puzzles.answer_submit(puzzle, alice, parse_deployment("L:2C1S1K", SMALL))
    assert not created and second.pk == first.pk
    assert PuzzleAnswer.objects.get().deployment == ALL_TOP


def test_an_answer_that_does_not_deploy_everyone_stores_nothing(alice: User) -> None:
    puzzle = store(DAY)
    with pytest.raises(InvalidDeployment):
        puzzles.answer_submit(puzzle, alice, Deployment.of([(1, 0, 0)] + [(0, 0, 0)] * 3))
    assert not PuzzleAnswer.objects.exists()


def test_the_score_is_the_resolution_against_the_hidden_faces(alice: User) -> None:
    stored = answer(alice, DAY)
    resolution = puzzles.answer_resolution(stored)
    assert (stored.loyalty, stored.bravery, stored.kept, stored.undefended, stored.discontent) == (
        resolution.loyalty,
        resolution.bravery,
        resolution.kept,
        resolution.undefended,
        resolution.discontent,
    )
    assert [step.card.id for step in resolution.steps] == ["A23", "A1", "F1"]  # right to left


def test_streak_counts_consecutive_days_and_a_gap_breaks_it(alice: User) -> None:
    for offset in (0, 1, 2, 4, 5):  # answered on the 10th, 11th, 12th, then 14th and 15th
        answer(alice, DAY + datetime.timedelta(days=offset))
    assert puzzles.streak(alice, DAY + datetime.timedelta(days=2)).current == 3
    # the 13th was missed: on the 15th the streak is 2 (14th, 15th), still 2 on the 16th (not yet answered)
    assert puzzles.streak(alice, DAY + datetime.timedelta(days=5)).current == 2
    assert puzzles.streak(alice, DAY + datetime.timedelta(days=6)).current == 2
    # two days without an answer: gone
    on_17th = puzzles.streak(alice, DAY + datetime.timedelta(days=7))
    assert on_17th.current == 0 and on_17th.longest == 3 and on_17th.answers == 5
    assert on_17th.best is not None


def test_streak_of_nobody_is_zero(alice: User) -> None:
    streak = puzzles.streak(alice, DAY)
    assert (streak.current, streak.longest, streak.answers, streak.best) == (0, 0, 0, None)


def test_streak_uses_the_site_date(alice: User) -> None:
    answer(alice, DAY)
    answer(alice, DAY - datetime.timedelta(days=1))
    with time_machine.travel(datetime.datetime(2026, 3, 11, 12, tzinfo=datetime.UTC), tick=False):
        assert puzzles.today() == DAY + datetime.timedelta(days=1)
        assert puzzles.streak(alice).current == 2


def test_streak_helpers() -> None:
    days = [DAY, DAY - datetime.timedelta(days=1), DAY - datetime.timedelta(days=3)]
    assert puzzles.streak_length(days, DAY) == 2
    assert puzzles.streak_length(days, DAY + datetime.timedelta(days=1)) == 2
    assert puzzles.streak_length(days, DAY + datetime.timedelta(days=2)) == 0
    assert puzzles.longest_run(days) == 2
    assert puzzles.longest_run([]) == 0


def test_leaderboard_order_loyalty_bravery_kept_then_earliest() -> None:
    puzzle = store(DAY)
    users = [User.objects.create_user(f"p{i}@example.com", None) for i in range(5)]
    rows = [(1, 0, 3), (2, 0, 0), (2, 1, 0), (2, 1, 5), (2, 1, 5)]
    base = datetime.datetime(2026, 3, 10, 8, tzinfo=datetime.UTC)
    for i, (user, (loyalty, bravery, kept)) in enumerate(zip(users, rows, strict=True)):
        PuzzleAnswer.objects.create(
            puzzle=puzzle,
            user=user,
            deployment=ALL_TOP,
            loyalty=loyalty,
            bravery=bravery,
            kept=kept,
            discontent=0,
            answered_at=base - datetime.timedelta(minutes=i),  # later users answered earlier
        )
    order = [a.user.email for a in puzzles.leaderboard(DAY)]
    assert order == ["p4@example.com", "p3@example.com", "p2@example.com", "p1@example.com", "p0@example.com"]
    assert list(puzzles.leaderboard(DAY + datetime.timedelta(days=1))) == []


def test_a_new_puzzle_queues_the_solver_after_commit_and_its_best_is_stored_once(
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        puzzle = puzzles.puzzle_store(DAY, SMALL, dict(FACES))
    assert len(callbacks) == 1  # one publish of anarchy.tasks.puzzle_solve, after the commit
    assert puzzles.puzzle_best(puzzle) is None  # nothing is solved inside the request
    callbacks[0]()  # the eager app runs the task in-process
    best = puzzles.puzzle_best(puzzle)
    assert best is not None
    assert set(best) >= {"deployment", "undefended", "kept", "bravery", "deployments"}
    parse_deployment(best["deployment"], SMALL)  # a full deployment of the position
    puzzle.refresh_from_db()
    assert puzzle.best == best
    DailyPuzzle.objects.filter(pk=puzzle.pk).update(best={**best, "deployment": "stored"})
    puzzles.puzzle_solve(puzzle.pk)  # a second run changes nothing
    puzzle.refresh_from_db()
    assert puzzles.puzzle_best(puzzle)["deployment"] == "stored"  # type: ignore[index]
    with django_capture_on_commit_callbacks(execute=False) as again:
        puzzles.puzzle_store(DAY, SMALL, dict(FACES))
    assert again == []  # the day's puzzle exists: nothing is queued again


def test_the_sweep_works_out_a_puzzle_whose_publish_was_lost() -> None:
    puzzle = store(DAY, solved=False)
    assert puzzles.puzzles_unsolved() == [puzzle.pk]
    assert tasks.anarchy_sweep() == 1
    puzzle.refresh_from_db()
    assert puzzle.best is not None and puzzles.puzzles_unsolved() == []
    assert tasks.anarchy_sweep() == 0  # nothing left: a second sweep changes nothing


def test_on_the_development_server_a_solve_runs_beside_the_request(transactional_db: None) -> None:
    """The embedded default's Celery is eager: ``bind_threads`` publishes the solves in a thread instead, so
    the request that stores a new puzzle returns before its best is worked out."""
    saved = list(puzzles.SOLVE_TASK)
    tasks.bind_threads()
    try:
        [publisher] = puzzles.SOLVE_TASK
        assert isinstance(publisher, tasks.InThread)
        started: list[threading.Thread] = []
        real_start = threading.Thread.start

        def start(thread: threading.Thread) -> None:
            started.append(thread)
            real_start(thread)

        with mock.patch.object(threading.Thread, "start", start):
            puzzle = puzzles.puzzle_store(DAY, SMALL, dict(FACES))  # commits: the publish runs now
        assert len(started) == 1
        started[0].join()
        puzzle.refresh_from_db()
        assert puzzle.best is not None
    finally:
        puzzles.SOLVE_TASK[:] = saved
