"""The Django app of the tournaments (issue 34): events, entries, rounds and their tables."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from importlib import import_module

from django.apps import AppConfig
from django.conf import settings
from django.db import close_old_connections
from django.utils.translation import gettext_lazy as _

log = logging.getLogger(__name__)


class TournamentsConfig(AppConfig):
    """Tournaments: round robin, Swiss and single elimination events of Medieval Mastery tables."""

    name = "tournaments"
    verbose_name = _("Tournaments")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Bind the Celery tasks (:mod:`tournaments.tasks`), so an eager app runs them in-process and a
        worker finds them; on the development server without ``REDIS_URL`` (no beat), sweep the events
        every minute in a daemon thread, as ``games.apps`` does for deadlines."""
        tasks = import_module("tournaments.tasks")
        serving = "runserver" in sys.argv and (
            os.environ.get("RUN_MAIN") == "true" or "--noreload" in sys.argv
        )
        if serving and not settings.REDIS_URL:
            threading.Thread(target=_sweep_forever, args=(tasks.events_sweep, 60), daemon=True).start()


def _sweep_forever(sweep: Callable[[], int], every: int) -> None:
    """Run ``sweep`` every ``every`` seconds until exit; a failure is logged and the next run retries."""
    while True:
        time.sleep(every)
        try:
            sweep()
        except Exception:
            log.exception("events sweep failed")
        finally:
            close_old_connections()
