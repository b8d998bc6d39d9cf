"""Celery tasks of Castle Defence (issue 33): the solver's best for a daily puzzle, worked out by a worker
so no request waits for it (the embedded default runs it in-process, after the request's commit)."""

from __future__ import annotations

from celery import shared_task

from anarchy import puzzles


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]  # celery ships no type hints
def puzzle_solve(puzzle_id: int) -> None:
    """Store the solver's best for the puzzle ``puzzle_id`` (once; running it again changes nothing)."""
    puzzles.puzzle_solve(puzzle_id)


puzzles.SOLVE_TASK[:] = [puzzle_solve]
