"""Playing in the browser (issue 3, "Browser tests with Playwright"): two people sign up, open and join a
2-player table and fight a battle with a Fracture window; one person plays a whole game against a bot to the
result; an illegal move is refused inline and changes nothing. Everything goes through the pages (forms,
buttons, links); the screenshots under ``docs/screenshots/`` are taken on the way.

Run alone with ``.venv/bin/python -m pytest tests/browser -q`` (``-m browser`` selects them in a larger
run). Docstrings here cite no rule numbers on purpose: the rules-coverage table counts engine tests only.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.core import mail

from games.models import ActionRecord, Game
from tests.web.conftest import create_started_game, create_user, pass_masked

from .conftest import (
    PASSWORD,
    PHONE,
    Move,
    Player,
    Web,
    confirm_email,
    confirmation_link,
    log_in,
    shot,
    sign_up,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Seconds to wait for a page to show the next decision (by its own polling) before reloading it.
HANDOVER_SECONDS = 10


def expect(locator: Any) -> Any:
    """Playwright's ``expect`` (imported late: the module must import without playwright installed)."""
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def _masked_passes() -> int:
    """Apply every server pass still waiting for its masking delay (issue 14), as the sweep would once the
    delay is over; returns how many were applied."""
    return sum(pass_masked(game) for game in Game.objects.filter(status=Game.Status.ACTIVE))


def next_to_decide(players: list[Player]) -> tuple[Player | None, int]:
    """Wait until one of the pages offers a decision (``None``: the game is over).

    The pages refresh themselves by polling; one that does not show the decision within
    :data:`HANDOVER_SECONDS` is reloaded.

    Returns:
        The player to decide (or ``None``) and the number of reloads needed.
    """
    reloads = 0
    deadline = time.monotonic() + HANDOVER_SECONDS
    while True:
        actor = next((p for p in players if p.has_decision()), None)
        if actor is not None:
            return actor, reloads
        if any(p.finished() for p in players):
            return None, reloads
        if _masked_passes():  # the game waited for the server's masked passes: let their delays run out
            deadline = time.monotonic() + HANDOVER_SECONDS
            continue
        if time.monotonic() > deadline:
            assert reloads < 3, "no page offers a decision: " + players[0].decision.inner_text()
            for p in players:
                p.page.reload()
            reloads += 1
            deadline = time.monotonic() + HANDOVER_SECONDS
        else:
            players[0].page.wait_for_timeout(100)


def play(
    players: list[Player],
    done: Callable[[Player], bool],
    *,
    limit: int,
    before: Callable[[Player, list[str]], None] | None = None,
    use_map: bool = False,
) -> tuple[list[Move], int]:
    """Let the players take the decisions their pages offer until ``done(player_who_just_moved)``.

    Pages are not reloaded to see the next decision (see :func:`next_to_decide`) unless their polling
    failed; such reloads are counted.

    Returns:
        The moves made and the number of reloads needed.

    Raises:
        AssertionError: ``limit`` decisions without ``done``, or no page offered a decision at all.
    """
    moves: list[Move] = []
    reloads = 0
    for _ in range(limit):
        actor, reloaded = next_to_decide(players)
        reloads += reloaded
        if actor is None:
            return moves, reloads
        moves.append(actor.act(before=before, use_map=use_map))
        if done(actor):
            return moves, reloads
    recent = "\n".join(str(m) for m in moves[-15:])
    raise AssertionError(f"not reached within {limit} decisions; the last ones:\n{recent}")


def open_table(page: Any, title: str) -> int:
    """Create a public 2-player game through the "New game" form; returns its id (on its lobby page)."""
    page.get_by_role("navigation").get_by_role("link", name="New game").click()
    expect(page.get_by_role("heading", name="New game", level=1)).to_be_visible()
    page.get_by_label("Title", exact=True).fill(title)
    page.get_by_label("Players", exact=True).select_option("2")
    secret = (
        "secret — nobody learns who holds Fracture: for a player without one the server passes after a short"
    )
    expect(page.get_by_label(secret + " random delay")).to_be_checked()
    page.get_by_role("button", name="Open the table").click()
    expect(page.get_by_role("heading", name=title, level=1)).to_be_visible()
    expect(page.get_by_text("An open table for 2 players.")).to_be_visible()
    return int(page.url.rstrip("/").rsplit("/", 1)[-1])


