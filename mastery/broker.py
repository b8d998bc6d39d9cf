"""The Redis broker transport, with kombu's "closed connection" fault turned into a connection error
(issue 28).

kombu 5.7.0's Redis channel builds a new connection pool from ``self.connection.client`` whenever it needs
one. After the broker connection is lost and closed, that client is ``None``, and every use of the old
channel raises ``AttributeError: 'NoneType' object has no attribute 'hostname'``
(kombu/transport/redis.py ``_connparams``): the restore of unacknowledged messages while the channel
closes, and the acknowledgement of a task that finished while the broker was away. Celery and kombu
handle connection errors on both paths (ignored while closing, logged by ``ack_log_error``), but not an
``AttributeError``: it escapes to the worker, which logs "Unrecoverable error" and exits. This channel
raises redis-py's ``ConnectionError`` instead, which both paths expect; the message stays in Redis's
``unacked`` set and is delivered again after the visibility timeout. docs/decisions.md names the upstream
report.

Selected with the ``broker_transport`` setting (docs.celeryq.dev "Configuration: broker_transport",
a ``module:Class`` path as kombu's ``get_transport_cls`` accepts); the ``redis://`` URL stays as it is.
"""

from __future__ import annotations

from typing import Any

import redis
from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    """kombu's Redis channel, refusing to build a client for a connection that is closed."""

    def _connparams(self, asynchronous: bool = False) -> Any:
        """The keyword arguments of a new redis-py connection pool (kombu's own).

        Raises:
            redis.exceptions.ConnectionError: the channel's broker connection is closed.
        """
        if self.connection.client is None:
            raise redis.exceptions.ConnectionError("the broker connection is closed")
        return super()._connparams(asynchronous=asynchronous)  # type: ignore[no-untyped-call]


class Transport(kombu_redis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel
