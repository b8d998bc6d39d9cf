"""Replies as the mail clients send them (issue 18): the top-posted, bottom-posted and inline replies of
Gmail, Outlook, Apple Mail and Thunderbird in the site's four languages, and automatic mail, read by
:func:`mastery.mail_reading.read_reply`. The fixtures and what each must give are in
``tests/web/mail_fixtures`` (see its README)."""

from __future__ import annotations

import json
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest

from mastery.mail_reading import read_reply

FIXTURES = Path(__file__).parent / "mail_fixtures"
MANIFEST: dict[str, list[str]] = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
AUTOMATIC = sorted(p.name for p in FIXTURES.glob("auto-*.eml"))

PLAY_ADDRESS = "play+1f-0123456789abcdef0123@mastery.example"
ORIGINAL_ID = "<n.4f1c2a9be07d4c3f8a6b5e2d1c0f9a8b@mastery.example>"
CLIENTS = ("gmail", "outlook", "applemail", "thunderbird")
LANGUAGES = ("en", "sv", "pl", "ko")
#: The clients whose bottom-posted and inline replies are kept, per language.
BOTTOM = ("thunderbird", "applemail")
INLINE = ("thunderbird", "gmail")


def raw(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def kinds() -> set[tuple[str, str, str]]:
    """(client, language, style) of every reply fixture, from its name."""
    out = set()
    for name in MANIFEST:
        client, lang, style = name.removesuffix(".eml").split("-")[:3]
        out.add((client, lang, style))
    return out


def html_only(data: bytes) -> bytes | None:
    """The same reply with its HTML part alone (as a client set to send HTML only would send it), or
    ``None`` when it has no alternative HTML part."""
    message = BytesParser(policy=policy.default).parsebytes(data)
    assert isinstance(message, EmailMessage)
    part = message.get_body(preferencelist=("html",))
    if message.get_content_type() != "multipart/alternative" or part is None:
        return None
    out = EmailMessage()
    for header in ("From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "References"):
        out[header] = str(message[header])
    out.set_content(part.get_content(), subtype="html")
    return out.as_bytes()


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_each_client_format_reads_as_the_players_own_lines(name: str) -> None:
    reply = read_reply(raw(name))
    assert reply.lines == MANIFEST[name]
    assert reply.automatic is False
    assert PLAY_ADDRESS in reply.recipients
    assert reply.in_reply_to == ORIGINAL_ID
    assert "Test game" in reply.subject and reply.sender.endswith("@example.com")


@pytest.mark.parametrize("name", sorted(n for n in MANIFEST if html_only(raw(n)) is not None))
def test_the_html_part_alone_reads_the_same(name: str) -> None:
    data = html_only(raw(name))
    assert data is not None
    assert read_reply(data).lines == MANIFEST[name]


def test_every_client_and_language_is_covered() -> None:
    have = kinds()
    missing = [(c, lang) for c in CLIENTS for lang in LANGUAGES if (c, lang, "top") not in have]
    assert not missing, f"no top-posted reply of {missing}"
    for lang in LANGUAGES:
        for client in BOTTOM:
            assert (client, lang, "bottom") in have, f"no bottom-posted {client} reply in {lang}"
        for client in INLINE:
            assert (client, lang, "inline") in have, f"no inline {client} reply in {lang}"
    assert {c for c, _lang, _style in have} == set(CLIENTS)
    assert {s for _c, _lang, s in have} == {"top", "bottom", "inline"}


def test_every_fixture_is_checked() -> None:
    names = {p.name for p in FIXTURES.glob("*.eml")}
    assert names == set(MANIFEST) | set(AUTOMATIC)
    assert len(AUTOMATIC) >= 3


@pytest.mark.parametrize("name", AUTOMATIC)
def test_automatic_mail_is_recognised_and_never_read_for_moves(name: str) -> None:
    reply = read_reply(raw(name))
    assert reply.automatic is True
    assert reply.lines == []
