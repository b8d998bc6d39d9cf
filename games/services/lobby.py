"""The lobby: opening a table, taking and leaving seats, filling seats with bots, cancelling and starting
a game (R18–R25 through the engine)."""

from __future__ import annotations

import contextlib
import re
import secrets
from datetime import timedelta
from functools import partial
from typing import TypedDict

from django.db import transaction
from django.db.models import Q, Sum
from django.utils import timezone

from accounts.models import User
from games import engine
from games.bots import BOT_LEVELS, stand_ins
from games.engine.rng import Rng
from games.models import TIME_CONTROLS, ChatMessage, Game, Seat
from games.services.errors import NUL, BadPayload, Conflict, Forbidden, NotFound
from games.services.locks import lock_game
from games.services.outbox import queue_lobby
from games.services.play import (
    bots_run,
    deferred_bot_prompt,
    enqueue_bots,
    move_store,
)
from mastery.text import single_line

#: The masking delay of each time control, ``[low, high]`` seconds, drawn uniformly (issue 29, reasoning in
#: docs/decisions.md): long enough to cover the quick answer of a Fracture holder who is there when the
#: window opens, short enough that a table of people is not held up for nothing. It is only waited for when
#: another person at the table could read the timing (``masking_watched``).
MASKS: dict[str, list[int]] = {"live": [10, 60], "daily": [120, 900], "relaxed": [300, 1800]}


def mask_for(time_control: str, response_seconds: int | None = None) -> list[int]:
    """The masking delay ``[low, high]`` (seconds) of a time control (:data:`MASKS`); a custom one takes the
    preset whose response time is nearest above its own (``response_seconds``): up to 1 hour live-ish, up
    to 6 hours daily, longer relaxed."""
    if time_control in MASKS:
        return list(MASKS[time_control])
    if response_seconds is not None and response_seconds <= 3600:
        return list(MASKS["live"])
    if response_seconds is not None and response_seconds <= 6 * 3600:
        return list(MASKS["daily"])
    return list(MASKS["relaxed"])


class WindowDefaults(TypedDict):
    """The Fracture-window options of :func:`window_defaults`: ``fracture_windows`` (``"in_turn"`` or
    ``"sealed"``) and ``fracture_mask`` (the masking delay of a server pass, ``[low, high]`` seconds)."""

    fracture_windows: str
    fracture_mask: list[int]


def window_defaults(time_control: str, response_seconds: int | None = None) -> WindowDefaults:
    """The Fracture-window options a table gets unless its creator chose (issue 14, issue 29): live tables
    go round in turn as the rulebook does; daily, relaxed and custom tables answer sealed; the masking
    delay of a server "pass" follows the clock (:func:`mask_for`).

    Returns:
        ``{"fracture_windows": "in_turn" | "sealed", "fracture_mask": [low, high]}`` (seconds).
    """
    mask = mask_for(time_control, response_seconds)
    if time_control == "live":
        return {"fracture_windows": "in_turn", "fracture_mask": mask}
    return {"fracture_windows": "sealed", "fracture_mask": mask}


def game_create(
    *,
    user: User,
    title: str,
    players: int,
    options: dict[str, object] | None = None,
    time_control: str = "daily",
    turn_seconds: int | None = None,
    response_seconds: int | None = None,
    private: bool = False,
    content: str = "default",
    allow_vacation: bool = True,
    auto_start: bool = False,
    chat_spectators: bool = False,
    rated: bool = True,
) -> Game:
    """Open a lobby; the creator takes the first seat.

    Args:
        options: engine options (``games.engine.OPTION_DEFAULTS``); validated by the engine.
        time_control: a key of :data:`TIME_CONTROLS` or ``"custom"`` (then both second counts are needed).
        allow_vacation: whether a player's away period pauses their clocks in this game.
        auto_start: start by itself when the last seat is taken (issue 16).
        chat_spectators: spectators may read the table chat while the game runs (issue 19; they always
            may once it is over).
        rated: ``False`` makes the game unrated whoever sits at it (``Game.unrated``; an unrated
            tournament's tables, issue 34). A rated game still goes unrated with a bot seat.

    Raises:
        BadPayload: options, player count, content or time control the rules do not allow.
    """
    options = {**window_defaults(time_control, response_seconds), **(options or {})}
    try:
        engine.normalize_setup({"players": players, "seed": 0, "options": options, "content": content})
    except engine.ContentError as exc:
        raise BadPayload(str(exc)) from exc
    if time_control in TIME_CONTROLS:
        _label, turn, response = TIME_CONTROLS[time_control]
    elif time_control == "custom" and turn_seconds and response_seconds:
        turn, response = turn_seconds, response_seconds
    else:
        raise BadPayload("unknown time control")
    if not 60 <= turn <= 30 * 86_400 or not 60 <= response <= 30 * 86_400:
        raise BadPayload("deadlines must be between one minute and 30 days")
    with transaction.atomic():
        game = Game.objects.create(
            title=single_line(title)[:80] or "Medieval Mastery",
            created_by=user,
            players=players,
            options=dict(options),
            content=content,
            time_control=time_control,
            turn_seconds=turn,
            response_seconds=response,
            private=private,
            allow_vacation=allow_vacation,
            auto_start=auto_start,
            chat_spectators=chat_spectators,
            unrated=not rated,
        )
        Seat.objects.create(game=game, number=0, user=user)
    return game


