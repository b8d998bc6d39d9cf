"""The shipped map layouts (games/engine/data/layouts) obey the hard layout rules.

Rule references: R19 (centre-outwards fill order), R23 and RULING Q2 (Homelands
slots), R25 (clockwise seats), R8 / content.md §4.2 (three games from one box),
content.md §6.4 (counts and layout rules). The checks themselves live in
``tests/engine/layout_checks.py`` (ported from ``shared/rules/layouts/validate.py``).

The negative tests start from a valid shipped layout, break exactly one thing
and show that the matching check reports it.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.engine.layout_checks import (
    EXPECTED_COUNTS,
    Layout,
    check_castles,
    check_counts,
    check_fill_order,
    check_lakes,
    check_layering,
    check_seats,
    check_shape,
    load_layout,
    parse_layout,
    seat_metrics,
    validate,
)

LAYOUT_DIR = Path(__file__).resolve().parents[2] / "games" / "engine" / "data" / "layouts"
PLAYER_COUNTS = (2, 3, 4, 5, 6)

RawLayout = dict[str, Any]


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

_CACHE: dict[int, RawLayout] = {}


def raw_layout(players: int) -> RawLayout:
    """A fresh, freely modifiable copy of the shipped layout's JSON."""
    if players not in _CACHE:
        path = LAYOUT_DIR / f"{players}p.json"
        _CACHE[players] = json.loads(path.read_text(encoding="utf-8"))
    return copy.deepcopy(_CACHE[players])


def build(data: RawLayout) -> Layout:
    """Parse modified layout JSON; the modification must stay well-formed."""
    layout, errors = parse_layout(data, "modified")
    assert layout is not None
    assert errors == []
    return layout


def at(data: RawLayout, q: int, r: int) -> dict[str, Any]:
    """The JSON entry of the position at ``(q, r)``."""
    found = [p for p in data["positions"] if (p["q"], p["r"]) == (q, r)]
    assert len(found) == 1, f"no single position at {(q, r)}"
    entry: dict[str, Any] = found[0]
    return entry


def castle_of(data: RawLayout, seat: int) -> dict[str, Any]:
    """The JSON entry of the castle of ``seat``."""
    found = [p for p in data["positions"] if p["kind"] == "castle" and p["seat"] == seat]
    assert len(found) == 1
    entry: dict[str, Any] = found[0]
    return entry


def swap_contents(data: RawLayout, a: tuple[int, int], b: tuple[int, int]) -> None:
    """Exchange what stands at hexes ``a`` and ``b`` (kind, vp, seat); the
    list order of the entries is unchanged."""
    first, second = at(data, *a), at(data, *b)
    keep_a = {k: v for k, v in first.items() if k not in ("q", "r")}
    keep_b = {k: v for k, v in second.items() if k not in ("q", "r")}
    for entry, contents in ((first, keep_b), (second, keep_a)):
        for key in [k for k in entry if k not in ("q", "r")]:
            del entry[key]
        entry.update(contents)


def has_error(errors: list[str], fragment: str) -> bool:
    return any(fragment in e for e in errors)


# --------------------------------------------------------------------------
# The shipped layouts
# --------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_shipped_layout_is_valid(players: int) -> None:
    """Every shipped layout passes all hard checks (content.md §6.4, R19, R23, Q2)."""
    layout, errors = load_layout(LAYOUT_DIR / f"{players}p.json")
    assert errors == []
    assert layout is not None
    assert layout.players == players
    assert layout.provenance == "reconstructed"
    assert validate(layout) == []


def test_layout_files_cover_every_player_count() -> None:
    """One layout per player count 2..6 (R19), and nothing else in the folder."""
    names = sorted(p.name for p in LAYOUT_DIR.glob("*.json"))
    assert names == [f"{n}p.json" for n in PLAYER_COUNTS]


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_vp1_position_is_the_homelands_slot_of_exactly_one_castle(players: int) -> None:
    """R23 / RULING Q2: a castle touches exactly two territory positions, and no
    territory position touches two castles, so Q2 can never trigger."""
    layout = build(raw_layout(players))
    for castle in layout.castles:
        lands = [n for n in layout.neighbours(castle.hex) if n.kind == "territory"]
        assert len(lands) == 2
    for territory in layout.territories:
        castles = [n for n in layout.neighbours(territory.hex) if n.kind == "castle"]
        assert len(castles) == (1 if territory.vp == 1 else 0)


