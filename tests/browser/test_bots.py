"""Issue 17 in a real browser: a table with a *hard* bot is played through to the end."""

from __future__ import annotations

import pytest

from games.models import Game
from tests.browser.conftest import PASSWORD, Player, Web, log_in
from tests.browser.test_play import expect, open_table, play
from tests.web.conftest import create_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_game_against_a_hard_bot_is_played_to_the_end(web: Web) -> None:
    """One person opens a 2-player table, picks "hard" and fills the other seat; the table starts by
    itself, the bot is called "Bot 1 (hard)", and the person plays every decision through the page until
    the result panel names the winner."""
    create_user("hilda@example.com", display_name="Hilda", password=PASSWORD)
    page = web.context().new_page()
    log_in(page, "hilda@example.com")
    game_id = open_table(page, "Hilda against the hard bot")
    page.get_by_label("Bot level").select_option("hard")
    page.get_by_role("button", name="Fill empty seats with bots").click()
    expect(page.locator("#game-header")).to_have_attribute("data-game", str(game_id))
    expect(page.locator("#players")).to_contain_text("Bot 1 (hard)")

    hilda = Player("Hilda", page)
    play([hilda], lambda p: p.finished(), limit=600)

    result = page.locator("#result")
    expect(result).to_contain_text("Winner")
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED and game.winners
    assert game.seats.get(is_bot=True).bot_level == "hard"
    web.assert_clean()
