"""Issue 30: a player who was not asked anything, but whose position changed, reads the results in their
next email or digest, as the page's "Since your last move" tells them
(:func:`games.web.presenters.recent.since_model`, from the recipient's own redacted log): the battle
fought over their territory with both scores, the card of theirs discarded and by what, their losses and
the conquest. Only what that seat may know (twin games that differ in another seat's hand mail the same
text), and short: the newest five items, the rest on the page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.core.mail import EmailMultiAlternatives
from django.utils import timezone, translation
from django.utils.html import escape
from pytest_django import Settings

from accounts.models import User
from games import engine
from games.models import ActionRecord, Game, Notification, Prompt, Seat
from games.notify import content as email_content
from games.notify.content import EmailContent, since_section
from games.notify.send import digests_send, outbox_flush
from games.selectors import game_get, game_view
from games.services.outbox import queue_write, reminders_queue
from games.web.presenters.recent import since_model
from tests.engine import fixtures as F

from .conftest import create_user, state_of
from .factories import PLAIN, Step, before_battle, game_from_state

pytestmark = pytest.mark.django_db

#: Another hand for Carol (seat 2), who takes no part in the battle: the twin games differ only there.
OTHER_HAND = ["shield_wall", "war_banner", "rallying_cry", "heroic_assault", "authority"]
URL = re.compile(r"https?://\S+")


def _steps(state: engine.GameState, moves: Sequence[tuple[int, dict[str, Any]]]) -> list[Step]:
    steps = []
    for seat, payload in moves:
        transition = engine.apply(state, seat, engine.parse_action(payload))
        steps.append(Step(seat, engine.parse_action(payload), transition))
        state = transition.state
    return steps


def _card(state: engine.GameState, seat: int, name: str) -> str:
    return F.cid(seat, next(c for c in state.players[seat].hand if state.content.cards[c].id == name))


def _forest_taken(carol_hand: list[str] = PLAIN) -> tuple[Game, User, User]:
    """3 players, a bot in seat 0, Alice in seat 1 and Carol (holding ``carol_hand``) in seat 2. On turn 1
    the bot attacks Alice's Forest with its Sceptre of Influence, which discards a random card of hers
    (R65, R102); the server passes for Alice and Carol in the sceptre window; the bot places its Audacious
    Charge, Alice her Probing Attack, the bot wins, takes the Forest and ends its turn. Turn 2 is Alice's:
    she was asked nothing since her conflict card, but her position changed."""
    state, attack = before_battle(3, arts={0: ["sceptre_influence"]}, hands={2: carol_hand})
    passes: list[tuple[int, dict[str, Any]]] = [(s, {"type": "respond", "fracture": []}) for s in (1, 2)]
    steps = _steps(state, [(0, attack), *passes])
    after = steps[-1].transition.state
    steps += _steps(after, [(0, {"type": "choose_conflict", "card": _card(after, 0, "audacious_charge")})])
    after = steps[-1].transition.state
    steps += _steps(
        after,
        [
            (1, {"type": "choose_conflict", "card": _card(after, 1, "probing_attack")}),
            (0, {"type": "end_turn"}),
        ],
    )
    end = steps[-1].transition.state
    assert end.active == 1 and end.battle is None
    alice = create_user(display_name="Alice")
    carol = create_user(display_name="Carol")
    game = game_from_state(end, users={1: alice, 2: carol}, bots=[0], log=steps)
    # the server passes for a seat without Fracture (issue 14): no move of the player's
    responds = [i for i, step in enumerate(steps, start=1) if step.action.TYPE == engine.ActionType.RESPOND]
    ActionRecord.objects.filter(game=game, seq__in=responds).update(source=ActionRecord.Source.SERVER)
    return game, alice, carol


def _mail_turn(game: Game, now: datetime, sent: list[EmailMultiAlternatives]) -> list[EmailMultiAlternatives]:
    """Queue and send the emails of the game's open prompts (Alice's turn), as a write would; the emails
    sent."""
    seats = list(Seat.objects.filter(game=game).select_related("user"))
    queue_write(game=game, seats=seats, opened=engine.pending(state_of(game)), actor=None, now=now)
    before = len(sent)
    outbox_flush(game_id=game.pk, now=now)
    return sent[before:]


def _section(body: str) -> list[str]:
    """The text body's "Since your last move" lines (``[]`` when there is none)."""
    lines = body.splitlines()
    header = translation.gettext("Since your last move") + ":"
    if header not in lines:
        return []
    out = []
    for line in lines[lines.index(header) + 1 :]:
        if not line.strip():
            break
        out.append(line)
    return out


def _expected(game: Game, user: User) -> list[str]:
    """The page's "Since your last move" for ``user``, as the text email writes it."""
    gv = game_view(game_get(game.pk), user)  # type: ignore[arg-type]
    out = []
    for item in since_model(gv, gv.names)["items"][-email_content.SINCE_MOST :]:
        out += [("- " if i == 0 else "  ") + line for i, line in enumerate(item["lines"])]
    return out


def _log_lines(body: str) -> list[str]:
    lines = body.splitlines()
    header = translation.gettext("Latest in the game:")
    if header not in lines:
        return []
    return [line[2:] for line in lines[lines.index(header) + 1 :] if line.startswith("- ")]


