"""Issue 31 §5, the edition of the rules: a setup that names no ``rules_edition`` gets the current one
(:data:`games.engine.RULES_EDITION`; before, it got the first reading of R37, Q7, Q35 and R112), every
canonical setup names its edition, records are written as ``medieval-mastery/2`` (the setup names it) and a
``medieval-mastery/1`` record that names none is read as edition 1 (:data:`games.engine.LEGACY_EDITION`)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.engine import (
    LEGACY_EDITION,
    RECORD_FORMAT,
    RECORD_FORMAT_1,
    RULES_EDITION,
    ContentError,
    apply,
    make_record,
    new_game,
    normalize_setup,
    read_record,
    replay,
    state_hash,
)
from games.engine.bot import random_step
from games.engine.rng import Rng
from games.engine.rules.core import edition

ROOT = Path(__file__).resolve().parents[2]


def test_a_setup_without_an_edition_gets_the_current_rules_and_names_them() -> None:
    state = new_game({"players": 3})
    assert RULES_EDITION == 2 and edition(state) == RULES_EDITION
    assert state.setup["options"]["rules_edition"] == RULES_EDITION
    assert normalize_setup({"players": 3})["options"]["rules_edition"] == RULES_EDITION


@pytest.mark.parametrize("named", [1, 2])
def test_a_named_edition_is_kept_in_the_canonical_setup(named: int) -> None:
    setup = normalize_setup({"players": 2, "options": {"rules_edition": named}})
    assert setup["options"]["rules_edition"] == named
    assert normalize_setup(setup) == setup  # canonical: normalising again changes nothing


@pytest.mark.parametrize("bad", [0, 3, "2", True, None, 1.0])
def test_an_unknown_edition_is_a_content_error(bad: Any) -> None:
    with pytest.raises(ContentError):
        new_game({"players": 2, "options": {"rules_edition": bad}})


def played(edition_named: int | None) -> dict[str, Any]:
    """A record of 40 random actions of a 2-player game (the edition named, or none)."""
    options = {} if edition_named is None else {"rules_edition": edition_named}
    state = new_game({"players": 2, "seed": 9, "options": options})
    rng, history = Rng(9), []
    for _ in range(40):
        step = random_step(state, rng)
        if step is None:
            break
        history.append(step)
        state = apply(state, *step).state
    return make_record(state.setup, history)


def test_records_are_written_in_format_2_and_name_their_edition() -> None:
    record = played(None)
    assert record["format"] == RECORD_FORMAT == "medieval-mastery/2"
    assert record["setup"]["options"]["rules_edition"] == RULES_EDITION
    setup, actions = read_record(record)
    assert setup == record["setup"] and replay(setup, actions).setup == record["setup"]


def test_a_format_1_record_that_names_no_edition_is_read_as_edition_1() -> None:
    """A record written before issue 14 (format 1, no edition): read with the reading it was played with,
    so it replays to the same game as the same record naming edition 1."""
    old = played(LEGACY_EDITION)
    legacy = copy.deepcopy(old)
    legacy["format"] = RECORD_FORMAT_1
    del legacy["setup"]["options"]["rules_edition"]
    setup, actions = read_record(legacy)
    assert setup["options"]["rules_edition"] == LEGACY_EDITION == 1
    assert state_hash(replay(setup, actions)) == state_hash(replay(*read_record(old)))
    # the same setup read bare by the engine is the current edition: the format decides, not a guess
    assert edition(new_game(legacy["setup"])) == RULES_EDITION


def test_a_format_2_record_must_name_its_edition() -> None:
    record = played(None)
    del record["setup"]["options"]["rules_edition"]
    with pytest.raises(ContentError, match="rules_edition"):
        read_record(record)


@pytest.mark.parametrize(("form", "expected"), [(RECORD_FORMAT_1, 1), (RECORD_FORMAT, 2)])
def test_the_cli_replay_prints_the_edition(tmp_path: Path, form: str, expected: int) -> None:
    record = played(expected)
    record["format"] = form
    if form == RECORD_FORMAT_1:
        del record["setup"]["options"]["rules_edition"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "games.engine", "replay", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["rules_edition"] == expected
