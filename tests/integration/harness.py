"""Real services for the email integration tests and ``benchmarks/email_latency.py``: an SMTP sink
(aiosmtpd on 127.0.0.1, a free port), Celery worker subprocesses (``celery -A mastery worker``) on Redis,
and a Celery app for the calling process that publishes to the same Redis queue instead of running tasks
eagerly.

Isolation: every :func:`email_stack` gets its own queue name (``mastery-it-<random>``), used as the
worker's ``CELERY_TASK_DEFAULT_QUEUE`` (so the tasks the worker enqueues itself stay on it too) and as the
calling process's default queue. Concurrent runs (two xdist processes, or two checkouts) can share one
Redis database without taking each other's tasks; on exit the stack deletes only its own keys, never the
whole database.
"""

from __future__ import annotations

import asyncio
import email
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import policy
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

BASE_DIR = Path(__file__).resolve().parents[2]
#: Redis of the integration tests; ``MASTERY_TEST_REDIS_URL`` overrides it.
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/9"


def redis_url() -> str:
    """The Redis the tests and the benchmark use as broker (``MASTERY_TEST_REDIS_URL``, else db 9)."""
    return os.environ.get("MASTERY_TEST_REDIS_URL") or DEFAULT_REDIS_URL


def redis_problem(url: str) -> str | None:
    """Why Redis at ``url`` cannot be used (``None`` when it answers PING)."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=2)
        client.ping()
        client.close()
    except Exception as exc:
        return f"Redis at {url} is not reachable ({exc})"
    return None


def database_url(settings_dict: dict[str, Any]) -> str:
    """A ``DATABASE_URL`` for a Django (PostgreSQL) connection's ``settings_dict``: in a test, the test
    database pytest-django created (``test_<name>``, with a ``_gw<n>`` suffix under xdist)."""
    user = quote(str(settings_dict.get("USER") or ""), safe="")
    password = settings_dict.get("PASSWORD") or ""
    auth = f"{user}:{quote(str(password), safe='')}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{auth}{host}:{port}/{quote(str(settings_dict['NAME']), safe='')}"


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.02) -> Any:
    """Poll ``predicate`` until it returns something truthy (returned) or ``timeout`` seconds pass.

    Raises:
        AssertionError: naming ``what`` on timeout.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


# --------------------------------------------------------------------------------------------------------
# SMTP sink
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Received:
    """One message the sink accepted; ``at`` is ``time.perf_counter()`` when its DATA had arrived, ``raw``
    the message as received (for tests that read its headers and text, e.g. play by email)."""

    at: float
    mail_from: str
    rcpt_tos: tuple[str, ...]
    to: str
    subject: str
    message_id: str
    raw: bytes = field(default=b"", repr=False)


class _Handler:
    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        at = time.perf_counter()
        msg = email.message_from_bytes(envelope.original_content or b"", policy=policy.default)
        self.sink._add(
            Received(
                at=at,
                mail_from=str(envelope.mail_from),
                rcpt_tos=tuple(envelope.rcpt_tos),
                to=str(msg.get("To", "")),
                # Django folds a long encoded Subject onto a continuation line ("Subject:\n =?utf-8?…");
                # the parser keeps the fold's space, which mail clients drop: so do we.
                subject=str(msg.get("Subject", "")).strip(),
                message_id=str(msg.get("Message-ID", "")),
                raw=bytes(envelope.original_content or b""),
            )
        )
        if self.sink.delay:
            await asyncio.sleep(self.sink.delay)  # a slow server: the client waits for the 250
        while self.sink.holding():
            await asyncio.sleep(0.01)  # a server that never answers: the client hangs mid-transaction
        return "250 Message accepted for delivery"


