"""Issue 29 §4, the phone and the map, in a real browser: on a 390 px phone the map sits right under the
decision and fits the screen's width on first paint (no castle cut off, nothing to scroll sideways); the
hint stays put; "about this tile" opens next to the tile; the Chat button covers no control; no two map
labels overlap and none leaves the map at 360, 390, 768 and 1280 px; owners' patterns are never the
no-supply stripes (checked on the legend and the key); on a desktop the hover text comes next to the pointer
and an artefact's "?" opens its rule in a popover, by mouse and by keyboard, without leaving the page.

Docstrings here cite no rule numbers on purpose: the rules-coverage table counts engine tests only.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games import engine
from games.models import Game
from games.web.presenters.board import LABEL_WIDTH, label_fit
from tests.browser.conftest import DESKTOP, PHONE, Web, login_context, shot
from tests.browser.test_accessibility import SERIOUS, axe_violations, describe
from tests.engine import fixtures as F
from tests.web.conftest import create_started_game, play_until, seat_users, state_of
from tests.web.factories import PLAIN, game_from_state

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Every text of the map: its box, its tile, and whether it lies inside the map's SVG box.
LABEL_BOXES = """() => {
  const svg = document.querySelector('#board svg.map');
  const s = svg.getBoundingClientRect();
  const labels = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent.trim(), tile: t.closest('.tile').id,
            left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  });
  return {svg: {left: s.left, right: s.right, top: s.top, bottom: s.bottom}, labels};
}"""

#: Controls of the decision panel and tiles of the map whose centre something else covers (the Chat button
#: included), at the page's current scroll position.
COVERED = """() => [...document.querySelectorAll('#decision button, #decision select, #decision a,'
  + ' #decision input:not([type=hidden]), #board .tile, #board button')].filter(el => {
    const r = el.getBoundingClientRect();
    if (!r.width || r.bottom < 0 || r.top > window.innerHeight) return false;
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || x > window.innerWidth) return false;
    const top = document.elementFromPoint(x, y);
    return top && !el.contains(top) && !top.contains(el) && top.closest('#chat-toggle, .chat-toggle'); })
  .map(el => el.id || el.textContent.trim().slice(0, 30))"""


def _owned(game: Game) -> int:
    return sum(o >= 0 for o in state_of(game).owner)


def bot_table(seed: int = 1) -> tuple[Game, Any]:
    """A 3-player game of one person and two bots a few turns in (six territories or more held), waiting
    for the person; returns the game and the person."""
    game = create_started_game(humans=1, bots=2, seed=seed)
    users = seat_users(game)
    game = play_until(
        game,
        lambda g: _owned(g) >= 6 and any(p.seat in users for p in engine.pending(state_of(g))),
    )
    return game, next(iter(users.values()))


def crowded(players: int, seed: int) -> engine.GameState:
    """The busiest map a position can draw: every territory held (by the seats other than 0 in turn, 1 or 2
    knights, so every tile has a badge), many names repeated (each then carries a direction, "Battlefield
    NW"), and seat 0 attacking a Battlefield (capacity 4) next to its castle: the holder's badge, the
    attacker's badge and the capacity line on one tile."""
    s = F.edit(F.game(players, seed=seed))
    F.clear_map(s)
    castle = F.castle_pos(s, 0)
    target = min(n for n in F.neighbours(s, castle) if s.board.kinds[n] == "territory")
    for i, pos in enumerate(F.territories(s)):
        F.place(s, pos, 1 + i % (players - 1), 1 + i % 2)
        if i % 3 == 0:
            F.set_tile(s, pos, "battlefield")
    F.set_tile(s, target, "battlefield")
    F.place(s, target, 1, 2)
    s.players[0].castle = 5
    for seat in range(players):
        F.set_artefacts(s, seat, [])
        F.set_hand(s, seat, PLAIN)
    s.dice_queue = []
    s = F.act(s, 0, {"type": "advance", "to": f"t{target}", "knights": 4}).state
    assert s.battle is not None
    return s


def overlaps(page: Page) -> tuple[list[str], list[str], dict[str, float], int]:
    """The map's overlapping label pairs, its labels outside its SVG box, that box, and how many labels."""
    found = page.evaluate(LABEL_BOXES)
    labels, svg = found["labels"], found["svg"]
    pairs = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            dx = min(a["right"], b["right"]) - max(a["left"], b["left"])
            dy = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if dx > 0.5 and dy > 0.5:
                pairs.append(f"{a['tile']} {a['text']!r} / {b['tile']} {b['text']!r} ({dx:.1f}x{dy:.1f}px)")
    outside = [
        f"{a['tile']} {a['text']!r}"
        for a in labels
        if a["left"] < svg["left"] - 0.5
        or a["right"] > svg["right"] + 0.5
        or a["top"] < svg["top"] - 0.5
        or a["bottom"] > svg["bottom"] + 0.5
    ]
    return pairs, outside, svg, len(labels)


def box(page: Page, selector: str) -> dict[str, float]:
    """The bounding box (``x``, ``y``, ``width``, ``height`` in CSS px) of the first element matching
    ``selector``, which must be rendered."""
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not rendered"
    return {"x": found["x"], "y": found["y"], "width": found["width"], "height": found["height"]}


def test_on_a_phone_the_map_fits_under_the_decision_and_explains_a_tile_beside_it(web: Web) -> None:
    """390x844, one person against two bots: the page never scrolls sideways; the map starts right under the
    decision panel and fits the screen (its frame has nothing to pan, every castle whole on screen); the
    hint is outside what pans; a tapped tile's text opens beside the tile, inside the map's panel, and
    closes with a tap elsewhere; "Enlarge the map" makes only the map pan; the Chat button covers no control
    of the decision panel or the map at any scroll position; axe finds no serious violation."""
    game, person = bot_table()
    page = login_context(web, person, PHONE, has_touch=True).new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("#decision.mine")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    decision, board, svg = box(page, "#decision"), box(page, "#board"), box(page, "#board svg.map")
    gap = board["y"] - (decision["y"] + decision["height"])
    assert 0 <= gap <= 24, f"the map starts {gap}px below the decision"
    assert svg["x"] >= 0 and svg["x"] + svg["width"] <= PHONE["width"], svg
    assert page.evaluate("(f => f.scrollWidth - f.clientWidth)(document.getElementById('map-frame'))") <= 0
    castles = page.locator("#board .tile.kind-castle")
    assert castles.count() == 3
    for i in range(castles.count()):
        c = castles.nth(i).bounding_box()
        assert c is not None, f"castle {i} is not drawn"
        assert c["x"] >= 0 and c["x"] + c["width"] <= PHONE["width"], f"castle {i} cut off: {c}"
    assert page.locator("#map-frame .map-hint").count() == 0
    expect(page.locator(".map-hint")).to_be_visible()

    # a tile's text opens beside it (not under the map), inside the map's panel, and closes again
    tile = page.locator("#board .tile.kind-territory").nth(2)
    tile.tap()
    about = page.locator("#tile-about")
    expect(about).to_be_visible()
    expect(about).to_contain_text(tile.get_attribute("data-about-title") or "")
    t, a = box(page, "#board .tile.kind-territory >> nth=2"), box(page, "#tile-about")
    board, svg = box(page, "#board"), box(page, "#board svg.map")
    assert a["y"] < svg["y"] + svg["height"], "the tile's text opens below the map"
    beside = min(abs(a["y"] - (t["y"] + t["height"])), abs(a["y"] + a["height"] - t["y"])) <= t["height"] / 2
    across = a["y"] < t["y"] + t["height"] and a["y"] + a["height"] > t["y"]
    assert beside or across, f"the tile's text is not next to the tile: {a}, tile {t}"
    assert board["x"] <= a["x"] and a["x"] + a["width"] <= board["x"] + board["width"], (a, board)
    assert a["y"] >= board["y"], "the tile's text leaves the map's panel (over the decision)"
    shot(page, "map-phone", at="#board")  # before: docs/screenshots/before-issue-29-map-phone.png
    page.locator("#board .legend").tap()
    expect(about).to_be_hidden()

    # the Chat button covers nothing, wherever the page is scrolled
    expect(page.locator("#chat-toggle")).to_be_visible()
    height = page.evaluate("document.documentElement.scrollHeight")
    for y in range(0, height, 300):
        page.evaluate(f"window.scrollTo(0, {y})")
        assert page.evaluate(COVERED) == [], f"the Chat button covers controls at scroll {y}"

    # enlarged, the map pans inside its frame; the hint and the legend stay put
    page.evaluate("window.scrollTo(0, 0)")
    zoom = page.get_by_role("button", name="Enlarge the map")
    expect(zoom).to_have_attribute("aria-pressed", "false")
    zoom.tap()
    expect(zoom).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("(f => f.scrollWidth - f.clientWidth)(document.getElementById('map-frame'))") > 0
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    hint = box(page, ".map-hint")
    page.evaluate("document.getElementById('map-frame').scrollLeft += 120")
    assert box(page, ".map-hint")["x"] == hint["x"]
    smallest = page.evaluate(
        "Math.min(...[...document.querySelectorAll('#board .t-name, #board .t-cap, #board .badge-text')]"
        ".map(e => e.getBoundingClientRect().height))"
    )
    assert smallest >= 12, f"an enlarged map label is {smallest}px high"
    zoom.tap()
    expect(zoom).to_have_attribute("aria-pressed", "false")
    serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
    assert not serious, describe(serious)
    web.assert_clean()


@pytest.mark.parametrize("width", [360, 390, 768, 1280])
def test_no_two_map_labels_overlap_and_none_leaves_the_map(web: Web, width: int) -> None:
    """At 360, 390, 768 and 1280 px wide, on crowded maps of 2, 3, 5 and 6 players (names repeated with
    directions, a battle on a Battlefield: both badges and the capacity line) and on a game against bots:
    no two label boxes of the map intersect, and every label lies inside the map's SVG box, which lies
    inside the screen's width."""
    viewport = {"width": width, "height": 900}
    games = [game_from_state(crowded(players, seed)) for players, seed in ((2, 1), (3, 5), (5, 1), (6, 6))]
    games.append(bot_table(seed=5)[0])
    for game in games:
        user = next(iter(seat_users(game).values()))
        page = login_context(web, user, viewport).new_page()
        page.goto(f"/games/{game.pk}/")
        expect(page.locator("#board svg.map")).to_be_visible()
        pairs, outside, svg, count = overlaps(page)
        players = state_of(game).num_players
        assert count > 20
        assert not pairs, f"{players} players, {width}px: labels overlap:\n" + "\n".join(pairs)
        assert not outside, f"{players} players, {width}px: labels leave the map: {outside}"
        assert svg["left"] >= 0 and svg["right"] <= width + 0.5, svg
        page.context.close()
    web.assert_clean()


#: Does a pattern have a mark across its whole tile (a stripe: the no-supply hatch is made of them)? Its
#: background (a rect filling the tile) does not count.
STRIPED = """id => {
  const p = document.getElementById(id);
  const w = +p.getAttribute('width'), h = +p.getAttribute('height');
  return [...p.children].some(el => { const b = el.getBBox();
    const full = b.width >= w * .95 && b.height >= h * .95;
    return !full && (b.width >= w * .95 || b.height >= h * .95); }); }"""


def test_owners_patterns_are_never_the_no_supply_stripes(web: Web) -> None:
    """In the legend under the map each player's swatch is that player's map pattern and the "no line of
    supply" swatch is the hatch: all different patterns; the hatch is made of stripes across its tile and no
    player's pattern is; the map key's "hatched" swatch is that same hatch, and unsupplied tiles wear it.
    axe finds no serious violation on that crowded page (a battle on the map)."""
    game = game_from_state(crowded(6, 1))
    user = next(iter(seat_users(game).values()))
    page = login_context(web, user, DESKTOP).new_page()
    page.goto(f"/games/{game.pk}/")
    legend = page.locator("#board ul.legend")
    fills = legend.locator("svg.pattern-swatch rect[fill^='url(']").evaluate_all(
        "rects => rects.map(r => r.getAttribute('fill').slice(5, -1))"
    )
    seat_ids = [f"pat-s{seat}" for seat in range(6)]
    assert fills == [*seat_ids, "hatch"], fills
    uncoloured = "p => p.innerHTML.replace(/#[0-9a-fA-F]{3,8}/g, '')"
    definitions = [page.locator(f"pattern#{i}").evaluate(uncoloured) for i in fills]
    assert len(set(definitions)) == len(fills), "two swatches of the legend share a pattern"
    assert page.evaluate(STRIPED, "hatch"), "the no-supply hatch is no longer striped"
    striped = [i for i in seat_ids if page.evaluate(STRIPED, i)]
    assert not striped, f"owners' patterns drawn as stripes, like the no-supply hatch: {striped}"
    page.locator(".map-key summary").click()
    key = page.locator(".map-key svg.hatch-swatch rect[fill^='url(']")
    expect(key).to_have_attribute("fill", "url(#hatch)")
    for hatch in page.locator("#board .tile.unsupplied polygon.hatch").all():
        expect(hatch).to_have_attribute("fill", "url(#hatch)")
    serious = [v for v in axe_violations(page) if v["impact"] in SERIOUS]
    assert not serious, describe(serious)
    web.assert_clean()


def test_on_a_desktop_the_hover_text_follows_the_pointer_and_a_rule_opens_in_a_popover(web: Web) -> None:
    """1280 px: hovering a tile shows its text next to the pointer; moving off the map hides it. The "?"
    beside an artefact opens the artefact's rule in a popover next to it, by a click and by the keyboard
    (Enter), closes with Escape, and the page never changes."""
    game, person = bot_table()
    page = login_context(web, person, DESKTOP).new_page()
    page.goto(f"/games/{game.pk}/")
    about = page.locator("#tile-about")
    for n in (1, 4):
        tile = page.locator("#board .tile.kind-territory").nth(n).bounding_box()
        assert tile is not None
        x, y = tile["x"] + tile["width"] * 0.3, tile["y"] + tile["height"] * 0.6
        page.mouse.move(x, y)
        expect(about).to_be_visible()
        a = box(page, "#tile-about")
        assert abs(a["x"] - x) <= 40 or abs(a["x"] + a["width"] - x) <= 40, (a, x)
        assert abs(a["y"] - y) <= 40 or abs(a["y"] + a["height"] - y) <= 40, (a, y)
    page.mouse.move(5, 5)
    expect(about).to_be_hidden()

    url = page.url
    question = page.locator("#players .artefact .rule-q").first
    name = (question.get_attribute("aria-label") or "").removesuffix(" in the rules")
    target = question.get_attribute("popovertarget")
    popover = page.locator(f"#{target}")
    expect(popover).to_be_hidden()
    question.click()
    expect(popover).to_be_visible()
    expect(popover).to_contain_text(name)
    expect(popover.get_by_role("link", name="Every artefact in the rules")).to_be_visible()
    q, p = box(page, f"[popovertarget='{target}'].rule-q"), box(page, f"#{target}")
    assert min(abs(p["y"] - (q["y"] + q["height"])), abs(p["y"] + p["height"] - q["y"])) <= 12, (p, q)
    shot(page, "artefact-rule-desktop", at="#players")
    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()
    question.focus()
    page.keyboard.press("Enter")
    expect(popover).to_be_visible()
    assert page.evaluate("id => document.getElementById(id).matches(':popover-open')", target)
    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()
    assert page.url == url
    web.assert_clean()


def test_a_label_too_wide_for_its_tile_is_squeezed_to_the_tile_without_javascript() -> None:
    """The server's estimate (used when game.js does not run): short names are drawn as they are; names
    wider than a tile allows ("Battlefield NW", long Korean names) get the tile's width as ``textLength``."""
    assert label_fit("Fort") is None
    assert label_fit("Homelands") is None
    assert label_fit("Battlefield NW") == LABEL_WIDTH
    assert label_fit("Grasslands NE1") == LABEL_WIDTH
    assert label_fit("산악 지대 북서쪽") == LABEL_WIDTH
