"""Languages and replays in the browser (issue 5): the game page and a real notification email in English,
Swedish, Polish and Korean, as chosen by the player's profile language (screenshots ``game-<lang>.png`` and
``email-<lang>.png`` under ``docs/screenshots/``); a finished game's replay stepped from its first step to
its last with the arrow keys, the last step showing the result.

The emails are the ones the game sends (captured with Django's locmem backend): the HTML alternative is
loaded into the browser with ``page.set_content``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from accounts.models import User
from games.models import Game
from tests.web.conftest import create_started_game, create_user, seat_users, state_of

from .conftest import DESKTOP, PASSWORD, SCREENSHOTS, Player, Web, login_context, play_out, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Per language: the two players' display names and the game's title (as people there would write them).
PEOPLE = {
    "en": ("Anna", "Bob", "Friday game"),
    "sv": ("Astrid", "Björn", "Fredagsspelet"),
    "pl": ("Zofia", "Paweł", "Piątkowa partia"),
    "ko": ("지민", "서준", "금요일 게임"),
}
#: Texts of the game page (the active player's view at the start of a game) that must show translated.
PAGE_TEXTS = ["Your decision", "Advance from your castle", "End my turn", "Players", "Game log", "Your hand"]
#: True once htmx has swapped and settled the last answer.
SETTLED = "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"
#: Attributes of the map's elements that are not plain numbers (a localized "12,5" breaks the SVG).
MAP_NUMBERS = """els => els.flatMap(el => ['x', 'y', 'cx', 'cy', 'transform']
    .filter(a => el.hasAttribute(a))
    .map(a => [a, el.getAttribute(a)])
    .filter(([a, v]) => a === 'transform'
        ? !/^translate\\(-?[0-9.]+ -?[0-9.]+\\)$/.test(v)
        : isNaN(Number(v)))
    .map(([a, v]) => `${el.tagName} ${a}="${v}"`))"""
#: The email's window: a mail client's reading pane (the screenshot grows to the message's full height).
EMAIL_SIZE = {"width": 640, "height": 240}


def expect(locator: Any) -> Any:
    """Playwright's ``expect`` (imported late: the module must import without playwright installed)."""
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def in_language(language: str, text: str) -> str:
    """``text`` (a msgid of the catalogues) as the site says it in ``language``."""
    with translation.override(language):
        return translation.gettext(text)


