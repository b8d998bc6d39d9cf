"""Reading table talk (issue 19) for the game page, its poll and the API: a reader's channels with unread
counts and the newest messages of one channel, a page at a time, through the permission rules of
:mod:`games.services.chat` (the one home of who reads what). A bounded number of queries whatever the
number of messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from django.db.models import Count, Max, Q
from django.utils.translation import gettext as _

from games.models import ChatMessage, ChatRead, Game, Seat
from games.services.chat import (
    Reader,
    channel_filter,
    channel_key,
    channels_of,
    key_of,
    mentions,
    readable,
    reader_of,
)

#: Messages per page (older ones load a page at a time).
PAGE = 50


@dataclass(frozen=True)
class ChatLine:
    """One message as a reader sees it: ``id`` (its key, the server's own: what a client sees is
    :func:`games.services.chat_ids.public_id` of it, issue 28), channel ``key``, ``author`` (public name)
    and ``seat``, ``text`` (plain text: templates escape it), ``at`` (aware datetime; shown in the reader's
    time zone), ``mine`` and ``mentions_me`` (an ``@name`` of the reader)."""

    id: int
    key: str
    author: str
    seat: int
    text: str
    at: datetime
    mine: bool
    mentions_me: bool


@dataclass(frozen=True)
class Channel:
    """One of a reader's channels: ``key``, ``label`` (in the active language), ``unread`` messages by
    others, and whether the reader may ``post`` in it."""

    key: str
    label: str
    unread: int
    post: bool


@dataclass
class ChatView:
    """A reader's chat of one game: their ``channels``, the ``key`` shown, its ``lines`` (oldest first),
    whether ``older`` lines exist (key of the oldest shown), and the ``version`` (key of the newest readable
    message, 0: none) the page's poll compares. Keys, like :attr:`ChatLine.id`: clients see their public
    ids only."""

    channels: list[Channel] = field(default_factory=list)
    key: str = "table"
    lines: list[ChatLine] = field(default_factory=list)
    older: int | None = None
    version: int = 0


def _label(key: str, names: dict[int, str]) -> str:
    if key == "table":
        return _("Table")
    if key == "team":
        return _("Team")
    return _("Private: %(name)s") % {"name": names.get(int(key[1:]), "?")}


def chat_version(game: Game, user: Any) -> int:
    """The id of the newest message ``user`` may read in ``game`` (0: none): one query for the poll."""
    reader = reader_of(game, user)
    newest = ChatMessage.objects.filter(readable(game, reader)).aggregate(newest=Max("id"))["newest"]
    return int(newest or 0)


def read_mark_refusal(game: Game, user: Any, key: str, last: int) -> str:
    """Why ``user`` may not mark channel ``key`` of ``game`` read up to message key ``last`` (issue 31 §4:
    the page's and the API's read marks): ``"channel"`` when it is not one of the reader's channels,
    ``"message"`` when ``last`` is newer than anything the reader may read there, ``""`` when they may."""
    view = chat_view(game, user, key)
    if view.key != key or not view.channels:
        return "channel"
    return "message" if last > view.version else ""


def chat_view(game: Game, user: Any, key: str = "table", before: int | None = None) -> ChatView:
    """The chat of ``game`` as ``user`` may read it, showing channel ``key`` (its newest :data:`PAGE`
    messages, or those before message id ``before``); an unknown or forbidden key shows the first channel
    the reader has. Three queries for a seated reader (read marks, counts, lines), two otherwise, whatever
    the number of messages and channels (and the seats, when not prefetched); no lines query when the
    shown channel has no message the reader may read."""
    seats: list[Seat] = list(game.seats.all())
    names = {s.number: s.name for s in seats}
    reader = reader_of(game, user, seats)
    keys = channels_of(game, reader, seats)
    view = ChatView()
    if not keys:
        return view
    view.key = key if key in keys else keys[0]
    mine = readable(game, reader)
    newest, counts = _newest_and_unread(game, reader, keys, mine)
    view.version = max(newest.values(), default=0)
    view.channels = [Channel(k, _label(k, names), counts.get(k, 0), reader.seat is not None) for k in keys]
    page: list[ChatMessage] = []
    if view.key in newest:  # a channel without a readable message needs no query for its lines
        rows = ChatMessage.objects.filter(mine & channel_filter(view.key, reader))
        if before is not None:
            rows = rows.filter(id__lt=before)
        page = list(rows.order_by("-id")[: PAGE + 1])
    if len(page) > PAGE:
        page = page[:PAGE]
        view.older = page[-1].id
    me = names.get(reader.seat, "") if reader.seat is not None else ""
    view.lines = [
        ChatLine(
            m.id,
            channel_key(m, reader),
            names.get(m.author_seat, "?"),
            m.author_seat,
            m.text,
            m.created_at,
            m.author_seat == reader.seat,
            m.author_seat != reader.seat and mentions(m.text, me),
        )
        for m in reversed(page)
    ]
    return view


def _newest_and_unread(
    game: Game, reader: Reader, keys: list[str], mine: Q
) -> tuple[dict[str, int], dict[str, int]]:
    """The newest readable message id of each channel key that has one, and the unread messages by others
    per channel key. For a seated reader two small queries whatever the number of channels: the read
    marks, then the readable messages grouped by channel, author and addressee with, per distinct mark,
    how many lie above it. (A filtered count per channel, each with a correlated subquery for its mark,
    took the ORM about 5 ms to compile in a 6-player game; docs/performance.md, session 8.) One query for
    a spectator, who reads the table only."""
    if reader.user_id is None or reader.seat is None:
        top = ChatMessage.objects.filter(mine).aggregate(newest=Max("id"))["newest"]
        return ({"table": int(top)} if top else {}), {}
    marks = dict(ChatRead.objects.filter(game=game, user_id=reader.user_id).values_list("channel", "last_id"))
    column = {mark: f"above{i}" for i, mark in enumerate(sorted({marks.get(k, 0) for k in keys}))}
    above = {name: Count("id", filter=Q(id__gt=mark)) for mark, name in column.items()}
    groups = (
        ChatMessage.objects.filter(mine)
        .order_by()
        .values("channel", "author_seat", "to_seat")
        .annotate(newest=Max("id"), **above)
    )
    newest: dict[str, int] = {}
    counts = dict.fromkeys(keys, 0)
    for row in cast(list[dict[str, Any]], list(groups)):  # the stubs type rows by the named columns only
        key = key_of(row["channel"], row["author_seat"], row["to_seat"], reader)
        newest[key] = max(newest.get(key, 0), int(row["newest"]))
        if row["author_seat"] != reader.seat and key in counts:  # one's own messages are never unread
            counts[key] += row[column[marks.get(key, 0)]]
    return newest, counts
