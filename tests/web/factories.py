"""Started games built from any engine state (issue 13, "Tests that build the position they need").

:func:`game_from_state` stores an engine state as an ACTIVE game the way the services store a started game
(``games.services.lobby.game_start`` and ``games.services.play.move_store``): seats, the game row with its
``setup``, ``state``, ``state_hash`` and ``seq``, the Prompt rows projected from ``engine.pending`` by the
services' own :func:`~games.services.projection.prompts_sync` (so with their real deadlines), and the parsed
state in the store's cache. Bot seats to move act at once, as after a real start. No notification is
queued (a test about emails makes the write it wants to see mailed).

Positions come from the engine tests' helpers (:mod:`tests.engine.fixtures`): a test edits a seeded
``new_game`` into a battle, a response window, a choice or a near-victory position and stores it here, so a
web test never has to play random games until one happens to get there.

An edited position is not reachable by replaying its ``setup``: the history pages and ``verify_game`` replay
records from the setup, so they only agree with games stored with a ``log`` from an unedited ``new_game``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games import engine
from games.bots import stand_ins
from games.models import TIME_CONTROLS, ActionRecord, Game, Seat
from games.services.play import bots_run, record_for, snapshot_due
from games.services.projection import prompts_sync
from games.store import move_save, remember
from tests.engine import fixtures as F

from .conftest import create_user

#: The Game columns :func:`game_from_state` writes through :func:`games.store.move_save` (the ones a real
#: start writes).
_STARTED_FIELDS = [
    "seq",
    "state",
    "state_hash",
    "status",
    "started_at",
    "setup",
    "turn_key",
    "turn_remaining",
    "updated_at",
]


@dataclass(frozen=True)
class Step:
    """One action of a log built in the engine: who acted, what, and the transition it made."""

    seat: int
    action: engine.Action
    transition: engine.Transition


def play_log(
    state: engine.GameState, count: int, policy: Callable[[engine.GameState, int], engine.Action]
) -> list[Step]:
    """Apply ``count`` actions from ``state``, each ``policy(state, seat)`` for the first pending seat.

    Raises:
        AssertionError: the game ended before ``count`` actions.
    """
    steps: list[Step] = []
    for _ in range(count):
        prompts = engine.pending(state)
        assert prompts and not state.winners, f"the game ended after {len(steps)} actions"
        seat = prompts[0].seat
        action = policy(state, seat)
        t = engine.apply(state, seat, action)
        steps.append(Step(seat, action, t))
        state = t.state
    return steps


def first_player(
    players: int, seat: int, *, seed: int = 1, options: dict[str, Any] | None = None
) -> engine.GameState:
    """A fresh game whose first player is pinned to ``seat`` (``pin.first_player``, docs/game-record.md)."""
    return F.game(players, seed=seed, options=options, pin={"first_player": seat})


def game_from_state(
    state: engine.GameState,
    *,
    humans: int | Sequence[User] | None = None,
    users: dict[int, User] | None = None,
    bots: Iterable[int] = (),
    private: bool = False,
    time_control: str = "daily",
    seq: int = 0,
    log: Sequence[Step] = (),
    title: str = "Test game",
) -> Game:
    """Store ``state`` as a started game, as the services would have stored it.

    Args:
        state: the position (any engine state that is not over; store the position before a winning move
            and submit that move to test a victory).
        humans: the users of the human seats in seat order (or how many fresh ones to make); by default a
            fresh user for each seat that ``users`` and ``bots`` leave free.
        users: human seats placed explicitly: seat number -> user.
        bots: bot seat numbers (the random bot, as before levels, issue 17). When the state waits for a
            bot, the bots act at once (records of source ``bot`` follow), as after
            :func:`games.services.game_start`.
        seq: how many actions the game has applied, when no ``log`` is given (no records are written).
        log: the actions that led to ``state`` (see :func:`play_log`), stored as ActionRecords ``1..len(log)``
            with the snapshots the services keep; ``seq`` is then ``len(log)``.

    Returns:
        The game re-read from the database.
    """
    if state.winners:
        raise ValueError("store the position before the winning move and submit that move")
    if log:
        assert seq in (0, len(log)), "seq is the log's length when a log is given"
        assert engine.state_hash(log[-1].transition.state) == engine.state_hash(state), (
            "log does not end here"
        )
        seq = len(log)
    n = state.num_players
    bot_seats = set(bots)
    placed = dict(users or {})
    free = [s for s in range(n) if s not in bot_seats and s not in placed]
    if humans is None:
        humans = len(free)
    people = [create_user() for _ in range(humans)] if isinstance(humans, int) else list(humans)
    assert len(people) == len(free), f"{len(people)} humans for the free seats {free}"
    placed.update(zip(free, people, strict=True))
    assert placed, "a game needs a human creator"
    assert set(placed) | bot_seats == set(range(n)) and not set(placed) & bot_seats, (placed, bot_seats)
    _label, turn, response = TIME_CONTROLS[time_control]
    setup = engine.normalize_setup(state.setup)
    now = timezone.now()
    with transaction.atomic():
        game = Game.objects.create(
            title=title,
            created_by=placed[min(placed)],
            players=n,
            # as a creator would have chosen them: the options that differ from the defaults
            # (the added options such as rules_edition are the lobby's, not the creator's)
            options={
                k: v
                for k, v in setup["options"].items()
                if k in engine.OPTION_DEFAULTS and engine.OPTION_DEFAULTS[k] != v
            },
            content=setup["content"] if isinstance(setup["content"], str) else "default",
            time_control=time_control,
            turn_seconds=turn,
            response_seconds=response,
            private=private,
            status=Game.Status.ACTIVE,
            setup=setup,
            seq=seq,
            started_at=now,
        )
        seats = [
            Seat.objects.create(
                game=game,
                number=s,
                user=placed.get(s),
                is_bot=s in bot_seats,
                bot_level="random" if s in bot_seats else "",
            )
            for s in range(n)
        ]
        befores = [engine.new_game(setup), *(step.transition.state for step in log)][: len(log)]
        records = [
            record_for(game, i, step.seat, ActionRecord.Source.WEB, step.action, before, step.transition)
            for i, (step, before) in enumerate(zip(log, befores, strict=True), start=1)
        ]
        # bots_run adds the snapshot at ``seq`` itself when records precede it
        snapshots = [
            (i, step.transition.state) for i, step in enumerate(log, start=1) if snapshot_due(i) and i < seq
        ]
        applied = bots_run(game, state, stand_ins(seats), records, seq, seats)
        assert not applied.state.winners, "the bots won at once: store an earlier position"
        prompts_sync(game, applied.state, now, None, seats)
        move_save(game, applied.state, applied.records, snapshots + applied.snapshots, _STARTED_FIELDS)
        remember(game, applied.state)
    return Game.objects.get(pk=game.pk)


# --------------------------------------------------------------------------------------------------------
# Positions (engine states built with the engine tests' fixtures)
# --------------------------------------------------------------------------------------------------------

#: Five cards, two conflict cards (Audacious Charge and Ambush), no support card, no Fracture.
PLAIN = ["audacious_charge", "call_to_arms", "tactical_advance", "probing_attack", "ambush"]
#: The same with Fracture instead of the Ambush.
WITH_FRACTURE = ["audacious_charge", "call_to_arms", "tactical_advance", "probing_attack", "fracture"]


def before_battle(
    players: int = 2,
    *,
    arts: dict[int, list[str]] | None = None,
    hands: dict[int, list[str]] | None = None,
    options: dict[str, Any] | None = None,
    seed: int = 5,
) -> tuple[engine.GameState, dict[str, Any]]:
    """Seat 0 is to move on turn 1 with 5 knights in its castle; seat 1 holds the Forest next to that castle
    with 2 knights. Every seat has exactly the artefacts of ``arts`` (none by default) and the hand of
    ``hands`` (:data:`PLAIN` by default). Returns the state and seat 0's attack (advance all 5 knights)."""
    s = F.edit(F.game(players, seed=seed, options=options))
    F.clear_map(s)
    pos = min(n for n in F.neighbours(s, F.castle_pos(s, 0)) if s.board.kinds[n] == "territory")
    F.set_tile(s, pos, "forest")
    F.place(s, pos, 1, 2)
    s.players[0].castle = 5
    for seat in range(players):
        F.set_artefacts(s, seat, [])
        F.set_hand(s, seat, (hands or {}).get(seat, PLAIN))
    for seat, ids in (arts or {}).items():
        F.set_artefacts(s, seat, ids)
    s.dice_queue = []
    return s, {"type": "advance", "to": f"t{pos}", "knights": 5}


