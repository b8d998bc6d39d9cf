"""Accessibility in the browser (issue 5): axe-core, run in Chromium, finds no serious or critical
violation on the pages a player uses; the map is usable without colour and without sight (every tile names
itself, its owner and its knights; owners are told apart by pattern and initial too); a whole turn can be
played with the keyboard alone (Tab, Enter and Space; never the mouse).

axe-core comes from the project's own dev dependencies (the ``axe-playwright-python`` package bundles
``axe.min.js``); nothing is downloaded while the tests run.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

from accounts.models import User
from games import engine, services
from games.models import Game
from tests.web.conftest import create_started_game, create_user, seat_users, state_of

from .conftest import PASSWORD, Player, Web, login_context, play_out

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Impacts that fail the check (axe's scale: minor, moderate, serious, critical).
SERIOUS = {"serious", "critical"}
#: Options of a short game (Skirmish: 11 VP); with seed 10 it is over in a few dozen actions.
SHORT = {"skirmish": True}


def expect(locator: Any) -> Any:
    """Playwright's ``expect`` (imported late: the module must import without playwright installed)."""
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def axe_script() -> Path:
    """``axe.min.js`` as bundled by the ``axe-playwright-python`` dev dependency (skipped outside CI when that
    package is missing)."""
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or not spec.submodule_search_locations:
        if os.environ.get("CI"):
            raise AssertionError("axe-playwright-python is missing (pip install -e '.[dev]')")
        pytest.skip("axe-playwright-python is missing (pip install -e '.[dev]')")
    path = Path(next(iter(spec.submodule_search_locations))) / "axe.min.js"
    assert path.is_file(), f"{path} is missing: the axe-playwright-python package no longer bundles axe-core"
    return path


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """Run axe-core on the page as it stands; returns every violation (id, impact, help, nodes)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_script()))
    result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return list(result)


def describe(violations: list[dict[str, Any]]) -> str:
    """One paragraph per violation: rule, impact, help and the first few elements it concerns."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} — {v['helpUrl']}")
        for node in v["nodes"][:5]:
            summary = (node.get("failureSummary") or "").strip().splitlines()
            lines.append(f"    {node['target']}: {summary[-1].strip() if summary else ''}")
            lines.append(f"        {node['html'][:200]}")
    return "\n".join(lines)


def battle_with_my_decision(game: Game, user: User) -> Game:
    """Play ``game`` on (see :func:`.conftest.play_out`) until a battle runs and ``user`` has a decision
    in it."""
    seat = next(n for n, u in seat_users(game).items() if u.pk == user.pk)

    def done(g: Game) -> bool:
        state = state_of(g)
        # a decision of hers: not a window the server passes for (issue 14)
        return state.battle is not None and any(p.seat == seat and not p.auto for p in engine.pending(state))

    game = play_out(game, done)
    assert done(game), "the game ended before a battle"
    return game


def test_pages_have_no_serious_axe_violations(web: Web) -> None:
    """axe-core finds no serious or critical violation on the game page during a battle, an open table's
    lobby, "My games", a replay (at its last step, with the result), the leaderboard and the profile page."""
    anna = create_user("anna@example.com", display_name="Anna", password=PASSWORD)
    bob = create_user("bob@example.com", display_name="Bob", password=PASSWORD)
    game = battle_with_my_decision(create_started_game(humans=[anna, bob], seed=3, title="A battle"), anna)
    finished = play_out(create_started_game(humans=[anna, bob], seed=10, options=SHORT, title="Done"))
    assert finished.status == Game.Status.FINISHED
    table = services.game_create(user=anna, title="An open table", players=3)

    page = login_context(web, anna).new_page()
    pages = {
        "game page (battle)": f"/games/{game.pk}/",
        "lobby": f"/games/{table.pk}/",
        "my games": "/games/",
        "replay (last step, with the result)": f"/games/{finished.pk}/replay/?step={finished.seq}",
        "leaderboard": "/leaderboard/",
        "profile": "/accounts/profile/",
    }
    found: dict[str, list[dict[str, Any]]] = {}
    for name, url in pages.items():
        answer = page.goto(url)
        assert answer is not None and answer.status == 200, f"{name}: {url} answered {answer}"
        if name.startswith("game page"):
            expect(page.locator("#status .scores")).to_be_visible()
            expect(page.locator("#decision.mine")).to_be_visible()
        violations = axe_violations(page)
        serious = [v for v in violations if v["impact"] in SERIOUS]
        if serious:
            found[name] = serious
    assert not found, "\n".join(f"== {name} ==\n{describe(v)}" for name, v in found.items())
    web.assert_clean()


