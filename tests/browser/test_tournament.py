"""Issue 34 in a real browser: "A Playwright test signs up, plays a round, and sees the standings."

A signed-in player finds an event open for sign-up through the "Events" link, signs up with the button
(withdraws and signs up again), and once the clock starts the event (the sweep, driven here with its
``now``) finds their table of round 1 on the event page and plays on the game page: a Fracture window,
then the advance of their first turn (the rival's moves are played server-side). The rest of that game
and the round's other table are ended server-side, the way the tournaments' web tests end games; the
player then comes back to the event through their profile's "Your events" and reads the standings (their
row, place and points, the tie broken by VP), each table's finishing order, and downloads the CSV. On a
desktop and on a 390 px phone; screenshots ``tournament-*.png`` with ``MASTERY_SCREENSHOTS=1``.
"""

from __future__ import annotations

import csv
import io
import secrets
from typing import Any

import pytest
from playwright.sync_api import expect

from games import engine
from games.models import Game, Seat
from tests.tournaments_web.helpers import end_game, make_event, round_games
from tests.tournaments_web.helpers import sign_up as sign_up_players
from tests.web.conftest import create_user, play_human_move, seat_users, state_of
from tournaments import services
from tournaments.models import Event

from .conftest import DESKTOP, PHONE, Player, Web, login_context, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def fits(page: Any) -> bool:
    """No sideways scrolling: the page is no wider than the screen."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"))


def awaits(game: Game, seat: int) -> bool:
    """Does ``game`` wait for a decision of ``seat`` that the page asks for (not one the server takes,
    like a masked pass)?"""
    return any(p.seat == seat and not p.auto for p in engine.pending(state_of(game)))


def until_asked(game: Game, seat: int, *, limit: int = 500) -> Game:
    """Play the other seats' moves (and the server's masked passes) server-side until ``game`` asks
    ``seat`` for a decision; returns the game."""
    users = seat_users(game)
    for _ in range(limit):
        if game.status != Game.Status.ACTIVE or awaits(game, seat):
            return game
        game = play_human_move(game, users)
    raise AssertionError(f"seat {seat} was not asked within {limit} moves")


def _shot_advance(player: Player, types: list[str], name: str) -> None:
    """Screenshot the game page when its decision panel offers the advance."""
    if "advance" in types:
        shot(player.page, name)


@pytest.mark.parametrize(("name", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_sign_up_play_a_round_and_see_the_standings(
    web: Web, monkeypatch: pytest.MonkeyPatch, name: str, viewport: dict[str, int]
) -> None:
    monkeypatch.setattr(secrets, "randbits", lambda _bits: 1)  # the games' seeds (drawn at their start)
    event = make_event(
        create_user(display_name="Organiser"),
        name=f"Harvest Cup {name}",
        table_size=2,
        rounds=1,
        points_by_rank={"1": 3, "2": 0},
    )
    rivals = sign_up_players(event, 3)
    ada = create_user(f"ada-{name}@example.com", display_name=f"Ada {name}")
    page = login_context(web, ada, viewport, has_touch=name == "phone").new_page()

    # 1. The events list, the event, the sign-up button (and a withdrawal, and a second sign-up).
    page.goto("/games/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Events").click()
    expect(page.get_by_role("heading", name="Events", level=1)).to_be_visible()
    listed = page.get_by_role("region", name="Open for sign-up")
    expect(listed.get_by_role("row", name=event.name)).to_contain_text("Swiss")
    listed.get_by_role("link", name=event.name).click()
    expect(page.get_by_role("heading", name=event.name, level=1)).to_be_visible()
    expect(page.locator(".lead")).to_contain_text("Sign-up")
    expect(page.get_by_text("Place 1: 3 points")).to_be_visible()
    entries = page.get_by_role("region", name="3 entries")
    entries.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("status")).to_contain_text("You are signed up.")
    entries = page.get_by_role("region", name="4 entries")
    expect(entries.locator("ul.entries")).to_contain_text(ada.name)
    expect(entries.get_by_role("button", name="Sign up")).to_have_count(0)
    entries.get_by_role("button", name="Withdraw").click()
    expect(page.get_by_role("status")).to_contain_text("You have withdrawn from this event.")
    expect(entries.locator("ul.entries")).to_contain_text(f"{ada.name} (withdrawn)")
    entries.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("status")).to_contain_text("You are signed up.")
    expect(entries.locator("ul.entries li", has_text=ada.name)).not_to_contain_text("withdrawn")
    expect(entries.get_by_role("button", name="Withdraw")).to_be_visible()
    assert fits(page)
    shot(page, f"tournament-signed-up-{name}", at="#entries")

    # 2. The clock starts the event: round 1 is seated (two tables of two); the player finds their table.
    assert services.events_sweep(now=event.starts_at) >= 1
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    games = round_games(event, 1)
    assert len(games) == 2
    mine = next(g for g in games if ada.pk in {u.pk for u in seat_users(g).values()})
    other = next(g for g in games if g.pk != mine.pk)
    page.reload()
    expect(page.locator(".lead")).to_contain_text("Running")
    rounds = page.get_by_role("region", name="Rounds")
    expect(rounds.get_by_role("heading", name="Round 1")).to_contain_text("due")
    table = rounds.locator("ul.tables li", has_text=ada.name)
    expect(table).to_contain_text("In progress")
    expect(entries.get_by_role("button")).to_have_count(0)  # no sign-up or withdrawal once it runs
    shot(page, f"tournament-round-{name}", at="#rounds")
    table.get_by_role("link").click()
    expect(page.locator("#game-header")).to_have_attribute("data-game", str(mine.pk))
    expect(page.locator("#game-header")).to_contain_text("You play")

    # 3. The round: the player takes their decisions on the page (a Fracture window first, with this seed)
    #    until they have made the advance of their first turn (the rival's moves in between are played
    #    server-side), then the rest of the game and the other table end server-side.
    seat = next(n for n, u in seat_users(mine).items() if u.pk == ada.pk)
    rival = next(u for u in seat_users(mine).values() if u.pk != ada.pk)
    player = Player(ada.name, page)
    while not any(m.kind in ("advance", "end_turn") for m in player.moves):
        assert len(player.moves) < 40, [str(m) for m in player.moves]
        mine = until_asked(mine, seat)
        assert mine.status == Game.Status.ACTIVE
        page.reload()
        expect(page.locator("#decision.mine")).to_be_visible()
        seq = player.seq()
        move = player.act(before=lambda p, types: _shot_advance(p, types, f"tournament-game-{name}"))
        assert "stale" not in move.kind, move
        mine.refresh_from_db()
        assert mine.seq > seq and player.seq() == mine.seq
        assert mine.actions.filter(seat=seat, seq__gt=seq).exists()  # the page's move, stored
    assert player.moves[-1].kind == "advance", [str(m) for m in player.moves]
    expect(page.locator("#log")).to_contain_text(f"{ada.name} advances")
    end_game(mine, [ada, rival])  # Ada wins her table: 3 points, 10 VP
    winner, loser = seat_users(other).values()
    end_game(other, [winner, loser])
    Seat.objects.filter(game=other, user=winner).update(final_vp=7)  # fewer VP: second on the tie-break

    # 4. Back to the event through the profile's "Your events": standings, the round's result, the CSV.
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Profile").click()
    yours = page.get_by_role("region", name="Your events")
    expect(yours).to_contain_text(f"{event.name} — Running")
    yours.get_by_role("link", name=event.name).click()
    expect(page.get_by_role("heading", name=event.name, level=1)).to_be_visible()
    standings = page.get_by_role("region", name="Standings")
    rows = standings.locator("tbody tr")
    expect(rows).to_have_count(4)
    # place, player, points, opponents' points, VP, games, byes
    expect(rows.nth(0).locator("td")).to_have_text(["1", ada.name, "3", "0", "10", "1", "0"])
    expect(rows.nth(1).locator("td")).to_have_text(["2", winner.name, "3", "0", "7", "1", "0"])
    expect(rows.filter(has_text=rival.name).locator("td").nth(2)).to_have_text("0")
    rounds = page.get_by_role("region", name="Rounds")
    expect(rounds.get_by_role("heading", name="Round 1")).to_contain_text("finished")
    # each table's result, in finishing order
    expect(rounds.locator("ul.tables li")).to_have_count(2)
    expect(rounds.locator("ul.tables li", has_text=ada.name)).to_contain_text(
        f"1. {ada.name}, 2. {rival.name} (Finished)"
    )
    expect(rounds.locator("ul.tables li", has_text=winner.name)).to_contain_text(
        f"1. {winner.name}, 2. {loser.name} (Finished)"
    )
    assert fits(page)
    shot(page, f"tournament-standings-{name}", at="#standings")

    link = standings.get_by_role("link", name="Download the standings (CSV)")
    answer = page.request.get(link.get_attribute("href") or "")
    assert answer.ok and answer.headers["content-type"].startswith("text/csv")
    table_rows = list(csv.reader(io.StringIO(answer.text())))
    assert table_rows[0][:3] == ["place", "player", "points"]
    assert table_rows[1][:3] == ["1", ada.name, "3"]
    assert {r[1] for r in table_rows[1:]} == {ada.name, *(u.name for u in rivals)}

    # The sweep closes the one-round event; the list shows it among the finished ones.
    services.events_sweep(now=event.starts_at)
    page.reload()
    expect(page.locator(".lead")).to_contain_text("Finished")
    expect(page.get_by_role("region", name="Standings").locator("tbody tr").first).to_contain_text(ada.name)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Events").click()
    expect(page.get_by_role("region", name="Finished").get_by_role("link", name=event.name)).to_be_visible()
    web.assert_clean()
