"""The Django app of The Anarchy's Castle Defence (issue 33)."""

from __future__ import annotations

import os
import sys
from importlib import import_module

from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _


class AnarchyConfig(AppConfig):
    """The Anarchy: the planner, the daily puzzle, its leaderboard and the streak."""

    name = "anarchy"
    verbose_name = _("The Anarchy: Castle Defence")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Bind the Celery tasks (:mod:`anarchy.tasks`: a puzzle's best, a reply's processing), so an eager
        app runs them in-process and a worker finds them (Django docs "Applications: AppConfig.ready"), and
        register the puzzle email's reply addresses with the platform's inbound router
        (:mod:`mastery.inbound`). On the development server without ``REDIS_URL`` the solves run in threads
        (:func:`anarchy.tasks.bind_threads`)."""
        tasks = import_module("anarchy.tasks")
        import_module("mastery.inbound").register(import_module("anarchy.inbound").ROUTE)
        serving = "runserver" in sys.argv and (
            os.environ.get("RUN_MAIN") == "true" or "--noreload" in sys.argv
        )
        if serving and not settings.REDIS_URL:  # the embedded default: no worker, eager Celery
            tasks.bind_threads()  # a solve runs beside the request, never inside it
