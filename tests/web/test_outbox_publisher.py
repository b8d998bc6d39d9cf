"""issue 4 "Enqueuing notifications adds no more than 2 ms to a submit": with a broker, the task publish
runs on a background thread of the web process, so the request that committed never waits for Redis."""

from __future__ import annotations

import threading
import time

import pytest

from games import tasks
from games.notify import send as notify_send
from games.services import outbox

from .conftest import as_apply_async


def test_publishing_happens_off_the_request_thread_once_per_waiting_game(
    monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    setattr(settings, "CELERY_TASK_ALWAYS_EAGER", False)  # noqa: B010 - pytest-django settings fixture
    release = threading.Event()
    calls: list[tuple[int | None, str]] = []

    def slow_delay(game_id: int | None = None, game_ids: list[int] | None = None) -> None:
        release.wait(5)  # a slow broker: the caller must not wait for this
        ids: list[int | None] = list(game_ids) if game_ids else [game_id]
        for gid in ids:
            calls.append((gid, threading.current_thread().name))

    monkeypatch.setattr(tasks.notifications_send, "apply_async", as_apply_async(slow_delay))
    started = time.perf_counter()
    for game_id in (7, 7, 7, 8):
        outbox.enqueue_send(game_id)
    assert time.perf_counter() - started < 0.5  # returned at once although the broker blocks
    release.set()
    deadline = time.time() + 5
    while len(calls) < 2 and time.time() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    assert {c[0] for c in calls} == {7, 8}
    # The hand-overs arrive within the publisher's linger (or while it is blocked in the first publish), so
    # repeated 7s find a 7 already waiting and are skipped (one task sends all of a game's due rows).
    assert len(calls) <= 3
    assert all(name == "notification-publisher" for _gid, name in calls)


def test_a_broker_failure_is_logged_and_never_raised(
    monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    setattr(settings, "CELERY_TASK_ALWAYS_EAGER", True)  # noqa: B010

    def broken(game_id: int | None) -> None:
        raise ConnectionError("redis is down")

    monkeypatch.setattr(tasks.notifications_send, "apply_async", as_apply_async(broken))
    outbox.enqueue_send(3)  # must not raise: the outbox sweep sends the rows later


def test_games_committed_within_the_linger_share_one_task(
    monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    """Under load one task covers every game that committed within ``OUTBOX_PUBLISH_LINGER``, each once."""
    setattr(settings, "CELERY_TASK_ALWAYS_EAGER", False)  # noqa: B010
    setattr(settings, "OUTBOX_PUBLISH_LINGER", 0.2)  # noqa: B010
    published: list[tuple[int | None, tuple[int, ...]]] = []
    done = threading.Event()

    def record(game_id: int | None = None, game_ids: list[int] | None = None) -> None:
        published.append((game_id, tuple(game_ids or ())))
        done.set()

    monkeypatch.setattr(tasks.notifications_send, "apply_async", as_apply_async(record))
    publisher = outbox._Publisher()
    for game_id in (11, 12, 11, 13):
        publisher.put(game_id)
    assert done.wait(5)
    assert published == [(None, (11, 12, 13))]


def test_the_task_sends_each_listed_game(monkeypatch: pytest.MonkeyPatch) -> None:
    flushed: list[int | None] = []

    def flush(*, game_id: int | None = None) -> int:
        flushed.append(game_id)
        return 1

    monkeypatch.setattr(notify_send, "outbox_flush", flush)
    assert tasks.notifications_send(game_ids=[4, 5]) == 2
    assert tasks.notifications_send(6) == 1
    assert flushed == [4, 5, 6]
