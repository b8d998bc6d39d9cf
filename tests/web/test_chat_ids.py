"""issue 28 §4 "How much others talk": the ids of chat messages a client sees count nothing.

Message keys are one sequence over the whole site, so a seat that saw the keys of its own messages could
count, from the gaps, the other team's talk, other players' private messages and the messages the staff
hid. These tests play an Allegiance table where all three happen between seat 0's messages, collect every
id and cursor seat 0 is shown (the API's ``id``, ``older`` and ``version``, the page's ``data-id``, report
forms, "older messages" links and poll state, the interleaved log, the poll's answers, the emails'
``Message-ID``) and check that none is a key or reveals one without the site's ``SECRET_KEY``
(:mod:`games.services.chat_ids`), that they are the same on every surface and do not move when others talk,
and that a malformed or forged id is a 4xx that changes nothing.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from typing import Any

import pytest
from django.core.mail import EmailMultiAlternatives
from django.test import Client
from django.urls import reverse
from pytest_django import Settings as SettingsWrapper

from accounts.models import ApiToken, User
from games import services
from games.models import ChatMessage, ChatRead, ChatReport, Notification
from games.services import chat
from games.services.chat_ids import message_pk, public_id
from games.services.outbox import dedupe_key

from .conftest import Writes, create_started_game, seat_users

pytestmark = pytest.mark.django_db

HX = {"HX-Request": "true"}
#: What a public id looks like.
TOKEN = re.compile(r"^[0-9a-f]{16}$")
#: Where a page shows ids: a line's ``data-id`` and element id, a report form's message, an "older
#: messages" cursor, the poller's chat version, a talk entry of the interleaved log.
PAGE_IDS = re.compile(
    r'data-id="([^"]*)"|name="message" value="([^"]*)"|before=([^"&#]*)|name="chat" value="([^"]*)"'
    r'|data-chat="([^"]*)"'
)


class Table:
    """An Allegiance game of four (pairs): ``me`` is seat 0, ``mate`` its teammate, ``rival`` and ``other``
    the other team; ``users`` by seat."""

    def __init__(self) -> None:
        self.game = create_started_game(humans=4, seed=2, options={"allegiance": "pairs"})
        self.users = seat_users(self.game)
        teams = {n: services.game_state(self.game).players[n].team for n in self.users}
        self.me = 0
        self.mate = next(n for n in self.users if n != 0 and teams[n] == teams[0])
        self.rival, self.other = (n for n in self.users if teams[n] != teams[0])

    def say(self, seat: int, channel: str, text: str) -> ChatMessage:
        return chat.chat_post(game_id=self.game.pk, user=self.users[seat], channel=channel, text=text)

    def elsewhere(self, k: int) -> None:
        """Talk seat 0 may not read: the other team's channel, a private message between its two players,
        and a table message the staff hide."""
        self.say(self.rival, "team", f"their plan {k}")
        self.say(self.other, f"p{self.rival}", f"their secret {k}")
        hidden = self.say(self.other, "table", f"rude words {k}")
        ChatMessage.objects.filter(pk=hidden.pk).update(hidden=True)

    def play(self, *, others: bool) -> list[ChatMessage]:
        """Twelve messages seat 0 reads (table, team, a private conversation with the rival), with the
        others' talk between every two of them when ``others``; returns seat 0's messages, oldest first."""
        mine: list[ChatMessage] = []
        lines = [
            (self.me, "table", "good luck all"),
            (self.rival, "table", "and to you"),
            (self.mate, "team", "I take the north"),
            (self.me, "team", "then I hold the Fort"),
            (self.rival, f"p{self.me}", "truce until turn 3?"),
            (self.me, f"p{self.rival}", "deal"),
            (self.other, "table", "nice move"),
            (self.mate, "table", "thanks"),
            (self.me, "table", "your turn"),
            (self.mate, "team", "watch the east"),
            (self.rival, f"p{self.me}", "still a deal?"),
            (self.me, f"p{self.rival}", "yes"),
        ]
        for k, (seat, channel, text) in enumerate(lines):
            if others:
                self.elsewhere(k)
            mine.append(self.say(seat, channel, text))
        if others:
            self.elsewhere(len(lines))
        return mine


def api(user: User) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(user, 'ids')}")


def browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api_surface(table: Table) -> list[dict[str, Any]]:
    """Every channel of seat 0 through the API, newest page first and then page by page through
    ``older`` (the pages are 3 messages long here)."""
    client = api(table.users[table.me])
    answers = []
    for key in ("table", "team", f"p{table.rival}", f"p{table.mate}"):
        params: dict[str, str] = {"channel": key}
        while True:
            response = client.get(f"/api/games/{table.game.pk}/chat", params)
            assert response.status_code == 200, response.content
            answers.append(response.json())
            if answers[-1]["older"] is None:
                break
            params = {"channel": key, "before": answers[-1]["older"]}
    return answers


def api_ids(answers: list[dict[str, Any]]) -> list[str]:
    """Every id and cursor in API answers."""
    out: list[str] = []
    for answer in answers:
        out += [m["id"] for m in answer["messages"]]
        out += [answer["version"]] + ([answer["older"]] if answer["older"] is not None else [])
    return out


def page_ids(body: str) -> list[str]:
    return [next(g for g in match.groups() if g is not None) for match in PAGE_IDS.finditer(body)]


def page_surface(table: Table) -> list[str]:
    """Seat 0's game page on every channel, with the table talk in the log, the older pages loaded with
    htmx, and a poll that brings a new message."""
    game = table.game
    client = browser(table.users[table.me])
    client.post(reverse("games:chat_layout", args=[game.pk]), {"mixed": "1"})
    bodies = []
    for key in ("table", "team", f"p{table.rival}", f"p{table.mate}"):
        body = client.get(reverse("games:detail", args=[game.pk]), {"channel": key}).content.decode()
        bodies.append(body)
        cursor = re.search(r"before=([0-9a-f]{16})", body)
        while cursor:
            params = {"channel": key, "before": cursor.group(1)}
            older = client.get(reverse("games:chat", args=[game.pk]), params, headers=HX)
            assert older.status_code == 200
            bodies.append(older.content.decode())
            cursor = re.search(r"before=([0-9a-f]{16})", bodies[-1])
    state = dict(re.findall(r'name="(chat|channel|keys)" value="([^"]*)"', bodies[0]))
    table.say(table.mate, "table", "new here")
    polled = client.get(
        reverse("games:poll", args=[game.pk]), {"seq": game.seq, "sig": "", **state}, headers=HX
    )
    assert polled.status_code == 200 and "new here" in polled.content.decode()
    bodies.append(polled.content.decode())
    return [i for body in bodies for i in page_ids(body)]


@pytest.fixture
def short_pages(monkeypatch: pytest.MonkeyPatch, settings: SettingsWrapper) -> None:
    """Pages of 3 messages, so that every channel has ``older`` cursors; no rate limit in the way."""
    monkeypatch.setattr("games.chat.PAGE", 3)
    settings.CHAT_PER_MINUTE = settings.CHAT_PER_DAY = 1000


@pytest.mark.usefixtures("short_pages")
def test_no_id_or_cursor_a_seat_sees_is_a_key_or_counts_the_others_talk() -> None:
    table = Table()
    mine = table.play(others=True)
    answers = api_surface(table)
    seen = api_ids(answers) + page_surface(table)
    readable = {m.pk for m in mine} | {ChatMessage.objects.get(text="new here").pk}
    assert ChatMessage.objects.filter(game=table.game).count() == len(readable) + 13 * 3
    assert len(seen) > 60
    keys = {m.pk for m in ChatMessage.objects.filter(game=table.game)}
    for token in seen:
        assert TOKEN.match(token), token  # an opaque id, not a number
        assert not token.isdigit() or int(token) not in keys
        assert message_pk(token) in readable | {0}, token  # and only of a message seat 0 may read
    # the same message has the same id on every surface: the API's ids are the page's
    api_set = {m["id"] for a in answers for m in a["messages"]}
    assert api_set <= set(seen[len(api_ids(answers)) :])
    # oldest first, as the server gives them, the ids are no increasing sequence, so no difference
    # between two of them counts the messages posted between them
    pages = [[m["id"] for m in a["messages"]] for a in answers if a["channel"] == "table"]
    table_ids = [int(i, 16) for page in reversed(pages) for i in page]
    ordered = [m.pk for m in mine if m.channel == "table"]
    assert len(table_ids) == len(ordered) == 5
    assert table_ids != sorted(table_ids) and table_ids != sorted(table_ids, reverse=True)
    gaps = [b - a for a, b in itertools.pairwise(ordered)]
    assert [b - a for a, b in itertools.pairwise(table_ids)] != gaps


@pytest.mark.usefixtures("short_pages")
def test_reading_an_id_takes_the_sites_key(settings: SettingsWrapper) -> None:
    """Under another ``SECRET_KEY`` the same messages have other ids, and the first key's ids name none
    of them: what an id says is in the key, not in the id."""
    table = Table()
    mine = table.play(others=True)
    before = {m["text"]: m["id"] for a in api_surface(table) for m in a["messages"]}
    settings.SECRET_KEY = "another-key-" + "y" * 50
    after = {m["text"]: m["id"] for a in api_surface(table) for m in a["messages"]}
    assert before.keys() == after.keys() and len(before) == len(mine)
    assert all(before[text] != after[text] for text in before)
    assert all(message_pk(token) not in {m.pk for m in mine} for token in before.values())


@pytest.mark.usefixtures("short_pages")
def test_a_seats_ids_and_version_do_not_move_when_others_talk() -> None:
    """What seat 0 reads through the API (ids, cursors, the version its client compares, unread counts) is
    the same before and after the other team talks, two rivals write privately and the staff hide a
    message; the poll stays 204."""
    table = Table()
    table.play(others=False)
    api_surface(table)  # reading the newest pages marks the channels read
    first = api_surface(table)
    client = browser(table.users[table.me])
    body = client.get(reverse("games:detail", args=[table.game.pk])).content.decode()
    state = dict(re.findall(r'name="(chat|channel|keys)" value="([^"]*)"', body))
    for k in range(5):
        table.elsewhere(100 + k)
    assert api_surface(table) == first
    poll = {"seq": table.game.seq, "sig": "", **state}
    assert client.get(reverse("games:poll", args=[table.game.pk]), poll, headers=HX).status_code == 204


def test_a_malformed_or_forged_id_is_a_4xx_and_changes_nothing(settings: SettingsWrapper) -> None:
    settings.CHAT_PER_MINUTE = 1000
    table = Table()
    table.play(others=True)
    me = table.users[table.me]
    real = api(me).get(f"/api/games/{table.game.pk}/chat").json()["messages"][0]["id"]
    forged = real[:-1] + ("1" if real[-1] == "0" else "0")
    key = message_pk(real)
    assert key is not None and message_pk(forged) is None
    marks = list(ChatRead.objects.values_list("channel", "last_id"))
    bad = [forged, str(key), real.upper(), "0", "x" * 16, "٠" * 16, real + "0", ""]
    for value in bad:
        response = api(me).get(f"/api/games/{table.game.pk}/chat", {"before": value})
        if value == forged:  # of an id's form (the schema's pattern), but no key of the site made it
            assert response.status_code == 404 and response.json()["error"] == "not_found"
        else:
            assert response.status_code == 400 and response.json()["error"] == "invalid_request", value
        report = browser(me).post(
            reverse("games:chat_report", args=[table.game.pk]), {"message": value, "reason": "x"}, headers=HX
        )
        assert report.status_code == 400, value
        poll = {"seq": table.game.seq, "sig": "", "chat": value, "channel": "table", "keys": "table"}
        assert (
            browser(me).get(reverse("games:poll", args=[table.game.pk]), poll, headers=HX).status_code == 400
        )
        older = browser(me).get(reverse("games:chat", args=[table.game.pk]), {"before": value}, headers=HX)
        assert older.status_code == 400, value
    assert list(ChatRead.objects.values_list("channel", "last_id")) == marks
    assert not ChatReport.objects.exists()
    # a well-made id of a message seat 0 may not read is a 404, like one of no message
    theirs = ChatMessage.objects.filter(game=table.game, text__startswith="their secret").first()
    assert theirs is not None
    for pk in (theirs.pk, 10**12):
        report = browser(me).post(
            reverse("games:chat_report", args=[table.game.pk]), {"message": public_id(pk), "reason": "x"}
        )
        assert report.status_code == 404
    assert not ChatReport.objects.exists()
    # the API's schema says what an id is
    schema = Client().get("/api/openapi.json").json()
    message = schema["components"]["schemas"]["ChatMessageOut"]["properties"]["id"]
    assert message["type"] == "string" and message["pattern"] == "^[0-9a-f]{16}$"


def test_a_chat_emails_message_id_does_not_give_away_the_message_key(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """The ``Message-ID`` of a chat email gives away no message key: a plain hash of the outbox key
    ``<user>:<game>:chat.<key>:<kind>`` could be reversed by trying the keys near one's own. Since issue 30
    it is random, made when the row is claimed and kept in the row (a copy sent again keeps it)."""
    table = writes(Table)
    sent.clear()
    message = writes(lambda: table.say(table.rival, f"p{table.me}", "psst"))
    mails = [m for m in sent if m.to == [table.users[table.me].email]]
    assert len(mails) == 1
    header = mails[0].extra_headers["Message-ID"]
    me, game = table.users[table.me].pk, table.game.pk
    for key in range(max(1, message.pk - 200), message.pk + 200):
        ref = dedupe_key(me, game, f"chat.{key}", Notification.Kind.MESSAGE)
        assert hashlib.sha256(ref.encode()).hexdigest()[:32] not in header, key
    row = Notification.objects.get(recipient_id=me, kind=Notification.Kind.MESSAGE)
    assert header == row.message_id and re.fullmatch(r"<n\.[0-9a-f]{32}@[^>]+>", header)
