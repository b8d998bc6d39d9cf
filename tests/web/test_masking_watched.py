"""A table of bots plays at the speed of the person at it (issue 29 §1): the masking delay of a sealed
Fracture window (issue 14, R95) hides from people whether a seat holds Fracture, so the server's pass waits
for it only for a person's seat, and only while another person at the table could read the timing. A bot
answers at once whether or not it holds Fracture: its seat never waits."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import ApiToken
from games.models import ActionRecord, Game, Prompt, Seat
from games.services.play import masking_watched

from .conftest import seat_users, state_of
from .factories import WITH_FRACTURE, before_battle, game_from_state
from .test_pages import HX, client_for

MASK = [60, 600]


def _seats(*kinds: str) -> list[Seat]:
    """Unsaved seats: ``"person"`` (a user) or ``"bot"``, numbered in order."""
    return [
        Seat(number=i, user_id=None if kind == "bot" else 100 + i, is_bot=kind == "bot")
        for i, kind in enumerate(kinds)
    ]


def test_only_a_persons_seat_watched_by_another_person_waits_for_the_mask() -> None:
    """A bot seat or a stand-in never waits; a person's seat waits only with another person at the table;
    without the seats at hand the pass waits, as before."""
    alone = _seats("person", "bot", "bot")
    assert not masking_watched(0, {1: "normal", 2: "normal"}, alone)
    assert not masking_watched(1, {1: "normal", 2: "normal"}, alone)
    two = _seats("person", "bot", "person")
    assert masking_watched(2, {1: "normal"}, two) and masking_watched(0, {1: "normal"}, two)
    assert not masking_watched(1, {1: "normal"}, two)
    assert not masking_watched(2, {1: "normal", 2: "normal"}, two)  # seat 2 is stood in for: a bot answers
    assert masking_watched(2, {1: "normal"}, None)


def _attack(game: Game, attack: dict[str, Any]) -> None:
    """Seat 0, a person, attacks: the Sceptre of Rage opens a sealed window for seats 1 and 2."""
    assert state_of(game).window is None
    attacker = Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(seat_users(game)[0])}")
    body = json.dumps({"expected_seq": game.seq, "action": attack})
    response = attacker.post(f"/api/games/{game.pk}/actions", body, content_type="application/json")
    assert response.status_code == 200, response.content


def _sealed_window(bots: list[int]) -> tuple[Game, dict[str, Any]]:
    """Seat 0 about to attack with the Sceptre of Rage (3 players, seat 1 holds Fracture, seat 2 not), with
    bots in ``bots``; returns the game and the attack's payload."""
    s, attack = before_battle(
        3, arts={0: ["sceptre_rage"]}, hands={1: WITH_FRACTURE}, options={"fracture_mask": MASK}
    )
    return game_from_state(s, bots=bots), attack


@pytest.mark.django_db
def test_a_window_among_bots_closes_inside_the_persons_request() -> None:
    """One person against two bots: bot 1 (holding Fracture) decides and the server passes for bot 2 (no
    Fracture) in the same request, so the person waits for nobody; no masked row is left."""
    game, attack = _sealed_window(bots=[1, 2])
    _attack(game, attack)
    game.refresh_from_db()
    assert state_of(game).window is None
    assert not Prompt.objects.filter(game=game, auto_at__isnull=False).exists()
    server = ActionRecord.objects.filter(game=game, source=ActionRecord.Source.SERVER)
    assert list(server.values_list("seat", flat=True)) == [2]


@pytest.mark.django_db
def test_a_persons_pass_still_waits_for_the_mask_while_another_person_watches() -> None:
    """Two people and a bot: the bot (holding Fracture) answers at once; the server's pass for the person
    in seat 2 (no Fracture) waits for the masking delay, so the attacker cannot tell who held Fracture."""
    game, attack = _sealed_window(bots=[1])
    _attack(game, attack)
    game.refresh_from_db()
    state = state_of(game)
    assert state.window is not None and state.window.asked == [1, 2]
    row = Prompt.objects.get(game=game, seat=2)
    assert row.auto_at is not None
    assert MASK[0] <= (row.auto_at - row.opened_at).total_seconds() <= MASK[1]


