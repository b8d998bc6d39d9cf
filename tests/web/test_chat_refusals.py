"""issue 28 §4: what the chat's mute and report endpoints refuse, and that a refusal changes nothing.

- Only a player seated at the table the request names mutes someone seated there: a spectator gets 403
  (and no Mute button), a stranger to a private table the same 404 as for a missing game.
- A report names a message of the game in its address: a message of another game is unknown (404), even
  one the reporter may read there.
- A report's reason holding a NUL character is bad input (400, saying so), not an unknown message.

Message ids are taken from the page, as a client sees them.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games.models import ChatMessage, ChatMute, ChatReport, Game
from games.services import Forbidden, NotFound, chat

from .conftest import create_started_game, create_user, seat_users

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def shown_id(client: Client, game: Game, text: str) -> str:
    """The id the game page shows ``client`` for the message reading ``text`` (its ``data-id``)."""
    response = client.get(reverse("games:detail", args=[game.pk]), {"channel": "table"})
    assert response.status_code == 200
    lines = re.findall(
        r'<li id="chat-[^"]*"[^>]*data-id="([^"]+)">(.*?)</li>', response.content.decode(), re.S
    )
    found = [key for key, body in lines if text in body]
    assert len(found) == 1, lines
    return str(found[0])


def mute(client: Client, game: Game, seat: int, value: str = "1", htmx: bool = False) -> tuple[int, str]:
    response = client.post(
        reverse("games:chat_mute", args=[game.pk]),
        {"seat": str(seat), "mute": value},
        headers=HX if htmx else {},
    )
    return response.status_code, response.content.decode()


def report(client: Client, game: Game, message: str, reason: str, htmx: bool = False) -> tuple[int, str]:
    response = client.post(
        reverse("games:chat_report", args=[game.pk]),
        {"message": message, "reason": reason},
        headers=HX if htmx else {},
    )
    return response.status_code, response.content.decode()


def test_only_a_player_seated_at_the_table_mutes() -> None:
    game = create_started_game(humans=2, seed=4)
    alice, bob = seat_users(game)[0], seat_users(game)[1]
    Game.objects.filter(pk=game.pk).update(chat_spectators=True)
    chat.chat_post(game_id=game.pk, user=alice, channel="table", text="hello table")
    watcher = create_user()
    for htmx in (False, True):
        status, body = mute(client_for(watcher), game, 0, htmx=htmx)
        assert status == 403 and "Only the players seated at this table can mute someone." in body
    assert not ChatMute.objects.exists()
    url = reverse("games:chat_mute", args=[game.pk])
    page = client_for(watcher).get(reverse("games:detail", args=[game.pk])).content.decode()
    assert "hello table" in page and "Report this message by" in page and url not in page  # no Mute button
    assert url in client_for(bob).get(reverse("games:detail", args=[game.pk])).content.decode()
    assert mute(client_for(bob), game, 0)[0] == 302  # a seated player does
    assert ChatMute.objects.filter(user=bob, muted=alice).exists()


def test_a_stranger_to_a_private_table_cannot_mute_and_learns_nothing() -> None:
    game = create_started_game(humans=2, seed=4)
    Game.objects.filter(pk=game.pk).update(private=True)
    stranger = client_for(create_user())
    missing = Game.objects.order_by("-pk").values_list("pk", flat=True)[0] + 7
    seen = stranger.post(reverse("games:chat_mute", args=[game.pk]), {"seat": "0"})
    absent = stranger.post(reverse("games:chat_mute", args=[missing]), {"seat": "0"})
    assert seen.status_code == absent.status_code == 404
    assert seen.content.replace(str(game.pk).encode(), b"ID") == absent.content.replace(
        str(missing).encode(), b"ID"
    )
    assert not ChatMute.objects.exists()


def test_the_service_mutes_only_between_players_of_the_game_it_names() -> None:
    game = create_started_game(humans=2, seed=4)
    other = create_started_game(humans=2, seed=5)
    alice, bob = seat_users(game)[0], seat_users(game)[1]
    carol = seat_users(other)[0]
    with pytest.raises(NotFound):  # Carol is seated elsewhere
        chat.chat_mute(game_id=game.pk, user=alice, other_id=carol.pk)
    with pytest.raises(Forbidden):  # Carol has no seat here
        chat.chat_mute(game_id=game.pk, user=carol, other_id=alice.pk)
    with pytest.raises(NotFound):
        chat.chat_mute(game_id=10**9, user=alice, other_id=bob.pk)
    assert not ChatMute.objects.exists()
    chat.chat_mute(game_id=other.pk, user=carol, other_id=seat_users(other)[1].pk)
    # unmuting only removes one's own mute: it needs no seat at the table named
    assert chat.chat_mute(game_id=game.pk, user=carol, other_id=alice.pk, mute=False) is False
    assert ChatMute.objects.count() == 1


def test_a_report_of_a_message_from_another_game_is_unknown() -> None:
    alice, bob = create_user(), create_user()
    here = create_started_game(humans=[alice, bob], seed=4)
    there = create_started_game(humans=[bob, alice], seed=5)
    chat.chat_post(game_id=there.pk, user=bob, channel="table", text="over there")
    message = shown_id(client_for(alice), there, "over there")
    for htmx in (False, True):
        status, body = report(client_for(alice), here, message, "rude", htmx=htmx)
        assert status == 404 and "over there" not in body
    assert not ChatReport.objects.exists()
    assert report(client_for(alice), there, message, "rude", htmx=True)[0] == 200  # from its own game
    assert ChatReport.objects.get().message == ChatMessage.objects.get(text="over there")


def test_a_report_reason_holding_nul_is_bad_input() -> None:
    game = create_started_game(humans=2, seed=4)
    alice, bob = seat_users(game)[0], seat_users(game)[1]
    chat.chat_post(game_id=game.pk, user=bob, channel="table", text="rude words")
    message = shown_id(client_for(alice), game, "rude words")
    for htmx in (False, True):
        status, body = report(client_for(alice), game, message, "rude\x00", htmx=htmx)
        assert status == 400 and "A report's reason cannot contain NUL characters." in body
    assert not ChatReport.objects.exists()
