"""Notification email latency (issue 4): from an action's commit to the SMTP server accepting its email,
through Redis and a real Celery worker; and what queuing the notification adds to a submit.

Usage: ``make bench-email`` (= ``.venv/bin/python -m benchmarks.email_latency``). Needs PostgreSQL on
127.0.0.1:5432 (it recreates the database ``mastery_bench_email``) and Redis (``MASTERY_TEST_REDIS_URL``,
default ``redis://127.0.0.1:6379/9``, on a queue of its own). Writes ``var/bench/email_latency.json``.

1. **Submit overhead** (no worker running: the tasks pile up in Redis and are deleted afterwards). All-human
   2-player games; each submit is the active player's ``end_turn``, which opens the other player's turn and
   so queues one "your turn" email. Three variants are interleaved submit by submit (so drift of the
   machine hits them alike): ``full`` (as in production: the Notification row is written in the submit's
   transaction and ``notifications_send`` is published to Redis after commit), ``rows only`` (the publish
   replaced by a no-op) and ``outbox off`` (``services.queue_write`` replaced by a no-op: no row, no
   publish). ``full - outbox off`` is what the outbox adds to a submit; ``full - rows only`` the publish,
   which is also timed alone (``outbox.enqueue_send``, 300 calls) as a cross-check.
2. **Latency.** A worker (``celery -A mastery worker``, ``--pool``/``--concurrency``) and an aiosmtpd sink
   on 127.0.0.1. ``--actions`` end_turn submits round-robin over 40 2- and 3-player all-human games, one
   every ``--interval`` seconds; with ``--burst`` also as many back to back, each on a game of its own (a
   player whose turn email has not gone out yet must not act, or the email is dropped as decided: those
   would be counted as ``not_sent``). The emails of the games' start are sent before the clock starts.
   The clock starts right after ``action_submit``
   returns (the transaction has committed and the task is published) and stops when the sink has the
   message's DATA (matched by Message-ID). Both clocks are ``time.perf_counter()`` of this process (the
   sink runs in a thread here). A few warm-up actions (the worker's first emails load templates and
   translations) are not counted.
"""

from __future__ import annotations

import argparse
import getpass
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

DB = "mastery_bench_email"
OUT = Path("var/bench")


def _pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _summary(values: list[float]) -> dict[str, float]:
    ms = [1000 * v for v in values]
    return {
        "n": len(ms),
        "median_ms": statistics.median(ms),
        "p95_ms": _pct(ms, 0.95),
        "max_ms": max(ms),
        "min_ms": min(ms),
    }


def _setup_django(database_url: str) -> None:
    os.environ.update(
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="mastery.settings",
        MASTERY_ENV="development",
        DEBUG="0",
        LOG_LEVEL="ERROR",
    )
    import django

    django.setup()


def _games(players: list[int], tag: str) -> list[tuple[int, dict[int, Any]]]:
    """Started all-human games (one per entry of ``players``): ``(game id, seat -> user)``."""
    from accounts.models import User
    from games import services
    from games.models import Seat

    out = []
    for g, n in enumerate(players):
        users = [
            User.objects.create_user(f"{tag}{g}-{i}@example.com", None, display_name=f"{tag}{g}.{i}")
            for i in range(n)
        ]
        game = services.game_create(user=users[0], title=f"Bench {tag}{g}", players=n, time_control="daily")
        for user in users[1:]:
            services.seat_join(game_id=game.pk, user=user)
        services.game_start(game_id=game.pk, user=users[0], seed=2000 + g)
        seats = {s.number: s.user for s in Seat.objects.filter(game=game).select_related("user")}
        out.append((game.pk, seats))
    return out


def _end_turn(game_id: int, seats: dict[int, Any]) -> float:
    """Submit the active player's ``end_turn``; returns the seconds ``action_submit`` took."""
    from games import engine, services
    from games.models import Game

    game = Game.objects.only("seq", "state").get(pk=game_id)
    assert game.state is not None
    active = int(game.state["active"])
    t0 = time.perf_counter()
    services.action_submit(
        game_id=game_id, user=seats[active], action=engine.EndTurn(), expected_seq=game.seq
    )
    return time.perf_counter() - t0