class SmtpSink:
    """An SMTP server on 127.0.0.1 (a free port) that records every message it is sent.

    A message counts as received when its DATA has arrived, before the sink answers 250 after ``delay``
    seconds: a client killed during that wait has delivered a copy it will never see confirmed. With
    ``hold_after = n``, every message after the ``n``-th is received but not answered until
    :meth:`release`: the sender hangs inside its SMTP transaction, as long as the test wants.
    """

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.hold_after: int | None = None
        self.port = 0
        self._messages: list[Received] = []
        self._lock = threading.Lock()
        self._controller: Controller | None = None

    def _add(self, received: Received) -> None:
        with self._lock:
            self._messages.append(received)

    def holding(self) -> bool:
        """Whether messages are being held (see ``hold_after``)."""
        with self._lock:
            return self.hold_after is not None and len(self._messages) > self.hold_after

    def release(self) -> None:
        """Answer the held message(s) and hold no more."""
        with self._lock:
            self.hold_after = None

    @property
    def messages(self) -> list[Received]:
        """Everything received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._messages)

    def start(self) -> SmtpSink:
        """Listen on a free port (a few tries in case another process takes the port first)."""
        last: Exception | None = None
        for _ in range(5):
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = int(probe.getsockname()[1])
            controller = Controller(_Handler(self), hostname="127.0.0.1", port=port, ready_timeout=10)
            try:
                controller.start()
            except Exception as exc:
                last = exc
                continue
            self._controller, self.port = controller, port
            return self
        raise RuntimeError(f"could not start the SMTP sink: {last}")

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None

    def wait_for(self, count: int, timeout: float) -> list[Received]:
        """Wait until at least ``count`` messages arrived; returns them all."""
        wait_until(
            lambda: len(self._messages) >= count, timeout, f"{count} emails (have {len(self._messages)})"
        )
        return self.messages

    def summary(self) -> str:
        return "\n".join(f"  {m.at:.3f} {m.to} {m.message_id} {m.subject}" for m in self.messages)


# --------------------------------------------------------------------------------------------------------
# Celery worker subprocesses
# --------------------------------------------------------------------------------------------------------


class Worker:
    """One ``celery -A mastery worker`` subprocess, logging (appending) to ``log_path``.

    ``pool="solo"`` runs tasks in the worker's own process, so ``kill()`` (SIGKILL) stops everything at
    once, like a machine losing power.
    """

    def __init__(
        self, env: dict[str, str], log_path: Path, name: str, *, pool: str = "solo", concurrency: int = 1
    ) -> None:
        self.env, self.log_path, self.name = env, log_path, name
        self.pool, self.concurrency = pool, concurrency
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, timeout: float = 30.0) -> Worker:
        """Start the worker and wait for its ``ready.`` line."""
        self.log_path.touch()
        offset = self.log_path.stat().st_size
        self._log = self.log_path.open("ab")
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "mastery",
            "worker",
            "-P",
            self.pool,
            "-c",
            str(self.concurrency),
            "-n",
            f"{self.name}@%h",
            "-l",
            "INFO",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
        ]
        self.proc = subprocess.Popen(
            command, cwd=BASE_DIR, env=self.env, stdout=self._log, stderr=subprocess.STDOUT
        )

        def ready() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"the worker exited ({self.proc.returncode}) before it was ready")
            with self.log_path.open("rb") as f:
                f.seek(offset)
                return b" ready." in f.read()

        wait_until(ready, timeout, "the Celery worker to be ready", interval=0.05)

        def caught_up() -> bool:  # the catch-up run of the periodic tasks (mastery.worker.CatchUp) is over
            with self.log_path.open("rb") as f:
                f.seek(offset)
                text = f.read().decode(errors="replace")
            return all(re.search(rf"Task {re.escape(name)}\[[^]]+\] succeeded", text) for name in PERIODIC)

        wait_until(caught_up, timeout, "the worker's catch-up sweeps", interval=0.05)
        return self

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL the worker (no shutdown, no acknowledgement, no commit) and reap it."""
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self._close_log()

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (warm shutdown: the task at hand finishes), SIGKILL after ``timeout`` seconds."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None


#: The periodic tasks a worker runs once when it connects (``CELERY_BEAT_SCHEDULE``; mastery.worker).
PERIODIC = ("games.tasks.deadline_sweep", "games.tasks.outbox_sweep")

