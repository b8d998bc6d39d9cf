"""Issue 29 §3 in a real browser: after the player's move the live region says what just happened (the
battle the move resolved), not the same prompt again, and "Since your last move" fits a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PHONE, Web, login_context, shot
from tests.web.conftest import create_user
from tests.web.test_since import _bot_attacks_alice, _stored

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"


def seq(page: Page) -> int:
    return int(page.locator("#game-header").get_attribute("data-seq") or -1)


def test_the_announcer_says_what_just_happened(web: Web) -> None:
    """Alice defends her Forest against the bot: the panel lists the attack and the card the Sceptre of
    Influence discarded (read with the page, not announced). She places a card; the battle resolves and the
    live region reads its result, then her new prompt once; the block fits a 390 px phone."""
    alice = create_user("since-alice@example.com", display_name="Alice")
    carol = create_user("since-carol@example.com", display_name="Carol")
    # no Tactical Advance for the bot: after this battle its turn has no second manoeuvre
    bot_hand = ["audacious_charge", "probing_attack", "ambush", "heroic_assault", "call_to_arms"]
    game = _stored(_bot_attacks_alice({0: bot_hand}), alice, carol)
    page = login_context(web, alice, PHONE).new_page()
    page.goto(f"/games/{game.pk}/")
    since = page.locator("#since")
    expect(since).to_contain_text("Since your last move")
    expect(since).to_contain_text("(Sceptre of Influence)")
    expect(page.locator("#battle-now")).to_contain_text("knights")
    assert page.locator("#decision-announcer").inner_text() == ""
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    shot(page, "since-phone", at="#decision")

    before = seq(page)
    page.locator("#decision input[name=card]").first.check()
    page.get_by_role("button", name="Place face down").click()
    page.wait_for_function(SETTLED)
    if page.locator("#confirm-yes").count():
        page.locator("#confirm-yes").click()
        page.wait_for_function(SETTLED)
    page.wait_for_function(f"() => +document.getElementById('game-header').dataset.seq > {before}")
    announcer = page.locator("#decision-announcer")
    expect(announcer).to_contain_text("wins the battle by")
    expect(announcer).to_contain_text("attacks Alice")
    text = announcer.inner_text()
    headline = page.locator("#decision .headline").inner_text().strip()
    assert text.count(headline) == 1, text
    expect(page.locator("#since li.battle").last).to_contain_text("Conflict cards revealed")
    web.assert_clean()
