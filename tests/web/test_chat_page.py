"""issue 19 "Table talk" on the game page: the chat panel, its views (post, channel, older page, mute,
report, layout) with and without htmx, the poll bringing new messages, and the permission rules seen
through every page surface. A private message's exact text must appear on no page, partial or poll answer
of a third player. The page's query count does not grow with the number of messages.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from accounts.models import User
from games.chat import PAGE
from games.messages import rate_limit_message
from games.models import ChatMessage, ChatMute, ChatRead, ChatReport, Game
from games.services import chat
from games.services.chat_ids import message_pk, public_id
from games.web.presenters.chat import LINK_REL, message_html

from .conftest import create_started_game, create_user, seat_users

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}
#: The private message of the leak tests: plain words, so its exact text is what a page would show.
SECRET = "meet me at the Fort at dawn and leave Cid alone xq7"


@pytest.fixture
def players() -> tuple[Game, User, User, User]:
    """A started game of Alice (seat 0), Bob (seat 1) and Carol (seat 2)."""
    game = create_started_game(humans=3, seed=4)
    users = seat_users(game)
    for seat, name in enumerate(("Alice", "Bob", "Carol")):
        User.objects.filter(pk=users[seat].pk).update(display_name=name)
        users[seat].refresh_from_db()
    return Game.objects.get(pk=game.pk), users[0], users[1], users[2]


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page(client: Client, game: Game, **params: Any) -> str:
    response = client.get(reverse("games:detail", args=[game.pk]), params)
    assert response.status_code == 200
    return response.content.decode()


def say(game: Game, user: User, text: str, channel: str = "table") -> ChatMessage:
    return chat.chat_post(game_id=game.pk, user=user, channel=channel, text=text)


def post(client: Client, game: Game, text: str, channel: str = "table", htmx: bool = True) -> Any:
    data = {"channel": channel, "text": text}
    return client.post(reverse("games:chat_post", args=[game.pk]), data, headers=HX if htmx else {})


def poll(client: Client, game: Game, **params: Any) -> Any:
    query = {"seq": game.seq, "sig": "", **params}
    return client.get(reverse("games:poll", args=[game.pk]), query, headers=HX)


def chat_state(body: str) -> dict[str, str]:
    """The chat panel's state the poller sends back (``#chat-state``)."""
    found = re.search(r'<div id="chat-state".*?</div>', body, re.S)
    assert found, "no #chat-state"
    return dict(re.findall(r'name="(\w+)" value="([^"]*)"', found.group(0)))


# ----------------------------------------------------------------------------------------------------------
# The panel


def test_the_panel_renders_for_a_seated_player(players: tuple[Game, User, User, User]) -> None:
    game, alice, bob, _carol = players
    say(game, bob, "good luck all")
    body = page(client_for(alice), game)
    assert 'id="chat-panel"' in body and 'aria-labelledby="h-chat"' in body
    tabs = re.search(r'<nav id="chat-tabs".*?</nav>', body, re.S)
    assert tabs is not None
    assert ">Table" in tabs.group(0) and "Private: Bob" in tabs.group(0) and "Private: Carol" in tabs.group(0)
    assert 'data-channel="table" aria-current="true"' in tabs.group(0)
    assert "good luck all" in body
    assert (
        'maxlength="2000"' in body and '<label for="chat-text" id="chat-to">Message to Table</label>' in body
    )
    assert 'id="chat-toggle"' in body and 'href="#chat-panel"' in body
    assert re.search(r'<time datetime="[^"]+">[^<]+</time>', body)  # the reader's zone, the site's format
    assert 'hx-include="#chat-state"' in body  # the poller sends the panel's state
    assert chat_state(body)["channel"] == "table"


def test_an_empty_channel_says_so(players: tuple[Game, User, User, User]) -> None:
    game, alice, _bob, _carol = players
    body = page(client_for(alice), game, channel="p1")
    assert "No messages here yet." in body
    assert "Message to Private: Bob" in body


