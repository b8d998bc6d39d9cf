"""Issue 31 §5: every stored game names its rules edition.

Games stored before the engine's default became the current edition (``RULES_EDITION``) name none in their
setup: they were set up, and are played, with edition 1 (``LEGACY_EDITION``). This migration writes
``"rules_edition": 1`` into their setup and into every stored state (the game's and its snapshots'),
recomputes those states' hashes, and recomputes every action record's hash by replaying the game with the
engine (the hash covers the setup, so every one of them changes; nothing else does). A game whose record
no longer replays keeps the hashes of the records it could not reach (``manage.py verify_game`` reported
it before this migration too).

The reverse is a no-op: the engine no longer writes setups without an edition.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

from games import engine

#: The key and value written into the setups that name no edition.
KEY, LEGACY = "rules_edition", 1


def _with_edition(setup: dict[str, Any]) -> dict[str, Any]:
    """``setup`` naming edition 1."""
    return {**setup, "options": {**(setup.get("options") or {}), KEY: LEGACY}}


def _patched(state: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A stored state dict whose setup names edition 1, and its hash."""
    state = {**state, "setup": _with_edition(state["setup"])}
    return state, engine.state_hash(engine.from_dict(state))


def _record_hashes(game: Any, records: list[Any]) -> list[Any]:
    """Replay ``game`` (its setup already naming its edition) through ``records`` (ordered by seq; undone
    ones taken back at their undo, as ``games.services.history.game_verify`` does), setting each record's
    ``state_hash``. Returns the records set; a record that no longer applies ends the replay there."""
    by_seq = {r.seq: r for r in records}
    undos: dict[int, set[int]] = {}
    for r in records:
        if r.undone_in is not None:
            undos.setdefault(r.undone_in, set()).add(r.seq)
    stack: list[tuple[int, engine.GameState]] = [(0, engine.new_game(game.setup))]
    changed: list[Any] = []
    for seq in range(1, game.seq + 1):
        record = by_seq.get(seq)
        if record is None:
            taken = undos.get(seq, set())
            if taken and {n for n, _ in stack[-len(taken) :]} == taken:
                del stack[-len(taken) :]
            continue
        seat = record.seat if record.seat is not None else stack[-1][1].active
        try:
            state = engine.apply(stack[-1][1], seat, engine.parse_action(record.payload)).state
        except engine.EngineError:
            return changed
        record.state_hash = engine.state_hash(state)
        changed.append(record)
        stack.append((seq, state))
    return changed


def name_editions(apps: Any, schema_editor: Any) -> None:
    """Write edition 1 into every stored game whose setup names none, and recompute its hashes."""
    Game = apps.get_model("games", "Game")
    ActionRecord = apps.get_model("games", "ActionRecord")
    Snapshot = apps.get_model("games", "Snapshot")
    for game in Game.objects.exclude(setup=None).iterator():
        if KEY in (game.setup.get("options") or {}):
            continue
        game.setup = _with_edition(game.setup)
        if game.state is not None:
            game.state, game.state_hash = _patched(game.state)
        for snap in Snapshot.objects.filter(game=game):
            snap.state, snap.state_hash = _patched(snap.state)
            snap.save(update_fields=["state", "state_hash"])
        records = list(ActionRecord.objects.filter(game=game).order_by("seq"))
        ActionRecord.objects.bulk_update(_record_hashes(game, records), ["state_hash"], batch_size=500)
        game.save(update_fields=["setup", "state", "state_hash"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0023_pending_order_source"),
    ]

    operations = [
        migrations.RunPython(name_editions, migrations.RunPython.noop, elidable=True),
    ]
