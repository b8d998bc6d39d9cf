"""Castle Defence by email (issue 33): the puzzle email's reply address, storing a reply, and answering it.

The daily puzzle email's ``Reply-To`` is ``puzzle+<token>@<REPLY_DOMAIN>``: the token names the player and
the puzzle's day, signed with :mod:`django.core.signing` (salted, so no other signature of the site fits).
The platform's inbound router (:mod:`mastery.inbound`) hands a mail sent there to :func:`mail_store` (the
:data:`ROUTE` registered by ``anarchy.apps``): one :class:`~anarchy.models.PuzzleMail` row, the same
``Message-ID`` stored once, and its processing published after commit (``anarchy.tasks``).

:func:`mail_process` reads the reply once: automatic mail is ignored; a mail whose ``From`` is not the
token's player is refused without an answer; a day other than today is refused with a polite answer. The
first line the player wrote is their deployment, in the short notation (``T:2C1K R:1S B:2K``), answered
through :func:`anarchy.puzzles.answer_submit` with source ``email``, exactly as on the daily page.
"""

from __future__ import annotations

import datetime
import logging
import re
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from functools import partial
from typing import Any

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core import signing
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from accounts.models import User
from anarchy import puzzles
from anarchy.engine import AnarchyError
from anarchy.models import DailyPuzzle, PuzzleAnswer, PuzzleMail, PuzzleMailing
from mastery.inbound import Route
from mastery.mail_reading import addresses, message_id_of, read_reply
from mastery.publishing import Publishable

from .messages import reason

log = logging.getLogger(__name__)

#: The local part before ``+`` of the puzzle email's reply address.
LOCAL_PART = "puzzle"
#: The salt of the address's signature (django.core.signing): no other signature of the site fits it.
SALT = "anarchy.puzzle-address"
#: The salt of the unsubscribe link's signature.
UNSUBSCRIBE_SALT = "anarchy.puzzle-mail-stop"
#: Hex digits of the signature kept in the address (80 bits).
_SIG_LENGTH = 20
_TOKEN = re.compile(rf"^([0-9a-f]{{1,12}})-(\d{{8}})-([0-9a-f]{{{_SIG_LENGTH}}})$")


# -- Addresses ---------------------------------------------------------------------------------------------


def _signature(value: str) -> str:
    """The address's signature of ``value``: Django's signer (``SECRET_KEY``, :data:`SALT`) in lower-case
    hex, so an MTA that folds the case keeps it valid."""
    signed = signing.Signer(salt=SALT).signature(value)
    return signing.b64_decode(signed.encode()).hex()[:_SIG_LENGTH]


def puzzle_token(user_id: int, day: datetime.date) -> str:
    """The token of ``user_id``'s reply address for the puzzle of ``day``: ``<id hex>-<yyyymmdd>-<sig>``."""
    value = f"{user_id:x}-{day:%Y%m%d}"
    return f"{value}-{_signature(value)}"


def puzzle_address(user_id: int, day: datetime.date) -> str:
    """The Reply-To address of ``user_id``'s puzzle email of ``day``: ``puzzle+<token>@<REPLY_DOMAIN>``."""
    return f"{LOCAL_PART}+{puzzle_token(user_id, day)}@{settings.REPLY_DOMAIN}"


def read_token(address: str) -> tuple[int, datetime.date] | None:
    """The player id and day of a well-signed puzzle address (``None``: it is not one). The signature is
    compared in constant time."""
    local, _at, domain = address.strip().strip("<>").lower().rpartition("@")
    prefix = LOCAL_PART + "+"
    if domain != settings.REPLY_DOMAIN.lower() or not local.startswith(prefix):
        return None
    match = _TOKEN.match(local[len(prefix) :])
    if match is None:
        return None
    value = f"{match.group(1)}-{match.group(2)}"
    if not constant_time_compare(_signature(value), match.group(3)):
        return None
    try:
        return int(match.group(1), 16), datetime.datetime.strptime(match.group(2), "%Y%m%d").date()
    except ValueError:
        return None


def is_puzzle_address(address: str) -> bool:
    """Whether ``address`` is a well-signed puzzle reply address (the inbound route's ``accepts``)."""
    return read_token(address) is not None