def test_links_are_clickable_and_no_html_of_users_is_rendered(players: tuple[Game, User, User, User]) -> None:
    game, alice, bob, _carol = players
    say(game, alice, '<script>alert("x")</script> <b>bold</b> see https://example.com/a?b=1&c=2 @Bob')
    say(game, alice, "javascript:alert(1) and <a href='javascript:alert(2)'>click</a>")
    body = page(client_for(bob), game)
    assert "<script>alert" not in body and "<b>bold</b>" not in body
    assert "&lt;script&gt;" in body and "&lt;b&gt;bold&lt;/b&gt;" in body
    assert f'<a href="https://example.com/a?b=1&amp;c=2" rel="{LINK_REL}">' in body
    assert 'href="javascript:' not in body
    assert "<mark>@Bob</mark>" in body and "chat-line mention" in body and "mentions you" in body
    own = page(client_for(alice), game)
    assert "<mark>" not in own  # a mention of Bob is not Alice's


def test_message_html_sanitizes_whatever_urlize_makes() -> None:
    html = message_html("www.example.org, mail me@example.com or see <img src=x onerror=alert(1)>", "")
    assert 'href="http://www.example.org"' in html and 'href="mailto:me@example.com"' in html
    assert "<img" not in html and "&lt;img" in html
    assert str(message_html("hi @Ann and @Anna", "Ann")) == "hi <mark>@Ann</mark> and @Anna"


# ----------------------------------------------------------------------------------------------------------
# Posting


def test_post_with_htmx_answers_an_empty_form_and_the_panel(players: tuple[Game, User, User, User]) -> None:
    game, alice, _bob, _carol = players
    response = post(client_for(alice), game, "hello table")
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<form id="chat-form"')
    assert "</textarea>" in body and ">hello table</textarea>" not in body  # the field is empty again
    assert re.search(r'<div id="chat" hx-swap-oob="true">', body) and "hello table" in body
    assert 'id="chat-toggle"' in body
    assert ChatMessage.objects.get(game=game).text == "hello table"


def test_post_without_javascript_redirects_to_the_channel(players: tuple[Game, User, User, User]) -> None:
    game, alice, bob, _carol = players
    client = client_for(alice)
    response = post(client, game, "psst, Bob", channel="p1", htmx=False)
    assert response.status_code == 302
    assert response["Location"] == reverse("games:detail", args=[game.pk]) + "?channel=p1#chat-panel"
    body = client.get(response["Location"]).content.decode()
    assert "psst, Bob" in body and "Message to Private: Bob" in body
    assert "psst, Bob" in page(client_for(bob), game, channel="p0")


@pytest.mark.parametrize(
    ("text", "status", "says"),
    [
        ("   ", 400, "Write something first: the message is empty."),
        ("x" * 2001, 400, "A message can be at most 2,000 characters long."),
    ],
)
@pytest.mark.parametrize("htmx", [True, False])
def test_bad_messages_are_refused_with_the_reason(
    players: tuple[Game, User, User, User], text: str, status: int, says: str, htmx: bool
) -> None:
    game, alice, _bob, _carol = players
    response = post(client_for(alice), game, text, htmx=htmx)
    assert response.status_code == status
    body = response.content.decode()
    assert f'<p class="error" role="alert" id="chat-error">{says}</p>' in body
    assert ('id="board"' in body) is not htmx  # htmx: the form alone; else the whole page
    if len(text) > 2000:
        assert text in body  # the text is kept to be shortened
    assert not ChatMessage.objects.exists()


def test_a_channel_the_player_does_not_have_is_404(players: tuple[Game, User, User, User]) -> None:
    game, alice, _bob, _carol = players
    for key in ("p9", "p0", "team", "private"):
        response = post(client_for(alice), game, "hi", channel=key)
        assert response.status_code == 404, key
    assert not ChatMessage.objects.exists()


@pytest.mark.parametrize("htmx", [True, False])
def test_the_rate_limit_says_how_long_to_wait(
    players: tuple[Game, User, User, User], settings: Any, htmx: bool
) -> None:
    settings.CHAT_PER_MINUTE = 2
    game, alice, _bob, _carol = players
    client = client_for(alice)
    assert post(client, game, "one").status_code == 200
    assert post(client, game, "two").status_code == 200
    response = post(client, game, "three", htmx=htmx)
    assert response.status_code == 429
    body = response.content.decode()
    assert re.search(
        r'role="alert" id="chat-error">You have sent too many chat messages. '
        r"Try again in (\d+ seconds?|\d+\xa0minutes?)\.<",
        body,
    )
    assert ChatMessage.objects.count() == 2


