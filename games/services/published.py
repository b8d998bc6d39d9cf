"""The Celery tasks the services publish after a write commits, held by reference (issue 31 §4).

The tasks are an entry point above the services (architecture), so no service imports them: when
``games.tasks`` is imported (every process does, in ``GamesConfig.ready``) it hands its task objects to
:data:`TASKS`, and the services call ``TASKS.notifications_send.delay(…)``. They are Celery's
``shared_task`` proxies, which publish through the current app (an eager app runs them at once; the
integration tests' app publishes to their own queue). Publishing before the tasks are bound is a
programming error, reported as such (:class:`Unbound`).
"""

from __future__ import annotations

from typing import Any

from mastery.publishing import Publishable as Publishable  # one home for every app (issue 33)


class Unbound(RuntimeError):
    """A task was published before ``games.tasks`` bound it (the app is not ready)."""


class _Missing:
    """Stands in for a task until ``games.tasks`` binds it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def delay(self, *args: Any, **kwargs: Any) -> Any:
        """Raise :class:`Unbound`: nothing can be published yet."""
        raise Unbound(f"the task {self.name} is not bound yet (games.tasks is imported in AppConfig.ready)")


class Tasks:
    """The tasks the services publish, by reference: sending a game's due notifications, sending account
    emails (and a message without an outbox row), processing a received mail, playing slow bots."""

    def __init__(self) -> None:
        self.notifications_send: Publishable = _Missing("notifications_send")
        self.account_mail_send: Publishable = _Missing("account_mail_send")
        self.inbound_process: Publishable = _Missing("inbound_process")
        self.bots_play: Publishable = _Missing("bots_play")
        self.webhooks_send: Publishable = _Missing("webhooks_send")


#: The one registry, filled by ``games.tasks`` when it is imported.
TASKS = Tasks()
