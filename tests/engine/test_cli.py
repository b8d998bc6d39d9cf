"""The command line (``python -m games.engine``), run as a real subprocess from the repository root.

``replay RECORD.json`` prints ``{"summary", "state_hash"}`` and exits 0, exits 2 with ``{"error", "index"}``
when an action is illegal or malformed, and 1 for a bad file or setup. ``play`` plays a seeded game with
the random-legal bot and prints a summary, the number of actions, the state hash and the record.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from games.engine import public_summary, replay, state_hash
from games.engine.view import referee_summary

REPO_ROOT = Path(__file__).resolve().parents[2]
GOLDEN = REPO_ROOT / "tests" / "engine" / "scenarios" / "battle-example.json"
RECORD_DOC = REPO_ROOT / "docs" / "game-record.md"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m games.engine ARGS`` from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def output(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The JSON object printed on stdout."""
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


@lru_cache(maxsize=8)
def _play(*args: str) -> tuple[int, str]:
    proc = run_cli("play", *args)
    return proc.returncode, proc.stdout


def play(*args: str) -> tuple[int, dict[str, Any]]:
    """``play ARGS``: exit status and printed JSON (cached per argument list)."""
    code, stdout = _play(*args)
    data: dict[str, Any] = json.loads(stdout)
    return code, data


def golden() -> dict[str, Any]:
    """A fresh copy of the golden battle-example record."""
    data: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


def write(path: Path, data: Any) -> str:
    """Write ``data`` as JSON to ``path`` and return the path as a string."""
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_replay_golden_record_prints_summary_and_hash() -> None:
    """R80, R93: ``replay`` of the golden battle example exits 0 and prints the public summary and the
    state hash of the replayed game (City conquered by seat 0 with 6 knights, Defiance face down)."""
    proc = run_cli("replay", str(GOLDEN))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = output(proc)
    assert set(out) == {"rules_edition", "summary", "referee", "state_hash"}
    assert out["rules_edition"] == 2  # issue 31: the edition it was replayed with
    rec = golden()
    state = replay(rec["setup"], rec["actions"])
    assert out["state_hash"] == state_hash(state)
    assert out["summary"] == public_summary(state)
    assert out["referee"] == referee_summary(state)
    assert out["summary"]["control"]["t5"] == {"owner": 0, "knights": 6}
    assert out["summary"]["artefacts_face_down"] == ["sceptre_defiance"]
    assert out["summary"]["phase"] == "window"


def test_replay_with_illegal_action_exits_2_with_index(tmp_path: Path) -> None:
    """R55: a record whose action 3 is illegal (7 knights into a territory of capacity 6) makes ``replay``
    exit 2 and print the error code and the index of the failing action."""
    rec = golden()
    assert rec["actions"][3]["action"]["type"] == "advance"
    rec["actions"][3] = {"seat": 1, "action": {"type": "advance", "to": "t5", "knights": 7}}
    proc = run_cli("replay", write(tmp_path / "bad.json", rec))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = output(proc)
    assert out["error"] == "over_capacity"
    assert out["index"] == 3


def test_replay_failure_prints_the_referee_summary_of_the_position_before(tmp_path: Path) -> None:
    """Issue 14 (records and replay): the golden battle with the defender's last pass (action 14) turned
    into a conflict card it no longer may play: ``replay`` exits 2 with the code, the index and the referee
    summary of the position that action met: hand, deck and discard sizes, dice in use, castle and
    territory knights, each seat's supplied territories, and the battle in progress with both combat scores
    by source (knights, City, Sceptre of Rage, the revealed conflict cards, the support cards: R60, R62,
    R65, R68, R70)."""
    rec = golden()
    assert rec["actions"][12] == {"seat": 1, "action": {"type": "pass_support"}}
    rec["actions"][12] = {"seat": 1, "action": {"type": "choose_conflict", "card": "s1c05"}}
    proc = run_cli("replay", write(tmp_path / "late.json", rec))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = output(proc)
    assert (out["error"], out["index"]) == ("wrong_phase", 12)
    assert out["params"]["phase"] == "battle" and out["params"]["step"] == "support"
    before = out["before"]
    expected = referee_summary(replay(rec["setup"], rec["actions"][:12]))
    assert before == expected
    battle = before["battle"]
    assert battle["pos"] == "t5" and battle["step"] == 5
    att, dfd = battle["attacker"], battle["defender"]
    assert (att["seat"], att["score"], dfd["seat"], dfd["score"]) == (0, 14, 1, 12)
    sources = {p["source"] for p in att["parts"]} | {p["source"] for p in dfd["parts"]}
    assert {"knights", "city", "rage", "conflict", "support"} <= sources
    seat0 = before["players"][0]
    counts = ("hand", "deck", "discard", "dice_in_use", "castle", "vp")
    assert set(seat0) == {"seat", *counts, "supplied", "unsupplied"}
    assert "t8" in seat0["supplied"] and before["territories"]["t5"]["owner"] == 1