def conflict_step(players: int = 2, *, attacker_chose: bool = False) -> engine.GameState:
    """A battle (see :func:`before_battle`, no artefacts) at the conflict-card step: both seats 0 (attacker)
    and 1 (defender) are asked for their conflict card, or, with ``attacker_chose``, seat 0 has already put
    its Audacious Charge face down and only seat 1 is asked."""
    s, attack = before_battle(players)
    s = F.act(s, 0, attack).state
    assert s.battle is not None and s.battle.stage == "conflict"
    assert sorted((p.seat, p.kind) for p in engine.pending(s)) == [(0, "conflict"), (1, "conflict")]
    if attacker_chose:
        card = F.cid(0, F.card_index(s, "audacious_charge"))
        s = F.act(s, 0, {"type": "choose_conflict", "card": card}).state
        assert [(p.seat, p.kind) for p in engine.pending(s)] == [(1, "conflict")]
    return s


def fracture_window() -> engine.GameState:
    """3 players: seat 0 attacks seat 1 with its Sceptre of Rage; the sceptre window (R64, R37) asks seats 1
    (holding Fracture) and 2 whether to fracture it."""
    s, attack = before_battle(3, arts={0: ["sceptre_rage"]}, hands={1: WITH_FRACTURE})
    s = F.act(s, 0, attack).state
    assert s.window is not None and s.window.kind == "sceptre" and s.window.asked == [1, 2]
    return s


def crown_look(crown: str, players: int = 2) -> engine.GameState:
    """Seat 0 used its Crown of Insight (the top four of its own deck) or Prosperity (the top card of seat
    1's deck) and the crown window passed: seat 0 looks at those cards (R41, R97) and must decide."""
    s = F.edit(F.game(players, seed=1))
    F.set_artefacts(s, 0, [f"crown_{crown}"])
    payload: dict[str, Any] = {"type": "use_crown"}
    if crown == "prosperity":
        payload["player"] = 1
    s = F.act(s, 0, payload).state
    for _ in range(players):
        if s.choice is not None:
            break
        assert s.window is not None and s.window.kind == "crown"
        p = engine.pending(s)[0]
        s = engine.apply(s, p.seat, p.timeout_action).state
    kind = "insight_order" if crown == "insight" else crown
    assert s.choice is not None and s.choice.kind == kind and s.choice.seat == 0 and s.choice.cards
    return s
