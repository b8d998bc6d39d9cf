"""``manage.py mail_reply FILE "advance Forest 4"``: answer a game email written to ``var/mail/`` on the
embedded default (issue 18), as the recipient's mail client would: a reply from their address to the
email's own Reply-To address, with the original quoted below. It is handed to the receiver's store (or,
with ``--smtp HOST:PORT``, sent to a running receiver), processed like any reply, and the answer is written
to ``var/mail/`` in turn."""

from __future__ import annotations

import smtplib
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import formatdate, make_msgid
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.receiver import store_raw

#: The separator Django's file email backend writes after each message.
_SEPARATOR = b"\n" + b"-" * 79 + b"\n"


def last_replyable(path: Path, to: str = "") -> EmailMessage:
    """The last message in a ``var/mail/`` file that has a Reply-To address (and, with ``to``, was sent to
    that address: one file holds every message one connection sent).

    Raises:
        CommandError: no such file, or no message in it can be answered.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror}") from exc
    for chunk in reversed(data.split(_SEPARATOR)):
        if not chunk.strip():
            continue
        message = BytesParser(policy=policy.default).parsebytes(chunk.lstrip(b"\n"))
        if message.get("Reply-To") and (not to or to.lower() in str(message.get("To", "")).lower()):
            assert isinstance(message, EmailMessage)
            return message
    raise CommandError(f"{path} holds no email{' to ' + to if to else ''} that can be answered by reply")


def reply_to(original: EmailMessage, text: str) -> EmailMessage:
    """A plain-text reply to ``original`` with ``text`` on top and the original quoted below, as a
    top-posting mail client writes it."""
    reply = EmailMessage()
    reply["From"] = str(original["To"])
    reply["To"] = str(original["Reply-To"])
    reply["Subject"] = "Re: " + str(original.get("Subject", ""))
    reply["Date"] = formatdate(localtime=True)
    reply["Message-ID"] = make_msgid(domain="mail-reply.local")
    if original.get("Message-ID"):
        reply["In-Reply-To"] = str(original["Message-ID"])
        reply["References"] = str(original["Message-ID"])
    body = original.get_body(preferencelist=("plain",))
    quoted = "\n".join("> " + line for line in str(body.get_content() if body else "").splitlines())
    reply.set_content(
        f"{text}\n\nOn {original.get('Date', '')}, {original.get('From', '')} wrote:\n{quoted}\n"
    )
    return reply


class Command(BaseCommand):
    """Reply to a stored game email with one or more lines of moves."""

    help = 'Answer a game email from var/mail/ by reply: mail_reply FILE "advance Forest 4" ["end" …]'

    def add_arguments(self, parser: CommandParser) -> None:
        """The file, the reply's lines, and ``--smtp HOST:PORT`` to send through a running receiver."""
        parser.add_argument("file", type=Path)
        parser.add_argument("lines", nargs="+", help="the reply: a number or moves, one argument per line")
        parser.add_argument("--smtp", default="", help="send to a receiver at HOST:PORT instead of storing")
        parser.add_argument("--to", default="", help="answer the message sent to this address")

    def handle(self, *args: Any, **options: Any) -> None:
        """Build the reply and hand it over; the result email follows in var/mail/."""
        original = last_replyable(options["file"], options["to"])
        reply = reply_to(original, "\n".join(options["lines"]))
        if options["smtp"]:
            host, _sep, port = options["smtp"].rpartition(":")
            with smtplib.SMTP(host or "127.0.0.1", int(port)) as client:
                client.send_message(reply)
        else:
            store_raw(reply.as_bytes(), [str(original["Reply-To"])], "cli")
        self.stdout.write(
            self.style.SUCCESS(f"Replied to {original['Reply-To']}: " + " / ".join(options["lines"]))
        )
