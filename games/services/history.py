"""History and records: replaying a game to verify its stored hashes, and importing a finished game record
(``docs/game-record.md``)."""

from __future__ import annotations

import json

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games import engine
from games.models import ActionRecord, Game, Seat
from games.services.errors import BadPayload
from games.services.play import (
    Applied,
    move_store,
    record_for,
    snapshot_due,
)
from games.store import record_apply
from mastery.text import single_line


def game_verify(*, game_id: int) -> tuple[bool, str]:
    """Replay a game from its setup and records, checking every stored hash (``manage.py verify_game``).

    Returns:
        ``(ok, message)``; the message names the first mismatch.
    """
    try:
        game = Game.objects.get(pk=game_id)
    except Game.DoesNotExist:
        return False, "no such game"
    if game.setup is None:
        return True, "not started: nothing to verify"
    records = {r.seq: r for r in game.actions.order_by("seq").iterator()}
    undos: dict[int, set[int]] = {}  # undo seq -> the seqs it took back (issue 16)
    for r in records.values():
        if r.undone_in is not None:
            undos.setdefault(r.undone_in, set()).add(r.seq)
    if set(records) & set(undos) or set(records) | set(undos) != set(range(1, game.seq + 1)):
        return False, f"gap in the log: seq 1..{game.seq} are not each one record or one undo"
    # The steps in force, as a stack: a record applies to the top; an undo takes back the top steps.
    stack: list[tuple[int, engine.GameState]] = [(0, engine.new_game(game.setup))]
    for seq in range(1, game.seq + 1):
        record = records.get(seq)
        if record is None:
            if {n for n, _ in stack[-len(undos[seq]) :]} != undos[seq]:
                return False, f"undo {seq} does not take back the last steps"
            del stack[-len(undos[seq]) :]
            continue
        try:
            state = record_apply(stack[-1][1], record)
        except (engine.IllegalAction, engine.InvalidActionPayload) as exc:
            return False, f"action {seq} no longer applies: {exc}"
        if engine.state_hash(state) != record.state_hash:
            return False, f"hash mismatch after action {seq}"
        stack.append((seq, state))
    state = stack[-1][1]
    if engine.state_hash(state) != game.state_hash or engine.to_dict(state) != game.state:
        return False, "the stored state differs from the replayed state"
    return True, f"ok: {len(stack) - 1} actions replayed, hash {game.state_hash[:12]}"


#: Limits of an imported game record (bytes of JSON are checked by the view).
IMPORT_MAX_ACTIONS = 20_000


def game_import(*, user: User, record: object) -> Game:
    """Store a finished game record (``docs/game-record.md``) as an imported, unrated game that can be
    replayed like any finished game. Seats take the record's ``players`` names (else "Player N").

    Raises:
        BadPayload (400): not a record, an unknown setup, an action that does not apply (the message names
        its index), too many actions, or a game that is not finished.
    """
    setup, state, actions = _import_start(record)
    fields = record if isinstance(record, dict) else {}  # a dict: _import_start checked it
    raw_names = fields.get("players")
    names: list[object] = raw_names if isinstance(raw_names, list) else []
    raw_title = fields.get("title")
    title = raw_title if isinstance(raw_title, str) else ""
    options = setup["options"]
    content = setup.get("content")
    with transaction.atomic():
        game = Game.objects.create(
            title=(single_line(title) or "Imported game")[:80],
            created_by=user,
            players=state.num_players,
            options=dict(options) if isinstance(options, dict) else {},
            content=content[:20] if isinstance(content, str) else "custom",
            time_control="relaxed",
            imported=True,
            status=Game.Status.ACTIVE,
            setup=setup,
            started_at=timezone.now(),
        )
        seats = [
            Seat.objects.create(
                game=game,
                number=n,
                guest_name=(single_line(str(names[n])) if n < len(names) else "")[:40] or f"Player {n + 1}",
            )
            for n in range(state.num_players)
        ]
        move_store(game, _import_replay(game, state, actions), seats)
    return game


def _import_start(record: object) -> tuple[dict[str, object], engine.GameState, list[object]]:
    """Check a record's shape and set its game up: ``(normalized setup, initial state, actions)``.

    Raises:
        BadPayload: not a record, NUL characters, too many actions, another ``format`` than
            ``medieval-mastery/2`` or ``/1``, a ``/2`` setup that names no rules edition, or a setup the
            engine refuses.
    """
    if not isinstance(record, dict) or not isinstance(record.get("setup"), dict):
        raise BadPayload("not a game record: it needs a setup and actions")
    if "\\u0000" in json.dumps(record):
        raise BadPayload("a record cannot contain NUL characters")
    actions = record.get("actions")
    if not isinstance(actions, list) or len(actions) > IMPORT_MAX_ACTIONS:
        raise BadPayload(f"a record needs a list of at most {IMPORT_MAX_ACTIONS} actions")
    try:
        raw_setup, actions = engine.read_record(record)
    except engine.ContentError as exc:  # the envelope is sound: the format, or its edition, is left
        if record.get("format") in (engine.RECORD_FORMAT, engine.RECORD_FORMAT_1):
            raise BadPayload(f"the setup is not valid: {exc}") from exc
        raise BadPayload("this is not a medieval-mastery game record") from exc
    try:
        setup = engine.normalize_setup(raw_setup)
        state = engine.new_game(setup)
    except engine.ContentError as exc:
        raise BadPayload(f"the setup is not valid: {exc}") from exc
    return setup, state, actions


def _import_replay(game: Game, state: engine.GameState, actions: list[object]) -> Applied:
    """Apply a record's ``actions`` from ``state``: the records and snapshots to store for ``game``.

    Raises:
        BadPayload: an action that does not apply (``index`` names it), or a game without a winner.
    """
    sources = set(ActionRecord.Source.values)
    records: list[ActionRecord] = []
    snapshots: list[tuple[int, engine.GameState]] = []
    for index, entry in enumerate(actions):
        try:
            if not isinstance(entry, dict) or type(entry.get("seat")) is not int:
                raise BadPayload("an action needs a seat")
            action = engine.parse_action(entry.get("action"))
            t = engine.apply(state, entry["seat"], action)
        except (engine.IllegalAction, engine.InvalidActionPayload, BadPayload) as exc:
            raise BadPayload(f"action {index} does not apply: {exc}", index=index) from exc
        source = entry.get("source") if entry.get("source") in sources else ActionRecord.Source.WEB
        records.append(record_for(game, index + 1, entry["seat"], str(source), action, state, t))
        state = t.state
        if snapshot_due(index + 1):
            snapshots.append((index + 1, state))
    if not state.winners:
        raise BadPayload("only finished games can be imported (this record has no winner)")
    return Applied(state, records, snapshots)