_SUCCEEDED = r"Task [\w.]+\[{id}\] succeeded in [0-9.e-]+s: (?P<value>.*)"
_FAILED = r"Task [\w.]+\[{id}\] (?:raised unexpected|retry|INTERNAL ERROR)"


# --------------------------------------------------------------------------------------------------------
# The whole stack
# --------------------------------------------------------------------------------------------------------


class Beat:
    """One ``celery -A mastery beat`` subprocess (its schedule file in ``directory``), logging to
    ``log_path``; the schedule comes from the settings (``DEADLINE_SWEEP_INTERVAL`` in ``env``)."""

    def __init__(self, env: dict[str, str], log_path: Path, directory: Path) -> None:
        self.env, self.log_path, self.directory = env, log_path, directory
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Beat:
        log = self.log_path.open("ab")
        command = [sys.executable, "-m", "celery", "-A", "mastery", "beat", "-l", "INFO"]
        command += [
            "-s",
            str(self.directory / "beat-schedule"),
            "--pidfile",
            str(self.directory / "beat.pid"),
        ]
        self.proc = subprocess.Popen(
            command, cwd=BASE_DIR, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


@dataclass
class EmailStack:
    """A running SMTP sink, the Redis queue of this stack, and the workers started on it."""

    sink: SmtpSink
    broker_url: str
    queue: str
    env: dict[str, str]
    log_path: Path
    workers: list[Worker] = field(default_factory=list)
    beats: list[Beat] = field(default_factory=list)

    def start_beat(self, directory: Path, **env: str) -> Beat:
        """Start Celery beat on this stack's queue, with extra environment (e.g. a short
        ``DEADLINE_SWEEP_INTERVAL``)."""
        beat = Beat({**self.env, **env}, self.log_path, directory)
        self.beats.append(beat)
        return beat.start()

    def start_worker(self, *, pool: str = "solo", concurrency: int = 1, **env: str) -> Worker:
        """Start one more worker on this stack's queue, with extra environment (e.g. a short
        ``OUTBOX_SENDING_LEASE``), and wait until it is ready."""
        worker = Worker({**self.env, **env}, self.log_path, self.queue, pool=pool, concurrency=concurrency)
        self.workers.append(worker)
        return worker.start()

    def stop_workers(self) -> None:
        for beat in self.beats:
            beat.stop()
        for worker in self.workers:
            worker.stop()

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def task_result(self, task_id: str, timeout: float = 20.0) -> str:
        """Wait until a worker has run task ``task_id`` (an ``AsyncResult.id``) and return the ``repr`` of
        its return value, read from the worker's log (results are not stored: ``task_ignore_result``).

        Raises:
            AssertionError: the task failed, or did not finish within ``timeout`` seconds.
        """
        ok = re.compile(_SUCCEEDED.format(id=re.escape(task_id)))
        failed = re.compile(_FAILED.format(id=re.escape(task_id)))

        def done() -> str | None:
            text = self.log_text()
            if failed.search(text):
                raise AssertionError(f"task {task_id} failed in the worker")
            match = ok.search(text)
            return match.group("value").strip() if match else None

        return str(wait_until(done, timeout, f"task {task_id} to finish in the worker", interval=0.05))

    def queue_length(self) -> int:
        """Tasks waiting in this stack's Redis queue (not those a worker has taken)."""
        import redis

        client = redis.Redis.from_url(self.broker_url)
        try:
            return int(client.llen(self.queue))
        finally:
            client.close()


def worker_env(*, database_url: str, broker_url: str, queue: str, smtp_port: int) -> dict[str, str]:
    """The worker's environment: this process's, without Celery and email settings, plus the given
    database, broker, queue and the SMTP sink."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "EMAIL_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="mastery.settings",
        MASTERY_ENV="test",
        DEBUG="0",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
        DATABASE_URL=database_url,
        REDIS_URL=broker_url,
        CELERY_TASK_DEFAULT_QUEUE=queue,
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(smtp_port),
    )
    return env


@contextmanager
def publishing_to(broker_url: str, queue: str) -> Iterator[Any]:
    """Make this thread's current Celery app one that publishes tasks to ``queue`` on ``broker_url``
    instead of running them eagerly; the previous current app is restored on exit.

    ``mastery.celery.app`` reads its configuration from the Django settings once, and caches its queues,
    routes and producer pool from then on; changing the settings (or ``app.conf``) in the middle of a
    test session would not reliably reach them. A separate app built from the same settings, with only the
    broker, the queue and eagerness changed, is made *current* instead: ``@shared_task`` tasks (those of
    :mod:`games.tasks`) resolve to the current app on each call, so ``tasks.notifications_send.delay()``
    in ``transaction.on_commit`` publishes through it. Other tests in the process keep the eager app.
    """
    from celery import Celery, current_app

    previous = current_app._get_current_object()
    app = Celery("mastery", set_as_current=False)
    app.config_from_object("django.conf:settings", namespace="CELERY")
    app.conf.update(broker_url=broker_url, task_always_eager=False, task_default_queue=queue)
    app.set_current()
    try:
        yield app
    finally:
        previous.set_current()
        app.close()


def redis_cleanup(broker_url: str, token: str) -> None:
    """Delete every Redis key, queue binding and unacknowledged message that names ``token`` (this
    stack's queue and worker names), and nothing else."""
    import redis

    client = redis.Redis.from_url(broker_url)
    marker = token.encode()
    try:
        for key in client.scan_iter(match=f"*{token}*"):
            client.delete(key)
        for key in client.scan_iter(match="_kombu.binding.*", _type="set"):
            stale = [m for m in client.smembers(key) if marker in m]
            if stale:
                client.srem(key, *stale)
        for tag, value in client.hscan_iter("unacked"):
            if marker in value:
                client.hdel("unacked", tag)
                client.zrem("unacked_index", tag)
    finally:
        client.close()


@contextmanager
def email_stack(
    database_url: str, log_path: Path, *, smtp_delay: float = 0.0, broker_url: str | None = None
) -> Iterator[EmailStack]:
    """An SMTP sink, a fresh Redis queue and this process publishing to it; workers are started with
    :meth:`EmailStack.start_worker`. On exit every worker is stopped, the sink closed, the current Celery
    app restored and the queue's Redis keys deleted. ``broker_url`` defaults to :func:`redis_url`; a test
    that stops its broker passes its own (:class:`RedisServer`)."""
    broker_url = broker_url or redis_url()
    queue = f"mastery-it-{uuid.uuid4().hex[:12]}"
    sink = SmtpSink(delay=smtp_delay).start()
    env = worker_env(database_url=database_url, broker_url=broker_url, queue=queue, smtp_port=sink.port)
    stack = EmailStack(sink=sink, broker_url=broker_url, queue=queue, env=env, log_path=log_path)
    try:
        with publishing_to(broker_url, queue):
            yield stack
    finally:
        try:
            stack.stop_workers()
        finally:
            sink.stop()
            if redis_problem(broker_url) is None:  # a test may leave its own broker stopped
                redis_cleanup(broker_url, queue)


# --------------------------------------------------------------------------------------------------------
# A Redis server of the test's own, to stop and start again
# --------------------------------------------------------------------------------------------------------


class RedisServer:
    """A ``redis-server`` subprocess on a free port of 127.0.0.1 with no persistence, which a test may
    stop (SIGKILL: every queued and unacknowledged message is lost, the harder outage) and start again on
    the same port. The shared Redis of the other tests is never touched."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The broker URL (database 0 of this server)."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        """Start the server and wait until it answers PING."""
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        command += ["--appendonly", "no", "--dir", str(self.directory)]
        self.proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_until(lambda: redis_problem(self.url) is None, 10, f"redis-server on port {self.port}")
        return self

    def stop(self) -> None:
        """Stop the server at once, dropping its data, and reap it."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None
