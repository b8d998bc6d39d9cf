"""The words of chat emails (issue 19): a new message in a game's table talk, team or a private
conversation, or a mention of the reader; one email per message, or a day's messages of a game gathered in
the daily digest. A message is mailed only while its reader may still read it (not hidden by staff, its
author not muted since), through the permission rules of :mod:`games.services.chat`.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from accounts.models import User
from games.models import ChatMessage, Game, Notification
from games.services.chat import channel_key, mentions, readable, reader_of


def chat_message_for(n: Notification, user: User) -> ChatMessage | None:
    """The message a chat notification is about, if ``user`` may still read it (else ``None``: the email
    is skipped)."""
    if n.game_id is None:
        return None
    game = Game.objects.prefetch_related("seats").filter(pk=n.game_id).first()
    if game is None:
        return None
    reader = reader_of(game, user)
    return ChatMessage.objects.filter(readable(game, reader), pk=n.data.get("message")).first()


def _where(message: ChatMessage, names: dict[int, str], seat: int | None) -> str:
    """The conversation's name for the reader: "table", "your team", "private"."""
    if message.channel == ChatMessage.Channel.TEAM:
        return _("your team")
    if message.channel == ChatMessage.Channel.PRIVATE:
        return _("private")
    return _("table")


def chat_line(message: ChatMessage, names: dict[int, str], seat: int | None) -> str:
    """``Anna (table): text`` — one message as a digest lists it."""
    return _("%(who)s (%(where)s): %(text)s") % {
        "who": names.get(message.author_seat, "?"),
        "where": _where(message, names, seat),
        "text": message.text,
    }


def chat_email(
    n: Notification, message: ChatMessage, names: dict[int, str], seat: int | None, title: str
) -> tuple[str, str, list[str]]:
    """Subject, headline and lines of the email about ``message`` to the reader in ``seat``."""
    who = names.get(message.author_seat, "?")
    if message.channel == ChatMessage.Channel.PRIVATE:
        subject = _("Private message from %(who)s in “%(title)s”") % {"who": who, "title": title}
    elif seat is not None and mentions(message.text, names.get(seat, "")):
        subject = _("%(who)s mentioned you in “%(title)s”") % {"who": who, "title": title}
    elif message.channel == ChatMessage.Channel.TEAM:
        subject = _("Your team in “%(title)s”: %(who)s wrote") % {"who": who, "title": title}
    else:
        subject = _("Table talk in “%(title)s”: %(who)s wrote") % {"who": who, "title": title}
    headline = _("%(who)s wrote (%(where)s):") % {"who": who, "where": _where(message, names, seat)}
    lines = [*message.text.splitlines(), "", _("Reply to this email to answer in the same conversation.")]
    return subject, headline, lines


def chat_key(message: ChatMessage, user: User) -> str:
    """The channel key of ``message`` as ``user`` names it (the page's ``#chat`` link opens it)."""
    return channel_key(message, reader_of(message.game, user))
