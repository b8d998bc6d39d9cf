"""Issue 31 §4, one enqueue of the send task per transaction: a write that asks several times for its
game's ``notifications_send`` (a reply played its move, then wrote its own answer) publishes it once, when
the transaction commits (games.services.outbox.send_after_commit); a write that rolls back publishes
nothing and does not hold back the next one's."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.mail import EmailMultiAlternatives
from django.db import transaction

from games import tasks
from games.services import outbox
from games.services.published import TASKS

from .conftest import Writes
from .test_email_play import decision_email, deliver, reply_to, started


@pytest.fixture
def published(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """The game ids ``notifications_send`` is published for (the real task still runs)."""
    calls: list[int | None] = []
    real = outbox.enqueue_send

    def spy(game_id: int | None) -> None:
        calls.append(game_id)
        real(game_id)

    monkeypatch.setattr(outbox, "enqueue_send", spy)
    return calls


@pytest.mark.django_db
def test_a_reply_publishes_its_games_send_task_once(
    sent: list[EmailMultiAlternatives], writes: Writes, published: list[int | None]
) -> None:
    game, users = started(writes)
    msg = decision_email(sent, users[0])
    published.clear()
    sent.clear()
    row = deliver(writes, reply_to(msg, "end"))
    assert row.status == "applied", row.reason
    # the move's notifications (the rival's turn) and the reply's answer: both sent, one task
    assert published.count(game.pk) == 1, published
    assert {m.to[0] for m in sent} == {users[0].email, users[1].email}


@pytest.mark.django_db
def test_asks_in_one_transaction_publish_once_at_commit(writes: Writes, published: list[int | None]) -> None:
    def write() -> None:
        for _ in range(3):
            outbox.send_after_commit(41)
        outbox.send_after_commit(42)
        assert published == []  # nothing before the commit

    writes(write)
    assert sorted(x for x in published if x is not None) == [41, 42]


@pytest.mark.django_db
def test_a_rolled_back_write_publishes_nothing_and_does_not_hold_back_the_next(
    writes: Writes, published: list[int | None]
) -> None:
    class Boom(Exception):
        pass

    def failing() -> None:
        with pytest.raises(Boom), transaction.atomic():
            outbox.send_after_commit(43)
            raise Boom

    writes(failing)
    assert 43 not in published
    writes(lambda: outbox.send_after_commit(43))
    assert published.count(43) == 1


def test_the_services_publish_the_tasks_by_reference_not_by_name() -> None:
    """Issue 31 §4: ``games.tasks`` hands its task objects to the services' registry when it is imported
    (``GamesConfig.ready``); no service names a task by a string any more."""
    assert TASKS.notifications_send is tasks.notifications_send
    assert TASKS.account_mail_send is tasks.account_mail_send
    assert TASKS.inbound_process is tasks.inbound_process
    assert TASKS.bots_play is tasks.bots_play
    services_dir = Path(__file__).resolve().parents[2] / "games" / "services"
    for path in services_dir.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert '"games.tasks.' not in text and "signature(" not in text, path.name