def test_the_wait_is_said_in_seconds_then_whole_minutes() -> None:
    assert rate_limit_message({"wait": 1}) == "You have sent too many chat messages. Try again in 1 second."
    assert rate_limit_message({"wait": 59}).endswith("in 59 seconds.")
    assert rate_limit_message({"wait": 61}).endswith("in 2\xa0minutes.")
    assert rate_limit_message({"wait": 3600 * 5 + 1}).endswith("in 5\xa0hours, 1\xa0minute.")


def test_a_suspended_player_cannot_post(players: tuple[Game, User, User, User]) -> None:
    game, alice, _bob, _carol = players
    User.objects.filter(pk=alice.pk).update(chat_suspended_until=timezone.now() + timedelta(days=1))
    response = post(client_for(alice), game, "let me talk")
    assert response.status_code == 403
    assert "The staff have suspended your chat for a while." in response.content.decode()
    assert not ChatMessage.objects.exists()


def test_chat_views_need_login_post_and_a_visible_game(players: tuple[Game, User, User, User]) -> None:
    game, alice, _bob, _carol = players
    anonymous = Client()
    response = anonymous.post(reverse("games:chat_post", args=[game.pk]), {"channel": "table", "text": "x"})
    assert response.status_code == 302 and reverse("account_login") in response["Location"]
    client = client_for(alice)
    assert client.get(reverse("games:chat_post", args=[game.pk])).status_code == 405
    secret_game = create_started_game(humans=2, seed=3)
    Game.objects.filter(pk=secret_game.pk).update(private=True)
    for name in ("chat", "chat_muted"):
        assert client.get(reverse(f"games:{name}", args=[secret_game.pk]), headers=HX).status_code == 404
    for name in ("chat_post", "chat_mute", "chat_report", "chat_layout"):
        data = {"channel": "table", "text": "x", "seat": "0", "message": "1"}
        assert client.post(reverse(f"games:{name}", args=[secret_game.pk]), data).status_code == 404
    assert client.get(reverse("games:chat", args=[10**6]), headers=HX).status_code == 404


def test_bad_parameters_are_4xx_never_500(players: tuple[Game, User, User, User]) -> None:
    game, alice, _bob, _carol = players
    message = say(game, alice, "hi")
    client = client_for(alice)
    chat_url = reverse("games:chat", args=[game.pk])
    # issue 28: a message id or cursor is a public id; its key, or an id no key of the site made, is 400
    forged = public_id(message.pk)[:-1] + ("0" if public_id(message.pk)[-1] != "0" else "1")
    assert message_pk(forged) is None
    assert client.get(chat_url, {"channel": "bogus"}, headers=HX).status_code == 200  # the first channel
    for bad in ("x²", "9" * 40, str(message.pk), forged, public_id(message.pk).upper()):
        assert client.get(chat_url, {"before": bad}, headers=HX).status_code == 400, bad
        assert client.get(chat_url, {"before": bad}).status_code == 400, bad  # without htmx too
        assert poll(client, game, chat=bad).status_code == 400, bad
    assert client.get(chat_url, {"before": public_id(message.pk)}, headers=HX).status_code == 200
    assert page(client, game, before="9" * 40, channel="p²")  # the page shows the newest messages
    assert poll(client, game, chat="abc").status_code == 400
    assert poll(client, game, chat="9" * 40).status_code == 400
    mute = reverse("games:chat_mute", args=[game.pk])
    assert client.post(mute, {"seat": "9"}, headers=HX).status_code == 404
    assert client.post(mute, {"seat": "0"}, headers=HX).status_code == 400  # oneself
    report = reverse("games:chat_report", args=[game.pk])
    assert client.post(report, {"message": "x"}, headers=HX).status_code == 400
    assert client.post(report, {"message": "9" * 30}, headers=HX).status_code == 400
    assert client.post(report, {"message": str(message.pk)}, headers=HX).status_code == 400  # a key
    assert client.post(report, {"message": forged}, headers=HX).status_code == 400
    assert client.post(report, {"message": public_id(10**9)}, headers=HX).status_code == 404
    assert not ChatReport.objects.exists()


# ----------------------------------------------------------------------------------------------------------
# Channels, unread counts, older messages