def bench_overhead(rounds: int) -> dict[str, Any]:
    """Submit time with the outbox as in production, with rows but no publish, and with no outbox."""
    from games.models import Notification
    from games.services import outbox, play

    def no_rows(**_kwargs: Any) -> int:
        return 0

    def no_publish(_game_id: int | None) -> None:
        return None

    from celery import current_app

    # The outbox publishes through the default Celery app (``current_app``): make the benchmark's
    # Redis-publishing app the default.
    current_app._get_current_object().set_default()
    variants: dict[str, list[Any]] = {
        "full": [],
        "rows_only": [mock.patch.object(outbox, "enqueue_send", no_publish)],
        "outbox_off": [mock.patch.object(play, "queue_write", no_rows)],
    }
    games = _games([2] * 12, "o")
    times: dict[str, list[float]] = {name: [] for name in variants}
    order = list(variants)
    cycle = itertools.cycle(games)
    for r in range(rounds + 10):
        order = order[1:] + order[:1]  # rotate which variant goes first
        for name in order:
            game_id, seats = next(cycle)
            patches = variants[name]
            for p in patches:
                p.start()
            try:
                elapsed = _end_turn(game_id, seats)
            finally:
                for p in patches:
                    p.stop()
            if r >= 10:  # the first rounds warm up connections and caches
                times[name].append(elapsed)
    publish = []  # cross-check: the publish alone (what on_commit runs), timed directly
    for game_id, _seats in games * 25:
        t0 = time.perf_counter()
        outbox.enqueue_send(game_id)
        publish.append(time.perf_counter() - t0)
    unsent = Notification.objects.filter(status=Notification.Status.PENDING)  # no worker ran: drop them
    unsent.update(status=Notification.Status.SKIPPED, skip_reason="benchmark")
    result: dict[str, Any] = {name: _summary(values) for name, values in times.items()}
    result["added_by_outbox_ms"] = result["full"]["median_ms"] - result["outbox_off"]["median_ms"]
    result["added_by_publish_ms"] = result["full"]["median_ms"] - result["rows_only"]["median_ms"]
    result["publish_alone"] = _summary(publish[20:])
    # Paired: the three variants of one round ran back to back, so their differences cancel slow drift.
    pairs = list(zip(times["full"], times["rows_only"], times["outbox_off"], strict=True))
    result["paired_outbox_ms"] = 1000 * statistics.median(f - off for f, _rows, off in pairs)
    result["paired_publish_ms"] = 1000 * statistics.median(f - rows for f, rows, _off in pairs)
    return result


