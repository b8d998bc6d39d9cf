"""The guided first game (issue 15): a real two-player game against a bot, unrated and kept out of the
archive, set up from a fixed record so that the newcomer's first turn shows every part of a turn: knights
placed, a resource card, a crown, a redistribution, an advance, a battle with a Fracture window, conflict and
support cards, and the restore step.

The position comes from :data:`SETUP` (pinned tiles, artefacts, decks and first player on a small map) and
the five turns of :data:`OPENING`, stored as ordinary action records (source ``server``), so replays and
``verify_game`` treat it like any other game. Everything after the opening goes through the same service
path as every game (``action_submit``, the bot, the sweep).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import engine
from games.bots import stand_ins
from games.models import TIME_CONTROLS, ActionRecord, Game, Seat
from games.services.play import Applied, bots_run, move_store, record_for, snapshot_due

#: The tutorial's map: castles at both ends, a lake, and the territories the guided turn needs.
LAYOUT: dict[str, object] = {
    "players": 2,
    "provenance": "guided first game",
    "positions": [
        {"q": -2, "r": 0, "kind": "castle", "seat": 0},
        {"q": -1, "r": 0, "kind": "territory", "vp": 1},
        {"q": 0, "r": 0, "kind": "territory", "vp": 3},
        {"q": 1, "r": 0, "kind": "castle", "seat": 1},
        {"q": 0, "r": 1, "kind": "lake"},
        {"q": -1, "r": 1, "kind": "territory", "vp": 1},
        {"q": 1, "r": 1, "kind": "territory", "vp": 2},
        {"q": 0, "r": -1, "kind": "territory", "vp": 2},
    ],
}

#: The newcomer sits at seat 0 (red), the bot at seat 1 (blue). Windows go round in turn and nobody waits
#: for a masked pass (``fracture_mask`` 0), so the bot never keeps the newcomer waiting.
SETUP: dict[str, object] = {
    "players": 2,
    "seed": 7,
    "layout": LAYOUT,
    "options": {"rules_edition": 2, "fracture_windows": "in_turn", "fracture_mask": [0, 0]},
    "pin": {
        "tiles": {"t1": "forest", "t2": "city", "t5": "grasslands", "t6": "fort", "t7": "cave"},
        "first_player": 1,
        "artefacts": [
            ["crown_vitality", "sceptre_rage", "orb_brutality"],
            ["crown_order", "sceptre_defiance", "orb_preparation"],
        ],
        "decks": [
            ["fracture", "heroic_assault", "war_banner", "rallying_cry", "call_to_arms"],
            ["shield_wall", "rallying_cry", "war_banner", "call_to_arms", "fracture"],
        ],
    },
}

#: Blue takes the City with 5 knights; red takes the Forest (4) and the Grasslands (1); on its last turn
#: before the guided one blue plays its Fracture on red's Orb of Brutality (R36 (a)), so the orb lies face
#: down through the guided turn and the restore step at its end turns it face up (R93, R94).
OPENING: tuple[tuple[int, engine.Action], ...] = (
    (1, engine.Advance(to="t2", knights=5)),
    (1, engine.EndTurn()),
    (0, engine.Advance(to="t1", knights=4)),
    (0, engine.EndTurn()),
    (1, engine.EndTurn()),
    (0, engine.Advance(to="t5", knights=1)),
    (0, engine.EndTurn()),
    (1, engine.Fracture(target="orb_brutality")),
    (1, engine.EndTurn()),
)

#: The newcomer's artefacts Blue fractures in the opening: face down through the guided turn, restored at
#: its end (R93).
FRACTURED_IN_OPENING: frozenset[str] = frozenset(
    action.target for _seat, action in OPENING if isinstance(action, engine.Fracture)
)

#: The turn number of the newcomer's guided turn (the turn after the opening).
GUIDED_TURN = 6


def tutorial_start(*, user: User) -> Game:
    """Open a guided first game for ``user`` (seat 0) against a bot (seat 1), at the start of the guided
    turn. Unrated (a bot seat), never in the archive (``Game.tutorial``).

    Returns:
        The started game; its opening is stored as :data:`OPENING`'s records (source ``server``).
    """
    setup = engine.normalize_setup(SETUP)
    state = engine.new_game(setup)
    with transaction.atomic():
        game = Game.objects.create(
            title=_("Guided first game"),  # in the language the newcomer reads the site in
            created_by=user,
            players=2,
            options=dict(setup["options"]),
            content=str(setup["content"]),
            time_control="relaxed",
            turn_seconds=TIME_CONTROLS["relaxed"][1],
            response_seconds=TIME_CONTROLS["relaxed"][2],
            private=True,
            tutorial=True,
            status=Game.Status.ACTIVE,
            setup=setup,
            started_at=timezone.now(),
        )
        seats = [
            Seat.objects.create(game=game, number=0, user=user),
            Seat.objects.create(game=game, number=1, is_bot=True, guest_name="Bot 1", bot_level="easy"),
        ]
        records: list[ActionRecord] = []
        snapshots: list[tuple[int, engine.GameState]] = []
        for seq, (seat, action) in enumerate(OPENING, start=1):
            transition = engine.apply(state, seat, action)
            records.append(record_for(game, seq, seat, ActionRecord.Source.SERVER, action, state, transition))
            state = transition.state
            if snapshot_due(seq) and seq < len(OPENING):  # bots_run keeps the last one if due
                snapshots.append((seq, state))
        applied = bots_run(game, state, stand_ins(seats), records, len(records), seats)
        move_store(game, Applied(applied.state, applied.records, snapshots + applied.snapshots), seats)
    return game
