"""Issue 31 §5: migration ``0024_rules_edition`` writes ``"rules_edition": 1`` into the stored games whose
setup names no edition (games stored before the engine's default became the current edition) and
recomputes every stored hash, so that ``verify_game`` passes and the game plays on by its own rules."""

from __future__ import annotations

import hashlib
import importlib
from typing import Any

import pytest
from django.apps import apps

from games import engine, services
from games.engine.state import canonical_json
from games.models import ActionRecord, Game, Snapshot

from .conftest import create_started_game, seat_users

MIGRATION = importlib.import_module("games.migrations.0024_rules_edition")


def old_hash(state: engine.GameState) -> str:
    """The hash an engine before issue 31 stored: its canonical setup left edition 1 out."""
    data = without_edition(engine.to_dict(state))  # a copy: the state's own setup is shared
    return hashlib.sha256(canonical_json(data).encode("ascii")).hexdigest()


def without_edition(data: dict[str, Any]) -> dict[str, Any]:
    options = {k: v for k, v in data["setup"]["options"].items() if k != "rules_edition"}
    return {**data, "setup": {**data["setup"], "options": options}}


def play(game: Game, moves: int) -> None:
    """``moves`` first legal actions of whoever must decide, through the services."""
    users = seat_users(game)
    for _ in range(moves):
        game.refresh_from_db()
        state = engine.from_dict(game.state)
        prompt = next(p for p in engine.pending(state) if not p.auto)
        action = engine.legal_actions(state, prompt.seat)[-1]
        services.action_submit(game_id=game.pk, user=users[prompt.seat], action=action, expected_seq=game.seq)


def age(game: Game) -> None:
    """Store ``game`` as an engine before issue 31 did: no edition in its setup and states, old hashes."""
    game.refresh_from_db()
    records = list(ActionRecord.objects.filter(game=game).order_by("seq"))
    assert game.setup is not None
    state = engine.new_game(game.setup)
    for record in records:
        assert record.seat is not None
        state = engine.apply(state, record.seat, engine.parse_action(record.payload)).state
        record.state_hash = old_hash(state)
    ActionRecord.objects.bulk_update(records, ["state_hash"])
    for snap in Snapshot.objects.filter(game=game):
        snap.state_hash = old_hash(engine.from_dict(snap.state))
        snap.state = without_edition(snap.state)
        snap.save()
    Game.objects.filter(pk=game.pk).update(
        setup=without_edition({"setup": game.setup})["setup"],
        state=without_edition(game.state),
        state_hash=old_hash(engine.from_dict(game.state)),
    )


@pytest.mark.django_db
def test_games_without_an_edition_get_edition_1_and_their_hashes_are_recomputed(settings: Any) -> None:
    settings.SNAPSHOT_EVERY = 4
    old = create_started_game(humans=2, seed=5, options={"rules_edition": 1, "fracture_mask": [0, 0]})
    current = create_started_game(humans=2, seed=5, options={"fracture_mask": [0, 0]})
    for game in (old, current):
        play(game, 9)
    age(old)
    old.refresh_from_db()
    assert (
        old.setup is not None
        and "rules_edition" not in old.setup["options"]
        and Snapshot.objects.filter(game=old).exists()
    )
    assert not services.game_verify(game_id=old.pk)[0]  # read by today's engine, it is another game
    before = {r.seq: r.state_hash for r in ActionRecord.objects.filter(game=current)}

    MIGRATION.name_editions(apps, None)

    old.refresh_from_db()
    assert old.setup is not None and old.setup["options"]["rules_edition"] == 1
    assert old.state["setup"]["options"]["rules_edition"] == 1
    ok, message = services.game_verify(game_id=old.pk)
    assert ok, message
    assert engine.state_hash(engine.from_dict(old.state)) == old.state_hash
    for snap in Snapshot.objects.filter(game=old):
        assert snap.state["setup"]["options"]["rules_edition"] == 1
        assert engine.state_hash(engine.from_dict(snap.state)) == snap.state_hash
    # a game that named its edition is left as it was
    assert {r.seq: r.state_hash for r in ActionRecord.objects.filter(game=current)} == before
    # and the migrated game plays on by edition 1
    play(old, 2)
    old.refresh_from_db()
    assert services.game_verify(game_id=old.pk)[0] and old.state["setup"]["options"]["rules_edition"] == 1