def test_box_holds_enough_lakes_for_simultaneous_games() -> None:
    """R6 / R8 / content.md §4.2: the box's 3 lakes and 30 territories suffice for
    three 2-player games, two 3-player games, or a 2- and a 4-player game."""
    layouts = {n: build(raw_layout(n)) for n in PLAYER_COUNTS}
    for combo in ((2, 2, 2), (3, 3), (2, 4), (5,), (6,)):
        assert sum(len(layouts[n].lakes) for n in combo) <= 3, combo
        assert sum(len(layouts[n].territories) for n in combo) <= 30, combo


#: README fairness tables: per player count, VP within 2 and 3 steps (every
#: seat), with the one documented exception (5 players, seat 3: 18 VP).
README_VP_WITHIN = {2: (7, 17), 3: (7, 20), 4: (9, 24), 5: (7, 19), 6: (9, 24)}


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_fairness_metrics_match_the_layout_readme(players: int) -> None:
    """Soft metrics (not enforced by ``validate``) as documented in layouts/README.md."""
    metrics = seat_metrics(build(raw_layout(players)))
    assert sorted(metrics) == list(range(players))
    within_2, within_3 = README_VP_WITHIN[players]
    for seat, row in metrics.items():
        assert row["d_vp2"] == 2
        assert row["d_vp3"] == 2
        assert row["vp_within_2"] == within_2
        expected_3 = 18 if (players, seat) == (5, 3) else within_3
        assert row["vp_within_3"] == expected_3
        assert row["voronoi_count"] == 4
        assert row["voronoi_vp"] == 7


# --------------------------------------------------------------------------
# Negative tests: each check catches a broken layout
# --------------------------------------------------------------------------


def test_wrong_vp_counts_are_caught() -> None:
    """content.md §6.4: 4 players need 8 / 6 / 6 territories of VP 1 / 2 / 3."""
    data = raw_layout(4)
    at(data, 1, 0)["vp"] = 2  # a central VP 3 becomes VP 2
    layout = build(data)
    errors = check_counts(layout)
    assert "5 VP 3 territories, expected 6" in errors
    assert "7 VP 2 territories, expected 6" in errors
    assert validate(layout) != []


def test_wrong_lake_and_castle_counts_are_caught() -> None:
    """content.md §6.4: 2 players need 2 castles and 1 lake."""
    data = raw_layout(2)
    data["positions"] = [p for p in data["positions"] if p["kind"] != "lake"]
    data["positions"].append({"q": 6, "r": 6, "kind": "castle", "seat": 2})
    errors = check_counts(build(data))
    assert "0 lakes, expected 1" in errors
    assert "3 castles, expected 2" in errors


def test_disconnected_map_is_caught() -> None:
    """The map is one connected piece (content.md §6.4)."""
    data = raw_layout(2)
    at(data, 2, -1)["q"] = 12  # a VP 1 territory drifts far away
    errors = check_shape(build(data))
    assert has_error(errors, "map is not connected")


def test_map_with_a_hole_is_caught() -> None:
    """The map has no holes: removing a central territory of the 4-player map leaves one."""
    data = raw_layout(4)
    data["positions"].remove(at(data, 1, 0))
    errors = check_shape(build(data))
    assert errors == ["map has holes at [(1, 0)]"]


def test_castle_touching_a_lake_is_caught() -> None:
    """content.md §6.4: castles touch no lake (the default set has no Q13 lake castle)."""
    data = raw_layout(2)
    swap_contents(data, (0, 0), (2, -1))  # the lake moves next to seat 1's castle
    layout = build(data)
    assert check_counts(layout) == []
    assert has_error(check_castles(layout), "castle of seat 1 at (3, -1) touches a lake")