def seat_join(*, game_id: int, user: User, announce: bool = True) -> Seat:
    """Take a free seat in an open lobby; the last seat starts a table that asks to (``auto_start``).
    ``announce=False`` seats without the creator's "someone joined" / "table full" emails: a table an
    event seats (issue 34) is full by design, and its players hear of it when the game starts.

    Raises:
        NotFound, Conflict: not a lobby, full, or already seated.
    """
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.LOBBY:
            raise Conflict("this game has already started")
        seats = list(game.seats.all())
        if any(s.user_id == user.pk for s in seats):
            raise Conflict("you already have a seat here")
        if len(seats) >= game.players:
            raise Conflict("this table is full")
        seat = Seat.objects.create(game=game, number=_free_number(seats), user=user)
        if announce:
            queue_lobby(game=game, seat=seat, taken=len(seats) + 1, now=timezone.now())
    _start_when_full(game, len(seats) + 1)
    return seat


def _free_number(seats: list[Seat]) -> int:
    taken = {s.number for s in seats}
    return next(n for n in range(len(seats) + 1) if n not in taken)


def seat_leave(*, game_id: int, user: User) -> None:
    """Leave a lobby before the start. The creator cannot leave (they cancel the game instead).

    Raises:
        NotFound, Conflict, Forbidden.
    """
    with transaction.atomic():
        game = lock_game(game_id)
        if game.status != Game.Status.LOBBY:
            raise Conflict("you cannot leave a game that has started")
        if game.created_by_id == user.pk:
            raise Forbidden("the creator cannot leave; cancel the game instead")
        deleted, _ = Seat.objects.filter(game=game, user=user).delete()
        if not deleted:
            raise Conflict("you have no seat here")


def _creator_lobby(game_id: int, user: User | None, *, not_creator: str, started: str) -> Game:
    """Lock a lobby for an act only its creator may take (inside the caller's transaction).

    Args:
        user: the acting user (``None``: the system, which may act for the creator).
        not_creator / started: the refusals (messages of :mod:`games.messages`).

    Raises:
        NotFound: no such game, or one ``user`` may not see (a private table they have no seat at, someone
            else's imported record: the same answer as a missing game, issue 28). Forbidden: ``user`` is
            not the creator. Conflict: the game has started.
    """
    game = lock_game(game_id)
    if user is not None and game.created_by_id != user.pk:
        # games.selectors.visible_to's rule (services sit below the selectors): only the creator of an
        # imported record sees it, and the creator was checked above
        if game.imported or (game.private and not game.seats.filter(user=user).exists()):
            raise NotFound("no such game", game_id=game_id)
        raise Forbidden(not_creator)
    if game.status != Game.Status.LOBBY:
        raise Conflict(started)
    return game


def game_cancel(*, game_id: int, user: User) -> None:
    """Delete an unstarted lobby (creator only).

    Raises:
        NotFound, Forbidden (not the creator), Conflict (started).
    """
    with transaction.atomic():
        game = _creator_lobby(
            game_id,
            user,
            not_creator="only the creator can cancel this game",
            started="a started game cannot be cancelled",
        )
        game.delete()


