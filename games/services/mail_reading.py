"""Reading a reply to a game email (issue 18): who sent it, whether a machine did, and the player's own
new lines, with quoted text and signatures stripped by a maintained reply parser (mail-parser-reply, which
knows the quote headers of Gmail, Outlook, Apple Mail and Thunderbird in en, sv, pl and ko) and HTML-only
replies read through html2text. Attachments are never read. Pure: no database, no settings.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from email import policy
from email.headerregistry import Address
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses

import html2text
from mailparser_reply import EmailReplyParser

#: The languages whose quote headers ("On … wrote:", "Den … skrev:", "W dniu … pisze:", "…님이 작성:")
#: and signatures the reply parser strips: the site's four.
REPLY_LANGUAGES = ("en", "sv", "pl", "ko")

#: ``Precedence`` values that mark bulk or automatic mail (RFC 3834 §3.1.8).
_AUTO_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
#: Local parts of the addresses bounces and mail systems send from (RFC 3834 §2).
_SYSTEM_SENDERS = re.compile(r"^(mailer-daemon|postmaster|no-?reply|bounces?)([+-].*)?$", re.IGNORECASE)
#: A line that quotes the email replied to (``> …``), or the header a client puts above such a quote.
_QUOTED = re.compile(r"^\s*>")
#: A quote header left on the reply's last line ("On Tue, … wrote:", "Den … skrev …:", "… napisał(a):").
_QUOTE_HEADER = re.compile(
    r"(wrote|skrev|napisał\(a\)|napisał|napisała|pisze|작성|쓴 글)\s*:?\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class Reply:
    """One received mail as play by email reads it.

    ``message_id`` (the ``Message-ID`` without brackets, or a hash of the bytes when it has none),
    ``sender`` (the ``From`` address, lower-case; ``""`` when missing), ``recipients`` (every address in
    ``To``, ``Cc`` and ``Delivered-To``, lower-case), ``subject``, ``automatic`` (an auto-reply, a vacation
    responder or a bounce, RFC 3834: never answered), ``lines`` (the player's new non-empty lines, quotes
    and signature removed), ``in_reply_to`` and ``auth_results`` (the ``Authentication-Results`` headers,
    RFC 8601)."""

    message_id: str
    sender: str
    recipients: list[str] = field(default_factory=list)
    subject: str = ""
    automatic: bool = False
    lines: list[str] = field(default_factory=list)
    in_reply_to: str = ""
    auth_results: list[str] = field(default_factory=list)


def parse_message(raw: bytes) -> EmailMessage:
    """The message in ``raw`` (RFC 5322 bytes) with the standard library's modern policy. Never raises on
    malformed mail: the parser records defects and keeps what it can read."""
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    return message


def _header(message: EmailMessage, name: str) -> str:
    """A header's text (``""`` when missing or unreadable)."""
    try:
        value = message.get(name)
    except (ValueError, TypeError, IndexError):  # a malformed header the policy cannot fold
        return ""
    return str(value or "").strip()


def message_id_of(message: EmailMessage, raw: bytes) -> str:
    """The message's ``Message-ID`` without angle brackets (at most 250 characters), or ``sha256:<hex>`` of
    the bytes when it has none (the same bytes delivered twice still count once)."""
    mid = _header(message, "Message-ID").strip().strip("<>").strip()
    if mid:
        return mid[:250]
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def addresses(message: EmailMessage, *names: str) -> list[str]:
    """The lower-case addresses in the headers ``names`` (e.g. ``"To", "Cc"``), in order."""
    out: list[str] = []
    for name in names:
        try:
            values = message.get_all(name) or []
        except (ValueError, TypeError, IndexError):
            continue
        for _display, addr in getaddresses([str(v) for v in values]):
            if addr and "@" in addr:
                out.append(addr.strip().lower())
    return out


