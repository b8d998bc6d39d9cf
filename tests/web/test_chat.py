"""issue 19: the chat's permission rules through the service, the reads and the JSON API: table, private
and team channels; spectators before and after the end; muted, suspended, rate-limited, hidden; bad input
changes nothing. A private message's exact text must appear on no surface of a third player.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import ApiToken, User
from games import services
from games.chat import PAGE, chat_version, chat_view
from games.models import ChatMessage, Game
from games.services import chat
from games.services.chat import RateLimited
from games.services.errors import BadPayload, Conflict, Forbidden, NotFound

from .conftest import create_started_game, create_user, seat_users

pytestmark = pytest.mark.django_db

SECRET = "meet me at the Fort, leave Cid's castle alone — xq7"


def api(user: User) -> Client:
    token = ApiToken.issue(user, "chat")
    return Client(HTTP_AUTHORIZATION=f"Bearer {token}")


def three() -> tuple[Game, dict[int, User]]:
    game = create_started_game(humans=3, seed=4)
    return game, seat_users(game)


def every_surface(game: Game, user: User | None) -> str:
    """Everything the chat reads and the API show ``user`` (None: an anonymous spectator), over every
    channel key anyone could ask for."""
    viewer: Any = user if user is not None else _anonymous()
    keys = ["table", "team", *(f"p{n}" for n in range(game.players))]
    out = [repr(chat_view(game, viewer, key)) for key in keys]
    if user is not None:
        client = api(user)
        out += [client.get(f"/api/games/{game.pk}/chat", {"channel": key}).content.decode() for key in keys]
    return "\n".join(out)


def _anonymous() -> Any:
    return AnonymousUser()


def test_table_messages_reach_every_seat_and_spectators_only_after_the_end() -> None:
    game, users = three()
    chat.chat_post(game_id=game.pk, user=users[0], channel="table", text="good luck all")
    for user in users.values():
        assert [line.text for line in chat_view(game, user).lines] == ["good luck all"]
    stranger = create_user()
    assert "good luck all" not in every_surface(game, stranger)
    assert "good luck all" not in every_surface(game, None)
    Game.objects.filter(pk=game.pk).update(chat_spectators=True)
    game.refresh_from_db()
    assert [line.text for line in chat_view(game, stranger).lines] == ["good luck all"]
    Game.objects.filter(pk=game.pk).update(chat_spectators=False, status=Game.Status.FINISHED)
    game.refresh_from_db()
    assert [line.text for line in chat_view(game, stranger).lines] == ["good luck all"]
    with pytest.raises(Forbidden):  # spectators read, they never post
        chat.chat_post(game_id=game.pk, user=stranger, channel="table", text="gg")


def test_a_private_message_is_read_by_its_two_players_only_on_every_surface() -> None:
    game, users = three()
    chat.chat_post(game_id=game.pk, user=users[0], channel="p1", text=SECRET)
    assert [line.text for line in chat_view(game, users[0], "p1").lines] == [SECRET]
    assert [line.text for line in chat_view(game, users[1], "p0").lines] == [SECRET]
    assert SECRET not in every_surface(game, users[2])
    assert SECRET not in every_surface(game, create_user())
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)  # the end opens the table only
    game.refresh_from_db()
    assert SECRET not in every_surface(game, users[2])
    assert SECRET not in every_surface(game, None)
    record = Client()
    record.force_login(users[2])
    exported = record.get(f"/games/{game.pk}/record.json")
    assert exported.status_code == 200 and SECRET not in exported.content.decode()


def test_team_messages_stay_in_the_team() -> None:
    game = create_started_game(humans=4, seed=2, options={"allegiance": "pairs"})
    users = seat_users(game)
    state_teams = {n: services.game_state(game).players[n].team for n in users}  # R105: the engine's teams
    author = 0
    mate = next(n for n in users if n != author and state_teams[n] == state_teams[author])
    rivals = [n for n in users if state_teams[n] != state_teams[author]]
    chat.chat_post(game_id=game.pk, user=users[author], channel="team", text=SECRET)
    assert [line.text for line in chat_view(game, users[mate], "team").lines] == [SECRET]
    for rival in rivals:
        assert SECRET not in every_surface(game, users[rival])
    plain, plain_users = three()
    with pytest.raises(NotFound):  # no teams outside Allegiance
        chat.chat_post(game_id=plain.pk, user=plain_users[0], channel="team", text="hi")


def test_unread_counts_follow_each_channels_own_read_mark() -> None:
    """Each channel counts the others' messages above its own read mark: marks that differ between
    channels, one's own messages, a muted author and a hidden message are all taken into account; the
    version is the newest readable message, one's own included."""
    game = create_started_game(humans=4, seed=2, options={"allegiance": "pairs"})
    users = seat_users(game)
    teams = {n: services.game_state(game).players[n].team for n in users}
    mate = next(n for n in users if n != 0 and teams[n] == teams[0])
    rival, other = (n for n in users if teams[n] != teams[0])

    def post(seat: int, channel: str, text: str) -> int:
        return chat.chat_post(game_id=game.pk, user=users[seat], channel=channel, text=text).pk

    def unread() -> dict[str, int]:
        return {c.key: c.unread for c in chat_view(game, users[0], "none").channels}

    first = post(rival, "table", "t1")
    post(mate, "table", "t2")
    post(0, "table", "mine")  # one's own: never unread
    post(mate, "team", "plan")
    post(rival, f"p{0}", "psst 1")
    read_private = post(rival, f"p{0}", "psst 2")
    post(0, f"p{rival}", "reply")
    post(other, f"p{rival}", "not for seat 0")  # someone else's conversation: not readable at all
    spam = post(other, f"p{0}", "buy gold")
    chat.chat_mark_read(user=users[0], game=game, channel="table", last_id=first)
    chat.chat_mark_read(user=users[0], game=game, channel=f"p{rival}", last_id=read_private)
    assert unread() == {"table": 1, "team": 1, f"p{mate}": 0, f"p{rival}": 0, f"p{other}": 1}
    newest = post(rival, f"p{0}", "psst 3")
    assert unread()[f"p{rival}"] == 1
    assert chat_view(game, users[0], "none").version == newest
    chat.chat_mute(game_id=game.pk, user=users[0], other_id=users[other].pk)
    assert unread()[f"p{other}"] == 0
    chat.chat_mute(game_id=game.pk, user=users[0], other_id=users[other].pk, mute=False)
    ChatMessage.objects.filter(pk=spam).update(hidden=True)
    assert unread()[f"p{other}"] == 0
    assert chat_view(game, users[rival], "none").version == newest  # the author's own message counts too


