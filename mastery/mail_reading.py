"""Reading a reply to a game email (issue 18): who sent it, whether a machine did, and the player's own
new lines, with quoted text and signatures stripped by a maintained reply parser (mail-parser-reply, whose
patterns know the quote headers and sign-offs of Gmail, Outlook, Apple Mail and Thunderbird in English and
Swedish and Outlook's header block in all four site languages) plus the few formats it lacks (the Polish and
Korean quote headers of Gmail, Apple Mail and Thunderbird, Gmail's header wrapped over two lines, iOS's
localized "Sent from my iPhone"), and HTML-only replies read through html2text. Attachments are never read.
A body in an unknown or wrongly declared charset is decoded with a fallback (:func:`decode_text`, issue 30).
Pure: no database, no settings.

Stripping sign-offs matters: the caller takes, after a move, a line that names no move for a signature, but
a line *before* any move that is not a move is reported to the player as an error. The fixtures of
``tests/web/mail_fixtures`` reproduce each client's format in each language.
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from email import policy
from email.headerregistry import Address
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser
from email.utils import getaddresses

import charset_normalizer
import html2text
from mailparser_reply import EmailMessage as ParsedBody

from mastery.text import NUL, single_line

#: The languages whose quote headers ("On … wrote:", "Den … skrev:", Outlook's "Od:/Wysłane:" block…) and
#: signatures mail-parser-reply strips: the site's four (what it lacks for them is added below).
REPLY_LANGUAGES = ("en", "sv", "pl", "ko")

#: ``Precedence`` values that mark bulk or automatic mail (RFC 3834 §3.1.8).
_AUTO_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
#: Local parts of the addresses bounces and mail systems send from (RFC 3834 §2).
_SYSTEM_SENDERS = re.compile(r"^(mailer-daemon|postmaster|no-?reply|bounces?)([+-].*)?$", re.IGNORECASE)
#: The prefixes mail clients put before a subject they answer or forward, in the site's languages and the
#: ones Outlook writes in German and French (``Re:``, ``SV:``, ``Odp:``, ``AW:``, ``Fwd:``, ``WG:``, ``TR:``,
#: ``회신:``, ``답장:``, ``전달:``, with Outlook's ``RE[2]:`` counter), repeated.
_SUBJECT_PREFIXES = r"(?:(?:re|sv|odp|aw|fw|fwd|wg|tr|회신|답장|전달)\s*(?:\[\d+\])?\s*:\s*)*"
#: Subjects of auto-replies and bounces, for the servers that send them without the headers of RFC 3834
#: (issue 30: an "Out of Office:" reply with no ``Auto-Submitted`` was answered, and the answer answered
#: again). An auto-responder puts its words before the subject it answers, so only the start of the
#: subject is read (after ``Re:``-like prefixes): a table's title further on may say anything. The phrases
#: are Outlook's and Exchange's own subjects in the site's four languages ("Automatic reply:", "Out of
#: Office:", "Automatiskt svar:", "Frånvaro:", "Odpowiedź automatyczna:", "자동 회신:"), the names other
#: auto-responders give themselves ("Auto-Reply", "Autosvar", "Automatyczna odpowiedź", "자동 응답", "부재중":
#: "absent", "Poza biurem": "out of office", "Nieobecność": "absence"), Outlook's German and French ones
#: (a Swedish or Polish player may work at a company whose server writes them), and the subjects of bounces
#: (Outlook's "Undeliverable:", Postfix's "Undelivered Mail Returned to Sender", Gmail's "Delivery Status
#: Notification", Exim's "Mail delivery failed", Sendmail's "Returned mail:"). Matched on the subject
#: case-folded with its accents removed, so "FRANVARO" and "Odpowiedz automatyczna" count too.
_AUTO_SUBJECT = re.compile(
    rf"^{_SUBJECT_PREFIXES}(?:"
    r"out of (?:the )?office|automatic reply|automated (?:reply|response)|auto[- ]?repl(?:y|ied)"
    r"|auto[- ]?respon(?:se|der)|vacation (?:reply|response)"
    r"|automatiskt svar|autosvar|franvar\w*"
    r"|odpowiedz automatyczna|automatyczna odpowiedz|autoodpowiedz|poza biurem|nieobecn\w*"
    r"|자동\s*(?:회신|응답|답장)|부재\s*중|부재\s*알림"
    r"|automatische antwort|abwesenheit\w*|reponse automatique|absence du bureau"
    r"|undeliverable|undelivered mail|delivery status notification|mail delivery fail\w*"
    r"|returned mail|delivery failure"
    r")(?!\w)",
)
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
    and signature removed), ``in_reply_to``, ``auth_results`` (the ``Authentication-Results`` headers,
    RFC 8601) and ``charset_guessed`` (the body's declared charset was unknown or wrong, so its charset was
    guessed: :func:`decode_text`)."""

    message_id: str
    sender: str
    recipients: list[str] = field(default_factory=list)
    subject: str = ""
    automatic: bool = False
    lines: list[str] = field(default_factory=list)
    in_reply_to: str = ""
    auth_results: list[str] = field(default_factory=list)
    charset_guessed: bool = False


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
    """Whether a machine sent ``message``: ``Auto-Submitted`` other than ``no`` (RFC 3834 §5: Exchange's
    out-of-office replies and Gmail's vacation replies say ``auto-replied``), the auto-responder headers
    ``X-Autoreply``, ``X-Autorespond`` and ``X-Autoresponder``, a bulk ``Precedence`` (RFC 3834 §3.1.8), a
    delivery report (``multipart/report``, RFC 6522), an empty return path (``Return-Path: <>``: the null
    reverse-path of RFC 5321 §4.5.5, which the receiver writes from ``MAIL FROM:<>``), a mailer-daemon
    sender, or an auto-reply's subject (:func:`is_auto_subject`: servers that send none of these headers)."""
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
    if is_auto_subject(_header(message, "Subject")):
        return True
    sender = addresses(message, "From")
    return bool(sender) and bool(_SYSTEM_SENDERS.match(sender[0].split("@", 1)[0]))


