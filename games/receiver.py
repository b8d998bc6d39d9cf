"""Receiving replies to game emails (issue 18, architecture §1 "inbound mail"): the LMTP/SMTP receiver
(aiosmtpd, run by ``manage.py mail_receive`` and, on the embedded default, by the development server) and
the django-anymail ``inbound`` signal of provider webhooks. Both only store the mail through the platform's
inbound router (:mod:`mastery.inbound`, issue 33), which hands it to the game whose address it is: Medieval
Mastery's route (:func:`mail_route`, registered in ``games.apps``) stores it with
:func:`games.services.inbox.mail_store`, which enqueues its processing after commit.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session
from django.conf import settings
from django.db import connection

from games.services.inbox import is_reply_address, mail_store
from mastery import inbound

log = logging.getLogger(__name__)


def store_raw(raw: bytes, rcpt: list[str], via: str, mail_from: str | None = None) -> bool:
    """Store one received mail in this thread's own database connection (closed after), for the receiver's
    executor threads. ``mail_from`` is the envelope sender (``"<>"`` or ``""``: the null reverse-path of
    RFC 5321 §4.5.5, never answered). Returns whether it was new (``False``: the same ``Message-ID`` was
    stored before, or no game receives it: :func:`mastery.inbound.store`)."""
    try:
        return inbound.store(raw, rcpt, via, mail_from)
    finally:
        # Closed, not kept for ``CONN_MAX_AGE``: an executor thread may end at any time (the receiver's
        # loop shuts its executor down on stop), and its connection would stay open until the garbage
        # collector found it. Replies are rare; a connection per mail costs nothing that matters.
        connection.close()


def mail_route(raw: bytes, rcpt: list[str], via: str, mail_from: str | None) -> bool:
    """Medieval Mastery's ``store`` in the inbound router (:class:`mastery.inbound.Route`): one
    :class:`~games.models.InboundMail` row; whether it was new."""
    _mail, created = mail_store(raw=raw, rcpt=rcpt, via=via, mail_from=mail_from)
    return created


#: Medieval Mastery's inbound route: its ``play+…`` reply addresses. Registered by ``games.apps`` as the
#: fallback too: mail no game receives is stored and refused as before the router (issue 33).
ROUTE = inbound.Route(name="medieval-mastery", accepts=is_reply_address, store=mail_route)


class InboxHandler:
    """The aiosmtpd handler (aiosmtpd docs "Handler hooks"): ``RCPT TO`` must be a well-signed reply
    address of one of the site's games (:func:`mastery.inbound.accepts`, else ``550``); ``DATA`` stores
    the mail and answers ``250`` once it is committed, so the sending MTA keeps (and retries) any mail not
    yet stored. Mail over ``INBOUND_MAX_BYTES`` is refused by the server itself with ``552`` (its
    ``data_size_limit``)."""

    def __init__(self, via: str) -> None:
        self.via = via

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        """Accept only the games' reply addresses."""
        if not inbound.accepts(address):
            return "550 5.1.1 No such mailbox: reply to the address of an email from this site"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        """Store the mail with its envelope sender (in a worker thread: the ORM is synchronous) and answer
        once it is committed. aiosmtpd gives ``MAIL FROM:<>`` as ``"<>"``: a bounce or an auto-reply,
        stored but never answered (issue 30)."""
        raw = envelope.original_content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        rcpt, mail_from = list(envelope.rcpt_tos), envelope.mail_from or ""
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, store_raw, raw, rcpt, self.via, mail_from)
        except Exception:
            log.exception("could not store an inbound mail")
            return "451 4.3.0 Could not store the message now; try again later"
        if self.via == "lmtp":  # LMTP answers once per recipient (RFC 2033 §4.2)
            return "\r\n".join("250 2.0.0 Message accepted" for _ in envelope.rcpt_tos)
        return "250 2.0.0 Message accepted"


class InboxController(Controller):
    """An aiosmtpd controller serving :class:`InboxHandler` over LMTP or SMTP in a thread."""

    def __init__(self, *, host: str, port: int, lmtp: bool) -> None:
        super().__init__(
            InboxHandler("lmtp" if lmtp else "smtp"),
            hostname=host,
            port=port,
            data_size_limit=settings.INBOUND_MAX_BYTES,
        )
        self.lmtp = lmtp

    def factory(self) -> SMTP:
        """The LMTP or SMTP server of one connection (aiosmtpd's ``Controller.factory`` hook)."""
        cls = LMTP if self.lmtp else SMTP
        return cls(self.handler, **self.SMTP_kwargs)


def on_inbound(sender: Any, event: Any, esp_name: str, **kwargs: Any) -> None:
    """django-anymail's ``inbound`` signal (anymail.dev "Receiving mail"): the provider's webhook has been
    authenticated with ``ANYMAIL["WEBHOOK_SECRET"]`` by anymail; store the message as received, with its
    envelope sender when the provider gives one (anymail's ``envelope_sender``, ``None`` when unknown)."""
    message = event.message
    if message is None:
        return
    rcpt = [message.envelope_recipient] if getattr(message, "envelope_recipient", None) else []
    sender = getattr(message, "envelope_sender", None)
    mail_from = sender if isinstance(sender, str) else None
    inbound.store(message.as_bytes(), rcpt, "webhook", mail_from)
