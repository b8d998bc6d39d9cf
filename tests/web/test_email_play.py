"""issue 18: playing by email replies — decision emails with the position and numbered moves, replies
applied in order through the play service (source ``email``), one result email, and every refusal (forged
From, another player's address, an expired address, a replayed message, mail over 1 MB, automatic mail).

Emails are captured with Django's locmem backend; each write and each received mail runs "as a request"
(:class:`Writes`: its on-commit callbacks, the eager Celery tasks, run when it returns). Received mails are
built as a top-posting mail client writes them (:func:`reply_to`) and handed to the receivers' one entry,
:func:`games.services.inbox.mail_store`.
"""

from __future__ import annotations

from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage as StdMessage
from email.utils import make_msgid
from typing import Any

import pytest
import time_machine
from django.core.mail import EmailMultiAlternatives
from django.utils import timezone
from pytest_django import Settings

from accounts.models import User
from games import engine, services
from games.engine import actions as A
from games.models import ActionRecord, Game, InboundMail, Notification
from games.services import inbox

from .conftest import Writes, create_started_game, create_user, db_fingerprint, seat_users, state_of


def to_user(sent: list[EmailMultiAlternatives], user: User) -> list[EmailMultiAlternatives]:
    return [m for m in sent if m.to == [user.email]]


def reply_to(
    original: EmailMultiAlternatives,
    text: str,
    *,
    sender: str | None = None,
    message_id: str | None = None,
    headers: dict[str, str] | None = None,
    html: bool = False,
) -> bytes:
    """The bytes of a top-posted reply to ``original`` from its recipient (or ``sender``)."""
    reply = StdMessage()
    reply["From"] = sender or original.to[0]
    reply["To"] = original.extra_headers["Reply-To"]
    reply["Subject"] = "Re: " + original.subject
    reply["Message-ID"] = message_id or make_msgid(domain="client.example")
    reply["In-Reply-To"] = original.extra_headers["Message-ID"]
    for name, value in (headers or {}).items():
        reply[name] = value
    quoted = "\n".join("> " + line for line in original.body.splitlines())
    if html:
        lines = "".join(f"<div>{line}</div>" for line in text.splitlines())
        reply.set_content(
            f"<html><body>{lines}<br><blockquote>{original.body}</blockquote></body></html>", subtype="html"
        )
    else:
        reply.set_content(f"{text}\n\nOn Tue, 24 Nov 2026 at 10:00, Medieval Mastery wrote:\n{quoted}\n")
    return reply.as_bytes(policy=policy.SMTP)  # CRLF line ends, as mail travels


def deliver(writes: Writes, raw: bytes) -> InboundMail:
    """Receive ``raw`` as the receivers do; the eager task processes it when the "request" ends."""
    mail_row, _created = writes(lambda: inbox.mail_store(raw=raw, via="smtp"))
    return InboundMail.objects.get(pk=mail_row.pk)


def decision_email(sent: list[EmailMultiAlternatives], user: User) -> EmailMultiAlternatives:
    """The newest email to ``user`` that can be answered by reply."""
    replyable = [m for m in to_user(sent, user) if "Reply-To" in m.extra_headers]
    assert replyable, f"no decision email to {user.email}"
    return replyable[-1]


def started(writes: Writes, *, humans: int = 2, seed: int = 21) -> tuple[Game, dict[int, User]]:
    game = writes(lambda: create_started_game(humans=humans, seed=seed))
    return game, seat_users(game)


def my_turn(
    writes: Writes, sent: list[EmailMultiAlternatives]
) -> tuple[Game, dict[int, User], int, EmailMultiAlternatives]:
    """A started 2-player game waiting for its active player's turn: the game, its human seats, the active
    seat and that player's decision email."""
    game, users = started(writes)
    seat = active_turn(game)
    return game, users, seat, decision_email(sent, users[seat])


def active_turn(game: Game) -> int:
    """The active seat of a game waiting for its turn-level decision."""
    state = state_of(game)
    assert any(p.seat == state.active and p.kind == engine.PromptKind.TURN for p in engine.pending(state))
    return state.active