def is_automatic(message: EmailMessage) -> bool:
    """Whether a machine sent ``message``: ``Auto-Submitted`` other than ``no`` (RFC 3834), vacation and
    auto-responder headers (``X-Autoreply``, ``X-Autorespond``, ``X-Auto-Response-Suppress`` from
    Exchange's own replies), a bulk ``Precedence``, a delivery report (``multipart/report``, RFC 6522), an
    empty return path or a mailer-daemon sender."""
    auto = _header(message, "Auto-Submitted").lower()
    if auto and auto != "no":
        return True
    if any(_header(message, h) for h in ("X-Autoreply", "X-Autorespond", "X-Autoresponder")):
        return True
    if _header(message, "Precedence").lower() in _AUTO_PRECEDENCE:
        return True
    if message.get_content_type() == "multipart/report":
        return True
    if "Return-Path" in message and _header(message, "Return-Path") in ("<>", ""):
        return True
    sender = addresses(message, "From")
    return bool(sender) and bool(_SYSTEM_SENDERS.match(sender[0].split("@", 1)[0]))


def body_text(message: EmailMessage) -> str:
    """The message's text: its ``text/plain`` body, else its ``text/html`` body read through html2text;
    attachments are skipped (``EmailMessage.get_body``). ``""`` when it has neither."""
    try:
        part = message.get_body(preferencelist=("plain",))
        if part is not None:
            return str(part.get_content())
        part = message.get_body(preferencelist=("html",))
        if part is not None:
            converter = html2text.HTML2Text()
            converter.body_width = 0  # keep lines as written: a move is one line
            converter.ignore_images = True
            return converter.handle(str(part.get_content()))
    except (LookupError, UnicodeError, ValueError):  # an unknown charset or a broken part
        return ""
    return ""


def reply_lines(text: str) -> list[str]:
    """The player's own new lines of a reply body: the reply parser drops the quoted email (top-posted
    replies) and the signature; lines quoted with ``>`` are dropped too, so text written below or between
    the quoted lines (bottom-posted and inline replies) is kept. Blank lines are dropped; the rest are
    stripped of spaces and of html2text's list and emphasis marks."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    latest = EmailReplyParser(languages=list(REPLY_LANGUAGES)).parse_reply(text) or ""
    if not _own_lines(latest):  # bottom-posted: the parser's "latest reply" is the quote itself
        latest = text
    lines = _own_lines(latest)
    return [line for line in lines if not _QUOTE_HEADER.search(line)]


def _own_lines(text: str) -> list[str]:
    """Non-empty lines of ``text`` that are not ``>`` quotes, stripped."""
    out = []
    for line in text.split("\n"):
        if _QUOTED.match(line) or line.strip() in ("--", "-- "):
            if line.strip().startswith("--"):
                break  # the signature separator (RFC 3676 §4.3): nothing after it is a move
            continue
        clean = line.strip().strip("*_").strip()
        if clean:
            out.append(clean)
    return out


def read_reply(raw: bytes) -> Reply:
    """Read one received mail (RFC 5322 bytes) into a :class:`Reply`. Never raises: unreadable parts read
    as empty."""
    message = parse_message(raw)
    sender = addresses(message, "From")
    automatic = is_automatic(message)
    return Reply(
        message_id=message_id_of(message, raw),
        sender=sender[0] if sender else "",
        recipients=addresses(message, "To", "Cc", "Delivered-To", "X-Original-To"),
        subject=_header(message, "Subject"),
        automatic=automatic,
        lines=[] if automatic else reply_lines(body_text(message)),
        in_reply_to=_header(message, "In-Reply-To"),
        auth_results=[str(v) for v in (message.get_all("Authentication-Results") or [])],
    )


def dmarc_failed(auth_results: list[str], authserv_id: str) -> bool:
    """Whether the ``Authentication-Results`` header of the trusted MTA ``authserv_id`` (RFC 8601 §2.2: the
    first token names the server that added it) says ``dmarc=fail``. Headers of other servers are ignored:
    anyone can write one."""
    if not authserv_id:
        return False
    for header in auth_results:
        server = header.split(";", 1)[0].strip().split()[0] if header.strip() else ""
        if server.lower() == authserv_id.lower() and re.search(r"\bdmarc\s*=\s*fail\b", header, re.I):
            return True
    return False


def address_local(addr: str) -> tuple[str, str]:
    """Split an address into ``(local part, domain)``, both lower-case (``("", "")`` if it has no ``@``)."""
    try:
        parsed = Address(addr_spec=addr)
    except (ValueError, IndexError):
        return "", ""
    return parsed.username.lower(), parsed.domain.lower()
