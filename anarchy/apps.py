"""The Django app of The Anarchy's Castle Defence (issue 33)."""

from __future__ import annotations

from importlib import import_module

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnarchyConfig(AppConfig):
    """The Anarchy: the planner, the daily puzzle, its leaderboard and the streak."""

    name = "anarchy"
    verbose_name = _("The Anarchy: Castle Defence")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Bind the Celery task that works out a puzzle's best (:mod:`anarchy.tasks`), so an eager app runs
        it in-process and a worker finds it (Django docs "Applications: AppConfig.ready")."""
        import_module("anarchy.tasks")
