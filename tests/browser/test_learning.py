"""Issue 15 in a real browser: a newcomer plays the guided first game from the home page using only its
hints, on a desktop and a phone; the rules reference and the guided game pass axe-core without serious
violations; a tile's "about" text opens by mouse hover (its SVG tooltip), keyboard focus and touch."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import DESKTOP, PHONE, Web, login_context, shot
from tests.browser.test_accessibility import SERIOUS, axe_violations, describe
from tests.web.conftest import create_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SETTLED = "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"


def _serious(page: Page) -> list[dict[str, Any]]:
    return [v for v in axe_violations(page) if v["impact"] in SERIOUS]


def _follow(page: Page, hint: Any) -> None:
    """Do what the hint says: its control (``data-target``) with the values it names (``data-fill``)."""
    target = hint.get_attribute("data-target")
    fill = json.loads(hint.get_attribute("data-fill") or "{}")
    assert target, hint.inner_text()
    if target == "#confirm-yes":  # an act that cannot be taken back asks first (issue 16)
        page.locator(target).click()
        return
    form = page.locator(target).first
    if target == "#redistribute-form":
        form.locator("#redis-from").select_option(fill["from"])
        form.locator("#redis-to").select_option(fill["to"])
        form.locator("#redis-knights").fill(str(fill["knights"]))
    elif target == "#advance-form":
        form.locator("#advance-to").select_option(fill["to"])
        form.locator("#advance-knights").fill(str(fill["knights"]))
    elif "respond" in target and fill.get("fracture"):
        form.locator("select[name=fracture]").first.select_option(fill["fracture"])
    elif "choose_conflict" in target:
        form.get_by_label("Heroic Assault", exact=False).check()
    elif "play_support" in target:
        for box in form.locator("input[type=checkbox]").all():
            box.check()
    form.locator("button[type=submit]").first.click()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_newcomer_completes_the_guided_game_using_only_its_hints(
    web: Web, viewport: dict[str, int]
) -> None:
    """Home page -> "Guided first game" -> one whole turn by following each hint's control, the outlined
    control always being the one the hint names, to the offer of a real game against a bot."""
    user = create_user("newcomer@example.com", display_name="Newcomer")
    page = login_context(web, user, viewport).new_page()
    page.goto("/")
    page.get_by_role("button", name="Guided first game").click()
    hint = page.locator("#tutorial-hint")
    expect(hint).to_contain_text("step 2 of 9")
    assert not _serious(page), describe(_serious(page))
    shot(page, f"tutorial-{'phone' if viewport is PHONE else 'desktop'}")
    seen = []
    for _move in range(30):
        page.wait_for_function(SETTLED)
        if "done" in (hint.get_attribute("class") or ""):
            break
        step = hint.get_attribute("data-step")
        seen.append(int(step or 0))
        target = hint.get_attribute("data-target") or ""
        if target:
            expect(page.locator(".tutorial-target")).to_have_count(1)
        if step == "9" and 9 not in seen[:-1]:  # the restore step ahead and "Why can't I…?" beside it
            shot(page, f"tutorial-restore-{'phone' if viewport is PHONE else 'desktop'}", at="#decision")
        # every move swaps the decision panel: wait for the new one, so the next hint is read from it and
        # never from the panel of the move just made (the header's seq can change before the panel does)
        page.evaluate("document.querySelector('#decision').dataset.answered = '1'")
        _follow(page, hint)
        page.wait_for_function("!document.querySelector('#decision').dataset.answered")
    else:
        raise AssertionError(f"the guided turn did not end: {seen}")
    assert seen == sorted(seen) and set(seen) == {2, 3, 4, 5, 6, 9}
    expect(page.get_by_role("button", name="Play a real game against a bot")).to_be_visible()
    assert not _serious(page), describe(_serious(page))
    web.assert_clean()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_rules_reference_passes_axe_and_its_tiles_explain_themselves(
    web: Web, viewport: dict[str, int]
) -> None:
    """/rules/ has no serious axe violations; a diagram's tile has its text as an SVG tooltip (hover) and
    shows it in the "about" box under the diagram on keyboard focus and on a tap; each diagram is a single
    Tab stop whose tiles the arrow keys visit."""
    ctx = web.browser.new_context(base_url=web.base_url, viewport=viewport, has_touch=viewport is PHONE)  # type: ignore[arg-type]
    web.contexts.append(ctx)
    page = ctx.new_page()
    page.goto("/rules/")
    expect(page.get_by_role("heading", name="Rules of Medieval Mastery")).to_be_visible()
    assert not _serious(page), describe(_serious(page))
    shot(page, f"rules-{'phone' if viewport is PHONE else 'desktop'}")
    fort = page.locator("#d1-tile-t6")
    expect(fort.locator("title")).to_contain_text("Start of a battle here: the defender gets +1")
    about = page.locator("#map .tile-about")
    if viewport is PHONE:
        fort.tap()
    else:
        fort.hover()
        fort.focus()
    expect(about).to_contain_text("Fort")
    expect(about).to_contain_text("the defender gets +1")
    assert page.locator("#map .tile-about").get_attribute("aria-live") == "polite"
    # each diagram is one Tab stop; the arrow keys move between its tiles (roving tabindex)
    maps = page.locator("svg[data-roving]").count()
    assert maps >= 10 and page.locator('svg[data-roving] .tile[tabindex="0"]').count() == maps
    fort.focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.id") == "d1-tile-t7"
    expect(about).to_contain_text("Cave")
    assert page.locator('svg[data-roving] .tile[tabindex="0"]').count() == maps
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the rules page scrolls sideways by {overflow}px"


#: Is the centre of every control of the decision panel the topmost element there (nothing covers it)?
UNCOVERED = """() => [...document.querySelectorAll('#decision button, #decision select')].every(el => {
  const r = el.getBoundingClientRect(); if (!r.width) return true;
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !top || el.contains(top) || top.contains(el) || top.closest('#decision') !== null; })"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_game_page_explains_tiles_artefacts_and_cards(web: Web, viewport: dict[str, int]) -> None:
    """Issue 15: on the game page a tile's "about this tile" panel fills on mouse hover alone (desktop), on
    keyboard focus, and on a tap (phone); the artefacts on the player panels and the cards in hand show
    their texts (trigger and effect) without any gesture; and on a phone the about panel, once filled,
    covers no control of the decision panel."""
    phone = viewport is PHONE
    user = create_user("newcomer@example.com", display_name="Newcomer")
    page = login_context(web, user, viewport, has_touch=phone).new_page()
    page.goto("/")
    page.get_by_role("button", name="Guided first game").click()
    about = page.locator("#tile-about")
    if phone:
        page.locator("#tile-t6").tap()
        expect(about).to_contain_text("Fort")
    else:
        page.locator("#tile-t6").hover()
        expect(about).to_contain_text("Fort")
        expect(about).to_contain_text("the defender gets +1")
    shot(page, f"tile-about-{'phone' if phone else 'desktop'}", at="#board" if phone else None)
    page.locator("#tile-t1").focus()
    expect(about).to_contain_text("Forest")
    rage = page.locator(".artefact", has_text="Sceptre of Rage").first
    expect(rage.locator(".art-text")).to_be_visible()
    expect(rage.locator(".art-text")).to_contain_text("When you attack")
    assert "When you attack" in (rage.get_attribute("title") or "")
    orb = page.locator(".artefact", has_text="Orb of Brutality").first
    expect(orb).to_contain_text("destroyed on turn 5")  # Blue fractured it; the restore step brings it back
    heroic = page.locator("#hand .card", has_text="Heroic Assault").first
    expect(heroic.locator(".card-text")).to_be_visible()
    assert page.evaluate(UNCOVERED), "something covers the decision panel"
    if phone:
        box, decision = about.bounding_box(), page.locator("#decision").bounding_box()
        assert box is not None and decision is not None
        overlap = min(box["y"] + box["height"], decision["y"] + decision["height"]) - max(
            box["y"], decision["y"]
        )
        assert overlap <= 0, "the about panel overlaps the decision panel"
    web.assert_clean()