def test_a_muted_player_is_hidden_for_the_muter_only_and_hidden_messages_for_everyone() -> None:
    game, users = three()
    message = chat.chat_post(game_id=game.pk, user=users[1], channel="table", text="buy my gold")
    chat.chat_mute(game_id=game.pk, user=users[0], other_id=users[1].pk)
    assert chat_view(game, users[0]).lines == []
    assert [line.text for line in chat_view(game, users[2]).lines] == ["buy my gold"]
    chat.chat_mute(game_id=game.pk, user=users[0], other_id=users[1].pk, mute=False)
    assert [line.text for line in chat_view(game, users[0]).lines] == ["buy my gold"]
    report = chat.chat_report(game_id=game.pk, user=users[2], message_id=message.pk, reason="spam")
    assert report.message_id == message.pk
    ChatMessage.objects.filter(pk=message.pk).update(hidden=True)  # staff hid it in the admin
    for user in users.values():
        assert "buy my gold" not in every_surface(game, user)
    with pytest.raises(BadPayload):
        chat.chat_mute(game_id=game.pk, user=users[0], other_id=users[0].pk)


def test_a_private_message_cannot_be_reported_by_a_third_player() -> None:
    game, users = three()
    message = chat.chat_post(game_id=game.pk, user=users[0], channel="p1", text=SECRET)
    with pytest.raises(NotFound):
        chat.chat_report(game_id=game.pk, user=users[2], message_id=message.pk)


