"""Acting from a notification email in the browser (issue 4, "Act from the email"): the "Your turn" email of
a 2-player game between two people carries a signed single-use "End my turn" link and an "Open the game"
link. Opened without a login, the signed link only shows what it would do (a GET changes nothing); the
confirmation button acts once, logged with source ``email``; the same link then says it was used. The other
player's "Open the game" link leads, once logged in, straight to the decision panel, where they end their
turn on the page — after which their own email link acts no more.

Emails are captured with Django's locmem backend (pytest-django's ``mailoutbox``): the live server runs in
a thread of this process, Celery runs eagerly and sends after commit, so a message is in the outbox once the
page that caused it has answered. ``SITE_URL`` points at the live server so the links are used as sent.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.models import User
from games import engine
from games.models import ActionRecord, Game, Notification
from tests.web.conftest import create_started_game, create_user, db_fingerprint, play_until, state_of

from .conftest import PASSWORD, Player, Web, log_in, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TITLE = "Anna and Bob by post"


def expect(locator: Any) -> Any:
    """Playwright's ``expect`` (imported late: the module must import without playwright installed)."""
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def turn_email(outbox: list[Any], user: User) -> Any:
    """The one "Your turn" email sent to ``user`` (fails if there is none or more than one)."""
    found = [m for m in outbox if user.email in m.to and m.subject.startswith("[Medieval Mastery] Your turn")]
    assert len(found) == 1, f"{len(found)} 'Your turn' emails to {user.email}: {[m.subject for m in outbox]}"
    return found[0]


def email_link(message: Any, label: str) -> str:
    """The URL of the line ``<label>: <url>`` of a message's text body."""
    found = re.search(rf"^{re.escape(label)}: (\S+)$", message.body, re.MULTILINE)
    assert found, f"no '{label}' link in the email to {message.to}:\n{message.body}"
    return found.group(1)


def test_end_the_turn_from_the_email_then_from_the_game_page(
    web: Web, live_server: Any, settings: Any, mailoutbox: list[Any]
) -> None:
    """The first player ends their turn through the signed link without logging in (confirmation page
    first, acting once); the second player follows "Open the game" from their own "Your turn" email to the
    decision panel and ends their turn there, which leaves their signed link with nothing to do."""
    settings.SITE_URL = live_server.url
    anna = create_user("anna@example.com", display_name="Anna", password=PASSWORD)
    bob = create_user("bob@example.com", display_name="Bob", password=PASSWORD)
    game = create_started_game(humans=[anna, bob], seed=1, title=TITLE)
    seats = {s.user_id: s.number for s in game.seats.all()}
    first_message = next(m for m in mailoutbox if "Your turn" in m.subject)
    first, second = (anna, bob) if anna.email in first_message.to else (bob, anna)
    assert [m.to for m in mailoutbox if "Your turn" in m.subject] == [[first.email]]

    message = turn_email(mailoutbox, first)
    assert message.subject == f"[Medieval Mastery] Your turn in “{TITLE}”"
    end_link = email_link(message, "End my turn")
    assert end_link.startswith(f"{live_server.url}/e/")
    assert email_link(message, "Open the game") == f"{live_server.url}/games/{game.pk}/#decision"

    # Opened without a login (a fresh context): the link shows what it would do and changes nothing.
    page = web.page()
    before = db_fingerprint(game.pk)
    answer = page.goto(end_link)
    assert answer is not None and answer.status == 200
    expect(page.get_by_role("heading", name=TITLE, level=1)).to_be_visible()
    expect(page.get_by_role("heading", name="End my turn", level=2)).to_be_visible()
    confirm = page.locator("#link-confirm")
    expect(confirm).to_have_text("Confirm: End my turn")
    expect(page.get_by_role("link", name="Log in")).to_be_visible()  # nobody is logged in
    shot(page, "email-link-confirm")
    page.reload()  # a mail scanner fetching the link twice changes nothing either
    assert db_fingerprint(game.pk) == before
    assert Notification.objects.filter(link_used_at__isnull=False).count() == 0
    seq = Game.objects.get(pk=game.pk).seq

    # The confirmation acts once, as the first player's seat, with source "email".
    confirm.click()
    expect(page.locator("#link-done")).to_have_text("Done: End my turn.")
    record = ActionRecord.objects.get(game_id=game.pk, seq=seq + 1)
    assert (record.seat, record.source, record.payload["type"]) == (seats[first.pk], "email", "end_turn")
    assert Game.objects.get(pk=game.pk).seq == ActionRecord.objects.filter(game_id=game.pk).count()

    # The same link again: already used, and still nothing more happens.
    after = db_fingerprint(game.pk)
    answer = page.goto(end_link)
    assert answer is not None and answer.status == 410
    expect(page.locator("#link-error")).to_have_text("This link has already been used; it acts only once.")
    expect(page.locator("#link-confirm")).to_have_count(0)
    assert db_fingerprint(game.pk) == after

    # The second player's turn came by email too; "Open the game" leads them to the decision panel.
    message = turn_email(mailoutbox, second)
    second_link = email_link(message, "End my turn")
    game_link = email_link(message, "Open the game")
    second_page = web.page()
    log_in(second_page, second.email)
    second_page.goto(game_link)
    expect(second_page.locator("#game-header")).to_have_attribute("data-game", str(game.pk))
    player = Player(second.display_name, second_page)
    expect(player.decision).to_be_visible()
    expect(player.decision).to_be_in_viewport()
    expect(second_page.locator("#decision.mine")).to_have_count(1)
    assert "end_turn" in player.form_types()
    seq = Game.objects.get(pk=game.pk).seq
    assert player.seq() == seq
    player.submit(player.decision.get_by_role("button", name="End my turn"), "end_turn")
    assert player.seq() == seq + 1
    record = ActionRecord.objects.get(game_id=game.pk, seq=seq + 1)
    assert (record.seat, record.source, record.payload["type"]) == (seats[second.pk], "web", "end_turn")

    # Decided on the page, the second player's signed link acts no more (and is not spent by trying): it
    # says so at once, without a confirmation page first (issue 16).
    after = db_fingerprint(game.pk)
    answer = page.goto(second_link)
    assert answer is not None and answer.status == 410
    expect(page.locator("#link-error")).to_have_text("This decision has already been made.")
    expect(page.locator("#link-confirm")).to_have_count(0)
    assert db_fingerprint(game.pk) == after
    assert Notification.objects.get(recipient=second, kind="turn").link_used_at is None
    web.assert_clean()


