"""A broker outage of a minute with a busy worker (issue 28 §1): the worker survives it, and every deadline
that fell due during the outage is applied soon after Redis returns, once.

The stack is production-like: a prefork worker with two processes (as in docker/compose.yaml), Celery beat,
PostgreSQL, and a Redis server of the test's own (:class:`.harness.RedisServer`), killed with SIGKILL, so
that every queued and unacknowledged message is lost with it. Beat runs with a sweep period much longer
than the test: catching up must not wait for a beat tick (beat drops the ticks it cannot publish), it is
the worker's job when it reconnects (``mastery.worker.CatchUp``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from games import services
from games.models import ActionRecord, Game, Prompt
from games.tasks import deadline_sweep
from tests.web.conftest import create_started_game

from .conftest import unavailable
from .harness import EmailStack, RedisServer, database_url, email_stack, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

#: How long Redis stays away (seconds), as in the drill that found the worker's exit.
OUTAGE_SECONDS = 60

#: The issue's goal: every deadline due during the outage is applied within this time of the broker's
#: return, whatever the outage's length. The worker retries every 2 s (mastery.worker), then sweeps.
RECOVERY = timedelta(seconds=30)

#: Beat's sweep period in this test: longer than the whole test, so no beat tick can do the catching up.
BEAT_PERIOD = "600"


@pytest.fixture
def outage_stack(transactional_db: None, tmp_path: Path) -> Iterator[tuple[EmailStack, RedisServer]]:
    """An email stack (SMTP sink, queue, this process publishing) on a Redis server of its own."""
    if connection.vendor != "postgresql":
        unavailable("the worker integration tests need PostgreSQL (set DATABASE_URL)")
    server = RedisServer(tmp_path).start()
    try:
        with email_stack(
            database_url(connection.settings_dict), tmp_path / "worker.log", broker_url=server.url
        ) as stack:
            try:
                yield stack, server
            finally:
                stack.stop_workers()
                print(f"--- Celery worker and beat log ({stack.log_path}) ---\n{stack.log_text()}")
    finally:
        server.stop()


def test_deadlines_due_during_a_broker_outage_are_applied_soon_after_its_return_once(
    outage_stack: tuple[EmailStack, RedisServer], tmp_path: Path
) -> None:
    """The worker is busy when Redis dies: both pool processes hang inside an SMTP transaction (the sink
    holds every message), and the prefetched tasks are unacknowledged. Redis is killed; the sink lets the
    hung sends finish during the outage (their acknowledgements have no broker to go to); the turn
    deadlines of three live games fall due. After 60 s Redis starts again, empty.

    The worker is still running, and every overdue deadline is applied (a ``timeout`` record) within
    :data:`RECOVERY` of the broker's return; two more sweeps apply nothing, and each game verifies."""
    stack, server = outage_stack
    stack.sink.hold_after = 0  # every email hangs in its SMTP transaction until released
    worker = stack.start_worker(pool="prefork", concurrency=2)
    stack.start_beat(tmp_path, DEADLINE_SWEEP_INTERVAL=BEAT_PERIOD, OUTBOX_SWEEP_INTERVAL=BEAT_PERIOD)
    games = [
        create_started_game(humans=2, seed=60 + i, time_control="live", title=f"Outage {i}") for i in range(3)
    ]
    stack.sink.wait_for(2, timeout=60)  # both pool processes are inside an SMTP transaction
    assert stack.sink.holding()
    seqs = {g.pk: g.seq for g in games}

    server.stop()
    Prompt.objects.filter(game__in=games).update(deadline_at=timezone.now() + timedelta(seconds=2))
    time.sleep(5)
    stack.sink.release()  # the hung tasks finish while the broker is away
    time.sleep(OUTAGE_SECONDS - 5)
    assert worker.running(), "the worker exited during the outage"
    server.start()
    returned = timezone.now()

    def timeout_records() -> list[ActionRecord]:
        records = ActionRecord.objects.filter(
            game__in=games, source=ActionRecord.Source.TIMEOUT, created_at__gte=returned - timedelta(days=1)
        )
        return list(records)

    wait_until(
        lambda: {r.game_id for r in timeout_records()} == set(seqs),
        RECOVERY.total_seconds() * 4,  # long enough to report how late, not the bound itself
        "the deadlines due during the outage to be applied",
    )
    assert worker.running(), "the worker exited after the outage"
    for g in games:
        first = ActionRecord.objects.get(game=g, seq=seqs[g.pk] + 1)
        assert first.source == ActionRecord.Source.TIMEOUT
        assert first.created_at - returned <= RECOVERY, (g.pk, first.created_at - returned)

    # Nothing is applied twice: two more sweeps find nothing to do.
    for _ in range(2):
        assert stack.task_result(deadline_sweep.delay().id, timeout=60) == "0"
    for g in games:
        game = Game.objects.get(pk=g.pk)
        records = ActionRecord.objects.filter(
            game=game, seq__gt=seqs[g.pk], source=ActionRecord.Source.TIMEOUT
        )
        assert records.count() == 1
        assert services.game_verify(game_id=game.pk)[0]