def test_suspended_players_read_but_cannot_post() -> None:
    game, users = three()
    chat.chat_post(game_id=game.pk, user=users[1], channel="table", text="hello")
    User.objects.filter(pk=users[0].pk).update(chat_suspended_until=timezone.now() + timedelta(days=1))
    with pytest.raises(Forbidden):
        chat.chat_post(game_id=game.pk, user=users[0], channel="table", text="let me in")
    assert [line.text for line in chat_view(game, users[0]).lines] == ["hello"]
    assert not ChatMessage.objects.filter(text="let me in").exists()


def test_rate_limits_per_minute_and_per_day_with_the_time_to_wait() -> None:
    game, users = three()
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for k in range(10):
            chat.chat_post(game_id=game.pk, user=users[0], channel="table", text=f"m{k}")
        with pytest.raises(RateLimited) as limited:
            chat.chat_post(game_id=game.pk, user=users[0], channel="table", text="one too many")
        assert limited.value.status == 429 and limited.value.params["limit"] == 10
        assert 0 < limited.value.params["wait"] <= 61
        clock.shift(timedelta(seconds=61))
        chat.chat_post(game_id=game.pk, user=users[0], channel="table", text="after a minute")
        for k in range(189):  # 200 a day: spread over minutes
            if k % 10 == 0:
                clock.shift(timedelta(seconds=61))
            chat.chat_post(game_id=game.pk, user=users[0], channel="table", text=f"d{k}")
        clock.shift(timedelta(seconds=61))
        with pytest.raises(RateLimited) as daily:
            chat.chat_post(game_id=game.pk, user=users[0], channel="table", text="over the day")
        assert daily.value.params["limit"] == 200
    assert not ChatMessage.objects.filter(text__in=["one too many", "over the day"]).exists()


@pytest.mark.parametrize(
    ("channel", "text", "error"),
    [
        ("table", "", BadPayload),
        ("table", "   ", BadPayload),
        ("table", "x" * 2001, BadPayload),
        ("p0", "to myself", NotFound),
        ("p9", "nobody", NotFound),
        ("lobby", "hi", NotFound),
        ("table", None, BadPayload),
        ("table", "a\x00b", BadPayload),  # no text column can store U+0000
    ],
)
def test_bad_messages_are_refused_and_change_nothing(channel: str, text: Any, error: type[Exception]) -> None:
    game, users = three()
    with pytest.raises(error):
        chat.chat_post(game_id=game.pk, user=users[0], channel=channel, text=text)
    assert not ChatMessage.objects.exists()
    chat.chat_post(game_id=game.pk, user=users[0], channel="table", text="x" * 2000)  # the limit itself


def test_bots_have_no_private_channel_and_strangers_of_a_private_game_get_404() -> None:
    creator = create_user()
    game = create_started_game(humans=[creator], bots=2, seed=3)
    bot_seats = [s.number for s in game.seats.filter(is_bot=True)]
    mine = next(s.number for s in game.seats.filter(user=creator))
    view = chat_view(game, creator)
    assert [c.key for c in view.channels] == ["table"]  # no private conversation with a bot
    with pytest.raises(NotFound):
        chat.chat_post(game_id=game.pk, user=creator, channel=f"p{bot_seats[0]}", text="hi bot")
    assert mine not in bot_seats
    Game.objects.filter(pk=game.pk).update(private=True)
    with pytest.raises(NotFound):
        chat.chat_post(game_id=game.pk, user=create_user(), channel="table", text="let me in")


