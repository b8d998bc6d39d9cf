"""The Celery application (docs.celeryq.dev "First steps with Django").

Production: a worker (``celery -A mastery worker``) and beat (``celery -A mastery beat``) on Redis
(``REDIS_URL``). Embedded default (no ``REDIS_URL``): tasks run eagerly in-process, and the development
server runs the deadline sweep in a thread (``games.apps``). How the worker survives a broker outage and
catches up: :mod:`mastery.worker` (the ``worker_consumer`` setting) and :mod:`mastery.broker`.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mastery.settings")

app = Celery("mastery")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