def test_the_game_page_tile_panel_opens_on_focus(web: Web) -> None:
    """On the game page, focusing a tile with the keyboard fills the "about this tile" panel under the map."""
    user = create_user("newcomer@example.com", display_name="Newcomer")
    page = login_context(web, user).new_page()
    page.goto("/")
    page.get_by_role("button", name="Guided first game").click()
    page.locator("#tile-t2").focus()
    expect(page.locator("#tile-about")).to_contain_text("City")
    expect(page.locator("#tile-about")).to_contain_text("the defender gets +1")


def test_focus_stays_with_the_decision_after_each_step(web: Web) -> None:
    """Issue 16: a keyboard player presses a decision button; after the swap the focus is in the new
    decision (on the heading, or on the form used if it is still offered) and the live region outside the
    panel reads the new headline, so the next Tab reaches the next decision's controls, not the page top."""
    user = create_user("keys@example.com", display_name="Keys")
    page = login_context(web, user).new_page()
    page.goto("/")
    page.get_by_role("button", name="Guided first game").click()
    button = page.get_by_role("button", name="Play Call to Arms (+2 knights)")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#tutorial-hint")).to_contain_text("step 3 of 9")
    page.wait_for_function(SETTLED)
    assert page.evaluate("document.getElementById('decision').contains(document.activeElement)")
    assert page.evaluate("document.activeElement.id") == "h-decision"
    expect(page.locator("#decision-announcer")).to_contain_text("Step 3")
    page.keyboard.press("Tab")
    assert page.evaluate("document.getElementById('decision').contains(document.activeElement)")
    # a refused move keeps the focus on the form that was used
    page.get_by_role("button", name="Use the Crown of Vitality").focus()
    page.keyboard.press("Enter")
    page.wait_for_function(SETTLED)
    expect(page.locator("#tutorial-hint")).to_contain_text("Crown of Vitality")
    page.locator("#redis-from").select_option("castle")
    page.locator("#redis-to").select_option("t1")
    page.locator("#redis-knights").fill("5")  # the Forest holds 6 at most: refused
    page.locator("#redis-knights").evaluate("el => el.removeAttribute('max')")
    page.locator("#redistribute-form button[type=submit]").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#decision [role=alert]")).to_be_visible()
    page.wait_for_function(SETTLED)
    assert page.evaluate("document.activeElement.closest('#redistribute-form') !== null")
    web.assert_clean()