def is_auto_subject(subject: str) -> bool:
    """Whether ``subject`` (a header's text) begins, after any ``Re:``-like prefixes, with the words of an
    auto-reply or a bounce in one of the site's languages (:data:`_AUTO_SUBJECT`): case, accents and
    runs of spaces do not matter."""
    return bool(_AUTO_SUBJECT.match(_folded(subject)))


def _folded(text: str) -> str:
    """``text`` compared loosely: NFKC, case-folded, Latin accents removed (``ó`` -> ``o``, ``ł`` -> ``l``,
    ``å`` -> ``a``), runs of white space as one space. Hangul syllables are kept whole."""
    out = []
    for ch in unicodedata.normalize("NFKC", text).casefold():
        if "\uac00" <= ch <= "\ud7a3":  # a Hangul syllable: NFD would split it into jamo
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
        out.append({"ł": "l", "ø": "o", "đ": "d"}.get(base, base))
    return " ".join("".join(out).split())


#: The legacy charsets a mail client writing each site language may use when it mislabels a body (Windows
#: code pages first: Outlook's and most webmail's), tried by :func:`decode_text` when the declared charset
#: fails. UTF-8 is tried before them all.
LEGACY_CHARSETS: dict[str, tuple[str, ...]] = {
    "en": ("cp1252", "iso8859_15"),
    "sv": ("cp1252", "iso8859_15"),
    "pl": ("cp1250", "iso8859_2"),
    "ko": ("cp949", "euc_kr"),
}


def _single_byte(codec: str) -> bool:
    """Whether ``codec`` (a normalized codec name) is ASCII or a single-byte 8-bit charset (ISO 8859-x,
    Windows 125x, Mac), which decodes nearly any bytes without an error, so a UTF-8 body mislabelled as one
    of them would read as mojibake (``FÃ¤stning``)."""
    return codec == "ascii" or codec.startswith(("iso8859-", "cp125", "mac-", "latin"))