def test_replay_with_out_of_turn_action_exits_2(tmp_path: Path) -> None:
    """R26, R27: an action by a seat that is not deciding (seat 0 ending seat 1's turn) is refused with
    ``not_your_decision`` at its index."""
    rec = golden()
    rec["actions"][3] = {"seat": 0, "action": {"type": "end_turn"}}
    proc = run_cli("replay", write(tmp_path / "turn.json", rec))
    assert proc.returncode == 2
    out = output(proc)
    assert (out["error"], out["index"]) == ("not_your_decision", 3)


def test_replay_with_malformed_action_payload_exits_2(tmp_path: Path) -> None:
    """R26: a malformed action payload (unknown type) at index 3 is reported as ``invalid_payload``."""
    rec = golden()
    rec["actions"][3] = {"seat": 1, "action": {"type": "teleport"}}
    proc = run_cli("replay", write(tmp_path / "payload.json", rec))
    assert proc.returncode == 2
    out = output(proc)
    assert (out["error"], out["index"]) == ("invalid_payload", 3)


def test_replay_malformed_file_exits_1(tmp_path: Path) -> None:
    """R1: a file that is not JSON, a record without a setup, a missing file and a setup with 7 players
    are bad records: exit 1 with ``bad_record``."""
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "medieval-mastery/1", "setup": ', encoding="utf-8")
    no_setup = write(tmp_path / "nosetup.json", {"format": "medieval-mastery/1", "actions": []})
    seven = write(
        tmp_path / "seven.json",
        {"format": "medieval-mastery/1", "setup": {"players": 7, "seed": 1}, "actions": []},
    )
    for path in (str(broken), no_setup, str(tmp_path / "missing.json"), seven):
        proc = run_cli("replay", path)
        assert proc.returncode == 1, (path, proc.stdout, proc.stderr)
        assert output(proc)["error"] == "bad_record"


def test_play_three_players_prints_summary_and_a_replayable_record() -> None:
    """R1, R25, R103: ``play --players 3 --seed 5`` prints a summary (the game is over with a winner, or
    has a turn count), the number of actions and a record that replays to the printed state hash."""
    code, out = play("--players", "3", "--seed", "5")
    assert code == 0
    summary = out["summary"]
    assert summary["phase"] == "over" or summary["turn"] >= 1
    assert isinstance(summary["turn"], int) and summary["turn"] >= 1
    if summary["phase"] == "over":
        assert summary["winners"] and all(summary["vp"][w] >= 13 for w in summary["winners"])
    assert len(summary["vp"]) == 3 and len(summary["castles"]) == 3
    record = out["record"]
    assert record["format"] == "medieval-mastery/2"
    assert record["setup"]["players"] == 3 and record["setup"]["seed"] == 5
    assert len(record["actions"]) == out["actions"]
    state = replay(record["setup"], record["actions"])
    assert state_hash(state) == out["state_hash"]
    assert public_summary(state) == summary


def test_play_with_boolean_options() -> None:
    """R116, R118: ``--options mayhem cut_throat`` turns both options on in the record's setup, and the
    record replays to the printed hash."""
    code, out = play("--players", "2", "--seed", "7", "--options", "mayhem", "cut_throat")
    assert code == 0
    setup = out["record"]["setup"]
    assert setup["options"] == {"mayhem": True, "cut_throat": True, "rules_edition": 2}
    state = replay(setup, out["record"]["actions"])
    assert state_hash(state) == out["state_hash"]
    assert state.setup["options"]["mayhem"] is True and state.setup["options"]["cut_throat"] is True