READ_FORM = re.compile(
    r'<div id="chat-read"[^>]*>\s*<form method="post" action="(?P<url>[^"]+)" hx-post="[^"]+" '
    r'hx-trigger="load" hx-swap="none">.*?name="channel" value="(?P<channel>[^"]+)">'
    r'<input type="hidden" name="last" value="(?P<last>[^"]+)">',
    re.DOTALL,
)


def read_by_form(client: Client, body: str, htmx: bool = True) -> int:
    """Post the chat panel's read-mark form as htmx does when it loads (or its button without JS)."""
    match = READ_FORM.search(body)
    assert match, "the panel carries its read-mark form"
    data = {"channel": match["channel"], "last": match["last"]}
    response = client.post(match["url"], data, headers=HX if htmx else {})
    return response.status_code


def test_unread_counts_and_viewing_a_channel_marks_it_read(players: tuple[Game, User, User, User]) -> None:
    """Issue 31 §4: showing a channel (a GET) writes nothing; its panel carries a form that marks the shown
    messages read, which htmx posts when the panel loads (a button without JavaScript)."""
    game, alice, bob, _carol = players
    say(game, bob, "one")
    say(game, bob, "two")
    say(game, bob, "secret one", channel="p0")
    client = client_for(alice)
    body = page(client, game, channel="p1")  # Bob's private channel, shown
    assert 'aria-label="Table, 2 unread"' in body
    assert 'aria-label="Chat, 2 unread"' in body  # the phone's toggle: the other channels
    assert 'aria-label="Private: Bob, 1 unread"' not in body
    assert not ChatRead.objects.filter(user=alice).exists()  # the GET wrote nothing
    assert "Mark these messages read" in body  # the button for a browser without JavaScript
    assert read_by_form(client, body, htmx=False) == 302
    assert (
        ChatRead.objects.get(user=alice, channel="p1").last_id
        == ChatMessage.objects.get(channel="private").pk
    )
    response = client.get(reverse("games:chat", args=[game.pk]), {"channel": "table"}, headers=HX)
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="chat">')
    assert "one" in body and "two" in body and "Table, 2 unread" not in body
    assert '<input type="hidden" id="chat-channel" name="channel" value="table" hx-swap-oob="true">' in body
    assert not ChatRead.objects.filter(user=alice, channel="table").exists()
    assert read_by_form(client, body) == 204
    assert ChatRead.objects.filter(user=alice, channel="table").exists()
    assert "unread" not in page(client, game).split('id="chat-tabs"')[1].split("</nav>")[0]


def test_a_read_mark_that_is_malformed_too_new_or_for_another_channel_changes_nothing(
    players: tuple[Game, User, User, User],
) -> None:
    game, alice, bob, _carol = players
    say(game, bob, "to the table")
    secret = say(game, bob, SECRET, channel="p2")  # Bob to Carol: Alice may not read it
    client = client_for(alice)
    url = reverse("games:chat_read", args=[game.pk])
    table_last = public_id(ChatMessage.objects.get(channel="table").pk)
    assert client.post(url, {"channel": "table", "last": "x"}, headers=HX).status_code == 400
    assert client.post(url, {"channel": "p9", "last": table_last}, headers=HX).status_code == 404
    newer = public_id(secret.pk)  # a real id, but newer than anything Alice may read
    assert client.post(url, {"channel": "table", "last": newer}, headers=HX).status_code == 400
    assert client.get(url).status_code == 405
    assert not ChatRead.objects.filter(user=alice).exists()
    assert client.post(url, {"channel": "table", "last": table_last}, headers=HX).status_code == 204
    assert ChatRead.objects.get(user=alice, channel="table").last_id < secret.pk


def test_without_htmx_the_channel_view_redirects_to_the_page(players: tuple[Game, User, User, User]) -> None:
    game, alice, _bob, _carol = players
    before = public_id(5)
    response = client_for(alice).get(
        reverse("games:chat", args=[game.pk]), {"channel": "p2", "before": before}
    )
    assert response.status_code == 302
    expected = reverse("games:detail", args=[game.pk]) + f"?channel=p2&before={before}#chat-panel"
    assert response["Location"] == expected


