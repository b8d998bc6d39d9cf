"""issue 19 "Table talk" in a real browser: two players in two browser contexts talk at the table and in
private; the other's unread count and the new messages arrive through the page's own polling, with no
reload; on a phone the chat is a button that opens it, and the map stays in view. Screenshots:
``chat-desktop`` and ``chat-phone``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from accounts.models import User
from games import services
from games.models import Game
from games.services import chat
from tests.browser.conftest import PHONE, Web, login_context, shot
from tests.browser.test_accessibility import SERIOUS, axe_violations, describe
from tests.web.conftest import create_started_game, seat_users

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _duel() -> tuple[Game, User, User, int, int]:
    """A started game of Alice and Bob, and their seats."""
    game = create_started_game(humans=2, seed=11)
    users = seat_users(game)
    first, second = sorted(users)
    User.objects.filter(pk=users[first].pk).update(display_name="Alice")
    User.objects.filter(pk=users[second].pk).update(display_name="Bob")
    return game, users[first], users[second], first, second


def test_two_players_talk_at_the_table_and_in_private(web: Web, settings: Any) -> None:
    settings.GAME_POLL_SECONDS = 1
    game, alice, bob, a_seat, b_seat = _duel()
    pa = login_context(web, alice).new_page()
    pb = login_context(web, bob).new_page()
    for page in (pa, pb):
        page.goto(f"/games/{game.pk}/")
        page.evaluate("window.notReloaded = true")

    # Alice greets the table with Enter; the field empties and her message shows
    field = pa.get_by_label("Message to Table")
    field.fill("Good luck, @Bob! Rules: https://example.com/rules")
    field.press("Enter")
    expect(pa.locator("#chat-lines")).to_contain_text("Good luck, @Bob!")
    expect(pa.get_by_label("Message to Table")).to_have_value("")
    expect(pa.get_by_label("Message to Table")).to_be_focused()

    # Bob's open page gets it by polling: his mention is marked, the link is a link
    mention = pb.locator("#chat-lines .chat-line.mention")
    expect(mention).to_contain_text("Good luck")
    expect(mention.locator("mark")).to_have_text("@Bob")
    expect(mention.get_by_role("link", name="https://example.com/rules")).to_have_attribute(
        "rel", "nofollow noopener noreferrer ugc"
    )

    # Bob answers in private (Shift+Enter makes a second line)
    pb.locator(f'#chat-tabs a[data-channel="p{a_seat}"]').click()
    private = pb.get_by_label("Message to Private: Alice")
    expect(private).to_be_visible()
    private.fill("Leave my Fort alone")
    private.press("Shift+Enter")
    private.type("and I leave yours.")
    pb.get_by_role("button", name="Send").click()
    expect(pb.locator("#chat-lines")).to_contain_text("Leave my Fort alone\nand I leave yours.")

    # Alice's private tab counts it, by the poll, without a reload; opening it reads it
    tab = pa.locator(f'#chat-tabs a[data-channel="p{b_seat}"]')
    expect(tab).to_have_attribute("aria-label", "Private: Bob, 1 unread")
    expect(pa.locator("#chat-lines")).not_to_contain_text("Leave my Fort")  # the table is shown
    tab.click()
    expect(pa.locator("#chat-lines")).to_contain_text("Leave my Fort alone")
    expect(pa.locator(f'#chat-tabs a[data-channel="p{b_seat}"]')).to_have_attribute("aria-current", "true")
    expect(pa.locator(f'#chat-tabs a[data-channel="p{b_seat}"]')).not_to_have_attribute(
        "aria-label", "Private: Bob, 1 unread"
    )
    pa.get_by_label("Message to Private: Bob").fill("Deal.")
    pa.get_by_label("Message to Private: Bob").press("Enter")
    expect(pb.locator("#chat-lines")).to_contain_text("Deal.")  # Bob has the private channel open
    assert pa.evaluate("window.notReloaded") and pb.evaluate("window.notReloaded")

    # the private talk stays private: the table shows none of it
    pb.locator('#chat-tabs a[data-channel="table"]').click()
    expect(pb.locator("#chat-lines")).to_contain_text("Good luck")
    expect(pb.locator("#chat-lines")).not_to_contain_text("Deal.")
    pa.locator('#chat-tabs a[data-channel="table"]').click()
    pa.get_by_label("Message to Table").fill("@Bob gg, whatever happens")
    pa.get_by_label("Message to Table").press("Enter")
    expect(pb.locator("#chat-lines .chat-line.mention").last).to_contain_text("whatever happens")
    serious = [v for v in axe_violations(pb) if v["impact"] in SERIOUS]
    assert not serious, describe(serious)
    shot(pb, "chat-desktop", at="#chat-panel")
    web.assert_clean()


def test_on_a_phone_the_chat_opens_from_its_button_and_the_map_stays_in_view(web: Web, settings: Any) -> None:
    settings.GAME_POLL_SECONDS = 1
    game, alice, bob, a_seat, b_seat = _duel()
    if services.game_state(game).active == b_seat:  # the phone is the waiting player's: a short decision
        alice, bob, a_seat, b_seat = bob, alice, b_seat, a_seat
    page = login_context(web, bob, PHONE, has_touch=True).new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("#board")).to_be_in_viewport()
    panel = page.locator("#chat-panel")
    expect(panel).to_be_hidden()  # no chat between the decision and the map
    gap = page.evaluate(
        "document.getElementById('board').getBoundingClientRect().top"
        " - document.getElementById('decision').getBoundingClientRect().bottom"
    )
    assert 0 <= gap <= 40, f"the map starts {gap}px below the decision"
    toggle = page.locator("#chat-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).to_be_in_viewport()

    # a message arrives: the button counts it, by the poll
    chat.chat_post(game_id=game.pk, user=alice, channel=f"p{b_seat}", text="Truce until turn 3?")
    expect(toggle).to_have_attribute("aria-label", "Chat, 1 unread")
    toggle.tap()
    expect(panel).to_be_visible()
    page.locator(f'#chat-tabs a[data-channel="p{a_seat}"]').tap()
    expect(page.locator("#chat-lines")).to_contain_text("Truce until turn 3?")
    page.get_by_label(re.compile(r"^Message to Private: ")).fill("Agreed, thanks.")
    page.get_by_role("button", name="Send").tap()
    expect(page.locator("#chat-lines")).to_contain_text("Agreed, thanks.")
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
    assert not serious, describe(serious)
    shot(page, "chat-phone")
    page.get_by_role("link", name="Back to the map").tap()
    expect(panel).to_be_hidden()
    expect(page.locator("#board")).to_be_in_viewport()
    web.assert_clean()
