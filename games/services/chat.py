"""Table talk (issue 19): who may read and post which chat messages, and the writes (post, mute, report,
mark read). This module is the one home of the chat's permission rules; pages, the API and emails read
through :func:`readable` and :func:`channels_of`.

Channels, by key:

- ``table``: every seated person reads and posts; spectators read once the game is over, or during it if
  the table allows it (``Game.chat_spectators``);
- ``p<seat>``: a private conversation between the reader's seat and another seated person, read by those
  two only, on every surface;
- ``team``: the reader's Allegiance team (R105–R109), read by its members only.

Bots and stand-ins post nothing. Hidden messages (staff) are shown to nobody; a reader never sees the
messages of players they muted. Messages are plain text up to 2,000 characters; posting is limited to
``CHAT_PER_MINUTE`` a minute and ``CHAT_PER_DAY`` a day per user.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Min, Q
from django.utils import timezone

from accounts.models import User
from games.models import ChatMessage, ChatMute, ChatRead, ChatReport, Game, Seat
from games.services.errors import NUL, BadPayload, Conflict, Forbidden, NotFound, ServiceError
from games.services.locks import game_state
from games.services.outbox import queue_chat

#: The longest message, in characters.
MAX_LENGTH = 2000
_PRIVATE = re.compile(r"^p([0-9])$")


class RateLimited(ServiceError):
    """Too many chat messages (429): ``params`` say the limit and the seconds to wait."""

    status = 429
    code = "rate_limited"


@dataclass(frozen=True)
class Reader:
    """Who reads a game's chat: their ``seat`` (``None``: a spectator), Allegiance ``team`` (``None``:
    none), whether they may read the ``table`` channel, and whether they are ``staff`` (who see hidden
    messages only in the admin, never on the site)."""

    user_id: int | None
    seat: int | None
    team: int | None
    table: bool


def reader_of(game: Game, user: Any, seats: list[Seat] | None = None) -> Reader:
    """The :class:`Reader` ``user`` (a user or ``AnonymousUser``) is in ``game``."""
    seats = list(game.seats.all()) if seats is None else seats
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    seat = next((s.number for s in seats if user_id is not None and s.user_id == user_id), None)
    team = None
    if seat is not None and game.state_hash and game.options.get("allegiance"):  # teams: R105–R109
        state_team = game_state(game).players[seat].team
        team = state_team if state_team >= 0 else None
    ended = game.status == Game.Status.FINISHED
    return Reader(user_id, seat, team, table=seat is not None or ended or game.chat_spectators)


def readable(game: Game, reader: Reader) -> Q:
    """The messages of ``game`` that ``reader`` may see, as a filter on ``ChatMessage``: their channels, no
    hidden message, nobody they muted."""
    visible = Q(pk__in=[])
    if reader.table:
        visible |= Q(channel=ChatMessage.Channel.TABLE)
    if reader.seat is not None:
        mine = Q(author_seat=reader.seat) | Q(to_seat=reader.seat)
        visible |= Q(channel=ChatMessage.Channel.PRIVATE) & mine
        if reader.team is not None:
            visible |= Q(channel=ChatMessage.Channel.TEAM, team=reader.team)
    query = Q(game=game, hidden=False) & visible
    if reader.user_id is not None:
        muted = ChatMute.objects.filter(user_id=reader.user_id).values("muted_id")
        query &= ~Q(author_id__in=muted)
    return query


def channel_filter(key: str, reader: Reader) -> Q:
    """The messages of one channel ``key`` among those :func:`readable` allows (an unknown key: none)."""
    if key == "table":
        return Q(channel=ChatMessage.Channel.TABLE)
    if key == "team":
        return Q(channel=ChatMessage.Channel.TEAM)
    match = _PRIVATE.match(key)
    if match is None or reader.seat is None:
        return Q(pk__in=[])
    other = int(match.group(1))
    pair = Q(author_seat=reader.seat, to_seat=other) | Q(author_seat=other, to_seat=reader.seat)
    return Q(channel=ChatMessage.Channel.PRIVATE) & pair


def channel_key(message: ChatMessage, reader: Reader) -> str:
    """The key of the channel ``message`` belongs to, as ``reader`` names it."""
    return key_of(message.channel, message.author_seat, message.to_seat, reader)


def key_of(channel: str, author_seat: int, to_seat: int | None, reader: Reader) -> str:
    """The key ``reader`` names a message's channel by, from its ``channel``, ``author_seat`` and
    ``to_seat`` columns: ``table``, ``team`` or ``p<the other seat>``."""
    if channel == ChatMessage.Channel.PRIVATE:
        return f"p{to_seat if author_seat == reader.seat else author_seat}"
    return str(channel)


def channels_of(game: Game, reader: Reader, seats: list[Seat]) -> list[str]:
    """The channel keys ``reader`` has in ``game``, in the order a page shows them: the table (if they
    may read it), their team, then a private conversation with each other seated person."""
    keys = ["table"] if reader.table else []
    if reader.seat is None:
        return keys
    if reader.team is not None:
        keys.append("team")
    keys += [f"p{s.number}" for s in seats if s.number != reader.seat and s.user_id is not None]
    return keys


def _limit(user: User, now: datetime) -> None:
    """Raise :class:`RateLimited` when ``user`` has posted ``CHAT_PER_MINUTE`` messages in the last
    minute or ``CHAT_PER_DAY`` in the last day (one query); ``params.wait`` is the seconds until the oldest
    of them leaves its window."""
    windows = {
        "minute": (timedelta(minutes=1), settings.CHAT_PER_MINUTE),
        "day": (timedelta(days=1), settings.CHAT_PER_DAY),
    }
    counts = ChatMessage.objects.filter(author=user, created_at__gt=now - timedelta(days=1)).aggregate(
        **{
            f"{name}_n": Count("id", filter=Q(created_at__gt=now - span))
            for name, (span, _l) in windows.items()
        },
        **{
            f"{name}_first": Min("created_at", filter=Q(created_at__gt=now - span))
            for name, (span, _l) in windows.items()
        },
    )
    for name, (span, limit) in windows.items():
        if counts[f"{name}_n"] >= limit:
            wait = int((counts[f"{name}_first"] + span - now).total_seconds()) + 1
            raise RateLimited(
                "too many chat messages", limit=limit, seconds=int(span.total_seconds()), wait=wait
            )


def chat_post(
    *, game_id: int, user: User, channel: str, text: Any, now: datetime | None = None
) -> ChatMessage:
    """Post ``text`` to ``channel`` (``table``, ``team`` or ``p<seat>``) of a game the user is seated at.

    Raises:
        NotFound (404: no such game, a private one the user has no seat in, or a channel they do not have),
        Forbidden (403: not seated, chat suspended), BadPayload (400: empty, over 2,000 characters, or
        holding a NUL character, which no text column can store), Conflict (409: the game has not started;
        seat numbers are dealt at the start, and a message is filed by seat), RateLimited (429). Nothing is
        written when one is raised.
    """
    now = now or timezone.now()
    if not isinstance(text, str) or not text.strip():
        raise BadPayload("a message needs some text", field="text")
    text = text.strip()
    if len(text) > MAX_LENGTH:
        raise BadPayload("a message is at most 2,000 characters", field="text", max=MAX_LENGTH)
    if NUL in text:
        raise BadPayload("a message cannot contain NUL characters", field="text")
    with transaction.atomic():
        locked = User.objects.select_for_update().get(
            pk=user.pk
        )  # one post at a time per user: the limits hold
        game = Game.objects.defer("state", "setup").prefetch_related("seats").filter(pk=game_id).first()
        if game is None:
            raise NotFound("no such game", game_id=game_id)
        if game.status == Game.Status.LOBBY:
            raise Conflict("the chat opens when the game starts")
        seats = list(game.seats.all())
        reader = reader_of(game, locked, seats)
        if reader.seat is None:
            if game.private:
                raise NotFound("no such game", game_id=game_id)
            raise Forbidden("only seated players can chat")
        if locked.chat_suspended_until is not None and locked.chat_suspended_until > now:
            raise Forbidden("your chat is suspended", until=locked.chat_suspended_until.isoformat())
        if channel not in channels_of(game, reader, seats):
            raise NotFound("no such chat channel", channel=str(channel)[:8])
        _limit(locked, now)
        match = _PRIVATE.match(channel)
        message = ChatMessage.objects.create(
            game=game,
            author=locked,
            author_seat=reader.seat,
            channel=ChatMessage.Channel.PRIVATE if match else channel,
            to_seat=int(match.group(1)) if match else None,
            team=reader.team if channel == "team" else None,
            text=text,
            created_at=now,
            game_seq=game.seq,
        )
        queue_chat(game=game, message_id=message.pk, readers=_emailed(game, message, seats), now=now)
        return message


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` mentions ``@name`` (case-insensitive, not inside a longer word)."""
    if not name:
        return False
    return re.search(r"(?<!\w)@" + re.escape(name) + r"(?!\w)", text, re.IGNORECASE) is not None


