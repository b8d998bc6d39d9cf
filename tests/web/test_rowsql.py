"""mastery.rowsql and games.rows (issue 3 "Speed it must reach"): the pre-built statements of the submit path
read and write exactly what the ORM reads and writes, on PostgreSQL and SQLite alike."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import ApiToken, User
from games.models import ActionRecord, Game, Notification, Prompt
from games.rows import GAMES, GAMES_LIGHT, game_with_seats
from mastery.rowsql import Table
from tests.web.conftest import model_fields

pytestmark = pytest.mark.django_db


def test_a_loaded_row_equals_the_orm_instance(start_game: Callable[..., Game]) -> None:
    game = start_game(humans=2, seed=3)
    rows = GAMES.fetch(f"SELECT {GAMES.columns('g')} FROM {GAMES.name} g WHERE g.id = %s", [game.pk])
    loaded = GAMES.load(rows[0])
    orm = Game.objects.get(pk=game.pk)
    assert model_fields(loaded) == model_fields(orm)  # JSON decoded, datetimes aware, booleans as bool
    assert isinstance(loaded.state, dict) and isinstance(loaded.private, bool)
    assert loaded._state.adding is False and loaded._state.db == "default"


def test_game_with_seats_fills_seats_and_users_in_one_query(
    start_game: Callable[..., Game], django_assert_num_queries: Any
) -> None:
    game = start_game(humans=3, seed=5)
    with django_assert_num_queries(1):
        found = game_with_seats(game.pk, lock=False)
        assert found is not None
        light, seats = found
        assert [s.number for s in light.seats.all()] == [0, 1, 2]  # the prefetch cache: no query
        names = [s.user.email for s in seats if s.user is not None]
    orm_seats = list(game.seats.select_related("user").order_by("number"))
    assert names == [s.user.email for s in orm_seats if s.user is not None]
    assert [model_fields(s) for s in seats] == [model_fields(s) for s in orm_seats]
    expected = Game.objects.get(pk=game.pk).state
    with django_assert_num_queries(1):  # the deferred state is loaded on access, as with QuerySet.defer
        assert light.state == expected
    assert game_with_seats(10**9, lock=False) is None


def test_the_locking_read_has_every_column(start_game: Callable[..., Game]) -> None:
    game = start_game(humans=2, seed=9)
    with transaction.atomic():
        found = game_with_seats(game.pk, lock=True)
    assert found is not None
    assert model_fields(found[0]) == model_fields(Game.objects.get(pk=game.pk))
    assert "state" not in {f.name for f in GAMES_LIGHT.fields}


def test_insert_sets_keys_and_auto_fields_and_can_skip_conflicts(
    start_game: Callable[..., Game], user: User
) -> None:
    game = start_game(humans=2, seed=2)
    table = Table(ActionRecord)
    before = timezone.now()
    records = [
        ActionRecord(game=game, seq=game.seq + i, seat=0, source="api", payload={"type": "x"}, state_hash="h")
        for i in (1, 2)
    ]
    table.insert(records)
    assert all(r.pk is not None for r in records)
    stored = ActionRecord.objects.get(pk=records[1].pk)
    assert stored.payload == {"type": "x"} and stored.events == [] and stored.created_at >= before
    with pytest.raises(IntegrityError), transaction.atomic():
        table.insert([ActionRecord(game=game, seq=game.seq + 1, source="api", payload={}, state_hash="h")])

    outbox = Table(Notification)
    now = timezone.now()

    def row(kind: str) -> Notification:
        return Notification(
            recipient=user, game=game, kind=kind, dedupe_key=f"k:{kind}", created_at=now, send_after=now
        )

    outbox.insert([row("turn")], ignore_conflicts=True)
    outbox.insert([row("turn"), row("reminder")], ignore_conflicts=True)  # the duplicate is skipped
    assert sorted(
        Notification.objects.filter(dedupe_key__startswith="k:").values_list("kind", flat=True)
    ) == [
        "reminder",
        "turn",
    ]
    with pytest.raises(AssertionError):
        GAMES_LIGHT.insert([Game(title="x", players=2, created_by=user)])


def test_update_matching_changes_only_the_matching_row(start_game: Callable[..., Game]) -> None:
    game = start_game(humans=2, seed=4)
    table = Table(Prompt)
    prompts = list(Prompt.objects.filter(game=game))
    assert prompts
    target = prompts[0]
    later = timezone.now() + timedelta(days=3)
    replacement = Prompt(
        seat=target.seat,
        kind="turn",
        key="t99:turn:0",
        deadline_class="turn",
        timeout_action={"type": "end_turn"},
        opened_at=target.opened_at,
        deadline_at=later,
        remind_at=None,
    )
    fields = ["kind", "key", "timeout_action", "deadline_at", "remind_at"]
    assert (
        table.update_matching(replacement, fields, {"game": game.pk, "seat": target.seat, "key": target.key})
        == 1
    )
    assert table.update_matching(replacement, fields, {"game": game.pk, "seat": 5, "key": "nothing"}) == 0
    target.refresh_from_db()
    assert (target.key, target.deadline_at, target.remind_at, target.timeout_action) == (
        "t99:turn:0",
        later,
        None,
        {"type": "end_turn"},
    )
    assert Prompt.objects.filter(game=game).count() == len(prompts)
    keys = [{"game": game.pk, "seat": p.seat, "key": p.key} for p in prompts[1:]]
    assert table.delete_matching([{"game": game.pk, "seat": 5, "key": "nothing"}, *keys]) == len(prompts) - 1
    assert list(Prompt.objects.filter(game=game).values_list("pk", flat=True)) == [target.pk]
    assert table.delete_matching([]) is None


def test_token_lookup_finds_active_users_only(user: User) -> None:
    token = ApiToken.issue(user)
    found = ApiToken.user_for(token)
    assert found is not None and model_fields(found) == model_fields(User.objects.get(pk=user.pk))
    assert ApiToken.user_for(token + "x") is None
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert ApiToken.user_for(token) is None


def test_a_batch_runs_its_writes_together_and_sets_the_returned_keys(
    start_game: Callable[..., Game], user: User, django_assert_num_queries: Any
) -> None:
    """On PostgreSQL the batch is one statement (data-modifying WITH queries); elsewhere one per write.
    Either way every write is applied and every inserted row gets its primary key."""
    from django.db import connection

    from mastery.rowsql import Batch

    game = start_game(humans=2, seed=6)
    records, prompts, outbox = Table(ActionRecord), Table(Prompt), Table(Notification)
    now = timezone.now()
    first = [
        ActionRecord(game=game, seq=game.seq + i, seat=1, source="api", payload={"i": i}, state_hash="h")
        for i in (1, 2)
    ]
    mail = [
        Notification(recipient=user, game=game, kind="turn", dedupe_key="b:1", created_at=now, send_after=now)
    ]
    prompt = Prompt.objects.filter(game=game).first()
    assert prompt is not None
    prompt.kind = "changed"
    batch = Batch()
    records.insert(first, batch=batch)
    assert prompts.update(prompt, ["kind"], batch=batch) is None  # queued, not run
    outbox.insert(mail, batch=batch)
    assert first[0].pk is None and not ActionRecord.objects.filter(game=game, seq=game.seq + 1).exists()
    writes = 1 if connection.vendor == "postgresql" else 3
    with django_assert_num_queries(writes):
        batch.run()
    assert [r.pk for r in first] == list(
        ActionRecord.objects.filter(game=game, seq__gt=game.seq).order_by("seq").values_list("pk", flat=True)
    )
    assert mail[0].pk == Notification.objects.get(dedupe_key="b:1").pk
    assert Prompt.objects.get(pk=prompt.pk).kind == "changed"
    assert batch.writes == []
    with django_assert_num_queries(0):
        batch.run()  # an empty batch sends nothing
