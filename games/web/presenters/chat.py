"""The chat panel of the game page (issue 19 "Table talk"): a reader's channels with unread counts, the
lines of the channel shown as safe HTML, and what the page's poll compares. Everything comes from
:func:`games.chat.chat_view` (the permission rules live in :mod:`games.services.chat`); nothing here writes.

Message text is plain text: it is escaped, links are made clickable by Django's ``urlize`` and the result
goes through the nh3 sanitizer (the Ammonia HTML cleaner), which keeps nothing but ``<a href>`` with a web
or mail address and ``<mark>`` for a mention of the reader. No HTML from users is ever rendered.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime

import nh3
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.utils.html import escape, urlize
from django.utils.safestring import SafeString, mark_safe

from accounts.models import User
from games.chat import Channel, ChatLine, ChatView, chat_view
from games.models import ChatMessage, ChatMute, Game
from games.selectors import LogEntry
from games.services.chat_ids import public_id

#: What a rendered message may contain after sanitizing: links and mention marks, nothing else.
_TAGS = {"a", "mark"}
_ATTRIBUTES = {"a": {"href"}}
_SCHEMES = {"http", "https", "mailto"}
#: ``rel`` of every link in a message (user content: no referrer, no opener, no ranking).
LINK_REL = "nofollow noopener noreferrer ugc"
#: What the chat partials show only after a write or for a poll: a refusal and the text refused, a notice
#: (and whom to unmute: seat, name), the lines new since the poller's version.
PANEL_DEFAULTS: dict[str, object] = {
    "chat_error": "",
    "chat_text": "",
    "chat_notice": "",
    "chat_unmute": None,
    "chat_news": [],
}


def message_html(text: str, name: str = "") -> SafeString:
    """``text`` (a chat message, plain text) as safe HTML: escaped, web and mail addresses as links
    (``rel`` :data:`LINK_REL`), and each ``@name`` mention of ``name`` (the reader) in ``<mark>``. Line breaks
    stay as they are (the page shows them with ``white-space: pre-wrap``)."""
    pieces: list[str] = []
    if name:
        pattern = re.compile(r"(?<!\w)(@" + re.escape(name) + r")(?!\w)", re.IGNORECASE)
        for index, piece in enumerate(pattern.split(text)):
            pieces.append(f"<mark>{escape(piece)}</mark>" if index % 2 else urlize(piece, autoescape=True))
    else:
        pieces.append(urlize(text, autoescape=True))
    clean = nh3.clean(
        "".join(pieces), tags=_TAGS, attributes=_ATTRIBUTES, url_schemes=_SCHEMES, link_rel=LINK_REL
    )
    return mark_safe(clean)


@dataclass(frozen=True)
class Line:
    """One message as the panel shows it: :class:`games.chat.ChatLine`'s fields plus ``html`` (the text as
    safe HTML, :func:`message_html`). ``id`` is the message's public id (the only id a page shows, issue 28:
    :func:`games.services.chat_ids.public_id`), ``pk`` its key, for the server's own comparisons."""

    id: str
    pk: int
    key: str
    author: str
    seat: int
    html: SafeString
    at: datetime
    mine: bool
    mentions_me: bool

    @property
    def talk(self) -> bool:
        """Always true: tells a chat line from a log entry in the interleaved log."""
        return True


