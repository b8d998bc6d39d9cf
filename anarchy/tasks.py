"""Celery tasks of Castle Defence (issue 33): the solver's best for a daily puzzle, worked out by a worker
so no request waits for it (the embedded default runs it in-process, after the request's commit); the
processing of a reply to a puzzle email; and the daily puzzle email (Celery beat, ``mastery.celery``)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from celery import shared_task
from django.db import connection

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


log = logging.getLogger(__name__)


class InThread:
    """Publishes a task by running its body in a daemon thread of this process, for the embedded default's
    development server: its Celery is eager, which would run a solve of seconds or minutes inside the
    request that asked for it."""

    def __init__(self, body: Callable[..., Any]) -> None:
        """``body``: the task's body (a service function)."""
        self.body = body

    def delay(self, *args: Any, **kwargs: Any) -> None:
        """Start the body in a daemon thread and return at once."""
        threading.Thread(target=self._run, args=args, kwargs=kwargs, daemon=True).start()

    def _run(self, *args: Any, **kwargs: Any) -> None:
        try:
            self.body(*args, **kwargs)
        except Exception:  # the sweep (or the next visit) tries again
            log.exception("a Castle Defence solve failed in its thread")
        finally:
            connection.close()


def bind_threads() -> None:
    """Publish the solves in threads of this process instead of through eager Celery (``AnarchyConfig.ready``
    on the development server without ``REDIS_URL``)."""
    puzzles.SOLVE_TASK[:] = [InThread(puzzles.puzzle_solve)]
    planner.SOLVE_TASK[:] = [InThread(planner.solve_run)]


puzzles.SOLVE_TASK[:] = [puzzle_solve]
planner.SOLVE_TASK[:] = [planner_solve]
inbound.PROCESS_TASK[:] = [puzzle_mail_process]