def _emailed(game: Game, message: ChatMessage, seats: list[Seat]) -> list[tuple[int, int, bool]]:
    """Who is emailed about ``message``: ``(user id, seat, personal)`` for each seated person other than
    the author who may read it and has not muted the author; ``personal`` for a private message or an
    ``@mention`` of them (the ``message`` kind of email)."""
    people = [s for s in seats if s.user_id is not None and s.number != message.author_seat]
    if message.channel == ChatMessage.Channel.PRIVATE:
        people = [s for s in people if s.number == message.to_seat]
    elif message.channel == ChatMessage.Channel.TEAM:
        state = game_state(game)  # (a team message implies Allegiance)
        people = [s for s in people if state.players[s.number].team == message.team]
    muting = set(ChatMute.objects.filter(muted=message.author).values_list("user_id", flat=True))
    return [
        (
            int(s.user_id),
            s.number,
            message.channel == ChatMessage.Channel.PRIVATE or mentions(message.text, s.name),
        )
        for s in people
        if s.user_id is not None and s.user_id not in muting
    ]


def chat_mute(*, game_id: int, user: User, other_id: int, mute: bool = True) -> bool:
    """Mute (or unmute) another user's chat for ``user`` only, from the game ``game_id`` (issue 28: from a
    game both are seated at). Muting hides the other's messages from ``user`` in every game.

    Args:
        game_id: the game whose page the request came from; ``other_id`` must hold a seat there.
        user: who mutes; to mute, they need a seat in the game too. Unmuting only needs the game to be
            one they may see (it removes their own mute and nothing else).
        other_id: the user muted or unmuted.
        mute: mute (``True``) or unmute.

    Returns:
        Whether ``other_id`` is now muted for ``user``.

    Raises:
        BadPayload (400): muting oneself. NotFound (404): no such game, a private one (or someone else's
        imported record) the user has no seat in, or ``other_id`` has no seat in it. Conflict (409): the
        game has not started (a lobby has no chat). Forbidden (403): muting without a seat in the game.
        Nothing is written when one is raised.
    """
    if other_id == user.pk:
        raise BadPayload("you cannot mute yourself", field="user")
    game = Game.objects.defer("state", "setup").prefetch_related("seats").filter(pk=game_id).first()
    if game is None:
        raise NotFound("no such game", game_id=game_id)
    seated = {s.user_id for s in game.seats.all() if s.user_id is not None}
    hidden = game.imported and game.created_by_id != user.pk  # games.selectors.visible_to's rule
    if hidden or (game.private and user.pk not in seated):
        raise NotFound("no such game", game_id=game_id)
    if game.status == Game.Status.LOBBY:
        raise Conflict("the chat opens when the game starts")
    if other_id not in seated:
        raise NotFound("no such user")
    if mute and user.pk not in seated:
        raise Forbidden("only seated players can mute")
    if mute:
        ChatMute.objects.get_or_create(user=user, muted_id=other_id, defaults={"created_at": timezone.now()})
    else:
        ChatMute.objects.filter(user=user, muted_id=other_id).delete()
    return mute


