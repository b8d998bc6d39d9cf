"""The Anarchy's pages (issue 33): the game's home, today's puzzle (backs only until the answer, then the
reveal, the resolution, the score and only then the solver's best), the leaderboard, the planner, the
platform's home with both games, and the profile's streak."""

from __future__ import annotations

import datetime
import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from anarchy import puzzles
from anarchy.models import DailyPuzzle, PuzzleAnswer
from tests.anarchy_web.conftest import ALL_TOP, FACES, HIDDEN_TEXT, client_for, store

pytestmark = pytest.mark.django_db

DAILY = reverse("anarchy:daily")
EMPTY_SIDES = {
    f"{side}_{kind}": "0"
    for side in ("top", "right", "bottom", "left")
    for kind in ("craftsmen", "soldiers", "knights")
}


def deploy_form(**counts: int) -> dict[str, str]:
    data = dict(EMPTY_SIDES)
    data.update({name: str(n) for name, n in counts.items()})
    return data


def test_the_daily_page_shows_the_position_and_backs_only(puzzle: DailyPuzzle, alice: User) -> None:
    for client in (Client(), client_for(alice)):
        response = client.get(DAILY)
        assert response.status_code == 200
        page = response.content.decode()
        assert "Practice values, not the published Scenario Cards" in page
        assert 'data-card="F1"' in page and 'data-card="A1"' in page  # the face-up cards
        assert 'data-back="Siege Tower"' in page  # the face-down card's back
        assert not re.search(r"\bA23\b", page) and HIDDEN_TEXT not in page
        assert "The solver's best" not in page


def test_visitors_see_a_sign_in_prompt_and_cannot_answer(puzzle: DailyPuzzle) -> None:
    page = Client().get(DAILY).content.decode()
    assert "Sign in to answer" in page and 'name="top_craftsmen"' not in page
    response = Client().post(DAILY, deploy_form(top_craftsmen=2, top_soldiers=1, top_knights=1))
    assert response.status_code == 302 and reverse("account_login") in response["Location"]
    assert not PuzzleAnswer.objects.exists()


def test_the_form_starts_at_zero_everywhere(puzzle: DailyPuzzle, alice: User) -> None:
    page = client_for(alice).get(DAILY).content.decode()
    inputs = re.findall(r'<input type="number" name="(\w+)" value="(\d+)"', page)
    assert len(inputs) == 12 and {value for _name, value in inputs} == {"0"}
    assert " checked" not in page and " selected" not in page.split("language-select")[0]


def test_not_deploying_everyone_is_refused_with_the_engines_reason(puzzle: DailyPuzzle, alice: User) -> None:
    response = client_for(alice).post(DAILY, deploy_form(top_craftsmen=1))
    assert response.status_code == 400
    assert "Deploy every Craftsman, Soldier and Knight" in response.content.decode()
    assert not PuzzleAnswer.objects.exists()
    response = client_for(alice).post(DAILY, {**deploy_form(), "notation": "T:9X"})
    assert response.status_code == 400 and not PuzzleAnswer.objects.exists()
    response = client_for(alice).post(DAILY, deploy_form(top_craftsmen=-1))
    assert response.status_code == 400 and not PuzzleAnswer.objects.exists()


def test_answering_reveals_resolves_scores_then_shows_the_solver(puzzle: DailyPuzzle, alice: User) -> None:
    client = client_for(alice)
    response = client.post(DAILY, deploy_form(top_craftsmen=2, right_soldiers=1, right_knights=1))
    assert response.status_code == 302 and response["Location"].startswith(DAILY)
    answer = PuzzleAnswer.objects.get()
    assert answer.user == alice and answer.deployment == "T:2C R:1S1K"
    page = client.get(DAILY).content.decode()
    assert 'data-card="A23"' in page and HIDDEN_TEXT in page  # the reveal
    assert "The resolution, step by step" in page and page.count('class="anarchy-step"') == 3
    for label in ("Loyalty", "Bravery", "Workers kept"):
        assert label in page
    best = puzzles.puzzle_best(DailyPuzzle.objects.get())
    assert best is not None
    # the solver comes after the score
    assert page.index('id="h-best"') > page.index("Workers kept")
    assert best["deployment"] in page
    assert 'name="top_craftsmen"' not in page  # no second form


def test_the_notation_answers_too(puzzle: DailyPuzzle, alice: User) -> None:
    response = client_for(alice).post(DAILY, {**deploy_form(), "notation": "l:2c1s1k"})
    assert response.status_code == 302
    assert PuzzleAnswer.objects.get().deployment == "L:2C1S1K"


def test_a_second_answer_changes_nothing(puzzle: DailyPuzzle, alice: User) -> None:
    client = client_for(alice)
    client.post(DAILY, {**deploy_form(), "notation": ALL_TOP})
    before = PuzzleAnswer.objects.get()
    response = client.post(DAILY, {**deploy_form(), "notation": "L:2C1S1K"}, follow=True)
    assert response.status_code == 200
    assert "already answered" in response.content.decode()
    after = PuzzleAnswer.objects.get()
    assert (after.pk, after.deployment, after.answered_at) == (
        before.pk,
        before.deployment,
        before.answered_at,
    )


def _anarchy_urls(day: datetime.date) -> list[str]:
    return [
        reverse("anarchy:index"),
        DAILY,
        reverse("anarchy:leaderboard_today"),
        reverse("anarchy:leaderboard", args=[day.isoformat()]),
        reverse("home"),
        reverse("accounts:profile"),
    ]


