"""Where a submit's CPU goes, in process (issue 13): the Django test client posts the active player's
``end_turn`` to the JSON API with a bearer token, ``--rounds`` times, and ``time.process_time`` is summed
around the request and around its parts.

Usage: ``.venv/bin/python -m benchmarks.submit_profile [--rounds 1000]``. Needs PostgreSQL on
127.0.0.1:5432; it recreates the database ``mastery_bench_profile``. To compare two commits, run it in a
worktree of each, alternating, in one shell (the machine's speed drifts; see docs/performance.md).

Parts timed (each wraps the function where the submit path calls it, so its time includes its callees):
``token`` (``TokenAuth.authenticate``), ``action_submit``, ``lock`` (``locks.lock_with_seats``),
``store`` (``play.move_store``: the records, prompts, game row and outbox rows). The publish of the
notification task is replaced by a no-op (it is measured by ``benchmarks.email_latency``; in-process it
would send the emails inside the request).
"""

from __future__ import annotations

import argparse
import getpass
import statistics
import subprocess
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any
from unittest import mock

from benchmarks.email_latency import _games, _setup_django

DB = "mastery_bench_profile"


def _timed(totals: dict[str, float], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` wrapped to add its process time (seconds) to ``totals[name]``."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            totals[name] += time.process_time() - t0

    return wrapper


def profile(rounds: int, tag: str, games: int = 20) -> dict[str, float]:
    """Post ``rounds`` end_turn submits round-robin over ``games`` new 2-player games (users ``tag…``).

    Returns:
        Part name -> mean process time per submit, in milliseconds.
    """
    from django.test import Client

    from accounts.models import ApiToken
    from games import api, services
    from games.models import Game
    from games.services import locks, outbox, play

    client = Client()
    totals: dict[str, float] = defaultdict(float)
    patches = [
        mock.patch.object(outbox, "enqueue_send", lambda _game_id: None),
        mock.patch.object(api.TokenAuth, "authenticate", _timed(totals, "token", api.TokenAuth.authenticate)),
        mock.patch.object(play, "move_store", _timed(totals, "store", play.move_store)),
        mock.patch.object(play, "lock_with_seats", _timed(totals, "lock", locks.lock_with_seats)),
        mock.patch("games.api.action_submit", _timed(totals, "action_submit", services.action_submit)),
    ]
    for p in patches:
        p.start()
    try:
        tables = _games([2] * games, tag)
        tokens = {gid: {n: ApiToken.issue(u, "profile") for n, u in seats.items()} for gid, seats in tables}
        totals.clear()
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
            totals["whole request"] += time.process_time() - t0
            if response.status_code >= 300:
                raise SystemExit(f"submit refused: {response.status_code} {response.content[:300]!r}")
    finally:
        for p in patches:
            p.stop()
    return {name: 1000 * total / rounds for name, total in totals.items()}


def main() -> None:
    """Recreate the database, profile, print the per-part means (ms of CPU per submit)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="runs; the median of each part is printed")
    args = parser.parse_args()
    subprocess.run(["dropdb", "--if-exists", "-h", "127.0.0.1", DB], check=True, capture_output=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", DB], check=True)
    _setup_django(f"postgres://{getpass.getuser()}@127.0.0.1:5432/{DB}")
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    runs = [profile(args.rounds, f"prof{r}-") for r in range(args.repeat)]
    print(f"CPU ms per end_turn submit (median of {args.repeat} runs of {args.rounds}):")
    for name in ("whole request", "token", "action_submit", "lock", "store"):
        values = [r.get(name, 0.0) for r in runs]
        print(
            f"  {name:<15}{statistics.median(values):>8.2f}   (runs: {', '.join(f'{v:.2f}' for v in values)})"
        )


if __name__ == "__main__":
    main()
