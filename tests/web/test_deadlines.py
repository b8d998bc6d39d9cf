"""issue 4 (first part): deadlines that keep games moving. The sweep applies the engine's timeout action
of every overdue prompt through the normal service (source ``timeout``), exactly once; three missed turns
in a row make a seat absent and a bot plays it until "I'm back". Time is controlled with time-machine."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from games import engine, services
from games.models import ActionRecord, Game, Prompt, Seat
from games.tasks import deadline_sweep

from .conftest import create_started_game, play_human_move, play_until, seat_users, state_of
from .factories import WITH_FRACTURE, before_battle, game_from_state

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    """A stopped clock at START that the test moves with ``clock.shift(...)``."""
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def _records(game: Game) -> list[tuple[int, int | None, str]]:
    return list(ActionRecord.objects.filter(game=game).order_by("seq").values_list("seq", "seat", "source"))


@pytest.mark.django_db
def test_an_overdue_turn_is_ended_once_by_the_sweep(clock: time_machine.Traveller) -> None:
    """The turn deadline (1 hour on the live preset) passes: the sweep ends the turn with a `timeout`
    record; before the deadline nothing happens; a second sweep changes nothing; replay stays exact."""
    game = create_started_game(humans=2, seed=5, time_control="live")
    before = state_of(game)
    seq = game.seq
    assert services.deadlines_sweep() == 0
    clock.shift(timedelta(minutes=59))
    assert services.deadlines_sweep() == 0
    assert Game.objects.get(pk=game.pk).seq == seq
    clock.shift(timedelta(minutes=2))
    assert services.deadlines_sweep() == 1
    game.refresh_from_db()
    assert _records(game)[-1] == (seq + 1, before.active, "timeout")
    after = state_of(game)
    assert after.turn == before.turn + 1 and after.active != before.active
    # The next turn's prompt opened now, with a fresh deadline: nothing is overdue any more.
    [row] = Prompt.objects.filter(game=game)
    assert row.seat == after.active and row.deadline_at == START + timedelta(minutes=61, hours=1)
    snapshot = (_records(game), game.state_hash)
    assert services.deadlines_sweep() == 0
    assert deadline_sweep.delay().get() == 0  # the Celery task (eager here) is the same sweep
    game.refresh_from_db()
    assert (_records(game), game.state_hash) == snapshot
    assert services.game_verify(game_id=game.pk)[0]


@pytest.mark.django_db
def test_a_response_window_times_out_and_the_game_moves_on(clock: time_machine.Traveller) -> None:
    """A Fracture window's seats that did not answer within the response deadline (10 minutes) pass (and
    the server has passed for the seats with nothing to decide); the window moves on and the game goes
    on."""
    game = create_started_game(humans=3, seed=21, time_control="live")

    def window_open(g: Game) -> bool:
        return any(p.kind == "response" for p in engine.pending(state_of(g)))

    game = play_until(game, window_open, limit=600)
    waiting = [p for p in engine.pending(state_of(game)) if p.kind == "response"]
    clock.shift(timedelta(minutes=11))
    applied = services.deadlines_sweep()
    game.refresh_from_db()
    assert applied >= len(waiting)
    new = _records(game)[-applied:]
    # a seat with no Fracture to play is passed for by the server (source "server", issue 14)
    expected = {(p.seat, "server" if p.auto else "timeout") for p in waiting}
    assert {(seat, source) for _seq, seat, source in new} >= expected
    assert not any(
        p.kind == "response" and p.key in {w.key for w in waiting} for p in engine.pending(state_of(game))
    )
    assert services.game_verify(game_id=game.pk)[0]


@pytest.mark.django_db
def test_three_missed_turns_make_a_seat_absent_until_im_back(clock: time_machine.Traveller) -> None:
    """Three missed turn deadlines in a row mark the player absent: a bot then plays their seat at once;
    "I'm back" gives the seat back. Acting yourself resets the count."""
    game = create_started_game(humans=2, seed=5, time_control="live")
    users = seat_users(game)
    sleeper = state_of(game).active
    waker = 1 - sleeper
    for missed in (1, 2, 3):
        clock.shift(timedelta(hours=1, minutes=1))
        assert services.deadlines_sweep() == 1  # the sleeper's turn times out
        assert Seat.objects.get(game=game, number=sleeper).missed_deadlines == missed
        game.refresh_from_db()
        result = services.action_submit(
            game_id=game.pk, user=users[waker], action=engine.EndTurn(), expected_seq=game.seq
        )
        game = result.game
        if missed < 3:
            assert state_of(game).active == sleeper  # their turn waits for them
        else:
            bot_moves = [r for r in result.records if r.seat == sleeper]
            assert bot_moves and all(r.source == "bot" for r in bot_moves)  # a bot played it at once
    services.seat_return(game_id=game.pk, user=users[sleeper])
    assert Seat.objects.get(game=game, number=sleeper).missed_deadlines == 0
    game.refresh_from_db()
    while state_of(game).active != waker:  # finish whatever the bot left open for the sleeper
        game = play_until(game, lambda g: state_of(g).active == waker, limit=200)
    result = services.action_submit(
        game_id=game.pk, user=users[waker], action=engine.EndTurn(), expected_seq=game.seq
    )
    assert [r.seat for r in result.records] == [waker]  # the sleeper's turn now waits for them again
    assert state_of(result.game).active == sleeper
    assert services.game_verify(game_id=game.pk)[0]


@pytest.mark.django_db
def test_acting_yourself_resets_the_missed_deadlines(clock: time_machine.Traveller) -> None:
    """A missed turn followed by a turn played by the player: the run of misses starts again at 0."""
    game = create_started_game(humans=2, seed=5, time_control="live")
    users = seat_users(game)
    sleeper = state_of(game).active
    clock.shift(timedelta(hours=1, minutes=1))
    assert services.deadlines_sweep() == 1
    game.refresh_from_db()
    game = services.action_submit(
        game_id=game.pk, user=users[1 - sleeper], action=engine.EndTurn(), expected_seq=game.seq
    ).game
    assert Seat.objects.get(game=game, number=sleeper).missed_deadlines == 1
    services.action_submit(
        game_id=game.pk, user=users[sleeper], action=engine.EndTurn(), expected_seq=game.seq
    )
    assert Seat.objects.get(game=game, number=sleeper).missed_deadlines == 0


@pytest.mark.django_db
def test_im_back_banner_and_button_on_the_game_page(client: object) -> None:
    """An absent player sees why a bot plays their seat and an "I'm back" button; pressing it (POST only)
    gives the seat back."""
    from django.test import Client

    assert isinstance(client, Client)
    game = create_started_game(humans=2, seed=5)
    users = seat_users(game)
    seat = Seat.objects.get(game=game, number=0)
    seat.missed_deadlines = 3
    seat.save()
    client.force_login(users[0])
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "I&#x27;m back" in page or "I'm back" in page
    assert client.get(f"/games/{game.pk}/back/").status_code == 405  # a GET (link prefetch) acts on nothing
    response = client.post(f"/games/{game.pk}/back/")
    assert response.status_code == 302
    assert Seat.objects.get(pk=seat.pk).missed_deadlines == 0
    assert "I&#x27;m back" not in client.get(f"/games/{game.pk}/").content.decode()


@pytest.mark.django_db
def test_an_interrupted_turn_keeps_its_clock(clock: time_machine.Traveller) -> None:
    """A response window, battle or choice that interrupts a turn pauses the turn's clock, and the turn
    resumes with the time it had left: the clock neither restarts (a player could stretch a turn for
    ever) nor runs on while others decide (R37 windows, the battle steps of R60–R93)."""
    game = create_started_game(humans=2, seed=11, time_control="relaxed")
    users = seat_users(game)
    left: dict[str, timedelta] = {}  # turn key -> time left just before the latest move
    interrupted: set[str] = set()
    resumed = 0

    def turn_row(g: Game) -> tuple[str, Prompt | None]:
        s = state_of(g)
        key = f"t{s.turn}:turn:{s.active}"
        return key, Prompt.objects.filter(game=g, key=key).first()

    for _ in range(600):
        clock.shift(timedelta(minutes=7))
        key, row = turn_row(game)
        if row is not None:
            left[key] = row.deadline_at - timezone.now()
        game = play_human_move(game, users)
        if game.status != Game.Status.ACTIVE:
            break
        key, row = turn_row(game)
        if row is None and key in left:
            interrupted.add(key)
        elif row is not None and key in interrupted:
            assert row.deadline_at - timezone.now() == left[key]
            interrupted.discard(key)
            resumed += 1
            if resumed >= 3:
                break
    assert resumed >= 3, "no turn was interrupted and resumed three times in this game"


@pytest.mark.django_db
def test_a_crown_look_and_a_battle_pause_the_turn_clock(clock: time_machine.Traveller) -> None:
    """The same on a built position (no dependence on what random play reaches): seat 0's turn is
    interrupted by its Crown of Insight (the crown window, then its look, R41) and then by its attack (the
    sceptre window, R64, and the battle steps). Each time the turn resumes with exactly the time it had
    left, however long the others took."""
    state, attack = before_battle(3, arts={0: ["crown_insight", "sceptre_rage"]}, hands={1: WITH_FRACTURE})
    game = game_from_state(state, time_control="relaxed")
    users = seat_users(game)
    key = f"t{state.turn}:turn:0"

    def left() -> timedelta:
        row = Prompt.objects.get(game=game, key=key)
        return row.deadline_at - timezone.now()

    def interrupt(payload: dict[str, object]) -> tuple[Game, timedelta]:
        clock.shift(timedelta(minutes=7))
        before = left()
        after = services.action_submit(
            game_id=game.pk, user=users[0], action=engine.parse_action(payload), expected_seq=game.seq
        )
        assert not Prompt.objects.filter(game=game, key=key).exists(), "the turn was not interrupted"
        return after.game, before

    def settle(g: Game) -> tuple[Game, int]:
        """Answer every other prompt with its timeout action, 40 minutes each, until the turn is back."""
        answered = 0
        while not Prompt.objects.filter(game=g, key=key).exists():
            clock.shift(timedelta(minutes=40))
            p = engine.pending(state_of(g))[0]
            g = services.action_submit(
                game_id=g.pk, user=users[p.seat], action=p.timeout_action, expected_seq=g.seq
            ).game
            answered += 1
            assert answered < 50
        return g, answered

    assert left() == timedelta(seconds=game.turn_seconds)
    game, before = interrupt({"type": "use_crown"})
    assert state_of(game).window is not None
    game, answered = settle(game)
    assert answered >= 2 and state_of(game).crown_used  # the window and the look took 80 minutes or more
    assert left() == before
    game, before = interrupt(attack)
    assert state_of(game).battle is not None
    game, answered = settle(game)
    assert answered >= 3 and state_of(game).battle is None
    assert left() == before
    assert before < timedelta(seconds=game.turn_seconds)