def test_no_hidden_face_leaks_before_the_answer(puzzle: DailyPuzzle, alice: User, bob: User) -> None:
    """Like the card-leak tests: for every hidden face, its id and its attack's text are in no response a
    player who has not answered gets, even once someone else has answered (the planner lists the whole deck
    and is not about today's puzzle, so it is left out)."""
    client_for(bob).post(DAILY, {**deploy_form(), "notation": ALL_TOP})  # someone else answered
    hidden = puzzles.puzzle_faces(puzzle)
    assert hidden == FACES
    for client, anonymous in ((client_for(alice), False), (Client(), True)):
        for url in _anarchy_urls(puzzle.day):
            response = client.get(url)
            if anonymous and url == reverse("accounts:profile"):
                assert response.status_code == 302
                continue
            assert response.status_code == 200, url
            page = response.content.decode()
            for card_id in hidden.values():
                assert not re.search(rf"\b{card_id}\b", page), (url, card_id)
                assert f'data-card="{card_id}"' not in page
            assert HIDDEN_TEXT not in page, url
            assert "The solver" not in page, url
    # and after answering, the face is there
    client_for(alice).post(DAILY, {**deploy_form(), "notation": ALL_TOP})
    assert 'data-card="A23"' in client_for(alice).get(DAILY).content.decode()


def test_the_solvers_best_is_worked_out_in_the_background_and_never_shown_before_an_answer(
    puzzle: DailyPuzzle, alice: User
) -> None:
    best = puzzles.puzzle_best(puzzle)
    assert best is not None  # the worker has stored it (conftest.store runs the task body)
    for page in (client_for(alice).get(DAILY), Client().get(DAILY)):
        text = page.content.decode()
        assert "The solver" not in text and "Best deployment before the reveal" not in text
        assert best["deployment"] not in text


def test_the_games_home(puzzle: DailyPuzzle, alice: User) -> None:
    page = Client().get(reverse("anarchy:index")).content.decode()
    assert DAILY in page and reverse("anarchy:planner") in page and "How it works" in page
    client = client_for(alice)
    client.post(DAILY, {**deploy_form(), "notation": ALL_TOP})
    page = client.get(reverse("anarchy:index")).content.decode()
    assert "You answered" in page and "Your streak: 1 day" in page


def test_leaderboard_pages(puzzle: DailyPuzzle, alice: User, bob: User) -> None:
    page = Client().get(reverse("anarchy:leaderboard_today")).content.decode()
    assert "Nobody has answered this puzzle yet." in page
    client_for(alice).post(DAILY, {**deploy_form(), "notation": "T:2C1S1K"})
    client_for(bob).post(DAILY, {**deploy_form(), "notation": "R:2C1S1K"})
    page = client_for(alice).get(reverse("anarchy:leaderboard_today")).content.decode()
    assert "Alice" in page and "Bob" in page and "you" in page
    order = [a.user.name for a in puzzles.leaderboard(puzzle.day)]
    assert page.index(order[0]) < page.index(order[1])
    day = puzzle.day.isoformat()
    assert Client().get(reverse("anarchy:leaderboard", args=[day])).status_code == 200
    older = (puzzle.day - datetime.timedelta(days=30)).isoformat()
    assert (
        "Nobody has answered" in Client().get(reverse("anarchy:leaderboard", args=[older])).content.decode()
    )
    future = (puzzle.day + datetime.timedelta(days=1)).isoformat()
    assert Client().get(reverse("anarchy:leaderboard", args=[future])).status_code == 404
    assert Client().get("/anarchy/daily/2026-13-45/leaderboard/").status_code == 404


def test_home_presents_both_games(alice: User) -> None:
    for client in (Client(), client_for(alice)):
        page = client.get(reverse("home")).content.decode()
        assert "Medieval Mastery" in page and "Castle Defence" in page
        assert DAILY in page and reverse("anarchy:planner") in page
    page = client_for(alice).get(reverse("home")).content.decode()
    assert reverse("games:my_games") in page and reverse("games:new") in page


def test_the_profile_shows_the_streak(alice: User) -> None:
    today = puzzles.today()
    page = client_for(alice).get(reverse("accounts:profile")).content.decode()
    assert "Castle Defence: streak 0 days" in page and "You have not answered a daily puzzle yet." in page
    for offset in (2, 1, 0):
        day = today - datetime.timedelta(days=offset)
        store(day)
        puzzle = DailyPuzzle.objects.get(day=day)
        puzzles.answer_submit(puzzle, alice, puzzles.answer_read(puzzle, ALL_TOP))
    page = client_for(alice).get(reverse("accounts:profile")).content.decode()
    assert "Castle Defence: streak 3 days" in page and "best: Loyalty" in page


def test_the_nav_links_to_castle_defence(alice: User) -> None:
    for client in (Client(), client_for(alice)):
        assert f'href="{reverse("anarchy:index")}"' in client.get(reverse("games:rules")).content.decode()


def test_while_the_solver_works_the_answer_page_says_so_and_polls_for_its_part(alice: User) -> None:
    store(puzzles.today(), solved=False)
    client = client_for(alice)
    client.post(DAILY, deploy_form(top_craftsmen=2, right_soldiers=1, right_knights=1))
    page = client.get(DAILY).content.decode()
    assert "The solver is still working out today" in page
    assert 'hx-trigger="every 3s"' in page and 'hx-select="#best"' in page
    assert "Best deployment before the reveal" not in page
    puzzles.puzzle_solve(DailyPuzzle.objects.get().pk)
    page = client.get(DAILY).content.decode()
    assert "Best deployment before the reveal" in page and 'hx-trigger="every 3s"' not in page
