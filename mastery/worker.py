"""How the Celery worker meets a broker outage (issue 28): it reconnects every few seconds for as long as
the outage lasts, and every time it (re)connects it runs each periodic task once, so overdue deadlines and
pending mail are caught up without waiting for a beat tick (beat drops the ticks it cannot publish).

Both are plugged in through Celery's documented extension points (docs.celeryq.dev "Extensions and
Bootsteps"): :class:`Consumer` is the worker's consumer class (setting ``worker_consumer``, a path Celery
imports in the worker only), and its blueprint adds the bootstep :class:`CatchUp`. Web processes never
import this module.
"""

from __future__ import annotations

import functools
import logging
from typing import Any, ClassVar

from celery import bootsteps
from celery.worker.consumer import Consumer as CeleryConsumer

log = logging.getLogger(__name__)

#: Seconds between the worker's tries to reach the broker again, at most. kombu's default grows the wait
#: by 2 s per try up to 30 s, so a worker could notice a returned broker half a minute late.
RECONNECT_INTERVAL_MAX = 2.0


class Consumer(CeleryConsumer):  # type: ignore[misc]  # celery ships no type hints
    """Celery's consumer, retrying the broker every :data:`RECONNECT_INTERVAL_MAX` seconds at most
    (``broker_connection_max_retries = None`` in the settings makes it retry for ever).

    kombu's ``Connection.ensure_connection`` takes the retry intervals as arguments, but Celery's consumer
    passes none (celery/worker/consumer/consumer.py ``ensure_connected``); this class binds them to each
    new connection before Celery's own code runs.
    """

    class Blueprint(CeleryConsumer.Blueprint):  # type: ignore[misc]
        """Celery's consumer blueprint with :class:`CatchUp` among its steps."""

        default_steps: ClassVar[list[str]] = [
            *CeleryConsumer.Blueprint.default_steps,
            "mastery.worker:CatchUp",
        ]

    def ensure_connected(self, conn: Any) -> Any:
        """Connect ``conn`` (a ``kombu.Connection``) as Celery does, with shorter waits between tries.

        Returns:
            The connected ``kombu.Connection``.
        Raises:
            Whatever Celery's ``ensure_connected`` raises (a shutdown requested while waiting).
        """
        conn.ensure_connection = functools.partial(
            conn.ensure_connection,
            interval_start=1.0,
            interval_step=1.0,
            interval_max=RECONNECT_INTERVAL_MAX,
        )
        return super().ensure_connected(conn)


class CatchUp(bootsteps.StartStopStep):  # type: ignore[misc]
    """A consumer bootstep that queues every sweep of ``beat_schedule`` (the entries run every so many
    seconds) once each time the consumer starts: when the worker is ready, and again after every
    reconnection to the broker. Entries at a time of day (a ``crontab``, such as the daily puzzle email)
    are left to beat: run at a reconnection they would come at the wrong hour.

    The sweeps are idempotent (a second run applies and sends nothing), so a catch-up that coincides with a
    beat tick costs one empty run. A failed publish is logged and left to beat.
    """

    requires: ClassVar[set[str]] = {"celery.worker.consumer.tasks:Tasks"}

    def start(self, c: Any) -> None:
        """Publish the periodic tasks (``c`` is the worker's consumer; its ``app`` the Celery app)."""
        sweeps = [
            entry for entry in c.app.conf.beat_schedule.values() if isinstance(entry["schedule"], float)
        ]
        for entry in sweeps:
            try:
                c.app.send_task(entry["task"])
            except Exception as exc:  # the broker went away again: beat and the next reconnect retry
                log.warning("could not queue the catch-up run of %s: %r", entry["task"], exc)
        log.info("queued a catch-up run of %d periodic task(s)", len(sweeps))