def test_the_map_names_every_tile_and_tells_owners_apart_without_colour(web: Web) -> None:
    """Every tile of the map is focusable and has a text alternative (its accessible name in Chromium) with
    its name and, when held, its owner and knights; an owned tile shows its owner's initial and pattern as
    well as the colour, and the legend pairs every initial with a name."""
    from games.selectors import game_get, game_view

    anna = create_user("anna@example.com", display_name="Anna", password=PASSWORD)
    others = [create_user(display_name=name) for name in ("Bob", "Clara")]
    game = create_started_game(humans=[anna, *others], seed=5, title="Three castles")
    game = play_out(game, lambda g: sum(o >= 0 for o in state_of(g).owner) >= 3)
    fresh = game_get(game.pk)
    assert fresh is not None
    gv = game_view(fresh, anna, with_log=False)
    assert gv.view is not None
    names = gv.names
    players = gv.view["players"]
    initials = {p["seat"]: p["castle"][:1].upper() for p in players}
    assert len(set(initials.values())) == len(players), f"two seats share an initial: {initials}"

    page = login_context(web, anna).new_page()
    page.goto(f"/games/{game.pk}/")
    board = page.locator("#board")
    patterns = {}
    for p in players:
        pattern = board.locator(f"pattern#pat-s{p['seat']}")
        expect(pattern).to_have_count(1)
        patterns[p["seat"]] = pattern.evaluate("el => el.innerHTML.replace(/#[0-9a-fA-F]{3,8}/g, '')")
    assert len(set(patterns.values())) == len(players), "two seats share a map pattern"

    owned = 0
    for tile in gv.view["map"]:
        g = board.locator(f"#tile-{tile['id']}")
        expect(g).to_have_attribute("tabindex", "0")
        label = g.get_attribute("aria-label") or ""
        expect(g).to_have_accessible_name(label)
        assert g.locator("title").text_content() == label
        if tile["kind"] == "lake":
            assert "Lake" in label
            continue
        assert tile["name"] in label, f"{tile['id']}: {label!r}"
        owner = tile.get("seat") if tile["kind"] == "castle" else tile.get("owner")
        if owner is None:
            assert "uncontrolled" in label, f"{tile['id']}: {label!r}"
            continue
        owned += 1
        owner = int(owner)
        assert names[owner] in label and f"{tile['knights']} knights" in label, f"{tile['id']}: {label!r}"
        expect(g.locator(".hex")).to_have_attribute("fill", f"url(#pat-s{owner})")
        expect(g.locator(".badge-text").first).to_have_text(f"{initials[owner]} {tile['knights']}")
    assert owned >= len(players) + 3
    legend = board.locator("ul.legend")
    for p in players:
        expect(legend).to_contain_text(f"{initials[p['seat']]} {names[p['seat']]}")
    web.assert_clean()


#: Tab presses allowed to reach one control (the page has one tab stop per map tile).
MAX_TABS = 250


def tab_to(page: Any, selector: str) -> None:
    """Press Tab until the focused element matches ``selector`` (fails after :data:`MAX_TABS` presses)."""
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def press_and_wait(page: Any, key: str) -> int:
    """Press ``key`` on the focused control, which sends the decision form; returns the answer's status."""
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/act/")) as answer:
        page.keyboard.press(key)
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")
    return int(answer.value.status)


def test_a_whole_turn_with_the_keyboard_only(web: Web) -> None:
    """The player to move tabs to a highlighted territory on the map (its focus visible), picks it with
    Enter (the advance form follows, the knights field takes the focus), tabs to "Advance" and presses
    Space; then tabs to "End my turn" and presses Enter. No mouse event reaches the page, and the turn
    passes to the other player (page and database agree)."""
    anna = create_user("anna@example.com", display_name="Anna", password=PASSWORD)
    bob = create_user("bob@example.com", display_name="Bob", password=PASSWORD)
    game = create_started_game(humans=[anna, bob], seed=1, title="By keyboard")
    users = seat_users(game)
    state = state_of(game)
    me, other = users[state.active], users[1 - state.active]

    page = login_context(web, me).new_page()
    page.goto(f"/games/{game.pk}/")
    page.evaluate(
        "() => { window.mouseEvents = 0; for (const t of ['mousedown', 'mouseup', 'click'])"
        " addEventListener(t, e => { if (e.detail > 0 || e.pointerType) window.mouseEvents++; }, true); }"
    )
    player = Player(me.display_name, page)
    assert "advance" in player.form_types() and "end_turn" in player.form_types()
    expect(page.locator("#game-header")).to_contain_text(f"{me.display_name}'s turn")
    seq = player.seq()

    # The map: Tab to an uncontrolled highlighted territory (no battle); its focus ring shows.
    options = player.advance_options()
    target = next(o for o in options if not o["battle"])
    tile = page.locator(f"#tile-{target['value']}")
    expect(tile).to_have_attribute("role", "button")
    hex_width = "el => getComputedStyle(el.querySelector('.hex')).strokeWidth"
    unfocused = tile.evaluate(hex_width)
    tab_to(page, f"#tile-{target['value']}")
    assert tile.evaluate(hex_width) != unfocused, "a focused target tile looks like an unfocused one"
    page.keyboard.press("Enter")
    expect(page.locator("#advance-to")).to_have_value(target["value"])
    expect(page.locator("#advance-knights")).to_be_focused()
    expect(page.locator("#advance-knights")).to_have_value("")  # nothing pre-filled (issue 29)
    # "all N" by keyboard fills the most knights that can go there and gives the focus back to the count
    page.keyboard.press("Tab")
    expect(page.locator("#advance-all")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#advance-knights")).to_have_value(str(target["max"]))
    expect(page.locator("#advance-knights")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    advance = player.decision.get_by_role("button", name="Advance", exact=True)
    expect(advance).to_be_focused()
    assert press_and_wait(page, "Space") == 200
    assert player.seq() == seq + 1
    expect(page.locator("#log")).to_contain_text(target["label"].split(" ")[0])

    # End the turn: Tab to the button (whatever the panel offers now) and press Enter.
    assert "end_turn" in player.form_types()
    tab_to(page, "#decision form.end-turn button")
    assert press_and_wait(page, "Enter") == 200
    expect(page.locator("#game-header")).to_contain_text(f"{other.display_name}'s turn")
    expect(player.decision).to_contain_text(f"Waiting for {other.display_name}")
    assert page.evaluate("window.mouseEvents") == 0, "a mouse event reached the page"

    game.refresh_from_db()
    after = state_of(game)
    assert users[after.active] == other and after.turn == state.turn + 1
    records = list(game.actions.order_by("seq").values_list("seat", "payload"))
    me_seat = state.active
    assert [(s, p["type"]) for s, p in records[-2:]] == [(me_seat, "advance"), (me_seat, "end_turn")]
    web.assert_clean()