def test_two_users_sign_up_play_a_battle_with_a_response_window(
    web: Web, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anna and Bob sign up (with email verification), log in, open and join a table, start it, and play
    through the pages — each in their own browser, each page refreshed by its own polling — until a battle
    has been fought to its end and a Fracture window was answered with Pass. Only a player holding Fracture
    is asked in a window (issue 14), so the start's seed is fixed to one whose game reaches such a window
    (the lobby draws it with ``secrets.randbits``; the live server runs in this process)."""
    monkeypatch.setattr(secrets, "randbits", lambda _bits: 1)
    settings.GAME_POLL_SECONDS = 1
    people = {"Anna": "anna@example.com", "Bob": "bob@example.com"}
    pages = {name: web.page() for name in people}
    for name, email in people.items():
        sign_up(pages[name], email, name)
    for name, email in people.items():
        confirm_email(pages[name], confirmation_link(mail.outbox, email))
        # confirming the address just signed up with logs in (issue 16): no second login
        pages[name].goto("/games/")
        expect(pages[name].get_by_text("No games yet — create one or join an open table.")).to_be_visible()

    anna, bob = pages["Anna"], pages["Bob"]
    game_id = open_table(anna, "Anna's table")

    bob.goto("/games/")
    tables = bob.get_by_role("region", name="Open tables")
    expect(tables.get_by_text("1 of 2 seats taken")).to_be_visible()
    tables.get_by_role("link", name="Anna's table").click()
    bob.get_by_role("button", name="Join this table").click()
    expect(bob.get_by_text("You joined the table.")).to_be_visible()

    # the table was opened with "Start by itself when every seat is taken" (the form's default, issue 16):
    # Bob's join took the last seat and started the game
    anna.reload()
    expect(anna.locator("#game-header")).to_have_attribute("data-game", str(game_id))

    bob.goto("/games/")
    bob.get_by_role("link", name="Anna's table").click()
    expect(bob.locator("#game-header")).to_contain_text("You play")

    players = [Player("Anna", anna), Player("Bob", bob)]
    shots: set[str] = set()
    seen = {"window": False, "won": False, "passed": False}

    def before(player: Player, types: list[str]) -> None:
        if "respond" in types and "response-window" not in shots:
            expect(player.decision).to_contain_text("Fracture window is open")
            shot(player.page, "response-window")
            shots.add("response-window")
        if player.in_battle() and "battle-support" not in shots:
            shot(player.page, "battle")  # the first battle decision, replaced by a support turn if one comes
            shots.add("battle")
            if "pass_support" in types:
                shots.add("battle-support")

    def done(player: Player) -> bool:
        log = player.log_text()
        seen["window"] = seen["window"] or "Fracture window" in log
        seen["won"] = seen["won"] or "wins the battle" in log
        seen["passed"] = seen["passed"] or any(m.kind == "respond" for p in players for m in p.moves)
        return all(seen.values()) and not player.in_battle()

    moves, reloads = play(players, done, limit=200, before=before, use_map=True)

    assert all(seen.values()), seen
    assert {"battle", "response-window"} <= shots
    assert reloads == 0, "a page missed the game moving on: its polling did not refresh it"
    assert any(m.kind == "advance" and "⚔" in m.detail for m in moves), "no advance into a rival's territory"
    for player in players:
        player.page.reload()
        expect(player.page.locator("#log")).to_contain_text("wins the battle")
        expect(player.page.locator("#status")).not_to_contain_text("Battle for")
    game = Game.objects.get(pk=game_id)
    assert game.seq == ActionRecord.objects.filter(game=game).count()

    waiting, _reloads = next_to_decide(players)
    assert waiting is not None
    open_table(anna, "Anna's second table")
    waiting.page.goto("/games/")
    expect(waiting.page.get_by_role("region", name="Waiting for you")).to_contain_text("Anna's table")
    expect(waiting.page.get_by_role("region", name="Open tables")).to_contain_text("Anna's second table")
    shot(waiting.page, "my-games")
    web.assert_clean()


def test_a_complete_game_to_victory_through_the_pages(web: Web) -> None:
    """One person opens a 2-player table, fills the other seat with a bot, starts, and plays every decision
    through the page until the result panel names the winner."""
    create_user("clara@example.com", display_name="Clara", password=PASSWORD)
    context = web.context()
    page = context.new_page()
    log_in(page, "clara@example.com")
    game_id = open_table(page, "Clara against the bot")
    page.get_by_role("button", name="Fill empty seats with bots").click()
    expect(page.get_by_text("Bots took the empty seats.")).to_be_visible()
    # the full table started by itself (the new-game form's default, issue 16)
    expect(page.locator("#game-header")).to_have_attribute("data-game", str(game_id))

    clara = Player("Clara", page)
    taken: set[str] = set()

    def before(player: Player, types: list[str]) -> None:
        # Mid-game: the first support turn of a battle (both combat scores on show); until one comes, the
        # position after a few decisions stands in.
        support = player.in_battle() and "pass_support" in types
        if "battle" in taken or not (support or ("early" not in taken and len(player.moves) >= 5)):
            return
        taken.add("battle" if support else "early")
        player.page.reload()  # drops the one-time "The game has started." message
        shot(player.page, "game-page")
        phone = web.page(viewport=PHONE, storage_state=context.storage_state())
        phone.goto(f"/games/{game_id}/")
        expect(phone.locator("#decision")).to_be_visible()
        width = phone.evaluate("document.documentElement.scrollWidth")
        wide = phone.evaluate(
            "() => [...document.querySelectorAll('main *')].filter(e => !e.closest('#board')"
            " && e.getBoundingClientRect().right > window.innerWidth + 1)"
            ".map(e => e.tagName + '#' + e.id + '.' + e.className)"
        )
        assert width <= PHONE["width"], f"the phone page scrolls sideways ({width}px wide): {wide[:8]}"
        shot(phone, "game-page-phone")
        phone.context.close()

    moves, _reloads = play([clara], lambda p: p.finished(), limit=600, before=before)

    result = page.locator("#result")
    expect(result.get_by_role("heading", name="Game over")).to_be_visible()
    expect(result).to_contain_text("Winner")
    expect(result.locator("table.standings tbody tr")).to_have_count(2)
    expect(page.locator("#decision")).to_contain_text("The game is over.")
    assert taken, f"the game ended after {len(moves)} decisions, before a mid-game screenshot"
    page.reload()
    expect(result).to_contain_text("Winner")
    shot(page, "result")

    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED and game.winners
    page.goto("/games/")
    expect(page.get_by_role("region", name="Finished").get_by_role("link")).to_have_text(
        "Clara against the bot"
    )
    web.assert_clean()


def test_illegal_move_shows_the_reason_and_changes_nothing(web: Web) -> None:
    """An advance with more knights than the castle holds: the browser's own check stops it first; with that
    check removed (as in a browser without form validation) the server refuses it, the decision panel
    shows the rule that stopped it, and the position (seq, log) is unchanged; a legal advance then works."""
    user = create_user("dora@example.com", display_name="Dora", password=PASSWORD)
    game = create_started_game(humans=[user], bots=1, seed=2, title="Dora's game")
    page = web.page()
    log_in(page, "dora@example.com")
    page.goto(f"/games/{game.pk}/")
    dora = Player("Dora", page)
    form = dora.decision.get_by_role("group", name="Advance from your castle")
    for _ in range(20):  # answer whatever comes first (the bot may open with a crown) until Dora may advance
        if "advance" in dora.form_types():
            break
        if not dora.form_types():  # a window she has nothing to decide in: the server's masked pass
            assert _masked_passes() >= 1
            page.reload()
            continue
        dora.act()
    expect(form).to_be_visible()

    castle = int(
        page.locator("li.player.me dl.stats div").filter(has_text="Castle knights").locator("dd").inner_text()
    )
    target = form.get_by_label("Advance into")
    expect(target).to_have_value("")  # the form starts empty (issue 16): the player picks the target
    target.select_option(index=1)
    game.refresh_from_db()
    seq, records = game.seq, ActionRecord.objects.filter(game=game).count()
    assert dora.seq() == seq
    newest_log = page.locator("#log li").first.get_attribute("data-seq")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    knights = form.get_by_label("Knights")
    knights.fill(str(castle + 1))
    assert knights.evaluate("el => el.validity.rangeOverflow"), "the number field accepts too many knights"
    dora.decision.get_by_role("button", name="Advance", exact=True).click()
    page.wait_for_timeout(300)
    assert posts == [], "the browser sent a form its own check should have stopped"

    knights.evaluate("el => el.removeAttribute('max')")
    knights.fill(str(castle + 1))
    dora.decision.get_by_role("button", name="Advance", exact=True).click()
    alert = dora.decision.get_by_role("alert")
    expect(alert).to_contain_text("You do not have that many knights there.")
    expect(alert).to_contain_text("R55")
    assert len(posts) == 1
    assert dora.seq() == seq
    assert page.locator("#log li").first.get_attribute("data-seq") == newest_log
    game.refresh_from_db()
    assert (game.seq, ActionRecord.objects.filter(game=game).count()) == (seq, records)

    form.get_by_label("Advance into").select_option(index=1)  # the refreshed form starts empty again
    form.get_by_label("Knights").fill("1")
    dora.submit(dora.decision.get_by_role("button", name="Advance", exact=True), "advance", "1 knight")
    assert dora.seq() > seq
    expect(dora.decision.get_by_role("alert")).to_have_count(0)
    web.assert_clean()
