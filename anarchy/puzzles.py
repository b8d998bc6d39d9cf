"""The daily puzzle's service (issue 33): today's puzzle, answering it, its leaderboard and a player's streak.

Every write of the app happens here. The puzzle of a date is made once from ``anarchy.engine.daily_puzzle``
and stored; a player answers it once (a second answer changes nothing); the solver's best is computed once
per puzzle and stored, and only ever shown to a player who has answered.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import User
from anarchy.engine import (
    Deployment,
    Position,
    Resolution,
    daily_puzzle,
    narrate,
    parse_deployment,
    position_from_record,
    position_to_record,
    solve,
    write_deployment,
)
from mastery.publishing import Publishable

from .models import DailyPuzzle, PuzzleAnswer
from .planner import solution_record


def today() -> datetime.date:
    """The site's date (``TIME_ZONE``): the day whose puzzle is played now."""
    return timezone.localdate()


def puzzle_for(day: datetime.date) -> DailyPuzzle:
    """The stored puzzle of ``day``, made from the engine's puzzle of that date the first time it is asked."""
    puzzle = DailyPuzzle.objects.filter(day=day).first()
    if puzzle is not None:
        return puzzle
    made = daily_puzzle(day)
    return puzzle_store(day, made.position, made.faces)


def puzzle_store(day: datetime.date, position: Position, faces: dict[int, str]) -> DailyPuzzle:
    """Store ``position`` with its hidden ``faces`` as the puzzle of ``day`` (or return the one already
    stored: two first visitors at once make one row)."""
    record = position_to_record(position)
    try:
        with transaction.atomic():
            puzzle, _created = DailyPuzzle.objects.get_or_create(
                day=day, defaults={"record": record, "faces": {str(i): card for i, card in faces.items()}}
            )
            if _created:
                transaction.on_commit(partial(_enqueue_solve, puzzle.pk))
    except IntegrityError:
        puzzle = DailyPuzzle.objects.get(day=day)
    return puzzle


#: The task that stores a puzzle's best, bound by reference when :mod:`anarchy.tasks` is imported
#: (``AnarchyConfig.ready``): the tasks are an entry point above this service, which never imports them.
SOLVE_TASK: list[Publishable] = []


def _enqueue_solve(puzzle_id: int) -> None:
    """Queue the solver's best of a new puzzle (:mod:`anarchy.tasks`)."""
    for task in SOLVE_TASK:
        task.delay(puzzle_id)


def puzzle_position(puzzle: DailyPuzzle) -> Position:
    """The position of ``puzzle``: face-down cards without their face."""
    return position_from_record(puzzle.record)


def puzzle_faces(puzzle: DailyPuzzle) -> dict[int, str]:
    """The hidden faces of ``puzzle``: row index -> card id. Only for a player who has answered."""
    return {int(index): str(card) for index, card in puzzle.faces.items()}


def answer_of(puzzle: DailyPuzzle, user: User | None) -> PuzzleAnswer | None:
    """``user``'s answer to ``puzzle``, if any (``None`` for a visitor)."""
    if user is None or not user.is_authenticated:
        return None
    return PuzzleAnswer.objects.filter(puzzle=puzzle, user=user).first()


def answer_read(puzzle: DailyPuzzle, text: str) -> Deployment:
    """The deployment ``text`` writes for ``puzzle`` (short notation); raises ``AnarchyError``."""
    return parse_deployment(text, puzzle_position(puzzle))


def answer_submit(
    puzzle: DailyPuzzle, user: User, deployment: Deployment, source: str = PuzzleAnswer.Source.WEB
) -> tuple[PuzzleAnswer, bool]:
    """Answer ``puzzle`` for ``user`` with ``deployment``: resolve it against the hidden faces and store the
    score. Returns ``(answer, created)``; when ``user`` has already answered, the stored answer is returned
    unchanged with ``created`` False.

    Raises the engine's ``InvalidDeployment`` when ``deployment`` does not place exactly the puzzle's
    Workers (nothing is stored).
    """
    existing = answer_of(puzzle, user)
    if existing is not None:
        return existing, False
    resolution = narrate(puzzle_position(puzzle), deployment, puzzle_faces(puzzle))
    try:
        with transaction.atomic():
            answer = PuzzleAnswer.objects.create(
                puzzle=puzzle,
                user=user,
                deployment=write_deployment(deployment),
                undefended=resolution.undefended,
                loyalty=resolution.loyalty,
                bravery=resolution.bravery,
                kept=resolution.kept,
                discontent=resolution.discontent,
                source=source,
            )
    except IntegrityError:  # answered at the same moment from another tab or an email
        return PuzzleAnswer.objects.get(puzzle=puzzle, user=user), False
    return answer, True


