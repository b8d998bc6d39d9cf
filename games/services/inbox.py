"""Play by email replies (issue 18): signed reply addresses, storing received mail, and applying a reply's
lines through the same play service as the web.

The receivers (the LMTP/SMTP receiver, provider webhooks through django-anymail, ``manage.py mail_reply``)
only call :func:`mail_store`: it writes an :class:`~games.models.InboundMail` row in the receiving
transaction and enqueues :func:`games.tasks.inbound_process` after commit, so a crash loses no mail and a
mail delivered twice (same ``Message-ID``) is stored once. :func:`mail_process` then checks who may act and
applies the lines in order, each through :func:`games.services.play.action_submit` with source ``email``
(same lock and ``expected_seq`` check as the web), and writes one result notification (kind ``reply``) in
the same transaction. A line that fails stops the batch there; the lines before it stay applied.

No mail loop (issue 30): automatic mail is never answered (:func:`mastery.mail_reading.is_automatic`,
mail with a null envelope sender is not even processed), a mail that holds no move is answered at most once
per address and game an hour, and answers to one address stop after ``REPLY_ANSWERS_PER_DAY`` a day.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from email import policy
from email.parser import BytesParser
from functools import partial

from allauth.account.models import EmailAddress
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from accounts.models import User
from games import engine
from games.models import ActionRecord, ChatMessage, Game, InboundMail, Notification, Prompt
from games.services import chat, mail_commands
from games.services.errors import ServiceError
from games.services.lines import lines_apply
from games.services.locks import lock_with_seats
from games.services.outbox import DECISION_KINDS, TURN_RETURN, dedupe_key, send_after_commit
from games.services.published import TASKS
from mastery.mail_reading import (
    Reply,
    address_local,
    addresses,
    dmarc_failed,
    message_id_of,
    read_reply,
)
from mastery.text import single_line

log = logging.getLogger(__name__)

REPLY_SALT = "mastery.reply-address"
#: Hex digits of the HMAC in a reply token (80 bits).
_SIG_LENGTH = 20
_TOKEN = re.compile(rf"^([0-9a-f]{{1,12}})-([0-9a-f]{{{_SIG_LENGTH}}})$")
#: At most this many lines of one reply are read (a whole turn is a handful).
MAX_LINES = 30
#: A mail that holds no move is answered at most once per address and game in this time (issue 30).
NO_MOVE_ANSWER_EVERY = timedelta(hours=1)
#: The ``skip_reason`` of an answer held back by the limits (:func:`_answer_limit`): it is not sent.
LIMIT_HOUR = "answer limit: no move, hour"
LIMIT_DAY = "answer limit: day"
#: The "Re:" prefixes of mail clients in the site's languages (and forwards), repeated.
_RE_PREFIXES = re.compile(r"^((re|sv|odp|aw|fw|fwd|회신|답장)\s*:\s*)+", re.IGNORECASE)


# -- Reply addresses ---------------------------------------------------------------------------------------


def reply_token(notification_id: int) -> str:
    """The token of a notification's reply address: its id in hex and an 80-bit HMAC of it (Django's
    ``salted_hmac`` with ``SECRET_KEY``), lower-case hex so an MTA that folds the case keeps it valid."""
    sig = salted_hmac(REPLY_SALT, str(notification_id)).hexdigest()[:_SIG_LENGTH]
    return f"{notification_id:x}-{sig}"


def reply_address(notification_id: int) -> str:
    """The Reply-To address of a decision email: ``play+<token>@<REPLY_DOMAIN>`` (at most 64 characters in
    the local part, RFC 5321 §4.5.3.1.1)."""
    return f"{settings.REPLY_LOCAL_PART}+{reply_token(notification_id)}@{settings.REPLY_DOMAIN}"


def token_notification_id(addrs: list[str]) -> int | None:
    """The notification id named by the first well-signed reply address among ``addrs`` (``None``: none
    is). The local part must be ``<REPLY_LOCAL_PART>+<token>`` at ``REPLY_DOMAIN``."""
    for addr in addrs:
        local, domain = address_local(addr)
        prefix = settings.REPLY_LOCAL_PART.lower() + "+"
        if domain != settings.REPLY_DOMAIN.lower() or not local.startswith(prefix):
            continue
        match = _TOKEN.match(local[len(prefix) :])
        if match is None:
            continue
        nid = int(match.group(1), 16)
        if constant_time_compare(reply_token(nid), match.group(0)):
            return nid
    return None


def is_reply_address(addr: str) -> bool:
    """Whether ``addr`` is a well-signed reply address of this site (the SMTP receiver refuses others at
    ``RCPT TO``)."""
    return token_notification_id([addr]) is not None


# -- Storing ----------------------------------------------------------------------------------------------


def mail_store(
    *, raw: bytes, rcpt: list[str] | None = None, via: str = "smtp", mail_from: str | None = None
) -> tuple[InboundMail, bool]:
    """Store one received mail and enqueue its processing after commit (the receivers' only call).

    Args:
        raw: the message as received (RFC 5322 bytes).
        rcpt: the envelope recipients (``RCPT TO``) when the receiver knows them.
        via: ``smtp``, ``lmtp``, ``webhook`` or ``cli``.
        mail_from: the envelope sender (``MAIL FROM``) when the receiver knows it: an address, or ``""`` /
            ``"<>"`` for the null reverse-path of bounces and auto-replies (RFC 5321 §4.5.5); ``None`` when
            unknown. It is written at the top of the stored message as ``Return-Path: <…>``, as the
            final delivery does (RFC 5321 §4.4), and a mail with the null reverse-path is stored
            ``ignored`` and never processed: nothing may answer it (RFC 3834 §2).

    Returns:
        ``(mail, created)``: ``created`` is ``False`` for a mail already stored (the same ``Message-ID``):
        it is neither stored nor processed again. A mail over ``INBOUND_MAX_BYTES`` is stored without its
        body and processed as refused.
    """
    size = len(raw)
    too_large = size > settings.INBOUND_MAX_BYTES
    headers = BytesParser(policy=policy.default).parsebytes(raw, headersonly=True)
    mid = message_id_of(headers, raw)
    from_ = addresses(headers, "From")
    to = [a.lower() for a in (rcpt or [])] + addresses(headers, "To", "Cc", "Delivered-To")
    null_sender = mail_from is not None and mail_from.strip().strip("<>").strip() == ""
    stored = b"" if too_large else raw
    if mail_from is not None and not too_large:
        stored = return_path_line(mail_from, raw) + raw
    with transaction.atomic():
        mail, created = InboundMail.objects.get_or_create(
            message_id=mid,
            defaults={
                "received_at": timezone.now(),
                "recipient": next((a for a in to if is_reply_address(a)), to[0] if to else "")[:254],
                "sender": (from_[0] if from_ else "")[:254],
                "size": size,
                "raw": stored,
                "via": via,
                "status": InboundMail.Status.IGNORED if null_sender else InboundMail.Status.PENDING,
                "reason": "null_sender" if null_sender else "too_large" if too_large else "",
                "processed_at": timezone.now() if null_sender else None,
            },
        )
        if created and not null_sender:
            transaction.on_commit(partial(enqueue_process, mail.pk))
    return mail, created


def return_path_line(mail_from: str, raw: bytes) -> bytes:
    """The ``Return-Path: <reverse-path>`` line the final delivery writes at the top of a message (RFC 5321
    §4.4), for the envelope sender ``mail_from`` (``""`` or ``"<>"``: ``Return-Path: <>``), with the line
    end ``raw`` uses (CRLF or LF). Line breaks and angle brackets in ``mail_from`` are dropped."""
    address = "".join(single_line(mail_from).split()).strip("<>")
    end = b"\r\n" if b"\r\n" in raw[:1000] else b"\n"
    return f"Return-Path: <{address}>".encode("utf-8", "surrogateescape") + end


def enqueue_process(mail_id: int) -> None:
    """Publish one ``inbound_process`` task (:data:`games.services.published.TASKS`) for ``mail_id``
    (after commit). Never raises: if the broker is down the mail stays pending and the minute's sweep
    (:func:`mails_pending`) processes it."""
    try:
        TASKS.inbound_process.delay(mail_id=mail_id)
    except Exception:
        log.warning("could not enqueue inbound mail %s; the sweep will process it", mail_id)


def mails_pending(limit: int = 200) -> list[int]:
    """Ids of stored mails still waiting to be processed, oldest first (the sweep's work)."""
    rows = InboundMail.objects.filter(status=InboundMail.Status.PENDING).order_by("received_at", "pk")
    return list(rows.values_list("pk", flat=True)[:limit])


# -- Processing ----------------------------------------------------------------------------------------------


def mail_process(*, mail_id: int, now: datetime | None = None) -> InboundMail:
    """Process one stored mail once (the task's body; running it again changes nothing).

    Automatic mail (auto-replies, vacation responders, bounces) is ignored without an answer. A mail
    whose reply address is missing or badly signed is refused without one (nobody can be told safely).
    Every other outcome is answered by one ``reply`` notification: refused (a sender other than the
    address's player, a forged ``From``, an expired address, over 1 MB: nothing changes; a decision no
    longer open: the current decision instead), or the lines applied in order until one fails.

    Returns:
        The mail row after processing.
    """
    now = now or timezone.now()
    with transaction.atomic():
        mail = InboundMail.objects.select_for_update().get(pk=mail_id)
        if mail.status != InboundMail.Status.PENDING:
            return mail
        _process(mail, now)
        mail.processed_at = now
        mail.save()
    return mail


def _finish(mail: InboundMail, status: str, reason: str = "") -> None:
    mail.status = status
    mail.reason = reason or mail.reason


def _process(mail: InboundMail, now: datetime) -> None:
    """Judge ``mail`` and apply or refuse it (inside :func:`mail_process`'s transaction)."""
    reply = read_reply(bytes(mail.raw)) if mail.raw else None
    if reply is not None and reply.automatic:
        return _finish(mail, InboundMail.Status.IGNORED, "automatic")
    nid = token_notification_id([mail.recipient, *(reply.recipients if reply else [])])
    origin = Notification.objects.select_related("recipient").filter(pk=nid).first() if nid else None
    if origin is None or origin.game_id is None:
        return _finish(mail, InboundMail.Status.REFUSED, "bad_token")
    owner = origin.recipient
    mail.user, mail.game_id = owner, origin.game_id
    if reply is not None and reply.charset_guessed and owner.language:
        reply = read_reply(bytes(mail.raw), owner.language)  # the charset guessed for the owner's language
    content = reply is not None and (
        bool(reply.lines) if origin.kind in CHAT_KINDS else holds_move(reply.lines[:MAX_LINES])
    )
    refusal = _refusal(mail, reply, origin, owner, now)
    if refusal is not None:
        reason, answer_to = refusal
        _finish(mail, InboundMail.Status.REFUSED, reason)
        if answer_to is not None:
            data = {"refused": reason, "sender": mail.sender}
            _answer(mail, answer_to, origin, data, _subject(reply), content=content, now=now)
        return None
    assert reply is not None
    if origin.kind in CHAT_KINDS:
        return _chat_reply(mail, reply, origin, owner, now)
    if mail_commands.has_command(reply.lines[:MAX_LINES], origin):  # issue 30: help, status, say, undo…
        return mail_commands.mail_commands_run(mail, reply, origin, owner, now, _hooks())
    game, _seats = lock_with_seats(origin.game_id)
    if game.status != Game.Status.ACTIVE:
        stale = "over"
    elif not _still_open(origin):
        stale = "moved_on"
    elif _played_since(origin):
        stale = "played_since"
    else:
        stale = ""
    if stale:
        _finish(mail, InboundMail.Status.REFUSED, stale)
        _answer(mail, owner, origin, {"refused": stale}, _subject(reply), content=content, now=now)
        return None
    lines = reply.lines[:MAX_LINES]
    mail.lines = lines
    if not lines:
        _finish(mail, InboundMail.Status.REFUSED, "no_moves")
        _answer(mail, owner, origin, {"refused": "no_moves"}, _subject(reply), content=False, now=now)
        return None
    moves = list(origin.data.get("moves", []))
    batch = lines_apply(game.pk, owner, lines, moves, source=ActionRecord.Source.EMAIL, mail_id=mail.pk)
    mail.applied = len(batch.applied)
    _finish(mail, InboundMail.Status.STOPPED if batch.error else InboundMail.Status.APPLIED)
    outcome = {
        "applied": batch.applied,
        "error": batch.error,
        "ignored": batch.ignored,
        "pending": batch.pending,
        "unneeded": batch.unneeded,
    }
    done = content or bool(batch.applied) or bool(batch.pending)
    _answer(mail, owner, origin, outcome, _subject(reply), content=done, now=now)
    return None


def holds_move(lines: list[str]) -> bool:
    """Whether a reply's ``lines`` hold anything meant as play: a number (one of the email's moves) or a
    line that begins with a move's word in any of the four languages (``engine.names_a_move``: a mistyped
    move counts, and is answered with its error). An auto-responder's "I am away until Monday" holds none,
    and is answered at most once an hour (issue 30). A command (``help``, ``say …``:
    :func:`games.services.mail_commands.is_command`) counts too."""
    return any(
        line.rstrip(".").isdigit() or engine.names_a_move(line) or mail_commands.is_command(line)
        for line in lines
    )


#: Notification kinds of chat emails (issue 19): a reply to one posts its text to the same conversation.
CHAT_KINDS = frozenset({Notification.Kind.CHAT, Notification.Kind.MESSAGE})


def _chat_reply(mail: InboundMail, reply: Reply, origin: Notification, owner: User, now: datetime) -> None:
    """Post a reply to a chat email to the conversation the emailed message was in, as its reader names it
    (issue 19), through :func:`games.services.chat.chat_post` (same rules, limits and suspension as on the
    page). Nothing is answered when it is posted; a refusal is answered with its reason."""
    assert origin.game_id is not None  # checked by _process
    game = Game.objects.prefetch_related("seats").get(pk=origin.game_id)
    message = ChatMessage.objects.filter(pk=origin.data.get("message"), game=game).first()
    text = "\n".join(reply.lines)[: chat.MAX_LENGTH]
    mail.lines = reply.lines[:MAX_LINES]
    if message is None or not text:
        _finish(mail, InboundMail.Status.REFUSED, "no_text")
        _answer(mail, owner, origin, {"refused": "no_text"}, _subject(reply), content=bool(text), now=now)
        return
    key = chat.channel_key(message, chat.reader_of(game, owner))
    try:
        chat.chat_post(game_id=game.pk, user=owner, channel=key, text=text)
    except ServiceError as exc:
        _finish(mail, InboundMail.Status.REFUSED, exc.code)
        data = {"refused": "chat", "message": exc.message}
        _answer(mail, owner, origin, data, _subject(reply), content=True, now=now)
        return
    mail.applied = 1
    _finish(mail, InboundMail.Status.APPLIED)


def _refusal(
    mail: InboundMail, reply: Reply | None, origin: Notification, owner: User, now: datetime
) -> tuple[str, User | None] | None:
    """Why the mail may not act for the address's player, and whom to tell (``None``: it may act).

    The answer goes to the owner of the address, except when another user of the site sent it with their
    own verified address: then to that sender (they are told the address is not theirs)."""
    sender = mail.sender.lower()
    verified = EmailAddress.objects.filter(email__iexact=sender, verified=True).select_related("user").first()
    if verified is None or verified.user_id != owner.pk:
        if verified is not None:
            return "not_yours", verified.user
        return "forged_from", owner
    if reply is None:  # stored without its body: over INBOUND_MAX_BYTES
        return "too_large", owner
    if dmarc_failed(reply.auth_results, settings.INBOUND_AUTHSERV_ID):
        return "forged_from", owner
    if origin.created_at + timedelta(seconds=settings.REPLY_MAX_AGE) < now:
        return "expired", owner
    return None


def _still_open(origin: Notification) -> bool:
    """Whether the decision the replied-to email asked for is still open for its seat."""
    if not origin.prompt_key or origin.seat is None or origin.game_id is None:
        return False
    return Prompt.objects.filter(game_id=origin.game_id, seat=origin.seat, key=origin.prompt_key).exists()


#: ``Notification.data`` key of the seq of the position a replyable email showed (set when it is sent).
SHOWN_SEQ = "shown_seq"


def _played_since(origin: Notification) -> bool:
    """Whether the replied-to email's seat has played since the position the email showed: its moves were
    written for that position, and may be the very moves the player has since made on the site, by the API
    or by another reply (a turn's decision stays open for the whole turn, so :func:`_still_open` cannot
    tell). Emails sent before the shown position was recorded are not checked."""
    shown = origin.data.get(SHOWN_SEQ) if isinstance(origin.data, dict) else None
    if not isinstance(shown, int) or origin.seat is None or origin.game_id is None:
        return False
    return ActionRecord.objects.filter(game_id=origin.game_id, seat=origin.seat, seq__gt=shown).exists()


def _answer(
    mail: InboundMail,
    user: User,
    origin: Notification,
    data: Mapping[str, object],
    subject: str = "",
    *,
    content: bool,
    now: datetime,
) -> Notification:
    """Queue the one result email of ``mail`` to ``user`` (kind ``reply``), bound to the decision now open
    for their seat (so a reply to it plays on), and drop their decision emails this write queued: the
    result email carries the next decision. Sent after commit.

    An answer over the limits (:func:`_answer_limit`) is stored ``skipped`` and not sent; the decision
    emails are then left to go out. When nothing waits for the player because their turn is only
    interrupted, the answer records that turn (``data["turn_return"]``): its return is then emailed anew
    (:func:`games.services.outbox.queue_write`).

    Args:
        content: whether ``mail`` held a move (or, for a chat email, text): a mail without is answered at
            most once per address and game in :data:`NO_MOVE_ANSWER_EVERY`.
        now: the time of processing.

    Returns:
        The ``reply`` row (pending, or skipped by a limit).
    """
    game_id = origin.game_id
    assert game_id is not None  # checked by _process
    seat = origin.seat if user.pk == origin.recipient_id else None
    limit = _answer_limit(user, game_id, content, now)
    key = ""
    answer: dict[str, object] = {**data, "in_reply_to": mail.message_id, "subject": subject}
    if not content:
        answer["no_move"] = True
    if seat is not None:
        rows = Prompt.objects.filter(game_id=game_id, seat=seat, auto_at__isnull=True)
        row = rows.order_by("opened_at", "pk").first()
        key = row.key if row is not None else ""
        if limit is None:
            Notification.objects.filter(
                recipient=user, game_id=game_id, status=Notification.Status.PENDING, kind__in=DECISION_KINDS
            ).update(status=Notification.Status.SKIPPED, skip_reason="in reply")
        if not key:
            paused = _paused_turn(game_id, seat)
            if paused:
                answer[TURN_RETURN] = paused
    n = Notification.objects.create(
        recipient=user,
        game_id=game_id,
        seat=seat,
        kind=Notification.Kind.REPLY,
        prompt_key=key,
        dedupe_key=dedupe_key(user.pk, game_id, f"mail.{mail.pk}", Notification.Kind.REPLY),
        data=answer,
        created_at=now,
        send_after=now,
        status=Notification.Status.PENDING if limit is None else Notification.Status.SKIPPED,
        skip_reason=limit or "",
    )
    if limit is None:
        send_after_commit(game_id)
    else:
        log.warning("inbound mail %s not answered (%s) to user %s", mail.pk, limit, user.pk)
    return n


def _answer_limit(user: User, game_id: int, content: bool, now: datetime) -> str | None:
    """Why an answer to ``user`` must not be sent now (``None``: it may): a mail without a move while an
    answer to such a mail of theirs about the same game went out in the last :data:`NO_MOVE_ANSWER_EVERY`
    (:data:`LIMIT_HOUR`), or ``REPLY_ANSWERS_PER_DAY`` answers to them in the last 24 hours
    (:data:`LIMIT_DAY`). "Per address" is the address the answers go to, the user's: that is where an
    auto-responder that answers each answer sits (issue 30). Answers held back count for neither."""
    answers = Notification.objects.filter(recipient=user, kind=Notification.Kind.REPLY).exclude(
        status=Notification.Status.SKIPPED
    )
    if (
        not content
        and answers.filter(
            game_id=game_id, data__no_move=True, created_at__gt=now - NO_MOVE_ANSWER_EVERY
        ).exists()
    ):
        return LIMIT_HOUR
    if answers.filter(created_at__gt=now - timedelta(days=1)).count() >= settings.REPLY_ANSWERS_PER_DAY:
        return LIMIT_DAY
    return None


def _paused_turn(game_id: int, seat: int) -> str:
    """The key of ``seat``'s own turn when it is interrupted (a response window, a battle, a rival's
    choice), else ``""``. Such a turn comes back later with the same prompt key; an answer that tells the
    player nothing waits for them records it, so that its return is emailed with its own Reply-To and
    moves, as every other decision of a player who plays by email (issue 30: the "your turn" email already
    sent is no longer renamed to make room, which gave both emails one ``Message-ID``)."""
    rows = Game.objects.filter(pk=game_id, turn_remaining__isnull=False)
    paused = rows.values_list("turn_key", flat=True).first()
    return paused if paused and paused.endswith(f":turn:{seat}") else ""


def _subject(reply: Reply | None) -> str:
    """The replied-to subject without its ``Re:`` prefixes (for the answer's ``Re:`` subject), also those
    after the site's prefix: a reply to a result email ("[Medieval Mastery] Re: Your turn …") is answered
    "Re: Your turn …" again, not "Re: Re: Your turn …"."""
    if reply is None:
        return ""
    subject = _RE_PREFIXES.sub("", " ".join(reply.subject.split()))
    return _RE_PREFIXES.sub("", subject.removeprefix("[Medieval Mastery]").strip())[:200]


def _hooks() -> mail_commands.InboxHooks:
    """What the commands of a reply use of this module (:class:`~games.services.mail_commands.InboxHooks`)."""
    return mail_commands.InboxHooks(
        max_lines=MAX_LINES,
        apply_lines=partial(lines_apply, source=ActionRecord.Source.EMAIL),
        answer=_answer,
        subject=_subject,
        still_open=_still_open,
        played_since=_played_since,
    )
