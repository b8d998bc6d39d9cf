"""Play by email in a mail client's reading pane (issue 18): the real "your turn" email, loaded into the
browser with ``page.set_content``, shows the numbered moves, the forms, the hand and the text map; after a
reply of two lines the one result email shows both moves applied and the next decision. Screenshots
``email-play.png`` and ``email-play-result.png`` (with ``MASTERY_SCREENSHOTS=1``).
"""

from __future__ import annotations

from typing import Any

import pytest

from games.services import inbox
from tests.web.conftest import create_started_game, create_user, seat_users, state_of
from tests.web.test_email_play import decision_email, reply_to

from .conftest import Web, login_context, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PANE = {"width": 640, "height": 900}


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def html_of(message: Any) -> str:
    return str(next(content for content, mimetype in message.alternatives if mimetype == "text/html"))


def test_a_decision_email_and_the_answer_to_a_two_line_reply(
    web: Web, live_server: Any, settings: Any, mailoutbox: list[Any]
) -> None:
    settings.SITE_URL = live_server.url
    users = [create_user(f"{n.lower()}@example.com", display_name=n) for n in ("Anna", "Bob", "Cid")]
    game = create_started_game(humans=users, seed=21, title="Friday game")
    seat = state_of(game).active
    player = seat_users(game)[seat]
    msg = decision_email(mailoutbox, player)
    page = login_context(web, player, viewport=PANE).new_page()
    page.set_content(html_of(msg))
    moves = page.locator("ol li")
    expect(moves.first).to_have_text("end")
    assert moves.count() >= 2
    expect(page.locator("pre")).to_contain_text("#")  # the text map with its castles
    expect(page.locator("body")).to_contain_text("Your hand:")
    shot(page, "email-play")

    second = moves.nth(1).inner_text()
    count = len(mailoutbox)
    inbox.mail_store(raw=reply_to(msg, "2\n\nend\n\nThanks,\nAnna"))
    answers = [m for m in mailoutbox[count:] if m.to == [player.email]]
    assert len(answers) == 1
    page.set_content(html_of(answers[0]))
    expect(page.locator("body")).to_contain_text(f"✓ {second}")
    expect(page.locator("body")).to_contain_text("✓ end")
    shot(page, "email-play-result")