def test_pass_a_response_window_from_the_email_then_log_in_from_the_link_page(
    web: Web, live_server: Any, settings: Any, mailoutbox: list[Any]
) -> None:
    """A Fracture window opened by one player reaches the other by email with a "Pass this response window"
    link; confirmed without a login, it passes the window (source ``email``) and the game goes on. The
    link page's "Open the game" sends the logged-out reader to the login page and, once logged in, to the
    game, where the window is closed."""
    settings.SITE_URL = live_server.url
    anna = create_user("anna@example.com", display_name="Anna", password=PASSWORD)
    bob = create_user("bob@example.com", display_name="Bob", password=PASSWORD)
    game = create_started_game(humans=[anna, bob], seed=1, title=TITLE)

    def window_mailed(_game: Game) -> bool:
        return any("Response window" in m.subject for m in mailoutbox)

    game = play_until(game, window_mailed, limit=50)
    message = next(m for m in mailoutbox if "Response window" in m.subject)
    responder = anna if anna.email in message.to else bob
    seat = game.seats.get(user=responder).number
    assert [(p.seat, p.kind) for p in engine.pending(state_of(game))] == [(seat, "response")]
    assert "Do you play Fracture on it?" in message.body
    pass_link = email_link(message, "Pass this response window")

    page = web.page()
    before = db_fingerprint(game.pk)
    page.goto(pass_link)
    expect(page.get_by_role("heading", name=TITLE, level=1)).to_be_visible()
    expect(page.locator("#link-confirm")).to_have_text("Confirm: Pass this response window")
    assert db_fingerprint(game.pk) == before

    page.locator("#link-confirm").click()
    expect(page.locator("#link-done")).to_have_text("Done: Pass this response window.")
    record = ActionRecord.objects.get(game_id=game.pk, seq=game.seq + 1)
    assert (record.seat, record.source, record.payload) == (
        seat,
        "email",
        {"type": "respond", "fracture": []},
    )
    game.refresh_from_db()
    assert all(p.kind != "response" for p in engine.pending(state_of(game)))

    page.get_by_role("link", name="Open the game").click()
    expect(page.get_by_role("heading", name="Log in", level=1)).to_be_visible()
    assert f"next=/games/{game.pk}/" in page.url.replace("%2F", "/")
    page.get_by_label("Email").fill(responder.email)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("main").get_by_role("button", name="Log in").click()
    expect(page.locator("#game-header")).to_have_attribute("data-game", str(game.pk))
    expect(page.locator("#decision")).to_be_visible()
    expect(page.locator("#game-header")).to_have_attribute("data-seq", str(game.seq))
    expect(page.locator("#log")).to_contain_text("Fracture window for")
    assert "respond" not in Player(responder.display_name, page).form_types()
    page.goto(pass_link)
    expect(page.locator("#link-error")).to_have_text("This link has already been used; it acts only once.")
    web.assert_clean()