def test_play_with_allegiance_pairs() -> None:
    """R105, R106, R109: ``--options allegiance=pairs`` with 4 players plays a team game (teams 0+2 and
    1+3); a finished game is won by a whole team with 20 VP or more together."""
    code, out = play("--players", "4", "--seed", "3", "--options", "allegiance=pairs")
    assert code == 0
    setup = out["record"]["setup"]
    assert setup["options"] == {"allegiance": "pairs", "rules_edition": 2}
    state = replay(setup, out["record"]["actions"])
    assert state_hash(state) == out["state_hash"]
    assert [p.team for p in state.players] == [0, 1, 0, 1]
    summary = out["summary"]
    if summary["phase"] == "over":
        winners = summary["winners"]
        assert winners in ([0, 2], [1, 3])
        assert sum(summary["vp"][w] for w in winners) >= 20


def test_play_rejects_illegal_option_combinations() -> None:
    """R105, Q28: Allegiance needs 4 or 6 players, teams of three need 6, and Allegiance cannot be combined
    with Castle Siege; unknown options are refused — each exits 1 with ``bad_setup``."""
    cases = [
        ("--players", "3", "--options", "allegiance=pairs"),
        ("--players", "4", "--options", "allegiance=triples"),
        ("--players", "4", "--options", "allegiance=pairs", "castle_siege"),
        ("--players", "2", "--options", "no_such_option"),
    ]
    for args in cases:
        proc = run_cli("play", "--seed", "1", "--summary-only", *args)
        assert proc.returncode == 1, (args, proc.stdout)
        assert output(proc)["error"] == "bad_setup"


def test_play_summary_only_omits_the_record() -> None:
    """R103: ``--summary-only`` prints the summary, action count and hash but no record."""
    code, full = play("--players", "2", "--seed", "11")
    proc = run_cli("play", "--players", "2", "--seed", "11", "--summary-only")
    assert code == 0 and proc.returncode == 0
    out = output(proc)
    assert set(out) == {"summary", "actions", "state_hash"}
    assert out["state_hash"] == full["state_hash"] and out["summary"] == full["summary"]


def test_play_same_seed_gives_identical_output() -> None:
    """R7, R25: chance comes only from the seeded counter-based RNG, so the same command twice prints
    byte-identical output; another seed gives another game."""
    first = run_cli("play", "--players", "3", "--seed", "5")
    second = run_cli("play", "--players", "3", "--seed", "5")
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout
    other = run_cli("play", "--players", "3", "--seed", "6")
    assert json.loads(other.stdout)["state_hash"] != json.loads(first.stdout)["state_hash"]


def test_replay_is_deterministic() -> None:
    """R7: replaying the same record twice prints the same state hash."""
    a = run_cli("replay", str(GOLDEN))
    b = run_cli("replay", str(GOLDEN))
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout


def doc_example() -> dict[str, Any]:
    """The complete example record of ``docs/game-record.md`` (the first JSON block after its heading)."""
    text = RECORD_DOC.read_text(encoding="utf-8")
    section = text.split("## 9. A complete example", 1)[1]
    block = section.split("```json\n", 1)[1].split("```", 1)[0]
    data: dict[str, Any] = json.loads(block)
    return data


def test_documented_example_record_replays(tmp_path: Path) -> None:
    """R31, R34, R43, R56, R86, R117: the example record in docs/game-record.md replays through the CLI
    (exit 0) to the position the document states: turn 3, castles 10 / 9, t8 and t10 held by seat 0 with
    1 and 4 knights, VP 1 / 0 under Skirmish."""
    rec = doc_example()
    assert rec["format"] == "medieval-mastery/2"
    assert any(entry.get("source") == "timeout" for entry in rec["actions"])
    proc = run_cli("replay", write(tmp_path / "example.json", rec))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = output(proc)["summary"]
    assert (summary["turn"], summary["active"], summary["phase"]) == (3, 0, "window")
    assert summary["castles"] == [10, 9]
    assert summary["control"] == {"t8": {"owner": 0, "knights": 1}, "t10": {"owner": 0, "knights": 4}}
    assert summary["vp"] == [1, 0]
