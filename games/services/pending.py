"""Pending orders (issue 30, whole turns in one reply): the lines of an emailed reply that cannot be played
yet are kept for the seat and played, in order, as soon as the seat's next decision accepts them.

A reply ``advance Fort 6`` / ``support Rallying Cry`` / ``end`` applies the advance at once; the battle it
opens asks for conflict cards first, so ``support …`` and ``end`` are kept (:func:`queue`). Inside every
write, :func:`games.services.play.bots_run` asks :func:`next_action` for a seat that must decide and holds
pending orders: the first order is played when the decision accepts its kind of move (recorded with source
``email``, the door it came through, so the game record is unchanged), it waits while the decision is of
another kind (a response window: the player is asked as usual), and it is dropped, with the orders after
it, when the position makes it impossible (the move is illegal now, its card is gone, the turn it was
written in is over). Conflict, support and pass lines belong to the battle the advance before them opened
(R59–R81): once that battle is over they are dropped alone. Every drop is told in one email (a ``reply``
row through the outbox, ``data["dropped"]``).

All of it runs under the game's row lock (:func:`games.services.locks.lock_with_seats`) in the write's
transaction, and a played order's row is deleted in that transaction, so no order is ever applied twice.
A pending order is visible only to its seat's player (the page's orders list and the ``orders`` command).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games import engine
from games.engine import actions as A
from games.models import Game, Notification, PendingOrder, Seat
from games.services.errors import NotFound
from games.services.locks import lock_with_seats
from games.services.outbox import dedupe_key, send_after_commit

#: ``PendingOrder.battle`` of a battle line written after an advance that has not been played yet.
NEXT_BATTLE = "next"
#: The move words whose lines belong to a battle (:func:`games.engine.verb_of`).
BATTLE_VERBS = frozenset({"conflict", "support", "pass"})
#: Notation error codes that mean "not at this moment" rather than "no such move" (a ``pass`` with no
#: window and no support step open).
NOT_YET_CODES = frozenset({"nothing_to_pass"})
#: Why orders were dropped (``Notification.data["dropped_reason"]``; worded by
#: :mod:`games.notify.replies`): the turn they were written in is over, the battle they were for is over
#: (or their advance opened none), the line is no move for the position now (a card no longer held), or
#: any other value: the engine's code of the illegal move (:class:`games.engine.IllegalAction`).
TURN_OVER, BATTLE_OVER, IMPOSSIBLE = "turn_over", "battle_over", "impossible"


def turn_key(state: engine.GameState, seat: int) -> str:
    """The key of ``seat``'s turn in ``state`` (``t<turn>:turn:<seat>``, as the engine's turn prompts)."""
    return f"t{state.turn}:turn:{seat}"


def battle_key(state: engine.GameState) -> str:
    """The key of the battle under way (``<turn>:<attacker>:<defender>:<pos>``), ``""`` when none is."""
    b = state.battle
    return "" if b is None else f"{state.turn}:{b.attacker}:{b.defender}:{b.pos}"


def reading(state: engine.GameState, seat: int, text: str, lang: str = "en") -> engine.Action | None:
    """The action ``text`` is for ``seat`` when one of the seat's decisions now accepts that kind of move,
    ``None`` when it cannot be played yet (no open decision takes such a move).

    Raises:
        games.engine.NotationError: ``text`` is no move for this position (unknown word, a card the seat
            does not hold …); its ``code`` says why.
    """
    try:
        action = engine.parse_text(state, seat, text, lang)
    except engine.NotationError as exc:
        if exc.code in NOT_YET_CODES:
            return None
        raise
    kinds = {type(a) for a in engine.legal_actions(state, seat)}
    return action if type(action) in kinds else None


def can_queue(state: engine.GameState, seat: int) -> bool:
    """Whether lines of ``seat`` may be kept for later now: only during the seat's own turn (a whole turn is
    written for it; the game is not over) while something interrupts it (a battle, a window, a choice, a
    manoeuvre): a move the plain turn decision does not take now is an error at once, as before."""
    if state.winners or state.active != seat:
        return False
    return not any(p.seat == seat and p.kind == engine.PromptKind.TURN for p in engine.pending(state))


def queue(
    game: Game,
    seat: int,
    user: User,
    texts: list[str],
    state: engine.GameState,
    source: str = "email",
    mail_id: int | None = None,
) -> list[PendingOrder]:
    """Keep ``texts`` (moves in the notation, in order) as ``seat``'s pending orders for its current turn,
    replacing the orders the seat held (the latest reply's rest of the turn counts). Inside the caller's
    write, under the game lock.

    A conflict, support or pass line is bound to the battle of the advance before it in ``texts``
    (:data:`NEXT_BATTLE`), else to the battle under way when the seat fights in it, else to the next battle
    its advance opens. ``source``: the door the lines came through (``email``, ``web``), recorded with each
    move when it is played; ``mail_id``: the stored mail they came in.

    Returns:
        The stored rows, in order.
    """
    PendingOrder.objects.filter(game=game, seat=seat).delete()
    b = state.battle
    current = battle_key(state) if b is not None and seat in (b.attacker, b.defender) else ""
    rows = []
    after_advance = False
    for position, text in enumerate(texts, start=1):
        verb = engine.verb_of(text)
        after_advance = after_advance or verb == "advance"
        battle = ""
        if verb in BATTLE_VERBS:
            battle = NEXT_BATTLE if after_advance or not current else current
        rows.append(
            PendingOrder(
                game=game,
                seat=seat,
                user=user,
                position=position,
                text=text[:200],
                turn_key=turn_key(state, seat),
                battle=battle,
                mail_id=mail_id,
                source=source,
            )
        )
    return PendingOrder.objects.bulk_create(rows)


def orders_of(game: Game, seats: list[Seat]) -> dict[int, list[PendingOrder]]:
    """The pending orders of the seated people, by seat, in order (one query). A seat a bot plays has none
    that count (its rows stay until dropped or cleared)."""
    people = {s.number: s.user_id for s in seats if s.user_id is not None and not s.is_bot}
    out: dict[int, list[PendingOrder]] = {}
    for order in PendingOrder.objects.filter(game=game, seat__in=list(people)):
        if people.get(order.seat) == order.user_id:
            out.setdefault(order.seat, []).append(order)
    return out


def next_action(
    state: engine.GameState, seat: int, orders: list[PendingOrder], prompt: engine.Prompt
) -> tuple[engine.Action, bool] | None:
    """The action of ``seat``'s first pending order when the seat's decision now accepts it, with ``True``
    (the order is then played: :func:`played`), else ``None`` (the player decides as usual).

    One action is no order's own: when the battle of the seat's own advance asks it for support again and
    its next order is a turn's line (``end``), its written support is complete and it passes
    (``(PassSupport(), False)``): "support X, end" means no more support in its later laps (R69-R70).

    Orders the position has made impossible are dropped on the way (:func:`drop`: deleted from
    ``orders`` and the table, told by email bound to the prompt's key): the turn they were written in is
    over, their battle is over, the line reads as no move now, or the seat's plain turn decision (``turn``,
    nothing interrupting it) does not take the move: nothing else comes back in that turn before the
    order, so it never will.

    Args:
        state: the position. orders: ``seat``'s pending orders in order (changed in place). prompt: the
            seat's open decision being tried (not the server's).
    """
    prompt_key = prompt.key
    while orders:
        order = orders[0]
        if order.turn_key != turn_key(state, seat) or state.active != seat:
            drop(orders, len(orders), TURN_OVER, prompt_key)
            return None
        if order.battle:
            b = state.battle
            if order.battle == NEXT_BATTLE and b is not None and b.attacker == seat:
                order.battle = battle_key(state)  # the advance was played elsewhere (the page): this battle
                order.save(update_fields=["battle"])
            if order.battle != battle_key(state):
                drop(orders, 1, BATTLE_OVER, prompt_key)
                continue
        try:
            action = reading(state, seat, order.text)
        except engine.NotationError:
            drop(orders, len(orders), IMPOSSIBLE, prompt_key)
            continue
        if action is None and prompt.kind == engine.PromptKind.TURN:
            drop(orders, len(orders), IMPOSSIBLE, prompt_key)
            continue
        b = state.battle
        own_battle = b is not None and b.attacker == seat
        if action is None and prompt.kind == engine.PromptKind.SUPPORT and not order.battle and own_battle:
            return A.PassSupport(), False
        return None if action is None else (action, True)
    return None


def played(state: engine.GameState, seat: int, orders: list[PendingOrder], action: engine.Action) -> None:
    """The first of ``orders`` was played (``state`` is the position after it): delete it; after an advance
    that opened a battle, bind the battle lines that wait for it (up to the next advance) to that battle."""
    order = orders.pop(0)
    order.delete()
    b = state.battle
    if not isinstance(action, A.Advance) or b is None or b.attacker != seat:
        return
    for later in orders:
        if engine.verb_of(later.text) == "advance":
            break
        if later.battle == NEXT_BATTLE:
            later.battle = battle_key(state)
            later.save(update_fields=["battle"])


def drop(orders: list[PendingOrder], count: int, reason: str, prompt_key: str = "") -> None:
    """Drop the first ``count`` of ``orders`` (one seat's) and tell their player in one email (a ``reply``
    row: ``data["dropped"]`` the lines, ``data["dropped_reason"]`` why; bound to ``prompt_key`` so a reply
    to it plays on), sent after commit."""
    gone, orders[:] = orders[:count], orders[count:]
    if not gone:
        return
    PendingOrder.objects.filter(pk__in=[o.pk for o in gone]).delete()
    first = gone[0]
    now = timezone.now()
    Notification.objects.create(
        recipient_id=first.user_id,
        game_id=first.game_id,
        seat=first.seat,
        kind=Notification.Kind.REPLY,
        prompt_key=prompt_key,
        dedupe_key=dedupe_key(first.user_id, first.game_id, f"pending.{first.pk}", Notification.Kind.REPLY),
        data={"dropped": [o.text for o in gone], "dropped_reason": reason, "applied": [], "error": None},
        created_at=now,
        send_after=now,
        status=Notification.Status.PENDING,
    )
    send_after_commit(first.game_id)


def pending_list(*, user: User, game_id: int | None = None) -> list[PendingOrder]:
    """``user``'s own pending orders in games in progress (one game, or all their games), in order, with
    their games (a finished game's orders are never played: they are not listed)."""
    rows = PendingOrder.objects.filter(user=user, game__status=Game.Status.ACTIVE).select_related("game")
    if game_id is not None:
        rows = rows.filter(game_id=game_id)
    return list(rows)


def pending_clear(*, user: User, game_id: int) -> int:
    """Remove ``user``'s pending orders in ``game_id`` under the game lock (the page's and the ``clear``
    command's). Returns how many were removed (0 when there were none).

    Raises:
        NotFound: no such game, or none where ``user`` has a seat (the same answer, so a private game is not
            told from a missing one, issue 12).
    """
    with transaction.atomic():
        _game, seats = lock_with_seats(game_id)
        if not any(s.user_id == user.pk for s in seats):
            raise NotFound("no such game", game_id=game_id)
        deleted, _rows = PendingOrder.objects.filter(user=user, game_id=game_id).delete()
    return deleted
