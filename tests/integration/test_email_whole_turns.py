"""Whole turns in one reply (issue 30, acceptance): a 3-player game is played to a winner by email where every
reply to a turn is the whole turn (its advances, its battle's conflict and support cards, and "end" in one
mail), and at least nine lines in ten of those replies are applied without any further mail, none twice.

Everything is real and runs as in production, as in :mod:`.test_email_play_game` (whose mail clients this
test reuses): the game is started through the services (seed :data:`SEED`), a real Celery worker subprocess
sends every notification over SMTP to the sink and processes every stored reply, and the real receiver
(SMTP on a free port, in this process) stores each reply and enqueues its processing.

The players write as someone who plays a whole turn from its "your turn" email:

* the first turn-level decision of a seat's turn (a kind of ``engine.TURN_KINDS``) is answered by one reply
  holding the whole turn (:func:`whole_turn`): the moves the engine's ``easy`` bot chooses, played forward on
  the test's copy of the position while the turn stays with the seat, and, when an advance opens a battle,
  the seat's conflict card, a support card when the bot would play one, and "end". The writer does not
  foresee its rivals: their unknown answers (a response window, their conflict card) are taken as their
  timeout answer, and nothing of the turn after the battle is planned but "end". The first line is the
  email's number for it when its list has one, the others are in the notation (``engine.to_text``); at
  most :data:`MAX_LINES` lines. What the seat's decisions do not accept yet is kept by the server as the
  seat's pending orders (``games.services.pending``) and played, inside the write that opens the decision
  that accepts it, by whichever reply (often a rival's) makes that write;
* every other decision email (a rival's conflict card or support, a Fracture response window for a seat
  that holds Fracture, Insight and Prosperity looks, a turn that came back with nothing pending, dropped
  orders asking again…) is answered with one line, the bot's move, as in :mod:`.test_email_play_game`.

What is measured, per whole-turn reply: the lines it holds, and the moves credited to it (:func:`credit`):
the moves of its seat recorded from email, at once or as pending orders played by any later write, up to the
seat's next turn, except each one-line reply's own move (a line written again in a further mail counts for
that mail, not for the whole turn). A ``pass_support`` that "support X, end" makes in a later lap of the
seat's own battle is no line of the reply and is not counted. A line counts even when it was played after
its seat answered another decision the whole turn could not hold (an "end" played once the player has
answered their Prosperity look, an optional discard, their own response window or a Fear choice): it was
not written again. The stricter count, only the moves made before the seat's next email of any kind, is
printed too (56 of 65 lines for :data:`SEED`; the others are such "end" lines).

The game must reach a winner with applied >= 90 % of written; no reply is credited more moves than its
lines, and each credited move is one of its written moves in their order (none twice, at most one "end");
every line not applied was dropped with an email to its player (``data["dropped"]``) or was still a pending
order when the game ended; pending orders were really used (result emails that kept lines, played later by
other writes); the record replays from its setup and every email has a Message-ID of its own.

:data:`SEED` was chosen by playing this test's policy over seeds 1-30 (every game of them that ended
within :data:`MAX_REPLIES` applied at least 91 % of its lines): its game is short (54 replies, 19 whole
turns, 65 lines of which 62 are applied) and shows what the assertions at the end require of it: battles
whose support and "end" lines wait as pending orders, and a rival's Fracture of the Crown of Vitality that
makes the rest of a turn impossible, so those orders are dropped, told, and the turn is played on by
one-line replies. A change of the engine or the bot that makes the seed miss one fails there loudly
(choose another seed with the same policy).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from accounts.models import User
from games import engine, services
from games.engine import actions as A
from games.models import ActionRecord, Game, InboundMail, Notification, PendingOrder
from games.services.play import PARALLEL_KINDS
from tests.web.conftest import create_started_game, create_user, seat_users, state_of

from .harness import EmailStack, wait_until
from .test_email_play_game import Clients, Mail, choose, receiver, server_passes

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

#: The game's seed: a short game with battles and dropped orders (see the module docstring).
SEED = 17
TITLE = "Whole turns by email"
#: Sealed Fracture windows, with the server's "pass" for a seat without Fracture made at once (no masking
#: delay: the test does not wait for the deadline sweep).
OPTIONS = {"fracture_windows": "sealed", "fracture_mask": [0, 0]}
#: At most this many lines in one whole-turn reply.
MAX_LINES = 8
#: Rounds of replies a game may take before the test gives up.
MAX_REPLIES = 150
#: The share of whole-turn lines that must be applied without further mail (issue 30).
APPLIED_SHARE = 0.9
#: What a result email says of lines kept as pending orders (``games.notify.replies``).
KEPT = "Kept as your pending orders"


# --------------------------------------------------------------------------------------------------------
# The players' replies
# --------------------------------------------------------------------------------------------------------


def whole_turn(state: engine.GameState, seat: int, seed: int, seq: int) -> list[engine.Action]:
    """The moves of ``seat``'s whole turn as its player writes them from the position of its turn email.

    The bot's moves are played forward while the turn stays with ``seat``; rivals' unknown answers (a
    response window, their conflict card) are taken as their timeout answer and the server's passes are
    made. Once an advance of the seat opens a battle, only the seat's conflict card and (when the bot plays
    one) its first support card are written, and the turn ends with "end": the battle's outcome cannot be
    foreseen. A decision of the seat's own that is not of its turn (Insight, Prosperity, a discard) also
    stops the planning. Ends with :class:`~games.engine.actions.EndTurn` unless the moves win the game, at
    most :data:`MAX_LINES` moves."""
    actions: list[engine.Action] = []
    battle = False
    while len(actions) < MAX_LINES - 1 and not state.winners and state.active == seat:
        waiting = [p for p in engine.pending(state) if not p.auto]
        rival = next((p for p in waiting if p.seat != seat), None)
        if rival is not None:  # not foreseen: taken as their timeout answer
            state, seq = server_passes(engine.apply(state, rival.seat, rival.timeout_action).state, seq + 1)
            continue
        prompt = next((p for p in waiting if p.seat == seat), None)
        if prompt is None:
            break
        own_battle = state.battle is not None and state.battle.attacker == seat
        if prompt.kind in engine.TURN_KINDS and battle:
            break  # the turn after the battle: not foreseen
        if prompt.kind not in engine.TURN_KINDS and not (
            own_battle and prompt.kind in (engine.PromptKind.CONFLICT, engine.PromptKind.SUPPORT)
        ):
            break
        action = choose(state, seat, seed, seq)
        if isinstance(action, A.EndTurn):
            break
        if prompt.kind == engine.PromptKind.SUPPORT:
            if isinstance(action, A.PlaySupport):
                actions.append(action)
            break
        actions.append(action)
        state, seq = server_passes(engine.apply(state, seat, action).state, seq + 1)
        battle = battle or (state.battle is not None and state.battle.attacker == seat)
    if state.winners:
        return actions  # the turn wins the game: no "end" after it
    return [*actions, A.EndTurn()]


def lines_of(state: engine.GameState, seat: int, mail: Mail, actions: list[engine.Action]) -> list[str]:
    """The reply's lines for ``actions``: the first as its number in the email's list when it has one, the
    others in the notation, each written on the position it will meet as the writer foresees it (rivals'
    timeout answers). The final "end" is written as is (the position it meets is not foreseen)."""
    lines: list[str] = []
    for action in actions:
        if isinstance(action, A.EndTurn):
            text = "end"
        else:
            text = engine.to_text(state, action, "en")
            state = _foreseen(engine.apply(state, seat, action).state, seat)
        lines.append(str(mail.moves.index(text) + 1) if not lines and text in mail.moves else text)
    return lines


def _foreseen(state: engine.GameState, seat: int) -> engine.GameState:
    """The position after the server's passes and the rivals' timeout answers, until ``seat`` decides."""
    while True:
        state = server_passes(state, 0)[0]
        rival = next((p for p in engine.pending(state) if not p.auto and p.seat != seat), None)
        if rival is None or state.winners:
            return state
        state = engine.apply(state, rival.seat, rival.timeout_action).state


@dataclass
class Reply:
    """One reply sent: by whom, to which email, its moves and lines, whether it is a whole turn, the
    Message-ID it went under and the batch of replies it was sent in."""

    seat: int
    kind: str
    mail: Mail
    actions: list[engine.Action]
    lines: list[str]
    whole: bool
    turn: int
    reply_id: str = ""
    batch: int = 0
    result: Mail | None = None
    #: The moves of the game credited to this reply (:func:`credit`), in order.
    credited: list[ActionRecord] = field(default_factory=list)

    def moves(self, before: float = float("inf")) -> list[ActionRecord]:
        """The credited moves that are lines of the reply (not the ``pass_support`` of "support X, end"),
        those recorded up to seq ``before`` when given."""
        return [r for r in self.credited if r.payload["type"] != "pass_support" and r.seq <= before]


@dataclass
class Players:
    """The three players: which open decisions to answer now, and with what."""

    clients: Clients
    seed: int
    #: The turns (turn number, seat) whose whole turn was written.
    written: set[tuple[int, int]] = field(default_factory=set)
    replies: list[Reply] = field(default_factory=list)

    def next_replies(self, game: Game) -> list[Reply]:
        """The replies to send now: the first open decision's, and when several seats are asked at once
        (conflict cards, a sealed response window), also those of the other seats already asked, each chosen
        on the position it will meet (as :meth:`.test_email_play_game.Players.next_replies`)."""
        state, seq = state_of(game), game.seq
        first_open = {(p.seat, p.key) for p in engine.pending(state) if not p.auto}
        out: list[Reply] = []
        while True:
            prompt = next((p for p in engine.pending(state) if not p.auto), None)
            if prompt is None or (
                out and (prompt.kind not in PARALLEL_KINDS or out[-1].kind not in PARALLEL_KINDS)
            ):
                return out
            if out and (prompt.seat, prompt.key) not in first_open:
                return out
            mail = self.clients.decision(prompt.seat, prompt.key)
            assert mail.moves, f"a decision email without numbered moves:\n{mail.text}"
            whole = prompt.kind in engine.TURN_KINDS and (state.turn, prompt.seat) not in self.written
            if whole:
                self.written.add((state.turn, prompt.seat))
                actions = whole_turn(state, prompt.seat, self.seed, seq)
                lines = lines_of(state, prompt.seat, mail, actions)
            else:
                actions = [choose(state, prompt.seat, self.seed, seq)]
                lines = lines_of(state, prompt.seat, mail, actions)
            out.append(Reply(prompt.seat, str(prompt.kind), mail, actions, lines, whole, state.turn))
            if whole:
                return out
            state, seq = server_passes(engine.apply(state, prompt.seat, actions[0]).state, seq + 1)
            if state.winners:
                return out


def check_result(reply: Reply, result: Mail) -> InboundMail:
    """The reply was stored as sent and applied without an error; a one-line reply's move at once, a whole
    turn's lines at once or kept as pending orders, as its result email lists."""
    row = InboundMail.objects.get(message_id=reply.reply_id)
    assert row.via == "smtp" and row.lines == reply.lines, (row.lines, reply.lines)
    assert row.status == InboundMail.Status.APPLIED, (row.status, row.reason, reply.lines, result.text)
    texts = result.text.splitlines()
    done = [t for t in texts if t.startswith("✓ ")]
    kept = [t for t in texts if t.startswith("… ")]
    assert len(done) == row.applied, (row.applied, result.text)
    if not reply.whole:
        assert row.applied == 1, (row.applied, reply.lines, result.text)
    else:
        assert row.applied + len(kept) == len(reply.lines), (reply.lines, result.text)
        assert bool(kept) == (KEPT in result.text)
    return row


