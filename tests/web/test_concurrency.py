"""Concurrency of action submits (issue 3, "How we will know: Concurrency"): many threads on separate
database connections submitting to the same game at once apply exactly one action per ``seq``; the rest
get the stale-state answer, and the log has no gap or duplicate.

PostgreSQL only: SQLite serialises writers on the whole database file, so it cannot show row locking.
Run locally with ``DATABASE_URL=postgres://root@127.0.0.1:5432/mastery``; CI runs on PostgreSQL.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from django.db import connection, connections

from games import engine, services
from games.models import ActionRecord, Game

from .conftest import assert_log_intact, create_started_game, human_move, seat_users, state_of
from .factories import conflict_step, game_from_state

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="row-lock concurrency needs PostgreSQL (set DATABASE_URL); SQLite locks the whole file",
    ),
    pytest.mark.django_db(transaction=True),
]

THREADS = 8


def run_at_once(calls: Sequence[Callable[[], Any]]) -> list[tuple[str, Any]]:
    """Run every call in its own thread (own connection), released together by a barrier.

    Returns:
        Per call, ``("ok", result)`` or ``("error", exception)``, in the order of ``calls``.
    """
    barrier = threading.Barrier(len(calls))
    outcomes: list[tuple[str, Any]] = [("missing", None)] * len(calls)

    def worker(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=30)
            outcomes[i] = ("ok", call())
        except BaseException as exc:  # reported by the test
            outcomes[i] = ("error", exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a submit hung"
    return outcomes


def split(outcomes: list[tuple[str, Any]]) -> tuple[list[Any], list[services.StaleState], list[Any]]:
    """Split outcomes into successes, StaleState refusals and anything else."""
    ok = [r for kind, r in outcomes if kind == "ok"]
    stale = [e for kind, e in outcomes if kind == "error" and type(e) is services.StaleState]
    other = [e for kind, e in outcomes if kind != "ok" and type(e) is not services.StaleState]
    return ok, stale, other


def submit(**kwargs: Any) -> Callable[[], services.SubmitResult]:
    """A call of :func:`games.services.action_submit` with these arguments, to run in a thread."""
    return functools.partial(services.action_submit, **kwargs)


@pytest.mark.parametrize("same_action", [True, False], ids=["same-action", "different-actions"])
def test_one_submit_per_seq_wins(same_action: bool) -> None:
    game = create_started_game(humans=2, seed=23)
    users = seat_users(game)
    for _round in range(5):
        game = Game.objects.get(pk=game.pk)
        assert game.status == Game.Status.ACTIVE
        state = state_of(game)
        seat = engine.pending(state)[0].seat
        legal = engine.legal_actions(state, seat)
        if same_action:
            actions = [human_move(state, seat, game)] * THREADS
        else:
            actions = [legal[i % len(legal)] for i in range(THREADS)]
        seq = game.seq
        calls = [submit(game_id=game.pk, user=users[seat], action=a, expected_seq=seq) for a in actions]

        ok, stale, other = split(run_at_once(calls))

        assert not other, other
        assert len(ok) == 1 and len(stale) == THREADS - 1
        assert all(e.status == 409 for e in stale)
        (winner,) = ok
        assert [r.seq for r in winner.records] == [seq + 1]
        game.refresh_from_db()
        assert game.seq == seq + 1
        stored = ActionRecord.objects.get(game=game, seq=seq + 1)
        assert stored.payload in [a.to_dict() for a in actions] and stored.seat == seat
        assert_log_intact(game)


def test_out_of_turn_answers_at_once() -> None:
    """Both seats choose a conflict card at the same time, each from four threads with the same old
    ``seq`` and their prompt key: exactly one answer per seat is applied."""
    game = game_from_state(conflict_step())
    users = seat_users(game)
    assert [p.kind for p in engine.pending(state_of(game))] == ["conflict", "conflict"]
    state = state_of(game)
    seq = game.seq
    calls: list[Callable[[], Any]] = []
    for prompt in engine.pending(state):
        action = engine.legal_actions(state, prompt.seat)[0]
        call = submit(
            game_id=game.pk, user=users[prompt.seat], action=action, expected_seq=seq, prompt_key=prompt.key
        )
        calls += [call] * (THREADS // 2)

    ok, stale, other = split(run_at_once(calls))

    assert not other, other
    assert len(ok) == 2 and len(stale) == THREADS - 2
    assert sorted(r.records[0].seat for r in ok) == [0, 1]
    game.refresh_from_db()
    assert game.seq == seq + 2
    assert all(p.kind != "conflict" for p in engine.pending(state_of(game)))
    assert_log_intact(game)


def test_different_games_at_once_all_succeed() -> None:
    games = [create_started_game(humans=2, seed=100 + i) for i in range(THREADS)]
    for _round in range(3):
        calls: list[Callable[[], Any]] = []
        before = {}
        for game in games:
            game.refresh_from_db()
            users = seat_users(game)
            state = state_of(game)
            seat = engine.pending(state)[0].seat
            action = human_move(state, seat, game)
            before[game.pk] = game.seq
            calls.append(submit(game_id=game.pk, user=users[seat], action=action, expected_seq=game.seq))

        ok, stale, other = split(run_at_once(calls))

        assert not other and not stale, (stale, other)
        assert len(ok) == THREADS
        for game in games:
            game.refresh_from_db()
            assert game.seq == before[game.pk] + 1
            assert_log_intact(game)