def chat_report(*, game_id: int, user: User, message_id: int, reason: str = "") -> ChatReport:
    """Report a message of the game ``game_id`` that the user can read (once; a second report of it changes
    nothing).

    Args:
        game_id: the game whose page the report came from; a message of another game is unknown here.
        user: the reporter.
        message_id: the message's key.
        reason: why, up to 200 characters (cut beyond).

    Returns:
        The report (the earlier one when the user had already reported the message).

    Raises:
        BadPayload (400): the reason holds a NUL character (no text column can store it). NotFound (404):
        no such message in that game, or one the user cannot read. Nothing is written when one is raised.
    """
    if NUL in str(reason):
        raise BadPayload("a reason cannot contain NUL characters", field="reason")
    message = ChatMessage.objects.select_related("game").filter(pk=message_id, game_id=game_id).first()
    if message is None or not _can_read(message, user):
        raise NotFound("no such message")
    report, _created = ChatReport.objects.get_or_create(
        message=message, reporter=user, defaults={"reason": str(reason)[:200], "created_at": timezone.now()}
    )
    return report


def _can_read(message: ChatMessage, user: User) -> bool:
    reader = reader_of(message.game, user)
    return ChatMessage.objects.filter(readable(message.game, reader), pk=message.pk).exists()


def chat_mark_read(*, user: User, game: Game, channel: str, last_id: int) -> None:
    """Remember that ``user`` has read ``channel`` of ``game`` up to message ``last_id`` (never backwards)."""
    row, created = ChatRead.objects.get_or_create(
        user=user, game=game, channel=channel[:8], defaults={"last_id": last_id}
    )
    if not created and row.last_id < last_id:
        ChatRead.objects.filter(pk=row.pk, last_id__lt=last_id).update(last_id=last_id)


def chat_export_consent(*, game_id: int, user: User, consent: bool) -> bool:
    """Agree (or no longer agree) that the game's table talk goes into its exported record (issue 19): it
    does only while every seated person agrees; private and team messages never do. Returns the setting.

    Raises:
        NotFound: no such game, or no seat of the user in it.
    """
    updated = Seat.objects.filter(game_id=game_id, user=user).update(chat_in_export=consent)
    if not updated:
        raise NotFound("no such game", game_id=game_id)
    return consent
