"""Issue 33 in a real browser: a player solves today's Castle Defence puzzle on a desktop and on a 390 px
phone. The face-down cards show their backs only; deploying too few Workers is refused with the engine's
reason; a full deployment reveals the cards, resolves them step by step, scores, and only then shows the
solver's best. Screenshots of both go where the other browser tests put theirs."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from anarchy import puzzles
from tests.browser.conftest import DESKTOP, PHONE, Web, login_context, shot
from tests.browser.test_accessibility import SERIOUS, axe_violations, describe
from tests.web.conftest import create_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(("name", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_solve_todays_puzzle(web: Web, name: str, viewport: dict[str, int]) -> None:
    puzzle = puzzles.puzzle_for(puzzles.today())
    position = puzzles.puzzle_position(puzzle)
    hidden = puzzles.puzzle_faces(puzzle)
    user = create_user(f"castle-{name}@example.com", display_name=f"Castellan {name}")
    page = login_context(web, user, viewport, has_touch=name == "phone").new_page()
    page.goto("/anarchy/daily/")
    expect(page.get_by_text("Practice values, not the published Scenario Cards")).to_be_visible()
    backs = page.locator(".anarchy-row .card.back")
    expect(backs).to_have_count(len(hidden))
    html = page.content()
    for card_id in hidden.values():
        assert not re.search(rf"\b{card_id}\b", html)
    expect(page.locator("#best")).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    shot(page, f"anarchy-daily-{name}")
    serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
    assert not serious, describe(serious)

    # Nothing placed yet: the engine's reason, nothing stored.
    page.get_by_role("button", name="Deploy and reveal").click()
    expect(page.locator("#deploy-error")).to_contain_text("Deploy every Craftsman, Soldier and Knight")
    assert not puzzle.answers.exists()

    # Every Worker placed with the number inputs (the keyboard: fill each, then Enter).
    page.locator("input[name=top_craftsmen]").fill(str(position.craftsmen))
    page.locator("input[name=right_soldiers]").fill(str(position.soldiers))
    page.locator("input[name=left_knights]").fill(str(position.knights))
    page.locator("input[name=left_knights]").press("Enter")

    result = page.locator("#result")
    expect(result).to_be_visible()
    expect(result).to_contain_text("The resolution, step by step")
    expect(result.locator(".anarchy-step")).to_have_count(len(position.row))
    for card_id in hidden.values():
        expect(result.locator(f'[data-card="{card_id}"]').first).to_be_visible()
    expect(result.locator(".anarchy-score")).to_contain_text("Loyalty")
    expect(page.locator("#best")).to_contain_text("The solver's best")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    shot(page, f"anarchy-result-{name}", at="#result")
    shot(page, f"anarchy-best-{name}", at="#best")
    serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
    assert not serious, describe(serious)
    answer = puzzle.answers.get()
    assert answer.user_id == user.pk

    # The leaderboard lists the answer.
    page.goto("/anarchy/daily/leaderboard/")
    expect(page.locator(".anarchy-leaderboard")).to_contain_text(f"Castellan {name}")

    # The planner answers a position from its first values (the practice table) and steps through it.
    page.goto("/anarchy/planner/")
    page.get_by_role("button", name="Find the best deployment").click()
    expect(page.locator(".anarchy-notation")).to_be_visible()
    expect(page.locator("#plan .anarchy-step").first).to_be_visible()
    serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
    assert not serious, describe(serious)
    shot(page, f"anarchy-planner-{name}", at="#plan")
    web.assert_clean()