def bench_latency(stack: Any, actions: int, interval: float, games: int, warmup: int = 10) -> dict[str, Any]:
    """Commit -> SMTP DATA latency of ``actions`` end_turn submits over ``games`` games, one submit every
    ``interval`` seconds. A game comes back every ``games`` submits: its next player must not act before
    their email went out, or the email is dropped unsent as decided (which would be counted as such)."""
    from games.models import Notification
    from tests.integration.harness import wait_until

    def drained() -> bool:
        return not Notification.objects.filter(status=Notification.Status.PENDING).exists()

    table = _games([2, 3] * (games // 2) + [2] * (games % 2), f"l{int(interval * 1000)}-")
    cycle = itertools.cycle(table)
    for _ in range(warmup):  # the worker's first emails load templates and translations
        _end_turn(*next(cycle))
    wait_until(drained, 300, "the start and warm-up emails to go out")
    before = len(stack.sink.messages)
    committed: dict[str, float] = {}
    keys: list[str] = []
    next_at = time.perf_counter()
    for _ in range(actions):
        game_id, seats = next(cycle)
        _end_turn(game_id, seats)
        t_commit = time.perf_counter()
        key = (  # the "your turn" row this submit queued (read after the clock started)
            Notification.objects.filter(game_id=game_id, kind=Notification.Kind.TURN)
            .order_by("-pk")
            .values_list("dedupe_key", flat=True)
            .first()
        )
        assert key is not None
        committed[key] = t_commit  # by outbox key: the Message-ID is made when the row is sent (issue 30)
        keys.append(key)
        next_at += interval
        pause = next_at - time.perf_counter()
        if pause > 0:
            time.sleep(pause)

    wait_until(drained, 300, "every measured email to go out")
    sent = dict(
        Notification.objects.filter(dedupe_key__in=keys, status=Notification.Status.SENT).values_list(
            "message_id", "dedupe_key"
        )
    )
    ids = list(sent)
    seen = wait_until(
        lambda: (lambda s: s if set(ids) <= s.keys() else None)(
            {m.message_id: m.at for m in stack.sink.messages[before:]}
        ),
        30,
        "every sent email at the sink",
    )
    latencies = [seen[mid] - committed[sent[mid]] for mid in ids]
    span = max(seen[mid] for mid in ids) - min(committed.values())
    return {
        **_summary(latencies),
        "interval_s": interval,
        "games": games,
        "not_sent": len(keys) - len(ids),
        "span_s": span,
        "emails_per_s": len(ids) / span,
    }


def main() -> None:
    """Run the benchmark (options: ``--help``), print a summary and write ``var/bench/email_latency.json``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between submits (0: burst)")
    parser.add_argument("--burst", action="store_true", help="also run the actions back to back")
    parser.add_argument("--overhead-rounds", type=int, default=300)
    parser.add_argument("--pool", default="prefork", choices=("prefork", "solo", "threads"))
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()

    user = getpass.getuser()
    subprocess.run(["dropdb", "--if-exists", "-h", "127.0.0.1", DB], check=True, capture_output=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", DB], check=True)
    database_url = f"postgres://{user}@127.0.0.1:5432/{DB}"
    _setup_django(database_url)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from tests.integration.harness import email_stack, redis_problem, redis_url

    problem = redis_problem(redis_url())
    if problem:
        sys.exit(problem)
    OUT.mkdir(parents=True, exist_ok=True)
    log_path = OUT / "email_worker.log"
    log_path.unlink(missing_ok=True)
    results: dict[str, Any] = {"pool": args.pool, "concurrency": args.concurrency}
    with email_stack(database_url, log_path) as stack:
        print("submit overhead (no worker) ...", flush=True)
        results["overhead"] = bench_overhead(args.overhead_rounds)
        import redis

        redis.Redis.from_url(stack.broker_url).delete(stack.queue)  # the overhead phase's tasks
        stack.start_worker(pool=args.pool, concurrency=args.concurrency)
        print(f"latency, one submit every {args.interval} s ...", flush=True)
        results["latency"] = bench_latency(stack, args.actions, args.interval, games=40)
        if args.burst:
            print("latency, back to back ...", flush=True)
            results["burst"] = bench_latency(stack, args.actions, 0.0, games=args.actions)

    o = results["overhead"]
    print(f"\nworker: {args.pool}, concurrency {args.concurrency}")
    print("action_submit (end_turn, 2 players)   median ms   p95 ms   n")
    for name, label in (
        ("full", "outbox, published on commit (production)"),
        ("rows_only", "rows, no publish"),
        ("outbox_off", "outbox off"),
    ):
        print(f"  {label:<40}{o[name]['median_ms']:>9.2f}{o[name]['p95_ms']:>9.2f}{o[name]['n']:>5}")
    print(
        f"  added by the outbox: {o['added_by_outbox_ms']:.2f} ms"
        f" (the publish: {o['added_by_publish_ms']:.2f} ms); median of paired differences "
        f"{o['paired_outbox_ms']:.2f} ms (the publish: {o['paired_publish_ms']:.2f} ms)"
    )
    print(
        f"  the publish timed alone: median "
        f"{o['publish_alone']['median_ms']:.2f} ms, p95 {o['publish_alone']['p95_ms']:.2f} ms"
    )
    for key in ("latency", "burst"):
        if key in results:
            r = results[key]
            print(
                f"commit -> SMTP, one submit every {r['interval_s']} s: median {r['median_ms']:.0f} ms, "
                f"p95 {r['p95_ms']:.0f} ms, max {r['max_ms']:.0f} ms, min {r['min_ms']:.0f} ms "
                f"(n={r['n']}, {r['games']} games, {r['emails_per_s']:.1f} emails/s, "
                f"{r['not_sent']} dropped as decided before sending)"
            )
    (OUT / "email_latency.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
