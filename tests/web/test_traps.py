"""Issue 29 §2: no default that loses the game in one click. No irreversible choice is pre-selected, a
battle with fewer knights than the defender and the destruction of one's own artefact ask first, a crown
use with no effect says so and asks, a form sent with nothing chosen gets a translated sentence, and a
refused move keeps what the player filled in. Every refusal leaves the game as it was."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from games import engine
from games.models import Game
from tests.engine import fixtures as F
from tests.web.conftest import seat_users, state_of
from tests.web.factories import PLAIN, before_battle, conflict_step, game_from_state
from tests.web.test_pages import HX, client_for

pytestmark = pytest.mark.django_db


def _panel(game: Game, seat: int = 0) -> str:
    page = client_for(seat_users(game)[seat]).get(
        reverse("games:partial", args=[game.pk, "decision"]), headers=HX
    )
    assert page.status_code == 200
    return page.content.decode()


def _post(game: Game, fields: dict[str, Any], seat: int = 0) -> tuple[int, str]:
    """Post a decision form of ``seat`` (htmx), returning the status and the panel it answers with."""
    data = {"expected_seq": str(game.seq), **fields}
    response = client_for(seat_users(game)[seat]).post(reverse("games:act", args=[game.pk]), data, headers=HX)
    return response.status_code, response.content.decode()


def _unchanged(game: Game) -> None:
    seq, state_hash = game.seq, game.state_hash
    game.refresh_from_db()
    assert (game.seq, game.state_hash) == (seq, state_hash)


def _radios(html: str, name: str) -> list[str]:
    return re.findall(rf'<input type="radio" name="{name}"[^>]*>', html)


def test_r68_no_conflict_card_is_pre_selected_and_none_chosen_is_refused_clearly() -> None:
    """R68: the conflict card is final, so no radio starts checked; pressing "Place face down" without one
    answers "Choose your conflict card first." (400) and changes nothing."""
    game = game_from_state(conflict_step())
    html = _panel(game)
    radios = _radios(html, "card")
    assert len(radios) >= 2 and not any("checked" in r for r in radios)
    status, body = _post(game, {"type": "choose_conflict", "card": ""})
    assert status == 400 and "Choose your conflict card first." in body
    _unchanged(game)


def test_r70_support_with_nothing_ticked_gets_a_sentence_not_the_engine_message() -> None:
    """R70: "Play support" with nothing ticked is answered with the translated sentence (Swedish here),
    never the engine's "'cards' must name at least one card"; nothing changes."""
    game = game_from_state(conflict_step())
    user = seat_users(game)[0]
    user.language = "sv"
    user.save(update_fields=["language"])
    client = client_for(user)
    data = {"expected_seq": str(game.seq), "type": "play_support"}
    body = client.post(reverse("games:act", args=[game.pk]), data, headers=HX).content.decode()
    assert "must name at least one card" not in body
    assert "Tick at least one support card" not in body  # translated
    _unchanged(game)


def test_r52_advance_knights_start_empty_and_must_be_chosen() -> None:
    """R52: the knight count of an advance is not pre-filled with 1: it starts empty; "Advance" without a
    count is answered "Choose how many knights advance." and nothing happens."""
    s, attack = before_battle(2)
    game = game_from_state(s)
    html = _panel(game)
    field = re.search(r'<input type="number" name="knights" id="advance-knights"[^>]*>', html)
    assert field is not None and 'value=""' in field.group(0)
    status, body = _post(game, {"type": "advance", "to": attack["to"], "knights": ""})
    assert status == 400 and "Choose how many knights advance." in body
    _unchanged(game)


def test_r57_attacking_with_fewer_knights_than_the_defender_asks_first() -> None:
    """R57, R76: advancing 1 knight against 2 asks "Attack … with 1 knight against 2?" and applies nothing;
    confirming starts the battle. As many knights as the defender, or more, do not ask."""
    s, attack = before_battle(2)
    game = game_from_state(s)
    status, body = _post(game, {"type": "advance", "to": attack["to"], "knights": "1"})
    assert status == 200 and "with 1 knight against 2?" in body and 'id="confirm-yes"' in body
    _unchanged(game)
    status, _body = _post(game, {"type": "advance", "to": attack["to"], "knights": "1", "confirmed": "1"})
    assert status == 200
    assert state_of(Game.objects.get(pk=game.pk)).battle is not None
    again = game_from_state(s)
    status, body = _post(again, {"type": "advance", "to": attack["to"], "knights": "2"})
    assert "confirm-yes" not in body and state_of(Game.objects.get(pk=again.pk)).battle is not None