ONE_CONFLICT = ["shield_wall", "call_to_arms", "tactical_advance", "war_banner", "war_banner"]


def _battle_with_one_card(seat: int, bots: list[int]) -> Game:
    """Seat 0 (a person) attacks seat 1; ``seat`` holds a single conflict card (R68); ``bots`` are bots."""
    s, attack = before_battle(3, hands={seat: ONE_CONFLICT}, options={"fracture_mask": MASK})
    game = game_from_state(s, bots=bots)
    _attack(game, attack)
    game.refresh_from_db()
    return game


@pytest.mark.django_db
def test_the_only_conflict_card_of_a_person_among_bots_is_placed_in_their_own_request() -> None:
    """Issue 29 §2, R68: the attacker, a person alone with bots, holds one conflict card: the server places
    it inside the advance's request, so the person is never asked a choice with one answer."""
    game = _battle_with_one_card(0, bots=[1, 2])
    server = ActionRecord.objects.filter(game=game, source=ActionRecord.Source.SERVER, seat=0)
    assert [r.payload["type"] for r in server] == ["choose_conflict"]
    assert not Prompt.objects.filter(game=game, seat=0, kind="conflict").exists()


@pytest.mark.django_db
def test_a_persons_only_conflict_card_waits_for_the_mask_while_their_rival_is_a_person() -> None:
    """Issue 29 §2, R68: the defender, a person watched by the attacking person, holds one conflict card:
    the server places it only after the table's masking delay, so the attacker cannot read a one-card hand
    from the timing; the defender's own page shows no decision."""
    game = _battle_with_one_card(1, bots=[2])
    row = Prompt.objects.get(game=game, seat=1, kind="conflict")
    assert row.auto_at is not None
    assert MASK[0] <= (row.auto_at - row.opened_at).total_seconds() <= MASK[1]
    assert not ActionRecord.objects.filter(game=game, source=ActionRecord.Source.SERVER, seat=1).exists()


def _decision(game: Game, seat: int) -> str:
    """The decision partial as the person in ``seat`` sees it."""
    page = client_for(seat_users(game)[seat]).get(
        reverse("games:partial", args=[game.pk, "decision"]), headers=HX
    )
    assert page.status_code == 200
    return page.content.decode()


@pytest.mark.django_db
def test_a_window_waiting_for_a_masked_pass_names_nobody() -> None:
    """Issue 29 §1: while a sealed window waits (here for the masked pass of the person in seat 2), the
    attacker's panel says "Waiting for the other players" and names no seat, so the wait tells nobody who
    holds Fracture; the deadline is the window's."""
    game, attack = _sealed_window(bots=[1])
    _attack(game, attack)
    game.refresh_from_db()
    assert state_of(game).window is not None
    html = _decision(game, 0)
    assert "Waiting for the other players to answer the Fracture window" in html
    names = {s.number: s.name for s in game.seats.all()}
    assert f"Waiting for {names[2]}" not in html and f"Waiting for {names[1]}" not in html


@pytest.mark.django_db
def test_a_bot_to_move_is_thinking_not_waited_for_with_hours_left() -> None:
    """Issue 29 §1: the panel never says "Waiting for Bot …" with hours left: a seat a bot plays (here a
    hard bot whose move runs after the request) is shown as thinking, without a deadline."""
    s, _attack_move = before_battle(2)
    game = game_from_state(s)
    Seat.objects.filter(game=game, number=0).update(
        is_bot=True, user=None, bot_level="hard", guest_name="Bot 1"
    )
    users = {s.number: s.user for s in game.seats.all() if s.user is not None}
    page = client_for(users[1]).get(reverse("games:partial", args=[game.pk, "decision"]), headers=HX)
    html = page.content.decode()
    assert "Bot 1 (hard) is thinking…" in html
    assert "Waiting for Bot 1" not in html and " left)" not in html
