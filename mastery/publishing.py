"""What a service uses of a Celery task, for every app of the site (issue 31 §4, issue 33).

A service never imports its app's tasks (they are an entry point above it); the tasks module hands the
service its task objects when it is imported, and the service publishes them after its write commits.
"""

from __future__ import annotations

from typing import Any, Protocol


class Publishable(Protocol):
    """What the services use of a Celery task: ``delay(**kwargs)`` publishes it (Celery docs, "Calling
    Tasks")."""

    def delay(self, *args: Any, **kwargs: Any) -> Any:
        """Publish the task with these arguments."""
