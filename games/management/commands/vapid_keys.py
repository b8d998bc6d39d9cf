"""``manage.py vapid_keys``: make a VAPID key pair for Web Push (issue 32; docs/operations.md "Web Push")."""

from __future__ import annotations

import json
from typing import Any

from cryptography.hazmat.primitives import serialization
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from py_vapid import Vapid  # type: ignore[import-untyped]
from py_vapid.utils import b64urlencode  # type: ignore[import-untyped]


def vapid_pair() -> tuple[str, str]:
    """A new P-256 key pair (py_vapid's ``Vapid.generate_keys``) as ``(public, private)``, both base64url
    without padding: the public key the uncompressed point (65 bytes, X9.62; what
    ``PushManager.subscribe`` takes as ``applicationServerKey``), the private key the raw 32-byte scalar
    (what pywebpush's ``Vapid.from_string`` reads). RFC 8292 §3.2."""
    vapid = Vapid()
    vapid.generate_keys()
    public = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    private = vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
    return str(b64urlencode(public)), str(b64urlencode(private))


class Command(BaseCommand):
    """Print a new VAPID key pair as settings lines (environment variables), or with ``--write`` store it
    in ``settings.VAPID_KEYS_FILE`` (``var/vapid.json``), which development settings read when the
    environment has no keys. ``--write`` keeps a file that exists unless ``--force`` is given: replacing
    the keys makes every browser's subscription useless (their push services refuse the new key)."""

    help = "Generate a VAPID key pair for Web Push: print it, or store it in var/vapid.json (--write)."

    def add_arguments(self, parser: CommandParser) -> None:
        """``--write`` and ``--force`` (Django docs "Writing custom django-admin commands")."""
        parser.add_argument(
            "--write", action="store_true", help="store the keys in settings.VAPID_KEYS_FILE (if absent)"
        )
        parser.add_argument("--force", action="store_true", help="with --write: replace an existing file")

    def handle(self, *args: Any, **options: Any) -> None:
        """Generate the pair and print or store it."""
        path = settings.VAPID_KEYS_FILE
        if options["write"] and path.exists() and not options["force"]:
            self.stdout.write(f"{path} exists; keeping its keys (--force replaces them)")
            return
        public, private = vapid_pair()
        lines = {
            "VAPID_PUBLIC_KEY": public,
            "VAPID_PRIVATE_KEY": private,
            "VAPID_SUBJECT": settings.VAPID_SUBJECT,
        }
        if options["write"]:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(lines, indent=2) + "\n")
            path.chmod(0o600)
            self.stdout.write(f"wrote a new VAPID key pair to {path}")
            return
        for name, value in lines.items():
            self.stdout.write(f"{name}={value}")