def answer_resolution(answer: PuzzleAnswer) -> Resolution:
    """The step-by-step resolution of a stored answer against its puzzle's revealed faces."""
    puzzle = answer.puzzle
    position = puzzle_position(puzzle)
    return narrate(position, parse_deployment(answer.deployment, position), puzzle_faces(puzzle))


def puzzle_best(puzzle: DailyPuzzle) -> dict[str, Any] | None:
    """The solver's best deployment of ``puzzle`` over the face-down cards' possible faces, once a worker
    has stored it (:func:`puzzle_solve`): ``{"deployment", "sides", "undefended", "kept", "bravery",
    "deployments"}``, or ``None`` while it is being worked out. Show it only to a player who has answered."""
    if puzzle.best is None:
        puzzle.refresh_from_db(fields=["best"])
    return dict(puzzle.best) if puzzle.best is not None else None


def puzzles_unsolved(limit: int = 20) -> list[int]:
    """Ids of stored puzzles whose best is not worked out yet, oldest first (for the sweep)."""
    rows = DailyPuzzle.objects.filter(best__isnull=True).order_by("day")
    return list(rows.values_list("pk", flat=True)[:limit])


def puzzle_solve(puzzle_id: int) -> None:
    """Work out and store the solver's best for the puzzle ``puzzle_id`` (the task's body); a puzzle that
    has it already is left as it is. The solve can take seconds (docs/performance.md), so it never runs
    inside a request."""
    puzzle = DailyPuzzle.objects.filter(pk=puzzle_id, best__isnull=True).first()
    if puzzle is None:
        return
    best = solution_record(solve(puzzle_position(puzzle)))
    DailyPuzzle.objects.filter(pk=puzzle.pk, best__isnull=True).update(best=best)


def leaderboard(day: datetime.date) -> QuerySet[PuzzleAnswer]:
    """The answers to the puzzle of ``day``, best first: Loyalty, then Bravery, then workers kept, then the
    earliest answer."""
    return (
        PuzzleAnswer.objects.filter(puzzle__day=day)
        .select_related("user")
        .order_by("-loyalty", "-bravery", "-kept", "answered_at", "pk")
    )


@dataclass(frozen=True, slots=True)
class Streak:
    """A player's record at the daily puzzle: the ``current`` streak (consecutive days answered, up to
    today or yesterday), the ``longest`` one, the number of ``answers``, and the ``best`` answer (highest
    Loyalty, then Bravery, then workers kept) or ``None``."""

    current: int
    longest: int
    answers: int
    best: PuzzleAnswer | None


def streak_length(days: Iterable[datetime.date], on: datetime.date) -> int:
    """How many consecutive days up to ``on`` are in ``days``; a streak that ended yesterday still counts
    (today's puzzle may not be answered yet)."""
    answered = set(days)
    day = on if on in answered else on - datetime.timedelta(days=1)
    count = 0
    while day in answered:
        count += 1
        day -= datetime.timedelta(days=1)
    return count


def longest_run(days: Iterable[datetime.date]) -> int:
    """The longest run of consecutive dates in ``days``."""
    best = run = 0
    previous: datetime.date | None = None
    for day in sorted(set(days)):
        run = run + 1 if previous is not None and day - previous == datetime.timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    return best


def streak(user: User, on: datetime.date | None = None) -> Streak:
    """``user``'s :class:`Streak` on the date ``on`` (default: :func:`today`)."""
    on = today() if on is None else on
    answers = PuzzleAnswer.objects.filter(user=user, puzzle__day__lte=on)
    days = list(answers.values_list("puzzle__day", flat=True))
    best = answers.select_related("puzzle").order_by("-loyalty", "-bravery", "-kept", "answered_at").first()
    return Streak(streak_length(days, on), longest_run(days), len(days), best)