# ---------------------------------------------------------------------------------------------------------
# The decision email
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_decision_email_shows_the_position_and_numbered_moves_and_has_its_own_reply_address(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = my_turn(writes, sent)
    token_address = msg.extra_headers["Reply-To"]
    assert token_address.startswith("play+") and token_address.endswith("@127.0.0.1")
    state = state_of(game)
    moves, forms = engine.move_menu(state, seat, "en")
    assert moves, "a turn always has moves (at least end)"
    for k, move in enumerate(moves, start=1):
        assert f"  {k}. {move}\n" in msg.body
    for form in forms:
        assert form in msg.body
        example = form.split("   (", 1)[0]
        if example.startswith("advance "):  # each advance form is itself a move that can be copied
            assert isinstance(engine.parse_text(state, seat, example), A.Advance)
    me = engine.view_for(state, seat)["players"][seat]
    for card in me.get("hand", []):
        assert card["name"] in msg.body  # the recipient's own hand
    assert "Key: A " in msg.body  # the text map's key
    row = Notification.objects.get(recipient=users[seat], kind="turn", status="sent")
    assert row.data["moves"] == moves  # a number in a reply means this list


@pytest.mark.django_db
def test_short_emails_keep_the_reply_address_but_not_the_position(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    users = [create_user(), create_user()]
    User.objects.filter(pk__in=[u.pk for u in users]).update(email_play=False)
    game = writes(lambda: create_started_game(humans=users, seed=21))
    seat = active_turn(game)
    msg = decision_email(sent, seat_users(game)[seat])
    assert "Reply-To" in msg.extra_headers
    assert "Key: A " not in msg.body and "  1. " not in msg.body
    assert "Reply to this email with your moves in the notation" in msg.body


# ---------------------------------------------------------------------------------------------------------
# Replies that play
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_number_plays_that_move_and_one_result_email_carries_the_next_decision(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = my_turn(writes, sent)
    moves = Notification.objects.get(recipient=users[seat], kind="turn").data["moves"]
    k = next(i for i, m in enumerate(moves, start=1) if m != "end")  # a move that keeps the turn
    sent.clear()
    row = deliver(writes, reply_to(msg, str(k)))
    assert row.status == InboundMail.Status.APPLIED and row.applied == 1
    record = ActionRecord.objects.filter(game=game).order_by("-seq").first()
    assert record is not None and record.source == "email" and record.seat == seat
    mine = to_user(sent, users[seat])
    assert len(mine) == 1, [m.subject for m in mine]  # one email: the result with the next decision
    result = mine[0]
    # issue 30: the answer's subject names the decision now waiting, not "Re: Re: …"
    assert result.subject == f"[Medieval Mastery] Your turn {state_of(game).turn} in “{game.title}”"
    assert f"✓ {moves[k - 1]}" in result.body
    assert result.extra_headers["In-Reply-To"] == f"<{row.message_id}>"
    assert "Reply-To" in result.extra_headers  # the turn goes on: the result can be answered too


@pytest.mark.django_db
def test_several_lines_apply_in_order_and_a_failing_line_stops_the_batch_keeping_the_lines_before(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = my_turn(writes, sent)
    state = state_of(game)
    first = next(a for a in engine.legal_actions(state, seat) if not isinstance(a, A.EndTurn))
    line = engine.to_text(state, first, "en")
    seq = game.seq
    sent.clear()
    row = deliver(writes, reply_to(msg, f"{line}\nadvance Swamp 2\nend"))
    assert row.status == InboundMail.Status.STOPPED and row.applied == 1
    game.refresh_from_db()
    records = list(ActionRecord.objects.filter(game=game, seq__gt=seq, source="email"))
    assert [r.payload for r in records] == [first.to_dict()]  # "end" after the failing line never ran
    result = to_user(sent, users[seat])[-1]
    assert f"✓ {line}" in result.body
    assert "Line 2, “advance Swamp 2”, was not applied" in result.body
    assert "Nothing after it was applied." in result.body


@pytest.mark.django_db
def test_a_whole_turn_in_one_reply_ends_the_turn(sent: list[EmailMultiAlternatives], writes: Writes) -> None:
    game, _users, seat, msg = my_turn(writes, sent)
    state = state_of(game)
    first = next(a for a in engine.legal_actions(state, seat) if not isinstance(a, A.EndTurn))
    after = engine.apply(state, seat, first).state
    if any(p.seat == seat and p.kind == engine.PromptKind.TURN for p in engine.pending(after)):
        text = engine.to_text(state, first, "en") + "\n\nend\n\nCheers,\nAnna"
    else:
        text = "end"
    row = deliver(writes, reply_to(msg, text))
    assert row.status == InboundMail.Status.APPLIED
    game.refresh_from_db()
    assert state_of(game).turn > state.turn or state_of(game).active != seat


@pytest.mark.django_db
def test_an_html_only_reply_is_read_through_html2text(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    _game, _users, _seat, msg = my_turn(writes, sent)
    row = deliver(writes, reply_to(msg, "end", html=True))
    assert row.status == InboundMail.Status.APPLIED, row.reason
    assert row.lines == ["end"]


# ---------------------------------------------------------------------------------------------------------
# Who may act, and refusals
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_same_message_delivered_twice_acts_once(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, users, seat, msg = my_turn(writes, sent)
    raw = reply_to(msg, "end", message_id="<same@client.example>")
    deliver(writes, raw)
    seq = Game.objects.get(pk=game.pk).seq
    sent.clear()
    row = deliver(writes, raw)
    assert InboundMail.objects.count() == 1 and row.status == InboundMail.Status.APPLIED
    assert Game.objects.get(pk=game.pk).seq == seq
    assert not to_user(sent, users[seat])  # no second answer


@pytest.mark.parametrize(
    "case", ["forged_from", "not_yours", "expired", "too_large", "dmarc_fail", "moved_on"]
)
@pytest.mark.django_db
def test_refused_replies_change_nothing_and_get_a_clear_answer(
    case: str, sent: list[EmailMultiAlternatives], writes: Writes, settings: Settings
) -> None:
    game, users = started(writes)
    seat = active_turn(game)
    owner = users[seat]
    other = users[(seat + 1) % 2]
    msg = decision_email(sent, owner)
    kwargs: dict[str, object] = {}
    text = "end"
    answered = owner
    if case == "forged_from":
        kwargs["sender"] = "mallory@evil.example"
    elif case == "not_yours":
        kwargs["sender"] = other.email
        answered = other
    elif case == "too_large":
        text = "end\n" + "x" * (settings.INBOUND_MAX_BYTES + 10)
    elif case == "dmarc_fail":
        settings.INBOUND_AUTHSERV_ID = "mx.mastery.example"
        kwargs["headers"] = {
            "Authentication-Results": "mx.mastery.example; dmarc=fail header.from=example.com"
        }
    elif case == "moved_on":
        writes(lambda: deliver(writes, reply_to(msg, "end")))  # the turn is over…
        text = "end"  # …so a second, different reply to the same email finds the decision gone
    raw = reply_to(msg, text, **kwargs)  # type: ignore[arg-type]
    before = db_fingerprint(game.pk)
    sent.clear()
    if case == "expired":
        with time_machine.travel(timezone.now() + timedelta(seconds=settings.REPLY_MAX_AGE + 60)):
            row = deliver(writes, raw)
    else:
        row = deliver(writes, raw)
    assert row.status == InboundMail.Status.REFUSED
    reason = "forged_from" if case == "dmarc_fail" else case
    assert row.reason == reason
    assert db_fingerprint(game.pk) == before
    answers = [m for m in sent if m.to == [answered.email]]
    assert len(answers) == 1 and len(sent) == 1
    assert "nothing was applied" in answers[0].body or "was not read" in answers[0].body


@pytest.mark.parametrize(
    "headers",
    [
        {"Auto-Submitted": "auto-replied"},
        {"X-Autoreply": "yes"},
        {"Precedence": "auto_reply"},
        {"Return-Path": "<>"},
    ],
)
@pytest.mark.django_db
def test_auto_replies_and_bounces_are_ignored_without_an_answer(
    headers: dict[str, str], sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    game, _users, _seat, msg = my_turn(writes, sent)
    before = db_fingerprint(game.pk)
    sent.clear()
    row = deliver(writes, reply_to(msg, "end", headers=headers))
    assert row.status == InboundMail.Status.IGNORED
    assert db_fingerprint(game.pk) == before and sent == []


@pytest.mark.django_db
def test_a_bounce_from_the_mailer_daemon_is_ignored(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    _game, _users, _seat, msg = my_turn(writes, sent)
    sent.clear()
    row = deliver(writes, reply_to(msg, "end", sender="MAILER-DAEMON@mx.example.com"))
    assert row.status == InboundMail.Status.IGNORED and sent == []


@pytest.mark.django_db
def test_a_badly_signed_address_is_refused_without_an_answer(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    _game, _users, _seat, msg = my_turn(writes, sent)
    token = msg.extra_headers["Reply-To"]
    forged = token.replace(token.split("-", 1)[1].split("@")[0], "0" * 20)
    msg.extra_headers["Reply-To"] = forged
    sent.clear()
    row = deliver(writes, reply_to(msg, "end"))
    assert row.status == InboundMail.Status.REFUSED and row.reason == "bad_token"
    assert sent == []


@pytest.mark.django_db
def test_the_answer_to_a_reply_is_not_held_back_by_quiet_hours(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    _game, users, seat, msg = my_turn(writes, sent)
    now = timezone.localtime(timezone.now(), timezone.get_fixed_timezone(0))
    start, end = (now - timedelta(hours=1)).time(), (now + timedelta(hours=1)).time()
    User.objects.filter(pk__in=[u.pk for u in users.values()]).update(quiet_start=start, quiet_end=end)
    sent.clear()
    deliver(writes, reply_to(msg, "end"))
    assert [m.to for m in sent] == [[users[seat].email]]  # the answer; the next player's turn email waits
    assert Notification.objects.get(recipient=users[1 - seat], kind="turn").status == "pending"


@pytest.mark.django_db
def test_attachments_are_never_read(sent: list[EmailMultiAlternatives], writes: Writes) -> None:
    """Only the reply's own text counts: a text attachment holding a move is ignored."""
    _game, _users, _seat, msg = my_turn(writes, sent)
    reply = message_from_bytes(reply_to(msg, "My moves are attached."), policy=policy.default)
    assert isinstance(reply, StdMessage)
    reply.add_attachment(b"end\n", maintype="text", subtype="plain", filename="moves.txt")
    row = deliver(writes, reply.as_bytes(policy=policy.SMTP))
    assert (row.status == InboundMail.Status.REFUSED and row.reason == "no_moves") or row.lines[:1] != ["end"]
    assert "end" not in row.lines


@pytest.mark.django_db
def test_a_reply_written_before_a_move_on_the_page_does_not_make_that_move_again(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """No action is applied twice, whichever door it came through: a turn's decision stays open for the
    whole turn, so a reply to its email that arrives after the player made the same move on the site must
    be refused ("played_since"), and answered with the position and moves as they are now."""
    from django.test import Client

    game = writes(lambda: create_started_game(humans=2, seed=21))
    users = seat_users(game)
    seat = active_turn(game)
    msg = decision_email(sent, users[seat])  # the "your turn" email, at the game's current seq
    state = state_of(game)
    move = next(a for a in engine.legal_actions(state, seat) if isinstance(a, A.Redistribute))
    line = engine.to_text(state, move, "en")
    [step] = move.to_dict()["moves"]
    page = Client()
    page.force_login(users[seat])
    response = page.post(
        f"/games/{game.pk}/act/",
        {"type": "redistribute", "expected_seq": str(game.seq), **{k: str(v) for k, v in step.items()}},
    )
    assert response.status_code == 302
    sent.clear()
    row = deliver(writes, reply_to(msg, line))
    assert (row.status, row.reason) == (InboundMail.Status.REFUSED, "played_since")
    records = ActionRecord.objects.filter(game=game, payload__type="redistribute")
    assert [r.source for r in records] == ["web"]
    [answer] = to_user(sent, users[seat])
    assert "You have played since this email was sent" in answer.body
    assert "Reply-To" in answer.extra_headers  # the answer carries the decision still open: reply to it
    # a reply to that answer plays on
    follow = deliver(writes, reply_to(answer, "1"))  # the first move of the answer's list
    assert (follow.status, follow.applied) == (InboundMail.Status.APPLIED, 1), follow.reason


@pytest.mark.django_db
def test_a_reply_with_a_nul_character_is_read_without_it_and_the_sweep_runs_on(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """PostgreSQL's text and jsonb columns cannot store U+0000: text read from a mail loses its NUL
    characters, so "end\\x00" plays "end" once (it had stayed pending and failed every minute's sweep)."""
    from games import tasks

    game, users = started(writes)
    seat = active_turn(game)
    msg = decision_email(sent, users[seat])
    row = deliver(writes, reply_to(msg, "end\x00"))
    assert row.status == InboundMail.Status.APPLIED, row.reason
    assert row.lines == ["end"]
    assert list(ActionRecord.objects.filter(game=game, source="email").values_list("payload", flat=True)) == [
        {"type": "end_turn"}
    ]
    tasks.outbox_sweep()


@pytest.mark.django_db
def test_one_mail_that_fails_does_not_stop_the_minute_sweep(
    sent: list[EmailMultiAlternatives], writes: Writes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweep processes the pending mails one by one: a mail whose processing raises is logged and left
    pending (nothing of it applied), and the mails after it, the outbox and the digests still run."""
    from games import tasks
    from games.notify import send

    game, users = started(writes)
    seat = active_turn(game)
    msg = decision_email(sent, users[seat])
    with monkeypatch.context() as m:
        m.setattr(inbox, "mail_process", lambda **kw: InboundMail.objects.get(pk=kw["mail_id"]))
        bad = deliver(writes, reply_to(msg, "end", message_id="<bad@example.com>"))
        good = deliver(writes, reply_to(msg, "end", message_id="<good@example.com>"))
    assert InboundMail.objects.filter(status=InboundMail.Status.PENDING).count() == 2
    real = inbox.mail_process

    def failing(*, mail_id: int, now: Any = None) -> InboundMail:
        if mail_id == bad.pk:
            raise RuntimeError("a mail the code cannot handle")
        return real(mail_id=mail_id, now=now)

    flushed: list[bool] = []

    def flush(**kw: Any) -> int:
        flushed.append(True)
        return 0

    monkeypatch.setattr(inbox, "mail_process", failing)
    monkeypatch.setattr(send, "outbox_flush", flush)
    tasks.outbox_sweep()
    assert InboundMail.objects.get(pk=bad.pk).status == InboundMail.Status.PENDING
    assert InboundMail.objects.get(pk=good.pk).status == InboundMail.Status.APPLIED
    assert flushed


@pytest.mark.django_db
def test_a_stranger_answered_about_a_private_game_reads_none_of_its_log(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """A reply address forwarded to someone outside a private game: their reply is refused as not theirs
    and they are told so, but their answer carries nothing of the game they may not look at (its log)."""
    game, users = started(writes)
    Game.objects.filter(pk=game.pk).update(private=True)
    seat = active_turn(game)
    msg = decision_email(sent, users[seat])
    state = state_of(game)
    move = next(a for a in engine.legal_actions(state, seat) if isinstance(a, A.Redistribute))
    writes(
        lambda: services.action_submit(game_id=game.pk, user=users[seat], action=move, expected_seq=game.seq)
    )  # something for the log to say
    stranger = create_user()
    sent.clear()
    row = deliver(writes, reply_to(msg, "end", sender=stranger.email))
    assert (row.status, row.reason) == (InboundMail.Status.REFUSED, "not_yours")
    [answer] = to_user(sent, stranger)
    lines = [line for entry in _log_lines(game, stranger) for line in entry]
    assert lines and not [line for line in lines if line in answer.body], answer.body
    Game.objects.filter(pk=game.pk).update(private=False)  # a public game's log is anyone's to read
    sent.clear()
    deliver(writes, reply_to(msg, "end", sender=stranger.email, message_id="<again@example.com>"))
    [public] = to_user(sent, stranger)
    assert [line for line in lines if line in public.body]


def _log_lines(game: Game, user: User) -> list[list[str]]:
    from games.selectors import game_view

    return [entry["lines"] for entry in game_view(Game.objects.get(pk=game.pk), user).log[:4]]


@pytest.mark.django_db
def test_a_reply_after_a_move_made_and_taken_back_on_the_site_is_refused_too(
    sent: list[EmailMultiAlternatives], writes: Writes
) -> None:
    """Issue 16 meets issue 18: the player moves on the site and takes the move back, so the position is the
    one the email showed again; the reply is still refused (``played_since``: the player has been at the
    game since) and answered with the decision as it is now, and replying to that answer plays."""
    game, users = started(writes)
    seat = active_turn(game)
    user = users[seat]
    msg = decision_email(sent, user)
    state = state_of(game)
    move = next(a for a in engine.legal_actions(state, seat) if isinstance(a, A.Redistribute))
    moved = writes(
        lambda: services.action_submit(game_id=game.pk, user=user, action=move, expected_seq=game.seq)
    )
    writes(lambda: services.action_undo(game_id=game.pk, user=user, expected_seq=moved.game.seq))
    assert engine.state_hash(state_of(Game.objects.get(pk=game.pk))) == engine.state_hash(state)
    sent.clear()
    row = deliver(writes, reply_to(msg, engine.to_text(state, move, "en")))
    assert (row.status, row.reason) == (InboundMail.Status.REFUSED, "played_since")
    assert not ActionRecord.objects.filter(game=game, source="email").exists()
    [answer] = to_user(sent, user)
    follow = deliver(writes, reply_to(answer, "1"))
    assert (follow.status, follow.applied) == (InboundMail.Status.APPLIED, 1), follow.reason
