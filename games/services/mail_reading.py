"""Reading a reply to a game email (issue 18): who sent it, whether a machine did, and the player's own
new lines, with quoted text and signatures stripped by a maintained reply parser (mail-parser-reply, whose
patterns know the quote headers and sign-offs of Gmail, Outlook, Apple Mail and Thunderbird in English and
Swedish and Outlook's header block in all four site languages) plus the few formats it lacks (the Polish and
Korean quote headers of Gmail, Apple Mail and Thunderbird, Gmail's header wrapped over two lines, iOS's
localized "Sent from my iPhone"), and HTML-only replies read through html2text. Attachments are never read.
Pure: no database, no settings.

Stripping sign-offs matters: the caller takes, after a move, a line that names no move for a signature, but
a line *before* any move that is not a move is reported to the player as an error. The fixtures of
``tests/web/mail_fixtures`` reproduce each client's format in each language.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from email import policy
from email.headerregistry import Address
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses

import html2text
from mailparser_reply import EmailMessage as ParsedBody

from games.services.errors import NUL
from mastery.text import single_line

#: The languages whose quote headers ("On … wrote:", "Den … skrev:", Outlook's "Od:/Wysłane:" block…) and
#: signatures mail-parser-reply strips: the site's four (what it lacks for them is added below).
REPLY_LANGUAGES = ("en", "sv", "pl", "ko")

#: ``Precedence`` values that mark bulk or automatic mail (RFC 3834 §3.1.8).
_AUTO_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
#: Local parts of the addresses bounces and mail systems send from (RFC 3834 §2).
_SYSTEM_SENDERS = re.compile(r"^(mailer-daemon|postmaster|no-?reply|bounces?)([+-].*)?$", re.IGNORECASE)
#: A line that quotes the email replied to (``> …``).
_QUOTED = re.compile(r"^\s*>")
#: A quote header left on one line of the reply ("On Tue, … wrote:", "Den … skrev …:", "… napisał(a):").
_QUOTE_HEADER = re.compile(
    r"(wrote|skrev|napisał\(a\)|napisał|napisała|pisze|작성|쓴 글)\s*:?\s*$", re.IGNORECASE
)
#: The rest of a quote header, which may go on over one more line: Gmail wraps a long one after the ``<``
#: of the address ("… Medieval Mastery <" / "play+…@mastery.example> napisał(a):").
_REST = r"[^\n]*(?:\n[^\n>][^\n]*)?"
#: The quote headers mail-parser-reply does not know, Polish: Gmail ("wt., 24 lis 2026 o 10:00 …
#: napisał(a):"), Thunderbird ("W dniu 24.11.2026 o 10:00, … pisze:"), Apple Mail ("Wiadomość napisana przez
#: … w dniu 24.11.2026, o godz. 10:00:"); Korean: Gmail ("2026년 11월 24일 (화) 오전 10:00, …님이 작성:"),
#: Apple Mail ("2026. 11. 24. 오전 10:00, … 작성:") and Thunderbird ("26. 11. 24. 오전 10:00에 … 이(가) 쓴
#: 글:", older versions "2026년 11월 24일 10:00에 …").
_MORE_QUOTE_HEADERS = re.compile(
    r"^(?:"
    rf"\w{{2,5}}\., \d{{1,2}} \w{{3,4}}\.? \d{{4}} o \d{{1,2}}:\d{{2}}{_REST}napisał(?:\(a\)|a)?"
    rf"|W dniu {_REST}(?:pisze|napisał(?:\(a\)|a)?)"
    rf"|Wiadomość napisana przez {_REST}"
    rf"|(?:\d{{4}}년 \d{{1,2}}월 \d{{1,2}}일|\d{{2,4}}\. \d{{1,2}}\. \d{{1,2}}\.){_REST}(?:작성|쓴 글)"
    r")[ \t]*:[ \t]*$",
    re.MULTILINE,
)
#: A character html2text escaped with a backslash (its ``escape_md_section``: a backslash before one of
#: ``\`*_{}[]()#+-.!``, and the ``-``, ``+`` or ``1.`` that would start a Markdown list or rule).
_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!])")
#: A horizontal rule: Outlook's line of underscores above its header block, or an ``<hr>`` through html2text.
_RULE = re.compile(r"^[_\-*= ]{3,}$")
#: Whole-line sign-offs and device signatures mail-parser-reply misses: iOS Mail's Polish and Korean "Sent
#: from my iPhone" (its patterns want "Wysłano z …" without an apostrophe and "내 …에서 보냄") and a bare
#: "감사합니다" ("thank you", its pattern wants a comma or a full stop).
_MORE_SIGN_OFFS = re.compile(
    r"^(?:Wysłane z (?:mojego )?(?:iPhone|iPada?)(?:['’]a)?"
    r"|(?:나의 |내 )?(?:iPhone|iPad)에서 보냄"
    r"|감사합니다[.,!]?)$",
    re.IGNORECASE,
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
    """A header's text (``""`` when missing or unreadable), without NUL characters (the database cannot
    store them)."""
    try:
        value = message.get(name)
    except (ValueError, TypeError, IndexError):  # a malformed header the policy cannot fold
        return ""
    return str(value or "").replace(NUL, "").strip()


def message_id_of(message: EmailMessage, raw: bytes) -> str:
    """The message's ``Message-ID`` without angle brackets, whitespace or control characters (at most 250
    characters: it goes into the answer's ``In-Reply-To`` header, where a line break would stop the email),
    or ``sha256:<hex>`` of the bytes when it has none (the same bytes delivered twice still count once)."""
    mid = "".join(single_line(_header(message, "Message-ID")).split()).strip("<>")
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
        for _display, addr in getaddresses([str(v).replace(NUL, "") for v in values]):
            if addr and "@" in addr:
                out.append(addr.strip().lower())
    return out


def is_automatic(message: EmailMessage) -> bool:
    """Whether a machine sent ``message``: ``Auto-Submitted`` other than ``no`` (RFC 3834: Exchange's
    out-of-office replies and Gmail's vacation replies say ``auto-replied``), the auto-responder headers
    ``X-Autoreply``, ``X-Autorespond`` and ``X-Autoresponder``, a bulk ``Precedence``, a delivery report
    (``multipart/report``, RFC 6522), an empty return path or a mailer-daemon sender."""
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
    attachments are skipped (``EmailMessage.get_body``). ``""`` when it has neither. NUL characters are
    removed (no move or message needs one, and the database cannot store them)."""
    try:
        part = message.get_body(preferencelist=("plain",))
        if part is not None:
            return str(part.get_content()).replace(NUL, "")
        part = message.get_body(preferencelist=("html",))
        if part is not None:
            return html_text(str(part.get_content()).replace(NUL, ""))
    except (LookupError, UnicodeError, ValueError):  # an unknown charset or a broken part
        return ""
    return ""


def html_text(html: str) -> str:
    """An HTML body as text, through html2text: one line per line written (no re-wrapping: a move is one
    line), blockquotes as ``>`` quotes, images dropped. The backslashes html2text puts before Markdown
    characters (``\\--`` for a signature separator, ``1\\.``, ``\\+``) are taken out again: the player
    wrote plain text, not Markdown."""
    converter = html2text.HTML2Text()
    converter.body_width = 0
    converter.ignore_images = True
    return _MARKDOWN_ESCAPE.sub(r"\1", converter.handle(html))


def reply_lines(text: str) -> list[str]:
    """The player's own new lines of a reply body.

    The body is cut at its first quote header (:func:`quote_headers`): what the player wrote above it is the
    reply (top-posted: Gmail, Outlook, iOS Mail, Thunderbird set so). When nothing is written above and ``>``
    quotes follow the header, the player wrote below or between the quoted lines (bottom-posted and inline:
    Thunderbird, Apple Mail, Gmail): every line that is neither a quote nor a quote header is theirs. An
    original that follows its header unquoted (Outlook) is never read. Then the signature goes
    (:func:`_unsigned`). Blank lines are dropped; the rest are stripped of spaces and of html2text's
    emphasis marks."""
    text = "\n".join(line.strip() for line in text.splitlines())
    spans = quote_headers(text)
    if not spans:
        return _unsigned(_own_lines(text))
    lines = _own_lines(text[: spans[0][0]])
    if not lines and _quoted_after(text, spans[0][1]):
        pieces, start = [], 0
        for begin, end in spans:
            pieces.append(text[start:begin])
            start = max(start, end)
        pieces.append(text[start:])
        lines = _own_lines("\n".join(pieces))
    return _unsigned([line for line in lines if not _QUOTE_HEADER.search(line)])


@functools.cache
def _parser_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """mail-parser-reply's patterns for the site's languages: quote headers ("On … wrote:", "Den … skrev:",
    Outlook's "From:/Sent:/To:" block and its translations, "-----Original Message-----") and signatures
    ("-- ", "Sent from my …", "Best regards", "Med vänliga hälsningar", "Pozdrawiam", …), but not a line
    starting with a hyphen (moves written as a list are not a "-Anna" signature). Compiled once."""
    parsed = ParsedBody(text="", languages=list(REPLY_LANGUAGES), keep_hyphen_lists=True)
    return parsed.HEADER_REGEX, parsed.SIGNATURE_REGEX


def quote_headers(text: str) -> list[tuple[int, int]]:
    """The spans of the quote headers in ``text`` (lines already stripped), in order: those mail-parser-reply
    knows and :data:`_MORE_QUOTE_HEADERS`. Nested ones, inside ``>`` quotes, are left to the quotes."""
    headers, _signatures = _parser_patterns()
    spans = [m.span() for m in headers.finditer(text) if m.group().strip()]
    spans += [m.span() for m in _MORE_QUOTE_HEADERS.finditer(text)]
    return sorted(span for span in spans if not _QUOTED.match(text[span[0] : span[1]].lstrip("\n")))


def _quoted_after(text: str, end: int) -> bool:
    """Whether the first non-empty line after ``end`` is a ``>`` quote (the original is quoted, so the player
    may have written below or between its lines), not an unquoted original as Outlook leaves it."""
    following = next((line for line in text[end:].split("\n") if line.strip()), "")
    return bool(_QUOTED.match(following))


def _own_lines(text: str) -> list[str]:
    """Non-empty lines of ``text`` that are not ``>`` quotes, stripped of spaces and emphasis marks, up to
    the signature separator (``-- ``, RFC 3676 §4.3) or a horizontal rule: nothing after them is a move."""
    out = []
    for line in text.split("\n"):
        if _QUOTED.match(line):
            continue
        if line.strip() in ("--", "-- ") or _RULE.match(line.strip()):
            break
        clean = line.strip().strip("*_").strip()
        if clean:
            out.append(clean)
    return out


def _unsigned(lines: list[str]) -> list[str]:
    """``lines`` without the signature: from the first line that mail-parser-reply's signature pattern
    matches, or that is one of :data:`_MORE_SIGN_OFFS`, to the end."""
    _headers, signatures = _parser_patterns()
    text = "\n".join(lines)
    found = signatures.search(text)
    if found is not None:
        lines = text[: found.start()].split("\n")
    for n, line in enumerate(lines):
        if _MORE_SIGN_OFFS.match(line):
            lines = lines[:n]
            break
    return [line.strip() for line in lines if line.strip()]


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