def credit(replies: list[Reply], records: list[ActionRecord], batches: list[tuple[int, int]]) -> None:
    """Credit every move recorded from email to the reply it came from: a one-line reply's own move (the
    first record of its seat in its batch with its payload), and every other one of a seat to the seat's
    last whole-turn reply before it (its lines applied at once, or its pending orders played later, in
    whichever write)."""
    claimed: set[int] = set()
    for reply in replies:
        if reply.whole:
            continue
        lo, hi = batches[reply.batch]
        want = payload(reply.actions[0])
        match = next(
            (
                r
                for r in records
                if lo < r.seq <= hi and r.seat == reply.seat and r.seq not in claimed and r.payload == want
            ),
            None,
        )
        assert match is not None, f"the move of reply {reply.lines} of seat {reply.seat} was not recorded"
        claimed.add(match.seq)
        reply.credited.append(match)
    for r in records:
        if r.source != ActionRecord.Source.EMAIL or r.seq in claimed:
            continue
        owner = None
        for reply in replies:
            if reply.whole and reply.seat == r.seat and batches[reply.batch][0] < r.seq:
                owner = reply
        assert owner is not None, f"move {r.seq} {r.payload} of seat {r.seat} comes from no reply"
        owner.credited.append(r)


def payload(action: engine.Action) -> dict[str, Any]:
    """``action`` as its record stores it (JSON)."""
    return dict(json.loads(json.dumps(action.to_dict())))