def test_the_api_reads_posts_and_counts_unread_with_the_same_rules() -> None:
    game, users = three()
    a, b = api(users[0]), api(users[1])
    posted = a.post(
        f"/api/games/{game.pk}/chat",
        json.dumps({"channel": "table", "text": "hi @" + users[1].name}),
        content_type="application/json",
    )
    assert posted.status_code == 201, posted.content
    body = posted.json()
    assert body["text"].startswith("hi @") and body["mine"] is True and body["channel"] == "table"
    listed = b.get(f"/api/games/{game.pk}/chat").json()
    assert [m["text"] for m in listed["messages"]] == [body["text"]]
    assert listed["messages"][0]["mentions_me"] is True
    assert chat_view(game, users[1]).channels[0].unread == 1  # reading writes nothing (issue 31 §4)
    newest = listed["messages"][-1]["id"]
    marked = b.post(
        f"/api/games/{game.pk}/chat/read",
        json.dumps({"channel": "table", "last": newest}),
        content_type="application/json",
    )
    assert marked.status_code == 200 and marked.json() == {"channel": "table", "last": newest}
    assert chat_view(game, users[1]).channels[0].unread == 0
    assert chat_view(game, users[2]).channels[0].unread == 1
    for wrong in ({"channel": "p9", "last": newest}, {"channel": "table", "last": "0" * 16}):
        refused_mark = b.post(
            f"/api/games/{game.pk}/chat/read", json.dumps(wrong), content_type="application/json"
        )
        assert refused_mark.status_code == 404, wrong
    bad = a.post(
        f"/api/games/{game.pk}/chat",
        json.dumps({"channel": "table", "text": ""}),
        content_type="application/json",
    )
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_request"
    extra = a.post(
        f"/api/games/{game.pk}/chat",
        json.dumps({"channel": "table", "text": "x", "html": "<b>"}),
        content_type="application/json",
    )
    assert extra.status_code == 400
    stranger = api(create_user())
    refused = stranger.post(
        f"/api/games/{game.pk}/chat",
        json.dumps({"channel": "table", "text": "hi"}),
        content_type="application/json",
    )
    assert refused.status_code == 403
    schema = Client().get("/api/openapi.json").json()
    assert "/api/games/{game_id}/chat" in schema["paths"]
    assert set(schema["paths"]["/api/games/{game_id}/chat"]) == {"get", "post"}


def test_reading_costs_the_same_queries_with_500_messages_as_with_one_and_pages_hold_50() -> None:
    game, users = three()

    def queries() -> int:
        fresh = Game.objects.get(pk=game.pk)
        with CaptureQueriesContext(connection) as ctx:
            chat_view(fresh, users[1], "table")
            chat_version(fresh, users[1])
        return len(ctx.captured_queries)

    empty = queries()

    def add(first: int, last: int) -> None:
        ChatMessage.objects.bulk_create(
            ChatMessage(
                game=game,
                author=users[k % 3],
                author_seat=k % 3,
                channel="table",
                text=f"m{k}",
                created_at=timezone.now(),
            )
            for k in range(first, last)
        )

    add(0, 1)
    one = queries()
    assert empty == one - 1  # a channel without messages skips the query for its lines
    add(1, 500)
    assert queries() == one
    view = chat_view(game, users[1], "table")
    assert len(view.lines) == PAGE and view.lines[-1].text == "m499" and view.older is not None
    older = chat_view(game, users[1], "table", before=view.older)
    assert older.lines[-1].text == "m449" and len(older.lines) == PAGE


def test_the_table_talk_goes_into_the_exported_record_only_when_every_player_agrees() -> None:
    game, users = three()
    chat.chat_post(game_id=game.pk, user=users[0], channel="table", text="gg all")
    chat.chat_post(game_id=game.pk, user=users[0], channel="p1", text=SECRET)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)  # only finished games export
    client = Client()
    client.force_login(users[2])

    def exported() -> dict[str, Any]:
        response = client.get(f"/games/{game.pk}/record.json")
        assert response.status_code == 200
        return dict(json.loads(response.content))

    assert "chat" not in exported()
    for n in (0, 1):
        chat.chat_export_consent(game_id=game.pk, user=users[n], consent=True)
    assert "chat" not in exported()  # one player has not agreed
    chat.chat_export_consent(game_id=game.pk, user=users[2], consent=True)
    record = exported()
    assert [(m["seat"], m["text"]) for m in record["chat"]] == [(0, "gg all")]
    assert SECRET not in json.dumps(record)  # private messages never go into a record
    with pytest.raises(NotFound):
        chat.chat_export_consent(game_id=game.pk, user=create_user(), consent=True)


