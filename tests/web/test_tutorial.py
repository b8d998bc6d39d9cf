"""Issue 15: the guided first game. A real game against a bot (same engine, same service path), unrated,
without emails and out of the archive; its hints walk a newcomer through one whole turn (R26) and follow
the game wherever it goes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import User
from games import engine, selectors, services
from games.models import ActionRecord, Game, Notification
from games.selectors import LogEntry, game_get, game_view
from games.services import GUIDED_TURN
from games.services.ratings import is_rated
from games.web.presenters.shapes import Hint
from games.web.presenters.tutorial import SEAT, moved_on_since_guided_turn, tutorial_model
from tests.web.test_pages import HX, client_for, form_data, verified_user

pytestmark = pytest.mark.django_db


def _hint(game: Game, user: User) -> Hint:
    gv = game_view(game, user, with_log=False)
    assert gv.view is not None
    with translation.override("en"):
        return tutorial_model(gv.view, gv.legal, gv.names)


def _payload_for(hint: Hint, game: Game, user: User) -> dict[str, Any]:
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
    support cards, the orb window and the end of the turn (the turn overview's steps 2 to 6 and 9 in
    order, issue 29)."""
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
    assert 'id="tutorial-hint"' in page and "step 2 of 9: Play resource cards" in page
    # the bot fractured the Orb of Brutality on its last turn (R36 (a)): face down through the guided turn
    assert "Bot 1 (easy) fractured your Orb of Brutality on their last turn" in page
    assert _orb(game, user) == {"face_up": False, "destroyed_on": services.GUIDED_TURN - 1}
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
        key = str(gv.my_prompts[0]["key"]) if gv.my_prompts else ""
        posted = client.post(
            reverse("games:act", args=[game.pk]), form_data(payload, fresh.seq, key), headers=HX
        )
        assert posted.status_code == 200, (hint, payload, posted.content.decode()[:500])
    else:
        raise AssertionError(f"the guided turn did not end: steps {steps}")
    assert steps == sorted(steps) and set(steps) == {2, 3, 4, 5, 6, 9}
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
    assert "You have played a whole turn and taken the City." in done
    # the restore step of the guided turn (R93) turned the orb face up, and the page says so
    assert _orb(fresh, user) == {"face_up": True, "destroyed_on": None}
    assert "turned your Orb of Brutality face up again" in done
    assert 'id="tutorial-again"' not in done  # nothing left to try again


def _orb(game: Game, user: User) -> dict[str, Any]:
    """The newcomer's Orb of Brutality as their view shows it."""
    gv = game_view(game, user, with_log=False)
    assert gv.view is not None
    orb = next(a for a in gv.view["players"][0]["artefacts"] if a["id"] == "orb_brutality")
    return {"face_up": orb["face_up"], "destroyed_on": orb["destroyed_on"]}


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
    # ending the turn at step 2 is off the guide: the question says so and points at "No, go back"
    asked = client.post(
        reverse("games:act", args=[game.pk]),
        form_data({"type": "end_turn"}, fresh.seq, confirmed=False),
        headers=HX,
    ).content.decode()
    assert "This is not the step the guide suggests." in asked and 'data-target="#confirm-no"' in asked
    assert game_get(game.pk).seq == game.seq  # type: ignore[union-attr]
    skip = client.post(
        reverse("games:act", args=[game.pk]), form_data({"type": "end_turn"}, fresh.seq), headers=HX
    )
    assert skip.status_code == 200
    fresh = game_get(game.pk)
    assert fresh is not None
    hint = _hint(fresh, user)
    assert hint["done"] and not hint["battle"]
    assert hint["text"] == "Your turn is over, but it had no battle: start the guided game again to try one."
    done = client.get(reverse("games:detail", args=[game.pk])).content.decode()
    assert 'id="tutorial-again"' in done and reverse("games:tutorial") in done
    # the restore step still came: the orb was destroyed on an earlier turn (R93)
    assert _orb(fresh, user)["face_up"] and "turned your Orb of Brutality face up again" in done


def test_an_advance_into_an_empty_territory_is_followed_and_explained() -> None:
    """A legal move off the guide: the newcomer advances into the empty Cave instead of Blue's City. No
    battle comes; the step-9 hint says why and how to see one, and the restore step is still announced."""
    user = verified_user("newcomer@example.com", "Newcomer")
    game = services.tutorial_start(user=user)
    cave = next(t["id"] for t in _view(game, user)["map"] if t.get("tile") == "cave")
    hint = _hint(_submit_all(game, user, _manoeuvre(cave, 2)), user)
    assert hint["step"] == 9 and hint["act"] == "end_turn"
    assert hint["note"].startswith(
        "No battle this turn: you did not advance into a territory Bot 1 (easy) holds."
    )
    assert "your Orb of Brutality will turn face up" in hint["text"]


