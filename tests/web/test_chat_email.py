"""issue 19 "By email": chat follows each player's email preference per kind (a private message or a
mention is its own kind, sent at once by default; table talk waits for the daily digest, which gathers a
game's messages), a chat email has a signed Reply-To whose reply posts to the same conversation, forged and
replayed replies post nothing, and a private message reaches no third player's mail.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core.mail import EmailMultiAlternatives
from django.utils import timezone

from accounts.models import User
from games.models import ChatMessage, Game, InboundMail, Notification
from games.notify import send as notify_send
from games.services import chat

from .conftest import Writes, create_started_game, seat_users
from .test_email_play import deliver, reply_to, to_user

pytestmark = pytest.mark.django_db

SECRET = "private plan: Fort at dawn, qz9"


def table(writes: Writes) -> tuple[Game, dict[int, User]]:
    game = writes(lambda: create_started_game(humans=3, seed=4))
    return game, seat_users(game)


def test_a_private_message_is_emailed_at_once_to_its_reader_only_and_a_reply_answers_it(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users = table(writes)
    sent.clear()
    writes(lambda: chat.chat_post(game_id=game.pk, user=users[0], channel="p1", text=SECRET))
    mails = to_user(sent, users[1])
    assert len(mails) == 1 and SECRET in mails[0].body and "Private message from" in mails[0].subject
    assert "Reply-To" in mails[0].extra_headers
    assert all(SECRET not in m.body for m in sent if m.to != [users[1].email])
    assert not to_user(sent, users[2]) and not to_user(sent, users[0])
    row = deliver(writes, reply_to(mails[0], "Agreed, see you there."))
    assert row.status == InboundMail.Status.APPLIED
    answer = ChatMessage.objects.get(text="Agreed, see you there.")
    assert (answer.author_id, answer.channel, answer.author_seat, answer.to_seat) == (
        users[1].pk,
        "private",
        1,
        0,
    )


def test_table_talk_waits_for_the_digest_which_gathers_the_games_messages(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users = table(writes)
    sent.clear()
    writes(lambda: chat.chat_post(game_id=game.pk, user=users[0], channel="table", text="first words"))
    writes(lambda: chat.chat_post(game_id=game.pk, user=users[1], channel="table", text="second words"))
    assert not to_user(sent, users[2])  # "chat" is a digest kind by default
    assert Notification.objects.filter(recipient=users[2], kind="chat", status="digest").count() == 2
    with time_machine.travel(timezone.now().replace(hour=23, minute=0) + timedelta(days=1)):
        notify_send.digests_send()
    digest = to_user(sent, users[2])
    assert len(digest) == 1
    body = digest[0].body
    assert "first words" in body and "second words" in body and body.count("Table talk in") == 1


def test_a_mention_is_its_own_kind_and_goes_at_once(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users = table(writes)
    sent.clear()
    writes(
        lambda: chat.chat_post(game_id=game.pk, user=users[0], channel="table", text=f"@{users[2].name} ok?")
    )
    mails = to_user(sent, users[2])
    assert len(mails) == 1 and "mentioned you" in mails[0].subject
    assert not to_user(sent, users[1])  # table talk for the others waits for the digest


def test_a_chat_kind_turned_off_sends_nothing_and_a_muted_author_is_not_mailed(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users = table(writes)
    users[1].notify = {"message": "off"}
    users[1].save(update_fields=["notify"])
    chat.chat_mute(game_id=game.pk, user=users[2], other_id=users[0].pk)
    sent.clear()
    writes(lambda: chat.chat_post(game_id=game.pk, user=users[0], channel="p1", text="psst"))
    writes(lambda: chat.chat_post(game_id=game.pk, user=users[0], channel="p2", text="psst again"))
    assert sent == []


def test_hidden_messages_are_not_mailed(sent: list[EmailMultiAlternatives], writes: Writes) -> None:
    game, users = table(writes)
    message = chat.chat_post(
        game_id=game.pk, user=users[0], channel="p1", text="rude words"
    )  # queued, not sent
    ChatMessage.objects.filter(pk=message.pk).update(hidden=True)
    sent.clear()
    writes(lambda: notify_send.outbox_flush())
    assert all("rude words" not in m.body for m in sent)
    assert Notification.objects.get(recipient=users[1], kind="message").skip_reason == "hidden"


@pytest.mark.parametrize("case", ["forged", "replayed"])
def test_forged_or_replayed_replies_to_a_chat_email_post_nothing(
    case: str, sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users = table(writes)
    sent.clear()
    writes(lambda: chat.chat_post(game_id=game.pk, user=users[0], channel="p1", text=SECRET))
    mail = to_user(sent, users[1])[0]
    if case == "forged":
        deliver(writes, reply_to(mail, "forged words", sender="mallory@evil.example"))
        assert not ChatMessage.objects.filter(text="forged words").exists()
    else:
        raw = reply_to(mail, "said once", message_id="<once@client.example>")
        deliver(writes, raw)
        deliver(writes, raw)
        assert ChatMessage.objects.filter(text="said once").count() == 1


def test_a_refused_chat_reply_is_answered_with_its_reason(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users = table(writes)
    sent.clear()
    writes(lambda: chat.chat_post(game_id=game.pk, user=users[0], channel="p1", text=SECRET))
    mail = to_user(sent, users[1])[0]
    User.objects.filter(pk=users[1].pk).update(chat_suspended_until=timezone.now() + timedelta(days=1))
    sent.clear()
    row = deliver(writes, reply_to(mail, "let me answer"))
    assert row.status == InboundMail.Status.REFUSED and not ChatMessage.objects.filter(text="let me answer")
    answers = to_user(sent, users[1])
    assert len(answers) == 1
    assert "Your reply was not posted: The staff have suspended your chat for a while." in answers[0].body
