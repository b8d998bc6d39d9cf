"""The planner (issue 33): an owner's position by GET, no login; the best deployment, its expectation and a
step-through of a chosen reveal; bad input is a 400 with the form's errors, never a 500; a position too big
to solve within a request is solved by a worker while the page waits, and more Workers than the planner takes
are refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anarchy.engine import (
    Deployment,
    parse_deployment,
    position_from_record,
    practice_values,
    solve,
    write_deployment,
)
from anarchy.models import PlannerSolve
from tests.anarchy_web.conftest import SMALL

pytestmark = pytest.mark.django_db

PLANNER = reverse("anarchy:planner")


def small_query(**changes: object) -> dict[str, str]:
    """SMALL as the planner's GET parameters."""
    query: dict[str, object] = {
        "round": 2,
        "value_A": 3,
        "value_B": 2,
        "value_C": 2,
        "value_D": 3,
        "value_E": 4,
        "determination": 2,
        "food": 2,
        "gate": 1,
        "moat": 0,
        "wall_top": 1,
        "wall_right": 1,
        "wall_bottom": 1,
        "wall_left": 1,
        "tower_top-left": 0,
        "tower_top-right": 0,
        "tower_bottom-right": 0,
        "tower_bottom-left": 0,
        "tactic_rocks": 1,
        "tactic_bolts": 0,
        "tactic_hot_oil": 0,
        "tactic_logs": 0,
        "tactic_covers": 0,
        "craftsmen": 2,
        "soldiers": 1,
        "knights": 1,
        "beer": 1,
        "muster": 0,
        "final": "F1",
        "back_1": "ladders",
        "card_1": "A1",
        "back_2": "siege_tower",
        "card_2": "",
    }
    query.update(changes)
    return {k: str(v) for k, v in query.items()}


def test_the_empty_planner_offers_the_practice_values() -> None:
    response = Client().get(PLANNER)
    assert response.status_code == 200
    page = response.content.decode()
    assert "type your Scenario Card" in page and "practice values, not the published Scenario Cards" in page
    values, determination = practice_values(3)
    assert f'name="value_E" value="{values[4]}"' in page
    assert f'name="determination" value="{determination}"' in page
    page = Client().get(PLANNER, {"round": "4"}).content.decode()
    assert f'name="determination" value="{practice_values(4)[1]}"' in page
    assert Client().get(PLANNER, {"round": "zz"}).status_code == 200


def test_a_valid_position_gives_the_solvers_deployment() -> None:
    response = Client().get(PLANNER, small_query())
    assert response.status_code == 200
    page = response.content.decode()
    best = solve(SMALL)
    assert write_deployment(best.deployment) in page
    assert f"{best.expectation.undefended:.2f} undefended" in page
    assert 'id="face-2"' in page and "Step through" in page
    assert page.count('class="anarchy-step"') == 3


def test_stepping_through_a_chosen_reveal() -> None:
    page = Client().get(PLANNER, small_query(face_2="A24")).content.decode()
    assert '<option value="A24" selected>' in page and 'data-card="A24"' in page
    # a face that is not possible falls back to a possible one
    page = Client().get(PLANNER, small_query(face_2="A1")).content.decode()
    assert 'data-card="A19"' in page


def test_every_card_face_up_has_no_reveal_to_choose() -> None:
    page = Client().get(PLANNER, small_query(card_2="A23")).content.decode()
    assert "Every card is face up" in page


@pytest.mark.parametrize(
    "changes",
    [
        {"wall_top": 3},  # adjacent Walls differ by more than 1: the engine refuses
        {"wall_top": "x"},
        {"muster": 4},
        {"round": 9},
        {"final": "A1"},
        {"card_1": "A23"},  # a Siege Tower card on a Ladders back
        {"back_2": ""},  # round 2 has two Attack Cards
        {"card_2": "A1"},  # the same card twice
        {"craftsmen": -1},
        {"tower_top-left": 3},
    ],
)
def test_bad_input_is_a_400_with_errors(changes: dict[str, object]) -> None:
    response = Client().get(PLANNER, small_query(**changes))
    assert response.status_code == 400
    assert 'class="error"' in response.content.decode()


def test_more_workers_than_the_planner_takes_are_refused() -> None:
    response = Client().get(PLANNER, small_query(craftsmen=11))  # 13 Workers
    assert response.status_code == 400
    assert "too big for the planner yet" in response.content.decode()
    assert not PlannerSolve.objects.exists()


#: SMALL with 12 Workers and both Attack Cards face down: 1,456 deployments × 36 reveals × 3 cards, more
#: than a request solves (forms.PLANNER_MAX_WORK).
BIG = {"craftsmen": 10, "soldiers": 1, "knights": 1, "card_1": ""}


def test_a_big_position_is_solved_by_a_worker_while_the_page_waits(
    django_capture_on_commit_callbacks: Any,
) -> None:
    query = small_query(**BIG)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = Client().get(PLANNER, query)
        again = Client().get(PLANNER, query)  # the same position typed twice: one solve
    assert first.status_code == again.status_code == 200
    waiting = first.content.decode()
    assert "works it out in the background" in waiting
    assert 'hx-trigger="every 3s"' in waiting and 'hx-select="#plan"' in waiting
    assert PlannerSolve.objects.count() == 1 and len(callbacks) == 1
    callbacks[0]()  # the task, as a worker runs it
    done = Client().get(PLANNER, query).content.decode()
    assert "works it out in the background" not in done and 'hx-trigger="every 3s"' not in done
    row = PlannerSolve.objects.get()
    assert row.result is not None
    position = position_from_record(row.record)
    best = solve(position)
    assert row.result["value"] == best.expectation.value  # the worker's answer is the solver's
    assert write_deployment(Deployment.of(row.result["sides"])) in done


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(sorted(small_query())), st.text(max_size=6)))
def test_no_input_is_a_500(changes: dict[str, str]) -> None:
    response = Client().get(PLANNER, small_query(**changes))
    assert response.status_code in (200, 400)


def test_the_planners_deployment_places_every_worker() -> None:
    page = Client().get(PLANNER, small_query()).content.decode()
    notation = page.split('class="anarchy-notation">')[1].split("<")[0]
    parse_deployment(notation, SMALL)