def decode_text(payload: bytes, declared: str | None, language: str = "") -> tuple[str, bool]:
    """The text of a body part, whatever charset it claims (issue 30: a body in an unknown or wrongly
    declared charset was read as empty, and the player told "We found no moves").

    In order: the declared charset (``us-ascii`` when none is, RFC 2045 §5.2), if Python knows it and the
    bytes decode in it strictly; except that bytes that are valid UTF-8 (and not plain ASCII) are read as
    UTF-8 when the declared charset is ASCII or a single-byte one (text in a legacy 8-bit charset is almost
    never valid UTF-8 by chance: M. Dürst, "The Properties and Promises of UTF-8", 1997). Otherwise the
    charset is guessed by charset-normalizer among UTF-8 and the legacy charsets of ``language``
    (:data:`LEGACY_CHARSETS`; those of every site language when it is unknown or gives nothing), and as a
    last resort the bytes are read as UTF-8 with U+FFFD for what does not decode.

    Args:
        payload: the part's bytes, transfer encoding (base64, quoted-printable) already undone.
        declared: the ``charset`` parameter of its ``Content-Type`` (``None`` when it has none).
        language: the reader's site language (``en``, ``sv``, ``pl``, ``ko``), a hint for the guess.

    Returns:
        ``(text, guessed)``: ``guessed`` is true when the declared charset was unknown or did not fit.
    """
    try:
        codec: str | None = codecs.lookup(declared or "us-ascii").name
    except LookupError:
        codec = None
    if codec is not None:
        if _single_byte(codec) and not payload.isascii():
            try:
                return payload.decode("utf-8"), True
            except UnicodeDecodeError:
                pass
        try:
            return payload.decode(codec), False
        except UnicodeDecodeError:
            pass
    try:
        return payload.decode("utf-8"), True
    except UnicodeDecodeError:
        pass
    every = tuple(dict.fromkeys(c for charsets in LEGACY_CHARSETS.values() for c in charsets))
    for candidates in (LEGACY_CHARSETS.get(language, ()), every):
        if not candidates:
            continue
        best = charset_normalizer.from_bytes(payload, cp_isolation=list(candidates)).best()
        if best is not None:
            return str(best), True
    return payload.decode("utf-8", errors="replace"), True


def _part_text(part: MIMEPart, language: str) -> tuple[str, bool]:
    """The decoded text of a ``text/*`` part (:func:`decode_text`) and whether its charset was guessed."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return "", False
    return decode_text(payload, part.get_content_charset(), language)


def body_text(message: EmailMessage, language: str = "") -> tuple[str, bool]:
    """The message's text: its ``text/plain`` body, else its ``text/html`` body read through html2text;
    attachments are skipped (``EmailMessage.get_body``). ``""`` when it has neither. NUL characters are
    removed (no move or message needs one, and the database cannot store them). An unknown or wrong
    charset is decoded with a fallback (:func:`decode_text`, ``language`` its hint).

    Returns:
        ``(text, charset_guessed)``.
    """
    try:
        part = message.get_body(preferencelist=("plain",))
        if part is not None:
            text, guessed = _part_text(part, language)
            return text.replace(NUL, ""), guessed
        part = message.get_body(preferencelist=("html",))
        if part is not None:
            text, guessed = _part_text(part, language)
            return html_text(text.replace(NUL, "")), guessed
    except (LookupError, UnicodeError, ValueError):  # a broken part
        return "", False
    return "", False


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


def read_reply(raw: bytes, language: str = "") -> Reply:
    """Read one received mail (RFC 5322 bytes) into a :class:`Reply`. Never raises: unreadable parts read
    as empty. ``language`` (the reader's site language) is the hint for a body whose charset must be
    guessed (:func:`decode_text`)."""
    message = parse_message(raw)
    sender = addresses(message, "From")
    automatic = is_automatic(message)
    text, guessed = ("", False) if automatic else body_text(message, language)
    return Reply(
        message_id=message_id_of(message, raw),
        sender=sender[0] if sender else "",
        recipients=addresses(message, "To", "Cc", "Delivered-To", "X-Original-To"),
        subject=_header(message, "Subject"),
        automatic=automatic,
        lines=[] if automatic else reply_lines(text),
        in_reply_to=_header(message, "In-Reply-To"),
        auth_results=[str(v) for v in (message.get_all("Authentication-Results") or [])],
        charset_guessed=guessed,
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
