"""Celery tasks of Castle Defence (issue 33): the solver's best for a daily puzzle, worked out by a worker
so no request waits for it (the embedded default runs it in-process, after the request's commit); the
processing of a reply to a puzzle email; and the daily puzzle email (Celery beat, ``mastery.celery``)."""

from __future__ import annotations

from celery import shared_task

from anarchy import inbound, mail, planner, puzzles


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]  # celery ships no type hints
def puzzle_solve(puzzle_id: int) -> None:
    """Store the solver's best for the puzzle ``puzzle_id`` (once; running it again changes nothing)."""
    puzzles.puzzle_solve(puzzle_id)


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def puzzle_mail_process(mail_id: int) -> None:
    """Process the stored reply ``mail_id`` and send its answer (once; running it again changes nothing)."""
    mail.reply_process(mail_id)


@shared_task  # type: ignore[untyped-decorator]
def puzzle_mails_send() -> int:
    """Email today's puzzle to every player who asked for it, once per player and day."""
    return mail.mails_send()


@shared_task(acks_late=True)  # type: ignore[untyped-decorator]
def planner_solve(solve_id: int) -> None:
    """Work out one planner position too big for a request (once; running it again changes nothing)."""
    planner.solve_run(solve_id)


@shared_task  # type: ignore[untyped-decorator]
def anarchy_sweep() -> int:
    """What a lost publish left (Celery beat, every ``OUTBOX_SWEEP_INTERVAL`` seconds): the replies still
    pending, the puzzles whose best is not worked out yet and the planner's waiting solves (one per sweep:
    a big one can take minutes). All are idempotent, so a task that runs at the same time changes nothing
    twice. Returns how many were done."""
    done = 0
    for mail_id in inbound.mails_pending():
        mail.reply_process(mail_id)
        done += 1
    for puzzle_id in puzzles.puzzles_unsolved():
        puzzles.puzzle_solve(puzzle_id)
        done += 1
    for solve_id in planner.solves_pending(limit=1):  # one at a time: a big one can take minutes
        planner.solve_run(solve_id)
        done += 1
    return done


puzzles.SOLVE_TASK[:] = [puzzle_solve]
planner.SOLVE_TASK[:] = [planner_solve]
inbound.PROCESS_TASK[:] = [puzzle_mail_process]