def test_castle_with_three_adjacent_territories_is_caught() -> None:
    """R23 / RULING Q2: a castle touches exactly two territory positions (at most two Homelands)."""
    data = raw_layout(2)
    data["positions"].append({"q": 3, "r": 0, "kind": "territory", "vp": 1})
    errors = check_castles(build(data))
    assert "castle of seat 1 at (3, -1) touches 3 territory position(s), expected exactly 2" in errors


def test_vp1_territory_touching_two_castles_is_caught() -> None:
    """RULING Q2: no Homelands slot may touch two castles."""
    data = raw_layout(2)
    castle = castle_of(data, 1)
    castle["q"], castle["r"] = -2, -1  # next to (-2, 0), which already touches seat 0's castle
    errors = check_castles(build(data))
    assert "VP 1 territory at (-2, 0) touches 2 castles" in errors


def test_castle_next_to_a_non_vp1_territory_is_caught() -> None:
    """content.md §6.4: both neighbours of a castle are VP 1 positions (Homelands slots)."""
    data = raw_layout(2)
    at(data, 2, -1)["vp"] = 2
    at(data, 1, -1)["vp"] = 1  # counts stay 4 / 3 / 3
    layout = build(data)
    assert check_counts(layout) == []
    assert "castle of seat 1 at (3, -1) touches a territory that is not VP 1" in check_castles(layout)


def test_castles_touching_each_other_are_caught() -> None:
    """content.md §6.4: a castle touches no other castle."""
    data = raw_layout(2)
    castle = castle_of(data, 1)
    castle["q"], castle["r"] = -4, 1  # right next to seat 0's castle at (-3, 1)
    errors = check_castles(build(data))
    assert has_error(errors, "castle of seat 0 at (-3, 1) touches another castle")


def test_castle_inside_the_map_is_caught() -> None:
    """content.md §4.1: castles sit on the edge, in front of their player."""
    data = raw_layout(2)
    for q, r in ((4, -1), (3, 0), (3, -2), (4, -2)):  # surround seat 1's castle
        data["positions"].append({"q": q, "r": r, "kind": "territory", "vp": 1})
    errors = check_castles(build(data))
    assert has_error(errors, "castle of seat 1 at (3, -1) is not on the map's edge")


def test_lake_on_the_edge_is_caught() -> None:
    """content.md §6.4: lakes lie inside the map, surrounded on all six sides."""
    data = raw_layout(4)
    swap_contents(data, (1, -1), (1, -2))  # the northern lake moves to the rim
    layout = build(data)
    assert check_counts(layout) == []
    assert "lake at (1, -2) is on the map's edge" in check_lakes(layout)


def test_lake_with_too_few_shore_territories_is_caught() -> None:
    """Each lake links at least three territories (R11 / R53)."""
    data = raw_layout(2)
    for q, r in ((1, -1), (1, 0), (0, 1), (-1, 1)):  # four of the six shore territories become lakes
        entry = at(data, q, r)
        entry["kind"] = "lake"
        del entry["vp"]
    errors = check_lakes(build(data))
    assert "lake at (0, 0) touches only 2 territories" in errors


def test_vp1_territory_in_the_middle_is_caught() -> None:
    """content.md §4.1 (roachware): VP 1 territories lie on the outside, VP 3 in the middle."""
    data = raw_layout(2)
    swap_contents(data, (2, -1), (1, 0))  # a homelands slot and a lake-shore VP 3 change places
    layout = build(data)
    assert check_counts(layout) == []
    errors = check_layering(layout)
    assert "VP 1 territory at (1, 0) touches a lake" in errors
    assert "VP 3 territory at (2, -1) touches a castle" in errors


def test_inverted_vp_rings_are_caught() -> None:
    """content.md §4.1: VP 2 further in than VP 1, VP 3 in the middle. Swapping the
    VP 2 and VP 3 values of the 4-player map puts VP 2 in the centre."""
    data = raw_layout(4)
    for entry in data["positions"]:
        if entry.get("vp") in (2, 3):
            entry["vp"] = 5 - entry["vp"]
    layout = build(data)
    assert check_counts(layout) == []
    errors = check_layering(layout)
    assert has_error(errors, "mean distance to the nearest castle must grow VP1 < VP2 <= VP3")
    assert has_error(errors, "mean distance to the centroid must shrink VP1 > VP2 >= VP3")


