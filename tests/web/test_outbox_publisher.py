"""issue 4 "Enqueuing notifications adds no more than 2 ms to a submit": with a broker, the task publish
runs on a background thread of the web process, so the request that committed never waits for Redis."""

from __future__ import annotations

import threading
import time

import pytest

from games import outbox, tasks


def test_publishing_happens_off_the_request_thread_once_per_waiting_game(
    monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    setattr(settings, "CELERY_TASK_ALWAYS_EAGER", False)  # noqa: B010 - pytest-django settings fixture
    release = threading.Event()
    calls: list[tuple[int | None, str]] = []

    def slow_delay(game_id: int | None) -> None:
        release.wait(5)  # a slow broker: the caller must not wait for this
        calls.append((game_id, threading.current_thread().name))

    monkeypatch.setattr(tasks.notifications_send, "delay", slow_delay)
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
    # The publisher is blocked in the first publish while the four hand-overs happen, so at least the
    # third 7 finds a 7 already waiting and is skipped (one task sends all of a game's due rows).
    assert len(calls) <= 3
    assert all(name == "notification-publisher" for _gid, name in calls)


def test_a_broker_failure_is_logged_and_never_raised(
    monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    setattr(settings, "CELERY_TASK_ALWAYS_EAGER", True)  # noqa: B010

    def broken(game_id: int | None) -> None:
        raise ConnectionError("redis is down")

    monkeypatch.setattr(tasks.notifications_send, "delay", broken)
    outbox.enqueue_send(3)  # must not raise: the outbox sweep sends the rows later
