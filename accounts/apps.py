"""App config: after every ``migrate``, the current Site takes its domain from ``SITE_URL`` and its name
from ``SITE_NAME`` (allauth's emails greet with the Site's name; docs/operations.md)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.apps import AppConfig
from django.apps import apps as global_apps
from django.conf import settings
from django.db.models.signals import post_migrate


def sync_site(*, apps: Any = global_apps, **kwargs: Any) -> None:
    """Write ``settings.SITE_URL``'s host and ``settings.SITE_NAME`` into Site ``settings.SITE_ID``
    (a ``post_migrate`` receiver, given the migrated ``apps`` registry; idempotent)."""
    Site = apps.get_model("sites", "Site")
    domain = urlsplit(settings.SITE_URL).netloc or "localhost"
    Site.objects.update_or_create(
        pk=settings.SITE_ID, defaults={"domain": domain[:100], "name": settings.SITE_NAME[:50]}
    )


class AccountsConfig(AppConfig):
    """Accounts app."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Connect :func:`sync_site` to ``post_migrate`` (once, whichever app migrated)."""
        post_migrate.connect(sync_site, dispatch_uid="accounts.sync_site")
