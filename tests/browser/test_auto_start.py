"""Issue 16 in a real browser: a table fills and starts by itself. The creator opens a private two-seat table
with the defaults (auto-start on), a friend joins through the invite link, the game starts at once, and the
creator gets both lobby emails: someone joined, and the table is full and has started."""

from __future__ import annotations

import pytest
from django.core import mail
from playwright.sync_api import expect

from games.models import Game
from tests.browser.conftest import Web, login_context
from tests.web.conftest import create_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_full_table_starts_by_itself_and_the_creator_is_told_twice(web: Web) -> None:
    """The new-game form starts with "Start by itself" ticked; joining the last seat starts the game for
    both players without the creator doing anything; the creator gets "Fiona joined" and "is full" (which
    says the game has started by itself), each once, and both players get "has started"."""
    host = create_user("host@example.com", display_name="Hector")
    friend = create_user("friend@example.com", display_name="Fiona")
    mail.outbox.clear()
    page = login_context(web, host).new_page()
    page.goto("/games/new/")
    expect(page.get_by_label("Start by itself when every seat is taken")).to_be_checked()
    page.get_by_label("Title").fill("Auto table")
    page.get_by_label("Players", exact=True).select_option("2")
    page.get_by_label("Private — only people with the invite link can join").check()
    page.get_by_role("button", name="Open the table").click()
    expect(page.get_by_role("button", name="Join this table")).to_have_count(0)
    game = Game.objects.get(title="Auto table")
    assert game.status == Game.Status.LOBBY and game.auto_start

    other = login_context(web, friend).new_page()
    link = page.locator("#invite-link").input_value()  # what the host would copy and send
    assert link.endswith(f"/games/{game.pk}/join/{game.invite_token}/")
    other.goto(link)
    other.get_by_role("button", name="Join this table").click()
    expect(other.locator("#decision")).to_be_visible()
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE

    subjects = [(m.to[0], m.subject) for m in mail.outbox]
    to_host = [s for to, s in subjects if to == host.email]
    assert to_host.count("[Medieval Mastery] Fiona joined “Auto table”") == 1
    assert to_host.count("[Medieval Mastery] “Auto table” is full") == 1
    full = next(m for m in mail.outbox if m.subject.endswith("is full"))
    assert "The game has started by itself." in full.body
    for user in (host, friend):
        assert subjects.count((user.email, "[Medieval Mastery] “Auto table” has started")) == 1
    page.reload()
    expect(page.locator("#decision")).to_be_visible()
    web.assert_clean()
