"""App config."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Accounts app."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