def test_older_messages_load_in_pages_of_fifty(players: tuple[Game, User, User, User]) -> None:
    game, alice, bob, _carol = players
    _bulk(game, alice, bob, 120)
    client = client_for(alice)
    body = page(client, game)
    shown = [_key(n) for n in re.findall(r'class="chat-line[^"]*" data-id="([0-9a-f]{16})"', body)]
    assert len(shown) == PAGE == 50
    older = re.search(r'hx-get="[^"]*\?channel=table&amp;before=([0-9a-f]{16})"', body)
    assert older and _key(older.group(1)) == min(shown)
    response = client.get(
        reverse("games:chat", args=[game.pk]), {"channel": "table", "before": older.group(1)}, headers=HX
    )
    second = response.content.decode()
    more = [_key(n) for n in re.findall(r'class="chat-line[^"]*" data-id="([0-9a-f]{16})"', second)]
    assert len(more) == 50 and max(more) < min(shown)
    assert second.lstrip().startswith('<li id="chat-older"')  # the next button first, then the lines
    last = re.search(r"before=([0-9a-f]{16})", second)
    assert last
    third = client.get(
        reverse("games:chat", args=[game.pk]), {"channel": "table", "before": last.group(1)}, headers=HX
    )
    rest = re.findall(r'class="chat-line[^"]*" data-id="([0-9a-f]{16})"', third.content.decode())
    assert len(rest) == 20 and "chat-older" not in third.content.decode()
    no_js = page(client, game, before=older.group(1))  # without JavaScript: the older page, a way back
    assert "Newest messages" in no_js


def _key(public: str) -> int:
    """The key a public id on the page names (the test decodes with the site's key, as the server does)."""
    key = message_pk(public)
    assert key is not None, public
    return key


def _bulk(game: Game, alice: User, bob: User, n: int) -> None:
    """``n`` table messages, Alice's and Bob's in turn, oldest first."""
    now = timezone.now()
    ChatMessage.objects.bulk_create(
        ChatMessage(
            game=game,
            author=alice if i % 2 else bob,
            author_seat=0 if i % 2 else 1,
            channel="table",
            text=f"message {i}",
            created_at=now - timedelta(seconds=n - i),
            game_seq=game.seq,
        )
        for i in range(n)
    )


# ----------------------------------------------------------------------------------------------------------
# Spectators, mutes, hidden messages


def test_spectators_read_the_table_only_after_the_end(players: tuple[Game, User, User, User]) -> None:
    game, alice, _bob, _carol = players
    say(game, alice, "good game so far")
    watcher = client_for(create_user(display_name="Watcher"))
    body = page(watcher, game)
    assert "Spectators can read the table talk once the game is over." in body
    assert "good game so far" not in body and 'id="chat-form"' not in body
    Game.objects.filter(pk=game.pk).update(chat_spectators=True)
    body = page(watcher, game)
    assert "good game so far" in body and 'id="chat-form"' not in body
    assert "You are watching: only seated players can chat." in body
    Game.objects.filter(pk=game.pk).update(chat_spectators=False, status=Game.Status.FINISHED)
    body = page(watcher, game)
    assert "good game so far" in body and 'id="chat-form"' not in body
    response = post(watcher, game, "let me in")
    assert response.status_code == 403
    assert "Only the players seated at this table can chat." in response.content.decode()