def test_vp3_nearer_to_a_castle_than_every_vp2_is_caught() -> None:
    """content.md §4.1: VP 2 lies between the outer VP 1 and the central VP 3, so
    from every castle some VP 2 territory is at least as near as any VP 3."""
    data = raw_layout(2)
    swap_contents(data, (1, -1), (-1, 0))  # seat 1's nearest VP 2 trades places with a far VP 3
    layout = build(data)
    assert check_counts(layout) == []
    errors = check_layering(layout)
    assert errors == ["seat 1: a VP 3 territory (2 steps) is nearer than every VP 2 one (3 steps)"]


def test_seats_not_clockwise_are_caught() -> None:
    """R25: seat order is turn order and runs clockwise around the map."""
    data = raw_layout(4)
    seat_1, seat_3 = castle_of(data, 1), castle_of(data, 3)
    seat_1["seat"], seat_3["seat"] = 3, 1
    errors = check_seats(build(data))
    assert errors == ["seats do not run clockwise: clockwise order is [0, 3, 2, 1]"]


def test_duplicate_seats_are_caught() -> None:
    """R19: castle positions are assigned to seats 0..n-1, once each."""
    data = raw_layout(3)
    castle_of(data, 2)["seat"] = 0
    errors = check_seats(build(data))
    assert errors == ["castle seats are [0, 0, 1], expected 0..2"]


def test_positions_out_of_fill_order_are_caught() -> None:
    """R19: positions are listed centre-outwards, the order in which tiles are laid."""
    data = raw_layout(6)
    positions = data["positions"]
    positions[0], positions[-1] = positions[-1], positions[0]
    layout = build(data)
    assert check_fill_order(layout) != []
    assert has_error(check_fill_order(layout), "entry 0")
    assert validate(layout) != []


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_reversed_fill_order_is_caught(players: int) -> None:
    """R19: the outermost position never comes first."""
    data = raw_layout(players)
    data["positions"].reverse()
    assert has_error(check_fill_order(build(data)), "not in centre-outwards order")


# --------------------------------------------------------------------------
# Malformed files
# --------------------------------------------------------------------------


def test_malformed_entries_are_reported() -> None:
    data = raw_layout(2)
    data["positions"].append({"q": 0, "r": 0, "kind": "lake"})  # duplicate coordinate
    data["positions"].append({"q": 9, "r": 9, "kind": "forest"})
    data["positions"].append({"q": 9, "r": 8, "kind": "territory"})
    data["positions"].append({"q": 9, "r": 7, "kind": "castle", "seat": 1, "vp": 1})
    layout, errors = parse_layout(data)
    assert layout is not None
    assert "duplicate coordinate (0, 0)" in errors
    assert "positions[14]: unknown kind 'forest'" in errors
    assert "positions[15]: a territory needs 'vp' equal to 1, 2 or 3" in errors
    assert "positions[16]: unexpected keys ['vp'] for a castle" in errors


@pytest.mark.parametrize("players", [1, 7, "4", True, None])
def test_unsupported_player_count_is_rejected(players: object) -> None:
    """R1: 2-6 players."""
    data = raw_layout(4)
    data["players"] = players
    layout, errors = parse_layout(data)
    assert layout is None
    assert has_error(errors, "'players' must be an integer 2..6")


def test_file_name_must_match_player_count(tmp_path: Path) -> None:
    path = tmp_path / "3p.json"
    path.write_text(json.dumps(raw_layout(2)), encoding="utf-8")
    layout, errors = load_layout(path)
    assert layout is not None
    assert errors == ["file for 2 players should be named 2p.json"]


def test_expected_counts_cover_the_player_range() -> None:
    """content.md §6.4: one row per player count; castles = players (R18)."""
    assert sorted(EXPECTED_COUNTS) == list(PLAYER_COUNTS)
    for players, (castles, lakes, vp_counts) in EXPECTED_COUNTS.items():
        assert castles == players
        assert 1 <= lakes <= 3
        assert vp_counts[1] == 2 * players  # two Homelands slots per castle
