"""Publishing the send task (architecture §1: "``transaction.on_commit`` enqueues the tasks"; issue 13:
``on_commit(task.delay)`` plus the outbox sweep, no publisher thread)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from games import tasks
from games.models import Game, Notification
from games.notify import send as notify_send
from games.services import outbox

from .conftest import as_apply_async


def _capture(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    published: list[int | None] = []

    def record(game_id: int | None = None, game_ids: list[int] | None = None) -> None:
        published.append(game_id)

    monkeypatch.setattr(tasks.notifications_send, "apply_async", as_apply_async(record))
    return published


def test_a_write_publishes_one_task_after_commit_and_none_when_rolled_back(
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
    two_player_game: Game,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False
    game = two_player_game
    published = _capture(monkeypatch)
    seats = list(game.seats.all())
    now = game.updated_at
    args: dict[str, Any] = {"game": game, "seats": seats, "opened": [], "actor": None, "now": now}

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert outbox.queue_write(**args, finished=True) == 2
        assert published == []  # nothing is published before the rows are committed
    assert len(callbacks) == 1
    assert published == [game.pk]  # one task for the write, after commit

    before = Notification.objects.count()
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        outbox.queue_write(**args, started=True)
        raise RuntimeError("the write fails")
    assert callbacks == []
    assert published == [game.pk]  # a rolled-back write publishes nothing ...
    assert Notification.objects.count() == before  # ... and leaves no rows


def test_a_broker_failure_is_logged_and_never_raised(
    monkeypatch: pytest.MonkeyPatch, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False

    def broken(game_id: int | None = None, game_ids: list[int] | None = None) -> None:
        raise ConnectionError("redis is down")

    monkeypatch.setattr(tasks.notifications_send, "apply_async", as_apply_async(broken))
    outbox.enqueue_send(3)  # must not raise: the outbox sweep sends the rows later
    assert "outbox sweep will send them" in caplog.text


def test_the_task_sends_each_listed_game(monkeypatch: pytest.MonkeyPatch) -> None:
    flushed: list[int | None] = []

    def flush(*, game_id: int | None = None) -> int:
        flushed.append(game_id)
        return 1

    monkeypatch.setattr(notify_send, "outbox_flush", flush)
    assert tasks.notifications_send(game_ids=[4, 5]) == 2
    assert tasks.notifications_send(6) == 1
    assert flushed == [4, 5, 6]