def test_the_next_decision_email_tells_what_touched_the_player_since_their_last_move(
    sent: list[EmailMultiAlternatives],
) -> None:
    """Alice was asked nothing after placing her conflict card; her next email (her turn) tells the battle for
    her Forest in the log's words, as the page does: who attacked, her card the Sceptre of Influence
    discarded, the revealed cards with both scores, the result with both scores, her losses and the
    conquest. "Latest in the game" does not say it again. Carol, who was not touched, is not mailed."""
    game, alice, _carol = _forest_taken()
    mails = _mail_turn(game, timezone.now(), sent)
    assert [m.to for m in mails] == [[alice.email]]
    [msg] = mails
    with translation.override("en"):
        section = _section(str(msg.body))
        assert section and section == _expected(game, alice)
        told = "\n".join(section)
        assert "(Sceptre of Influence)" in told and "Alice discards" in told
        assert re.search(r"revealed: \d+ against \d+ \(scores \d+–\d+\)", told)
        assert re.search(r"wins the battle by \d+ \(\d+–\d+\)", told)
        assert "places your conflict card" not in told  # her own move is no news to her
        lines = {line[2:] for line in section}
        assert not lines & set(_log_lines(str(msg.body)))
    [(markup, _mime)] = msg.alternatives
    assert "Since your last move" in str(markup)
    for line in section:
        assert escape(line[2:]) in str(markup)


def test_nothing_since_the_last_move_adds_no_section(sent: list[EmailMultiAlternatives]) -> None:
    """The first turn of a game: nothing touched the player, so the email has no such section."""
    state, _attack = before_battle(2)
    game = game_from_state(state)
    [msg] = _mail_turn(game, timezone.now(), sent)
    with translation.override("en"):
        assert "Since your last move" not in str(msg.body)
    [(markup, _mime)] = msg.alternatives
    assert "Since your last move" not in str(markup)


def test_twin_games_that_differ_in_another_seats_hand_mail_the_same_text(
    sent: list[EmailMultiAlternatives],
) -> None:
    """Only what the seat may know: two games that differ only in Carol's hand (she takes no part in the
    battle, and her cards are hidden from Alice, R95) mail Alice the same text and HTML, links aside."""
    twins = [_forest_taken(PLAIN), _forest_taken(OTHER_HAND)]
    hands = [sorted(state_of(game).players[2].hand) for game, _alice, _carol in twins]
    assert hands[0] != hands[1], "the twins differ in Carol's hand"
    deadline = timezone.now() + timedelta(days=1)
    Prompt.objects.filter(game__in=[game for game, _a, _c in twins]).update(deadline_at=deadline)
    now = timezone.now()
    bodies = []
    for game, alice, _carol in twins:
        [msg] = _mail_turn(game, now, sent)
        assert msg.to == [alice.email]
        [(markup, _mime)] = msg.alternatives
        bodies.append((URL.sub("URL", str(msg.body)), URL.sub("URL", str(markup)), msg.subject))
    with translation.override("en"):
        assert _section(bodies[0][0]), "the section is there"
    assert bodies[0] == bodies[1]


def test_an_email_lists_the_newest_five_items_and_counts_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short: at most the newest :data:`SINCE_MOST` items (the page keeps 8 and counts the older ones); the
    rest are counted, in the reader's language (until the catalog has the email's words, the page's)."""
    items = [{"lines": [f"line {i}", f"more {i}"], "seq": i} for i in range(8)]
    monkeypatch.setattr(email_content, "since_model", lambda gv, names: {"items": items, "more": 3})
    gv: Any = type("View", (), {"names": {}})()
    c = EmailContent("s", "h")
    with translation.override("en"):
        since_section(c, gv)
    assert c.since == [[f"line {i}", f"more {i}"] for i in range(3, 8)]
    assert c.since_more == "…and 6 more on the game page."
    with translation.override("sv"):
        since_section(c, gv)
        expected = translation.ngettext(
            "…and %(n)s more on the game page.", "…and %(n)s more on the game page.", 6
        )
        if expected.startswith("…and"):
            expected = translation.ngettext(
                "%(n)s earlier event: see the game log", "%(n)s earlier events: see the game log", 6
            )
    assert c.since_more == expected % {"n": 6} and "more on the game page" not in c.since_more
    monkeypatch.setattr(email_content, "since_model", lambda gv, names: {"items": items[:5], "more": 0})
    since_section(c, gv)
    assert len(c.since) == 5 and c.since_more == ""


def test_a_digest_tells_it_once_per_game(settings: Settings, sent: list[EmailMultiAlternatives]) -> None:
    """Alice takes her turns and reminders as a daily digest: the digest tells what touched her since her
    last move once, in the game's first entry, though the game has two entries (the turn, its reminder)."""
    game, alice, _carol = _forest_taken()
    alice.notify = {"turn": "digest", "reminder": "digest"}
    alice.save(update_fields=["notify"])
    now = timezone.now()
    assert _mail_turn(game, now, sent) == []
    later = (now + timedelta(days=400)).replace(hour=settings.DIGEST_HOUR + 4)
    Prompt.objects.exclude(game=game).update(remind_at=None)
    assert reminders_queue(now=later) == 1
    assert outbox_flush(game_id=game.pk, now=later) == 0  # held for the digest
    assert digests_send(now=later) == 1
    [digest] = sent
    assert digest.to == [alice.email]
    body = str(digest.body)
    assert body.count("\n== ") == 2
    assert Notification.objects.filter(recipient=alice, status="sent").exclude(kind="digest").count() == 2
    with translation.override("en"):
        assert body.count("Since your last move:") == 1
        assert _section(body) == _expected(game, alice)
    [(markup, _mime)] = digest.alternatives
    assert str(markup).count("Since your last move") == 1