def test_a_muted_author_is_hidden_and_can_be_unmuted(players: tuple[Game, User, User, User]) -> None:
    game, alice, bob, _carol = players
    say(game, alice, "buy my sheep")
    client = client_for(bob)
    assert "buy my sheep" in page(client, game)
    response = client.post(
        reverse("games:chat_mute", args=[game.pk]), {"seat": "0", "channel": "table"}, headers=HX
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "buy my sheep" not in body and "You muted Alice" in body and "Unmute Alice" in body
    assert ChatMute.objects.filter(user=bob, muted=alice).exists()
    assert "buy my sheep" not in page(client, game)
    muted = client.get(reverse("games:chat_muted", args=[game.pk])).content.decode()
    assert "Unmute Alice" in muted
    response = client.post(reverse("games:chat_mute", args=[game.pk]), {"seat": "0", "mute": "0"})
    assert response.status_code == 302
    assert "buy my sheep" in page(client, game)
    assert (
        "You have muted nobody at this table."
        in client.get(reverse("games:chat_muted", args=[game.pk])).content.decode()
    )


def test_hidden_messages_are_shown_to_nobody(players: tuple[Game, User, User, User]) -> None:
    game, alice, bob, _carol = players
    message = say(game, alice, "something rude")
    ChatMessage.objects.filter(pk=message.pk).update(hidden=True, hidden_at=timezone.now())
    for user in (alice, bob):
        assert "something rude" not in page(client_for(user), game)


def test_a_report_goes_to_the_staff(players: tuple[Game, User, User, User]) -> None:
    game, alice, bob, carol = players
    message = say(game, alice, "rude words")
    private = say(game, alice, SECRET, channel="p1")
    client = client_for(bob)
    url = reverse("games:chat_report", args=[game.pk])
    response = client.post(url, {"message": public_id(message.pk), "reason": "insults"}, headers=HX)
    assert response.status_code == 200 and "the staff will look at this message" in response.content.decode()
    assert ChatReport.objects.get(message=message).reason == "insults"
    response = client_for(carol).post(url, {"message": public_id(private.pk), "reason": "curious"})
    assert response.status_code == 404 and SECRET not in response.content.decode()
    response = client_for(carol).post(url, {"message": public_id(message.pk), "reason": "me too"})
    assert response.status_code == 302


# ----------------------------------------------------------------------------------------------------------
# The log and the chat, interleaved or apart


def test_table_talk_can_be_interleaved_in_the_log(players: tuple[Game, User, User, User]) -> None:
    game, alice, bob, _carol = players
    say(game, bob, "nice move")
    say(game, bob, SECRET, channel="p2")
    client = client_for(alice)
    log = _log(page(client, game))
    assert "nice move" not in log
    response = client.post(reverse("games:chat_layout", args=[game.pk]), {"mixed": "1"})
    assert response.status_code == 302
    log = _log(page(client, game))
    assert 'class="talk"' in log and "nice move" in log and SECRET not in log
    assert "Show table talk apart from the log" in page(client, game)
    client.post(reverse("games:chat_layout", args=[game.pk]), {"mixed": "0"})
    assert "nice move" not in _log(page(client, game))


def _log(body: str) -> str:
    return body.split('<section id="log"')[1].split("</section>")[0]


def test_a_message_the_staff_hide_leaves_the_interleaved_log_at_once(
    players: tuple[Game, User, User, User],
) -> None:
    """The log panel is cached; with the table talk interleaved, its key must change when a message the
    reader saw is hidden, even an older one (the newest id stays the same), not a minute later."""
    game, alice, bob, _carol = players
    client = client_for(alice)
    client.post(reverse("games:chat_layout", args=[game.pk]), {"mixed": "1"})
    with time_machine.travel(timezone.now(), tick=False):
        rude = say(game, bob, "something rude")
        say(game, bob, "something kind")
        log = _log(page(client, game))
        assert "something rude" in log and "something kind" in log
        ChatMessage.objects.filter(pk=rude.pk).update(hidden=True, hidden_at=timezone.now())
        log = _log(page(client, game))
    assert "something rude" not in log and "something kind" in log


# ----------------------------------------------------------------------------------------------------------
# The poll


def test_the_poll_brings_new_messages_and_is_cheap_when_nothing_changed(
    players: tuple[Game, User, User, User],
) -> None:
    game, alice, bob, _carol = players
    client = client_for(alice)
    state = chat_state(page(client, game))
    assert state == {"chat": public_id(0), "channel": "table", "keys": "table,p1,p2"}
    poll(client, game, **state)
    with CaptureQueriesContext(connection) as ctx:
        assert poll(client, game, **state).status_code == 204
    assert len(ctx.captured_queries) <= 4  # session, user, seq, any newer message
    message = say(game, bob, "your move, @Alice")
    response = poll(client, game, **state)
    assert response.status_code == 200
    body = response.content.decode()
    assert '<ol id="chat-lines" hx-swap-oob="beforeend">' in body and "your move, <mark>@Alice</mark>" in body
    assert re.search(r'<nav id="chat-tabs"[^>]*hx-swap-oob="true"', body)
    assert chat_state(body)["chat"] == public_id(message.pk)
    assert 'id="board"' not in body  # the game did not move: only the chat
    new_state = chat_state(body)
    assert poll(client, game, **new_state).status_code == 204
    # a message Alice may not read changes nothing for her
    say(game, bob, SECRET, channel="p2")
    assert poll(client, game, **new_state).status_code == 204
    # the page showed other channels (a spectator when the game ends): the whole panel again
    body = poll(client, game, **{**state, "keys": "table"}).content.decode()
    assert '<div id="chat" hx-swap-oob="true">' in body and "your move" in body


def test_a_gg_after_the_end_reaches_the_other_players_open_page(
    players: tuple[Game, User, User, User],
) -> None:
    """Issue 19: a finished game's page keeps polling (every ``GAME_POLL_FINISHED_SECONDS``), so the "gg"
    said after the end arrives without a reload."""
    game, alice, bob, _carol = players
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, winners=[0])
    game.refresh_from_db()
    client = client_for(alice)
    body = page(client, game)
    assert f'hx-include="#chat-state" hx-trigger="every {settings.GAME_POLL_FINISHED_SECONDS}s"' in body
    state = chat_state(body)
    assert poll(client, game, **state).status_code == 204
    say(game, bob, "gg, well played")
    response = poll(client, game, **state)
    assert response.status_code == 200 and "gg, well played" in response.content.decode()
    # a spectator reads the table once the game is over (and so waits for it too)
    watcher = page(client_for(create_user(display_name="Watcher")), game)
    assert "gg, well played" in watcher and 'id="poller" hx-get=' in watcher


