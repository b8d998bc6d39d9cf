"""Play by email speed (issue 18): a reply received -> its move applied -> the result email at the SMTP
sink, end to end through the real receiver (``games.receiver.InboxController``, SMTP, in this process),
Redis and real Celery workers; and how many messages a second the receiver accepts.

Usage: ``make bench-replies`` (= ``.venv/bin/python -m benchmarks.email_replies``). Needs PostgreSQL on
127.0.0.1:5432 (it recreates the database ``mastery_bench_replies``) and Redis (``MASTERY_TEST_REDIS_URL``,
default ``redis://127.0.0.1:6379/9``, on a queue of its own). Writes ``var/bench/email_replies.json``.

1. **Latency.** ``--games`` all-human 2-player games. ``--replies`` replies ``end`` from the player to move,
   round-robin over the games, one every ``--interval`` seconds (0.1: 10 replies/s), each over its own SMTP
   connection as an MTA would hand it over, to the reply address of that player's newest decision email
   (a game comes back every ``games`` replies, long after its last reply was answered). The clock starts
   before the SMTP connection opens and stops when the sink has the one result email
   ("Re: Your turn …") for that player. Warm-up replies are not counted.
2. **Receiver throughput.** ``--flood`` messages (automatic replies: stored, then ignored by the task
   without an answer) sent back to back by ``--clients`` concurrent SMTP clients; messages per second
   from the first connection to the last ``250``.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import json
import os
import smtplib
import socket
import subprocess
import sys
import threading
import time
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from benchmarks.email_latency import _summary

DB = "mastery_bench_replies"
OUT = Path("var/bench")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _games(count: int) -> list[int]:
    """Started all-human 2-player games; their first decision emails are queued."""
    from allauth.account.models import EmailAddress

    from accounts.models import User
    from games import services

    ids = []
    for g in range(count):
        users = []
        for i in range(2):
            user = User.objects.create_user(f"r{g}-{i}@example.com", None, display_name=f"R{g}.{i}")
            EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
            users.append(user)
        game = services.game_create(user=users[0], title=f"Bench {g}", players=2, time_control="daily")
        services.seat_join(game_id=game.pk, user=users[1])
        services.game_start(game_id=game.pk, user=users[0], seed=3000 + g)
        ids.append(game.pk)
    return ids


def _reply(game_id: int) -> tuple[str, EmailMessage]:
    """The player to move in ``game_id`` and their reply ``end`` to their newest decision email."""
    from games.models import Game, Notification
    from games.services.inbox import reply_address
    from games.store import game_state

    game = Game.objects.get(pk=game_id)
    seat = game_state(game).active
    n = (
        Notification.objects.filter(game_id=game_id, seat=seat, kind__in=("turn", "reply"))
        .exclude(prompt_key="")
        .select_related("recipient")
        .order_by("-pk")
        .first()
    )
    assert n is not None
    msg = EmailMessage()
    msg["From"] = n.recipient.email
    msg["To"] = reply_address(n.pk)
    msg["Subject"] = "Re: [Medieval Mastery] Your turn"
    msg["Message-ID"] = make_msgid(domain="bench.example")
    msg.set_content("end\n\nOn Tue, 24 Nov 2026 at 10:00, Medieval Mastery wrote:\n> Your turn\n")
    return n.recipient.email, msg


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _send(port: int, msg: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port) as client:
        client.send_message(msg)


def bench_latency(stack: Any, port: int, games: list[int], replies: int, interval: float) -> dict[str, Any]:
    """Reply -> result-email latency of ``replies`` replies, one every ``interval`` seconds."""
    from games.models import InboundMail, Notification
    from tests.integration.harness import wait_until

    def answered(address: str, after: float) -> float | None:
        for m in stack.sink.messages:
            if m.to == address and m.at > after and "Re: " in m.subject:
                return float(m.at)
        return None

    def drained() -> bool:
        pending = Notification.objects.filter(status=Notification.Status.PENDING).exists()
        return not pending and not InboundMail.objects.filter(status=InboundMail.Status.PENDING).exists()

    wait_until(drained, 300, "the games' first emails to go out")
    sent: list[tuple[str, float]] = []
    next_at = time.perf_counter()
    for k in range(replies):
        address, msg = _reply(games[k % len(games)])
        t0 = time.perf_counter()
        _send(port, msg)
        sent.append((address, t0))
        next_at += interval
        pause = next_at - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        if (k + 1) % len(games) == 0:  # a game comes back: its previous reply must have been answered
            wait_until(drained, 120, "the round's replies to be answered")
    wait_until(drained, 300, "every reply to be answered")
    seen = [wait_until(functools.partial(answered, a, t), 60, f"the answer to {a}") for a, t in sent]
    latencies = [at - t0 for at, (_a, t0) in zip(seen, sent, strict=True)]
    return {**_summary(latencies), "interval_s": interval, "games": len(games)}


def bench_receiver(port: int, messages: int, clients: int) -> dict[str, Any]:
    """Messages per second the receiver accepts (stored and committed before its ``250``)."""
    per_client = messages // clients

    def flood() -> None:
        with smtplib.SMTP("127.0.0.1", port) as client:
            for _ in range(per_client):
                msg = EmailMessage()
                msg["From"] = "vacation@example.com"
                msg["To"] = _flood_address
                msg["Subject"] = "Out of office"
                msg["Auto-Submitted"] = "auto-replied"
                msg["Message-ID"] = make_msgid(domain="flood.example")
                msg.set_content("I am away until Monday.")
                client.send_message(msg)

    threads = [threading.Thread(target=flood) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    spent = time.perf_counter() - t0
    return {
        "messages": per_client * clients,
        "clients": clients,
        "seconds": spent,
        "per_s": per_client * clients / spent,
    }


_flood_address = ""


def main() -> None:
    """Run both parts (options: ``--help``), print them and write ``var/bench/email_replies.json``."""
    global _flood_address
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--replies", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.1)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--flood", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    user = getpass.getuser()
    subprocess.run(["dropdb", "--if-exists", "-h", "127.0.0.1", DB], check=True, capture_output=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", DB], check=True)
    database_url = f"postgres://{user}@127.0.0.1:5432/{DB}"
    os.environ.update(
        DATABASE_URL=database_url, DJANGO_SETTINGS_MODULE="mastery.settings", MASTERY_ENV="development"
    )
    os.environ.update(DEBUG="0", LOG_LEVEL="ERROR", REPLY_DOMAIN="bench.example")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from games.services.inbox import reply_address
    from tests.integration.harness import email_stack, redis_problem, redis_url, wait_until

    problem = redis_problem(redis_url())
    if problem:
        raise SystemExit(problem)
    OUT.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    with email_stack(database_url, OUT / "email_replies.log") as stack:
        for _ in range(args.workers):
            stack.start_worker()
        # the receiver as deployed: `manage.py mail_receive` publishing to the workers' queue
        command = [sys.executable, "manage.py", "mail_receive", "--smtp", "--port", str(port)]
        receiver = subprocess.Popen(command, env=stack.env, stdout=subprocess.DEVNULL)
        try:
            wait_until(lambda: _listening(port), 30, "the receiver to listen")
            games = _games(args.games)
            bench_latency(stack, port, games, args.warmup, args.interval)  # templates, translations
            latency = bench_latency(stack, port, games, args.replies, args.interval)
            _flood_address = reply_address(1)
            receiver_rate = bench_receiver(port, args.flood, args.clients)
        finally:
            receiver.terminate()
            receiver.wait(10)
    result = {"latency": latency, "receiver": receiver_rate}
    (OUT / "email_replies.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
