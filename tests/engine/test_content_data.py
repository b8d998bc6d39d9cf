"""The content data files (games/engine/data/content-*.json) match content.md.

``content-default.json`` is the reconstructed default set of content.md §6 with
the EN/KO Shrine reading; ``content-abbey.json`` is the same set with the SV/PL
Abbey reading (RULING Q17, D1). The files are read with json + pathlib only;
the engine is not imported.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

DATA_DIR = Path(__file__).resolve().parents[2] / "games" / "engine" / "data"
LAYOUT_DIR = DATA_DIR / "layouts"
CONTENT_FILES = ("content-default.json", "content-abbey.json")

Content = dict[str, Any]

TOP_LEVEL_KEYS = {
    "id",
    "name",
    "provenance",
    "notes",
    "numbers",
    "deck",
    "artefacts",
    "territory_types",
    "tiles",
    "castles",
}
ARTEFACT_KEYS = {"id", "name", "name_ko", "type", "ability", "trigger", "affects", "text"}
TERRITORY_TYPE_KEYS = {
    "id",
    "name",
    "name_ko",
    "capacity",
    "start_of_battle",
    "on_conquest",
    "no_support",
    "homelands",
    "text",
}

#: content.md §1: ability -> (type, trigger, affected player).
ARTEFACTS: dict[str, tuple[str, str, str]] = {
    "corruption": ("crown", "own_turn", "chosen_player"),
    "fury": ("crown", "own_turn", "you"),
    "insight": ("crown", "own_turn", "you"),
    "order": ("crown", "own_turn", "you"),
    "prosperity": ("crown", "own_turn", "chosen_player"),
    "vitality": ("crown", "own_turn", "you"),
    "fear": ("sceptre", "attacking", "you"),
    "influence": ("sceptre", "attacking", "rival"),
    "rage": ("sceptre", "attacking", "you"),
    "defiance": ("sceptre", "defending", "rival"),
    "loyalty": ("sceptre", "defending", "you"),
    "vigour": ("sceptre", "defending", "you"),
    "brutality": ("orb", "win", "rival"),
    "greed": ("orb", "win", "you"),
    "preparation": ("orb", "win", "you"),
    "cleansing": ("orb", "lose", "you"),
    "devotion": ("orb", "lose", "you"),
    "resurgence": ("orb", "lose", "you"),
}
TYPE_TITLES = {"crown": ("Crown", "왕관"), "sceptre": ("Sceptre", "홀"), "orb": ("Orb", "오브")}

#: content.md §6.1: the non-resource cards, name -> (kind, value, copies).
NON_RESOURCE_CARDS: dict[str, tuple[str, int | str, int]] = {
    "Probing Attack": ("conflict", 2, 1),
    "Shield Wall": ("conflict", 3, 2),
    "Audacious Charge": ("conflict", 4, 2),
    "Heroic Assault": ("conflict", 5, 1),
    "Ambush": ("conflict", "d6", 2),
    "Rallying Cry": ("support", 1, 3),
    "War Banner": ("support", 2, 3),
}

#: content.md §6.2: (type, vp) -> number of tiles.
TILES: dict[tuple[str, int], int] = {
    ("homelands", 1): 4,
    ("grasslands", 1): 2,
    ("forest", 1): 2,
    ("marshlands", 1): 2,
    ("village", 1): 2,
    ("fort", 2): 2,
    ("ruins", 2): 2,
    ("forest", 2): 1,
    ("mountains", 2): 1,
    ("cave", 2): 1,
    ("abbey", 2): 1,
    ("shrine", 2): 1,
    ("city", 3): 2,
    ("fortress", 3): 2,
    ("arena", 3): 2,
    ("battlefield", 3): 2,
    ("mountains", 3): 1,
}


def load(name: str) -> Content:
    data: Content = json.loads((DATA_DIR / name).read_text(encoding="utf-8"))
    return data


def layout_vp_counts(players: int) -> Counter[int]:
    """VP value -> number of territory positions in the shipped layout."""
    data = json.loads((LAYOUT_DIR / f"{players}p.json").read_text(encoding="utf-8"))
    return Counter(p["vp"] for p in data["positions"] if p["kind"] == "territory")


def tiles_by_vp(content: Content) -> Counter[int]:
    counts: Counter[int] = Counter()
    for tile in content["tiles"]:
        counts[tile["vp"]] += tile["count"]
    return counts


def types_by_id(content: Content) -> dict[str, dict[str, Any]]:
    return {t["id"]: t for t in content["territory_types"]}


def walk(value: object) -> list[object]:
    """Every scalar in a decoded JSON document."""
    if isinstance(value, dict):
        return [x for v in value.values() for x in walk(v)]
    if isinstance(value, list):
        return [x for v in value for x in walk(v)]
    return [value]


# --------------------------------------------------------------------------
# Both files
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_content_file_parses_with_the_expected_keys(name: str) -> None:
    """content.md §6: one complete, data-only content set, marked as reconstructed."""
    content = load(name)
    assert set(content) == TOP_LEVEL_KEYS
    assert content["provenance"] == "reconstructed"
    assert content["notes"]
    assert not any(isinstance(x, float) for x in walk(content)), "ints and strings only, no floats"


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_numbers_match_the_rules(name: str) -> None:
    """A spot check of the numbers block against the rules (R1, R7, R23, R31, R103, R109, R117)."""
    numbers = load(name)["numbers"]
    assert (numbers["players_min"], numbers["players_max"]) == (2, 6)
    assert numbers["dice_per_player"] == 10
    assert numbers["starting_knights"] == 6
    assert numbers["knights_per_turn"] == 3
    assert numbers["victory_vp"] == 13
    assert numbers["skirmish_victory_vp"] == 11
    assert numbers["team_victory_vp"] == {"2": 20, "3": 30}
    assert numbers["max_homelands_per_castle"] == 2
    assert all(isinstance(v, int) for k, v in numbers.items() if k != "team_victory_vp")


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_deck_has_18_cards_with_one_of_each_resource(name: str) -> None:
    """R2: 18 cards, exactly 4 resources (Authority, Call to Arms, Tactical Advance,
    Fracture), the other 14 as in content.md §6.1."""
    deck = load(name)["deck"]
    assert sum(card["copies"] for card in deck) == 18
    assert len({card["id"] for card in deck}) == len(deck)
    resources = [card for card in deck if card["kind"] == "resource"]
    assert sorted((card["effect"], card["copies"]) for card in resources) == [
        ("authority", 1),
        ("call_to_arms", 1),
        ("fracture", 1),
        ("tactical_advance", 1),
    ]
    others = {
        card["name"]: (card["kind"], card["value"], card["copies"]) for card in deck if card not in resources
    }
    assert others == NON_RESOURCE_CARDS


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_card_values_are_in_range(name: str) -> None:
    """R3: conflict cards 2..5 or Ambush (d6); R4: support cards +1 or +2."""
    for card in load(name)["deck"]:
        if card["kind"] == "conflict":
            assert card["value"] in (2, 3, 4, 5, "d6")
            assert (card["value"] == "d6") == (card["id"] == "ambush")
        elif card["kind"] == "support":
            assert card["value"] in (1, 2)
        else:
            assert card["kind"] == "resource"
            assert "value" not in card


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_artefacts_are_six_crowns_six_sceptres_six_orbs(name: str) -> None:
    """R5 / content.md §1: 18 artefacts, 6 per type, with the right trigger and affected player."""
    artefacts = load(name)["artefacts"]
    assert len(artefacts) == 18
    assert Counter(a["type"] for a in artefacts) == {"crown": 6, "sceptre": 6, "orb": 6}
    assert {a["ability"] for a in artefacts} == set(ARTEFACTS)
    for artefact in artefacts:
        assert set(artefact) == ARTEFACT_KEYS
        ability = artefact["ability"]
        assert (artefact["type"], artefact["trigger"], artefact["affects"]) == ARTEFACTS[ability]
        title_en, title_ko = TYPE_TITLES[artefact["type"]]
        assert artefact["id"] == f"{artefact['type']}_{ability}"
        assert artefact["name"] == f"{title_en} of {ability.capitalize()}"
        assert artefact["name_ko"].endswith(f"의 {title_ko}")
        assert artefact["text"]


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_artefact_triggers_by_type(name: str) -> None:
    """R91: crowns once per own turn; sceptres when attacking/defending; orbs on win/lose."""
    allowed = {"crown": {"own_turn"}, "sceptre": {"attacking", "defending"}, "orb": {"win", "lose"}}
    artefacts = load(name)["artefacts"]
    for artefact in artefacts:
        assert artefact["trigger"] in allowed[artefact["type"]]
    for kind in ("sceptre", "orb"):
        assert set(Counter(a["trigger"] for a in artefacts if a["type"] == kind).values()) == {3}


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_territory_types_are_well_formed(name: str) -> None:
    """content.md §2.1 and §6.2: abilities, capacities (Cave 3, Battlefield 4, else 6), one Homelands type."""
    content = load(name)
    types = types_by_id(content)
    assert len(types) == len(content["territory_types"])
    default_capacity = content["numbers"]["default_capacity"]
    for type_id, ttype in types.items():
        assert set(ttype) == TERRITORY_TYPE_KEYS
        assert ttype["start_of_battle"] in (None, "attacker_bonus", "defender_bonus", "arena")
        assert set(ttype["on_conquest"]) <= {"place_knight", "lose_knight", "may_discard"}
        expected_capacity = {"cave": 3, "battlefield": 4}.get(type_id, default_capacity)
        assert ttype["capacity"] == expected_capacity
        assert isinstance(ttype["no_support"], bool)
        assert isinstance(ttype["homelands"], bool)
    assert [t for t, v in types.items() if v["homelands"]] == ["homelands"]
    assert [t for t, v in types.items() if v["no_support"]] == ["mountains"]
    assert types["grasslands"]["start_of_battle"] == "attacker_bonus"
    assert types["arena"]["start_of_battle"] == "arena"
    for type_id in ("fort", "city", "fortress"):
        assert types[type_id]["start_of_battle"] == "defender_bonus"
    assert types["city"]["on_conquest"] == ["place_knight"]
    assert types["fortress"]["on_conquest"] == ["may_discard"]
    assert types["village"]["on_conquest"] == ["place_knight"]
    assert types["ruins"]["on_conquest"] == ["may_discard"]
    assert types["marshlands"]["on_conquest"] == ["lose_knight"]
    forest = types["forest"]
    assert (forest["start_of_battle"], forest["on_conquest"], forest["name_ko"]) == (None, [], "숲")


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_tiles_are_the_30_of_section_6_2(name: str) -> None:
    """R6 / content.md §6.2: 30 territory tiles, 12 / 9 / 9 of VP 1 / 2 / 3."""
    content = load(name)
    tiles = content["tiles"]
    assert {(t["type"], t["vp"]): t["count"] for t in tiles} == TILES
    assert len(tiles) == len(TILES)  # no (type, vp) pair listed twice
    assert sum(t["count"] for t in tiles) == 30
    assert tiles_by_vp(content) == {1: 12, 2: 9, 3: 9}


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_every_tile_type_exists_and_every_type_is_used(name: str) -> None:
    content = load(name)
    types = types_by_id(content)
    used = {t["type"] for t in content["tiles"]}
    assert used <= set(types)
    assert used == set(types)


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_castles(name: str) -> None:
    """content.md §6.3: six castles, one per colour."""
    castles = load(name)["castles"]
    assert [c["name"] for c in castles] == ["Nivernais", "Touraine", "Anjou", "Berry", "Champagne", "Poitou"]
    assert [c["colour"] for c in castles] == ["red", "blue", "yellow", "green", "purple", "black"]


@pytest.mark.parametrize("name", CONTENT_FILES)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_content_has_enough_tiles_for_each_layout(name: str, players: int) -> None:
    """R19: every territory position is filled from the pile of its VP value."""
    available = tiles_by_vp(load(name))
    for vp, needed in layout_vp_counts(players).items():
        assert needed <= available[vp], f"{players}p layout needs {needed} VP {vp} tiles"


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_box_supplies_three_simultaneous_games(name: str) -> None:
    """R8 / content.md §4.2: three 2-player games, two 3-player games, or a
    2-player and a 4-player game at once, from one box of tiles."""
    available = tiles_by_vp(load(name))
    for combo in ((2, 2, 2), (3, 3), (2, 4)):
        needed: Counter[int] = Counter()
        for players in combo:
            needed.update(layout_vp_counts(players))
        for vp, count in needed.items():
            assert count <= available[vp], f"games {combo} need {count} VP {vp} tiles"


@pytest.mark.parametrize("name", CONTENT_FILES)
def test_enough_homelands_for_every_castle_slot(name: str) -> None:
    """R23: Homelands are VP 1 tiles; at most two per castle."""
    content = load(name)
    homelands = [t for t in content["tiles"] if types_by_id(content)[t["type"]]["homelands"]]
    assert all(t["vp"] == 1 for t in homelands)
    assert sum(t["count"] for t in homelands) <= 2 * content["numbers"]["players_max"]


# --------------------------------------------------------------------------
# RULING Q17: the two readings
# --------------------------------------------------------------------------


def test_default_set_uses_the_en_ko_shrine_reading() -> None:
    """RULING Q17 (default, EN/KO): Shrine places a knight; Abbey only has the discard."""
    content = load("content-default.json")
    assert (content["id"], content["name"]) == ("default", "Default reconstructed set")
    types = types_by_id(content)
    assert types["shrine"]["on_conquest"] == ["place_knight"]
    assert types["abbey"]["on_conquest"] == ["may_discard"]


def test_abbey_set_uses_the_sv_pl_reading() -> None:
    """RULING Q17 (alternative, SV/PL): Abbey has both conquest abilities; Shrine has none."""
    content = load("content-abbey.json")
    assert (content["id"], content["name"]) == ("abbey", "Default (SV/PL Abbey reading)")
    types = types_by_id(content)
    assert sorted(types["abbey"]["on_conquest"]) == ["may_discard", "place_knight"]
    assert types["shrine"]["on_conquest"] == []
    assert types["shrine"]["start_of_battle"] is None


def test_the_two_readings_differ_only_in_abbey_and_shrine() -> None:
    """RULING Q17: the alternative reading is a data swap, nothing else changes."""
    default, abbey = load("content-default.json"), load("content-abbey.json")
    for key in TOP_LEVEL_KEYS - {"id", "name", "notes", "territory_types"}:
        assert default[key] == abbey[key], key
    default_types, abbey_types = types_by_id(default), types_by_id(abbey)
    assert list(default_types) == list(abbey_types)
    changed = {t for t in default_types if default_types[t] != abbey_types[t]}
    assert changed == {"abbey", "shrine"}
    for type_id in changed:
        old, new = default_types[type_id], abbey_types[type_id]
        assert {k for k in old if old[k] != new[k]} == {"on_conquest", "text"}
