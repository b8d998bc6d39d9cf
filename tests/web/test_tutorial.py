"""Issue 15: the guided first game. A real game against a bot (same engine, same service path), unrated,
without emails and out of the archive; its hints walk a newcomer through one whole turn (R26) and follow
the game wherever it goes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from games import engine, selectors, services
from games.models import ActionRecord, Game, Notification
from games.selectors import game_get, game_view
from games.services.ratings import is_rated
from games.web.presenters.tutorial import tutorial_model
from tests.web.test_pages import HX, client_for, form_data, verified_user

pytestmark = pytest.mark.django_db


def _hint(game: Game, user: User) -> dict[str, Any]:
    gv = game_view(game, user, with_log=False)
    assert gv.view is not None
    with translation.override("en"):
        return tutorial_model(gv.view, gv.legal)


def _payload_for(hint: dict[str, Any], game: Game, user: User) -> dict[str, Any]:
    """The move a newcomer makes by following ``hint``: the control it points at, with the values its
    sentence names (``fill``)."""
    target, fill = hint["target"], hint["fill"]
    gv = game_view(game, user, with_log=False)
    assert gv.view is not None
    hand = {c["card"]: c["id"] for c in gv.view["players"][0].get("hand", [])}
    if target == "#redistribute-form":
        return {
            "type": "redistribute",
            "moves": [{"from": fill["from"], "to": fill["to"], "knights": fill["knights"]}],
        }
    if target == "#advance-form":
        return {"type": "advance", "to": fill["to"], "knights": fill["knights"]}
    act = re.fullmatch(r'form\[data-act="([a-z_]+)"\]', target)
    assert act is not None, hint
    kind = act.group(1)
    if kind == "respond":
        return {"type": "respond", "fracture": [fill["fracture"]] if fill.get("fracture") else []}
    if kind == "choose_conflict":
        return {"type": "choose_conflict", "card": hand["heroic_assault"]}
    if kind == "play_support":
        return {
            "type": "play_support",
            "cards": [cid for name, cid in hand.items() if name in ("war_banner", "rallying_cry")],
        }
    return {"type": kind}


def test_the_guided_game_is_played_to_its_end_through_the_real_service_path() -> None:
    """Started from the home page's button, the guided game is a real game against a bot, unrated, with no
    email; following its hints through the page's own form posts plays the whole turn: Call to Arms, the
    Crown of Vitality, a redistribution, an advance into Blue's City, the Fracture window, conflict and
    support cards, the orb window and the end of the turn (steps 2 to 7 in order)."""
    user = verified_user("newcomer@example.com", "Newcomer")
    client = client_for(user)
    home = client.get(reverse("home")).content.decode()
    assert (
        reverse("games:tutorial") in home
        and reverse("games:tutorial") in client.get(reverse("games:new")).content.decode()
    )
    response = client.post(reverse("games:tutorial"))
    game = Game.objects.get(tutorial=True, created_by=user)
    assert response.status_code == 302 and response["Location"] == reverse("games:detail", args=[game.pk])
    seats = list(game.seats.order_by("number"))
    assert [(s.user_id, s.is_bot) for s in seats] == [(user.pk, False), (None, True)]
    assert not is_rated(game, seats)
    assert game.seq == len(services.tutorial.OPENING)
    page = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert 'id="tutorial-hint"' in page and "step 2 of 7" in page
    steps = []
    for _move in range(30):
        fresh = game_get(game.pk)
        assert fresh is not None
        hint = _hint(fresh, user)
        if hint["done"]:
            break
        steps.append(hint["step"])
        payload = _payload_for(hint, fresh, user)
        gv = game_view(fresh, user, with_log=False)
        key = gv.my_prompts[0]["key"] if gv.my_prompts else ""
        posted = client.post(
            reverse("games:act", args=[game.pk]), form_data(payload, fresh.seq, key), headers=HX
        )
        assert posted.status_code == 200, (hint, payload, posted.content.decode()[:500])
    else:
        raise AssertionError(f"the guided turn did not end: steps {steps}")
    assert steps == sorted(steps) and set(steps) == {2, 3, 4, 5, 6, 7}
    fresh = game_get(game.pk)
    assert fresh is not None
    state = engine.from_dict(fresh.state)
    city = state.board.parse_pos("t2")
    assert city is not None and state.owner[city] == 0  # the battle was won
    sources = set(ActionRecord.objects.filter(game=game).values_list("source", flat=True))
    assert sources >= {"server", "web", "bot"}
    assert not Notification.objects.filter(game=game).exists()
    assert services.game_verify(game_id=game.pk)[0]
    done = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert reverse("games:play_bot") in done and "Play a real game against a bot" in done


def test_a_wrong_move_in_the_guided_game_is_explained_and_the_hint_stays() -> None:
    """A refused move shows its reason and rule link, changes nothing, and the hint still points at the
    step; a legal move off the script is allowed and the hint follows the new position."""
    user = verified_user("newcomer@example.com", "Newcomer")
    game = services.tutorial_start(user=user)
    client = client_for(user)
    before = _hint(game, user)
    bad = {"type": "advance", "to": "t4", "knights": 1}  # the lake
    posted = client.post(reverse("games:act", args=[game.pk]), form_data(bad, game.seq), headers=HX)
    assert posted.status_code == 422
    assert f'href="{reverse("games:rules")}#advance"' in posted.content.decode()
    fresh = game_get(game.pk)
    assert fresh is not None and fresh.seq == game.seq and _hint(fresh, user) == before
    skip = client.post(
        reverse("games:act", args=[game.pk]), form_data({"type": "end_turn"}, fresh.seq), headers=HX
    )
    assert skip.status_code == 200
    fresh = game_get(game.pk)
    assert fresh is not None and _hint(fresh, user)["done"]


def test_finished_guided_games_stay_out_of_the_archive() -> None:
    """Issue 15: a finished tutorial never appears in the archive, for its player or anyone else."""
    user = verified_user("newcomer@example.com", "Newcomer")
    game = services.tutorial_start(user=user)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, winners=[0])
    other = verified_user("other@example.com", "Other")
    for viewer in (user, other):
        assert game.pk not in set(selectors.archive(viewer=viewer).values_list("pk", flat=True))