def test_a_refused_move_keeps_what_was_filled_in() -> None:
    """An illegal advance (more knights than the castle holds, R52) is refused with its reason and the form
    comes back with the chosen territory and the typed count, so nothing has to be entered again."""
    s, attack = before_battle(2)
    game = game_from_state(s)
    status, body = _post(game, {"type": "advance", "to": attack["to"], "knights": "9", "confirmed": "1"})
    assert status in (400, 422)
    assert re.search(rf'<option value="{attack["to"]}"[^>]* selected', body)
    assert re.search(r'id="advance-knights"[^>]*value="9"', body)
    _unchanged(game)


def _corruption() -> Game:
    """Seat 0 on its turn holds the Crown of Corruption and the Sceptre of Vigour; seat 1 the Sceptre of
    Rage."""
    s = F.edit(F.game(2, seed=5))
    F.set_artefacts(s, 0, ["crown_corruption", "sceptre_vigour"])
    F.set_artefacts(s, 1, ["sceptre_rage"])
    F.set_hand(s, 0, PLAIN)
    return game_from_state(s)


def test_r41_corruption_lists_own_artefacts_last_marked_and_never_pre_selected() -> None:
    """R41: the Crown of Corruption's target list starts with "— choose —", lists the rival's artefacts
    first and the player's own last, marked "(yours)"."""
    game = _corruption()
    html = _panel(game)
    select = re.search(r'<select name="corruption"[^>]*>(.*?)</select>', html, re.S)
    assert select is not None
    options = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select.group(1))
    assert options[0][0] == "" and "selected" not in select.group(1)
    values = [v for v, _label in options[1:]]
    assert values.index("1:sceptre_rage") < values.index("0:sceptre_vigour")
    own = dict(options)["0:sceptre_vigour"]
    assert "(yours)" in own and "(yours)" not in dict(options)["1:sceptre_rage"]


def test_r41_destroying_ones_own_artefact_asks_first() -> None:
    """R41: choosing one's own artefact for the Crown of Corruption asks for confirmation and applies
    nothing; a rival's target does not ask; sending the list unchosen is refused clearly."""
    game = _corruption()
    status, body = _post(game, {"type": "use_crown", "corruption": "0:sceptre_vigour"})
    assert status == 200 and "Destroy your own" in body and 'id="confirm-yes"' in body
    _unchanged(game)
    status, body = _post(game, {"type": "use_crown", "corruption": ""})
    assert status == 400 and "Choose the artefact to destroy." in body
    _unchanged(game)
    status, body = _post(game, {"type": "use_crown", "corruption": "1:sceptre_rage"})
    assert status == 200 and "confirm-yes" not in body
    game.refresh_from_db()
    assert game.seq > 0


def test_r101_crown_of_order_with_nothing_to_return_says_so_and_asks() -> None:
    """R101, R41: with no card discarded on a previous turn the Crown of Order changes nothing: its form
    says so, and pressing it anyway asks "This changes nothing now…" before spending the crown's use."""
    s = F.edit(F.game(2, seed=5))
    F.set_artefacts(s, 0, ["crown_order"])
    F.set_artefacts(s, 1, [])
    s.players[0].discard, s.players[0].discard_turns = [], []
    game = game_from_state(s)
    html = _panel(game)
    assert 'id="crown-idle"' in html and "changes nothing" in html
    status, body = _post(game, {"type": "use_crown"})
    assert status == 200 and "This changes nothing now" in body and 'id="confirm-yes"' in body
    _unchanged(game)


def test_a_may_discard_choice_has_no_pre_selected_answer() -> None:
    """R86: "You may discard any 1 card" has no pre-checked radio: discarding is a card's radio plus
    "Discard this card"; keeping is its own button."""
    s = F.edit(F.game(2, seed=5))
    F.set_hand(s, 0, PLAIN)
    s.choice = engine.state.Choice(0, engine.PromptKind.MAY_DISCARD, "fortress", "window", serial=99)
    game = game_from_state(s)
    html = _panel(game)
    radios = _radios(html, "card")
    assert radios and not any("checked" in r for r in radios)
    assert 'id="keep-cards"' in html
