"""The Celery application (docs.celeryq.dev "First steps with Django").

Production: a worker (``celery -A mastery worker``) and beat (``celery -A mastery beat``) on Redis
(``REDIS_URL``). Embedded default (no ``REDIS_URL``): tasks run eagerly in-process, and the development
server runs the deadline sweep in a thread (``games.apps``).
"""

from __future__ import annotations

import os

from celery import Celery

from mastery.worker import CatchUp

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mastery.settings")

app = Celery("mastery")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Catch up on every (re)connection to the broker (issue 28): the worker runs each periodic task once.
app.steps["consumer"].add(CatchUp)