def token_expired(day: datetime.date, now: datetime.datetime | None = None) -> bool:
    """Whether an address for the puzzle of ``day`` is older than ``REPLY_MAX_AGE`` (from the day's start)."""
    now = now or timezone.now()
    start = timezone.make_aware(datetime.datetime.combine(day, datetime.time()))
    return now - start > datetime.timedelta(seconds=settings.REPLY_MAX_AGE)


# -- The daily email's opt-in and its unsubscribe link ----------------------------------------------------


def mailing_set(user: User, active: bool) -> PuzzleMailing:
    """Turn ``user``'s daily puzzle email on or off."""
    mailing, _created = PuzzleMailing.objects.update_or_create(user=user, defaults={"active": active})
    return mailing


def mailing_active(user: User | None) -> bool:
    """Whether ``user`` gets the daily puzzle email."""
    if user is None:
        return False
    return PuzzleMailing.objects.filter(user=user, active=True).exists()


def unsubscribe_token(user_id: int) -> str:
    """The signed token of ``user_id``'s link that turns the daily puzzle email off."""
    return signing.dumps(user_id, salt=UNSUBSCRIBE_SALT)


def unsubscribe_user_id(token: str) -> int | None:
    """The user id of a well-signed unsubscribe token (``None``: forged or damaged)."""
    try:
        value = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return value if isinstance(value, int) else None


# -- Storing -----------------------------------------------------------------------------------------------


#: The task that processes a stored mail, bound by :mod:`anarchy.tasks` (which this module never imports).
PROCESS_TASK: list[Publishable] = []


def mail_store(raw: bytes, rcpt: list[str], via: str, mail_from: str | None = None) -> bool:
    """Store one received reply to a puzzle email and publish its processing after commit (the route's
    ``store``). A null envelope sender (``"<>"``: a bounce or an auto-reply, RFC 5321 §4.5.5) is stored
    ``ignored`` and never processed; a mail over ``INBOUND_MAX_BYTES`` is stored without its body. Returns
    whether it was new: a second copy (same ``Message-ID``) is neither stored nor processed again."""
    too_large = len(raw) > settings.INBOUND_MAX_BYTES
    message = BytesParser(policy=policy.default).parsebytes(raw, headersonly=True)
    assert isinstance(message, EmailMessage)
    sender = addresses(message, "From")
    to = [a.strip().lower() for a in rcpt] + addresses(message, "To", "Cc", "Delivered-To")
    null_sender = mail_from is not None and mail_from.strip().strip("<>").strip() == ""
    with transaction.atomic():
        mail, created = PuzzleMail.objects.get_or_create(
            message_id=message_id_of(message, raw),
            defaults={
                "raw": b"" if too_large else raw,
                "received_at": timezone.now(),
                "via": via[:16],
                "sender": (sender[0] if sender else "")[:254],
                "recipient": next((a for a in to if is_puzzle_address(a)), to[0] if to else "")[:254],
                "status": PuzzleMail.Status.IGNORED if null_sender else PuzzleMail.Status.PENDING,
                "reason": "null_sender" if null_sender else "too_large" if too_large else "",
                "processed_at": timezone.now() if null_sender else None,
            },
        )
        if created and not null_sender:
            transaction.on_commit(partial(enqueue_process, mail.pk))
    return created


def enqueue_process(mail_id: int) -> None:
    """Publish the processing of ``mail_id`` (after commit). Never raises: with the broker down the mail
    stays pending, and ``manage.py puzzle_mail --pending`` processes it."""
    try:
        for task in PROCESS_TASK:
            task.delay(mail_id)
    except Exception:
        log.warning("could not enqueue puzzle mail %s; it stays pending", mail_id)


def mails_pending(limit: int = 200) -> list[int]:
    """Ids of stored puzzle mails still waiting to be processed, oldest first."""
    rows = PuzzleMail.objects.filter(status=PuzzleMail.Status.PENDING).order_by("received_at", "pk")
    return list(rows.values_list("pk", flat=True)[:limit])


#: The Anarchy's inbound route, registered by ``anarchy.apps`` with the platform's router.
ROUTE = Route(name="anarchy", accepts=is_puzzle_address, store=mail_store)


