"""What keeps the background work going through the faults of a real deployment (issue 28 §1): services
that restart and report their health, the broker check behind beat's health, the catch-up a worker runs
when it (re)connects, and kombu's closed-connection fault turned into a connection error. The outage
itself is played for real in tests/integration/test_broker_outage.py."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import redis
import yaml
from django.conf import settings
from django.core.management import CommandError, call_command

from mastery.broker import Channel, Transport
from mastery.celery import app
from mastery.worker import CatchUp, Consumer

COMPOSE = Path(__file__).resolve().parents[2] / "docker" / "compose.yaml"

#: Services that run until stopped (``migrate`` runs once and exits).
LONG_RUNNING = ("web", "worker", "beat", "receiver", "db", "redis", "mail")
#: Services whose failure stops play or mail, each with a health check.
CHECKED = ("web", "worker", "beat", "receiver", "db", "redis")


def _services() -> dict[str, dict[str, Any]]:
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    services: dict[str, dict[str, Any]] = compose["services"]
    return services


def test_every_long_running_service_restarts_and_reports_its_health() -> None:
    """docker/compose.yaml: a restart policy on every long-running service, a health check on each one
    that matters; the worker's and beat's checks go through the broker, so they fail while it is away."""
    services = _services()
    for name in LONG_RUNNING:
        assert services[name].get("restart") in ("always", "unless-stopped", "on-failure"), name
    assert services["migrate"]["restart"] == "no"
    for name in CHECKED:
        assert services[name].get("healthcheck", {}).get("test"), name
    worker_check = " ".join(services["worker"]["healthcheck"]["test"])
    assert "inspect ping" in worker_check and "--destination" in worker_check
    assert "broker_ping" in services["beat"]["healthcheck"]["test"]
    assert services["migrate"]["depends_on"]["redis"]["condition"] == "service_healthy"


def test_broker_ping_answers_for_a_broker_that_answers_and_fails_otherwise() -> None:
    """``manage.py broker_ping`` exits 0 for the configured broker and 1 (CommandError) for one that
    refuses connections."""
    call_command("broker_ping", timeout=2)
    with pytest.raises(CommandError, match="does not answer"):
        call_command("broker_ping", url="redis://127.0.0.1:1/0", timeout=1)


def test_a_closed_broker_connection_is_a_connection_error_not_an_attribute_error() -> None:
    """kombu's Redis channel reads ``connection.client.hostname``; once the connection is closed the client
    is ``None``. Our channel raises redis-py's ConnectionError there, which kombu and Celery handle (the
    AttributeError made the worker exit with "Unrecoverable error")."""
    closed = SimpleNamespace(connection=SimpleNamespace(client=None))
    with pytest.raises(redis.exceptions.ConnectionError):
        Channel._connparams(closed)  # type: ignore[arg-type]  # only .connection.client is read
    assert redis.exceptions.ConnectionError in Transport.connection_errors  # what kombu and Celery handle
    assert app.conf.worker_consumer == "mastery.worker:Consumer"
    assert app.conf.broker_connection_max_retries is None
    assert "mastery.worker:CatchUp" in Consumer.Blueprint.default_steps


class _App:
    """A Celery app stand-in that records the tasks sent and refuses those in ``refuse``."""

    def __init__(self, refuse: tuple[str, ...] = ()) -> None:
        self.conf = SimpleNamespace(beat_schedule=settings.CELERY_BEAT_SCHEDULE)
        self.sent: list[str] = []
        self.refuse = refuse

    def send_task(self, name: str) -> None:
        if name in self.refuse:
            raise ConnectionError("the broker went away again")
        self.sent.append(name)


#: The one entry of the beat schedule at a time of day (a crontab): never caught up on a reconnection.
DAILY_MAIL = "anarchy.tasks.puzzle_mails_send"


def test_a_worker_that_connects_queues_every_periodic_task_once(caplog: pytest.LogCaptureFixture) -> None:
    """The catch-up step queues each sweep of the beat schedule once per (re)connection, and not the
    daily email (a time of day); a publish that fails is logged and the others still go (beat and the next
    reconnection try again)."""
    expected = sorted(
        str(entry["task"]) for entry in settings.CELERY_BEAT_SCHEDULE.values() if entry["task"] != DAILY_MAIL
    )
    assert DAILY_MAIL in {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert expected == [
        "anarchy.tasks.anarchy_sweep",  # issue 33
        "games.tasks.deadline_sweep",
        "games.tasks.outbox_sweep",
        "games.tasks.webhooks_send",
        "tournaments.tasks.events_sweep",  # issue 34
    ]
    app_ = _App()
    consumer = SimpleNamespace(app=app_)
    step = CatchUp.__new__(CatchUp)  # a bootstep's constructor wants the consumer's blueprint
    step.start(consumer)
    assert sorted(app_.sent) == expected
    step.start(consumer)
    assert sorted(app_.sent) == sorted(expected * 2)

    refusing = SimpleNamespace(app=_App(refuse=("games.tasks.deadline_sweep",)))
    with caplog.at_level(logging.WARNING, logger="mastery.worker"):
        step.start(refusing)
    assert sorted(refusing.app.sent) == [t for t in expected if t != "games.tasks.deadline_sweep"]
    assert "games.tasks.deadline_sweep" in caplog.text