def _start_when_full(game: Game, seats: int) -> None:
    """Start a table that asks to (``auto_start``) once its last seat is taken, after the write that took
    it; a concurrent start (another join, the creator's button) makes this a no-op (issue 16)."""
    if game.auto_start and seats >= game.players:
        with contextlib.suppress(Conflict):  # started (or changed) meanwhile
            game_start(game_id=game.pk, user=None)


_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")

#: How many invitations one table may send (issue 16: enough for friends, too few for spam).
MAX_INVITATIONS = 20

#: How many invitations one user may have sent from their open tables and from the tables they opened in
#: the last day, together: without it, opening tables sent any number of emails to strangers.
MAX_INVITATIONS_PER_USER = 40


def invitation_address(*, game_id: int, user: User, who: str) -> tuple[Game, str]:
    """Check that ``user`` may invite to the open table ``game_id`` and find where the invitation goes:
    ``who`` is an email address (used as it is, whether or not it has an account here, so the answer never
    tells) or a player's display name (their address; display names are public).

    Returns:
        ``(game, address)``; ``game.invited`` lists the invitation (issue 29).

    Raises:
        NotFound (no such game, or a private table the user has no seat at), Forbidden (not the creator of
        a table the user may see), Conflict (started or full), BadPayload (empty, no player or several
        players of that name, the table's invitations are used up, or the user's:
        :data:`MAX_INVITATIONS_PER_USER`).
    """
    who = who.strip()
    with transaction.atomic():
        game = _creator_lobby(
            game_id, user, not_creator="only the creator can invite", started="this game has already started"
        )
        if game.seats.count() >= game.players:
            raise Conflict("this table is full")
        if game.invitations_sent >= MAX_INVITATIONS:
            raise BadPayload("this table has sent all its invitations")
        recent = Q(status=Game.Status.LOBBY) | Q(created_at__gte=timezone.now() - timedelta(days=1))
        mine = Game.objects.filter(recent, created_by=user).aggregate(n=Sum("invitations_sent"))["n"] or 0
        if mine >= MAX_INVITATIONS_PER_USER:
            raise BadPayload("you have sent too many invitations for now")
        if "@" in who:
            address = who
            if NUL in address or not _EMAIL.fullmatch(address):
                raise BadPayload("that is not an email address")
            invited: dict[str, str | int] = {"address": address}
        else:
            # a NUL is in no name, and the database refuses it even in a lookup
            users = User.objects.filter(display_name__iexact=who, is_active=True).exclude(pk=user.pk)
            found = list(users.order_by("pk")[:2]) if who and NUL not in who else []
            if not found:
                raise BadPayload("no player has that name")
            if len(found) > 1:  # names are unique since session 9; older twins are not guessed between
                raise BadPayload("several players have that name: invite them by email address")
            address = found[0].email
            invited = {"user": found[0].pk, "name": found[0].name}
        game.invitations_sent += 1
        # the lobby's seat list shows who is invited (issue 29); inviting someone again lists them once
        game.invited = [entry for entry in game.invited if entry != invited] + [invited]
        game.save(update_fields=["invitations_sent", "invited"])
    return game, address


def _bot_seat(game: Game, seats: list[Seat], level: str) -> Seat:
    """A new bot seat for ``game`` named "Bot N" (N: how many bots the table has, this one included). The
    name is kept in ``guest_name``, so the bot is called the same in the lobby and in the game, whatever
    seat number the start draws for it (issue 16)."""
    count = sum(1 for s in seats if s.is_bot) + 1
    return Seat.objects.create(
        game=game, number=_free_number(seats), is_bot=True, guest_name=f"Bot {count}", bot_level=level
    )


def _seat_bots(game_id: int, user: User, *, one: bool, level: str) -> list[Seat]:
    """Seat one bot (``one``) or fill every empty seat with bots of ``level``, then start a table that asks
    to."""
    if level not in BOT_LEVELS:
        raise BadPayload(f"a bot level is one of {', '.join(BOT_LEVELS)}", field="level")
    with transaction.atomic():
        game = _creator_lobby(
            game_id,
            user,
            not_creator="only the creator can add bots",
            started="this game has already started",
        )
        seats = list(game.seats.all())
        if one and len(seats) >= game.players:
            raise Conflict("this table is full")
        added: list[Seat] = []
        while len(seats) < game.players and not (one and added):
            added.append(_bot_seat(game, seats, level))
            seats.append(added[-1])
    _start_when_full(game, len(seats))
    return added