def test_a_private_message_appears_on_no_surface_of_a_third_player(
    players: tuple[Game, User, User, User],
) -> None:
    game, alice, bob, carol = players
    say(game, alice, "hello everyone")
    say(game, alice, SECRET, channel="p1")
    texts = (SECRET, escape(SECRET))
    assert SECRET in page(client_for(bob), game, channel="p0")  # its two players read it
    assert SECRET in page(client_for(alice), game, channel="p1")
    keys = ["table", "team", "p0", "p1", "p2", "p3", "private", ""]
    for user in (carol, create_user()):
        client = client_for(user)
        client.post(reverse("games:chat_layout", args=[game.pk]), {"mixed": "1"})
        bodies = [
            page(client, game),
            client.get(reverse("games:chat_muted", args=[game.pk])).content.decode(),
        ]
        for key in keys:
            bodies.append(page(client, game, channel=key))
            for params in ({"channel": key}, {"channel": key, "before": public_id(999999)}):
                bodies.append(
                    client.get(reverse("games:chat", args=[game.pk]), params, headers=HX).content.decode()
                )
            for seen in (public_id(0), public_id(1)):
                for changed in ({}, {"seq": game.seq - 1}):
                    response = poll(client, game, chat=seen, channel=key, keys="x", **changed)
                    bodies.append(response.content.decode())
        bodies.append(client.get(reverse("games:partial", args=[game.pk, "log"])).content.decode())
        bodies.append(post(client, game, "", channel="p0").content.decode())
        assert any("hello everyone" in b for b in bodies) is (user == carol)  # the surfaces work
        for body in bodies:
            for text in texts:
                assert text not in body


# ----------------------------------------------------------------------------------------------------------
# The query budget


def test_the_game_page_costs_the_same_queries_with_500_messages_as_with_one(
    players: tuple[Game, User, User, User],
) -> None:
    game, alice, bob, _carol = players

    def queries() -> int:
        client = client_for(alice)
        client.get(reverse("games:detail", args=[game.pk]))  # warm caches, mark the table read
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(reverse("games:detail", args=[game.pk])).status_code == 200
        return len(ctx.captured_queries)

    empty = queries()
    _bulk(game, alice, bob, 1)
    one = queries()
    assert empty == one - 1  # a channel without messages skips the query for its lines
    ChatMessage.objects.all().delete()
    _bulk(game, alice, bob, 500)
    ChatMessage.objects.bulk_create(
        ChatMessage(
            game=game,
            author=bob,
            author_seat=1,
            channel="private",
            to_seat=0,
            text=f"private {i}",
            created_at=timezone.now(),
            game_seq=game.seq,
        )
        for i in range(50)
    )
    assert ChatMessage.objects.count() == 550
    assert queries() == one
