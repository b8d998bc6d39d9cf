"""Bots on the site (issue 17): the lobby offers their level, their names show it, they play through the
same service path as people, and a stand-in plays an absent player's seat at normal level without
spending their Fracture or Tactical Advance."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import engine, services, tasks
from games.bots import STAND_IN, bot_action
from games.engine.ai.levels import LEVELS, decide
from games.engine.ai.observe import observe
from games.engine.bot import choose, next_decision
from games.engine.rng import Rng
from games.models import ActionRecord, Game
from games.store import state_after
from tests.engine.fixtures import act, card_index, cid
from tests.engine.fixtures import game as engine_game
from tests.web.conftest import create_user
from tests.web.factories import before_battle

pytestmark = pytest.mark.django_db


def test_the_lobby_offers_the_level_and_the_names_show_it() -> None:
    """The creator picks "hard" and fills the table: every bot seat plays hard and is called "Bot N
    (hard)" in the lobby and in the game; a level the lobby does not offer is refused with a reason and
    seats nobody."""
    creator = create_user("levels@example.com", display_name="Creator")
    table = services.game_create(user=creator, title="Levels", players=3)
    client = Client()
    client.force_login(creator)
    lobby = client.get(reverse("games:detail", args=[table.pk])).content.decode()
    assert 'name="level"' in lobby and '<option value="normal" selected>normal</option>' in lobby
    refused = client.post(reverse("games:fill_bots", args=[table.pk]), {"level": "random"}, follow=True)
    assert "Choose a bot level" in refused.content.decode()
    assert table.seats.count() == 1
    client.post(reverse("games:fill_bots", args=[table.pk]), {"level": "hard"})
    seats = list(Game.objects.get(pk=table.pk).seats.order_by("number"))
    assert [(s.is_bot, s.bot_level, s.name) for s in seats[1:]] == [
        (True, "hard", "Bot 1 (hard)"),
        (True, "hard", "Bot 2 (hard)"),
    ]
    services.game_start(game_id=table.pk, user=creator, seed=5)
    page = client.get(reverse("games:detail", args=[table.pk])).content.decode()
    assert "Bot 1 (hard)" in page and "Bot 2 (hard)" in page


def test_bots_move_through_the_service_path_at_their_level() -> None:
    """A game against two normal bots: after the start and after each of the person's moves, the bots'
    moves are stored as records of source ``bot`` by the same write, and ``verify_game`` replays them."""
    creator = create_user("service@example.com")
    table = services.game_create(user=creator, title="Path", players=3)
    services.seats_fill_with_bots(game_id=table.pk, user=creator, level="normal")
    started = services.game_start(game_id=table.pk, user=creator, seed=2)
    bots = set(started.seats.filter(is_bot=True).values_list("number", flat=True))
    records = ActionRecord.objects.filter(game=started)
    assert records.filter(seat__in=bots).exists() or engine.from_dict(started.state).active not in bots
    assert set(records.filter(seat__in=bots).values_list("source", flat=True)) <= {"bot", "server"}
    assert services.game_verify(game_id=started.pk)[0]


def test_a_stand_in_never_spends_fracture_or_tactical_advance() -> None:
    """An absent player's stand-in (normal level) plays their whole seat through random games: it never
    plays Fracture (in a free window or a response window) or Tactical Advance, while it does play the
    rest of the game (advances, battles, Call to Arms)."""
    kinds: set[str] = set()
    for seed in (1, 2, 3):
        state = engine_game(3, seed=seed)
        rng = Rng(seed)
        for n in range(500):
            seat = next_decision(state)
            if seat is None:
                break
            if seat == 0:
                action = bot_action(state, 0, game_id=seed, seq=n, level=STAND_IN)
                kinds.add(action.TYPE)
                assert action.TYPE not in ("fracture", "tactical_advance")
                assert not (isinstance(action, engine.actions.Respond) and action.fracture)
            else:
                picked = choose(state, seat, rng)
                assert picked is not None
                action = picked
            state = engine.apply(state, seat, action).state
    assert {"advance", "end_turn", "choose_conflict"} <= kinds


def test_a_bot_supports_its_teammate_in_battle() -> None:
    """Allegiance teamwork (R72, R110): seat 0 attacks seat 1's Forest; the conflict cards (the attacker's
    weaker, the defender's stronger) leave it 7–7,
    seat 0 passes and seat 1 plays War Banner (7–9). Seat 2, seat 0's teammate, is asked next and holds
    support cards: at every level it plays support for its teammate instead of passing."""
    plain = ["probing_attack", "rallying_cry", "war_banner", "call_to_arms"]
    hands = {
        0: ["audacious_charge", *plain],
        1: ["heroic_assault", *plain],
        2: ["war_banner", "war_banner", "rallying_cry", "probing_attack", "call_to_arms"],
        3: ["audacious_charge", *plain],
    }
    s, attack = before_battle(4, options={"allegiance": "pairs"}, hands=hands)
    assert [p.team for p in s.players] == [0, 1, 0, 1]
    s = act(s, 0, attack).state
    conflicts = {seat: engine.legal_actions(s, seat) for seat in (0, 1)}
    s = engine.apply(s, 0, conflicts[0][0]).state  # the attacker's weaker conflict card
    s = engine.apply(s, 1, conflicts[1][-1]).state  # the defender's stronger one
    s = act(s, 0, {"type": "pass_support"}).state
    s = act(s, 1, {"type": "play_support", "cards": [cid(1, card_index(s, "war_banner"))]}).state
    assert [(p.seat, p.kind) for p in engine.pending(s)] == [(2, "support")]
    for level in LEVELS:
        choice = decide(observe(s, 2), level, 1, budget=6)
        assert choice.TYPE == "play_support", (level, choice)


def _hard_table(seed: int) -> tuple[Game, User]:
    creator = create_user(f"hard{seed}@example.com")
    table = services.game_create(user=creator, title="Hard", players=2)
    services.seats_fill_with_bots(game_id=table.pk, user=creator, level="hard")
    return table, creator


def test_a_hard_bot_thinks_after_the_write_commits_and_plays_what_it_would_have_inline(
    django_capture_on_commit_callbacks: object,
) -> None:
    """A person's write that hands the move to a *hard* bot returns without the bot's move (it would take
    up to a second a decision): the ``bots_play`` task is enqueued after commit, and playing it applies the
    bot's moves as records of source ``bot`` until the person must decide, each the move ``bot_action``
    gives for that position and ``seq``, exactly as if it had been played inline."""
    capture = django_capture_on_commit_callbacks  # pytest-django's fixture
    table, creator = _hard_table(5)
    with capture() as callbacks:  # type: ignore[operator]
        game = services.game_start(game_id=table.pk, user=creator, seed=5)
    bot = game.seats.get(is_bot=True).number
    state = engine.from_dict(game.state)
    human = 1 - bot
    if state.active == human:  # the person ends their turn: the bot is next
        with capture() as callbacks:  # type: ignore[operator]
            result = services.action_submit(
                game_id=game.pk, user=creator, action=engine.EndTurn(), expected_seq=game.seq
            )
        assert [r.seat for r in result.records] == [human]  # the bot did not think inside the request
        game = Game.objects.get(pk=game.pk)
    assert any(getattr(getattr(c, "func", None), "__name__", "") == "enqueue_bots" for c in callbacks)
    waiting = [p.seat for p in engine.pending(engine.from_dict(game.state)) if not p.auto]
    assert waiting == [bot]
    before = game.seq
    assert services.bots_play(game_id=game.pk) >= 1
    game = Game.objects.get(pk=game.pk)
    # the person decides next, or the server passes for them after the masking delay (issue 14)
    mine = [p.seat for p in engine.pending(engine.from_dict(game.state))]
    assert human in mine or game.status == Game.Status.FINISHED
    played = list(ActionRecord.objects.filter(game=game, seq__gt=before, seat=bot).order_by("seq"))
    assert played and {r.source for r in played} == {"bot"}
    for record in played[:3]:
        state = state_after(game, record.seq - 1)
        expected = bot_action(state, bot, game.pk, record.seq - 1, "hard")
        assert record.payload == expected.to_dict()
    assert services.bots_play(game_id=game.pk) == 0  # nothing waits for it: a second run does nothing
    assert services.game_verify(game_id=game.pk)[0]


def test_a_hard_bot_whose_task_was_lost_is_played_by_the_deadline_sweep() -> None:
    """Without the task (broker down, worker killed), the deadline sweep finds a hard bot's decision open
    for over a minute and plays it."""
    table, creator = _hard_table(6)
    game = services.game_start(game_id=table.pk, user=creator, seed=6)  # on-commit hooks never run here
    bot = game.seats.get(is_bot=True).number
    if engine.from_dict(game.state).active != bot:
        game = services.action_submit(
            game_id=game.pk, user=creator, action=engine.EndTurn(), expected_seq=game.seq
        ).game
    assert services.bots_waiting() == []  # just asked: its task has a minute
    with time_machine.travel(timezone.now() + timedelta(minutes=2)):
        assert services.bots_waiting() == [game.pk]
        tasks.deadline_sweep()
    assert ActionRecord.objects.filter(game=game, seat=bot, source="bot").exists()
    assert services.bots_waiting(now=timezone.now() + timedelta(minutes=5)) == []


def test_a_game_started_with_bots_after_commit_leaves_every_bot_move_to_the_task(
    django_capture_on_commit_callbacks: object, settings: object
) -> None:
    """``game_start(bots_after_commit=True)`` (a tournament round starting its tables in one transaction)
    stores the start and no bot move: every seat here is played by a bot (a normal bot, and the person's
    stand-in with ``ABSENT_AFTER_MISSES=0``), and ordinarily the whole game would be played inside the
    start's write. The ``bots_play`` task, enqueued after commit, plays it to its end through the ordinary
    bot path, each move the one ``bot_action`` gives for that position and ``seq``."""
    settings.ABSENT_AFTER_MISSES = 0  # type: ignore[attr-defined]
    capture = django_capture_on_commit_callbacks  # pytest-django's fixture
    ordinary_creator = create_user("ordinary@example.com")
    ordinary = services.game_create(user=ordinary_creator, title="Ordinary", players=2)
    services.seats_fill_with_bots(game_id=ordinary.pk, user=ordinary_creator, level="normal")
    assert services.game_start(game_id=ordinary.pk, user=None, seed=3).status == Game.Status.FINISHED

    creator = create_user("later@example.com")
    table = services.game_create(user=creator, title="Later", players=2)
    services.seats_fill_with_bots(game_id=table.pk, user=creator, level="normal")
    with capture() as callbacks:  # type: ignore[operator]
        game = services.game_start(game_id=table.pk, user=None, seed=3, bots_after_commit=True)
    assert game.status == Game.Status.ACTIVE
    assert not ActionRecord.objects.filter(game=game, source="bot").exists()
    assert [getattr(getattr(c, "func", None), "__name__", "") for c in callbacks].count("enqueue_bots") == 1
    assert services.bots_play(game_id=game.pk) >= 1  # what the enqueued task runs
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.FINISHED and game.winners
    played = list(ActionRecord.objects.filter(game=game, source="bot").order_by("seq"))
    assert {r.seat for r in played} == {0, 1}
    levels = {s.number: ("normal" if s.is_bot else STAND_IN) for s in game.seats.all()}
    for record in played[:4]:
        assert record.seat is not None
        expected = bot_action(
            state_after(game, record.seq - 1), record.seat, game.pk, record.seq - 1, levels[record.seat]
        )
        assert record.payload == expected.to_dict()
    assert services.bots_play(game_id=game.pk) == 0
    assert services.game_verify(game_id=game.pk)[0]


def test_a_bot_left_to_a_lost_task_at_the_start_is_played_by_the_deadline_sweep() -> None:
    """A game started with ``bots_after_commit`` whose task never ran (on-commit hooks never run here): a
    normal bot's first decision is open; after a minute the deadline sweep finds it and plays it."""
    for seed in range(1, 40):
        creator = create_user(f"lost{seed}@example.com")
        table = services.game_create(user=creator, title="Lost", players=2)
        services.seats_fill_with_bots(game_id=table.pk, user=creator, level="normal")
        game = services.game_start(game_id=table.pk, user=None, seed=seed, bots_after_commit=True)
        bot = game.seats.get(is_bot=True).number
        if [p.seat for p in engine.pending(engine.from_dict(game.state)) if not p.auto] == [bot]:
            break
    else:
        pytest.fail("no seed in 1–39 gives the bot the first decision")
    assert not ActionRecord.objects.filter(game=game, source="bot").exists()
    assert services.bots_waiting() == []  # just asked: its task has a minute
    with time_machine.travel(timezone.now() + timedelta(minutes=2)):
        assert services.bots_waiting() == [game.pk]
        tasks.deadline_sweep()
    assert ActionRecord.objects.filter(game=game, seat=bot, source="bot").exists()
