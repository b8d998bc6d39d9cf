"""``manage.py mail_receive``: the inbound mail receiver for self-hosting (issue 18), LMTP or SMTP on a
port, for an MTA such as Postfix to hand replies to (``docs/operations.md`` shows the Postfix lines)."""

from __future__ import annotations

import signal
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.receiver import InboxController


class Command(BaseCommand):
    """Serve the receiver until SIGINT or SIGTERM."""

    help = "Receive replies to game emails over LMTP (default) or SMTP and queue them for processing."

    def add_arguments(self, parser: CommandParser) -> None:
        """``--host`` (default 127.0.0.1), ``--port`` (default 8024) and ``--smtp`` (else LMTP)."""
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8024)
        parser.add_argument("--smtp", action="store_true", help="speak SMTP instead of LMTP")

    def handle(self, *args: Any, **options: Any) -> None:
        """Start the receiver thread and wait for a stop signal."""
        controller = InboxController(host=options["host"], port=options["port"], lmtp=not options["smtp"])
        controller.start()
        protocol = "SMTP" if options["smtp"] else "LMTP"
        self.stdout.write(f"Receiving replies over {protocol} on {options['host']}:{options['port']}")
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_args: stop.set())
        stop.wait()
        controller.stop()
