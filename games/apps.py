"""App config; connects the inbound mail signal and, inside the development server, starts the embedded
deadline sweeper and the local mail receiver."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time

from django.apps import AppConfig

log = logging.getLogger(__name__)


class GamesConfig(AppConfig):
    """Games app: models, services, views and the rules engine (games.engine)."""

    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the Celery tasks (so the outbox's publish by name finds ``notifications_send`` in every
        process, and an eager app runs it in-process), and on the embedded default (``runserver`` without
        ``REDIS_URL``) sweep deadlines in a daemon thread of the serving process, so deadlines fire
        without a Celery beat (architecture §4). Django loads the models before ``ready``, hence the imports
        here (Django docs "Applications: AppConfig.ready")."""
        from anymail.signals import inbound
        from django.conf import settings

        import games.tasks  # noqa: F401  (registers the tasks with the Celery app)
        from games.receiver import ROUTE, InboxController, on_inbound
        from mastery import inbound as router

        inbound.connect(on_inbound, dispatch_uid="games.receiver.on_inbound")  # provider webhooks (issue 18)
        router.register(ROUTE, fallback=True)  # issue 33: the platform routes replies to their game

        serving = "runserver" in sys.argv and (
            os.environ.get("RUN_MAIN") == "true" or "--noreload" in sys.argv
        )
        if serving and not settings.REDIS_URL and settings.DEADLINE_SWEEP_SECONDS > 0:
            threading.Thread(
                target=_sweep_forever, args=(settings.DEADLINE_SWEEP_SECONDS,), daemon=True
            ).start()
        if serving and not settings.REDIS_URL and settings.MAIL_RECEIVER_PORT:
            # the embedded default's local receiver (SMTP): `manage.py mail_reply --smtp` or any client
            try:
                InboxController(host="127.0.0.1", port=settings.MAIL_RECEIVER_PORT, lmtp=False).start()
                log.info("receiving replies over SMTP on 127.0.0.1:%d", settings.MAIL_RECEIVER_PORT)
            except (OSError, RuntimeError):
                log.warning("could not start the mail receiver on port %d", settings.MAIL_RECEIVER_PORT)


def _sweep_forever(every: int) -> None:
    """Run the deadline and outbox sweeps (:mod:`games.tasks`) every ``every`` seconds, until exit."""
    from django.db import close_old_connections

    from games import tasks

    while True:
        time.sleep(every)
        try:
            applied = tasks.deadline_sweep()
            if applied:
                log.info("deadline sweep applied %d timeout action(s)", applied)
            tasks.outbox_sweep()
            tasks.webhooks_send()  # issue 32: the game webhooks' retries
        except Exception:  # keep the sweeper alive; the next run retries
            log.exception("deadline sweep failed")
        finally:
            close_old_connections()