def seat_add_bot(*, game_id: int, user: User, level: str = "normal") -> Seat:
    """Add one bot of ``level`` (``easy``, ``normal``, ``hard``; issue 17) to a lobby, keeping the other
    empty seats open for friends (creator only; issue 16).

    Raises:
        NotFound, Forbidden (not the creator), Conflict (started, or no seat is free), BadPayload (an
        unknown level).
    """
    return _seat_bots(game_id, user, one=True, level=level)[0]


def seats_fill_with_bots(*, game_id: int, user: User, level: str = "normal") -> int:
    """Fill every empty seat of a lobby with a bot of ``level`` (creator only).

    Returns:
        How many bots were added.

    Raises:
        NotFound, Forbidden (not the creator), Conflict (started), BadPayload (an unknown level).
    """
    return len(_seat_bots(game_id, user, one=False, level=level))


def game_start(
    *,
    game_id: int,
    user: User | None,
    seed: int | None = None,
    bots_after_commit: bool = False,
    seat_order: list[int] | None = None,
) -> Game:
    """Start a full lobby: random seat order and first player via the engine's seeded RNG, then the
    engine's setup (R18–R25). Bots to move act at once (a ``hard`` bot in the ``bots_play`` task).

    Args:
        user: the creator (``None`` for system use such as the demo command).
        seed: the game seed (random when ``None``).
        bots_after_commit: leave every bot's (and stand-in's) decisions to the ``bots_play`` task, enqueued
            once the caller's transaction commits, instead of playing them inside it: for a caller that
            starts many games in one transaction holding its own locks (a tournament round). The moves are
            the same (a bot's seed is the game id and ``seq``).
        seat_order: the engine seat of each lobby seat, in lobby order (``seat_order[i]`` for the seat
            that joined ``i``-th), instead of a random order: for a caller that seats Allegiance teams on
            the engine's teammate seats (R106, R107; a tournament's team event). The first player is
            still the engine's draw (R25).

    Raises:
        Forbidden: not the creator. Conflict: not a full lobby. ValueError: ``seat_order`` is not an
        order of the seats (a caller's mistake, never a player's input; nothing is written).
    """
    with transaction.atomic():
        game = _creator_lobby(
            game_id,
            user,
            not_creator="only the creator can start the game",
            started="this game has already started",
        )
        seats = list(game.seats.select_related("user"))
        if len(seats) != game.players:
            raise Conflict("every seat must be filled (invite players or add bots)")
        seed = secrets.randbits(62) if seed is None else seed
        order = list(range(len(seats)))
        if seat_order is None:
            Rng(seed ^ 0x5EA7).shuffle(order)  # random seat order (clockwise = turn order, R25)
        elif sorted(seat_order) != order:
            raise ValueError("seat_order must name every seat once")
        else:
            order = list(seat_order)
        for seat in seats:  # two passes keep the (game, number) constraint satisfied
            seat.number = 100 + seat.number
            seat.save(update_fields=["number"])
        for new_number, seat in zip(order, seats, strict=True):
            seat.number = new_number
            seat.save(update_fields=["number"])
        # Messages are filed by seat number: any the lobby holds (the API took lobby chat before session 9)
        # would now be shown to whoever got those numbers. The chat opens with the game.
        ChatMessage.objects.filter(game=game).delete()
        options = {**engine.current_options(), **game.options}  # a new table plays the newest rules
        setup = {"players": game.players, "seed": seed, "options": options, "content": game.content}
        state = engine.new_game(setup)
        game.setup = engine.normalize_setup(setup)
        game.status = Game.Status.ACTIVE
        game.started_at = timezone.now()
        played_by = stand_ins(seats)
        if bots_after_commit:
            applied = bots_run(game, state, played_by, [], 0, seats, defer=frozenset(played_by.values()))
            move_store(game, applied, list(seats), bots_later=False)
            if deferred_bot_prompt(applied.state, list(seats), levels=None) is not None:
                transaction.on_commit(partial(enqueue_bots, game.pk))
        else:
            applied = bots_run(game, state, played_by, [], 0, seats)
            move_store(game, applied, list(seats))
    return game
