"""Shared fixtures of the web tests: users with a verified allauth email address, started games with any mix
of human and bot seats, and helpers that play a game forward through :func:`games.services.action_submit`.

The helpers are plain functions (importable as ``from tests.web.conftest import ...``) and are also
offered as fixtures (``make_user``, ``start_game``, ``play``) for tests that prefer fixtures.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth.hashers import make_password
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings

from accounts.models import User
from games import engine, services
from games.bots import bot_action
from games.models import ActionRecord, Game, Notification, Prompt, Seat, Snapshot

#: Password of every test user.
PASSWORD = "correct-horse-battery"

_counter = itertools.count(1)


@functools.cache
def _password_hash(password: str) -> str:
    """The (salted, slow) hash of ``password``, computed once per process: users of the tests share it, so
    creating one costs no key stretching while logging in still checks the real hasher."""
    return make_password(password)


def model_fields(obj: Any) -> dict[str, Any]:
    """Every concrete column value of a model instance (attribute name -> value), to compare two loads of
    one row."""
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def create_user(email: str | None = None, *, display_name: str = "", password: str = PASSWORD) -> User:
    """Create a user whose (primary) email address allauth considers verified, so they can log in.

    Args:
        email: the login; a unique ``playerN@example.com`` when ``None``.
        display_name: the public name (empty: the part of the email before the @).

    Returns:
        The saved user.
    """
    if email is None:
        email = f"player{next(_counter)}@example.com"
    user = User.objects.create_user(email, None, display_name=display_name)
    user.password = _password_hash(password)
    user.save(update_fields=["password"])
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def create_started_game(
    *,
    humans: int | Iterable[User] = 1,
    bots: int = 0,
    seed: int = 1,
    options: dict[str, Any] | None = None,
    time_control: str = "daily",
    title: str = "Test game",
    lobby_mail: bool = False,
    bot_level: str = "random",
) -> Game:
    """Create, fill and start a game through the services.

    Args:
        humans: a number of fresh users, or the users themselves; the first one creates the game.
        bots: bot seats added after the humans joined (the table has ``humans + bots`` players).
        seed: the engine seed given to :func:`games.services.game_start`.
        lobby_mail: keep the creator's lobby emails (someone joined, table full) in the outbox.
        bot_level: the bots' level; the engine's random bot by default, as before levels existed (issue 17),
            so the many tests that only need someone in the other seats stay fast. The bots' tests choose
            a level.

    Returns:
        The started game (re-read from the database; bots to move have already acted).
    """
    users = [create_user() for _ in range(humans)] if isinstance(humans, int) else list(humans)
    assert users, "a game needs a human creator"
    creator = users[0]
    game = services.game_create(
        user=creator, title=title, players=len(users) + bots, options=options or {}, time_control=time_control
    )
    # One transaction for the joins and the deletion below: the joins' "send now" hooks (on_commit) run
    # only after the lobby rows are gone, so a real worker (tests/integration) never sends them.
    with transaction.atomic():
        for user in users[1:]:
            services.seat_join(game_id=game.pk, user=user)
        if not lobby_mail:
            # the creator's "someone joined" / "table full" emails (issue 16) are tested where asked for;
            # most tests count the game's own emails
            Notification.objects.filter(
                game=game, kind__in=(Notification.Kind.JOINED, Notification.Kind.FULL)
            ).delete()
    if bots:
        services.seats_fill_with_bots(game_id=game.pk, user=creator, level=bot_level)
    services.game_start(game_id=game.pk, user=creator, seed=seed)
    return Game.objects.get(pk=game.pk)


def create_private_game(*, players: int = 2, title: str = "Secret", seed: int = 3) -> Game:
    """A started private game of a fresh creator against bots (for tests that a stranger cannot see it)."""
    owner = create_user()
    game = services.game_create(user=owner, title=title, players=players, private=True)
    services.seats_fill_with_bots(game_id=game.pk, user=owner)
    services.game_start(game_id=game.pk, user=owner, seed=seed)
    return Game.objects.get(pk=game.pk)


def seat_users(game: Game) -> dict[int, User]:
    """Return the human seats of a started game: seat number -> user."""
    return {s.number: s.user for s in Seat.objects.filter(game=game).select_related("user") if s.user}


def state_of(game: Game) -> engine.GameState:
    """Return the engine state stored in ``game`` (parsed from the row, not from the service cache)."""
    assert game.state is not None
    return engine.from_dict(game.state)


def human_move(state: engine.GameState, seat: int, game: Game) -> engine.Action:
    """The move :func:`play_human_move` plays for ``seat``: :func:`games.bots.bot_action` seeded with the
    game's own setup seed and ``seq``, not with its database id, so a test plays the same game whatever
    ids earlier tests used."""
    assert game.setup is not None
    return bot_action(state, seat, int(game.setup["seed"]), game.seq)


def play_human_move(game: Game, users: dict[int, User] | None = None, *, seat: int | None = None) -> Game:
    """Play one legal move, chosen by :func:`human_move`, for a human seat the game waits for.

    Args:
        users: the human seats (see :func:`seat_users`); read from the database when ``None``.
        seat: the seat to move; the first human seat with an open prompt when ``None``.

    Returns:
        The game after the move (fresh from the database).
    """
    users = seat_users(game) if users is None else users
    state = state_of(game)
    if seat is None:
        human = [p.seat for p in engine.pending(state) if p.seat in users and not p.auto]
        if not human and pass_masked(game):  # only the server's masked passes were due (issue 14)
            return Game.objects.get(pk=game.pk)
        seat = next(p.seat for p in engine.pending(state) if p.seat in users)
    action = human_move(state, seat, game)
    result = services.action_submit(game_id=game.pk, user=users[seat], action=action, expected_seq=game.seq)
    return result.game


def pass_masked(game: Game) -> int:
    """Let the masking delays of the game's ``auto`` prompts run out: the server passes for those seats
    (issue 14), as the deadline sweep would at ``Prompt.auto_at``. Returns how many passes it applied."""
    rows = list(Prompt.objects.filter(game=game, auto_at__isnull=False).values_list("seat", "key", "auto_at"))
    return sum(services.prompt_expire(game_id=game.pk, seat=seat, key=key, now=at) for seat, key, at in rows)


def play_until(
    game: Game,
    done: Callable[[Game], bool],
    *,
    limit: int = 5000,
) -> Game:
    """Play human moves (see :func:`play_human_move`) until ``done(game)`` holds or the game is over.

    Raises:
        AssertionError: ``limit`` moves were played without reaching ``done``.
    """
    users = seat_users(game)
    for _ in range(limit):
        if done(game) or game.status != Game.Status.ACTIVE:
            return game
        game = play_human_move(game, users)
    raise AssertionError(f"not reached within {limit} moves")


@pytest.fixture
def make_user() -> Callable[..., User]:
    """Factory fixture: ``make_user(email=None, display_name="")`` -> a user with a verified email."""
    return create_user


@pytest.fixture
def user(db: None) -> User:
    """A verified user."""
    return create_user(display_name="Anna")


@pytest.fixture
def other_user(db: None) -> User:
    """A second verified user."""
    return create_user(display_name="Bob")


@pytest.fixture
def start_game(db: None) -> Callable[..., Game]:
    """Factory fixture: ``start_game(humans=1, bots=0, seed=1, options=None, time_control="daily")``
    (see :func:`create_started_game`)."""
    return create_started_game


@pytest.fixture
def two_player_game(db: None) -> Game:
    """A started 2-player game with two human seats."""
    return create_started_game(humans=2, seed=7)


@pytest.fixture
def bot_game(db: None) -> Game:
    """A started 3-player game: one human (the creator) and two bots."""
    return create_started_game(humans=1, bots=2, seed=11)


@pytest.fixture
def play() -> Callable[..., Game]:
    """Fixture form of :func:`play_human_move`."""
    return play_human_move


def log_seqs(game: Game) -> list[int]:
    """Return the ``seq`` of every stored ActionRecord of ``game`` in order."""
    return list(ActionRecord.objects.filter(game_id=game.pk).order_by("seq").values_list("seq", flat=True))


def assert_log_intact(game: Game) -> None:
    """Assert that the ActionRecords of ``game`` are exactly ``1..game.seq`` (no gap, no duplicate) and
    that the last record's hash is the game's ``state_hash``."""
    game.refresh_from_db()
    assert log_seqs(game) == list(range(1, game.seq + 1))
    if game.seq:
        last = ActionRecord.objects.get(game_id=game.pk, seq=game.seq)
        assert last.state_hash == game.state_hash


def db_fingerprint(game_id: int) -> tuple[Any, ...]:
    """Everything a service may write about one game, to check that a refused write changed nothing."""
    game = Game.objects.filter(pk=game_id).values(
        "status", "seq", "state_hash", "state", "setup", "updated_at", "winners", "players", "options"
    )
    return (
        list(game),
        list(
            Seat.objects.filter(game_id=game_id)
            .order_by("pk")
            .values_list("pk", "number", "user_id", "is_bot")
        ),
        list(ActionRecord.objects.filter(game_id=game_id).order_by("seq").values_list("seq", "state_hash")),
        list(
            Prompt.objects.filter(game_id=game_id)
            .order_by("pk")
            .values_list("pk", "seat", "key", "deadline_at")
        ),
        list(Snapshot.objects.filter(game_id=game_id).order_by("seq").values_list("seq", "state_hash")),
    )


def as_apply_async(fake: Callable[..., Any]) -> Callable[..., Any]:
    """A stand-in for a Celery task's ``apply_async`` (what ``delay`` and a signature's ``delay`` call)
    that calls ``fake`` with the task's keyword arguments, to fake a broker in tests."""

    def apply_async(args: Any = None, kwargs: Any = None, **options: Any) -> Any:
        return fake(*(args or ()), **(kwargs or {}))

    return apply_async


#: Django's in-memory email backend (``django.core.mail.outbox``).
LOCMEM = "django.core.mail.backends.locmem.EmailBackend"
_T = TypeVar("_T")


@pytest.fixture
def sent(settings: Settings) -> list[EmailMultiAlternatives]:
    """The locmem outbox (emptied): every email sent during the test, in order."""
    settings.EMAIL_BACKEND = LOCMEM
    mail.outbox = []
    return mail.outbox  # type: ignore[return-value]  # Django types it as a list of EmailMessage


class Writes:
    """Run one game write "as a request": its on-commit callbacks (the send task) run when it returns."""

    def __init__(self, capture: DjangoCaptureOnCommitCallbacks) -> None:
        self.capture = capture

    def __call__(self, fn: Callable[[], _T]) -> _T:
        with self.capture(execute=True):
            return fn()


@pytest.fixture
def writes(django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> Writes:
    """See :class:`Writes`."""
    return Writes(django_capture_on_commit_callbacks)