def test_the_new_game_form_lets_the_table_open_its_chat_to_spectators() -> None:
    creator = create_user()
    client = Client()
    client.force_login(creator)
    page = client.get("/games/new/")
    assert b'name="chat_spectators"' in page.content
    form = {"title": "Open table", "players": "2", "time_control": "daily", "fracture_prompts": "all"}
    form["chat_spectators"] = "on"
    response = client.post("/games/new/", form)
    assert response.status_code == 302, response.content[:500]
    assert Game.objects.get(title="Open table").chat_spectators is True


def test_each_player_agrees_to_the_export_on_the_chat_settings_page() -> None:
    game, users = three()
    client = Client()
    client.force_login(users[0])
    page = client.get(f"/games/{game.pk}/chat/muted/").content.decode()
    assert "0 of 3 players agree." in page and 'name="consent" value="1"' in page
    assert client.post(f"/games/{game.pk}/chat/export/", {"consent": "1"}).status_code == 302
    assert game.seats.get(user=users[0]).chat_in_export is True
    page = client.get(f"/games/{game.pk}/chat/muted/").content.decode()
    assert "1 of 3 players agree." in page and 'name="consent" value="0"' in page
    stranger = Client()
    stranger.force_login(create_user())
    assert stranger.post(f"/games/{game.pk}/chat/export/", {"consent": "1"}).status_code == 404


def test_a_private_message_is_not_on_the_replay_or_the_finished_page_of_a_third_player() -> None:
    game, users = three()
    chat.chat_post(game_id=game.pk, user=users[0], channel="p1", text=SECRET)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    client = Client()
    client.force_login(users[2])
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/replay/", f"/games/{game.pk}/chat/?channel=p0"):
        response = client.get(url, follow=True)
        assert response.status_code == 200, url
        assert SECRET not in response.content.decode(), url


def test_a_lobby_has_no_chat_by_any_door() -> None:
    """Messages are filed by seat number, and the start deals the seat numbers anew: a lobby message would
    be shown to whoever got its seats. The pages never offered a lobby chat; the service (so the API and
    email too) refuses one with 409 and stores nothing."""
    a, b = create_user(), create_user()
    lobby = services.game_create(user=a, title="Lobby talk", players=3)
    services.seat_join(game_id=lobby.pk, user=b)
    with pytest.raises(Conflict):
        chat.chat_post(game_id=lobby.pk, user=a, channel="p1", text="only for you")
    posted = api(a).post(
        f"/api/games/{lobby.pk}/chat",
        json.dumps({"channel": "table", "text": "hello"}),
        content_type="application/json",
    )
    assert posted.status_code == 409 and posted.json()["error"] == "conflict"
    assert not ChatMessage.objects.exists()


def test_messages_a_lobby_holds_from_before_the_lobby_rule_are_dropped_at_the_start() -> None:
    """A lobby message stored before the chat refused lobbies (the API took them) names seats the start
    deals anew: the start drops it, so nobody reads a message filed under their new seat number."""
    a, b, c = create_user(), create_user(), create_user()
    lobby = services.game_create(user=a, title="Old lobby talk", players=3)
    services.seat_join(game_id=lobby.pk, user=b)
    services.seat_join(game_id=lobby.pk, user=c)
    ChatMessage.objects.create(
        game=lobby,
        author=a,
        author_seat=0,
        channel=ChatMessage.Channel.PRIVATE,
        to_seat=1,
        text="only for you",
        created_at=timezone.now(),
        game_seq=0,
    )
    services.game_start(game_id=lobby.pk, user=a, seed=7)
    assert not ChatMessage.objects.filter(game=lobby).exists()
    for user in (a, b, c):
        assert all(
            not view.lines
            for view in [chat_view(Game.objects.get(pk=lobby.pk), user, f"p{n}") for n in range(3)]
        )