def test_a_fracture_spent_early_changes_the_battle_hints() -> None:
    """The newcomer plays Fracture in the free window (on Blue's crown): the notes before the battle say
    that nothing will stop Blue's Sceptre of Defiance, and the battle's sceptre window is not offered to a
    player with no Fracture left (no hint asks for one)."""
    user = verified_user("newcomer@example.com", "Newcomer")
    game = services.tutorial_start(user=user)
    services.action_submit(
        game_id=game.pk,
        user=user,
        action=engine.Fracture(target="crown_order"),
        expected_seq=game.seq,
    )
    fresh = game_get(game.pk)
    assert fresh is not None
    hint = _hint(fresh, user)
    assert hint["step"] == 2 and "nothing stops the Sceptre of Defiance of Bot 1 (easy)" in hint["note"]
    hint = _hint(_submit_all(game, user, _manoeuvre("t2", 3)), user)
    assert hint["step"] == 6 and "Play Fracture" not in hint["text"]


def _manoeuvre(to: str, knights: int) -> list[dict[str, Any]]:
    """A manoeuvre of the guided turn: 1 knight from the castle to the Forest, then an advance."""
    return [
        {"type": "redistribute", "moves": [{"from": "castle", "to": "t1", "knights": 1}]},
        {"type": "advance", "to": to, "knights": knights},
    ]


def _submit_all(game: Game, user: User, payloads: list[dict[str, Any]]) -> Game:
    """Submit ``payloads`` in order as ``user`` through the service path; the game afterwards."""
    for payload in payloads:
        fresh = game_get(game.pk)
        assert fresh is not None
        services.action_submit(
            game_id=game.pk, user=user, action=engine.parse_action(payload), expected_seq=fresh.seq
        )
    fresh = game_get(game.pk)
    assert fresh is not None
    return fresh


def _view(game: Game, user: User) -> engine.View:
    gv = game_view(game, user, with_log=False)
    assert gv.view is not None
    return gv.view


def test_the_guided_game_is_named_in_the_newcomers_language_and_not_counted_on_the_profile() -> None:
    """The table's title is in the language the newcomer started it in; a finished guided game counts in
    neither the games played nor the decisions of the public profile."""
    user = verified_user("nybörjare@example.com", "Nybörjare")
    with translation.override("sv"):
        game = services.tutorial_start(user=user)
    assert game.title == "Guidat första parti"
    services.action_submit(
        game_id=game.pk, user=user, action=engine.EndTurn(), expected_seq=game.seq, source="web"
    )
    assert ActionRecord.objects.filter(game=game, source="web", payload__type="end_turn").exists()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, winners=[0])
    game.seats.filter(number=0).update(final_rank=1)
    profile = selectors.player_profile(user, user)
    assert (profile.played, profile.won, profile.decisions, profile.missed) == (0, 0, 0, 0)


def test_finished_guided_games_stay_out_of_the_archive() -> None:
    """Issue 15: a finished tutorial never appears in the archive, for its player or anyone else."""
    user = verified_user("newcomer@example.com", "Newcomer")
    game = services.tutorial_start(user=user)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, winners=[0])
    other = verified_user("other@example.com", "Other")
    for viewer in (user, other):
        assert game.pk not in set(selectors.archive(viewer=viewer).values_list("pk", flat=True))


def test_the_guided_game_folds_away_only_after_the_newcomers_own_move() -> None:
    """Issue 29's fold, issue 31 fix: the server's pass for the newcomer in a window, or its placing of
    their only kind of conflict card, while the bot plays its turn, is no move of the newcomer's (the
    offer of a real game stayed hidden when the bot attacked at once); their own move folds it."""
    view: dict[str, Any] = {"turn": GUIDED_TURN + 1}
    at = timezone.now()  # when each entry was made: not read
    started: LogEntry = {
        "seq": 10,
        "at": at,
        "seat": 1,
        "events": [{"type": engine.EventType.TURN_STARTED, "turn": GUIDED_TURN + 1}],
        "lines": [],
        "mine": False,
    }
    server: LogEntry = {"seq": 11, "at": at, "seat": SEAT, "events": [], "lines": [], "mine": False}
    own: LogEntry = {"seq": 12, "at": at, "seat": SEAT, "events": [], "lines": [], "mine": True}
    # ``view`` is deliberately a partial engine.View (the ignores below): the function reads only its turn
    assert not moved_on_since_guided_turn(view, [server, started])  # type: ignore[arg-type]
    assert moved_on_since_guided_turn(view, [own, server, started])  # type: ignore[arg-type]
