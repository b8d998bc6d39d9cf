"""Issue 16 in a real browser: undo back to the last new information. Two steps of the guided first game
are taken back one by one (desktop and phone), and once a battle has drawn cards the page says why nothing
can be undone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games import engine
from games.models import ActionRecord, Game
from tests.browser.conftest import DESKTOP, PHONE, Web, login_context, shot
from tests.engine.fixtures import castle_pos, neighbours
from tests.engine.test_undo import manoeuvre_position
from tests.web.conftest import create_user, seat_users, state_of
from tests.web.factories import game_from_state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"


def seq(page: Page) -> int:
    return int(page.locator("#game-header").get_attribute("data-seq") or -1)


def submit(page: Page, form: str) -> None:
    """Submit ``form`` (a selector) and wait for the swap; answer "yes" if the game asks first."""
    before = seq(page)
    page.locator(f"{form} button[type=submit]").click()
    page.wait_for_function(SETTLED)
    if page.locator("#confirm-yes").count():
        page.locator("#confirm-yes").click()
        page.wait_for_function(SETTLED)
    page.wait_for_function(f"() => +document.getElementById('game-header').dataset.seq > {before}")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_two_steps_are_taken_back_one_by_one(web: Web, viewport: dict[str, int]) -> None:
    """A redistribution (castle → Forest) and an advance into the empty Fort, then "Undo" twice: each click
    takes back the newest step, the button says what it takes back and how many steps are left, focus
    stays in the decision panel, and at the end the position is the turn's start, with "nothing to undo"
    and the reason. Both records are kept, marked undone."""
    user = create_user(f"undo-{viewport['width']}@example.com", display_name="Undoer")
    page = login_context(web, user, viewport).new_page()
    page.goto("/")
    page.get_by_role("button", name="Guided first game").click()
    expect(page.locator("#undo-none")).to_contain_text("your turn has only just begun")
    game = Game.objects.get(created_by=user)
    start = state_of(game)

    page.locator("#redis-from").select_option("castle")
    page.locator("#redis-to").select_option("t1")
    page.locator("#redis-knights").fill("2")
    submit(page, "#redistribute-form")
    page.locator("#advance-to").select_option("t6")
    page.locator("#advance-knights").fill("2")
    submit(page, "#advance-form")
    expect(page.locator("#undo-what")).to_contain_text("2 steps of this turn can be taken back")
    expect(page.locator("#undo-what")).to_contain_text("Fort")
    shot(page, f"undo-{'phone' if viewport == PHONE else 'desktop'}", at="#h-decision")

    page.locator("#undo-button").click()
    page.wait_for_function(SETTLED)
    expect(page.locator("#advance-form")).to_be_visible()  # back in the manoeuvre, before its advance
    expect(page.locator("#undo-what")).to_contain_text("1 step of this turn can be taken back")
    assert page.evaluate("document.getElementById('decision').contains(document.activeElement)")

    page.locator("#undo-button").click()
    page.wait_for_function(SETTLED)
    expect(page.locator("#undo-none")).to_contain_text("your turn has only just begun")
    expect(page.locator("#redistribute-form")).to_be_visible()
    game.refresh_from_db()
    assert game.state_hash == engine.state_hash(start)
    undone = ActionRecord.objects.filter(game=game, undone_in__isnull=False).order_by("seq")
    assert [r.payload["type"] for r in undone] == ["redistribute", "advance"]
    web.assert_clean()


def test_after_a_card_was_drawn_the_page_says_why_nothing_can_be_undone(web: Web) -> None:
    """R57, R63: an advance into a rival's territory starts a battle that draws cards at once. The undo
    button is gone and the panel says a card has been drawn, with a link to the rule."""
    state = manoeuvre_position()
    enemy = neighbours(state, castle_pos(state, 0))[1]
    game = game_from_state(state, humans=1, bots=[1], seq=3)
    user = seat_users(game)[0]
    page = login_context(web, user).new_page()
    page.goto(f"/games/{game.pk}/")
    page.locator("#advance-to").select_option(f"t{enemy}")
    page.locator("#advance-knights").fill("2")
    submit(page, "#advance-form")
    expect(page.locator("#undo-none")).to_contain_text("a card has been drawn since your last step")
    expect(page.locator("#undo-none a")).to_have_attribute("href", "/rules/#cards")
    expect(page.locator("#undo-button")).to_have_count(0)
    web.assert_clean()
