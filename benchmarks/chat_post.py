"""What posting a chat message costs against submitting an action (issue 19: at most 1.5×), in the same
run: the Django test client posts, through the JSON API with a bearer token, the active player's
``end_turn`` and a table message by the other player, alternately, ``--rounds`` times each, over 20
two-player games; ``time.process_time`` is summed around each request. The publish of the email task is a
no-op for both (the emails are measured by ``benchmarks.email_latency``). The second player's chat
messages are spread over the games so the rate limits (10 a minute per user) never refuse one.

Usage: ``.venv/bin/python -m benchmarks.chat_post [--rounds 300] [--repeat 3]``. Needs PostgreSQL on
127.0.0.1:5432; it recreates the database ``mastery_bench_chat``.
"""

from __future__ import annotations

import argparse
import getpass
import statistics
import subprocess
import time
from datetime import timedelta
from unittest import mock

from benchmarks.email_latency import _games, _setup_django

DB = "mastery_bench_chat"


def run(rounds: int, tag: str, games: int = 20) -> tuple[float, float]:
    """Mean CPU ms of an ``end_turn`` submit and of a chat post, interleaved."""
    from django.test import Client
    from django.utils import timezone

    from accounts.models import ApiToken
    from games.models import ChatMessage, Game
    from games.services import outbox

    client = Client()
    submit = post = 0.0
    with mock.patch.object(outbox, "enqueue_send", lambda _game_id: None):
        tables = _games([2] * games, tag)
        tokens = {gid: {n: ApiToken.issue(u, "bench") for n, u in seats.items()} for gid, seats in tables}
        for i in range(rounds):
            gid = tables[i % len(tables)][0]
            game = Game.objects.only("seq", "state").get(pk=gid)
            assert game.state is not None
            active = int(game.state["active"])
            t0 = time.process_time()
            response = client.post(
                f"/api/games/{gid}/actions",
                {"action": {"type": "end_turn"}, "expected_seq": game.seq},
                content_type="application/json",
                headers={"authorization": f"Bearer {tokens[gid][active]}"},
            )
            submit += time.process_time() - t0
            assert response.status_code == 200, response.content[:200]
            t0 = time.process_time()
            response = client.post(
                f"/api/games/{gid}/chat",
                {"channel": "table", "text": f"message {i}: your move, I think"},
                content_type="application/json",
                headers={"authorization": f"Bearer {tokens[gid][1 - active]}"},
            )
            post += time.process_time() - t0
            assert response.status_code == 201, response.content[:200]
            if (i + 1) % (games * 9) == 0:  # keep every user under 10 messages a minute
                ChatMessage.objects.update(created_at=timezone.now() - timedelta(minutes=2))
    return 1000 * submit / rounds, 1000 * post / rounds


def main() -> None:
    """Recreate the database, run, print both means and their ratio per run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    subprocess.run(["dropdb", "--if-exists", "-h", "127.0.0.1", DB], check=True, capture_output=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", DB], check=True)
    _setup_django(f"postgres://{getpass.getuser()}@127.0.0.1:5432/{DB}")
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    ratios = []
    for r in range(args.repeat):
        submit, post = run(args.rounds, f"chat{r}-")
        ratios.append(post / submit)
        print(
            f"run {r + 1}: end_turn submit {submit:.2f} ms, chat post {post:.2f} ms, ratio {ratios[-1]:.2f}"
        )
    print(f"median ratio (chat post / submit): {statistics.median(ratios):.2f} (issue 19: at most 1.5)")


if __name__ == "__main__":
    main()