def unapplied(reply: Reply) -> list[str] | None:
    """The lines of a whole-turn reply whose moves were not credited to it, matching its credited moves
    (``pass_support`` left out) to its written moves in order, each written move at most once; ``None`` when
    they do not match (a move it did not write, or written moves applied out of order or twice)."""
    moves = iter(r.payload for r in reply.moves())
    move = next(moves, None)
    left: list[str] = []
    for action, line in zip(reply.actions, reply.lines, strict=True):
        if move is not None and move == payload(action):
            move = next(moves, None)
        else:
            left.append(line)
    return left if move is None else None


# --------------------------------------------------------------------------------------------------------
# The game
# --------------------------------------------------------------------------------------------------------


def test_a_game_of_whole_turn_replies_applies_nine_lines_in_ten_without_further_mail(
    stack: EmailStack,
) -> None:
    """Three players play seed :data:`SEED` to a winner by email, each turn written in one reply; at least
    90 % of those replies' lines are applied without further mail, none twice (see the module docstring);
    then the record replays from its setup."""
    stack.start_worker()
    users: list[User] = [create_user(display_name=name) for name in ("Anna", "Bob", "Cleo")]
    batches: list[tuple[int, int]] = []  # each batch's seq range (first exclusive, last inclusive)
    with receiver() as port:
        game = create_started_game(humans=users, seed=SEED, options=OPTIONS, title=TITLE)
        assert game.setup is not None
        clients = Clients(stack=stack, port=port, users=seat_users(game))
        players = Players(clients, seed=int(game.setup["seed"]))
        for _ in range(MAX_REPLIES):
            game.refresh_from_db()
            if game.status != Game.Status.ACTIVE:
                break
            before = game.seq
            assert not batches or batches[-1][1] == before, "nothing moved the game between the replies"
            batch = players.next_replies(game)
            assert batch, "the game waits for nobody"
            for reply in batch:
                reply.batch = len(batches)
                reply.reply_id = clients.reply(reply.mail, reply.seat, reply.lines)
            for reply in batch:
                reply.result = clients.result(reply.reply_id)
                check_result(reply, reply.result)
            players.replies += batch
            game.refresh_from_db()
            batches.append((before, game.seq))
        else:
            pytest.fail(f"no winner after {MAX_REPLIES} rounds of replies")
        over = f"[Medieval Mastery] “{TITLE}” is over"
        wait_until(
            lambda: (
                sorted(m.received.rcpt_tos[0] for m in clients.fetch() if m.received.subject == over)
                == sorted(u.email for u in users)
            ),
            30,
            "the game-over email to each player",
        )

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and state_of(game).winners
    records = list(ActionRecord.objects.filter(game=game).order_by("seq"))
    assert [r.seq for r in records] == list(range(1, game.seq + 1)), "each move recorded once, in order"
    assert services.game_verify(game_id=game.pk)[0], "the record replays from the setup"
    credit(players.replies, records, batches)

    wholes = [r for r in players.replies if r.whole]
    written = sum(len(r.lines) for r in wholes)
    applied = before_next = later = 0
    missed: list[str] = []  # the lines not applied
    for reply in wholes:
        moves = [r.payload for r in reply.moves()]
        assert len(moves) <= len(reply.lines), (reply.lines, moves)
        assert [p["type"] for p in moves].count("end_turn") <= 1, (reply.lines, moves)
        left = unapplied(reply)
        assert left is not None, f"moves the reply did not write, or one twice: {moves} for {reply.lines}"
        applied += len(moves)
        # the strict count: only the moves made before the seat sent its next email (of any decision)
        after = [o for o in players.replies if o.seat == reply.seat and o.batch > reply.batch]
        before_next += len(reply.moves(batches[after[0].batch][0] if after else float("inf")))
        later += len(moves) - InboundMail.objects.get(message_id=reply.reply_id).applied
        missed += left
        if left:
            print(f"  not applied: seat {reply.seat}, turn {reply.turn}: {left} of {reply.lines}")
    kept = [r for r in wholes if r.result is not None and KEPT in r.result.text]
    rows = list(InboundMail.objects.filter(game=game))
    share = applied / max(written, 1)
    print(
        f"seed {SEED}: {len(players.replies)} replies ({len(wholes)} whole turns) in {len(batches)} rounds, "
        f"{game.seq} moves, {len(clients.mails)} emails; whole-turn lines written {written}, applied without "
        f"further mail {applied} ({share:.0%}; before the seat's next email {before_next}), {later} of them "
        f"as pending orders played by later writes; {len(kept)} replies kept orders; one-line replies by kind"
        f" {dict(Counter(r.kind for r in players.replies if not r.whole))}"
    )

    assert len(rows) == len(players.replies), "every reply stored once"
    assert len(wholes) >= 10 and written >= 25, (len(wholes), written)
    assert applied >= APPLIED_SHARE * written, f"{applied} of {written} lines applied without further mail"
    # Pending orders were used: replies whose lines exceeded what could be applied at once, the rest played
    # later, by other writes.
    assert len(kept) >= 3 and later >= 3, (len(kept), later)
    assert sum(row.applied < len(row.lines) for row in rows) == len(kept)
    # No line was lost silently: each one not applied was dropped with an email to its player, or was still
    # waiting as a pending order when the game ended.
    dropped = Notification.objects.filter(game=game, kind=Notification.Kind.REPLY, data__has_key="dropped")
    told = [str(line) for n in dropped for line in n.data["dropped"]]
    waiting = list(PendingOrder.objects.filter(game=game).values_list("text", flat=True))
    assert Counter(told + waiting) == Counter(missed), (told, waiting, missed)
    print(f"dropped with an email: {told}; still pending when the game ended: {waiting}")
    # What the seed's game must have shown (a change of the engine or the bot that makes it miss one fails
    # here: choose another seed with the same policy): a support card written with its turn and played as a
    # pending order, and orders a rival's Fracture made impossible, dropped and told.
    assert any(m.payload["type"] == "play_support" for r in wholes for m in r.moves()), (
        "a support line played"
    )
    assert told, "orders were dropped with an email"

    # Every email of the game has a Message-ID of its own (issue 30).
    ids = Counter(m.received.message_id for m in clients.fetch())
    assert len(ids) == len(clients.mails), ids.most_common(3)
