"""Issue 34 in a real browser, an Allegiance event: pairs at tables of 4 (R105–R111).

A signed-in player opens an Allegiance event open for sign-up, starts a team under "Start a new team"; a
second player chooses that team in the "Join a team" radio list and joins it (the team is then full and
no longer offered); the rival team's two players sign up through the services. The clock starts the event
(the sweep, driven with its ``now``): each of the four players finds their table and their team on the
event page, and on the game page the "Your team" line names their teammate. The game is ended
server-side (the way the tournaments' web tests end games, the first team winning), and the standings
show the teams with their members, the table the teams in team-place order, and the CSV the team columns.
On a desktop and on a 390 px phone; screenshots ``tournament-team-*.png`` with ``MASTERY_SCREENSHOTS=1``.
"""

from __future__ import annotations

import csv
import io
import secrets

import pytest
from playwright.sync_api import expect

from tests.tournaments_web.helpers import make_event, round_games
from tests.tournaments_web.test_teams import end_team_won, sign_up_team
from tests.web.conftest import create_user, seat_users
from tournaments import services
from tournaments.models import Entry, Event, Team

from .conftest import DESKTOP, PHONE, Web, login_context, shot
from .test_tournament import fits

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(("name", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_start_and_join_a_team_play_and_see_the_team_standings(
    web: Web, monkeypatch: pytest.MonkeyPatch, name: str, viewport: dict[str, int]
) -> None:
    monkeypatch.setattr(secrets, "randbits", lambda _bits: 1)  # the games' seeds (drawn at their start)
    event = make_event(
        create_user(display_name="Organiser"),
        name=f"Allegiance Cup {name}",
        table_size=4,
        rounds=1,
        options={"allegiance": "pairs"},
        points_by_rank={"1": 1, "2": 0},
    )
    phone = name == "phone"
    ada = create_user(f"ada-{name}@example.com", display_name=f"Ada {name}")
    ben = create_user(f"ben-{name}@example.com", display_name=f"Ben {name}")
    ada_page = login_context(web, ada, viewport, has_touch=phone).new_page()
    ben_page = login_context(web, ben, viewport, has_touch=phone).new_page()
    lions = f"Lions {name}"

    # 1. Ada starts a team from the event page.
    ada_page.goto("/games/")
    ada_page.get_by_role("navigation", name="Main").get_by_role("link", name="Events").click()
    ada_page.get_by_role("region", name="Open for sign-up").get_by_role("link", name=event.name).click()
    expect(ada_page.get_by_role("heading", name=event.name, level=1)).to_be_visible()
    expect(ada_page.locator("#entries")).to_contain_text("No team yet: start one.")
    expect(ada_page.locator("#join-team")).to_have_count(0)  # no team to join yet
    new_team = ada_page.locator("#new-team")
    new_team.get_by_label("Team name").fill(lions)
    new_team.get_by_role("button", name="Start the team and sign up").click()
    expect(ada_page.get_by_role("status")).to_contain_text("You are signed up.")
    teams = ada_page.get_by_role("region", name="1 team")
    expect(teams.locator("ul.teams li")).to_have_count(1)
    expect(teams.locator("ul.teams li")).to_contain_text(f"{lions} (your team): {ada.name}")
    expect(teams.locator("ul.teams li")).to_contain_text("room for 1 more player")
    lions_team = Team.objects.get(event=event, name=lions)

    # 2. Ben joins it, choosing it in the radio list.
    event_url = ada_page.url
    ben_page.goto(event_url)
    join = ben_page.locator("#join-team")
    choice = join.get_by_role("radio", name=f"{lions} ({ada.name})")
    expect(choice).not_to_be_checked()  # nothing chosen for him
    choice.check()
    join.get_by_role("button", name="Join this team").click()
    expect(ben_page.get_by_role("status")).to_contain_text("You are signed up.")
    mine = ben_page.get_by_role("region", name="1 team").locator(f"#team-{lions_team.pk}")
    expect(mine).to_contain_text(f"{lions} (your team): {ada.name}, {ben.name}")
    expect(mine).to_contain_text("full")
    assert Entry.objects.get(event=event, user=ben).team_id == lions_team.pk
    expect(ben_page.locator("#join-team")).to_have_count(0)
    expect(ben_page.locator("#new-team")).to_have_count(0)
    assert fits(ben_page)

    # 3. The rival team signs up through the services; a newcomer would be offered no full team.
    cleo, dan = sign_up_team(event, f"Wolves {name}", 2)
    wolves = Team.objects.get(event=event, name=f"Wolves {name}")
    ada_page.reload()
    teams = ada_page.get_by_role("region", name="2 teams")
    expect(teams.locator("ul.teams li")).to_have_count(2)
    expect(teams.locator(f"#team-{wolves.pk}")).to_contain_text(f"Wolves {name}: {cleo.name}, {dan.name}")
    expect(teams.locator(f"#team-{wolves.pk}")).not_to_contain_text("your team")
    shot(ada_page, f"tournament-team-signed-up-{name}", at="#entries")

    # 4. The clock starts the event: one table of 4, teammates on the engine's teammate seats.
    assert services.events_sweep(now=event.starts_at) >= 1
    event.refresh_from_db()
    assert event.status == Event.Status.RUNNING
    (game,) = round_games(event, 1)
    assert {u.pk for u in seat_users(game).values()} == {ada.pk, ben.pk, cleo.pk, dan.pk}
    pages = {ada.pk: ada_page, ben.pk: ben_page}
    for user in (cleo, dan):
        pages[user.pk] = login_context(web, user, viewport, has_touch=phone).new_page()
    mates = {ada.pk: ben, ben.pk: ada, cleo.pk: dan, dan.pk: cleo}
    team_of = {ada.pk: lions, ben.pk: lions, cleo.pk: f"Wolves {name}", dan.pk: f"Wolves {name}"}
    for user in (ada, ben, cleo, dan):
        page = pages[user.pk]
        page.goto(event_url)
        expect(page.locator(".lead")).to_contain_text("Running")
        rounds = page.get_by_role("region", name="Rounds")
        table = rounds.locator("ul.tables li")
        expect(table).to_have_count(1)
        expect(table).to_contain_text(f"{team_of[user.pk]} (")
        expect(table).to_contain_text(f"{lions} ({ada.name}, {ben.name})")
        expect(table).to_contain_text(f"Wolves {name} ({cleo.name}, {dan.name})")
        expect(table).to_contain_text("In progress")
        expect(page.locator("ul.teams li", has_text=user.name)).to_contain_text(
            f"{team_of[user.pk]} (your team)"
        )
        table.get_by_role("link").click()
        expect(page.locator("#game-header")).to_have_attribute("data-game", str(game.pk))
        expect(page.locator("#game-header")).to_contain_text("You play")
        expect(page.locator(".team-line")).to_contain_text(f"with {mates[user.pk].name}")
    shot(ada_page, f"tournament-team-game-{name}")

    # 5. The game ends server-side, won by the Lions (both share first place, R109).
    end_team_won(game, lions_team)

    # 6. The standings: the teams with their members, the table's result, the CSV.
    ada_page.get_by_role("navigation", name="Main").get_by_role("link", name="Profile").click()
    yours = ada_page.get_by_role("region", name="Your events")
    expect(yours).to_contain_text(f"{event.name} — Running — Team: {lions}")
    yours.get_by_role("link", name=event.name).click()
    standings = ada_page.get_by_role("region", name="Standings")
    expect(standings.locator("thead th").nth(1)).to_have_text("Team")
    rows = standings.locator("tbody tr")
    expect(rows).to_have_count(2)
    # place, team (members), points, opponents' points, VP, games, byes
    expect(rows.nth(0).locator("td")).to_have_text(
        ["1", f"{lions} ({ada.name}, {ben.name})", "1", "0", "20", "1", "0"]
    )
    expect(rows.nth(1).locator("td")).to_have_text(
        ["2", f"Wolves {name} ({cleo.name}, {dan.name})", "0", "1", "10", "1", "0"]
    )
    rounds = ada_page.get_by_role("region", name="Rounds")
    expect(rounds.get_by_role("heading", name="Round 1")).to_contain_text("finished")
    expect(rounds.locator("ul.tables li")).to_contain_text(
        f"1. {lions} ({ada.name}, {ben.name}), 2. Wolves {name} ({cleo.name}, {dan.name})"
    )
    assert fits(ada_page)
    shot(ada_page, f"tournament-team-{name}", at="#standings")

    link = standings.get_by_role("link", name="Download the standings (CSV)")
    answer = ada_page.request.get(link.get_attribute("href") or "")
    assert answer.ok and answer.headers["content-type"].startswith("text/csv")
    table_rows = list(csv.reader(io.StringIO(answer.text())))
    assert table_rows[0][:5] == ["place", "team", "members", "points", "buchholz"]
    assert table_rows[1][:4] == ["1", lions, f"{ada.name}; {ben.name}", "1"]
    assert table_rows[2][:4] == ["2", f"Wolves {name}", f"{cleo.name}; {dan.name}", "0"]
    assert len(table_rows) == 3
    web.assert_clean()
