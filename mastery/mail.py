"""Embedded-default email backend: every message goes to the console *and* to a file under
``EMAIL_FILE_PATH`` (``var/mail/``), so a developer can read sign-up and game mails."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.console import EmailBackend as ConsoleBackend
from django.core.mail.backends.filebased import EmailBackend as FileBackend
from django.core.mail.message import EmailMessage


class ConsoleAndFileBackend(BaseEmailBackend):
    """Send each message to both Django's console backend and its file backend (docs.djangoproject.com
    "Email backends"). Returns the number of messages sent."""

    def __init__(self, fail_silently: bool = False, **kwargs: Any) -> None:
        super().__init__(fail_silently=fail_silently)
        self.console = ConsoleBackend(fail_silently=fail_silently, **kwargs)
        self.file = FileBackend(fail_silently=fail_silently, **kwargs)

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        """Write every message to the console and to ``var/mail/``; return how many were sent."""
        self.console.send_messages(email_messages)
        return self.file.send_messages(email_messages) or 0
