"""A table of bots plays at the speed of the person at it (issue 29 §1): the masking delay of a sealed
Fracture window (issue 14, R95) hides from people whether a seat holds Fracture, so the server's pass waits
for it only for a person's seat, and only while another person at the table could read the timing. A bot
answers at once whether or not it holds Fracture: its seat never waits."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from accounts.models import ApiToken
from games.models import ActionRecord, Game, Prompt, Seat
from games.services.play import masking_watched

from .conftest import seat_users, state_of
from .factories import WITH_FRACTURE, before_battle, game_from_state

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