def test_game_page_and_email_in_each_language(
    web: Web, live_server: Any, settings: Any, mailoutbox: list[Any]
) -> None:
    """For each language, two players whose profiles choose it start a game: the "Your turn" email the first
    player gets is in that language (subject, ``<html lang>``, texts), and so is the game page they then
    open (``<html lang>``, headings and buttons), whose map keeps plain numbers for its coordinates (not
    "12,5" as Swedish and Polish write them); both are screenshotted."""
    settings.SITE_URL = live_server.url
    for language, (first_name, second_name, title) in PEOPLE.items():
        users: list[User] = []
        for name in (first_name, second_name):
            user = create_user(f"{language}.{len(users)}@example.com", display_name=name, password=PASSWORD)
            user.language = language
            user.save(update_fields=["language"])
            users.append(user)
        game = create_started_game(humans=users, seed=1, title=title)
        active = seat_users(game)[state_of(game).active]

        # The email: the real message, rendered for the recipient's language.
        subject = "[Medieval Mastery] " + in_language(language, "Your turn in “%(title)s”") % {"title": title}
        sent = [m for m in mailoutbox if m.subject == subject]
        assert [m.to for m in sent] == [[active.email]], [(m.to, m.subject) for m in mailoutbox]
        html = next(content for content, mimetype in sent[0].alternatives if mimetype == "text/html")
        page = login_context(web, active, viewport=EMAIL_SIZE).new_page()
        page.set_content(str(html))
        expect(page.locator("html")).to_have_attribute("lang", language)
        hello = in_language(language, "Hello %(name)s,") % {"name": active.display_name}
        expect(page.locator("body")).to_contain_text(hello)
        expect(page.get_by_role("link", name=in_language(language, "Open the game"))).to_have_attribute(
            "href", f"{live_server.url}/games/{game.pk}/#decision"
        )
        expect(page.get_by_role("link", name=in_language(language, "End my turn"))).to_be_visible()
        if language != "en":
            assert hello != f"Hello {active.display_name},", f"the email is not translated into {language}"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"email-{language}.png"), full_page=True)

        # The game page, in the language of the player's profile (the browser asks for en-GB).
        page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
        page.goto(f"/games/{game.pk}/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("#decision.mine")).to_be_visible()
        assert "advance" in Player(active.display_name, page).form_types()
        main = page.locator("main")
        for text in PAGE_TEXTS:
            shown = in_language(language, text)
            expect(main).to_contain_text(shown)
            if language != "en":
                assert shown != text, f"{text!r} is not translated into {language}"
        expect(page.locator("#h-decision")).to_have_text(in_language(language, "Your decision"))
        positioned = page.locator("#board svg [x], #board svg [cx], #board svg [transform]")
        bad = positioned.evaluate_all(MAP_NUMBERS)
        assert bad == [], f"map coordinates written the {language} way (the map falls apart): {bad[:5]}"
        shot(page, f"game-{language}")
    web.assert_clean()


def test_replay_stepped_from_start_to_end_with_the_arrow_keys(web: Web) -> None:
    """A finished game's replay opens at step 0; every ArrowRight moves one step on ("Step N of M" follows,
    as do the status line read out to screen readers and the address), the last step shows the result and
    the winner, ArrowRight there stays put; Home, End and ArrowLeft go to the start, the end and one step
    back. Every step swaps the replay panels (no key loads a whole page)."""
    anna = create_user("anna@example.com", display_name="Anna", password=PASSWORD)
    bob = create_user("bob@example.com", display_name="Bob", password=PASSWORD)
    game = create_started_game(humans=[anna, bob], seed=10, options={"skirmish": True}, title="Short game")
    game = play_out(game)
    assert game.status == Game.Status.FINISHED and game.winners
    steps = game.seq
    assert steps <= 120, f"the replay has {steps} steps: pick a seed that gives a shorter game"
    winner = seat_users(game)[game.winners[0]].display_name

    page = login_context(web, anna).new_page()
    page.goto(f"/games/{game.pk}/replay/?step=0")
    position = page.locator("#replay-pos")
    expect(position).to_have_text(f"Step 0 of {steps}")
    expect(page.locator("#result")).to_have_count(0)
    entries = page.locator("#log li[data-seq]").count()
    status = page.locator("#replay-status")  # the live region outside the replaced panels
    loads: list[str] = []
    page.on("load", lambda loaded: loads.append(loaded.url))

    def key(name: str, step: int) -> None:
        """Press ``name``; the replay then stands at ``step`` (htmx swapped and settled the panels)."""
        page.keyboard.press(name)
        expect(position).to_have_text(f"Step {step} of {steps}")
        page.wait_for_function(SETTLED)  # the new links are htmx's once settled (before, a key loads a page)
        expect(status).to_have_text(f"Step {step} of {steps}")
        expect(page.locator("#result")).to_have_count(1 if step == steps else 0)

    for step in range(1, steps + 1):
        key("ArrowRight", step)
    assert page.url.endswith(f"?step={steps}")
    assert page.locator("#log li[data-seq]").count() > entries
    result = page.locator("#result")
    expect(result.get_by_role("heading", name="Game over")).to_be_visible()
    expect(result).to_contain_text("Winner")
    expect(result.locator("p.winners")).to_contain_text(winner)
    shot(page, "replay-end")

    key("ArrowRight", steps)  # already at the end: it stays there
    key("Home", 0)
    key("End", steps)
    key("ArrowLeft", steps - 1)
    assert loads == [], f"a key loaded a whole page instead of the replay panels: {loads}"
    web.assert_clean()
