"""The planner's background solves (issue 33): a position too big to answer within a request is solved
once by a worker and kept by its record's hash; the page polls for it. Every write of the planner is here.
"""

from __future__ import annotations

import hashlib
import json
from functools import partial
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from anarchy.engine import (
    Deployment,
    Expectation,
    Position,
    Solution,
    position_from_record,
    solve,
    write_deployment,
)
from anarchy.engine import position_to_record as to_record
from mastery.publishing import Publishable

from .models import PlannerSolve

#: The task that works out a planner solve, bound by reference when :mod:`anarchy.tasks` is imported.
SOLVE_TASK: list[Publishable] = []


def key_of(position: Position) -> str:
    """The SHA-256 (hex) of ``position``'s record with sorted keys: the same position, the same key."""
    text = json.dumps(to_record(position), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def solve_request(position: Position) -> PlannerSolve:
    """The background solve of ``position``: the stored one (done or not), or a new one whose task is
    published after the commit."""
    key = key_of(position)
    found = PlannerSolve.objects.filter(key=key).first()
    if found is not None:
        return found
    try:
        with transaction.atomic():
            made = PlannerSolve.objects.create(key=key, record=to_record(position))
            transaction.on_commit(partial(_enqueue, made.pk))
    except IntegrityError:  # two requests at once: one row, one task
        return PlannerSolve.objects.get(key=key)
    return made


def _enqueue(solve_id: int) -> None:
    for task in SOLVE_TASK:
        task.delay(solve_id)


def solve_run(solve_id: int) -> None:
    """Work out the solve ``solve_id`` and store its answer (the task's body); a done one is left as it is."""
    row = PlannerSolve.objects.filter(pk=solve_id, result__isnull=True).first()
    if row is None:
        return
    result = solution_record(solve(position_from_record(row.record)))
    PlannerSolve.objects.filter(pk=row.pk, result__isnull=True).update(
        result=result, finished_at=timezone.now()
    )


def solution_record(solution: Solution) -> dict[str, Any]:
    """The solver's answer as stored (JSON-safe), for the planner and the daily puzzle alike:
    ``{"deployment" (notation), "sides", "value", "reveals", "undefended", "kept", "bravery", "saved",
    "deployments"}``; :func:`solution_of` reads it back."""
    e = solution.expectation
    return {
        "deployment": write_deployment(solution.deployment),
        "sides": [list(side) for side in solution.deployment.sides],
        "value": e.value,
        "reveals": e.reveals,
        "undefended": e.undefended,
        "kept": e.kept,
        "bravery": e.bravery,
        "saved": e.saved,
        "deployments": solution.deployments,
    }


def solves_pending(limit: int = 5) -> list[int]:
    """Ids of background solves not done yet, oldest first (for the sweep)."""
    rows = PlannerSolve.objects.filter(result__isnull=True).order_by("created_at")
    return list(rows.values_list("pk", flat=True)[:limit])


def solution_of(row: PlannerSolve) -> Solution | None:
    """The stored answer of ``row`` as the engine's :class:`Solution`, or ``None`` while it is worked out."""
    if row.result is None:
        return None
    r = row.result
    expectation = Expectation(r["value"], r["reveals"], r["undefended"], r["kept"], r["bravery"], r["saved"])
    return Solution(Deployment.of(r["sides"]), expectation, r["deployments"])
