"""allauth's account emails as outbox data (issue 28): a message rendered in the request is stored as plain
JSON (:func:`message_data`) and rebuilt unchanged when the outbox sends it (:func:`message_from`), so the
request that signs up, asks for a password reset or adds an address never talks to the mail server.

The stored message keeps its own ``To`` (an address being added is not yet the user's login), its
subject, bodies and a ``Message-ID`` fixed when it was rendered, so a copy sent again after a lost commit
keeps the same id. Once sent, the bodies, which hold one-time links, are dropped from the row
(:func:`sent_data`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMessage, EmailMultiAlternatives, get_connection, make_msgid
from django.core.mail.backends.base import BaseEmailBackend

#: The keys of a stored message that stay on its row once it is sent (the rest holds one-time links).
KEPT_AFTER_SENDING = ("template", "subject", "to", "message_id")


def message_data(msg: EmailMessage, template: str) -> dict[str, Any]:
    """A JSON-serialisable copy of ``msg`` (as allauth's ``render_mail`` returns it: text with an HTML
    alternative, or HTML only), with a ``Message-ID`` of its own unless it has one.

    Args:
        msg: the rendered message; attachments are not kept (allauth's mails have none).
        template: allauth's template prefix (``"account/email/email_confirmation_signup"``), kept for the
            operator once the bodies are gone.

    Returns:
        A dict for :func:`message_from` and for ``Notification.data``.
    """
    headers = {str(k): str(v) for k, v in (msg.extra_headers or {}).items()}
    if not any(k.lower() == "message-id" for k in headers):
        domain = urlsplit(settings.SITE_URL).hostname or "localhost"
        headers["Message-ID"] = make_msgid(domain=domain)
    message_id = next(v for k, v in headers.items() if k.lower() == "message-id")
    alternatives = [
        [str(content), str(mimetype)] for content, mimetype in getattr(msg, "alternatives", None) or []
    ]
    return {
        "template": template,
        "subject": str(msg.subject),
        "from": str(msg.from_email),
        "to": [str(a) for a in msg.to],
        "cc": [str(a) for a in msg.cc],
        "bcc": [str(a) for a in msg.bcc],
        "reply_to": [str(a) for a in msg.reply_to],
        "headers": headers,
        "body": str(msg.body),
        "subtype": str(msg.content_subtype),
        "alternatives": alternatives,
        "message_id": message_id,
    }


def message_from(data: dict[str, Any]) -> EmailMultiAlternatives:
    """The message stored by :func:`message_data`, as it was rendered.

    Raises:
        KeyError: ``data`` holds no message (already sent: :func:`sent_data` dropped its bodies).
    """
    msg = EmailMultiAlternatives(
        subject=data["subject"],
        body=data["body"],
        from_email=data["from"],
        to=list(data["to"]),
        cc=list(data.get("cc", [])),
        bcc=list(data.get("bcc", [])),
        reply_to=list(data.get("reply_to", [])),
        headers=dict(data.get("headers", {})),
    )
    msg.content_subtype = data.get("subtype", "plain")
    for content, mimetype in data.get("alternatives", []):
        msg.attach_alternative(content, mimetype)
    return msg


def sent_data(data: dict[str, Any]) -> dict[str, Any]:
    """What a sent account email's row keeps: template, subject, addresses and ``Message-ID``, not the
    bodies and their links."""
    return {k: data[k] for k in KEPT_AFTER_SENDING if k in data}


def send_now(data: dict[str, Any], connection: BaseEmailBackend | None = None) -> int:
    """Send a stored message that has no outbox row (an address without an account; see
    :func:`games.services.outbox.queue_account_mail`).

    Returns:
        How many messages the backend accepted (0 or 1).
    """
    return (connection or get_connection()).send_messages([message_from(data)]) or 0
