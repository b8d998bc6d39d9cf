"""App config."""

from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Games app: models, services, views and the rules engine (games.engine)."""

    name = "games"
    default_auto_field = "django.db.models.BigAutoField"