@dataclass
class ChatPanel:
    """The chat of one game as one reader sees it on the page.

    Attributes:
        channels: the reader's channels (the one shown counts as read).
        key: the channel shown; ``label`` its name.
        lines: its messages, oldest first (a page of :data:`games.chat.PAGE`); ``older``: the public id to
            load the page before (``None``: no older messages).
        version: the public id of the newest message the reader may read (the poll sends it back);
            ``newest`` its key (0: none), which the server compares.
        post: whether the reader may post (seated players; spectators read only).
        seated: whether the reader has a seat (spectators get other empty states).
        mark: the key of the message up to which the shown channel is to be marked read (``None``: nothing
            new there).
        mixed: table talk is also shown in the game log, interleaved by time.
        table: the table lines for the interleaved log (``lines`` when the table is shown).
    """

    channels: list[Channel] = field(default_factory=list)
    key: str = "table"
    label: str = ""
    lines: list[Line] = field(default_factory=list)
    older: str | None = None
    version: str = ""
    newest: int = 0
    post: bool = False
    seated: bool = False
    mark: int | None = None
    mixed: bool = False
    table: list[Line] = field(default_factory=list)
    user_id: int | None = None

    @property
    def mark_id(self) -> str:
        """The public id of :attr:`mark` (``""``: nothing to mark), posted back to mark the channel read."""
        return "" if self.mark is None else public_id(self.mark)

    @property
    def keys(self) -> str:
        """The reader's channel keys, comma-separated: when the poll sees other keys it redraws the panel."""
        return ",".join(c.key for c in self.channels)

    @property
    def unread(self) -> int:
        """Unread messages over all the reader's channels."""
        return sum(c.unread for c in self.channels)

    @property
    def log_key(self) -> str:
        """The part of the log panel's cache key that the interleaved table talk adds (empty: apart): the
        reader, the newest message and a digest of the ids of the table lines shown, so a message the staff
        hide (or the reader mutes) leaves the cached log at once, not only new ones."""
        if not self.mixed:
            return ""
        shown = ",".join(str(line.pk) for line in self.table)
        digest = hashlib.blake2s(shown.encode(), digest_size=6).hexdigest()
        return f"talk.{self.user_id}.{self.newest}.{digest}"

    def after(self, seen: int) -> list[Line]:
        """The lines of the shown channel newer than the message with key ``seen`` (a decoded cursor)."""
        return [line for line in self.lines if line.pk > seen]

    def mixed_log(self, log: list[LogEntry]) -> list[LogEntry] | list[LogEntry | Line]:
        """The game log (newest first) with the table talk interleaved by time when :attr:`mixed`, else
        ``log`` itself."""
        if not self.mixed or not self.table:
            return log
        merged: list[LogEntry | Line] = []
        talk = sorted(self.table, key=lambda line: line.pk, reverse=True)
        index = 0
        for entry in log:
            while index < len(talk) and talk[index].at >= entry["at"]:
                merged.append(talk[index])
                index += 1
            merged.append(entry)
        merged.extend(talk[index:])
        return merged


def _lines(view: ChatView, name: str) -> list[Line]:
    return [_line(line, name) for line in view.lines]


def _line(line: ChatLine, name: str) -> Line:
    html = message_html(line.text, name if line.mentions_me else "")
    return Line(
        public_id(line.id),
        line.id,
        line.key,
        line.author,
        line.seat,
        html,
        line.at,
        line.mine,
        line.mentions_me,
    )


def chat_panel(
    game: Game,
    user: AbstractBaseUser | AnonymousUser,
    key: str = "table",
    before: int | None = None,
    *,
    mixed: bool = False,
) -> ChatPanel:
    """The chat panel of ``game`` for ``user``, showing channel ``key`` (its newest page, or the page before
    the message with key ``before``, a decoded cursor); ``mixed``: also read the table's newest page for the
    interleaved log. The queries of :func:`games.chat.chat_view`, twice when ``mixed`` and another channel
    is shown."""
    view = chat_view(game, user, key, before)
    seats = list(game.seats.all())
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    me = next((s for s in seats if user_id is not None and s.user_id == user_id), None)
    name = me.name if me is not None else ""
    shown = next((c for c in view.channels if c.key == view.key), None)
    panel = ChatPanel(
        key=view.key,
        label=shown.label if shown is not None else "",
        lines=_lines(view, name),
        older=None if view.older is None else public_id(view.older),
        version=public_id(view.version),
        newest=view.version,
        post=bool(shown and shown.post),
        seated=me is not None,
        mixed=mixed,
        user_id=user_id,
    )
    if shown is not None and shown.unread and before is None and view.lines:
        panel.mark = view.lines[-1].id  # a key: read marks stay on the server
    panel.channels = [Channel(c.key, c.label, 0 if c is shown else c.unread, c.post) for c in view.channels]
    if mixed and view.channels and view.channels[0].key == "table":
        panel.table = panel.lines if view.key == "table" and before is None else _table(game, user, name)
    return panel


def _table(game: Game, user: AbstractBaseUser | AnonymousUser, name: str) -> list[Line]:
    return _lines(chat_view(game, user, "table"), name)


def chat_newer(game_id: int, seen: int) -> bool:
    """Whether ``game_id`` has any message newer than the one with key ``seen`` (a decoded cursor),
    readable or not (one cheap query: the poll computes the reader's real version only then)."""
    return ChatMessage.objects.filter(game_id=game_id, id__gt=seen).exists()


def muted_seats(game: Game, user: User) -> list[tuple[int, str]]:
    """The seats of ``game`` whose players ``user`` has muted, as (seat number, name), in seat order."""
    seats = [s for s in game.seats.all() if s.user_id is not None and s.user_id != user.pk]
    muted = set(
        ChatMute.objects.filter(user=user, muted_id__in=[s.user_id for s in seats]).values_list(
            "muted_id", flat=True
        )
    )
    return [(s.number, s.name) for s in seats if s.user_id in muted]