# -- Reading -----------------------------------------------------------------------------------------------


# -- Processing ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What processing decided: the answer to send (``kind``: ``result``, ``already``, ``bad_line``,
    ``closed``; ``None``: none), to whom, about which answer or error, and the reply it answers."""

    kind: str | None
    user: User | None = None
    puzzle: DailyPuzzle | None = None
    answer: PuzzleAnswer | None = None
    error: str = ""
    line: str = ""
    in_reply_to: str = ""
    subject: str = ""


def mail_process(mail_id: int, now: datetime.datetime | None = None) -> Outcome:
    """Process one stored mail once (the body of ``anarchy.tasks.puzzle_mail_process``, which then sends
    the answer with :func:`anarchy.mail.send_answer`): running it again changes nothing and returns an
    :class:`Outcome` without an answer, so a mail is answered at most once."""
    now = now or timezone.now()
    with transaction.atomic():
        mail = PuzzleMail.objects.select_for_update().get(pk=mail_id)
        if mail.status != PuzzleMail.Status.PENDING:
            return Outcome(kind=None)
        outcome = _process(mail, now)
        mail.processed_at = now
        mail.save()
    return outcome


def _process(mail: PuzzleMail, now: datetime.datetime) -> Outcome:
    """Judge ``mail``, answer the puzzle when it may, and say what to answer."""
    reply = read_reply(bytes(mail.raw)) if mail.raw else None  # the platform's reader, as play by email's
    if reply is not None and reply.automatic:
        return _done(mail, PuzzleMail.Status.IGNORED, "automatic")
    recipients = [mail.recipient, *(reply.recipients if reply else [])]
    token = next((t for t in (read_token(a) for a in recipients if a) if t is not None), None)
    if token is None:
        return _done(mail, PuzzleMail.Status.REFUSED, "bad_token")
    user = User.objects.filter(pk=token[0], is_active=True).first()
    if user is None:
        return _done(mail, PuzzleMail.Status.REFUSED, "bad_token")
    mail.user = user
    if not _sender_is(user, mail.sender):
        return _done(mail, PuzzleMail.Status.REFUSED, "not_yours")
    if reply is None:
        return _done(mail, PuzzleMail.Status.REFUSED, "too_large")
    subject = reply.subject
    base: dict[str, Any] = {"user": user, "in_reply_to": mail.message_id, "subject": subject}
    day = token[1]
    if token_expired(day, now) or day != puzzles.today():
        _done(mail, PuzzleMail.Status.REFUSED, "expired" if token_expired(day, now) else "closed")
        return Outcome(kind="closed", **base)
    puzzle = puzzles.puzzle_for(day)
    mail.puzzle = puzzle
    existing = puzzles.answer_of(puzzle, user)
    if existing is not None:
        _done(mail, PuzzleMail.Status.ANSWERED, "already")
        return Outcome(kind="already", puzzle=puzzle, answer=existing, **base)
    line = (reply.lines[0] if reply.lines else "").strip().strip("*_").strip()[:200]
    try:
        deployment = puzzles.answer_read(puzzle, line)
        answer, created = puzzles.answer_submit(puzzle, user, deployment, source=PuzzleAnswer.Source.EMAIL)
    except AnarchyError as error:
        _done(mail, PuzzleMail.Status.ANSWERED, f"bad_line:{error.code}"[:40])
        return Outcome(kind="bad_line", puzzle=puzzle, error=reason(error), line=line, **base)
    _done(mail, PuzzleMail.Status.ANSWERED, "answered" if created else "already")
    kind = "result" if created else "already"
    return Outcome(kind=kind, puzzle=puzzle, answer=answer, **base)


def _done(mail: PuzzleMail, status: str, reason: str) -> Outcome:
    mail.status = status
    mail.reason = reason
    return Outcome(kind=None)


def _sender_is(user: User, sender: str) -> bool:
    """Whether ``sender`` (the ``From`` address) is ``user``'s email, or another verified one of theirs."""
    sender = sender.strip().lower()
    if not sender:
        return False
    if sender == user.email.lower():
        return True
    return bool(EmailAddress.objects.filter(user=user, email__iexact=sender, verified=True).exists())
