"""Fracture windows on the site (issue 14): no empty prompts, the masking delay, and in-turn laps.

Positions come from the engine tests' fixtures: 3 players, seat 0 attacks seat 1 from its castle with the
Sceptre of Rage against Loyalty, seat 2 watches (R64: every face-up sceptre of the two players is a
target). A seat holds Fracture only where a test says so.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse

from games import engine, services
from games.models import ActionRecord, Game, Notification, Prompt, StandingOrder
from games.selectors import game_get, game_view, my_games
from tests.engine.test_artefacts_windows import PLAIN, WITH_FRACTURE, front, setup
from tests.web.conftest import seat_users, state_of
from tests.web.factories import game_from_state
from tests.web.test_pages import HX, client_for

pytestmark = pytest.mark.django_db


def _before_the_window(options: dict[str, Any], hands: dict[int, list[str]]) -> tuple[Game, dict[str, Any]]:
    """A stored 3-human game one move before a sceptre window, and that move (seat 0's advance)."""
    s = setup(
        players=3,
        arts={0: ["sceptre_rage"], 1: ["sceptre_loyalty"]},
        hands={0: PLAIN, 1: PLAIN, 2: PLAIN, **hands},
        options=options,
    )
    move = {"type": "advance", "to": f"t{front(s, 0)}", "knights": s.players[0].castle}
    return game_from_state(s, humans=3), move


def _submit(game: Game, seat: int, payload: dict[str, Any]) -> Game:
    user = seat_users(game)[seat]
    return services.action_submit(
        game_id=game.pk, user=user, action=engine.parse_action(payload), expected_seq=game.seq
    ).game


def test_a_seat_without_fracture_is_never_asked_and_the_server_passes_after_the_mask() -> None:
    """Issue 14 "no empty prompts" on a secret table (mask 60–600 s): seats 0 and 1 hold no Fracture. They
    get no email, no form and no entry in "Waiting for you"; everyone's page lists all three asked seats
    until the close (who answered stays hidden). The sweep passes for them (source ``server``) at
    ``auto_at``, not before; seat 2, who holds Fracture, decides and is emailed."""
    game, move = _before_the_window({"fracture_mask": [60, 600]}, {2: WITH_FRACTURE})
    game = _submit(game, 0, move)
    state = state_of(game)
    assert state.window is not None and state.window.asked == [0, 1, 2]
    rows = {p.seat: p for p in Prompt.objects.filter(game=game, kind="response")}
    assert set(rows) == {0, 1, 2}
    assert rows[0].auto_at is not None and rows[1].auto_at == rows[0].auto_at and rows[2].auto_at is None
    assert rows[0].remind_at is None and rows[0].deadline_at == rows[2].deadline_at  # same clock to others
    after = (rows[0].auto_at - rows[0].opened_at).total_seconds()
    assert 60 <= after <= 600
    mails = Notification.objects.filter(game=game, kind=Notification.Kind.RESPONSE)
    assert list(mails.values_list("seat", flat=True)) == [2]

    users = seat_users(game)
    fresh = game_get(game.pk)
    assert fresh is not None
    gv = game_view(fresh, users[1])
    assert gv.legal == [] and gv.my_prompts == []
    assert sorted(gv.waiting_for) == sorted(s.name for s in fresh.seats.all() if s.number != 1)
    assert game.pk not in {g.pk for g, _due in my_games(users[1]).waiting_for_me}
    assert game.pk in {g.pk for g, _due in my_games(users[2]).waiting_for_me}
    page = client_for(users[1]).get(reverse("games:partial", args=[game.pk, "decision"]), headers=HX)
    assert page.status_code == 200 and 'value="respond"' not in page.content.decode()
    legal = client_for(users[0]).get(f"/api/games/{game.pk}/legal").json()
    assert legal["actions"] == []

    assert services.deadlines_sweep(now=rows[0].auto_at - timedelta(seconds=1)) == 0
    assert services.deadlines_sweep(now=rows[0].auto_at) == 2
    passes = ActionRecord.objects.filter(game=game, source=ActionRecord.Source.SERVER).order_by("seq")
    assert [(r.seat, r.payload) for r in passes] == [(s, {"type": "respond", "fracture": []}) for s in (0, 1)]
    assert not Notification.objects.filter(game=game, kind=Notification.Kind.TIMEOUT).exists()
    game.refresh_from_db()
    assert state_of(game).window is not None  # seat 2 still decides
    game = _submit(game, 2, {"type": "respond", "fracture": ["sceptre_rage"]})
    assert state_of(game).window is None


def test_an_in_turn_window_on_the_page_shows_the_lap_and_offers_one_target() -> None:
    """R37 in turn (live tables): seat 0 holds no Fracture, so the server passes for it at once (no mask
    set); seat 1 fractures Rage; seat 2's page then shows both answers and offers only Loyalty, one target,
    while seat 1's own decision is gone."""
    game, move = _before_the_window({"fracture_windows": "in_turn"}, {1: WITH_FRACTURE, 2: WITH_FRACTURE})
    game = _submit(game, 0, move)
    assert [(r.seat, r.source) for r in ActionRecord.objects.filter(game=game, source="server")] == [
        (0, "server")
    ]
    assert [p.seat for p in engine.pending(state_of(game))] == [1]
    game = _submit(game, 1, {"type": "respond", "fracture": ["sceptre_rage"]})
    assert [p.seat for p in engine.pending(state_of(game))] == [2]
    users = seat_users(game)
    names = {s.number: s.name for s in game.seats.all()}
    body = client_for(users[2]).get(reverse("games:partial", args=[game.pk, "decision"]), headers=HX)
    html = body.content.decode()
    assert f"{names[0]} passed." in html
    assert f"{names[1]} played Fracture on Sceptre of Rage." in html
    assert html.count('<select name="fracture">') == 1
    assert 'value="sceptre_loyalty"' in html and 'value="sceptre_rage"' not in html
    other = client_for(users[1]).get(reverse("games:partial", args=[game.pk, "decision"]), headers=HX)
    assert 'value="respond"' not in other.content.decode()


def test_standing_orders_answer_an_in_turn_lap_one_seat_at_a_time() -> None:
    """R37 in turn with standing orders (issue 14: both modes work with them): seat 1 holds Fracture and
    has "always pass"; the server passes for seat 0 (no Fracture), seat 1's order answers when the lap
    reaches it, and the lap stops at seat 2, who holds Fracture and has no order. Every answer is a record,
    in lap order."""
    game, move = _before_the_window({"fracture_windows": "in_turn"}, {1: WITH_FRACTURE, 2: WITH_FRACTURE})
    users = seat_users(game)
    StandingOrder.objects.create(user=users[1], rule="pass")
    seq = game.seq
    game = _submit(game, 0, move)
    answers = ActionRecord.objects.filter(game=game, seq__gt=seq + 1).order_by("seq")
    assert [(r.seat, r.source) for r in answers] == [(0, "server"), (1, "standing")]
    assert [p.seat for p in engine.pending(state_of(game))] == [2]
    assert list(Notification.objects.filter(game=game, kind="response").values_list("seat", flat=True)) == [2]


def test_the_api_does_not_tell_how_another_seat_answered_a_window() -> None:
    """Issue 14 (hidden information): the submit answer lists the window answers the move set off; for
    another seat it shows source ``window`` whether the server passed for it (no Fracture), a standing
    order answered or a deadline ran out, so the API tells nobody who holds Fracture. The caller's own
    records keep their source."""
    game, move = _before_the_window({"fracture_windows": "sealed"}, {2: WITH_FRACTURE})
    users = seat_users(game)
    StandingOrder.objects.create(user=users[2], rule="pass")
    client = client_for(users[0])
    response = client.post(
        f"/api/games/{game.pk}/actions",
        {"expected_seq": game.seq, "action": move},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    applied = response.json()["applied"]
    assert applied[0]["source"] == "api" and applied[0]["seat"] == 0
    stored = {r.seq: r.source for r in ActionRecord.objects.filter(game=game)}
    answers = [a for a in applied[1:] if a["type"] == "respond"]
    assert {stored[a["seq"]] for a in answers} >= {"server", "standing"}  # how they really came
    others = [a for a in answers if a["seat"] != 0]
    assert others and all(a["source"] == "window" for a in others)
    # the log keeps a sealed window's answers anonymous too, except the reader's own
    log = client.get(f"/api/games/{game.pk}").json()["log"]
    answer_entries = [e for e in log if any(ev["type"] == "window_answered" for ev in e["events"])]
    assert {e["seat"] for e in answer_entries} == {0, None}
